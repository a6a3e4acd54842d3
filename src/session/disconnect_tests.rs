//! Sans-IO tests of what a `disconnect` result says became of the program: let go of
//! (`terminate_debuggee: false`), ended (`true`), or what the adapter does to a program it lets
//! go of (`Quirks::detached_program_fate`); and of the requests an adapter must never receive
//! (`Quirks::only_requests`). Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::scripted::{plan, Rig};
use super::AttachStart;
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};
use crate::reply::ToolResult;

/// An adapter answering `initialize`, `launch`/`attach` (then `initialized`) and `disconnect`.
fn adapter() -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true, "supportTerminateDebuggee": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("attach", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("disconnect", Reply::ok(Value::Null));
    a
}

/// A session of `kind` attached to 127.0.0.1:5678 (running), then `disconnect` with `terminate`.
fn attached_then_disconnected(kind: AdapterKind, terminate: Option<bool>) -> (Rig, ToolResult) {
    let mut rig = Rig::new(adapter());
    let plan = super::AdapterPlan { request: "attach", ..plan(kind, json!({}), None) };
    let start = AttachStart { target: "127.0.0.1:5678".into(), ..AttachStart::default() };
    let attach = rig.attach(plan, start);
    if kind == AdapterKind::Rdbg {
        // rdbg 1.4.0's `attach` pauses the program; the attach answers with that stop.
        rig.event("stopped", json!({"reason": "pause", "threadId": 1}));
    }
    let out = rig.answered(attach);
    assert!(!out.is_error, "{}", out.text);
    let call = rig.call(|s, key, call, now| s.disconnect(key, terminate, call, now));
    let out = rig.answered(call);
    (rig, out)
}

#[test]
fn a_detached_program_is_said_to_run_on_only_when_agentdap_let_go_of_it() {
    let (rig, out) = attached_then_disconnected(AdapterKind::Debugpy, None);
    assert_eq!(rig.adapter.last("disconnect").map(|r| r["arguments"]["terminateDebuggee"].clone()), Some(json!(false)));
    assert!(out.text.starts_with("s1 terminated (detached; the program keeps running)"), "{}", out.text);

    // Asked to end the attached program: it was not let go of, and the result says so.
    let (rig, out) = attached_then_disconnected(AdapterKind::Debugpy, Some(true));
    assert_eq!(rig.adapter.last("disconnect").map(|r| r["arguments"]["terminateDebuggee"].clone()), Some(json!(true)));
    assert!(!out.text.contains("keeps running"), "{}", out.text);
    assert!(
        out.text.contains("(terminate_debuggee: the adapter was asked to end the attached program)"),
        "{}",
        out.text
    );
}

#[test]
fn a_launched_program_let_go_of_is_said_to_run_on() {
    let mut rig = Rig::new(adapter());
    let launch = rig.launch_program(AdapterKind::Debugpy, "/src/app.py");
    assert!(rig.result(launch).is_none(), "running");
    let call = rig.call(|s, key, call, now| s.disconnect(key, Some(false), call, now));
    let out = rig.answered(call);
    assert!(out.text.starts_with("s1 terminated (detached; the program keeps running)"), "{}", out.text);
    let call = {
        let mut rig = Rig::new(adapter());
        rig.launch_program(AdapterKind::Debugpy, "/src/app.py");
        let call = rig.call(|s, key, call, now| s.disconnect(key, None, call, now));
        rig.answered(call)
    };
    assert!(!call.text.contains("detached"), "a launched program is ended by default: {}", call.text);
}

#[test]
fn rdbg_1_4_0_is_never_said_to_keep_a_detached_program_running() {
    let (_, out) = attached_then_disconnected(AdapterKind::Rdbg, None);
    assert!(out.text.contains("(detached; debug 1.4.0 does not survive a client leaving"), "{}", out.text);
    assert!(!out.text.contains("keeps running"), "{}", out.text);
}

#[test]
fn a_request_rdbg_1_4_0_does_not_know_is_refused_before_it_can_end_the_program() {
    let mut rig = Rig::new(adapter());
    let plan = super::AdapterPlan { request: "attach", ..plan(AdapterKind::Rdbg, json!({}), None) };
    let start = AttachStart { target: "127.0.0.1:5678".into(), ..AttachStart::default() };
    let attach = rig.attach(plan, start);
    rig.event("stopped", json!({"reason": "pause", "threadId": 1}));
    assert!(!rig.answered(attach).is_error);
    let call =
        rig.call(|s, key, call, now| s.dap_request(key, "exceptionInfo", Some(json!({"threadId": 1})), call, now));
    let out = rig.answered(call);
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with(
            "unsupported: rdbg does not implement `exceptionInfo`, and a request it does not know ends the program"
        ),
        "{}",
        out.text
    );
    assert!(rig.adapter.last("exceptionInfo").is_none(), "nothing was sent");
    // What it implements still goes through.
    let call = rig.call(|s, key, call, now| s.dap_request(key, "threads", None, call, now));
    let _ = rig.result(call);
    assert!(rig.adapter.last("threads").is_some());
}
