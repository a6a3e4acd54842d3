//! What every layer shares about answering a tool call: the call's key, the result, the stable
//! error codes, and the one mapping from a DAP request's outcome to an error code.
//!
//! Must not: import any module of the crate but DAP's `Outcome` (it is the one
//! every layer may use; the layering test in `src/layering.rs` checks it).

use std::fmt;

use serde_json::{json, Map, Value};

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
    /// The operator's `--allow` set refuses the call (crate::allow).
    NotAllowed,
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
            ErrorCode::NotAllowed => "not_allowed",
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
    /// "isError"?}` (`isError` only when true). Consumes the result: the text and the structured
    /// value move into the object, copied only where they must be cut.
    pub fn into_value(self) -> Value {
        let text = match capped(&self.text) {
            std::borrow::Cow::Borrowed(_) => self.text,
            std::borrow::Cow::Owned(cut) => cut,
        };
        let structured = match capped_structured(&self.structured) {
            std::borrow::Cow::Borrowed(_) => self.structured,
            std::borrow::Cow::Owned(cut) => cut,
        };
        let mut content = Map::new();
        content.insert("type".into(), Value::from("text"));
        content.insert("text".into(), Value::String(text));
        let mut v = Map::new();
        v.insert("content".into(), Value::Array(vec![Value::Object(content)]));
        v.insert("structuredContent".into(), structured);
        if self.is_error {
            v.insert("isError".into(), Value::Bool(true));
        }
        Value::Object(v)
    }
}

/// Most characters of a result's text; each tool keeps within it and says what it left out
/// (`output`, `variables`, `dap_request`), so this only catches what an adapter made
/// oversized (a frame name of megabytes, ten thousand threads).
pub const MAX_TEXT_CHARS: usize = 20_000;

/// Characters kept from the end of an oversized text: a tool's closing line says how to get more.
const KEPT_TAIL_CHARS: usize = 600;

/// `text` within [`MAX_TEXT_CHARS`]: an oversized one keeps its start and its last
/// [`KEPT_TAIL_CHARS`], with a line between saying how much was cut.
fn capped(text: &str) -> std::borrow::Cow<'_, str> {
    // No more bytes than the most characters: no count needed.
    if text.len() <= MAX_TEXT_CHARS {
        return text.into();
    }
    let total = text.chars().count();
    if total <= MAX_TEXT_CHARS {
        return text.into();
    }
    let head_chars = MAX_TEXT_CHARS - KEPT_TAIL_CHARS - 200;
    let head_end = text.char_indices().nth(head_chars).map_or(text.len(), |(i, _)| i);
    let tail_start = text.char_indices().nth(total - KEPT_TAIL_CHARS).map_or(text.len(), |(i, _)| i);
    let cut = total - head_chars - KEPT_TAIL_CHARS;
    format!(
        "{}\n… ({cut} characters cut here: this result was {total} characters, over agentdap's {MAX_TEXT_CHARS}; ask for less, e.g. with `start`, `count`, `levels` or `limit`)\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
    .into()
}

/// Most bytes of `structuredContent` (estimated: its strings plus a little per value); each
/// tool stays far below it, so this only catches what an adapter made oversized.
pub const MAX_STRUCTURED_BYTES: usize = 256 * 1024;

/// `structured` within bounds: every string cut to [`MAX_TEXT_CHARS`] (with `…`), and a whole
/// that is still over [`MAX_STRUCTURED_BYTES`] replaced by what it was and why it is not shown
/// (its `session`, `state` and `revision` kept). Copies only what needs cutting.
fn capped_structured(structured: &Value) -> std::borrow::Cow<'_, Value> {
    fn size(v: &Value) -> (usize, bool) {
        match v {
            Value::String(s) => (s.len() + 2, s.len() > MAX_TEXT_CHARS && s.chars().count() > MAX_TEXT_CHARS),
            Value::Array(a) => a.iter().map(size).fold((2, false), |(n, l), (m, k)| (n + m + 1, l || k)),
            Value::Object(o) => o
                .iter()
                .map(|(k, v)| (k.len() + 4, size(v)))
                .fold((2, false), |(n, l), (kn, (m, k))| (n + kn + m, l || k)),
            _ => (8, false),
        }
    }
    fn clip(v: &mut Value) {
        match v {
            Value::String(s) if s.len() > MAX_TEXT_CHARS && s.chars().count() > MAX_TEXT_CHARS => {
                let end = s.char_indices().nth(MAX_TEXT_CHARS).map_or(s.len(), |(i, _)| i);
                s.truncate(end);
                s.push('…');
            }
            Value::Array(a) => a.iter_mut().for_each(clip),
            Value::Object(o) => o.values_mut().for_each(clip),
            _ => {}
        }
    }
    let (bytes, long) = size(structured);
    if !long && bytes <= MAX_STRUCTURED_BYTES {
        return std::borrow::Cow::Borrowed(structured);
    }
    let mut v = structured.clone();
    clip(&mut v);
    let (bytes, _) = size(&v);
    if bytes <= MAX_STRUCTURED_BYTES {
        return std::borrow::Cow::Owned(v);
    }
    let mut summary = serde_json::Map::new();
    for key in ["session", "state", "revision"] {
        if let Some(kept) = v.get(key) {
            summary.insert(key.into(), kept.clone());
        }
    }
    summary.insert("structured_cut".into(), true.into());
    summary.insert(
        "note".into(),
        format!("structuredContent was about {bytes} bytes, over agentdap's {MAX_STRUCTURED_BYTES}: the adapter's answer was oversized; the text says what it held").into(),
    );
    std::borrow::Cow::Owned(Value::Object(summary))
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
