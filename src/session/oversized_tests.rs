//! Sans-IO tests of what a result shows of an adapter's oversized or lying answers: more frames
//! than `levels` asked for, a frame name of megabytes, a result text over the cap; and of
//! evaluate answers that are not values (rdbg 1.4.0: `RuntimeQuirks::evaluate_refusals`,
//! `evaluate_raises_as_value`); a second exit code; a resume the adapter refused. Must not: read
//! `Session`'s private fields.

use std::time::Duration;

use serde_json::{json, Value};

use super::scripted::{args, plan, Rig};
use super::tools::inspect::Target;
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};
use crate::reply::{ToolResult, MAX_TEXT_CHARS};

/// A session of `kind` stopped at a breakpoint on thread 1, its adapter answering `stackTrace`
/// with `frames` and `evaluate` with `evaluate`.
fn stopped(kind: AdapterKind, frames: Value, evaluate: Value) -> Rig {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("stackTrace", Reply::ok(json!({"stackFrames": frames, "totalFrames": 1_000_000_000_000u64})));
    a.on("scopes", Reply::ok(json!({"scopes": []})));
    a.on("evaluate", Reply::ok(evaluate));
    let mut rig = Rig::new(a);
    let launch = rig.launch(
        plan(kind, json!({"program": "/src/prog"}), None),
        args(json!({"program": "/src/prog", "stop_on_entry": false})),
    );
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    let out = rig.answered(launch);
    assert!(!out.is_error, "{}", out.text);
    rig
}

/// 3,000 frames, the first named with two million characters.
fn hostile_frames() -> Value {
    let mut frames =
        vec![json!({"id": 0, "name": "x".repeat(2_000_000), "line": 3, "source": {"path": "/src/prog.c"}})];
    frames.extend(
        (1..3000).map(|i| json!({"id": i, "name": format!("f{i}"), "line": i, "source": {"path": "/src/prog.c"}})),
    );
    Value::Array(frames)
}

fn text_of(out: &ToolResult) -> Value {
    out.clone().into_value()["content"][0]["text"].clone()
}

#[test]
fn a_stack_trace_shows_no_more_frames_than_asked_and_clips_a_huge_name() {
    let mut rig = stopped(AdapterKind::Lldb, hostile_frames(), json!({"result": "1"}));
    let call = rig.call(|s, key, call, now| s.stack_trace(key, Some(1), 0, 20, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.structured["frames"].as_array().map(Vec::len), Some(20), "{}", out.structured["frames"][1]);
    let name = out.structured["frames"][0]["function"].as_str().unwrap_or_default();
    assert!(name.chars().count() <= 501 && name.ends_with('…'), "{} chars", name.len());
    assert!(out.text.len() < 2_000, "{} bytes", out.text.len());
    assert!(out.text.contains("call stack_trace with start=20"), "{}", out.text);
}

#[test]
fn a_stack_trace_of_huge_names_ends_its_page_early_and_says_where_the_rest_starts() {
    // 200 frames, each named with 500 characters (the most a name keeps): 100,000 characters.
    let frames: Vec<Value> = (0..200)
        .map(|i| json!({"id": i, "name": format!("{i}{}", "n".repeat(600)), "line": 1, "source": {"path": "/src/prog.c"}}))
        .collect();
    let mut rig = stopped(AdapterKind::Lldb, Value::Array(frames), json!({"result": "1"}));
    let call = rig.call(|s, key, call, now| s.stack_trace(key, Some(1), 0, 200, call, now));
    let out = rig.answered(call);
    let shown = out.structured["frames"].as_array().map_or(0, Vec::len);
    assert!(shown > 0 && shown < 200, "{shown}");
    assert!(out.text.chars().count() <= crate::reply::MAX_TEXT_CHARS, "{} characters", out.text.len());
    assert!(
        out.text.ends_with(&format!("… more frames (call stack_trace with start={shown})")),
        "{}",
        &out.text[out.text.len() - 200..]
    );
    assert_eq!(out.structured["next_start"], json!(shown), "{}", out.structured["next_start"]);
}

#[test]
fn context_shows_its_five_frames_of_an_adapter_that_sends_thousands() {
    let mut rig = stopped(AdapterKind::Lldb, hostile_frames(), json!({"result": "1"}));
    let call = rig.call(|s, key, call, now| s.context(key, Target::default(), None, None, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.structured["frames"].as_array().map(Vec::len), Some(5), "{}", out.text);
    assert!(out.text.len() < 4_000, "{} bytes", out.text.len());
}

#[test]
fn a_result_text_over_the_cap_says_how_much_was_cut_and_keeps_its_last_lines() {
    let long = format!("head\n{}\nlast line: call output with since=7", "y".repeat(50_000));
    let text = text_of(&ToolResult::ok(long, Value::Null));
    let text = text.as_str().unwrap_or_default();
    assert!(text.chars().count() <= MAX_TEXT_CHARS, "{}", text.len());
    assert!(text.starts_with("head\n"));
    assert!(text.ends_with("last line: call output with since=7"));
    assert!(text.contains("characters cut here: this result was 50041 characters"), "{}", &text[18_000..19_500]);
    let short = text_of(&ToolResult::ok("fine", Value::Null));
    assert_eq!(short, json!("fine"));
}

#[test]
fn rdbg_1_4_0_refusing_a_frame_is_an_error_not_a_string_value() {
    // As rdbg 1.4.0 sends it: Ruby's inspection of the string, quotes included (its DAP log).
    let refusal =
        json!({"result": "\"Error: Can not evaluate on this frame\"", "type": "String", "variablesReference": 2});
    let mut rig = stopped(AdapterKind::Rdbg, hostile_frames(), refusal);
    let call = rig.call(|s, key, call, now| s.evaluate(key, "n".into(), Target::default(), None, call, now));
    let out = rig.answered(call);
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with("adapter_error: rdbg could not evaluate `n` in this frame: it answered \"Error: Can not evaluate on this frame\""),
        "{}",
        out.text
    );

    // The same words from an adapter without the quirk are a value like any other.
    let refusal = json!({"result": "Error: Can not evaluate on this frame", "type": "String"});
    let mut rig = stopped(AdapterKind::Lldb, hostile_frames(), refusal);
    let call = rig.call(|s, key, call, now| s.evaluate(key, "n".into(), Target::default(), None, call, now));
    assert!(!rig.answered(call).is_error);
}

#[test]
fn rdbg_1_4_0_marks_a_value_that_reads_like_the_raised_exception() {
    let raised = json!({"result": "#<NameError: undefined local variable or method `nosuch' for main:Object>", "type": "NameError", "variablesReference": 0});
    let mut rig = stopped(AdapterKind::Rdbg, hostile_frames(), raised);
    let call = rig.call(|s, key, call, now| s.evaluate(key, "nosuch".into(), Target::default(), None, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.ends_with("(note: rdbg answers an exception the expression raised as its value: this `NameError` is most likely the expression's failure)"),
        "{}",
        out.text
    );
    assert!(out.structured["value_note"].as_str().is_some_and(|n| n.contains("most likely")), "{}", out.structured);

    // A plain value gets no note.
    let plain = json!({"result": "42", "type": "Integer", "variablesReference": 0});
    let mut rig = stopped(AdapterKind::Rdbg, hostile_frames(), plain);
    let call = rig.call(|s, key, call, now| s.evaluate(key, "n".into(), Target::default(), None, call, now));
    let out = rig.answered(call);
    assert_eq!(out.text.lines().count(), 1, "{}", out.text);
}

#[test]
fn a_second_exit_code_is_not_taken_over_the_first() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    let mut rig = Rig::new(a);
    let launch = rig.launch_program(AdapterKind::Debugpy, "/src/app.py");
    rig.event("exited", json!({"exitCode": 7}));
    rig.event("exited", json!({"exitCode": 0}));
    rig.event("terminated", json!({}));
    let out = rig.answered(launch);
    assert!(out.text.starts_with("s1 exited with code 7"), "{}", out.text);
    assert!(
        out.text.contains("debugpy reported the program's exit twice: code 7, then 0; the first is kept"),
        "{}",
        out.text
    );
}

#[test]
fn a_refused_resume_leaves_the_stop_where_it_was() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on(
        "stackTrace",
        Reply::ok(json!({"stackFrames": [{"id": 1, "name": "tick", "line": 4, "source": {"path": "/src/t.rb"}}]})),
    );
    a.on("continue", Reply::error("cancelled"));
    let mut rig = Rig::new(a);
    let launch = rig.launch_program(AdapterKind::Rdbg, "/src/t.rb");
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    assert!(!rig.answered(launch).is_error);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(call);
    assert!(out.is_error && out.text.contains("cancelled"), "{}", out.text);
    let call = rig.call(|s, key, call, now| s.wait(key, crate::session::waiters::Until::Stop, None, None, call, now));
    let out = rig.answered(call);
    assert!(out.text.starts_with("s1 stopped (breakpoint) at t.rb:4 in tick()"), "{}", out.text);
}

#[test]
fn an_unanswered_resume_is_never_taken_back_to_the_old_stop() {
    // debugpy 1.8.22 can leave `continue` unanswered (another thread stopped while pydevd resumed
    // them all) and forward nothing more: the old stop is no longer true, nor is any other known.
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on(
        "stackTrace",
        Reply::ok(json!({"stackFrames": [{"id": 1, "name": "w", "line": 4, "source": {"path": "/src/p.py"}}]})),
    );
    a.on("continue", Reply::never());
    let mut rig = Rig::new(a);
    let launch = rig.launch_program(AdapterKind::Debugpy, "/src/p.py");
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 3}));
    assert!(!rig.answered(launch).is_error);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, Some(100), call, now));
    rig.advance(Duration::from_millis(200));
    let out = rig.answered(call);
    assert!(out.text.starts_with("s1 running"), "{}", out.text);
    rig.advance(Duration::from_secs(31));
    let call =
        rig.call(|s, key, call, now| s.wait(key, crate::session::waiters::Until::Stop, None, Some(100), call, now));
    rig.advance(Duration::from_millis(200));
    let out = rig.answered(call);
    assert!(out.text.starts_with("s1 running"), "{}", out.text);
    assert!(!out.text.contains("stopped (breakpoint)"), "{}", out.text);
    assert!(out.text.contains("whether the program resumed is unknown, and debugpy may be hung"), "{}", out.text);
}

#[test]
fn structured_content_is_cut_like_the_text() {
    let one = ToolResult::ok("t", json!({"session": "s1", "stop": {"description": "d".repeat(1_000_000)}}));
    let v = one.clone().into_value();
    let d = v["structuredContent"]["stop"]["description"].as_str().unwrap_or_default();
    assert_eq!(d.chars().count(), MAX_TEXT_CHARS + 1, "cut, with its …");
    assert!(d.ends_with('…'));

    let many: Vec<Value> = (0..100).map(|i| json!({"id": i, "name": "n".repeat(19_000)})).collect();
    let v = ToolResult::ok("t", json!({"session": "s1", "state": "stopped", "threads": many})).into_value();
    let s = &v["structuredContent"];
    assert_eq!(
        (s["session"].clone(), s["state"].clone(), s["structured_cut"].clone()),
        (json!("s1"), json!("stopped"), json!(true)),
        "{s}"
    );
    assert!(s["threads"].is_null());

    let small = json!({"session": "s1", "value": "42"});
    assert_eq!(ToolResult::ok("t", small.clone()).into_value()["structuredContent"], small);
}

#[test]
fn an_expression_that_spells_rdbgs_refusal_is_a_value() {
    let literal = "'Error: Can not evaluate on this frame'";
    let answer =
        json!({"result": "\"Error: Can not evaluate on this frame\"", "type": "String", "variablesReference": 2});
    let mut rig = stopped(AdapterKind::Rdbg, hostile_frames(), answer);
    let call = rig.call(|s, key, call, now| s.evaluate(key, literal.into(), Target::default(), None, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
}
