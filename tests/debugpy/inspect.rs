//! Inspecting and stepping on real debugpy through the built binary (issue 5): `context`,
//! `evaluate`, `step` in/over/out landing on the right lines, `variables` paging a 10 000-item
//! list, handles refused once the program ran (and nothing sent), threads and `threads {select}`,
//! `pause`, `wait` with `since_revision`, progress notifications and cancellation.

use crate::agent;

use std::time::{Duration, Instant};

use agent::{fixture, sent_commands, Agent};
use serde_json::{json, Value};

fn line(r: &agent::Res) -> Value {
    r.s["stop"]["location"]["line"].clone()
}

fn function(r: &agent::Res) -> Value {
    r.s["stop"]["location"]["function"].clone()
}

fn names(vars: &Value) -> Vec<String> {
    vars.as_array()
        .map(|l| l.iter().filter_map(|v| v["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// `inspect_me.py`: `compute(3)` calls `add(total, k)` at line 13; `add` has `c = a + b` at 6.
#[test]
fn context_evaluate_and_steps_land_on_the_right_lines() {
    let mut a = Agent::start();
    let program = fixture("py/inspect_me.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 13}]}));
    assert_eq!((line(&r), function(&r)), (json!(13), json!("compute")), "{}", r.text);

    let c = a.ok("context", json!({}));
    assert!(c.text.starts_with("s1 stopped (breakpoint) at inspect_me.py:13 in compute()"), "{}", c.text);
    assert!(c.text.contains("→   13          total = add(total, k)"), "the current line is marked:\n{}", c.text);
    assert_eq!(c.s["source"]["line"], json!(13));
    // The text names the locals' ref (what `variables` and `set_variable` take).
    assert!(c.text.contains(&format!("\nlocals [ref {}]:", c.s["locals"]["ref"])), "{}", c.text);
    let locals = names(&c.s["locals"]["variables"]);
    for name in ["n", "total", "k"] {
        assert!(locals.contains(&name.to_owned()), "{name} in locals {locals:?}");
    }
    let frames: Vec<Value> = c.s["frames"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        frames.iter().map(|f| f["function"].clone()).collect::<Vec<_>>()[..2],
        [json!("compute"), json!("<module>")]
    );
    assert!(frames.iter().all(|f| f["frame"].as_u64().is_some_and(|h| h >= 1000)), "frames carry handles: {frames:?}");

    let e = a.ok("evaluate", json!({"expression": "n * 100 + total * 10 + k"}));
    assert_eq!(e.s["value"], json!("300"), "{}", e.text);
    assert_eq!(e.text, "n * 100 + total * 10 + k = 300  (int)");
    // In another frame: the module's `big` is visible from <module>, and `n` is not.
    let module = frames[1]["frame"].clone();
    let e = a.ok("evaluate", json!({"expression": "len(big)", "frame": module}));
    assert_eq!(e.s["value"], json!("10000"), "{}", e.text);
    let e = a.call("evaluate", json!({"expression": "undefined_name + 1"}));
    assert!(e.is_error && e.code() == "adapter_error" && e.text.contains("undefined_name"), "{}", e.text);

    let r = a.ok("step", json!({"kind": "in"}));
    assert_eq!(
        (line(&r), function(&r), r.s["stop"]["reason"].clone()),
        (json!(6), json!("add"), json!("step")),
        "{}",
        r.text
    );
    let r = a.ok("step", json!({"kind": "over"}));
    assert_eq!((line(&r), function(&r)), (json!(7), json!("add")), "{}", r.text);
    let e = a.ok("evaluate", json!({"expression": "c"}));
    assert_eq!(e.s["value"], json!("0"), "add(0, 0) = 0: {}", e.text);
    let r = a.ok("step", json!({"kind": "out"}));
    assert_eq!((line(&r), function(&r)), (json!(13), json!("compute")), "{}", r.text);
    let r = a.ok("step", json!({}));
    assert_eq!((line(&r), function(&r)), (json!(12), json!("compute")), "the loop header comes next: {}", r.text);
    let bad = a.call("step", json!({"kind": "sideways"}));
    assert!(bad.is_error && bad.code() == "invalid_argument", "{}", bad.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn variables_page_a_big_list_threads_and_stale_handles_are_refused_before_sending() {
    let mut a = Agent::start();
    let program = fixture("py/inspect_me.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 28}]}));
    assert_eq!(line(&r), json!(28), "{}", r.text);

    // The stop read the locals (its own `variables`); the pages below add one more.
    let variables_sent = |a: &mut Agent| sent_commands(&a.dap_log("s1")).iter().filter(|c| *c == "variables").count();
    let at_stop = variables_sent(&mut a);
    let big = a.ok("evaluate", json!({"expression": "big"}));
    let reference = big.s["ref"].clone();
    assert!(reference.as_u64().is_some(), "a list has children: {}", big.s);
    // Every child: debugpy's groups, the first 100 items, then `more` (the rest) and `len()`.
    let all = a.ok("variables", json!({"ref": reference, "count": 500}));
    let total = all.s["total"].as_u64().unwrap_or(0);
    assert!(total > 100, "{}", all.text);
    assert!(all.s.get("next_start").is_none(), "one page held everything: {}", all.s);
    assert!(names(&all.s["variables"]).contains(&"more".to_owned()), "the rest sits under `more`: {}", all.text);
    assert_eq!(all.s["length"], json!(10000), "the real length is said: {}", all.text);
    // The items, paged by agentdap from that one fetch.
    let p1 = a.ok("variables", json!({"ref": reference, "count": 50, "filter": "indexed"}));
    let values: Vec<Value> = p1.s["variables"].as_array().cloned().unwrap_or_default();
    assert_eq!(values.len(), 50, "{}", p1.text);
    assert_eq!((values[0]["value"].clone(), values[49]["value"].clone()), (json!("0"), json!("49")));
    assert_eq!((p1.s["truncated"].clone(), p1.s["next_start"].clone()), (json!(true), json!(50)), "{}", p1.s);
    assert_eq!(p1.s["total"], json!(100), "{}", p1.s);
    assert!(p1.text.contains("(truncated: call variables with start=50 for more)"), "{}", p1.text);
    let p2 = a.ok("variables", json!({"ref": reference, "start": 50, "count": 50, "filter": "indexed"}));
    let values: Vec<Value> = p2.s["variables"].as_array().cloned().unwrap_or_default();
    assert_eq!((values[0]["value"].clone(), values[49]["value"].clone()), (json!("50"), json!("99")), "{}", p2.text);
    assert!(p2.s.get("next_start").is_none(), "the last page says nothing more: {}", p2.s);
    // One fetch per revision: three pages, one DAP `variables` request.
    assert_eq!(variables_sent(&mut a), at_stop + 1, "{:?}", sent_commands(&a.dap_log("s1")));

    let t = a.ok("threads", json!({}));
    let threads: Vec<Value> = t.s["threads"].as_array().cloned().unwrap_or_default();
    assert!(threads.len() >= 2, "{}", t.text);
    let worker = threads.iter().find(|t| t["name"] == json!("worker")).unwrap_or_else(|| panic!("{}", t.text));
    a.ok("threads", json!({"select": worker["id"]}));
    let st = a.ok("stack_trace", json!({}));
    let fns: Vec<Value> =
        st.s["frames"].as_array().map(|f| f.iter().map(|f| f["function"].clone()).collect()).unwrap_or_default();
    assert!(fns.contains(&json!("worker")), "the worker's stack: {}", st.text);
    let bad = a.call("threads", json!({"select": 987654}));
    assert!(bad.is_error && bad.code() == "invalid_argument" && bad.text.contains("987654"), "{}", bad.text);
    let main = threads.iter().find(|t| t["name"] == json!("MainThread")).expect("MainThread");
    a.ok("threads", json!({"select": main["id"]}));

    // Handles from this stop, then the program moves on.
    let c = a.ok("context", json!({}));
    let frame = c.s["frame"].clone();
    let locals = c.s["locals"]["ref"].clone();
    let before = sent_commands(&a.dap_log("s1")).len();
    let r = a.ok("step", json!({}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let sent_after_step = sent_commands(&a.dap_log("s1")).len();
    for (tool, args) in [
        ("evaluate", json!({"expression": "1", "frame": frame})),
        ("variables", json!({"ref": locals})),
        ("variables", json!({"ref": reference})),
        ("scopes", json!({"frame": frame})),
    ] {
        let r = a.call(tool, args.clone());
        assert!(r.is_error && r.code() == "target_invalidated", "{tool} {args}: {}", r.text);
        assert!(r.text.contains("earlier stop"), "{}", r.text);
    }
    assert_eq!(sent_commands(&a.dap_log("s1")).len(), sent_after_step, "nothing was sent for stale handles");
    assert!(sent_after_step > before);
    let unknown = a.call("variables", json!({"ref": 7}));
    assert!(unknown.is_error && unknown.code() == "invalid_argument", "{}", unknown.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn pause_stops_a_busy_loop_and_wait_answers_at_once_for_a_stop_already_seen() {
    let mut a = Agent::start();
    let program = fixture("py/busy.py");
    let r = a.ok("launch", json!({"program": program, "stop_on_entry": false, "wait_ms": 2500}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    assert!(r.text.contains("still running when the wait ended"), "{}", r.text);
    let inspect = a.call("context", json!({}));
    assert!(inspect.is_error && inspect.code() == "not_stopped", "{}", inspect.text);

    let p = a.ok("pause", json!({}));
    assert_eq!((p.s["state"].clone(), p.s["stop"]["reason"].clone()), (json!("stopped"), json!("pause")), "{}", p.text);
    assert_eq!(p.s["stop"]["location"]["path"], json!(program));
    let rev = p.s["revision"].as_u64().expect("revision");

    let started = Instant::now();
    let w = a.ok("wait", json!({"since_revision": rev - 1, "wait_ms": 20000}));
    assert_eq!((w.s["satisfied"].clone(), w.s["revision"].clone()), (json!(true), json!(rev)), "{}", w.text);
    assert!(started.elapsed() < Duration::from_secs(10), "answered at once, not after wait_ms");
    let w = a.ok("wait", json!({"since_revision": rev, "wait_ms": 200}));
    assert_eq!(w.s["satisfied"], json!(false), "no newer stop: {}", w.text);
    assert!(w.text.contains("wait_ms ran out"), "{}", w.text);
    let again = a.ok("pause", json!({}));
    assert!(again.text.contains("stopped"), "pausing a stopped session says so: {}", again.text);
    a.ok("disconnect", json!({}));
}

/// Progress every second while `continue` waits; a cancelled `wait` is never answered, and the
/// session keeps working.
#[test]
fn progress_during_a_long_continue_and_a_cancelled_wait_gets_no_response() {
    let mut a = Agent::start();
    let program = fixture("py/busy.py");
    let r = a.ok("launch", json!({"program": program}));
    assert_eq!(r.s["stop"]["reason"], json!("entry"), "{}", r.text);

    a.d.send_json(&json!({"jsonrpc": "2.0", "id": 900, "method": "tools/call",
        "params": {"name": "continue", "arguments": {"wait_ms": 2600}, "_meta": {"progressToken": "tok-1"}}}));
    let mut progress = Vec::new();
    let result = loop {
        let msg = a.d.recv();
        if msg["method"] == json!("notifications/progress") {
            progress.push(msg["params"].clone());
            continue;
        }
        assert_eq!(msg["id"], json!(900), "{msg}");
        break msg["result"].clone();
    };
    assert_eq!(result["structuredContent"]["state"], json!("running"), "{result}");
    assert!(progress.len() >= 2, "a notification every second: {progress:?}");
    assert!(progress.iter().all(|p| p["progressToken"] == json!("tok-1")), "{progress:?}");
    let values: Vec<f64> = progress.iter().filter_map(|p| p["progress"].as_f64()).collect();
    assert!(values.windows(2).all(|w| w[1] > w[0]), "progress increases: {values:?}");
    assert!(progress[0]["message"].as_str().is_some_and(|m| m.contains("s1 running")), "{progress:?}");

    a.d.send_json(&json!({"jsonrpc": "2.0", "id": 901, "method": "tools/call",
        "params": {"name": "wait", "arguments": {"wait_ms": 1500}}}));
    a.d.send_json(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 901, "reason": "test"}}),
    );
    let s = a.ok("sessions", json!({}));
    assert_eq!(s.s["sessions"][0]["state"], json!("running"), "the program was not touched: {}", s.text);
    let deadline = Instant::now() + Duration::from_millis(2500);
    while let Some(line) = a.d.recv_line_within(deadline.saturating_duration_since(Instant::now())) {
        let msg: Value = serde_json::from_str(&line).expect("json");
        assert_ne!(msg["id"], json!(901), "a cancelled request is never answered: {msg}");
    }
    let p = a.ok("pause", json!({}));
    assert_eq!(p.s["state"], json!("stopped"), "the session still works: {}", p.text);
    a.ok("disconnect", json!({}));
}

/// A client subscribed to `agentdap://session/{id}/state` hears of every stop, resume and exit
/// (MCP `notifications/resources/updated`); the resource then reads the new state.
#[test]
fn subscribers_hear_of_state_changes() {
    let mut a = Agent::start();
    let r = a.rpc("resources/subscribe", json!({"uri": "agentdap://session/s1/state"}));
    assert!(r.get("result").is_some(), "{r}");
    let program = fixture("py/loop.py");
    a.d.send_json(&json!({"jsonrpc": "2.0", "id": 700, "method": "tools/call",
        "params": {"name": "launch", "arguments": {"program": program, "breakpoints": [{"path": program, "line": 7}]}}}));
    let mut updates = 0;
    loop {
        let msg = a.d.recv();
        if msg["method"] == json!("notifications/resources/updated") {
            assert_eq!(msg["params"]["uri"], json!("agentdap://session/s1/state"), "{msg}");
            updates += 1;
            continue;
        }
        assert_eq!(msg["id"], json!(700), "{msg}");
        break;
    }
    assert!(updates >= 1, "the stop was announced");
    let state: Value = serde_json::from_str(&a.resource("agentdap://session/s1/state")).expect("json");
    assert_eq!(state["state"], json!("stopped"), "{state}");
    a.ok("disconnect", json!({}));
}

/// The preview of a value `variables` lists, by name.
fn preview_of(vars: &Value, name: &str) -> Option<String> {
    let v = vars.as_array()?.iter().find(|v| v["name"] == json!(name))?;
    v["preview"].as_str().map(str::to_owned)
}

/// Objects with Python's default repr read as their fields in `context`, `evaluate` and
/// `variables` (one nested level); values that already say something are left as they are.
#[test]
fn objects_with_a_default_repr_show_their_fields() {
    let mut a = Agent::start();
    let program = fixture("py/objects.py");
    a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 19}]}));
    let c = a.ok("context", json!({}));
    assert!(c.text.contains("\n  p = {x = 3, y = 4} (Point) [ref "), "{}", c.text);
    assert!(c.text.contains("\n  seg = {a = {x = 1, y = 2}, b = {x = 3, y = 4}} (Segment) [ref "), "{}", c.text);
    let locals = &c.s["locals"]["variables"];
    assert_eq!(preview_of(locals, "p").as_deref(), Some("{x = 3, y = 4}"), "{locals}");
    assert!(agent::var_value(locals, "p").contains("Point object at 0x"), "the adapter's value is kept: {locals}");
    assert_eq!(preview_of(locals, "table"), None, "a dict's repr says enough: {locals}");
    assert_eq!(agent::var_value(locals, "table"), "{'k': 1}");

    let e = a.ok("evaluate", json!({"expression": "seg.b"}));
    assert_eq!(e.s["preview"], json!("{x = 3, y = 4}"), "{}", e.text);
    assert!(e.text.starts_with("seg.b = {x = 3, y = 4}  (Point)"), "{}", e.text);

    let v = a.ok("variables", json!({"ref": agent::var_ref(locals, "pts")}));
    assert_eq!(preview_of(&v.s["variables"], "0").as_deref(), Some("{x = 5, y = 6}"), "{}", v.text);
    assert_eq!(preview_of(&v.s["variables"], "1").as_deref(), Some("{x = 7, y = 8}"), "{}", v.text);
    a.ok("disconnect", json!({}));
}

/// A stop asks for no thread list: the ids the agent may name are those agentdap has shown it (a
/// stop's thread, a `threads` answer); another id is refused before anything is sent.
#[test]
fn thread_ids_come_from_stops_and_threads_and_stops_ask_for_no_list() {
    let mut a = Agent::start();
    let program = fixture("py/threads_later.py");
    let bps = json!([{"path": program, "line": 12}, {"path": program, "line": 16}, {"path": program, "line": 17}]);
    let sent_threads = |a: &mut Agent| sent_commands(&a.dap_log("s1")).iter().filter(|c| *c == "threads").count();
    let r = a.ok("launch", json!({"program": program, "breakpoints": bps}));
    assert_eq!(line(&r), json!(12), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(line(&r), json!(16), "{}", r.text);
    assert_eq!(sent_threads(&mut a), 0, "stops with a thread id need no `threads`");
    // The late thread has not been shown yet; a made-up id never reaches debugpy (which would
    // resume every thread).
    let bad = a.call("continue", json!({"thread": 987654}));
    assert!(bad.is_error && bad.code() == "invalid_argument" && bad.text.contains("call `threads`"), "{}", bad.text);
    let t = a.ok("threads", json!({}));
    let late = t.s["threads"]
        .as_array()
        .and_then(|l| l.iter().find(|t| t["name"] == json!("late-worker")))
        .map(|t| t["id"].clone())
        .unwrap_or_else(|| panic!("{}", t.text));
    a.ok("threads", json!({"select": late}));
    let st = a.ok("stack_trace", json!({}));
    assert!(st.text.contains("worker"), "the focus moved to the late thread: {}", st.text);
    let main = t.s["threads"].as_array().and_then(|l| l.iter().find(|t| t["name"] == json!("MainThread"))).cloned();
    a.ok("threads", json!({"select": main.map(|m| m["id"].clone()).unwrap_or_default()}));
    let r = a.ok("continue", json!({}));
    assert_eq!(line(&r), json!(17), "{}", r.text);
    assert_eq!(sent_threads(&mut a), 1, "only the agent's own `threads` call");
    a.ok("disconnect", json!({}));
}
