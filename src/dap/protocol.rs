//! DAP wire types (DAP § Base Protocol): requests, responses, events, capabilities.
//! Pure data and (de)serialisation; no state, no IO. What agentdap does not read stays a
//! `serde_json::Value` and passes through untouched.

use std::fmt;

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::{Map, Value};

/// A DAP `seq` or `request_seq` (DAP § Base Protocol `ProtocolMessage.seq`).
///
/// agentdap's own seqs start at 1 and strictly increase per connection; an adapter's seqs are
/// carried as received (after coercion from a string, see [`Nonconformance::SeqAsString`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seq(i64);

impl Seq {
    pub const fn new(n: i64) -> Seq {
        Seq(n)
    }

    pub const fn get(self) -> i64 {
        self.0
    }
}

impl fmt::Display for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for Seq {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

/// A DAP message of any of the three kinds (DAP § Base Protocol `ProtocolMessage.type`).
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Request(Request),
    Response(Response),
    Event(Event),
}

/// DAP § Base Protocol `Request`. Serialises as `{"seq","type":"request","command","arguments"?}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub seq: Seq,
    pub command: String,
    /// Passed through untouched; absent when `None`.
    pub arguments: Option<Value>,
}

/// DAP § Base Protocol `Response`. Serialises as
/// `{"seq","type":"response","request_seq","success","command","message"?,"body"?}`
/// (the field order of the spec, which tests pin byte for byte).
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub seq: Seq,
    pub request_seq: Seq,
    pub success: bool,
    pub command: String,
    /// The raw short error (`cancelled`, `notStopped`, or free text) when `success` is false.
    pub message: Option<String>,
    /// Passed through untouched. agentdap only ever *sends* an object here.
    pub body: Option<Value>,
}

/// DAP § Base Protocol `Event`. Serialises as `{"seq","type":"event","event","body"?}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub seq: Seq,
    pub event: String,
    pub body: Option<Value>,
}

impl Serialize for Request {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Request", 4)?;
        st.serialize_field("seq", &self.seq)?;
        st.serialize_field("type", "request")?;
        st.serialize_field("command", &self.command)?;
        if let Some(a) = &self.arguments {
            st.serialize_field("arguments", a)?;
        }
        st.end()
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Response", 7)?;
        st.serialize_field("seq", &self.seq)?;
        st.serialize_field("type", "response")?;
        st.serialize_field("request_seq", &self.request_seq)?;
        st.serialize_field("success", &self.success)?;
        st.serialize_field("command", &self.command)?;
        if let Some(m) = &self.message {
            st.serialize_field("message", m)?;
        }
        if let Some(b) = &self.body {
            st.serialize_field("body", b)?;
        }
        st.end()
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Event", 4)?;
        st.serialize_field("seq", &self.seq)?;
        st.serialize_field("type", "event")?;
        st.serialize_field("event", &self.event)?;
        if let Some(b) = &self.body {
            st.serialize_field("body", b)?;
        }
        st.end()
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(m) => m.serialize(s),
            Message::Response(m) => m.serialize(s),
            Message::Event(m) => m.serialize(s),
        }
    }
}

/// Why a JSON value is not a DAP message. Small, `Copy`; `Display` reads as a log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// The JSON is not an object.
    NotAnObject,
    /// `type` is missing or not one of `request`, `response`, `event`.
    BadType,
    /// A required field is missing or has the wrong JSON type.
    BadField(&'static str),
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::NotAnObject => f.write_str("a JSON value that is not an object"),
            MessageError::BadType => f.write_str("an object without a valid \"type\" (request, response or event)"),
            MessageError::BadField(name) => write!(f, "a message with a missing or ill-typed \"{name}\""),
        }
    }
}

/// A deviation from the spec that agentdap tolerates (coerces) and reports once per connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nonconformance {
    /// `seq` sent as a JSON string holding an integer (netcoredbg before its fix, as in the logs of
    /// Samsung/netcoredbg#161).
    SeqAsString,
    /// `request_seq` sent as a JSON string holding an integer.
    RequestSeqAsString,
    /// A response or event without `seq` (taken as 0; agentdap never correlates on it).
    SeqMissing,
}

impl Nonconformance {
    const ALL: [Nonconformance; 3] =
        [Nonconformance::SeqAsString, Nonconformance::RequestSeqAsString, Nonconformance::SeqMissing];

    const fn bit(self) -> u8 {
        match self {
            Nonconformance::SeqAsString => 1,
            Nonconformance::RequestSeqAsString => 2,
            Nonconformance::SeqMissing => 4,
        }
    }
}

impl fmt::Display for Nonconformance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Nonconformance::SeqAsString => "\"seq\" sent as a string (coerced to an integer)",
            Nonconformance::RequestSeqAsString => "\"request_seq\" sent as a string (coerced to an integer)",
            Nonconformance::SeqMissing => "a message without \"seq\" (taken as 0)",
        })
    }
}

/// A set of [`Nonconformance`]s (a bit set; `Copy`, no allocation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nonconformances(u8);

impl Nonconformances {
    pub fn insert(&mut self, n: Nonconformance) {
        self.0 |= n.bit();
    }

    pub fn contains(self, n: Nonconformance) -> bool {
        self.0 & n.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members of `self` that are not in `other`.
    pub fn difference(self, other: Nonconformances) -> Nonconformances {
        Nonconformances(self.0 & !other.0)
    }

    pub fn union(self, other: Nonconformances) -> Nonconformances {
        Nonconformances(self.0 | other.0)
    }

    pub fn iter(self) -> impl Iterator<Item = Nonconformance> {
        Nonconformance::ALL.into_iter().filter(move |n| self.contains(*n))
    }
}

/// A message read leniently from JSON, with what had to be coerced.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub message: Message,
    pub nonconformances: Nonconformances,
}

impl Message {
    /// Reads a DAP message from a parsed JSON body, moving `arguments`/`body` out without copying.
    ///
    /// Lenient where real adapters deviate: `seq`/`request_seq` as a string holding an integer is
    /// coerced; a response or event without `seq` gets `Seq(0)`. A request needs a usable `seq`
    /// (agentdap must echo it as `request_seq`). A `null` body or arguments reads as absent.
    ///
    /// Errors: [`MessageError`] when the value is not a DAP message at all.
    pub fn from_value(value: Value) -> Result<Parsed, MessageError> {
        let Value::Object(mut map) = value else {
            return Err(MessageError::NotAnObject);
        };
        let mut nc = Nonconformances::default();
        let kind = match map.get("type").and_then(Value::as_str) {
            Some("request") => 0,
            Some("response") => 1,
            Some("event") => 2,
            _ => return Err(MessageError::BadType),
        };
        let seq = match read_seq(map.get("seq")) {
            SeqField::Int(n) => Seq(n),
            SeqField::Str(n) => {
                nc.insert(Nonconformance::SeqAsString);
                Seq(n)
            }
            SeqField::Missing if kind != 0 => {
                nc.insert(Nonconformance::SeqMissing);
                Seq(0)
            }
            SeqField::Missing | SeqField::Bad => return Err(MessageError::BadField("seq")),
        };
        let message = match kind {
            0 => Message::Request(Request {
                seq,
                command: take_string(&mut map, "command")?,
                arguments: take_present(&mut map, "arguments"),
            }),
            1 => {
                let request_seq = match read_seq(map.get("request_seq")) {
                    SeqField::Int(n) => Seq(n),
                    SeqField::Str(n) => {
                        nc.insert(Nonconformance::RequestSeqAsString);
                        Seq(n)
                    }
                    SeqField::Missing | SeqField::Bad => return Err(MessageError::BadField("request_seq")),
                };
                let success = map.get("success").and_then(Value::as_bool).ok_or(MessageError::BadField("success"))?;
                let message = match map.remove("message") {
                    Some(Value::String(s)) => Some(s),
                    _ => None,
                };
                Message::Response(Response {
                    seq,
                    request_seq,
                    success,
                    command: take_string(&mut map, "command")?,
                    message,
                    body: take_present(&mut map, "body"),
                })
            }
            _ => Message::Event(Event {
                seq,
                event: take_string(&mut map, "event")?,
                body: take_present(&mut map, "body"),
            }),
        };
        Ok(Parsed { message, nonconformances: nc })
    }
}

enum SeqField {
    Int(i64),
    Str(i64),
    Missing,
    Bad,
}

fn read_seq(v: Option<&Value>) -> SeqField {
    match v {
        None | Some(Value::Null) => SeqField::Missing,
        Some(Value::Number(n)) => n.as_i64().map_or(SeqField::Bad, SeqField::Int),
        Some(Value::String(s)) => s.trim().parse::<i64>().map_or(SeqField::Bad, SeqField::Str),
        Some(_) => SeqField::Bad,
    }
}

fn take_string(map: &mut Map<String, Value>, key: &'static str) -> Result<String, MessageError> {
    match map.remove(key) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(MessageError::BadField(key)),
    }
}

fn take_present(map: &mut Map<String, Value>, key: &str) -> Option<Value> {
    map.remove(key).filter(|v| !v.is_null())
}

impl Response {
    /// The adapter's own words for a failed request (DAP § Types › Message; the tool
    /// result's `adapter_error`): `body.error.format` with each `{name}` replaced by
    /// `body.error.variables[name]` (unknown names stay as written), else `message`, else
    /// "`<command>` failed". Meaningful when `success` is false.
    pub fn error_text(&self) -> String {
        let error = self.body.as_ref().and_then(|b| b.get("error"));
        if let Some(format) = error.and_then(|e| e.get("format")).and_then(Value::as_str) {
            if !format.is_empty() {
                return redact_secrets(&substitute(format, error.and_then(|e| e.get("variables"))));
            }
        }
        match &self.message {
            Some(m) if !m.is_empty() => redact_secrets(&clip_text(m, MAX_ERROR_TEXT)),
            _ => format!("`{}` failed", self.command),
        }
    }
}

/// Most bytes of an adapter's error text agentdap keeps (a hostile `format` with many large
/// `variables` must not expand without bound).
pub const MAX_ERROR_TEXT: usize = 4096;

fn clip_text(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} more bytes cut)", &s[..cut], s.len() - cut)
}

/// Command-line options whose value is a secret (debugpy passes its access tokens this way;
/// adapters echo their command lines in errors).
const SECRET_OPTIONS: &[&str] = &["--adapter-access-token", "--server-access-token", "--client-access-token"];

/// Replaces the values of known secret options (`--adapter-access-token X`, `…=X`) with
/// `[redacted]`.
pub fn redact_secrets(text: &str) -> String {
    if !SECRET_OPTIONS.iter().any(|o| text.contains(o)) {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    for opt in SECRET_OPTIONS {
        let mut from = 0;
        while let Some(i) = out[from..].find(opt).map(|i| i + from) {
            let mut start = i + opt.len();
            let bytes = out.as_bytes();
            while start < out.len() && matches!(bytes[start], b' ' | b'=' | b'"' | b'\'' | b',') {
                start += 1;
            }
            let end = out[start..]
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ']' | ')'))
                .map_or(out.len(), |e| start + e);
            if end > start {
                out.replace_range(start..end, "[redacted]");
            }
            from = (start + "[redacted]".len()).min(out.len());
        }
    }
    out
}

/// Replaces `{name}` in `format` by the variable's value (DAP § Types `Message.format`); the
/// result is cut at [`MAX_ERROR_TEXT`].
fn substitute(format: &str, variables: Option<&Value>) -> String {
    let mut out = String::with_capacity(format.len().min(MAX_ERROR_TEXT));
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        if out.len() > MAX_ERROR_TEXT {
            return clip_text(&out, MAX_ERROR_TEXT);
        }
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return clip_text(&out, MAX_ERROR_TEXT);
        };
        let name = &after[..close];
        match variables.and_then(|v| v.get(name)) {
            Some(Value::String(s)) => out.push_str(s),
            Some(v) if !v.is_null() => out.push_str(&v.to_string()),
            _ => out.push_str(&rest[open..open + close + 2]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    clip_text(&out, MAX_ERROR_TEXT)
}

#[cfg(test)]
mod secret_tests {
    use super::*;

    #[test]
    fn a_format_bomb_is_cut_and_tokens_are_redacted() {
        let r = Response {
            seq: Seq::new(2),
            request_seq: Seq::new(1),
            success: false,
            command: "launch".into(),
            message: None,
            body: Some(
                serde_json::json!({"error": {"format": "{a}".repeat(20_000), "variables": {"a": "x".repeat(100_000)}}}),
            ),
        };
        let text = r.error_text();
        assert!(text.len() < MAX_ERROR_TEXT + 64, "{}", text.len());
        assert!(text.ends_with("more bytes cut)"), "{}", &text[text.len() - 40..]);
        let cmd = "failed: python -m debugpy.launcher --adapter-access-token 0123abcd --port 5";
        assert_eq!(
            redact_secrets(cmd),
            "failed: python -m debugpy.launcher --adapter-access-token [redacted] --port 5"
        );
        assert_eq!(
            redact_secrets("[\"--adapter-access-token=ab\", \"x\"]"),
            "[\"--adapter-access-token=[redacted]\", \"x\"]"
        );
    }
}

/// DAP § Types `ExceptionBreakpointsFilter`, the fields agentdap reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExceptionBreakpointsFilter {
    /// The id sent back in `setExceptionBreakpoints.filters`.
    pub filter: String,
    /// Display name; falls back to `filter` when the adapter omits it.
    pub label: String,
    pub description: Option<String>,
    /// Only a hint to the client (DAP § Types › ExceptionBreakpointsFilter): debugpy marks
    /// `uncaught` default yet stays off until told.
    pub default: bool,
    pub supports_condition: bool,
    pub condition_description: Option<String>,
}

macro_rules! capability_flags {
    ($($(#[$doc:meta])* $field:ident => $($name:literal)|+;)*) => {
        /// DAP § Types `Capabilities`: the typed subset agentdap reads, plus the raw object as the
        /// adapter sent it (for the `capabilities` tool and the mirror, which pass it on).
        /// Flags absent or not `true` read as `false`.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Capabilities {
            /// Everything the adapter sent, after merging `capabilities` events.
            pub raw: Map<String, Value>,
            $($(#[$doc])* pub $field: bool,)*
            pub exception_breakpoint_filters: Vec<ExceptionBreakpointsFilter>,
        }

        impl Capabilities {
            fn derive_typed(&mut self) {
                $(self.$field = false $(|| flag(&self.raw, $name))+;)*
                self.exception_breakpoint_filters = filters(self.raw.get("exceptionBreakpointFilters"));
            }
        }
    };
}

capability_flags! {
    supports_configuration_done_request => "supportsConfigurationDoneRequest";
    supports_function_breakpoints => "supportsFunctionBreakpoints";
    supports_conditional_breakpoints => "supportsConditionalBreakpoints";
    supports_hit_conditional_breakpoints => "supportsHitConditionalBreakpoints";
    supports_log_points => "supportsLogPoints";
    supports_evaluate_for_hovers => "supportsEvaluateForHovers";
    supports_step_back => "supportsStepBack";
    supports_set_variable => "supportsSetVariable";
    supports_set_expression => "supportsSetExpression";
    supports_restart_frame => "supportsRestartFrame";
    supports_goto_targets_request => "supportsGotoTargetsRequest";
    supports_step_in_targets_request => "supportsStepInTargetsRequest";
    supports_completions_request => "supportsCompletionsRequest";
    supports_modules_request => "supportsModulesRequest";
    supports_loaded_sources_request => "supportsLoadedSourcesRequest";
    supports_restart_request => "supportsRestartRequest";
    supports_exception_options => "supportsExceptionOptions";
    supports_exception_filter_options => "supportsExceptionFilterOptions";
    supports_exception_info_request => "supportsExceptionInfoRequest";
    /// The spec spells it `supportTerminateDebuggee`; debugpy sends `supportsTerminateDebuggee`.
    supports_terminate_debuggee => "supportTerminateDebuggee" | "supportsTerminateDebuggee";
    /// The spec spells it `supportSuspendDebuggee`; accept the `supports…` spelling too.
    supports_suspend_debuggee => "supportSuspendDebuggee" | "supportsSuspendDebuggee";
    supports_terminate_request => "supportsTerminateRequest";
    supports_terminate_threads_request => "supportsTerminateThreadsRequest";
    supports_data_breakpoints => "supportsDataBreakpoints";
    supports_instruction_breakpoints => "supportsInstructionBreakpoints";
    supports_read_memory_request => "supportsReadMemoryRequest";
    supports_write_memory_request => "supportsWriteMemoryRequest";
    supports_disassemble_request => "supportsDisassembleRequest";
    supports_cancel_request => "supportsCancelRequest";
    supports_breakpoint_locations_request => "supportsBreakpointLocationsRequest";
    supports_clipboard_context => "supportsClipboardContext";
    supports_stepping_granularity => "supportsSteppingGranularity";
    supports_single_thread_execution_requests => "supportsSingleThreadExecutionRequests";
    supports_delayed_stack_trace_loading => "supportsDelayedStackTraceLoading";
    /// Not an adapter capability in the spec (it is the *client's* `supportsVariablePaging`);
    /// read in case an adapter advertises it. Absent for debugpy, lldb-dap, Delve.
    supports_variable_paging => "supportsVariablePaging";
}

impl Capabilities {
    /// Whether the adapter sent `name` as `true` (any capability, also one agentdap has no
    /// typed field for).
    pub fn has(&self, name: &str) -> bool {
        flag(&self.raw, name)
    }

    /// Reads the body of an `initialize` response. A missing or non-object body gives the
    /// empty set (every flag false), which is what the spec implies.
    pub fn from_body(body: Option<&Value>) -> Capabilities {
        let mut caps = Capabilities::default();
        if let Some(Value::Object(map)) = body {
            caps.merge(map);
        }
        caps
    }

    /// Applies a `capabilities` event's `body.capabilities` (DAP § Events Capabilities): the keys
    /// it names replace the previous values, the rest stay.
    pub fn merge(&mut self, update: &Map<String, Value>) {
        for (k, v) in update {
            self.raw.insert(k.clone(), v.clone());
        }
        self.derive_typed();
    }

    /// Any boolean capability by its wire name (for those not in the typed subset).
    pub fn flag(&self, name: &str) -> bool {
        flag(&self.raw, name)
    }
}

/// Reads an `initialize` response body as [`Capabilities::from_body`] does: anything that is
/// not an object is the empty set. Lets `Capabilities` be the typed `initialize` response
/// (`crate::dap::requests::Initialize`).
impl<'de> serde::Deserialize<'de> for Capabilities {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Capabilities, D::Error> {
        let body = <Value as serde::Deserialize>::deserialize(d)?;
        Ok(Capabilities::from_body(Some(&body)))
    }
}

fn flag(raw: &Map<String, Value>, name: &str) -> bool {
    raw.get(name).and_then(Value::as_bool).unwrap_or(false)
}

/// Reads `exceptionBreakpointFilters`, skipping entries without a string `filter`.
fn filters(v: Option<&Value>) -> Vec<ExceptionBreakpointsFilter> {
    let Some(Value::Array(items)) = v else {
        return Vec::new();
    };
    let text = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    items
        .iter()
        .filter_map(|o| {
            let filter = text(o, "filter")?;
            Some(ExceptionBreakpointsFilter {
                label: text(o, "label").unwrap_or_else(|| filter.clone()),
                filter,
                description: text(o, "description"),
                default: o.get("default").and_then(Value::as_bool).unwrap_or(false),
                supports_condition: o.get("supportsCondition").and_then(Value::as_bool).unwrap_or(false),
                condition_description: text(o, "conditionDescription"),
            })
        })
        .collect()
}

/// agentdap's `initialize` arguments (DAP § Requests Initialize, `InitializeRequestArguments`).
///
/// `adapter_id` is the adapter's `type` (`debugpy`, `lldb-dap`, `go`, …);
/// `supports_run_in_terminal` is the session's runInTerminal policy (false while it is declined).
/// Shape (keys serialise sorted): `{"adapterID",…,"clientID":"agentdap","clientName":"agentdap",
/// "columnsStartAt1":true,"linesStartAt1":true,"pathFormat":"path",…}` — pinned by a test.
pub fn initialize_arguments(adapter_id: &str, supports_run_in_terminal: bool) -> Value {
    serde_json::json!({
        "clientID": "agentdap",
        "clientName": "agentdap",
        "adapterID": adapter_id,
        "linesStartAt1": true,
        "columnsStartAt1": true,
        "pathFormat": "path",
        "supportsVariableType": true,
        "supportsVariablePaging": true,
        "supportsRunInTerminalRequest": supports_run_in_terminal,
        "supportsMemoryReferences": true,
        "supportsProgressReporting": false,
        "supportsInvalidatedEvent": true,
        "supportsStartDebuggingRequest": true,
    })
}

#[cfg(test)]
mod tests;
