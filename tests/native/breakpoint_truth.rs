//! What agentdap says of breakpoint settings and watches where the adapter does other than it
//! advertises or than the agent asked, on the real adapters through the built binary: Delve
//! 1.20.2 honours `hit_condition` without advertising it; lldb-dap 22 sizes an address watch by
//! the expression's type (not `bytes`), watches reads and writes for `read` on x86-64, stops a
//! write watch only on a change, and watches the address an expression gives. Fails when
//! lldb-dap or Delve is missing.

use crate::agent;
use crate::common;
use crate::native_util::{gcc, go_package};

use agent::{require, scratch, Agent};
use common::go_env;
use serde_json::json;

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

#[test]
fn delve_honours_a_hit_condition_it_does_not_advertise_and_is_not_said_to_ignore_it() {
    require("dlv", "delve golang-go");
    let src = go_package(&scratch("hits-go"), "loop", GO_LOOP).to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let bp = json!([{"path": src, "line": 8, "hit_condition": "2"}]);
    let r = a.ok("launch", json!({"program": src, "breakpoints": bp, "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(8), "{}", r.text);
    assert!(!r.text.contains("ignored") && r.s.get("warnings").is_none(), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "i"})).s["value"], json!("1"), "the second pass");
    let c = a.ok("capabilities", json!({}));
    assert!(c.text.contains("\nbreakpoint settings honoured: condition, hit_condition, log_message\n"), "{}", c.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "it stopped once: {}", r.text);
    a.ok("disconnect", json!({}));
}

/// Delve 1.20 sends a log point's message as an `output` event of category `stdout`, with
/// `source` and `line`, while the program's own prints come through its pipes: the message is
/// filed as `logpoint`, the prints as `stdout` (a fresh user found the message under `stdout`).
#[test]
fn delve_log_point_messages_are_filed_apart_from_the_programs_prints() {
    require("dlv", "delve golang-go");
    let src = go_package(&scratch("logpoint-go"), "loop", GO_LOOP).to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let bp = json!([{"path": src, "line": 8, "log_message": "pass {i}"}]);
    let r = a.ok("launch", json!({"program": src, "breakpoints": bp, "stop_on_entry": false, "wait_ms": 50000}));
    assert_eq!(r.s["state"], json!("exited"), "a log point does not stop: {}", r.text);
    let logged = a.ok("output", json!({"category": "logpoint"}));
    for i in 0..5 {
        assert!(logged.text.contains(&format!("> [Go 1]: pass {i}")), "{}", logged.text);
    }
    let printed = a.ok("output", json!({"category": "stdout"}));
    assert!(printed.text.contains("10") && !printed.text.contains("pass"), "{}", printed.text);
    a.ok("disconnect", json!({}));
}

const C_ACCT: &str = r#"#include <stdio.h>
struct acct { long id; int balance; char flag; };
int main(void) {
    struct acct acct = {1, 100, 0};
    acct.balance = 200;
    acct.flag = 0;
    printf("%d %d\n", acct.balance, acct.flag);
    return 0;
}
"#;

#[test]
fn lldb_watches_are_said_as_lldb_sets_them_size_read_writes_changes_and_addresses() {
    require("lldb-dap-22", "lldb-22");
    let (source, bin) = gcc(&scratch("watch-c"), "acct", C_ACCT);
    let src = source.to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": bin.to_string_lossy(), "breakpoints": [{"path": src, "line": 5}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    let set = |a: &mut Agent, items| a.call("set_breakpoints", json!({"kind": "data", "breakpoints": items}));

    // A value is no address: lldb refuses it, and the hint names the `&` it needs.
    let w = set(&mut a, json!([{"expression": "acct.balance"}]));
    assert_eq!(w.code(), "invalid_argument", "{}", w.text);
    assert!(w.text.contains(" has no read or write permissions; pass `&acct.balance` (lldb watches the address the expression gives); no data breakpoint was changed."), "{}", w.text);

    // `bytes` is not what lldb watches: a char pointer is 1 byte, a bare number 0 (refused
    // silently), an int pointer 4.
    let w = set(&mut a, json!([{"expression": "(char*)&acct + 8", "bytes": 4}]));
    assert!(w.text.contains("· write: verified — asked 4 bytes, lldb watches 1; it sizes an address watch by the type the expression points to"), "{}", w.text);
    assert_eq!(w.s["breakpoints"][0]["watched_bytes"], json!(1), "{}", w.s);
    let address = a.ok("evaluate", json!({"expression": "(long)&acct.balance"})).s["value"]
        .as_str()
        .unwrap_or_default()
        .parse::<u64>()
        .unwrap_or_default();
    assert!(address > 0);
    let w = set(&mut a, json!([{"expression": format!("{address:#x}"), "bytes": 4}]));
    assert!(w.text.contains("· write: NOT verified (lldb made it a watch of 0 bytes, asked 4; it sizes"), "{}", w.text);
    let w = set(&mut a, json!([{"expression": format!("(int *){address:#x}"), "bytes": 4}]));
    assert!(
        w.text.contains("(4 bytes at ") && w.text.contains("· write: verified\n"),
        "the cast the hint names works: {}",
        w.text
    );
    assert_eq!(w.s["breakpoints"][0]["watched_bytes"], json!(4), "{}", w.s);

    // A read watch also stops on the write at line 5 (x86-64), and both say so.
    let w = set(&mut a, json!([{"expression": "&acct.balance", "access": "read"}]));
    assert!(w.text.contains("warning: lldb also stops a read watch on writes here (the hardware has no read-only watchpoints): `&acct.balance`"), "{}", w.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "after the write at line 5: {}", r.text);
    assert!(
        r.text.contains("watch hit: `&acct.balance` · read (it stops on writes too here: this may be a write)"),
        "{}",
        r.text
    );

    // A write watch: writing 0 over 0 at line 6 does not stop, as the set result says; the
    // breakpoint at line 7 does.
    let w = set(&mut a, json!([{"expression": "&acct.flag"}]));
    assert!(w.text.contains("warning: lldb stops a write watch only when the value changes (a write of the same value does not stop): `&acct.flag`"), "{}", w.text);
    a.ok("set_breakpoints", json!({"path": src, "breakpoints": [{"line": 7}]}));
    let r = a.ok("continue", json!({}));
    let stop = (r.s["stop"]["reason"].clone(), r.s["stop"]["location"]["line"].clone());
    assert_eq!(stop, (json!("breakpoint"), json!(7)), "{}", r.text);
    a.ok("disconnect", json!({}));
}
