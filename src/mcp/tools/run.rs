//! Tool group "run": start, resume and end sessions (`launch`, `attach`, `continue`,
//! `disconnect`, `terminate`). Handlers validate arguments and hand the work to the session manager, which
//! answers the call later (at a stop, the exit, or the end of `wait_ms`).

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::{plan, LaunchArgs};

const CONTROL: Annotations = Annotations { read_only: false, destructive: false, idempotent: false };
const ENDING: Annotations = Annotations { read_only: false, destructive: true, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "launch",
        title: "Launch a program under the debugger",
        description: "Start `program` under a debug adapter (inferred from the file, e.g. .py → debugpy) with breakpoints applied before it runs; returns at the first stop, the exit, or after wait_ms.",
        input_schema: launch_schema,
        annotations: CONTROL,
        handler: launch,
    },
    Tool {
        name: "attach",
        title: "Attach to a running program",
        description: "Attach to a running process by `pid`, or to a debug server at `connect` (e.g. `python -m debugpy --listen 5678`); the process is never killed by dapmux.",
        input_schema: attach_schema,
        annotations: CONTROL,
        handler: attach,
    },
    Tool {
        name: "continue",
        title: "Continue execution",
        description: "Resume a stopped session and wait up to wait_ms for the next stop or the exit; on timeout it answers `running` (then call `wait`).",
        input_schema: continue_schema,
        annotations: CONTROL,
        handler: resume,
    },
    Tool {
        name: "disconnect",
        title: "End a session",
        description: "End the session: a launched debuggee is terminated (unless terminate_debuggee is false) and the adapter process is stopped.",
        input_schema: disconnect_schema,
        annotations: ENDING,
        handler: disconnect,
    },
    Tool {
        name: "terminate",
        title: "Terminate the debuggee",
        description: "Ask the debuggee to terminate gracefully (DAP terminate), falling back to disconnect.",
        input_schema: session_only_schema,
        annotations: ENDING,
        handler: terminate,
    },
];

fn session_prop() -> Value {
    json!({"type": "string", "description": "Session id such as s1; default: the most recent live session."})
}

fn wait_prop() -> Value {
    json!({"type": "integer", "description": "How long to wait for a stop or exit, in ms (default 10000, max 50000)."})
}

fn launch_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "program": {"type": "string", "description": "Path of the program or script to debug."},
            "args": {"type": "array", "items": {"type": "string"}, "description": "Command-line arguments."},
            "cwd": {"type": "string", "description": "Working directory (default: dapmux's)."},
            "env": {"type": "object", "properties": {}, "description": "Extra environment variables."},
            "adapter": {"type": "string", "description": "Adapter name (debugpy, or a custom adapter from the config file); default inferred from the program."},
            "stop_on_entry": {"type": "boolean", "description": "Stop before the first line (default: true when no breakpoints are given)."},
            "breakpoints": {
                "type": "array",
                "description": "Breakpoints applied before the program runs.",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "line": {"type": "integer"},
                        "condition": {"type": "string"},
                        "hit_condition": {"type": "string"},
                        "log_message": {"type": "string"}
                    },
                    "required": ["path", "line"]
                }
            },
            "exception_filters": {"type": "array", "items": {"type": "string"}, "description": "Exception filters (debugpy: raised, uncaught, userUnhandled; default: the adapter's defaults)."},
            "no_debug": {"type": "boolean", "description": "Run without debugging (output still captured)."},
            "adapter_args": {"type": "object", "properties": {}, "description": "Merged into the DAP launch arguments."},
            "wait_ms": wait_prop()
        },
        "required": ["program"]
    })
}

fn attach_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pid": {"type": "integer", "description": "Process id to attach to (needs ptrace permission)."},
            "connect": {
                "type": "object",
                "description": "A debug server listening: host (IP or localhost, default 127.0.0.1) and port.",
                "properties": {"host": {"type": "string"}, "port": {"type": "integer"}},
                "required": ["port"]
            },
            "adapter": {"type": "string", "description": "Adapter name (default debugpy)."},
            "breakpoints": launch_schema()["properties"]["breakpoints"].clone(),
            "exception_filters": {"type": "array", "items": {"type": "string"}, "description": "Exception filters (default: the adapter's defaults)."},
            "adapter_args": {"type": "object", "properties": {}, "description": "Merged into the DAP attach arguments."},
            "wait_ms": wait_prop()
        }
    })
}

fn continue_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "thread": {"type": "integer", "description": "Thread to resume (default: the focus thread)."},
            "wait_ms": wait_prop()
        }
    })
}

fn disconnect_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "terminate_debuggee": {"type": "boolean", "description": "Kill the debuggee (default: true when launched, false when attached)."}
        }
    })
}

fn session_only_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop()}})
}

fn launch(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Outcome {
    let mut args: LaunchArgs = match parse_args(args) {
        Ok(a) => a,
        Err(e) => return Outcome::Done(e),
    };
    for b in &args.breakpoints {
        if let Some(msg) = super::breakpoints::bad_path(&b.path)
            .or_else(|| (b.breakpoint.line == 0).then(|| "lines are 1-based; line 0 does not exist.".to_owned()))
        {
            return Outcome::Done(ToolResult::error(
                ErrorCode::InvalidArgument,
                format!("breakpoint {}:{}: {msg}", b.path, b.breakpoint.line),
            ));
        }
    }
    // Relative breakpoint paths mean the same as a relative `program`: against the launch `cwd`
    // when one is given, else against dapmux's working directory.
    let base = args.cwd.as_deref().map(super::breakpoints::absolute);
    for b in &mut args.breakpoints {
        b.path = match &base {
            Some(dir) if std::path::Path::new(&b.path).is_relative() => {
                std::path::Path::new(dir).join(&b.path).to_string_lossy().into_owned()
            }
            _ => super::breakpoints::absolute(&b.path),
        };
    }
    let has_breakpoints = cx.sessions.pending_breakpoints.files().any(|(_, set)| !set.is_empty());
    let plan = match plan::launch(&args, has_breakpoints, &cx.sessions.config) {
        Ok(p) => p,
        Err(e) => return Outcome::Done(e),
    };
    cx.sessions.launch(args, plan, cx.call, cx.now);
    Outcome::Pending
}

fn attach(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Outcome {
    let mut args: plan::AttachArgs = match parse_args(args) {
        Ok(a) => a,
        Err(e) => return Outcome::Done(e),
    };
    for b in &mut args.breakpoints {
        if let Some(msg) = super::breakpoints::bad_path(&b.path)
            .or_else(|| (b.breakpoint.line == 0).then(|| "lines are 1-based; line 0 does not exist.".to_owned()))
        {
            return Outcome::Done(ToolResult::error(
                ErrorCode::InvalidArgument,
                format!("breakpoint {}:{}: {msg}", b.path, b.breakpoint.line),
            ));
        }
        b.path = super::breakpoints::absolute(&b.path);
    }
    let (plan, start) = match plan::attach(&args, &cx.sessions.config) {
        Ok(p) => p,
        Err(e) => return Outcome::Done(e),
    };
    cx.sessions.attach(start, plan, cx.call, cx.now);
    Outcome::Pending
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ContinueArgs {
    session: Option<String>,
    thread: Option<i64>,
    wait_ms: Option<u64>,
}

fn resume(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Outcome {
    let a: ContinueArgs = match parse_args(args) {
        Ok(a) => a,
        Err(e) => return Outcome::Done(e),
    };
    let key = match session_key(cx, a.session.as_deref()) {
        Ok(k) => k,
        Err(e) => return Outcome::Done(e),
    };
    cx.sessions.resume(key, a.thread, a.wait_ms, cx.call, cx.now);
    Outcome::Pending
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DisconnectArgs {
    session: Option<String>,
    terminate_debuggee: Option<bool>,
}

fn disconnect(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Outcome {
    let a: DisconnectArgs = match parse_args(args) {
        Ok(a) => a,
        Err(e) => return Outcome::Done(e),
    };
    let key = match session_key(cx, a.session.as_deref()) {
        Ok(k) => k,
        Err(e) => return Outcome::Done(e),
    };
    cx.sessions.disconnect(key, a.terminate_debuggee, cx.call, cx.now);
    Outcome::Pending
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    session: Option<String>,
}

fn terminate(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Outcome {
    let a: SessionArgs = match parse_args(args) {
        Ok(a) => a,
        Err(e) => return Outcome::Done(e),
    };
    let key = match session_key(cx, a.session.as_deref()) {
        Ok(k) => k,
        Err(e) => return Outcome::Done(e),
    };
    cx.sessions.terminate(key, cx.call, cx.now);
    Outcome::Pending
}
