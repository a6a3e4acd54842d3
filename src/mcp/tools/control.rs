//! Tool group "control": `step`, `pause`, `wait` — execution control beyond `continue`. Each
//! answers at the next stop, the exit, or after `wait_ms`, honestly saying when it ran out.

use serde_json::{json, Map, Value};

use super::{
    parse_args, session_key, session_prop, wait_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult,
};
use crate::session::tools::control::StepKind;
use crate::session::waiters::Until;

const CONTROL: Annotations = Annotations { read_only: false, destructive: false, idempotent: false };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "step",
        description: "Step over, in or out on the focus thread; returns where it stopped.",
        input_schema: step_schema,
        annotations: CONTROL,
        handler: step,
    },
    Tool {
        name: "pause",
        description: "Interrupt a running program; returns where it stopped.",
        input_schema: pause_schema,
        annotations: CONTROL,
        handler: pause,
    },
    Tool {
        name: "wait",
        description: "Wait for the next stop, exit or output without resuming.",
        input_schema: wait_schema,
        annotations: Annotations::READ_ONLY,
        handler: wait,
    },
];

fn step_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "kind": {"type": "string", "enum": ["over", "in", "out", "back"], "description": "Default over."},
            "granularity": {"type": "string", "enum": ["statement", "line", "instruction"]},
            "thread": {"type": "integer"},
            "wait_ms": wait_prop()
        }
    })
}

fn pause_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop(), "thread": {"type": "integer"}, "wait_ms": wait_prop()}})
}

fn wait_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "for": {"type": "string", "enum": ["stop", "exit", "output"], "description": "Default stop."},
            "since_revision": {"type": "integer", "description": "Answer at once if stopped after this rev."},
            "wait_ms": wait_prop()
        }
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StepArgs {
    session: Option<String>,
    kind: Option<String>,
    granularity: Option<String>,
    thread: Option<i64>,
    wait_ms: Option<u64>,
}

fn step(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: StepArgs = parse_args(args)?;
    let kind = match a.kind.as_deref().map(StepKind::parse) {
        None => StepKind::Over,
        Some(Some(k)) => k,
        Some(None) => {
            return Err(ToolResult::error(
                ErrorCode::InvalidArgument,
                "kind must be one of over (also `next`), in (also `into`), out, back.",
            ))
        }
    };
    if let Some(g) = a.granularity.as_deref() {
        if !matches!(g, "statement" | "line" | "instruction") {
            let msg = "granularity must be one of statement, line, instruction.";
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
    }
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.step(key, kind, a.granularity, a.thread, a.wait_ms, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PauseArgs {
    session: Option<String>,
    thread: Option<i64>,
    wait_ms: Option<u64>,
}

fn pause(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: PauseArgs = parse_args(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.pause(key, a.thread, a.wait_ms, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitArgs {
    session: Option<String>,
    #[serde(rename = "for")]
    until: Option<String>,
    since_revision: Option<u64>,
    wait_ms: Option<u64>,
}

fn wait(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: WaitArgs = parse_args(args)?;
    let until = match a.until.as_deref().map(Until::parse) {
        None => Until::Stop,
        Some(Some(u)) => u,
        Some(None) => {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, "for must be one of stop, exit, output."))
        }
    };
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.wait(key, until, a.since_revision, a.wait_ms, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}
