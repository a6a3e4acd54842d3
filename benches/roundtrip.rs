//! End-to-end round-trip benchmark (`cargo bench --bench roundtrip`): the built agentdap binary
//! driven over stdio by a tiny MCP client (`roundtrip/mcp.rs`), next to the same operation done
//! by a raw DAP client straight to the adapter (`roundtrip/dap.rs`), so agentdap's own overhead
//! is the difference; debugpy with and without the fast path, lldb-dap when installed, Delve
//! when `dlv` and `go` are found (`roundtrip/delve.rs`), js-debug when found (its raw client in
//! `roundtrip/jsdebug.rs`), rdbg when found (`roundtrip/rdbg.rs`: `$AGENTDAP_RDBG`, `rdbg` on
//! `PATH` or the debug gem in Ruby's gem directories, as agentdap finds it), CodeLLDB when found
//! (`roundtrip/codelldb.rs`: `$AGENTDAP_CODELLDB`, else the vendored test copy under
//! `$AGENTDAP_DEPS`); agentdap's peak RSS with 1 and 10 sessions. An adapter that is not found
//! prints a line saying its rows are skipped.
//!
//! Rows are data: [`OPS`] names each operation, its raw DAP form and its MCP tool; a tool that
//! `tools/list` does not offer yet prints `—`. The raw client sends what agentdap's DAP log
//! (`--dap-log`) shows it sending for the same result: the recipe's `launch` arguments (for
//! debugpy its `launch_defaults`: `showReturnValue`, `subProcess`, `redirectOutput`, which its
//! stop results and output show), the exception filters it sends before `configurationDone`
//! (debugpy's `uncaught`), the `evaluate` context, and per round trip the same requests with
//! the same `levels`; so the difference is agentdap's own. It sends them as a plain DAP client
//! does, each after the answer before; agentdap on lldb-dap and Delve sends a stop's `scopes`
//! and `variables` with its `stackTrace` (README § What a stop shows, "Reads ahead"), which is
//! part of what the rows measure. The round trips of the two sides run
//! at once, one round each in turn (ABAB, `Turns` in `roundtrip/peer.rs`), so the machine's load
//! drift lands on both; starts and exits alternate likewise. agentdap's own CPU per round trip,
//! which wall-clock figures on a loaded machine hide, is counted by `scripts/callgrind-roundtrip`
//! (instructions per call, by kind). What each row measures, as medians in ms (round trips with
//! both sides' p90 in the note):
//!
//! - `spawn→initialize`: from spawning the adapter (raw) or agentdap (MCP) until `initialize`
//!   is answered ([`STARTS`] fresh starts).
//! - `launch→breakpoint`: raw, from the spawn through `launch`, the configuration,
//!   `configurationDone`, the `stopped` event and the `launch` response to the top frame's
//!   locals read (`stackTrace`, `scopes`, `variables`: what agentdap's answer carries); through
//!   agentdap the `launch` call (with its breakpoint) until its answer ([`STARTS`] fresh starts).
//! - `stack_trace`, `evaluate` (one expression), `evaluate ×3` (three raw requests against one
//!   `evaluate {expressions}` call), `variables`, `context` (raw: `stackTrace`, `scopes`,
//!   `variables`): one round trip at the breakpoint ([`ITERS`] each, [`STOCK_ITERS`] on stock debugpy).
//! - `step`, `continue`: the resume until the program stopped again and the top frame's locals
//!   are read (what agentdap's result carries); `· location` the same with the top frame alone
//!   (`locals: false`); `step · again` a second `step` right after the first.
//! - `output`, `sessions`: agentdap's own tools, no raw form.
//! - `continue→exited` (debugpy, lldb-dap, Delve; [`EXITS`] fresh launches each, median and
//!   `p90`, as debugpy's exit time is bimodal): the program, given [`EXIT_LOOPS`], stops at its
//!   breakpoint once; the client removes the breakpoint, and the sample runs from sending
//!   `continue` until the program's exit is known: raw, the `exited` event (Delve sends none:
//!   the status line it prints after the `disconnect` a `terminated` calls for); through
//!   agentdap, the `continue` call's answer, which must say `exited` with code 0.
//!   `continue→terminated` is the raw client's `terminated` event.
//!
//! `AGENTDAP_BENCH_ONLY=rdbg,codelldb` (the table's adapter names: `debugpy`, `lldb-dap`,
//! `delve`, `js-debug`, `rdbg`, `codelldb`) measures those blocks alone. Processes, connections
//! and framing are in `roundtrip/peer.rs`, the table in `roundtrip/table.rs`. Run as a test
//! (`cargo test --all-targets`, no `--bench` argument) it returns at once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "roundtrip/codelldb.rs"]
mod codelldb;
#[path = "roundtrip/dap.rs"]
mod dap;
#[path = "roundtrip/delve.rs"]
mod delve;
#[path = "roundtrip/jsdebug.rs"]
mod jsdebug;
#[path = "roundtrip/mcp.rs"]
mod mcp;
#[path = "roundtrip/peer.rs"]
mod peer;
#[path = "roundtrip/rdbg.rs"]
mod rdbg;
#[path = "roundtrip/table.rs"]
mod table;

use dap::{raw_drive, round_trip, Dap, RawExit, RawTarget, Run};
use peer::{connect_retrying, reap, Peer};
use table::Block;

/// Round trips measured per operation (at a breakpoint, between two hits): enough that a
/// median moves less than the 0.3 ms the overhead is held to (debugpy's round trips vary by
/// ±1.5 ms at the p90).
const ITERS: usize = 101;
/// Round trips per operation on stock debugpy, whose every request stalls ~44 ms (the
/// fast path's module doc): the overhead is not measured at that scale.
const STOCK_ITERS: usize = 31;

/// The round trips of the block being measured ([`ITERS`] or [`STOCK_ITERS`]).
static ROUNDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(ITERS);

fn rounds() -> usize {
    ROUNDS.load(std::sync::atomic::Ordering::Relaxed)
}
/// Fresh starts measured for spawn → initialize and launch → first breakpoint.
const STARTS: usize = 11;
/// Fresh launches measured for continue → exited (more than [`STARTS`]: debugpy's exit time is
/// bimodal, so the p90 needs them).
const EXITS: usize = 15;
/// Concurrent sessions for the second RSS figure.
const MANY: usize = 10;
/// The longest any single wait may take before the row reports an error.
const WAIT: Duration = Duration::from_secs(30);
/// Loop count given to the debuggee: far more than the benchmark hits.
const DEBUGGEE_LOOPS: &str = "1000000";
/// Loop count for the exit rows: the breakpoint is hit once and removed; what is left of the
/// program's work takes microseconds.
const EXIT_LOOPS: &str = "3";

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
    // The order of the raw client's loop (`round_trip` in `roundtrip/dap.rs`): lldb-dap's
    // `stackTrace` costs more right after an `evaluate` than right after a stop, so both sides
    // keep the same order.
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
    // A second step with locals, from the stop the first one read: where `totalFrames` is a
    // guess (lldb-dap, Delve) its depth is told from that stop (README § What a stop shows),
    // while `step` follows a stop that read the location alone, so it reads the stack's page.
    Op { name: "step · again", raw: true, tool: Some("step"), args: || json!({"kind": "over"}) },
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
    fn sorted(&self, name: &str) -> Vec<f64> {
        let mut v: Vec<f64> = self.0.iter().filter(|(n, _)| *n == name).map(|(_, ms)| *ms).collect();
        v.sort_by(f64::total_cmp);
        v
    }
    /// The median of `name`'s samples and their count.
    fn median(&self, name: &str) -> Option<(f64, usize)> {
        let v = self.sorted(name);
        if v.is_empty() {
            return None;
        }
        let mid = v.len() / 2;
        let m = if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 };
        Some((m, v.len()))
    }
    /// The 90th percentile of `name`'s samples (nearest rank: the 14th of 15) and their count.
    fn p90(&self, name: &str) -> Option<(f64, usize)> {
        let v = self.sorted(name);
        let rank = (v.len() * 9).div_ceil(10);
        Some((*v.get(rank.checked_sub(1)?)?, v.len()))
    }
}
// ---------------------------------------------------------------------------------------------
// Environment.

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
    go_target: PathBuf,
    /// `roundtrip_target.go` built into the scratch directory ([`delve::build`]).
    go_binary: PathBuf,
    /// Delve's `dlv` ([`delve::find`]) once the Go target was built; `None` skips the Delve rows.
    dlv: Option<PathBuf>,
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

/// Finds the adapters and builds the native targets; Delve's (a Go build) only when `wanted`.
fn setup(wanted: &dyn Fn(&str) -> bool) -> Result<Env, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = peer::bench_python(root)?;
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
    let go_target = root.join("benches/roundtrip_target.go");
    let go_binary = scratch.join("roundtrip_target_go");
    let found_dlv = || delve::find().and_then(|dlv| delve::build(&go_target, &go_binary).map(|()| dlv));
    let dlv = match wanted("delve").then(found_dlv) {
        Some(Ok(dlv)) => Some(dlv),
        Some(Err(e)) => {
            eprintln!("roundtrip: {e}; delve rows skipped");
            None
        }
        None => None,
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
        go_target,
        go_binary,
        dlv,
    })
}

// ---------------------------------------------------------------------------------------------
// The blocks.

/// What one block measures: the table's adapter name and fast-path column, agentdap's name for
/// the adapter, the fast path's setting, and whether the exit rows are timed.
struct Spec {
    adapter: &'static str,
    fastpath: &'static str,
    tool: &'static str,
    fast: bool,
    exits: bool,
}

/// One block. The round trips: the raw client's session (`session` runs one, on whatever
/// transport) and agentdap's run at once in two threads, taking turns one round each (ABAB,
/// `Turns` in `roundtrip/peer.rs`) once both stand at the breakpoint, so load drift lands on
/// both sides; their start samples, taken while the other side was starting too, are dropped.
/// Then [`STARTS`] fresh starts on each side, and, when the block times the exit, [`EXITS`]
/// runs to the exit on each side, raw and agentdap in turns likewise.
fn block(
    env: &Env,
    spec: Spec,
    rss: &mut Vec<(String, f64)>,
    session: impl Fn(&Env, &mut Samples, Run) -> Result<(), String> + Sync,
) -> Block {
    let starts = ["spawn→initialize", "launch→breakpoint"];
    let stock = spec.adapter == "debugpy" && !spec.fast;
    ROUNDS.store(if stock { STOCK_ITERS } else { ITERS }, std::sync::atomic::Ordering::Relaxed);
    peer::TURNS.start();
    let (raw_trips, mcp_trips) = std::thread::scope(|scope| {
        let raw = scope.spawn(|| {
            let mut s = Samples::default();
            let r = session(env, &mut s, Run::RoundTrips).map(|()| s);
            peer::TURNS.stop();
            r
        });
        let mut s = Samples::default();
        let mut got = Vec::new();
        let mcp = mcp::measure_round_trips(env, spec.tool, spec.fast, &mut s, &mut got).map(|t| (s, t));
        peer::TURNS.stop();
        rss.extend(got);
        (raw.join().unwrap_or_else(|_| Err("the raw client's thread panicked".into())), mcp)
    });
    let keep = |mut s: Samples| {
        s.0.retain(|(n, _)| !starts.contains(n));
        s
    };
    let (mut raw, mut mcp) = (raw_trips.map(keep), mcp_trips.map(|(s, t)| (keep(s), t)));
    for _ in 0..STARTS {
        if let Ok(s) = &mut raw {
            if let Err(e) = session(env, s, Run::Start) {
                raw = Err(e);
            }
        }
        if let Ok((s, _)) = &mut mcp {
            if let Err(e) = mcp::measure_start(env, spec.tool, spec.fast, s) {
                mcp = Err(e);
            }
        }
    }
    let (mcp, tools) = match mcp {
        Ok((s, t)) => (Ok(s), t),
        Err(e) => (Err(e), Vec::new()),
    };
    let exits = spec.exits.then(|| {
        let (mut raw, mut through) = (Ok(Samples::default()), Ok(Samples::default()));
        for _ in 0..EXITS {
            if let Ok(s) = &mut raw {
                if let Err(e) = session(env, s, Run::ToExit) {
                    raw = Err(e);
                }
            }
            if let Ok(s) = &mut through {
                if let Err(e) = mcp::to_exit(env, spec.tool, spec.fast, s) {
                    through = Err(e);
                }
            }
        }
        (raw, through)
    });
    Block { adapter: spec.adapter, fastpath: spec.fastpath, raw, mcp, tools, exits }
}

fn main() {
    // `cargo test --all-targets` runs bench targets without `--bench`: nothing to do then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    // `AGENTDAP_BENCH_ONLY=js-debug` (a comma-separated list of the table's adapter names)
    // measures those blocks alone; the 10-session RSS figure goes with debugpy.
    let only = std::env::var("AGENTDAP_BENCH_ONLY").ok();
    let wanted = |adapter: &str| only.as_deref().map_or(true, |o| o.split(',').any(|a| a.trim() == adapter));
    let env = match setup(&wanted) {
        Ok(env) => env,
        Err(e) => {
            eprintln!("roundtrip: {e}");
            std::process::exit(1);
        }
    };
    let started = Instant::now();
    let mut blocks = Vec::new();
    let mut rss = Vec::new();
    for (fast, label) in [(true, "on"), (false, "off")].into_iter().filter(|_| wanted("debugpy")) {
        let spec = Spec { adapter: "debugpy", fastpath: label, tool: "debugpy", fast, exits: true };
        let mut rss_here = Vec::new();
        blocks.push(block(&env, spec, &mut rss_here, |env, s, run| {
            dap::raw_session(env, dap::debugpy_command(env, fast), &dap::DEBUGPY, s, run)
        }));
        if fast {
            rss.extend(rss_here.into_iter().map(|(_, k)| ("peak_rss_1_session".to_string(), k)));
        }
    }
    let other = |adapter, tool, exits| Spec { adapter, fastpath: "n/a", tool, fast: true, exits };
    if env.lldb_dap.is_some() && wanted("lldb-dap") {
        let spec = Spec { fast: false, ..other("lldb-dap", "lldb-dap", true) };
        blocks.push(block(&env, spec, &mut Vec::new(), |env, s, run| {
            dap::raw_session(env, dap::lldb_command(env, false), &dap::LLDB, s, run)
        }));
    } else if wanted("lldb-dap") {
        eprintln!("roundtrip: lldb-dap not found (apt-get install lldb-22); lldb rows skipped");
    }
    if let Some(dlv) = env.dlv.as_ref() {
        blocks.push(block(&env, other("delve", "delve", true), &mut Vec::new(), |env, s, run| {
            delve::raw_session(env, dlv, s, run)
        }));
    }
    if let Some(server) = env.js_debug.as_ref().filter(|_| wanted("js-debug")) {
        blocks.push(block(&env, other("js-debug", "node", false), &mut Vec::new(), |env, s, run| {
            jsdebug::raw_session(env, server, s, run == Run::RoundTrips)
        }));
    }
    if let Some(found) = env.rdbg.as_ref().filter(|_| wanted("rdbg")) {
        blocks.push(block(&env, other("rdbg", "rdbg", false), &mut Vec::new(), |env, s, run| {
            rdbg::raw_session(env, found, s, run)
        }));
    }
    if let Some(path) = env.codelldb.as_ref().filter(|_| wanted("codelldb")) {
        blocks.push(block(&env, other("codelldb", "codelldb", false), &mut Vec::new(), |env, s, run| {
            codelldb::raw_session(env, path, s, run)
        }));
    }
    if wanted("debugpy") {
        match mcp::many_sessions(&env) {
            Ok(kib) => rss.push((format!("peak_rss_{MANY}_sessions"), kib)),
            Err(e) => eprintln!("roundtrip: {MANY} sessions: {e}"),
        }
    }
    table::print_table(&blocks, &rss);
    println!(
        "({ITERS} round trips ({STOCK_ITERS} on stock debugpy), {STARTS} starts, {EXITS} exits per row; medians unless p90; took {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(env.c_binary.parent().unwrap_or(Path::new("/nonexistent")));
}
