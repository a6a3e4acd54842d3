//! The breakpoint requests: `setBreakpoints`, `setFunctionBreakpoints`,
//! `setExceptionBreakpoints`, `dataBreakpointInfo`, `setDataBreakpoints`,
//! `setInstructionBreakpoints`, `breakpointLocations`, and the `Source`, `SourceBreakpoint`,
//! `FunctionBreakpoint`, `DataBreakpoint`, `InstructionBreakpoint` and `Breakpoint` shapes they
//! carry.

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
/// adapter's `exceptionBreakpointFilters` to turn on, and those with a condition as
/// `filterOptions` (agentdap sends no `exceptionOptions`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetExceptionBreakpointsArguments {
    /// Set of exception filters specified by their ID.
    pub filters: Vec<String>,
    /// Filters with options (when `supportsExceptionFilterOptions`); left out when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_options: Option<Vec<ExceptionFilterOptions>>,
}

/// DAP § Types › ExceptionFilterOptions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionFilterOptions {
    /// ID of an exception filter returned by the `exceptionBreakpointFilters` capability.
    pub filter_id: String,
    /// An expression for conditional exceptions (when the filter's `supportsCondition`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

request!(
    /// DAP § Requests › DataBreakpointInfo: whether (and how) data can be watched (when
    /// `supportsDataBreakpoints`).
    DataBreakpointInfo, "dataBreakpointInfo", DataBreakpointInfoArguments, DataBreakpointInfoResponse
);

request!(
    /// DAP § Requests › SetDataBreakpoints: replaces every data breakpoint.
    SetDataBreakpoints, "setDataBreakpoints", SetDataBreakpointsArguments, SetBreakpointsResponse
);

request!(
    /// DAP § Requests › SetInstructionBreakpoints: replaces every instruction breakpoint (when
    /// `supportsInstructionBreakpoints`).
    SetInstructionBreakpoints, "setInstructionBreakpoints", SetInstructionBreakpointsArguments, SetBreakpointsResponse
);

request!(
    /// DAP § Requests › BreakpointLocations: the possible breakpoint locations in a range of
    /// lines (when `supportsBreakpointLocationsRequest`).
    BreakpointLocations, "breakpointLocations", BreakpointLocationsArguments, BreakpointLocationsResponse
);

/// DAP § Requests › DataBreakpointInfo `DataBreakpointInfoArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpointInfoArguments {
    /// Reference to the variable container if the data breakpoint is requested for a child of
    /// the container.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variables_reference: Option<i64>,
    /// The name of the variable's child, or an expression (or with `asAddress` an address).
    pub name: String,
    /// When `name` is an expression, the frame to evaluate it in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<i64>,
    /// With `asAddress`, the number of bytes to watch (when `supportsDataBreakpointBytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// `name` is a memory address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_address: Option<bool>,
}

/// DAP § Requests › DataBreakpointInfo response body.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpointInfoResponse {
    /// An identifier for the data on which a data breakpoint can be registered; `null` means
    /// no data breakpoint is available (the description says why).
    #[serde(default, deserialize_with = "lenient::value")]
    pub data_id: Option<String>,
    /// UI string that describes on what data the breakpoint is set, or why it is not available.
    #[serde(default, deserialize_with = "lenient::value")]
    pub description: Option<String>,
    /// The access types a data breakpoint can have (`read`, `write`, `readWrite`).
    #[serde(default, deserialize_with = "lenient::value")]
    pub access_types: Option<Vec<String>>,
    /// The breakpoint can persist across sessions.
    #[serde(default, deserialize_with = "lenient::value")]
    pub can_persist: bool,
}

/// DAP § Types › DataBreakpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DataBreakpoint {
    /// An id representing the data, from `dataBreakpointInfo`.
    pub data_id: String,
    /// The access type of the data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_type: Option<String>,
    /// An expression for conditional breakpoints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// An expression that controls how many hits of the breakpoint are ignored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<String>,
}

/// DAP § Requests › SetDataBreakpoints `SetDataBreakpointsArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDataBreakpointsArguments {
    /// The contents of this array replace all existing data breakpoints.
    pub breakpoints: Vec<DataBreakpoint>,
}

/// DAP § Types › InstructionBreakpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionBreakpoint {
    /// The instruction reference of the breakpoint (a memory reference: an
    /// `instructionPointerReference` of a frame, or a disassembled instruction's `address`).
    pub instruction_reference: String,
    /// The offset from the instruction reference in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// An expression for conditional breakpoints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// An expression that controls how many hits of the breakpoint are ignored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<String>,
}

/// DAP § Requests › SetInstructionBreakpoints `SetInstructionBreakpointsArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetInstructionBreakpointsArguments {
    /// The instruction references of the breakpoints; they replace all existing ones.
    pub breakpoints: Vec<InstructionBreakpoint>,
}

/// DAP § Requests › BreakpointLocations `BreakpointLocationsArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakpointLocationsArguments {
    /// The source location of the breakpoints.
    pub source: Source,
    /// Start line of range to search possible breakpoint locations in.
    pub line: u32,
    /// End line of range; if left out, `line` alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
}

/// DAP § Requests › BreakpointLocations response body.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakpointLocationsResponse {
    /// Sorted set of possible breakpoint locations. Missing or not a list reads as empty.
    #[serde(default, deserialize_with = "lenient::items")]
    pub breakpoints: Vec<BreakpointLocation>,
}

/// DAP § Types › BreakpointLocation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakpointLocation {
    /// Start line of breakpoint location; not an integer reads as absent.
    #[serde(default, deserialize_with = "lenient::value")]
    pub line: Option<u32>,
    /// The start position of a breakpoint location.
    #[serde(default, deserialize_with = "lenient::value")]
    pub column: Option<u32>,
    /// The end line of the location, if it spans lines.
    #[serde(default, deserialize_with = "lenient::value")]
    pub end_line: Option<u32>,
    /// The end position of the location.
    #[serde(default, deserialize_with = "lenient::value")]
    pub end_column: Option<u32>,
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
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
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
    /// The source containing the breakpoint; not an object reads as absent.
    #[serde(default, deserialize_with = "lenient::record")]
    pub source: Option<AdapterSource>,
    /// A memory reference to where the breakpoint is set.
    #[serde(default, deserialize_with = "lenient::value")]
    pub instruction_reference: Option<String>,
}
