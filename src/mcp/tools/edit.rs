//! Tool group "edit": `set_variable` (change the stopped program's values — a child of a
//! variables ref through DAP `setVariable`, or an assignable expression through `setExpression` —
//! read back to confirm).

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::tools::inspect::Target;

/// Setting the same value twice leaves the same state.
const SETTING: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[Tool {
    name: "set_variable",
    description: "Set ref's child `name`, or an assignable `expression`, to a value (an expression); reads it back.",
    input_schema: set_variable_schema,
    annotations: SETTING,
    handler: set_variable,
}];

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
