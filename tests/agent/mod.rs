//! An MCP agent for integration tests: drives the built agentdap over pipes with `tools/call` and
//! `resources/read`, reads the DAP log, and checks processes through `/proc` with deadlines.
#![allow(dead_code)] // each test crate uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{venv_python, Agentdap};
use agentdap::os::spawn::{self, Pid};
use agentdap::os::watchdog::WATCHDOG_SUBCOMMAND;

/// How long processes of a session may outlive its end (issue 4: "within 2 s").
pub const HYGIENE: Duration = Duration::from_secs(2);

/// A tool result: its text, its `structuredContent`, and whether it is an error.
#[derive(Debug, Clone)]
pub struct Res {
    pub text: String,
    pub s: Value,
    pub is_error: bool,
}

impl Res {
    /// The error code of an error result (`structuredContent.error.code`).
    pub fn code(&self) -> &str {
        self.s["error"]["code"].as_str().unwrap_or("")
    }
}

/// One agentdap with an initialized MCP connection.
pub struct Agent {
    pub d: Agentdap,
    next_id: i64,
}

impl Agent {
    /// agentdap with `AGENTDAP_PYTHON` set to the test venv (debugpy installed).
    pub fn start() -> Agent {
        Agent::start_with(|_| {})
    }

    pub fn start_with(configure: impl FnOnce(&mut Command)) -> Agent {
        let python = debugpy_python();
        Agent::start_plain(|cmd| {
            cmd.env("AGENTDAP_PYTHON", &python);
            configure(cmd);
        })
    }

    /// agentdap without debugpy requirements (native and Go adapters), no user config.
    pub fn start_plain(configure: impl FnOnce(&mut Command)) -> Agent {
        let mut d = Agentdap::spawn_with(|cmd| {
            // No user config leaks in: the default location points nowhere.
            cmd.env_remove("VIRTUAL_ENV")
                .env_remove("AGENTDAP_CONFIG")
                .env("XDG_CONFIG_HOME", "/nonexistent-agentdap-config");
            configure(cmd);
        });
        d.initialize("2025-11-25");
        Agent { d, next_id: 100 }
    }

    /// Sends a request and returns the response with its id, skipping notifications.
    pub fn rpc(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        // A call that waits for the program (`wait_ms`) is answered within its wait, plus the
        // usual line timeout for everything else (a loaded machine starts node slowly).
        let wait = params["arguments"]["wait_ms"].as_u64().map_or(Duration::ZERO, Duration::from_millis);
        let within = crate::common::LINE_TIMEOUT + wait;
        self.d.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.d.recv_line_within(within);
            let line =
                line.unwrap_or_else(|| panic!("no answer to {method} within {within:?}; stderr:\n{}", self.d.stderr()));
            let msg: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if msg.get("id") == Some(&json!(id)) {
                return msg;
            }
            assert!(msg.get("id").is_none(), "a response to another request: {msg}");
        }
    }

    /// `tools/call`; the result whatever `isError` says.
    pub fn call(&mut self, tool: &str, args: Value) -> Res {
        let msg = self.rpc("tools/call", json!({"name": tool, "arguments": args}));
        let r = &msg["result"];
        assert!(r.is_object(), "{tool}: no result: {msg}");
        Res {
            text: r["content"][0]["text"].as_str().unwrap_or_default().to_owned(),
            s: r["structuredContent"].clone(),
            is_error: r["isError"] == json!(true),
        }
    }

    /// `tools/call` that must succeed.
    pub fn ok(&mut self, tool: &str, args: Value) -> Res {
        let r = self.call(tool, args.clone());
        assert!(!r.is_error, "{tool} {args} failed: {}\nstderr:\n{}", r.text, self.d.stderr());
        r
    }

    /// The text of a resource.
    pub fn resource(&mut self, uri: &str) -> String {
        let msg = self.rpc("resources/read", json!({"uri": uri}));
        msg["result"]["contents"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("resources/read {uri}: {msg}"))
            .to_owned()
    }

    /// The session's DAP log (`agentdap://session/{id}/dap-log`), one value per message.
    pub fn dap_log(&mut self, session: &str) -> Vec<Value> {
        let text = self.resource(&format!("agentdap://session/{session}/dap-log"));
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("dap-log line {l}: {e}"))).collect()
    }

    /// The session's entry in `sessions`.
    pub fn session(&mut self, id: &str) -> Value {
        let r = self.ok("sessions", json!({}));
        r.s["sessions"]
            .as_array()
            .and_then(|l| l.iter().find(|s| s["session"] == json!(id)).cloned())
            .unwrap_or_else(|| panic!("no session {id} in {}", r.s))
    }

    /// Every process below agentdap now (adapters, launchers, debuggees, the watchdog).
    pub fn descendants(&self) -> Vec<Pid> {
        spawn::descendants(self.d.pid(), &[]).iter().map(|p| p.pid).collect()
    }
}

/// The interpreter with debugpy (the test venv); fails with the install command if debugpy is
/// missing.
pub fn debugpy_python() -> PathBuf {
    let python = venv_python();
    let ok = Command::new(&python).args(["-c", "import debugpy"]).status().is_ok_and(|s| s.success());
    assert!(ok, "test dependency missing: debugpy in {} (run scripts/install-test-deps)", python.display());
    python
}

/// The absolute path of a fixture under `tests/fixtures/`.
pub fn fixture(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel);
    assert!(p.exists(), "fixture {} missing", p.display());
    p.to_string_lossy().into_owned()
}

/// Whether `pid` is alive (zombies count as dead: nobody may reap an orphan in a container).
pub fn alive(pid: Pid) -> bool {
    spawn::is_running(pid, None)
}

/// Polls until none of `pids` is alive; fails naming the survivors after `within`.
pub fn assert_all_gone(pids: &[Pid], within: Duration, what: &str) {
    let end = Instant::now() + within;
    loop {
        let left: Vec<Pid> = pids.iter().copied().filter(|&p| alive(p)).collect();
        if left.is_empty() {
            return;
        }
        if Instant::now() >= end {
            let names: Vec<String> = left
                .iter()
                .map(|p| {
                    let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                    format!("{p} {}", String::from_utf8_lossy(&cmd).replace('\0', " "))
                })
                .collect();
            panic!("{what}: still alive after {within:?}: {names:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Polls `cond` every 10 ms until it holds; false after `within`.
pub fn eventually(within: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + within;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The `command`s of the DAP requests agentdap sent, in order.
pub fn sent_commands(log: &[Value]) -> Vec<String> {
    log.iter()
        .filter(|e| e["dir"] == json!("to_adapter") && e["message"]["type"] == json!("request"))
        .filter_map(|e| e["message"]["command"].as_str().map(str::to_owned))
        .collect()
}

/// stdout lines of an `output` result, in order.
pub fn lines_of(r: &Res, category: &str) -> Vec<String> {
    // Entries of one category concatenate into the text as printed (an unfinished line flushed
    // at a stop is continued by the next entry).
    let text: String = r.s["entries"]
        .as_array()
        .map(|es| es.iter().filter(|e| e["category"] == json!(category)).filter_map(|e| e["text"].as_str()).collect())
        .unwrap_or_default();
    text.lines().map(str::to_owned).collect()
}

/// Runs a build tool in `dir`; a missing tool fails the test with the package that provides it.
pub fn build(cmd: &mut Command, package: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}; install it with: apt-get install {package}"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// A fresh scratch directory for one test under cargo's test temp dir.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Fails (never skips) when an adapter is missing, naming the package.
pub fn require(program: &str, package: &str) {
    let found =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file())).unwrap_or(false);
    assert!(found, "test dependency missing: {program}; install it with: apt-get install {package}");
}

/// Names of a `variables` list.
pub fn var_names(vars: &Value) -> Vec<String> {
    vars.as_array()
        .map(|l| l.iter().filter_map(|v| v["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// The value of variable `name` in a `variables` list.
pub fn var_value(vars: &Value, name: &str) -> String {
    vars.as_array()
        .and_then(|l| l.iter().find(|v| v["name"] == json!(name)))
        .and_then(|v| v["value"].as_str())
        .unwrap_or_else(|| panic!("no variable {name} in {vars}"))
        .to_owned()
}

/// The handle (`ref`) of variable `name` in a `variables` list.
pub fn var_ref(vars: &Value, name: &str) -> Value {
    vars.as_array()
        .and_then(|l| l.iter().find(|v| v["name"] == json!(name)))
        .map(|v| v["ref"].clone())
        .unwrap_or_else(|| panic!("no variable {name} in {vars}"))
}

/// Whether `pid` is agentdap's watchdog (it lives as long as agentdap, whatever the sessions do).
pub fn is_watchdog(pid: Pid) -> bool {
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    cmd.split(|&b| b == 0).any(|arg| arg == WATCHDOG_SUBCOMMAND.as_bytes())
}

/// A port nobody listens on now (bound, then released; the debug server binds it right after).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// Kills a test's own process (and reaps it) when a test ends, however it ends.
pub struct Reap(pub Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Running processes (zombies excluded) whose environment has `var=mark` or whose command line
/// names `dir`, as "pid command line", except those `skip` names: what one test started, found
/// by the marker it gave (tests/node, tests/ruby).
pub fn marked_processes(var: &str, mark: &str, dir: &Path, skip: impl Fn(Pid) -> bool) -> Vec<String> {
    let env_entry = format!("{var}={mark}");
    let dir = dir.to_string_lossy().into_owned();
    let me = std::process::id() as Pid;
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return out };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<Pid>().ok()) else { continue };
        if pid == me || skip(pid) || !alive(pid) {
            continue;
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let in_env = environ.split(|&b| b == 0).any(|e| e == env_entry.as_bytes());
        if in_env || cmd.contains(&dir) {
            out.push(format!("{pid} {}", cmd.trim_end()));
        }
    }
    out
}

/// The location of a result's stop: (path, line, function).
pub fn stop_at(r: &Value) -> (Value, Value, Value) {
    let l = &r["stop"]["location"];
    (l["path"].clone(), l["line"].clone(), l["function"].clone())
}

/// What a test that failed may leave, ended so nothing leaks into the next test (after a passing
/// test there is nothing to find): agentdap if it still runs (SIGKILL, reaped within `exit`),
/// then every process carrying the test's marker (`marked_processes`) but those in `keep`, and
/// the test's directory.
pub fn end_marked(a: &mut Agent, var: &str, mark: &str, dir: &Path, keep: &[Pid], exit: Duration) {
    if a.d.wait_exit(Duration::ZERO).is_none() {
        // SAFETY: kill with integer arguments; agentdap is our child and not yet reaped.
        unsafe { libc::kill(a.d.pid(), libc::SIGKILL) };
        let _ = a.d.wait_exit(exit);
    }
    for line in marked_processes(var, mark, dir, |p| keep.contains(&p)) {
        if let Some(pid) = line.split_whitespace().next().and_then(|p| p.parse::<Pid>().ok()) {
            // SAFETY: as above; the pid carries this test's unique marker.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
