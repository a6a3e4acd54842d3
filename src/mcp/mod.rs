//! MCP over stdio, sans-IO: both protocol eras, dispatch, the tools registry, resources.
//!
//! Owns: turning one input line into zero or more output lines, the table of tool calls still
//! waiting for an answer (and their progress tokens), cancellation, batches, subscriptions.
//! Must not: read or write fds, look at the clock, or block; the event loop feeds lines and
//! drains `Context::out`.
//!
//! Architecture Invariant: every request gets exactly one response, except a request cancelled
//! by `notifications/cancelled` (none at all) and an open `subscriptions/listen` (answered only
//! when the server closes it); a message without `"id"` never gets one.

mod dispatch;
pub mod eras;
pub mod resources;
pub mod tools;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::jsonrpc::{self, Id, Message, Span, INVALID_REQUEST, PARSE_ERROR};

pub use crate::reply::{CallKey, ErrorCode, ToolResult};
pub use eras::{Era, LATEST_LEGACY, LEGACY, MODERN, SUPPORTED};
pub use tools::{Outcome, ToolCx};

/// The MCP line cap the reader enforces: 16 MiB.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Tool calls waiting for an answer at once; more are refused with `-32603`.
pub const MAX_PENDING_CALLS: usize = 256;
/// Batches waiting for a pending entry at once; more are refused with `-32600`.
pub const MAX_PENDING_BATCHES: usize = 64;
/// Entries in one batch.
pub const MAX_BATCH_LEN: usize = 256;
/// Open `subscriptions/listen` requests at once.
pub const MAX_LISTENERS: usize = 16;
/// URIs one client may subscribe to (legacy `resources/subscribe`, or one listen filter).
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// The golden path, sent as `instructions` in `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str = "agentdap debugs programs through real debug adapters. \
Golden path: launch with the program and breakpoints (it returns at the first stop); \
every result at a stop shows the current line and the top frame's locals, or, in the same frame \
as the last stop, only what changed (locals: false on the call shows the location alone); \
context shows the source, the stack and all locals in one call; evaluate or step to dig in; \
continue runs to the next stop, and when it returns state \"running\" call wait instead of \
continuing again (wait_ms: default 10000, max 50000); disconnect when done. sessions lists every session; every tool's `session` \
argument defaults to the most recent live one, `thread` to the focus thread and `frame` (a frame id \
from context or stack_trace) to its top frame. attach joins a running program (pid, or connect to \
a debug server). A child process the program starts becomes its own session (s2, …): a result \
that starts with its stop names it; pass that session id to inspect it.";

/// The tools whose results report a stop, and so take `locals` (handled before their handler:
/// `Sessions::set_call_locals`).
pub const STOP_TOOLS: &[&str] =
    &["launch", "attach", "continue", "step", "pause", "wait", "run_to", "goto", "restart", "resolve_host_request"];

/// The environment variable (and `--tools` flag) choosing the tool set: `core` or `full`.
pub const TOOLS_ENV: &str = "AGENTDAP_TOOLS";

/// The tools of `--tools core`: what an agent needs every day.
pub const CORE_TOOLS: &[&str] = &[
    "launch",
    "attach",
    "sessions",
    "disconnect",
    "set_breakpoints",
    "breakpoints",
    "continue",
    "step",
    "pause",
    "wait",
    "context",
    "variables",
    "evaluate",
    "output",
];

/// Arguments `--tools core` leaves out of the listed schemas (still accepted when passed): the
/// everyday arguments stay, so the core listing fits in 6 KB
/// (`tools_core_lists_the_everyday_tools_only`).
pub const CORE_HIDDEN_ARGS: &[&str] = &[
    "adapter_args",
    "no_debug",
    "exception_filters",
    "console",
    "granularity",
    "filter",
    "context",
    "max_variables",
    "hit_condition",
    "log_message",
    "graceful",
    "hex",
    "reverse",
    "locals",
    // Breakpoint kinds beyond source lines, and breakpoint locations: the full set has them.
    "set_breakpoints.kind",
    "set_breakpoints.breakpoints.name",
    "set_breakpoints.breakpoints.ref",
    "set_breakpoints.breakpoints.expression",
    "set_breakpoints.breakpoints.bytes",
    "set_breakpoints.breakpoints.access",
    "set_breakpoints.breakpoints.address",
    "set_breakpoints.breakpoints.offset",
    "breakpoints.path",
    "breakpoints.line",
    "breakpoints.end_line",
];

/// Which tools the server offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolSet {
    Full,
    Core,
}

impl ToolSet {
    /// `core` → [`ToolSet::Core`]; anything else (unset, `full`) → [`ToolSet::Full`].
    pub fn from_env_value(value: Option<&str>) -> ToolSet {
        if value.is_some_and(|v| v.trim() == "core") {
            ToolSet::Core
        } else {
            ToolSet::Full
        }
    }
}

/// What the MCP layer needs from its caller for one input.
pub struct Context<'a> {
    /// Outgoing messages: each is compact JSON followed by exactly one `\n`.
    pub out: &'a mut Vec<u8>,
    /// The loop's clock reading for this input (handlers never read the clock themselves).
    pub now: Instant,
    /// The session manager tool handlers act on.
    pub sessions: &'a mut crate::session::Sessions,
}

/// A JSON-RPC error answer: `{"code", "message", "data"?}` (JSON-RPC 2.0 § 5.1).
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError { code, message: message.into(), data: None }
    }

    /// `-32022`, `data {supported, requested}` (MCP 2026-07-28 § Versioning).
    pub fn unsupported_version(requested: &str) -> RpcError {
        RpcError {
            code: -32022,
            message: "Unsupported protocol version".into(),
            data: Some(json!({"supported": SUPPORTED, "requested": requested})),
        }
    }
}

/// A tool call waiting for [`Mcp::complete`].
struct PendingCall {
    id: Id,
    era: Era,
    progress_token: Option<Id>,
    /// The last `progress` value sent; MCP requires it to increase.
    last_progress: Option<f64>,
    /// `(batch, slot)` when the call came inside a JSON-RPC batch.
    batch: Option<(u64, usize)>,
    /// Said after the result ([`tools::ToolCx::note`]).
    note: Option<String>,
}

/// A JSON-RPC batch whose answer is not written yet (MCP 2025-03-26 § Transports; JSON-RPC 2.0 § 6).
struct Batch {
    /// One per request of the batch, in order; notifications have none.
    slots: Vec<Slot>,
    /// Every entry of the batch has been handled.
    sealed: bool,
}

/// One entry of a batch answer.
enum Slot {
    Waiting(CallKey),
    Done(Vec<u8>),
    /// Cancelled: the batch answer has no entry for it.
    Dropped,
}

/// An open `subscriptions/listen` (MCP 2026-07-28 § Subscriptions).
struct Listener {
    id: Id,
    uris: BTreeSet<String>,
}

/// Answer of one message, before it is written or placed in a batch.
enum Reply {
    None,
    Now(Vec<u8>),
    Pending(CallKey),
}

/// The MCP server state machine. Feed it lines; it appends answers to `Context::out`.
pub struct Mcp {
    /// Operator limits (`--allow`): checked for every tool call before its handler runs.
    allow: crate::allow::Allow,
    tools: Vec<&'static tools::Tool>,
    /// The `tools/list` result for this tool set, built once.
    listing: Value,
    /// The version `initialize` negotiated, if any (legacy era).
    negotiated: Option<&'static str>,
    /// `notifications/initialized` seen (informational: requests are never gated on it).
    initialized: bool,
    /// `logging/setLevel` (legacy era); `None` until the client sets one.
    log_level: Option<String>,
    /// Legacy `resources/subscribe` URIs.
    subscribed: BTreeSet<String>,
    listeners: Vec<Listener>,
    pending: BTreeMap<CallKey, PendingCall>,
    next_call: u64,
    batches: BTreeMap<u64, Batch>,
    next_batch: u64,
    cancelled: Vec<CallKey>,
    /// Answers already written to the output, freed by [`Mcp::release_spent`] once the output
    /// is flushed: freeing a `stack_trace` answer's tree is ~4% of its round trip's CPU
    /// (`scripts/callgrind-roundtrip`), work the agent need not wait for.
    spent: Vec<Value>,
}

impl Default for Mcp {
    fn default() -> Mcp {
        Mcp::new()
    }
}

impl Mcp {
    /// A server with every built-in tool, nothing negotiated, nothing pending.
    pub fn new() -> Mcp {
        Mcp::with_tool_set(ToolSet::Full, &[])
    }

    /// A server offering `set` of the tools (`--tools core|full`), plus `also` (tools
    /// the server's configuration makes necessary, e.g. `resolve_host_request` under
    /// `--host-requests ask`). Tools outside them are neither listed nor callable.
    pub fn with_tool_set(set: ToolSet, also: &[&str]) -> Mcp {
        Mcp::with_limits(set, also, crate::allow::Allow::all())
    }

    /// [`Mcp::with_tool_set`] under operator limits (`--allow`): a tool no call of which is
    /// allowed is neither listed nor callable (`crate::allow::membership::ever_allowed`).
    pub fn with_limits(set: ToolSet, also: &[&str], allow: crate::allow::Allow) -> Mcp {
        let mut registry = tools::registry();
        if set == ToolSet::Core {
            registry.retain(|t| CORE_TOOLS.contains(&t.name) || also.contains(&t.name));
        }
        registry.retain(|t| crate::allow::membership::ever_allowed(allow, t.name));
        let listed: Vec<Value> = registry
            .iter()
            .map(|t| if set == ToolSet::Core { t.to_core_value(CORE_HIDDEN_ARGS) } else { t.to_value() })
            .collect();
        Mcp {
            allow,
            tools: registry,
            listing: serde_json::json!({ "tools": listed }),
            negotiated: None,
            initialized: false,
            log_level: None,
            subscribed: BTreeSet::new(),
            listeners: Vec::new(),
            pending: BTreeMap::new(),
            next_call: 0,
            batches: BTreeMap::new(),
            next_batch: 0,
            cancelled: Vec::new(),
            spent: Vec::new(),
        }
    }

    /// A server with `extra` tools after the built-in ones (tests use it for pending tools).
    #[cfg(test)]
    pub(crate) fn with_extra_tools(extra: &[&'static tools::Tool]) -> Mcp {
        let mut mcp = Mcp::new();
        mcp.tools.extend_from_slice(extra);
        mcp
    }

    /// Handles one complete input line: no `\n`, trailing `\r` and a leading BOM already stripped,
    /// never blank. Writes zero or more answer lines to `cx.out`.
    ///
    /// Invalid UTF-8 or JSON → `-32700` with `"id": null`; an array → a batch (only when
    /// 2025-03-26 was negotiated, else one `-32600`).
    pub fn handle_line(&mut self, line: &[u8], cx: &mut Context<'_>) {
        let parsed = match std::str::from_utf8(line) {
            Err(e) => Err(format!("Parse error: the line is not valid UTF-8 (at byte {})", e.valid_up_to())),
            Ok(t) => crate::json::parse(t.as_bytes()).map(|v| (t, v)).map_err(|e| {
                // serde_json's own words say what is wrong: a syntax error, trailing characters
                // (two messages on one line), a number out of range, recursion past 128 levels.
                format!("Parse error: the line is not valid JSON ({e})")
            }),
        };
        let (text, value) = match parsed {
            Ok(p) => p,
            Err(message) => {
                log::debug!("unparsable line of {} bytes", line.len());
                emit_error(cx, None, &RpcError::new(PARSE_ERROR, &message));
                return;
            }
        };
        let span = Span::trimmed(text);
        match value {
            Value::Array(items) => self.handle_batch(text, span, items, cx),
            value => match self.handle_value(text, span, value, cx) {
                Reply::None | Reply::Pending(_) => {}
                Reply::Now(bytes) => emit(cx, bytes),
            },
        }
    }

    /// The line reader dropped a line of `len` bytes over the 16 MiB cap: answers `-32600` with
    /// `"id": null` and `data {"bytes", "limit"}` (the id was never read).
    pub fn line_too_long(&mut self, len: usize, cx: &mut Context<'_>) {
        let err = RpcError {
            code: INVALID_REQUEST,
            message: format!("Invalid Request: message of {len} bytes exceeds the {MAX_LINE_BYTES}-byte line limit"),
            data: Some(json!({"bytes": len, "limit": MAX_LINE_BYTES})),
        };
        emit_error(cx, None, &err);
    }

    /// Delivers the result of a call that answered [`Outcome::Pending`]. Returns `false` (and
    /// writes nothing) when the call is unknown, already completed, or was cancelled.
    pub fn complete(&mut self, call: CallKey, result: ToolResult, cx: &mut Context<'_>) -> bool {
        let Some(p) = self.pending.remove(&call) else {
            log::debug!("complete: call {call:?} is no longer pending");
            return false;
        };
        let result = dispatch::with_note(result, p.note.as_deref());
        let result = eras::dress(p.era, result.into_value(), None);
        let mut bytes = Vec::new();
        jsonrpc::write_result(&mut bytes, &p.id, &result);
        match p.batch {
            None => emit(cx, bytes),
            Some((batch, slot)) => self.fill_slot(batch, slot, Slot::Done(bytes), cx),
        }
        self.spent.push(result);
        true
    }

    /// Frees the answers written since the last call (see [`Mcp::spent`]): the IO shell calls
    /// it after writing the output.
    pub fn release_spent(&mut self) {
        self.spent.clear();
    }

    /// Sends `notifications/progress {progressToken, progress, total?, message?}` for a pending
    /// call (MCP 2025-11-25 § Utilities › Progress). A no-op when the call is not pending, asked
    /// for no progress, or `progress` does not exceed the last value sent (it MUST increase).
    pub fn progress(
        &mut self,
        call: CallKey,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
        cx: &mut Context<'_>,
    ) {
        let Some(p) = self.pending.get_mut(&call) else { return };
        let Some(token) = &p.progress_token else { return };
        if !progress.is_finite() || p.last_progress.is_some_and(|last| progress <= last) {
            return;
        }
        p.last_progress = Some(progress);
        let mut bytes = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":{},\"progress\":{}", token.raw(), json!(progress)).into_bytes();
        if let Some(total) = total.filter(|t| t.is_finite()) {
            bytes.extend_from_slice(format!(",\"total\":{}", json!(total)).as_bytes());
        }
        if let Some(message) = message {
            bytes.extend_from_slice(format!(",\"message\":{}", json!(message)).as_bytes());
        }
        bytes.extend_from_slice(b"}}");
        emit(cx, bytes);
    }

    /// The `_meta.progressToken` of a pending call.
    pub fn progress_token(&self, call: CallKey) -> Option<&Id> {
        self.pending.get(&call)?.progress_token.as_ref()
    }

    /// Calls cancelled by the client since the last drain: their owners should stop waiting
    /// (the debuggee is not touched). No response will be sent for them; `complete` on them is
    /// a no-op.
    pub fn take_cancelled(&mut self) -> Vec<CallKey> {
        std::mem::take(&mut self.cancelled)
    }

    /// Every call still waiting for `complete`, oldest first (e.g. to fail them at shutdown).
    pub fn pending_calls(&self) -> Vec<CallKey> {
        self.pending.keys().copied().collect()
    }

    /// The legacy version `initialize` negotiated, if any.
    pub fn negotiated_version(&self) -> Option<&'static str> {
        self.negotiated
    }

    /// The level set by `logging/setLevel` (legacy era), if any.
    pub fn log_level(&self) -> Option<&str> {
        self.log_level.as_deref()
    }

    /// Announces that resource `uri` changed: `notifications/resources/updated {uri}` to a legacy
    /// subscriber, and the same with `_meta.io.modelcontextprotocol/subscriptionId` on every open
    /// `subscriptions/listen` whose filter names `uri`.
    pub fn resource_updated(&mut self, uri: &str, cx: &mut Context<'_>) {
        if !self.subscribed.contains(uri) && !self.listeners.iter().any(|l| l.uris.contains(uri)) {
            return;
        }
        let mut params = Map::new();
        params.insert("uri".into(), Value::from(uri));
        if self.subscribed.contains(uri) {
            let mut bytes = Vec::new();
            jsonrpc::write_notification(&mut bytes, "notifications/resources/updated", &Value::Object(params.clone()));
            emit(cx, bytes);
        }
        for l in self.listeners.iter().filter(|l| l.uris.contains(uri)) {
            emit(cx, subscription_notification("notifications/resources/updated", &l.id, &params));
        }
    }

    /// Server-side shutdown of every open `subscriptions/listen`: each is answered with
    /// `{"resultType": "complete", "_meta": {subscriptionId, serverInfo}}` (MCP 2026-07-28 §
    /// Subscriptions › Graceful Closure). Pending tool calls are left to their owners.
    pub fn close_subscriptions(&mut self, cx: &mut Context<'_>) {
        for l in std::mem::take(&mut self.listeners) {
            let result =
                eras::dress(Era::Modern, json!({"_meta": {eras::META_SUBSCRIPTION_ID: l.id.to_value()}}), None);
            let mut bytes = Vec::new();
            jsonrpc::write_result(&mut bytes, &l.id, &result);
            emit(cx, bytes);
        }
    }

    fn handle_value(&mut self, text: &str, span: Span, value: Value, cx: &mut Context<'_>) -> Reply {
        match jsonrpc::classify(text, span, value) {
            Message::Request { id, method, params } => self.request(text, span, id, &method, params, cx),
            Message::Notification { method, params } => {
                self.notification(text, span, &method, params, cx);
                Reply::None
            }
            Message::Response => {
                log::debug!("ignoring a response from the client (agentdap sends no requests)");
                Reply::None
            }
            Message::BadNotification => {
                log::warn!("ignoring a malformed notification");
                Reply::None
            }
            Message::Invalid { id, why } => {
                Reply::Now(error_bytes(id.as_ref(), &RpcError::new(INVALID_REQUEST, why.to_string())))
            }
        }
    }

    fn handle_batch(&mut self, text: &str, span: Span, items: Vec<Value>, cx: &mut Context<'_>) {
        let refuse =
            |cx: &mut Context<'_>, message: &str| emit_error(cx, None, &RpcError::new(INVALID_REQUEST, message));
        if self.negotiated != Some(eras::BATCH_VERSION) {
            let version = self.negotiated.unwrap_or("none");
            let message = format!("Invalid Request: JSON-RPC batches are accepted only under protocol version 2025-03-26 (negotiated: {version})");
            return refuse(cx, &message);
        }
        if items.is_empty() {
            return refuse(cx, "Invalid Request: empty batch");
        }
        if items.len() > MAX_BATCH_LEN {
            return refuse(cx, &format!("Invalid Request: a batch holds at most {MAX_BATCH_LEN} messages"));
        }
        if self.batches.len() >= MAX_PENDING_BATCHES {
            return refuse(cx, &format!("Invalid Request: at most {MAX_PENDING_BATCHES} batches may wait at once"));
        }
        let Some(spans) = jsonrpc::array_spans(text, span).filter(|s| s.len() == items.len()) else {
            log::error!("batch spans disagree with the parsed array");
            return emit_error(
                cx,
                None,
                &RpcError::new(jsonrpc::INTERNAL_ERROR, "Internal error: could not split the batch"),
            );
        };
        let batch = self.next_batch;
        self.next_batch += 1;
        // Registered before its entries run, sealed after: a cancellation inside the same batch
        // then finds its slot, and the answer cannot go out before the last entry was read.
        self.batches.insert(batch, Batch { slots: Vec::new(), sealed: false });
        for (value, span) in items.into_iter().zip(spans) {
            let slot = match self.handle_value(text, span, value, cx) {
                Reply::None => continue,
                Reply::Now(bytes) => Slot::Done(bytes),
                Reply::Pending(call) => Slot::Waiting(call),
            };
            let Some(b) = self.batches.get_mut(&batch) else { break };
            if let Slot::Waiting(call) = slot {
                if let Some(p) = self.pending.get_mut(&call) {
                    p.batch = Some((batch, b.slots.len()));
                }
            }
            b.slots.push(slot);
        }
        if let Some(b) = self.batches.get_mut(&batch) {
            b.sealed = true;
        }
        self.flush_batch(batch, cx);
    }

    fn fill_slot(&mut self, batch: u64, slot: usize, value: Slot, cx: &mut Context<'_>) {
        if let Some(s) = self.batches.get_mut(&batch).and_then(|b| b.slots.get_mut(slot)) {
            *s = value;
        }
        self.flush_batch(batch, cx);
    }

    /// Writes the batch answer once no entry is waiting: one JSON array of the entries, or
    /// nothing when every entry was a notification or was cancelled.
    fn flush_batch(&mut self, batch: u64, cx: &mut Context<'_>) {
        let Some(b) = self.batches.get(&batch) else { return };
        if !b.sealed || b.slots.iter().any(|s| matches!(s, Slot::Waiting(_))) {
            return;
        }
        let Some(b) = self.batches.remove(&batch) else { return };
        let mut bytes = vec![b'['];
        for s in b.slots {
            if let Slot::Done(entry) = s {
                if bytes.len() > 1 {
                    bytes.push(b',');
                }
                bytes.extend_from_slice(&entry);
            }
        }
        if bytes.len() > 1 {
            bytes.push(b']');
            emit(cx, bytes);
        }
    }

    fn notification(&mut self, text: &str, span: Span, method: &str, params: Option<Value>, cx: &mut Context<'_>) {
        match method {
            "notifications/initialized" => self.initialized = true,
            "notifications/cancelled" => {
                let id =
                    jsonrpc::path_span(text, span, &["params", "requestId"]).and_then(|s| Id::from_raw(s.of(text)));
                let reason = params.as_ref().and_then(|p| p.get("reason")).and_then(Value::as_str).unwrap_or("");
                match id {
                    Some(id) => self.cancel(&id, reason, cx),
                    None => log::debug!("ignoring notifications/cancelled without a valid requestId"),
                }
            }
            _ => log::debug!("ignoring notification {method}"),
        }
    }

    /// `notifications/cancelled` (MCP 2025-11-25 § Utilities › Cancellation): forget the call
    /// so it is never answered, and queue its key for the owner.
    fn cancel(&mut self, id: &Id, reason: &str, cx: &mut Context<'_>) {
        if let Some(call) = self.pending.iter().find(|(_, p)| &p.id == id).map(|(k, _)| *k) {
            log::info!("request {id} cancelled by the client: {reason}");
            let batch = self.pending.remove(&call).and_then(|p| p.batch);
            self.cancelled.push(call);
            if let Some((batch, slot)) = batch {
                self.fill_slot(batch, slot, Slot::Dropped, cx);
            }
            return;
        }
        if let Some(i) = self.listeners.iter().position(|l| &l.id == id) {
            log::info!("subscription {id} closed by the client: {reason}");
            self.listeners.remove(i);
            return;
        }
        log::debug!("notifications/cancelled for {id}, which is not in flight");
    }

    /// Whether `id` is already used by a request still in flight.
    fn id_in_flight(&self, id: &Id) -> bool {
        self.pending.values().any(|p| &p.id == id) || self.listeners.iter().any(|l| &l.id == id)
    }

    fn new_call_key(&mut self) -> CallKey {
        let key = CallKey::new(self.next_call);
        self.next_call += 1;
        key
    }
}

/// A notification tagged with a subscription: `params` gets
/// `_meta: {"io.modelcontextprotocol/subscriptionId": <raw id>}` in front of `rest`.
fn subscription_notification(method: &str, id: &Id, rest: &Map<String, Value>) -> Vec<u8> {
    let mut bytes = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":{},\"params\":{{\"_meta\":{{\"{}\":{}}}",
        json!(method),
        eras::META_SUBSCRIPTION_ID,
        id.raw()
    )
    .into_bytes();
    for (k, v) in rest {
        bytes.extend_from_slice(format!(",{}:{}", json!(k), v).as_bytes());
    }
    bytes.extend_from_slice(b"}}");
    bytes
}

fn error_bytes(id: Option<&Id>, err: &RpcError) -> Vec<u8> {
    let mut bytes = Vec::new();
    jsonrpc::write_error(&mut bytes, id, err.code, &err.message, err.data.as_ref());
    bytes
}

fn emit_error(cx: &mut Context<'_>, id: Option<&Id>, err: &RpcError) {
    emit(cx, error_bytes(id, err));
}

/// One message onto the output: the bytes and exactly one `\n`.
fn emit(cx: &mut Context<'_>, bytes: Vec<u8>) {
    cx.out.extend_from_slice(&bytes);
    cx.out.push(b'\n');
}
