//! The requests that start and end a debug session: `initialize`, `launch`, `attach`,
//! `configurationDone`, `restart`, `disconnect`, `terminate`, and `cancel`.

use serde::Serialize;
use serde_json::Value;

use super::{request, NoBody};
use crate::dap::protocol::Capabilities;

request!(
    /// DAP § Requests › Initialize: the first request; the body is the adapter's
    /// [`Capabilities`].
    Initialize, "initialize", InitializeArguments, Capabilities
);

request!(
    /// DAP § Requests › Launch. The arguments stay a `Value`: they are the recipe's defaults
    /// plus the agent's `adapter_args`, passed through untouched.
    Launch, "launch", Value, NoBody
);

request!(
    /// DAP § Requests › Attach. The arguments stay a `Value`, as for [`Launch`].
    Attach, "attach", Value, NoBody
);

request!(
    /// DAP § Requests › ConfigurationDone. agentdap sends it without `arguments` (the spec's
    /// `ConfigurationDoneArguments` is empty).
    ConfigurationDone, "configurationDone", (), NoBody
);

request!(
    /// DAP § Requests › Restart (when `supportsRestartRequest`).
    Restart, "restart", RestartArguments, NoBody
);

request!(
    /// DAP § Requests › Disconnect.
    Disconnect, "disconnect", DisconnectArguments, NoBody
);

request!(
    /// DAP § Requests › Terminate (when `supportsTerminateRequest`). agentdap sends `{}`.
    Terminate, "terminate", TerminateArguments, NoBody
);

request!(
    /// DAP § Requests › Cancel (when `supportsCancelRequest`): sent by the client for a request
    /// it abandoned; the answer is only logged.
    Cancel, "cancel", CancelArguments, NoBody
);

/// DAP § Requests › Initialize `InitializeRequestArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeArguments {
    /// The ID of the client using this adapter.
    #[serde(rename = "clientID", skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The human-readable name of the client using this adapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// The ID of the debug adapter (agentdap sends the adapter's `type`: `debugpy`, `lldb-dap`, `go`).
    #[serde(rename = "adapterID")]
    pub adapter_id: String,
    /// The ISO-639 locale of the client using this adapter, e.g. en-US or de-CH.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// If true all line numbers are 1-based (default).
    #[serde(rename = "linesStartAt1", skip_serializing_if = "Option::is_none")]
    pub lines_start_at1: Option<bool>,
    /// If true all column numbers are 1-based (default).
    #[serde(rename = "columnsStartAt1", skip_serializing_if = "Option::is_none")]
    pub columns_start_at1: Option<bool>,
    /// Determines in what format paths are specified: `path` or `uri`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_format: Option<String>,
    /// Client supports the `type` attribute for variables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_variable_type: Option<bool>,
    /// Client supports the paging of variables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_variable_paging: Option<bool>,
    /// Client supports the `runInTerminal` request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_run_in_terminal_request: Option<bool>,
    /// Client supports memory references.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_memory_references: Option<bool>,
    /// Client supports progress reporting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_progress_reporting: Option<bool>,
    /// Client supports the `invalidated` event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_invalidated_event: Option<bool>,
    /// Client supports the `memory` event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_memory_event: Option<bool>,
    /// Client supports the `argsCanBeInterpretedByShell` attribute on the `runInTerminal` request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_args_can_be_interpreted_by_shell: Option<bool>,
    /// Client supports the `startDebugging` request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_start_debugging_request: Option<bool>,
}

impl InitializeArguments {
    /// What agentdap sends: `adapter_id` is the adapter's `type`; `supports_run_in_terminal` is
    /// the session's runInTerminal policy. Pinned by `initialize_arguments_exact`
    /// (`src/dap/protocol/tests.rs`).
    pub fn agentdap(adapter_id: &str, supports_run_in_terminal: bool) -> InitializeArguments {
        InitializeArguments {
            client_id: Some("agentdap".into()),
            client_name: Some("agentdap".into()),
            adapter_id: adapter_id.into(),
            locale: None,
            lines_start_at1: Some(true),
            columns_start_at1: Some(true),
            path_format: Some("path".into()),
            supports_variable_type: Some(true),
            supports_variable_paging: Some(true),
            supports_run_in_terminal_request: Some(supports_run_in_terminal),
            supports_memory_references: Some(true),
            supports_progress_reporting: Some(false),
            supports_invalidated_event: Some(true),
            supports_memory_event: None,
            supports_args_can_be_interpreted_by_shell: None,
            supports_start_debugging_request: Some(true),
        }
    }
}

/// DAP § Requests › Restart `RestartArguments`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestartArguments {
    /// The latest version of the `launch` or `attach` configuration (agentdap: the session's
    /// launch arguments, untouched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// DAP § Requests › Disconnect `DisconnectArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisconnectArguments {
    /// A value of true indicates that this `disconnect` request is part of a restart sequence
    /// (agentdap always sends `false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart: Option<bool>,
    /// Whether the debuggee should be terminated when the debugger is disconnected; when
    /// unspecified, the adapter decides (when `supportTerminateDebuggee`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminate_debuggee: Option<bool>,
    /// Whether the debuggee should stay suspended when the debugger is disconnected (when
    /// `supportSuspendDebuggee`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspend_debuggee: Option<bool>,
}

/// DAP § Requests › Terminate `TerminateArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminateArguments {
    /// A value of true indicates that this `terminate` request is part of a restart sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart: Option<bool>,
}

/// DAP § Requests › Cancel `CancelArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelArguments {
    /// The ID (`seq`) of the request to cancel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<i64>,
    /// The ID (`progressId`) of the progress to cancel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress_id: Option<String>,
}
