//! Attach to an `rdbg --open` the test started.
