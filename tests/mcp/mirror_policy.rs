//! The mirror's `evaluate` policy on each real adapter (an expression only: lldb-dap's commands,
//! debugpy's statements and Delve's `dlv`/`call` never run) and the per-client cap on requests at
//! the adapter, measured with a scripted adapter (`fake_adapter.py hold`). Split from `mirror.rs`,
//! whose IDE driver (`Ide`) and helpers these tests share.

use crate::agent;
use crate::common;
use crate::mirror::*;

use std::io::Write;
use std::process::Command;

use agent::{fixture, Agent};
use serde_json::{json, Value};

/// One `evaluate` a mirror client sends: `text` in `context` (none when `None`) at `frame`.
fn evaluate_args(text: &str, context: Option<&str>, frame: i64) -> Value {
    let mut args = json!({"expression": text, "frameId": frame});
    if let Some(c) = context {
        args["context"] = json!(c);
    }
    args
}

/// Every context a client may name, and none at all.
const CONTEXTS: [Option<&str>; 7] =
    [Some("repl"), None, Some("watch"), Some("hover"), Some("clipboard"), Some("variables"), Some("somethingNew")];

/// Sends `text` in every context (and each of `prefixes` before it, in `repl` and `watch`) from
/// mirror client `c`. With `must_fail`, every answer must be a failure (refused by the mirror, or
/// an expression the adapter could not evaluate); a prefixed one is always the mirror's refusal.
/// Returns the answers.
fn sent_everywhere(ide: &mut Ide, c: u64, text: &str, prefixes: &[&str], frame: i64, must_fail: bool) -> Vec<Value> {
    let mut requests: Vec<Value> =
        CONTEXTS.iter().map(|ctx| json!({"command": "evaluate", "args": evaluate_args(text, *ctx, frame)})).collect();
    for p in prefixes {
        for ctx in [Some("repl"), Some("watch")] {
            requests.push(json!({"command": "evaluate", "args": evaluate_args(&format!("{p}{text}"), ctx, frame)}));
        }
    }
    let answers = ide.cmd(json!({"op": "send_many", "client": c, "requests": requests}));
    let list = answers["responses"].as_array().cloned().expect("responses");
    for (r, q) in list.iter().zip(&requests) {
        assert!(!must_fail || r["ok"] == json!(false), "the mirror ran {q} as more than an expression: {r}");
    }
    for r in &list[CONTEXTS.len()..] {
        assert!(message(r).contains("debugger command"), "a command escape is refused by the mirror: {r}");
    }
    list
}

/// `loop.c`: stopped at line 6 (`total += step(i);`, first pass, `x` = 41) by a breakpoint.
const C_LOOP: &str = "int step(int i) { return i * 2; }\nint main(void) {\n    int x = 41;\n    int total = 0;\n    for (int i = 0; i < 3; i++)\n        total += step(i);\n    return total + x - 47;\n}\n";

#[test]
fn a_mirror_client_cannot_run_lldb_commands_on_an_lldb_dap_session() {
    let dir = agent::scratch("mirror-lldb-commands");
    let source = dir.join("loop.c");
    std::fs::write(&source, C_LOOP).expect("write C");
    let program = dir.join("loop");
    let built = Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&program).arg(&source).status();
    assert!(built.is_ok_and(|s| s.success()), "gcc (test dependency) failed");
    let marker = dir.join("shell-ran");

    let mut a = Agent::start();
    let source = source.to_string_lossy().into_owned();
    let r =
        a.ok("launch", json!({"program": program, "breakpoints": [{"path": source, "line": 6}], "wait_ms": 30_000}));
    assert_eq!(stopped_line(&r), json!(6), "{}", r.text);
    let id = r.s["session"].as_str().expect("id").to_owned();
    let revision = a.ok("threads", json!({})).s["revision"].clone();
    let (port, token) = expose(&mut a, &id);
    let mut ide = Ide::start();
    let (c, _) = ide.attach(port, &token);
    let thread = ide.event(c, "stopped")["body"]["threadId"].as_i64().expect("threadId");
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 1}));
    let frame = st["stackFrames"][0]["id"].as_i64().expect("frame");

    let shell = format!("platform shell touch {}", marker.display());
    for text in
        ["thread step-over", "process continue", "process kill", "breakpoint delete", "breakpoint set -n step", &shell]
    {
        sent_everywhere(&mut ide, c, text, &["`"], frame, true);
    }
    // A plain expression still works, in the console's context too (sent as `watch`).
    for ctx in [Some("repl"), None, Some("watch")] {
        let e = ide.ok(c, "evaluate", evaluate_args("x + 1", ctx, frame));
        assert_eq!(e["result"], json!("42"), "{e}");
    }
    let r = ide.request(c, "evaluate", json!({"expression": "x + 1", "context": "watch"}));
    assert!(r["ok"] == json!(false) && message(&r).contains("frameId"), "{r}");

    // The session is where it was, its program alive, no shell command ran.
    let s = a.session(&id);
    assert_eq!((s["state"].clone(), s["stop"]["location"]["line"].clone()), (json!("stopped"), json!(6)), "{s}");
    assert_eq!(a.ok("threads", json!({})).s["revision"], revision, "nothing ran since the stop");
    assert!(!marker.exists(), "`platform shell` ran through the mirror");
    // lldb-dap still has the agent's breakpoint, and none on `step`: the next stop is line 6 again.
    let r = a.ok("continue", json!({"wait_ms": 30_000}));
    assert_eq!((r.s["state"].clone(), stopped_line(&r)), (json!("stopped"), json!(6)), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "i"})).s["value"], json!("1"), "the loop's second pass");
    ide.event(c, "continued");
    ide.event(c, "stopped");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_mirror_client_cannot_exec_statements_on_a_debugpy_session() {
    let mut a = Agent::start();
    let id = stopped_session(&mut a);
    let (port, token) = expose(&mut a, &id);
    let mut ide = Ide::start();
    let (c, _) = ide.attach(port, &token);
    let thread = ide.event(c, "stopped")["body"]["threadId"].as_i64().expect("threadId");
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 1}));
    let frame = st["stackFrames"][0]["id"].as_i64().expect("frame");
    // debugpy's repl would exec these (a statement when eval cannot compile it).
    for text in ["name = 'changed by the mirror'", "import json", "del words"] {
        // Not all fail (pydevd answers a SyntaxError in `clipboard` as a value): what counts is
        // that nothing ran, checked below.
        sent_everywhere(&mut ide, c, text, &[], frame, false);
    }
    // Frameless, debugpy would exec it in every context: refused before it reaches the adapter.
    let r = ide.request(c, "evaluate", json!({"expression": "import json", "context": "watch"}));
    assert!(r["ok"] == json!(false) && message(&r).contains("frameId"), "{r}");
    let e = ide.ok(c, "evaluate", evaluate_args("len(name) + 1", Some("repl"), frame));
    assert_eq!(e["result"], json!("9"), "{e}");

    let e = a.ok("evaluate", json!({"expression": "(name, 'json' in dir(), words)"}));
    assert_eq!(e.s["value"], json!("('变量 world', False, ['hello', '变量 world'])"), "{}", e.text);
    // The agent's own evaluate is unchanged: the repl still runs its statements.
    a.ok("evaluate", json!({"expression": "import json"}));
    let e = a.ok("evaluate", json!({"expression": "'json' in dir()"}));
    assert_eq!(e.s["value"], json!("True"), "{}", e.text);
}

/// `main.go` for the Delve mirror test: stopped at line 6 (`c := a + b` in `add`).
const GO_MIRROR: &str = "package main\n\nimport \"fmt\"\n\nfunc add(a, b int) int {\n\tc := a + b\n\treturn c\n}\n\nfunc twice(n int) int { return 2 * n }\n\nfunc main() {\n\tfmt.Println(add(3, 4), twice(5))\n}\n";

#[test]
fn a_mirror_client_cannot_run_delve_commands_or_calls() {
    agent::require("dlv", "delve golang-go");
    let dir = agent::scratch("mirror-delve");
    std::fs::write(dir.join("main.go"), GO_MIRROR).expect("write Go");
    std::fs::write(dir.join("go.mod"), "module example.com/mirror\n\ngo 1.19\n").expect("write go.mod");
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("go");
    let go_env = |cmd: &mut Command| {
        cmd.env("GOCACHE", cache.join("cache")).env("GOPATH", cache.join("path")).env("GOFLAGS", "-mod=mod");
    };
    let bin = dir.join("mirror");
    let mut build = Command::new("go");
    build.current_dir(&dir).args(["build", "-gcflags=all=-N -l", "-o"]).arg(&bin).arg(".");
    go_env(&mut build);
    agent::build(&mut build, "golang-go");

    let mut a = Agent::start_plain(|cmd| go_env(cmd));
    let source = dir.join("main.go").to_string_lossy().into_owned();
    let r = a.ok("launch", json!({"program": bin, "breakpoints": [{"path": source, "line": 6}], "wait_ms": 50_000}));
    assert_eq!(stopped_line(&r), json!(6), "{}", r.text);
    let id = r.s["session"].as_str().expect("id").to_owned();
    let revision = a.ok("threads", json!({})).s["revision"].clone();
    let (port, token) = expose(&mut a, &id);
    let mut ide = Ide::start();
    let (c, _) = ide.attach(port, &token);
    let thread = ide.event(c, "stopped")["body"]["threadId"].as_i64().expect("threadId");
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 1}));
    let frame = st["stackFrames"][0]["id"].as_i64().expect("frame");
    // Delve runs these in every context: `dlv …` as its own commands, `call …` resumes the
    // program to run a function (or an assignment).
    for text in ["dlv help", "dlv config substitutePath a b", " call twice(a)", "call a = 9"] {
        let list = sent_everywhere(&mut ide, c, text, &[], frame, true);
        for r in &list {
            assert!(message(r).contains("debugger command"), "refused by the mirror, not by Delve: {r}");
        }
    }
    let e = ide.ok(c, "evaluate", evaluate_args("a + b + 1", Some("repl"), frame));
    assert_eq!(e["result"], json!("8"), "{e}");

    let s = a.session(&id);
    assert_eq!((s["state"].clone(), s["stop"]["location"]["line"].clone()), (json!("stopped"), json!(6)), "{s}");
    assert_eq!(a.ok("threads", json!({})).s["revision"], revision, "nothing ran since the stop");
    assert_eq!(a.ok("evaluate", json!({"expression": "a"})).s["value"], json!("3"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_agent_request_waits_behind_at_most_the_cap_of_a_mirror_clients_requests() {
    use agentdap::mirror::MAX_ADAPTER_IN_FLIGHT;
    let dir = common::TempDir::new("mirror-cap");
    let config = dir.0.join("config.json");
    let entry = json!({"command": agent::debugpy_python(), "args": [fixture("fake_adapter.py"), "hold"]});
    std::fs::write(&config, json!({"adapters": {"fake-hold": entry}}).to_string()).expect("write config");
    let mut a = Agent::start_with(|c| {
        c.arg("--config").arg(&config);
    });
    let program = fixture("prog.fake");
    let r = a.ok(
        "launch",
        json!({"program": program, "adapter": "fake-hold", "breakpoints": [{"path": program, "line": 3}]}),
    );
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let id = r.s["session"].as_str().expect("id").to_owned();
    let (port, token) = expose(&mut a, &id);
    let mut ide = Raw::attach(port, &token);
    let st = ide.call(3, "stackTrace", json!({"threadId": 1}));
    let frame = st["body"]["stackFrames"][0]["id"].clone();

    // Twenty evaluates the adapter holds, pipelined; then a request the mirror answers itself,
    // so once it is answered agentdap has taken in all twenty.
    let n = 20;
    let burst: Vec<u8> = (0..n)
        .flat_map(|i| {
            let args = json!({"expression": format!("m{i}"), "frameId": frame, "context": "watch"});
            Raw::request_frame(100 + i, "evaluate", args)
        })
        .collect();
    ide.stream.write_all(&burst).expect("write the burst");
    assert_eq!(ide.call(200, "setExceptionBreakpoints", json!({"filters": []}))["success"], json!(true));
    // The agent's evaluate reaches the adapter behind only the cap of them.
    let e = a.ok("evaluate", json!({"expression": "held"}));
    assert_eq!(e.s["value"], json!(MAX_ADAPTER_IN_FLIGHT.to_string()), "{}", e.text);
    const { assert!(MAX_ADAPTER_IN_FLIGHT < 20) };

    // Released, every one is answered, each to its own request_seq, the queued ones after.
    a.ok("evaluate", json!({"expression": "release"}));
    let mut answered = Vec::new();
    while answered.len() < 20 {
        let m = ide.next(IDE_TIMEOUT).unwrap_or_else(|| panic!("{} of 20 answers", answered.len()));
        if m["type"] == json!("response") {
            let seq = m["request_seq"].as_i64().expect("request_seq");
            assert_eq!(m["success"], json!(true), "{m}");
            assert_eq!(m["body"]["result"], json!(format!("m{}", seq - 100)), "answered to its own request: {m}");
            answered.push(seq);
        }
    }
    answered.sort_unstable();
    assert_eq!(answered, (100..120).collect::<Vec<_>>());
    // What reached the adapter: every mirror evaluate exactly once, in the order sent.
    let log = a.dap_log(&id);
    let sent: Vec<String> = log
        .iter()
        .filter(|e| e["dir"] == json!("to_adapter") && e["message"]["command"] == json!("evaluate"))
        .filter_map(|e| e["message"]["arguments"]["expression"].as_str().map(str::to_owned))
        .filter(|x| x.starts_with('m'))
        .collect();
    assert_eq!(sent, (0..20).map(|i| format!("m{i}")).collect::<Vec<_>>());
}

#[test]
fn the_agent_goes_ahead_of_queued_mirror_requests_and_its_timeout_names_the_mirror_request_holding_the_adapter() {
    use agentdap::mirror::MAX_ADAPTER_IN_FLIGHT;
    let dir = common::TempDir::new("mirror-first");
    let config = dir.0.join("config.json");
    let entry = json!({"command": agent::debugpy_python(), "args": [fixture("fake_adapter.py"), "hold"]});
    std::fs::write(&config, json!({"adapters": {"fake-hold": entry}}).to_string()).expect("write config");
    let mut a = Agent::start_with(|c| {
        c.arg("--config").arg(&config);
    });
    let program = fixture("prog.fake");
    let r = a.ok(
        "launch",
        json!({"program": program, "adapter": "fake-hold", "breakpoints": [{"path": program, "line": 3}]}),
    );
    let id = r.s["session"].as_str().expect("id").to_owned();
    let (port, token) = expose(&mut a, &id);
    let mut ide = Raw::attach(port, &token);
    let st = ide.call(3, "stackTrace", json!({"threadId": 1}));
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let burst: Vec<u8> = (0..8)
        .flat_map(|i| {
            let args = json!({"expression": format!("m{i}"), "frameId": frame, "context": "watch"});
            Raw::request_frame(100 + i, "evaluate", args)
        })
        .collect();
    ide.stream.write_all(&burst).expect("write the burst");
    assert_eq!(ide.call(200, "setExceptionBreakpoints", json!({"filters": []}))["success"], json!(true));
    let n = MAX_ADAPTER_IN_FLIGHT;
    assert_eq!(a.ok("evaluate", json!({"expression": "held"})).s["value"], json!(n.to_string()));

    // The adapter answers the held ones, then waits for the next request before answering the
    // agent's: the queued mirror evaluates must wait for the agent's answer.
    let first = a.ok("evaluate", json!({"expression": "first"}));
    assert_eq!(first.s["value"], json!("none"), "a mirror request reached the adapter ahead of the agent's answer");

    // The next `n` mirror evaluates are held now; the agent's own one times out behind them,
    // and its error says what held the adapter.
    // (The agent's request timeout is 30 s, past the harness's usual wait for a line.)
    let call = json!({"name": "evaluate", "arguments": {"expression": "stall"}});
    a.d.send_json(&json!({"jsonrpc": "2.0", "id": 9000, "method": "tools/call", "params": call}));
    let stalled = loop {
        let line = a.d.recv_line_within(std::time::Duration::from_secs(60)).expect("the agent's evaluate is answered");
        let msg: serde_json::Value = serde_json::from_str(&line).expect("json");
        if msg["id"] == json!(9000) {
            break msg["result"].clone();
        }
    };
    let text = stalled["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(stalled["isError"], json!(true), "{stalled}");
    assert!(text.contains("the adapter was still busy with a mirror client's `evaluate` sent"), "{text}");
    // Those mirror evaluates timed out for the client meanwhile, but the adapter still holds
    // them: none of the queued ones was sent in their place.
    let held = a.ok("evaluate", json!({"expression": "held"}));
    assert_eq!(held.s["value"], json!((n + 1).to_string()), "{}", held.text);
}
