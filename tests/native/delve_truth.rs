//! What Delve sessions say is what happened, through the built binary and `dlv` (1.20): a
//! `set_variable` on an int, a string and a struct field reads the new value back (Delve's
//! refs keep the values they were made with, so refs from before a change are refused, never
//! answered with old values), and the program prints what was set; a pointer's target is listed
//! as `*p`, not under an empty name. Fails when Delve is missing
//! (`apt-get install delve golang-go`).

use crate::agent;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use agent::{build, require, scratch, var_ref, var_value, Agent, Res};
use common::go_env;
use serde_json::{json, Value};

const GO_SOURCE: &str = r#"package main

import "fmt"

type T struct {
	N    int
	Name string
}

func main() {
	i := 0
	s := "hello"
	t := T{N: 1, Name: "a"}
	p := &t
	q := &i
	fmt.Println(i, s, t, p.N, *q)
}
"#;

/// The line of the `fmt.Println` in [`GO_SOURCE`].
const PRINT_LINE: u32 = 16;

struct Fixtures {
    dir: PathBuf,
    bin: PathBuf,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let (dir, bin) = go_program("truth", GO_SOURCE);
        Fixtures { dir, bin }
    })
}

/// `source` as `main.go` of module `name` in a scratch directory, built without optimizations:
/// the directory and the binary.
fn go_program(name: &str, source: &str) -> (PathBuf, PathBuf) {
    require("dlv", "delve golang-go");
    let dir = scratch(&format!("delve-{name}"));
    std::fs::write(dir.join("main.go"), source).expect("write Go");
    std::fs::write(dir.join("go.mod"), format!("module example.com/{name}\n\ngo 1.19\n")).expect("write go.mod");
    let bin = dir.join(name);
    let mut cmd = Command::new("go");
    go_env(cmd.current_dir(&dir).args(["build", "-gcflags=all=-N -l", "-o"]).arg(&bin).arg("."));
    build(&mut cmd, "golang-go");
    (dir, bin)
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn agent() -> Agent {
    Agent::start_plain(|cmd| {
        go_env(cmd);
    })
}

/// Launched and stopped at the `fmt.Println`.
fn stopped_at_print(a: &mut Agent) {
    let f = fixtures();
    let source = path(&f.dir.join("main.go"));
    let bps = json!([{"path": source, "line": PRINT_LINE}]);
    let r = a.ok("launch", json!({"program": path(&f.bin), "breakpoints": bps, "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(PRINT_LINE), "{}", r.text);
}

/// The locals as `context` shows them now: (their ref, the list).
fn locals(a: &mut Agent) -> (Value, Value) {
    let c = a.ok("context", json!({}));
    (c.s["locals"]["ref"].clone(), c.s["locals"]["variables"].clone())
}

fn assert_changed(r: &Res, to: &str, from: &str) {
    assert_eq!(r.s["changed"], json!(true), "{}", r.text);
    assert_eq!((r.s["value"].clone(), r.s["old_value"].clone()), (json!(to), json!(from)), "{}", r.text);
    assert!(r.s.get("acknowledged_without_effect").is_none(), "{}", r.text);
}

#[test]
fn go_set_variable_reads_back_ints_strings_and_struct_fields_and_never_shows_old_values() {
    let mut a = agent();
    stopped_at_print(&mut a);
    let (scope, _) = locals(&mut a);
    let r = a.ok("set_variable", json!({"ref": scope, "name": "i", "value": "7"}));
    assert_changed(&r, "7", "0");
    assert!(r.text.starts_with("i = 7 (was 0)"), "{}", r.text);
    // The scope's ref from before holds Delve's old values: refused, not answered with i = 0.
    let old = a.call("variables", json!({"ref": scope}));
    assert_eq!((old.is_error, old.code()), (true, "target_invalidated"), "{}", old.text);
    let (scope, vars) = locals(&mut a);
    assert_eq!(var_value(&vars, "i"), "7", "fresh refs show the new value: {vars}");

    let r = a.ok("set_variable", json!({"ref": scope, "name": "s", "value": "\"bye\""}));
    assert_changed(&r, "\"bye\"", "\"hello\"");
    let (_, vars) = locals(&mut a);
    let t = var_ref(&vars, "t");
    let r = a.ok("set_variable", json!({"ref": t, "name": "N", "value": "5"}));
    assert_changed(&r, "5", "1");
    let (_, vars) = locals(&mut a);
    assert_eq!(var_value(&vars, "t"), "main.T {N: 5, Name: \"a\"}", "{vars}");
    assert_eq!(a.ok("evaluate", json!({"expression": "t.N"})).s["value"], json!("5"));

    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["7 bye {5 a} 5 7"], "{}", out.text);
}

#[test]
fn go_pointer_target_is_listed_as_star_name_and_can_be_set_under_it() {
    let mut a = agent();
    stopped_at_print(&mut a);
    let (_, vars) = locals(&mut a);
    let p = a.ok("variables", json!({"ref": var_ref(&vars, "p")}));
    assert_eq!(agent::var_names(&p.s["variables"]), ["*p"], "{}", p.text);
    assert_eq!(var_value(&p.s["variables"], "*p"), "main.T {N: 1, Name: \"a\"}", "{}", p.text);
    let q = a.ok("variables", json!({"ref": var_ref(&vars, "q")}));
    assert_eq!(agent::var_names(&q.s["variables"]), ["*q"], "{}", q.text);
    let r = a.ok("set_variable", json!({"ref": var_ref(&vars, "q"), "name": "*q", "value": "9"}));
    assert_changed(&r, "9", "0");
    let (_, vars) = locals(&mut a);
    assert_eq!(var_value(&vars, "i"), "9", "{vars}");
}

const GOROUTINES: &str = r#"package main

import (
	"fmt"
	"sync"
)

func worker(id int, wg *sync.WaitGroup, out []int) {
	defer wg.Done()
	out[id] = id * 2
}

func main() {
	var wg sync.WaitGroup
	out := make([]int, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go worker(i, &wg, out)
	}
	wg.Wait()
	fmt.Println(out)
}
"#;

/// A goroutine shown at one stop may have ended by the next: a call naming it is refused until
/// `threads` shows it again (Delve would fail the step, "unknown goroutine", and report a stop
/// with reason `error` as if the step had run: a breaker's finding).
#[test]
fn a_goroutine_from_an_earlier_stop_is_checked_again_before_a_step_names_it() {
    let (dir, bin) = go_program("goroutines", GOROUTINES);
    let source = path(&dir.join("main.go"));
    let mut a = agent();
    let bps = json!([{"path": source, "line": 10}]);
    let r = a.ok("launch", json!({"program": path(&bin), "breakpoints": bps, "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main.worker"), "{}", r.text);
    let worker = r.s["stop"]["thread"].clone();
    a.ok("set_breakpoints", json!({"path": source, "lines": [21]}));
    let r = a.ok("continue", json!({"wait_ms": 50000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(21), "{}", r.text);
    assert_ne!(r.s["stop"]["thread"], worker, "main's goroutine: {}", r.text);
    let r = a.call("step", json!({"thread": worker}));
    assert!(r.is_error, "the worker has ended: {}", r.text);
    assert!(r.text.contains(&format!("has no thread {worker} that agentdap has shown")), "{}", r.text);
    assert!(r.text.contains("call `threads`"), "{}", r.text);
    // `threads` lists the goroutines alive now; the worker is not among them.
    a.ok("threads", json!({}));
    let r = a.call("step", json!({"thread": worker}));
    assert!(r.is_error && r.text.contains("has no thread"), "still gone: {}", r.text);
    let r = a.ok("step", json!({"wait_ms": 50000}));
    assert_eq!(r.s["stop"]["reason"], json!("step"), "the live goroutine steps: {}", r.text);
    a.ok("disconnect", json!({}));
}

const INTERRUPTED: &str = r#"package main

import (
	"fmt"
	"sync"
)

func worker(wg *sync.WaitGroup) {
	defer wg.Done()
	x := 1
	fmt.Println("worker", x)
}

func main() {
	var wg sync.WaitGroup
	wg.Add(1)
	go worker(&wg)
	wg.Wait()
	fmt.Println("done")
}
"#;

/// A step over a call whose callee has a breakpoint stops at that breakpoint with the step
/// still pending in Delve; a second step is then refused by Delve, which reports the refusal
/// as a `stopped {reason: exception, description: "invalid command"}` although nothing ran
/// (`service/dap/server.go`, `BetterNextWhileNextingError`). agentdap says the step was refused
/// and the program did not move, and `continue` resumes the pending step (here nothing interrupts it again).
#[test]
fn a_step_delve_refuses_is_a_refusal_not_a_stop_and_continue_finishes_the_pending_step() {
    let (dir, bin) = go_program("interrupted", INTERRUPTED);
    let source = path(&dir.join("main.go"));
    let mut a = agent();
    let bps = json!([{"path": source, "line": 18}, {"path": source, "line": 10}]);
    let r = a.ok("launch", json!({"program": path(&bin), "breakpoints": bps, "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(18), "{}", r.text);
    let main = r.s["stop"]["thread"].clone();
    // The step over `wg.Wait()` is interrupted by the worker's breakpoint: Delve keeps it pending.
    let r = a.ok("step", json!({"wait_ms": 30000}));
    assert_eq!(
        (r.s["stop"]["reason"].clone(), r.s["stop"]["location"]["line"].clone()),
        (json!("breakpoint"), json!(10))
    );
    let worker = r.s["stop"]["thread"].clone();
    assert_ne!(worker, main, "{}", r.text);
    // Not the step's end: the result says whose step it was.
    assert_eq!(r.s["stop"]["interrupted_step"], json!({"kind": "over", "thread": main}), "{}", r.text);
    assert!(
        r.text.contains(&format!("· not the end of thread {main}'s step over: this stop is another thread's")),
        "{}",
        r.text
    );
    let r = a.ok("step", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["reason"], json!("step refused"), "{}", r.text);
    assert_eq!((r.s["stop"]["location"]["line"].clone(), r.s["stop"]["thread"].clone()), (json!(10), worker));
    assert!(r.s["stop"].get("exception").is_none(), "nothing was raised: {}", r.text);
    assert!(r.text.contains("· nothing ran: delve refused the step; an earlier step"), "{}", r.text);
    assert!(r.text.contains("`continue` resumes that step (a breakpoint may interrupt it again)"), "{}", r.text);
    assert_eq!(r.s["changes"]["unchanged"], json!(1), "the same values: {}", r.text);
    let e = a.call("exception_info", json!({}));
    assert!(e.is_error && e.text.contains("not on an exception"), "{}", e.text);
    // `continue` finishes the step over `wg.Wait()`, in main.
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!((r.s["stop"]["reason"].clone(), r.s["stop"]["location"]["line"].clone()), (json!("step"), json!(19)));
    assert_eq!(r.s["stop"]["thread"], main, "{}", r.text);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["worker 1", "done"], "{}", out.text);
    // Delve logged the refusal on the stderr it shares with the program: its words, not the program's.
    assert!(agent::lines_of(&out, "stderr").is_empty(), "{}", out.text);
    assert!(out.text.contains("error layer=dap runtime error: next while nexting"), "{}", out.text);
}
