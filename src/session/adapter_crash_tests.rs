//! Breaker: an adapter that dies in the middle of a session that did start. Found against real
//! lldb-dap 22.1.8: the debuggee SIGKILLed from outside while agentdap's `next` was pending made
//! lldb-dap exit ("disconnected: the adapter closed the connection while `next` was pending"),
//! and from then on every tool answered "s1 did not start (the adapter exited unexpectedly);
//! `launch` again once that is fixed." although s1 had started and stopped 13 times.

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use crate::dap::scripted::{Reply, ScriptedAdapter};

fn adapter() -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})).then("initialized", Value::Null));
    let bp = json!({"reason": "breakpoint", "threadId": 1});
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", bp));
    let frame = json!({"id": 7, "name": "work", "line": 6, "source": {"path": "/src/app.c"}});
    a.on("stackTrace", Reply::ok(json!({"stackFrames": [frame], "totalFrames": 1})));
    a.on("scopes", Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 1, "expensive": false}]})));
    a.on("variables", Reply::ok(json!({"variables": [{"name": "x", "value": "1", "variablesReference": 0}]})));
    a
}

#[test]
fn an_adapter_that_dies_after_the_program_ran_is_not_said_to_have_never_started() {
    let mut rig = Rig::new(adapter());
    let call = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    let out = rig.answered(call);
    assert!(out.text.contains("stopped (breakpoint)"), "{}", out.text);
    // The adapter's stream closes by itself (lldb-dap exiting after its debuggee was killed).
    let (key, now) = (rig.key, rig.now);
    rig.s.on_adapter_closed(key, now);
    rig.pump();
    let call = rig.call(|s, key, call, now| s.stack_trace(key, None, 0, 20, call, now));
    let out = rig.answered(call);
    assert!(
        !out.text.contains("did not start"),
        "the session started and stopped at a breakpoint; its adapter died later: {}",
        out.text
    );
}
