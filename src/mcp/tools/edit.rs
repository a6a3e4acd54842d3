//! Tool group "edit": `set_variable` (change the stopped program's values — a child of a
//! variables ref through DAP `setVariable`, or an assignable expression through `setExpression` —
//! read back to confirm) and `set_function_breakpoints`.

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::breakpoints::FunctionBreakpoint;
use crate::session::tools::inspect::Target;

/// Setting the same value twice leaves the same state.
const SETTING: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "set_variable",
        description:
            "Set ref's child `name`, or an assignable `expression`, to a value (an expression); reads it back.",
        input_schema: set_variable_schema,
        annotations: SETTING,
        handler: set_variable,
    },
    Tool {
        name: "set_function_breakpoints",
        description:
            "Replace the function breakpoints; says which were verified. Without a session they wait for launch.",
        input_schema: function_schema,
        annotations: SETTING,
        handler: set_function_breakpoints,
    },
];

fn set_variable_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "ref": {"type": "integer", "description": "The container's ref."},
            "name": {"type": "string"},
            "expression": {"type": "string", "description": "Instead of ref and name."},
            "value": {"type": "string"},
            "frame": {"type": "integer", "description": "For expression."}
        },
        "required": ["value"]
    })
}

fn function_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "breakpoints": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "condition": {"type": "string"},
                        "hit_condition": {"type": "string"}
                    },
                    "required": ["name"]
                },
                "description": "[] clears them."
            }
        },
        "required": ["breakpoints"]
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SetVariableArgs {
    session: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<i64>,
    name: Option<String>,
    expression: Option<String>,
    value: String,
    frame: Option<i64>,
}

fn set_variable(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: SetVariableArgs = parse_args(args)?;
    let bad = |msg: &str| Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    match (a.reference, a.name, a.expression) {
        (Some(reference), Some(name), None) => {
            if name.is_empty() {
                return bad("name is empty; give the child's name.");
            }
            if a.frame.is_some() {
                return bad("`frame` goes with `expression`; a ref already names its frame.");
            }
            let key = session_key(cx, a.session.as_deref())?;
            cx.sessions.set_variable(key, reference, name, a.value, cx.call, cx.now)?;
        }
        (None, None, Some(expression)) => {
            if expression.trim().is_empty() {
                return bad("expression is empty.");
            }
            let key = session_key(cx, a.session.as_deref())?;
            let target = Target { thread: None, frame: a.frame };
            cx.sessions.set_expression(key, expression, a.value, target, cx.call, cx.now)?;
        }
        (_, _, Some(_)) => return bad("pass either `ref` and `name`, or `expression`, not both."),
        (Some(_), None, None) => return bad("`ref` needs `name`: the child of ref to set."),
        (None, Some(_), None) => return bad("`name` needs `ref`: the variables ref of its container."),
        (None, None, None) => return bad("say what to set: `ref` and `name` (a child), or `expression`."),
    }
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionArgs {
    session: Option<String>,
    breakpoints: Vec<FunctionBreakpoint>,
}

/// Most function breakpoints in one list.
const MAX_FUNCTIONS: usize = 256;

fn set_function_breakpoints(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: FunctionArgs = parse_args(args)?;
    if a.breakpoints.iter().any(|b| b.name.trim().is_empty()) {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, "a function breakpoint has an empty name."));
    }
    if a.breakpoints.len() > MAX_FUNCTIONS {
        let msg = format!("at most {MAX_FUNCTIONS} function breakpoints at once.");
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    }
    // No session yet is fine: they wait for the next launch.
    let key = match a.session.as_deref() {
        Some(id) => Some(cx.sessions.resolve(Some(id))?),
        None => cx.sessions.resolve(None).ok(),
    };
    cx.sessions.set_function_breakpoints(key, a.breakpoints, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}
