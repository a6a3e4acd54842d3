//! The `memory` tool on real debugpy (issue 18): debugpy 1.8 advertises none of
//! `supportsReadMemoryRequest`, `supportsWriteMemoryRequest`, `supportsDisassembleRequest`, so
//! each op is refused `unsupported` naming its capability, and the session's DAP log shows that
//! no request went out for them (pydevd drops a `readMemory` unanswered).

use crate::agent;

use agent::{fixture, sent_commands, Agent};
use serde_json::json;

#[test]
fn every_memory_op_is_refused_naming_its_capability_and_nothing_is_sent() {
    let mut a = Agent::start();
    let p = fixture("py/run_to.py");
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 11}]}));
    let session = r.s["session"].as_str().unwrap_or_default().to_owned();
    let before = sent_commands(&a.dap_log(&session));
    for (args, capability) in [
        (json!({"address": "a"}), "supportsReadMemoryRequest"),
        (json!({"op": "write", "address": "a", "data": "00"}), "supportsWriteMemoryRequest"),
        (json!({"op": "disassemble"}), "supportsDisassembleRequest"),
    ] {
        let out = a.call("memory", args);
        assert_eq!(out.code(), "unsupported", "{}", out.text);
        assert!(out.text.contains(&format!("debugpy does not advertise {capability}")), "{}", out.text);
    }
    assert_eq!(sent_commands(&a.dap_log(&session)), before, "no request went out for the refusals");
    // The session is as it was: a value still reads.
    assert_eq!(a.ok("evaluate", json!({"expression": "a"})).s["type"], json!("int"));
}
