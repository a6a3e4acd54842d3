//! Breakpoints' life on real lldb-dap (issue 19): a loop breakpoint's hit count and last hit in
//! `breakpoints`, the ones never hit named when the program exits, and what lldb-dap does with a
//! condition that fails to evaluate.

use crate::agent::{require, scratch, Agent};
use crate::native_util::gcc;
use serde_json::{json, Value};

/// Line 5 runs three times, line 9 once, line 7 only when i > 5: never.
const LOOP_C: &str = "#include <stdio.h>\n\
int main(void) {\n\
    int total = 0;\n\
    for (int i = 0; i < 3; i++) {\n\
        total += i;\n\
        if (i > 5)\n\
            total = -1;\n\
    }\n\
    printf(\"total=%d\\n\", total);\n\
    return 0;\n\
}\n";

fn program(name: &str) -> (String, String) {
    require("lldb-dap-22", "lldb-22");
    let (c, bin) = gcc(&scratch(&format!("life-{name}")), "loop", LOOP_C);
    (c.to_string_lossy().into_owned(), bin.to_string_lossy().into_owned())
}

/// The listing's entry for `line` of the only file.
fn listed(b: &crate::agent::Res, line: u64) -> Value {
    let set = b.s["files"][0]["breakpoints"].as_array().cloned().unwrap_or_default();
    set.into_iter().find(|e| e["line"] == json!(line)).unwrap_or(Value::Null)
}

#[test]
fn a_loop_breakpoint_hit_three_times_counts_three_and_the_one_never_hit_is_named_at_the_exit() {
    let (c, bin) = program("loop");
    let mut a = Agent::start_plain(|_| {});
    let bps = json!([{"path": c, "line": 5}, {"path": c, "line": 9}, {"path": c, "line": 7}]);
    let mut last = a.ok("launch", json!({"program": bin, "breakpoints": bps, "wait_ms": 30000}));
    assert_eq!(last.s["stop"]["location"]["line"], json!(5), "{}", last.text);
    for _ in 0..2 {
        last = a.ok("continue", json!({"wait_ms": 30000}));
        assert_eq!(last.s["stop"]["location"]["line"], json!(5), "{}", last.text);
    }
    let (revision, thread) = (last.s["revision"].clone(), last.s["stop"]["thread"].clone());
    let b = a.ok("breakpoints", json!({}));
    assert_eq!(listed(&b, 5)["hits"], json!(3), "{}", b.s);
    assert_eq!(listed(&b, 5)["last_hit"], json!({"revision": revision, "thread": thread}), "{}", b.s);
    assert!(
        b.text.contains(&format!("loop.c:5 verified · hit 3× (last rev {revision}, thread {thread})")),
        "{}",
        b.text
    );
    assert!(b.text.contains("loop.c:9 verified · never hit"), "{}", b.text);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(9), "{}", r.text);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    assert!(r.text.contains("\nnever hit: loop.c:7"), "{}", r.text);
    assert_eq!(r.s["never_hit_breakpoints"], json!(["loop.c:7"]), "{}", r.s);
}

#[test]
fn a_condition_lldb_cannot_evaluate_is_said_at_the_stop_it_makes_there() {
    let (c, bin) = program("cond");
    let mut a = Agent::start_plain(|_| {});
    // lldb-dap 22.1.8 stops at a breakpoint whose condition fails to evaluate, then says so.
    let bps = json!([{"path": c, "line": 5, "condition": "nosuch > 0"}]);
    let r = a.ok("launch", json!({"program": bin, "breakpoints": bps, "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    assert!(r.text.contains("\ncondition failed to evaluate at this stop: loop.c:5 `nosuch > 0`"), "{}", r.text);
    assert_eq!(r.s["condition_failed"], json!(true), "{}", r.s);
    let b = a.ok("breakpoints", json!({}));
    assert_eq!(
        (listed(&b, 5)["hits"].clone(), listed(&b, 5)["condition_errors"].clone()),
        (json!(1), json!(1)),
        "{}",
        b.s
    );
    assert!(b.text.contains("· hit 1× (last rev 1, thread "), "{}", b.text);
    assert!(b.text.contains("· its condition failed to evaluate 1×"), "{}", b.text);
}
