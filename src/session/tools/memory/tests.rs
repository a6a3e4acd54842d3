//! Sans-IO tests of the `memory` tool through [`crate::session::scripted::Rig`]: what no real
//! adapter here does (a write the adapter acknowledges but the read-back contradicts, a short
//! `bytesWritten`), and refusals proven to send nothing (debugpy 1.8 advertises no memory
//! requests). Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::{MemoryArgs, MemoryOp};
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};
use crate::reply::ToolResult;
use crate::session::scripted::{args, plan, Rig};
use crate::session::tools::inspect::Target;

/// An adapter with `capabilities` that stops at once in `main`, at `0x1000`.
pub(super) fn adapter(capabilities: Value) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(capabilities));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", json!({"reason": "breakpoint", "threadId": 1})));
    a.on(
        "stackTrace",
        Reply::ok(json!({"stackFrames": [{"id": 7, "name": "main", "line": 5, "source": {"path": "/w/prog.c"},
                                           "instructionPointerReference": "0x1008"}]})),
    );
    a
}

pub(super) fn stopped(a: ScriptedAdapter, kind: AdapterKind) -> Rig {
    let mut rig = Rig::new(a);
    let launch = rig.launch(plan(kind, json!({"program": "/w/prog"}), None), args(json!({"program": "/w/prog"})));
    let out = rig.answered(launch);
    assert!(out.text.contains("stopped"), "{}", out.text);
    rig
}

pub(super) fn code(out: &ToolResult) -> Option<&str> {
    out.structured.pointer("/error/code").and_then(Value::as_str)
}

pub(super) fn memory(rig: &mut Rig, action: MemoryOp, address: Option<&str>, count: Option<u64>) -> ToolResult {
    let a = MemoryArgs { action, address: address.map(str::to_owned), offset: 0, count, target: Target::default() };
    let call = rig.call(|s, key, call, now| s.memory(key, a, call, now));
    rig.answered(call)
}

#[test]
fn debugpy_is_refused_all_three_before_anything_is_sent() {
    // debugpy 1.8's capabilities name no memory request.
    let caps = json!({"supportsConfigurationDoneRequest": true, "supportsSetExpression": true, "supportsGotoTargetsRequest": true});
    let mut rig = stopped(adapter(caps), AdapterKind::Debugpy);
    let before = rig.adapter.commands().len();
    let cases = [
        (MemoryOp::Read, "memory {op: read}", "supportsReadMemoryRequest"),
        (MemoryOp::Write(vec![1]), "memory {op: write}", "supportsWriteMemoryRequest"),
        (MemoryOp::Disassemble, "memory {op: disassemble}", "supportsDisassembleRequest"),
    ];
    for (action, call, capability) in cases {
        let out = memory(&mut rig, action, Some("x"), None);
        assert_eq!(code(&out), Some("unsupported"), "{}", out.text);
        assert!(
            out.text.contains(&format!("{call} is not available here: debugpy does not advertise {capability}")),
            "{}",
            out.text
        );
    }
    assert_eq!(rig.adapter.commands().len(), before, "nothing was sent: {:?}", rig.adapter.commands());
}

pub(super) fn memory_caps() -> Value {
    json!({"supportsConfigurationDoneRequest": true, "supportsReadMemoryRequest": true,
           "supportsWriteMemoryRequest": true, "supportsDisassembleRequest": true})
}

#[test]
fn a_write_the_read_back_contradicts_names_the_differing_bytes_and_a_short_count() {
    let mut a = adapter(memory_caps());
    // The adapter says it wrote 2 of the 4 bytes (it was asked for all or nothing) and memory
    // still holds what it held.
    a.on("writeMemory", Reply::ok(json!({"bytesWritten": 2})));
    a.on("readMemory", Reply::ok(json!({"address": "0x2000", "data": "BwAAKg=="})));
    let mut rig = stopped(a, AdapterKind::Lldb);
    let out = memory(&mut rig, MemoryOp::Write(vec![7, 0, 0, 0]), Some("0x2000"), None);
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text,
        "s1 wrote 2 of 4 bytes at 0x2000 (the adapter's count); the read-back differs in 1 of 4 bytes: +3: wrote 00, reads 2a"
    );
    assert_eq!(out.structured["verified"], json!(false));
    assert_eq!(out.structured["differing"], json!([3]));
    let write = rig.adapter.last("writeMemory").map(|r| r["arguments"].clone());
    assert_eq!(
        write,
        Some(json!({"memoryReference": "0x2000", "offset": 0, "allowPartial": false, "data": "BwAAAA=="}))
    );
    let back = rig.adapter.last("readMemory").map(|r| r["arguments"].clone());
    assert_eq!(back, Some(json!({"memoryReference": "0x2000", "offset": 0, "count": 4})));
}

#[test]
fn an_expression_without_a_memory_reference_uses_its_address_value_and_unreadable_bytes_are_said() {
    let mut a = adapter(memory_caps());
    // lldb-dap 22 answers `&counter` with the address as its value and no memoryReference.
    a.on("evaluate", Reply::ok(json!({"result": "0x0000000000000ff8", "type": "int *", "variablesReference": 3})));
    a.on("evaluate", Reply::ok(json!({"result": "42", "type": "int"})));
    a.on("readMemory", Reply::ok(json!({"address": "0xFF8", "data": "KgAAAA==", "unreadableBytes": 12})));
    let mut rig = stopped(a, AdapterKind::Lldb);
    let out = memory(&mut rig, MemoryOp::Read, Some("&counter"), Some(16));
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with("s1 memory at 0x0000000000000ff8 (the value of `&counter`) · 4 bytes"),
        "{}",
        out.text
    );
    assert!(out.text.contains("\n0x00000ff8  2a 00 00 00"), "{}", out.text);
    assert!(out.text.ends_with("\n12 bytes from 0x0000000000000ffc on are unreadable"), "{}", out.text);
    assert_eq!((out.structured["data"].clone(), out.structured["unreadable"].clone()), (json!("KgAAAA=="), json!(12)));
    // Evaluated in the stop's top frame, in the recipe's context.
    let eval = rig.adapter.last("evaluate").map(|r| r["arguments"].clone());
    assert_eq!(eval, Some(json!({"expression": "&counter", "frameId": 7, "context": "watch"})));

    let out = memory(&mut rig, MemoryOp::Read, Some("counter + 1"), None);
    assert_eq!(code(&out), Some("invalid_argument"), "{}", out.text);
    assert!(
        out.text
            .contains("`counter + 1` has no memory reference (lldb gave none) and its value `42` is not an address"),
        "{}",
        out.text
    );
}

#[test]
fn a_disassembly_is_centred_on_the_current_instruction_and_counts_are_capped() {
    let mut a = adapter(memory_caps());
    a.on(
        "disassemble",
        Reply::ok(json!({"instructions": [
            {"address": "0x1000", "instruction": "push rbp", "symbol": "main", "line": 4, "location": {"path": "/w/prog.c"}},
            {"address": "0x1008", "instruction": "mov eax, 1", "line": 5, "location": {"path": "/w/prog.c"}}]})),
    );
    let mut rig = stopped(a, AdapterKind::Lldb);
    let out = memory(&mut rig, MemoryOp::Disassemble, None, Some(1000));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("(count 1000 capped at 200)"), "{}", out.text);
    assert!(out.text.contains("\n→ 0x00001008  <main+8>  mov eax, 1  ; prog.c:5"), "{}", out.text);
    let sent = rig.adapter.last("disassemble").map(|r| r["arguments"].clone());
    assert_eq!(
        sent,
        Some(
            json!({"memoryReference": "0x1008", "offset": 0, "instructionOffset": -100, "instructionCount": 200, "resolveSymbols": true})
        )
    );
    let out = memory(&mut rig, MemoryOp::Read, None, None);
    assert_eq!(code(&out), Some("invalid_argument"), "{}", out.text);
}
