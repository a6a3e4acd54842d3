use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::*;
use crate::dap::framing::Decoder;

#[derive(Default)]
struct FakeHost {
    forwarded: Vec<(i64, String, Option<Value>)>,
    stop: Option<Value>,
    others_attached: usize,
    agent_waiting: bool,
    mode: Mode,
    asked: Vec<String>,
    breakpoints: Vec<(i64, String)>,
}

impl Host for FakeHost {
    fn capabilities(&self) -> Option<Map<String, Value>> {
        // debugpy's: no loadedSources, readMemory or disassemble.
        json!({"supportsSetVariable": true, "supportsEvaluateForHovers": true, "supportsModulesRequest": true,
            "supportsLoadedSourcesRequest": false})
        .as_object()
        .cloned()
    }
    fn forward(&mut self, request_seq: i64, command: &str, arguments: Option<Value>) {
        self.forwarded.push((request_seq, command.to_owned(), arguments));
    }
    fn late_join_stop(&self) -> Option<Value> {
        self.stop.clone()
    }
    fn other_attached_clients(&self) -> usize {
        self.others_attached
    }
    fn agent_waiting(&self) -> bool {
        self.agent_waiting
    }
    fn mode(&self) -> Mode {
        self.mode
    }
    fn asked_control(&mut self, command: &str) {
        self.asked.push(command.to_owned());
    }
    fn set_breakpoints(&mut self, request_seq: i64, command: &str, _arguments: Option<Value>) {
        self.breakpoints.push((request_seq, command.to_owned()));
    }
}

const TOKEN: &str = "secret-token";

fn client(now: Instant) -> ClientCore {
    ClientCore::new("test client".into(), Token::from_text(TOKEN), now + Duration::from_secs(30))
}

fn frame(seq: i64, command: &str, arguments: Value) -> Vec<u8> {
    let body = json!({"seq": seq, "type": "request", "command": command, "arguments": arguments}).to_string();
    let mut out = Vec::new();
    framing::write_frame(&mut out, body.as_bytes());
    out
}

/// Every message the client wrote so far (and consumes them).
fn written(c: &mut ClientCore) -> Vec<Value> {
    let bytes = c.outbound().to_vec();
    c.consume(bytes.len());
    let mut out = Vec::new();
    Decoder::new().feed(&bytes, |f| out.push(framing::parse_body(f.expect("frame")).expect("json")));
    out
}

fn attached(now: Instant, host: &mut FakeHost) -> ClientCore {
    let mut c = client(now);
    c.receive(&frame(1, "initialize", json!({})), now, host);
    c.receive(&frame(2, "attach", json!({"mirrorToken": TOKEN})), now, host);
    written(&mut c);
    c
}

#[test]
fn the_handshake_masks_capabilities_and_sends_initialized_after_a_good_attach() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = client(now);
    c.receive(&frame(1, "initialize", json!({})), now, &mut host);
    c.receive(&frame(2, "attach", json!({"mirrorToken": TOKEN})), now, &mut host);
    let out = written(&mut c);
    assert_eq!(out[0]["request_seq"], 1);
    assert_eq!(out[0]["body"]["supportsSetVariable"], false);
    assert_eq!(out[0]["body"]["supportsEvaluateForHovers"], true);
    assert_eq!((out[1]["request_seq"].clone(), out[1]["success"].clone()), (json!(2), json!(true)));
    assert_eq!(out[2]["event"], "initialized");
    assert!(c.is_attached() && !c.closing() && c.next_deadline() == Some(now + LATE_JOIN_FALLBACK));
}

#[test]
fn a_wrong_or_missing_token_is_an_error_shown_to_the_user_then_the_client_closes() {
    for args in [json!({"mirrorToken": "nope"}), json!({}), json!({"mirrorToken": 7})] {
        let (now, mut host) = (Instant::now(), FakeHost::default());
        let mut c = client(now);
        c.receive(&frame(1, "attach", args.clone()), now, &mut host);
        let out = written(&mut c);
        assert_eq!(out.len(), 1, "{args}: {out:?}");
        assert_eq!(out[0]["success"], false);
        assert_eq!(out[0]["body"]["error"]["showUser"], true);
        assert!(!out[0].to_string().contains(TOKEN));
        assert!(c.closing() && !c.is_attached(), "{args}");
        // Nothing more is read once closing.
        c.receive(&frame(2, "threads", json!({})), now, &mut host);
        assert!(written(&mut c).is_empty() && host.forwarded.is_empty());
    }
}

#[test]
fn requests_before_attach_are_refused_and_the_auth_deadline_closes_the_client() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = client(now);
    c.receive(&frame(1, "threads", json!({})), now, &mut host);
    assert_eq!(written(&mut c)[0]["success"], false);
    assert!(host.forwarded.is_empty());
    assert_eq!(c.next_deadline(), Some(now + Duration::from_secs(30)));
    c.on_timer(now + Duration::from_secs(29), &mut host);
    assert!(!c.closing());
    c.on_timer(now + Duration::from_secs(30), &mut host);
    assert!(c.closing());
}

#[test]
fn reads_are_forwarded_control_is_refused_quietly_and_breakpoints_soft_succeed() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    c.receive(&frame(3, "stackTrace", json!({"threadId": 1})), now, &mut host);
    assert_eq!(host.forwarded, vec![(3, "stackTrace".to_owned(), Some(json!({"threadId": 1})))]);
    for (seq, command) in [(4, "continue"), (5, "next"), (6, "setVariable"), (7, "restart"), (8, "somethingNew")] {
        c.receive(&frame(seq, command, json!({})), now, &mut host);
        let out = written(&mut c);
        assert_eq!((out[0]["request_seq"].clone(), out[0]["success"].clone()), (json!(seq), json!(false)));
        assert_eq!(out[0]["body"]["error"]["showUser"], false, "{command} is refused quietly");
    }
    assert_eq!(host.forwarded.len(), 1, "nothing else reached the session");
    c.receive(&frame(9, "setBreakpoints", json!({"breakpoints": [{"line": 1}, {"line": 2}]})), now, &mut host);
    let out = written(&mut c);
    assert_eq!(out[0]["success"], true);
    assert_eq!(out[0]["body"]["breakpoints"].as_array().map(Vec::len), Some(2));
    assert_eq!(out[0]["body"]["breakpoints"][1]["verified"], false);
}

#[test]
fn a_frame_over_the_size_cap_closes_the_client_before_anything_else_it_sent() {
    for claim in [(CLIENT_MAX_BODY + 1).to_string(), "999999999999".into(), "9".repeat(40)] {
        let (now, mut host) = (Instant::now(), FakeHost::default());
        let mut c = attached(now, &mut host);
        let lie = [format!("Content-Length: {claim}\r\n\r\n").as_bytes(), &frame(3, "stackTrace", json!({}))].concat();
        c.receive(&lie, now, &mut host);
        assert!(c.closing(), "{claim}");
        assert_eq!(host.forwarded, [], "{claim}: nothing after the lie reached the session");
        c.receive(&frame(4, "threads", json!({})), now, &mut host);
        assert_eq!((host.forwarded.len(), c.outbound().len()), (0, 0), "{claim}");
    }
}

#[test]
fn forwarded_answers_carry_each_request_seq_also_out_of_order() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    c.receive(
        &[frame(10, "threads", json!({})), frame(11, "evaluate", json!({"expression": "x"}))].concat(),
        now,
        &mut host,
    );
    let answer = |command: &str| Response {
        seq: Seq::new(0),
        request_seq: Seq::new(0),
        success: true,
        command: command.to_owned(),
        message: None,
        body: Some(json!({})),
    };
    c.complete(11, answer("evaluate"), &mut host);
    c.complete(10, answer("threads"), &mut host);
    let out = written(&mut c);
    assert_eq!((out[0]["request_seq"].clone(), out[0]["command"].clone()), (json!(11), json!("evaluate")));
    assert_eq!((out[1]["request_seq"].clone(), out[1]["command"].clone()), (json!(10), json!("threads")));
    assert!(out[1]["seq"].as_i64() > out[0]["seq"].as_i64(), "the client's own seq keeps increasing");
}

#[test]
fn late_join_stop_follows_configuration_done_or_the_fallback_once() {
    let (now, mut host) = (
        Instant::now(),
        FakeHost { stop: Some(json!({"reason": "breakpoint", "threadId": 1})), ..FakeHost::default() },
    );
    let mut c = attached(now, &mut host);
    c.receive(&frame(3, "configurationDone", json!({})), now, &mut host);
    let out = written(&mut c);
    assert_eq!(out[0]["command"], "configurationDone");
    assert_eq!((out[1]["event"].clone(), out[1]["body"]["reason"].clone()), (json!("stopped"), json!("breakpoint")));
    c.on_timer(now + Duration::from_secs(5), &mut host);
    assert!(written(&mut c).is_empty(), "only once");

    // A client that skips configurationDone gets it after the fallback.
    let mut c = attached(now, &mut host);
    c.on_timer(now + LATE_JOIN_FALLBACK - Duration::from_millis(1), &mut host);
    assert!(written(&mut c).is_empty());
    c.on_timer(now + LATE_JOIN_FALLBACK, &mut host);
    assert_eq!(written(&mut c)[0]["event"], "stopped");

    // A real stop before the handshake ends replaces the synthesized one.
    let mut c = attached(now, &mut host);
    c.event("stopped", Some(json!({"reason": "step"})));
    c.receive(&frame(3, "configurationDone", json!({})), now, &mut host);
    let out = written(&mut c);
    assert_eq!(out.iter().filter(|m| m["event"] == "stopped").count(), 1, "{out:?}");
}

#[test]
fn terminated_is_sent_exactly_once_and_only_to_attached_clients() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    c.event("terminated", None);
    c.terminate();
    c.event("output", Some(json!({"output": "late"})));
    let out = written(&mut c);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(c.closing());
    let mut pending = client(now);
    pending.event("output", Some(json!({"output": "x"})));
    pending.terminate();
    assert!(written(&mut pending).is_empty(), "a client that never attached hears nothing");
}

#[test]
fn a_client_that_does_not_read_is_cut_off_at_the_cap() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let chunk = "x".repeat(64 << 10);
    for _ in 0..(CLIENT_OUT_CAP / chunk.len() + 2) {
        c.event("output", Some(json!({"category": "stdout", "output": chunk})));
    }
    assert!(c.overflowed() && c.closing());
    assert!(c.outbound().len() <= CLIENT_OUT_CAP + chunk.len() + 200, "{}", c.outbound().len());
}

#[test]
fn content_length_counts_bytes_for_non_ascii_bodies() {
    // The mirror's writer: `Content-Length` counts bytes (DAP § Base Protocol), not characters
    // (microsoft/vscode#99421).
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    c.event("output", Some(json!({"category": "stdout", "output": "héllo ✓ 变量\n"})));
    let bytes = c.outbound().to_vec();
    let text = String::from_utf8(bytes.clone()).expect("utf-8");
    let (header, body) = text.split_once("\r\n\r\n").expect("header");
    let n: usize = header.trim_start_matches("Content-Length: ").parse().expect("length");
    assert_eq!(n, body.len());
    assert!(n > body.chars().count());
    assert_eq!(written(&mut c)[0]["body"]["output"], "héllo ✓ 变量\n");
}

#[test]
fn a_client_over_the_attached_cap_hears_why_then_closes() {
    let now = Instant::now();
    let mut host = FakeHost { others_attached: MAX_CLIENTS, ..FakeHost::default() };
    for command in ["initialize", "attach"] {
        let mut c = client(now);
        c.receive(&frame(1, command, json!({"mirrorToken": TOKEN})), now, &mut host);
        let out = written(&mut c);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0]["success"], false);
        assert!(out[0]["message"].as_str().is_some_and(|m| m.contains("4 clients")), "{out:?}");
        assert!(c.closing() && !c.is_attached());
    }
    // Three attached elsewhere: this one gets in.
    host.others_attached = MAX_CLIENTS - 1;
    let c = attached(now, &mut host);
    assert!(c.is_attached());
}

#[test]
fn requests_the_adapter_cannot_answer_are_refused_without_reaching_it() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let cases = [
        (3, "loadedSources", json!({})),
        (4, "readMemory", json!({"memoryReference": "0x0", "count": 16})),
        (5, "disassemble", json!({"memoryReference": "0x0", "instructionCount": 1})),
        (6, "variables", json!({"variablesReference": 2.0})),
        (7, "scopes", json!({"frameId": "1000"})),
        (8, "evaluate", json!({"expression": "s", "frameId": 1.0})),
        (9, "source", json!({"source": {"path": "/x.py"}})),
    ];
    for (seq, command, args) in cases {
        c.receive(&frame(seq, command, args.clone()), now, &mut host);
        let out = written(&mut c);
        assert_eq!(out.len(), 1, "{command}: {out:?}");
        assert_eq!((out[0]["request_seq"].clone(), out[0]["success"].clone()), (json!(seq), json!(false)), "{args}");
        assert_eq!(out[0]["command"], command);
    }
    assert!(host.forwarded.is_empty(), "{:?}", host.forwarded);
    c.receive(&frame(10, "modules", json!({})), now, &mut host);
    c.receive(&frame(11, "variables", json!({"variablesReference": 1001})), now, &mut host);
    let sent: Vec<&str> = host.forwarded.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(sent, ["modules", "variables"]);
}

#[test]
fn a_half_closed_client_still_gets_its_answers_then_closes() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    c.receive(&[frame(3, "threads", json!({})), frame(4, "modules", json!({}))].concat(), now, &mut host);
    c.finish_reading();
    assert!(!c.closing(), "two answers are due");
    let answer = |command: &str| Response {
        seq: Seq::new(0),
        request_seq: Seq::new(0),
        success: true,
        command: command.to_owned(),
        message: None,
        body: Some(json!({})),
    };
    c.complete(3, answer("threads"), &mut host);
    assert!(!c.closing());
    c.complete(4, answer("modules"), &mut host);
    let out = written(&mut c);
    let seqs: Vec<Value> = out.iter().map(|m| m["request_seq"].clone()).collect();
    assert_eq!(seqs, [json!(3), json!(4)]);
    assert!(c.closing());
}

#[test]
fn an_answer_too_large_for_the_client_becomes_an_error_response() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    // Over the per-answer limit, and over the whole write buffer's cap.
    for size in [MAX_RESPONSE + 1, CLIENT_OUT_CAP + 1] {
        c.receive(&frame(3, "evaluate", json!({"expression": "big"})), now, &mut host);
        let big = Response {
            seq: Seq::new(0),
            request_seq: Seq::new(0),
            success: true,
            command: "evaluate".into(),
            message: None,
            body: Some(json!({"result": "x".repeat(size), "variablesReference": 0})),
        };
        c.complete(3, big, &mut host);
        assert!(!c.overflowed() && !c.closing(), "{size}");
        let out = written(&mut c);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0]["request_seq"].clone(), out[0]["success"].clone()), (json!(3), json!(false)));
        assert!(out[0]["message"].as_str().is_some_and(|m| m.contains("too large for the mirror")), "{}", out[0]);
    }
}

#[test]
fn malformed_requests_with_a_seq_get_an_error_response() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let raw = |body: &str| {
        let mut out = Vec::new();
        framing::write_frame(&mut out, body.as_bytes());
        out
    };
    c.receive(&raw(r#"{"seq":5,"type":"request","arguments":{}}"#), now, &mut host);
    let out = written(&mut c);
    assert_eq!((out[0]["request_seq"].clone(), out[0]["success"].clone()), (json!(5), json!(false)), "{out:?}");
    // No seq, not JSON, or not a request: nothing to answer; the client stays.
    for body in [r#"{"type":"request","command":"threads"}"#, "{nope", r#"{"seq":6,"type":"event","event":"x"}"#] {
        c.receive(&raw(body), now, &mut host);
        assert!(written(&mut c).is_empty(), "{body}");
    }
    c.receive(&frame(7, "threads", json!({})), now, &mut host);
    assert_eq!(host.forwarded.len(), 1, "still served");
}

fn answer(command: &str) -> Response {
    Response {
        seq: Seq::new(0),
        request_seq: Seq::new(0),
        success: true,
        command: command.to_owned(),
        message: None,
        body: Some(json!({})),
    }
}

#[test]
fn a_client_has_at_most_the_cap_of_requests_at_the_adapter_and_the_rest_follow_in_order() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let burst: Vec<u8> =
        (0..10).flat_map(|i| frame(100 + i, "evaluate", json!({"expression": format!("e{i}")}))).collect();
    c.receive(&burst, now, &mut host);
    let seqs = |host: &FakeHost| host.forwarded.iter().map(|f| f.0).collect::<Vec<_>>();
    assert_eq!(seqs(&host), [100, 101], "only the cap reaches the session");
    assert!(written(&mut c).is_empty(), "queued, not refused");
    // Answers in any order: each frees a slot for the oldest queued request.
    c.complete(101, answer("evaluate"), &mut host);
    assert_eq!(seqs(&host)[2..], [102]);
    c.complete(100, answer("evaluate"), &mut host);
    c.complete(102, answer("evaluate"), &mut host);
    assert_eq!(seqs(&host)[3..], [103, 104]);
    let out = written(&mut c);
    let answered: Vec<Value> = out.iter().map(|m| m["request_seq"].clone()).collect();
    assert_eq!(answered, [json!(101), json!(100), json!(102)]);
    for seq in [103, 104, 105, 106, 107, 108, 109] {
        c.complete(seq, answer("evaluate"), &mut host);
    }
    assert_eq!(seqs(&host), (100..110).collect::<Vec<_>>(), "every request went out once, in order");
    assert_eq!(written(&mut c).len(), 7);
}

#[test]
fn a_timed_out_request_keeps_its_place_until_the_adapter_answers_it() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let burst: Vec<u8> =
        (0..4).flat_map(|i| frame(100 + i, "evaluate", json!({"expression": format!("e{i}")}))).collect();
    c.receive(&burst, now, &mut host);
    let n = MAX_ADAPTER_IN_FLIGHT;
    assert_eq!(host.forwarded.len(), n);
    // Told it timed out, while the adapter still works on it: nothing more goes out.
    c.answer(100, answer("evaluate"), true, &mut host);
    assert_eq!(written(&mut c).len(), 1, "the client hears the timeout at once");
    assert_eq!(host.forwarded.len(), n, "the adapter is still busy with it");
    // The adapter's late reply frees the place.
    c.release(&mut host);
    assert_eq!(host.forwarded.len(), n + 1);
}

#[test]
fn queued_requests_wait_while_the_agent_has_a_request_at_the_adapter() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    host.agent_waiting = true;
    c.receive(&frame(100, "threads", json!({})), now, &mut host);
    assert!(host.forwarded.is_empty() && c.has_queued(), "the agent goes first");
    host.agent_waiting = false;
    c.send_queued(&mut host);
    assert_eq!(host.forwarded.len(), 1);
    assert!(!c.has_queued());
}

#[test]
fn past_the_mirror_queue_a_request_is_answered_with_an_error_at_once() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let n = i64::try_from(MAX_IN_FLIGHT).unwrap() + 2;
    let burst: Vec<u8> = (0..n).flat_map(|i| frame(100 + i, "threads", json!({}))).collect();
    c.receive(&burst, now, &mut host);
    assert_eq!(host.forwarded.len(), MAX_ADAPTER_IN_FLIGHT);
    let out = written(&mut c);
    let refused: Vec<Value> = out.iter().map(|m| m["request_seq"].clone()).collect();
    assert_eq!(refused, [json!(100 + n - 2), json!(100 + n - 1)], "the two past the queue hear why");
    assert!(out.iter().all(|m| m["success"] == false && m["message"].as_str().unwrap().contains("in flight")));
}

#[test]
fn a_closing_client_sends_nothing_more_from_its_queue() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let burst: Vec<u8> = (0..8).flat_map(|i| frame(100 + i, "threads", json!({}))).collect();
    c.receive(&burst, now, &mut host);
    c.receive(&frame(200, "disconnect", json!({})), now, &mut host);
    c.complete(100, answer("threads"), &mut host);
    assert_eq!(host.forwarded.len(), MAX_ADAPTER_IN_FLIGHT, "nobody would read the answers");
}

#[test]
fn a_half_closed_client_waits_for_its_queued_requests_too() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    let burst: Vec<u8> = (0..6).flat_map(|i| frame(100 + i, "threads", json!({}))).collect();
    c.receive(&burst, now, &mut host);
    c.finish_reading();
    for seq in 100..104 {
        c.complete(seq, answer("threads"), &mut host);
    }
    assert!(!c.closing(), "two were still queued, now at the adapter");
    c.complete(104, answer("threads"), &mut host);
    c.complete(105, answer("threads"), &mut host);
    assert!(c.closing());
    assert_eq!(written(&mut c).len(), 6);
}

#[test]
fn a_read_only_clients_next_is_refused_quietly_and_asks_for_control_and_a_control_client_forwards_it() {
    let (now, mut host) = (Instant::now(), FakeHost::default());
    let mut c = attached(now, &mut host);
    c.receive(&frame(3, "next", json!({"threadId": 1})), now, &mut host);
    c.receive(&frame(4, "setVariable", json!({"variablesReference": 1, "name": "x", "value": "1"})), now, &mut host);
    let out = written(&mut c);
    assert_eq!((out[0]["success"].clone(), out[0]["body"]["error"]["showUser"].clone()), (json!(false), json!(false)));
    assert!(out[0]["message"].as_str().is_some_and(|m| m.contains("read-only")), "{}", out[0]);
    assert_eq!(out[1]["success"], false);
    assert_eq!(host.asked, ["next"], "only execution control counts as asking for it");
    assert!(host.forwarded.is_empty());
    host.mode = Mode::Control;
    c.receive(&frame(5, "next", json!({"threadId": 1})), now, &mut host);
    c.receive(&frame(6, "setVariable", json!({"variablesReference": 1, "name": "x", "value": "1"})), now, &mut host);
    c.receive(
        &frame(7, "setBreakpoints", json!({"source": {"path": "/a.py"}, "breakpoints": [{"line": 3}]})),
        now,
        &mut host,
    );
    assert_eq!(host.forwarded.iter().map(|f| f.1.as_str()).collect::<Vec<_>>(), ["next"]);
    let out = written(&mut c);
    assert_eq!((out[0]["request_seq"].clone(), out[0]["success"].clone()), (json!(6), json!(false)));
    assert!(!out[0]["message"].as_str().unwrap_or_default().contains("read-only"), "{}", out[0]);
    assert_eq!(out.len(), 1, "the breakpoints are answered by the session, later: {out:?}");
    assert_eq!(host.breakpoints, [(7, "setBreakpoints".to_owned())], "kept as the person's by the session");
    c.receive(&frame(9, "setDataBreakpoints", json!({"breakpoints": [{"dataId": "x"}]})), now, &mut host);
    let out = written(&mut c);
    assert_eq!(out[0]["body"]["breakpoints"][0]["verified"], false, "data breakpoints are not shared: {out:?}");
    host.mode = Mode::ReadOnly;
    c.receive(
        &frame(10, "setBreakpoints", json!({"source": {"path": "/a.py"}, "breakpoints": [{"line": 3}]})),
        now,
        &mut host,
    );
    let out = written(&mut c);
    assert_eq!(out[0]["body"]["breakpoints"][0]["verified"], false, "read-only: answered unverified: {out:?}");
    assert_eq!(host.breakpoints.len(), 1);
    c.receive(&frame(8, "continue", json!({"threadId": 1})), now, &mut host);
    assert_eq!(written(&mut c)[0]["body"]["error"]["showUser"], false, "taken back: refused quietly again");
    assert_eq!(host.forwarded.len(), 1);
}
