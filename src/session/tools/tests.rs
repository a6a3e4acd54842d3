//! Sans-IO tests of the tool groups for what no real adapter does on demand: an
//! adapter that acknowledges a `setVariable` that did not take, and the temporary entry
//! breakpoint travelling with (and leaving) the agent's function breakpoints.

use std::time::Instant;

use serde_json::{json, Value};

use crate::dap::framing::{Decoder, Encoder};
use crate::reply::CallKey;
use crate::session::breakpoints::FunctionBreakpoint;
use crate::session::{Action, AdapterPlan, LaunchArgs, Sessions, ToolResult};

/// A session driven by hand: requests agentdap sent are read back, answers are fed in.
struct Fake {
    s: Sessions,
    now: Instant,
    seq: i64,
}

impl Fake {
    fn new(entry_function: Option<&'static str>, functions: &[&str]) -> Fake {
        let now = Instant::now();
        let mut s = Sessions::default();
        let list = functions
            .iter()
            .map(|n| FunctionBreakpoint { name: (*n).into(), condition: None, hit_condition: None })
            .collect();
        s.pending_breakpoints.set_functions(list);
        let plan = AdapterPlan { entry_function, ..crate::session::tests::lldb_plan() };
        s.launch(LaunchArgs { program: "/p".into(), ..LaunchArgs::default() }, plan, CallKey::new(1), now)
            .expect("started");
        s.on_spawned(0, now);
        while s.next_action(now).is_some() {}
        Fake { s, now, seq: 100 }
    }

    /// Requests sent since the last call.
    fn sent(&mut self) -> Vec<Value> {
        let bytes = self.s.outbound(0).to_vec();
        self.s.consume(0, bytes.len());
        let mut out = Vec::new();
        Decoder::new().feed(&bytes, |f| {
            if let Ok(body) = f {
                out.push(serde_json::from_slice(body).unwrap_or(Value::Null));
            }
        });
        out
    }

    fn feed(&mut self, mut msg: Value) {
        self.seq += 1;
        msg["seq"] = self.seq.into();
        let bytes = Encoder::new().encode(&msg).unwrap_or_default();
        self.s.on_adapter_bytes(0, &bytes, self.now);
    }

    /// Answers `request` with `body`.
    fn answer(&mut self, request: &Value, body: Value) {
        let command = request["command"].clone();
        self.feed(json!({"type": "response", "request_seq": request["seq"], "command": command, "success": true, "body": body}));
    }

    /// Answers every request in `sent` whose command has an entry in `bodies`.
    fn answer_all(&mut self, sent: &[Value], bodies: &[(&str, Value)]) {
        for r in sent {
            if let Some((_, b)) = bodies.iter().find(|(c, _)| r["command"] == json!(c)) {
                self.answer(r, b.clone());
            }
        }
    }

    fn results(&mut self) -> Vec<(CallKey, ToolResult)> {
        std::iter::from_fn(|| self.s.next_action(self.now))
            .filter_map(|a| match a {
                Action::Complete { call, output } => Some((call, output)),
                _ => None,
            })
            .collect()
    }

    /// Through initialize (with `caps`) and the configuration phase; returns what went out.
    fn start(&mut self, caps: Value) -> Vec<Value> {
        let sent = self.sent();
        self.answer_all(&sent, &[("initialize", caps)]);
        self.feed(json!({"type": "event", "event": "initialized"}));
        self.sent()
    }

    /// A stop on thread 1 at line 3, with its details answered.
    fn stop(&mut self) {
        self.feed(json!({"type": "event", "event": "stopped", "body": {"reason": "breakpoint", "threadId": 1}}));
        let sent = self.sent();
        let frame = json!({"stackFrames": [{"id": 7, "name": "f", "line": 3, "source": {"path": "/p.c"}}]});
        self.answer_all(&sent, &[("stackTrace", frame), ("threads", json!({"threads": [{"id": 1, "name": "main"}]}))]);
        // The stop result's locals (`stop_frame.rs`): this frame has no scopes.
        let sent = self.sent();
        self.answer_all(&sent, &[("scopes", json!({"scopes": []}))]);
        self.results();
    }
}

#[test]
fn a_set_the_adapter_acknowledges_but_that_does_not_take_is_reported() {
    let mut f = Fake::new(None, &[]);
    f.start(json!({"supportsSetVariable": true, "supportsConfigurationDoneRequest": true}));
    f.stop();
    let call = CallKey::new(2);
    f.s.scopes(0, super::inspect::Target::default(), call, f.now).expect("started");
    let sent = f.sent();
    f.answer_all(&sent, &[("scopes", json!({"scopes": [{"name": "Locals", "variablesReference": 5}]}))]);
    let scopes = f.results();
    let locals = scopes[0].1.structured["scopes"][0]["ref"].as_i64().unwrap_or(0);

    let call = CallKey::new(3);
    f.s.set_variable(0, locals, "x".into(), "42".into(), call, f.now).expect("started");
    let vars = json!({"variables": [{"name": "x", "value": "3", "type": "int", "variablesReference": 0}]});
    let sent = f.sent();
    assert_eq!(sent[0]["command"], json!("variables"), "the value before");
    f.answer_all(&sent, &[("variables", vars.clone())]);
    let sent = f.sent();
    assert_eq!(sent[0]["arguments"], json!({"variablesReference": 5, "name": "x", "value": "42"}), "raw id sent");
    f.answer_all(&sent, &[("setVariable", json!({"value": "42", "type": "int"}))]);
    let sent = f.sent();
    assert_eq!(sent[0]["command"], json!("variables"), "the read-back");
    f.answer_all(&sent, &[("variables", vars)]);
    let done = f.results();
    let out = &done[0].1;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        (out.structured["changed"].clone(), out.structured["acknowledged_without_effect"].clone()),
        (json!(false), json!(true)),
        "{}",
        out.structured
    );
    assert!(out.text.starts_with("x is still 3: the adapter acknowledged setting it to 42"), "{}", out.text);
}

#[test]
fn the_entry_breakpoint_travels_with_the_agents_function_breakpoints_and_leaves_alone() {
    let mut f = Fake::new(Some("main"), &["square"]);
    let sent = f.start(json!({"supportsFunctionBreakpoints": true, "supportsConfigurationDoneRequest": true}));
    let set = sent.iter().find(|r| r["command"] == json!("setFunctionBreakpoints")).cloned().unwrap_or_default();
    assert_eq!(set["arguments"], json!({"breakpoints": [{"name": "square"}, {"name": "main"}]}));
    f.answer(&set, json!({"breakpoints": [{"id": 1, "verified": true}, {"id": 2, "verified": true}]}));
    f.stop();
    let log: Vec<Value> =
        f.s.get(0)
            .map(|s| s.evidence.dap_log.iter().filter_map(|e| serde_json::from_str(&e.text()).ok()).collect())
            .unwrap_or_default();
    let removal = log
        .iter()
        .rev()
        .find(|m: &&Value| m["command"] == json!("setFunctionBreakpoints") && m["type"] == json!("request"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(removal["arguments"], json!({"breakpoints": [{"name": "square"}]}), "only the agent's stay");
    let store = &f.s.get(0).map(|s| s.breaks.store.functions().to_vec()).unwrap_or_default();
    assert_eq!(store[0].bound.as_ref().map(|b| (b.id, b.verified)), Some((Some(1), true)));
}

/// A `context` whose locals never come (a repr that never returns) answers after one timeout,
/// not one per watch: the watches are reported skipped, none of them is sent.
#[test]
fn a_context_stops_at_its_first_timeout() {
    let mut f = Fake::new(None, &[]);
    f.start(json!({"supportsConfigurationDoneRequest": true}));
    f.stop();
    let watched = f.s.watch(0, vec!["a".into(), "b".into(), "c".into()], &[]).unwrap_or_else(|e| e);
    assert!(!watched.is_error, "{}", watched.text);
    let call = CallKey::new(4);
    f.s.context(0, super::inspect::Target::default(), None, None, call, f.now).expect("started");
    let sent = f.sent();
    let frame = json!({"stackFrames": [{"id": 7, "name": "f", "line": 3, "source": {"path": "/p.c"}}]});
    f.answer_all(&sent, &[("stackTrace", frame)]);
    let sent = f.sent();
    f.answer_all(&sent, &[("scopes", json!({"scopes": [{"name": "Locals", "variablesReference": 5}]}))]);
    assert_eq!(f.sent()[0]["command"], json!("variables"));
    // The `variables` request never gets an answer: past the request timeout.
    f.now += std::time::Duration::from_secs(31);
    f.s.on_timer(f.now);
    let done = f.results();
    let out = &done.iter().find(|(c, _)| *c == call).expect("the context answered").1;
    assert!(!out.is_error, "{}", out.text);
    let evaluates = f.sent().iter().filter(|r| r["command"] == json!("evaluate")).count();
    assert_eq!(evaluates, 0, "no watch was sent after the timeout");
    assert_eq!(out.structured["watches"].as_array().map(Vec::len), Some(3), "{}", out.structured);
    assert!(out.text.contains("skipped: an earlier request of this context timed out"), "{}", out.text);
}
