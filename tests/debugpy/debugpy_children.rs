//! Child sessions against real debugpy (DAP § Reverse Requests › StartDebugging;
//! microsoft/debugpy#1269): `multiprocessing` and `subprocess` children stop at their breakpoints
//! in sessions of their own (`s2`, listed under their parent), the parent keeps running, closing
//! the parent closes them, and no process of either is left after `disconnect` or SIGKILL of
//! agentdap.

use crate::agent;

use std::time::Duration;

use agent::{assert_all_gone, fixture, is_watchdog, Agent, HYGIENE};
use agentdap::os::spawn::Pid;
use serde_json::{json, Value};

const START: u64 = 40_000;

/// Launches mp.py with the breakpoint inside the child and returns the launch result.
fn stopped_in_mp_child(a: &mut Agent) -> agent::Res {
    let program = fixture("py/mp.py");
    a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 3}], "wait_ms": START}))
}

fn entry(list: &Value, id: &str) -> Value {
    list["sessions"].as_array().and_then(|l| l.iter().find(|s| s["session"] == json!(id)).cloned()).unwrap_or_default()
}

#[test]
fn multiprocessing_child_stops_while_the_parent_runs_and_dies_with_it() {
    let mut a = Agent::start();
    let r = stopped_in_mp_child(&mut a);
    // The stop that matters leads the parent's result: the child's, in its own session.
    assert!(r.text.starts_with("s2 stopped (breakpoint) at mp.py:3"), "{}", r.text);
    assert_eq!(r.s["session"], json!("s1"));
    assert_eq!(r.s["state"], json!("running"), "the parent keeps running: {}", r.text);
    assert_eq!(r.s["child_stops"][0]["session"], json!("s2"), "{}", r.s);
    assert_eq!(r.s["child_stops"][0]["stop"]["location"]["line"], json!(3), "{}", r.s);

    let list = a.ok("sessions", json!({}));
    let (parent, child) = (entry(&list.s, "s1"), entry(&list.s, "s2"));
    assert_eq!(child["parent"], json!("s1"), "{}", list.s);
    // `fork` (Linux's default start method): the child's command line is its parent's.
    assert_eq!(child["program"], json!(format!("fork of {}", fixture("py/mp.py"))), "{}", list.text);
    assert_eq!(child["request"], json!("attach"));
    assert_eq!(child["state"], json!("stopped"));
    assert_eq!(parent["state"], json!("running"));
    assert!(list.text.contains("\n  s2 stopped"), "children are listed under their parent:\n{}", list.text);
    let child_pid = child["pid"].as_i64().expect("the child's pid") as Pid;
    assert_ne!(Some(child_pid as i64), parent["pid"].as_i64());

    // The child takes the same tools; without `session` the stopped child is the default.
    let c = a.ok("context", json!({}));
    assert!(c.text.contains("x = 42"), "{}", c.text);
    assert_eq!(c.s["session"], json!("s2"), "{}", c.s);
    let v = a.ok("evaluate", json!({"session": "s2", "expression": "__import__('os').getpid()"}));
    assert!(v.text.contains(&child_pid.to_string()), "{}", v.text);

    // The child's DAP start: initialize → attach with debugpy's configuration verbatim →
    // breakpoints replayed → configurationDone.
    let log = a.dap_log("s2");
    let sent = agent::sent_commands(&log);
    assert_eq!(sent[..4], ["initialize", "attach", "setBreakpoints", "setExceptionBreakpoints"], "{sent:?}");
    assert!(sent.contains(&"configurationDone".to_owned()));
    let attach = log
        .iter()
        .find(|e| e["message"]["command"] == json!("attach") && e["message"]["type"] == json!("request"))
        .map(|e| e["message"]["arguments"].clone())
        .unwrap_or_default();
    assert_eq!(attach["subProcessId"], json!(child_pid), "{attach}");
    assert!(attach["connect"]["port"].is_u64(), "{attach}");
    let parent_log = a.dap_log("s1");
    let answered = parent_log.iter().any(|e| {
        e["message"]["type"] == json!("response")
            && e["message"]["command"] == json!("startDebugging")
            && e["message"]["success"] == json!(true)
    });
    assert!(answered, "startDebugging answered with success");

    let tree = a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect::<Vec<_>>();
    assert!(tree.contains(&child_pid), "{tree:?}");
    let r = a.ok("disconnect", json!({"session": "s1"}));
    assert!(["exited", "terminated"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    assert_all_gone(&tree, HYGIENE, "after disconnecting the parent");
    let gone = agent::eventually(HYGIENE, || a.ok("sessions", json!({})).s["sessions"] == json!([]));
    assert!(gone, "parent and child leave the table: {}", a.ok("sessions", json!({})).s);
}

#[test]
fn subprocess_child_stops_then_both_run_to_their_ends() {
    let mut a = Agent::start();
    let parent = fixture("py/sub_parent.py");
    let child = fixture("py/sub_child.py");
    let r = a.ok("launch", json!({"program": parent, "breakpoints": [{"path": child, "line": 4}], "wait_ms": START}));
    assert!(r.text.starts_with("s2 stopped (breakpoint) at sub_child.py:4"), "{}", r.text);
    // Named by what it runs: not pydevd's launcher that debugpy puts in front of it.
    let list = a.ok("sessions", json!({}));
    assert_eq!(entry(&list.s, "s2")["program"], json!(format!("{child} 7")), "{}", list.text);
    let v = a.ok("evaluate", json!({"session": "s2", "expression": "n * 100"}));
    assert!(v.text.contains("700"), "{}", v.text);
    let r = a.ok("continue", json!({"session": "s2", "wait_ms": START}));
    assert!(["exited", "terminated"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    let r = a.ok("wait", json!({"session": "s1", "for": "exit", "wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    let out = a.ok("output", json!({"session": "s1"}));
    assert!(out.text.contains("child exited with 0"), "{}", out.text);
    a.ok("disconnect", json!({"session": "s1"}));
    let gone = agent::eventually(HYGIENE, || a.ok("sessions", json!({})).s["sessions"] == json!([]));
    assert!(gone, "{}", a.ok("sessions", json!({})).s);
}

/// A `spawn` pool worker runs interpreter options and multiprocessing's own `-c` code behind
/// pydevd's start-up code: it is named as the worker it is.
#[test]
fn a_spawned_pool_worker_is_named_as_a_worker_of_its_parent_program() {
    let mut a = Agent::start();
    let program = fixture("py/pool.py");
    let r =
        a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 5}], "wait_ms": START}));
    assert_eq!(r.s["child_stops"][0]["stop"]["location"]["line"], json!(5), "{}", r.text);
    let worker = r.s["child_stops"][0]["session"].as_str().unwrap_or_default().to_owned();
    let list = a.ok("sessions", json!({}));
    assert_eq!(
        entry(&list.s, &worker)["program"],
        json!(format!("multiprocessing worker of {program}")),
        "{}",
        list.text
    );
    a.ok("disconnect", json!({"session": "s1"}));
    let gone = agent::eventually(HYGIENE, || a.ok("sessions", json!({})).s["sessions"] == json!([]));
    assert!(gone, "{}", a.ok("sessions", json!({})).s);
}

/// The parent's wait hears of a child's stop even when the child stops later: `continue` on the
/// parent ends at the child's stop, naming it.
#[test]
fn waiting_on_the_parent_ends_at_a_child_stop() {
    let mut a = Agent::start();
    let program = fixture("py/mp.py");
    // Stop in the parent first (line 6), then continue it into the child's breakpoint.
    let r =
        a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 6}], "wait_ms": START}));
    assert_eq!(
        (r.s["session"].clone(), r.s["stop"]["location"]["line"].clone()),
        (json!("s1"), json!(6)),
        "{}",
        r.text
    );
    a.ok("set_breakpoints", json!({"session": "s1", "path": program, "breakpoints": [{"line": 3}]}));
    let r = a.ok("continue", json!({"session": "s1", "wait_ms": START}));
    assert!(r.text.starts_with("s2 stopped (breakpoint) at mp.py:3"), "{}", r.text);
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
}

/// SIGKILL of agentdap with a child session stopped: the watchdog leaves no process of either.
#[test]
fn sigkill_of_agentdap_leaves_no_parent_or_child() {
    let mut a = Agent::start();
    let r = stopped_in_mp_child(&mut a);
    assert!(r.text.starts_with("s2 stopped"), "{}", r.text);
    let tree = a.descendants();
    let child_pid = a.session("s2")["pid"].as_i64().expect("child pid") as Pid;
    assert!(tree.contains(&child_pid));
    a.d.signal(libc::SIGKILL);
    let _ = a.d.wait_exit(Duration::from_secs(5));
    assert_all_gone(&tree, HYGIENE * 2, "after SIGKILL of agentdap");
}
