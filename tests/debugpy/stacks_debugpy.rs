//! `stacks` on real debugpy 1.8.22 through the built binary: a deadlocked program (two threads
//! each holding one lock and waiting for the other) read by py-spy in one call while it runs on;
//! without py-spy, a pause that never takes effect answers with the threads and the install
//! command, and its late stop (a thread back in Python code) is resumed, never reported; a
//! stopped session's stacks carry frame ids that work.

use std::path::PathBuf;
use std::time::Duration;

use crate::agent;
use crate::common::venv_python;

use agent::{alive, fixture, Agent, Res};
use serde_json::{json, Value};

/// The py-spy `scripts/install-test-deps` puts beside the venv's python.
fn py_spy() -> PathBuf {
    let p = venv_python().parent().expect("the venv's bin").join("py-spy");
    assert!(p.exists(), "test dependency missing: py-spy in {} (run scripts/install-test-deps)", p.display());
    p
}

/// Launches `program` and waits until its output holds `mark`.
fn launch_until(a: &mut Agent, program: &str, mark: &str) -> Res {
    let mut r = a.ok("launch", json!({"program": fixture(program), "stop_on_entry": false, "wait_ms": 500}));
    for _ in 0..10 {
        if r.s["output"]["text"].as_str().unwrap_or_default().contains(mark) {
            return r;
        }
        r = a.ok("wait", json!({"for": "output", "wait_ms": 2000}));
    }
    panic!("no {mark:?} in the output: {}", r.text);
}

fn thread<'a>(r: &'a Res, name: &str) -> &'a Value {
    let threads = r.s["threads"].as_array().expect("threads");
    threads.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no thread {name}: {}", r.text))
}

/// `stacks` until both threads of `two_locks.py` wait at their `acquire()` (the print comes
/// right after they started; a loaded machine may take a moment to get them there).
fn sample_until_blocked(a: &mut Agent, args: Value) -> Res {
    let mut r = a.ok("stacks", args.clone());
    for _ in 0..10 {
        let at = |name: &str, line: i64| {
            r.s["threads"].as_array().into_iter().flatten().any(|t| t["name"] == name && t["frames"][0]["line"] == line)
        };
        if at("first", 12) && at("second", 18) {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
        r = a.ok("stacks", args.clone());
    }
    r
}

#[test]
fn a_deadlocks_two_threads_are_read_at_their_acquire_lines_in_one_call_and_it_runs_on() {
    let spy = py_spy();
    let mut a = Agent::start_with(|c| {
        c.env("AGENTDAP_PY_SPY", &spy);
    });
    launch_until(&mut a, "py/two_locks.py", "deadlocked");
    let r = sample_until_blocked(&mut a, json!({}));
    assert_eq!(r.s["how"], "sampled", "{}", r.text);
    assert!(r.text.contains(" · sampled by py-spy 0.4.3, program not stopped"), "{}", r.text);
    assert_eq!(r.s["state"], "running", "{}", r.text);
    assert_eq!(r.s["stopped"], false);
    for (name, line) in [("first", 12), ("second", 18)] {
        let top = &thread(&r, name)["frames"][0];
        assert_eq!(top["function"], name, "{}", r.text);
        assert_eq!(top["line"], line, "{}", r.text);
        assert!(top["path"].as_str().unwrap_or_default().ends_with("two_locks.py"), "{}", r.text);
        assert!(top.get("frame").is_none(), "a sample has no frame ids: {}", r.text);
    }
    assert!(r.text.contains("\n  #0 first at two_locks.py:12"), "{}", r.text);
    assert!(r.text.contains("\n  #0 second at two_locks.py:18"), "{}", r.text);
    assert_eq!(thread(&r, "MainThread")["frames"][2]["function"], "<module>", "{}", r.text);
    // pydevd's own threads are counted, not shown.
    assert!(r.s["hidden_threads"].as_u64().is_some_and(|n| n >= 3), "{}", r.text);
    assert!(!r.text.contains("pydevd."), "{}", r.text);
    // Still running, and really: its process is there and the session says so.
    let s = a.session("s1");
    assert_eq!(s["state"], "running", "{s}");
    let pid = s["pid"].as_i64().expect("the debuggee's pid");
    assert!(alive(pid as i32), "the program is gone");
    assert_eq!(r.s["pid"], pid);
    let w = a.ok("wait", json!({"for": "stop", "wait_ms": 500}));
    assert_eq!(w.s["satisfied"], false, "{}", w.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn without_py_spy_a_pause_that_never_lands_gives_the_threads_and_its_late_stop_is_resumed_unreported() {
    let mut a = Agent::start_with(|c| {
        c.env("AGENTDAP_PY_SPY", "/nonexistent/py-spy");
    });
    launch_until(&mut a, "py/late_pause.py", "sleeping");
    let r = a.ok("stacks", json!({}));
    assert_eq!(r.s["how"], "threads_only", "{}", r.text);
    assert!(r.text.contains("not read: the program was not stopped and keeps running"), "{}", r.text);
    assert!(r.text.contains("note: the pause did not stop the program within 1500 ms"), "{}", r.text);
    assert!(r.text.contains("debugpy pauses a thread only when it next runs Python code"), "{}", r.text);
    assert!(
        r.text.contains("$AGENTDAP_PY_SPY is /nonexistent/py-spy, which is not an executable file. Install it with `agentdap install py-spy`"),
        "{}",
        r.text
    );
    assert!(r.text.contains("\"sleeper\""), "the thread list: {}", r.text);
    assert_eq!(r.s["state"], "running", "{}", r.text);
    // The sleeper wakes at 8 s into Python code, where pydevd stops it for that pause; agentdap
    // resumes it, so the program prints and ends, and no wait ever hears of a stop.
    let w = a.ok("wait", json!({"for": "exit", "wait_ms": 15000}));
    assert_eq!(w.s["state"], "exited", "{}", w.text);
    assert!(w.s["output"]["text"].as_str().unwrap_or_default().contains("woke 499500"), "{}", w.text);
    assert!(
        w.text.contains("stopped the program late for an earlier `stacks` pause; agentdap resumed it at once"),
        "{}",
        w.text
    );
    assert_eq!(w.s["exit_code"], 0, "{}", w.text);
    let log = a.dap_log("s1");
    let stops = log.iter().filter(|m| m["message"]["event"] == "stopped").count();
    assert_eq!(stops, 1, "one late stop came and was resumed: {log:?}");
    a.ok("disconnect", json!({}));
}

#[test]
fn a_stopped_sessions_stacks_carry_frame_ids_that_work() {
    let mut a = Agent::start();
    let program = fixture("py/two_locks.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 25}]}));
    assert_eq!(r.s["state"], "stopped", "{}", r.text);
    let r = a.ok("stacks", json!({}));
    assert_eq!(r.s["how"], "read_while_stopped", "{}", r.text);
    // The other threads too (where each is depends on how far it got before the stop).
    thread(&r, "first");
    thread(&r, "second");
    assert!(r.text.contains(" · read while stopped (rev "), "{}", r.text);
    let main = thread(&r, "MainThread");
    assert_eq!(main["frames"][0]["line"], 25, "{}", r.text);
    let frame = main["frames"][0]["frame"].as_i64().expect("a frame id");
    let e = a.ok("evaluate", json!({"expression": "t1.name", "frame": frame}));
    assert!(e.text.contains("'first'"), "{}", e.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn a_python_process_without_a_session_is_read_by_its_pid() {
    let spy = py_spy();
    let mut a = Agent::start_with(|c| {
        c.env("AGENTDAP_PY_SPY", &spy);
    });
    let mut child = std::process::Command::new(venv_python())
        .arg(fixture("py/two_locks.py"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python");
    let mut first = String::new();
    {
        use std::io::BufRead;
        let out = child.stdout.as_mut().expect("stdout");
        std::io::BufReader::new(out).read_line(&mut first).expect("its first line");
    }
    assert_eq!(first, "deadlocked\n");
    let pid = child.id() as i64;
    let r = sample_until_blocked(&mut a, json!({"pid": pid}));
    assert!(
        r.text.starts_with(&format!("pid {pid} stacks · 3 threads · sampled by py-spy 0.4.3, program not stopped")),
        "{}",
        r.text
    );
    assert_eq!(thread(&r, "first")["frames"][0]["line"], 12, "{}", r.text);
    assert_eq!(thread(&r, "second")["frames"][0]["line"], 18, "{}", r.text);
    assert!(alive(pid as i32), "py-spy let it run");
    let _ = child.kill();
    let _ = child.wait();
    let gone = a.call("stacks", json!({"pid": pid}));
    assert!(gone.is_error && gone.text.contains(&format!("there is no process {pid}")), "{}", gone.text);
    let both = a.call("stacks", json!({"pid": pid, "session": "s1"}));
    assert!(both.is_error && both.text.contains("not both"), "{}", both.text);
}
