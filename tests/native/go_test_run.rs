//! `launch {test}` on real Delve (`mode: test`, README § Recipes › A test fails): a failing Go
//! test stops where `t.Errorf` marks it failed, showing the test's line, locals and the message;
//! `continue` then ends the run as failed; `t.Fatalf` stops the same way; a panic stops in the
//! test's frame, then at Delve's panic stop with its value; a passing test says so;
//! a name that matches no test says that. Fails when Delve is missing
//! (`apt-get install delve golang-go`).
//!
//! Each launch here has an agentdap of its own: a second Delve session launched right after a
//! `disconnect` in the same agentdap fails today with "cannot connect to the adapter: the adapter
//! exited (exit status: 0) before accepting a connection" (the first dlv's exit; plain
//! `mode: debug` launches show it too), which is not what these tests are about.

use crate::agent;
use crate::common;

use std::path::PathBuf;

use agent::{fixture, require, scratch, Agent};
use common::go_env;
use serde_json::json;

/// A `go test` build takes seconds (minutes with a cold cache on a loaded machine).
const BUILD_WAIT_MS: u64 = 45_000;

/// A copy of `tests/fixtures/tests_go` (the build must not touch the repository's tree).
fn package(name: &str) -> PathBuf {
    require("dlv", "delve golang-go");
    let dir = scratch(name);
    for f in ["go.mod", "cart.go", "cart_test.go"] {
        std::fs::copy(PathBuf::from(fixture("tests_go")).join(f), dir.join(f)).expect("copy the Go fixture");
    }
    dir
}

fn agent() -> Agent {
    Agent::start_plain(|cmd| {
        go_env(cmd);
    })
}

#[test]
fn a_failing_go_test_stops_at_its_errorf_line_with_the_message() {
    let dir = package("go-test-fails");
    let mut a = agent();
    let r = a.ok("launch", json!({"test": "TestTotalFails", "cwd": dir, "wait_ms": BUILD_WAIT_MS}));
    assert_eq!(r.s["state"], "stopped", "{}", r.text);
    let t = &r.s["test"];
    assert_eq!((t["runner"].as_str(), t["outcome"].as_str()), (Some("go test"), Some("failed")), "{}", r.s);
    assert_eq!(t["message"], "Total([1 2 3]) = 6, want 7", "{}", r.s);
    assert_eq!(t["stopped_in"], "testing.go:816 in testing.(*common).Fail()", "{}", r.s);
    // The test's frame: the `t.Errorf` line and the test's locals.
    assert_eq!(r.s["stop"]["location"]["line"], 15, "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["function"], "cart.TestTotalFails", "{}", r.text);
    assert!(
        r.text.contains(
            "test TestTotalFails failed at cart_test.go:15 in cart.TestTotalFails(): Total([1 2 3]) = 6, want 7"
        ),
        "{}",
        r.text
    );
    assert!(r.text.contains("  got = 6 (int)"), "{}", r.text);
    let v = a.ok("evaluate", json!({"expression": "got"}));
    assert!(v.text.starts_with("got = 6"), "{}", v.text);
    // One stop per failure: the run then ends, failed.
    let r = a.ok("continue", json!({"wait_ms": 20_000}));
    assert_eq!((r.s["state"].as_str(), r.s["exit_code"].as_i64()), (Some("exited"), Some(1)), "{}", r.text);
    assert_eq!(r.s["test"]["outcome"], "failed", "{}", r.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn fatalf_stops_too_and_a_passing_or_unknown_name_says_so() {
    let dir = package("go-test-more");
    let mut a = agent();
    let r = a.ok("launch", json!({"test": "TestTotalFatal", "cwd": dir, "wait_ms": BUILD_WAIT_MS}));
    assert_eq!(r.s["stop"]["location"]["line"], 21, "{}", r.text);
    assert_eq!(r.s["test"]["message"], "Total(nil) = 0 and fatal", "{}", r.s);
    a.ok("disconnect", json!({}));

    // One agent per launch: see the module's note on a second Delve session.
    let mut a = agent();
    let r = a.ok("launch", json!({"test": "TestTotalPasses", "cwd": dir, "wait_ms": BUILD_WAIT_MS}));
    assert_eq!(r.s["test"]["outcome"], "passed", "{}", r.text);
    assert!(r.text.contains("test TestTotalPasses passed, never stopped"), "{}", r.text);
    assert!(r.text.contains("--- PASS: TestTotalPasses"), "the output tail: {}", r.text);
    a.ok("disconnect", json!({}));

    let mut a = agent();
    let r = a.ok("launch", json!({"test": "TestNope", "cwd": dir, "wait_ms": BUILD_WAIT_MS}));
    assert_eq!(r.s["test"]["outcome"], "no_match", "{}", r.text);
    assert!(r.text.contains("no test matched TestNope (go test: no tests to run)"), "{}", r.text);
}

#[test]
fn a_panicking_go_test_stops_in_the_test_then_at_the_panic_with_its_value() {
    let dir = package("go-test-panic");
    let mut a = agent();
    // The runner marks the test failed from its deferred function first.
    let r = a.ok("launch", json!({"test": "TestTotalPanics", "cwd": dir, "wait_ms": BUILD_WAIT_MS}));
    assert_eq!(r.s["stop"]["location"]["line"], 26, "{}", r.text);
    assert_eq!(r.s["test"]["message"], "the test panicked; `continue` stops at the panic with its value", "{}", r.s);
    // Delve's own panic stop, shown in the test's frame, with the panic's value.
    let r = a.ok("continue", json!({"wait_ms": 20_000}));
    assert_eq!(
        (r.s["stop"]["reason"].as_str(), r.s["stop"]["location"]["line"].as_i64()),
        (Some("exception"), Some(26)),
        "{}",
        r.text
    );
    let message = r.s["test"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("slice bounds out of range [:3] with capacity 0"), "{}", r.s);
    assert_eq!(r.s["test"]["stopped_in"], "panic.go:1143 in runtime.fatalpanic()", "{}", r.s);
    a.ok("disconnect", json!({}));
}
