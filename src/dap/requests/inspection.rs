//! The requests that read (and set) a stopped program's state: `threads`, `stackTrace`,
//! `scopes`, `variables`, `evaluate`, `exceptionInfo`, `setVariable`, `setExpression`, `source`.

use serde::{Deserialize, Serialize};

use super::{lenient, request, AdapterSource, Loose, Source};

request!(
    /// DAP § Requests › Threads. Sent without `arguments`.
    Threads, "threads", (), ThreadsResponse
);

request!(
    /// DAP § Requests › StackTrace.
    StackTrace, "stackTrace", StackTraceArguments, StackTraceResponse
);

request!(
    /// DAP § Requests › Scopes.
    Scopes, "scopes", ScopesArguments, ScopesResponse
);

request!(
    /// DAP § Requests › Variables.
    Variables, "variables", VariablesArguments, VariablesResponse
);

request!(
    /// DAP § Requests › Evaluate.
    Evaluate, "evaluate", EvaluateArguments, EvaluateResponse
);

request!(
    /// DAP § Requests › ExceptionInfo (when `supportsExceptionInfoRequest`).
    ExceptionInfo, "exceptionInfo", ExceptionInfoArguments, ExceptionInfoResponse
);

request!(
    /// DAP § Requests › SetVariable (when `supportsSetVariable`).
    SetVariable, "setVariable", SetVariableArguments, SetValueResponse
);

request!(
    /// DAP § Requests › SetExpression (when `supportsSetExpression`).
    SetExpression, "setExpression", SetExpressionArguments, SetValueResponse
);

request!(
    /// DAP § Requests › Source: the text of a source the adapter holds (`sourceReference`).
    SourceRequest, "source", SourceArguments, SourceResponse
);

/// DAP § Requests › Threads response body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadsResponse {
    /// All threads. `None` when missing or not a list (agentdap then keeps the threads it knew,
    /// where an empty list clears them); an entry that is not an object reads as a thread with
    /// nothing known.
    #[serde(default, deserialize_with = "lenient::opt_items")]
    pub threads: Option<Vec<Thread>>,
}

/// DAP § Types › Thread.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    /// Unique identifier for the thread; not an integer reads as absent.
    #[serde(default, deserialize_with = "lenient::value")]
    pub id: Option<i64>,
    /// The name of the thread.
    #[serde(default, deserialize_with = "lenient::value")]
    pub name: Option<String>,
}

/// DAP § Requests › StackTrace `StackTraceArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceArguments {
    /// Retrieve the stacktrace for this thread.
    pub thread_id: i64,
    /// The index of the first frame to return; if omitted frames start at 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_frame: Option<u64>,
    /// The maximum number of frames to return. If levels is not specified or 0, all frames are
    /// returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<u64>,
}

/// DAP § Requests › StackTrace response body.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTraceResponse {
    /// The frames of the stack frame, topmost first. Missing or not a list reads as empty.
    #[serde(default, deserialize_with = "lenient::items")]
    pub stack_frames: Vec<StackFrame>,
    /// The total number of frames available in the stack (DAP lets it exceed the frames
    /// there are; lldb-dap 22 answers 25 for a 9-frame stack). Not an unsigned integer reads
    /// as absent.
    #[serde(default, deserialize_with = "lenient::value")]
    pub total_frames: Option<u64>,
}

/// DAP § Types › StackFrame: the fields agentdap reads. `id`, `line` and `column` are also
/// passed on to the agent (or compared) as the adapter sent them, so they are [`Loose`].
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    /// An identifier for the stack frame, for `scopes`, `evaluate` and `setExpression`.
    #[serde(default)]
    pub id: Loose<i64>,
    /// The name of the stack frame, typically a method name.
    #[serde(default, deserialize_with = "lenient::value")]
    pub name: Option<String>,
    /// The source of the frame; not an object reads as absent.
    #[serde(default, deserialize_with = "lenient::record")]
    pub source: Option<AdapterSource>,
    /// The line within the source of the frame (0 when there is no source; agentdap reads
    /// only a line above 0 as one).
    #[serde(default)]
    pub line: Loose<u64>,
    /// Start position of the range covered by the stack frame.
    #[serde(default)]
    pub column: Loose<u64>,
    /// A memory reference for the current instruction pointer in this frame.
    #[serde(default, deserialize_with = "lenient::value")]
    pub instruction_pointer_reference: Option<String>,
}

/// DAP § Requests › Scopes `ScopesArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopesArguments {
    /// Retrieve the scopes for the stack frame identified by `frameId`.
    pub frame_id: i64,
}

/// DAP § Requests › Scopes response body.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopesResponse {
    /// The scopes of the stack frame. Missing or not a list reads as empty.
    #[serde(default, deserialize_with = "lenient::items")]
    pub scopes: Vec<Scope>,
}

/// DAP § Types › Scope: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    /// Name of the scope such as `Arguments`, `Locals`, or `Registers`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub name: Option<String>,
    /// The variables of this scope can be retrieved by passing this value to `variables`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub variables_reference: Option<i64>,
    /// The number of named variables in this scope (passed on as sent).
    #[serde(default)]
    pub named_variables: Loose<u64>,
    /// The number of indexed variables in this scope (passed on as sent).
    #[serde(default)]
    pub indexed_variables: Loose<u64>,
    /// If true, the number of variables in this scope is large or expensive to retrieve.
    /// Missing or not a boolean reads as `false`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub expensive: bool,
}

/// DAP § Requests › Variables `VariablesArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VariablesArguments {
    /// The variable for which to retrieve its children.
    pub variables_reference: i64,
    /// Filter to limit the child variables to either named or indexed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// The index of the first variable to return; if omitted children start at 0 (when
    /// `supportsVariablePaging`; adapters without it send every child).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// The number of variables to return. If count is missing or 0, all variables are returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// How the values are formatted (when `supportsValueFormattingOptions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<ValueFormat>,
}

/// DAP § Types › ValueFormat: the one option agentdap sends, `hex`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ValueFormat {
    /// Display the value in hex.
    pub hex: bool,
}

impl ValueFormat {
    /// `{hex: true}` when `hex`, else nothing (the adapter's own format).
    pub fn hex(hex: bool) -> Option<ValueFormat> {
        hex.then_some(ValueFormat { hex: true })
    }
}

/// DAP § Requests › Variables response body.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariablesResponse {
    /// All (or a range) of variables for the given variable reference. Missing or not a list
    /// reads as empty.
    #[serde(default, deserialize_with = "lenient::items")]
    pub variables: Vec<Variable>,
}

/// DAP § Types › Variable: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    /// The variable's name.
    #[serde(default, deserialize_with = "lenient::value")]
    pub name: Option<String>,
    /// The variable's value. [`Loose`]: agentdap shows `value`, else `result`, and a `value`
    /// that is present but not a string still wins (reads as "").
    #[serde(default)]
    pub value: Loose<String>,
    /// The type of the variable's value.
    #[serde(default, deserialize_with = "lenient::value", rename = "type")]
    pub type_: Option<String>,
    /// If > 0, the variable is structured and its children can be retrieved with `variables`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub variables_reference: Option<i64>,
    /// The number of named child variables (passed on as sent).
    #[serde(default)]
    pub named_variables: Loose<u64>,
    /// The number of indexed child variables (passed on as sent).
    #[serde(default)]
    pub indexed_variables: Loose<u64>,
    /// The evaluatable name of this variable (passed on as sent).
    #[serde(default)]
    pub evaluate_name: Loose<String>,
    /// A memory reference associated with this variable.
    #[serde(default, deserialize_with = "lenient::value")]
    pub memory_reference: Option<String>,
}

/// DAP § Requests › Evaluate `EvaluateArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateArguments {
    /// The expression to evaluate.
    pub expression: String,
    /// Evaluate the expression in the scope of this stack frame; in the global scope when
    /// missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<i64>,
    /// The context in which the evaluate request is used: `watch`, `repl`, `hover`,
    /// `clipboard`, `variables` (sent as given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// How the result is formatted (when `supportsValueFormattingOptions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<ValueFormat>,
}

/// DAP § Requests › Evaluate response body: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResponse {
    /// The result of the evaluate request ([`Loose`]: see [`Variable::value`]).
    #[serde(default)]
    pub result: Loose<String>,
    /// The type of the evaluate result.
    #[serde(default, deserialize_with = "lenient::value", rename = "type")]
    pub type_: Option<String>,
    /// If > 0, the result is structured and its children can be retrieved with `variables`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub variables_reference: Option<i64>,
    /// The number of named child variables (passed on as sent).
    #[serde(default)]
    pub named_variables: Loose<u64>,
    /// The number of indexed child variables (passed on as sent).
    #[serde(default)]
    pub indexed_variables: Loose<u64>,
    /// A memory reference to a location appropriate for this result.
    #[serde(default, deserialize_with = "lenient::value")]
    pub memory_reference: Option<String>,
}

/// DAP § Requests › ExceptionInfo `ExceptionInfoArguments`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionInfoArguments {
    /// Thread for which exception information should be retrieved.
    pub thread_id: i64,
}

/// DAP § Requests › ExceptionInfo response body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionInfoResponse {
    /// ID of the exception that was thrown.
    #[serde(default, deserialize_with = "lenient::value")]
    pub exception_id: Option<String>,
    /// Descriptive text for the exception.
    #[serde(default, deserialize_with = "lenient::value")]
    pub description: Option<String>,
    /// Mode that caused the exception notification to be raised (`never`, `always`,
    /// `unhandled`, `userUnhandled`).
    #[serde(default, deserialize_with = "lenient::value")]
    pub break_mode: Option<String>,
    /// Detailed information about the exception; not an object reads as absent.
    #[serde(default, deserialize_with = "lenient::record")]
    pub details: Option<ExceptionDetails>,
}

/// DAP § Types › ExceptionDetails: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// Message contained in the exception.
    #[serde(default, deserialize_with = "lenient::value")]
    pub message: Option<String>,
    /// Short type name of the exception object.
    #[serde(default, deserialize_with = "lenient::value")]
    pub type_name: Option<String>,
    /// Fully-qualified type name of the exception object.
    #[serde(default, deserialize_with = "lenient::value")]
    pub full_type_name: Option<String>,
    /// An expression that can be evaluated in the current scope to obtain the exception object.
    #[serde(default, deserialize_with = "lenient::value")]
    pub evaluate_name: Option<String>,
    /// Stack trace at the time the exception was thrown.
    #[serde(default, deserialize_with = "lenient::value")]
    pub stack_trace: Option<String>,
}

/// DAP § Requests › SetVariable `SetVariableArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetVariableArguments {
    /// The reference of the variable container.
    pub variables_reference: i64,
    /// The name of the variable in the container.
    pub name: String,
    /// The value of the variable.
    pub value: String,
}

/// DAP § Requests › SetExpression `SetExpressionArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetExpressionArguments {
    /// The l-value expression to assign to.
    pub expression: String,
    /// The value expression to assign to the l-value expression.
    pub value: String,
    /// Evaluate the expressions in the scope of this stack frame; in the global scope when
    /// missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<i64>,
}

/// DAP § Requests › SetVariable and › SetExpression response bodies (the same fields).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetValueResponse {
    /// The new value of the variable ([`Loose`]: see [`Variable::value`]).
    #[serde(default)]
    pub value: Loose<String>,
    /// The type of the new value.
    #[serde(default, deserialize_with = "lenient::value", rename = "type")]
    pub type_: Option<String>,
    /// If > 0, the new value is structured and its children can be retrieved with `variables`.
    #[serde(default, deserialize_with = "lenient::value")]
    pub variables_reference: Option<i64>,
    /// The number of named child variables (passed on as sent).
    #[serde(default)]
    pub named_variables: Loose<u64>,
    /// The number of indexed child variables (passed on as sent).
    #[serde(default)]
    pub indexed_variables: Loose<u64>,
}

/// DAP § Requests › Source `SourceArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceArguments {
    /// Specifies the source content to load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The reference to the source; the same as `source.sourceReference` (kept for backward
    /// compatibility, and what older adapters read).
    pub source_reference: i64,
}

/// DAP § Requests › Source response body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceResponse {
    /// Content of the source reference; not a string reads as absent.
    #[serde(default, deserialize_with = "lenient::value")]
    pub content: Option<String>,
    /// Content type (MIME type) of the source.
    #[serde(default, deserialize_with = "lenient::value")]
    pub mime_type: Option<String>,
}
