//! Tool group "host": the debuggee's stdin (`send_input`), host requests under the `ask`
//! policy (`resolve_host_request`), and the raw DAP escape hatch (`dap_request`). Handlers
//! validate and hand the work to the session manager.

use serde_json::{json, Map, Value};

use super::{
    parse_args, session_key, session_prop, wait_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult,
};

const CONTROL: Annotations = Annotations { read_only: false, destructive: false, idempotent: false };
/// `dap_request` can send anything the adapter accepts (`setVariable`, `writeMemory`, …).
const ANYTHING: Annotations = Annotations { read_only: false, destructive: true, idempotent: false };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "send_input",
        description:
            "Write text to the program's terminal (launched with console terminal); eof sends end of input (^D) after.",
        input_schema: send_input_schema,
        annotations: CONTROL,
        handler: send_input,
    },
    Tool {
        name: "resolve_host_request",
        description:
            "Allow or deny a pending host request (runInTerminal under --host-requests ask); allow waits like launch.",
        input_schema: resolve_schema,
        annotations: CONTROL,
        handler: resolve,
    },
    Tool {
        name: "dap_request",
        description:
            "Send any other DAP request to the adapter and get its raw response body; ids are the adapter's own.",
        input_schema: dap_request_schema,
        annotations: ANYTHING,
        handler: dap_request,
    },
];

fn send_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "text": {"type": "string", "description": "Include \\n to end a line."},
            "eof": {"type": "boolean"}
        },
        "required": ["text"]
    })
}

fn resolve_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "id": {"type": "string"},
            "decision": {"type": "string", "enum": ["allow", "deny"]},
            "wait_ms": wait_prop()
        },
        "required": ["id", "decision"]
    })
}

fn dap_request_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "command": {"type": "string"},
            "arguments": {"type": "object", "properties": {}}
        },
        "required": ["command"]
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SendInputArgs {
    session: Option<String>,
    text: String,
    #[serde(default)]
    eof: bool,
}

fn send_input(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: SendInputArgs = parse_args(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    Ok(Outcome::Done(cx.sessions.send_input(key, &a.text, a.eof)?))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ResolveArgs {
    session: Option<String>,
    id: String,
    decision: String,
    wait_ms: Option<u64>,
}

fn resolve(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: ResolveArgs = parse_args(args)?;
    let allow = match a.decision.as_str() {
        "allow" => true,
        "deny" => false,
        _ => return Err(ToolResult::error(ErrorCode::InvalidArgument, "decision must be allow or deny.")),
    };
    let key = match a.session.as_deref() {
        Some(id) => Some(session_key(cx, Some(id))?),
        None => None,
    };
    cx.sessions.resolve_host_request(key, &a.id, allow, a.wait_ms, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DapRequestArgs {
    session: Option<String>,
    command: String,
    arguments: Option<Map<String, Value>>,
}

fn dap_request(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: DapRequestArgs = parse_args(args)?;
    if a.command.trim().is_empty() {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, "command must name a DAP request."));
    }
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.dap_request(key, &a.command, a.arguments.map(Value::Object), cx.call, cx.now)?;
    Ok(Outcome::Pending)
}
