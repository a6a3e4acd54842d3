//! `restart {frame}` on real js-debug (it advertises `supportsRestartFrame`): stopped in a
//! function called from the program's top level, restarting that function's frame runs it again
//! from its start, and the call answers at the stop that follows (DAP § Requests › RestartFrame),
//! with a new revision; the program's own state is not rewound (`calls` counts both runs). Also
//! js-debug's hex values (given the `0x` it leaves out) and its loaded sources without `modules`.

use serde_json::json;

use crate::agent::lines_of;
use crate::node_util::{stop_at, Node, START};

/// `restart_frame.js`: `work(n)` is lines 3–7 (line 4 `calls += 1`, line 6 `return doubled`),
/// called once from line 8; it prints `result 42 calls <n>`.
#[test]
fn restarting_a_frame_stops_at_the_first_line_of_its_function() {
    let mut n = Node::start("restart-frame");
    let p = n.copy("restart_frame.js");
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 6}], "wait_ms": START}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(6), json!("work")), "{}", r.text);
    let revision = r.s["revision"].clone();
    // js-debug 1.112 answers hex with bare digits (20 is `14`): agentdap adds the `0x`
    // (`RuntimeQuirks::hex_without_prefix`), so no hex value reads as a decimal one.
    let h = n.a.ok("evaluate", json!({"expressions": ["doubled", "20", "-255", "3.5", "'hi'"], "hex": true}));
    let values: Vec<&str> =
        h.s["results"].as_array().map(|l| l.iter().filter_map(|r| r["value"].as_str()).collect()).unwrap_or_default();
    // A string's hex form (js-debug encodes its bytes) is not a number: it gets no prefix.
    assert_eq!(values[..4], ["0x2a", "0x14", "-0xff", "0x3.8"], "{}", h.text);
    assert!(values.get(4).is_some_and(|v| !v.starts_with("0x")), "{}", h.text);
    // js-debug has loadedSources without modules: `modules {sources}` needs only the former.
    let src = n.a.ok("modules", json!({"sources": true, "filter": "restart_frame"}));
    assert!(src.text.contains("restart_frame.js"), "{}", src.text);
    let frames = n.a.ok("stack_trace", json!({}));
    assert_eq!(frames.s["frames"][0]["function"], json!("work"), "{}", frames.text);
    let frame = frames.s["frames"][0]["frame"].clone();

    let restarted = n.a.ok("restart", json!({ "frame": frame }));
    assert_eq!(restarted.s["state"], json!("stopped"), "{}", restarted.text);
    // js-debug 1.112 reports the stop with its own reason, passed through unchanged: measured
    // `frame_entry` when run alone, `pause` when the machine is loaded (the full node suite).
    let reason = restarted.s["stop"]["reason"].clone();
    assert!(reason == json!("frame_entry") || reason == json!("pause"), "{}", restarted.text);
    assert_eq!(stop_at(&restarted.s), (json!(p), json!(4), json!("work")), "{}", restarted.text);
    assert_ne!(restarted.s["revision"], revision, "{}", restarted.text);
    let stale = n.a.call("evaluate", json!({"expression": "n", "frame": frame}));
    assert!(stale.is_error && stale.code() == "target_invalidated", "{}", stale.text);
    let e = n.a.ok("evaluate", json!({"expression": "calls"}));
    assert_eq!(e.s["value"], json!("1"), "line 4 has not run again yet: {}", e.text);

    let again = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!(stop_at(&again.s), (json!(p), json!(6), json!("work")), "{}", again.text);
    let end = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!(end.s["state"], json!("exited"), "{}", end.text);
    let out = n.a.ok("output", json!({"category": "stdout"}));
    assert_eq!(lines_of(&out, "stdout"), ["result 42 calls 2"], "{}", out.text);
    n.a.ok("disconnect", json!({}));
    n.finish();
}
