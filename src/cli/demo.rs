//! `agentdap demo`: the main job on an embedded program. Writes a small buggy Python program to a
//! fresh temporary directory, starts this very binary as an MCP server over pipes, and debugs
//! the program through `tools/call` exactly as an agent would, printing each step. A blocking
//! client (a reader thread gives reads a deadline); it never runs inside the server.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::install::{self, Python};

/// The program debugged, shipped inside the binary.
pub const PROGRAM: &str = include_str!("demo_program.py");

/// The file name it gets in the temporary directory.
pub const PROGRAM_NAME: &str = "checkout.py";

/// The text of the line the breakpoint goes on (the buggy `return`).
const BUGGY_LINE: &str = "return apply_discount(total, discount_percent)";

/// The line that already discounts each item.
const ITEM_LINE: &str = "line = apply_discount(price, discount_percent) * quantity";

/// How long one MCP request may take before the demo gives up (a launch on a loaded machine
/// includes starting Python and debugpy).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(90);

/// How long the server gets to exit after its stdin closes (it disconnects sessions, ~3 s max).
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// The line number (1-based) of the program line whose text is `text`.
fn line_of(text: &str) -> Option<u64> {
    PROGRAM.lines().position(|l| l.trim() == text).map(|i| i as u64 + 1)
}

/// The line (1-based) holding [`BUGGY_LINE`].
pub fn buggy_line() -> Option<u64> {
    line_of(BUGGY_LINE)
}

/// Why the demo stopped early.
struct Failure(String);

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure(s)
    }
}

/// `agentdap demo`: 0 when the whole session ran and found the bug, 1 otherwise.
pub fn run(no_install: bool) -> u8 {
    let Some(data) = super::data_dir() else {
        eprintln!("agentdap demo: neither $XDG_DATA_HOME nor $HOME is set: no data directory for debugpy");
        return 1;
    };
    let Some(python) = interpreter(&data, no_install) else { return 1 };
    let dir = match TempDir::new() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("agentdap demo: cannot create a temporary directory: {e}");
            return 1;
        }
    };
    match session(&dir.0, &python) {
        Ok(()) => 0,
        Err(Failure(message)) => {
            eprintln!("\nagentdap demo failed: {message}");
            1
        }
    }
}

/// An interpreter with debugpy: found, else installed into `data` (unless `no_install`).
fn interpreter(data: &Path, no_install: bool) -> Option<Python> {
    let force = std::env::var_os(install::ENV_FORCE_INSTALL).is_some_and(|v| v == "1");
    let mut skipped = Vec::new();
    if let Some((python, version)) = install::find_with_debugpy(data, force, &mut skipped) {
        eprintln!(
            "agentdap demo: using debugpy {version} with {} ({})",
            python.path.display(),
            python.source.describe()
        );
        return Some(python);
    }
    for note in &skipped {
        eprintln!("agentdap demo: {note}");
    }
    if no_install {
        eprintln!(
            "agentdap demo: no Python with debugpy found ($AGENTDAP_PYTHON, $VIRTUAL_ENV, {}, python3).\n\
             Install it with:\n    {}",
            data.display(),
            install::install_hint(data)
        );
        return None;
    }
    eprintln!("agentdap demo: no Python with debugpy found; installing it into agentdap's data dir {}", data.display());
    match install::install_debugpy(data) {
        Ok(done) => {
            eprintln!("agentdap demo: installed debugpy {} for {}", done.version, done.python.path.display());
            Some(done.python)
        }
        Err(e) => {
            eprintln!("agentdap demo: cannot install debugpy: {e}");
            None
        }
    }
}

/// A directory under the system temp dir, removed with everything in it on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let mut random = [0u8; 6];
        getrandom::getrandom(&mut random).map_err(|e| std::io::Error::other(e.to_string()))?;
        let suffix: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let path = std::env::temp_dir().join(format!("agentdap-demo-{}-{suffix}", std::process::id()));
        std::fs::create_dir(&path)?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The agentdap server under demonstration, spoken to over its stdin/stdout. Killed on drop if
/// it has not exited by then.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    stderr_path: PathBuf,
}

impl Server {
    /// Starts `/proc/self/exe` with no arguments: the stdio MCP server.
    fn start(dir: &Path, python: &Python) -> Result<Server, Failure> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
        let stderr_path = dir.join("server.log");
        let log = std::fs::File::create(&stderr_path).map_err(|e| format!("cannot create the server log: {e}"))?;
        let mut cmd = Process::new(exe);
        cmd.env("AGENTDAP_PYTHON", &python.path).env_remove("VIRTUAL_ENV");
        if let Some(value) = python.pythonpath_value() {
            cmd.env("PYTHONPATH", value);
        }
        let mut child = cmd
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start the agentdap server: {e}"))?;
        let stdin = child.stdin.take();
        let Some(stdout) = child.stdout.take() else { return Err(Failure("the server has no stdout".into())) };
        let (tx, lines) = mpsc::channel();
        // A thread only so that reads get a deadline; it ends when the server's stdout closes.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Server { child, stdin, lines, next_id: 0, stderr_path })
    }

    /// Sends one JSON-RPC message.
    fn send(&mut self, message: &Value) -> Result<(), Failure> {
        let Some(stdin) = self.stdin.as_mut() else { return Err(Failure("the server's stdin is closed".into())) };
        let mut line = message.to_string();
        line.push('\n');
        stdin.write_all(line.as_bytes()).and_then(|()| stdin.flush()).map_err(|e| self.died(&format!("write: {e}")))
    }

    /// A request and its response (`result`; a JSON-RPC `error` is a failure).
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Failure> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + REQUEST_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(self.died(&format!("no answer to {method} within {} s", REQUEST_TIMEOUT.as_secs())))
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.died("the server closed its stdout")),
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                return Err(self.died(&format!("the server wrote a line that is not JSON: {line}")));
            };
            // Notifications (progress, logging) are not what we wait for.
            if message.get("id") != Some(&json!(id)) {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(Failure(format!("{method} answered with an error: {error}")));
            }
            return Ok(message.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    /// `tools/call`, printed as an agent would see it: the call, then the result's text.
    fn tool(&mut self, name: &str, arguments: Value) -> Result<Value, Failure> {
        println!("\n→ {name} {arguments}"); // stdout-ok
        let started = Instant::now();
        let result = self.request("tools/call", json!({"name": name, "arguments": arguments}))?;
        let ms = started.elapsed().as_millis();
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        for line in text.lines() {
            println!("  {line}"); // stdout-ok
        }
        println!("  ({ms} ms)"); // stdout-ok
        if result["isError"] == json!(true) {
            return Err(Failure(format!("{name} failed: {text}")));
        }
        Ok(result["structuredContent"].clone())
    }

    /// A failure message with the end of the server's log.
    fn died(&mut self, what: &str) -> Failure {
        let log = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
        let exited = match self.child.try_wait() {
            Ok(Some(status)) => format!(" (the server exited: {status})"),
            _ => String::new(),
        };
        let log =
            if log.trim().is_empty() { String::new() } else { format!("\nserver log:\n{}", super::tail(&log, 20)) };
        Failure(format!("{what}{exited}{log}"))
    }

    /// Closes stdin (the server disconnects every session and exits) and waits for the exit.
    fn shut_down(&mut self) -> Result<(), Failure> {
        self.stdin = None;
        let deadline = Instant::now() + EXIT_GRACE;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => return Err(Failure(format!("the server exited with {status}"))),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                _ => return Err(Failure("the server did not exit after its stdin closed".into())),
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// A value from an `evaluate` result, as a number.
fn number(result: &Value, what: &str) -> Result<f64, Failure> {
    let text = result["value"].as_str().unwrap_or_default();
    text.parse().map_err(|_| Failure(format!("{what} evaluated to {text:?}, not a number")))
}

/// Whether two amounts of money are the same to the cent.
fn same_amount(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.005
}

/// Prints a narration line (what the agent is doing and why).
fn say(text: &str) {
    println!("\n# {text}"); // stdout-ok
}

/// The debugging session itself, start to end.
fn session(dir: &Path, python: &Python) -> Result<(), Failure> {
    let program = dir.join(PROGRAM_NAME);
    std::fs::write(&program, PROGRAM).map_err(|e| format!("cannot write {}: {e}", program.display()))?;
    let (Some(line), Some(item_line)) = (buggy_line(), line_of(ITEM_LINE)) else {
        return Err(Failure("the embedded program lost its buggy lines".into()));
    };
    let path = program.display().to_string();

    println!("agentdap demo: an agent debugs a small Python program through agentdap's MCP server."); // stdout-ok
    println!("program: {path}"); // stdout-ok
    println!("  a checkout: 77.00 of goods with a 10% coupon should cost 69.30, but the receipt disagrees."); // stdout-ok
    println!("debugger: debugpy with {}", python.path.display()); // stdout-ok

    let mut server = Server::start(dir, python)?;
    let init = server.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "agentdap-demo", "version": env!("CARGO_PKG_VERSION")}}),
    )?;
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let info = &init["serverInfo"];
    #[rustfmt::skip]
    println!( // stdout-ok
        "server: {} {} over stdio (MCP {})",
        info["name"].as_str().unwrap_or("?"),
        info["version"].as_str().unwrap_or("?"),
        init["protocolVersion"].as_str().unwrap_or("?")
    );

    say(&format!("Launch with a breakpoint on the line that computes the result (line {line})."));
    let launched = server.tool("launch", json!({"program": path, "breakpoints": [{"path": path, "line": line}]}))?;
    if launched["state"] != json!("stopped") || launched["stop"]["location"]["line"] != json!(line) {
        return Err(Failure(format!("expected a stop at line {line}, got {}", launched["stop"])));
    }

    say("Where are we, and what do the locals hold?");
    server.tool("context", json!({}))?;

    say("What would the basket cost without any discount?");
    let full = number(
        &server.tool("evaluate", json!({"expression": "sum(price * quantity for _, price, quantity in items)"}))?,
        "the full price",
    )?;
    say("And `total`, the sum of the lines?");
    let summed = number(&server.tool("evaluate", json!({"expression": "total"}))?, "total")?;
    say("That is already 10% off. What does this line return, then?");
    let returned = number(
        &server.tool("evaluate", json!({"expression": "apply_discount(total, discount_percent)"}))?,
        "the returned value",
    )?;
    let discounted_once = (full * 0.9 * 100.0).round() / 100.0;
    if !same_amount(summed, discounted_once) || same_amount(returned, summed) {
        return Err(Failure(format!(
            "the values do not show the bug: full {full}, total {summed}, returned {returned}"
        )));
    }

    say("Step over the return: back in main(), with the value order_total() returned.");
    let stepped = server.tool("step", json!({"kind": "over"}))?;
    if stepped["state"] != json!("stopped") {
        return Err(Failure(format!("expected a stop after the step, got state {}", stepped["state"])));
    }
    server.tool("context", json!({"source_lines": 1}))?;

    say("Run to the end.");
    let ended = server.tool("continue", json!({}))?;
    if ended["state"] != json!("exited") {
        return Err(Failure(format!("expected the program to exit, got state {}", ended["state"])));
    }

    say("Everything the program printed:");
    let output = server.tool("output", json!({}))?;
    let printed: String =
        output["entries"].as_array().into_iter().flatten().filter_map(|e| e["text"].as_str()).collect();
    if !printed.contains(&format!("{returned:.2}")) {
        return Err(Failure(format!("the output does not show the total {returned:.2}: {printed:?}")));
    }

    // No `disconnect`: the program has exited, and closing the server's stdin (what an agent's
    // client does when it quits) ends every session and the adapter.
    say("Done: closing the server's stdin ends every session, as when the agent's client quits.");
    server.shut_down()?;

    #[rustfmt::skip]
    println!( // stdout-ok
        "\ndiagnosis: the 10% discount is applied twice — order_total() discounts every line (line {item_line}) \
         and then discounts their sum again (line {line}): {full:.2} → {summed:.2} → {returned:.2}. \
         Fix: `return total`."
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_program_has_its_bug_where_the_demo_looks() {
        assert_eq!(buggy_line(), Some(23));
        assert_eq!(line_of(ITEM_LINE), Some(21));
    }
}
