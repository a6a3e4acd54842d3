//! Issue 18's inspect additions on real debugpy 1.8 through the built binary: `completions` of a
//! local's prefix (the request names the frame: debugpy needs it), loaded sources read from its
//! modules (`Quirks::loaded_sources_from_modules`: debugpy has no `loadedSources`), a
//! `dap_request` of `loadedSources` refused before it can wedge the session
//! (`Quirks::unanswered_requests`) while other requests still work, several expressions in one
//! call with one error reported for that one, hex values, and reverse execution `unsupported`
//! without contacting the adapter.

use crate::agent;

use agent::{fixture, sent_commands, Agent};
use serde_json::json;

/// `inspect_me.py` stopped at line 13 in `compute(3)`: `n`, `total` and `k` are locals.
#[test]
fn completions_sources_several_expressions_hex_and_no_reverse_on_debugpy() {
    let mut a = Agent::start();
    let program = fixture("py/inspect_me.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 13}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(13), "{}", r.text);

    let c = a.ok("completions", json!({"text": "tot"}));
    let labels: Vec<&str> =
        c.s["targets"].as_array().into_iter().flatten().filter_map(|t| t["label"].as_str()).collect();
    assert!(labels.contains(&"total"), "{}", c.text);
    let sent = a.dap_log("s1");
    let req =
        sent.iter().rev().find(|e| e["dir"] == json!("to_adapter") && e["message"]["command"] == json!("completions"));
    assert!(req.is_some_and(|e| e["message"]["arguments"]["frameId"].is_i64()), "the frame is named: {req:?}");

    let src = a.ok("modules", json!({"sources": true}));
    assert!(src.text.contains("loaded sources (from modules)"), "{}", src.text);
    assert_eq!(src.s["from"], json!("modules"));
    let paths: Vec<&str> =
        src.s["sources"].as_array().into_iter().flatten().filter_map(|m| m["path"].as_str()).collect();
    assert!(paths.iter().any(|p| p.ends_with("inspect_me.py")), "{}", src.text);
    let m = a.ok("modules", json!({"filter": "inspect"}));
    assert!(m.text.contains("(matched by agentdap)") && m.text.contains("inspect_me.py"), "{}", m.text);

    let before = sent_commands(&a.dap_log("s1")).len();
    let ls = a.call("dap_request", json!({"command": "loadedSources"}));
    assert!(
        ls.is_error && ls.code() == "unsupported" && ls.text.contains("does not answer `loadedSources`"),
        "{}",
        ls.text
    );
    assert_eq!(sent_commands(&a.dap_log("s1")).len(), before, "nothing was sent");
    let t = a.ok("dap_request", json!({"command": "threads"}));
    assert!(t.text.contains("MainThread"), "the session still answers: {}", t.text);

    let many = a.ok("evaluate", json!({"expressions": ["n", "undefined_name + 1", "total + k"]}));
    let lines: Vec<&str> = many.text.lines().collect();
    assert_eq!(lines[0], "n = 3 (int)", "{}", many.text);
    assert!(
        lines[1].starts_with("undefined_name + 1: error: ") && lines[1].contains("undefined_name"),
        "{}",
        many.text
    );
    assert!(lines[2].starts_with("total + k = "), "{}", many.text);
    assert_eq!(lines.len(), 3, "{}", many.text);
    assert!(many.s["results"][1]["error"].is_string() && many.s["results"][0]["value"] == json!("3"), "{}", many.s);

    let hex = a.ok("evaluate", json!({"expression": "n + 40", "hex": true}));
    assert_eq!(hex.s["value"], json!("0x2b"), "{}", hex.text);

    let before = sent_commands(&a.dap_log("s1")).len();
    let rc = a.call("continue", json!({"reverse": true}));
    assert!(rc.is_error && rc.code() == "unsupported" && rc.text.contains("supportsStepBack"), "{}", rc.text);
    let rf = a.call("restart", json!({"frame": 1}));
    assert!(rf.is_error && rf.code() == "unsupported" && rf.text.contains("supportsRestartFrame"), "{}", rf.text);
    assert_eq!(sent_commands(&a.dap_log("s1")).len(), before, "nothing reached the adapter");
    a.ok("disconnect", json!({}));
}
