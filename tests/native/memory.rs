//! The `memory` tool on real adapters (issue 18): on lldb-dap 22 and a C program, a local's
//! memory reference from `variables` reads as its bytes, a write is read back and seen by
//! `evaluate`, an address expression and an unreadable address, and a disassembly centred on the
//! current instruction with its symbol and source line (and the slots before `main` it could not
//! disassemble backwards into said so); on Delve, which advertises only
//! `supportsDisassembleRequest` of the three, a disassembly (its padding entries left out and
//! counted), and reads and writes refused naming the capability with no request sent. Fails
//! when lldb-dap or Delve is missing.

use crate::agent;
use crate::common;
use crate::native_util::{gcc, go_build, go_package};

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use agent::{require, scratch, sent_commands, Agent, Res};
use common::go_env;
use serde_json::{json, Value};

const C_SOURCE: &str = r#"#include <stdio.h>
int main(void) {
    int counter = 0x2a;
    char name[8] = "abc";
    counter = counter + 1;
    printf("%d %s\n", counter, name);
    return 0;
}
"#;

const GO_SOURCE: &str = r#"package main

import "fmt"

func main() {
	counter := 42
	counter++
	fmt.Println(counter)
}
"#;

struct Fixtures {
    dir: PathBuf,
    c: PathBuf,
    go: PathBuf,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        require("lldb-dap-22", "lldb-22");
        require("dlv", "delve golang-go");
        let dir = scratch("memory");
        let (_, c) = gcc(&dir, "prog", C_SOURCE);
        // The Go package in its own directory: `go build` refuses a directory with C files in it.
        let go_dir = dir.join("go");
        go_package(&go_dir, "mem", GO_SOURCE);
        let go = go_build(&go_dir, "mem");
        Fixtures { dir, c, go }
    })
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The locals of the top frame, through `scopes` and `variables`.
fn locals(a: &mut Agent) -> Res {
    let scopes = a.ok("scopes", json!({}));
    let locals = scopes.s["scopes"]
        .as_array()
        .and_then(|l| l.iter().find(|s| s["name"] == json!("Locals")))
        .map(|s| s["ref"].clone())
        .unwrap_or_else(|| panic!("no Locals scope: {}", scopes.text));
    a.ok("variables", json!({"ref": locals}))
}

fn named<'a>(vars: &'a Value, name: &str) -> &'a Value {
    vars.as_array()
        .and_then(|l| l.iter().find(|v| v["name"] == json!(name)))
        .unwrap_or_else(|| panic!("no {name} in {vars}"))
}

#[test]
fn lldb_reads_a_locals_bytes_writes_them_back_verified_and_disassembles_around_the_current_instruction() {
    let f = fixtures();
    let source = path(&f.dir.join("prog.c"));
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": path(&f.c), "breakpoints": [{"path": source, "line": 5}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);

    // `variables` shows where each local lives.
    let listing = locals(&mut a);
    let counter = named(&listing.s["variables"], "counter");
    let mem = counter["memoryReference"].as_str().unwrap_or_else(|| panic!("no memoryReference: {counter}")).to_owned();
    assert!(listing.text.contains(&format!("counter = 42 (int) mem {mem}")), "{}", listing.text);

    // Its bytes: `int counter = 0x2a`, little-endian.
    let read = a.ok("memory", json!({"address": mem, "count": 4}));
    assert!(read.text.contains("  2a 00 00 00 "), "{}", read.text);
    assert!(read.text.contains("|*...|"), "{}", read.text);
    assert_eq!((read.s["data"].clone(), read.s["bytes"].clone()), (json!("KgAAAA=="), json!(4)), "{}", read.s);

    // An expression: a variable's memoryReference is where it is stored.
    let name = a.ok("memory", json!({"address": "name", "count": 8}));
    assert!(name.text.contains("(memoryReference of `name`)"), "{}", name.text);
    assert!(name.text.contains("61 62 63 00") && name.text.contains("|abc."), "{}", name.text);
    // `&counter` has no memoryReference on lldb-dap 22; its value is the address.
    let by_value = a.ok("memory", json!({"address": "&counter", "count": 4}));
    assert!(by_value.text.contains("(the value of `&counter`)"), "{}", by_value.text);
    assert_eq!(by_value.s["data"], json!("KgAAAA=="), "{}", by_value.text);

    // A write, read back, and seen by the program's own view.
    let w = a.ok("memory", json!({"op": "write", "address": mem, "data": "07 00 00 00"}));
    assert!(w.text.contains(&format!("wrote 4 bytes at {mem}, read back equal")), "{}", w.text);
    assert_eq!(w.s["verified"], json!(true));
    let e = a.ok("evaluate", json!({"expression": "counter"}));
    assert!(e.text.starts_with("counter = 7"), "{}", e.text);
    assert!(e.text.contains(&format!("mem {mem}")), "{}", e.text);
    let b64 = a.ok("memory", json!({"op": "write", "address": mem, "data": "CQAAAA==", "encoding": "base64"}));
    assert!(b64.text.contains("read back equal"), "{}", b64.text);
    assert!(a.ok("evaluate", json!({"expression": "counter"})).text.starts_with("counter = 9"));

    // Nothing is mapped at 0.
    let zero = a.ok("memory", json!({"address": "0x0", "count": 16}));
    assert!(zero.text.contains("16 bytes from 0x0000000000000000 on are unreadable"), "{}", zero.text);
    assert_eq!(zero.s["bytes"], json!(0));

    // Bad input is named.
    let bad = a.call("memory", json!({"op": "write", "address": mem, "data": "07 0g"}));
    assert_eq!(bad.code(), "invalid_argument", "{}", bad.text);
    assert!(bad.text.contains("'g' at position 4"), "{}", bad.text);
    let none = a.call("memory", json!({"address": "counter + 1"}));
    assert_eq!(none.code(), "invalid_argument", "{}", none.text);
    assert!(none.text.contains("`counter + 1` has no memory reference"), "{}", none.text);

    // Around the current instruction: marked, in `main`, with its source line.
    let d = a.ok("memory", json!({"op": "disassemble"}));
    let current: Vec<&str> = d.text.lines().filter(|l| l.starts_with('→')).collect();
    assert_eq!(current.len(), 1, "one current instruction:\n{}", d.text);
    assert!(current[0].contains("<main+") && current[0].contains("; prog.c:5"), "{}", d.text);
    assert!(d.text.contains("the current instruction"), "{}", d.text);
    assert!(d.s["current"].is_string(), "{}", d.s);
    // lldb-dap 22 answers the slots before `main` (where `frame_dummy` is) with `-1` invalid
    // entries: it could not disassemble backwards, which is not "no code there".
    let first = d.text.lines().nth(1).unwrap_or_default();
    assert!(first.contains("<main>"), "{}", d.text);
    let start = first.split_whitespace().next().unwrap_or_default().to_owned();
    assert!(
        d.text.contains(&format!(
            "(the adapter gave no instructions before {start}: it could not disassemble backwards from here)"
        )),
        "{}",
        d.text
    );
    assert!(!d.text.contains("marked invalid") && !d.text.contains("no code there"), "{}", d.text);

    // A function by its name or its address: lldb-dap 22 gives neither a memory reference, and
    // shows the value as the address followed by its symbol, which is the address to use.
    for name in ["main", "&main"] {
        let f = a.ok("memory", json!({"op": "disassemble", "address": name, "count": 3}));
        assert!(f.text.contains(&format!("(the value of `{name}`)")), "{}", f.text);
        assert!(f.text.contains("<main>"), "starts at main's first instruction:\n{}", f.text);
    }

    // Not stopped: the usual refusal.
    a.ok("continue", json!({}));
    let gone = a.call("memory", json!({"address": mem}));
    assert!(gone.is_error, "{}", gone.text);
}

#[test]
fn delve_disassembles_and_refuses_reads_and_writes_naming_the_capability_before_sending() {
    let f = fixtures();
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let source = path(&f.dir.join("go/main.go"));
    let r = a.ok("launch", json!({"program": path(&f.go), "breakpoints": [{"path": source, "line": 7}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(7), "{}", r.text);
    let session = r.s["session"].as_str().unwrap_or_default().to_owned();

    let d = a.ok("memory", json!({"op": "disassemble", "count": 8}));
    let current: Vec<&str> = d.text.lines().filter(|l| l.starts_with('→')).collect();
    assert_eq!(current.len(), 1, "one current instruction:\n{}", d.text);
    assert!(current[0].contains("; main.go:7"), "{}", d.text);

    // Delve pads: reading at 0 repeats `0x0`, and past the end of code it answers
    // `0xffffffffffffffff` `invalid instruction`; neither is an instruction.
    let zero = a.ok("memory", json!({"op": "disassemble", "address": "0x0", "count": 4}));
    assert!(zero.text.starts_with(&format!("{session} disassembly from 0x0 · 1 instruction · ")), "{}", zero.text);
    assert!(zero.text.ends_with("\n(3 padding entries left out: no instruction there)"), "{}", zero.text);
    let wide = a.ok("memory", json!({"op": "disassemble", "count": 200}));
    assert!(!wide.text.contains("0xffffffffffffffff"), "{}", wide.text);
    let shown = wide.s["instructions"].as_array().map_or(0, Vec::len);
    let padding = format!("({} padding entries left out: no instruction there)", 200 - shown);
    assert!(shown < 200 && wide.text.contains(&padding), "{shown} shown:\n{}", wide.text);
    assert!(wide.text.contains(&format!(" · {shown} instructions · ")), "{}", wide.text);

    let before = sent_commands(&a.dap_log(&session));
    for (args, capability) in [
        (json!({"address": "0x1000"}), "supportsReadMemoryRequest"),
        (json!({"op": "write", "address": "counter", "data": "2b"}), "supportsWriteMemoryRequest"),
    ] {
        let out: Res = a.call("memory", args);
        assert_eq!(out.code(), "unsupported", "{}", out.text);
        assert!(out.text.contains(&format!("does not advertise {capability}")), "{}", out.text);
    }
    let after = sent_commands(&a.dap_log(&session));
    assert_eq!(before, after, "no request went out for the refusals");
}
