//! Tool group "source": `source` — numbered lines of a file or of an adapter-held source.

use serde_json::{json, Map, Value};

use super::breakpoints::bad_path;
use super::{parse_args, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::tools::source::SourceArgs;

pub const TOOLS: &[Tool] = &[Tool {
    name: "source",
    description: "Numbered lines of a file, or of a frame's source_ref; default: around the current stop.",
    input_schema: source_schema,
    annotations: Annotations::READ_ONLY,
    handler: source,
}];

fn source_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "path": {"type": "string"},
            "source_ref": {"type": "integer", "description": "From a frame without a file."},
            "line": {"type": "integer", "description": "Center and mark."},
            "around": {"type": "integer", "description": "Lines each side (default 5)."},
            "start_line": {"type": "integer"},
            "end_line": {"type": "integer"}
        }
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    session: Option<String>,
    path: Option<String>,
    source_ref: Option<i64>,
    line: Option<u32>,
    around: Option<usize>,
    start_line: Option<usize>,
    end_line: Option<usize>,
}

fn source(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: Args = parse_args(args)?;
    let invalid = |msg: &str| Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    if a.path.is_some() && a.source_ref.is_some() {
        return invalid("pass `path` or `source_ref`, not both.");
    }
    if a.line == Some(0) || a.start_line == Some(0) || a.end_line == Some(0) {
        return invalid("lines are 1-based; line 0 does not exist.");
    }
    if let (Some(s), Some(e)) = (a.start_line, a.end_line) {
        if e < s {
            return invalid("end_line is before start_line.");
        }
    }
    let key = match a.session.as_deref() {
        Some(id) => Some(cx.sessions.resolve(Some(id))?),
        None => cx.sessions.resolve(None).ok(),
    };
    let path = match a.path.as_deref() {
        Some(p) => {
            if let Some(msg) = bad_path(p) {
                return invalid(&msg);
            }
            // A relative path means what it meant at launch: against the session's `cwd`.
            let cwd = key.and_then(|k| cx.sessions.get(k)).and_then(|s| s.cwd());
            Some(crate::session::plan::resolve_path(p, cwd.as_deref()).to_string_lossy().into_owned())
        }
        None => None,
    };
    let args = SourceArgs {
        path,
        source_ref: a.source_ref,
        line: a.line,
        around: a.around,
        start_line: a.start_line,
        end_line: a.end_line,
    };
    cx.sessions.source(key, args, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}
