//! `console: terminal` (DAP § Reverse Requests › RunInTerminal): agentdap runs the program itself through the adapter's
//! `runInTerminal` (debugpy's launcher, lldb-dap's `--launch-target`), owning its stdin
//! (`send_input`), under the `--host-requests` policy (allow, deny, ask with
//! `resolve_host_request`); the `dap_request` escape hatch; and no process left behind after
//! `disconnect` or SIGKILL of agentdap. Real debugpy and lldb-dap-22; fails when one is missing.
//!
//! The program's own stdout and stderr never reach agentdap's stdout: every reply here is read
//! as a JSON line, which a stray line would break.

use crate::agent;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use agent::{alive, assert_all_gone, build, fixture, is_watchdog, require, scratch, sent_commands, Agent, HYGIENE};
use agentdap::os::spawn::{self, Pid};
use serde_json::{json, Value};

/// Reads lines until end of input, echoing each; says on stderr how many bytes it read.
const C_SOURCE: &str = r#"#include <stdio.h>
#include <string.h>
int main(void) {
    char buf[256];
    int total = 0;
    printf("ready\n");
    fflush(stdout);
    while (fgets(buf, sizeof buf, stdin)) {
        total += strlen(buf);
        printf("got %s", buf);
    }
    fprintf(stderr, "eof after %d bytes\n", total);
    return 3;
}
"#;

/// The C program, built once per test binary.
fn c_program() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        require("lldb-dap-22", "lldb-22");
        let dir = scratch("terminal");
        std::fs::write(dir.join("echo.c"), C_SOURCE).expect("write C");
        let exe = dir.join("echo");
        build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&exe).arg(dir.join("echo.c")), "gcc");
        exe
    })
}

/// Every output entry of the session, as one text.
fn all_output(a: &mut Agent, category: &str) -> String {
    let r = a.ok("output", json!({"category": category}));
    agent::lines_of(&r, category).join("\n")
}

/// agentdap's descendants but its watchdog.
fn session_processes(a: &Agent) -> Vec<Pid> {
    a.descendants().into_iter().filter(|&p| !is_watchdog(p)).collect()
}

/// The process agentdap started for `runInTerminal`: a direct child of agentdap, not an adapter,
/// leading its own process group.
fn terminal_process(a: &Agent, cmdline_part: &str) -> Pid {
    let mut found = None;
    assert!(
        agent::eventually(Duration::from_secs(10), || {
            found = a.descendants().into_iter().find(|&p| {
                let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                let st = spawn::proc_stat(p).ok();
                String::from_utf8_lossy(&cmd).contains(cmdline_part) && st.is_some_and(|s| s.ppid == a.d.pid())
            });
            found.is_some()
        }),
        "no child of agentdap runs {cmdline_part}: {:?}",
        a.descendants()
    );
    let pid = found.unwrap_or(0);
    let st = spawn::proc_stat(pid).expect("stat");
    assert_eq!(st.pgid, pid, "the terminal process leads its own process group");
    pid
}

#[test]
fn debugpy_program_reads_what_send_input_writes() {
    let mut a = Agent::start();
    let program = fixture("py/greet.py");
    let r = a.ok("launch", json!({"program": program, "console": "terminal", "stop_on_entry": false, "wait_ms": 1500}));
    // Blocked in input(): still running (or still starting on a slow machine).
    assert!(["running", "starting"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    let launcher = terminal_process(&a, "debugpy/launcher");
    let log = a.dap_log("s1");
    let rit: Vec<&Value> = log
        .iter()
        .filter(|e| e["message"]["command"] == json!("runInTerminal") && e["message"]["type"] == json!("response"))
        .collect();
    assert_eq!(rit.len(), 1, "one runInTerminal answered");
    assert_eq!(rit[0]["message"]["success"], json!(true));
    assert_eq!(rit[0]["message"]["body"]["processId"], json!(launcher));
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch") && e["dir"] == json!("to_adapter"));
    let args = &launch.expect("launch sent")["message"]["arguments"];
    assert_eq!((args["console"].clone(), args["redirectOutput"].clone()), (json!("integratedTerminal"), json!(false)));

    let r = a.ok("send_input", json!({"text": "world\n"}));
    assert_eq!(r.s["bytes"], json!(6), "{}", r.text);
    let r = a.ok("wait", json!({"for": "exit", "wait_ms": 20000}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    // The output of the program comes before the exit it caused.
    assert!(r.text.contains("hello world"), "{}", r.text);
    let stdout = all_output(&mut a, "stdout");
    assert!(stdout.contains("name? ") && stdout.contains("hello world"), "{stdout}");
    let r = a.call("send_input", json!({"text": "again\n"}));
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
}

#[test]
fn eof_closes_the_programs_stdin() {
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"program": fixture("py/count_stdin.py"), "console": "terminal"}));
    assert_eq!(r.s["state"], json!("stopped"), "stop on entry: {}", r.text);
    // Before the program reads: queued, then written whole, then stdin closed.
    a.ok("send_input", json!({"text": "abc\n"}));
    let r = a.ok("send_input", json!({"text": "é", "eof": true}));
    assert_eq!(r.s["eof"], json!(true));
    let r = a.call("send_input", json!({"text": "late"}));
    assert!(r.is_error && r.text.contains("eof"), "{}", r.text);
    let r = a.ok("continue", json!({"wait_ms": 20000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    // sys.stdin.read() returned at end of input: 4 + 1 characters.
    assert!(r.text.contains("read 5"), "{}", r.text);
}

#[test]
fn send_input_needs_console_terminal() {
    let mut a = Agent::start();
    let program = fixture("py/app.py");
    a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 2}]}));
    let r = a.call("send_input", json!({"text": "x\n"}));
    assert_eq!(r.code(), "unsupported", "{}", r.text);
    assert!(r.text.contains("console `terminal`"), "{}", r.text);
    let r = a.call("launch", json!({"program": program, "console": "tty"}));
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
}

/// lldb-dap running echo.c in a terminal, stopped at line 8; and the source's path.
fn lldb_terminal_at_line_8() -> (Agent, String) {
    let exe = c_program().to_string_lossy().into_owned();
    let source = c_program().with_file_name("echo.c").to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    let r =
        a.ok("launch", json!({"program": exe, "console": "terminal", "breakpoints": [{"path": source, "line": 8}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(8), "{}", r.text);
    (a, source)
}

#[test]
fn lldb_runs_a_c_program_in_a_terminal() {
    let (mut a, source) = lldb_terminal_at_line_8();
    // lldb-dap ran its launcher through agentdap, which exec'd the program: agentdap's child.
    let pid = terminal_process(&a, "echo");
    assert_eq!(a.session("s1")["pid"], json!(pid), "the debuggee is the process agentdap started");
    assert!(all_output(&mut a, "stdout").contains("ready"));
    a.ok("send_input", json!({"text": "one\ntwo\n", "eof": true}));
    a.ok("set_breakpoints", json!({"path": source, "breakpoints": []}));
    let r = a.ok("continue", json!({"wait_ms": 20000}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(3)), "{}", r.text);
    // A pseudo-terminal: stdout and stderr are one stream, in the order written, with `\n` line
    // ends; the end of input was the terminal's, after the last line.
    let stdout = all_output(&mut a, "stdout");
    assert!(stdout.ends_with("got one\ngot two\neof after 8 bytes") && !stdout.contains('\r'), "{stdout}");
    assert_eq!(all_output(&mut a, "stderr"), "");
    let log = a.dap_log("s1");
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch") && e["dir"] == json!("to_adapter"));
    assert_eq!(launch.expect("launch sent")["message"]["arguments"]["runInTerminal"], json!(true));
    a.ok("disconnect", json!({}));
    assert_all_gone(&[pid], HYGIENE, "the program after disconnect");
}

#[test]
fn deny_policy_fails_the_launch_and_leaves_nothing() {
    let mut a = Agent::start_with(|cmd| {
        cmd.env("AGENTDAP_HOST_REQUESTS", "deny");
    });
    let r = a.call("launch", json!({"program": fixture("py/greet.py"), "console": "terminal"}));
    assert_eq!(r.code(), "unsupported", "{}", r.text);
    assert!(r.text.contains("`deny`") && r.text.contains("--host-requests allow"), "{}", r.text);
    let log = a.dap_log("s1");
    let answer =
        log.iter().find(|e| e["message"]["command"] == json!("runInTerminal") && e["dir"] == json!("to_adapter"));
    assert_eq!(answer.expect("runInTerminal answered")["message"]["success"], json!(false));
    // No launcher was started, and the adapter is gone.
    assert!(agent::eventually(HYGIENE, || session_processes(&a).is_empty()), "left: {:?}", session_processes(&a));
    // Internal console still works under deny.
    let program = fixture("py/app.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 2}]}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
}

#[test]
fn ask_policy_holds_the_request_until_resolved() {
    let mut a = Agent::start_with(|cmd| {
        cmd.args(["--host-requests", "ask"]);
    });
    let program = fixture("py/greet.py");
    let r = a.call("launch", json!({"program": program, "console": "terminal"}));
    assert_eq!(r.code(), "host_request_pending", "{}", r.text);
    assert_eq!(r.s["error"]["host_requests"][0]["id"], json!("h1"), "{}", r.s);
    assert!(r.text.contains("resolve_host_request") && r.text.contains("debugpy/launcher"), "{}", r.text);
    // Other tools keep working and show the request.
    let listed = a.ok("sessions", json!({}));
    assert!(listed.text.contains("host request h1 pending"), "{}", listed.text);
    assert_eq!(listed.s["sessions"][0]["host_requests"][0]["command"], json!("runInTerminal"));
    let r = a.call("wait", json!({}));
    assert_eq!(r.code(), "host_request_pending", "{}", r.text);
    let r = a.call("resolve_host_request", json!({"id": "h7", "decision": "allow"}));
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
    assert!(r.text.contains("h1 (s1)"), "{}", r.text);
    // debugpy's launcher is started as `<python> <…>/debugpy/launcher <port> -- …`: no process
    // has that argument before the decision (the adapter's own command line may name it in text).
    let runs_launcher = |p: &i32| {
        let cmdline = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
        cmdline.split(|b| *b == 0).any(|arg| arg.ends_with(b"debugpy/launcher") || arg.ends_with(b"debugpy/launcher/"))
    };
    assert!(!a.descendants().iter().any(runs_launcher), "nothing runs before the decision");
    let r = a.ok("resolve_host_request", json!({"id": "h1", "decision": "allow"}));
    assert_eq!(r.s["state"], json!("stopped"), "waits like launch: {}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(1), "{}", r.text);
    a.ok("send_input", json!({"text": "ask\n"}));
    let r = a.ok("continue", json!({"wait_ms": 20000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    assert!(r.text.contains("hello ask"), "{}", r.text);

    // A denied request ends a session that cannot start without it.
    let r = a.call("launch", json!({"program": program, "console": "terminal"}));
    assert_eq!(r.s["error"]["host_requests"][0]["id"], json!("h2"), "{}", r.s);
    let r = a.ok("resolve_host_request", json!({"session": "s2", "id": "h2", "decision": "deny"}));
    assert!(r.text.starts_with("h2 denied."), "{}", r.text);
    assert_eq!(r.s["state"], json!("terminated"), "{}", r.text);
    assert!(a.ok("sessions", json!({})).s["sessions"][1].get("host_requests").is_none());
}

#[test]
fn dap_request_sends_what_agentdap_does_not_track_and_refuses_the_rest() {
    let mut a = Agent::start();
    let program = fixture("py/app.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 2}]}));
    let revision = r.s["revision"].clone();
    let r = a.ok("dap_request", json!({"command": "threads"}));
    let threads = r.s["body"]["threads"].as_array().cloned().unwrap_or_default();
    assert!(threads.iter().any(|t| t["name"] == json!("MainThread")), "{}", r.text);
    assert!(r.text.starts_with("`threads` answered: {\"threads\":"), "{}", r.text);
    let r = a.ok("dap_request", json!({"command": "evaluate", "arguments": {"expression": "6*7", "context": "repl"}}));
    assert_eq!(r.s["body"]["result"], json!("42"), "{}", r.text);
    for (command, tool) in
        [("continue", "`continue` tool"), ("stepIn", "`step` tool"), ("disconnect", "`disconnect` tool")]
    {
        let r = a.call("dap_request", json!({"command": command}));
        assert_eq!(r.code(), "invalid_argument", "{}", r.text);
        assert!(r.text.contains(tool), "{command}: {}", r.text);
    }
    let r = a.call("dap_request", json!({"command": "noSuchRequest"}));
    assert_eq!(r.code(), "adapter_error", "{}", r.text);
    // Nothing resumed: the same stop, and the refused commands never reached the adapter.
    let state = a.ok("sessions", json!({})).s["sessions"][0].clone();
    assert_eq!((state["state"].clone(), state["revision"].clone()), (json!("stopped"), revision));
    let sent = sent_commands(&a.dap_log("s1"));
    assert!(!sent.iter().any(|c| c == "continue" || c == "stepIn"), "{sent:?}");
}

/// The debuggee under debugpy's launcher is agentdap's grandchild, outside the adapter's tree:
/// `disconnect` ends it, and so does the watchdog when agentdap is SIGKILLed.
#[test]
fn terminal_processes_die_with_the_session_and_with_agentdap() {
    for kill_agentdap in [false, true] {
        let mut a = Agent::start();
        let r = a.ok(
            "launch",
            json!({"program": fixture("py/greet.py"), "console": "terminal", "stop_on_entry": false, "wait_ms": 1500}),
        );
        assert!(!r.is_error, "{}", r.text);
        let launcher = terminal_process(&a, "debugpy/launcher");
        let mut debuggee = None;
        assert!(
            agent::eventually(Duration::from_secs(10), || {
                debuggee = a.session("s1")["pid"].as_i64().map(|p| p as Pid);
                debuggee.is_some()
            }),
            "no debuggee pid"
        );
        let debuggee = debuggee.unwrap_or(0);
        assert_eq!(spawn::proc_stat(debuggee).map(|s| s.ppid).ok(), Some(launcher), "the launcher runs the program");
        let tree = session_processes(&a);
        assert!(alive(debuggee) && tree.contains(&debuggee), "{tree:?}");
        if kill_agentdap {
            a.d.signal(libc::SIGKILL);
            assert!(a.d.wait_exit(Duration::from_secs(4)).is_some(), "agentdap survived SIGKILL");
        } else {
            a.ok("disconnect", json!({}));
        }
        assert_all_gone(
            &[debuggee, launcher],
            HYGIENE,
            if kill_agentdap { "after SIGKILL" } else { "after disconnect" },
        );
        assert_all_gone(&tree, HYGIENE, "the whole tree");
    }
}

/// lldb-dap's program runs under agentdap (not lldb-server): SIGKILL of agentdap takes it, the
/// adapter and lldb-server along (PR_SET_PDEATHSIG, the watchdog).
#[test]
fn lldb_terminal_program_dies_with_agentdap() {
    let exe = c_program().to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": exe, "console": "terminal"}));
    assert_eq!(r.s["state"], json!("stopped"), "stop on entry at main: {}", r.text);
    let pid = terminal_process(&a, "echo");
    let tree = session_processes(&a);
    assert!(tree.len() >= 3, "lldb-dap, lldb-server and the program: {tree:?}");
    a.d.signal(libc::SIGKILL);
    assert!(a.d.wait_exit(Duration::from_secs(4)).is_some(), "agentdap survived SIGKILL");
    assert_all_gone(&[pid], HYGIENE, "the program after SIGKILL of agentdap");
    assert_all_gone(&tree, HYGIENE, "after SIGKILL of agentdap");
}

/// A prompt without a newline is output: `wait {for: output}` answers when it appears, and the
/// text reads exactly as printed (no newline added).
#[test]
fn a_prompt_wakes_a_wait_for_output_and_reads_as_printed() {
    let mut a = Agent::start();
    let program = fixture("py/greet.py");
    let r = a.ok("launch", json!({"program": program, "console": "terminal", "stop_on_entry": false, "wait_ms": 200}));
    assert!(["running", "starting"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    if r.s["state"] == json!("running") {
        assert!(r.text.contains("give it with `send_input`"), "{}", r.text);
    }
    let mut seen = r.text.clone();
    if !seen.contains("name? ") {
        let w = a.ok("wait", json!({"for": "output", "wait_ms": 20000}));
        assert_eq!(w.s["satisfied"], json!(true), "the prompt is output: {}", w.text);
        seen = w.s["output"]["text"].as_str().unwrap_or_default().to_owned();
    }
    assert!(seen.contains("name? ") && !seen.contains("name? \n"), "{seen:?}");
    a.ok("send_input", json!({"text": "world\n"}));
    let r = a.ok("wait", json!({"for": "exit", "wait_ms": 20000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let out = a.ok("output", json!({"category": "stdout"}));
    let stdout: String = out.s["entries"]
        .as_array()
        .map(|es| es.iter().filter_map(|e| e["text"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(stdout.replace("\r\n", "\n"), "name? hello world\n", "the entries concatenate into what was printed");
}

/// A relaunching `restart` of a `console: terminal` session runs the program in a terminal
/// again (the new adapter connection answers `runInTerminal` like the first).
#[test]
fn restart_of_a_terminal_session_runs_the_program_in_a_terminal_again() {
    let mut a = Agent::start();
    let program = fixture("py/greet.py");
    a.ok("launch", json!({"program": program, "console": "terminal", "stop_on_entry": false, "wait_ms": 200}));
    a.ok("send_input", json!({"text": "first\n"}));
    let r = a.ok("wait", json!({"for": "exit", "wait_ms": 8000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let r = a.ok("restart", json!({"wait_ms": 1500}));
    assert!(["running", "starting"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    a.ok("send_input", json!({"text": "second\n"}));
    let r = a.ok("wait", json!({"for": "exit", "wait_ms": 8000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let stdout = all_output(&mut a, "stdout");
    assert!(stdout.contains("hello first") && stdout.contains("hello second"), "{stdout}");
}

/// A program lldb-dap had agentdap run in a terminal goes with the adapter when the adapter dies
/// (killed, crashed): it cannot be debugged any more and must not run on unseen.
#[test]
fn a_terminal_program_goes_with_a_killed_adapter() {
    let (mut a, source) = lldb_terminal_at_line_8();
    let program = terminal_process(&a, "echo");
    // Running (blocked reading its stdin), not stopped under the debugger.
    a.ok("set_breakpoints", json!({"path": source, "breakpoints": []}));
    let r = a.ok("continue", json!({"wait_ms": 300}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    let adapter = a
        .descendants()
        .into_iter()
        .find(|&p| {
            let st = spawn::proc_stat(p).ok();
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            st.is_some_and(|s| s.ppid == a.d.pid()) && String::from_utf8_lossy(&cmd).contains("lldb-dap")
        })
        .expect("lldb-dap below agentdap");
    // SAFETY: kill with a pid and a signal number has no memory-safety preconditions.
    unsafe { libc::kill(adapter, libc::SIGKILL) };
    agent::assert_all_gone(&[program], Duration::from_secs(6), "the terminal program after its adapter died");
    let s = a.session("s1");
    assert_eq!(s["state"], json!("terminated"), "{s}");
}

/// Output of a terminal program, polled with `output` until it holds `expected` or the program
/// ended.
fn output_until(a: &mut Agent, expected: &str) -> String {
    let mut text = String::new();
    agent::eventually(Duration::from_secs(20), || {
        text = all_output(a, "stdout");
        text.contains(expected)
            || !["running", "starting"].contains(&a.session("s1")["state"].as_str().unwrap_or_default())
    });
    text
}

/// `console: terminal` gives the program a pseudo-terminal, as an IDE's terminal does: it sees a
/// terminal on stdin, stdout and stderr, so Python line-buffers `print` (no `-u`), and a line
/// printed after the answer to a prompt shows while the program still runs; `send_input` is
/// what it reads, never echoed back as output; `eof` is the terminal's end of input.
#[test]
fn a_terminal_program_sees_a_terminal_and_its_lines_show_as_printed() {
    let mut a = Agent::start();
    let program = fixture("py/tty_prompt.py");
    let r = a.ok("launch", json!({"program": program, "console": "terminal", "stop_on_entry": false, "wait_ms": 200}));
    assert!(["running", "starting"].contains(&r.s["state"].as_str().unwrap_or_default()), "{}", r.text);
    let text = output_until(&mut a, "answer? ");
    assert_eq!(text, "tty: True True True\nanswer? ", "{text:?}");
    a.ok("send_input", json!({"text": "42\n"}));
    // The program now blocks in `readline()`, which flushes nothing: the line shows only
    // because stdout is a terminal.
    let text = output_until(&mut a, "got 42");
    assert!(text.ends_with("answer? got 42"), "not echoed, shown while it runs: {text:?}");
    assert_eq!(a.session("s1")["state"], json!("running"), "{text:?}");
    let r = a.ok("send_input", json!({"text": "last", "eof": true}));
    assert_eq!(r.s["eof"], json!(true), "{}", r.text);
    let r = a.ok("wait", json!({"for": "exit", "wait_ms": 20000}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let text = all_output(&mut a, "stdout");
    assert!(text.ends_with("got 42\nline 'last'"), "the end of input after an open line: {text:?}");
}
