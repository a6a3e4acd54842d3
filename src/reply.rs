//! What every layer shares about answering a tool call: the call's key, the result, the stable
//! error codes, and the one mapping from a DAP request's outcome to an error code.
//!
//! Must not: import any module of the crate but DAP's `Outcome` and `jsonrpc::insert` (it is the one
//! every layer may use; the layering test in `src/layering.rs` checks it).

use std::fmt;

use serde_json::{json, Value};

use crate::dap::client::Outcome;

/// A tool call answered later (the MCP layer's `Outcome::Pending`); unique for the life of the
/// process. The MCP layer makes them; every other layer only carries them back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallKey(u64);

impl CallKey {
    /// The key of the MCP layer's `n`th pending call.
    pub(crate) fn new(n: u64) -> CallKey {
        CallKey(n)
    }
}

/// Stable error codes of tool results (README § Tools lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidArgument,
    SessionNotFound,
    NotStopped,
    TargetInvalidated,
    Unsupported,
    AdapterNotFound,
    AdapterError,
    Timeout,
    Disconnected,
    HostRequestPending,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::NotStopped => "not_stopped",
            ErrorCode::TargetInvalidated => "target_invalidated",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::AdapterNotFound => "adapter_not_found",
            ErrorCode::AdapterError => "adapter_error",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Disconnected => "disconnected",
            ErrorCode::HostRequestPending => "host_request_pending",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool result: concise `text` for the agent and the same facts as `structured` JSON
/// (MCP 2025-11-25 § Server › Tools › Tool Result).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub text: String,
    pub structured: Value,
    pub is_error: bool,
}

impl ToolResult {
    pub fn ok(text: impl Into<String>, structured: Value) -> ToolResult {
        ToolResult { text: text.into(), structured, is_error: false }
    }

    /// An error the agent can act on: text `<code>: <message>`, `structuredContent: {"error":
    /// {"code", "message"}}`, `isError: true` (MCP 2025-11-25 § Server › Tools › Error Handling).
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ToolResult {
        let message = message.into();
        ToolResult {
            text: format!("{code}: {message}"),
            structured: json!({"error": {"code": code.as_str(), "message": message}}),
            is_error: true,
        }
    }

    /// The `CallToolResult` object: `{"content": [{"type": "text", "text"}], "structuredContent",
    /// "isError"?}` (`isError` only when true).
    pub fn to_value(&self) -> Value {
        let mut v = json!({
            "content": [{"type": "text", "text": self.text}],
            "structuredContent": self.structured,
        });
        if self.is_error {
            crate::jsonrpc::insert(&mut v, "isError", Value::Bool(true));
        }
        v
    }
}

impl ErrorCode {
    /// The code of a DAP request that did not succeed: `timeout`, `disconnected`, else
    /// `adapter_error`; `None` for a success.
    pub fn of(outcome: &Outcome) -> Option<ErrorCode> {
        match outcome {
            Outcome::Success(_) => None,
            Outcome::Timeout { .. } => Some(ErrorCode::Timeout),
            Outcome::Disconnected { .. } => Some(ErrorCode::Disconnected),
            Outcome::Error { .. } => Some(ErrorCode::AdapterError),
        }
    }
}
