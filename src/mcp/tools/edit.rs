//! Tool group "edit": `set_variable`, `set_expression` (change the stopped program's values, read
//! back to confirm).

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::tools::inspect::Target;

/// Setting the same value twice leaves the same state.
const SETTING: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "set_variable",
        description: "Set a child of a variables ref to a value (an expression); reads it back to confirm.",
        input_schema: set_variable_schema,
        annotations: SETTING,
        handler: set_variable,
    },
    Tool {
        name: "set_expression",
        description: "Assign a value to an assignable expression in a frame; reads it back.",
        input_schema: set_expression_schema,
        annotations: SETTING,
        handler: set_expression,
    },
];

fn set_variable_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "ref": {"type": "integer", "description": "The container's ref."},
            "name": {"type": "string"},
            "value": {"type": "string"}
        },
        "required": ["ref", "name", "value"]
    })
}

fn set_expression_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "expression": {"type": "string"},
            "value": {"type": "string"},
            "frame": {"type": "integer", "description": "Default: top frame."}
        },
        "required": ["expression", "value"]
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SetVariableArgs {
    session: Option<String>,
    #[serde(rename = "ref")]
    reference: i64,
    name: String,
    value: String,
}

fn set_variable(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: SetVariableArgs = parse_args(args)?;
    if a.name.is_empty() {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, "name is empty; give the child's name."));
    }
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.set_variable(key, a.reference, a.name, a.value, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SetExpressionArgs {
    session: Option<String>,
    expression: String,
    value: String,
    frame: Option<i64>,
}

fn set_expression(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: SetExpressionArgs = parse_args(args)?;
    if a.expression.trim().is_empty() {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, "expression is empty."));
    }
    let key = session_key(cx, a.session.as_deref())?;
    let target = Target { thread: None, frame: a.frame };
    cx.sessions.set_expression(key, a.expression, a.value, target, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}
