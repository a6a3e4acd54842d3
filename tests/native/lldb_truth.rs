//! What lldb-dap sessions say is what happened, through the built binary and lldb-dap-22: a
//! launch's output carries the program's words, not lldb-dap's `Executable binary set to …`
//! line; `breakpoints` names each breakpoint's condition, hit condition and log message;
//! `context` says when the stack goes on past the frames it shows; a breakpoint on a file
//! that does not exist is refused before anything runs; a launch says which breakpoints it
//! carried over from before it. Fails when lldb-dap is missing (`apt-get install lldb-22`).

use crate::agent;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use agent::{build, require, scratch, Agent};
use serde_json::json;

/// Seven frames deep at `leaf` (main, five callers, leaf), more than `context` shows.
const DEEP_SOURCE: &str = r#"#include <stdio.h>
int leaf(int x) {
    return x + 1;
}
int f4(int x) { return leaf(x) + 1; }
int f3(int x) { return f4(x) + 1; }
int f2(int x) { return f3(x) + 1; }
int f1(int x) { return f2(x) + 1; }
int main(void) {
    int v = 1;
    printf("result %d\n", f1(v));
    return 0;
}
"#;

struct Fixtures {
    source: String,
    program: String,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        require("lldb-dap-22", "lldb-22");
        let dir: PathBuf = scratch("lldb-truth");
        let source = dir.join("deep.c");
        std::fs::write(&source, DEEP_SOURCE).expect("write C");
        let program = dir.join("deep");
        build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&program).arg(&source), "gcc");
        Fixtures { source: source.to_string_lossy().into_owned(), program: program.to_string_lossy().into_owned() }
    })
}

#[test]
fn lldb_launch_output_is_the_programs_not_the_executable_binary_set_line() {
    let f = fixtures();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": f.program, "stop_on_entry": false, "wait_ms": 30000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert!(out.text.contains("result 6"), "the program's output is there: {}", out.text);
    assert!(!out.text.contains("Executable binary set"), "no lldb-dap chatter: {}", out.text);
    // The same event's other line (the pid) is kept: only the chatter line goes.
    assert!(out.text.contains("Attached to process"), "{}", out.text);
}

#[test]
fn breakpoints_text_names_conditions_hit_conditions_and_log_messages() {
    let f = fixtures();
    let mut a = Agent::start_plain(|_| {});
    let bps = json!([
        {"path": f.source, "line": 3, "condition": "x > 0", "hit_condition": "1"},
        {"path": f.source, "line": 11, "log_message": "v is {v}"},
    ]);
    let r = a.ok("launch", json!({"program": f.program, "breakpoints": bps, "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(3), "{}", r.text);
    let b = a.ok("breakpoints", json!({}));
    let lines: Vec<&str> = b.text.lines().collect();
    assert_eq!(lines.len(), 2, "{}", b.text);
    assert!(
        lines[0].contains("deep.c:3 · if x > 0 · hit condition 1 verified · hit 1× (last rev 1, thread "),
        "{}",
        b.text
    );
    assert!(lines[1].ends_with("deep.c:11 · logs \"v is {v}\" (does not stop) verified"), "{}", b.text);
}

#[test]
fn context_says_more_frames_follow_when_the_stack_is_deeper_than_shown() {
    let f = fixtures();
    let mut a = Agent::start_plain(|_| {});
    let bps = json!([{"path": f.source, "line": 3}]);
    let r = a.ok("launch", json!({"program": f.program, "breakpoints": bps, "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("leaf"), "{}", r.text);
    let c = a.ok("context", json!({}));
    assert_eq!(c.s["frames"].as_array().map(Vec::len), Some(5), "{}", c.text);
    assert!(c.text.contains("\n  … more frames (call stack_trace with start=5)"), "{}", c.text);
    // What follows is really there: the page from 5 starts at main.
    let st = a.ok("stack_trace", json!({"start": 5, "levels": 1}));
    assert_eq!(st.s["frames"][0]["function"], json!("main"), "{}", st.text);
    // A page that reaches the end of the stack says no more; one that does not says so without
    // a count (lldb-dap's `totalFrames` is an estimate).
    let all = a.ok("stack_trace", json!({"levels": 200}));
    assert!(!all.text.contains("more frames"), "{}", all.text);
    let first = a.ok("stack_trace", json!({"levels": 2}));
    assert!(first.text.ends_with("\n  … more frames (call stack_trace with start=2)"), "{}", first.text);
}

#[test]
fn a_breakpoint_on_a_file_that_does_not_exist_is_refused_before_anything_runs() {
    let f = fixtures();
    let misspelled = f.source.replace("deep.c", "deeep.c");
    let mut a = Agent::start_plain(|_| {});
    let bps = json!([{"path": f.source, "line": 3}, {"path": misspelled, "line": 3}]);
    let r = a.call("launch", json!({"program": f.program, "breakpoints": bps, "wait_ms": 30000}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
    assert!(r.text.contains(&format!("no source file {misspelled}")), "{}", r.text);
    let s = a.ok("sessions", json!({}));
    assert_eq!(s.s["sessions"], json!([]), "nothing was started: {}", s.text);
    // Without a session, and for `run_to`, the same.
    let r = a.call("set_breakpoints", json!({"path": misspelled, "lines": [3]}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
    assert_eq!(a.ok("breakpoints", json!({})).text, "no breakpoints");
    a.ok("launch", json!({"program": f.program, "breakpoints": [{"path": f.source, "line": 3}], "wait_ms": 30000}));
    let r = a.call("run_to", json!({"path": misspelled, "line": 11}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
}

#[test]
fn a_launch_says_which_breakpoints_it_carried_over_from_before_it() {
    let f = fixtures();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("set_breakpoints", json!({"path": f.source, "lines": [11]}));
    assert!(r.text.contains("apply at the next `launch`"), "{}", r.text);
    let r =
        a.ok("launch", json!({"program": f.program, "breakpoints": [{"path": f.source, "line": 3}], "wait_ms": 30000}));
    let carried = format!("{}:11", f.source);
    assert!(
        r.text.contains(&format!("\n1 breakpoint(s) carried over from before this launch: {carried} ")),
        "{}",
        r.text
    );
    assert_eq!(r.s["carried_over_breakpoints"], json!([carried]), "{}", r.text);
    // Said once: the next result does not repeat it, and a later launch carries nothing.
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert!(!r.text.contains("carried over"), "{}", r.text);
}

#[test]
fn a_breakpoint_in_a_file_the_program_does_not_use_is_named_never_verified_at_the_end() {
    let f = fixtures();
    let unused = std::path::Path::new(&f.source).with_file_name("unused.c");
    std::fs::write(&unused, "int unused(void) {\n    return 0;\n}\n").expect("write C");
    let unused = unused.to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    let bps = json!([{"path": f.source, "line": 3}, {"path": unused, "line": 2}]);
    let r = a.ok("launch", json!({"program": f.program, "breakpoints": bps, "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(3), "{}", r.text);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    assert!(r.text.contains("1 breakpoint(s) never verified: unused.c:2"), "{}", r.text);
}

/// Builds `name` from `source` in the scratch directory.
fn c_program(name: &str, source: &str) -> String {
    require("lldb-dap-22", "lldb-22");
    // A directory of its own: `scratch` starts each one empty, and other tests build in theirs.
    let dir: PathBuf = scratch(&format!("lldb-truth-{name}"));
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).expect("write C");
    let program = dir.join(name);
    build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&program).arg(&src), "gcc");
    program.to_string_lossy().into_owned()
}

/// lldb-dap reports a SIGSEGV death as `exitCode: 11`, in the words of `exit(11)`: after the
/// SIGSEGV stop the agent resumed, the exit is the signal; a real `exit(11)` stays a code.
#[test]
fn a_program_killed_by_a_signal_is_not_reported_as_an_exit_code() {
    let segv =
        c_program("segv", "#include <stdio.h>\nint main(void) { volatile int *p = 0; puts(\"crash\"); return *p; }\n");
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": segv, "stop_on_entry": false, "wait_ms": 30000}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert!(r.text.contains("SIGSEGV"), "{}", r.text);
    let end = a.ok("continue", json!({"wait_ms": 30000}));
    assert!(end.text.starts_with("s1 killed by signal SIGSEGV (11)"), "{}", end.text);
    assert_eq!(
        (end.s["signal"].clone(), end.s["signal_number"].clone()),
        (json!("SIGSEGV"), json!(11)),
        "{}",
        end.text
    );
    assert!(end.s.get("exit_code").is_none(), "no exit code the program never gave: {}", end.text);

    let exit11 = c_program("exit11", "#include <stdlib.h>\nint main(void) { exit(11); }\n");
    let mut b = Agent::start_plain(|_| {});
    let r = b.ok("launch", json!({"program": exit11, "stop_on_entry": false, "wait_ms": 30000}));
    assert_eq!(r.s["exit_code"], json!(11), "{}", r.text);
    assert!(r.s.get("signal").is_none() && r.text.starts_with("s1 exited with code 11"), "{}", r.text);
}

/// A thread started since the last stop, stopped at a breakpoint: lldb-dap 22 may answer the
/// first `threads` without it (a fresh user saw `threads (1)` while stopped on the second
/// thread); `threads` lists both, the stop's thread as the focus.
const THREADS_SOURCE: &str = r#"#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
int compute(int v) {
    int w = v * 3;
    return w;
}
void *runner(void *arg) {
    printf("r %d\n", compute(*(int *)arg));
    return NULL;
}
int main(void) {
    pthread_t t;
    int id = 7;
    pthread_create(&t, NULL, runner, &id);
    usleep(200000);
    pthread_join(t, NULL);
    return 0;
}
"#;

#[test]
fn threads_lists_the_thread_a_stop_named_though_it_started_since_the_last_stop() {
    require("lldb-dap-22", "lldb-22");
    let dir: PathBuf = scratch("lldb-threads");
    let source = dir.join("thr.c");
    std::fs::write(&source, THREADS_SOURCE).expect("write C");
    let program = dir.join("thr");
    build(Command::new("gcc").args(["-g", "-O0", "-pthread", "-o"]).arg(&program).arg(&source), "gcc");
    let path = source.to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    let bps = json!([{"path": path, "line": 15}, {"path": path, "line": 5}]);
    let r = a.ok("launch", json!({"program": program.to_string_lossy(), "breakpoints": bps, "wait_ms": 30000}));
    let main = r.s["stop"]["thread"].clone();
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("compute"), "{}", r.text);
    let runner = r.s["stop"]["thread"].clone();
    assert_ne!(runner, main, "{}", r.text);
    let t = a.ok("threads", json!({}));
    let ids: Vec<_> = t.s["threads"].as_array().expect("threads").iter().map(|t| t["id"].clone()).collect();
    assert!(ids.contains(&main) && ids.contains(&runner), "{}", t.text);
    assert!(t.text.contains(&format!("{runner} thr (focus)")), "{}", t.text);
    a.ok("disconnect", json!({}));
}

/// A program that prompts and reads stdin under lldb-dap's default console blocks, and nothing
/// can answer it: the running result says how to give it input (a fresh user's `fgets` hang).
#[test]
fn a_prompt_under_the_default_console_says_how_to_give_input() {
    require("lldb-dap-22", "lldb-22");
    let dir: PathBuf = scratch("lldb-prompt");
    let source = dir.join("ask.c");
    std::fs::write(&source, "#include <stdio.h>\nint main(void) {\n    char name[32];\n    printf(\"name? \");\n    if (!fgets(name, sizeof name, stdin)) return 1;\n    printf(\"hi %s\", name);\n    return 0;\n}\n").expect("write C");
    let program = dir.join("ask");
    build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&program).arg(&source), "gcc");
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": program.to_string_lossy(), "stop_on_entry": false, "wait_ms": 1500}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    assert!(r.text.contains("name? "), "{}", r.text);
    assert!(
        r.text.contains("note: the output ends in an unfinished line; if the program waits for input, nothing can give it here: launch with `console: \"terminal\"`"),
        "{}",
        r.text
    );
    a.ok("disconnect", json!({}));
}

/// breaker3: an argument or environment value holding a NUL byte cannot reach a C program
/// (argv and environ are C strings); the debugpy recipe and the `console: terminal` path refuse
/// it, but lldb-dap is sent it and cuts it at the NUL: `args: ["a\u0000b"]` ran the program
/// with `a`, `env: {"X": "x\u0000y"}` with `X=x`, and the launch said nothing. The agent's input
/// must be refused, not silently changed.
#[test]
fn an_argument_or_env_value_with_a_nul_byte_is_refused_not_cut() {
    let prog = c_program(
        "argv_nul",
        "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n    for (int i = 1; i < argc; i++) printf(\"arg=<%s>\\n\", argv[i]);\n    printf(\"X=<%s>\\n\", getenv(\"X\") ? getenv(\"X\") : \"-\");\n    return 0;\n}\n",
    );
    let mut a = Agent::start_plain(|_| {});
    for args in [
        json!({"program": prog, "args": ["a\u{0}b"], "stop_on_entry": false, "wait_ms": 30000}),
        json!({"program": prog, "env": {"X": "x\u{0}y"}, "stop_on_entry": false, "wait_ms": 30000}),
    ] {
        let r = a.call("launch", args.clone());
        assert!(r.is_error, "{args}: the program ran with its input cut at the NUL: {}", r.text);
    }
}

/// breaker3: lldb-dap's crash report is recognised by its text (`Stack dump:`, `PLEASE submit a
/// bug report`) on the adapter's stderr, where the program's own stderr also arrives: a program
/// that prints `Stack dump:` (a C++ program's own diagnostics, a test harness) makes agentdap say
/// `lldb crashed (Stack dump:)`, and everything after it is dropped, the program's stdout
/// included, though neither lldb nor the program crashed and the program exits 0.
#[test]
fn a_programs_own_stack_dump_line_is_not_taken_for_lldbs_crash() {
    let prog = c_program(
        "stack_dump",
        "#include <stdio.h>\nint main(void) {\n    fprintf(stderr, \"Stack dump:\\n\"); fflush(stderr);\n    printf(\"still running\\n\"); fflush(stdout);\n    return 0;\n}\n",
    );
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": prog, "stop_on_entry": false, "wait_ms": 30000}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert!(!out.text.contains("crashed"), "nothing crashed: {}", out.text);
    // lldb-dap's default console runs the program on a terminal: its stderr comes as `stdout`.
    let mut printed = agent::lines_of(&out, "stdout");
    printed.extend(agent::lines_of(&out, "stderr"));
    assert!(printed.iter().any(|l| l == "still running"), "{}", out.text);
    assert!(printed.iter().any(|l| l == "Stack dump:"), "{}", out.text);
}

/// breaker2: the NUL-byte refusal above looks at `program`, `args`, `cwd` and `env`, but the
/// same values given through `adapter_args` (which override the recipe's launch arguments,
/// passed through untouched) reach lldb-dap, which cuts them at the NUL: `adapter_args: {args:
/// ["a\u0000b"]}` runs the program with `a` and the launch says nothing.
#[test]
fn an_adapter_args_value_with_a_nul_byte_is_refused_not_cut() {
    let prog = c_program(
        "argv_nul_adapter_args",
        "#include <stdio.h>\nint main(int argc, char **argv) {\n    for (int i = 1; i < argc; i++) printf(\"arg=<%s>\\n\", argv[i]);\n    return 0;\n}\n",
    );
    let mut a = Agent::start_plain(|_| {});
    let args =
        json!({"program": prog, "adapter_args": {"args": ["a\u{0}b"]}, "stop_on_entry": false, "wait_ms": 30000});
    let r = a.call("launch", args.clone());
    if !r.is_error {
        let out = a.ok("output", json!({}));
        panic!("{args}: the program ran with its input cut at the NUL: {}\n{}", r.text, out.text);
    }
}
