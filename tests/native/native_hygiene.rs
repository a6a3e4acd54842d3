//! No orphans for lldb-dap and Delve (issue 7): after `disconnect`, stdin EOF, SIGTERM and SIGKILL
//! of agentdap, no adapter, lldb-server or debuggee is alive (polled through `/proc`). Plus
//! codelldb ≥ 1.7.0's way (simrat39/rust-tools.nvim#157): a TCP adapter that never announces its
//! port is reached on a port agentdap chose, with refused connects retried; one that exits with a
//! usage error fails fast with its stderr.

use crate::agent;
use crate::common;
use crate::native_util::{gcc, go_build, go_package};

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use agent::{alive, assert_all_gone, fixture, is_watchdog, require, scratch, Agent};
use agentdap::os::spawn::Pid;
use common::go_env;
use serde_json::json;

const EXIT: Duration = Duration::from_secs(4);
const GONE: Duration = Duration::from_secs(4);

const C_LOOP: &str =
    "#include <unistd.h>\nint main(void) {\n    int i = 0;\n    for (;;) { i++; usleep(10000); }\n    return i;\n}\n";
const GO_LOOP: &str = "package main\n\nimport \"time\"\n\nfunc main() {\n\ti := 0\n\tfor {\n\t\ti++\n\t\ttime.Sleep(10 * time.Millisecond)\n\t}\n}\n";

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
        let dir = scratch("native-hygiene");
        let (_, c) = gcc(&dir, "loop", C_LOOP);
        let gdir = dir.join("go");
        go_package(&gdir, "loop", GO_LOOP);
        let go = go_build(&gdir, "loop");
        Fixtures { dir, c, go }
    })
}

fn comm(pid: Pid) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_owned()
}

/// A running session of `kind` and every process of it below agentdap (the watchdog excluded).
fn running(kind: &str) -> (Agent, Vec<Pid>) {
    let f = fixtures();
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let (program, source, line) = match kind {
        "lldb" => (f.c.clone(), f.dir.join("loop.c"), 4),
        _ => (f.go.clone(), f.dir.join("go/main.go"), 8),
    };
    let args = json!({"program": program, "breakpoints": [{"path": source, "line": line}], "wait_ms": 50000});
    let r = a.ok("launch", args);
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    a.ok("set_breakpoints", json!({"path": source, "breakpoints": []}));
    let r = a.ok("continue", json!({"wait_ms": 50}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    let tree: Vec<Pid> = a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
    let pid = *tree.iter().find(|&&p| comm(p) == "loop").unwrap_or_else(|| panic!("no debuggee in {tree:?}"));
    if kind == "lldb" {
        assert!(tree.iter().any(|&p| comm(p).starts_with("lldb-server")), "lldb-server: {tree:?}");
    }
    assert!(alive(pid));
    (a, tree)
}

fn after_disconnect(kind: &str) {
    let (mut a, tree) = running(kind);
    a.ok("disconnect", json!({}));
    assert_all_gone(&tree, GONE, &format!("{kind}: after disconnect"));
}

fn after_stdin_eof(kind: &str) {
    let (mut a, tree) = running(kind);
    a.d.close_stdin();
    a.d.assert_clean_exit(EXIT);
    assert_all_gone(&tree, GONE, &format!("{kind}: after stdin EOF"));
}

fn after_sigterm(kind: &str) {
    let (mut a, tree) = running(kind);
    a.d.signal(libc::SIGTERM);
    a.d.assert_clean_exit(EXIT);
    assert_all_gone(&tree, GONE, &format!("{kind}: after SIGTERM"));
}

fn after_sigkill(kind: &str) {
    let (mut a, tree) = running(kind);
    a.d.signal(libc::SIGKILL);
    assert!(a.d.wait_exit(EXIT).is_some(), "agentdap survived SIGKILL");
    assert_all_gone(&tree, GONE, &format!("{kind}: after SIGKILL of agentdap"));
}

#[test]
fn lldb_disconnect_leaves_nothing() {
    after_disconnect("lldb");
}

#[test]
fn lldb_stdin_eof_leaves_nothing() {
    after_stdin_eof("lldb");
}

#[test]
fn lldb_sigterm_leaves_nothing() {
    after_sigterm("lldb");
}

#[test]
fn lldb_sigkill_of_agentdap_leaves_nothing() {
    after_sigkill("lldb");
}

#[test]
fn delve_disconnect_leaves_nothing() {
    after_disconnect("delve");
}

#[test]
fn delve_stdin_eof_leaves_nothing() {
    after_stdin_eof("delve");
}

#[test]
fn delve_sigterm_leaves_nothing() {
    after_sigterm("delve");
}

#[test]
fn delve_sigkill_of_agentdap_leaves_nothing() {
    after_sigkill("delve");
}

/// agentdap with a config declaring the fake TCP adapter with `args`.
fn tcp_agent(args: &[&str]) -> Agent {
    let dir = scratch(&format!("c13-{}", args.len()));
    let mut all = vec![fixture("fake_tcp_adapter.py")];
    all.extend(args.iter().map(|s| s.to_string()));
    let config =
        json!({"adapters": {"faketcp": {"command": "python3", "args": all, "tcp": true, "extensions": [".fake"]}}});
    let path = dir.join("config.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    Agent::start_plain(|cmd| {
        cmd.env("AGENTDAP_CONFIG", &path);
    })
}

/// codelldb ≥ 1.7.0 (simrat39/rust-tools.nvim#157): no banner; the port is agentdap's choice and
/// the connect is retried until the adapter listens (here after 0.4 s).
#[test]
fn c13_tcp_adapter_without_banner_is_reached_on_a_chosen_port() {
    let mut a = tcp_agent(&["--port", "{port}", "--delay", "0.4"]);
    let program = fixture("prog.fake");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 3}]}));
    assert_eq!(
        (r.s["state"].clone(), r.s["stop"]["location"]["line"].clone()),
        (json!("stopped"), json!(3)),
        "{}",
        r.text
    );
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    a.ok("disconnect", json!({}));
}

/// A program whose output reaches agentdap on the adapter's own pipes (Delve's debuggee writes to
/// dlv's stdout) has all of it in by the time its exit is reported, even 48 KiB written at once
/// just before the adapter says it exited (they were read 4 KiB a turn and the exit came first).
#[test]
fn a_programs_output_on_the_adapters_pipes_is_complete_when_its_exit_is_reported() {
    let mut a = tcp_agent(&["--port", "{port}", "--program-output", "48"]);
    let program = fixture("prog.fake");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 3}]}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let tail = r.s["output"]["text"].as_str().unwrap_or_default();
    assert!(tail.contains("last line of the program"), "{}", r.text);
    a.ok("disconnect", json!({}));
}

/// codelldb ≥ 1.7.0 without `--port`: an adapter that exits with a usage error before listening fails the launch at
/// once, in its own words.
#[test]
fn c13_tcp_adapter_exiting_before_it_listens_fails_fast_with_its_stderr() {
    let mut a = tcp_agent(&["--usage", "{port}"]);
    let start = Instant::now();
    let r = a.call("launch", json!({"program": fixture("prog.fake")}));
    assert!(r.is_error, "{}", r.text);
    assert!(r.text.contains("required arguments were not provided: --port"), "{}", r.text);
    assert!(start.elapsed() < Duration::from_secs(5), "fails fast: {:?}", start.elapsed());
}
