//! What a stop result shows of its frame on real Delve 1.20.2 (Go 1.19) when a `next` ends in a
//! new call rather than in the call it left or a caller: Delve's `next` over `panic(…)` stops in
//! the function's deferred call. Fails when Delve is missing.

use crate::agent;
use crate::common::go_env;
use crate::native_util::{assert_reads_ahead, dap_traffic, go_package};

use agent::{require, scratch, var_names, Agent};
use serde_json::json;

/// `main` defers `d` and panics; `d` (c = 0) calls `p`, which defers `d` and panics again. A
/// `next` over `p`'s `panic` stops in the new `d` (Delve's deferred-call breakpoint), called from
/// `runtime.gopanic` like the first `d`, which is two frames down: `d gopanic p d gopanic main`.
const PANIC_GO: &str = r#"package main

import "fmt"

var count int

func d() {
	c := count
	count++
	if c == 0 {
		p()
	}
	fmt.Println("d", c, recover())
}

func p() {
	x := 5
	defer d()
	fmt.Println(x)
	panic("inner")
}

func main() {
	defer d()
	panic("outer")
}
"#;

/// The new call of `d` is a new frame, as the 20-frame page says (locals: none yet), never
/// compared with the first `d`'s stop as a return into it (`since rev 1: gone: c`).
#[test]
fn a_next_over_panic_into_a_deferred_call_is_a_new_frame_not_a_return_to_an_older_call() {
    require("dlv", "delve golang-go");
    let src = go_package(&scratch("stop-frame-panic-go"), "panics", PANIC_GO).to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let bps = json!([{"path": src, "line": 9, "condition": "count == 0"}, {"path": src, "line": 17}]);
    let r = a.ok("launch", json!({"program": src, "breakpoints": bps, "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.d"), "{}", r.text);
    assert_eq!(var_names(&r.s["locals"]["variables"]), ["c"], "{}", r.s);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.p"), "{}", r.text);
    let mut r = a.ok("step", json!({"wait_ms": 30000}));
    while r.s["stop"]["location"]["function"] == json!("main.p") {
        r = a.ok("step", json!({"wait_ms": 30000}));
    }
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.d"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(7), "the deferred call's entry: {}", r.text);
    assert!(r.s.get("changes").is_none(), "a new call of d, not the first d again: {}", r.text);
    a.ok("disconnect", json!({}));
}

const LOOP_GO: &str = r#"package main

import "fmt"

func work(i int, acc int) int {
	total := acc + i*i
	return total
}

func main() {
	acc := 0
	for i := 0; i < 5; i++ {
		acc = work(i, acc)
	}
	fmt.Println(acc)
}
"#;

/// Delve handles `stackTrace`, `scopes` and `variables` one at a time in order, and at every
/// stop numbers frames and variables from 1000 again (`RuntimeQuirks::pipelined_stop_reads`):
/// a stop after the first reads its locals ahead of its stack, and shows the program's values.
#[test]
fn a_go_stop_reads_its_locals_ahead_of_its_stack_and_shows_the_programs_values() {
    require("dlv", "delve golang-go");
    let src = go_package(&scratch("stop-frame-ahead-go"), "ahead", LOOP_GO).to_string_lossy().into_owned();
    let logs = scratch("stop-frame-ahead-go-log");
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
        cmd.env("AGENTDAP_DAP_LOG", &logs);
    });
    let r = a.ok("launch", json!({"program": src, "breakpoints": [{"path": src, "line": 6}], "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.work"), "{}", r.text);
    let of_args = |r: &agent::Res| -> Vec<serde_json::Value> {
        let changed = r.s["changes"]["changed"].as_array().cloned().unwrap_or_default();
        changed.into_iter().filter(|c| c["name"] == "i" || c["name"] == "acc").collect()
    };
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(of_args(&r), [json!({"name": "i", "before": "0", "now": "1"})], "{}", r.s);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    let changed = [json!({"name": "i", "before": "1", "now": "2"}), json!({"name": "acc", "before": "0", "now": "1"})];
    assert_eq!(of_args(&r), changed, "{}", r.s);
    let v = a.ok("evaluate", json!({"expression": "i*10 + acc"}));
    assert!(v.text.contains("21"), "{}", v.text);
    a.ok("disconnect", json!({}));
    drop(a);
    assert_reads_ahead(&dap_traffic(&logs), 2);
}
