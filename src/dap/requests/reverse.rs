//! The reverse requests agentdap answers (DAP § Reverse Requests): `runInTerminal` and
//! `startDebugging`. The client surfaces their arguments untouched (`Output::RunInTerminal`,
//! `Output::StartDebugging`); these are the shapes, and what agentdap answers.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ReverseRequest;

/// DAP § Reverse Requests › RunInTerminal: the adapter asks the client to run a command (the
/// debuggee, or a launcher) in a terminal.
#[derive(Clone, Copy, Debug)]
pub enum RunInTerminal {}

impl ReverseRequest for RunInTerminal {
    const COMMAND: &'static str = "runInTerminal";
    type Arguments = RunInTerminalArguments;
    type Response = RunInTerminalResponse;
}

/// DAP § Reverse Requests › StartDebugging: the adapter asks the client to start a child
/// session. Answered without a body.
#[derive(Clone, Copy, Debug)]
pub enum StartDebugging {}

impl ReverseRequest for StartDebugging {
    const COMMAND: &'static str = "startDebugging";
    type Arguments = StartDebuggingArguments;
    type Response = ();
}

/// DAP § Reverse Requests › RunInTerminal `RunInTerminalRequestArguments`. agentdap's host-request
/// policy reads the arguments itself, with its own messages for each malformed field; this is
/// their shape.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInTerminalArguments {
    /// What kind of terminal to launch: `integrated` or `external`.
    #[serde(default)]
    pub kind: Option<String>,
    /// Title of the terminal.
    #[serde(default)]
    pub title: Option<String>,
    /// Working directory for the command.
    #[serde(default)]
    pub cwd: String,
    /// List of arguments. The first argument is the command to run.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment key-value pairs to add to or remove from (`null`) the default environment.
    #[serde(default)]
    pub env: Option<Map<String, Value>>,
    /// Whether the arguments may be interpreted by a shell.
    #[serde(default)]
    pub args_can_be_interpreted_by_shell: Option<bool>,
}

/// DAP § Reverse Requests › RunInTerminal response body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInTerminalResponse {
    /// The process ID of the program started (agentdap: the terminal program's pid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_id: Option<i64>,
    /// The process ID of the terminal shell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_process_id: Option<i64>,
}

/// DAP § Reverse Requests › StartDebugging `StartDebuggingRequestArguments`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartDebuggingArguments {
    /// Arguments passed to the new debug session, the same as a `launch` or `attach` request's;
    /// passed on untouched.
    pub configuration: Map<String, Value>,
    /// Whether the new session is started with `launch` or `attach`.
    pub request: String,
}
