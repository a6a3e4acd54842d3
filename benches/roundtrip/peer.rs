//! The round-trip benchmark's processes and connections: a child process or a TCP connection
//! with a reader thread ([`Peer`]), DAP and line-delimited JSON framing, connecting to a TCP
//! server that is starting, and ending a child by its pid. It knows nothing of DAP requests or
//! MCP tools (`dap.rs` and `mcp.rs` do); this is a benchmark client, not agentdap: threads are fine.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::WAIT;

/// A child process (its stdin and stdout) or a TCP connection, its messages read by a thread.
pub struct Peer {
    /// `None` for a TCP connection (its process is someone else's to end).
    pub child: Option<Child>,
    stdin: Option<Box<dyn Write + Send>>,
    rx: Receiver<Value>,
    queue: VecDeque<Value>,
}

impl Peer {
    /// Starts `cmd`; `framed` = DAP Content-Length framing on stdout, else one JSON per line.
    pub fn start(mut cmd: Command, framed: bool) -> Result<Peer, String> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().map_err(|e| format!("spawn {:?}: {e}", cmd.get_program()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let rx = Peer::reader(stdout, framed);
        let stdin = child.stdin.take().map(|s| Box::new(s) as Box<dyn Write + Send>);
        Ok(Peer { stdin, child: Some(child), rx, queue: VecDeque::new() })
    }

    /// A DAP connection over TCP (js-debug's server: one connection per session).
    pub fn tcp(stream: &TcpStream) -> Result<Peer, String> {
        let clone = |s: &TcpStream| s.try_clone().map_err(|e| format!("clone the socket: {e}"));
        let rx = Peer::reader(clone(stream)?, true);
        Ok(Peer { child: None, stdin: Some(Box::new(clone(stream)?)), rx, queue: VecDeque::new() })
    }

    /// A thread reading messages from `from` into the returned channel until EOF.
    fn reader(from: impl std::io::Read + Send + 'static, framed: bool) -> Receiver<Value> {
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut r = BufReader::new(from);
            loop {
                let msg = if framed { read_frame(&mut r) } else { read_line(&mut r) };
                match msg {
                    Some(v) => {
                        if tx.send(v).is_err() {
                            break;
                        }
                    }
                    None => break,
                }
            }
        });
        rx
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("stdin closed")?;
        stdin.write_all(bytes).and_then(|()| stdin.flush()).map_err(|e| format!("write: {e}"))
    }

    /// The first message (queued or new) for which `want` is true; others stay queued.
    pub fn wait(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Result<Value, String> {
        if let Some(i) = self.queue.iter().position(&want) {
            return self.queue.remove(i).ok_or_else(|| "queue".to_string());
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) if want(&v) => return Ok(v),
                Ok(v) => self.queue.push_back(v),
                Err(RecvTimeoutError::Timeout) => return Err(format!("timed out waiting for {what}")),
                Err(RecvTimeoutError::Disconnected) => return Err(format!("stream closed waiting for {what}")),
            }
        }
    }

    pub fn finish(mut self) {
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            reap(&mut child);
        }
    }
}

/// The Python with debugpy the benches run: `$AGENTDAP_TEST_PYTHON`, else the test venv's.
pub fn bench_python(root: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let python = std::env::var_os("AGENTDAP_TEST_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join(".deps/venv/bin/python"));
    if !python.exists() {
        return Err(format!("no Python with debugpy at {} (run scripts/install-test-deps)", python.display()));
    }
    Ok(python)
}

/// Waits up to 5 s for `child` (this benchmark's own child) to exit, then kills it by its pid.
pub fn reap(child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Connects to 127.0.0.1:`port`, retrying a refused connect every millisecond until it
/// succeeds: the server (`child`, called `what`) is ready when a connect succeeds. agentdap
/// retries after 10–20 ms (`FIRST_BACKOFF`, `MAX_BACKOFF` in `src/dap/tcp.rs`), so the raw
/// client learns of readiness earlier. It does not spin: on a loaded 2-core machine a spinning
/// client takes CPU from the starting server (with `yield_now`, CodeLLDB 1.11.8's raw launch →
/// breakpoint took 2.1 s in one run against 1.4 s through agentdap).
pub fn connect_retrying(port: u16, child: &mut Child, what: &str) -> Result<TcpStream, String> {
    let deadline = Instant::now() + WAIT;
    loop {
        match TcpStream::connect((std::net::Ipv4Addr::LOCALHOST, port)) {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused && Instant::now() < deadline => {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!("{what} exited ({status}) before accepting"));
                }
                thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(format!("connect to 127.0.0.1:{port}: {e}")),
        }
    }
}

fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            if len.is_some() {
                break;
            }
            // Not a header block (rdbg 1.4.0 may write its console listing on the socket
            // before the first frame, see `roundtrip/rdbg.rs`): skip to the next header.
            continue;
        }
        // The header may follow such text on the same line (a prompt without a line end).
        if let Some(at) = line.to_ascii_lowercase().find("content-length:") {
            len = line[at + "content-length:".len()..].trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0u8; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn read_line(r: &mut impl BufRead) -> Option<Value> {
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Ok(v) = serde_json::from_str(&line) {
            return Some(v);
        }
    }
}

/// Turn-taking between the raw client's round trips and agentdap's, run at once in two threads
/// (`block` in `roundtrip.rs`): side 0 (raw) and side 1 (agentdap) alternate one round each
/// (ABAB), so the machine's load drift lands on both. Off (every [`Turn::take`] returns at once)
/// until [`Turns::start`]; a side that waits longer than [`WAIT`] (the other failed or ended)
/// turns it off.
pub struct Turns {
    state: std::sync::Mutex<Option<usize>>,
    changed: std::sync::Condvar,
}

pub static TURNS: Turns = Turns { state: std::sync::Mutex::new(None), changed: std::sync::Condvar::new() };

impl Turns {
    /// Alternation on, side 0 first.
    pub fn start(&self) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(0);
    }

    /// Alternation off: both sides run freely.
    pub fn stop(&self) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.changed.notify_all();
    }

    /// Waits for `side`'s turn; the returned [`Turn`] hands it to the other side when dropped.
    pub fn take(&'static self, side: usize) -> Turn {
        let guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, waited) = self
            .changed
            .wait_timeout_while(guard, WAIT, |s| s.is_some_and(|s| s != side))
            .unwrap_or_else(|e| e.into_inner());
        drop(guard);
        if waited.timed_out() {
            self.stop();
        }
        Turn { turns: self, side }
    }
}

/// One side's round; the turn passes to the other side when it is dropped.
pub struct Turn {
    turns: &'static Turns,
    side: usize,
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut s = self.turns.state.lock().unwrap_or_else(|e| e.into_inner());
        if *s == Some(self.side) {
            *s = Some(1 - self.side);
        }
        drop(s);
        self.turns.changed.notify_all();
    }
}
