//! Sans-IO tests of what a result says when a breakpoint asks for what the adapter did not
//! announce (DAP § Types: Capabilities: `supportsConditionalBreakpoints`,
//! `supportsHitConditionalBreakpoints`, `supportsLogPoints`): the setting is named as ignored,
//! never shown as if it held (rdbg 1.4.0 takes a `hitCondition` silently and stops on every hit).
//! Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::breakpoints::{Mode, SourceBreakpoint};
use super::scripted::{args, plan, Rig};
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// An adapter announcing conditions but neither hit conditions nor log points, as rdbg 1.4.0
/// does; every breakpoint is answered verified.
fn adapter() -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on(
        "initialize",
        Reply::ok(json!({"supportsConfigurationDoneRequest": true, "supportsConditionalBreakpoints": true})),
    );
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("setBreakpoints", Reply::ok(json!({"breakpoints": [{"verified": true, "line": 10}]})));
    a
}

fn bp(v: Value) -> SourceBreakpoint {
    match serde_json::from_value(v) {
        Ok(b) => b,
        Err(e) => panic!("a breakpoint of a test: {e}"),
    }
}

#[test]
fn a_hit_condition_the_adapter_cannot_honour_is_named_in_the_launch_and_in_set_breakpoints() {
    let mut rig = Rig::new(adapter());
    let launch = rig.launch(
        plan(AdapterKind::Rdbg, json!({"program": "/src/cart.rb"}), None),
        args(json!({"program": "/src/cart.rb", "stop_on_entry": false,
                    "breakpoints": [{"path": "/src/cart.rb", "line": 10, "hit_condition": "2"}]})),
    );
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    let out = rig.answered(launch);
    assert!(
        out.text.contains("rdbg does not support hit conditions (supportsHitConditionalBreakpoints is not set): at cart.rb line 10 it is ignored, and the breakpoint stops on every hit"),
        "{}",
        out.text
    );

    let list = vec![bp(json!({"line": 10, "condition": "i == 2"})), bp(json!({"line": 12, "logMessage": "i={i}"}))];
    let call = rig
        .call(|s, key, call, now| s.set_breakpoints(Some(key), "/src/cart.rb".into(), Mode::Replace, list, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text
            .contains("warning: rdbg does not support log points (supportsLogPoints is not set): at cart.rb line 12"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("conditions (supportsConditional"), "conditions are supported: {}", out.text);
    // The other warning: line 10's first setting (hit condition 2) stays in rdbg 1.4.0.
    assert_eq!(out.structured["warnings"].as_array().map(Vec::len), Some(2), "{}", out.structured);
}

/// rdbg 1.4.0 names its filters `any` and `RuntimeError`: `all` and `raised` are `any`
/// (`Quirks::exception_filter_aliases`), in `launch` as in `set_exception_breakpoints`.
#[test]
fn rdbgs_filter_aliases_map_all_and_raised_to_any() {
    let mut a = ScriptedAdapter::new();
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on(
        "initialize",
        Reply::ok(json!({"supportsConfigurationDoneRequest": true, "exceptionBreakpointFilters": [
            {"filter": "any", "label": "rescue any exception"}, {"filter": "RuntimeError", "label": "RuntimeError", "default": true}]})),
    );
    a.on("setExceptionBreakpoints", Reply::ok(Value::Null));
    let mut rig = Rig::new(a);
    let launch = rig.launch(
        plan(AdapterKind::Rdbg, json!({"program": "/src/cart.rb"}), None),
        args(json!({"program": "/src/cart.rb", "stop_on_entry": false, "exception_filters": ["raised"]})),
    );
    assert_eq!(
        rig.adapter.last("setExceptionBreakpoints").map(|r| r["arguments"]["filters"].clone()),
        Some(json!(["any"]))
    );
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    assert!(!rig.answered(launch).text.contains("ignored"));
    let call = rig
        .call(|s, key, call, now| s.set_exception_breakpoints(key, vec!["all".into()], Default::default(), call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        rig.adapter.last("setExceptionBreakpoints").map(|r| r["arguments"]["filters"].clone()),
        Some(json!(["any"]))
    );
}

/// rdbg 1.4.0's `setBreakpoints` only adds (`Quirks::breakpoints_only_added`): a set that drops
/// or changes a line says the line still stops as first set, and `run_to` (whose temporary
/// breakpoint would stay) is refused before anything is sent.
#[test]
fn an_adapter_that_only_adds_breakpoints_is_said_to_keep_the_lines_it_was_given() {
    let mut rig = Rig::new(adapter());
    let launch = rig.launch(
        plan(AdapterKind::Rdbg, json!({"program": "/src/cart.rb"}), None),
        args(json!({"program": "/src/cart.rb", "stop_on_entry": false,
                    "breakpoints": [{"path": "/src/cart.rb", "line": 10}]})),
    );
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    assert!(!rig.answered(launch).text.contains("never removes"));
    let set = |rig: &mut Rig, list: Vec<SourceBreakpoint>| {
        let call = rig.call(|s, key, call, now| {
            s.set_breakpoints(Some(key), "/src/cart.rb".into(), Mode::Replace, list, call, now)
        });
        rig.answered(call)
    };
    let out = set(&mut rig, Vec::new());
    assert!(
        out.text.contains("rdbg never removes or changes a breakpoint it was given (its setBreakpoints only adds): at cart.rb line 10 it still stops as first set"),
        "{}",
        out.text
    );
    let out = set(&mut rig, vec![bp(json!({"line": 10, "condition": "i > 2"}))]);
    assert!(out.text.contains("at cart.rb line 10 it still stops as first set"), "a changed condition: {}", out.text);
    let sent = rig.adapter.commands().len();
    let call = rig.call(|s, key, call, now| s.run_to(key, "/src/cart.rb".into(), 12, None, call, now));
    let out = rig.answered(call);
    assert!(out.is_error && out.text.contains("run_to's temporary one would keep stopping at line 12"), "{}", out.text);
    assert_eq!(rig.adapter.commands().len(), sent, "nothing was sent");
}

/// `capabilities` lists every row of the gates table, as working or with the capability it needs,
/// so what it says and what the refusals say never disagree; a gated call is refused with the
/// capability's name and nothing is sent.
#[test]
fn capabilities_list_every_gate_and_a_gated_call_sends_nothing() {
    use super::tools::gates::GATES;
    let mut a = ScriptedAdapter::new();
    a.on(
        "initialize",
        Reply::ok(
            json!({"supportsConfigurationDoneRequest": true, "supportsStepBack": true, "supportsLogPoints": true}),
        ),
    );
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    let mut rig = Rig::new(a);
    let launch = rig.launch_program(AdapterKind::Debugpy, "/src/app.py");
    rig.event("stopped", json!({"reason": "pause", "threadId": 1}));
    rig.answered(launch);
    let call = rig.call(|s, key, _, _| s.capabilities(key));
    let out = rig.answered(call);
    let available = &out.structured["tools"]["available"];
    let unavailable = &out.structured["tools"]["unavailable"];
    for row in GATES {
        let open = row.capability == "supportsStepBack";
        let listed_open = available.as_array().is_some_and(|l| l.contains(&json!(row.call)));
        let listed_closed =
            unavailable.as_array().is_some_and(|l| l.contains(&json!({"tool": row.call, "needs": row.capability})));
        assert!(listed_open == open && listed_closed == !open, "{}: {}", row.call, out.structured);
    }
    assert!(
        out.text.contains("works here: run_to, source, restart (relaunch), step {kind: back}, continue {reverse}"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("breakpoint settings honoured: log_message (ignored: condition, hit_condition)"),
        "{}",
        out.text
    );

    let before = rig.adapter.received().len();
    let target = super::tools::inspect::Target { thread: None, frame: None };
    let call = rig.call(|s, key, call, now| s.set_expression(key, "x".into(), "1".into(), target, call, now));
    let out = rig.answered(call);
    assert_eq!(
        out.text,
        "unsupported: set_variable {expression} is not available here: debugpy does not advertise supportsSetExpression; use set_variable with the ref of the variable's container, or evaluate an assignment."
    );
    assert_eq!(rig.adapter.received().len(), before, "nothing was sent");
}

/// `threads {select}` takes only a thread agentdap has shown, and nothing once the session has
/// ended (it once answered "focus thread is now 999999" for a terminated session).
#[test]
fn a_thread_is_selected_only_while_the_session_lives_and_only_one_it_has_shown() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    let mut rig = Rig::new(a);
    let launch = rig.launch_program(AdapterKind::Debugpy, "/src/app.py");
    rig.event("stopped", json!({"reason": "pause", "threadId": 7}));
    rig.answered(launch);
    let call = rig.call(|s, key, _, _| s.select_thread(key, 999_999));
    let out = rig.answered(call);
    assert!(out.is_error && out.text.contains("no thread 999999 that agentdap has shown"), "{}", out.text);
    let call = rig.call(|s, key, _, _| s.select_thread(key, 7));
    assert_eq!(rig.answered(call).text, "s1 focus thread is now 7");
    rig.event("terminated", json!({}));
    let call = rig.call(|s, key, _, _| s.select_thread(key, 7));
    let out = rig.answered(call);
    assert!(out.is_error && out.text.starts_with("not_stopped: s1 has ended"), "{}", out.text);
}

/// A session whose adapter failed to start has no capabilities to speak of: `capabilities` and a
/// gated call say it did not start and why, not that the adapter "has not answered yet" or "does
/// not advertise" what it never had the chance to.
#[test]
fn a_session_that_did_not_start_says_so_instead_of_naming_a_capability() {
    use super::tools::memory::{MemoryArgs, MemoryOp};
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::error("the adapter could not load its runtime"));
    let mut rig = Rig::new(a);
    let launch = rig.launch_program(AdapterKind::Debugpy, "/src/app.py");
    let failed = rig.answered(launch);
    assert!(failed.is_error, "{}", failed.text);
    let call = rig.call(|s, key, _, _| s.capabilities(key));
    let out = rig.answered(call);
    assert!(
        out.text.starts_with("not_stopped: s1 did not start, so its adapter's capabilities are unknown: "),
        "{}",
        out.text
    );
    assert!(out.text.contains("could not load its runtime"), "{}", out.text);
    let target = super::tools::inspect::Target { thread: None, frame: None };
    let read = MemoryArgs { action: MemoryOp::Read, address: None, offset: 0, count: None, target };
    let call = rig.call(|s, key, call, now| s.memory(key, read, call, now));
    let out = rig.answered(call);
    assert!(out.text.contains("s1 did not start") && !out.text.contains("advertise"), "{}", out.text);
    // Nor does it "run once more": it never ran.
    let call = rig.call(|s, key, call, now| s.threads(key, call, now));
    let out = rig.answered(call);
    assert!(out.text.starts_with("not_stopped: s1 did not start (") && !out.text.contains("once more"), "{}", out.text);
}
