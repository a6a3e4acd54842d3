//! Operator limits through the real binary (`--allow`, `AGENTDAP_ALLOW`): each set refuses
//! exactly its calls, naming the switch, in both MCP eras; `tools/list` omits what can never be
//! allowed; a bad list stops the start.

use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common::{self, modern_meta, Agentdap};

/// (set, tool, arguments, the switch the refusal names or `None` when the call must pass the limit).
const CASES: &[(&str, &str, &str, Option<&str>)] = &[
    ("inspect", "launch", r#"{"program": "/nonexistent/a.py"}"#, Some("launch")),
    ("inspect", "set_variable", r#"{"name": "x", "value": "1"}"#, Some("modify")),
    ("inspect", "goto", r#"{"path": "/a.py", "line": 1}"#, Some("modify")),
    ("inspect", "continue", "{}", Some("control")),
    ("inspect", "pause", "{}", Some("control")),
    ("inspect", "dap_request", r#"{"command": "threads"}"#, Some("raw")),
    ("inspect", "expose_session", "{}", Some("mirror")),
    ("inspect", "evaluate", r#"{"expression": "x", "context": "repl"}"#, Some("evaluate")),
    ("inspect", "memory", r#"{"op": "write", "address": "0x10", "data": "AA=="}"#, Some("modify")),
    ("inspect", "watch", r#"{"add": ["x"]}"#, Some("evaluate")),
    ("inspect", "disconnect", r#"{"terminate_debuggee": true}"#, Some("control")),
    ("inspect", "memory", r#"{"address": "0x10", "count": 4}"#, None),
    ("inspect", "threads", "{}", None),
    ("inspect", "sessions", "{}", None),
    ("inspect", "attach", r#"{"connect": "127.0.0.1:1"}"#, None),
    // Arguments that reach code although their tool is allowed (breaker findings).
    ("inspect", "attach", r#"{"pid": 1, "adapter_args": {"python": "/tmp/x.sh"}}"#, Some("launch")),
    ("inspect", "attach", r#"{"pid": 1, "adapter_args": {"initCommands": ["platform shell id"]}}"#, Some("launch")),
    (
        "inspect",
        "attach",
        r#"{"connect": "127.0.0.1:1", "breakpoints": [{"path": "/a.py", "line": 1, "condition": "f()"}]}"#,
        Some("evaluate"),
    ),
    ("inspect", "memory", r#"{"address": "(char*)(bump(5))", "count": 4}"#, Some("evaluate")),
    ("inspect", "disconnect", r#"{"graceful": true}"#, Some("control")),
    (
        "inspect",
        "set_breakpoints",
        r#"{"kind": "data", "breakpoints": [{"expression": "0*bump(7)"}]}"#,
        Some("evaluate"),
    ),
    (
        "launch,control",
        "set_breakpoints",
        r#"{"path": "/a.py", "breakpoints": [{"line": 1, "logMessage": "{f()}"}]}"#,
        Some("evaluate"),
    ),
    (
        "launch,control",
        "launch",
        r#"{"program": "/nonexistent/a.py", "breakpoints": [{"path": "/a.py", "line": 1, "hitCondition": "2"}]}"#,
        Some("evaluate"),
    ),
    ("launch,control", "launch", r#"{"program": "/nonexistent/a.py"}"#, None),
    ("launch,control", "continue", "{}", None),
    ("launch,control", "attach", r#"{"pid": 1}"#, Some("attach")),
    ("launch,control", "set_variable", r#"{"name": "x", "value": "1"}"#, Some("modify")),
    ("launch,control", "evaluate", r#"{"expression": "x", "context": "repl"}"#, Some("evaluate")),
    ("attach,evaluate,modify", "evaluate", r#"{"expression": "x", "context": "repl"}"#, None),
    ("attach,evaluate,modify", "set_variable", r#"{"name": "x", "value": "1"}"#, None),
    ("attach,evaluate,modify", "step", "{}", Some("control")),
    // A mirror client gets at most what the agent may: no control mirror without `control`.
    ("attach,mirror", "expose_session", r#"{"control": true}"#, Some("control")),
    ("attach,mirror", "expose_session", "{}", None),
];

fn call(id: i64, tool: &str, args: Value, modern: bool) -> Value {
    let mut params = json!({"name": tool, "arguments": args});
    if modern {
        params["_meta"] = modern_meta("2026-07-28");
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn text(r: &Value) -> String {
    r["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn each_allow_set_refuses_exactly_its_calls_in_both_eras() {
    let sets: Vec<&str> = CASES.iter().fold(Vec::new(), |mut v, c| {
        if !v.contains(&c.0) {
            v.push(c.0);
        }
        v
    });
    for set in sets {
        for modern in [false, true] {
            let mut d = Agentdap::spawn_with(|cmd| {
                cmd.args(["--allow", set]);
            });
            if !modern {
                d.initialize("2025-11-25");
            }
            for (i, (_, tool, args, switch)) in CASES.iter().filter(|c| c.0 == set).enumerate() {
                let r = d.request(call(10 + i as i64, tool, serde_json::from_str(args).unwrap(), modern));
                let t = text(&r);
                match switch {
                    Some(s) => {
                        assert_eq!(r["result"]["isError"], json!(true), "{set} {tool}: {r}");
                        assert_eq!(r["result"]["structuredContent"]["error"]["code"], json!("not_allowed"), "{r}");
                        assert!(
                            t.contains(&format!("agentdap runs with --allow {set}; --allow {s} allows it")),
                            "{set} {tool} (modern {modern}): {t}"
                        );
                    }
                    // Past the limit: whatever the handler answers, it is no refusal of the limit.
                    None => assert!(!t.contains("not_allowed") && !t.contains("--allow"), "{set} {tool}: {t}"),
                }
            }
        }
    }
}

fn listed(configure: impl FnOnce(&mut Command)) -> Vec<String> {
    let mut d = Agentdap::spawn_with(configure);
    d.initialize("2025-11-25");
    let r = d.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    r["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn tools_list_omits_what_can_never_be_allowed_and_the_flag_wins_over_the_variable() {
    let all = listed(|_| {});
    assert_eq!(all.len(), 36);
    let inspect = listed(|c| {
        c.args(["--allow", "inspect"]);
    });
    let gone: Vec<&String> = all.iter().filter(|t| !inspect.contains(t)).collect();
    assert_eq!(
        gone,
        [
            "launch",
            "continue",
            "step",
            "pause",
            "completions",
            "expose_session",
            "unexpose_session",
            "run_to",
            "goto",
            "restart",
            "set_variable",
            "send_input",
            "resolve_host_request",
            "dap_request"
        ]
        .iter()
        .collect::<Vec<_>>()
    );
    for stays in ["attach", "evaluate", "memory", "watch", "disconnect", "variables", "capabilities", "set_breakpoints"]
    {
        assert!(inspect.contains(&stays.to_owned()), "{stays}");
    }
    let lc = listed(|c| {
        c.args(["--allow", "launch,control"]);
    });
    assert!(
        lc.contains(&"launch".into()) && lc.contains(&"step".into()) && lc.contains(&"resolve_host_request".into())
    );
    assert!(
        !lc.contains(&"attach".into()) && !lc.contains(&"set_variable".into()) && !lc.contains(&"dap_request".into())
    );
    let env = listed(|c| {
        c.env("AGENTDAP_ALLOW", "inspect");
    });
    assert_eq!(env, inspect);
    let flag_wins = listed(|c| {
        c.env("AGENTDAP_ALLOW", "inspect").args(["--allow", "launch,control"]);
    });
    assert_eq!(flag_wins, lc);
}

#[test]
fn an_unknown_switch_stops_the_start_naming_the_valid_ones() {
    let run = |configure: &dyn Fn(&mut Command)| {
        let mut cmd = Command::new(common::bin());
        cmd.stdin(Stdio::null());
        configure(&mut cmd);
        cmd.output().expect("run agentdap")
    };
    for out in [
        run(&|c| {
            c.args(["--allow", "inspect,spawn"]);
        }),
        run(&|c| {
            c.env("AGENTDAP_ALLOW", "spawn");
        }),
    ] {
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(
                "unknown switch `spawn`; valid: launch, attach, evaluate, modify, control, mirror, raw, inspect"
            ),
            "{err}"
        );
    }
    let help = run(&|c| {
        c.arg("--help");
    });
    assert!(String::from_utf8_lossy(&help.stdout).contains("--allow <list>"));
}
