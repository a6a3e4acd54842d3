//! Tool group "memory": `memory` — read (a hex dump), write (verified by a read-back) or
//! disassemble the stopped program's memory. Must not: decide anything about a session (the
//! same-named `session/tools/memory.rs` does).

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::tools::inspect::Target;
use crate::session::tools::memory::{codec, MemoryArgs, MemoryOp};

/// A write changes the program; a read or a disassembly does not, but one tool has one set of
/// hints (MCP 2025-11-25 § Tools › ToolAnnotations), so they are the write's.
const MEMORY: Annotations = Annotations { read_only: false, destructive: true, idempotent: true };

pub const TOOLS: &[Tool] = &[Tool {
    name: "memory",
    description: "Read (the default; a hex dump), write `data` (hex, read back to verify) or disassemble the stopped program's memory.",
    input_schema: memory_schema,
    annotations: MEMORY,
    handler: memory,
}];

fn memory_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "op": {"type": "string", "enum": ["read", "write", "disassemble"]},
            "address": {"type": "string", "description": "A memory reference or an expression (disassemble: default the current instruction)."},
            "offset": {"type": "integer"},
            "count": {"type": "integer", "description": "Bytes (default 64, max 2048) or instructions (16, max 200)."},
            "data": {"type": "string"},
            "encoding": {"type": "string", "enum": ["hex", "base64"]},
            "frame": {"type": "integer"},
            "thread": {"type": "integer"}
        }
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    session: Option<String>,
    op: Option<String>,
    address: Option<String>,
    offset: Option<i64>,
    count: Option<u64>,
    data: Option<String>,
    encoding: Option<String>,
    frame: Option<i64>,
    thread: Option<i64>,
}

fn memory(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: Args = parse_args(args)?;
    let invalid = |msg: String| Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    let op = a.op.as_deref().unwrap_or("read");
    if op != "write" && (a.data.is_some() || a.encoding.is_some()) {
        return invalid(format!("`data` and `encoding` are for op write, not {op}."));
    }
    let action = match op {
        "read" => MemoryOp::Read,
        "disassemble" => MemoryOp::Disassemble,
        "write" => {
            let Some(data) = a.data.as_deref() else {
                return invalid(
                    "op write needs `data`: the bytes as hex (spaces allowed), or base64 with encoding base64.".into(),
                );
            };
            let decoded = match a.encoding.as_deref().unwrap_or("hex") {
                "hex" => codec::hex_decode(data),
                "base64" => codec::base64_decode(data),
                other => return invalid(format!("encoding must be hex or base64, not {other:?}.")),
            };
            match decoded {
                Ok(bytes) => MemoryOp::Write(bytes),
                Err(e) => {
                    let encoding = a.encoding.as_deref().unwrap_or("hex");
                    return invalid(format!("`data` is not {encoding}: {e}."));
                }
            }
        }
        other => return invalid(format!("op must be read, write or disassemble, not {other:?}.")),
    };
    if matches!(action, MemoryOp::Write(_)) && a.count.is_some() {
        return invalid("a write's length is that of `data`; leave out `count`.".into());
    }
    let key = session_key(cx, a.session.as_deref())?;
    let args = MemoryArgs {
        action,
        address: a.address,
        offset: a.offset.unwrap_or(0),
        count: a.count,
        target: Target { thread: a.thread, frame: a.frame },
    };
    cx.sessions.memory(key, args, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}
