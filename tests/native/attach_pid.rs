//! `attach {pid}` checks what the process runs before any adapter starts, on the built binary:
//! debugpy refuses a process that is not Python, Delve one that is not a Go program, every
//! adapter a pid that does not exist — each at once, naming what the process runs and which
//! adapter fits, instead of an injector waiting for its timeout.

use crate::agent;

use std::process::{Child, Command};

use agent::Agent;
use serde_json::json;

/// A `sleep` process, killed and reaped when dropped.
struct Sleeper(Child);

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn sleeper() -> Sleeper {
    Sleeper(Command::new("sleep").arg("600").spawn().expect("start sleep"))
}

fn sleep_path(pid: u32) -> String {
    std::fs::read_link(format!("/proc/{pid}/exe")).expect("sleep's exe").display().to_string()
}

#[test]
fn attach_to_a_process_that_is_not_python_says_what_it_runs() {
    let s = sleeper();
    let pid = s.0.id();
    let mut a = Agent::start();
    let r = a.call("attach", json!({"pid": pid}));
    assert!(r.is_error, "{}", r.text);
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
    let want = format!(
        "pid {pid} runs {}, not Python; attach by pid works for Python processes (debugpy); for native processes use adapter: lldb.",
        sleep_path(pid)
    );
    assert!(r.text.ends_with(&want), "{}", r.text);
    // No session was opened, no adapter started.
    assert_eq!(a.ok("sessions", json!({})).s["sessions"], json!([]));
}

#[test]
fn delve_attach_to_a_process_that_is_not_go_says_what_it_runs() {
    let s = sleeper();
    let pid = s.0.id();
    let mut a = Agent::start_plain(|_| {});
    let r = a.call("attach", json!({"pid": pid, "adapter": "delve"}));
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
    let want = format!(
        "pid {pid} runs {}, not a Go program; Delve attaches to Go programs; for native processes use adapter: lldb.",
        sleep_path(pid)
    );
    assert!(r.text.ends_with(&want), "{}", r.text);
}

#[test]
fn attach_to_a_pid_that_does_not_exist_is_refused_by_every_adapter() {
    // A pid above the kernel's pid_max (4194304 at most) never exists.
    let mut a = Agent::start();
    for adapter in ["debugpy", "lldb", "delve"] {
        let r = a.call("attach", json!({"pid": 99_999_999, "adapter": adapter}));
        assert_eq!(r.code(), "invalid_argument", "{adapter}: {}", r.text);
        assert!(r.text.contains("there is no process 99999999"), "{adapter}: {}", r.text);
    }
}
