//! End-to-end round-trip benchmark (`cargo bench --bench roundtrip`): the built agentdap binary
//! driven over stdio by a tiny MCP client, next to the same operation done by a raw DAP client
//! straight to the adapter, so agentdap's own overhead is the difference; debugpy with and without
//! the fast path, lldb-dap when installed, js-debug when found (its raw client in
//! `roundtrip/jsdebug.rs`); agentdap's peak RSS with 1 and 10 sessions.
//!
//! Rows are data: [`OPS`] names each operation, its raw DAP form and its MCP tool; a tool that
//! `tools/list` does not offer yet prints `—`. Run as a test (`cargo test --all-targets`, no
//! `--bench` argument) it returns at once.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "roundtrip/jsdebug.rs"]
mod jsdebug;

/// Round trips measured per operation (at a breakpoint, between two hits).
const ITERS: usize = 31;
/// Fresh starts measured for spawn → initialize and launch → first breakpoint.
const STARTS: usize = 7;
/// Concurrent sessions for the second RSS figure.
const MANY: usize = 10;
/// The longest any single wait may take before the row reports an error.
const WAIT: Duration = Duration::from_secs(30);
/// Loop count given to the debuggee: far more than the benchmark hits.
const DEBUGGEE_LOOPS: &str = "1000000";

/// One operation of the table: its name, whether the raw DAP client has an equivalent, and the
/// MCP tool (with arguments) that does the same through agentdap.
struct Op {
    name: &'static str,
    raw: bool,
    tool: Option<&'static str>,
    args: fn() -> Value,
}

const OPS: &[Op] = &[
    Op { name: "spawn→initialize", raw: true, tool: None, args: || json!({}) },
    Op { name: "launch→breakpoint", raw: true, tool: Some("launch"), args: || json!({}) },
    // The order of the raw client's loop (`raw_session`): lldb-dap's `stackTrace` costs more
    // right after an `evaluate` than right after a stop, so both sides keep the same order.
    Op { name: "stack_trace", raw: true, tool: Some("stack_trace"), args: || json!({}) },
    Op { name: "evaluate", raw: true, tool: Some("evaluate"), args: || json!({"expression": "acc"}) },
    Op { name: "variables", raw: true, tool: Some("variables"), args: || json!({}) },
    Op { name: "context", raw: true, tool: Some("context"), args: || json!({}) },
    Op { name: "step", raw: true, tool: Some("step"), args: || json!({"kind": "over"}) },
    Op { name: "continue", raw: true, tool: Some("continue"), args: || json!({}) },
    Op { name: "output", raw: false, tool: Some("output"), args: || json!({}) },
    Op { name: "sessions", raw: false, tool: Some("sessions"), args: || json!({}) },
];

/// Samples per operation name, in ms.
#[derive(Default)]
struct Samples(Vec<(&'static str, f64)>);

impl Samples {
    fn add(&mut self, name: &'static str, since: Instant) {
        self.0.push((name, since.elapsed().as_secs_f64() * 1e3));
    }
    fn median(&self, name: &str) -> Option<(f64, usize)> {
        let mut v: Vec<f64> = self.0.iter().filter(|(n, _)| *n == name).map(|(_, ms)| *ms).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let mid = v.len() / 2;
        let m = if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 };
        Some((m, v.len()))
    }
}

// ---------------------------------------------------------------------------------------------
// Child processes with a reader thread (this is a benchmark client, not agentdap: threads are fine).

struct Peer {
    /// `None` for a TCP connection (its process is someone else's to end).
    child: Option<Child>,
    stdin: Option<Box<dyn Write + Send>>,
    rx: Receiver<Value>,
    queue: VecDeque<Value>,
}

impl Peer {
    /// Starts `cmd`; `framed` = DAP Content-Length framing on stdout, else one JSON per line.
    fn start(mut cmd: Command, framed: bool) -> Result<Peer, String> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().map_err(|e| format!("spawn {:?}: {e}", cmd.get_program()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let rx = Peer::reader(stdout, framed);
        let stdin = child.stdin.take().map(|s| Box::new(s) as Box<dyn Write + Send>);
        Ok(Peer { stdin, child: Some(child), rx, queue: VecDeque::new() })
    }

    /// A DAP connection over TCP (js-debug's server: one connection per session).
    fn tcp(stream: &TcpStream) -> Result<Peer, String> {
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

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("stdin closed")?;
        stdin.write_all(bytes).and_then(|()| stdin.flush()).map_err(|e| format!("write: {e}"))
    }

    /// The first message (queued or new) for which `want` is true; others stay queued.
    fn wait(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Result<Value, String> {
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

    fn finish(mut self) {
        self.stdin = None;
        let Some(mut child) = self.child.take() else { return };
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

// ---------------------------------------------------------------------------------------------
// The raw DAP client.

struct Dap {
    peer: Peer,
    seq: i64,
}

impl Dap {
    fn send(&mut self, command: &str, arguments: Value) -> Result<i64, String> {
        self.seq += 1;
        let body = json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        self.peer.write(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())?;
        Ok(self.seq)
    }

    fn response(&mut self, seq: i64) -> Result<Value, String> {
        let r = self.peer.wait("response", |m| m["type"] == "response" && m["request_seq"] == seq)?;
        if r["success"] == true {
            Ok(r)
        } else {
            Err(format!("{} failed: {}", r["command"], r["message"]))
        }
    }

    fn request(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        let seq = self.send(command, arguments)?;
        self.response(seq)
    }

    fn event(&mut self, name: &str) -> Result<Value, String> {
        self.peer.wait(name, |m| m["type"] == "event" && m["event"] == name)
    }
}

/// What differs between adapters for the raw client.
struct RawTarget {
    adapter: &'static str,
    command: fn(&Env, bool) -> Command,
    launch: fn(&Env) -> Value,
    source: fn(&Env) -> PathBuf,
}

fn raw_session(env: &Env, target: &RawTarget, fast: bool, s: &mut Samples, round_trips: bool) -> Result<(), String> {
    let t0 = Instant::now();
    let mut dap = Dap { peer: Peer::start((target.command)(env, fast), true)?, seq: 0 };
    dap.request(
        "initialize",
        json!({"clientID": "agentdap-bench", "adapterID": target.adapter, "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"}),
    )?;
    s.add("spawn→initialize", t0);
    let launch = dap.send("launch", (target.launch)(env))?;
    dap.event("initialized")?;
    let source = (target.source)(env);
    dap.request(
        "setBreakpoints",
        json!({"source": {"path": source}, "breakpoints": [{"line": env.break_line(&source)}]}),
    )?;
    dap.request("configurationDone", json!({}))?;
    let stopped = dap.event("stopped")?;
    s.add("launch→breakpoint", t0);
    dap.response(launch)?;
    let thread = stopped["body"]["threadId"].clone();
    if round_trips {
        for _ in 0..ITERS {
            round_trip(&mut dap, &thread, s)?;
        }
    }
    let _ = dap.request("disconnect", json!({"terminateDebuggee": true}));
    dap.peer.finish();
    Ok(())
}

/// One round of the measured operations at a breakpoint, on the connection that owns `thread`.
fn round_trip(dap: &mut Dap, thread: &Value, s: &mut Samples) -> Result<(), String> {
    let t = Instant::now();
    let st = dap.request("stackTrace", json!({"threadId": thread, "levels": 20}))?;
    s.add("stack_trace", t);
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let t = Instant::now();
    dap.request("evaluate", json!({"expression": "acc", "frameId": frame, "context": "repl"}))?;
    s.add("evaluate", t);
    let scopes = dap.request("scopes", json!({"frameId": frame}))?;
    let vref = scopes["body"]["scopes"][0]["variablesReference"].clone();
    let t = Instant::now();
    dap.request("variables", json!({"variablesReference": vref}))?;
    s.add("variables", t);
    // `context` through agentdap is one call doing these three.
    let t = Instant::now();
    let st = dap.request("stackTrace", json!({"threadId": thread, "levels": 20}))?;
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let scopes = dap.request("scopes", json!({"frameId": frame}))?;
    let vref = scopes["body"]["scopes"][0]["variablesReference"].clone();
    dap.request("variables", json!({"variablesReference": vref}))?;
    s.add("context", t);
    // `step` and `continue` through agentdap answer with where the program stopped, so the
    // raw client asks for the top frame too (what any client needs to know the line).
    let t = Instant::now();
    dap.request("next", json!({"threadId": thread}))?;
    dap.event("stopped")?;
    dap.request("stackTrace", json!({"threadId": thread, "levels": 1}))?;
    s.add("step", t);
    let t = Instant::now();
    dap.request("continue", json!({"threadId": thread}))?;
    dap.event("stopped")?;
    dap.request("stackTrace", json!({"threadId": thread, "levels": 1}))?;
    s.add("continue", t);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The MCP client (raw JSON-RPC over agentdap's stdio).

struct Mcp {
    peer: Peer,
    id: i64,
    tools: Vec<String>,
}

impl Mcp {
    fn start(env: &Env, fast: bool, s: &mut Samples) -> Result<Mcp, String> {
        let mut cmd = Command::new(&env.agentdap);
        cmd.env("AGENTDAP_PYTHON", &env.python).env("AGENTDAP_LOG", "warn");
        if let Some(server) = &env.js_debug {
            cmd.env("AGENTDAP_JS_DEBUG", server);
        }
        if !fast {
            cmd.arg("--no-debugpy-fastpath");
        }
        let t0 = Instant::now();
        let mut mcp = Mcp { peer: Peer::start(cmd, false)?, id: 0, tools: Vec::new() };
        mcp.rpc(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agentdap-bench", "version": "0"}}),
        )?;
        s.add("spawn→initialize", t0);
        mcp.peer.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        let list = mcp.rpc("tools/list", json!({}))?;
        let names = list["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
        mcp.tools = names.iter().filter_map(|t| t["name"].as_str().map(str::to_string)).collect();
        Ok(mcp)
    }

    fn send(&mut self, method: &str, params: Value) -> Result<i64, String> {
        self.id += 1;
        let line = json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}).to_string();
        self.peer.write(format!("{line}\n").as_bytes())?;
        Ok(self.id)
    }

    fn answer(&mut self, id: i64) -> Result<Value, String> {
        let r = self.peer.wait("MCP answer", |m| m["id"] == id && m.get("method").is_none())?;
        if let Some(e) = r.get("error") {
            return Err(format!("JSON-RPC error {e}"));
        }
        Ok(r["result"].clone())
    }

    fn rpc(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.send(method, params)?;
        self.answer(id)
    }

    fn has(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let r = self.rpc("tools/call", json!({"name": tool, "arguments": args}))?;
        if r["isError"] == true {
            return Err(format!("{tool}: {}", r["content"][0]["text"]));
        }
        Ok(r)
    }

    fn peak_rss_kib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.peer.child.as_ref()?.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
}

fn launch_args(env: &Env, adapter: &str) -> Value {
    let (program, source) = match adapter {
        "debugpy" => (env.py_target.clone(), env.py_target.clone()),
        "node" => (env.js_target.clone(), env.js_target.clone()),
        _ => (env.c_binary.clone(), env.c_target.clone()),
    };
    json!({
        "program": program, "args": [DEBUGGEE_LOOPS], "adapter": adapter,
        "breakpoints": [{"path": source, "line": env.break_line(&source)}],
    })
}

/// The first integer under a key that looks like a variables reference, anywhere in `v`.
fn find_ref(v: &Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            for key in ["ref", "variables_reference", "variablesReference"] {
                if let Some(r) = m.get(key).filter(|r| r.as_i64().is_some_and(|n| n > 0)) {
                    return Some(r.clone());
                }
            }
            m.values().find_map(find_ref)
        }
        Value::Array(a) => a.iter().find_map(find_ref),
        _ => None,
    }
}

fn mcp_session(
    env: &Env,
    adapter: &str,
    fast: bool,
    s: &mut Samples,
    rss: &mut Vec<(String, f64)>,
) -> Result<Vec<String>, String> {
    let mut mcp = Mcp::start(env, fast, s)?;
    let t = Instant::now();
    mcp.call("launch", launch_args(env, adapter))?;
    s.add("launch→breakpoint", t);
    for _ in 0..ITERS {
        for op in OPS.iter().filter(|o| o.name != "launch→breakpoint") {
            let Some(tool) = op.tool.filter(|t| mcp.has(t)) else { continue };
            let mut args = (op.args)();
            if tool == "variables" {
                // A reference from `scopes` (or `context`) if those tools exist.
                let from = ["scopes", "context"].into_iter().find(|t| mcp.has(t));
                let Some(from) = from else { continue };
                let got = mcp.call(from, json!({}))?;
                let Some(r) = find_ref(&got["structuredContent"]) else { continue };
                args["ref"] = r;
            }
            let t = Instant::now();
            mcp.call(tool, args)?;
            s.add(op.name, t);
        }
    }
    if let Some(kib) = mcp.peak_rss_kib() {
        rss.push((format!("{adapter}:1"), kib));
    }
    let _ = mcp.call("disconnect", json!({}));
    let tools = mcp.tools.clone();
    mcp.peer.finish();
    Ok(tools)
}

/// agentdap's peak RSS with [`MANY`] sessions stopped at a breakpoint at once.
fn many_sessions(env: &Env) -> Result<f64, String> {
    let mut scratch = Samples::default();
    let mut mcp = Mcp::start(env, true, &mut scratch)?;
    let ids: Vec<i64> = (0..MANY)
        .map(|_| mcp.send("tools/call", json!({"name": "launch", "arguments": launch_args(env, "debugpy")})))
        .collect::<Result<_, _>>()?;
    for id in ids {
        let r = mcp.answer(id)?;
        if r["isError"] == true {
            return Err(format!("launch: {}", r["content"][0]["text"]));
        }
    }
    mcp.call("sessions", json!({}))?;
    let kib = mcp.peak_rss_kib().ok_or("no /proc status")?;
    mcp.peer.finish();
    Ok(kib)
}

// ---------------------------------------------------------------------------------------------
// Environment and the table.

struct Env {
    agentdap: PathBuf,
    python: PathBuf,
    py_target: PathBuf,
    c_target: PathBuf,
    c_binary: PathBuf,
    lldb_dap: Option<PathBuf>,
    js_target: PathBuf,
    /// js-debug's DAP server script ([`jsdebug::find_server`]); `None` skips the js-debug rows.
    js_debug: Option<PathBuf>,
}

impl Env {
    fn break_line(&self, source: &Path) -> usize {
        let text = std::fs::read_to_string(source).unwrap_or_default();
        text.lines().position(|l| l.contains("BREAK")).map_or(1, |i| i + 1)
    }
}

fn find_lldb_dap() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["lldb-dap", "lldb-dap-22", "lldb-dap-21", "lldb-dap-20", "lldb-dap-19"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn setup() -> Result<Env, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("AGENTDAP_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".deps/venv/bin/python"));
    if !python.exists() {
        return Err(format!("no Python with debugpy at {} (run scripts/install-test-deps)", python.display()));
    }
    let scratch = std::env::temp_dir().join(format!("agentdap-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let c_target = root.join("benches/roundtrip_target.c");
    let c_binary = scratch.join("roundtrip_target");
    let mut lldb_dap = find_lldb_dap();
    if lldb_dap.is_some() {
        let built = Command::new("cc").args(["-g", "-O0", "-o"]).arg(&c_binary).arg(&c_target).status();
        if !built.is_ok_and(|s| s.success()) {
            eprintln!("roundtrip: cc failed; lldb rows skipped");
            lldb_dap = None;
        }
    }
    let js_debug = match jsdebug::find_server(root) {
        Ok(server) => Some(server),
        Err(e) => {
            eprintln!("roundtrip: {e}; js-debug rows skipped");
            None
        }
    };
    Ok(Env {
        // `AGENTDAP_BENCH_BIN` measures another build (an older commit's, to compare two in one run).
        agentdap: std::env::var_os("AGENTDAP_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_agentdap"))),
        python,
        py_target: root.join("benches/roundtrip_target.py"),
        c_target,
        c_binary,
        lldb_dap,
        js_target: root.join("benches/roundtrip_target.js"),
        js_debug,
    })
}

const DEBUGPY: RawTarget = RawTarget {
    adapter: "debugpy",
    command: |env, fast| {
        let mut c = Command::new(&env.python);
        c.args(agentdap::dap::adapters::debugpy::fastpath::adapter_args(fast));
        c.env("PYDEVD_DISABLE_FILE_VALIDATION", "1");
        c
    },
    launch: |env| {
        json!({"type": "debugpy", "request": "launch", "program": env.py_target, "args": [DEBUGGEE_LOOPS],
               "console": "internalConsole", "justMyCode": true})
    },
    source: |env| env.py_target.clone(),
};

const LLDB: RawTarget = RawTarget {
    adapter: "lldb-dap",
    command: |env, _| Command::new(env.lldb_dap.clone().unwrap_or_default()),
    launch: |env| json!({"program": env.c_binary, "args": [DEBUGGEE_LOOPS], "stopOnEntry": false}),
    source: |env| env.c_target.clone(),
};

struct Block {
    adapter: &'static str,
    fastpath: &'static str,
    raw: Result<Samples, String>,
    mcp: Result<Samples, String>,
    tools: Vec<String>,
}

fn measure_raw(env: &Env, target: &RawTarget, fast: bool) -> Result<Samples, String> {
    let mut s = Samples::default();
    for i in 0..STARTS {
        raw_session(env, target, fast, &mut s, i == 0)?;
    }
    Ok(s)
}

fn measure_mcp(
    env: &Env,
    adapter: &str,
    fast: bool,
    rss: &mut Vec<(String, f64)>,
) -> Result<(Samples, Vec<String>), String> {
    let mut s = Samples::default();
    let mut tools = Vec::new();
    for i in 0..STARTS {
        if i == 0 {
            tools = mcp_session(env, adapter, fast, &mut s, rss)?;
        } else {
            let mut mcp = Mcp::start(env, fast, &mut s)?;
            let t = Instant::now();
            mcp.call("launch", launch_args(env, adapter))?;
            s.add("launch→breakpoint", t);
            let _ = mcp.call("disconnect", json!({}));
            mcp.peer.finish();
        }
    }
    Ok((s, tools))
}

fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"))
}

fn print_table(blocks: &[Block], rss: &[(String, f64)]) {
    println!(
        "{:<9} {:<8} {:<20} {:<4} {:>10} {:>10} {:>11} {:>4}  note",
        "adapter", "fastpath", "operation", "unit", "raw_dap", "agentdap", "overhead", "n"
    );
    for b in blocks {
        for op in OPS {
            let raw = b.raw.as_ref().ok().and_then(|s| s.median(op.name)).filter(|_| op.raw);
            let mcp = b.mcp.as_ref().ok().and_then(|s| s.median(op.name));
            let mut note = String::new();
            if let Err(e) = &b.raw {
                note = format!("raw: {e}");
            }
            if let Err(e) = &b.mcp {
                note = format!("{note} agentdap: {e}").trim().to_string();
            } else if op.tool.is_some_and(|t| t != "launch" && !b.tools.iter().any(|x| x == t)) {
                note = format!("{note} no `{}` tool yet", op.tool.unwrap_or_default()).trim().to_string();
            }
            let overhead = match (raw, mcp) {
                (Some((r, _)), Some((m, _))) => Some(m - r),
                _ => None,
            };
            let n = mcp.or(raw).map_or(0, |(_, n)| n);
            println!(
                "{:<9} {:<8} {:<20} {:<4} {:>10} {:>10} {:>11} {:>4}  {}",
                b.adapter,
                b.fastpath,
                op.name,
                "ms",
                fmt(raw.map(|r| r.0)),
                fmt(mcp.map(|m| m.0)),
                fmt(overhead),
                n,
                note
            );
        }
    }
    for (what, kib) in rss {
        println!(
            "{:<9} {:<8} {:<20} {:<4} {:>10} {:>10} {:>11} {:>4}  VmHWM of agentdap alone (adapters excluded)",
            "debugpy",
            "on",
            what,
            "KiB",
            "—",
            format!("{kib:.0}"),
            "—",
            1,
        );
    }
}

fn main() {
    // `cargo test --all-targets` runs bench targets without `--bench`: nothing to do then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let env = match setup() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("roundtrip: {e}");
            std::process::exit(1);
        }
    };
    // `AGENTDAP_BENCH_ONLY=js-debug` (a comma-separated list of the table's adapter names)
    // measures those blocks alone; the 10-session RSS figure goes with debugpy.
    let only = std::env::var("AGENTDAP_BENCH_ONLY").ok();
    let wanted = |adapter: &str| only.as_deref().map_or(true, |o| o.split(',').any(|a| a.trim() == adapter));
    let started = Instant::now();
    let mut blocks = Vec::new();
    let mut rss = Vec::new();
    for (fast, label) in [(true, "on"), (false, "off")].into_iter().filter(|_| wanted("debugpy")) {
        let raw = measure_raw(&env, &DEBUGPY, fast);
        let mut rss_here = Vec::new();
        let mcp = measure_mcp(&env, "debugpy", fast, &mut rss_here);
        if fast {
            rss.extend(rss_here.into_iter().map(|(_, k)| ("peak_rss_1_session".to_string(), k)));
        }
        let (mcp, tools) = match mcp {
            Ok((s, t)) => (Ok(s), t),
            Err(e) => (Err(e), Vec::new()),
        };
        blocks.push(Block { adapter: "debugpy", fastpath: label, raw, mcp, tools });
    }
    if env.lldb_dap.is_some() && wanted("lldb-dap") {
        let raw = measure_raw(&env, &LLDB, false);
        let (mcp, tools) = match measure_mcp(&env, "lldb-dap", false, &mut Vec::new()) {
            Ok((s, t)) => (Ok(s), t),
            Err(e) => (Err(e), Vec::new()),
        };
        blocks.push(Block { adapter: "lldb-dap", fastpath: "n/a", raw, mcp, tools });
    } else {
        eprintln!("roundtrip: lldb-dap not found (apt-get install lldb-22); lldb rows skipped");
    }
    if let Some(server) = env.js_debug.as_ref().filter(|_| wanted("js-debug")) {
        let mut s = Samples::default();
        let raw = (0..STARTS).try_for_each(|i| jsdebug::raw_session(&env, server, &mut s, i == 0)).map(|()| s);
        let (mcp, tools) = match measure_mcp(&env, "node", true, &mut Vec::new()) {
            Ok((s, t)) => (Ok(s), t),
            Err(e) => (Err(e), Vec::new()),
        };
        blocks.push(Block { adapter: "js-debug", fastpath: "n/a", raw, mcp, tools });
    }
    if wanted("debugpy") {
        match many_sessions(&env) {
            Ok(kib) => rss.push((format!("peak_rss_{MANY}_sessions"), kib)),
            Err(e) => eprintln!("roundtrip: {MANY} sessions: {e}"),
        }
    }
    print_table(&blocks, &rss);
    println!("({ITERS} round trips, {STARTS} starts per row; medians; took {:.1} s)", started.elapsed().as_secs_f64());
    let _ = std::fs::remove_dir_all(env.c_binary.parent().unwrap_or(Path::new("/nonexistent")));
}
