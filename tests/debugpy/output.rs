//! The program's output as the agent reads it: the `output` tool, the output tail in results and
//! the output resource join entries into exactly what the program printed; the ring says what it
//! dropped. Real debugpy; fails when it is missing.

use crate::agent;

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

/// Output past the ring's cap: results and `output` say how much is gone for good and where
/// what is left starts, never "call `output` for everything"; paging says why a call stopped.
#[test]
fn output_past_the_ring_says_what_was_dropped_and_pages_what_is_left() {
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"program": fixture("py/flood.py")}));
    assert_eq!(r.s["stop"]["reason"], json!("entry"), "{}", r.text);
    let r = a.ok("continue", json!({"wait_ms": 60000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    assert!(!r.text.contains("for everything"), "{}", r.text);
    let dropped = r.s["output"]["dropped"].as_u64().unwrap_or(0);
    assert!(dropped > 0 && r.text.contains("entries were dropped"), "{}", r.text);
    assert!(r.text.ends_with("line 149999\ndone"), "{}", r.text);

    let first = a.ok("output", json!({"limit": 100000}));
    assert_eq!(first.s["dropped"], json!(dropped), "{}", first.text);
    assert_eq!(first.s["first_cursor"], json!(dropped), "{}", first.text);
    assert_eq!(first.s["more"], json!(true), "{}", first.text);
    let head = first.text.lines().next().unwrap_or_default().to_owned();
    assert!(head.contains("were dropped and cannot be read") && head.contains("1024 KiB"), "{head}");
    assert!(head.contains("at most 1000 entries per call") || head.contains("at most 19000 bytes"), "{head}");
    // Paging from there reads everything still held: with what was dropped, all that was printed.
    let mut held = 0u64;
    let mut page = first;
    loop {
        for e in page.s["entries"].as_array().into_iter().flatten() {
            held += e["text"].as_str().map_or(0, |t| t.len() as u64);
        }
        if page.s["more"] != json!(true) {
            break;
        }
        page = a.ok("output", json!({"since": page.s["next_cursor"], "limit": 1000}));
    }
    let gone = page.s["dropped_bytes"].as_u64().unwrap_or(0);
    assert_eq!(held + gone, 150_000 * 12 + "done\n".len() as u64, "held {held}, dropped {gone}");
    // The output resource says so too, before what is left.
    let resource = a.resource("agentdap://session/s1/output");
    let said =
        format!("(… {dropped} earlier entries, {gone} bytes, were dropped: the output ring keeps the last 1024 KiB)\n");
    assert!(resource.starts_with(&said), "{}", &resource[..resource.len().min(300)]);
    assert!(resource.ends_with("line 149999\ndone\n"), "{}", &resource[resource.len().saturating_sub(100)..]);
    // And `sessions` names what the session lost.
    let r = a.ok("sessions", json!({}));
    assert_eq!(r.s["sessions"][0]["output_dropped"], json!({"entries": dropped, "bytes": gone}), "{}", r.text);
    assert!(r.text.contains(&format!("output: {dropped} entries dropped")), "{}", r.text);
}

/// debugpy relays a launched program's output apart from its stops (no order between them), so
/// a stop's result says that output printed just before it may still be arriving; through
/// `console: terminal` agentdap reads the output itself, before the adapter's stop, and the
/// result does not say so.
#[test]
fn a_stop_result_says_when_output_may_still_be_arriving() {
    let mut a = Agent::start();
    let program = fixture("py/partial_line.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 5}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    assert_eq!(r.s["output"]["may_follow"], json!(true), "{}", r.text);
    assert!(r.text.contains("may still be arriving"), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    assert!(!r.text.contains("may still be arriving") && r.s["output"].get("may_follow").is_none(), "{}", r.text);

    let mut a = Agent::start();
    let r = a.ok(
        "launch",
        json!({"program": program, "console": "terminal", "breakpoints": [{"path": program, "line": 5}]}),
    );
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    assert!(!r.text.contains("may still be arriving"), "{}", r.text);
    assert_eq!(r.s["output"]["text"], json!("errors:"), "{}", r.text);
}

/// A log point's messages are `logpoint` entries, apart from the program's prints: debugpy sends
/// them as `stdout`, marked only by a `source` key.
#[test]
fn log_point_messages_are_labelled_apart_from_the_programs_prints() {
    let mut a = Agent::start();
    let program = fixture("py/out.py");
    let bp = json!([{"path": program, "line": 2, "log_message": "logged {i}"}]);
    let r = a.ok("launch", json!({"program": program, "breakpoints": bp}));
    assert_eq!(r.s["state"], json!("exited"), "a log point never stops: {}", r.text);
    let mut out = a.ok("output", json!({}));
    let arrived = agent::eventually(Duration::from_secs(10), || {
        out = a.ok("output", json!({}));
        out.text.contains("result=6") && out.text.contains("logged 2")
    });
    assert!(arrived, "{}", out.text);
    assert_eq!(agent::lines_of(&out, "stdout"), ["line 0", "line 1", "line 2", "result=6"], "{}", out.text);
    assert_eq!(agent::lines_of(&out, "logpoint"), ["logged 0", "logged 1", "logged 2"], "{}", out.text);
    assert!(out.text.contains("[logpoint] logged 0\n"), "{}", out.text);
    let only = a.ok("output", json!({"category": "logpoint"}));
    assert_eq!(agent::lines_of(&only, "logpoint").len(), 3, "{}", only.text);
}
