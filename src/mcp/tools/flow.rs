//! Tool group "flow": `run_to`, `goto`, `restart` — moving the program somewhere other than the
//! next stop. Each answers like `continue`: at the stop, the exit, or after `wait_ms`.

use serde_json::{json, Map, Value};

use super::breakpoints::bad_path;
use super::{
    parse_args, session_key, session_prop, wait_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult,
};

const CONTROL: Annotations = Annotations { read_only: false, destructive: false, idempotent: false };
/// A restart ends the running program.
const RESTART: Annotations = Annotations { read_only: false, destructive: true, idempotent: false };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "run_to",
        description:
            "Continue to path:line through a temporary breakpoint (yours stay); says if it stopped elsewhere first.",
        input_schema: run_to_schema,
        annotations: CONTROL,
        handler: run_to,
    },
    Tool {
        name: "goto",
        description: "Move the stopped thread to another line without running the code between.",
        input_schema: goto_schema,
        annotations: CONTROL,
        handler: goto,
    },
    Tool {
        name: "restart",
        description:
            "Run the program again from the start, same session id and breakpoints; returns at the first stop or exit.",
        input_schema: restart_schema,
        annotations: RESTART,
        handler: restart,
    },
];

fn run_to_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "path": {"type": "string"},
            "line": {"type": "integer"},
            "wait_ms": wait_prop()
        },
        "required": ["path", "line"]
    })
}

fn goto_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "path": {"type": "string"},
            "line": {"type": "integer"},
            "thread": {"type": "integer"}
        },
        "required": ["path", "line"]
    })
}

fn restart_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "frame": {"type": "integer", "description": "Restart only this frame."},
            "wait_ms": wait_prop()
        }
    })
}

/// The session and the absolute path of a `path`/`line` argument pair (relative paths are
/// taken against the session's `cwd`, as for `set_breakpoints`).
fn located(cx: &ToolCx<'_>, session: Option<&str>, path: &str, line: u32) -> Result<(usize, String), ToolResult> {
    if let Some(msg) = bad_path(path) {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    }
    if line == 0 {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, "lines are 1-based; line 0 does not exist."));
    }
    let key = session_key(cx, session)?;
    let cwd = cx.sessions.get(key).and_then(|s| s.cwd());
    let path = crate::session::plan::resolve_path(path, cwd.as_deref()).to_string_lossy().into_owned();
    if let Some(msg) = super::breakpoints::missing_file(cx.sessions.files(), &path) {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, format!("{msg} The program did not run.")));
    }
    if let Some(msg) = super::breakpoints::past_end(cx.sessions.files(), &path, line) {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, format!("{msg}; the program did not run.")));
    }
    Ok((key, path))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RunToArgs {
    session: Option<String>,
    path: String,
    line: u32,
    wait_ms: Option<u64>,
}

fn run_to(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: RunToArgs = parse_args(args)?;
    let (key, path) = located(cx, a.session.as_deref(), &a.path, a.line)?;
    cx.sessions.run_to(key, path, a.line, a.wait_ms, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GotoArgs {
    session: Option<String>,
    path: String,
    line: u32,
    thread: Option<i64>,
}

fn goto(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: GotoArgs = parse_args(args)?;
    let (key, path) = located(cx, a.session.as_deref(), &a.path, a.line)?;
    cx.sessions.goto(key, path, a.line, a.thread, None, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RestartArgs {
    session: Option<String>,
    frame: Option<i64>,
    wait_ms: Option<u64>,
}

fn restart(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: RestartArgs = parse_args(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    if let Some(frame) = a.frame {
        cx.sessions.restart_frame(key, frame, a.wait_ms, cx.call, cx.now)?;
        return Ok(Outcome::Pending);
    }
    cx.sessions.restart(key, a.wait_ms, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}
