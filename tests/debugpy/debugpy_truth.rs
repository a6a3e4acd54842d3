//! What debugpy sessions say is what happened, through the built binary and debugpy: a change
//! made at a stop by anything but `set_variable` — an `evaluate` that mutates, an assignment
//! sent with `dap_request` — is seen by the next `variables` call, never a page cached before it.
//! Fails when debugpy is missing (`scripts/install-test-deps`).

use crate::agent;

use agent::{scratch, var_value, Agent};
use serde_json::{json, Value};

const PROGRAM: &str = "items = [1, 2]\na = 3\nprint(items, a)\n";

fn program() -> String {
    let dir = scratch("debugpy-truth");
    let p = dir.join("change.py");
    std::fs::write(&p, PROGRAM).expect("write program");
    p.to_string_lossy().into_owned()
}

/// Items of a `variables` page that are list elements (debugpy adds `len()`).
fn elements(vars: &Value) -> Vec<String> {
    let list = vars.as_array().cloned().unwrap_or_default();
    let names = list.iter().filter_map(|v| v["name"].as_str());
    names.filter(|n| n.bytes().all(|b| b.is_ascii_digit())).map(str::to_owned).collect()
}

#[test]
fn changes_made_by_evaluate_or_dap_request_show_in_the_next_variables_call() {
    let mut a = Agent::start();
    let p = program();
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 3}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(3), "{}", r.text);
    let thread = r.s["stop"]["thread"].clone();
    let c = a.ok("context", json!({}));
    let locals = c.s["locals"]["ref"].clone();
    let items = agent::var_ref(&c.s["locals"]["variables"], "items");
    // Both pages fetched (and cached) at this stop.
    assert_eq!(elements(&a.ok("variables", json!({"ref": items})).s["variables"]), ["0", "1"]);
    assert_eq!(var_value(&a.ok("variables", json!({"ref": locals})).s["variables"], "a"), "3");

    a.ok("evaluate", json!({"expression": "items.append(3)"}));
    let v = a.ok("variables", json!({"ref": items}));
    assert_eq!(elements(&v.s["variables"]), ["0", "1", "2"], "{}", v.text);

    // Cached again, then changed behind agentdap's back.
    assert_eq!(var_value(&a.ok("variables", json!({"ref": locals})).s["variables"], "a"), "3");
    // The adapter's own ids, as `dap_request` speaks them.
    let st = a.ok("dap_request", json!({"command": "stackTrace", "arguments": {"threadId": thread, "levels": 1}}));
    let frame = st.s["body"]["stackFrames"][0]["id"].clone();
    let args = json!({"expression": "a = 40", "frameId": frame, "context": "repl"});
    a.ok("dap_request", json!({"command": "evaluate", "arguments": args}));
    let v = a.ok("variables", json!({"ref": locals}));
    assert_eq!(var_value(&v.s["variables"], "a"), "40", "{}", v.text);

    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["[1, 2, 3] 40"], "{}", out.text);
}

#[test]
fn a_python_dash_c_child_session_is_listed_by_the_code_it_runs() {
    let dir = scratch("debugpy-truth-child");
    let p = dir.join("spawns.py");
    let code = "import sys; sys.stdout.write('child ran\\n')";
    std::fs::write(&p, format!("import subprocess, sys\nsubprocess.run([sys.executable, '-c', {code:?}])\n"))
        .expect("write program");
    let p = p.to_string_lossy().into_owned();
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"program": p, "stop_on_entry": false, "wait_ms": 30000}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    let s = a.ok("sessions", json!({}));
    let child = s.s["sessions"].as_array().and_then(|l| l.iter().find(|e| e["session"] == json!("s2")).cloned());
    let child = child.unwrap_or_else(|| panic!("no child session: {}", s.text));
    let shown = child["program"].as_str().unwrap_or_default();
    // The interpreter, `-c` and the code's first 40 characters, escaped as every name an adapter
    // or debuggee controls is (a backslash doubled, so no `\u` escape is ambiguous).
    let first: String = code.chars().take(40).collect::<String>().replace('\\', "\\\\");
    assert_eq!(shown, format!("python -c {first}…"), "listed by its code, not the parent's program: {}", s.text);
    assert!(!s.text.contains("access_token") && !s.text.contains("pydevd"), "{}", s.text);
}

/// breaker3: `run_to` a line holding the agent's conditional breakpoint sends the file with that
/// line unconditional (the temporary breakpoint in its place); the stop it reaches is credited
/// to the agent's breakpoint, so `breakpoints` says `if i == 3` was hit when `i` was 1 and
/// the condition false: a breakpoint hit that did not happen.
#[test]
fn run_to_a_line_with_a_conditional_breakpoint_does_not_credit_the_breakpoint() {
    let dir = scratch("debugpy-run-to-cond");
    let p = dir.join("turns.py");
    std::fs::write(&p, "total = 0\nfor i in range(5):\n    total += i\n    total *= 1\nprint(total)\n")
        .expect("write program");
    let p = p.to_string_lossy().into_owned();
    let mut a = Agent::start();
    let bps = json!([{"path": p, "line": 4}, {"path": p, "line": 3, "condition": "i == 3"}]);
    let r = a.ok("launch", json!({"program": p, "breakpoints": bps}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(4), "{}", r.text);
    let r = a.ok("run_to", json!({"path": p, "line": 3}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(3), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "i"})).s["value"], json!("1"));
    let b = a.ok("breakpoints", json!({}));
    let listed = b.s["files"][0]["breakpoints"].as_array().cloned().unwrap_or_default();
    let conditional = listed.iter().find(|bp| bp["line"] == json!(3)).cloned().unwrap_or_default();
    assert_eq!(conditional["hits"], json!(0), "`if i == 3` was not hit at i == 1: {}", b.text);
    a.ok("disconnect", json!({}));
}
