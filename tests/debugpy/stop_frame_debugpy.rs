//! What a stop result shows of its frame on real debugpy (issue 19): the current line and the top
//! frame's locals at a stop in a new frame, only what changed at a stop in the same frame, a big
//! list summarized by its size, and `locals: false` / `--stop-locals off` for the location alone.

use crate::agent;

use agent::{fixture, Agent};
use serde_json::{json, Value};

/// The `name`s of a stop's `locals.variables`.
/// The names of a stop's locals (debugpy lists them sorted by name).
fn names(r: &agent::Res) -> Vec<String> {
    agent::var_names(&r.s["locals"]["variables"])
}

fn value_of(r: &agent::Res, name: &str) -> Value {
    agent::var_value(&r.s["locals"]["variables"], name).into()
}

#[test]
fn a_step_that_changes_one_local_reports_exactly_that_and_a_step_into_a_call_shows_its_locals() {
    let mut a = Agent::start();
    let program = fixture("py/stop_frame.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 12}]}));
    // A new frame: the line, and every local with its value.
    assert!(r.text.contains("\n→   12      count = count + 1\n"), "{}", r.text);
    assert_eq!(r.s["source_line"], json!({"line": 12, "text": "    count = count + 1"}), "{}", r.s);
    assert_eq!(names(&r), ["big", "count", "label"], "{}", r.s);
    assert_eq!((value_of(&r, "count"), value_of(&r, "label")), (json!("1"), json!("'start'")), "{}", r.s);
    assert!(r.s.get("changes").is_none(), "{}", r.s);
    // A list of 100000 items is never expanded: debugpy gives no count, so its repr's start.
    let big = value_of(&r, "big").as_str().unwrap_or_default().to_owned();
    assert!(big.starts_with("[0, 1, 2") && big.ends_with('…') && big.chars().count() <= 61, "{}", r.s);
    assert!(r.text.len() < 1200, "a stop stays small: {} bytes\n{}", r.text.len(), r.text);

    // The same frame: only what changed, with both values.
    let r = a.ok("step", json!({}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(13), "{}", r.text);
    let c = &r.s["changes"];
    assert_eq!(c["changed"], json!([{"name": "count", "before": "1", "now": "2"}]), "{}", r.s);
    assert_eq!((c["new"].clone(), c["gone"].clone()), (json!([]), json!([])), "{}", r.s);
    assert!(r.text.contains(": count: 1 → 2"), "{}", r.text);
    assert!(!r.text.contains("label"), "an unchanged local is not repeated: {}", r.text);
    assert!(r.s.get("locals").is_none(), "{}", r.s);

    // Into a call: a new frame, its own locals.
    let r = a.ok("step", json!({"kind": "in"}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("scale"), "{}", r.text);
    assert_eq!(names(&r), ["factor", "values"], "{}", r.s);
    assert_eq!((value_of(&r, "values"), value_of(&r, "factor")), (json!("[1, 2]"), json!("2")), "{}", r.s);
    assert!(r.text.contains("\n  factor = 2 (int)"), "{}", r.text);

    // `locals: false`: the location alone, and that stop is no baseline.
    let r = a.ok("step", json!({"locals": false}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(4), "{}", r.text);
    assert!(r.s.get("locals").is_none() && r.s.get("changes").is_none(), "{}", r.s);
    assert!(r.text.contains("→    4      total = sum(out)"), "{}", r.text);
    let r = a.ok("step", json!({}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    assert!(r.text.contains(" since rev "), "the baseline is older than the previous stop: {}", r.text);
    let new: Vec<Value> = r.s["changes"]["new"].as_array().cloned().unwrap_or_default();
    let new: Vec<&str> = new.iter().filter_map(|v| v["name"].as_str()).collect();
    assert_eq!(new, ["out", "total"], "{}", r.s);
    assert_eq!(r.s["changes"]["changed"], json!([]), "{}", r.s);
    a.ok("disconnect", json!({}));
}

#[test]
fn with_stop_locals_off_a_stop_shows_the_location_and_a_call_can_still_ask() {
    let mut a = Agent::start_with(|c| {
        c.args(["--stop-locals", "off"]);
    });
    let program = fixture("py/stop_frame.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 12}]}));
    assert!(r.s.get("locals").is_none(), "{}", r.s);
    assert!(r.text.contains("→   12"), "the line is still shown: {}", r.text);
    let log = a.dap_log("s1");
    assert!(!agent::sent_commands(&log).contains(&"scopes".to_owned()), "nothing asked for the locals");
    let r = a.ok("step", json!({"locals": true}));
    assert_eq!(names(&r), ["big", "count", "label"], "a first read is a new frame's: {}", r.s);
    let r = a.call("step", json!({"locals": "yes"}));
    assert!(r.is_error && r.text.contains("locals must be true or false"), "{}", r.text);
    a.ok("disconnect", json!({}));
}

/// debugpy's `totalFrames` is the stack's depth: each call of a recursion is a new frame, and a
/// step over within one call compares with that call.
#[test]
fn recursion_is_a_new_frame_at_every_depth() {
    let dir = agent::scratch("stop-frame-rec");
    let program = dir.join("rec.py");
    let source =
        "def fact(n):\n    r = 1\n    if n > 1:\n        r = n * fact(n - 1)\n    return r\n\n\nprint(fact(4))\n";
    std::fs::write(&program, source).expect("write rec.py");
    let program = program.to_string_lossy().into_owned();
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 2}]}));
    assert_eq!(value_of(&r, "n"), json!("4"), "{}", r.s);
    let r = a.ok("continue", json!({}));
    assert!(r.s.get("changes").is_none(), "another call is another frame: {}", r.text);
    assert_eq!(value_of(&r, "n"), json!("3"), "{}", r.s);
    let r = a.ok("step", json!({}));
    assert_eq!(r.s["changes"]["new"][0]["name"], json!("r"), "the same call: {}", r.s);
    a.ok("disconnect", json!({}));
}

/// Sibling calls (`fib(n - 1)`, then `fib(n - 2)` from one frame) are at the same depth; their
/// call lines differ, so the second is a new frame, never "n: 1 → 0" (a fresh user's finding).
#[test]
fn a_recursions_sibling_call_is_a_new_frame_not_a_change() {
    let dir = agent::scratch("stop-frame-fib");
    let program = dir.join("fib.py");
    let source = "def fib(n):\n    if n < 2:\n        return n\n    a = fib(n - 1)\n    b = fib(n - 2)\n    return a + b\n\n\nprint(fib(3))\n";
    std::fs::write(&program, source).expect("write fib.py");
    let program = program.to_string_lossy().into_owned();
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 2}]}));
    assert_eq!(value_of(&r, "n"), json!("3"), "{}", r.s);
    // fib(2), fib(1) from line 4 of fib(2), fib(0) from its line 5, fib(1) from line 5 of fib(3).
    for n in ["2", "1", "0", "1"] {
        let r = a.ok("continue", json!({}));
        assert!(r.s.get("changes").is_none(), "another call is another frame: {}", r.text);
        assert_eq!(value_of(&r, "n"), json!(n), "{}", r.s);
    }
    a.ok("disconnect", json!({}));
}

/// A call that returned is never the baseline of the next call of its function: stepped into
/// `helper(0)`, out to `main`, round the loop and into `helper(1)`, the second call shows its
/// locals as new — not `k: 0 → 1 · gone: t` from the first (a fresh user's finding).
#[test]
fn the_second_call_of_a_function_after_the_first_returned_shows_its_locals_as_new() {
    let mut a = Agent::start();
    let program = fixture("py/second_call.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 9}]}));
    assert_eq!(value_of(&r, "k"), json!("0"), "{}", r.s);
    let r = a.ok("step", json!({"kind": "in"}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("helper"), "{}", r.text);
    let r = a.ok("step", json!({}));
    assert_eq!(r.s["changes"]["new"][0]["name"], json!("t"), "the same call: {}", r.s);
    let r = a.ok("step", json!({"kind": "out"}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main"), "{}", r.text);
    // Round the loop to line 9 again, then into the second call.
    let mut r = a.ok("step", json!({}));
    while r.s["stop"]["location"]["line"] != json!(9) {
        r = a.ok("step", json!({}));
    }
    assert_eq!(r.s["changes"]["changed"][0]["name"], json!("k"), "main's own call compares: {}", r.s);
    let r = a.ok("step", json!({"kind": "in"}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("helper"), "{}", r.text);
    assert!(r.s.get("changes").is_none(), "a new call, not changes from the first: {}", r.text);
    assert_eq!(value_of(&r, "k"), json!("1"), "{}", r.s);
    a.ok("disconnect", json!({}));
}
