//! `pause` of a Python program blocked in native code, on the built binary with real debugpy:
//! debugpy answers `pause` but no thread stops, and the result says why and what the agent can
//! do now instead of only "still running".

use crate::agent;

use agent::{fixture, Agent};
use serde_json::json;

#[test]
fn pause_of_a_program_blocked_on_a_lock_says_why_it_keeps_running() {
    let mut a = Agent::start();
    let program = fixture("py/deadlock.py");
    let mut r = a.ok("launch", json!({"program": program, "stop_on_entry": false, "wait_ms": 500}));
    // The print comes right before the second acquire: wait for it.
    for _ in 0..10 {
        if r.s["output"]["text"].as_str().unwrap_or_default().contains("about to deadlock") {
            break;
        }
        r = a.ok("wait", json!({"for": "output", "wait_ms": 2000}));
    }
    assert!(r.s["output"]["text"].as_str().unwrap_or_default().contains("about to deadlock"), "{}", r.text);
    let r = a.ok("pause", json!({"wait_ms": 1000}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    assert!(r.text.contains("(paused; still running when the wait ended"), "{}", r.text);
    assert!(
        r.text.contains(
            "\nnote: debugpy pauses a thread only when it next runs Python code; a thread blocked in native code"
        ),
        "{}",
        r.text
    );
    assert!(r.text.contains("`disconnect` ends the session"), "{}", r.text);
    let pid = a.session("s1")["pid"].as_i64().expect("the debuggee's pid");
    assert!(r.text.contains(&format!("(the program's pid: {pid})")), "{}", r.text);
    a.ok("disconnect", json!({}));
}
