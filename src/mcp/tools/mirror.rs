//! Tool group "mirror" (SECURITY.md § The IDE mirror): `expose_session` and `unexpose_session`.
//! Handlers only read and queue; the IO shell binds and closes the listener. Must not: open sockets
//! or log tokens.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};

const EXPOSE: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "expose_session",
        description: "Let an IDE attach read-only to a session; returns port, token and a VS Code launch.json entry.",
        input_schema: expose_schema,
        annotations: EXPOSE,
        handler: expose,
    },
    Tool {
        name: "unexpose_session",
        description: "Close a session's IDE endpoint.",
        input_schema: session_schema,
        annotations: EXPOSE,
        handler: unexpose,
    },
];

fn session_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop()}})
}

fn expose_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "control": {"type": "boolean", "description": "Let the IDE control execution (not supported yet; default false)."}
        }
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExposeArgs {
    session: Option<String>,
    #[serde(default)]
    control: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    session: Option<String>,
}

fn expose(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let args: ExposeArgs = parse_args(args)?;
    if args.control {
        let msg =
            "control mirrors are not supported yet; call expose_session without `control` for a read-only mirror.";
        return Err(ToolResult::error(ErrorCode::Unsupported, msg));
    }
    let key = session_key(cx, args.session.as_deref())?;
    let Some(s) = cx.sessions.get(key) else {
        return Err(ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."));
    };
    if s.run.state.is_over() {
        let msg =
            format!("{} has {}; there is nothing left to look at. `launch` again first.", s.id, s.run.state.as_str());
        return Err(ToolResult::error(ErrorCode::NotStopped, msg));
    }
    let starting = s.run.state == crate::session::snapshot::RunState::Starting;
    if starting || s.raw_capabilities().is_none() {
        let msg = format!("{} is still starting; call expose_session again once it stopped or runs.", s.id);
        return Err(ToolResult::error(ErrorCode::NotStopped, msg));
    }
    // Not one an unexpose queued in the same turn is about to close: that call gets a new one.
    if let Some(e) = s.mirror.open_endpoint() {
        // Idempotent: the same endpoint and token.
        return Ok(Outcome::Done(crate::mirror::expose_result(&s.id, &s.vscode_type(), e)));
    }
    cx.sessions.request_expose(key, cx.call);
    Ok(Outcome::Pending)
}

fn unexpose(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let args: SessionArgs = parse_args(args)?;
    let key = session_key(cx, args.session.as_deref())?;
    let id = cx.sessions.get(key).map(|s| s.id.clone()).unwrap_or_default();
    // The listener closes before this answer is written (same loop turn).
    let closed = cx.sessions.request_unexpose(key);
    let text = if closed {
        format!("{id}: mirror closed; attached IDEs were told the session ended.")
    } else {
        format!("{id} was not exposed; nothing to close.")
    };
    Ok(Outcome::Done(ToolResult::ok(text, json!({ "session": id, "closed": closed }))))
}
