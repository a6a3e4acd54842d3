//! Sans-IO tests of frames and threads the adapter gives no integer `id` (DAP § Types ›
//! StackFrame, Thread: `id` is a number): nothing can name them to the adapter, so they get no
//! handle, and what would read them says why instead of reading id 0 — another frame on an
//! adapter that numbers frames from 0, as gdb does (the breaker's finding).

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use super::tools::inspect::Target;
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// Stopped at a breakpoint whose top frame's `id` is `"7"` (a string), over a frame 0 in `main`.
fn adapter() -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})).then("initialized", Value::Null));
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", json!({"reason": "breakpoint", "threadId": 1})));
    let frames = json!([
        {"id": "7", "name": "work", "line": 3, "source": {"path": "/src/app.c"}},
        {"id": 0, "name": "main", "line": 9, "source": {"path": "/src/app.c"}},
    ]);
    a.on("stackTrace", Reply::ok(json!({"stackFrames": frames})));
    a.on(
        "threads",
        Reply::ok(json!({"threads": [{"id": "1", "name": "main"}, {"name": "noid"}, {"id": 2, "name": "w"}]})),
    );
    a
}

fn launched() -> Rig {
    let mut rig = Rig::new(adapter());
    let call = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.answered(call);
    rig
}

/// The `frameId`s of every request sent that names one.
fn frame_ids(rig: &Rig) -> Vec<Value> {
    rig.adapter.received().iter().filter_map(|r| r["arguments"].get("frameId").cloned()).collect()
}

#[test]
fn a_frame_without_an_integer_id_gets_no_handle_and_context_reads_nothing_of_another() {
    let mut rig = launched();
    let call = rig.call(|s, key, call, now| s.stack_trace(key, None, 0, 20, call, now));
    let out = rig.answered(call);
    let frames = out.structured["frames"].as_array().cloned().unwrap_or_default();
    assert!(frames[0].get("frame").is_none(), "no handle for an id that is not a number: {}", out.structured);
    assert!(frames[1]["frame"].as_u64().is_some(), "{}", out.structured);

    let call = rig.call(|s, key, call, now| s.context(key, Target::default(), None, None, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("locals not read: the adapter gave this frame no integer `id`"), "{}", out.text);
    assert!(out.text.contains("work") && out.text.contains("main"), "the stack is shown: {}", out.text);
    assert_eq!(frame_ids(&rig), Vec::<Value>::new(), "nothing was read by a frame id");
}

#[test]
fn scopes_and_evaluate_on_such_a_top_frame_say_why_not_that_there_are_no_frames() {
    let mut rig = launched();
    let call = rig.call(|s, key, call, now| s.scopes(key, Target::default(), call, now));
    let out = rig.answered(call);
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.contains("thread 1 has a top frame without an integer `id` (the adapter sent \"7\")"),
        "{}",
        out.text
    );
    let call = rig.call(|s, key, call, now| s.evaluate(key, "x".into(), Target::default(), None, call, now));
    let out = rig.answered(call);
    assert!(out.text.contains("without an integer `id`"), "{}", out.text);
    assert_eq!(frame_ids(&rig), Vec::<Value>::new(), "nothing was read by a frame id");
}

#[test]
fn a_thread_without_an_integer_id_is_listed_as_such_not_as_thread_0() {
    let mut rig = launched();
    let call = rig.call(|s, key, call, now| s.threads(key, call, now));
    let out = rig.answered(call);
    assert!(out.text.contains("\n  ? main (the adapter gave it no integer id)"), "{}", out.text);
    assert!(out.text.contains("\n  ? noid (the adapter gave it no integer id)"), "{}", out.text);
    assert!(out.text.contains("\n  2 w"), "{}", out.text);
    assert!(!out.text.contains("\n  0 "), "{}", out.text);
    let ids: Vec<Value> = out.structured["threads"].as_array().unwrap().iter().map(|t| t["id"].clone()).collect();
    assert_eq!(ids, [json!(null), json!(null), json!(2)]);
}
