//! Sans-IO tests of reading a stop's locals ahead of its top frame
//! (`RuntimeQuirks::pipelined_stop_reads`, `stop_frame/ahead.rs`): the `scopes` and `variables`
//! sent with the `stackTrace` for the previous stop's ids, used only when the answers show the
//! ids held; otherwise dropped, never shown, and the stop's own reads made.

use std::time::Duration;

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use crate::dap::scripted::{Reply, ScriptedAdapter};

fn frame(id: i64, name: &str, line: u64) -> Value {
    json!({"id": id, "name": name, "line": line, "source": {"path": "/src/app.c"}})
}

fn stack(top: i64) -> Reply {
    Reply::ok(json!({"stackFrames": [frame(top, "work", 6), frame(top + 1, "main", 14)], "totalFrames": 22}))
}

fn scopes(reference: i64) -> Reply {
    Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": reference, "expensive": false}]}))
}

fn locals(x: i64) -> Reply {
    Reply::ok(json!({"variables": [{"name": "x", "value": x.to_string(), "type": "int", "variablesReference": 0}]}))
}

/// An adapter stopping at a breakpoint once configured and at every `continue`, answering the
/// reads in turn from the lists given.
fn adapter(stacks: Vec<Reply>, scope_answers: Vec<Reply>, local_answers: Vec<Reply>) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})).then("initialized", Value::Null));
    let bp = json!({"reason": "breakpoint", "threadId": 1});
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", bp.clone()));
    a.on("continue", Reply::ok(Value::Null).then("stopped", bp));
    for (command, replies) in [("stackTrace", stacks), ("scopes", scope_answers), ("variables", local_answers)] {
        for r in replies {
            a.on(command, r);
        }
    }
    a
}

fn launch(rig: &mut Rig, pipelined: bool) -> crate::reply::ToolResult {
    let mut plan = standard_plan(json!({"program": "/src/app"}));
    plan.runtime.pipelined_stop_reads = pipelined;
    let call = rig.launch(plan, args(json!({"program": "/src/app"})));
    rig.answered(call)
}

fn resume(rig: &mut Rig) -> crate::reply::ToolResult {
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.answered(call)
}

/// The requests after the last `continue`: each command with its frame or reference.
fn since_continue(rig: &Rig) -> Vec<(String, i64)> {
    let received = rig.adapter.received();
    let from = received.iter().rposition(|r| r["command"] == "continue").expect("a continue");
    let id = |r: &Value| {
        let a = &r["arguments"];
        a["frameId"].as_i64().or(a["variablesReference"].as_i64()).unwrap_or(0)
    };
    received[from + 1..].iter().map(|r| (r["command"].as_str().unwrap_or_default().to_owned(), id(r))).collect()
}

fn pairs(list: &[(&str, i64)]) -> Vec<(String, i64)> {
    list.iter().map(|(c, i)| ((*c).to_owned(), *i)).collect()
}

/// Launches, then continues with the second stop's `stackTrace` answer held back: the
/// requests sent while it is outstanding, then the result.
fn continue_with_the_stack_held(pipelined: bool) -> (Vec<(String, i64)>, crate::reply::ToolResult) {
    // Each answer of the second stop 5 ms late, so they still come in the order asked.
    let late = Duration::from_millis(5);
    let stacks = vec![stack(7), stack(7).delayed(late)];
    let scope_answers = vec![scopes(11), scopes(11).delayed(late)];
    let mut rig = Rig::new(adapter(stacks, scope_answers, vec![locals(1), locals(2).delayed(late)]));
    let out = launch(&mut rig, pipelined);
    assert!(out.text.contains("x = 1"), "{}", out.text);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let sent = since_continue(&rig);
    for _ in 0..3 {
        rig.advance(Duration::from_millis(10));
    }
    let out = rig.answered(call);
    assert_eq!(since_continue(&rig), pairs(&[("stackTrace", 0), ("scopes", 7), ("variables", 11)]), "no read twice");
    (sent, out)
}

#[test]
fn reads_ahead_for_the_previous_stops_ids_stand_in_for_the_stops_own() {
    let (sent, out) = continue_with_the_stack_held(true);
    assert!(out.text.contains("x: 1 → 2"), "the same call, compared: {}", out.text);
    // All three went out before the `stackTrace` answered.
    assert_eq!(sent, pairs(&[("stackTrace", 0), ("scopes", 7), ("variables", 11)]));
}

#[test]
fn without_the_quirk_each_read_waits_for_the_one_before() {
    let (sent, out) = continue_with_the_stack_held(false);
    assert!(out.text.contains("x: 1 → 2"), "{}", out.text);
    assert_eq!(sent, pairs(&[("stackTrace", 0)]));
}

#[test]
fn reads_ahead_for_another_top_frame_are_dropped_and_the_stop_reads_its_own() {
    // The second stop's top frame is 9, not 7: what came back for frame 7 (x = 999) is not it.
    let stacks = vec![stack(7), stack(9)];
    let answers = vec![locals(1), locals(999), locals(2)];
    let mut rig = Rig::new(adapter(stacks, vec![scopes(11)], answers));
    launch(&mut rig, true);
    let out = resume(&mut rig);
    assert!(out.text.contains("x: 1 → 2") && !out.text.contains("999"), "{}", out.text);
    let expected = [("stackTrace", 0), ("scopes", 7), ("variables", 11), ("scopes", 9), ("variables", 11)];
    assert_eq!(since_continue(&rig), pairs(&expected));
}

#[test]
fn a_scopes_answer_naming_another_reference_reads_that_ones_variables() {
    // Same top frame, but its locals are now reference 12: the answer for 11 is not them.
    let answers = vec![locals(1), locals(999), locals(2)];
    let mut rig = Rig::new(adapter(vec![stack(7)], vec![scopes(11), scopes(12)], answers));
    launch(&mut rig, true);
    let out = resume(&mut rig);
    assert!(out.text.contains("x: 1 → 2") && !out.text.contains("999"), "{}", out.text);
    let expected = [("stackTrace", 0), ("scopes", 7), ("variables", 11), ("variables", 12)];
    assert_eq!(since_continue(&rig), pairs(&expected));
}

#[test]
fn a_variables_answer_that_comes_before_its_scopes_answer_is_read_again() {
    // An adapter answering out of turn: the `scopes` sent ahead answers after the `variables`.
    let scope_answers = vec![scopes(11), scopes(11).delayed(Duration::from_millis(5))];
    let answers = vec![locals(1), locals(999), locals(2)];
    let mut rig = Rig::new(adapter(vec![stack(7)], scope_answers, answers));
    launch(&mut rig, true);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.advance(Duration::from_millis(10));
    let out = rig.answered(call);
    assert!(out.text.contains("x: 1 → 2") && !out.text.contains("999"), "{}", out.text);
    let expected = [("stackTrace", 0), ("scopes", 7), ("variables", 11), ("variables", 11)];
    assert_eq!(since_continue(&rig), pairs(&expected));
}

#[test]
fn a_stop_that_reads_no_locals_sends_nothing_ahead() {
    let mut rig = Rig::new(adapter(vec![stack(7)], vec![scopes(11)], vec![locals(1)]));
    launch(&mut rig, true);
    let call = rig.call(|s, key, call, now| {
        s.set_call_locals(Some(false));
        s.resume(key, None, false, None, call, now)
    });
    let out = rig.answered(call);
    assert!(!out.text.contains("x ="), "{}", out.text);
    assert_eq!(since_continue(&rig), pairs(&[("stackTrace", 0)]));
}
