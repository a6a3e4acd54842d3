//! Attach on real js-debug through the built binary: to a `node --inspect=127.0.0.1:<port>`
//! process the test started itself (`attach {adapter: "node", connect: {port}}`); it stops at a
//! breakpoint in one session `s1`, and `disconnect` detaches, leaving the process running and no
//! process agentdap started behind.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::agent::{alive, free_port, Reap, HYGIENE};
use agentdap::os::spawn::Pid;
use serde_json::json;

use crate::node_util::{stop_at, Node, START};

/// `ticker.js`: `tick()` (lines 2–5) runs every 20 ms; line 3 is `ticks += 1`.
#[test]
fn attach_to_node_inspect_stops_at_a_breakpoint_and_detach_leaves_it_running() {
    let mut n = Node::start("attach");
    let p = n.copy("ticker.js");
    let port = free_port();
    let mut cmd = Command::new("node");
    cmd.arg(format!("--inspect=127.0.0.1:{port}")).arg(&p);
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut target = Reap(cmd.spawn().expect("start node --inspect"));
    let target_pid = target.0.id() as Pid;
    // node says where its inspector listens once it does.
    let stderr = target.0.stderr.take().expect("piped");
    let mut lines = BufReader::new(stderr).lines();
    let listening = lines.by_ref().take(5).map_while(Result::ok).any(|l| l.starts_with("Debugger listening on ws://"));
    assert!(listening, "node --inspect did not say it listens");
    // Its later notices ("Debugger attached.") go nowhere, and never block it.
    std::thread::spawn(move || lines.for_each(drop));

    let args = json!({"adapter": "node", "connect": {"port": port},
                      "breakpoints": [{"path": p, "line": 3}], "wait_ms": START});
    let r = n.a.ok("attach", args);
    let r = if r.s["state"] == json!("stopped") { r } else { n.a.ok("wait", json!({"for": "stop", "wait_ms": START})) };
    assert_eq!((r.s["session"].clone(), r.s["state"].clone()), (json!("s1"), json!("stopped")), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    let (path, line, function) = stop_at(&r.s);
    assert_eq!((path, line), (json!(p), json!(3)), "{}", r.text);
    // js-debug 1.112.0 names a timer's callback by its receiver: `Timeout {.tick`.
    assert!(function.as_str().is_some_and(|f| f.ends_with("tick")), "{}", r.text);
    assert_eq!(n.session_ids(), ["s1"], "one session: {}", n.a.ok("sessions", json!({})).text);
    let entry = n.a.session("s1");
    assert_eq!((entry["request"].clone(), entry["adapter"].clone()), (json!("attach"), json!("node")), "{entry}");
    let ticks = n.a.ok("evaluate", json!({"expression": "ticks"}));
    assert!(ticks.s["value"].as_str().is_some_and(|v| v.parse::<u64>().is_ok()), "{}", ticks.text);
    let r = n.a.ok("continue", json!({}));
    assert_eq!(stop_at(&r.s).1, json!(3), "the next tick: {}", r.text);

    let r = n.a.ok("disconnect", json!({}));
    assert!(r.text.contains("detached; the program keeps running"), "{}", r.text);
    assert!(!r.text.contains("ended by agentdap"), "{}", r.text);
    // js-debug's server goes with the session; the program the test started stays.
    n.assert_no_leftovers(&[target_pid], HYGIENE, "after detaching");
    assert!(alive(target_pid), "the attached process survives the detach");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(alive(target_pid) && target.0.try_wait().ok().flatten().is_none(), "and keeps running");
    n.finish_except(&[target_pid]);
    assert!(alive(target_pid), "and survives agentdap's end");
}

/// `attach {adapter: "node", pid}` to a node process whose inspector is closed
/// (`--inspect-port` only chooses its port): agentdap sends it SIGUSR1, which opens the inspector
/// there (what VS Code does; js-debug's standalone server ignores `processId`), attaches, stops at
/// the breakpoint, and detaching leaves the process running.
#[test]
fn attach_by_pid_opens_the_inspector_with_sigusr1_and_stops_at_a_breakpoint() {
    let mut n = Node::start("attach-pid");
    let p = n.copy("ticker.js");
    let port = free_port();
    let mut cmd = Command::new("node");
    cmd.arg(format!("--inspect-port=127.0.0.1:{port}")).arg(&p);
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    let target = Reap(cmd.spawn().expect("start node"));
    let target_pid = target.0.id() as Pid;
    // Node installs its SIGUSR1 handler while it starts: wait until it runs the script.
    let running = crate::agent::eventually(std::time::Duration::from_secs(10), || {
        std::fs::read_to_string(format!("/proc/{target_pid}/status"))
            .is_ok_and(|s| s.lines().any(|l| l.starts_with("Threads:") && l.split_whitespace().nth(1) > Some("1")))
    });
    assert!(running, "node did not start");
    std::thread::sleep(std::time::Duration::from_millis(300));

    let args = json!({"adapter": "node", "pid": target_pid, "breakpoints": [{"path": p, "line": 3}], "wait_ms": START});
    let r = n.a.ok("attach", args);
    let r = if r.s["state"] == json!("stopped") { r } else { n.a.ok("wait", json!({"for": "stop", "wait_ms": START})) };
    assert_eq!((r.s["session"].clone(), r.s["state"].clone()), (json!("s1"), json!("stopped")), "{}", r.text);
    assert_eq!(stop_at(&r.s).1, json!(3), "{}", r.text);
    let r = n.a.ok("disconnect", json!({}));
    assert!(r.text.contains("detached; the program keeps running"), "{}", r.text);
    n.assert_no_leftovers(&[target_pid], HYGIENE, "after detaching");
    assert!(alive(target_pid), "the attached process survives the detach");
    n.finish_except(&[target_pid]);
    assert!(alive(target_pid), "and survives agentdap's end");
}
