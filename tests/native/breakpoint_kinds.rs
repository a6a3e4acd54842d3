//! Breakpoint kinds on real adapters through the built binary: on lldb-dap 22 (a C program,
//! `gcc -g -O0`) a watchpoint on a local by its container's ref and name stops when the local
//! is written, an instruction breakpoint at a function's address stops there, `breakpoints
//! {path, line}` lists the possible locations, a function breakpoint by `kind: function` stops,
//! a restart drops what named the old run's memory, six watchpoints find the hardware limit
//! (x86-64: 4 debug registers), and exception filter conditions go as `filterOptions`; on
//! Delve, what it advertises of these and `unsupported` for the rest. Fails when lldb-dap or
//! Delve is missing.

use crate::agent;
use crate::common;
use crate::native_util::{gcc, go_package};

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use agent::{require, scratch, Agent, Res};
use common::go_env;
use serde_json::{json, Value};

const C_SOURCE: &str = r#"#include <stdio.h>
int bump(int v) {
    int r = v + 1;
    return r;
}
int main(void) {
    int a = 1, b = 2, c = 3, d = 4, e = 5, f = 6;
    a = bump(a);
    b = bump(b);
    c = bump(c);
    d = bump(d);
    e = bump(e);
    f = bump(f);
    printf("%d\n", a + b + c + d + e + f);
    return 0;
}
"#;

fn c_program() -> &'static (PathBuf, PathBuf) {
    static F: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    F.get_or_init(|| {
        require("lldb-dap-22", "lldb-22");
        gcc(&scratch("kinds-c"), "bumps", C_SOURCE)
    })
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn at(r: &Res) -> (Value, Value) {
    (r.s["stop"]["location"]["line"].clone(), r.s["stop"]["location"]["function"].clone())
}

/// The first hexadecimal number in `text` (`0x0000555555555139 (bumps`bump at …)`).
fn hex_in(text: &str) -> Option<u64> {
    let start = text.find("0x")?;
    let digits: String = text[start + 2..].chars().take_while(char::is_ascii_hexdigit).collect();
    u64::from_str_radix(&digits, 16).ok()
}

/// A stopped lldb-dap session at line 8 (`a = bump(a)`), its locals' ref.
fn at_line_8(a: &mut Agent) -> Value {
    let (source, bin) = c_program();
    let r = a.ok("launch", json!({"program": path(bin), "breakpoints": [{"path": path(source), "line": 8}]}));
    assert_eq!(at(&r), (json!(8), json!("main")), "{}", r.text);
    let c = a.ok("context", json!({}));
    c.s["locals"]["ref"].clone()
}

#[test]
fn lldb_watchpoint_instruction_function_and_location_breakpoints_stop_where_they_say() {
    let (source, _) = c_program();
    let src = path(source);
    let mut a = Agent::start_plain(|_| {});
    let locals = at_line_8(&mut a);

    // Where breakpoints can go: lldb-dap 22 lists each declaration's column on line 7.
    let l = a.ok("breakpoints", json!({"path": src, "line": 7, "end_line": 9}));
    assert!(l.text.starts_with("8 breakpoint location(s) in bumps.c lines 7-9 (line:column): 7:9, 7:16"), "{}", l.text);
    assert!(l.s["locations"].as_array().is_some_and(|v| v.contains(&json!({"line": 8, "column": 9}))), "{}", l.s);

    // A watchpoint on the local `b`, by its container's ref and name: the write at line 9 stops.
    let w = a.ok("set_breakpoints", json!({"kind": "data", "breakpoints": [{"ref": locals, "name": "b"}]}));
    assert_eq!(w.s["breakpoints"][0]["verified"], json!(true), "{}", w.text);
    assert_eq!(w.s["breakpoints"][0]["access"], json!("write"), "write is the default where offered");
    assert!(w.text.contains("`b` (4 bytes at "), "lldb's description: {}", w.text);
    let watch_id = w.s["breakpoints"][0]["id"].clone();
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["reason"], json!("data breakpoint"), "{}", r.text);
    assert_eq!(r.s["stop"]["hit_breakpoints"], json!([watch_id]), "which watch hit: {}", r.text);
    assert!(r.text.contains("\nwatch hit: `b` · write"), "{}", r.text);
    assert_eq!(at(&r), (json!(10), json!("main")), "lldb stops after the writing line: {}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "b"})).s["value"], json!("3"), "the new value");
    let b = a.ok("breakpoints", json!({}));
    assert!(b.text.contains("data `b` · write: verified · hit"), "{}", b.text);
    a.ok("set_breakpoints", json!({"kind": "data", "breakpoints": []}));

    // An instruction breakpoint at bump's address stops at its first instruction.
    let ev = a.ok("evaluate", json!({"expression": "&bump"}));
    let bump = hex_in(ev.s["value"].as_str().unwrap_or_default()).unwrap_or_else(|| panic!("an address: {}", ev.text));
    let address = format!("{bump:#x}");
    let i = a.ok("set_breakpoints", json!({"kind": "instruction", "breakpoints": [{"address": address}]}));
    assert_eq!(i.s["breakpoints"][0]["verified"], json!(true), "{}", i.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["reason"], json!("instruction breakpoint"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["function"], json!("bump"), "{}", r.text);
    // stack_trace shows where each frame is, as an instruction breakpoint takes it; bump's first
    // instruction runs before its prologue stores `v`, so the caller's line says which call.
    let st = a.ok("stack_trace", json!({}));
    assert_eq!(st.s["frames"][1]["line"], json!(10), "c's call: {}", st.text);
    let top = st.s["frames"][0]["address"].as_str().unwrap_or_default().to_owned();
    assert_eq!(hex_in(&top), Some(bump), "{}", st.text);
    assert!(st.text.contains(&format!("@ {top}")), "{}", st.text);
    let removed = a
        .ok("set_breakpoints", json!({"kind": "instruction", "mode": "remove", "breakpoints": [{"address": address}]}));
    assert_eq!(removed.s["breakpoints"], json!([]), "{}", removed.text);
    // The frame the stop came from: an instruction address agentdap can set a breakpoint on.
    let caller = st.s["frames"][1]["address"].as_str().unwrap_or_default().to_owned();
    assert!(caller.starts_with("0x"), "{}", st.text);

    // A function breakpoint by kind: it stops past bump's prologue, still in c's call.
    let f = a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": [{"name": "bump"}]}));
    assert_eq!((f.s["kind"].clone(), f.s["breakpoints"][0]["verified"].clone()), (json!("function"), json!(true)));
    let r = a.ok("continue", json!({}));
    assert_eq!(at(&r).1, json!("bump"), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "v"})).s["value"], json!("3"), "c's call, v stored");
    a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": []}));

    // A restart drops the watch and the instruction breakpoint: they named the old run's memory.
    let r = a.ok("step", json!({"kind": "out"}));
    let locals = a.ok("context", json!({})).s["locals"]["ref"].clone();
    assert_eq!(at(&r).1, json!("main"), "{}", r.text);
    a.ok("set_breakpoints", json!({"kind": "data", "breakpoints": [{"ref": locals, "name": "e"}]}));
    a.ok("set_breakpoints", json!({"kind": "instruction", "breakpoints": [{"address": address}]}));
    let r = a.ok("restart", json!({}));
    assert_eq!(at(&r), (json!(8), json!("main")), "{}", r.text);
    assert!(
        r.text.contains(&format!("the restart dropped data `e`, instruction {address}: they named places in the old run's memory (the adapter did not say a data breakpoint can persist; instruction breakpoints name addresses of one run)")),
        "the restart says what it dropped: {}",
        r.text
    );
    let b = a.ok("breakpoints", json!({}));
    assert!(
        b.text.contains(&format!(
            "dropped at the last restart (each named the old run's memory): data `e`, instruction {address}"
        )),
        "{}",
        b.text
    );
    assert!(b.s.get("data").is_none() && b.s.get("instructions").is_none(), "{}", b.s);
    let sent: Vec<Value> = a
        .dap_log("s1")
        .into_iter()
        .filter(|e| e["message"]["type"] == json!("request"))
        .map(|e| e["message"].clone())
        .collect();
    let cleared = |command: &str| {
        let last = sent.iter().rposition(|m| m["command"] == json!(command));
        let restart = sent.iter().rposition(|m| m["command"] == json!("restart"));
        (last < restart, last.map(|i| sent[i]["arguments"].clone()))
    };
    assert_eq!(cleared("setDataBreakpoints"), (true, Some(json!({"breakpoints": []}))), "cleared before the restart");
    assert_eq!(cleared("setInstructionBreakpoints"), (true, Some(json!({"breakpoints": []}))));
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "nothing stops the new run: {}", r.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn six_watchpoints_on_lldb_four_fit_and_the_rest_are_named_as_the_hardware_limit() {
    let mut a = Agent::start_plain(|_| {});
    let locals = at_line_8(&mut a);
    let names = ["a", "b", "c", "d", "e", "f"];
    let items: Vec<Value> = names.iter().map(|n| json!({"ref": locals, "name": n})).collect();
    let w = a.ok("set_breakpoints", json!({"kind": "data", "breakpoints": items}));
    let list = w.s["breakpoints"].as_array().cloned().unwrap_or_default();
    let verified = list.iter().filter(|b| b["verified"] == json!(true)).count();
    let limited = w.s["hardware_limit"].as_array().map(Vec::len).unwrap_or(0);
    // lldb-dap 22.1.8 on x86-64 (4 debug registers): 4 set, 2 refused in its words.
    assert_eq!((verified, limited), (4, 2), "{}", w.text);
    assert!(
        w.text
            .contains("NOT verified (Setting one of the watchpoint resources failed) — the hardware watchpoint limit"),
        "{}",
        w.text
    );
    // A name that is no child: the adapter's words, nothing changed.
    let bad = a.call(
        "set_breakpoints",
        json!({"kind": "data", "mode": "add", "breakpoints": [{"ref": locals, "name": "nosuch"}]}),
    );
    assert_eq!(bad.code(), "invalid_argument", "{}", bad.text);
    assert!(
        bad.text.contains("lldb cannot watch `nosuch`: variable not found: nosuch; no data breakpoint was changed."),
        "{}",
        bad.text
    );
    // A raw address with `bytes` (supportsDataBreakpointBytes): 4 bytes of `a` by its address.
    a.ok("set_breakpoints", json!({"kind": "data", "breakpoints": []}));
    let raw = a.ok("set_breakpoints", json!({"kind": "data", "breakpoints": [{"expression": "&a", "bytes": 4}]}));
    assert_eq!(raw.s["breakpoints"][0]["verified"], json!(true), "{}", raw.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["reason"], json!("data breakpoint"), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "a"})).s["value"], json!("2"));

    // Exception filter conditions: lldb-dap 22's filters all take one (`supportsCondition`).
    let x = a.ok("set_exception_breakpoints", json!({"filters": ["cpp_catch"], "conditions": {"cpp_throw": "1 == 1"}}));
    assert_eq!(x.text, "exception filters set: [cpp_catch] · cpp_throw if 1 == 1");
    let log = a.dap_log("s1");
    let sent = log
        .iter()
        .rev()
        .find(|e| {
            e["message"]["command"] == json!("setExceptionBreakpoints") && e["message"]["type"] == json!("request")
        })
        .cloned();
    assert_eq!(
        sent.map(|e| e["message"]["arguments"].clone()),
        Some(json!({"filters": ["cpp_catch"], "filterOptions": [{"filterId": "cpp_throw", "condition": "1 == 1"}]}))
    );
    let unknown = a.call("set_exception_breakpoints", json!({"filters": [], "conditions": {"raised": "1"}}));
    assert!(unknown.text.contains("unknown exception filter `raised` for lldb"), "{}", unknown.text);
    a.ok("disconnect", json!({}));
}

const GO_SOURCE: &str = r#"package main

import "fmt"

func bump(v int) int {
	r := v + 1
	return r
}

func main() {
	a := 1
	a = bump(a)
	a = bump(a)
	fmt.Println(a)
}
"#;

#[test]
fn delve_stops_at_an_instruction_breakpoint_and_refuses_data_breakpoints_unsent() {
    require("dlv", "delve golang-go");
    let src = path(&go_package(&scratch("kinds-go"), "bumps", GO_SOURCE));
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let r = a.ok("launch", json!({"program": src, "breakpoints": [{"path": src, "line": 12}], "wait_ms": 50000}));
    assert_eq!(at(&r), (json!(12), json!("main.main")), "{}", r.text);
    let locals = a.ok("context", json!({})).s["locals"]["ref"].clone();
    let before = a.dap_log("s1").len();
    let d = a.call("set_breakpoints", json!({"kind": "data", "breakpoints": [{"ref": locals, "name": "a"}]}));
    assert_eq!(d.code(), "unsupported", "{}", d.text);
    assert!(d.text.contains("delve does not advertise supportsDataBreakpoints"), "{}", d.text);
    let l = a.call("breakpoints", json!({"path": src, "line": 6}));
    assert!(l.text.contains("supportsBreakpointLocationsRequest"), "{}", l.text);
    assert_eq!(a.dap_log("s1").len(), before, "nothing was sent for either");

    // Delve advertises instruction breakpoints, and its frames carry an
    // instructionPointerReference: the address inside bump's first call stops its second.
    a.ok("set_breakpoints", json!({"path": src, "breakpoints": [{"line": 6}]}));
    let r = a.ok("continue", json!({}));
    assert_eq!(at(&r), (json!(6), json!("main.bump")), "{}", r.text);
    let st = a.ok("stack_trace", json!({}));
    let address = st.s["frames"][0]["address"].as_str().map(str::to_owned);
    let Some(address) = address else { panic!("Delve gave no instructionPointerReference: {}", st.text) };
    a.ok("set_breakpoints", json!({"path": src, "breakpoints": []}));
    let i = a.ok("set_breakpoints", json!({"kind": "instruction", "breakpoints": [{"address": address}]}));
    assert_eq!(i.s["breakpoints"][0]["verified"], json!(true), "{}", i.text);
    assert!(i.text.contains("verified at main.go:6"), "{}", i.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(at(&r), (json!(6), json!("main.bump")), "the second call: {}", r.text);
    assert_eq!(r.s["stop"]["hit_breakpoints"], json!([i.s["breakpoints"][0]["id"]]), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "v"})).s["value"], json!("2"), "bump(2)");
    a.ok("disconnect", json!({}));
}
