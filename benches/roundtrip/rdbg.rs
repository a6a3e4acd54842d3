//! The rdbg rows of the round-trip benchmark: finding rdbg as agentdap does, and the raw DAP
//! client's side of an rdbg session (the process, its ready line, the TCP connection); the
//! agentdap side is the shared MCP client in `roundtrip/mcp.rs`. It must not speak DAP through
//! agentdap's own code: it is the baseline agentdap is measured against.
//!
//! Both sides run `ruby <rdbg> --open --port <p> --host 127.0.0.1 -- roundtrip_target.rb
//! <loops>` (the rdbg recipe, `src/dap/adapters/rdbg.rs`): with debug 1.4.0 the process is the
//! debuggee, with the DAP server in one of its threads. Both connect once rdbg printed
//! `DEBUGGER: wait for debugger connection...` on its stderr (an earlier connect may be refused
//! by 1.4.0), and both send the recipe's `launch` arguments (`type`, `request`, `program`,
//! `args`, `stopOnEntry: false`), which 1.4.0 ignores, and `setExceptionBreakpoints
//! {filters: ["RuntimeError"]}`: `configurationDone` lets the program run to the breakpoint. Teardown (not measured): `disconnect {terminateDebuggee: true}` kills the
//! program; 1.4.0 sends no `exited` or `terminated`, the connection closes and the process exits.

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::thread;
use std::time::Instant;

use agentdap::dap::adapters::{rdbg as recipe, RealHost};
use serde_json::json;

use super::{Dap, Env, Peer, RawTarget, Run, Samples, DEBUGGEE_LOOPS, WAIT};

/// The command that starts rdbg: a `ruby` and the rdbg script, or an executable run as is.
pub struct Rdbg {
    program: PathBuf,
    before: Vec<OsString>,
}

/// rdbg as agentdap finds it (`$AGENTDAP_RDBG`, `rdbg` on `PATH`, the debug gem's `exe/rdbg`
/// in Ruby's gem directories: `find` in `src/dap/adapters/rdbg.rs`, `stat`s only), so both
/// sides run the same script with the same `ruby`; agentdap inherits this process's
/// environment and finds the same.
pub fn find() -> Result<Rdbg, String> {
    let found = recipe::find(&RealHost).map_err(|e| e.to_string())?;
    Ok(match found.ruby {
        Some(ruby) => Rdbg { program: ruby, before: vec![found.rdbg.into_os_string()] },
        None => Rdbg { program: found.rdbg, before: Vec::new() },
    })
}

/// The `launch` arguments of the rdbg recipe: its launch defaults and the session's keys for a
/// program with breakpoints (`our_arguments` in `src/session/plan.rs`; no `cwd`, as the
/// benchmark's `launch` names none).
const TARGET: RawTarget = RawTarget {
    adapter: "rdbg",
    launch: |env| {
        json!({"type": "rdbg", "request": "launch", "program": env.rb_target, "args": [DEBUGGEE_LOOPS],
               "stopOnEntry": false})
    },
    source: |env| env.rb_target.clone(),
    // The rdbg recipe's `evaluate_context`.
    context: "watch",
    // agentdap sends the filter debug 1.4.0 marks `default: true`.
    exception_filters: Some(&["RuntimeError"]),
    // Its exit is not timed.
    exit: None,
};

/// The rdbg process of one raw session: ended (by its own pid) when dropped, on every path out
/// of [`raw_session`].
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        super::reap(&mut self.0);
    }
}

/// Starts rdbg on `port` and waits until it says it waits for a client; its stdout (the
/// program's) and the rest of its stderr are drained so that it never blocks on a full pipe.
fn start(found: &Rdbg, env: &Env, port: u16) -> Result<Proc, String> {
    let mut cmd = Command::new(&found.program);
    cmd.args(&found.before)
        .args(["--open", "--port", &port.to_string(), "--host", "127.0.0.1", "--"])
        .arg(&env.rb_target)
        .arg(DEBUGGEE_LOOPS)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = Proc(cmd.spawn().map_err(|e| format!("spawn {}: {e}", found.program.display()))?);
    if let Some(mut out) = child.0.stdout.take() {
        thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    }
    let err = child.0.stderr.take().ok_or("no stderr")?;
    let (tx, rx) = channel();
    thread::spawn(move || {
        let mut r = BufReader::new(err);
        let mut line = String::new();
        while r.read_line(&mut line).is_ok_and(|n| n > 0) {
            if line.trim_end() == recipe::READY_LINE {
                let _ = tx.send(());
                break;
            }
            line.clear();
        }
        let _ = std::io::copy(&mut r, &mut std::io::sink());
    });
    rx.recv_timeout(WAIT).map_err(|_| format!("rdbg did not print {:?}", recipe::READY_LINE))?;
    Ok(child)
}

/// One rdbg session through the raw DAP client: spawn → initialize is rdbg's start up to its
/// ready line, the connect and `initialize`; then `raw_drive` in `roundtrip/dap.rs`, as for every
/// other adapter.
pub fn raw_session(env: &Env, found: &Rdbg, s: &mut Samples, run: Run) -> Result<(), String> {
    let t0 = Instant::now();
    let port = agentdap::dap::tcp::choose_port().map_err(|e| format!("choose a port: {e}"))?;
    let proc = start(found, env, port)?;
    let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).map_err(|e| format!("connect to rdbg: {e}"))?;
    let _ = stream.set_nodelay(true);
    let mut dap = Dap { peer: Peer::tcp(&stream)?, seq: 0 };
    let driven = super::raw_drive(&mut dap, env, &TARGET, t0, s, run);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    drop(proc);
    driven
}
