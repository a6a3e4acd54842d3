//! `--allow inspect` attached (`connect`) to a `python -m debugpy --listen --wait-for-client`
//! program: the `breakpoints` of `attach` bring it to a stop; locals are read; `set_variable`,
//! `evaluate` (debugpy 1.8.22 has no side-effect-free context: `src/allow/hover.rs`) and
//! `continue` are refused naming their switch; after the detach the program runs to its end with
//! the state it had (every round prints its own number).

use crate::agent;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent::{debugpy_python, fixture, free_port, Agent, Reap};
use serde_json::json;

const START: u64 = 40_000;

#[test]
fn inspect_reads_an_attached_debugpy_program_and_changes_nothing() {
    let program = fixture("py/attach_me.py");
    let port = free_port();
    let mut cmd = Command::new(debugpy_python());
    cmd.args(["-m", "debugpy", "--listen", &format!("127.0.0.1:{port}"), "--wait-for-client", &program, "8"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut target = Reap(cmd.spawn().expect("start python -m debugpy --listen"));
    let mut a = Agent::start_with(|c| {
        c.args(["--allow", "inspect"]);
    });
    let r = a.ok(
        "attach",
        json!({"connect": {"host": "127.0.0.1", "port": port}, "wait_ms": START,
               "breakpoints": [{"path": program, "line": 6}]}),
    );
    let r = if r.s["state"] == json!("stopped") { r } else { a.ok("wait", json!({"for": "stop", "wait_ms": START})) };
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);

    let v = a.ok("context", json!({}));
    assert!(v.text.contains("i = 0") || v.text.contains("i: 0") || v.text.contains("i=0"), "locals read: {}", v.text);

    for (tool, args, switch) in [
        ("set_variable", json!({"name": "i", "value": "999"}), "modify"),
        ("evaluate", json!({"expression": "globals().__setitem__('rounds', 1)"}), "evaluate"),
        ("evaluate", json!({"expression": "i", "context": "hover"}), "evaluate"),
        ("evaluate", json!({"expression": "i", "context": "repl"}), "evaluate"),
        ("continue", json!({}), "control"),
        ("pause", json!({}), "control"),
    ] {
        let r = a.call(tool, args);
        assert!(
            r.text.contains(&format!("agentdap runs with --allow inspect; --allow {switch} allows it")),
            "{tool}: {}",
            r.text
        );
    }
    let hover = a.call("evaluate", json!({"expression": "i"}));
    assert!(hover.text.contains("no side-effect-free context: debugpy 1.8.22"), "{}", hover.text);
    let caps = a.ok("capabilities", json!({}));
    assert!(caps.text.contains("Allowed (--allow inspect): attach; not allowed:"), "{}", caps.text);

    // Nothing was sent that changes the program: no setVariable, evaluate, continue or pause.
    let sent = agent::sent_commands(&a.dap_log("s1"));
    for c in ["setVariable", "setExpression", "evaluate", "continue", "pause"] {
        assert!(!sent.iter().any(|s| s == c), "{c} reached debugpy: {sent:?}");
    }

    // Detaching lets the program run on (no `continue` is needed or allowed), breakpoints gone.
    let d = a.ok("disconnect", json!({}));
    assert!(d.text.contains("detached; the program keeps running"), "{}", d.text);
    let end = Instant::now() + Duration::from_secs(30);
    while Instant::now() < end && target.0.try_wait().ok().flatten().is_none() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    if let Some(mut stdout) = target.0.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    let expected: String = (0..8).map(|i| format!("round {i}\n")).collect::<String>() + "attach_me done\n";
    assert_eq!(out, expected, "the program's state is unchanged: every round as it would be");
}
