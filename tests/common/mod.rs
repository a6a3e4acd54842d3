//! Shared helpers for integration tests: run the built agentdap binary over real pipes, exchange
//! newline-delimited JSON with timeouts, send signals, and locate the test dependencies that
//! `scripts/install-test-deps` puts in `.deps/`.
#![allow(dead_code)] // each test crate uses its own subset

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long a test waits for one expected line before failing.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(10);

/// GOCACHE/GOPATH shared by every Go build of the tests (and dlv's), so builds stay warm.
pub fn go_env(cmd: &mut Command) -> &mut Command {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go");
    cmd.env("GOCACHE", cache.join("cache")).env("GOPATH", cache.join("path")).env("GOFLAGS", "-mod=mod")
}

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_agentdap")
}

/// Where `scripts/install-test-deps` put the test dependencies: `$AGENTDAP_DEPS`, else `.deps/` in
/// the repository.
pub fn deps_dir() -> PathBuf {
    match std::env::var_os("AGENTDAP_DEPS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join(".deps"),
    }
}

/// The venv's Python (with `mcp` and `debugpy`): `$AGENTDAP_TEST_PYTHON`, else
/// `<deps>/venv/bin/python`. Panics with the install command when it is missing.
pub fn venv_python() -> PathBuf {
    let python = match std::env::var_os("AGENTDAP_TEST_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => deps_dir().join("venv/bin/python"),
    };
    assert!(
        python.exists(),
        "test dependency missing: no Python venv at {} (run scripts/install-test-deps, or set AGENTDAP_TEST_PYTHON)",
        python.display()
    );
    python
}

/// The local `node_modules` folder with the npm test tools. Panics when `package` is missing.
pub fn node_package(package: &str) -> PathBuf {
    let dir = deps_dir().join("node/node_modules").join(package);
    assert!(
        dir.join("package.json").exists(),
        "test dependency missing: npm package {package} not in {} (run scripts/install-test-deps)",
        dir.display()
    );
    dir
}

/// A running agentdap with its stdin and stdout piped to the test; stderr is collected.
pub struct Agentdap {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    buf: Vec<u8>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Collects stderr until EOF (agentdap and its watchdog both hold the pipe).
    stderr_reader: Option<thread::JoinHandle<()>>,
}

impl Agentdap {
    /// Starts `agentdap` (stdio MCP server) with debug logging on stderr.
    pub fn spawn() -> Agentdap {
        Agentdap::spawn_with(|_| {})
    }

    /// Starts `agentdap` after letting `configure` adjust the command (arguments, environment).
    pub fn spawn_with(configure: impl FnOnce(&mut Command)) -> Agentdap {
        let mut cmd = Command::new(bin());
        cmd.env("RUST_LOG", "agentdap=debug").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        // Tests keep their ledger out of the user's state directory (a test may set its own).
        cmd.env("AGENTDAP_STATE_DIR", std::env::temp_dir().join("agentdap-test-state"));
        configure(&mut cmd);
        let mut child = cmd.spawn().expect("spawn agentdap");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut err_pipe = child.stderr.take().expect("stderr is piped");
        let sink = Arc::clone(&stderr);
        let stderr_reader = thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        Agentdap {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            buf: Vec::new(),
            stderr,
            stderr_reader: Some(stderr_reader),
        }
    }

    /// The process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// What agentdap wrote to stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Writes raw bytes to agentdap's stdin.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("write to agentdap stdin");
    }

    /// Writes one line (a `\n` is appended).
    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// Writes one JSON message as a line.
    pub fn send_json(&mut self, message: &Value) {
        self.send(&message.to_string());
    }

    /// Takes stdin away from the test (e.g. to write from another thread).
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin still open")
    }

    /// Closes agentdap's stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Closes the read end of agentdap's stdout (its next write gets EPIPE).
    pub fn close_stdout(&mut self) {
        self.stdout = None;
    }

    /// The next line on stdout, without its `\n`, or `None` after `timeout` or at EOF.
    pub fn recv_line_within(&mut self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                return Some(String::from_utf8(line[..i].to_vec()).expect("stdout is UTF-8"));
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            let stdout = self.stdout.as_mut().expect("stdout still open");
            let mut pfd = libc::pollfd { fd: stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            let ms = left.as_millis().clamp(1, 60_000) as libc::c_int;
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
            if ready <= 0 {
                continue;
            }
            let mut chunk = [0u8; 64 * 1024];
            match stdout.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => panic!("reading agentdap stdout: {e}"),
            }
        }
    }

    /// The next line on stdout; fails the test (showing stderr) after [`LINE_TIMEOUT`].
    pub fn recv_line(&mut self) -> String {
        match self.recv_line_within(LINE_TIMEOUT) {
            Some(line) => line,
            None => panic!("no line from agentdap within {LINE_TIMEOUT:?}; stderr:\n{}", self.stderr()),
        }
    }

    /// The next stdout line parsed as JSON.
    pub fn recv(&mut self) -> Value {
        let line = self.recv_line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    /// Sends `message` and returns the next line as JSON.
    pub fn request(&mut self, message: Value) -> Value {
        self.send_json(&message);
        self.recv()
    }

    /// Asserts that nothing arrives on stdout for `quiet`.
    pub fn expect_silence(&mut self, quiet: Duration) {
        if let Some(line) = self.recv_line_within(quiet) {
            panic!("expected no output, got: {line}");
        }
    }

    /// Legacy `initialize` at `version`; returns the whole response.
    pub fn initialize(&mut self, version: &str) -> Value {
        let response = self.request(initialize_request(1, version));
        self.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response
    }

    /// Sends a signal to agentdap.
    pub fn signal(&self, signo: libc::c_int) {
        // SAFETY: kill has no memory-safety preconditions.
        assert_eq!(unsafe { libc::kill(self.pid(), signo) }, 0, "kill({}, {signo})", self.pid());
    }

    /// Waits up to `timeout` for agentdap to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits for exit and asserts it was clean (status 0) and within `timeout`.
    pub fn assert_clean_exit(&mut self, timeout: Duration) {
        match self.wait_exit(timeout) {
            Some(status) => assert_eq!(status.code(), Some(0), "exit status {status}; stderr:\n{}", self.stderr()),
            None => panic!("agentdap still running after {timeout:?}; stderr:\n{}", self.stderr()),
        }
        // Everything agentdap logged is in once its stderr reached EOF (the watchdog, which shares
        // the pipe, exits right after agentdap).
        let end = std::time::Instant::now() + Duration::from_secs(5);
        while self.stderr_reader.as_ref().is_some_and(|h| !h.is_finished()) && std::time::Instant::now() < end {
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Agentdap {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A legacy `initialize` request.
pub fn initialize_request(id: i64, version: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "agentdap-tests", "version": "0"}}
    })
}

/// The `_meta` of a modern (2026-07-28) request at `version`.
pub fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "agentdap-tests", "version": "0"}
    })
}

/// A modern request for `method` at `version` with no other parameters.
pub fn modern_request(id: Value, method: &str, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": modern_meta(version)}})
}

/// A fresh, empty directory under the system's temporary directory (`agentdap-test-<tag>-<pid>`),
/// removed with everything in it when dropped, however the test ends.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("agentdap-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `cmd` (stdin closed, stdout and stderr collected) to completion; kills it and fails the
/// test after `timeout`.
pub fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Output {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cmd:?} still running after {timeout:?}\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.join().unwrap_or_default()),
                String::from_utf8_lossy(&err.join().unwrap_or_default())
            );
        }
        thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: out.join().unwrap_or_default(), stderr: err.join().unwrap_or_default() }
}

/// Its status, stdout and stderr, for a failure message.
pub fn describe(output: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
