//! Issue 18's inspect additions on real native adapters through the built binary: on lldb-dap
//! (C, `gcc -g -O0`) `completions` of a local's prefix, `modules` listing the program and libc
//! (paged, filtered), `evaluate {hex}` showing 0x2a, `variables {hex}`, several expressions with
//! one error, and `restart {frame}` / `continue {reverse}` answered `unsupported` naming the
//! capability; on Delve, what Debian's Delve lacks (`completions`, `modules`, `hex`) answered
//! `unsupported` naming the capability. Fails when lldb-dap or Delve is missing.

use crate::agent;
use crate::common;
use crate::native_util::{gcc, go_build, go_package};

use std::path::PathBuf;
use std::sync::OnceLock;

use agent::{require, scratch, sent_commands, var_ref, Agent};
use serde_json::json;

const C_SOURCE: &str = r#"#include <stdio.h>
int add(int a, int b) {
    int c = a + b;
    return c;
}
int main(void) {
    int answer_value = 42;
    int s = add(answer_value, 1);
    printf("%d\n", s);
    return 0;
}
"#;

const GO_SOURCE: &str = r#"package main

import "fmt"

func main() {
	answerValue := 42
	fmt.Println(answerValue)
}
"#;

fn c_program() -> &'static (PathBuf, String) {
    static F: OnceLock<(PathBuf, String)> = OnceLock::new();
    F.get_or_init(|| {
        require("lldb-dap-22", "lldb-22");
        let (source, bin) = gcc(&scratch("inspect-more-c"), "prog", C_SOURCE);
        (bin, source.to_string_lossy().into_owned())
    })
}

#[test]
fn lldb_completions_modules_hex_and_several_expressions_and_no_restart_frame_or_reverse() {
    let (bin, source) = c_program();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": bin, "breakpoints": [{"path": source, "line": 8}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(8), "{}", r.text);

    let c = a.ok("completions", json!({"text": "answer_"}));
    let labels: Vec<&str> =
        c.s["targets"].as_array().into_iter().flatten().filter_map(|t| t["label"].as_str()).collect();
    assert!(labels.iter().any(|l| l.starts_with("answer_value")), "{}", c.text);
    assert!(c.text.contains("answer_value"), "{}", c.text);

    let m = a.ok("modules", json!({}));
    let names: Vec<String> = m.s["modules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| format!("{} {}", v["name"].as_str().unwrap_or(""), v["path"].as_str().unwrap_or("")))
        .collect();
    assert!(names.iter().any(|n| n.starts_with("prog ")), "the program: {}", m.text);
    assert!(names.iter().any(|n| n.contains("libc.so")), "libc: {}", m.text);
    let libc = a.ok("modules", json!({"filter": "libc"}));
    assert!(libc.text.contains("(matched by agentdap)") && libc.text.contains("libc.so"), "{}", libc.text);
    assert!(libc.s["modules"].as_array().is_some_and(|l| !l.is_empty() && l.len() < names.len()), "{}", libc.s);
    let one = a.ok("modules", json!({"count": 1}));
    assert_eq!(one.s["modules"].as_array().map(Vec::len), Some(1), "{}", one.text);
    assert_eq!(one.s["next_start"], json!(1), "{}", one.text);
    let second = a.ok("modules", json!({"start": 1, "count": 1}));
    assert_eq!(second.s["modules"][0], m.s["modules"][1], "paged like the whole list: {}", second.text);

    let hex = a.ok("evaluate", json!({"expression": "answer_value", "hex": true}));
    assert!(hex.s["value"].as_str().is_some_and(|v| v.starts_with("0x") && v.ends_with("2a")), "{}", hex.text);
    let plain = a.ok("evaluate", json!({"expression": "answer_value"}));
    assert_eq!(plain.s["value"], json!("42"), "{}", plain.text);
    let ctx = a.ok("context", json!({}));
    let locals = var_ref(&ctx.s["locals"]["variables"], "answer_value");
    assert!(locals.is_null(), "an int has no children");
    let scopes = a.ok("scopes", json!({}));
    let locals = scopes.s["scopes"][0]["ref"].clone();
    let hv = a.ok("variables", json!({"ref": locals, "hex": true}));
    assert!(hv.text.contains("answer_value = 0x") && hv.text.contains("2a"), "{}", hv.text);
    let pv = a.ok("variables", json!({"ref": locals}));
    assert!(pv.text.contains("answer_value = 42"), "the plain page holds no hex value: {}", pv.text);

    let many = a.ok("evaluate", json!({"expressions": ["answer_value", "no_such_name", "answer_value + 1"]}));
    let lines: Vec<&str> = many.text.lines().collect();
    assert_eq!(lines.len(), 3, "{}", many.text);
    assert!(lines[0].starts_with("answer_value = 42"), "{}", many.text);
    assert!(lines[1].starts_with("no_such_name: error: ") && lines[1].contains("no_such_name"), "{}", many.text);
    assert!(lines[2].starts_with("answer_value + 1 = 43"), "{}", many.text);
    assert!(many.s["results"][1]["error"].is_string() && many.s["results"][2]["value"] == json!("43"), "{}", many.s);
    let both = a.call("evaluate", json!({"expression": "s", "expressions": ["s"]}));
    assert!(both.is_error && both.code() == "invalid_argument", "{}", both.text);

    let frame = ctx.s["frames"][0]["frame"].clone();
    let before = sent_commands(&a.dap_log("s1")).len();
    let rf = a.call("restart", json!({"frame": frame}));
    assert!(rf.is_error && rf.code() == "unsupported" && rf.text.contains("supportsRestartFrame"), "{}", rf.text);
    let rc = a.call("continue", json!({"reverse": true}));
    assert!(rc.is_error && rc.code() == "unsupported" && rc.text.contains("supportsStepBack"), "{}", rc.text);
    let sent = sent_commands(&a.dap_log("s1"));
    assert_eq!(sent.len(), before, "nothing was sent for either: {sent:?}");
    assert!(!sent.iter().any(|c| c == "restartFrame" || c == "reverseContinue"), "{sent:?}");
    a.ok("disconnect", json!({}));
}

#[test]
fn delve_has_no_completions_modules_or_hex_and_says_which_capability() {
    require("dlv", "delve golang-go");
    let dir = scratch("inspect-more-go");
    go_package(&dir, "answer", GO_SOURCE);
    let bin = go_build(&dir, "answer");
    let mut a = Agent::start_plain(|cmd| {
        common::go_env(cmd);
    });
    let source = dir.join("main.go").to_string_lossy().into_owned();
    let r = a.ok("launch", json!({"program": bin, "breakpoints": [{"path": source, "line": 7}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(7), "{}", r.text);
    let frame = a.ok("stack_trace", json!({})).s["frames"][0]["frame"].clone();
    let before = sent_commands(&a.dap_log("s1")).len();
    for (tool, args, capability) in [
        ("completions", json!({"text": "answer"}), "supportsCompletionsRequest"),
        ("modules", json!({}), "supportsModulesRequest"),
        ("modules", json!({"sources": true}), "supportsLoadedSourcesRequest"),
        ("evaluate", json!({"expression": "answerValue", "hex": true}), "supportsValueFormattingOptions"),
        ("restart", json!({ "frame": frame }), "supportsRestartFrame"),
        ("continue", json!({"reverse": true}), "supportsStepBack"),
    ] {
        let out = a.call(tool, args.clone());
        assert!(
            out.is_error && out.code() == "unsupported" && out.text.contains(capability),
            "{tool} {args}: {}",
            out.text
        );
    }
    assert_eq!(sent_commands(&a.dap_log("s1")).len(), before, "nothing was sent");
    let e = a.ok("evaluate", json!({"expressions": ["answerValue", "answerValue + 1"]}));
    assert_eq!(
        e.text.lines().collect::<Vec<_>>(),
        ["answerValue = 42 (int)", "answerValue + 1 = 43 (int)"],
        "{}",
        e.text
    );
    a.ok("disconnect", json!({}));
}
