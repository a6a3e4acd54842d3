//! Tool group "inspect": what a stopped program looks like — `context` (the one-call answer),
//! `threads` (and choosing the focus thread), `stack_trace`, `scopes`, `variables`, `evaluate`,
//! `exception_info`, `watch`, `completions`, `modules`, `capabilities`, `stacks` (every thread's
//! stack, also of a running program). Frame ids and variable refs are agentdap handles;
//! one from before the program ran again is refused with `target_invalidated`.

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::tools::inspect::{Page, Target};

/// Evaluating may run code in the debuggee, so it is not read-only.
const EVAL: Annotations = Annotations { read_only: false, destructive: false, idempotent: false };
const SETTING: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "context",
        description: "Where it stopped: source, frames, locals, watches.",
        input_schema: context_schema,
        annotations: Annotations::READ_ONLY,
        handler: context,
    },
    Tool {
        name: "evaluate",
        description: "Evaluate expressions in a frame of the stopped program.",
        input_schema: evaluate_schema,
        annotations: EVAL,
        handler: evaluate,
    },
    Tool {
        name: "variables",
        description: "Children of a variables ref, paged (total and next start).",
        input_schema: variables_schema,
        annotations: Annotations::READ_ONLY,
        handler: variables,
    },
    Tool {
        name: "stack_trace",
        description: "Frames of a thread, with frame ids.",
        input_schema: stack_schema,
        annotations: Annotations::READ_ONLY,
        handler: stack_trace,
    },
    Tool {
        name: "stacks",
        description: "Every thread's stack in one call, also of a running program (a hang).",
        input_schema: stacks_schema,
        annotations: Annotations::READ_ONLY,
        handler: stacks,
    },
    Tool {
        name: "scopes",
        description: "Scopes of a frame, each with a variables ref.",
        input_schema: frame_schema,
        annotations: Annotations::READ_ONLY,
        handler: scopes,
    },
    Tool {
        name: "threads",
        description: "Threads of the stopped program; `select` makes one the default for later calls.",
        input_schema: threads_schema,
        annotations: SETTING,
        handler: threads,
    },
    Tool {
        name: "exception_info",
        description: "The exception a thread stopped on, with its traceback.",
        input_schema: thread_schema,
        annotations: Annotations::READ_ONLY,
        handler: exception_info,
    },
    Tool {
        name: "watch",
        description: "Add or remove watch expressions (shown by context).",
        input_schema: watch_schema,
        annotations: SETTING,
        handler: watch,
    },
    Tool {
        name: "completions",
        description: "Completions for text typed in a frame.",
        input_schema: completions_schema,
        annotations: Annotations::READ_ONLY,
        handler: completions,
    },
    Tool {
        name: "modules",
        description: "Modules, or loaded source files; paged.",
        input_schema: modules_schema,
        annotations: Annotations::READ_ONLY,
        handler: modules,
    },
    Tool {
        name: "capabilities",
        description: "The adapter's DAP capabilities and exception filters.",
        input_schema: session_schema,
        annotations: Annotations::READ_ONLY,
        handler: capabilities,
    },
];

fn session_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop()}})
}

fn frame_prop() -> Value {
    json!({"type": "integer"})
}

fn context_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "frame": frame_prop(),
            "thread": {"type": "integer"},
            "source_lines": {"type": "integer", "description": "Lines each side (default 5)."},
            "max_variables": {"type": "integer", "description": "Default 30."}
        }
    })
}

fn evaluate_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "expression": {"type": "string"},
            "expressions": {"type": "array", "items": {"type": "string"}, "description": "Max 20."},
            "frame": frame_prop(),
            "thread": {"type": "integer"},
            "context": {"type": "string", "enum": ["repl", "watch", "hover", "clipboard"], "description": "Default: per adapter."},
            "hex": {"type": "boolean"}
        }
    })
}

fn variables_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "ref": {"type": "integer", "description": "From an earlier result."},
            "start": {"type": "integer", "description": "Default 0."},
            "count": {"type": "integer", "description": "Default 100, max 500."},
            "filter": {"type": "string", "enum": ["indexed", "named"]},
            "hex": {"type": "boolean"}
        },
        "required": ["ref"]
    })
}

fn completions_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "text": {"type": "string"},
            "column": {"type": "integer", "description": "1-based (default: end)."},
            "frame": frame_prop(),
            "thread": {"type": "integer"}
        },
        "required": ["text"]
    })
}

fn modules_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "sources": {"type": "boolean"},
            "start": {"type": "integer"},
            "count": {"type": "integer", "description": "Default 50, max 200."},
            "filter": {"type": "string", "description": "Name/path substring."}
        }
    })
}

fn stack_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "thread": {"type": "integer"},
            "start": {"type": "integer", "description": "Default 0."},
            "levels": {"type": "integer", "description": "Default 20."}
        }
    })
}

fn stacks_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop(), "pid": {"type": "integer", "description": "py-spy, no session"}}})
}

fn frame_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop(), "frame": frame_prop(), "thread": {"type": "integer"}}})
}

fn thread_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop(), "thread": {"type": "integer"}}})
}

fn threads_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop(), "select": {"type": "integer"}}})
}

fn watch_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "add": {"type": "array", "items": {"type": "string"}, "description": "Expressions to watch."},
            "remove": {"type": "array", "items": {"type": "integer"}, "description": "Watch ids to drop."}
        }
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextArgs {
    session: Option<String>,
    frame: Option<i64>,
    thread: Option<i64>,
    source_lines: Option<usize>,
    max_variables: Option<usize>,
}

fn context(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<ContextArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    let target = Target { thread: a.thread, frame: a.frame };
    cx.sessions.context(key, target, a.source_lines, a.max_variables, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EvaluateArgs {
    session: Option<String>,
    expression: Option<String>,
    expressions: Option<Vec<String>>,
    frame: Option<i64>,
    thread: Option<i64>,
    context: Option<String>,
    #[serde(default)]
    hex: bool,
}

fn evaluate(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<EvaluateArgs>(args)?;
    if let Some(c) = a.context.as_deref() {
        if !matches!(c, "repl" | "watch" | "hover" | "clipboard" | "variables") {
            let msg = "context must be one of repl, watch, hover, clipboard.";
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
    }
    let target = Target { thread: a.thread, frame: a.frame };
    match (a.expression, a.expressions) {
        (Some(_), Some(_)) => {
            let msg = "pass `expression` or `expressions`, not both.";
            Err(ToolResult::error(ErrorCode::InvalidArgument, msg))
        }
        (None, None) => Err(ToolResult::error(ErrorCode::InvalidArgument, "missing `expression` (or `expressions`).")),
        (Some(e), None) if e.trim().is_empty() => {
            Err(ToolResult::error(ErrorCode::InvalidArgument, "expression is empty."))
        }
        (Some(e), None) => {
            let key = session_key(cx, a.session.as_deref())?;
            cx.sessions.evaluate_formatted(key, e, target, a.context, a.hex, cx.call, cx.now)?;
            Ok(Outcome::Pending)
        }
        (None, Some(list)) => {
            let key = session_key(cx, a.session.as_deref())?;
            cx.sessions.evaluate_many(key, list, target, a.context, a.hex, cx.call, cx.now)?;
            Ok(Outcome::Pending)
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct VariablesArgs {
    session: Option<String>,
    #[serde(rename = "ref")]
    reference: i64,
    start: Option<usize>,
    count: Option<usize>,
    filter: Option<String>,
    #[serde(default)]
    hex: bool,
}

fn variables(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<VariablesArgs>(args)?;
    if let Some(f) = a.filter.as_deref() {
        if !matches!(f, "indexed" | "named") {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, "filter must be indexed or named."));
        }
    }
    let key = session_key(cx, a.session.as_deref())?;
    let page = Page { start: a.start, count: a.count, filter: a.filter, hex: a.hex };
    cx.sessions.variables(key, a.reference, page, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StackArgs {
    session: Option<String>,
    thread: Option<i64>,
    start: Option<u64>,
    levels: Option<u64>,
}

fn stack_trace(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<StackArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    let levels = a.levels.unwrap_or(20).clamp(1, 200);
    cx.sessions.stack_trace(key, a.thread, a.start.unwrap_or(0), levels, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StacksArgs {
    session: Option<String>,
    pid: Option<i64>,
}

fn stacks(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<StacksArgs>(args)?;
    if let Some(pid) = a.pid {
        if a.session.is_some() {
            let msg = "pass `session` (a session's program) or `pid` (a process without one), not both.";
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        cx.sessions.stacks_of_pid(pid, cx.call, cx.now)?;
        return Ok(Outcome::Pending);
    }
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.stacks(key, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameArgs {
    session: Option<String>,
    frame: Option<i64>,
    thread: Option<i64>,
}

fn scopes(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<FrameArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.scopes(key, Target { thread: a.thread, frame: a.frame }, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    session: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadsArgs {
    session: Option<String>,
    select: Option<i64>,
}

fn threads(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<ThreadsArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    if let Some(thread) = a.select {
        return Ok(Outcome::Done(cx.sessions.select_thread(key, thread)?));
    }
    cx.sessions.threads(key, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadArgs {
    session: Option<String>,
    thread: Option<i64>,
}

fn exception_info(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<ThreadArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.exception_info(key, a.thread, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WatchArgs {
    session: Option<String>,
    #[serde(default)]
    add: Vec<String>,
    #[serde(default)]
    remove: Vec<u32>,
}

fn watch(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<WatchArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    Ok(Outcome::Done(cx.sessions.watch(key, a.add, &a.remove)?))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CompletionsArgs {
    session: Option<String>,
    text: String,
    column: Option<u64>,
    frame: Option<i64>,
    thread: Option<i64>,
}

fn completions(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<CompletionsArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    let target = Target { thread: a.thread, frame: a.frame };
    cx.sessions.completions(key, a.text, a.column, target, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ModulesArgs {
    session: Option<String>,
    #[serde(default)]
    sources: bool,
    start: Option<usize>,
    count: Option<usize>,
    filter: Option<String>,
}

fn modules(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<ModulesArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.modules(key, a.sources, a.start, a.count, a.filter, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

fn capabilities(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a = parse_args::<SessionArgs>(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    Ok(Outcome::Done(cx.sessions.capabilities(key)?))
}
