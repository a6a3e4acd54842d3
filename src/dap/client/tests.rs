//! Unit tests for the DAP client: orderings from the field cases, played with byte slices and
//! fake `Instant`s, asserting exact wire JSON where the shape matters.

use super::*;
use crate::dap::protocol::initialize_arguments;
use serde_json::json;

/// The test's origin type: what a session layer would define.
#[derive(Clone, Debug, PartialEq)]
enum Src {
    Tool(u32),
    Step(&'static str),
}

impl Origin for Src {
    fn step(&self) -> Option<&'static str> {
        match self {
            Src::Step(s) => Some(s),
            Src::Tool(_) => None,
        }
    }
}

fn frame(json: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{json}", json.len()).into_bytes()
}

fn frames(jsons: &[&str]) -> Vec<u8> {
    jsons.iter().flat_map(|j| frame(j)).collect()
}

fn client() -> DapClient<Src> {
    DapClient::new(ClientConfig { log_messages: false, ..ClientConfig::new("test") })
}

/// The bodies of every frame in the outbound buffer, which is then emptied.
fn sent(c: &mut DapClient<Src>) -> Vec<String> {
    let bytes = c.take_outbound();
    let mut out = Vec::new();
    Decoder::new().feed(&bytes, |f| out.push(String::from_utf8(f.expect("clean frame").to_vec()).expect("utf-8")));
    out
}

/// Just the `command` of every outbound frame.
fn sent_commands(c: &mut DapClient<Src>) -> Vec<String> {
    sent(c)
        .iter()
        .map(|s| serde_json::from_str::<Value>(s).expect("json")["command"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// One line per output, for data-driven comparison.
fn show(o: &Output<Src>) -> String {
    match o {
        Output::Event(e) => format!("event {}", e.event),
        Output::Completed { seq, origin, outcome } => {
            let what = match outcome {
                Outcome::Success(r) => format!("success {}", r.body.as_ref().map_or("-".into(), Value::to_string)),
                other => other.to_string(),
            };
            format!("completed {seq} {origin:?}: {what}")
        }
        Output::StartDebugging { id, request, configuration } => {
            format!("startDebugging {} {request} {configuration}", id.seq())
        }
        Output::RunInTerminal { id, arguments } => format!("runInTerminal {} {arguments}", id.seq()),
        Output::Diagnostic(d) => format!("diagnostic: {d}"),
        Output::Log(l) => format!("log {:?} {}", l.direction, l.text()),
    }
}

fn drain(c: &mut DapClient<Src>) -> Vec<String> {
    std::iter::from_fn(|| c.poll_output()).map(|o| show(&o)).collect()
}

#[track_caller]
fn check(c: &mut DapClient<Src>, expected: &[&str]) {
    assert_eq!(drain(c), expected);
}

fn t0() -> Instant {
    Instant::now()
}

fn ms(base: Instant, n: u64) -> Instant {
    base + Duration::from_millis(n)
}

/// A minimal start-up choreography (DAP § Overview › Initialization), written the way the module docs describe, to
/// show the API carries it: initialize → launch (not awaited) → on `initialized` configure once
/// → collect the launch response in any order.
#[derive(Default)]
struct Startup {
    launch_sent: bool,
    configured: bool,
    launch_result: Option<String>,
    trace: Vec<String>,
}

impl Startup {
    fn start(&mut self, c: &mut DapClient<Src>, now: Instant) {
        let args = initialize_arguments("test", false);
        c.request("initialize", Some(args), Src::Step("initialize"), now, None).expect("sent");
    }

    fn pump(&mut self, c: &mut DapClient<Src>, now: Instant) {
        while let Some(out) = c.poll_output() {
            self.trace.push(show(&out));
            match out {
                Output::Completed { origin: Src::Step("initialize"), outcome: Outcome::Success(_), .. } => {
                    c.request("launch", Some(json!({"program": "app"})), Src::Step("launch"), now, None).expect("sent");
                    self.launch_sent = true;
                    if c.initialized() {
                        self.configure(c, now);
                    }
                }
                Output::Event(e) if e.event == "initialized" && self.launch_sent => self.configure(c, now),
                Output::Completed { origin: Src::Step("launch"), outcome, .. } => {
                    self.launch_result = Some(match outcome {
                        Outcome::Success(_) => "ok".to_owned(),
                        Outcome::Error { message, .. } => format!("error: {message}"),
                        other => other.to_string(),
                    });
                }
                _ => {}
            }
        }
    }

    fn configure(&mut self, c: &mut DapClient<Src>, now: Instant) {
        if std::mem::replace(&mut self.configured, true) {
            return;
        }
        let bp = json!({"source": {"path": "app.py"}, "breakpoints": [{"line": 2}]});
        c.request("setBreakpoints", Some(bp), Src::Step("setBreakpoints"), now, None).expect("sent");
        let filters = json!({"filters": []});
        c.request("setExceptionBreakpoints", Some(filters), Src::Step("setExceptionBreakpoints"), now, None)
            .expect("sent");
        if c.capabilities().is_some_and(|caps| caps.supports_configuration_done_request) {
            c.request("configurationDone", None, Src::Step("configurationDone"), now, None).expect("sent");
        }
    }
}

#[test]
fn request_frame_is_exact_and_seq_increases() {
    let mut c = client();
    let now = t0();
    let a = c.request("threads", None, Src::Tool(1), now, None).expect("sent");
    let b = c.request("next", Some(json!({"threadId": 7})), Src::Tool(2), now, None).expect("sent");
    assert_eq!((a, b), (Seq::new(1), Seq::new(2)));
    assert_eq!(
        String::from_utf8_lossy(c.outbound()),
        concat!(
            "Content-Length: 46\r\n\r\n{\"seq\":1,\"type\":\"request\",\"command\":\"threads\"}",
            "Content-Length: 70\r\n\r\n{\"seq\":2,\"type\":\"request\",\"command\":\"next\",\"arguments\":{\"threadId\":7}}"
        )
    );
    c.consume(16);
    assert!(c.outbound().starts_with(b"46\r\n\r\n"));
    c.consume(1000);
    assert!(c.outbound().is_empty());
    assert_eq!(c.pending_len(), 2);
}

#[test]
fn c05_initialized_before_initialize_response_with_string_seq() {
    let mut c = client();
    let mut s = Startup::default();
    let now = t0();
    s.start(&mut c, now);
    assert_eq!(sent_commands(&mut c), ["initialize"]);
    // The exact bytes netcoredbg sent before its fix (Samsung/netcoredbg#161): `initialized`
    // before the initialize response, `seq` as a string.
    c.receive(
        b"Content-Length: 58\r\n\r\n{\"seq\":\"1\",\"type\":\"event\",\"event\":\"initialized\",\"body\":{}}",
        now,
    );
    assert!(c.initialized(), "remembered before the initialize response");
    c.receive(b"Content-Length: 132\r\n\r\n{\"seq\":\"2\",\"type\":\"response\",\"request_seq\":1,\"success\":true,\"command\":\"initialize\",\"body\":{\"supportsConfigurationDoneRequest\":true}}", now);
    s.pump(&mut c, now);
    assert_eq!(
        s.trace,
        [
            "diagnostic: non-conformant adapter: \"seq\" sent as a string (coerced to an integer)",
            "event initialized",
            "completed 1 Step(\"initialize\"): success {\"supportsConfigurationDoneRequest\":true}",
        ],
        "the string seq is reported once, not per message"
    );
    // No deadlock: configuration starts right after launch, without another `initialized`.
    assert_eq!(sent_commands(&mut c), ["launch", "setBreakpoints", "setExceptionBreakpoints", "configurationDone"]);
}

#[test]
fn c05_byte_at_a_time_gives_the_same_outputs() {
    let input = frames(&[
        r#"{"seq":"1","type":"event","event":"initialized","body":{}}"#,
        r#"{"seq":"2","type":"response","request_seq":1,"success":true,"command":"initialize","body":{}}"#,
    ]);
    let mut c = client();
    c.request("initialize", None, Src::Step("initialize"), t0(), None).expect("sent");
    for b in &input {
        c.receive(std::slice::from_ref(b), t0());
    }
    check(
        &mut c,
        &[
            "diagnostic: non-conformant adapter: \"seq\" sent as a string (coerced to an integer)",
            "event initialized",
            "completed 1 Step(\"initialize\"): success {}",
        ],
    );
}

#[test]
fn c06_debugpy_initialized_after_launch_and_launch_answered_after_configuration_done() {
    let mut c = client();
    let mut s = Startup::default();
    let now = t0();
    s.start(&mut c, now);
    sent(&mut c);
    c.receive(
        &frame(r#"{"seq":1,"type":"response","request_seq":1,"success":true,"command":"initialize","body":{"supportsConfigurationDoneRequest":true,"exceptionBreakpointFilters":[{"filter":"raised","label":"Raised Exceptions"},{"filter":"uncaught","label":"Uncaught Exceptions","default":true}]}}"#),
        now,
    );
    s.pump(&mut c, now);
    assert_eq!(sent_commands(&mut c), ["launch"], "launch goes out without waiting; no configuration yet");
    c.receive(&frame(r#"{"seq":2,"type":"event","event":"initialized"}"#), now);
    s.pump(&mut c, now);
    assert_eq!(sent_commands(&mut c), ["setBreakpoints", "setExceptionBreakpoints", "configurationDone"]);
    // One breakpoint fails; configurationDone was already sent regardless. Then the launch answer.
    c.receive(
        &frames(&[
            r#"{"seq":3,"type":"response","request_seq":3,"success":false,"command":"setBreakpoints","message":"no such file"}"#,
            r#"{"seq":4,"type":"response","request_seq":4,"success":true,"command":"setExceptionBreakpoints","body":{}}"#,
            r#"{"seq":5,"type":"response","request_seq":5,"success":true,"command":"configurationDone"}"#,
            r#"{"seq":6,"type":"response","request_seq":2,"success":true,"command":"launch"}"#,
            r#"{"seq":7,"type":"event","event":"stopped","body":{"reason":"breakpoint","threadId":1}}"#,
        ]),
        now,
    );
    s.pump(&mut c, now);
    assert_eq!(s.launch_result.as_deref(), Some("ok"));
    assert_eq!(
        s.trace[2..],
        [
            "completed 3 Step(\"setBreakpoints\"): `setBreakpoints` failed: no such file",
            "completed 4 Step(\"setExceptionBreakpoints\"): success {}",
            "completed 5 Step(\"configurationDone\"): success -",
            "completed 2 Step(\"launch\"): success -",
            "event stopped",
        ]
    );
    let caps = c.capabilities().expect("capabilities");
    assert_eq!(caps.exception_breakpoint_filters.len(), 2);
    assert_eq!(c.pending_len(), 0);
}

#[test]
fn c11_launch_error_after_configuration_done_is_delivered_at_once() {
    let mut c = client();
    let mut s = Startup::default();
    let now = t0();
    s.start(&mut c, now);
    c.receive(
        &frames(&[
            r#"{"seq":1,"type":"response","request_seq":1,"success":true,"command":"initialize","body":{"supportsConfigurationDoneRequest":true}}"#,
            r#"{"seq":2,"type":"event","event":"initialized"}"#,
        ]),
        now,
    );
    s.pump(&mut c, now);
    assert_eq!(
        sent_commands(&mut c),
        ["initialize", "launch", "setBreakpoints", "setExceptionBreakpoints", "configurationDone"]
    );
    c.receive(
        &frames(&[
            r#"{"seq":3,"type":"response","request_seq":3,"success":true,"command":"setBreakpoints","body":{"breakpoints":[]}}"#,
            r#"{"seq":4,"type":"response","request_seq":4,"success":true,"command":"setExceptionBreakpoints"}"#,
            r#"{"seq":5,"type":"response","request_seq":5,"success":true,"command":"configurationDone"}"#,
            r#"{"seq":6,"type":"response","request_seq":2,"success":false,"command":"launch","message":"launch failed","body":{"error":{"id":1,"format":"Program \"{program}\" does not exist","variables":{"program":"/w/does-not-exist"}}}}"#,
        ]),
        ms(now, 300),
    );
    s.pump(&mut c, ms(now, 300));
    assert_eq!(s.launch_result.as_deref(), Some("error: Program \"/w/does-not-exist\" does not exist"));
    assert_eq!(c.next_deadline(), None, "nothing left waiting");
}

#[test]
fn stopped_event_before_the_next_response_keeps_wire_order() {
    let mut c = client();
    let seq = c.request("next", Some(json!({"threadId": 1})), Src::Tool(4), t0(), None).expect("sent");
    assert_eq!(seq, Seq::new(1));
    c.receive(
        &frames(&[
            r#"{"seq":10,"type":"event","event":"stopped","body":{"reason":"step","threadId":1}}"#,
            r#"{"seq":11,"type":"response","request_seq":1,"success":true,"command":"next"}"#,
            r#"{"seq":12,"type":"event","event":"output","body":{"output":"x"}}"#,
        ]),
        t0(),
    );
    check(&mut c, &["event stopped", "completed 1 Tool(4): success -", "event output"]);
}

fn with_caps(caps: &str) -> DapClient<Src> {
    let mut c = client();
    let now = t0();
    c.request("initialize", None, Src::Step("initialize"), now, None).expect("sent");
    let body =
        format!(r#"{{"seq":1,"type":"response","request_seq":1,"success":true,"command":"initialize","body":{caps}}}"#);
    c.receive(&frame(&body), now);
    drain(&mut c);
    sent(&mut c);
    c
}

#[test]
fn timeout_names_command_and_step_without_cancel_when_unsupported() {
    let mut c = with_caps("{}");
    let now = t0();
    c.request("launch", None, Src::Step("launch"), now, None).expect("sent");
    c.request("threads", None, Src::Tool(9), ms(now, 5_000), Some(Duration::from_millis(100))).expect("sent");
    assert_eq!(c.next_deadline(), Some(ms(now, 5_100)));
    c.on_timer(ms(now, 5_099));
    check(&mut c, &[]);
    c.on_timer(ms(now, 5_100));
    check(&mut c, &["completed 3 Tool(9): `threads` got no response within 100 ms"]);
    assert_eq!(c.next_deadline(), Some(ms(now, 30_000)));
    c.on_timer(ms(now, 30_000));
    let out = c.poll_output().expect("timeout");
    let Output::Completed { origin, outcome, .. } = out else { panic!("not completed: {out:?}") };
    assert_eq!(origin, Src::Step("launch"));
    assert_eq!(
        outcome,
        Outcome::Timeout {
            command: "launch".into(),
            step: Some("launch"),
            after: DEFAULT_REQUEST_TIMEOUT,
            cancel_sent: false,
            busy: None
        }
    );
    assert_eq!(outcome.to_string(), "`launch` got no response within 30000 ms (start-up step: launch)");
    assert_eq!(outcome.error_code(), Some("timeout"));
    assert_eq!(sent_commands(&mut c), ["launch", "threads"], "no cancel without supportsCancelRequest");
}

#[test]
fn timeout_sends_cancel_when_supported_and_late_reply_is_dropped() {
    let mut c = with_caps(r#"{"supportsCancelRequest":true}"#);
    let now = t0();
    c.request("evaluate", Some(json!({"expression": "loop()"})), Src::Tool(1), now, None).expect("sent");
    sent(&mut c);
    c.on_timer(ms(now, 30_000));
    check(&mut c, &["completed 2 Tool(1): `evaluate` got no response within 30000 ms; sent cancel"]);
    assert_eq!(sent(&mut c), [r#"{"seq":3,"type":"request","command":"cancel","arguments":{"requestId":2}}"#]);
    c.receive(
        &frames(&[
            r#"{"seq":7,"type":"response","request_seq":2,"success":false,"command":"evaluate","message":"cancelled"}"#,
            r#"{"seq":8,"type":"response","request_seq":3,"success":true,"command":"cancel"}"#,
            r#"{"seq":9,"type":"response","request_seq":2,"success":false,"command":"evaluate","message":"cancelled"}"#,
        ]),
        ms(now, 30_010),
    );
    check(
        &mut c,
        &[
            "diagnostic: dropped a response to `evaluate` (request_seq 2): it came after the request was abandoned",
            "diagnostic: dropped a response to `evaluate` (request_seq 2): that request was already answered",
        ],
    );
    assert_eq!(c.pending_len(), 0, "the cancel's own answer is swallowed");
}

#[test]
fn caller_abandon_returns_origin_and_cancels() {
    let mut c = with_caps(r#"{"supportsCancelRequest":true}"#);
    let seq = c.request("stackTrace", None, Src::Tool(5), t0(), None).expect("sent");
    sent(&mut c);
    assert_eq!(c.abandon(seq, t0()), Some(Src::Tool(5)));
    assert_eq!(c.abandon(seq, t0()), None);
    assert_eq!(sent_commands(&mut c), ["cancel"]);
    c.receive(&frame(r#"{"seq":3,"type":"response","request_seq":2,"success":true,"command":"stackTrace"}"#), t0());
    check(
        &mut c,
        &["diagnostic: dropped a response to `stackTrace` (request_seq 2): it came after the request was abandoned"],
    );
}

#[test]
fn adapter_death_fails_every_pending_request_with_the_stderr_tail() {
    let mut c = with_caps(r#"{"supportsCancelRequest":true}"#);
    let now = t0();
    c.request("launch", None, Src::Step("launch"), now, None).expect("sent");
    c.request("threads", None, Src::Tool(2), now, None).expect("sent");
    c.receive(b"Content-Length: 50\r\n\r\n{\"seq\":3,", now);
    c.on_closed("Traceback (most recent call last):\nImportError: debugpy");
    let tail = "its stderr ended with: Traceback (most recent call last):\nImportError: debugpy";
    check(
        &mut c,
        &[
            "diagnostic: the stream ended inside a message (9 bytes lost)",
            &format!(
                "completed 2 Step(\"launch\"): the adapter closed the connection while `launch` was pending; {tail}"
            ),
            &format!("completed 3 Tool(2): the adapter closed the connection while `threads` was pending; {tail}"),
        ],
    );
    assert_eq!(c.pending_len(), 0);
    assert_eq!(c.next_deadline(), None);
    let refused = c.request("threads", None, Src::Tool(3), now, None).expect_err("closed");
    assert_eq!((refused.error, refused.origin), (RequestError::Closed, Src::Tool(3)));
    c.on_closed("again");
    c.receive(&frame(r#"{"seq":4,"type":"event","event":"output"}"#), now);
    check(&mut c, &[]);
}

#[test]
fn c12_run_in_terminal_declined_with_exact_bytes() {
    let mut c = client();
    for i in 0..8 {
        c.request("threads", None, Src::Tool(i), t0(), None).expect("sent");
    }
    sent(&mut c);
    c.receive(b"Content-Length: 181\r\n\r\n{\"seq\":5,\"type\":\"request\",\"command\":\"runInTerminal\",\"arguments\":{\"args\":[\"<ADAPTER_DIR>/codelldb\",\"terminal-agent\",\"--connect=<PORT>\"],\"cwd\":\"\",\"kind\":\"integrated\",\"title\":\"Debug\"}}", t0());
    check(&mut c, &[]);
    assert_eq!(
        c.take_outbound(),
        b"Content-Length: 143\r\n\r\n{\"seq\":9,\"type\":\"response\",\"request_seq\":5,\"success\":false,\"command\":\"runInTerminal\",\"message\":\"runInTerminal is not supported by this client\"}"
    );
}

#[test]
fn run_in_terminal_surfaced_under_that_policy_and_answered_with_a_body() {
    let mut c: DapClient<Src> = DapClient::new(ClientConfig {
        log_messages: false,
        run_in_terminal: RunInTerminalPolicy::Surface,
        ..ClientConfig::new("test")
    });
    c.receive(&frame(r#"{"seq":4,"type":"request","command":"runInTerminal","arguments":{"args":["a.out"]}}"#), t0());
    let Some(Output::RunInTerminal { id, arguments }) = c.poll_output() else { panic!("not surfaced") };
    assert_eq!(arguments, json!({"args": ["a.out"]}));
    let mut body = Map::new();
    body.insert("processId".into(), json!(4242));
    c.respond(id, ReverseAnswer::Success { body: Some(body) }, t0()).expect("answered");
    assert_eq!(
        sent(&mut c),
        [
            r#"{"seq":1,"type":"response","request_seq":4,"success":true,"command":"runInTerminal","body":{"processId":4242}}"#
        ]
    );
}

#[test]
fn start_debugging_is_surfaced_and_answered_like_c07() {
    let mut c = client();
    for i in 0..40 {
        c.request("threads", None, Src::Tool(i), t0(), None).expect("sent");
    }
    sent(&mut c);
    c.receive(&frame(r#"{"seq":8,"type":"request","command":"startDebugging","arguments":{"request":"attach","configuration":{"connect":{"host":"127.0.0.1","port":5678},"subProcessId":77}}}"#), t0());
    let Some(Output::StartDebugging { id, request, configuration }) = c.poll_output() else { panic!("not surfaced") };
    assert_eq!((id.seq(), request.as_str()), (Seq::new(8), "attach"));
    assert_eq!(configuration, json!({"connect": {"host": "127.0.0.1", "port": 5678}, "subProcessId": 77}));
    assert!(c.outbound().is_empty(), "answered by the caller, not by the client");
    c.respond(id, ReverseAnswer::ok(), t0()).expect("answered");
    assert_eq!(
        c.take_outbound(),
        b"Content-Length: 86\r\n\r\n{\"seq\":41,\"type\":\"response\",\"request_seq\":8,\"success\":true,\"command\":\"startDebugging\"}"
    );
    assert_eq!(c.respond(id, ReverseAnswer::ok(), t0()), Err(RespondError::Unknown));
}

#[test]
fn malformed_and_unknown_reverse_requests_are_declined() {
    let mut c = client();
    c.receive(
        &frames(&[
            r#"{"seq":1,"type":"request","command":"startDebugging","arguments":{"request":"launch"}}"#,
            r#"{"seq":2,"type":"request","command":"handshake","arguments":{"value":"x"}}"#,
        ]),
        t0(),
    );
    check(&mut c, &[]);
    assert_eq!(
        sent(&mut c),
        [
            r#"{"seq":1,"type":"response","request_seq":1,"success":false,"command":"startDebugging","message":"startDebugging needs arguments.request (launch or attach) and an object arguments.configuration"}"#,
            r#"{"seq":2,"type":"response","request_seq":2,"success":false,"command":"handshake","message":"handshake is not supported by this client"}"#,
        ]
    );
}

#[test]
fn unanswered_reverse_requests_are_capped_and_still_answered() {
    let mut c = client();
    let req = |seq: usize| {
        format!(
            r#"{{"seq":{seq},"type":"request","command":"startDebugging","arguments":{{"request":"attach","configuration":{{}}}}}}"#
        )
    };
    let input: Vec<u8> = (1..=MAX_REVERSE_PENDING + 1).flat_map(|s| frame(&req(s))).collect();
    c.receive(&input, t0());
    assert_eq!(drain(&mut c).len(), MAX_REVERSE_PENDING);
    let answers = sent(&mut c);
    assert_eq!(answers.len(), 1);
    assert!(answers[0].contains(r#""request_seq":65,"success":false"#), "{}", answers[0]);
}

#[test]
fn garbage_between_frames_survives() {
    let mut c = client();
    c.request("threads", None, Src::Tool(1), t0(), None).expect("sent");
    let mut input = b"garbage\r\n".to_vec();
    input.extend(frame(r#"{"seq":1,"type":"event","event":"output","body":{"output":"a"}}"#));
    input.extend(b"\r\n\r\nxx Content-Length: 3\r\n\r\n{x}");
    input.extend(frame(r#"[1,2]"#));
    input.extend(frame(r#"{"seq":2,"type":"weird"}"#));
    input.extend(frame(
        r#"{"seq":3,"type":"response","request_seq":1,"success":true,"command":"threads","body":{"threads":[]}}"#,
    ));
    c.receive(&input, t0());
    let got = drain(&mut c);
    assert_eq!(got.len(), 7, "{got:#?}");
    assert!(got[0].starts_with("diagnostic: skipped 9 bytes"), "{}", got[0]);
    assert_eq!(got[1], "event output");
    assert!(got[2].starts_with("diagnostic: skipped 3 bytes"), "{}", got[2]);
    assert!(got[3].starts_with("diagnostic: skipped a 3-byte message that is not JSON"), "{}", got[3]);
    assert_eq!(got[4], "diagnostic: skipped a JSON value that is not an object");
    assert_eq!(got[5], "diagnostic: skipped an object without a valid \"type\" (request, response or event)");
    assert_eq!(got[6], "completed 1 Tool(1): success {\"threads\":[]}");
    assert!(!c.is_closed());
}

#[test]
fn mismatched_and_unknown_responses_are_dropped() {
    let mut c = client();
    c.request("scopes", None, Src::Tool(1), t0(), None).expect("sent");
    c.receive(
        &frames(&[
            r#"{"seq":1,"type":"response","request_seq":1,"success":true,"command":"variables"}"#,
            r#"{"seq":2,"type":"response","request_seq":99,"success":true,"command":"scopes"}"#,
            r#"{"seq":3,"type":"response","request_seq":1,"success":true,"command":"scopes"}"#,
        ]),
        t0(),
    );
    check(
        &mut c,
        &[
            "diagnostic: dropped a response to `variables` (request_seq 1): that seq is a pending `scopes` request",
            "diagnostic: dropped a response to `scopes` (request_seq 99): no request with that seq was sent",
            "completed 1 Tool(1): success -",
        ],
    );
}

/// CodeLLDB 1.11.8 names no command in its error responses: the `request_seq` says which request
/// failed, and a success with no command is still a mismatch.
#[test]
fn an_error_response_with_an_empty_command_answers_the_pending_request() {
    let mut c = client();
    c.request("evaluate", None, Src::Tool(1), t0(), None).expect("sent");
    c.request("scopes", None, Src::Tool(2), t0(), None).expect("sent");
    c.receive(
        &frames(&[
            r#"{"seq":1,"type":"response","request_seq":2,"success":true,"command":""}"#,
            r#"{"seq":2,"type":"response","request_seq":1,"success":false,"command":"","message":"Syntax error: add(1,2)"}"#,
        ]),
        t0(),
    );
    let got = drain(&mut c);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert_eq!(got[0], "diagnostic: dropped a response to `` (request_seq 2): that seq is a pending `scopes` request");
    assert_eq!(got[1], "completed 1 Tool(1): `evaluate` failed: Syntax error: add(1,2)");
}

#[test]
fn capabilities_event_updates_and_initialized_flag() {
    let mut c = with_caps(r#"{"supportsRestartRequest":false}"#);
    assert!(!c.initialized());
    c.receive(
        &frames(&[
            r#"{"seq":2,"type":"event","event":"capabilities","body":{"capabilities":{"supportsRestartRequest":true}}}"#,
            r#"{"seq":3,"type":"event","event":"initialized"}"#,
        ]),
        t0(),
    );
    check(&mut c, &["event capabilities", "event initialized"]);
    assert!(c.initialized());
    assert!(c.capabilities().is_some_and(|caps| caps.supports_restart_request));
}

#[test]
fn log_hook_records_both_directions_in_order() {
    let mut c: DapClient<Src> = DapClient::new(ClientConfig::new("test"));
    let now = t0();
    c.request("threads", None, Src::Tool(1), now, None).expect("sent");
    c.receive(&frame(r#"{"seq":1,"type":"response","request_seq":1,"success":true,"command":"threads"}"#), ms(now, 5));
    let log: Vec<_> = std::iter::from_fn(|| c.poll_output()).collect();
    assert_eq!(log.len(), 3);
    let Output::Log(first) = &log[0] else { panic!("{:?}", log[0]) };
    assert_eq!(
        (first.at, first.direction, first.text().as_str()),
        (now, Direction::ToAdapter, r#"{"seq":1,"type":"request","command":"threads"}"#)
    );
    let Output::Log(second) = &log[1] else { panic!("{:?}", log[1]) };
    assert_eq!(
        (second.at, second.direction, second.text().as_str()),
        (
            ms(now, 5),
            Direction::FromAdapter,
            r#"{"seq":1,"type":"response","request_seq":1,"success":true,"command":"threads"}"#
        )
    );
    assert!(matches!(log[2], Output::Completed { .. }));
}

#[test]
fn outbound_high_water_refuses_requests_but_not_answers() {
    let mut c = client();
    let big = "x".repeat(1 << 20);
    let mut n = 0;
    let refused = loop {
        match c.request("evaluate", Some(json!({"expression": big})), Src::Tool(n), t0(), None) {
            Ok(_) => n += 1,
            Err(r) => break r,
        }
    };
    assert_eq!((refused.error, refused.origin), (RequestError::OutboundFull, Src::Tool(n)));
    assert!(c.outbound().len() > OUTBOUND_HIGH_WATER);
    let before = c.outbound().len();
    c.receive(&frame(r#"{"seq":1,"type":"request","command":"unknownThing"}"#), t0());
    assert!(c.outbound().len() > before, "reverse requests are still answered");
    let all = c.outbound().len();
    c.consume(all);
    assert!(c.request("threads", None, Src::Tool(0), t0(), None).is_ok());
}

#[test]
fn pending_table_is_capped() {
    let mut c = client();
    for i in 0..MAX_PENDING {
        c.request("threads", None, Src::Tool(i as u32), t0(), None).expect("sent");
    }
    let refused = c.request("threads", None, Src::Tool(0), t0(), None).expect_err("full");
    assert_eq!(refused.error, RequestError::TooManyPending);
    assert_eq!(refused.error.to_string(), "1024 requests are already waiting for the adapter");
}

#[test]
fn abandoned_set_is_capped_and_forgets_the_oldest() {
    let mut c = client();
    let now = t0();
    // Two rounds: the pending table holds fewer than MAX_ABANDONED + 1.
    for round in 0..2 {
        let n = if round == 0 { MAX_ABANDONED } else { 1 };
        for i in 0..n {
            c.request("threads", None, Src::Tool(i as u32), now, Some(Duration::from_millis(1))).expect("sent");
        }
        c.on_timer(ms(now, 1));
        assert_eq!(drain(&mut c).len(), n);
    }
    c.receive(
        &frames(&[
            r#"{"seq":1,"type":"response","request_seq":1,"success":true,"command":"threads"}"#,
            r#"{"seq":2,"type":"response","request_seq":2,"success":true,"command":"threads"}"#,
        ]),
        now,
    );
    check(
        &mut c,
        &[
            "diagnostic: dropped a response to `threads` (request_seq 1): that request was already answered",
            "diagnostic: dropped a response to `threads` (request_seq 2): it came after the request was abandoned",
        ],
    );
}

#[test]
fn a_timeout_too_large_for_instant_means_no_deadline() {
    let mut c = client();
    c.request("evaluate", None, Src::Tool(1), t0(), Some(Duration::MAX)).expect("sent");
    assert_eq!(c.next_deadline(), None);
    c.on_timer(ms(t0(), 86_400_000));
    check(&mut c, &[]);
}

#[test]
fn surfaced_reverse_requests_are_forgotten_on_close() {
    let mut c = client();
    c.receive(
        &frame(r#"{"seq":3,"type":"request","command":"startDebugging","arguments":{"request":"launch","configuration":{}}}"#),
        t0(),
    );
    let Some(Output::StartDebugging { id, .. }) = c.poll_output() else { panic!("not surfaced") };
    c.on_closed("");
    assert_eq!(c.respond(id, ReverseAnswer::ok(), t0()), Err(RespondError::Closed));
    assert!(c.outbound().is_empty());
}

#[test]
fn log_text_redacts_token_values_and_leaves_other_messages_byte_for_byte() {
    let plain = br#"{"seq":1,"type":"request","command":"threads"}"#;
    assert_eq!(log_text(plain), String::from_utf8_lossy(plain));
    let secret = "a1b2c3d4e5f6";
    let body = format!(
        r#"{{"seq":2,"type":"request","command":"attach","arguments":{{"mirrorToken":"{secret}","nested":[{{"Token":"{secret}"}}],"token":7,"tokens":"{secret}x"}}}}"#
    );
    let text = log_text(body.as_bytes());
    assert!(!text.contains(&format!("\"{secret}\"")), "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).expect("still JSON");
    assert_eq!(v["arguments"]["mirrorToken"], "[redacted]");
    assert_eq!(v["arguments"]["nested"][0]["Token"], "[redacted]");
    assert_eq!(v["arguments"]["token"], "[redacted]", "values of any type");
    assert_eq!(v["arguments"]["tokens"], format!("{secret}x"), "other keys stay");
    assert!(!log_text(format!("not json mirrorToken {secret}").as_bytes()).contains(secret));
}

/// A log entry keeps the bytes as they crossed; its text and its `Debug` form are redacted.
#[test]
fn a_log_entry_shows_its_redacted_text_never_its_bytes() {
    let secret = "a1b2c3d4e5f6";
    let body = format!(r#"{{"seq":2,"type":"request","command":"attach","arguments":{{"mirrorToken":"{secret}"}}}}"#);
    let entry = LogEntry { at: t0(), direction: Direction::ToAdapter, body: body.into_bytes() };
    assert!(entry.text().contains("[redacted]") && !entry.text().contains(secret), "{}", entry.text());
    let shown = format!("{entry:?}");
    let bytes: Vec<String> = secret.bytes().map(|b| b.to_string()).collect();
    assert!(!shown.contains(secret) && !shown.contains(&bytes.join(", ")), "{shown}");
    assert!(shown.contains("[redacted]"), "{shown}");
}

#[test]
fn log_text_redacts_escaped_keys_and_wrapped_values() {
    let secret = "a1b2c3d4e5f6";
    let escaped_value: String = secret.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
    for arguments in [
        format!(r#"{{"mirror\u0054oken":"{secret}"}}"#),
        format!(r#"{{"\u006dirrortoken":"{secret}"}}"#),
        format!(r#"{{"mirrorToken":["{secret}"]}}"#),
        format!(r#"{{"mirrorToken":{{"t":"{secret}"}}}}"#),
        format!(r#"{{"mirrorToken":"{escaped_value}"}}"#),
        format!(r#"{{"mirrorToken":"{secret}","mirrorToken":"x"}}"#),
    ] {
        let body = format!(r#"{{"seq":2,"type":"request","command":"attach","arguments":{arguments}}}"#);
        let text = log_text(body.as_bytes());
        assert!(!text.contains(secret) && !text.contains(&escaped_value), "{arguments} logged as {text}");
        let v: serde_json::Value = serde_json::from_str(&text).expect("still JSON");
        let args = v["arguments"].as_object().expect("arguments");
        assert!(args.values().all(|v| v == "[redacted]"), "{text}");
    }
    // Escapes without a token key stay byte for byte.
    let plain = br#"{"seq":1,"type":"event","event":"output","body":{"output":"\u00e9"}}"#;
    assert_eq!(log_text(plain), String::from_utf8_lossy(plain));
}

#[test]
fn stream_diagnostics_warn_the_first_few_then_one_summary_per_ten_thousand() {
    let mut b = LogBudget::default();
    let verdicts: Vec<LogVerdict> = (0..WARN_FIRST as u64 + 2 * WARN_SUMMARY_EVERY + 7).map(|_| b.admit()).collect();
    let first = WARN_FIRST as usize;
    assert!(verdicts[..first].iter().all(|v| *v == LogVerdict::Warn), "the first ones stay visible");
    let summaries: Vec<(usize, &LogVerdict)> =
        verdicts.iter().enumerate().filter(|(_, v)| matches!(v, LogVerdict::Summary(_))).collect();
    let every = WARN_SUMMARY_EVERY as usize;
    assert_eq!(
        summaries,
        [
            (first + every - 1, &LogVerdict::Summary(WARN_SUMMARY_EVERY)),
            (first + 2 * every - 1, &LogVerdict::Summary(WARN_SUMMARY_EVERY))
        ]
    );
    let warns = verdicts.iter().filter(|v| **v == LogVerdict::Warn).count();
    assert_eq!(warns, first);
    assert_eq!(b.take_held(), 7, "the remainder is reported at close");
    assert_eq!(b.take_held(), 0);
}

/// The scan [`log_text`] starts with finds `token` (any case) and `\u` wherever they stand, as
/// the plain definition does: at the start, at the end, cut short, next to each other.
#[test]
fn token_scan_agrees_with_the_plain_definition() {
    let plain = |body: &[u8]| {
        body.iter().enumerate().any(|(i, &b)| match b {
            b'\\' => body.get(i + 1) == Some(&b'u'),
            b't' | b'T' => body.get(i + 1..i + 5).is_some_and(|rest| rest.eq_ignore_ascii_case(b"oken")),
            _ => false,
        })
    };
    let cases: &[&[u8]] = &[
        b"token",
        b"TOKEN",
        b"xToKeN",
        b"tokenx",
        b"toke",
        b"oken",
        b"ken",
        b"k",
        b"tk",
        b"ttoken",
        b"stackTrace",
        b"kkkk",
        b"\\",
        b"\\u",
        b"x\\",
        b"\\n",
        b"\\\\u",
        b"",
        b"tokk",
        b"TOKKEN",
        br#"{"threadId":1,"text":"ok"}"#,
        br#"{"mirrorToken":"x"}"#,
    ];
    for body in cases {
        assert_eq!(super::mentions_token_or_escape(body), plain(body), "{:?}", String::from_utf8_lossy(body));
    }
    assert_eq!(log_text(b"caf\xc3\xa9"), "caf\u{e9}");
    assert_eq!(log_text(b"bad \xff byte"), "bad \u{fffd} byte", "invalid UTF-8 stays lossy");
}
