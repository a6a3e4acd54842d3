//! Delve over TCP through the built binary (issue 7): a Go program built with
//! `-gcflags='all=-N -l'` (`mode: exec`) and a `.go` file (`mode: debug`, built by dlv):
//! breakpoint, `context`, `evaluate`, `step`, program output in order (dlv's own stdout and
//! stderr), the exit code read after `disconnect`, stop on entry at `main.main`, no
//! `__debug_bin` in the project, and no dlv left; after a SIGKILL of agentdap its watchdog
//! removes the build directory and nothing else. Fails when Delve is missing
//! (`apt-get install delve golang-go`).

use crate::agent;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use agent::{build, require, scratch, var_value, Agent, Res};
use common::go_env;
use serde_json::{json, Value};

const GO_SOURCE: &str = r#"package main

import (
	"fmt"
	"os"
)

func add(a, b int) int {
	c := a + b
	return c
}

func main() {
	x, y := 3, 4
	s := add(x, y)
	fmt.Println("sum", s)
	fmt.Fprintln(os.Stderr, "to stderr")
	fmt.Println("last line")
	os.Exit(7)
}
"#;

struct Fixtures {
    dir: PathBuf,
    bin: PathBuf,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        require("dlv", "delve golang-go");
        let dir = scratch("delve");
        std::fs::write(dir.join("main.go"), GO_SOURCE).expect("write Go");
        std::fs::write(dir.join("go.mod"), "module example.com/hello\n\ngo 1.19\n").expect("write go.mod");
        let bin = dir.join("hello");
        let mut cmd = Command::new("go");
        go_env(cmd.current_dir(&dir).args(["build", "-gcflags=all=-N -l", "-o"]).arg(&bin).arg("."));
        build(&mut cmd, "golang-go");
        Fixtures { dir, bin }
    })
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn at(r: &Res) -> (Value, Value) {
    (r.s["stop"]["location"]["line"].clone(), r.s["stop"]["location"]["function"].clone())
}

fn agent() -> Agent {
    Agent::start_plain(|cmd| {
        go_env(cmd);
    })
}

/// The exit was read from dlv's console after `disconnect`, output came in order, and dlv left.
fn ran_to_exit(a: &mut Agent, r: &Res) {
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(7)), "{}", r.text);
    assert!(r.s.get("ended_by_agentdap").is_none(), "the program ended by itself: {}", r.text);
    let out = a.ok("output", json!({}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["sum 7", "last line"], "{}", out.text);
    assert_eq!(agent::lines_of(&out, "stderr"), ["to stderr"], "{}", out.text);
    let gone = agent::eventually(Duration::from_secs(5), || {
        a.descendants().iter().all(|&p| {
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            !String::from_utf8_lossy(&cmd).contains("dlv")
        })
    });
    assert!(gone, "dlv is gone after the exit");
}

#[test]
fn exec_mode_breakpoint_context_evaluate_step_output_exit() {
    let f = fixtures();
    let source = path(&f.dir.join("main.go"));
    let mut a = agent();
    let r = a
        .ok("launch", json!({"program": path(&f.bin), "breakpoints": [{"path": source, "line": 9}], "wait_ms": 50000}));
    assert_eq!(r.s["adapter"], json!("delve"), "{}", r.text);
    assert_eq!(at(&r), (json!(9), json!("main.add")), "{}", r.text);
    let c = a.ok("context", json!({}));
    assert!(c.text.contains("→    9  \tc := a + b"), "{}", c.text);
    assert_eq!(var_value(&c.s["locals"]["variables"], "a"), "3", "{}", c.text);
    let e = a.ok("evaluate", json!({"expression": "a + b"}));
    assert_eq!(e.s["value"], json!("7"), "{}", e.text);
    let r = a.ok("step", json!({"kind": "over"}));
    assert_eq!(at(&r), (json!(10), json!("main.add")), "{}", r.text);
    let r = a.ok("step", json!({"kind": "out"}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.main"), "{}", r.text);
    let r = a.ok("continue", json!({}));
    ran_to_exit(&mut a, &r);
}

#[test]
fn debug_mode_builds_stops_at_main_main_and_leaves_no_debug_bin() {
    let f = fixtures();
    let mut a = agent();
    let r = a.ok("launch", json!({"program": path(&f.dir.join("main.go")), "wait_ms": 50000}));
    assert_eq!(at(&r), (json!(13), json!("main.main")), "stop on entry is main.main: {}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("function breakpoint"), "Delve's own words: {}", r.text);
    // The port announcement is agentdap's business and Delve's console greeting is noise.
    let all = a.ok("output", json!({}));
    assert!(!all.text.contains("DAP server listening") && !all.text.contains("dlv help"), "{}", all.text);
    let log = a.dap_log("s1");
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch")).expect("launch sent");
    let output = launch["message"]["arguments"]["output"].as_str().unwrap_or_default().to_owned();
    assert!(output.ends_with("__debug_bin") && !output.starts_with(&path(&f.dir)), "{output}");
    assert_eq!(launch["message"]["arguments"]["mode"], json!("debug"));
    let r = a.ok("continue", json!({}));
    ran_to_exit(&mut a, &r);
    let leftovers: Vec<_> = std::fs::read_dir(&f.dir).expect("ls").flatten().map(|e| e.file_name()).collect();
    assert!(!leftovers.iter().any(|n| n.to_string_lossy().contains("__debug_bin")), "{leftovers:?}");
    assert!(agent::eventually(Duration::from_secs(5), || !Path::new(&output).parent().is_some_and(Path::exists)));
}

/// agentdap SIGKILLed while Delve's built program is stopped: the watchdog kills the program,
/// then removes the temporary build directory agentdap made (without following a symlink inside
/// it) — and nothing it did not make: a planted `agentdap-build-<pid>-…` symlink and directory
/// with agentdap's own pid, and a planted symlink named for a dead agentdap (which the next
/// launch's sweep of stale directories must leave too), all stay.
#[test]
fn sigkill_of_agentdap_removes_its_build_directory_and_nothing_else() {
    let f = fixtures();
    let tmp = scratch("delve-sigkill-tmp");
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd).env("TMPDIR", &tmp);
    });
    let me = a.d.pid();
    let outside = tmp.join("not-agentdaps");
    std::fs::create_dir(&outside).expect("mkdir outside");
    std::fs::write(outside.join("keep.txt"), "keep").expect("write keep.txt");
    let planted_link = tmp.join(format!("agentdap-build-{me}-planted"));
    let dead_link = tmp.join("agentdap-build-4000000000-dead");
    let planted_dir = tmp.join(format!("agentdap-build-{me}-other"));
    std::os::unix::fs::symlink(&outside, &planted_link).expect("plant symlink");
    std::os::unix::fs::symlink(&outside, &dead_link).expect("plant symlink");
    std::fs::create_dir(&planted_dir).expect("plant dir");
    std::fs::write(planted_dir.join("keep.txt"), "keep").expect("write planted");

    let r = a.ok("launch", json!({"program": path(&f.dir.join("main.go")), "wait_ms": 50000}));
    assert_eq!(at(&r), (json!(13), json!("main.main")), "{}", r.text);
    let log = a.dap_log("s1");
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch")).expect("launch sent");
    let output = PathBuf::from(launch["message"]["arguments"]["output"].as_str().expect("output"));
    let build_dir = output.parent().expect("build dir").to_path_buf();
    assert_eq!(build_dir.parent(), Some(tmp.as_path()), "{}", build_dir.display());
    assert!(build_dir.is_dir() && output.is_file(), "{}", output.display());
    // A symlink inside the build directory: removal must not follow it.
    std::os::unix::fs::symlink(&outside, build_dir.join("link")).expect("link inside");
    let tree = a.descendants();
    let debuggee: Vec<_> = tree
        .iter()
        .copied()
        .filter(|p| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|e| e.starts_with(&build_dir)))
        .collect();
    assert_eq!(debuggee.len(), 1, "the built program runs from the build directory: {tree:?}");

    a.d.signal(libc::SIGKILL);
    let _ = a.d.wait_exit(Duration::from_secs(5));
    let removed = agent::eventually(Duration::from_secs(15), || !build_dir.exists());
    assert!(removed, "{} is still there after agentdap's SIGKILL (the watchdog removes it)", build_dir.display());
    agent::assert_all_gone(&debuggee, agent::HYGIENE, "the debuggee after agentdap's SIGKILL");
    agent::assert_all_gone(&tree, agent::HYGIENE * 2, "agentdap's processes (and the watchdog)");
    for link in [&planted_link, &dead_link] {
        let meta = std::fs::symlink_metadata(link).expect("planted symlink stays");
        assert!(meta.file_type().is_symlink(), "{}", link.display());
    }
    assert_eq!(std::fs::read_to_string(planted_dir.join("keep.txt")).ok().as_deref(), Some("keep"));
    assert_eq!(std::fs::read_to_string(outside.join("keep.txt")).ok().as_deref(), Some("keep"));
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `source` as `main.go` of a module in a scratch directory named `name`, built unoptimized
/// (`-N -l`) into a binary `panics`: its path.
fn panics_binary(name: &str, source: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("main.go"), source).expect("write Go");
    std::fs::write(dir.join("go.mod"), "module example.com/panics\n\ngo 1.19\n").expect("write go.mod");
    let bin = dir.join("panics");
    let mut cmd = Command::new("go");
    go_env(cmd.current_dir(&dir).args(["build", "-gcflags=all=-N -l", "-o"]).arg(&bin).arg("."));
    build(&mut cmd, "golang-go");
    bin
}

const GO_PANIC_SOURCE: &str = r#"package main

import "fmt"

func main() {
	var m map[string]int
	fmt.Println("before")
	m["x"] = 1
}
"#;

/// A Go panic ends with goroutine frames on stderr; what ended the program is the `panic:`
/// line, and that is the "last stderr line" a failed run shows.
#[test]
fn a_go_panic_shows_the_panic_line_as_the_last_stderr_line() {
    require("dlv", "delve golang-go");
    let bin = panics_binary("delve-panic", GO_PANIC_SOURCE);
    let mut a = agent();
    let mut r = a.ok("launch", json!({"program": path(&bin), "stop_on_entry": false, "wait_ms": 60000}));
    // Delve stops at the unrecovered panic first, in `runtime.fatalpanic`; the stop shows the
    // program's frame, the map assignment (`RuntimeQuirks::exception_runtime_frames`).
    assert_eq!(r.s["stop"]["reason"], json!("exception"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.main"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(8), "{}", r.text);
    assert_eq!(r.s["stop"]["shown_frame"]["exception_top"]["function"], json!("runtime.fatalpanic"), "{}", r.text);
    assert!(r.text.contains("the exception's top frame is panic.go:"), "{}", r.text);
    // The runtime prints the panic when the program goes on.
    for _ in 0..3 {
        if r.s["state"] != json!("stopped") {
            break;
        }
        r = a.ok("continue", json!({"wait_ms": 30000}));
    }
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(2)), "{}", r.text);
    assert_eq!(r.s["last_stderr_line"], json!("panic: assignment to entry in nil map"), "{}", r.text);
    assert!(r.text.contains("last stderr line: panic: assignment to entry in nil map"), "{}", r.text);
}

/// A second Delve session right after the first one's `disconnect`, in the same agentdap: the
/// first dlv (`mode: debug`: it removes its build after the connection closed) exits while the
/// next session's connect is under way, in the stream slot the first one's closed stream left;
/// that exit is the first session's, never the next one's ("the adapter exited (exit status: 0)
/// before accepting a connection" failed every second launch).
#[test]
fn a_second_delve_session_after_a_disconnect_connects() {
    let f = fixtures();
    let mut a = agent();
    let main_go = path(&f.dir.join("main.go"));
    for round in 0..3 {
        let r = a.ok("launch", json!({"program": main_go, "stop_on_entry": true, "wait_ms": 30000}));
        assert_eq!(r.s["state"], json!("stopped"), "round {round}: {}", r.text);
        a.ok("disconnect", json!({}));
    }
}

/// breaker2: at a Delve panic stop the result shows the program's frame
/// (`RuntimeQuirks::exception_runtime_frames`: here `main.main.func1`, the `sort.Slice` less
/// function, at its map assignment on line 14) and `evaluate` reads that frame (`limit` = 7),
/// but `context` with no frame shows `runtime.fatalpanic`'s source (`→ 1143`) and its locals
/// (`msgs`) under the same header that says the program's frame #3 is shown.
#[test]
fn a_go_panics_context_shows_the_frame_the_stop_shows() {
    require("dlv", "delve golang-go");
    let src = "package main\n\nimport (\n\t\"fmt\"\n\t\"sort\"\n)\n\nfunc main() {\n\tlimit := 7\n\txs := []int{3, 1, 2}\n\tsort.Slice(xs, func(i, j int) bool {\n\t\tif limit > 5 {\n\t\t\tvar m map[string]int\n\t\t\tm[\"a\"] = limit\n\t\t}\n\t\treturn xs[i] < xs[j]\n\t})\n\tfmt.Println(xs)\n}\n";
    let bin = panics_binary("delve-panic-context", src);
    let mut a = agent();
    let r = a.ok("launch", json!({"program": path(&bin), "stop_on_entry": false, "wait_ms": 60000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.main.func1"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(14), "{}", r.text);
    let e = a.ok("evaluate", json!({"expression": "limit"}));
    assert!(e.text.starts_with("limit = 7"), "evaluate reads the shown frame: {}", e.text);
    let c = a.ok("context", json!({}));
    assert!(c.text.contains("→   14"), "context shows the frame the stop shows, main.go:14: {}", c.text);
    assert!(c.text.contains("limit = 7"), "and its locals: {}", c.text);
    a.ok("disconnect", json!({}));
}
