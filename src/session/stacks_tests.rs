//! Sans-IO tests of `stacks` on a running program against the scripted adapter: its own pause's
//! stop never reaches another call's wait nor the run state, a breakpoint that wins the race with
//! it is reported and read where it stopped, a refused resume leaves an honest stop, and a late
//! stop of a pause that did not land is resumed and only mentioned; and the other threads of a
//! stop: a `threads` list without the stop's thread is asked again, another thread's stop during
//! a step is not called the step's end, a `wait` for the exit ends at a stop. What no real
//! adapter here does on demand (a pause racing a breakpoint, a refused `continue`, a thread list
//! late by a moment). Must not: read `Session`'s private fields.

use std::time::Duration;

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use super::waiters::Until;
use crate::dap::scripted::{Reply, ScriptedAdapter};
use crate::reply::CallKey;

/// A plain adapter whose program runs: two threads, each with a two-frame stack.
fn adapter(pause: Reply) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("pause", pause);
    a.on("threads", Reply::ok(json!({"threads": [{"id": 1, "name": "main"}, {"id": 2, "name": "worker"}]})));
    let frames = json!({"stackFrames": [
        {"id": 11, "name": "wait_for", "line": 7, "column": 1, "source": {"path": "/src/app.c"}},
        {"id": 12, "name": "main", "line": 20, "column": 1, "source": {"path": "/src/app.c"}}
    ], "totalFrames": 2});
    a.on("stackTrace", Reply::ok(frames));
    a
}

/// A plain adapter with no script beyond start-up and a one-frame stack (`work` at app.c:7).
fn one_frame_adapter() -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    let frames = json!({"stackFrames": [{"id": 11, "name": "work", "line": 7, "source": {"path": "/src/app.c"}}]});
    a.on("stackTrace", Reply::ok(frames));
    a
}

/// A launch that runs (no stop on entry), and a `wait {for: stop}` under way: (rig, wait call).
fn running(a: ScriptedAdapter) -> (Rig, CallKey) {
    running_until(a, Until::Stop, 5_000)
}

/// A launch that runs (no stop on entry), and a `wait {for: until, wait_ms}` under way:
/// (rig, wait call).
fn running_until(a: ScriptedAdapter, until: Until, wait_ms: u64) -> (Rig, CallKey) {
    let mut rig = Rig::new(a);
    rig.launch(
        standard_plan(json!({"program": "/src/app"})),
        args(json!({"program": "/src/app", "stop_on_entry": false, "wait_ms": 100})),
    );
    rig.advance(Duration::from_millis(200));
    let wait = rig.call(|s, key, call, now| s.wait(key, until, None, Some(wait_ms), call, now));
    assert!(rig.result(wait).is_none(), "the program runs: the wait waits");
    (rig, wait)
}

fn pause_stop() -> Value {
    json!({"reason": "pause", "threadId": 1, "allThreadsStopped": true})
}

#[test]
fn a_stacks_pause_is_read_and_resumed_and_no_wait_hears_of_its_stop() {
    let (mut rig, wait) = running(adapter(Reply::ok(Value::Null).then("stopped", pause_stop())));
    let call = rig.call(|s, key, call, now| s.stacks(key, call, now));
    let out = rig.answered(call);
    assert_eq!(out.structured["how"], "paused_resumed", "{}", out.text);
    assert_eq!(out.structured["state"], "running", "{}", out.text);
    assert_eq!(
        out.text,
        "s1 stacks · 2 threads · paused to read, resumed: the program runs again\nthread 1 \"main\"\n  #0 wait_for at app.c:7\n  #1 main at app.c:20\nthread 2 \"worker\"\n  #0 wait_for at app.c:7\n  #1 main at app.c:20"
    );
    assert!(out.structured["threads"][0]["frames"][0].get("frame").is_none(), "no ids of a moment gone");
    let sent = rig.adapter.commands();
    assert_eq!(&sent[sent.len() - 5..], ["pause", "threads", "stackTrace", "stackTrace", "continue"], "{sent:?}");
    // The wait under way never took that stop for the program's: it runs out still running.
    assert!(rig.result(wait).is_none());
    rig.advance(Duration::from_secs(6));
    let w = rig.answered(wait);
    assert_eq!(w.structured["satisfied"], false, "{}", w.text);
    assert_eq!(w.structured["state"], "running", "{}", w.text);
}

#[test]
fn a_breakpoint_that_wins_the_race_with_the_pause_is_reported_and_read_where_it_stopped() {
    let hit = json!({"reason": "breakpoint", "threadId": 2, "allThreadsStopped": true});
    let (mut rig, wait) = running(adapter(Reply::ok(Value::Null).then("stopped", hit)));
    let call = rig.call(|s, key, call, now| s.stacks(key, call, now));
    let out = rig.answered(call);
    assert_eq!(out.structured["how"], "stopped_meanwhile", "{}", out.text);
    assert!(out.text.contains("the program stopped on its own while agentdap was pausing it"), "{}", out.text);
    assert_eq!(out.structured["state"], "stopped");
    assert!(
        out.structured["threads"][0]["frames"][0]["frame"].is_u64(),
        "a stop's frames have ids: {}",
        out.structured
    );
    assert!(!rig.adapter.commands().contains(&"continue".to_owned()), "a real stop is left stopped");
    let w = rig.answered(wait);
    assert_eq!(w.structured["stop"]["reason"], "breakpoint", "{}", w.text);
}

#[test]
fn a_resume_the_adapter_refuses_leaves_the_program_stopped_and_says_so() {
    let mut a = adapter(Reply::ok(Value::Null).then("stopped", pause_stop()));
    a.on("continue", Reply::error("process is not running"));
    let (mut rig, wait) = running(a);
    let call = rig.call(|s, key, call, now| s.stacks(key, call, now));
    let out = rig.answered(call);
    assert!(
        out.text.contains("note: spec refused to resume the program after the read (`continue` failed: process is not running): it is stopped now, as reported"),
        "{}",
        out.text
    );
    assert_eq!(out.structured["state"], "stopped", "{}", out.text);
    // It is stopped now, really: the wait hears of it.
    let w = rig.answered(wait);
    assert_eq!(w.structured["state"], "stopped", "{}", w.text);
    assert_eq!(w.structured["stop"]["reason"], "pause", "{}", w.text);
}

#[test]
fn a_pause_that_does_not_land_lists_the_threads_and_its_late_stop_is_resumed_not_reported() {
    let (mut rig, wait) = running(adapter(Reply::ok(Value::Null)));
    let call = rig.call(|s, key, call, now| s.stacks(key, call, now));
    assert!(rig.result(call).is_none(), "waiting for the pause's stop");
    rig.advance(Duration::from_millis(1_600));
    let out = rig.answered(call);
    assert_eq!(out.structured["how"], "threads_only", "{}", out.text);
    assert!(out.text.contains("\nnote: the pause did not stop the program within 1500 ms, so no stack could be read: the adapter reported no stop after `pause`"), "{}", out.text);
    assert!(out.text.contains("thread 2 \"worker\""), "{}", out.text);
    assert!(!rig.adapter.commands().contains(&"stackTrace".to_owned()));
    // The pause lands late: agentdap resumes at once; the wait does not end, and the next result
    // says what happened.
    rig.event("stopped", pause_stop());
    assert_eq!(rig.adapter.commands().last().map(String::as_str), Some("continue"));
    assert!(rig.result(wait).is_none(), "a late stop of agentdap's pause is nobody's stop");
    rig.advance(Duration::from_secs(5));
    let w = rig.answered(wait);
    assert_eq!(w.structured["satisfied"], false, "{}", w.text);
    assert!(
        w.text.contains("stopped the program late for an earlier `stacks` pause; agentdap resumed it at once"),
        "{}",
        w.text
    );
    // A later stop is the program's again.
    let wait = rig.call(|s, key, call, now| s.wait(key, Until::Stop, None, Some(5_000), call, now));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    assert_eq!(rig.answered(wait).structured["stop"]["reason"], "breakpoint");
}

#[test]
fn a_second_stacks_while_one_reads_is_refused_and_sends_nothing() {
    let (mut rig, _) = running(adapter(Reply::ok(Value::Null)));
    rig.call(|s, key, call, now| s.stacks(key, call, now));
    let sent = rig.adapter.received().len();
    let second = rig.call(|s, key, call, now| s.stacks(key, call, now));
    let out = rig.answered(second);
    assert!(out.is_error && out.text.contains("is already reading its stacks for another call"), "{}", out.text);
    assert_eq!(rig.adapter.received().len(), sent, "nothing was sent");
}

#[test]
fn the_agents_own_pause_landing_first_is_the_agents_stop_and_the_read_goes_on_at_it() {
    let (mut rig, _) = running(adapter(Reply::ok(Value::Null)));
    let stacks = rig.call(|s, key, call, now| s.stacks(key, call, now));
    let pause = rig.call(|s, key, call, now| s.pause(key, None, Some(5_000), call, now));
    rig.event("stopped", pause_stop());
    let p = rig.answered(pause);
    assert_eq!(p.structured["state"], "stopped", "{}", p.text);
    let out = rig.answered(stacks);
    assert_eq!(out.structured["how"], "stopped_meanwhile", "{}", out.text);
    assert_eq!(out.structured["state"], "stopped", "{}", out.text);
    assert!(!rig.adapter.commands().contains(&"continue".to_owned()), "the agent's stop stays");
}

#[test]
fn stacks_the_adapter_never_gives_are_given_up_within_the_stacks_timeout() {
    let mut a = adapter(Reply::ok(Value::Null).then("stopped", pause_stop()));
    a.on("stackTrace", Reply::never());
    let (mut rig, _wait) = running(a);
    let call = rig.call(|s, key, call, now| s.stacks(key, call, now));
    // Well before the 30 s DAP request timeout: every stack read gives up at once, at 5 s.
    rig.advance(super::tools::inspect::stacks::STACKS_REQUEST_TIMEOUT + Duration::from_millis(100));
    let out = rig.result(call).expect("answered within the stacks timeout");
    assert!(out.text.contains("stack not read"), "{}", out.text);
    assert_eq!(out.structured["state"], "running", "the program was resumed: {}", out.text);
}

/// `wait {for: exit}` on a program that stops meanwhile is answered at that stop, and at once
/// on one already stopped: a stopped program cannot end until it is resumed (a fresh user waited
/// out 8 s after an exception stop at 1.9 s). The answer says it did not exit.
#[test]
fn a_wait_for_the_exit_ends_at_a_stop_and_says_the_program_did_not_exit() {
    let (mut rig, wait) = running_until(adapter(Reply::ok(Value::Null)), Until::Exit, 50_000);
    rig.event("stopped", json!({"reason": "exception", "threadId": 1, "text": "ZeroDivisionError"}));
    let out = rig.answered(wait);
    assert_eq!(
        (out.structured["state"].clone(), out.structured["satisfied"].clone()),
        (json!("stopped"), json!(false))
    );
    assert!(
        out.text.contains("(not exited: the program is stopped and cannot end until it is resumed"),
        "{}",
        out.text
    );
    let again = rig.call(|s, key, call, now| s.wait(key, Until::Exit, None, Some(50_000), call, now));
    let out = rig.answered(again);
    assert_eq!(out.structured["satisfied"], json!(false), "at once, while stopped: {}", out.text);
    assert!(!out.text.contains("wait_ms ran out"), "{}", out.text);
}

/// lldb-dap 22 may answer the first `threads` after a stop without the thread that stopped (a
/// thread created since the last stop), and the whole list a moment later (the fresh user's
/// `pthread_create`): `threads` asks again; a list that still leaves it out says so.
#[test]
fn a_thread_list_without_the_stops_thread_is_asked_again_and_the_gap_said() {
    let one = json!({"threads": [{"id": 1, "name": "main"}]});
    let both = json!({"threads": [{"id": 1, "name": "main"}, {"id": 2, "name": "worker"}]});
    let threads = |replies: &[Value]| {
        let mut a = one_frame_adapter();
        for r in replies {
            a.on("threads", Reply::ok(r.clone()));
        }
        let mut rig = Rig::new(a);
        rig.launch(
            standard_plan(json!({"program": "/src/app"})),
            args(json!({"program": "/src/app", "stop_on_entry": false, "wait_ms": 100})),
        );
        rig.advance(Duration::from_millis(200));
        rig.event("stopped", json!({"reason": "breakpoint", "threadId": 2, "allThreadsStopped": true}));
        let before = rig.adapter.commands().iter().filter(|c| *c == "threads").count();
        let call = rig.call(|s, key, call, now| s.threads(key, call, now));
        let out = rig.answered(call);
        (out, rig.adapter.commands().iter().filter(|c| *c == "threads").count() - before)
    };
    let (out, asked) = threads(&[one.clone(), both.clone()]);
    assert_eq!(asked, 2, "asked again: {}", out.text);
    assert_eq!(out.structured["threads"].as_array().map(Vec::len), Some(2), "{}", out.text);
    assert!(out.text.contains("\n  2 worker (focus)") && !out.text.contains("note:"), "{}", out.text);
    let (out, asked) = threads(&[one.clone(), one.clone()]);
    assert_eq!(asked, 2, "{}", out.text);
    assert_eq!(out.structured["stop_thread_unlisted"], json!(2), "{}", out.text);
    assert!(out.text.contains("note: the adapter's list leaves out thread 2, which the stop named"), "{}", out.text);
    let (_, asked) = threads(std::slice::from_ref(&both));
    assert_eq!(asked, 1, "a whole list is asked once");
}

/// A step of one thread that ends at another thread's breakpoint is not that step's end: the
/// result says whose step it was; a step that ends on its own thread, or a `continue`, says
/// nothing of the kind.
#[test]
fn another_threads_stop_during_a_step_is_not_called_the_steps_end() {
    use super::tools::control::StepKind;
    let mut a = one_frame_adapter();
    let stop = |reason: &str, thread: i64| json!({"reason": reason, "threadId": thread, "allThreadsStopped": true});
    a.on("next", Reply::ok(Value::Null).then("stopped", stop("breakpoint", 2)));
    a.on("next", Reply::ok(Value::Null).then("stopped", stop("step", 2)));
    a.on("continue", Reply::ok(Value::Null).then("stopped", stop("breakpoint", 1)));
    let mut rig = Rig::new(a);
    let launch = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.event("stopped", stop("breakpoint", 1));
    rig.answered(launch);
    let step = |rig: &mut Rig| {
        let call = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, None, call, now));
        rig.answered(call)
    };
    let out = step(&mut rig);
    assert_eq!(out.structured["stop"]["interrupted_step"], json!({"kind": "over", "thread": 1}), "{}", out.text);
    assert!(
        out.text.contains(" · thread 2 · not the end of thread 1's step over: this stop is another thread's"),
        "{}",
        out.text
    );
    let out = step(&mut rig);
    assert!(out.structured["stop"].get("interrupted_step").is_none(), "its own step's end: {}", out.text);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, Some(0), call, now));
    let out = rig.answered(call);
    assert!(out.structured["stop"].get("interrupted_step").is_none(), "no step: {}", out.text);
}

/// A `next` a breakpoint interrupts, then a `continue` that the adapter ends with `stopped
/// {reason: step}`: LLDB's step plans (lldb-dap 22) and rdbg 1.4.0 keep an interrupted step
/// pending and finish it when the program gets back to it. That stop is the old step's end, not
/// the `continue`'s: the result says so (a fresh user read it as the `continue` stopping for no
/// reason). A `step` that ends by itself, and a `pause` js-debug reports as a `step`, say nothing.
#[test]
fn a_continue_that_ends_an_interrupted_step_says_so() {
    use super::tools::control::StepKind;
    let mut a = one_frame_adapter();
    let stop = |reason: &str| json!({"reason": reason, "threadId": 1, "allThreadsStopped": true});
    a.on("next", Reply::ok(Value::Null).then("stopped", stop("breakpoint")));
    a.on("continue", Reply::ok(Value::Null).then("stopped", stop("step")));
    a.on("next", Reply::ok(Value::Null).then("stopped", stop("step")));
    a.on("continue", Reply::ok(Value::Null).then("stopped", stop("step")));
    let mut rig = Rig::new(a);
    let launch = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.event("stopped", stop("breakpoint"));
    rig.answered(launch);
    let step = |rig: &mut Rig| {
        let call = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, None, call, now));
        rig.answered(call)
    };
    let cont = |rig: &mut Rig| {
        let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
        rig.answered(call)
    };
    let interrupted = step(&mut rig);
    let rev = interrupted.structured["revision"].as_u64().expect("a revision");
    let out = cont(&mut rig);
    assert_eq!(out.structured["stop"]["finished_step"], json!({"kind": "over", "interrupted_at_revision": rev}));
    assert!(
        out.text.contains(&format!(
            " · the end of the step over that rev {rev}'s stop interrupted: the adapter kept it pending, so the program stopped here, not at a breakpoint"
        )),
        "{}",
        out.text
    );
    let out = step(&mut rig);
    assert!(out.structured["stop"].get("finished_step").is_none(), "a step's own end: {}", out.text);
    let out = cont(&mut rig);
    assert!(out.structured["stop"].get("finished_step").is_none(), "no step was left pending: {}", out.text);
}

// breaker2 (second round).

/// The `threads` asked again because the first list left out the stop's thread fails (lldb-dap
/// busy, a timeout): the agent gets that failure alone, and loses the list the adapter did give
/// (every other thread), which was shown before 0794d8d.
#[test]
fn a_failed_second_thread_list_does_not_lose_the_first() {
    let mut a = one_frame_adapter();
    a.on("threads", Reply::ok(json!({"threads": [{"id": 1, "name": "main"}, {"id": 3, "name": "io"}]})));
    a.on("threads", Reply::error("the process is busy"));
    let mut rig = Rig::new(a);
    rig.launch(
        standard_plan(json!({"program": "/src/app"})),
        args(json!({"program": "/src/app", "stop_on_entry": false, "wait_ms": 100})),
    );
    rig.advance(Duration::from_millis(200));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 2, "allThreadsStopped": true}));
    let call = rig.call(|s, key, call, now| s.threads(key, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "the first list stands: {}", out.text);
    assert_eq!(out.structured["threads"].as_array().map(Vec::len), Some(2), "{}", out.text);
}

/// A step still under way when the agent pauses: the pause's stop is the agent's, not another
/// thread's, yet when the adapter's `stopped {reason: pause}` names a thread other than the
/// stepping one the headline says "stopped (pause) … not the end of thread 1's step over: this
/// stop is another thread's" (and `stop.interrupted_step`), and nothing when it names the
/// stepping thread: the same pause, told by which thread id the adapter picked.
#[test]
fn a_pause_during_a_step_is_not_called_another_threads_stop() {
    use super::tools::control::StepKind;
    let stop = |reason: &str, thread: i64| json!({"reason": reason, "threadId": thread, "allThreadsStopped": true});
    let mut a = one_frame_adapter();
    // The step over a blocking call does not end by itself.
    a.on("next", Reply::ok(Value::Null));
    a.on("pause", Reply::ok(Value::Null).then("stopped", stop("pause", 2)));
    let mut rig = Rig::new(a);
    let launch = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.event("stopped", stop("breakpoint", 1));
    rig.answered(launch);
    let call = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, Some(10), call, now));
    rig.advance(Duration::from_millis(50));
    let out = rig.answered(call);
    assert_eq!(out.structured["state"], json!("running"), "{}", out.text);
    let call = rig.call(|s, key, call, now| s.pause(key, None, None, call, now));
    let out = rig.answered(call);
    assert_eq!(out.structured["stop"]["reason"], json!("pause"), "{}", out.text);
    assert!(out.structured["stop"].get("interrupted_step").is_none(), "{}", out.text);
    assert!(!out.text.contains("this stop is another thread's"), "{}", out.text);
}

/// `terminate` on a stopped program is under way (the adapter answered; the program's end has
/// not come yet): a `wait {for: exit}` meanwhile answers at once that the program "is stopped
/// and cannot end until it is resumed; `continue` lets it run on", which is false — it is being
/// ended — and the agent is told to resume the program it asked to end.
#[test]
fn a_wait_for_the_exit_while_terminate_is_under_way_waits_for_the_end() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true, "supportsTerminateRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    let frames = json!({"stackFrames": [{"id": 11, "name": "work", "line": 7, "source": {"path": "/src/app.c"}}]});
    a.on("stackTrace", Reply::ok(frames));
    a.on("terminate", Reply::ok(Value::Null));
    let mut rig = Rig::new(a);
    let launch = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    rig.answered(launch);
    let terminate = rig.call(|s, key, call, now| s.terminate(key, call, now));
    assert!(rig.result(terminate).is_none(), "terminate waits for the end");
    let wait = rig.call(|s, key, call, now| s.wait(key, Until::Exit, None, Some(50_000), call, now));
    if let Some(out) = rig.result(wait) {
        assert!(!out.text.contains("`continue` lets it run on"), "{}", out.text);
    }
    rig.event("terminated", Value::Null);
    assert!(!rig.answered(terminate).is_error);
}

/// breaker2: `Run::unfinished_step` keeps one step and no thread. Thread 1's `step in` is
/// interrupted by thread 2's breakpoint; the agent's `next` on thread 2 is interrupted by another
/// breakpoint, which replaces it; then a `continue` stops with `step` on thread 1: LLDB finishing
/// thread 1's step in. The result calls it the end of the step *over* that the later stop
/// interrupted, on thread 2 — a step that stop did not finish.
#[test]
fn a_finished_step_is_the_one_of_the_thread_that_stopped() {
    use super::tools::control::StepKind;
    let mut a = one_frame_adapter();
    let stop = |reason: &str, thread: i64| json!({"reason": reason, "threadId": thread, "allThreadsStopped": true});
    a.on("stepIn", Reply::ok(Value::Null).then("stopped", stop("breakpoint", 2)));
    a.on("next", Reply::ok(Value::Null).then("stopped", stop("breakpoint", 2)));
    a.on("continue", Reply::ok(Value::Null).then("stopped", stop("step", 1)));
    let mut rig = Rig::new(a);
    let launch = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.event("stopped", stop("breakpoint", 1));
    rig.answered(launch);
    let call = rig.call(|s, key, call, now| s.step(key, StepKind::In, None, Some(1), None, call, now));
    let step_in = rig.answered(call);
    let rev_in = step_in.structured["revision"].as_u64().expect("a revision");
    let call = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, Some(2), None, call, now));
    let over = rig.answered(call);
    assert!(!over.is_error, "{}", over.text);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(call);
    let finished = &out.structured["stop"]["finished_step"];
    assert!(
        finished.is_null() || *finished == json!({"kind": "in", "interrupted_at_revision": rev_in}),
        "thread 1's stop ends thread 1's step in (rev {rev_in}), not thread 2's step over: {}",
        out.text
    );
}

/// breaker2: `Run::unfinished_step` outlives a restart the adapter carries out. A `next` is
/// interrupted by a breakpoint, the agent restarts (a new process: no step of the old one can
/// be pending), and in the new run a `continue` stops with reason `step`: the result calls it
/// the end of the old run's step, "the adapter kept it pending".
#[test]
fn a_step_of_the_run_before_a_restart_is_not_finished_in_the_new_run() {
    use super::tools::control::StepKind;
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true, "supportsRestartRequest": true})));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    let frames = json!({"stackFrames": [{"id": 11, "name": "work", "line": 7, "source": {"path": "/src/app.c"}}]});
    a.on("stackTrace", Reply::ok(frames));
    let stop = |reason: &str| json!({"reason": reason, "threadId": 1, "allThreadsStopped": true});
    a.on("next", Reply::ok(Value::Null).then("stopped", stop("breakpoint")));
    a.on("restart", Reply::ok(Value::Null).then("stopped", stop("breakpoint")));
    a.on("continue", Reply::ok(Value::Null).then("stopped", stop("step")));
    let mut rig = Rig::new(a);
    let launch = rig.launch(standard_plan(json!({"program": "/src/app"})), args(json!({"program": "/src/app"})));
    rig.event("stopped", stop("breakpoint"));
    rig.answered(launch);
    let call = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, None, call, now));
    rig.answered(call);
    let call = rig.call(|s, key, call, now| s.restart(key, None, call, now));
    let restarted = rig.answered(call);
    assert!(!restarted.is_error, "{}", restarted.text);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    let out = rig.answered(call);
    assert!(
        out.structured["stop"].get("finished_step").is_none(),
        "a step of the run before the restart: {}",
        out.text
    );
}
