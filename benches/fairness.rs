//! Fairness benchmark (`cargo bench --bench fairness`): does one busy source starve another
//! session? The built agentdap is driven over stdio by a small MCP client; session B is a fast
//! scripted adapter whose `evaluate` is timed over many calls (p50/p90/p99, ms):
//!
//! - `quiet`: B alone;
//! - `output flood`: session A's adapter writes `output` events as fast as agentdap takes them;
//! - `mirror flood`: B is exposed and a raw DAP client on the mirror (initialize, attach with the
//!   token) keeps 64 `evaluate`s in flight, each costing the adapter 3 ms.
//!
//! The target: B's p99 under either flood within 3× its quiet p99.
//! `AGENTDAP_BENCH_BIN` runs another agentdap binary (e.g. an older build, to compare). Run as a
//! test (`cargo test --all-targets`, no `--bench` argument) it returns at once.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// `evaluate` calls timed per mode.
const CALLS: usize = 400;
/// Mirror requests the flooding client keeps in flight.
const MIRROR_IN_FLIGHT: usize = 64;
/// The longest any single answer may take before the mode reports an error.
const WAIT: Duration = Duration::from_secs(60);

/// The scripted adapter: `quiet` answers requests; `flood` also writes `output` events from a
/// thread as fast as the pipe takes them once configured, counting them into the file named by
/// its second argument. `evaluate` of `heavy` costs 3 ms (a serial adapter, as real ones are).
const ADAPTER: &str = r#"
import json, os, sys, threading, time
mode, count_path = sys.argv[1], sys.argv[2]
out, inp = sys.stdout.buffer, sys.stdin.buffer
lock = threading.Lock()
seq = 0

def send(msg):
    global seq
    with lock:
        seq += 1
        msg["seq"] = seq
        body = json.dumps(msg).encode()
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()

def respond(req, body=None):
    send({"type": "response", "request_seq": req["seq"], "command": req["command"], "success": True, "body": body or {}})

def flood():
    global seq
    sent = 0
    last = time.monotonic()
    while True:
        with lock:
            parts = []
            for i in range(500):
                seq += 1
                body = b'{"seq":%d,"type":"event","event":"output","body":{"category":"stdout","output":"flood line %d\\n"}}' % (seq, sent + i)
                parts.append(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            out.write(b"".join(parts))
            out.flush()
        sent += 500
        if time.monotonic() - last > 0.2:
            last = time.monotonic()
            with open(count_path, "w") as f:
                f.write(str(sent))

def read():
    length = None
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return json.loads(inp.read(length))

while True:
    req = read()
    c = req.get("command")
    args = req.get("arguments") or {}
    if c == "initialize":
        respond(req, {"supportsConfigurationDoneRequest": True})
        send({"type": "event", "event": "initialized"})
    elif c == "configurationDone":
        respond(req)
        send({"type": "event", "event": "stopped", "body": {"reason": "entry", "threadId": 1, "allThreadsStopped": True}})
        if mode == "flood":
            threading.Thread(target=flood, daemon=True).start()
    elif c == "threads":
        respond(req, {"threads": [{"id": 1, "name": "main"}]})
    elif c == "stackTrace":
        respond(req, {"stackFrames": [{"id": 1, "name": "main", "line": 1, "column": 1}], "totalFrames": 1})
    elif c == "evaluate":
        if args.get("expression") == "heavy":
            time.sleep(0.003)
        respond(req, {"result": "42", "variablesReference": 0})
    elif c == "disconnect":
        respond(req)
        os._exit(0)
    else:
        respond(req)
"#;

// ---------------------------------------------------------------------------------------------
// The MCP client (raw JSON-RPC over agentdap's stdio), with a reader thread.

struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    queue: VecDeque<Value>,
    id: i64,
}

impl Mcp {
    fn start(bin: &Path, config: &Path) -> Result<Mcp, String> {
        let mut cmd = Command::new(bin);
        cmd.arg("--config")
            .arg(config)
            .env("AGENTDAP_LOG", "warn")
            .env("AGENTDAP_STATE_DIR", config.with_extension("state"));
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().map_err(|e| format!("spawn {}: {e}", bin.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
                // Notifications are not waited for: dropped here so nothing piles up.
                if v.get("id").is_some() && tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp { stdin: child.stdin.take(), child, rx, queue: VecDeque::new(), id: 0 };
        mcp.rpc("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agentdap-bench", "version": "0"}}))?;
        mcp.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        Ok(mcp)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("stdin closed")?;
        stdin.write_all(bytes).and_then(|()| stdin.flush()).map_err(|e| format!("write: {e}"))
    }

    fn rpc(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.id += 1;
        let id = self.id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.write(format!("{line}\n").as_bytes())?;
        if let Some(i) = self.queue.iter().position(|m| m["id"] == id) {
            return self.queue.remove(i).map(|r| r["result"].clone()).ok_or_else(|| "queue".into());
        }
        let deadline = Instant::now() + WAIT;
        loop {
            match self.rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(v) if v["id"] == id => {
                    return match v.get("error") {
                        Some(e) => Err(format!("JSON-RPC error {e}")),
                        None => Ok(v["result"].clone()),
                    }
                }
                Ok(v) => self.queue.push_back(v),
                Err(RecvTimeoutError::Timeout) => return Err(format!("no answer to {method} within {WAIT:?}")),
                Err(RecvTimeoutError::Disconnected) => return Err("agentdap closed stdout".into()),
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let r = self.rpc("tools/call", json!({"name": tool, "arguments": args}))?;
        if r["isError"] == true {
            return Err(format!("{tool}: {}", r["content"][0]["text"]));
        }
        Ok(r)
    }

    fn finish(mut self) {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// The mirror flood: a raw DAP client on the mirror's TCP port.

fn dap_frame(seq: u64, command: &str, arguments: Value) -> Vec<u8> {
    let body = json!({"seq": seq, "type": "request", "command": command, "arguments": arguments}).to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Reads one DAP message (blocking).
fn read_dap(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse::<usize>().ok();
            }
        }
    }
    let mut body = vec![0u8; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// Attaches to the mirror and keeps [`MIRROR_IN_FLIGHT`] heavy `evaluate`s in flight until `stop`;
/// counts the answers in `answered`.
fn mirror_flood(port: u16, token: String, stop: Arc<AtomicBool>, answered: Arc<AtomicU64>) -> Result<(), String> {
    let mut w = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect to the mirror: {e}"))?;
    let mut r = BufReader::new(w.try_clone().map_err(|e| e.to_string())?);
    w.write_all(&dap_frame(1, "initialize", json!({"adapterID": "bench"}))).map_err(|e| e.to_string())?;
    w.write_all(&dap_frame(2, "attach", json!({"mirrorToken": token}))).map_err(|e| e.to_string())?;
    loop {
        let m = read_dap(&mut r).ok_or("the mirror closed during the handshake")?;
        if m["type"] == "response" && m["command"] == "attach" {
            if m["success"] != true {
                if stop.load(Ordering::Relaxed) {
                    break; // the session ended under the last requests
                }
                return Err(format!("attach refused: {m}"));
            }
            break;
        }
    }
    // The mirror evaluates only in a frame it showed (its handles): ask for the stack first.
    w.write_all(&dap_frame(3, "stackTrace", json!({"threadId": 1}))).map_err(|e| e.to_string())?;
    let frame = loop {
        let m = read_dap(&mut r).ok_or("the mirror closed before answering stackTrace")?;
        if m["type"] == "response" && m["command"] == "stackTrace" {
            break m["body"]["stackFrames"][0]["id"].as_i64().ok_or(format!("no frame in {m}"))?;
        }
    };
    let mut seq = 3;
    let evaluate =
        |seq: u64| dap_frame(seq, "evaluate", json!({"expression": "heavy", "frameId": frame, "context": "watch"}));
    for _ in 0..MIRROR_IN_FLIGHT {
        seq += 1;
        w.write_all(&evaluate(seq)).map_err(|e| e.to_string())?;
    }
    while !stop.load(Ordering::Relaxed) {
        let Some(m) = read_dap(&mut r) else { break };
        if m["type"] == "response" && m["command"] == "evaluate" {
            if m["success"] != true {
                if stop.load(Ordering::Relaxed) {
                    break; // the session ended under the last requests
                }
                return Err(format!("the mirror refused an evaluate: {m}"));
            }
            answered.fetch_add(1, Ordering::Relaxed);
            seq += 1;
            if w.write_all(&evaluate(seq)).is_err() {
                break;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The modes.

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Quiet,
    OutputFlood,
    MirrorFlood,
}

struct Row {
    name: &'static str,
    ms: Vec<f64>,
    /// The same `evaluate` from a raw DAP client straight to a second copy of B's adapter, timed
    /// while the flood still runs: what the machine alone costs (CPU contention on 2 cores).
    raw: Vec<f64>,
    note: String,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn time_evaluates(mcp: &mut Mcp, session: &str) -> Result<Vec<f64>, String> {
    let mut ms = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let t = Instant::now();
        mcp.call("evaluate", json!({"session": session, "expression": "x"}))?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms)
}

/// Times [`CALLS`] `evaluate` round trips of a raw DAP client on a fresh copy of the quiet
/// adapter (pipes, no agentdap in between).
fn time_raw_evaluates(python: &Path, script: &Path, count: &Path) -> Result<Vec<f64>, String> {
    let mut child = Command::new(python)
        .arg(script)
        .arg("quiet")
        .arg(count)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn the raw adapter: {e}"))?;
    let result = (|| {
        let mut w = child.stdin.take().ok_or("no stdin")?;
        let mut r = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut seq = 0;
        let mut request = |w: &mut ChildStdin, r: &mut BufReader<_>, command: &str, args: Value| {
            seq += 1;
            w.write_all(&dap_frame(seq, command, args)).map_err(|e| e.to_string())?;
            loop {
                let m = read_dap(r).ok_or("the raw adapter closed")?;
                if m["type"] == "response" && m["request_seq"] == seq {
                    return Ok::<_, String>(());
                }
            }
        };
        request(&mut w, &mut r, "initialize", json!({"adapterID": "bench"}))?;
        request(&mut w, &mut r, "configurationDone", json!({}))?;
        let mut ms = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            let t = Instant::now();
            request(&mut w, &mut r, "evaluate", json!({"expression": "x", "frameId": 1}))?;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        ms.sort_by(f64::total_cmp);
        Ok(ms)
    })();
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn run_mode(bin: &Path, scratch: &Path, mode: Mode) -> Result<Row, String> {
    let config = scratch.join("config.json");
    let count = scratch.join(format!("flood-count-{}", mode as u8));
    let _ = std::fs::remove_file(&count);
    let script = scratch.join("adapter.py");
    let python = std::env::var_os("AGENTDAP_TEST_PYTHON").map(PathBuf::from).unwrap_or_else(|| "python3".into());
    let adapter = |m: &str| json!({"command": python, "args": [script, m, count]});
    let cfg = json!({"adapters": {"quiet": adapter("quiet"), "flood": adapter("flood")}});
    std::fs::write(&config, cfg.to_string()).map_err(|e| e.to_string())?;
    let program = scratch.join("program.txt");
    let mut mcp = Mcp::start(bin, &config)?;
    let launch = |adapter: &str| json!({"program": program, "adapter": adapter, "stop_on_entry": true});
    mcp.call("launch", launch("quiet"))?;
    let b = "s1";
    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicU64::new(0));
    let mut flooder = None;
    let started = Instant::now();
    match mode {
        Mode::Quiet => {}
        Mode::OutputFlood => {
            mcp.call("launch", launch("flood"))?;
            // Let the flood reach its pace before timing.
            thread::sleep(Duration::from_millis(500));
        }
        Mode::MirrorFlood => {
            let r = mcp.call("expose_session", json!({"session": b}))?;
            let port = r["structuredContent"]["port"].as_u64().ok_or("no port")? as u16;
            let token = r["structuredContent"]["token"].as_str().ok_or("no token")?.to_owned();
            let (stop, answered) = (stop.clone(), answered.clone());
            flooder = Some(thread::spawn(move || mirror_flood(port, token, stop, answered)));
            thread::sleep(Duration::from_millis(300));
        }
    }
    let t0 = Instant::now();
    let ms = time_evaluates(&mut mcp, b);
    let took = t0.elapsed().as_secs_f64();
    let raw = time_raw_evaluates(&python, &script, &scratch.join("raw-count"));
    stop.store(true, Ordering::Relaxed);
    let note = match mode {
        Mode::Quiet => String::new(),
        Mode::OutputFlood => {
            let events: f64 = std::fs::read_to_string(&count).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0.0);
            format!("A wrote {:.0}k output events/s", events / started.elapsed().as_secs_f64() / 1e3)
        }
        Mode::MirrorFlood => {
            format!("mirror answered {:.0} evaluates/s", answered.load(Ordering::Relaxed) as f64 / took)
        }
    };
    let _ = mcp.call("disconnect", json!({"session": b}));
    mcp.finish();
    if let Some(f) = flooder {
        match f.join() {
            Ok(Err(e)) => return Err(format!("mirror client: {e}")),
            Err(_) => return Err("mirror client panicked".into()),
            Ok(Ok(())) => {}
        }
    }
    Ok(Row { name: mode_name(mode), ms: ms?, raw: raw?, note })
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Quiet => "quiet",
        Mode::OutputFlood => "output flood",
        Mode::MirrorFlood => "mirror flood",
    }
}

fn main() {
    // `cargo test --all-targets` runs bench targets without `--bench`: nothing to do then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let bin = std::env::var_os("AGENTDAP_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_agentdap")));
    let scratch = std::env::temp_dir().join(format!("agentdap-fairness-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&scratch)
        .and_then(|()| std::fs::write(scratch.join("adapter.py"), ADAPTER))
        .and_then(|()| std::fs::write(scratch.join("program.txt"), "pretend program\n"))
    {
        eprintln!("fairness: {e}");
        std::process::exit(1);
    }
    println!("agentdap: {}", bin.display());
    println!("session B `evaluate` through agentdap, {CALLS} calls per mode, ms");
    println!(
        "{:<14} {:>8} {:>8} {:>8} {:>8}  {:<9} {:>8} {:>8}  note",
        "mode", "p50", "p90", "p99", "max", "p99/quiet", "raw p50", "raw p99"
    );
    let mut quiet_p99 = None;
    // `cargo bench --bench fairness -- quiet flood`: only the modes named (all by default).
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    for mode in [Mode::Quiet, Mode::OutputFlood, Mode::MirrorFlood] {
        let name = mode_name(mode);
        if !only.is_empty() && !only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        match run_mode(&bin, &scratch, mode) {
            Ok(row) => {
                let p99 = percentile(&row.ms, 0.99);
                let ratio = match quiet_p99 {
                    Some(q) if mode != Mode::Quiet => format!("{:.1}×", p99 / q),
                    _ => "—".to_owned(),
                };
                if mode == Mode::Quiet {
                    quiet_p99 = Some(p99);
                }
                println!(
                    "{:<14} {:>8.2} {:>8.2} {:>8.2} {:>8.2}  {:<9} {:>8.2} {:>8.2}  {}",
                    row.name,
                    percentile(&row.ms, 0.5),
                    percentile(&row.ms, 0.9),
                    p99,
                    row.ms.last().copied().unwrap_or(f64::NAN),
                    ratio,
                    percentile(&row.raw, 0.5),
                    percentile(&row.raw, 0.99),
                    row.note
                );
            }
            Err(e) => println!("{:<14} error: {e}", format!("{:?}", mode as u8)),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
