//! The program's output as the agent reads it: the `output` tool, the output tail in results and
//! the output resource join entries into exactly what the program printed; the ring says what it
//! dropped. Real debugpy; fails when it is missing.

mod agent;
mod common;

use std::time::Duration;

use agent::{fixture, Agent};
use serde_json::json;

/// A line left unfinished at a stop and finished after it reads as one line everywhere the
/// entries are joined: no `\n` the program never printed.
#[test]
fn a_line_finished_after_a_stop_reads_as_printed() {
    let mut a = Agent::start();
    let program = fixture("py/partial_line.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 5}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    // The unfinished line becomes an entry of its own once it arrived (a read flushes it).
    let mut seen = String::new();
    let arrived = agent::eventually(Duration::from_secs(10), || {
        seen = a.ok("output", json!({})).text;
        seen.contains("errors:")
    });
    assert!(arrived, "{seen}");
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let out = a.ok("output", json!({}));
    let entries: Vec<&str> =
        out.s["entries"].as_array().into_iter().flatten().filter_map(|e| e["text"].as_str()).collect();
    assert!(entries.contains(&"errors:"), "the stop made the unfinished line an entry: {entries:?}");
    assert!(out.text.ends_with("errors: [x]\nlow"), "{}", out.text);
    let stdout = a.ok("output", json!({"category": "stdout"}));
    assert!(stdout.text.ends_with("\nerrors: [x]\nlow"), "{}", stdout.text);
    let resource = a.resource("agentdap://session/s1/output");
    assert!(resource.contains("errors: [x]\nlow\n"), "{resource:?}");
}
