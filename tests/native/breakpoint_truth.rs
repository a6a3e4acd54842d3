//! Measurements (temporary).

use crate::agent;
use crate::common;

use std::process::Command;

use agent::{build, require, scratch, Agent};
use common::go_env;
use serde_json::{json, Value};

const GO_LOOP: &str = r#"package main

import "fmt"

func main() {
	total := 0
	for i := 0; i < 5; i++ {
		total += i
	}
	fmt.Println(total)
}
"#;

const C_ACCT: &str = r#"#include <stdio.h>
struct acct { long id; int balance; char flag; };
int main(void) {
    struct acct acct = {1, 100, 0};
    register int r = 5;
    acct.balance = 200;
    acct.flag = 0;
    acct.balance = 200;
    r = r + 1;
    int x = acct.balance;
    acct.balance = x + 1;
    printf("%d %d %d\n", acct.balance, r, acct.flag);
    return 0;
}
"#;

#[test]
fn measure_delve() {
    require("dlv", "delve golang-go");
    let dir = scratch("m-go");
    std::fs::write(dir.join("main.go"), GO_LOOP).unwrap();
    std::fs::write(dir.join("go.mod"), "module example.com/loop\n\ngo 1.19\n").unwrap();
    let src = dir.join("main.go").to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let r = a.call("launch", json!({"program": src, "breakpoints": [{"path": src, "line": 8, "hit_condition": "2"}], "wait_ms": 50000}));
    eprintln!("LAUNCH: {}", r.text);
    let r = a.call("evaluate", json!({"expression": "i"}));
    eprintln!("I: {}", r.text);
    let r = a.call("capabilities", json!({}));
    eprintln!("CAPS: {}", r.text);
    let r = a.call("set_breakpoints", json!({"path": src, "breakpoints": [{"line": 8, "log_message": "i={i}"}, {"line": 10, "condition": "total > 100"}]}));
    eprintln!("SET: {}", r.text);
    let r = a.call("continue", json!({}));
    eprintln!("CONT: {}", r.text);
    a.call("disconnect", json!({}));
}

#[test]
fn measure_lldb() {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("m-c");
    let source = dir.join("acct.c");
    std::fs::write(&source, C_ACCT).unwrap();
    let bin = dir.join("acct");
    build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&bin).arg(&source), "gcc");
    let src = source.to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    let r = a.call("launch", json!({"program": bin.to_string_lossy(), "breakpoints": [{"path": src, "line": 6}]}));
    eprintln!("LAUNCH: {}", r.text);
    let c = a.call("context", json!({}));
    eprintln!("CTX: {} {}", c.text, c.s);
    let locals = c.s["locals"]["ref"].clone();
    let v = a.call("variables", json!({"ref": locals}));
    eprintln!("VARS: {} {}", v.text, v.s);
    let ev = a.call("evaluate", json!({"expression": "&acct.balance"}));
    eprintln!("EV: {}", ev.text);
    for item in [
        json!({"expression": "acct.balance"}),
        json!({"expression": "&acct.balance"}),
        json!({"expression": "(char*)&acct + 8", "bytes": 4}),
        json!({"expression": "0x10", "bytes": 4}),
        json!({"expression": "0x7fffffffe128", "bytes": 4}),
        json!({"expression": "0x7fffffffe128", "bytes": 8}),
        json!({"ref": locals, "name": "r"}),
        json!({"ref": locals, "name": "acct"}),
        json!({"expression": "&acct.balance", "access": "read"}),
    ] {
        let r = a.call("set_breakpoints", json!({"kind": "data", "breakpoints": [item]}));
        eprintln!("SET {item}: {}", r.text);
    }
    let r = a.call("set_breakpoints", json!({"kind": "data", "breakpoints": [{"expression": "&acct.balance", "bytes": 4, "access": "read"}, {"expression": "&acct.flag", "bytes": 1}]}));
    eprintln!("SET2: {}", r.text);
    for _ in 0..4 {
        let r = a.call("continue", json!({}));
        eprintln!("CONT: {}", r.text);
    }
    let log = a.dap_log("s1");
    for e in log.iter().filter(|e| e["message"]["command"] == json!("dataBreakpointInfo") || e["message"]["command"] == json!("setDataBreakpoints")) {
        eprintln!("WIRE: {}", e["message"]);
    }
    let _: Vec<Value> = vec![];
    a.call("disconnect", json!({}));
}
