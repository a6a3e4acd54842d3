//! Sans-IO tests of what a stop result shows of its frame (`stop_frame.rs`) where no real adapter
//! misbehaves on demand: an `invalidated` event while the locals are read, a `variables` answer
//! without a list, locals that never come, and `--stop-locals off`. Through the scripted rig;
//! they assert only the requests sent and the results.

use std::time::Duration;

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// An adapter that stops at `app.py:3` in `main` once configured, and answers the frame's reads
/// with `scopes` and `variables`.
fn adapter(scopes: Reply, variables: Reply) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})).then("initialized", Value::Null));
    let stopped = json!({"reason": "breakpoint", "threadId": 1});
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", stopped.clone()));
    a.on("continue", Reply::ok(Value::Null).then("stopped", stopped));
    let frame = json!({"id": 7, "name": "main", "line": 3, "source": {"path": "/src/app.py"}});
    a.on("stackTrace", Reply::ok(json!({"stackFrames": [frame]})));
    a.on("scopes", scopes);
    a.on("variables", variables);
    a
}

fn locals_scope() -> Reply {
    Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 11, "expensive": false}]}))
}

fn one_local() -> Reply {
    Reply::ok(json!({"variables": [{"name": "x", "value": "1", "type": "int", "variablesReference": 0}]}))
}

fn launch(rig: &mut Rig) -> crate::reply::CallKey {
    rig.launch(standard_plan(json!({"program": "/src/app.py"})), args(json!({"program": "/src/app.py"})))
}

#[test]
fn a_stop_result_lists_the_locals_it_read() {
    let mut rig = Rig::new(adapter(locals_scope(), one_local()));
    let call = launch(&mut rig);
    let out = rig.answered(call);
    assert!(out.text.contains("\nlocals [ref ") && out.text.contains("]:\n  x = 1 (int)"), "{}", out.text);
    assert_eq!(out.structured["locals"]["variables"][0]["value"], json!("1"), "{}", out.structured);
}

#[test]
fn an_invalidated_event_while_the_locals_are_read_does_not_hold_the_stop() {
    // The event bumps the revision; the reads of the stop still count, so the launch answers at
    // once (not after its `wait_ms`), and says why the locals are not shown.
    let scopes = locals_scope().before("invalidated", json!({"areas": ["variables"]}));
    let mut rig = Rig::new(adapter(scopes, one_local()));
    let call = launch(&mut rig);
    let out = rig.result(call).unwrap_or_else(|| panic!("held; sent {:?}", rig.adapter.commands()));
    assert!(out.text.starts_with("s1 stopped (breakpoint) at app.py:3 in main()"), "{}", out.text);
    assert!(out.text.contains("locals not shown: the adapter said its values changed (`invalidated`)"), "{}", out.text);
    assert!(out.structured.get("locals").is_none(), "{}", out.structured);
}

#[test]
fn a_variables_answer_without_a_list_is_said_and_nothing_is_called_unchanged() {
    let mut rig = Rig::new(adapter(locals_scope(), Reply::ok(json!("garbage"))));
    let call = launch(&mut rig);
    let out = rig.answered(call);
    assert!(
        out.text.contains("locals not read: the adapter's `variables` answer has no list of variables"),
        "{}",
        out.text
    );
    let again = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(again);
    assert!(!out.text.contains("unchanged") && out.structured.get("changes").is_none(), "{}", out.text);
}

#[test]
fn locals_that_never_come_are_given_up_and_not_asked_for_again_in_that_function() {
    let mut rig = Rig::new(adapter(locals_scope(), Reply::never()));
    let call = launch(&mut rig);
    assert!(rig.result(call).is_none(), "the stop waits for its locals");
    rig.advance(super::stop_frame::STOP_DETAIL_TIMEOUT + Duration::from_millis(10));
    let out = rig.answered(call);
    assert!(out.text.contains("\nlocals not read: "), "{}", out.text);
    let count = |rig: &Rig| rig.adapter.commands().iter().filter(|c| *c == "variables").count();
    assert_eq!(count(&rig), 1);
    let again = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(again);
    assert!(out.text.contains("reading them timed out at an earlier stop in this function"), "{}", out.text);
    assert_eq!(count(&rig), 1, "no second read to wait for: {:?}", rig.adapter.commands());
}

#[test]
fn with_stop_locals_off_a_stop_asks_for_no_scopes() {
    let mut rig = Rig::new(adapter(locals_scope(), one_local()));
    rig.s.set_default_locals(false);
    let call = launch(&mut rig);
    let out = rig.answered(call);
    assert!(!rig.adapter.commands().contains(&"scopes".to_owned()), "{:?}", rig.adapter.commands());
    assert!(out.structured.get("locals").is_none() && !out.text.contains("locals"), "{}", out.text);
}

#[test]
fn an_adapter_slow_at_every_answer_holds_a_stop_for_the_one_deadline_not_one_per_read() {
    // Each answer takes 1 s: `scopes` is in at 1 s, `variables` would be at 2 s; the stop is
    // answered at the 1.5 s deadline, saying the locals are missing.
    let slow = |r: Reply| r.delayed(Duration::from_millis(1000));
    let mut rig = Rig::new(adapter(slow(locals_scope()), slow(one_local())));
    let call = launch(&mut rig);
    rig.advance(Duration::from_millis(1600));
    let out = rig.answered(call);
    assert!(out.text.contains("\nlocals not read: "), "{}", out.text);
}

#[test]
fn a_scopes_answer_without_a_list_is_said_and_a_nameless_scope_is_passed_over() {
    let mut rig = Rig::new(adapter(Reply::ok(json!("garbage")), one_local()));
    let call = launch(&mut rig);
    let out = rig.answered(call);
    assert!(out.text.contains("locals not read: the adapter's `scopes` answer has no list of scopes"), "{}", out.text);

    let nameless = json!({"scopes": [{"variablesReference": 4, "expensive": false}, {"name": "Locals", "variablesReference": 11}]});
    let mut rig = Rig::new(adapter(Reply::ok(nameless), one_local()));
    let call = launch(&mut rig);
    let out = rig.answered(call);
    assert!(out.text.contains("]:\n  x = 1 (int)"), "{}", out.text);
}

/// `context` whose locals answer has no list, fails, or never comes, says the locals were not
/// read (it showed an empty list, as if the frame had no locals: a breaker's finding).
#[test]
fn a_context_whose_locals_were_not_read_says_so_not_that_there_are_none() {
    use super::tools::inspect::Target;
    for (variables, why) in [
        (Reply::ok(json!({"variables": {"x": 1}})), "has no list of variables"),
        (Reply::error("no such reference"), "no such reference"),
        (Reply::never(), "no response within"),
    ] {
        // The stop's own read fails the same way, so nothing is cached and the context asks.
        let mut rig = Rig::new(adapter(locals_scope(), variables));
        let call = launch(&mut rig);
        rig.advance(super::stop_frame::STOP_DETAIL_TIMEOUT + Duration::from_millis(10));
        rig.answered(call);
        let call = rig.call(|s, key, call, now| s.context(key, Target::default(), None, None, call, now));
        rig.advance(Duration::from_secs(31));
        let out = rig.answered(call);
        assert!(!out.is_error, "the rest of the context still answers: {}", out.text);
        assert!(out.text.contains("not read: ") && out.text.contains(why), "{}", out.text);
        assert!(out.structured["locals_error"].as_str().is_some_and(|w| w.contains(why)), "{}", out.structured);
    }
}

/// An object whose value is its class's own repr (`Cfg()`, debugpy) may change behind it:
/// where the adapter's values are reprs (`Quirks::repr_whole_types`), a stop that did not read
/// its members never calls it unchanged; a builtin list's repr shows every item and compares as
/// it is (the fresh user's `cfg.level = 2`, shown as unchanged).
#[test]
fn an_object_shown_by_its_own_repr_is_never_called_unchanged() {
    let vars = json!({"variables": [
        {"name": "cfg", "value": "Cfg()", "type": "Cfg", "variablesReference": 5},
        {"name": "xs", "value": "[1, 2]", "type": "list", "variablesReference": 6},
    ]});
    for (reprs, expected) in
        [(true, "maybe changed (not shown whole): cfg · nothing else changed\n"), (false, "unchanged")]
    {
        let mut rig = Rig::new(adapter(locals_scope(), Reply::ok(vars.clone())));
        let mut plan = standard_plan(json!({"program": "/src/app.py"}));
        if reprs {
            plan.quirks.repr_whole_types = Some(&["list"]);
        }
        let call = rig.launch(plan, args(json!({"program": "/src/app.py"})));
        rig.answered(call);
        let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
        let out = rig.answered(call);
        let line = out.text.lines().find(|l| l.starts_with("locals")).unwrap_or_default().to_owned() + "\n";
        assert!(line.contains(expected), "{reprs}: {}", out.text);
    }
}

/// breaker2: a builtin container's repr shows its items by their own reprs: `[Cfg()]`,
/// `{'a': Cfg()}`, `(Cfg(),)` stay the same while each `Cfg`'s `level` changes. debugpy: after
/// `cs[0].level = 2` (and the same for `dc`, `tup`) the stop said they were among the
/// `unchanged`, though `cs[0].level` was 2, not 1.
#[test]
fn a_builtin_container_of_objects_shown_by_their_own_repr_is_never_called_unchanged() {
    let vars = json!({"variables": [
        {"name": "cs", "value": "[Cfg()]", "type": "list", "variablesReference": 6},
        {"name": "dc", "value": "{'a': Cfg()}", "type": "dict", "variablesReference": 7},
        {"name": "tup", "value": "(Cfg(),)", "type": "tuple", "variablesReference": 8},
    ]});
    let mut rig = Rig::new(adapter(locals_scope(), Reply::ok(vars)));
    let mut plan = standard_plan(json!({"program": "/src/app.py"}));
    plan.quirks.repr_whole_types = Some(&["list", "dict", "tuple"]);
    let call = rig.launch(plan, args(json!({"program": "/src/app.py"})));
    rig.answered(call);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(call);
    assert_eq!(out.structured["changes"]["unchanged"], json!(0), "{}", out.text);
    assert!(!out.text.contains("unchanged"), "{}", out.text);
}

/// breaker2: an object read as its members (`h = {inner = Cfg()}`, its own value a default
/// repr) holds a member shown by its class's own repr: `h.inner.level` 1 → 2 was called
/// unchanged.
#[test]
fn a_member_shown_by_its_own_repr_does_not_make_its_holder_unchanged() {
    let locals = json!({"variables": [
        {"name": "h", "value": "<__main__.Holder object at 0x7f0000000001>", "type": "Holder", "variablesReference": 5},
    ]});
    let members = json!({"variables": [
        {"name": "inner", "value": "Cfg()", "type": "Cfg", "variablesReference": 9},
    ]});
    let mut a = adapter(locals_scope(), Reply::ok(locals.clone()));
    // The stop's locals are the first answer; then h's members; the same at the second stop.
    a.on("variables", Reply::ok(members.clone()));
    a.on("variables", Reply::ok(locals));
    a.on("variables", Reply::ok(members));
    let mut rig = Rig::new(a);
    let mut plan = standard_plan(json!({"program": "/src/app.py"}));
    plan.quirks.repr_whole_types = Some(&["list", "dict", "tuple"]);
    let call = rig.launch(plan, args(json!({"program": "/src/app.py"})));
    let first = rig.answered(call);
    assert!(first.text.contains("h = {inner = Cfg()}"), "{}", first.text);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(call);
    assert!(!out.text.contains("unchanged"), "{}", out.text);
}
