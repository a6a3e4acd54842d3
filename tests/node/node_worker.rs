//! A `worker_threads` worker on real js-debug through the built binary: js-debug starts it as a
//! nested child (a `startDebugging` from the program's own connection); it stops at its own
//! breakpoint in a child session `s2` listed under `s1`, as debugpy's subprocesses are, while the
//! main thread's session keeps running; both then run to the end with their output.

use crate::agent::lines_of;
use serde_json::{json, Value};

use crate::node_util::{Node, START};

fn entry(list: &Value, id: &str) -> Value {
    list["sessions"].as_array().and_then(|l| l.iter().find(|s| s["session"] == json!(id)).cloned()).unwrap_or_default()
}

/// `worker.js`: the main thread starts itself as a worker with `workerData` 20; the worker computes
/// `doubled = 42` (line 7) and posts it (line 8); the main thread prints `main got 42` and
/// `worker done`.
#[test]
fn a_worker_stops_at_its_own_breakpoint_in_a_child_session_under_s1() {
    let mut n = Node::start("worker");
    let p = n.copy("worker.js");
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 8}], "wait_ms": START}));
    assert!(r.text.starts_with("s2 stopped (breakpoint) at worker.js:8"), "{}", r.text);
    assert_eq!(r.s["session"], json!("s1"), "{}", r.s);
    assert_eq!(r.s["state"], json!("running"), "the main thread runs on: {}", r.text);
    assert_eq!(r.s["child_stops"][0]["session"], json!("s2"), "{}", r.s);
    assert_eq!(r.s["child_stops"][0]["stop"]["location"]["line"], json!(8), "{}", r.s);
    assert_eq!(r.s["child_stops"][0]["stop"]["location"]["path"], json!(p), "{}", r.s);

    let list = n.a.ok("sessions", json!({}));
    assert_eq!(n.session_ids(), ["s1", "s2"], "the program and its worker, nothing else: {}", list.text);
    let (main, worker) = (entry(&list.s, "s1"), entry(&list.s, "s2"));
    assert_eq!(worker["parent"], json!("s1"), "{}", list.text);
    assert_eq!((worker["state"].clone(), main["state"].clone()), (json!("stopped"), json!("running")), "{}", list.text);
    assert_eq!(worker["adapter"], json!("node"), "{}", list.text);
    assert!(list.text.contains("\n  s2 stopped"), "children are listed under their parent:\n{}", list.text);

    // Without `session` the stopped child is the default, as for debugpy's children.
    let c = n.a.ok("context", json!({}));
    assert_eq!(c.s["session"], json!("s2"), "{}", c.s);
    assert!(c.text.contains("doubled = 42"), "{}", c.text);
    let e = n.a.ok("evaluate", json!({"session": "s2", "expression": "workerData + 1"}));
    assert_eq!(e.s["value"], json!("21"), "{}", e.text);

    n.a.ok("continue", json!({"session": "s2", "wait_ms": START}));
    let r = n.a.ok("wait", json!({"session": "s1", "for": "exit", "wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    let out = n.a.ok("output", json!({"session": "s1"}));
    assert_eq!(lines_of(&out, "stdout"), ["main got 42", "worker done"], "{}", out.text);
    n.finish();
}
