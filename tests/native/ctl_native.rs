//! `set_breakpoints {kind: function}`, `set_variable`, `run_to` and `restart` on lldb-dap (a C program,
//! `gcc -g -O0`; lldb-dap 22 advertises `supportsRestartRequest` in a `capabilities` event after
//! launch, so `restart` goes through DAP `restart`), and `run_to` and a relaunching `restart` on
//! Delve (`mode: debug`: dlv builds into agentdap's temporary directory, which the new adapter
//! reuses). Fails when lldb-dap or Delve is missing.

use crate::agent;
use crate::common;
use crate::native_util::{gcc, go_package};

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use agent::{assert_all_gone, require, scratch, var_value, Agent, Res, HYGIENE};
use agentdap::os::spawn::Pid;
use common::go_env;
use serde_json::{json, Value};

const C_SOURCE: &str = r#"#include <stdio.h>
int square(int v) {
    int r = v * v;
    return r;
}
int main(void) {
    int total = 0;
    for (int i = 0; i < 4; i++) {
        total += square(i);
    }
    int n = 5;
    printf("total=%d n=%d\n", total, n);
    return total + n;
}
"#;

const GO_SOURCE: &str = r#"package main

import "fmt"

func square(v int) int {
	r := v * v
	return r
}

func main() {
	total := 0
	for i := 0; i < 4; i++ {
		total += square(i)
	}
	n := 5
	fmt.Println("total", total, "n", n)
}
"#;

fn c_program() -> &'static (PathBuf, PathBuf) {
    static F: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    F.get_or_init(|| {
        require("lldb-dap-22", "lldb-22");
        gcc(&scratch("ctl-c"), "squares", C_SOURCE)
    })
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn at(r: &Res) -> (Value, Value) {
    (r.s["stop"]["location"]["line"].clone(), r.s["stop"]["location"]["function"].clone())
}

#[test]
fn lldb_function_breakpoint_set_variable_run_to_and_restart_in_the_adapter() {
    let (source, bin) = c_program();
    let src = path(source);
    let mut a = Agent::start_plain(|_| {});
    // Saved before any session: applied at launch like source breakpoints.
    let pending = a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": [{"name": "square"}]}));
    assert_eq!(pending.s["pending"], json!(true), "{}", pending.text);
    let r = a.ok("launch", json!({"program": path(bin), "breakpoints": [{"path": src, "line": 12}]}));
    assert_eq!(at(&r), (json!(3), json!("square")), "the function breakpoint hit: {}", r.text);
    let b = a.ok("breakpoints", json!({}));
    let f = &b.s["functions"][0];
    assert_eq!(
        (f["name"].clone(), f["verified"].clone(), f["hit"].clone()),
        (json!("square"), json!(true), json!(true)),
        "{}",
        b.text
    );
    assert!(b.text.contains("function square: verified · hit"), "{}", b.text);

    // The outermost frame has no file: its source (disassembly) comes through DAP `source`.
    let st = a.ok("stack_trace", json!({}));
    let frames = st.s["frames"].as_array().cloned().unwrap_or_default();
    let (source_ref, line) = frames
        .iter()
        .find_map(|f| Some((f.get("source_ref")?.clone(), f["line"].as_u64()?)))
        .unwrap_or_else(|| panic!("a frame with a source_ref: {}", st.s));
    let dis = a.ok("source", json!({"source_ref": source_ref, "line": line, "around": 1}));
    assert!(dis.text.starts_with(&format!("source_ref {source_ref} lines")), "{}", dis.text);
    assert!(dis.text.contains(&format!("→{line:>5}  0x")), "the frame's instruction is marked: {}", dis.text);

    // An int local of the first call (v = 0) becomes 7; the function computes with it.
    let c = a.ok("context", json!({}));
    let locals = c.s["locals"]["ref"].clone();
    assert_eq!(var_value(&c.s["locals"]["variables"], "v"), "0");
    let s = a.ok("set_variable", json!({"ref": locals, "name": "v", "value": "7"}));
    assert_eq!((s.s["value"].clone(), s.s["old_value"].clone()), (json!("7"), json!("0")), "{}", s.text);
    let r = a.ok("step", json!({}));
    assert_eq!(at(&r), (json!(4), json!("square")), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "r"})).s["value"], json!("49"));

    // lldb-dap has neither setExpression nor gotoTargets: said before anything is sent.
    let x = a.call("set_variable", json!({"expression": "r", "value": "1"}));
    assert!(x.is_error && x.code() == "unsupported" && x.text.contains("supportsSetExpression"), "{}", x.text);
    assert!(x.text.contains("set_variable"), "suggests set_variable: {}", x.text);
    let g = a.call("goto", json!({"path": src, "line": 3}));
    assert!(g.is_error && g.code() == "unsupported" && g.text.contains("supportsGotoTargetsRequest"), "{}", g.text);

    // Without the function breakpoint, run past the loop to line 11; the breakpoint at 12 stays.
    let cleared = a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": []}));
    assert_eq!(cleared.s["breakpoints"], json!([]), "{}", cleared.text);
    let r = a.ok("run_to", json!({"path": src, "line": 11}));
    assert_eq!((at(&r), r.s["run_to"]["reached"].clone()), ((json!(11), json!("main")), json!(true)), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "total"})).s["value"], json!("63"), "49 + 1 + 4 + 9");
    let r = a.ok("continue", json!({}));
    assert_eq!(at(&r), (json!(12), json!("main")), "the agent's breakpoint: {}", r.text);

    let caps = a.ok("capabilities", json!({}));
    assert_eq!(caps.s["raw"]["supportsRestartRequest"], json!(true), "lldb-dap 22 says so after launch: {}", caps.text);
    assert!(caps.text.contains("restart (by the adapter)"), "{}", caps.text);
    let old_pid = a.session("s1")["pid"].as_i64().expect("inferior pid") as Pid;
    let old_rev = r.s["revision"].as_u64().unwrap_or(0);
    let r = a.ok("restart", json!({}));
    assert_eq!((r.s["session"].clone(), r.s["restart"].clone()), (json!("s1"), json!("adapter")), "{}", r.text);
    assert_eq!(at(&r), (json!(12), json!("main")), "{}", r.text);
    assert!(r.s["revision"].as_u64().unwrap_or(0) > old_rev);
    assert_eq!(a.ok("evaluate", json!({"expression": "total"})).s["value"], json!("14"), "a fresh run");
    assert_all_gone(&[old_pid], HYGIENE, "the old inferior after restart");
    let log = a.dap_log("s1");
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch")).expect("launch");
    let restart = log.iter().find(|e| e["message"]["command"] == json!("restart")).expect("restart sent");
    assert_eq!(
        restart["message"]["arguments"]["arguments"], launch["message"]["arguments"],
        "the launch arguments again"
    );
    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(19)), "{}", r.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn delve_run_to_and_a_relaunching_restart_that_rebuilds() {
    require("dlv", "delve golang-go");
    let dir = scratch("ctl-go");
    let src = path(&go_package(&dir, "squares", GO_SOURCE));
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let r = a.ok("launch", json!({"program": src, "breakpoints": [{"path": src, "line": 11}], "wait_ms": 50000}));
    assert_eq!(at(&r), (json!(11), json!("main.main")), "{}", r.text);
    let r = a.ok("run_to", json!({"path": src, "line": 15}));
    assert_eq!(
        (at(&r), r.s["run_to"]["reached"].clone()),
        ((json!(15), json!("main.main")), json!(true)),
        "{}",
        r.text
    );
    assert_eq!(a.ok("evaluate", json!({"expression": "total"})).s["value"], json!("14"));

    let r = a.ok("restart", json!({"wait_ms": 50000}));
    assert_eq!((r.s["restart"].clone(), at(&r)), (json!("relaunch"), (json!(11), json!("main.main"))), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "the temporary breakpoint at 15 did not come back: {}", r.text);
    let out = a.ok("output", json!({}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["total 14 n 5"], "one complete run printed: {}", out.text);
    // Both runs built into agentdap's temporary directory; it goes with the last adapter.
    let log = a.dap_log("s1");
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch")).expect("launch sent");
    let output = launch["message"]["arguments"]["output"].as_str().unwrap_or_default().to_owned();
    assert!(output.ends_with("__debug_bin"), "{output}");
    a.ok("disconnect", json!({}));
    let removed = agent::eventually(Duration::from_secs(5), || !Path::new(&output).parent().is_some_and(Path::exists));
    assert!(removed, "{output}'s directory is removed after the session");
    let gone = agent::eventually(Duration::from_secs(5), || {
        a.descendants().iter().all(|&p| {
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            !String::from_utf8_lossy(&cmd).contains("dlv")
        })
    });
    assert!(gone, "no dlv left");
}
