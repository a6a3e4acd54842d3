//! Breakpoints' life on real debugpy (issue 19): a loop breakpoint's hit count and last hit in
//! `breakpoints`, the ones never hit named when the program exits, and what debugpy does with a
//! condition that raises.

use crate::agent;

use agent::{fixture, Agent};
use serde_json::{json, Value};

/// The listing's entry for `line` of the only file.
fn listed(b: &agent::Res, line: u64) -> Value {
    let set = b.s["files"][0]["breakpoints"].as_array().cloned().unwrap_or_default();
    set.into_iter().find(|e| e["line"] == json!(line)).unwrap_or(Value::Null)
}

#[test]
fn a_loop_breakpoint_hit_three_times_counts_three_and_the_one_never_hit_is_named_at_the_exit() {
    let mut a = Agent::start();
    let program = fixture("py/loop.py");
    // Line 14 runs once per pass of the loop (three); line 18 once; line 15 only if i > 5: never.
    let bps = json!([{"path": program, "line": 14}, {"path": program, "line": 18},
        {"path": program, "line": 15, "condition": "i > 5"}]);
    let r = a.ok("launch", json!({"program": program, "breakpoints": bps}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(14), "{}", r.text);
    // debugpy's `uncaught` filter (on by default) would stop sys.exit(3).
    a.ok("set_exception_breakpoints", json!({"filters": []}));
    let mut last = r;
    for _ in 0..2 {
        last = a.ok("continue", json!({}));
        assert_eq!(last.s["stop"]["location"]["line"], json!(14), "{}", last.text);
    }
    let revision = last.s["revision"].clone();
    let thread = last.s["stop"]["thread"].clone();
    let b = a.ok("breakpoints", json!({}));
    let e = listed(&b, 14);
    assert_eq!(e["hits"], json!(3), "{}", b.s);
    assert_eq!(e["last_hit"], json!({"revision": revision, "thread": thread}), "{}", b.s);
    assert!(b.text.contains(&format!(":14 verified · hit 3× (last rev {revision}, thread {thread})")), "{}", b.text);
    assert_eq!(listed(&b, 18)["hits"], json!(0), "{}", b.s);
    assert!(b.text.contains(":18 verified · never hit"), "{}", b.text);

    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(18), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    assert!(r.text.contains("\nnever hit: loop.py:15"), "{}", r.text);
    assert_eq!(r.s["never_hit_breakpoints"], json!(["loop.py:15"]), "{}", r.s);
    assert!(!r.text.contains("never verified"), "{}", r.text);
}

#[test]
fn a_condition_that_raises_is_said_on_its_breakpoint_and_at_the_exit() {
    let mut a = Agent::start();
    let program = fixture("py/loop.py");
    // debugpy 1.8.x says so in console output each of the three passes and does not stop.
    let bps = json!([{"path": program, "line": 14, "condition": "1/0 == 1"}, {"path": program, "line": 18}]);
    let r = a.ok("launch", json!({"program": program, "breakpoints": bps}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(18), "{}", r.text);
    a.ok("set_exception_breakpoints", json!({"filters": []}));
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    assert!(r.text.contains("\nnever hit: loop.py:14 (its condition failed to evaluate)"), "{}", r.text);
    let b = a.ok("breakpoints", json!({}));
    assert_eq!(listed(&b, 14)["condition_errors"], json!(3), "{}", b.s);
    assert!(
        b.text.contains(":14 · if 1/0 == 1 verified · never hit · its condition failed to evaluate 3×"),
        "{}",
        b.text
    );
    assert_eq!((listed(&b, 18)["hits"].clone(), listed(&b, 18).get("condition_errors")), (json!(1), None));
}
