//! A JavaScript program on real js-debug through the built binary: `closure.js` stops inside a
//! closure in the child session that js-debug starts (one session `s1` to the agent), `context`
//! shows its locals and the closure's variable, `evaluate` and `set_variable` (read back, and the
//! program computes with the new value), steps in, over and out, `run_to` (stopped elsewhere
//! first, then reached), the output exact per stream and the exit code of `process.exitCode`.

use crate::agent;

use agent::{lines_of, var_value};
use serde_json::json;

use crate::node_util::{stop_at, Node, START};

/// `closure.js`: `bump(step)` (lines 5–9) closes over `makeCounter`'s `count`; line 7 is
/// `count = before + step`. `square(x)` is lines 12–15, `sumSquares(n)` 17–24 (line 20
/// `const sq = square(i)`, 21 `total += sq`, 23 `return total`). It prints on stdout
/// `bumped 11 13`, `raw stdout` (two `process.stdout.write`s), `result=14`; on stderr `to stderr`
/// (console.error) and `raw stderr` (process.stderr.write); `process.exitCode = 3`.
const PROGRAM: &str = "closure.js";

#[test]
fn a_closure_stops_in_one_session_with_its_locals_and_closure_then_set_variable_output_and_exit_code() {
    let mut n = Node::start("closure");
    let p = n.copy(PROGRAM);
    // No `adapter`: a `.js` program goes to js-debug.
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 7}], "wait_ms": START}));
    assert_eq!((r.s["session"].clone(), r.s["state"].clone()), (json!("s1"), json!("stopped")), "{}", r.text);
    assert_eq!(r.s["adapter"], json!("node"), "{}", r.s);
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    assert_eq!(stop_at(&r.s), (json!(p), json!(7), json!("bump")), "{}", r.text);
    assert!(r.text.starts_with("s1 stopped (breakpoint) at closure.js:7 in bump()"), "{}", r.text);

    // One session: js-debug's parent connection is not listed, and s1 is the program.
    assert_eq!(n.session_ids(), ["s1"], "{}", n.a.ok("sessions", json!({})).text);
    let entry = n.a.session("s1");
    assert_eq!((entry["request"].clone(), entry["adapter"].clone()), (json!("launch"), json!("node")), "{entry}");
    let b = n.a.ok("breakpoints", json!({}));
    let bp = &b.s["files"][0]["breakpoints"][0];
    assert_eq!((bp["line"].clone(), bp["verified"].clone()), (json!(7), json!(true)), "{}", b.text);

    // Locals of `bump`, and `count` from the closure over makeCounter's frame.
    let c = n.a.ok("context", json!({}));
    assert_eq!(c.s["session"], json!("s1"), "{}", c.s);
    let locals = &c.s["locals"]["variables"];
    assert_eq!((var_value(locals, "step"), var_value(locals, "before")), ("1".into(), "10".into()), "{}", c.text);
    assert!(c.text.contains("count = 10"), "the closure's variable is shown: {}", c.text);
    assert!(c.text.contains("→    7      count = before + step;"), "{}", c.text);

    let e = n.a.ok("evaluate", json!({"expression": "before + step * 100"}));
    assert_eq!(e.s["value"], json!("110"), "{}", e.text);
    let e = n.a.ok("evaluate", json!({"expression": "count"}));
    assert_eq!(e.s["value"], json!("10"), "evaluate sees the closure: {}", e.text);

    let s = n.a.ok("set_variable", json!({"ref": c.s["locals"]["ref"], "name": "step", "value": "2 + 3"}));
    assert_eq!(
        (s.s["value"].clone(), s.s["old_value"].clone(), s.s["changed"].clone()),
        (json!("5"), json!("1"), json!(true)),
        "{}",
        s.text
    );
    assert!(s.text.starts_with("step = 5 (was 1)"), "{}", s.text);
    assert_eq!(n.a.ok("evaluate", json!({"expression": "step"})).s["value"], json!("5"), "read back");

    // The second call: the program computed with step = 5 (count 10 + 5).
    let r = n.a.ok("continue", json!({}));
    assert_eq!(stop_at(&r.s).1, json!(7), "{}", r.text);
    assert_eq!(n.a.ok("evaluate", json!({"expression": "before"})).s["value"], json!("15"));
    let cleared = n.a.ok("set_breakpoints", json!({"path": p, "breakpoints": []}));
    assert_eq!(cleared.s["breakpoints"], json!([]), "{}", cleared.text);

    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(3)), "{}", r.text);
    assert!(r.text.starts_with("s1 exited with code 3"), "{}", r.text);
    let out = n.a.ok("output", json!({}));
    assert_eq!(lines_of(&out, "stdout"), ["bumped 15 17", "raw stdout", "result=14"], "{}", out.text);
    // Exact: node's own notices while a debugger is attached (`Debugger attached.`, `Waiting for
    // the debugger to disconnect...`) are not the program's output.
    assert_eq!(lines_of(&out, "stderr"), ["to stderr", "raw stderr"], "{}", out.text);
    n.finish();
}

#[test]
fn step_in_over_out_then_run_to_stopped_elsewhere_and_reached() {
    let mut n = Node::start("steps");
    let p = n.copy(PROGRAM);
    let bp = json!([{"path": p, "line": 20}]);
    let r = n.a.ok("launch", json!({"program": p, "adapter": "node", "breakpoints": bp, "wait_ms": START}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(20), json!("sumSquares")), "{}", r.text);

    let r = n.a.ok("step", json!({"kind": "in"}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(13), json!("square")), "step in: {}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("step"), "{}", r.text);
    let r = n.a.ok("step", json!({}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(14), json!("square")), "step over: {}", r.text);
    assert_eq!(n.a.ok("evaluate", json!({"expression": "sq"})).s["value"], json!("1"));
    let r = n.a.ok("step", json!({"kind": "out"}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(21), json!("sumSquares")), "step out: {}", r.text);
    let r = n.a.ok("step", json!({"kind": "over"}));
    assert_eq!(stop_at(&r.s).1, json!(19), "over `total += sq` to the loop's `i++`: {}", r.text);

    // The agent's breakpoint at 20 comes first (i = 2), which the result says.
    let r = n.a.ok("run_to", json!({"path": p, "line": 23}));
    assert_eq!((stop_at(&r.s).1, r.s["run_to"]["reached"].clone()), (json!(20), json!(false)), "{}", r.text);
    assert!(r.text.contains("stopped before reaching closure.js:23"), "{}", r.text);
    assert_eq!(n.a.ok("evaluate", json!({"expression": "i"})).s["value"], json!("2"));
    n.a.ok("set_breakpoints", json!({"path": p, "breakpoints": []}));
    let r = n.a.ok("run_to", json!({"path": p, "line": 23}));
    assert_eq!((stop_at(&r.s).1, r.s["run_to"]["reached"].clone()), (json!(23), json!(true)), "{}", r.text);
    assert_eq!(n.a.ok("evaluate", json!({"expression": "total"})).s["value"], json!("14"));
    let b = n.a.ok("breakpoints", json!({}));
    assert!(!b.text.contains("line 23"), "run_to's breakpoint is out again: {}", b.text);

    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(3)), "{}", r.text);
    n.finish();
}

/// breaker3: a program's `\r\n` on a pipe (js-debug's debuggee runs on pipes agentdap holds) is
/// shown as `\n`: the output ring normalises CRLF for a PTY's sake, whatever the output came
/// through, so `output` says the program printed `HTTP/1.1 200 OK\nX: y\n\n`. README: "the
/// entries of a category concatenate into exactly what the program printed".
#[test]
fn a_programs_crlf_on_a_pipe_is_output_exactly() {
    let mut n = ran_to_exit("crlf", "process.stdout.write(\"HTTP/1.1 200 OK\\r\\nX: y\\r\\n\\r\\n\");\n");
    let out = n.a.ok("output", json!({"category": "stdout"}));
    let entries = out.s["entries"].as_array().cloned().unwrap_or_default();
    let stdout: String = entries.iter().filter_map(|e| e["text"].as_str()).collect();
    assert_eq!(stdout, "HTTP/1.1 200 OK\r\nX: y\r\n\r\n", "{}", out.text);
    n.finish();
}

/// breaker3 and breaker2: Node's inspector notices are cut out of the program's stderr by their
/// text, and one that ended a line after other text was taken for a notice glued to an
/// unfinished line: the program's own `console.error("Status: Debugger attached.")` (or `…
/// Waiting for the debugger to disconnect...`, an exit notice) then `console.error("last")`
/// read back as one stderr line `Status: last`, which the program never printed.
#[test]
fn a_programs_line_ending_like_a_node_notice_is_not_glued_to_the_next() {
    for notice in ["Debugger attached.", "Waiting for the debugger to disconnect..."] {
        let source = format!("console.error(\"Status: {notice}\");\nconsole.error(\"last\");\n");
        let mut n = ran_to_exit("notice", &source);
        let out = n.a.ok("output", json!({}));
        let stderr = lines_of(&out, "stderr");
        assert!(!stderr.iter().any(|l| l == "Status: last"), "a line the program never printed: {}", out.text);
        assert!(stderr.iter().any(|l| l == "last"), "{}", out.text);
        n.finish();
    }
}

/// `source` as a script in a new scratch directory named `name`, launched without stopping and
/// run to its exit.
fn ran_to_exit(name: &str, source: &str) -> Node {
    let mut n = Node::start(name);
    let p = n.dir.join("app.js");
    std::fs::write(&p, source).expect("write js");
    let p = p.to_string_lossy().into_owned();
    let r = n.a.ok("launch", json!({"program": p, "stop_on_entry": false, "wait_ms": START}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    n
}
