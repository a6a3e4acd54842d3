//! `run_to`, `goto`, `restart`, `set_variable` (by ref and by expression), `set_breakpoints {kind: function}` and
//! `source` on real debugpy through the built binary: the agent's breakpoints survive a `run_to`
//! (and its temporary breakpoint is gone afterwards), a stop elsewhere is said, an unbindable
//! line is refused before the program runs; values set are read back (and `evaluate` and the
//! next `variables` see them), stale refs are refused before anything is sent; `restart`
//! relaunches (debugpy has no `supportsRestartRequest`) with the same session id, breakpoints and
//! a new adapter and debuggee, the old ones gone, the mirror closed.

use crate::agent;

use agent::{assert_all_gone, fixture, is_watchdog, lines_of, sent_commands, var_value, Agent, Res, HYGIENE};
use agentdap::os::spawn::Pid;
use serde_json::{json, Value};

/// `run_to.py`: `round_(k)` runs `work(k)` (a loop) at line 9, `work(k + 1)` at 10, `c = a + b`
/// at 11, `return c` at 12; the module calls it for k = 3, then k = 10, and prints at 16.
fn program() -> String {
    fixture("py/run_to.py")
}

/// A path under `tests/fixtures/` that does not exist.
fn missing(rel: &str) -> String {
    format!("{}/tests/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn line(r: &Res) -> Value {
    r.s["stop"]["location"]["line"].clone()
}

/// The lines of the last `setBreakpoints` agentdap sent for `path`.
fn last_sent_lines(a: &mut Agent, path: &str) -> Vec<u64> {
    let log = a.dap_log("s1");
    let last = log
        .iter()
        .rev()
        .filter(|e| e["dir"] == json!("to_adapter") && e["message"]["command"] == json!("setBreakpoints"))
        .find(|e| e["message"]["arguments"]["source"]["path"] == json!(path))
        .cloned()
        .unwrap_or_else(|| panic!("no setBreakpoints for {path}"));
    let list = last["message"]["arguments"]["breakpoints"].as_array().cloned().unwrap_or_default();
    list.iter().filter_map(|b| b["line"].as_u64()).collect()
}

fn listed_lines(r: &Res) -> Vec<(Value, Value)> {
    let files = r.s["files"].as_array().cloned().unwrap_or_default();
    files
        .iter()
        .flat_map(|f| f["breakpoints"].as_array().cloned().unwrap_or_default())
        .map(|b| (b["line"].clone(), b["verified"].clone()))
        .collect()
}

#[test]
fn run_to_passes_a_loop_keeps_the_agents_breakpoints_and_says_when_it_stopped_elsewhere() {
    let mut a = Agent::start();
    let p = program();
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 9}, {"path": p, "line": 12}]}));
    assert_eq!(line(&r), json!(9), "{}", r.text);
    let ids = |b: &Res| -> Vec<Value> {
        let files = b.s["files"].as_array().cloned().unwrap_or_default();
        files
            .iter()
            .flat_map(|f| f["breakpoints"].as_array().cloned().unwrap_or_default())
            .map(|b| b["id"].clone())
            .collect()
    };
    let before = ids(&a.ok("breakpoints", json!({})));
    assert_eq!(r.s["stop"]["hit_breakpoints"], json!([before[0].clone()]), "the hit names agentdap's id: {}", r.s);

    // A line that cannot take a breakpoint is refused, and the program did not run.
    let rev = r.s["revision"].clone();
    let bad = a.call("run_to", json!({"path": missing("py/no_such_file.py"), "line": 3}));
    assert!(bad.is_error && bad.code() == "invalid_argument", "{}", bad.text);
    assert!(bad.text.contains("did not run"), "{}", bad.text);
    let same = a.ok("context", json!({}));
    assert_eq!((same.s["revision"].clone(), same.s["stop"]["location"]["line"].clone()), (rev, json!(9)));

    // Past both loops to line 11: reached, and the locals prove the loops ran.
    let r = a.ok("run_to", json!({"path": p, "line": 11}));
    assert_eq!((line(&r), r.s["run_to"]["reached"].clone()), (json!(11), json!(true)), "{}", r.text);
    assert!(!r.text.contains("before reaching"), "{}", r.text);
    let e = a.ok("evaluate", json!({"expression": "(a, b)"}));
    assert_eq!(e.s["value"], json!("(3, 6)"), "{}", e.text);
    // The temporary breakpoint is out again; the agent's own are untouched and verified.
    assert_eq!(last_sent_lines(&mut a, &p), [9, 12]);
    let b = a.ok("breakpoints", json!({}));
    assert_eq!(listed_lines(&b), [(json!(9), json!(true)), (json!(12), json!(true))], "{}", b.text);
    // debugpy renumbered its breakpoints for the run_to's requests; agentdap's ids did not move.
    assert_eq!(ids(&b), before, "{}", b.text);

    let r = a.ok("continue", json!({}));
    assert_eq!(line(&r), json!(12), "the agent's breakpoint still stops: {}", r.text);
    assert_eq!(r.s["stop"]["hit_breakpoints"], json!([before[1].clone()]), "{}", r.s);
    let r = a.ok("continue", json!({}));
    assert_eq!(line(&r), json!(9), "round k=10: {}", r.text);
    // Line 11 comes before 12 again: the old temporary breakpoint must not stop there, and the
    // agent's breakpoint at 12 comes before 16, which the result says.
    let r = a.ok("run_to", json!({"path": p, "line": 16}));
    assert_eq!((line(&r), r.s["run_to"]["reached"].clone()), (json!(12), json!(false)), "{}", r.text);
    assert!(r.text.contains("stopped before reaching run_to.py:16"), "{}", r.text);
    assert_eq!(last_sent_lines(&mut a, &p), [9, 12], "16 is out again");
    // With 16 out again, the program runs to its end.
    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    // debugpy may relay the program's last print just after `terminated` (output stays
    // readable after the end): give it a moment before comparing.
    let mut lines = Vec::new();
    for _ in 0..40 {
        lines = agent::lines_of(&a.ok("output", json!({})), "stdout");
        if lines.len() >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(lines, ["round 3 9", "round 10 100"]);
}

#[test]
fn set_variable_reads_back_and_stale_refs_are_refused_before_sending() {
    let mut a = Agent::start();
    let p = program();
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 11}]}));
    assert_eq!(line(&r), json!(11), "{}", r.text);
    let c = a.ok("context", json!({}));
    let locals = c.s["locals"]["ref"].clone();
    assert_eq!(var_value(&c.s["locals"]["variables"], "a"), "3");
    // A page fetched at this stop: the next `variables` must not serve it from the cache.
    let v = a.ok("variables", json!({"ref": locals}));
    assert_eq!(var_value(&v.s["variables"], "a"), "3");

    let s = a.ok("set_variable", json!({"ref": locals, "name": "a", "value": "40 + 60"}));
    assert_eq!(
        (s.s["value"].clone(), s.s["old_value"].clone(), s.s["changed"].clone()),
        (json!("100"), json!("3"), json!(true)),
        "{}",
        s.text
    );
    assert!(s.text.starts_with("a = 100 (was 3)"), "{}", s.text);
    let e = a.ok("evaluate", json!({"expression": "a + b"}));
    assert_eq!(e.s["value"], json!("106"), "{}", e.text);
    let v = a.ok("variables", json!({"ref": locals}));
    assert_eq!(var_value(&v.s["variables"], "a"), "100", "no stale page: {}", v.text);

    // A value that raises: debugpy keeps the old one; the result says it is unchanged.
    let raised = a.call("set_variable", json!({"ref": locals, "name": "a", "value": "1/0"}));
    assert_eq!(raised.s["changed"], json!(false), "{}", raised.text);
    assert!(raised.text.starts_with("a is unchanged: 100 (asked for 1/0"), "{}", raised.text);

    let missing = a.call("set_variable", json!({"ref": locals, "name": "nope", "value": "1"}));
    assert!(missing.is_error && missing.code() == "invalid_argument", "{}", missing.text);
    assert!(missing.text.contains("`nope`") && missing.text.contains("a, "), "names the children: {}", missing.text);

    // set_variable {expression} (debugpy has supportsSetExpression), read back the same way.
    let x = a.ok("set_variable", json!({"expression": "b", "value": "1"}));
    assert_eq!((x.s["value"].clone(), x.s["old_value"].clone()), (json!("1"), json!("6")), "{}", x.text);
    let r = a.ok("step", json!({}));
    assert_eq!(line(&r), json!(12), "{}", r.text);
    let e = a.ok("evaluate", json!({"expression": "c"}));
    assert_eq!(e.s["value"], json!("101"), "the program computed with the new values: {}", e.text);

    // The ref is from before the step: refused, and nothing reaches the adapter.
    let sent = sent_commands(&a.dap_log("s1")).len();
    let stale = a.call("set_variable", json!({"ref": locals, "name": "a", "value": "1"}));
    assert!(stale.is_error && stale.code() == "target_invalidated", "{}", stale.text);
    assert_eq!(sent_commands(&a.dap_log("s1")).len(), sent, "nothing was sent for a stale ref");
    let sets = sent_commands(&a.dap_log("s1")).iter().filter(|c| *c == "setVariable").count();
    assert_eq!(sets, 2, "two setVariable (40 + 60, 1/0): the missing name was refused before sending");
    // debugpy has `terminate`: the program is asked to end itself, and the answer is its end.
    let d = a.ok("disconnect", json!({"graceful": true}));
    assert!(!d.text.contains("not graceful"), "{}", d.text);
    assert!(sent_commands(&a.dap_log("s1")).contains(&"terminate".to_owned()), "{}", d.text);
    assert!(["exited", "terminated"].contains(&d.s["state"].as_str().unwrap_or_default()), "{}", d.text);
}

#[test]
fn goto_jumps_back_a_line_and_source_shows_the_stop() {
    let mut a = Agent::start();
    let p = program();
    a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 11}]}));
    let r = a.ok("step", json!({}));
    assert_eq!(line(&r), json!(12), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "c"})).s["value"], json!("9"));
    let rev = r.s["revision"].as_u64().unwrap_or(0);

    let src = a.ok("source", json!({}));
    assert!(src.text.contains("→   12      return c"), "the stop's line is marked:\n{}", src.text);
    assert_eq!((src.s["start_line"].clone(), src.s["end_line"].clone()), (json!(7), json!(16)), "{}", src.text);
    let range = a.ok("source", json!({"path": p, "start_line": 1, "end_line": 2}));
    let texts: Vec<Value> =
        range.s["lines"].as_array().cloned().unwrap_or_default().iter().map(|l| l["text"].clone()).collect();
    assert_eq!(texts, [json!("def work(n):"), json!("    total = 0")]);

    // Back to line 11 with `a` changed: running it again gives the new sum.
    let locals = a.ok("context", json!({})).s["locals"]["ref"].clone();
    a.ok("set_variable", json!({"ref": locals, "name": "a", "value": "100"}));
    // Another file: refused before anything is sent (debugpy would jump in this file instead).
    let other = a.call("goto", json!({"path": fixture("py/app.py"), "line": 2}));
    assert!(other.is_error && other.code() == "invalid_argument" && other.text.contains("run_to"), "{}", other.text);
    let g = a.ok("goto", json!({"path": p, "line": 11}));
    assert_eq!((line(&g), g.s["state"].clone()), (json!(11), json!("stopped")), "{}", g.text);
    assert!(g.s["revision"].as_u64().unwrap_or(0) > rev, "a jump moves the revision like a step: {}", g.text);
    a.ok("step", json!({}));
    assert_eq!(a.ok("evaluate", json!({"expression": "c"})).s["value"], json!("106"));
    assert!(sent_commands(&a.dap_log("s1")).contains(&"gotoTargets".to_owned()));
    a.ok("disconnect", json!({}));
}

#[test]
fn source_refuses_what_it_must_not_read() {
    let mut a = Agent::start();
    let dir = agent::scratch("ctl-source");
    let big = dir.join("big.py");
    std::fs::write(&big, vec![b'#'; (4 << 20) + 10]).expect("write");
    let r = a.call("source", json!({"path": big}));
    assert!(r.is_error && r.code() == "invalid_argument" && r.text.contains("up to 4194304 bytes"), "{}", r.text);
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    let r = a.call("source", json!({"path": fifo}));
    assert!(r.is_error && r.text.contains("not a regular file"), "a FIFO never blocks the loop: {}", r.text);
    let r = a.call("source", json!({"path": missing("py/nope.py")}));
    assert!(r.is_error && r.code() == "invalid_argument", "{}", r.text);
    let r = a.call("source", json!({"path": program(), "line": 40}));
    assert!(r.is_error && r.text.contains("16 lines"), "{}", r.text);
    let r = a.ok("source", json!({"path": program(), "line": 4, "around": 1}));
    assert_eq!(r.text, "run_to.py lines 3–5 of 16\n     3      for i in range(n):\n→    4          total += i\n     5      return total");
}

#[test]
fn restart_relaunches_with_the_same_id_and_breakpoints_and_leaves_no_old_process() {
    let mut a = Agent::start();
    let p = program();
    a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": [{"name": "work"}]}));
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 11}]}));
    assert_eq!(
        (line(&r), r.s["stop"]["location"]["function"].clone()),
        (json!(1), json!("work")),
        "the pending function breakpoint hit first: {}",
        r.text
    );
    let b = a.ok("breakpoints", json!({}));
    assert_eq!(
        (b.s["functions"][0]["name"].clone(), b.s["functions"][0]["verified"].clone()),
        (json!("work"), json!(true)),
        "{}",
        b.text
    );
    a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": []}));
    let r = a.ok("continue", json!({}));
    assert_eq!(line(&r), json!(11), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "k"})).s["value"], json!("3"));
    let old_rev = r.s["revision"].as_u64().unwrap_or(0);
    let locals = a.ok("context", json!({})).s["locals"]["ref"].clone();
    // Move on to k = 10 so "hits the first one again" is visible in `k`.
    let r = a.ok("continue", json!({}));
    assert_eq!((line(&r), a.ok("evaluate", json!({"expression": "k"})).s["value"].clone()), (json!(11), json!("10")));
    let exposed = a.ok("expose_session", json!({}));
    let port = exposed.s["port"].as_u64().unwrap_or(0) as u16;
    let old_pid = a.session("s1")["pid"].as_i64().expect("debuggee pid") as Pid;
    let old_tree: Vec<Pid> = a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
    assert!(old_tree.contains(&old_pid), "{old_tree:?}");

    let r = a.ok("restart", json!({}));
    assert_eq!((r.s["session"].clone(), r.s["restart"].clone()), (json!("s1"), json!("relaunch")), "{}", r.text);
    assert_eq!(
        (r.s["state"].clone(), line(&r)),
        (json!("stopped"), json!(11)),
        "the first breakpoint again: {}",
        r.text
    );
    assert!(r.text.starts_with("s1 stopped (breakpoint) at run_to.py:11"), "{}", r.text);
    assert!(r.s["revision"].as_u64().unwrap_or(0) > old_rev, "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "k"})).s["value"], json!("3"), "a new run");
    let stale = a.call("variables", json!({"ref": locals}));
    assert_eq!(stale.code(), "target_invalidated", "{}", stale.text);
    assert_all_gone(&old_tree, HYGIENE, "the old adapter, launcher and debuggee after restart");
    let new_pid = a.session("s1")["pid"].as_i64().expect("new debuggee pid") as Pid;
    assert_ne!(new_pid, old_pid);
    // The mirror closed with the old run.
    assert!(a.session("s1").get("mirror").is_none(), "{}", a.session("s1"));
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the mirror's port is closed");
    let listed = a.ok("sessions", json!({}));
    assert_eq!(listed.s["sessions"].as_array().map(Vec::len), Some(1), "still one session: {}", listed.text);
    let b = a.ok("breakpoints", json!({}));
    assert_eq!(listed_lines(&b), [(json!(11), json!(true))], "{}", b.text);
    // Restart from the end of a run too.
    a.ok("set_breakpoints", json!({"path": p, "breakpoints": []}));
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    a.ok("set_breakpoints", json!({"path": p, "lines": [12]}));
    let r = a.ok("restart", json!({}));
    assert_eq!((r.s["session"].clone(), line(&r)), (json!("s1"), json!(12)), "{}", r.text);
    let caps = a.ok("capabilities", json!({}));
    let tools: Vec<Value> = caps.s["tools"]["available"].as_array().cloned().unwrap_or_default();
    assert!(tools.contains(&json!("restart (relaunch)")) && tools.contains(&json!("goto")), "{}", caps.text);
    let tree: Vec<Pid> = a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
    a.ok("disconnect", json!({}));
    assert_all_gone(&tree, HYGIENE, "after disconnect");
}

/// A `run_to` whose wait runs out answers `running` and takes its breakpoint out at once: the
/// program no longer stops there.
#[test]
fn run_to_that_times_out_takes_its_breakpoint_out() {
    let mut a = Agent::start();
    let p = fixture("py/sleeper.py");
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 4}]}));
    assert_eq!(line(&r), json!(4), "{}", r.text);
    let r = a.ok("run_to", json!({"path": p, "line": 5, "wait_ms": 300}));
    assert_eq!(
        (r.s["state"].clone(), r.s["run_to"]["reached"].clone()),
        (json!("running"), json!(false)),
        "{}",
        r.text
    );
    assert!(r.text.contains("sleeper.py:5 not reached yet"), "{}", r.text);
    let out = agent::eventually(HYGIENE, || last_sent_lines(&mut a, &p) == [4]);
    assert!(out, "the temporary breakpoint at 5 went out again: {:?}", last_sent_lines(&mut a, &p));
    let b = a.ok("breakpoints", json!({}));
    assert_eq!(listed_lines(&b), [(json!(4), json!(true))], "{}", b.text);
    a.ok("disconnect", json!({}));
}

/// The agent's conditional breakpoint on the target line would not stop: run_to's breakpoint
/// takes its place for the run, and the condition is back afterwards.
#[test]
fn run_to_a_line_with_a_conditional_breakpoint_stops_there_and_the_condition_comes_back() {
    let mut a = Agent::start();
    let p = program();
    let bps = json!([{"path": p, "line": 9}, {"path": p, "line": 12, "condition": "k == 10"}]);
    let r = a.ok("launch", json!({"program": p, "breakpoints": bps}));
    assert_eq!(line(&r), json!(9), "{}", r.text);
    let r = a.ok("run_to", json!({"path": p, "line": 12}));
    assert_eq!((line(&r), r.s["run_to"]["reached"].clone()), (json!(12), json!(true)), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "k"})).s["value"], json!("3"));
    let log = a.dap_log("s1");
    let last = log
        .iter()
        .rev()
        .find(|e| e["dir"] == json!("to_adapter") && e["message"]["command"] == json!("setBreakpoints"))
        .map(|e| e["message"]["arguments"]["breakpoints"].clone())
        .unwrap_or_default();
    assert_eq!(last, json!([{"line": 9}, {"line": 12, "condition": "k == 10"}]), "the agent's set again");
    let r = a.ok("continue", json!({}));
    assert_eq!(line(&r), json!(9), "the k = 10 round: {}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!((line(&r), a.ok("evaluate", json!({"expression": "k"})).s["value"].clone()), (json!(12), json!("10")));
    a.ok("disconnect", json!({}));
}

/// `set_breakpoints` on the file of a `run_to` under way replaces the adapter's set without the
/// temporary breakpoint: the run_to's result says so instead of claiming it stopped before.
#[test]
fn set_breakpoints_during_a_run_to_is_said_not_hidden() {
    let mut a = Agent::start();
    let p = fixture("py/late.py");
    let r = a.ok("launch", json!({"program": p, "stop_on_entry": true}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let call = |id: i64, name: &str, args: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
    a.d.send_json(&call(901, "run_to", json!({"path": p, "line": 5, "wait_ms": 8000})));
    std::thread::sleep(std::time::Duration::from_millis(300));
    a.d.send_json(&call(902, "set_breakpoints", json!({"path": p, "lines": [6], "mode": "add"})));
    let mut run_to = Value::Null;
    for _ in 0..20 {
        let m = a.d.recv();
        if m["id"] == json!(901) {
            run_to = m["result"].clone();
            break;
        }
    }
    let text = run_to["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(run_to["structuredContent"]["stop"]["location"]["line"], json!(6), "{run_to}");
    assert!(text.contains("replaced the temporary breakpoint"), "{text}");
    assert!(!text.contains("stopped before reaching"), "{text}");
}

/// `set_names.py` stops at line 10 in `inner()`, a closure over `outer()`'s `cell`, which reads
/// the module's `counter` and `limit` and `obj.attr`; the program then prints all of them.
#[test]
fn set_expression_changes_what_the_program_reads_for_globals_cells_locals_and_attributes() {
    let mut a = Agent::start();
    let p = fixture("py/set_names.py");
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 10}]}));
    assert_eq!(line(&r), json!(10), "{}", r.text);
    // A module name read in a function is not a local: debugpy's setExpression would shadow it.
    let g = a.ok("set_variable", json!({"expression": "counter", "value": "100"}));
    assert_eq!(
        (g.s["value"].clone(), g.s["changed"].clone(), g.s["set_in"].clone()),
        (json!("100"), json!(true), json!("globals")),
        "{}",
        g.text
    );
    assert!(g.text.starts_with("counter = 100 (was 4)") && g.text.contains("Globals scope"), "{}", g.text);
    a.ok("set_variable", json!({"expression": "limit", "value": "200"}));
    let e = a.ok("evaluate", json!({"expression": "globals()['counter']"}));
    assert_eq!(e.s["value"], json!("100"), "the module's own dict holds it: {}", e.text);
    let c = a.ok("set_variable", json!({"expression": "cell", "value": "300"}));
    assert_eq!(c.s["changed"], json!(true), "{}", c.text);
    a.ok("set_variable", json!({"expression": "local", "value": "400"}));
    a.ok("set_variable", json!({"expression": "obj.attr", "value": "500"}));
    // A builtin is no variable of the frame: refused, nothing sent.
    let sent = sent_commands(&a.dap_log("s1")).iter().filter(|c| *c == "setExpression" || *c == "setVariable").count();
    let b = a.call("set_variable", json!({"expression": "len", "value": "5"}));
    assert!(b.is_error && b.code() == "invalid_argument" && b.text.contains("nothing was sent"), "{}", b.text);
    // One sentence: no backslash or run of indentation left by the source's line continuations.
    assert!(!b.text.contains('\\') && !b.text.contains("  "), "{}", b.text);
    let after = sent_commands(&a.dap_log("s1")).iter().filter(|c| *c == "setExpression" || *c == "setVariable").count();
    assert_eq!(after, sent, "no set request for the builtin");
    let end = a.ok("continue", json!({}));
    assert_eq!(end.s["state"], json!("exited"), "{}", end.text);
    let out = lines_of(&a.ok("output", json!({"since": 0})), "stdout");
    assert_eq!(out, ["inner 300 400 100 200 500", "outer cell 300", "final 100 200 500"], "what the program printed");
}
