//! Tool group "mirror" (SECURITY.md § The IDE mirror): `expose_session` and `unexpose_session`.
//! Handlers only read and queue; the IO shell binds and closes the listener. Must not: open sockets
//! or log tokens.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::mirror::Mode;

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};

const EXPOSE: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "expose_session",
        description: "Let an IDE attach to a session (read-only unless control); returns port, token and a VS Code launch.json entry.",
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
            "control": {"type": "boolean", "description": "Let the IDE continue, step and pause (default false); on an exposed session, true grants, false takes back."}
        }
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExposeArgs {
    session: Option<String>,
    control: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    session: Option<String>,
}

fn expose(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let args: ExposeArgs = parse_args(args)?;
    if args.control == Some(true) {
        if let Err(why) = crate::mirror::control_allowed(cx.sessions.allow) {
            return Err(ToolResult::error(ErrorCode::NotAllowed, why));
        }
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
    let open = s.mirror.open_endpoint().is_some();
    let Some(s) = cx.sessions.get_mut(key) else {
        return Err(ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."));
    };
    // Omitted: an open mirror keeps its mode; a new one is read-only.
    let mode = args.control.map_or(if open { s.mirror.mode } else { Mode::ReadOnly }, Mode::from_control);
    if open {
        // Idempotent: the same endpoint and token; attached IDEs hear a changed mode.
        let changed = s.set_mirror_mode(mode);
        if let Some(e) = s.mirror.open_endpoint() {
            let mut result = crate::mirror::expose_result(&s.id, &s.vscode_type(), e, mode);
            if changed {
                let what = match mode {
                    Mode::Control => "control granted",
                    Mode::ReadOnly => {
                        "control taken back: the IDE's execution requests are refused again and its breakpoints removed"
                    }
                };
                result.text = format!("{what}.\n{}", result.text);
            }
            if changed && mode == Mode::ReadOnly {
                cx.sessions.mirror_forget_people(key, cx.now);
            }
            return Ok(Outcome::Done(result));
        }
    }
    s.set_mirror_mode(mode);
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
