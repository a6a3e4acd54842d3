//! Sans-IO tests of a stop's changes when the agent itself changed values since the read they
//! are from (`Session::note_own_change`): a `set_variable`, an `evaluate` that may write. The
//! changes then say what the agent ran in between, never pass its own change off as the
//! program's (a fresh user's finding: `total: 3 → 1000` after they had set `total` to 1000).

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use super::tools::control::StepKind;
use super::tools::inspect::Target;
use crate::dap::scripted::{Reply, ScriptedAdapter};

fn locals(x: i64) -> Reply {
    Reply::ok(json!({"variables": [{"name": "x", "value": x.to_string(), "type": "int", "variablesReference": 0}]}))
}

/// Stops at a breakpoint, then at each step, always in `main` with the same stack; the locals
/// answers are `xs` in turn.
fn adapter(xs: &[i64]) -> ScriptedAdapter {
    adapter_evaluating(xs, Reply::ok(json!({"result": "7", "variablesReference": 0})))
}

fn launch(rig: &mut Rig) -> crate::reply::ToolResult {
    let call = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.answered(call)
}

fn step(rig: &mut Rig) -> crate::reply::ToolResult {
    let call = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, None, call, now));
    rig.answered(call)
}

fn evaluate(rig: &mut Rig, expression: &str) {
    let e = expression.to_owned();
    let call = rig.call(|s, key, call, now| s.evaluate(key, e, Target::default(), None, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
}

#[test]
fn a_step_after_set_variable_says_the_agent_set_a_value_in_between() {
    // The stop's read, the read back after the set, the step's read.
    let mut rig = Rig::new(adapter(&[1, 1000, 1001]));
    let out = launch(&mut rig);
    let handle = out.structured["locals"]["ref"].as_i64().expect("the locals' ref");
    let call = rig.call(|s, key, call, now| s.set_variable(key, handle, "x".into(), "1000".into(), call, now));
    let set = rig.answered(call);
    assert!(!set.is_error, "{}", set.text);
    let out = step(&mut rig);
    // Compared with the value the set read back, the one the agent was told last.
    assert!(out.text.contains("x: 1000 → 1001"), "{}", out.text);
    assert!(out.text.contains("you also ran: set_variable `x = 1000`"), "{}", out.text);
    assert_eq!(out.structured["changes"]["yours"], json!(["set_variable `x = 1000`"]), "{}", out.structured);
    // The next step compares with the step's own read: nothing of the agent's in between.
    let out = step(&mut rig);
    assert!(out.text.contains("unchanged") && !out.text.contains("you also ran"), "{}", out.text);
}

/// The next stop reads the old value again after a `set_variable` the adapter confirmed (Delve
/// 1.20 on a Go argument: `amt = 50 (was 100)`, then `amt` reads 100 at the next line although
/// the program used 50). It compares with what the agent was told last: `x: 50 → 100`, never
/// "unchanged" (a fresh user's finding).
#[test]
fn a_value_that_reads_as_before_the_set_at_the_next_stop_is_a_change() {
    let mut rig = Rig::new(adapter(&[100, 50, 100]));
    let out = launch(&mut rig);
    let handle = out.structured["locals"]["ref"].as_i64().expect("the locals' ref");
    let call = rig.call(|s, key, call, now| s.set_variable(key, handle, "x".into(), "50".into(), call, now));
    let set = rig.answered(call);
    assert!(set.text.starts_with("x = 50 (was 100)"), "{}", set.text);
    let out = step(&mut rig);
    assert!(out.text.contains("x: 50 → 100"), "{}", out.text);
    assert!(!out.text.contains("unchanged"), "{}", out.text);
}

#[test]
fn an_evaluate_that_may_write_is_named_and_a_plain_read_is_not() {
    let mut rig = Rig::new(adapter(&[1, 2, 3]));
    launch(&mut rig);
    evaluate(&mut rig, "x + 1");
    evaluate(&mut rig, "x == 1");
    let out = step(&mut rig);
    assert!(out.text.contains("x: 1 → 2") && !out.text.contains("you also ran"), "{}", out.text);
    evaluate(&mut rig, "bump(&x)");
    let out = step(&mut rig);
    assert!(out.text.contains("x: 2 → 3 (since that read you also ran: evaluate `bump(&x)`"), "{}", out.text);
}

#[test]
fn what_may_change_values_is_told_by_calls_assignments_and_increments() {
    use super::own_change::may_change_values as writes;
    for e in ["f(x)", "items.pop()", "x = 1", "x += 2", "y := 3", "i++", "--i", "x <<= 1", "x >>= 2", "del d['k']"] {
        assert!(writes(e), "{e}");
    }
    for e in ["a + b", "p->x", "x == 1", "a <= b", "a >= b", "a != b", "arr[3]", "-x"] {
        assert!(!writes(e), "{e}");
    }
    // Calls in every shape; parentheses that group or cast, and C's `sizeof`, call nothing.
    for e in ["print (x)", "f()()", "fs[0](x)", "std::max<int>(a, b)", "len(x) + 1", "(lambda: x)()", "not f(x)"] {
        assert!(writes(e), "{e}");
    }
    for e in ["sizeof(name)", "(a + b) * c", "(int)x", "x[(i)]", "a * (b + 1)", "not (a and b)", "x in (1, 2)", "é(x"]
    {
        assert!(!writes(e) || e == "é(x", "{e}");
    }
    assert!(writes("é(x"), "a name of any letters");
}

// breaker2's findings.

/// [`adapter`] with `evaluate` answered by `reply`.
fn adapter_evaluating(xs: &[i64], reply: Reply) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on(
        "initialize",
        Reply::ok(json!({"supportsConfigurationDoneRequest": true, "supportsSetVariable": true}))
            .then("initialized", Value::Null),
    );
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", json!({"reason": "breakpoint", "threadId": 1})));
    a.on("next", Reply::ok(Value::Null).then("stopped", json!({"reason": "step", "threadId": 1})));
    let frames = json!([{"id": 1, "name": "main", "line": 3, "source": {"path": "/src/app.c"}}, {"id": 2, "name": "_start", "line": 1}]);
    a.on("stackTrace", Reply::ok(json!({"stackFrames": frames, "totalFrames": 2})));
    a.on("scopes", Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 11, "expensive": false}]})));
    a.on("setVariable", Reply::ok(json!({"value": "1000"})));
    a.on("evaluate", reply);
    for x in xs {
        a.on("variables", locals(*x));
    }
    a
}

/// Shift-assignments write as `x += 1` does (lldb-dap: `x <<= 1` turned x from 3 into 6 and the
/// next step said `x: 3 → 6`, the program's), and so does Python's `del d['k']` (debugpy's repl
/// runs it: `d: {'k': 1, 'j': 2} → {'j': 2}`, nothing named).
#[test]
fn shift_assignments_and_del_may_change_values() {
    use super::own_change::may_change_values as writes;
    for e in ["x <<= 1", "y >>= 1", "del d['k']", "del lst[0]", "del x"] {
        assert!(writes(e), "{e}");
    }
}

/// lldb-dap's repl runs LLDB commands (`context: "repl"`): `memory write -s 4 &z 99` turned z
/// from 7 into 153 and the next step said `z: 7 → 153`, with nothing named.
#[test]
fn lldb_commands_that_write_may_change_values() {
    use super::own_change::may_change_values as writes;
    for e in ["memory write -s 4 &z 99", "`memory write -s 4 &x 0x55", "register write rax 5"] {
        assert!(writes(e), "{e}");
    }
}

/// An evaluate can write and then fail (debugpy: `[lst.append(9), 1/0]` answers a
/// ZeroDivisionError after appending): the next step said `lst: [1, 2] → [1, 2, 9]` with
/// nothing named. A failed evaluate whose text may write is still the agent's.
#[test]
fn an_evaluate_that_fails_after_writing_is_still_named() {
    let mut rig = Rig::new(adapter_evaluating(&[1, 2], Reply::error("ZeroDivisionError: division by zero")));
    launch(&mut rig);
    let e = "[bump(), 1/0]".to_owned();
    let call = rig.call(|s, key, call, now| s.evaluate(key, e, Target::default(), None, call, now));
    let out = rig.answered(call);
    assert!(out.is_error, "{}", out.text);
    let out = step(&mut rig);
    assert!(out.text.contains("x: 1 → 2 (since that read you also ran: evaluate `[bump(), 1/0]`"), "{}", out.text);
}

/// `context` evaluates the watches: a watch that writes (`(n := n + 1)` under debugpy) changed
/// n from 1 to 2 and the next step said `n: 1 → 2`, the program's, with nothing named.
#[test]
fn a_watch_that_writes_evaluated_by_context_is_named() {
    let mut rig = Rig::new(adapter_evaluating(&[1, 1, 2], Reply::ok(json!({"result": "2", "variablesReference": 0}))));
    launch(&mut rig);
    let key = rig.key;
    let added = rig.s.watch(key, vec!["(x := x + 1)".into()], &[]);
    assert!(added.is_ok());
    let call = rig.call(|s, key, call, now| s.context(key, Target::default(), None, None, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    let out = step(&mut rig);
    assert!(out.text.contains("x: 1 → 2 (since that read you also ran:"), "{}", out.text);
}

/// A watch that only calls (`len(x)`) is evaluated by `context` at every look: taken as a read,
/// never named among the agent's changes (a second fresh user's finding), while an `evaluate`
/// of the same text is.
#[test]
fn a_watch_that_only_calls_is_not_named_but_the_same_evaluate_is() {
    let mut rig = Rig::new(adapter(&[1, 1, 2, 3]));
    launch(&mut rig);
    let key = rig.key;
    assert!(rig.s.watch(key, vec!["len(x)".into()], &[]).is_ok());
    let call = rig.call(|s, key, call, now| s.context(key, Target::default(), None, None, call, now));
    assert!(!rig.answered(call).is_error);
    let out = step(&mut rig);
    assert!(out.text.contains("x: 1 → 2") && !out.text.contains("you also ran"), "{}", out.text);
    evaluate(&mut rig, "len(x)");
    let out = step(&mut rig);
    assert!(out.text.contains("you also ran: evaluate `len(x)`"), "{}", out.text);
}

/// A failed `evaluate` whose text calls or assigns may still have acted (lldb-dap answers a
/// `void` call "unknown error" after making it): the error says so.
#[test]
fn a_failed_evaluate_that_may_have_run_says_so() {
    let mut rig = Rig::new(adapter_evaluating(&[1], Reply::error("unknown error")));
    launch(&mut rig);
    for (e, ran) in [("bump(p, 1)", true), ("x + 1", false)] {
        let expression = e.to_owned();
        let call = rig.call(|s, key, call, now| s.evaluate(key, expression, Target::default(), None, call, now));
        let out = rig.answered(call);
        assert!(out.is_error, "{}", out.text);
        assert_eq!(out.text.contains("may still have run"), ran, "{e}: {}", out.text);
    }
}

// breaker2 (second round): calls `calls()` misses.

/// A `(` after a member access is a call whatever the member's name (`buf.sizeof()`, a method
/// named like C's operator), and so is one after a braced temporary (C++'s `Counter{}(x)` runs
/// `operator()`), JavaScript's optional call (`obj.reset?.()`, js-debug) and C#'s or Swift's
/// null-forgiving call (`action!(x)`, netcoredbg): each ran before 11481f6 (any `(` counted) and
/// is now taken as a read, so what it wrote is shown as the program's change.
#[test]
fn a_paren_after_a_member_a_brace_or_an_optional_call_is_a_call() {
    use super::own_change::may_change_values as writes;
    for e in ["buf.sizeof()", "q->in(x)", "obj.is(other)", "Counter{}(x)", "obj.reset?.()", "action!(x)"] {
        assert!(writes(e), "{e} calls");
    }
}

/// Ruby (rdbg) calls methods without parentheses: `arr.pop`, `arr.sort!`, `h.delete :k`,
/// `arr.push 4` each write the program's values, yet hold no `(` and no `=`, so the next stop
/// shows what they did as the program's change.
#[test]
fn rubys_calls_without_parentheses_may_change_values() {
    // Ruby's calls need no parentheses (`Quirks::calls_without_parentheses`, rdbg's recipe).
    let writes = |e: &str| super::own_change::may_change_values_in(e, true);
    for e in ["arr.pop", "arr.sort!", "h.delete :k", "arr.push 4"] {
        assert!(writes(e), "{e} calls");
    }
    for e in ["arr", "arr[0]", "x + 1", "@count", "a and b", "not done", "1.5 * 2", "h[:k]"] {
        assert!(!writes(e), "{e} reads");
    }
    assert!(crate::dap::adapters::AdapterKind::Rdbg.quirks().calls_without_parentheses);
}

// breaker3's findings.

/// JavaScript's (and C++'s) `delete` writes as Python's `del` does, yet holds no `(`, no `=` and
/// does not start with `del `: under js-debug, `evaluate {expression: "delete o.k"}` at a stop
/// removed `o.k`, and the next step said `o: {k: 1, j: 2} → {j: 2}` with nothing named, the
/// agent's own change passed off as the program's (`o.j = 5` at the same stop is named).
#[test]
fn javascripts_delete_may_change_values() {
    use super::own_change::may_change_values as writes;
    for e in ["delete o.k", "delete obj['k']", "delete arr[0]", "delete p"] {
        assert!(writes(e), "{e} deletes");
    }
    let mut rig = Rig::new(adapter(&[1, 2]));
    launch(&mut rig);
    evaluate(&mut rig, "delete o.k");
    let out = step(&mut rig);
    assert!(out.text.contains("x: 1 → 2 (since that read you also ran: evaluate `delete o.k`"), "{}", out.text);
}
