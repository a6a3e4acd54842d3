//! gdb through the built binary. With a gdb that has DAP (`gdb --version` 14 or newer) the C
//! program of the lldb tests runs under it for real: breakpoint, `context`, `evaluate`, steps,
//! exit, no leftover process. Below 14 (Debian 12 ships 13.1) `doctor` and `launch` must say
//! which gdb that is and that DAP came in gdb 14. Either way a scripted gdb
//! (`tests/fixtures/fake_gdb.py`), declared in a config file as an override of the built-in `gdb`
//! recipe, runs gdb's documented order through agentdap's real session code: the launch
//! answered only after `configurationDone` (go-delve/mcp-dap-server#22), frame ids from 0
//! (#12), `stopAtBeginningOfMainSubprogram`, expressions through `watch`.

use crate::agent;
use crate::common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use agent::{assert_all_gone, build, debugpy_python, fixture, scratch, sent_commands, var_value, Agent, Res, HYGIENE};
use common::TempDir;
use serde_json::{json, Value};

struct Fixture {
    dir: PathBuf,
    prog: PathBuf,
}

/// The lldb tests' C program, built once.
fn fixture_prog() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = scratch("gdb");
        std::fs::write(dir.join("prog.c"), super::lldb::C_SOURCE).expect("write C");
        let prog = dir.join("prog");
        build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&prog).arg(dir.join("prog.c")), "gcc");
        Fixture { dir, prog }
    })
}

fn s(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}

fn at(r: &Res) -> (Value, Value) {
    (r.s["stop"]["location"]["line"].clone(), r.s["stop"]["location"]["function"].clone())
}

/// An agentdap whose config overrides the built-in `gdb` with the scripted gdb in `scenario`.
fn with_fake_gdb(tag: &str, scenario: &str) -> (Agent, TempDir) {
    let dir = TempDir::new(tag);
    let config = dir.0.join("config.json");
    let entry = json!({"command": debugpy_python(), "args": [fixture("fake_gdb.py"), scenario]});
    std::fs::write(&config, json!({"adapters": {"gdb": entry}}).to_string()).expect("write config");
    let a = Agent::start_with(|cmd| {
        cmd.arg("--config").arg(&config);
    });
    (a, dir)
}

fn position(log: &[Value], dir: &str, kind: &str, name: &str) -> usize {
    log.iter()
        .position(|e| {
            e["dir"] == dir
                && (e["message"]["command"] == json!(name) || e["message"]["event"] == json!(name))
                && e["message"]["type"] == json!(kind)
        })
        .unwrap_or_else(|| panic!("no {kind} {name} ({dir}) in the DAP log"))
}

#[test]
fn the_gdb_recipe_over_a_scripted_gdb_answers_launch_after_configuration_done_and_reads_frame_0() {
    let f = fixture_prog();
    let (mut a, _dir) = with_fake_gdb("gdb-fake", "plain");
    let before = a.descendants();
    let source = s(&f.dir.join("prog.c"));
    let r =
        a.ok("launch", json!({"program": s(&f.prog), "adapter": "gdb", "breakpoints": [{"path": source, "line": 9}]}));
    assert_eq!((r.s["adapter"].clone(), r.s["state"].clone()), (json!("gdb"), json!("stopped")), "{}", r.text);
    assert_eq!(at(&r), (json!(9), json!("main")), "{}", r.text);

    let log = a.dap_log("s1");
    assert!(
        position(&log, "from_adapter", "response", "launch")
            > position(&log, "from_adapter", "response", "configurationDone"),
        "gdb answers launch only after configurationDone"
    );
    let launch = &log[position(&log, "to_adapter", "request", "launch")]["message"]["arguments"];
    assert_eq!(launch["stopAtBeginningOfMainSubprogram"], json!(false), "{launch}");
    assert_eq!(launch.get("stopOnEntry"), None, "{launch}");

    let c = a.ok("context", json!({}));
    assert_eq!(var_value(&c.s["locals"]["variables"], "s"), "7", "{}", c.text);
    assert!(c.text.contains("p = {x = 3, y = 4}"), "{}", c.text);
    let frames = c.s["frames"].as_array().cloned().unwrap_or_default();
    assert!(frames.len() == 2 && frames[0]["frame"] != frames[1]["frame"], "{}", c.s);
    let e = a.ok("evaluate", json!({"expression": "s + 1"}));
    assert_eq!(e.s["value"], json!("8"), "{}", e.text);
    let e = a.ok("evaluate", json!({"expression": "s + 1", "frame": frames[0]["frame"]}));
    assert_eq!(e.s["value"], json!("8"), "frame 0 by its handle: {}", e.text);
    // `repl` is gdb's command line: its answer is gdb's words, not a value.
    let repl = a.call("evaluate", json!({"expression": "s", "context": "repl"}));
    assert!(repl.is_error && repl.text.contains("Undefined command: \"s\""), "{}", repl.text);

    let log = a.dap_log("s1");
    let sent = |command: &str| -> Vec<Value> {
        log.iter()
            .filter(|e| e["dir"] == "to_adapter" && e["message"]["command"] == json!(command))
            .map(|e| e["message"]["arguments"].clone())
            .collect()
    };
    assert!(sent("scopes").iter().all(|a| a["frameId"] == json!(0)), "{:?}", sent("scopes"));
    let evaluations = sent("evaluate");
    assert_eq!(evaluations[0], json!({"expression": "s + 1", "frameId": 0, "context": "watch"}));
    assert_eq!(evaluations[1]["frameId"], json!(0));

    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(7)), "{}", r.text);
    let out = a.ok("output", json!({"category": "stdout"}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["sum=7"]);
    a.ok("disconnect", json!({}));
    let started: Vec<i32> = a.descendants().into_iter().filter(|p| !before.contains(p)).collect();
    assert_all_gone(&started, HYGIENE, "the scripted gdb");
}

#[test]
fn stop_on_entry_under_gdb_is_main_by_gdbs_own_setting() {
    let f = fixture_prog();
    let (mut a, _dir) = with_fake_gdb("gdb-entry", "plain");
    let r = a.ok("launch", json!({"program": s(&f.prog), "adapter": "gdb"}));
    assert_eq!(at(&r), (json!(7), json!("main")), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "gdb's own reason passes through: {}", r.text);
    let log = a.dap_log("s1");
    let launch = &log[position(&log, "to_adapter", "request", "launch")]["message"]["arguments"];
    assert_eq!(launch["stopAtBeginningOfMainSubprogram"], json!(true), "{launch}");
    assert!(!sent_commands(&log).contains(&"setFunctionBreakpoints".to_owned()), "no entry breakpoint of agentdap's");
    a.ok("disconnect", json!({}));
}

/// gdb's order (go-delve/mcp-dap-server#22): the launch's error response comes after
/// configurationDone and ends the wait at once with gdb's words.
#[test]
fn c11_a_gdb_launch_error_after_configuration_done_ends_the_wait_at_once() {
    let f = fixture_prog();
    let (mut a, _dir) = with_fake_gdb("gdb-c11", "c11");
    let started = Instant::now();
    let r = a.call("launch", json!({"program": s(&f.prog), "adapter": "gdb", "wait_ms": 20000}));
    let took = started.elapsed();
    assert!(r.is_error && r.code() == "adapter_error", "{}", r.text);
    assert!(r.text.contains(&format!("{}: No such file or directory.", s(&f.prog))), "{}", r.text);
    assert!(took < Duration::from_secs(3), "the launch error took {took:?}");
    assert!(sent_commands(&a.dap_log("s1")).contains(&"configurationDone".to_owned()));
}

/// The major version `gdb --version` reports, if gdb runs.
fn gdb_major() -> Option<u32> {
    let out = Command::new("gdb").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let word = text.lines().next()?.split_whitespace().last()?.to_owned();
    word.split('.').next()?.parse().ok()
}

/// With gdb ≥ 14, the real thing; below, both `doctor` and `launch` say that DAP came in 14;
/// with no gdb at all, both say it is missing.
#[test]
fn real_gdb_debugs_the_c_program_or_doctor_and_launch_say_dap_came_in_gdb_14() {
    let f = fixture_prog();
    let doctor = Command::new(common::bin()).arg("doctor").output().expect("run agentdap doctor");
    let report = String::from_utf8_lossy(&doctor.stdout).into_owned();
    let row: Vec<&str> = report.lines().skip_while(|l| !l.starts_with("  gdb ")).take(2).collect();
    let mut a = Agent::start_plain(|_| {});
    let before = a.descendants();
    match gdb_major() {
        Some(major) if major >= 14 => {
            assert!(row[0].contains(" ok "), "{report}");
            let source = s(&f.dir.join("prog.c"));
            let started = Instant::now();
            let r = a.ok(
                "launch",
                json!({"program": s(&f.prog), "adapter": "gdb", "breakpoints": [{"path": source, "line": 4}]}),
            );
            eprintln!("gdb {major}: launch → first stop in {:?}", started.elapsed());
            assert_eq!(at(&r), (json!(4), json!("add")), "{}", r.text);
            let c = a.ok("context", json!({}));
            assert_eq!(var_value(&c.s["locals"]["variables"], "a"), "3", "{}", c.text);
            let e = a.ok("evaluate", json!({"expression": "a + b"}));
            assert_eq!(e.s["value"], json!("7"), "{}", e.text);
            let r = a.ok("step", json!({"kind": "out"}));
            assert_eq!(at(&r).1, json!("main"), "{}", r.text);
            let r = a.ok("continue", json!({}));
            assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(7)), "{}", r.text);
            a.ok("disconnect", json!({}));
        }
        Some(major) => {
            assert!(
                row[0].contains(" missing ")
                    && row[0].contains(&format!("no DAP interpreter in gdb {major}."))
                    && row[0].contains("(DAP came in gdb 14)"),
                "{report}"
            );
            assert!(row[1].contains("install: apt-get install gdb"), "{report}");
            let started = Instant::now();
            let r = a.call("launch", json!({"program": s(&f.prog), "adapter": "gdb", "wait_ms": 20000}));
            assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
            assert!(r.is_error && r.code() == "adapter_not_found", "{}", r.text);
            assert!(r.text.contains("has no DAP interpreter (it came in gdb 14;"), "{}", r.text);
            assert!(r.text.contains("install gdb 14 or newer, or use lldb-dap (adapter: lldb)"), "{}", r.text);
        }
        None => {
            assert!(row[0].contains(" missing ") && row[0].contains("no gdb found on PATH"), "{report}");
            let r = a.call("launch", json!({"program": s(&f.prog), "adapter": "gdb"}));
            assert!(r.is_error && r.code() == "adapter_not_found", "{}", r.text);
        }
    }
    let started: Vec<i32> = a.descendants().into_iter().filter(|p| !before.contains(p)).collect();
    assert_all_gone(&started, HYGIENE, "gdb and its inferior");
}
