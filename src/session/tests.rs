//! Session-layer behaviour driven by adapter quirks, sans-IO: DAP bytes in, output and actions out.

use std::time::Instant;

use serde_json::{json, Value};

use super::output::Category;
use super::{Action, AdapterPlan, LaunchArgs, Sessions};
use crate::dap::adapters::{lldb, AdapterKind, Transport};
use crate::dap::command::AdapterCommand;
use crate::dap::framing::Encoder;
use crate::reply::CallKey;

fn frame(msg: &Value) -> Vec<u8> {
    Encoder::new().encode(msg).unwrap_or_default()
}

fn lldb_session(now: Instant) -> Sessions {
    let mut sessions = Sessions::default();
    let plan = lldb_plan();
    let args = LaunchArgs { program: "/p".into(), ..LaunchArgs::default() };
    sessions.launch(args, plan, CallKey::new(1), now).expect("started");
    sessions.on_spawned(0, now);
    while sessions.next_action(now).is_some() {}
    sessions
}

fn output_event(seq: i64, category: &str, text: &str) -> Vec<u8> {
    frame(&json!({"seq": seq, "type": "event", "event": "output", "body": {"category": category, "output": text}}))
}

/// Older lldb-dap crashed on shutdown and its crash report arrived as hundreds of `output`
/// events: the output shows the program's lines and one diagnostic, the report stays in the
/// stderr tail (for the error message).
#[test]
fn a_crash_report_becomes_one_diagnostic() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    s.on_adapter_bytes(0, &output_event(1, "stdout", "hello\r\n"), now);
    s.on_adapter_bytes(0, &output_event(2, "stderr", "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.\n"), now);
    for i in 0..300 {
        s.on_adapter_bytes(
            0,
            &output_event(3 + i, "stderr", &format!("#{i} 0x0000 llvm::sys::PrintStackTrace\n")),
            now,
        );
    }
    s.on_adapter_stderr(0, b"Stack dump:\n0. Program arguments: lldb-dap\n");
    let session = s.get(0).expect("session");
    let read = session.output.read(0, None, 1000);
    let texts: Vec<(Category, &str)> = read.entries.iter().map(|e| (e.category, e.text.as_str())).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert_eq!(texts[0], (Category::Stdout, "hello\n"), "CRLF normalised");
    assert_eq!(texts[1].0, Category::Adapter);
    assert!(texts[1].1.starts_with("lldb crashed (PLEASE submit a bug report"), "{texts:?}");
    assert!(s.stderr_tail(0).contains("Program arguments: lldb-dap"));
}

/// Delve sends no `exited`: on `terminated` agentdap disconnects, reads the status from the
/// console line that follows, and ends the wait with the exit code once `disconnect` is answered.
#[test]
fn delve_exit_code_is_read_after_disconnect() {
    let now = Instant::now();
    let mut s = Sessions::default();
    let plan = AdapterPlan {
        name: "delve".into(),
        kind: Some(AdapterKind::Delve),
        quirks: crate::dap::adapters::delve::quirks(),
        runtime: crate::dap::adapters::delve::runtime_quirks(),
        transport: Transport::Stdio,
        entry_function: None,
        scratch_dir: None,
        command: AdapterCommand::new("dlv"),
        request: "launch",
        launch_arguments: json!({"program": "/p"}),
        connect: None,
        notes: Vec::new(),
    };
    let args = LaunchArgs { program: "/p".into(), ..LaunchArgs::default() };
    s.launch(args, plan, CallKey::new(1), now).expect("started");
    s.on_spawned(0, now);
    while s.next_action(now).is_some() {}
    let sent = |s: &mut Sessions| {
        let bytes = s.outbound(0).to_vec();
        s.consume(0, bytes.len());
        String::from_utf8_lossy(&bytes).into_owned()
    };
    sent(&mut s);
    s.on_adapter_bytes(0, &frame(&json!({"seq": 1, "type": "event", "event": "terminated"})), now);
    let out = sent(&mut s);
    assert!(out.contains("\"command\":\"disconnect\""), "{out}");
    assert!(s.next_action(now).is_none(), "the launch wait goes on until the status is known");
    s.on_adapter_bytes(0, &output_event(2, "console", "Process 17 has exited with status 7\n"), now);
    let seq: i64 = out
        .split("\"seq\":")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let response = json!({"seq": 3, "type": "response", "request_seq": seq, "command": "disconnect", "success": true});
    s.on_adapter_bytes(0, &frame(&response), now);
    let done = std::iter::from_fn(|| s.next_action(now)).find_map(|a| match a {
        Action::Complete { output, .. } => Some(output),
        _ => None,
    });
    let text = done.map(|o| o.text).unwrap_or_default();
    assert!(text.starts_with("s1 exited with code 7"), "{text}");
    assert!(!text.contains("ended by agentdap"), "{text}");
}

/// DAP § Reverse Requests › StartDebugging (microsoft/debugpy#1269): a `startDebugging` is answered
/// `success: true` at once and opens a child session
/// over `Action::Connect` to its loopback `connect` address; one pointing at another machine is
/// declined, and the agent is told.
#[test]
fn start_debugging_opens_a_child_or_declines_a_remote_address() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    let pending = s.outbound(0).len();
    s.consume(0, pending);
    let request = |seq: i64, host: &str| {
        frame(&json!({"seq": seq, "type": "request", "command": "startDebugging", "arguments": {
            "request": "attach",
            "configuration": {"name": "Subprocess 9", "subProcessId": 9, "connect": {"host": host, "port": 4711}}}}))
    };
    s.on_adapter_bytes(0, &request(1, "127.0.0.1"), now);
    let actions: Vec<Action> = std::iter::from_fn(|| s.next_action(now)).collect();
    let connect = actions.iter().find_map(|a| match a {
        Action::Connect { session, addr } => Some((*session, *addr)),
        _ => None,
    });
    let (child, addr) = connect.expect("a Connect action for the child");
    assert_eq!(addr, "127.0.0.1:4711".parse().expect("addr"));
    let answer = String::from_utf8_lossy(s.outbound(0)).into_owned();
    assert!(answer.contains(r#""command":"startDebugging""#) && answer.contains(r#""success":true"#), "{answer}");
    let c = s.get(child).expect("child session");
    assert_eq!((c.id.as_str(), c.family.parent.as_ref().map(|p| p.1.as_str())), ("s2", Some("s1")));
    assert_eq!(c.family.debuggee_pid, Some(9));
    let pending = s.outbound(0).len();
    s.consume(0, pending);

    s.on_adapter_bytes(0, &request(2, "10.9.8.7"), now);
    let actions: Vec<Action> = std::iter::from_fn(|| s.next_action(now)).collect();
    assert!(!actions.iter().any(|a| matches!(a, Action::Connect { .. })), "{actions:?}");
    let answer = String::from_utf8_lossy(s.outbound(0)).into_owned();
    assert!(answer.contains(r#""success":false"#) && answer.contains("not on this machine"), "{answer}");
}

/// The plan of an lldb-dap launch of `/p`, for the session layer's sans-IO tests.
pub(super) fn lldb_plan() -> AdapterPlan {
    AdapterPlan {
        name: "lldb".into(),
        kind: Some(AdapterKind::Lldb),
        quirks: lldb::quirks(),
        runtime: lldb::runtime_quirks(),
        transport: Transport::Stdio,
        entry_function: None,
        scratch_dir: None,
        command: AdapterCommand::new("lldb-dap"),
        request: "launch",
        launch_arguments: json!({"program": "/p"}),
        connect: None,
        notes: Vec::new(),
    }
}

/// What a debuggee or adapter names a child process, or says about a pause, reaches the
/// `sessions` line and the stop's headline with nothing in it able to hide text.
#[test]
fn adapter_words_in_names_and_stop_notes_hide_nothing() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    let request = frame(&json!({"seq": 1, "type": "request", "command": "startDebugging", "arguments": {
        "request": "attach",
        "configuration": {"name": "worker\u{202e}exe.py\u{3164}\u{fff9}x\u{fffb}", "connect": {"host": "127.0.0.1", "port": 4711}}}}));
    s.on_adapter_bytes(0, &request, now);
    while s.next_action(now).is_some() {}
    let child = s.get(1).expect("child session");
    assert_eq!(child.program, r#"worker\u202eexe.py\u3164\ufff9x\ufffb"#);

    let parent = s.slab.get_mut(0).expect("session");
    parent.run.state = super::RunState::Running;
    parent.run.pause_sent = true;
    let stopped = frame(&json!({"seq": 2, "type": "event", "event": "stopped", "body": {
        "reason": "exception", "threadId": 1, "description": "signal SIGSTOP\u{2066}\u{0336}"}}));
    s.on_adapter_bytes(0, &stopped, now);
    let headline = s.get(0).expect("session").headline();
    assert!(headline.contains(r#"the pause you asked for (signal SIGSTOP\u2066\u0336)"#), "{headline}");
}

/// debugpy sends a print of an attached program (and of a child session's) with the same
/// `source` key as a log point's message: it stays `stdout`, never labelled a log point.
#[test]
fn attached_prints_are_not_labelled_log_points() {
    let now = Instant::now();
    for request in ["launch", "attach"] {
        let mut s = Sessions::default();
        let plan = AdapterPlan {
            name: "debugpy".into(),
            kind: Some(AdapterKind::Debugpy),
            quirks: crate::dap::adapters::debugpy::quirks(),
            runtime: crate::dap::adapters::debugpy::runtime_quirks(),
            transport: Transport::Stdio,
            entry_function: None,
            scratch_dir: None,
            command: AdapterCommand::new("python"),
            request,
            launch_arguments: json!({"program": "/p.py"}),
            connect: None,
            notes: Vec::new(),
        };
        let args = LaunchArgs { program: "/p.py".into(), ..LaunchArgs::default() };
        let _ = s.launch(args, plan, CallKey::new(1), now);
        s.on_spawned(0, now);
        while s.next_action(now).is_some() {}
        let event = json!({"seq": 1, "type": "event", "event": "output",
            "body": {"category": "stdout", "output": "tick 6\n", "source": {}}});
        s.on_adapter_bytes(0, &frame(&event), now);
        let session = s.get(0).expect("session");
        let read = session.output.read(0, None, 10);
        let expected = if request == "launch" { Category::Logpoint } else { Category::Stdout };
        assert_eq!(read.entries.iter().map(|e| e.category).collect::<Vec<_>>(), [expected], "{request}");
    }
}

/// With no `session`, tools take the most recently opened session, whatever slab slot it took
/// (the breaker's `output {}` after launching a.js then b.js read a.js's output: b took an
/// earlier, freed slot); `sessions` lists them in the order they were opened.
#[test]
fn the_default_session_is_the_most_recently_opened_not_the_last_slot() {
    let now = Instant::now();
    let mut s = Sessions::default();
    let launch = |s: &mut Sessions, program: &str, call: u64| {
        let args = LaunchArgs { program: program.into(), ..LaunchArgs::default() };
        s.launch(args, lldb_plan(), CallKey::new(call), now).expect("started");
    };
    launch(&mut s, "/a", 1);
    launch(&mut s, "/b", 2);
    s.remove(0);
    launch(&mut s, "/c", 3);
    s.latest = None;
    let key = s.resolve(None).expect("a session");
    assert_eq!(s.get(key).map(|x| x.id.as_str()), Some("s3"));
    let listed: Vec<&str> = s.listed().iter().map(|(_, x)| x.id.as_str()).collect();
    assert_eq!(listed, ["s2", "s3"]);
}

/// A call with no `session` says which session it went to when another one is stopped too (the
/// fresh user's `evaluate` read a worker's values after a second worker stopped in between).
#[test]
fn a_default_session_among_several_stopped_ones_is_named() {
    let now = Instant::now();
    let mut s = Sessions::default();
    for (call, program) in [(1, "/a"), (2, "/b")] {
        let args = LaunchArgs { program: program.into(), ..LaunchArgs::default() };
        s.launch(args, lldb_plan(), CallKey::new(call), now).expect("started");
    }
    assert_eq!(s.default_note(1), None, "nothing is stopped");
    s.slab.get_mut(0).expect("s1").run.state = super::RunState::Stopped;
    assert_eq!(s.default_note(0), None, "the only stopped session");
    s.slab.get_mut(1).expect("s2").run.state = super::RunState::Stopped;
    let note = s.default_note(1).expect("two are stopped");
    assert_eq!(note, "note: that was s2 (the default session); also stopped: s1. Pass `session` to choose.");
}

/// Program output on the adapter's own pipes (Delve, rdbg) is read in pieces of a few KiB: a
/// character cut between two reads is one character in the output, not two U+FFFD.
#[test]
fn a_character_split_between_two_pipe_reads_stays_whole() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    s.slab[0].link.pipes_are_program_output = true;
    let (a, b) = "naïve\n".as_bytes().split_at(3);
    s.on_adapter_stdout(0, a);
    s.on_adapter_stdout(0, b);
    let (a, b) = "ok ✓\n".as_bytes().split_at(4);
    s.on_adapter_stderr(0, a);
    s.on_adapter_stderr(0, b);
    let read = s.get(0).expect("session").output.read(0, None, 10);
    let texts: Vec<(Category, &str)> = read.entries.iter().map(|e| (e.category, e.text.as_str())).collect();
    assert_eq!(texts, [(Category::Stdout, "naïve\n"), (Category::Stderr, "ok ✓\n")]);
}

/// However long a program floods, its session holds at most the output ring's 1 MiB of text and
/// the DAP log's 1 MiB (`DAP_LOG_BYTES`); the DAP log held up to 8 MiB of the same `output`
/// events (agentdap's RSS with one flooding session: `cargo bench --bench scale`).
#[test]
fn a_flood_of_output_keeps_the_session_within_its_two_rings() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    let line = "x".repeat(2000) + "\n";
    for i in 0..5000 {
        s.on_adapter_bytes(0, &output_event(10 + i, "stdout", &line), now);
    }
    let session = s.get(0).expect("session");
    let log: usize = session.evidence.dap_log.iter().map(|e| e.body.len()).sum();
    let (dropped, dropped_bytes) = session.output.evicted();
    let held = 5000 * line.len() as u64 - dropped_bytes;
    assert!(dropped > 0 && held <= 1 << 20, "output ring: {held} bytes held");
    assert!(log <= 1 << 20 && session.evidence.dap_log_total > 5000, "DAP log: {log} bytes held");
}

/// A message over `DAP_LOG_ENTRY_MAX` is logged as its size and the head of its redacted text:
/// a mirror token in that head never reaches the log, and the entry stays JSON.
#[test]
fn an_oversized_dap_message_is_logged_as_its_redacted_head() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    let secret = "a1b2c3d4e5f6";
    let message = json!({"seq": 9, "type": "event", "event": "custom", "body": {"mirrorToken": secret, "pad": "p".repeat(100_000)}});
    s.on_adapter_bytes(0, &frame(&message), now);
    let log = s.get(0).expect("session").dap_log_ndjson();
    let last: Value = serde_json::from_str(log.lines().last().expect("an entry")).expect("NDJSON");
    let entry = &last["message"];
    assert_eq!(entry["agentdap_truncated"], json!(true), "{last}");
    assert!(entry["bytes"].as_u64().is_some_and(|b| b > 100_000), "{last}");
    let head = entry["head"].as_str().expect("a head");
    assert!(head.contains("[redacted]") && !log.contains(secret), "{head}");
}

/// The DAP log's bounds (`DAP_LOG_ENTRY_MAX` per message, `DAP_LOG_BYTES` in all: README, "the
/// last 5,000 messages or 1 MiB of them") hold for the text it shows, not only for the bytes
/// that crossed: a message whose token is redacted is re-serialised, and serde writes `9e15` as
/// `9000000000000000.0`, so a 60 KiB message becomes a 280 KiB log line, and the resource
/// holds several MiB, though each message and the ring are under their caps in bytes.
#[test]
fn the_dap_logs_caps_bound_the_text_it_shows() {
    use super::{DAP_LOG_BYTES, DAP_LOG_ENTRY_MAX};
    let now = Instant::now();
    let mut s = lldb_session(now);
    let numbers = vec!["9e15"; 12_000].join(",");
    for seq in 0..40 {
        let body = format!(
            r#"{{"seq":{},"type":"event","event":"output","body":{{"category":"console","output":"x\n","token":0,"n":[{numbers}]}}}}"#,
            100 + seq
        );
        assert!(body.len() < DAP_LOG_ENTRY_MAX);
        let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(body.as_bytes());
        s.on_adapter_bytes(0, &bytes, now);
    }
    let log = s.get(0).expect("session").dap_log_ndjson();
    assert!(!log.contains("\"token\":0"), "redacted");
    let longest = log.lines().map(str::len).max().unwrap_or(0);
    // A line is its message and about 60 bytes of `ms`/`dir`.
    assert!(longest <= DAP_LOG_ENTRY_MAX + 100, "a log line of {longest} bytes");
    assert!(log.len() <= DAP_LOG_BYTES + 100 * 5_000, "the resource holds {} bytes", log.len());
}

/// The DAP log is NDJSON, one JSON object per line (the `dap-log` resource's description), but a
/// message is copied as its bytes came: an adapter that pretty-prints its JSON, or pads a body
/// with a newline, splits its message over several lines of the log, none of which is JSON.
#[test]
fn a_pretty_printed_adapter_message_is_one_line_of_the_dap_log() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    let body = "{\n  \"seq\": 90,\n  \"type\": \"event\",\n  \"event\": \"output\",\n  \"body\": {\"category\": \"console\", \"output\": \"hi\\n\"}\n}\n";
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    s.on_adapter_bytes(0, &bytes, now);
    let log = s.get(0).expect("session").dap_log_ndjson();
    assert!(log.contains("\"seq\": 90") || log.contains("\"seq\":90"), "{log}");
    for line in log.lines() {
        assert!(serde_json::from_str::<Value>(line).is_ok_and(|v| v.is_object()), "not a JSON object: {line:?}");
    }
}

// breaker2 (second round).

/// A child session's stop ends the parent's `wait {for: stop}` (the agent hears of it), and
/// since 660519b a stop ends a `wait {for: exit}`, but a child's stop does not: a parent that
/// waits for its stopped child (`subprocess.run`, `Pool.join`) cannot end, and the agent's
/// `wait {for: exit}` waits out its whole `wait_ms` (the 50-second wait 660519b was for).
#[test]
fn a_childs_stop_ends_the_parents_wait_for_the_exit() {
    use super::waiters::Until;
    let now = Instant::now();
    for (until, call) in [(Until::Stop, 7), (Until::Exit, 8)] {
        let mut s = lldb_session(now);
        let request = frame(&json!({"seq": 1, "type": "request", "command": "startDebugging", "arguments": {
            "request": "attach",
            "configuration": {"name": "Subprocess 9", "subProcessId": 9, "connect": {"host": "127.0.0.1", "port": 4711}}}}));
        s.on_adapter_bytes(0, &request, now);
        while s.next_action(now).is_some() {}
        let parent = s.slab.get_mut(0).expect("parent");
        parent.run.state = super::RunState::Running;
        parent.calls.waiters.clear();
        s.wait(0, until, None, Some(50_000), CallKey::new(call), now).expect("started");
        while s.next_action(now).is_some() {}
        let child = s.slab.get_mut(1).expect("child session");
        child.run.state = super::RunState::Stopped;
        child.run.revision += 1;
        child.run.details_ready();
        let answered = std::iter::from_fn(|| s.next_action(now))
            .any(|a| matches!(a, Action::Complete { call: c, .. } if c == CallKey::new(call)));
        assert!(answered, "{until:?}: the parent's wait hears of its child's stop at once");
    }
}

/// The DAP log holds "every DAP message in both directions" (README), but a frame whose body is
/// not JSON (an adapter bug, the very thing the log is read for) leaves no line at all: the log
/// reads as if the adapter had sent nothing, while the failed request says its answer "could not
/// be read".
#[test]
fn an_unreadable_adapter_message_leaves_a_line_in_the_dap_log() {
    let now = Instant::now();
    let mut s = lldb_session(now);
    let before = s.get(0).expect("session").evidence.dap_log_total;
    let body = "{\"seq\": 91, \"type\": \"event\", \"event\": \"output\", \"body\": {\"output\": \"cut";
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    s.on_adapter_bytes(0, &bytes, now);
    while s.next_action(now).is_some() {}
    let session = s.get(0).expect("session");
    assert_eq!(session.evidence.dap_log_total, before + 1, "{}", session.dap_log_ndjson());
}
