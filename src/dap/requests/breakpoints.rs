//! The breakpoint requests: `setBreakpoints`, `setFunctionBreakpoints`,
//! `setExceptionBreakpoints`, and the `Source`, `SourceBreakpoint`, `FunctionBreakpoint` and
//! `Breakpoint` shapes they carry.

use serde::{Deserialize, Serialize};

use super::{lenient, request, Loose};

request!(
    /// DAP § Requests › SetBreakpoints: replaces every breakpoint of one source.
    SetBreakpoints, "setBreakpoints", SetBreakpointsArguments, SetBreakpointsResponse
);

request!(
    /// DAP § Requests › SetFunctionBreakpoints: replaces every function breakpoint (when
    /// `supportsFunctionBreakpoints`).
    SetFunctionBreakpoints, "setFunctionBreakpoints", SetFunctionBreakpointsArguments, SetBreakpointsResponse
);

request!(
    /// DAP § Requests › SetExceptionBreakpoints: the exception filters to stop on. agentdap does
    /// not read the answer's `breakpoints`.
    SetExceptionBreakpoints, "setExceptionBreakpoints", SetExceptionBreakpointsArguments, SetBreakpointsResponse
);

/// DAP § Types › Source, as agentdap sends it: a file by `path`, or a source the adapter holds by
/// `sourceReference`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// The short name of the source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The path of the source to be shown in the UI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// If the value > 0 the contents of the source must be retrieved through the `source`
    /// request (even if a path is specified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_reference: Option<i64>,
}

impl Source {
    /// A file by its path.
    pub fn path(path: impl Into<String>) -> Source {
        Source { path: Some(path.into()), ..Source::default() }
    }
}

/// DAP § Types › Source, as an adapter sends it (in a `StackFrame`, a `Breakpoint`): `path` and
/// `name` are passed on to the agent as they came, so they are [`Loose`].
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterSource {
    /// The short name of the source.
    #[serde(default)]
    pub name: Loose<String>,
    /// The path of the source.
    #[serde(default)]
    pub path: Loose<String>,
    /// If the value > 0 the contents of the source must be retrieved through the `source` request.
    #[serde(default, deserialize_with = "lenient::value")]
    pub source_reference: Option<i64>,
}

/// DAP § Types › SourceBreakpoint. Optional fields are left out when `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceBreakpoint {
    /// The source line of the breakpoint or logpoint.
    pub line: u32,
    /// Start position within the source line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The expression for conditional breakpoints (when `supportsConditionalBreakpoints`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// The expression that controls how many hits of the breakpoint are ignored (when
    /// `supportsHitConditionalBreakpoints`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<String>,
    /// If set, the adapter logs this message (with `{expression}`s interpolated) instead of
    /// breaking (when `supportsLogPoints`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_message: Option<String>,
}

/// DAP § Types › FunctionBreakpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionBreakpoint {
    /// The name of the function.
    pub name: String,
    /// An expression for conditional breakpoints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// An expression that controls how many hits of the breakpoint are ignored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<String>,
}

/// DAP § Requests › SetBreakpoints `SetBreakpointsArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetBreakpointsArguments {
    /// The source location of the breakpoints; `source.path` or `source.sourceReference` must be
    /// specified.
    pub source: Source,
    /// The code locations of the breakpoints (agentdap always sends the list, empty to clear).
    pub breakpoints: Vec<SourceBreakpoint>,
}

/// DAP § Requests › SetFunctionBreakpoints `SetFunctionBreakpointsArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFunctionBreakpointsArguments {
    /// The function names of the breakpoints.
    pub breakpoints: Vec<FunctionBreakpoint>,
}

/// DAP § Requests › SetExceptionBreakpoints `SetExceptionBreakpointsArguments`: the ids of the
/// adapter's `exceptionBreakpointFilters` to turn on (agentdap sends no `filterOptions` or
/// `exceptionOptions`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetExceptionBreakpointsArguments {
    /// Set of exception filters specified by their ID.
    pub filters: Vec<String>,
}

/// DAP § Requests › SetBreakpoints (also SetFunctionBreakpoints, SetExceptionBreakpoints)
/// response body.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetBreakpointsResponse {
    /// Information about the breakpoints, in the order they were requested. Missing or not a
    /// list reads as empty; an entry that is not an object reads as an unverified breakpoint
    /// with nothing known (as `list.get(i).get(k)` did).
    #[serde(default, deserialize_with = "lenient::items")]
    pub breakpoints: Vec<Breakpoint>,
}

/// DAP § Types › Breakpoint: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakpoint {
    /// The identifier for the breakpoint, needed for `breakpoint` events and `hitBreakpointIds`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub id: Option<i64>,
    /// If true, the breakpoint could be set. Missing or not a boolean reads as `false`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub verified: bool,
    /// A message about the state of the breakpoint (why it is not verified).
    #[serde(default, deserialize_with = "lenient::value")]
    pub message: Option<String>,
    /// The start line of the actual range covered by the breakpoint. Not an integer in
    /// `0..=u32::MAX` reads as absent.
    #[serde(default, deserialize_with = "lenient::value")]
    pub line: Option<u32>,
    /// Start position of the source range covered by the breakpoint.
    #[serde(default, deserialize_with = "lenient::value")]
    pub column: Option<u32>,
    /// Why the breakpoint is not verified (`pending`, `failed`).
    #[serde(default, deserialize_with = "lenient::value")]
    pub reason: Option<String>,
}
