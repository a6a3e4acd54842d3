//! A Ruby program under rdbg (debug 1.4.0) through the built binary: `prog.rb` stopped in a
//! method after a step in (locals, `evaluate`), steps out and over, its output exact per stream,
//! its exit code (`exit 3`), stop on entry, and no `ruby` process left after the run or after
//! SIGKILL of agentdap.

use std::time::Duration;

use crate::agent::{self, lines_of, var_value};
use serde_json::json;

use crate::ruby_util::{stop_at, Ruby, EXIT, GONE, START};

/// `prog.rb`: `add(a, b)` is lines 2–5 (line 3 `s = a + b`, line 5 its `end`); `main` (7–16)
/// calls it on line 9, prints `out 3` on stdout, `err 3` on stderr (`warn`), `out2` on stdout,
/// flushing after each, and ends with `exit 3`; line 18 calls `main`.
const PROGRAM: &str = "prog.rb";

#[test]
fn a_method_stops_with_its_locals_then_steps_output_and_exit_code() {
    let mut n = Ruby::start("launch");
    let p = n.copy(PROGRAM);
    // No `adapter`: a `.rb` program goes to rdbg.
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 9}], "wait_ms": START}));
    assert_eq!((r.s["session"].clone(), r.s["state"].clone()), (json!("s1"), json!("stopped")), "{}", r.text);
    assert_eq!(
        (r.s["adapter"].clone(), r.s["stop"]["reason"].clone()),
        (json!("rdbg"), json!("breakpoint")),
        "{}",
        r.s
    );
    assert_eq!(stop_at(&r.s), (json!(p), json!(9), json!("Object#main")), "{}", r.text);

    let r = n.a.ok("step", json!({"kind": "in"}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(3), json!("Object#add")), "step in: {}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("step"), "{}", r.text);
    let c = n.a.ok("context", json!({}));
    let locals = &c.s["locals"]["variables"];
    assert_eq!((var_value(locals, "a"), var_value(locals, "b")), ("1".into(), "2".into()), "{}", c.text);
    assert_eq!(var_value(locals, "s"), "nil", "{}", c.text);
    assert!(c.text.contains("→    3    s = a + b"), "{}", c.text);
    let frames: Vec<_> = c.s["frames"].as_array().into_iter().flatten().map(|f| f["function"].clone()).collect();
    assert_eq!(frames, [json!("Object#add"), json!("Object#main"), json!("<main>")], "{}", c.text);
    let e = n.a.ok("evaluate", json!({"expression": "a + b * 10"}));
    assert_eq!((e.s["value"].clone(), e.s["type"].clone()), (json!("21"), json!("Integer")), "{}", e.text);
    // An error is the exception, as rdbg shows it.
    let e = n.a.call("evaluate", json!({"expression": "nosuch"}));
    assert!(e.text.contains("NameError"), "{}", e.text);

    // 1.4.0's step out stops at the method's `end` (its return) first; the next step is back in
    // the caller, on the line after the call.
    let r = n.a.ok("step", json!({"kind": "out"}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(5), json!("Object#add")), "step out: {}", r.text);
    let r = n.a.ok("step", json!({}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(10), json!("Object#main")), "step over: {}", r.text);

    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(3)), "{}", r.text);
    assert!(r.text.starts_with("s1 exited with code 3"), "{}", r.text);
    let out = n.a.ok("output", json!({}));
    assert_eq!(lines_of(&out, "stdout"), ["out 3", "out2"], "{}", out.text);
    // rdbg's own `DEBUGGER: ` lines on the same stderr are the adapter's, not the program's.
    assert_eq!(lines_of(&out, "stderr"), ["err 3"], "{}", out.text);
    assert!(lines_of(&out, "adapter").iter().any(|l| l == "DEBUGGER: Connected."), "{}", out.text);
    // Two pipes keep no order between them: each stream is in order, not one against the other
    // (agentdap may read stderr's bytes before stdout's that were written first).
    n.finish();
}

/// No breakpoints: the launch stops on entry. rdbg 1.4.0 ignores `stopOnEntry`; agentdap sends
/// `attach`, whose stop is a `pause` at the script's first line.
#[test]
fn stop_on_entry_stops_before_the_first_line_runs() {
    let mut n = Ruby::start("entry");
    let p = n.copy(PROGRAM);
    let r = n.a.ok("launch", json!({"program": p, "wait_ms": START}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("pause"), "{}", r.text);
    let (path, line, function) = stop_at(&r.s);
    assert_eq!((path, function), (json!(p), json!("<main>")), "{}", r.text);
    assert!(line.as_i64().is_some_and(|l| l <= 2), "the first line: {}", r.text);
    let out = n.a.ok("output", json!({}));
    assert!(lines_of(&out, "stdout").is_empty(), "nothing ran yet: {}", out.text);
    let log = n.a.dap_log("s1");
    assert!(agent::sent_commands(&log).iter().any(|c| c == "attach"), "{log:?}");
    let b = n.a.ok("set_breakpoints", json!({"path": p, "breakpoints": [{"line": 3}]}));
    assert_eq!(b.s["breakpoints"][0]["verified"], json!(true), "{}", b.text);
    let r = n.a.ok("continue", json!({}));
    assert_eq!(stop_at(&r.s), (json!(p), json!(3), json!("Object#add")), "{}", r.text);
    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!(r.s["exit_code"], json!(3), "{}", r.text);
    n.finish();
}

/// SIGKILL of agentdap while the program is stopped: the program (rdbg's own process) dies with
/// it (PDEATHSIG, the watchdog).
#[test]
fn sigkill_of_agentdap_leaves_no_ruby_process() {
    let mut n = Ruby::start("sigkill");
    let p = n.copy(PROGRAM);
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 3}], "wait_ms": START}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert!(!n.leftovers(&[]).is_empty(), "the program runs while stopped");
    n.a.d.signal(libc::SIGKILL);
    assert!(n.a.d.wait_exit(EXIT).is_some(), "agentdap survived SIGKILL");
    n.assert_no_leftovers(&[], GONE, "after SIGKILL of agentdap");
}

/// `disconnect {graceful}` ends the program through DAP `terminate` (rdbg 1.4.0 advertises
/// `supportsTerminateRequest`): no `ruby` left.
#[test]
fn terminate_ends_the_program() {
    let mut n = Ruby::start("terminate");
    let p = n.copy(PROGRAM);
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 3}], "wait_ms": START}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let r = n.a.call("disconnect", json!({"graceful": true}));
    assert!(r.s["state"] != json!("stopped"), "{}", r.text);
    assert!(!r.text.contains("not graceful"), "{}", r.text);
    n.assert_no_leftovers(&[], GONE, "after terminate");
    n.finish();
}

/// rdbg's process is the program, so its stdin is the adapter's pipe: `send_input` feeds it
/// (`HostState::stdin_is_adapters`), and `eof` ends its input.
#[test]
fn send_input_feeds_the_programs_stdin_and_eof_ends_it() {
    let mut n = Ruby::start("stdin");
    let p = n.copy("ask.rb");
    // It waits in `gets`: the launch answers `running` once its wait is over.
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 3}], "wait_ms": 1500}));
    let running = agent::eventually(Duration::from_millis(START), || n.a.session("s1")["state"] == json!("running"));
    assert!(running, "waits in gets: {}", r.text);
    let sent = n.a.ok("send_input", json!({"text": "Ada\n"}));
    assert!(!sent.text.contains("not started"), "{}", sent.text);
    let r = n.a.ok("wait", json!({"for": "stop", "wait_ms": START}));
    assert_eq!(stop_at(&r.s).1, json!(3), "{}", r.text);
    let e = n.a.ok("evaluate", json!({"expression": "name"}));
    assert_eq!(e.s["value"], json!("\"Ada\""), "{}", e.text);
    // debug 1.4.0 cannot remove a breakpoint: the empty set says so, and line 3 stops again.
    let b = n.a.ok("set_breakpoints", json!({"path": p, "breakpoints": []}));
    assert!(b.text.contains("never removes or changes a breakpoint it was given"), "{}", b.text);
    assert!(b.text.contains("at ask.rb line 3 it still stops"), "{}", b.text);
    let list = n.a.ok("breakpoints", json!({}));
    assert!(
        list.text.contains("ask.rb:3 still set in rdbg (it never removes a breakpoint it was given)"),
        "{}",
        list.text
    );
    assert_eq!(list.s["kept_by_adapter"][0]["line"], json!(3), "{}", list.s);
    n.a.ok("send_input", json!({"text": "Grace\nand more", "eof": true}));
    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!(stop_at(&r.s).1, json!(3), "{}", r.text);
    let e = n.a.ok("evaluate", json!({"expression": "name"}));
    assert_eq!(e.s["value"], json!("\"Grace\""), "{}", e.text);
    let r = n.a.call("run_to", json!({"path": p, "line": 11}));
    assert!(r.is_error && r.text.contains("run_to's temporary one would keep stopping"), "{}", r.text);
    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let out = n.a.ok("output", json!({}));
    assert_eq!(lines_of(&out, "stdout"), ["hello Ada", "hello Grace", "rest=8"], "{}", out.text);
    n.finish();
}

/// A `pause` lands in `[C] Kernel#sleep`, a frame rdbg 1.4.0 cannot evaluate in: it answers the
/// string `"Error: Can not evaluate on this frame"`, which agentdap reports as an error with a
/// hint (`RuntimeQuirks::evaluate_refusals`), never as the value of `i`; the Ruby frame below
/// evaluates.
#[test]
fn evaluate_in_a_c_frame_is_an_error_and_the_ruby_frame_answers() {
    let mut n = Ruby::start("cframe");
    let p = n.copy("sleeper.rb");
    n.a.ok("launch", json!({"program": p, "stop_on_entry": false, "wait_ms": 500}));
    // Ruby may take longer than the launch's wait to start on a loaded machine.
    let running = agent::eventually(Duration::from_millis(START), || n.a.session("s1")["state"] == json!("running"));
    assert!(running, "{}", n.a.session("s1"));
    // The program sleeps nearly all the time, but a pause may land between two sleeps: pause
    // until it lands in `sleep`.
    let mut frames = Vec::new();
    for _ in 0..20 {
        // rdbg 1.4.0 once left a pause unanswered right after the launch (CI under load:
        // no stop within 20 s, "the adapter reported no stop after `pause`"); a second one is sent.
        let mut r = n.a.ok("pause", json!({"wait_ms": START}));
        for _ in 0..2 {
            if r.s["state"] == json!("stopped") {
                break;
            }
            r = n.a.ok("pause", json!({"wait_ms": START}));
        }
        assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
        let stack = n.a.ok("stack_trace", json!({}));
        frames = stack.s["frames"].as_array().cloned().unwrap_or_default();
        if frames.first().and_then(|f| f["function"].as_str()).is_some_and(|f| f.starts_with("[C] ")) {
            break;
        }
        n.a.ok("continue", json!({"wait_ms": 100}));
    }
    assert!(frames[0]["function"].as_str().is_some_and(|f| f.starts_with("[C] ")), "{frames:?}");
    let e = n.a.call("evaluate", json!({"expression": "i"}));
    assert!(e.is_error, "{}", e.text);
    assert!(e.text.contains("could not evaluate `i` in this frame"), "{}", e.text);
    let ruby = frames.iter().find(|f| !f["function"].as_str().unwrap_or("[C]").starts_with("[C]")).cloned();
    let frame = ruby.map(|f| f["frame"].clone()).unwrap_or_default();
    let e = n.a.ok("evaluate", json!({"expression": "i > 0", "frame": frame}));
    assert_eq!(e.s["value"], json!("true"), "{}", e.text);
    n.a.ok("disconnect", json!({}));
    n.finish();
}

/// The lines rdbg 1.4.0 keeps after a set dropped them die with its process: a `restart` runs a
/// new one holding only the current set, so neither its result nor `breakpoints` says they still
/// stop (the re-checker's report), and the program runs past them.
#[test]
fn a_restart_forgets_the_lines_the_old_rdbg_kept() {
    let mut n = Ruby::start("restart");
    let p = n.copy(PROGRAM);
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 3}], "wait_ms": START}));
    assert_eq!(stop_at(&r.s).1, json!(3), "{}", r.text);
    let b = n.a.ok("set_breakpoints", json!({"path": p, "breakpoints": []}));
    assert!(b.text.contains("still stops"), "{}", b.text);
    let r = n.a.ok("restart", json!({"wait_ms": START}));
    assert_eq!(r.s["exit_code"], json!(3), "ran past line 3: {}", r.text);
    assert!(!r.text.contains("still stops"), "{}", r.text);
    let list = n.a.ok("breakpoints", json!({}));
    assert!(!list.text.contains("still set"), "{}", list.text);
    n.finish();
}

/// breaker2: rdbg 1.4.0 moves a breakpoint on a comment forward, to the next line with code
/// (`LineBreakpoint#try_activate`), and names that line in its stop. agentdap credits the stop to
/// the breakpoint whose requested line is nearest either way: a breakpoint on line 2 (comments
/// to line 4) stops at line 5, and the stop is credited to the breakpoint on line 6, listed as
/// moved to line 5; the one that stopped reads never hit.
#[test]
fn a_breakpoint_moved_forward_is_credited_to_itself_not_the_next_one() {
    let mut n = Ruby::start("moved");
    let p = n.dir.join("moved.rb");
    std::fs::write(&p, "x = 1\n# a\n# b\n# c\ny = 2\nz = 3\nputs x + y + z\n").expect("write moved.rb");
    let p = p.to_string_lossy().into_owned();
    let bps = json!([{"path": p, "line": 2}, {"path": p, "line": 6}]);
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": bps, "wait_ms": START}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    assert!(!r.text.contains("moved.rb:6 → line 5"), "line 6's breakpoint did not move: {}", r.text);
    let first = r.s["stop"]["hit_breakpoints"].clone();
    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);
    assert_ne!(first, r.s["stop"]["hit_breakpoints"], "two breakpoints, two stops, one credited twice: {}", r.text);
    n.a.ok("disconnect", json!({}));
    n.finish();
}

/// breaker2: rdbg's stop names the breakpoint's place by the script's real path, and
/// `BreakpointStore::on_stop_at` looks it up under the path the agent gave: a program in a
/// symlinked directory stops at its breakpoint on line 2, and `breakpoints` lists that
/// breakpoint as "never hit" (the stop credits none).
#[test]
fn a_breakpoint_hit_through_a_symlinked_directory_reads_hit() {
    let n = Ruby::start("symlink");
    let real = n.dir.join("real");
    std::fs::create_dir_all(&real).expect("real directory");
    std::fs::write(real.join("s.rb"), "x = 1\ny = 2\nputs x + y\n").expect("write s.rb");
    std::os::unix::fs::symlink(&real, n.dir.join("link")).expect("symlink");
    let p = n.dir.join("link").join("s.rb").to_string_lossy().into_owned();
    stops_at_line_2_and_reads_hit(n, &p);
}

/// breaker2: `place_in_description` ends the place at the first ` (` of rdbg's description
/// (`" BP - Line  <path>:<line> (line)"`), so a path with ` (` in it (a directory `app (copy)`)
/// loses its `:<line>`: the stop at the breakpoint credits none, and it is listed "never hit".
#[test]
fn a_breakpoint_hit_in_a_directory_named_with_a_parenthesis_reads_hit() {
    let n = Ruby::start("paren");
    let dir = n.dir.join("app (copy)");
    std::fs::create_dir_all(&dir).expect("directory");
    let p = dir.join("s.rb");
    std::fs::write(&p, "x = 1\ny = 2\nputs x + y\n").expect("write s.rb");
    let p = p.to_string_lossy().into_owned();
    stops_at_line_2_and_reads_hit(n, &p);
}

/// Launches `p` (a script whose line 2 runs once) with a breakpoint on line 2: the stop is that
/// breakpoint's, and `breakpoints` says it was hit.
fn stops_at_line_2_and_reads_hit(mut n: Ruby, p: &str) {
    let r = n.a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 2}], "wait_ms": START}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(2), "{}", r.text);
    let hits = r.s["stop"]["hit_breakpoints"].as_array().map_or(0, Vec::len);
    assert_eq!(hits, 1, "the stop is the breakpoint's: {}", r.s["stop"]);
    let b = n.a.ok("breakpoints", json!({}));
    assert!(!b.text.contains("never hit"), "it stopped there: {}", b.text);
    n.a.ok("disconnect", json!({}));
    n.finish();
}
