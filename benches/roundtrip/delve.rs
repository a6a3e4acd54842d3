//! The Delve rows of the round-trip benchmark: finding `dlv` as agentdap does, building the Go
//! target, and the raw DAP client's side of a Delve session (the `dlv dap` process, its
//! announced port, the TCP connection); the agentdap side is the shared MCP client in
//! `roundtrip/mcp.rs`. It must not speak DAP through agentdap's own code: it is the baseline
//! agentdap is measured against.
//!
//! Both sides run `dlv dap --listen=127.0.0.1:0` (the Delve recipe, `src/dap/adapters/delve.rs`),
//! read the port from the `DAP server listening at: 127.0.0.1:<port>` line on its stdout, and
//! debug `roundtrip_target.go` built with `go build -gcflags=all=-N -l` (`mode: exec`) with the
//! recipe's `launch` arguments (`type: go`, `request`, `mode: exec`, `program`, `args`,
//! `stopOnEntry: false`; agentdap also names a build `output` in its scratch directory, which
//! `exec` mode does not use) and `adapterID: delve`; Delve 1.20.2 has no exception filters, and
//! agentdap's `evaluate` context for it is the standard `repl`. The exit (Delve sends `terminated` alone): the raw
//! client sends `disconnect {restart: false}` on `terminated`, as agentdap does, and the exit is
//! known at the console line `Process <pid> has exited with status 0`. Teardown (not
//! measured): `disconnect {terminateDebuggee: true}`; dlv closes the socket and exits.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::thread;
use std::time::Instant;

use agentdap::dap::adapters::{delve as recipe, RealHost};
use serde_json::json;

use super::{Dap, Env, Peer, RawExit, RawTarget, Run, Samples, DEBUGGEE_LOOPS, WAIT};

/// `dlv` as agentdap finds it (`$AGENTDAP_DLV`, `PATH`, `$GOBIN`, `$GOPATH/bin`, `~/go/bin`:
/// `find_adapter` in `src/dap/adapters/delve.rs`, `stat`s only); agentdap inherits this
/// process's environment and finds the same.
pub fn find() -> Result<PathBuf, String> {
    recipe::find_adapter(&RealHost).map_err(|e| e.to_string())
}

/// Builds `source` into `binary` unoptimized and uninlined, as Delve wants it.
pub fn build(source: &Path, binary: &Path) -> Result<(), String> {
    let out = Command::new("go")
        .args(["build", "-gcflags=all=-N -l", "-o"])
        .arg(binary)
        .arg(source)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("go: {e} (apt-get install golang-go)"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("go build failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// The `launch` arguments of the Delve recipe for a built program: its launch defaults and the
/// session's keys for a program with breakpoints (`our_arguments` in `src/session/plan.rs`).
const TARGET: RawTarget = RawTarget {
    // agentdap's `adapterID` for Delve is its own name for the adapter.
    adapter: recipe::NAME,
    launch: |env| {
        json!({"type": recipe::VSCODE_TYPE, "request": "launch", "mode": "exec", "program": env.go_binary,
               "args": [DEBUGGEE_LOOPS], "stopOnEntry": false})
    },
    source: |env| env.go_target.clone(),
    context: "repl",
    exception_filters: None,
    exit: Some(RawExit::ConsoleAfterDisconnect { marker: recipe::EXIT_MARKER }),
};

/// The `dlv` process of one raw session: waited for (and ended by its own pid if it lingers)
/// when dropped, on every path out of [`raw_session`].
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        super::reap(&mut self.0);
    }
}

/// Starts `dlv dap` and reads the port it announces; the rest of its stdout (the program's
/// output) is drained so that it never blocks on a full pipe.
fn start(dlv: &Path) -> Result<(Proc, u16), String> {
    let spawned = Command::new(dlv)
        .args(["dap", "--listen=127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", dlv.display()))?;
    let mut proc = Proc(spawned);
    let out = proc.0.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = channel();
    thread::spawn(move || {
        let mut r = BufReader::new(out);
        let mut line = String::new();
        while r.read_line(&mut line).is_ok_and(|n| n > 0) {
            if let Some(at) = line.trim_end().strip_prefix(recipe::LISTENING_PREFIX) {
                let _ = tx.send(at.rsplit(':').next().and_then(|p| p.parse::<u16>().ok()));
                break;
            }
            line.clear();
        }
        let _ = std::io::copy(&mut r, &mut std::io::sink());
    });
    let port = rx.recv_timeout(WAIT).ok().flatten();
    let port = port.ok_or_else(|| format!("dlv did not print {:?} and a port", recipe::LISTENING_PREFIX))?;
    Ok((proc, port))
}

/// One Delve session through the raw DAP client: spawn → initialize is dlv's start up to its
/// announced port, the connect and `initialize`; then `raw_drive` in `roundtrip/dap.rs`, as for
/// every other adapter.
pub fn raw_session(env: &Env, dlv: &Path, s: &mut Samples, run: Run) -> Result<(), String> {
    let t0 = Instant::now();
    let (proc, port) = start(dlv)?;
    let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).map_err(|e| format!("connect to dlv: {e}"))?;
    let _ = stream.set_nodelay(true);
    let mut dap = Dap { peer: Peer::tcp(&stream)?, seq: 0 };
    let driven = super::raw_drive(&mut dap, env, &TARGET, t0, s, run);
    let _ = stream.shutdown(Shutdown::Both);
    drop(proc);
    driven
}
