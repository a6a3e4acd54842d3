//! Sans-IO tests of the person's breakpoints beside the agent's (issue 22,
//! `session/mirror_breakpoints.rs`): what the scripted adapter is sent (always the union), what
//! the IDE is answered (its own, in its order, under agentdap's ids), what the agent's calls keep,
//! and whose breakpoint a stop names; and what the agent's own `replace` removed from its set.
//! Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::breakpoints::{Mode, SourceBreakpoint};
use super::mirror::{ClientRef, Note};
use super::scripted::{args, plan, Rig};
use crate::dap::adapters::AdapterKind;
use crate::dap::protocol::Response;
use crate::dap::scripted::{Reply, ScriptedAdapter};

const IDE: ClientRef = ClientRef { key: 0, serial: 7 };
const FILE: &str = "/p/f.py";

fn bp(line: u32) -> SourceBreakpoint {
    SourceBreakpoint { line, column: None, condition: None, hit_condition: None, log_message: None }
}

/// An adapter whose `setBreakpoints` answers are `answers`, in order (the last repeats).
fn adapter(answers: Vec<Value>) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    for body in answers {
        a.on("setBreakpoints", Reply::ok(body));
    }
    a
}

/// A launch with the agent's breakpoint at `FILE:5` (answered with the first of `answers`).
fn launched(answers: Vec<Value>) -> Rig {
    let mut rig = Rig::new(adapter(answers));
    rig.launch(
        plan(AdapterKind::Debugpy, json!({"program": FILE}), None),
        args(json!({"program": FILE, "stop_on_entry": false, "breakpoints": [{"path": FILE, "line": 5}]})),
    );
    rig
}

/// The lines of the last `setBreakpoints` the adapter got.
fn sent_lines(rig: &Rig) -> Vec<u64> {
    let last = rig.adapter.last("setBreakpoints").cloned().unwrap_or_default();
    let list = last["arguments"]["breakpoints"].as_array().cloned().unwrap_or_default();
    list.iter().filter_map(|b| b["line"].as_u64()).collect()
}

/// The IDE's `setBreakpoints` for `FILE` with `lines`, pumped.
fn ide_sets(rig: &mut Rig, seq: i64, lines: &[u32]) {
    let list: Vec<Value> = lines.iter().map(|l| json!({"line": l})).collect();
    let args = json!({"source": {"path": FILE}, "breakpoints": list});
    let (key, now) = (rig.key, rig.now);
    rig.s.mirror_set_breakpoints(key, IDE, seq, "setBreakpoints", Some(args), now);
    rig.pump();
}

/// The responses the IDE was sent since the last call, as `(request_seq, response)`.
fn responses(rig: &mut Rig) -> Vec<(i64, Response)> {
    let Some(s) = rig.s.get_mut(rig.key) else { return Vec::new() };
    let notes = s.mirror.take_notes();
    notes
        .into_iter()
        .filter_map(|n| match n {
            Note::Response { client, request_seq, response, .. } if client == IDE => Some((request_seq, response)),
            _ => None,
        })
        .collect()
}

fn agent_sets(rig: &mut Rig, mode: Mode, lines: &[u32]) -> crate::reply::ToolResult {
    let list: Vec<SourceBreakpoint> = lines.iter().map(|l| bp(*l)).collect();
    let call = rig.call(|s, key, call, now| s.set_breakpoints(Some(key), FILE.into(), mode, list, call, now));
    rig.answered(call)
}

#[test]
fn the_ide_s_set_is_sent_with_the_agent_s_and_answered_with_its_own_in_its_order() {
    let mut rig = launched(vec![
        json!({"breakpoints": [{"id": 100, "verified": true, "line": 5}]}),
        // The union [5, 12, 3]: the agent's 5 (the IDE's too), the IDE's 12 and 3.
        json!({"breakpoints": [{"id": 200, "verified": true, "line": 5}, {"id": 201, "verified": true, "line": 13},
            {"id": 202, "verified": false, "message": "no code at line 3"}]}),
    ]);
    assert_eq!(sent_lines(&rig), [5]);
    ide_sets(&mut rig, 41, &[12, 5, 3]);
    assert_eq!(sent_lines(&rig), [5, 12, 3], "the agent's first, the identical 5 once");
    let got = responses(&mut rig);
    assert_eq!(got.len(), 1, "{got:?}");
    let (seq, r) = &got[0];
    assert_eq!((*seq, r.success, r.command.as_str()), (41, true, "setBreakpoints"));
    let items = r.body.as_ref().and_then(|b| b["breakpoints"].as_array().cloned()).unwrap_or_default();
    assert_eq!(items.len(), 3, "one per breakpoint the IDE asked for: {items:?}");
    let lines: Vec<Value> = items.iter().map(|b| b["line"].clone()).collect();
    // Line 3's answer named no line: none is made up.
    assert_eq!(lines, [json!(13), json!(5), Value::Null]);
    let verified: Vec<bool> = items.iter().map(|b| b["verified"] == true).collect();
    assert_eq!(verified, [true, true, false]);
    assert_eq!(items[2]["message"], "no code at line 3");
    let ids: Vec<i64> = items.iter().filter_map(|b| b["id"].as_i64()).collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| ![200, 201, 202].contains(id)), "agentdap's ids, not the adapter's: {ids:?}");

    // The IDE sends its set again (VS Code does on every change): the same ids.
    ide_sets(&mut rig, 42, &[12, 5, 3]);
    let again = responses(&mut rig);
    let ids_again: Vec<i64> = again[0]
        .1
        .body
        .as_ref()
        .and_then(|b| b["breakpoints"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|b| b["id"].as_i64())
        .collect();
    assert_eq!(ids_again, ids, "stable for the IDE");
}

#[test]
fn the_agent_s_replace_and_clear_keep_the_person_s_and_forget_sends_only_the_agent_s() {
    let mut rig = launched(vec![json!({"breakpoints": [{"id": 1, "verified": true, "line": 5}]})]);
    ide_sets(&mut rig, 1, &[12]);
    assert_eq!(sent_lines(&rig), [5, 12]);
    let out = agent_sets(&mut rig, Mode::Replace, &[7]);
    assert_eq!(sent_lines(&rig), [7, 12], "the agent's replace keeps the person's 12");
    assert!(out.text.starts_with("1 breakpoint(s) in f.py (+1 of the person's, kept)"), "{}", out.text);
    assert_eq!(out.structured["person_breakpoints_kept"], 1);
    assert_eq!(out.structured["breakpoints"].as_array().map(Vec::len), Some(1), "the agent's own only");
    let out = agent_sets(&mut rig, Mode::Add, &[9]);
    assert_eq!(sent_lines(&rig), [7, 9, 12]);
    assert!(out.text.contains("(+1 of the person's, kept)"), "{}", out.text);
    let out = agent_sets(&mut rig, Mode::Remove, &[12]);
    assert_eq!(sent_lines(&rig), [7, 9, 12], "removing a line of the person's removes only the agent's: none");
    assert!(out.text.starts_with("2 breakpoint(s)"), "{}", out.text);
    agent_sets(&mut rig, Mode::Replace, &[]);
    assert_eq!(sent_lines(&rig), [12], "the agent's clear keeps the person's");

    agent_sets(&mut rig, Mode::Replace, &[7]);
    let before = rig.adapter.commands().iter().filter(|c| *c == "setBreakpoints").count();
    let (key, now) = (rig.key, rig.now);
    rig.s.mirror_forget_client(key, IDE, now);
    rig.pump();
    let after = rig.adapter.commands().iter().filter(|c| *c == "setBreakpoints").count();
    assert_eq!(after, before + 1, "the file the client touched is sent again");
    assert_eq!(sent_lines(&rig), [7], "only the agent's remain");
    let out = agent_sets(&mut rig, Mode::Add, &[8]);
    assert!(!out.text.contains("person"), "{}", out.text);
    assert_eq!(sent_lines(&rig), [7, 8]);
}

#[test]
fn a_stop_names_the_person_s_breakpoint_and_a_shared_line_names_both() {
    let mut rig = launched(vec![
        json!({"breakpoints": [{"id": 1, "verified": true, "line": 5}]}),
        // The union [5, 12]: id 1 is the shared 5, id 2 the person's 12.
        json!({"breakpoints": [{"id": 1, "verified": true, "line": 5}, {"id": 2, "verified": true, "line": 12}]}),
    ]);
    ide_sets(&mut rig, 1, &[5, 12]);
    assert_eq!(sent_lines(&rig), [5, 12]);
    let (key, _) = (rig.key, rig.now);

    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [2]}));
    let s = rig.s.get_mut(key).map(|s| s.headline()).unwrap_or_default();
    assert!(s.contains("stopped (breakpoint)") && s.contains(" — the person's breakpoint"), "{s}");
    let for_ide = rig.s.get_mut(key).map(|s| s.mirror_hit_ids(IDE, &[2])).unwrap_or_default();
    assert_eq!(for_ide.len(), 1, "the IDE's own id for the adapter's 2");
    assert_ne!(for_ide, [2]);

    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.event("continued", json!({"threadId": 1, "allThreadsContinued": true}));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [1]}));
    let out = rig.answered(call);
    assert!(out.text.contains(" — your breakpoint and the person's"), "{}", out.text);

    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.event("stopped", json!({"reason": "step", "threadId": 1}));
    let out = rig.answered(call);
    assert!(!out.text.contains("person"), "no hit ids, no owner: {}", out.text);
}

#[test]
fn a_breakpoint_event_updates_the_person_s_entry_and_is_translated_for_the_ide() {
    let mut rig = launched(vec![
        json!({"breakpoints": [{"id": 1, "verified": true, "line": 5}]}),
        json!({"breakpoints": [{"id": 1, "verified": true, "line": 5}, {"id": 2, "verified": false, "line": 12}]}),
    ]);
    ide_sets(&mut rig, 1, &[12]);
    let ide_id = responses(&mut rig)[0].1.body.as_ref().and_then(|b| b["breakpoints"][0]["id"].as_i64());
    let body = json!({"reason": "changed", "breakpoint": {"id": 2, "verified": true, "line": 14}});
    rig.event("breakpoint", body.clone());
    let key = rig.key;
    let translated = rig.s.get_mut(key).map(|s| s.mirror_breakpoint_events(&body)).unwrap_or_default();
    assert_eq!(translated.len(), 1, "{translated:?}");
    assert_eq!(translated[0].0, IDE);
    assert_eq!(translated[0].1["breakpoint"]["id"].as_i64(), ide_id);
    assert_eq!(translated[0].1["breakpoint"]["line"], 14);
    // What the IDE is told next of its set reads the event's state.
    ide_sets(&mut rig, 2, &[12]);
    let r = responses(&mut rig);
    let item = r[0].1.body.as_ref().map(|b| b["breakpoints"][0].clone()).unwrap_or_default();
    assert_eq!((item["id"].as_i64(), item["verified"].clone()), (ide_id, json!(false)), "answered afresh: {item}");
}

#[test]
fn exception_filters_are_the_union_and_each_side_is_told_its_own() {
    let mut a = ScriptedAdapter::new();
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on(
        "initialize",
        Reply::ok(json!({"supportsConfigurationDoneRequest": true, "exceptionBreakpointFilters": [
            {"filter": "raised", "label": "Raised"}, {"filter": "uncaught", "label": "Uncaught"}]})),
    );
    a.on(
        "setExceptionBreakpoints",
        Reply::ok(json!({"breakpoints": [{"verified": true}, {"verified": false, "message": "not here"}]})),
    );
    let mut rig = Rig::new(a);
    rig.launch(
        plan(AdapterKind::Debugpy, json!({"program": FILE}), None),
        args(json!({"program": FILE, "stop_on_entry": false})),
    );
    let call = rig.call(|s, key, call, now| {
        s.set_exception_breakpoints(key, vec!["uncaught".into()], Default::default(), call, now)
    });
    let out = rig.answered(call);
    assert_eq!(out.structured["filters"], json!(["uncaught"]));
    let (key, now) = (rig.key, rig.now);
    rig.s.mirror_set_breakpoints(key, IDE, 9, "setExceptionBreakpoints", Some(json!({"filters": ["raised"]})), now);
    rig.pump();
    let sent = rig.adapter.last("setExceptionBreakpoints").cloned().unwrap_or_default();
    assert_eq!(sent["arguments"]["filters"], json!(["uncaught", "raised"]));
    let r = responses(&mut rig);
    assert_eq!(r.len(), 1);
    assert!(r[0].1.success);
    assert_eq!(
        r[0].1.body,
        Some(json!({"breakpoints": [{"verified": false, "message": "not here"}]})),
        "its own: `raised` is second"
    );
    // The agent's call keeps the person's; its result names only its own.
    let call = rig.call(|s, key, call, now| s.set_exception_breakpoints(key, vec![], Default::default(), call, now));
    let out = rig.answered(call);
    assert_eq!(out.structured["filters"], json!([]));
    let sent = rig.adapter.last("setExceptionBreakpoints").cloned().unwrap_or_default();
    assert_eq!(sent["arguments"]["filters"], json!(["raised"]));
    let (key, now) = (rig.key, rig.now);
    rig.s.mirror_forget_client(key, IDE, now);
    rig.pump();
    let sent = rig.adapter.last("setExceptionBreakpoints").cloned().unwrap_or_default();
    assert_eq!(sent["arguments"]["filters"], json!([]), "the person's went with the client");
    // Function breakpoints are not shared: the IDE is told so, nothing is sent.
    let n = rig.adapter.commands().len();
    rig.s.mirror_set_breakpoints(key, IDE, 10, "setFunctionBreakpoints", Some(json!({"breakpoints": []})), now);
    rig.pump();
    assert_eq!(rig.adapter.commands().len(), n);
    let r = responses(&mut rig);
    assert!(!r[0].1.success && r[0].1.message.as_deref().unwrap_or("").contains("setFunctionBreakpoints"), "{r:?}");
}

/// A `replace` that drops a breakpoint the file had (the launch's, already hit) says which it
/// removed (a fresh user lost the launch's breakpoint unawares); `add`, and a `replace` that keeps
/// every line, say nothing of the kind.
#[test]
fn a_replace_says_which_breakpoints_it_removed() {
    let verified = |lines: &[u32]| {
        let list: Vec<Value> = lines.iter().map(|l| json!({"id": l, "verified": true, "line": l})).collect();
        json!({"breakpoints": list})
    };
    let mut rig = launched(vec![verified(&[5]), verified(&[9]), verified(&[9, 12]), verified(&[9, 12])]);
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [5]}));
    let out = agent_sets(&mut rig, Mode::Replace, &[9]);
    assert!(
        out.text.contains(
            "\nreplaced the file's set: removed line 5 (hit 1×); `mode: \"add\"` keeps a file's other breakpoints"
        ),
        "{}",
        out.text
    );
    assert_eq!(out.structured["removed"], json!([{"line": 5, "hits": 1}]), "{}", out.structured);
    let out = agent_sets(&mut rig, Mode::Add, &[12]);
    assert!(out.structured.get("removed").is_none() && !out.text.contains("removed"), "{}", out.text);
    let out = agent_sets(&mut rig, Mode::Replace, &[9, 12]);
    assert!(out.structured.get("removed").is_none(), "nothing removed: {}", out.text);
}
