//! `launch {test}` for a `node:test` file on real js-debug and Node (README § Recipes › A test
//! fails): a failing `assert.strictEqual` stops at the test's line (js-debug's `all` filter, with
//! Node's `internal/` modules skipped), with the assertion's message; `continue` ends the run as
//! failed; a passing test says so; a name that matches no test says that.

use crate::node_util::{Node, START};
use serde_json::json;

/// The fixture copied into the test's project; its absolute path.
fn test_file(n: &Node) -> String {
    let to = n.dir.join("cart.test.js");
    std::fs::copy(crate::agent::fixture("tests_js/cart.test.js"), &to).expect("copy the fixture");
    to.to_string_lossy().into_owned()
}

#[test]
fn a_failing_node_test_stops_at_its_assertion_with_the_message() {
    let mut n = Node::start("testrun");
    let p = test_file(&n);
    let r = n.a.ok("launch", json!({"test": "total fails", "program": p, "cwd": n.dir, "wait_ms": START}));
    assert_eq!(r.s["state"], "stopped", "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["path"], json!(p), "the test's frame: {}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], 14, "{}", r.text);
    let t = &r.s["test"];
    assert_eq!((t["runner"].as_str(), t["outcome"].as_str()), (Some("node:test"), Some("thrown")), "{}", r.s);
    assert!(t["message"].as_str().is_some_and(|m| m.contains("6 !== 7")), "{}", r.s);
    assert!(t["stopped_in"].as_str().is_some_and(|s| s.contains("innerFail")), "{}", r.s);
    let v = n.a.ok("evaluate", json!({"expression": "items.length"}));
    assert!(v.text.contains('3'), "{}", v.text);
    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!((r.s["state"].as_str(), r.s["exit_code"].as_i64()), (Some("exited"), Some(1)), "{}", r.text);
    assert_eq!(r.s["test"]["outcome"], "failed", "{}", r.text);
    assert!(r.text.contains("not ok 2 - total fails"), "{}", r.text);
    n.finish();
}

#[test]
fn a_passing_or_unknown_node_test_says_so() {
    let mut n = Node::start("testpass");
    let p = test_file(&n);
    let r = n.a.ok("launch", json!({"test": "total passes", "program": p, "cwd": n.dir, "wait_ms": START}));
    assert_eq!(r.s["test"]["outcome"], "passed", "{}", r.text);
    assert!(r.text.contains("test total passes passed, never stopped"), "{}", r.text);
    let r = n.a.ok("launch", json!({"test": "total nope", "program": p, "cwd": n.dir, "wait_ms": START}));
    assert_eq!(r.s["test"]["outcome"], "no_match", "{}", r.text);
    assert!(r.text.contains("no test matched total nope"), "{}", r.text);
    n.finish();
}
