//! What to run for a debug adapter or a `runInTerminal` request (DAP § Reverse Requests › RunInTerminal): a plain value the recipes and the session layer build; spawning it is `os::spawn`'s, never this module's.

use std::ffi::OsString;
use std::path::PathBuf;

/// What to run: program, arguments, working directory and environment changes.
///
/// The child inherits agentdap's environment with `env` applied on top (`Some` sets, `None`
/// removes). Used for adapters and also fits `runInTerminal` children (DAP § Reverse Requests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdapterCommand {
    /// The executable: a path, or a bare name looked up on `PATH` by `execvp`.
    pub program: OsString,
    /// Arguments after the program name.
    pub args: Vec<OsString>,
    /// Working directory of the child; `None` keeps agentdap's.
    pub cwd: Option<PathBuf>,
    /// Environment changes applied in order: `Some(value)` sets, `None` removes.
    pub env: Vec<(OsString, Option<OsString>)>,
}

impl AdapterCommand {
    /// A command with no arguments, inheriting cwd and environment.
    pub fn new(program: impl Into<OsString>) -> AdapterCommand {
        AdapterCommand { program: program.into(), ..AdapterCommand::default() }
    }
}
