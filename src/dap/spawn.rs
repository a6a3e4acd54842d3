//! Spawning adapters (process group, PR_SET_PDEATHSIG, non-blocking pipes) and the watchdog.
