//! Sans-IO tests of how a stop learns its frame's depth where `totalFrames` is a guess
//! (`RuntimeQuirks::total_frames_exact` off, as for lldb-dap and Delve): from a page that holds
//! the whole stack, or — after one `next`/`stepOut` from a stop whose function is alone on its
//! stack — told from that stop when the step ends in the same function and caller
//! (`Session::may_tell_depth`, `told_depth`), on an adapter whose steps stay in the call
//! (`RuntimeQuirks::step_stays_in_call`, as lldb-dap's), with the rest of the stack read when
//! the step ended elsewhere.
//! They assert the `stackTrace` requests sent and whether the locals were compared.

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use super::tools::control::StepKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

fn frame(id: i64, name: &str, line: u64) -> Value {
    json!({"id": id, "name": name, "line": line, "source": {"path": "/src/app.c"}})
}

fn stack(frames: &[Value]) -> Reply {
    Reply::ok(json!({"stackFrames": frames, "totalFrames": frames.len() + 20}))
}

fn locals(x: i64) -> Reply {
    Reply::ok(json!({"variables": [{"name": "x", "value": x.to_string(), "type": "int", "variablesReference": 0}]}))
}

/// An adapter that stops at a breakpoint once configured and on every step, answering the
/// `stackTrace`s with `stacks` in turn (the last for the rest) and the locals with `xs` in turn.
fn adapter(stacks: Vec<Reply>, xs: &[i64]) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})).then("initialized", Value::Null));
    let bp = json!({"reason": "breakpoint", "threadId": 1});
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", bp.clone()));
    a.on("continue", Reply::ok(Value::Null).then("stopped", bp));
    let step = json!({"reason": "step", "threadId": 1});
    for command in ["next", "stepIn", "stepOut"] {
        a.on(command, Reply::ok(Value::Null).then("stopped", step.clone()));
    }
    for s in stacks {
        a.on("stackTrace", s);
    }
    a.on("scopes", Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 11, "expensive": false}]})));
    for x in xs {
        a.on("variables", locals(*x));
    }
    a
}

fn launch(rig: &mut Rig) -> crate::reply::ToolResult {
    launch_with(rig, true)
}

fn launch_with(rig: &mut Rig, step_stays_in_call: bool) -> crate::reply::ToolResult {
    let mut plan = standard_plan(json!({"program": "/src/app"}));
    plan.runtime.step_stays_in_call = step_stays_in_call;
    let call = rig.launch(plan, args(json!({"program": "/src/app"})));
    rig.answered(call)
}

fn step(rig: &mut Rig, kind: StepKind) -> crate::reply::ToolResult {
    let call = rig.call(|s, key, call, now| s.step(key, kind, None, None, None, call, now));
    rig.answered(call)
}

/// The `(startFrame, levels)` of every `stackTrace` sent, in order.
fn pages(rig: &Rig) -> Vec<(u64, u64)> {
    let page = |r: &Value| {
        let a = &r["arguments"];
        (a["startFrame"].as_u64().unwrap_or(0), a["levels"].as_u64().unwrap_or(0))
    };
    rig.adapter.received().iter().filter(|r| r["command"] == "stackTrace").map(page).collect()
}

#[test]
fn a_step_over_in_a_function_alone_on_its_stack_reads_two_frames_and_still_compares() {
    let stacks = vec![
        stack(&[frame(1, "main", 3), frame(2, "_start", 1)]),
        stack(&[frame(3, "main", 4), frame(4, "_start", 1)]),
        stack(&[frame(5, "main", 5), frame(6, "_start", 1)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 2, 3]));
    let out = launch(&mut rig);
    assert!(out.text.contains("x = 1"), "{}", out.text);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x: 1 → 2"), "the same call, compared: {}", out.text);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x: 2 → 3"), "{}", out.text);
    // The first stop reads a whole page; each step two frames, its depth told.
    assert_eq!(pages(&rig), [(0, 20), (0, 2), (0, 2)]);
}

#[test]
fn a_step_out_reads_the_rest_of_the_stack_and_compares_with_the_callers_last_stop() {
    let stacks = vec![
        // main at a breakpoint, then a step in to `scale`, a step over in it, a step out.
        stack(&[frame(1, "main", 3), frame(2, "_start", 1)]),
        stack(&[frame(3, "scale", 10), frame(4, "main", 3), frame(5, "_start", 1)]),
        stack(&[frame(6, "scale", 11), frame(7, "main", 3)]),
        stack(&[frame(8, "main", 3), frame(9, "_start", 1)]),
        // The rest of the stack below `main` and `_start`: nothing.
        stack(&[]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 7, 8, 5]));
    launch(&mut rig);
    let out = step(&mut rig, StepKind::In);
    assert!(out.text.contains("x = 7"), "a new frame: {}", out.text);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x: 7 → 8"), "{}", out.text);
    let out = step(&mut rig, StepKind::Out);
    assert!(out.text.contains("x: 1 → 5"), "back in main's call, compared with its last stop: {}", out.text);
    // A step in reads a page; a step over in `scale` two frames; the step out two, then the
    // rest of the stack: a step that leaves the function is not told from the callers read
    // before (a tail call or a deferred call can stand where one of them stood).
    assert_eq!(pages(&rig), [(0, 20), (0, 20), (0, 2), (0, 2), (2, 18)]);
}

#[test]
fn where_a_step_may_enter_a_new_call_every_stop_reads_the_page() {
    // Delve: a `next` over `panic()` stops in a new deferred call (`step_stays_in_call` off).
    let stacks = vec![
        stack(&[frame(1, "main", 3), frame(2, "_start", 1)]),
        stack(&[frame(3, "main", 4), frame(4, "_start", 1)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 2]));
    launch_with(&mut rig, false);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x: 1 → 2"), "{}", out.text);
    assert_eq!(pages(&rig), [(0, 20), (0, 20)]);
}

#[test]
fn a_step_that_ends_where_no_caller_was_read_reads_the_rest_of_the_stack() {
    let stacks = vec![
        stack(&[frame(1, "main", 3), frame(2, "_start", 1)]),
        // Neither the same call nor a caller read before (a `longjmp` lands like this).
        stack(&[frame(3, "handler", 20), frame(4, "dispatch", 30)]),
        // The rest below those two: one more frame.
        stack(&[frame(5, "_start", 1)]),
        stack(&[frame(6, "handler", 21), frame(7, "dispatch", 30)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 2, 3]));
    launch(&mut rig);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x = 2") && !out.text.contains("1 → 2"), "a new frame: {}", out.text);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x: 2 → 3"), "its depth read, the next step is told: {}", out.text);
    assert_eq!(pages(&rig), [(0, 20), (0, 2), (2, 18), (0, 2)]);
}

#[test]
fn a_function_that_also_runs_below_on_its_stack_reads_the_whole_page_at_every_step() {
    // `fact` recursing: a `next` from its deeper call can end in the shallower one.
    let stacks = vec![
        stack(&[frame(1, "fact", 6), frame(2, "fact", 5), frame(3, "main", 9)]),
        stack(&[frame(4, "fact", 5), frame(5, "main", 9)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 2]));
    launch(&mut rig);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x = 2") && !out.text.contains("→"), "the caller's call is new: {}", out.text);
    assert_eq!(pages(&rig), [(0, 20), (0, 20)]);
}

#[test]
fn a_stop_after_a_continue_or_a_step_in_reads_the_whole_page() {
    let stacks = vec![stack(&[frame(1, "main", 3), frame(2, "_start", 1)])];
    let mut rig = Rig::new(adapter(stacks, &[1, 1, 1]));
    launch(&mut rig);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.answered(call);
    step(&mut rig, StepKind::In);
    assert_eq!(pages(&rig), [(0, 20), (0, 20), (0, 20)]);
}

#[test]
fn a_stack_deeper_than_the_page_is_never_told() {
    // Twenty frames and more: the depth is unknown, so no step can be told from it.
    let deep: Vec<Value> = (0..20).map(|i| frame(i, if i == 0 { "leaf" } else { "mid" }, 3)).collect();
    let mut rig = Rig::new(adapter(vec![stack(&deep)], &[1, 2]));
    launch(&mut rig);
    let out = step(&mut rig, StepKind::Over);
    assert!(!out.text.contains("1 → 2"), "an unknown depth is never the same frame: {}", out.text);
    assert_eq!(pages(&rig), [(0, 20), (0, 20)]);
}

#[test]
fn a_step_that_a_pause_ended_reads_the_whole_page() {
    // A pause during a long `next` stops wherever the program is (a callee's callee too), even
    // where the adapter calls that stop a step.
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})).then("initialized", Value::Null));
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", json!({"reason": "breakpoint", "threadId": 1})));
    a.on("next", Reply::ok(Value::Null));
    a.on("pause", Reply::ok(Value::Null).then("stopped", json!({"reason": "step", "threadId": 1})));
    a.on("stackTrace", stack(&[frame(1, "main", 3), frame(2, "_start", 1)]));
    a.on("scopes", Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 11, "expensive": false}]})));
    a.on("variables", locals(1));
    let mut rig = Rig::new(a);
    launch(&mut rig);
    let stepping = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, None, call, now));
    let pause = rig.call(|s, key, call, now| s.pause(key, None, None, call, now));
    rig.answered(pause);
    rig.answered(stepping);
    assert_eq!(pages(&rig), [(0, 20), (0, 20)]);
}

#[test]
fn a_call_seen_to_return_is_never_compared_with_the_next_call_of_its_function() {
    // `helper` stopped in, stepped out of (a stop in `main`, one frame up), stepped into again:
    // the second call is a new frame, not "x: 1 → 2" from the call that returned.
    let stacks = vec![
        stack(&[frame(1, "helper", 10), frame(2, "main", 3), frame(3, "_start", 1)]),
        stack(&[frame(4, "main", 3), frame(5, "_start", 1)]),
        // The rest of the stack below `main` and `_start`: nothing.
        stack(&[]),
        stack(&[frame(6, "helper", 10), frame(7, "main", 3), frame(8, "_start", 1)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 5, 2]));
    launch(&mut rig);
    step(&mut rig, StepKind::Out);
    let out = step(&mut rig, StepKind::In);
    assert!(out.text.contains("x = 2") && !out.text.contains("1 → 2"), "a new call: {}", out.text);
}

#[test]
fn a_call_replaced_at_its_depth_by_another_is_not_compared_with_later() {
    // `a` at depth 3, then (by a continue) `b` at depth 3 under the same `main`, then `a` again:
    // `b` took `a`'s place, so that `a` had returned.
    let stacks = vec![
        stack(&[frame(1, "a", 10), frame(2, "main", 3), frame(3, "_start", 1)]),
        stack(&[frame(4, "b", 20), frame(5, "main", 4), frame(6, "_start", 1)]),
        stack(&[frame(7, "a", 10), frame(8, "main", 3), frame(9, "_start", 1)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 5, 2]));
    launch(&mut rig);
    for _ in 0..2 {
        let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
        let out = rig.answered(call);
        assert!(!out.text.contains(" → "), "each a new call: {}", out.text);
    }
}

#[test]
fn a_loop_that_stops_in_its_own_frame_again_still_compares() {
    // The same `main` at one depth, stop after stop: nothing ended, so it compares.
    let stacks = vec![stack(&[frame(1, "main", 3), frame(2, "_start", 1)])];
    let mut rig = Rig::new(adapter(stacks, &[1, 2]));
    launch(&mut rig);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(call);
    assert!(out.text.contains("x: 1 → 2"), "{}", out.text);
}

/// Continues to the breakpoint with `locals: false`: the top frame alone is read.
fn continue_location_only(rig: &mut Rig) -> crate::reply::ToolResult {
    let call = rig.call(|s, key, call, now| {
        s.set_call_locals(Some(false));
        s.resume(key, None, false, None, call, now)
    });
    let out = rig.answered(call);
    // The next calls ask for the default again, as every MCP call says its own.
    rig.call(|s, _, _, _| s.set_call_locals(None));
    out
}

#[test]
fn a_whole_stack_read_by_stack_trace_at_a_stop_lets_the_next_step_be_told() {
    let stacks = vec![
        stack(&[frame(1, "main", 3), frame(2, "_start", 1)]),
        // The location-only stop's top frame, then the `stack_trace` tool's page of the same stop.
        stack(&[frame(3, "main", 3)]),
        stack(&[frame(3, "main", 3), frame(4, "_start", 1)]),
        stack(&[frame(5, "main", 4), frame(6, "_start", 1)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 2]));
    launch(&mut rig);
    continue_location_only(&mut rig);
    let call = rig.call(|s, key, call, now| s.stack_trace(key, None, 0, 20, call, now));
    let out = rig.answered(call);
    assert!(out.text.contains("_start"), "{}", out.text);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x: 1 → 2"), "compared with main's last read: {}", out.text);
    // The step is told its depth from the stack the tool read at the stop before.
    assert_eq!(pages(&rig), [(0, 20), (0, 1), (0, 20), (0, 2)]);
}

#[test]
fn a_stack_read_that_is_cut_or_of_another_frame_tells_the_stop_nothing() {
    let stacks = vec![
        stack(&[frame(1, "main", 3), frame(2, "_start", 1)]),
        stack(&[frame(3, "main", 3)]),
        // A one-frame page is cut (the stack may go on), so nothing is learned from it.
        stack(&[frame(3, "main", 3)]),
        stack(&[frame(5, "main", 4), frame(6, "_start", 1)]),
    ];
    let mut rig = Rig::new(adapter(stacks, &[1, 2]));
    launch(&mut rig);
    continue_location_only(&mut rig);
    let call = rig.call(|s, key, call, now| s.stack_trace(key, None, 0, 1, call, now));
    rig.answered(call);
    step(&mut rig, StepKind::Over);
    assert_eq!(pages(&rig), [(0, 20), (0, 1), (0, 1), (0, 20)]);
}

#[test]
fn a_whole_stack_read_gives_a_stop_with_locals_its_depth_and_its_baseline_too() {
    // Twenty frames and more at the stop's own page: its depth unknown, then a 30-frame read
    // by `stack_trace` finds 21; the next step is told and compares with that stop.
    let deep: Vec<Value> = (0..21).map(|i| frame(i, if i == 0 { "leaf" } else { "mid" }, 3)).collect();
    let stepped: Vec<Value> =
        (0..2).map(|i| frame(100 + i, if i == 0 { "leaf" } else { "mid" }, if i == 0 { 4 } else { 3 })).collect();
    let stacks = vec![stack(&deep[..20]), stack(&deep), stack(&stepped)];
    let mut rig = Rig::new(adapter(stacks, &[1, 2]));
    let out = launch(&mut rig);
    assert!(out.text.contains("x = 1"), "{}", out.text);
    let call = rig.call(|s, key, call, now| s.stack_trace(key, None, 0, 30, call, now));
    rig.answered(call);
    let out = step(&mut rig, StepKind::Over);
    assert!(out.text.contains("x: 1 → 2"), "the same call at the depth read: {}", out.text);
    assert_eq!(pages(&rig), [(0, 20), (0, 30), (0, 2)]);
}
