//! A scripted adapter (`tests/fixtures/fake_adapter.py`) declared as a custom adapter in a config
//! file, for what no real adapter does on demand: `initialized` before the initialize response
//! with string seqs (netcoredbg, Samsung/netcoredbg#161), a launch error after configurationDone
//! (gdb, go-delve/mcp-dap-server#22), garbage between
//! frames, a crash mid-session. Also the config file itself: `--config`, `$AGENTDAP_CONFIG`,
//! `$XDG_CONFIG_HOME/agentdap/config.json`, and clear errors for bad files.

use crate::agent;
use crate::common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent::{assert_all_gone, debugpy_python, fixture, sent_commands, Agent, HYGIENE};
use common::bin;
use serde_json::{json, Value};

use common::TempDir;

/// A config declaring one fake adapter per scenario (`fake` is `plain` and owns `.fake`).
fn config_json() -> Value {
    let python = debugpy_python();
    let script = fixture("fake_adapter.py");
    let entry = |scenario: &str| json!({"command": python, "args": [script, scenario]});
    let liar = |claim: &str| json!({"command": python, "args": [script, "liar", claim]});
    let mut plain = entry("plain");
    plain["extensions"] = json!([".fake"]);
    plain["launch_defaults"] = json!({"fakeDefault": 1, "stopOnEntry": "overridden by agentdap"});
    json!({"adapters": {
        "fake": plain, "fake-c05": entry("c05"), "fake-c11": entry("c11"),
        "fake-garbage": entry("garbage"), "fake-crash": entry("crash"),
        "fake-stopfirst": entry("stopfirst"), "fake-deaf": entry("deaf"),
        "fake-liar-cap": liar("67108865"), "fake-liar-12": liar("999999999999"),
        "fake-liar-13": liar("1099511627776"), "fake-liar-30": liar(&"9".repeat(30)),
        "fake-liar-zeros": liar(&format!("{}67108865", "0".repeat(40))),
        "fake-odd": entry("odd"), "fake-bigline": entry("bigline"),
        "fake-flood": json!({"command": python, "args": [script, "flood", "30000"]}),
        "fake-liar-60m": liar("60000000"), "fake-liar-at-cap": liar("67108864"),
    }})
}

fn write_config(dir: &TempDir, rel: &str) -> PathBuf {
    let path = dir.0.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("config dir");
    std::fs::write(&path, config_json().to_string()).expect("write config");
    path
}

fn with_config_flag(tag: &str) -> (Agent, TempDir) {
    let dir = TempDir::new(tag);
    let path = write_config(&dir, "c.json");
    let a = Agent::start_with(|cmd| {
        cmd.arg("--config").arg(&path);
    });
    (a, dir)
}

/// netcoredbg's order (Samsung/netcoredbg#161): the early `initialized` is remembered (string seqs
/// accepted), configuration starts once both it and the initialize response are in, and the session
/// runs normally.
#[test]
fn c05_initialized_before_the_initialize_response_with_string_seqs() {
    let (mut a, _dir) = with_config_flag("c05");
    let program = fixture("prog.fake");
    let r = a.ok(
        "launch",
        json!({"program": program, "adapter": "fake-c05", "breakpoints": [{"path": program, "line": 3}]}),
    );
    assert_eq!((r.s["adapter"].clone(), r.s["state"].clone()), (json!("fake-c05"), json!("stopped")), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(3), "{}", r.text);

    let log = a.dap_log("s1");
    let from = |what: &str| {
        log.iter()
            .position(|e| {
                e["dir"] == "from_adapter"
                    && (e["message"]["event"] == json!(what) || e["message"]["command"] == json!(what))
            })
            .unwrap_or_else(|| panic!("no {what} from the adapter in the log"))
    };
    assert!(from("initialized") < from("initialize"), "the adapter's order is kept in the log");
    assert_eq!(log[from("initialized")]["message"]["seq"], json!("1"));
    assert_eq!(
        sent_commands(&log)[..5],
        ["initialize", "launch", "setBreakpoints", "setExceptionBreakpoints", "configurationDone"]
    );
    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    assert!(r.text.contains("hello from fake"), "{}", r.text);
}

/// Selected by extension; launch_defaults sit under agentdap's own arguments; garbage between
/// frames loses no message.
#[test]
fn garbage_between_frames_loses_nothing_and_extensions_pick_the_adapter() {
    let dir = TempDir::new("garbage");
    let path = write_config(&dir, "c.json");
    let mut a = Agent::start_with(|cmd| {
        cmd.env("AGENTDAP_CONFIG", &path);
    });
    let r = a.ok("launch", json!({"program": fixture("prog.fake")}));
    assert_eq!((r.s["adapter"].clone(), r.s["stop"]["reason"].clone()), (json!("fake"), json!("entry")), "{}", r.text);
    let log = a.dap_log("s1");
    let launch = log.iter().find(|e| e["message"]["command"] == "launch").expect("launch in the log");
    assert_eq!(launch["message"]["arguments"]["fakeDefault"], json!(1));
    assert_eq!(launch["message"]["arguments"]["stopOnEntry"], json!(true));

    let r = a.ok("launch", json!({"program": fixture("prog.fake"), "adapter": "fake-garbage", "stop_on_entry": true}));
    assert_eq!((r.s["session"].clone(), r.s["stop"]["reason"].clone()), (json!("s2"), json!("entry")), "{}", r.text);
    let r = a.ok("continue", json!({"session": "s2"}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    let out = a.ok("output", json!({"session": "s2", "category": "stdout"}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["hello from fake"]);
}

/// gdb's order (go-delve/mcp-dap-server#22): an error response to `launch` that arrives after
/// configurationDone ends the wait at once with the adapter's own words, and the adapter is
/// stopped.
#[test]
fn c11_a_launch_error_after_configuration_done_ends_the_wait_at_once() {
    let (mut a, _dir) = with_config_flag("c11");
    let before = a.descendants();
    let started = Instant::now();
    let r = a.call("launch", json!({"program": fixture("prog.fake"), "adapter": "fake-c11", "wait_ms": 20000}));
    let took = started.elapsed();
    assert!(r.is_error, "{}", r.text);
    assert_eq!(r.code(), "adapter_error", "{}", r.text);
    assert!(r.text.contains("cannot launch") && r.text.contains("prog.fake: no such file"), "{}", r.text);
    assert!(took < Duration::from_secs(5), "the launch error took {took:?}");
    let log = a.dap_log("s1");
    assert!(sent_commands(&log).contains(&"configurationDone".to_owned()));
    let adapters: Vec<i32> = a.descendants().into_iter().filter(|p| !before.contains(p)).collect();
    assert_all_gone(&adapters, HYGIENE, "the failed adapter");
    let s = a.session("s1");
    assert_eq!(s["state"], json!("terminated"), "{s}");
}

/// An adapter that dies mid-session fails the waiting call with `disconnected` and its stderr;
/// the server keeps serving.
#[test]
fn an_adapter_crash_mid_session_fails_the_wait_with_its_stderr() {
    let (mut a, _dir) = with_config_flag("crash");
    let r = a.ok("launch", json!({"program": fixture("prog.fake"), "adapter": "fake-crash"}));
    assert_eq!(r.s["stop"]["reason"], json!("entry"), "{}", r.text);
    let r = a.call("continue", json!({}));
    assert!(r.is_error, "{}", r.text);
    assert_eq!(r.code(), "disconnected", "{}", r.text);
    assert!(r.text.contains("simulated crash in continue"), "{}", r.text);
    assert_eq!(a.session("s1")["state"], json!("terminated"));
    let r = a.ok("launch", json!({"program": fixture("prog.fake"), "adapter": "fake"}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
}

/// One `output` event of 100,000 characters is one entry over `output`'s 19,000 bytes of text:
/// it is cut, in the text and in `structuredContent` alike, and the result says how big it was
/// (the breaker's report: a 3 MB line went out whole); the next read goes on after it.
#[test]
fn one_output_entry_longer_than_a_result_is_cut_and_said_to_be() {
    let (mut a, _dir) = with_config_flag("bigline");
    a.ok("launch", json!({"program": fixture("prog.fake"), "adapter": "fake-bigline"}));
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    assert!(r.text.len() < 20_000, "{}", r.text.len());
    let out = a.ok("output", json!({"category": "stdout", "limit": 1}));
    let first = out.s["entries"][0]["text"].as_str().unwrap_or_default();
    assert!(first.len() == 19_000 && first.starts_with("xxx"), "{} bytes", first.len());
    assert!(out.text.contains("is 100001 bytes, cut to its first 19000"), "{}", &out.text[..out.text.len().min(300)]);
    let rest = a.ok("output", json!({"category": "stdout", "since": out.s["next_cursor"]}));
    assert!(rest.text.contains("hello from fake"), "{}", rest.text);
}

/// A frame claiming a body over the 64 MiB cap ends trust in the connection, whatever the claim
/// looks like (one byte over, 12 digits, 13, 30, padded with zeros): the call in flight and the
/// waiting call are answered `disconnected` naming the claim (not at the 30 s request timeout,
/// and never from a frame after the lie), the session ends, and its adapter is stopped.
#[test]
fn a_frame_over_the_size_cap_ends_the_session_disconnected_naming_the_claim() {
    let (mut a, _dir) = with_config_flag("liar");
    let program = fixture("prog.fake");
    let cases = [
        ("fake-liar-cap", "evaluate", "claiming 67108865 bytes"),
        ("fake-liar-12", "evaluate", "claiming 999999999999 bytes"),
        ("fake-liar-13", "evaluate", "claiming 1099511627776 bytes"),
        ("fake-liar-30", "evaluate", "claiming a 30-digit number of bytes"),
        ("fake-liar-zeros", "evaluate", "claiming 67108865 bytes"),
        ("fake-liar-12", "continue", "claiming 999999999999 bytes"),
        ("fake-liar-30", "continue", "claiming a 30-digit number of bytes"),
    ];
    for (n, (adapter, tool, claim)) in cases.into_iter().enumerate() {
        let id = format!("s{}", n + 1);
        let before = a.descendants();
        let r = a.ok(
            "launch",
            json!({"program": program, "adapter": adapter, "breakpoints": [{"path": program, "line": 3}]}),
        );
        assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
        let adapters: Vec<i32> = a.descendants().into_iter().filter(|p| !before.contains(p)).collect();
        let args = if tool == "evaluate" { json!({"expression": "x"}) } else { json!({"wait_ms": 40000}) };
        let r = a.call(tool, args);
        let what = format!("{adapter} {tool}");
        assert!(r.is_error, "{what}: {}", r.text);
        assert_eq!(r.code(), "disconnected", "{what}: {}", r.text);
        assert!(r.text.contains(claim) && r.text.contains("67108864-byte limit"), "{what}: {}", r.text);
        let s = a.session(&id);
        assert_eq!(s["state"], json!("terminated"), "{what}: {s}");
        assert!(s.to_string().contains(claim), "{what}: the session says why it ended: {s}");
        assert_all_gone(&adapters, HYGIENE, "the adapter that lied");
    }
}

/// A frame claiming a body within the cap, with the next frame's header where that body should
/// be, ends trust just the same: the call is answered `disconnected` at once naming the claim and
/// where the header appeared (not after 30 s, and never from the swallowed frame), the session
/// ends, and its adapter is stopped.
#[test]
fn a_frame_whose_body_holds_the_next_header_ends_the_session_disconnected_naming_the_claim() {
    let (mut a, _dir) = with_config_flag("liar-under");
    let program = fixture("prog.fake");
    let cases = [
        ("fake-liar-60m", "evaluate", "claiming 60000000 bytes, but a Content-Length header began 0 bytes"),
        ("fake-liar-at-cap", "evaluate", "claiming 67108864 bytes, but a Content-Length header began 0 bytes"),
        ("fake-liar-60m", "continue", "claiming 60000000 bytes, but a Content-Length header began 0 bytes"),
    ];
    for (n, (adapter, tool, claim)) in cases.into_iter().enumerate() {
        let id = format!("s{}", n + 1);
        let before = a.descendants();
        let r = a.ok(
            "launch",
            json!({"program": program, "adapter": adapter, "breakpoints": [{"path": program, "line": 3}]}),
        );
        assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
        let adapters: Vec<i32> = a.descendants().into_iter().filter(|p| !before.contains(p)).collect();
        let args = if tool == "evaluate" { json!({"expression": "x"}) } else { json!({"wait_ms": 40000}) };
        let r = a.call(tool, args);
        let what = format!("{adapter} {tool}");
        assert!(r.is_error, "{what}: {}", r.text);
        assert_eq!(r.code(), "disconnected", "{what}: {}", r.text);
        assert!(r.text.contains(claim), "{what}: {}", r.text);
        let s = a.session(&id);
        assert_eq!(s["state"], json!("terminated"), "{what}: {s}");
        assert!(s.to_string().contains(claim), "{what}: the session says why it ended: {s}");
        assert_all_gone(&adapters, HYGIENE, "the adapter that lied");
    }
}

/// An answer with a byte that is not UTF-8 or a lone surrogate escape is still read (the odd
/// character as U+FFFD); one that cannot be parsed at all fails its request at once, saying so,
/// instead of waiting for the 30 s timeout as if the adapter had been silent.
#[test]
fn an_odd_character_costs_only_itself_and_an_unreadable_answer_fails_its_request_at_once() {
    let (mut a, _dir) = with_config_flag("odd");
    let program = fixture("prog.fake");
    let r = a.ok(
        "launch",
        json!({"program": program, "adapter": "fake-odd", "breakpoints": [{"path": program, "line": 3}]}),
    );
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let r = a.ok("evaluate", json!({"expression": "latin1"}));
    assert_eq!(r.s["value"], json!("caf\u{fffd}"), "{}", r.text);
    let r = a.ok("evaluate", json!({"expression": "surrogate"}));
    assert_eq!(r.s["value"], json!("a\u{fffd}b"), "{}", r.text);
    let started = std::time::Instant::now();
    let r = a.call("evaluate", json!({"expression": "deep"}));
    assert!(r.is_error && r.code() == "adapter_error", "{}", r.text);
    assert!(r.text.contains("answer could not be read"), "{}", r.text);
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "answered at once: {:?}", started.elapsed());
    // The session goes on.
    let r = a.ok("evaluate", json!({"expression": "latin1"}));
    assert_eq!(r.s["value"], json!("caf\u{fffd}"), "{}", r.text);
    a.ok("disconnect", json!({}));
}

/// 30,000 frames that are not JSON cost a few `warn` lines, not 30,000: the first ten are shown,
/// then one summary per 10,000 with its count; the answer after the flood still arrives.
#[test]
fn a_flood_of_bad_frames_is_logged_as_the_first_few_and_counted_summaries() {
    let (mut a, _dir) = with_config_flag("flood");
    let program = fixture("prog.fake");
    let r = a.ok("launch", json!({"program": program, "adapter": "fake-flood", "stop_on_entry": true}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    // 30,000 frames, each logged at debug level to stderr, take ~4 s alone and more than the
    // agent's usual 10 s line timeout under a loaded suite: this answer gets 60 s.
    a.d.send_json(&json!({"jsonrpc": "2.0", "id": 9001, "method": "tools/call",
        "params": {"name": "evaluate", "arguments": {"expression": "x"}}}));
    let deadline = Instant::now() + Duration::from_secs(60);
    let answer = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = a.d.recv_line_within(left).expect("the evaluate after the flood is answered");
        let msg: Value = serde_json::from_str(&line).expect("a JSON line");
        if msg["id"] == json!(9001) {
            break msg;
        }
    };
    let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("after the flood"), "{answer}");
    // Everything is logged once agentdap has exited.
    a.d.close_stdin();
    a.d.assert_clean_exit(Duration::from_secs(20));
    let stderr = a.d.stderr();
    let warns: Vec<&str> = stderr.lines().filter(|l| l.contains("WARN")).collect();
    let all = warns.join("\n");
    // Ten shown, and each of the two summaries names the latest.
    assert_eq!(warns.iter().filter(|l| l.contains("that is not JSON")).count(), 10 + 2, "{all}");
    assert_eq!(warns.iter().filter(|l| l.contains(": 10000 more stream diagnostics")).count(), 2, "{all}");
    assert!(warns.len() < 30, "{all}");
}

#[test]
fn the_xdg_config_is_used_and_unknown_names_list_custom_adapters() {
    let dir = TempDir::new("xdg");
    write_config(&dir, "agentdap/config.json");
    let mut a = Agent::start_with(|cmd| {
        cmd.env("XDG_CONFIG_HOME", &dir.0);
    });
    let r = a.call("launch", json!({"program": fixture("prog.fake"), "adapter": "nope"}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
    assert!(r.text.contains("custom adapters from the config file: fake, fake-bigline, fake-c05"), "{}", r.text);
    let r = a.ok("launch", json!({"program": fixture("prog.fake")}));
    assert_eq!(r.s["adapter"], json!("fake"), "{}", r.text);
}

#[test]
fn a_named_config_that_is_missing_or_invalid_stops_agentdap_with_the_reason() {
    let dir = TempDir::new("badconfig");
    let bad = dir.0.join("bad.json");
    std::fs::write(&bad, r#"{"adapters": {"x": {"command": "c", "argz": []}}}"#).expect("write");
    let missing = dir.0.join("missing.json");
    for (args, env, expected) in [
        (vec!["--config".to_owned(), bad.display().to_string()], None, "unknown field `argz`"),
        (vec![], Some(bad.display().to_string()), "unknown field `argz`"),
        (vec![format!("--config={}", missing.display())], None, "cannot read config file"),
    ] {
        let mut cmd = Command::new(bin());
        cmd.args(&args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        match &env {
            Some(v) => cmd.env("AGENTDAP_CONFIG", v),
            None => cmd.env_remove("AGENTDAP_CONFIG"),
        };
        let out = cmd.output().expect("run agentdap");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "nothing on stdout");
    }
}

/// A debuggee in its own session, which its adapter never kills: the watchdog (fed from the DAP
/// `process` event) kills it when agentdap is SIGKILLed, and `disconnect` kills it too.
#[test]
fn a_debuggee_the_adapter_leaves_behind_dies_with_agentdap_and_on_disconnect() {
    let (mut a, _dir) = with_config_flag("watchdog");
    let args = json!({"program": fixture("prog.fake"), "adapter": "fake", "adapter_args": {"spawnDebuggee": true}});
    a.ok("launch", args.clone());
    let first = a.session("s1")["pid"].as_i64().expect("debuggee pid from the process event") as i32;
    assert!(agent::alive(first));
    a.ok("disconnect", json!({}));
    assert_all_gone(&[first], HYGIENE, "the debuggee after disconnect");

    a.ok("launch", args);
    let second = a.session("s2")["pid"].as_i64().expect("debuggee pid") as i32;
    let tree = a.descendants();
    assert!(tree.contains(&second), "{tree:?}");
    a.d.signal(libc::SIGKILL);
    assert!(a.d.wait_exit(Duration::from_secs(4)).is_some(), "agentdap survived SIGKILL");
    assert_all_gone(&[second], HYGIENE, "the debuggee after SIGKILL of agentdap (watchdog)");
    assert_all_gone(&tree, HYGIENE, "everything agentdap started, after its SIGKILL");
}

/// A `stopped` event that arrives before the response to the `next` that caused it (lldb-dap,
/// Delve) leaves the session stopped at the new line — the late response does not flip it back
/// to running, and the step's result is the stop.
#[test]
fn a_stop_before_the_step_response_leaves_the_session_stopped_at_the_new_line() {
    let (mut a, _dir) = with_config_flag("stopfirst");
    let program = fixture("prog.fake");
    let r = a.ok(
        "launch",
        json!({"program": program, "adapter": "fake-stopfirst", "breakpoints": [{"path": program, "line": 40}]}),
    );
    assert_eq!(
        (r.s["state"].clone(), r.s["stop"]["location"]["line"].clone()),
        (json!("stopped"), json!(40)),
        "{}",
        r.text
    );
    let r = a.ok("step", json!({}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("step"));
    assert_eq!(r.s["stop"]["location"]["line"], json!(41), "{}", r.text);
    // The late response changed nothing: still stopped at 41, and inspection works.
    let s = a.session("s1");
    assert_eq!((s["state"].clone(), s["stop"]["location"]["line"].clone()), (json!("stopped"), json!(41)), "{s}");
    let log = a.dap_log("s1");
    let from: Vec<String> = log
        .iter()
        .filter(|e| e["dir"] == json!("from_adapter"))
        .map(|e| {
            format!(
                "{}:{}",
                e["message"]["type"].as_str().unwrap_or(""),
                e["message"]["event"].as_str().or(e["message"]["command"].as_str()).unwrap_or("")
            )
        })
        .collect();
    let stop = from.iter().rposition(|m| m == "event:stopped").expect("a stopped event");
    let resp = from.iter().rposition(|m| m == "response:next").expect("a next response");
    assert!(stop < resp, "the fake adapter sends the stop first: {from:?}");
}

/// An adapter that never answers `disconnect` (and ignores SIGTERM) does not hold the agent for
/// the request timeout: the answer comes within the grace period and the adapter is killed.
#[test]
fn a_disconnect_the_adapter_never_answers_ends_within_the_grace_period() {
    let (mut a, _dir) = with_config_flag("deaf");
    let program = fixture("py/app.py");
    let r = a.ok("launch", json!({"program": program, "adapter": "fake-deaf", "stop_on_entry": true}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let adapters = a.descendants();
    let started = std::time::Instant::now();
    let r = a.ok("disconnect", json!({}));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "answered after {:?}: {}",
        started.elapsed(),
        r.text
    );
    agent::assert_all_gone(&adapters_only(&adapters), std::time::Duration::from_secs(5), "the deaf adapter");
}

/// `launch` and `disconnect` in one write: both are answered exactly once, the adapter that was
/// about to start is stopped, and the next session is not disturbed by it.
#[test]
fn launch_and_disconnect_in_one_write_are_both_answered_and_leave_nothing() {
    let (mut a, _dir) = with_config_flag("race");
    let program = fixture("py/app.py");
    let launch = json!({"jsonrpc": "2.0", "id": 801, "method": "tools/call",
        "params": {"name": "launch", "arguments": {"program": program, "adapter": "fake", "stop_on_entry": true}}});
    let disconnect =
        json!({"jsonrpc": "2.0", "id": 802, "method": "tools/call", "params": {"name": "disconnect", "arguments": {}}});
    a.d.send_bytes(format!("{launch}\n{disconnect}\n").as_bytes());
    let mut answered = std::collections::BTreeMap::new();
    while answered.len() < 2 {
        let msg = a.d.recv();
        if let Some(id) = msg["id"].as_i64() {
            assert!(answered.insert(id, msg.clone()).is_none(), "answered twice: {msg}");
        }
    }
    assert_eq!(answered.keys().copied().collect::<Vec<_>>(), [801, 802]);
    let own = |pids: Vec<i32>| pids.into_iter().filter(|p| !is_watchdog(*p)).collect::<Vec<_>>();
    let end = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !own(a.descendants()).is_empty() && std::time::Instant::now() < end {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(own(a.descendants()).is_empty(), "no adapter left: {:?}", own(a.descendants()));
    // The next session works normally.
    let r = a.ok("launch", json!({"program": program, "adapter": "fake", "stop_on_entry": true}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
}

fn is_watchdog(pid: i32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains("__watchdog"))
}

fn adapters_only(pids: &[i32]) -> Vec<i32> {
    pids.iter().copied().filter(|p| !is_watchdog(*p)).collect()
}
