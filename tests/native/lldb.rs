//! lldb-dap through the built binary (issue 7): a C program (`gcc -g -O0`) and a Rust program
//! (`rustc -g`): breakpoints in functions, `context`, `evaluate`, `step` in/out, `variables` of a
//! struct, a `Vec` and a `String`, output, exit codes, stale handles (lldb-dap reuses its ids),
//! stop on entry at `main` with the adapter's reason (llvm/llvm-project#165901, #195352), a
//! symlinked project with `g++` (mfussenegger/nvim-dap#1197). Fails when lldb-dap is missing
//! (`apt-get install lldb-22`).

use crate::agent;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use agent::{build, require, scratch, var_names, var_ref, var_value, Agent, Res};
use serde_json::{json, Value};

/// The C program of the native tests (CodeLLDB's and gdb's real runs use it too).
pub(crate) const C_SOURCE: &str = r#"#include <stdio.h>
struct point { int x; int y; };
int add(int a, int b) {
    int c = a + b;
    return c;
}
int main(void) {
    struct point p = { 3, 4 };
    int s = add(p.x, p.y);
    printf("sum=%d\n", s);
    fprintf(stderr, "to stderr\n");
    return 7;
}
"#;

const RUST_SOURCE: &str = r#"struct Point { x: i32, y: i32 }
fn total(v: &Vec<i32>) -> i32 {
    let s: i32 = v.iter().sum();
    s
}
fn main() {
    let v = vec![10, 20, 30];
    let name = String::from("agentdap");
    let p = Point { x: 1, y: 2 };
    let t = total(&v);
    println!("{} {} {}", name, t, p.x + p.y);
    std::process::exit(3);
}
"#;

const BUSY_SOURCE: &str = r#"#include <unistd.h>
int main(void) {
    volatile unsigned long n = 0;
    for (;;) {
        n++;
        if ((n & 0xfffff) == 0) usleep(1000);
    }
}
"#;

struct Fixtures {
    dir: PathBuf,
    c: PathBuf,
    rust: PathBuf,
    busy: PathBuf,
}

/// The programs, compiled once per test binary.
fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        require("lldb-dap-22", "lldb-22");
        let dir = scratch("lldb");
        std::fs::write(dir.join("prog.c"), C_SOURCE).expect("write C");
        let c = dir.join("prog");
        build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&c).arg(dir.join("prog.c")), "gcc");
        std::fs::write(dir.join("vec.rs"), RUST_SOURCE).expect("write Rust");
        let rust = dir.join("vecprog");
        build(Command::new("rustc").args(["-g", "-o"]).arg(&rust).arg(dir.join("vec.rs")), "rustc (rustup)");
        std::fs::write(dir.join("busy.c"), BUSY_SOURCE).expect("write C");
        let busy = dir.join("busy");
        build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&busy).arg(dir.join("busy.c")), "gcc");
        Fixtures { dir, c, rust, busy }
    })
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn at(r: &Res) -> (Value, Value) {
    (r.s["stop"]["location"]["line"].clone(), r.s["stop"]["location"]["function"].clone())
}

fn func(r: &Res) -> String {
    r.s["stop"]["location"]["function"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn c_breakpoint_context_evaluate_steps_struct_output_exit_and_stale_handles() {
    let f = fixtures();
    let source = path(&f.dir.join("prog.c"));
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": path(&f.c), "breakpoints": [{"path": source, "line": 9}]}));
    assert_eq!(r.s["adapter"], json!("lldb"), "{}", r.text);
    assert_eq!(at(&r), (json!(9), json!("main")), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"));
    // lldb-dap's two-line greeting on its debug console is not news for the agent.
    let console = a.ok("output", json!({"category": "console"}));
    assert!(
        !console.text.contains("To get started") && !console.text.contains("For more information"),
        "{}",
        console.text
    );
    assert!(console.text.contains("Attached to process"), "the rest of the console stays: {}", console.text);

    let c = a.ok("context", json!({}));
    assert!(c.text.contains("→    9      int s = add(p.x, p.y);"), "the current line is marked:\n{}", c.text);
    let locals = &c.s["locals"]["variables"];
    assert!(var_names(locals).contains(&"p".to_owned()), "{locals}");
    // lldb-dap's value for a struct is its type name; the preview shows the members.
    assert!(c.text.contains("\n  p = {x = 3, y = 4} (point) [ref "), "{}", c.text);
    let e = a.ok("evaluate", json!({"expression": "p"}));
    assert_eq!(e.s["preview"], json!("{x = 3, y = 4}"), "{}", e.text);
    let old_frame = c.s["frames"][0]["frame"].clone();
    let p = a.ok("variables", json!({"ref": var_ref(locals, "p")}));
    assert_eq!((var_value(&p.s["variables"], "x"), var_value(&p.s["variables"], "y")), ("3".into(), "4".into()));
    let old_ref = var_ref(locals, "p");

    let r = a.ok("step", json!({"kind": "in"}));
    assert_eq!(at(&r), (json!(4), json!("add")), "{}", r.text);
    let e = a.ok("evaluate", json!({"expression": "a + b"}));
    assert_eq!(e.s["value"], json!("7"), "{}", e.text);
    let c = a.ok("context", json!({}));
    assert_eq!(var_value(&c.s["locals"]["variables"], "a"), "3");
    // lldb-dap gives the new top frame and the new Locals the same ids as before the step:
    // the old handles are refused before anything reaches the adapter.
    let stale = a.call("evaluate", json!({"expression": "a", "frame": old_frame}));
    assert!(stale.is_error && stale.code() == "target_invalidated", "{}", stale.text);
    let stale = a.call("variables", json!({"ref": old_ref}));
    assert!(stale.is_error && stale.code() == "target_invalidated", "{}", stale.text);

    let r = a.ok("step", json!({"kind": "out"}));
    assert_eq!(at(&r), (json!(9), json!("main")), "{}", r.text);
    let r = a.ok("step", json!({"kind": "over"}));
    assert_eq!(at(&r), (json!(10), json!("main")), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(7)), "{}", r.text);
    // The inferior's terminal is a PTY: stderr arrives as stdout, CRLF normalised.
    let out = a.ok("output", json!({"category": "stdout"}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["sum=7", "to stderr"], "{}", out.text);
    assert!(!out.text.contains('\r'));
    a.ok("disconnect", json!({}));
}

/// lldb-dap 22 interrupts with SIGSTOP and reports `exception` / `signal SIGSTOP`: the reason
/// passes through (agentdap never rewrites a reason), and the result says it is the pause the agent asked for.
#[test]
fn a_pause_reads_as_a_pause_not_a_signal() {
    let f = fixtures();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": path(&f.busy), "stop_on_entry": false, "wait_ms": 1500}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    for _ in 0..2 {
        let p = a.ok("pause", json!({}));
        let stop = &p.s["stop"];
        assert_eq!((&stop["reason"], &stop["requested_pause"]), (&json!("exception"), &json!(true)), "{}", p.text);
        assert!(stop.get("exception").is_none(), "nothing was raised: {}", p.s);
        assert!(p.text.contains("the pause you asked for (signal SIGSTOP)"), "{}", p.text);
        let c = a.ok("continue", json!({"wait_ms": 200}));
        assert_eq!(c.s["state"], json!("running"), "{}", c.text);
    }
    // lldb-dap 22 has no `terminate` request: a graceful end is not possible, and the result
    // says so rather than calling it graceful.
    let d = a.ok("disconnect", json!({"graceful": true}));
    assert!(d.text.contains("not graceful") && d.text.contains("supportsTerminateRequest"), "{}", d.text);
    assert!(!agent::sent_commands(&a.dap_log("s1")).contains(&"terminate".to_owned()), "nothing but disconnect");
}

#[test]
fn rust_vec_and_string_read_naturally_and_steps_land() {
    let f = fixtures();
    let source = path(&f.dir.join("vec.rs"));
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": path(&f.rust), "breakpoints": [{"path": source, "line": 10}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(10), "{}", r.text);
    // rustc's legacy mangling (the `::h…` hash, `$u7b$`-style escapes) is read off the names.
    assert_eq!(func(&r), "vec::main", "{}", r.text);
    let c = a.ok("context", json!({}));
    let locals = &c.s["locals"]["variables"];
    assert!(var_value(locals, "name").contains("\"agentdap\""), "a String reads as its text: {locals}");
    let v = a.ok("variables", json!({"ref": var_ref(locals, "v")}));
    let items: Vec<String> = ["[0]", "[1]", "[2]"].iter().map(|n| var_value(&v.s["variables"], n)).collect();
    assert_eq!(items, ["10", "20", "30"], "a Vec shows its elements: {}", v.text);
    let p = a.ok("variables", json!({"ref": var_ref(locals, "p")}));
    assert_eq!(var_value(&p.s["variables"], "y"), "2");

    let r = a.ok("step", json!({"kind": "in"}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(3), "{}", r.text);
    assert_eq!(func(&r), "vec::total", "{}", r.text);
    let r = a.ok("step", json!({"kind": "out"}));
    assert!(func(&r).starts_with("vec::main"), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(3), "{}", r.text);
    let out = a.ok("output", json!({"category": "stdout"}));
    assert_eq!(agent::lines_of(&out, "stdout"), ["agentdap 60 3"]);
}

/// Stop on entry (llvm/llvm-project#165901, #195352) stops at `main` with the reason lldb-dap gave (a breakpoint on
/// `main`), and the adapter's own entry stop keeps its own reason; agentdap never writes `entry`.
#[test]
fn entry_stops_at_main_and_reasons_pass_through() {
    let f = fixtures();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": path(&f.c)}));
    assert_eq!(at(&r), (json!(8), json!("main")), "stop on entry is main's first line: {}", r.text);
    let log = a.dap_log("s1");
    let stopped: Vec<&Value> =
        log.iter().filter(|e| e["message"]["event"] == json!("stopped")).map(|e| &e["message"]["body"]).collect();
    assert_eq!(r.s["stop"]["reason"], stopped[0]["reason"], "passed through: {stopped:?}");
    let sent = agent::sent_commands(&log);
    assert!(sent.contains(&"setFunctionBreakpoints".to_owned()), "{sent:?}");
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch")).expect("launch sent");
    assert_eq!(launch["message"]["arguments"]["stopOnEntry"], json!(false), "not the loader's entry");
    // The temporary breakpoint is gone: the program runs to its end.
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(7), "{}", r.text);
    a.ok("disconnect", json!({}));

    let r =
        a.ok("launch", json!({"program": path(&f.c), "stop_on_entry": false, "adapter_args": {"stopOnEntry": true}}));
    let log = a.dap_log("s2");
    let first = log.iter().find(|e| e["message"]["event"] == json!("stopped")).expect("a stopped event");
    assert_eq!(r.s["stop"]["reason"], first["message"]["body"]["reason"], "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("entry"), "lldb-dap 22 says entry: {}", r.text);
    a.ok("disconnect", json!({}));
}

/// mfussenegger/nvim-dap#1197: a project built inside a symlinked directory; the breakpoint is verified and hit
/// whether given through the link or by its real path (lldb matches only the spelling in the
/// debug info; agentdap retries with the other one).
#[test]
fn symlinked_project_breakpoints_hit_with_either_spelling() {
    let f = fixtures();
    let scratch = f.dir.join("c22");
    let real = scratch.join("real/proj");
    std::fs::create_dir_all(&real).expect("mkdir");
    let link = scratch.join("link");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(scratch.join("real"), &link).expect("symlink");
    let proj = link.join("proj");
    std::fs::write(proj.join("main.cpp"), "int main() {\n  int a = 1;\n  return a;\n}\n").expect("write");
    build(Command::new("g++").current_dir(&proj).args(["-g", "main.cpp", "-o", "main"]), "g++");
    let mut a = Agent::start_plain(|_| {});
    for (i, spelling) in [real.join("main.cpp"), proj.join("main.cpp")].iter().enumerate() {
        let args = json!({"program": path(&proj.join("main")), "breakpoints": [{"path": path(spelling), "line": 2}]});
        let r = a.ok("launch", args);
        assert_eq!(at(&r), (json!(2), json!("main")), "{}: {}", spelling.display(), r.text);
        let b = a.ok("breakpoints", json!({}));
        assert!(b.text.contains("verified · hit"), "{}", b.text);
        a.ok("disconnect", json!({"session": format!("s{}", i + 1)}));
    }
}
