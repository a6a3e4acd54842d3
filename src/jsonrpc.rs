//! JSON-RPC 2.0 message types (newline-delimited, MCP transport); ids echoed exactly.
//!
//! Owns: classifying one parsed JSON value into request / notification / response / invalid,
//! request ids kept as their raw JSON text (so `1`, `"1"`, `1.0` and numbers beyond `u64` come back
//! byte for byte), and writing compact response, error and notification lines.
//! Must not: know about MCP methods, eras or tools, or do any IO.
//!
//! Ids are recovered from the line's text with a small span scanner because `serde_json::Value`
//! turns integers beyond 64 bits into `f64`. The scanner only runs on text `serde_json` has
//! already accepted, so it can stay simple; it still returns `None` rather than panicking on
//! anything unexpected.

use std::fmt;

use crate::json::write as compact;

use serde_json::{Map, Value};

/// Invalid JSON was received (JSON-RPC 2.0 § 5.1).
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid Request object (JSON-RPC 2.0 § 5.1).
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available (JSON-RPC 2.0 § 5.1).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters (JSON-RPC 2.0 § 5.1).
pub const INVALID_PARAMS: i64 = -32602;
/// Internal JSON-RPC error (JSON-RPC 2.0 § 5.1).
pub const INTERNAL_ERROR: i64 = -32603;

/// A request id or progress token: a JSON string or number kept as the exact text the peer sent.
///
/// Shape: the raw JSON token, e.g. `7`, `"7"`, `123456789012345678901234567890`. Two ids are equal
/// when both are strings with the same decoded contents, or both are numbers with the same text
/// (MCP 2025-11-25 § Base Protocol: "string or integer"; `1` and `"1"` are different ids).
#[derive(Clone, Debug)]
pub struct Id {
    raw: Box<str>,
    key: IdKey,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum IdKey {
    Str(String),
    Num(Box<str>),
}

impl Id {
    /// Builds an id from one raw JSON token. `None` unless it is a string or a number
    /// (MCP forbids `null` ids; objects, arrays and booleans are not ids at all).
    pub fn from_raw(raw: &str) -> Option<Id> {
        let raw = raw.trim();
        let first = *raw.as_bytes().first()?;
        let key = if first == b'"' {
            IdKey::Str(serde_json::from_str::<String>(raw).ok()?)
        } else if first == b'-' || first.is_ascii_digit() {
            // Validate it really is one JSON number and nothing more.
            match serde_json::from_str::<Value>(raw).ok()? {
                Value::Number(_) => IdKey::Num(raw.into()),
                _ => return None,
            }
        } else {
            return None;
        };
        Some(Id { raw: raw.into(), key })
    }

    /// Builds a string id (for tests and for ids agentdap mints itself).
    pub fn from_string(s: &str) -> Id {
        let raw = Value::String(s.to_owned()).to_string();
        Id { raw: raw.into(), key: IdKey::Str(s.to_owned()) }
    }

    /// The exact JSON text to echo.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The id as a `serde_json::Value`, for embedding in a structure. Numbers beyond 64 bits
    /// lose precision here; use [`Id::raw`] wherever exactness matters.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.raw).unwrap_or(Value::Null)
    }
}

impl PartialEq for Id {
    fn eq(&self, other: &Id) -> bool {
        self.key == other.key
    }
}

impl Eq for Id {}

impl std::hash::Hash for Id {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// Byte range of one JSON value inside a line's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte of the value.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
}

impl Span {
    /// The whole text without surrounding JSON whitespace.
    pub fn trimmed(text: &str) -> Span {
        let b = text.as_bytes();
        let start = skip_ws(b, 0);
        let mut end = b.len();
        while end > start && is_ws(b[end - 1]) {
            end -= 1;
        }
        Span { start, end }
    }

    /// The text of the span (empty if it does not fit `text`).
    pub fn of<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.end).unwrap_or("")
    }
}

/// Why a message is not a valid request (the text goes into the `-32600` error message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalid {
    NotAnObject,
    BadVersion,
    BadId,
    BadMethod,
    Empty,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Invalid::NotAnObject => "Invalid Request: a message must be a JSON object",
            Invalid::BadVersion => "Invalid Request: \"jsonrpc\" must be \"2.0\"",
            Invalid::BadId => "Invalid Request: \"id\" must be a string or a number",
            Invalid::BadMethod => "Invalid Request: \"method\" must be a string",
            Invalid::Empty => "Invalid Request: neither \"method\" nor \"result\"/\"error\"",
        })
    }
}

/// One classified JSON-RPC message (JSON-RPC 2.0 § 4, § 5; MCP 2025-11-25 § Base Protocol).
///
/// The rule that decides request vs notification is the presence of `"id"`, never the method name.
#[derive(Debug)]
pub enum Message {
    /// `{"jsonrpc":"2.0","id":…,"method":…,"params"?:…}`; `params` is `None` when absent.
    Request { id: Id, method: String, params: Option<Value> },
    /// No `"id"`: never answered, whatever happens.
    Notification { method: String, params: Option<Value> },
    /// A response to a request of ours (`result` or `error` without `method`): ignored.
    Response,
    /// Looks like a notification (no `"id"`) but is malformed: logged, never answered.
    BadNotification,
    /// Answer `-32600` with this id (`None` → `"id": null`).
    Invalid { id: Option<Id>, why: Invalid },
}

/// Classifies one parsed message. `text[span]` must be the JSON text `value` was parsed from.
pub fn classify(text: &str, span: Span, value: Value) -> Message {
    let Value::Object(mut obj) = value else {
        return Message::Invalid { id: None, why: Invalid::NotAnObject };
    };
    let has_id = obj.contains_key("id");
    let id = if has_id { member_span(text, span, "id").and_then(|s| Id::from_raw(s.of(text))) } else { None };
    let version_ok = obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let method = match obj.remove("method") {
        Some(Value::String(m)) => Some(Ok(m)),
        Some(_) => Some(Err(())),
        None => None,
    };
    let params = obj.remove("params");

    let Some(method) = method else {
        if obj.contains_key("result") || obj.contains_key("error") {
            return Message::Response;
        }
        return Message::Invalid { id, why: Invalid::Empty };
    };
    if !has_id {
        // A notification, even a malformed one: JSON-RPC forbids answering it.
        return match (method, version_ok) {
            (Ok(method), true) => Message::Notification { method, params },
            _ => Message::BadNotification,
        };
    }
    let Some(id) = id else {
        return Message::Invalid { id: None, why: Invalid::BadId };
    };
    if !version_ok {
        return Message::Invalid { id: Some(id), why: Invalid::BadVersion };
    }
    match method {
        Ok(method) => Message::Request { id, method, params },
        Err(()) => Message::Invalid { id: Some(id), why: Invalid::BadMethod },
    }
}

/// Appends a success response, without the trailing newline:
/// `{"jsonrpc":"2.0","id":<raw id>,"result":<result>}` (JSON-RPC 2.0 § 5).
pub fn write_result(out: &mut Vec<u8>, id: &Id, result: &Value) {
    // Most answers fit: the line is then written without growing `out` step by step.
    out.reserve(ANSWER_ROOM);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.raw().as_bytes());
    out.extend_from_slice(b",\"result\":");
    write_value(out, result);
    out.push(b'}');
}

/// Appends an error response, without the trailing newline:
/// `{"jsonrpc":"2.0","id":<raw id>|null,"error":{"code":…,"message":…,"data"?:…}}`
/// (JSON-RPC 2.0 § 5.1).
pub fn write_error(out: &mut Vec<u8>, id: Option<&Id>, code: i64, message: &str, data: Option<&Value>) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.map_or("null", Id::raw).as_bytes());
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    compact::write_str(out, message);
    if let Some(data) = data {
        out.extend_from_slice(b",\"data\":");
        write_value(out, data);
    }
    out.extend_from_slice(b"}}");
}

/// Appends a notification, without the trailing newline:
/// `{"jsonrpc":"2.0","method":…,"params":…}` (JSON-RPC 2.0 § 4.1).
pub fn write_notification(out: &mut Vec<u8>, method: &str, params: &Value) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    compact::write_str(out, method);
    out.extend_from_slice(b",\"params\":");
    write_value(out, params);
    out.push(b'}');
}

/// Room [`write_result`] makes in its buffer before writing (bytes): a `stack_trace` of 20
/// frames or a `context` answer is 2–8 KiB.
const ANSWER_ROOM: usize = 8 << 10;

/// Compact JSON of a `Value`, as `serde_json::to_writer` writes it ([`crate::json::write`]).
fn write_value(out: &mut Vec<u8>, value: &Value) {
    compact::write(out, value);
}

/// Inserts `key: value` into an object value; a no-op on non-objects.
pub fn insert(target: &mut Value, key: &str, value: Value) {
    if let Value::Object(map) = target {
        map.insert(key.to_owned(), value);
    }
}

/// `params` as an object: absent → empty, an object → itself, anything else → `None`
/// (MCP requires object params; JSON-RPC's positional arrays are not accepted).
pub fn params_object(params: Option<Value>) -> Option<Map<String, Value>> {
    match params {
        None => Some(Map::new()),
        Some(Value::Object(map)) => Some(map),
        Some(_) => None,
    }
}

// ---- span scanner (input already validated by serde_json) ----

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

/// `i` at an opening quote; returns the index just past the closing quote.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// `i` at the first byte of a value; returns the index just past it.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !is_ws(b[j]) && !matches!(b[j], b',' | b'}' | b']') {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// The span of member `key` of the object at `obj` (the last one when a key repeats, as
/// `serde_json` does).
pub fn member_span(text: &str, obj: Span, key: &str) -> Option<Span> {
    let b = text.as_bytes().get(..obj.end)?;
    let mut i = skip_ws(b, obj.start);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    let mut found = None;
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(b, i)?;
        let raw_key = text.get(i..key_end)?;
        let matches = if raw_key.contains('\\') {
            serde_json::from_str::<String>(raw_key).ok().as_deref() == Some(key)
        } else {
            raw_key.get(1..raw_key.len() - 1) == Some(key)
        };
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, i + 1);
        let end = skip_value(b, start)?;
        if matches {
            found = Some(Span { start, end });
        }
        i = skip_ws(b, end);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return found,
            _ => return None,
        }
    }
}

/// The span at a path of object members, e.g. `["params", "_meta", "progressToken"]`.
pub fn path_span(text: &str, mut span: Span, path: &[&str]) -> Option<Span> {
    for key in path {
        span = member_span(text, span, key)?;
    }
    Some(span)
}

/// The spans of the elements of the array at `arr`.
pub fn array_spans(text: &str, arr: Span) -> Option<Vec<Span>> {
    let b = text.as_bytes().get(..arr.end)?;
    let mut i = skip_ws(b, arr.start);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let mut spans = Vec::new();
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return Some(spans);
    }
    loop {
        let end = skip_value(b, i)?;
        spans.push(Span { start: i, end });
        i = skip_ws(b, end);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b']' => return Some(spans),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_member(text: &str, key: &str, expected: Option<&str>) {
        let got = member_span(text, Span::trimmed(text), key).map(|s| s.of(text));
        assert_eq!(got, expected, "member {key:?} of {text}");
    }

    #[test]
    fn member_spans_keep_raw_text() {
        check_member(r#"{"id":1}"#, "id", Some("1"));
        check_member(r#" { "a" : [1,{"id":2}], "id" : "x\"y" } "#, "id", Some(r#""x\"y""#));
        check_member(r#"{"id":123456789012345678901234567890}"#, "id", Some("123456789012345678901234567890"));
        check_member(r#"{"\u0069d":5}"#, "id", Some("5"));
        check_member(r#"{"id":1,"id":2}"#, "id", Some("2"));
        check_member(r#"{"ids":1}"#, "id", None);
        check_member(r#"{}"#, "id", None);
        check_member(r#"{"a":"}","id":-1.5e3}"#, "id", Some("-1.5e3"));
    }

    #[test]
    fn path_and_array_spans() {
        let text = r#"[{"params":{"_meta":{"progressToken":"t"}}}, 3 ,"x"]"#;
        let spans = array_spans(text, Span::trimmed(text)).unwrap_or_default();
        let raw: Vec<&str> = spans.iter().map(|s| s.of(text)).collect();
        assert_eq!(raw, [r#"{"params":{"_meta":{"progressToken":"t"}}}"#, "3", r#""x""#]);
        let token = path_span(text, spans[0], &["params", "_meta", "progressToken"]).map(|s| s.of(text));
        assert_eq!(token, Some(r#""t""#));
        assert_eq!(array_spans("[]", Span::trimmed("[]")), Some(vec![]));
    }

    #[test]
    fn ids_compare_by_kind_and_value() {
        let id = |raw: &str| Id::from_raw(raw);
        assert_eq!(id("1"), id("1"));
        assert_ne!(id("1"), id("\"1\""));
        assert_eq!(id("\"\\u0031\""), id("\"1\""));
        assert_eq!(id("\"\\u0031\"").map(|i| i.raw().to_owned()).as_deref(), Some("\"\\u0031\""));
        assert!(id("null").is_none());
        assert!(id("true").is_none());
        assert!(id("{}").is_none());
        assert!(id("[1]").is_none());
    }

    #[test]
    fn writers_are_compact() {
        let mut out = Vec::new();
        let id = Id::from_raw("12345678901234567890123").unwrap_or_else(|| Id::from_string("x"));
        write_result(&mut out, &id, &serde_json::json!({"a": [1, 2]}));
        out.push(b'\n');
        write_error(&mut out, None, PARSE_ERROR, "Parse error", None);
        out.push(b'\n');
        write_notification(&mut out, "n", &serde_json::json!({}));
        assert_eq!(
            String::from_utf8_lossy(&out),
            "{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890123,\"result\":{\"a\":[1,2]}}\n\
             {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n\
             {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{}}"
        );
    }
}
