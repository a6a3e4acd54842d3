//! Scale benchmark (`cargo bench --bench scale`): one agentdap process (the built binary, over
//! stdio, a small MCP client) holding 32 live sessions on real debugpy, each stopped at a
//! breakpoint. It prints agentdap's own memory (VmRSS and VmHWM of the agentdap process alone,
//! adapters excluded) with 1 and 32 sessions and after a flood, and the latency of `step` on one
//! quiet session while the other 31 are idle, then while one neighbour's program prints as fast
//! as it can (running, not stopped): median, p99 and their ratio, next to a raw DAP client
//! stepping its own debugpy at the same moments (what the machine alone costs: the flood's
//! Python processes take CPU from everyone). Every call must be answered, correctly; the
//! flooding session's dropped output is printed as agentdap reports it (`output`, `sessions`).
//!
//! Targets (printed `met` or `MISSED`; a shared or small machine misses the second through the
//! flood's own CPU, which the raw client's ratio shows): RSS ≤ 10 MB with 32 sessions; the quiet
//! session's median `step` under the flood ≤ 1.5× its median without. The bench fails (exit 2)
//! only on a wrong or missing answer, or on output neither held nor counted. `AGENTDAP_BENCH_BIN` measures another build; `AGENTDAP_TEST_PYTHON`
//! names the Python with debugpy (default `.deps/venv/bin/python`). Processes and pipes are
//! `roundtrip/peer.rs`'s. Run as a test (`cargo test --all-targets`, no `--bench` argument) it
//! returns at once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "roundtrip/peer.rs"]
#[allow(dead_code)] // its TCP half serves `roundtrip.rs` alone
mod peer;

use peer::Peer;

/// Live sessions at once (agentdap's `MAX_SESSIONS`).
const SESSIONS: usize = 32;
/// Launches sent at once while filling the table (all 32 at once overload a 2-core machine
/// past the launch's own wait).
const LAUNCH_BATCH: usize = 8;
/// Timed `step` calls per phase (after [`WARMUP`] untimed ones).
const STEPS: usize = 200;
const WARMUP: usize = 10;
/// How long the flood runs before the timed steps start (to reach its pace).
const FLOOD_SETTLE: Duration = Duration::from_millis(1500);
/// The longest any single wait may take (`peer.rs` reads it).
const WAIT: Duration = Duration::from_secs(90);
/// The targets this bench checks.
const RSS_TARGET_KIB: u64 = 10 * 1024;
const FLOOD_RATIO_TARGET: f64 = 1.5;

/// The quiet program: a loop to step over, forever. Lines 4–7 are the loop (Python 3.11 stops at `while True:` too).
const QUIET: &str = "# scale bench: a loop stepped over, forever\n\
def main():\n    i = 0\n    while True:\n        i += 1  # BREAK\n        j = i * 2\n        i = j - i\n\n\nmain()\n";
const QUIET_LINES: [u64; 4] = [4, 5, 6, 7];
/// The flooding program: stops once at its breakpoint, then prints as fast as it can.
const FLOOD: &str = "# scale bench: prints as fast as it can\n\
def main():\n    n = 0  # BREAK\n    while True:\n        print('flood line', n)\n        n += 1\n\n\nmain()\n";

// ---------------------------------------------------------------------------------------------
// The MCP client (JSON-RPC over agentdap's stdio) and the raw DAP client.

struct Mcp {
    peer: Peer,
    id: i64,
}

impl Mcp {
    fn start(env: &Env) -> Result<Mcp, String> {
        let mut cmd = Command::new(&env.agentdap);
        cmd.env("AGENTDAP_PYTHON", &env.python).env("AGENTDAP_LOG", "warn");
        cmd.env("AGENTDAP_STATE_DIR", env.scratch.join("state"));
        let mut mcp = Mcp { peer: Peer::start(cmd, false)?, id: 0 };
        mcp.rpc(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agentdap-bench", "version": "0"}}),
        )?;
        mcp.peer.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
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

    fn call(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let r = self.rpc("tools/call", json!({"name": tool, "arguments": args}))?;
        tool_ok(tool, r)
    }

    /// `(VmRSS, VmHWM)` of the agentdap process alone, KiB.
    fn memory_kib(&self) -> Result<(u64, u64), String> {
        let pid = self.peer.child.as_ref().ok_or("no child")?.id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
        let field = |name: &str| {
            let line = status.lines().find(|l| l.starts_with(name))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        };
        Ok((field("VmRSS:").ok_or("no VmRSS")?, field("VmHWM:").ok_or("no VmHWM")?))
    }
}

fn tool_ok(tool: &str, r: Value) -> Result<Value, String> {
    if r["isError"] == true {
        return Err(format!("{tool}: {}", r["content"][0]["text"]));
    }
    Ok(r)
}

/// A raw DAP client on its own debugpy adapter (the machine's baseline).
struct Dap {
    peer: Peer,
    seq: i64,
    thread: Value,
}

impl Dap {
    fn request(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        self.seq += 1;
        let seq = self.seq;
        let body = json!({"seq": seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        self.peer.write(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())?;
        let r = self.peer.wait(command, |m| m["type"] == "response" && m["request_seq"] == seq)?;
        match r["success"] == true {
            true => Ok(r),
            false => Err(format!("{command} failed: {}", r["message"])),
        }
    }

    fn event(&mut self, name: &str) -> Result<Value, String> {
        self.peer.wait(name, |m| m["type"] == "event" && m["event"] == name)
    }

    /// debugpy launched on `program`, stopped at its `BREAK` line.
    fn launch(env: &Env, program: &Path) -> Result<Dap, String> {
        let mut cmd = Command::new(&env.python);
        cmd.args(agentdap::dap::adapters::debugpy::fastpath::adapter_args(true));
        cmd.env("PYDEVD_DISABLE_FILE_VALIDATION", "1");
        let mut dap = Dap { peer: Peer::start(cmd, true)?, seq: 0, thread: Value::Null };
        dap.request(
            "initialize",
            json!({"clientID": "agentdap-bench", "adapterID": "debugpy", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"}),
        )?;
        dap.seq += 1;
        let launch = json!({"seq": dap.seq, "type": "request", "command": "launch", "arguments": {
            "type": "debugpy", "request": "launch", "program": program, "console": "internalConsole", "justMyCode": true}})
        .to_string();
        dap.peer.write(format!("Content-Length: {}\r\n\r\n{launch}", launch.len()).as_bytes())?;
        dap.event("initialized")?;
        let line = break_line(program);
        dap.request("setBreakpoints", json!({"source": {"path": program}, "breakpoints": [{"line": line}]}))?;
        dap.request("configurationDone", json!({}))?;
        let stopped = dap.event("stopped")?;
        dap.thread = stopped["body"]["threadId"].clone();
        Ok(dap)
    }

    /// `next`, its stop, and the top frame's locals (what agentdap's `step` answers with).
    fn step(&mut self) -> Result<(), String> {
        let thread = self.thread.clone();
        self.request("next", json!({"threadId": thread}))?;
        self.event("stopped")?;
        let st = self.request("stackTrace", json!({"threadId": thread, "levels": 1}))?;
        let frame = st["body"]["stackFrames"][0]["id"].clone();
        let scopes = self.request("scopes", json!({"frameId": frame}))?;
        let vref = scopes["body"]["scopes"][0]["variablesReference"].clone();
        self.request("variables", json!({"variablesReference": vref}))?;
        Ok(())
    }

    fn finish(mut self) {
        let _ = self.request("disconnect", json!({"terminateDebuggee": true}));
        self.peer.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// The measurement.

struct Env {
    agentdap: PathBuf,
    python: PathBuf,
    scratch: PathBuf,
    quiet: PathBuf,
    flood: PathBuf,
}

fn break_line(program: &Path) -> usize {
    let text = std::fs::read_to_string(program).unwrap_or_default();
    text.lines().position(|l| l.contains("BREAK")).map_or(1, |i| i + 1)
}

fn launch_args(program: &Path) -> Value {
    json!({
        "program": program, "adapter": "debugpy", "wait_ms": 50000,
        "breakpoints": [{"path": program, "line": break_line(program)}],
    })
}

/// Launches `programs` at once; the session ids, in order. Each must stop at its breakpoint.
fn launch_all(mcp: &mut Mcp, programs: &[&Path]) -> Result<Vec<String>, String> {
    let ids: Vec<i64> = programs
        .iter()
        .map(|p| mcp.send("tools/call", json!({"name": "launch", "arguments": launch_args(p)})))
        .collect::<Result<_, _>>()?;
    let mut sessions = Vec::new();
    for id in ids {
        let r = tool_ok("launch", mcp.answer(id)?)?;
        let s = &r["structuredContent"];
        if s["state"] != "stopped" || s["stop"]["reason"] != "breakpoint" {
            return Err(format!("launch did not stop at its breakpoint: {}", r["content"][0]["text"]));
        }
        sessions.push(s["session"].as_str().ok_or("no session id")?.to_owned());
    }
    Ok(sessions)
}

/// What one phase measured: agentdap's `step` and the raw client's, ms, sorted; and each
/// agentdap step less the raw step after it (agentdap's own share, as far as pairs can say).
struct Phase {
    mcp: Vec<f64>,
    raw: Vec<f64>,
    extra: Vec<f64>,
}

/// [`STEPS`] steps on `session` through agentdap, each followed by one raw step, after
/// [`WARMUP`] of each. Every answer is checked: stopped, in the loop, a newer revision.
fn step_phase(mcp: &mut Mcp, raw: &mut Dap, session: &str) -> Result<Phase, String> {
    let mut phase = Phase { mcp: Vec::with_capacity(STEPS), raw: Vec::with_capacity(STEPS), extra: Vec::new() };
    let mut revision = -1;
    for i in 0..WARMUP + STEPS {
        let t = Instant::now();
        let r = mcp.call("step", json!({"session": session, "kind": "over"}))?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let s = &r["structuredContent"];
        let line = s["stop"]["location"]["line"].as_u64().unwrap_or(0);
        let rev = s["revision"].as_i64().unwrap_or(-1);
        if s["session"] != session || s["state"] != "stopped" || !QUIET_LINES.contains(&line) || rev <= revision {
            return Err(format!(
                "step {i} answered wrongly (previous revision {revision}): {}",
                r["content"][0]["text"]
            ));
        }
        revision = rev;
        let t = Instant::now();
        raw.step()?;
        let raw_ms = t.elapsed().as_secs_f64() * 1e3;
        if i >= WARMUP {
            phase.mcp.push(ms);
            phase.raw.push(raw_ms);
            phase.extra.push(ms - raw_ms);
        }
    }
    phase.mcp.sort_by(f64::total_cmp);
    phase.raw.sort_by(f64::total_cmp);
    phase.extra.sort_by(f64::total_cmp);
    Ok(phase)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// The flooding session's output as agentdap reports it (`output` read from cursor 0).
struct FloodOutput {
    /// Entries so far (the cursor after the newest).
    entries: u64,
    /// Entries and bytes the ring dropped, as `output` says.
    dropped: u64,
    dropped_bytes: u64,
    /// The answer's first line.
    head: String,
    /// The number of the newest `flood line N` held.
    last_line: u64,
}

fn flood_output(mcp: &mut Mcp, session: &str) -> Result<FloodOutput, String> {
    let r = mcp.call("output", json!({"session": session, "limit": 1}))?;
    let s = &r["structuredContent"];
    let head = r["content"][0]["text"].as_str().unwrap_or_default().lines().next().unwrap_or_default().to_owned();
    let total = mcp.call("output", json!({"session": session, "since": u64::MAX >> 12, "limit": 1}))?;
    let entries = total["structuredContent"]["next_cursor"].as_u64().unwrap_or(0);
    let newest = mcp.call("output", json!({"session": session, "since": entries.saturating_sub(2)}))?;
    let text: String = newest["structuredContent"]["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["text"].as_str())
        .collect();
    Ok(FloodOutput {
        entries,
        dropped: s["dropped"].as_u64().unwrap_or(0),
        dropped_bytes: s["dropped_bytes"].as_u64().unwrap_or(0),
        head,
        last_line: last_complete_line(&text).unwrap_or(0),
    })
}

/// The `N` of the last whole `flood line N` line in `text`.
fn last_complete_line(text: &str) -> Option<u64> {
    let whole = &text[..text.rfind('\n')?];
    whole.rsplit('\n').find_map(|l| l.strip_prefix("flood line ")?.trim().parse().ok())
}

/// Bytes of `flood line 0\n` … `flood line N\n`, as the flooding program prints them.
fn printed_bytes(n: u64) -> u64 {
    let mut total = 0;
    let mut start = 0;
    for digits in 1..20u32 {
        let end = 10u64.pow(digits).min(n + 1);
        if start >= end {
            break;
        }
        total += (end - start) * (u64::from(digits) + "flood line \n".len() as u64);
        start = end;
    }
    total
}

/// With the flood paused: every byte it printed is held by the ring or counted as dropped.
/// Reads everything still held from the first kept cursor; `(printed, held, dropped)` bytes.
fn account(mcp: &mut Mcp, session: &str) -> Result<(u64, u64, u64), String> {
    let r = mcp.call("pause", json!({"session": session}))?;
    if r["structuredContent"]["state"] != "stopped" {
        return Err(format!("pause did not stop the flood: {}", r["content"][0]["text"]));
    }
    // debugpy's adapter and launcher still hold a backlog of the flood's output after the stop
    // (megabytes, in their queues and sockets): it is read back once it stopped coming.
    let deadline = Instant::now() + WAIT;
    let mut seen = u64::MAX;
    loop {
        let r = mcp.call("output", json!({"session": session, "since": u64::MAX >> 12, "limit": 1}))?;
        let now = r["structuredContent"]["next_cursor"].as_u64().unwrap_or(0);
        if now == seen {
            break;
        }
        if Instant::now() > deadline {
            return Err("the paused flood's output never stopped coming".into());
        }
        seen = now;
        thread::sleep(Duration::from_millis(500));
    }
    let mut since = 0;
    let (mut held, mut dropped) = (0u64, None);
    let mut tail = String::new();
    loop {
        let page = mcp.call("output", json!({"session": session, "since": since, "limit": 1000}))?;
        let s = &page["structuredContent"];
        dropped = dropped.or_else(|| s["dropped_bytes"].as_u64());
        for text in s["entries"].as_array().into_iter().flatten().filter_map(|e| e["text"].as_str()) {
            held += text.len() as u64;
            tail.push_str(text);
            if tail.len() > 4096 {
                tail.drain(..tail.len() - 256);
            }
        }
        since = s["next_cursor"].as_u64().ok_or("no next_cursor")?;
        if s["more"] != true {
            break;
        }
    }
    let n = last_complete_line(&tail).ok_or("no whole flood line held")?;
    let unfinished = tail.len() - tail.rfind('\n').map_or(0, |i| i + 1);
    Ok((printed_bytes(n) + unfinished as u64, held, dropped.unwrap_or(0)))
}

/// `(utime + stime, ppid)` of `pid` in clock ticks, from `/proc/<pid>/stat`.
fn proc_stat(pid: u64) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command's closing parenthesis: state is field 3, ppid 4, utime 14, stime 15.
    let rest: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let field = |n: usize| rest.get(n - 3)?.parse::<u64>().ok();
    Some((field(14)? + field(15)?, field(4)?))
}

/// The flooding session's processes: its debuggee and each parent up to (not including)
/// agentdap — debugpy's launcher and adapter.
fn chain_below(agentdap: u64, debuggee: u64) -> Vec<u64> {
    let mut chain = Vec::new();
    let mut pid = debuggee;
    while pid > 1 && pid != agentdap && chain.len() < 8 {
        chain.push(pid);
        match proc_stat(pid) {
            Some((_, ppid)) => pid = ppid,
            None => break,
        }
    }
    chain
}

/// `(busy, total)` jiffies of the whole machine, from `/proc/stat`.
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let v: Vec<u64> =
        stat.lines().next().unwrap_or_default().split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    let total: u64 = v.iter().sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

/// CPU use over a window: agentdap's, the flood's processes', the machine's.
struct Cpu {
    agentdap: u64,
    flood: Vec<u64>,
    at: Instant,
    machine: (u64, u64),
}

impl Cpu {
    fn sample(agentdap: u64, flood: &[u64]) -> Cpu {
        let ticks = |pid: u64| proc_stat(pid).map_or(0, |(t, _)| t);
        Cpu {
            agentdap: ticks(agentdap),
            flood: flood.iter().map(|p| ticks(*p)).collect(),
            at: Instant::now(),
            machine: machine_ticks(),
        }
    }

    /// `(agentdap, each flood process, machine busy)` in % of one core (the machine: of all of them).
    fn since(&self, before: &Cpu) -> (f64, Vec<f64>, f64) {
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let secs = self.at.duration_since(before.at).as_secs_f64().max(1e-9);
        let pct = |a: u64, b: u64| a.saturating_sub(b) as f64 / hz / secs * 100.0;
        let flood = self.flood.iter().zip(&before.flood).map(|(a, b)| pct(*a, *b)).collect();
        let (busy, total) = (self.machine.0 - before.machine.0, (self.machine.1 - before.machine.1).max(1));
        (pct(self.agentdap, before.agentdap), flood, busy as f64 / total as f64 * 100.0)
    }
}

fn kib(v: u64) -> String {
    format!("{:.1} MiB", v as f64 / 1024.0)
}

/// Runs the measurement; agentdap is ended (its sessions with it) whatever the outcome, before
/// the scratch directory its state lives in is removed.
fn run(env: &Env) -> Result<bool, String> {
    let mut mcp = Mcp::start(env)?;
    let result = measure(env, &mut mcp);
    mcp.peer.finish();
    result
}

fn measure(env: &Env, mcp: &mut Mcp) -> Result<bool, String> {
    let mut pass = true;
    let quiet = launch_all(mcp, &[&env.quiet])?.remove(0);
    thread::sleep(Duration::from_millis(300));
    let (rss1, hwm1) = mcp.memory_kib()?;
    let started = Instant::now();
    let mut programs: Vec<&Path> = vec![env.flood.as_path()];
    programs.extend(std::iter::repeat(env.quiet.as_path()).take(SESSIONS - 2));
    let mut ids = Vec::new();
    for batch in programs.chunks(LAUNCH_BATCH) {
        ids.extend(launch_all(mcp, batch)?);
    }
    let flood = ids[0].clone();
    let listed = mcp.call("sessions", json!({}))?;
    let live = listed["structuredContent"]["sessions"]
        .as_array()
        .map_or(0, |a| a.iter().filter(|s| s["state"] == "stopped").count());
    if live != SESSIONS {
        return Err(format!("{live} sessions stopped, not {SESSIONS}: {}", listed["content"][0]["text"]));
    }
    println!("{SESSIONS} sessions launched and stopped in {:.1} s", started.elapsed().as_secs_f64());
    thread::sleep(Duration::from_millis(300));
    let (rss32, hwm32) = mcp.memory_kib()?;

    let me = mcp.peer.child.as_ref().map_or(0, |c| u64::from(c.id()));
    let debuggee = listed["structuredContent"]["sessions"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["session"] == flood.as_str()))
        .and_then(|s| s["pid"].as_u64())
        .ok_or("the flooding session has no pid")?;
    let chain = chain_below(me, debuggee);

    let mut raw = Dap::launch(env, &env.quiet)?;
    let cpu0 = Cpu::sample(me, &chain);
    let idle = step_phase(mcp, &mut raw, &quiet)?;
    let cpu_idle = Cpu::sample(me, &chain).since(&cpu0);
    let (_, hwm_idle) = mcp.memory_kib()?;

    // The neighbour runs and floods; its `continue` answers `running` once its wait is over.
    let r = mcp.call("continue", json!({"session": flood, "wait_ms": 200}))?;
    if r["structuredContent"]["state"] != "running" {
        return Err(format!("the flood is not running: {}", r["content"][0]["text"]));
    }
    thread::sleep(FLOOD_SETTLE);
    let before = flood_output(mcp, &flood)?;
    let t0 = Instant::now();
    let cpu2 = Cpu::sample(me, &chain);
    let flooded = step_phase(mcp, &mut raw, &quiet)?;
    let cpu_flood = Cpu::sample(me, &chain).since(&cpu2);
    let took = t0.elapsed().as_secs_f64();
    let after = flood_output(mcp, &flood)?;
    let listed = mcp.call("sessions", json!({}))?;
    let (rss_flood, hwm_flood) = mcp.memory_kib()?;
    let state = listed["structuredContent"]["sessions"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["session"] == flood.as_str()))
        .map_or(Value::Null, |s| s["state"].clone());
    if state != "running" || after.entries <= before.entries {
        return Err(format!(
            "the flood stopped during the measurement ({state}, {} → {} entries)",
            before.entries, after.entries
        ));
    }
    let (printed, held, gone) = account(mcp, &flood)?;
    raw.finish();

    println!();
    println!("agentdap memory (the agentdap process alone, adapters excluded)");
    println!("{:<36} {:>10} {:>10}", "", "VmRSS", "VmHWM");
    println!("{:<36} {:>10} {:>10}", "1 session stopped", kib(rss1), kib(hwm1));
    println!("{:<36} {:>10} {:>10}", format!("{SESSIONS} sessions stopped"), kib(rss32), kib(hwm32));
    println!("{:<36} {:>10} {:>10}", format!("after {} idle steps", WARMUP + STEPS), "", kib(hwm_idle));
    println!("{:<36} {:>10} {:>10}", "after the flood phase", kib(rss_flood), kib(hwm_flood));
    let rss_ok = hwm32 <= RSS_TARGET_KIB;
    println!(
        "target: ≤ {} with {SESSIONS} sessions (VmHWM): {}",
        kib(RSS_TARGET_KIB),
        if rss_ok { "met" } else { "MISSED" }
    );

    println!();
    println!(
        "`step` (over) on {quiet}, {STEPS} calls per phase, ms; raw = a raw DAP client on its own debugpy, stepped"
    );
    println!("between them (the same four requests); pair = agentdap's step less the raw step after it");
    println!(
        "{:<28} {:>8} {:>8} {:>8} {:>9} {:>9} {:>11}",
        "phase", "p50", "p99", "max", "raw p50", "raw p99", "pair p50"
    );
    let row = |name: &str, p: &Phase| {
        println!(
            "{:<28} {:>8.2} {:>8.2} {:>8.2} {:>9.2} {:>9.2} {:>+11.2}",
            name,
            percentile(&p.mcp, 0.5),
            percentile(&p.mcp, 0.99),
            p.mcp.last().copied().unwrap_or(f64::NAN),
            percentile(&p.raw, 0.5),
            percentile(&p.raw, 0.99),
            percentile(&p.extra, 0.5)
        );
    };
    row(&format!("{} others idle", SESSIONS - 1), &idle);
    row(&format!("{flood} flooding"), &flooded);
    let ratio = percentile(&flooded.mcp, 0.5) / percentile(&idle.mcp, 0.5);
    let ratio99 = percentile(&flooded.mcp, 0.99) / percentile(&idle.mcp, 0.99);
    let raw_ratio = percentile(&flooded.raw, 0.5) / percentile(&idle.raw, 0.5);
    let ratio_ok = ratio <= FLOOD_RATIO_TARGET;
    println!(
        "flooded/idle: p50 {ratio:.2}× (target ≤ {FLOOD_RATIO_TARGET}×: {}), p99 {ratio99:.2}×; raw client p50 {raw_ratio:.2}×",
        if ratio_ok { "met" } else { "MISSED" }
    );
    // The raw client shares the machine, not agentdap: where both slow alike, the CPU the
    // flood's processes take is the cause.
    println!(
        "agentdap's ratio over the raw client's: {:.2} (1.00: the flood slowed agentdap's step no more than a raw client's)",
        ratio / raw_ratio
    );
    println!("every one of {} calls answered, each stopped in the loop at a newer revision", 2 * (WARMUP + STEPS));
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let each = |v: &[f64]| v.iter().map(|p| format!("{p:.0}")).collect::<Vec<_>>().join(" / ");
    println!(
        "CPU, % of one core, idle phase → flood phase: agentdap {:.0} → {:.0}; {flood}'s debuggee / launcher / adapter {} → {}; the whole machine ({cores} cores) {:.0}% → {:.0}% busy",
        cpu_idle.0,
        cpu_flood.0,
        each(&cpu_idle.1),
        each(&cpu_flood.1),
        cpu_idle.2,
        cpu_flood.2
    );

    println!();
    let lines = after.last_line.saturating_sub(before.last_line);
    let bytes = printed_bytes(after.last_line).saturating_sub(printed_bytes(before.last_line));
    println!(
        "{flood} flood while timed: {:.0} lines/s, {:.1} MB/s reached agentdap, in {:.0} entries/s",
        lines as f64 / took,
        bytes as f64 / took / 1e6,
        (after.entries - before.entries) as f64 / took
    );
    println!("{flood} as agentdap reports it: {} entries ({} bytes) dropped", after.dropped, after.dropped_bytes);
    println!("  output: {}", after.head);
    let line = listed["content"][0]["text"].as_str().unwrap_or_default().lines().find(|l| l.starts_with(&flood));
    println!("  sessions: {}", line.unwrap_or("(not listed)"));
    let whole = printed == held + gone;
    println!(
        "paused, then read back: printed {printed} bytes = held {held} + counted as dropped {gone}: {}",
        if whole { "every byte accounted for" } else { "MISMATCH" }
    );
    if after.dropped == 0 || !whole {
        pass = false;
    }
    Ok(pass)
}

fn setup() -> Result<Env, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = peer::bench_python(root)?;
    let scratch = std::env::temp_dir().join(format!("agentdap-scale-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let (quiet, flood) = (scratch.join("quiet.py"), scratch.join("flood.py"));
    std::fs::write(&quiet, QUIET).and_then(|()| std::fs::write(&flood, FLOOD)).map_err(|e| e.to_string())?;
    Ok(Env {
        agentdap: std::env::var_os("AGENTDAP_BENCH_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_agentdap"))),
        python,
        scratch,
        quiet,
        flood,
    })
}

fn main() {
    // `cargo test --all-targets` runs bench targets without `--bench`: nothing to do then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let env = match setup() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("scale: {e}");
            std::process::exit(1);
        }
    };
    println!("agentdap: {}", env.agentdap.display());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the start: {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    let result = run(&env);
    let _ = std::fs::remove_dir_all(&env.scratch);
    match result {
        Ok(true) => {}
        Ok(false) => std::process::exit(2),
        Err(e) => {
            eprintln!("scale: {e}");
            std::process::exit(1);
        }
    }
}
