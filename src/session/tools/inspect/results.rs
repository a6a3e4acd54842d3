//! The shapes of the "inspect" tools' `structuredContent` ([`super`]): serde structs serialised
//! once with [`to_json`]. Pure data; what goes in them is decided by the tools. A field left out
//! when `None` is one today's results leave out; a plain `Option` is written as `null` (the
//! tests in `tests/mcp.rs` and `tests/debugpy.rs` pin the results).

use serde::Serialize;
use serde_json::{Map, Value};

/// `value` as JSON. Serialising these structs cannot fail (string keys, no non-finite floats);
/// should it ever, the result is `null` rather than a panic.
pub(in crate::session) fn to_json(value: impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// [`to_json`] of `value` with `list` moved in under `key`: serialising a list of values would
/// copy each of them (a 20-frame stack's copy cost ~30,000 instructions a call,
/// `scripts/callgrind-roundtrip`).
pub(in crate::session) fn to_json_with(value: impl Serialize, key: &str, list: Vec<Value>) -> Value {
    let mut v = to_json(value);
    if let Value::Object(m) = &mut v {
        m.insert(key.to_owned(), Value::Array(list));
    }
    v
}

/// `threads {select}`.
#[derive(Serialize)]
pub(super) struct FocusThread<'a> {
    pub session: &'a str,
    pub thread: i64,
}

/// One exception filter in `capabilities`.
#[derive(Serialize)]
pub(super) struct Filter<'a> {
    pub filter: &'a str,
    pub label: &'a str,
    pub default: bool,
    /// The filter takes a condition (`set_exception_breakpoints {conditions}`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub condition: bool,
}

/// A tool the adapter does not allow, in `capabilities`.
#[derive(Serialize)]
pub(super) struct Unavailable<'a> {
    pub tool: &'a str,
    pub needs: &'a str,
}

#[derive(Serialize)]
pub(super) struct Tools<'a> {
    pub available: Vec<&'a str>,
    pub unavailable: Vec<Unavailable<'a>>,
}

/// `capabilities`.
#[derive(Serialize)]
pub(super) struct CapabilitiesResult<'a> {
    pub session: &'a str,
    pub adapter: &'a str,
    pub tools: Tools<'a>,
    pub breakpoint_settings: Vec<&'a str>,
    pub exception_filters: Vec<Filter<'a>>,
    pub raw: &'a Map<String, Value>,
}

/// One watch expression in `watch`.
#[derive(Serialize)]
pub(super) struct WatchEntry<'a> {
    pub id: u32,
    pub expression: &'a str,
}

/// `watch`.
#[derive(Serialize)]
pub(super) struct WatchList<'a> {
    pub session: &'a str,
    pub watches: Vec<WatchEntry<'a>>,
}

/// One thread in `threads`.
#[derive(Serialize)]
pub(super) struct ThreadEntry<'a> {
    /// `None` (`null`): the adapter gave the thread no integer id, so nothing can name it.
    pub id: Option<i64>,
    pub name: &'a str,
    pub focus: bool,
}

/// `threads`.
#[derive(Serialize)]
pub(super) struct ThreadList<'a> {
    pub session: &'a str,
    pub revision: u64,
    pub threads: Vec<ThreadEntry<'a>>,
}

/// `stack_trace`, with its `frames` moved in by [`to_json_with`].
#[derive(Serialize)]
pub(super) struct StackResult<'a> {
    pub session: &'a str,
    pub revision: u64,
    pub thread: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_frames: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start: Option<u64>,
}

/// `scopes`.
#[derive(Serialize)]
pub(super) struct ScopeList<'a> {
    pub session: &'a str,
    pub revision: u64,
    pub scopes: Vec<Value>,
}

/// One page of `variables`, with its `variables` moved in by [`to_json_with`].
#[derive(Serialize)]
pub(super) struct VariablesPage<'a> {
    pub session: &'a str,
    pub revision: u64,
    #[serde(rename = "ref")]
    pub handle: i64,
    pub start: usize,
    pub total: usize,
    /// debugpy's `len()` of a big container.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// `Some(true)` when the page ended early; left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start: Option<usize>,
}

/// The source excerpt of `context`.
#[derive(Serialize)]
pub(super) struct Excerpt<'a> {
    pub path: &'a str,
    pub line: u64,
    pub lines: Vec<ExcerptLine>,
}

/// One numbered source line of an excerpt.
#[derive(Serialize)]
pub(super) struct ExcerptLine {
    pub line: usize,
    pub text: String,
}

/// The locals of `context`; `ref` is `null` when no handle could be minted.
#[derive(Serialize)]
pub(super) struct Locals<'a> {
    pub scope: &'a str,
    #[serde(rename = "ref")]
    pub handle: Option<u32>,
    pub total: usize,
    pub variables: Vec<Value>,
}

/// One watch expression's outcome in `context`: its `value`, or its `error`.
#[derive(Serialize)]
pub(super) struct WatchValue<'a> {
    pub expression: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}
