//! End-to-end round-trip benchmark (`cargo bench --bench roundtrip`): the built agentdap binary
//! driven over stdio by a tiny MCP client, next to the same operation done by a raw DAP client
//! straight to the adapter, so agentdap's own overhead is the difference; debugpy with and without
//! the fast path, lldb-dap when installed, js-debug when found (its raw client in
//! `roundtrip/jsdebug.rs`), rdbg when found (`roundtrip/rdbg.rs`: `$AGENTDAP_RDBG`, `rdbg` on
//! `PATH` or the debug gem in Ruby's gem directories, as agentdap finds it), CodeLLDB when found
//! (`roundtrip/codelldb.rs`: `$AGENTDAP_CODELLDB`, else the vendored test copy under
//! `$AGENTDAP_DEPS`); agentdap's peak RSS with 1 and 10 sessions. An adapter that is not found
//! prints a line saying its rows are skipped.
//!
//! Rows are data: [`OPS`] names each operation, its raw DAP form and its MCP tool; a tool that
//! `tools/list` does not offer yet prints `—`. The raw client sends the `launch` arguments and
//! the `evaluate` context agentdap's recipe sends, so the difference is agentdap's own.
//! `AGENTDAP_BENCH_ONLY=rdbg,codelldb` (the table's adapter names: `debugpy`, `lldb-dap`,
//! `js-debug`, `rdbg`, `codelldb`) measures those blocks alone. Processes, connections and
//! framing are in `roundtrip/peer.rs`. Run as a test
//! (`cargo test --all-targets`, no `--bench` argument) it returns at once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "roundtrip/codelldb.rs"]
mod codelldb;
#[path = "roundtrip/jsdebug.rs"]
mod jsdebug;
#[path = "roundtrip/peer.rs"]
mod peer;
#[path = "roundtrip/rdbg.rs"]
mod rdbg;

use peer::{connect_retrying, reap, Peer};

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
    // Three expressions in one `evaluate {expressions}` call, against three raw requests.
    Op {
        name: "evaluate ×3",
        raw: true,
        tool: Some("evaluate"),
        args: || json!({"expressions": ["acc", "acc", "acc"]}),
    },
    Op { name: "variables", raw: true, tool: Some("variables"), args: || json!({}) },
    Op { name: "context", raw: true, tool: Some("context"), args: || json!({}) },
    // A stop result carries the top frame's locals (or what changed in them): the raw client
    // asks for them too (`stackTrace`, `scopes`, `variables`), and `· location` is the same
    // stop with `locals: false` against a raw client that asks for the top frame alone.
    Op { name: "step", raw: true, tool: Some("step"), args: || json!({"kind": "over"}) },
    Op { name: "step · location", raw: true, tool: Some("step"), args: || json!({"kind": "over", "locals": false}) },
    Op { name: "continue", raw: true, tool: Some("continue"), args: || json!({}) },
    Op { name: "continue · location", raw: true, tool: Some("continue"), args: || json!({"locals": false}) },
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

/// What differs between adapters for the raw client once it is connected.
struct RawTarget {
    adapter: &'static str,
    /// The `launch` arguments agentdap's recipe sends (its launch defaults and the session's keys).
    launch: fn(&Env) -> Value,
    source: fn(&Env) -> PathBuf,
    /// The `evaluate` context agentdap sends when the agent names none
    /// (`RuntimeQuirks::evaluate_context` of the recipe).
    context: &'static str,
    /// The `setExceptionBreakpoints` filters agentdap sends before `configurationDone` (the
    /// adapter's defaults); `None`: the raw client sends no `setExceptionBreakpoints`.
    exception_filters: Option<&'static [&'static str]>,
}

/// A raw session with an adapter on stdio started by `command`.
fn raw_session(
    env: &Env,
    command: Command,
    target: &RawTarget,
    s: &mut Samples,
    round_trips: bool,
) -> Result<(), String> {
    let t0 = Instant::now();
    let mut dap = Dap { peer: Peer::start(command, true)?, seq: 0 };
    let driven = raw_drive(&mut dap, env, target, t0, s, round_trips);
    dap.peer.finish();
    driven
}

/// A raw session on a connected client, from `initialize` (spawn → initialize counts from
/// `t0`) to the `disconnect` request.
fn raw_drive(
    dap: &mut Dap,
    env: &Env,
    target: &RawTarget,
    t0: Instant,
    s: &mut Samples,
    round_trips: bool,
) -> Result<(), String> {
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
    if let Some(filters) = target.exception_filters {
        dap.request("setExceptionBreakpoints", json!({"filters": filters}))?;
    }
    dap.request("configurationDone", json!({}))?;
    let stopped = dap.event("stopped")?;
    s.add("launch→breakpoint", t0);
    dap.response(launch)?;
    let thread = stopped["body"]["threadId"].clone();
    if round_trips {
        for _ in 0..ITERS {
            round_trip(dap, &thread, target.context, s)?;
        }
    }
    let _ = dap.request("disconnect", json!({"terminateDebuggee": true}));
    Ok(())
}

/// One round of the measured operations at a breakpoint, on the connection that owns `thread`;
/// `evaluate` in `context`.
fn round_trip(dap: &mut Dap, thread: &Value, context: &str, s: &mut Samples) -> Result<(), String> {
    let t = Instant::now();
    let st = dap.request("stackTrace", json!({"threadId": thread, "levels": 20}))?;
    s.add("stack_trace", t);
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let t = Instant::now();
    dap.request("evaluate", json!({"expression": "acc", "frameId": frame, "context": context}))?;
    s.add("evaluate", t);
    let t = Instant::now();
    for _ in 0..3 {
        dap.request("evaluate", json!({"expression": "acc", "frameId": frame, "context": context}))?;
    }
    s.add("evaluate ×3", t);
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
    // `step` and `continue` through agentdap answer with where the program stopped and the top
    // frame's locals, so the raw client asks for them too; `· location` the top frame alone
    // (what any client needs to know the line).
    for (command, with_locals, name) in [
        ("next", true, "step"),
        ("next", false, "step · location"),
        ("continue", true, "continue"),
        ("continue", false, "continue · location"),
    ] {
        let t = Instant::now();
        dap.request(command, json!({"threadId": thread}))?;
        dap.event("stopped")?;
        let st = dap.request("stackTrace", json!({"threadId": thread, "levels": 1}))?;
        if with_locals {
            let frame = st["body"]["stackFrames"][0]["id"].clone();
            let scopes = dap.request("scopes", json!({"frameId": frame}))?;
            let vref = scopes["body"]["scopes"][0]["variablesReference"].clone();
            dap.request("variables", json!({"variablesReference": vref}))?;
        }
        s.add(name, t);
    }
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
        // agentdap finds rdbg itself, as `roundtrip/rdbg.rs` does; CodeLLDB's vendored test
        // copy is not where agentdap looks, so it is named.
        if let Some(codelldb) = &env.codelldb {
            cmd.env("AGENTDAP_CODELLDB", codelldb);
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
        "rdbg" => (env.rb_target.clone(), env.rb_target.clone()),
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
    rb_target: PathBuf,
    /// rdbg and the `ruby` to run it ([`rdbg::find`]); `None` skips the rdbg rows.
    rdbg: Option<rdbg::Rdbg>,
    /// CodeLLDB's `codelldb` ([`codelldb::find`]); `None` skips the CodeLLDB rows.
    codelldb: Option<PathBuf>,
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
    let mut codelldb = match codelldb::find(root) {
        Ok(path) => Some(path),
        Err(e) => {
            eprintln!("roundtrip: {e}; codelldb rows skipped");
            None
        }
    };
    if lldb_dap.is_some() || codelldb.is_some() {
        let built = Command::new("cc").args(["-g", "-O0", "-o"]).arg(&c_binary).arg(&c_target).status();
        if !built.is_ok_and(|s| s.success()) {
            eprintln!("roundtrip: cc failed; lldb-dap and codelldb rows skipped");
            lldb_dap = None;
            codelldb = None;
        }
    }
    let rdbg = match rdbg::find() {
        Ok(found) => Some(found),
        Err(e) => {
            eprintln!("roundtrip: {e}; rdbg rows skipped");
            None
        }
    };
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
        rb_target: root.join("benches/roundtrip_target.rb"),
        rdbg,
        codelldb,
    })
}

fn debugpy_command(env: &Env, fast: bool) -> Command {
    let mut c = Command::new(&env.python);
    c.args(agentdap::dap::adapters::debugpy::fastpath::adapter_args(fast));
    c.env("PYDEVD_DISABLE_FILE_VALIDATION", "1");
    c
}

fn lldb_command(env: &Env, _fast: bool) -> Command {
    Command::new(env.lldb_dap.clone().unwrap_or_default())
}

const DEBUGPY: RawTarget = RawTarget {
    adapter: "debugpy",
    launch: |env| {
        json!({"type": "debugpy", "request": "launch", "program": env.py_target, "args": [DEBUGGEE_LOOPS],
               "console": "internalConsole", "justMyCode": true})
    },
    source: |env| env.py_target.clone(),
    context: "repl",
    exception_filters: None,
};

const LLDB: RawTarget = RawTarget {
    adapter: "lldb-dap",
    launch: |env| json!({"program": env.c_binary, "args": [DEBUGGEE_LOOPS], "stopOnEntry": false}),
    source: |env| env.c_target.clone(),
    // The lldb recipe's `evaluate_context` (`src/dap/adapters/lldb.rs`).
    context: "watch",
    exception_filters: None,
};

struct Block {
    adapter: &'static str,
    fastpath: &'static str,
    raw: Result<Samples, String>,
    mcp: Result<Samples, String>,
    tools: Vec<String>,
}

fn measure_raw(
    env: &Env,
    command: fn(&Env, bool) -> Command,
    target: &RawTarget,
    fast: bool,
) -> Result<Samples, String> {
    let mut s = Samples::default();
    for i in 0..STARTS {
        raw_session(env, command(env, fast), target, &mut s, i == 0)?;
    }
    Ok(s)
}

/// A raw DAP block whose sessions `session` starts itself (a TCP adapter), next to agentdap's.
fn tcp_block(
    env: &Env,
    adapter: &'static str,
    tool_adapter: &str,
    session: impl Fn(&Env, &mut Samples, bool) -> Result<(), String>,
) -> Block {
    let mut s = Samples::default();
    let raw = (0..STARTS).try_for_each(|i| session(env, &mut s, i == 0)).map(|()| s);
    let (mcp, tools) = match measure_mcp(env, tool_adapter, true, &mut Vec::new()) {
        Ok((s, t)) => (Ok(s), t),
        Err(e) => (Err(e), Vec::new()),
    };
    Block { adapter, fastpath: "n/a", raw, mcp, tools }
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
        let raw = measure_raw(&env, debugpy_command, &DEBUGPY, fast);
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
        let raw = measure_raw(&env, lldb_command, &LLDB, false);
        let (mcp, tools) = match measure_mcp(&env, "lldb-dap", false, &mut Vec::new()) {
            Ok((s, t)) => (Ok(s), t),
            Err(e) => (Err(e), Vec::new()),
        };
        blocks.push(Block { adapter: "lldb-dap", fastpath: "n/a", raw, mcp, tools });
    } else if wanted("lldb-dap") {
        eprintln!("roundtrip: lldb-dap not found (apt-get install lldb-22); lldb rows skipped");
    }
    if let Some(server) = env.js_debug.as_ref().filter(|_| wanted("js-debug")) {
        blocks.push(tcp_block(&env, "js-debug", "node", |env, s, rt| jsdebug::raw_session(env, server, s, rt)));
    }
    if let Some(found) = env.rdbg.as_ref().filter(|_| wanted("rdbg")) {
        blocks.push(tcp_block(&env, "rdbg", "rdbg", |env, s, rt| rdbg::raw_session(env, found, s, rt)));
    }
    if let Some(path) = env.codelldb.as_ref().filter(|_| wanted("codelldb")) {
        blocks.push(tcp_block(&env, "codelldb", "codelldb", |env, s, rt| codelldb::raw_session(env, path, s, rt)));
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
