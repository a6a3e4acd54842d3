//! Post-mortem through the built binary (issue 20): a real core of a C program that dereferenced
//! NULL (`gcc -g -O0`) read with lldb-dap 22, and of a Go program that did (`GOTRACEBACK=crash`)
//! read with Delve 1.20, and of a Rust program that panicked with `panic=abort`: the stop at the crash with the signal as the adapter's words name it
//! (CASES C14: lldb-dap 22.1.8 reports a core's stop as reason `entry`), the faulting line and
//! its locals, execution refused before anything is sent, a clean `disconnect` that leaves no
//! process, and the wrong files refused before anything is spawned. Fails when gcc, lldb-dap, Go
//! or Delve is missing, or when no core can be had (the message says why).

use crate::agent;

use std::path::{Path, PathBuf};
use std::process::Command;

use agent::build;

use agent::{assert_all_gone, is_watchdog, require, scratch, sent_commands, var_value, Agent, HYGIENE};
use serde_json::{json, Value};

use crate::native_util::{gcc, go_build, go_package};

const CRASH_C: &str = r#"#include <stdio.h>
static int deref(int *p, int n) {
    int total = n * 2;
    return *p + total;
}
int main(void) {
    int n = 3;
    int *p = 0;
    return deref(p, n);
}
"#;

const CRASH_GO: &str = r#"package main

import "fmt"

type box struct{ v int }

func deref(b *box, n int) int {
	total := n * 2
	return b.v + total
}

func main() {
	n := 3
	var b *box
	fmt.Println(deref(b, n))
}
"#;

/// Panics out of bounds in `total` (line 3); built with `-C panic=abort`, the panic is a SIGABRT.
const CRASH_RS: &str = r#"fn total(v: &[i32], at: usize) -> i32 {
    let s: i32 = v.iter().sum();
    s + v[at]
}
fn main() {
    let v = vec![10, 20, 30];
    println!("{}", total(&v, 7));
}
"#;

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A core of `bin` crashing in `dir` (with `env` set): the kernel's own, when
/// `/proc/sys/kernel/core_pattern` is a plain file name (written in the crash's working
/// directory once `RLIMIT_CORE` is raised), else one written by `lldb --batch … process save-core`
/// (a minidump).
/// Fails the test saying why when neither gives one.
fn core_of(dir: &Path, bin: &Path, env: &[(&str, &str)]) -> PathBuf {
    let pattern = std::fs::read_to_string("/proc/sys/kernel/core_pattern").unwrap_or_default();
    let pattern = pattern.trim();
    let mut tried = Vec::new();
    if !pattern.is_empty() && !pattern.starts_with('|') && !pattern.contains('/') {
        let mut cmd = Command::new("sh");
        cmd.current_dir(dir).arg("-c").arg(format!("ulimit -c unlimited && exec {}", bin.display()));
        cmd.envs(env.iter().copied());
        // Output captured: the crash's own words (a Rust panic's backtrace) are not the test's.
        let status = cmd.output().expect("sh").status;
        // The name before the first `%` specifier (`core`, `core.%p` → `core`); with
        // `core_uses_pid` the kernel appends `.<pid>`.
        let prefix = pattern.split('%').next().unwrap_or("core").trim_end_matches('.');
        let found = std::fs::read_dir(dir)
            .expect("read the crash's directory")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix)) && p != bin);
        match found {
            Some(core) => return core,
            None => tried.push(format!("the kernel wrote no `{pattern}` in {} (the crash: {status})", dir.display())),
        }
    } else {
        tried.push(format!("core_pattern `{pattern}` is not a plain file name"));
    }
    lldb_core(dir, bin, env).unwrap_or_else(|why| panic!("no core file: {}; and {why}", tried.join("; ")))
}

/// `dir/saved.core`, written by LLDB where `bin` crashes: `--batch` stops at a crash and runs
/// only the `-k` commands there; on Linux LLDB 22 saves a minidump, which lldb-dap reads as it
/// reads an ELF core. `Err`: why there is none.
fn lldb_core(dir: &Path, bin: &Path, env: &[(&str, &str)]) -> Result<PathBuf, String> {
    let core = dir.join("saved.core");
    let mut cmd = Command::new("lldb-22");
    cmd.current_dir(dir).args(["--batch", "-o", "run", "-k"]).arg(format!("process save-core {}", core.display()));
    cmd.args(["-k", "process kill"]).arg(bin).envs(env.iter().copied()).stdin(std::process::Stdio::null());
    match cmd.output() {
        Ok(_) if core.is_file() => Ok(core),
        Ok(out) => Err(format!("lldb-22 --batch saved none: {}", String::from_utf8_lossy(&out.stdout))),
        Err(e) => Err(format!("lldb-22 could not run ({e}; apt-get install lldb-22)")),
    }
}

/// The `stopped` events the adapter sent, as the DAP log holds them.
fn stopped_events(a: &mut Agent) -> Vec<Value> {
    a.dap_log("s1")
        .into_iter()
        .filter(|e| e["dir"] == json!("from_adapter") && e["message"]["event"] == json!("stopped"))
        .map(|e| e["message"]["body"].clone())
        .collect()
}

#[test]
fn a_c_core_stops_at_the_faulting_line_with_its_signal_and_locals_and_cannot_run() {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("core-c");
    let (_, bin) = gcc(&dir, "crash", CRASH_C);
    let core = core_of(&dir, &bin, &[]);
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("attach", json!({"core": path(&core), "program": path(&bin)}));
    assert_eq!(r.s["adapter"], json!("lldb"), "{}", r.text);
    let stop = &r.s["stop"];
    assert_eq!(stop["location"]["line"], json!(4), "{}", r.text);
    assert_eq!(stop["location"]["function"], json!("deref"), "{}", r.text);
    assert!(r.text.contains("→    4      return *p + total;"), "the faulting line and its text:\n{}", r.text);
    assert_eq!(r.s["source_line"]["text"], json!("    return *p + total;"), "{}", r.s);
    assert_eq!(var_value(&r.s["locals"]["variables"], "n"), "3", "{}", r.text);
    assert_eq!(var_value(&r.s["locals"]["variables"], "total"), "6", "{}", r.text);
    // The signal is the adapter's words, and the reason is the adapter's, unchanged (lldb-dap
    // 22.1.8 says `entry`: llvm/llvm-project PR#195352).
    let events = stopped_events(&mut a);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(stop["reason"], events[0]["reason"], "{}", r.text);
    assert_eq!(stop["description"], events[0]["description"], "{}", r.text);
    assert!(events[0]["description"].as_str().is_some_and(|d| d.starts_with("SIGSEGV")), "{events:?}");
    assert_eq!(r.s["post_mortem"]["signal"], json!("SIGSEGV"), "{}", r.s);
    assert!(r.text.contains("\nsignal: SIGSEGV (11), as the stop's description names it"), "{}", r.text);
    assert!(r.text.contains(&format!("post-mortem: core {} of {}", path(&core), path(&bin))), "{}", r.text);

    let frames = a.ok("stack_trace", json!({}));
    assert_eq!(frames.s["frames"][1]["function"], json!("main"), "{}", frames.text);
    assert_eq!(frames.s["frames"][1]["line"], json!(9), "{}", frames.text);
    let main = frames.s["frames"][1]["frame"].clone();
    let p = a.ok("evaluate", json!({"expression": "p", "frame": main}));
    assert!(p.text.contains("0x0000000000000000"), "main's p is NULL: {}", p.text);

    let listed = a.ok("sessions", json!({}));
    assert!(listed.text.contains(&format!("post-mortem: core {}", path(&core))), "{}", listed.text);
    for (tool, args) in
        [("continue", json!({})), ("step", json!({})), ("set_variable", json!({"ref": 1, "name": "n", "value": "4"}))]
    {
        let refused = a.call(tool, args);
        assert!(refused.is_error && refused.code() == "unsupported", "{tool}: {}", refused.text);
        assert!(refused.text.contains("a core file cannot run"), "{tool}: {}", refused.text);
    }
    let sent = sent_commands(&a.dap_log("s1"));
    for never in ["continue", "next", "setVariable"] {
        assert!(!sent.contains(&never.to_owned()), "{never} was sent: {sent:?}");
    }

    let tree: Vec<_> = a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
    let d = a.ok("disconnect", json!({}));
    assert!(d.text.contains("(the core file was closed; no process ran)"), "{}", d.text);
    assert!(!d.text.contains("did not answer cleanly"), "{}", d.text);
    assert_all_gone(&tree, HYGIENE, "after disconnecting a core");

    // The same crash saved by LLDB (a minidump) reads the same way.
    let saved = lldb_core(&dir, &bin, &[]).unwrap_or_else(|why| panic!("{why}"));
    let r = a.ok("attach", json!({"core": path(&saved), "program": path(&bin)}));
    assert_eq!(
        (r.s["stop"]["location"]["line"].clone(), r.s["post_mortem"]["signal"].clone()),
        (json!(4), json!("SIGSEGV")),
        "{}",
        r.text
    );
    assert_eq!(var_value(&r.s["locals"]["variables"], "n"), "3", "{}", r.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn a_missing_or_swapped_core_or_program_is_refused_before_anything_starts() {
    let dir = scratch("core-bad");
    let (source, bin) = gcc(&dir, "crash", CRASH_C);
    let mut a = Agent::start_plain(|_| {});
    let missing = dir.join("no-such-core");
    let cases = [
        (json!({"core": path(&missing), "program": path(&bin)}), format!("core {} does not exist", path(&missing))),
        (
            json!({"core": path(&bin), "program": path(&bin)}),
            format!("core {} is an ELF program, not a core file", path(&bin)),
        ),
        (json!({"core": path(&source), "program": path(&bin)}), format!("core {} is not a core file", path(&source))),
        (json!({"core": path(&bin)}), "`core` needs `program`".to_owned()),
        (json!({"program": path(&bin)}), "pass `core` too".to_owned()),
    ];
    for (args, expected) in cases {
        let r = a.call("attach", args.clone());
        assert!(r.is_error && r.code() == "invalid_argument", "{args}: {}", r.text);
        assert!(r.text.contains(&expected), "{args}: {}", r.text);
    }
    let no_program = dir.join("gone");
    let r = a.call("attach", json!({"core": path(&source), "program": path(&no_program)}));
    assert!(r.is_error, "{}", r.text);
    let listed = a.ok("sessions", json!({}));
    assert!(listed.text.starts_with("No debug sessions"), "nothing was started: {}", listed.text);
    let spawned: Vec<_> = a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
    assert!(spawned.is_empty(), "no adapter was spawned: {spawned:?}");
}

#[test]
fn a_go_core_through_delve_says_its_words_and_that_they_name_no_signal() {
    require("dlv", "delve");
    let dir = scratch("core-go");
    go_package(&dir, "gocrash", CRASH_GO);
    let bin = go_build(&dir, "gocrash");
    let core = core_of(&dir, &bin, &[("GOTRACEBACK", "crash")]);
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("attach", json!({"core": path(&core), "program": path(&bin)}));
    assert_eq!(r.s["adapter"], json!("delve"), "{}", r.text);
    let events = stopped_events(&mut a);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(r.s["stop"]["reason"], events[0]["reason"], "{}", r.text);
    assert_eq!(r.s["stop"]["description"], events[0]["description"], "{}", r.text);
    // Delve 1.20.2 names no signal: the result says so and invents none.
    assert!(r.text.contains("signal: not named by delve's stop words"), "{}", r.text);
    assert_eq!(r.s["post_mortem"].get("signal"), None, "{}", r.s);
    // The crash's top frame is the runtime's (`runtime.raise`): the result shows the program's.
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.deref"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(9), "{}", r.text);
    assert!(r.text.contains("(the program's frame is shown: the crash's top frame is"), "{}", r.text);
    assert!(r.text.contains("in runtime."), "{}", r.text);

    let frames = a.ok("stack_trace", json!({"levels": 20}));
    let list = frames.s["frames"].as_array().cloned().unwrap_or_default();
    let deref = list.iter().find(|f| f["function"] == json!("main.deref")).unwrap_or_else(|| panic!("{}", frames.text));
    assert_eq!(deref["line"], json!(9), "{}", frames.text);
    let n = a.ok("evaluate", json!({"expression": "n", "frame": deref["frame"]}));
    assert_eq!(n.s["value"], json!("3"), "{}", n.text);

    let refused = a.call("continue", json!({}));
    assert!(refused.is_error && refused.text.contains("a core file cannot run"), "{}", refused.text);
    assert!(!sent_commands(&a.dap_log("s1")).contains(&"continue".to_owned()));
    let tree: Vec<_> = a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect();
    let d = a.ok("disconnect", json!({}));
    assert!(d.text.contains("(the core file was closed; no process ran)"), "{}", d.text);
    assert_all_gone(&tree, HYGIENE, "after disconnecting a Go core");
}

#[test]
fn a_rust_panic_abort_core_names_sigabrt_and_keeps_the_panicking_frame() {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("core-rs");
    std::fs::write(dir.join("boom.rs"), CRASH_RS).expect("write Rust");
    let bin = dir.join("boom");
    build(
        Command::new("rustc").args(["-g", "-C", "panic=abort", "-o"]).arg(&bin).arg(dir.join("boom.rs")),
        "rustc (rustup)",
    );
    let core = core_of(&dir, &bin, &[]);
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("attach", json!({"core": path(&core), "program": path(&bin)}));
    assert_eq!(r.s["post_mortem"]["signal"], json!("SIGABRT"), "{}", r.text);
    let frames = a.ok("stack_trace", json!({"levels": 30}));
    let list = frames.s["frames"].as_array().cloned().unwrap_or_default();
    let total =
        list.iter().find(|f| f["function"] == json!("boom::total")).unwrap_or_else(|| panic!("{}", frames.text));
    assert_eq!(total["line"], json!(3), "{}", frames.text);
    let at = a.ok("evaluate", json!({"expression": "at", "frame": total["frame"]}));
    assert_eq!(at.s["value"], json!("7"), "{}", at.text);
    a.ok("disconnect", json!({}));
}

/// A core whose own headers contradict the call: of another program (its `NT_PRPSINFO` names the
/// process), or cut short (shorter than its segments). Both open, with a warning saying so; the
/// core of the program itself gets none. (A minidump from LLDB's fallback has no such headers.)
#[test]
fn a_core_of_another_program_or_cut_short_is_said_to_be_so() {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("core-wrong");
    let (_, bin) = gcc(&dir, "crash", CRASH_C);
    let (_, other) = gcc(&dir, "other", "int main(void) { return 0; }\n");
    let core = core_of(&dir, &bin, &[]);
    let bytes = std::fs::read(&core).expect("read the core");
    assert!(bytes.starts_with(b"\x7fELF"), "this check needs the kernel's ELF core, not LLDB's minidump");
    let cut = dir.join("cut.core");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write the cut core");
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("attach", json!({"core": path(&core), "program": path(&bin)}));
    assert!(!r.text.contains("warning: core"), "{}", r.text);
    a.ok("disconnect", json!({}));
    let r = a.ok("attach", json!({"core": path(&core), "program": path(&other)}));
    assert!(r.text.contains("is of a process named `crash`, not `other`"), "{}", r.text);
    a.ok("disconnect", json!({}));
    let r = a.ok("attach", json!({"core": path(&cut), "program": path(&bin)}));
    assert!(r.text.contains("cut.core is truncated: its headers describe"), "{}", r.text);
    a.ok("disconnect", json!({}));
    // Cut inside its own program headers.
    let tiny = dir.join("tiny.core");
    std::fs::write(&tiny, &bytes[..1000]).expect("write the tiny core");
    let r = a.ok("attach", json!({"core": path(&tiny), "program": path(&bin)}));
    assert!(r.text.contains("tiny.core is truncated: it ends inside its own program headers"), "{}", r.text);
    a.ok("disconnect", json!({}));
}
