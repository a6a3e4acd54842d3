//! Integration tests of the first-run subcommands (`demo`, `doctor`, `install`) on the built binary,
//! one test binary for all of them.

#[path = "../common/mod.rs"]
mod common;

mod cli_demo;
mod cli_doctor;
mod cli_install;
