//! Integration tests of spawning and the watchdog through `/proc`, one test binary for all of them.
//! Helper roles re-execute this binary with `--exact <module>::<entry>`, so an entry's name
//! includes its module. The subreaper test stays alone in `tests/spawn_reaper.rs` (its
//! `waitpid(-1)` would reap other tests' children).

#[path = "../spawn_util/mod.rs"]
mod spawn_util;

mod spawn_debugpy;
mod spawn_process;
mod spawn_watchdog;
