//! The IDE mirror (issue 8; SECURITY.md) against real debugpy, with Microsoft's own DAP client as
//! the IDE (`@vscode/debugadapter-testsupport`'s `DebugClient`, driven by
//! `tests/node/mirror_ide.js`): masked capabilities, the late-join `stopped`, real values through
//! the mirror, control refused, the agent's step seen as `continued` then `stopped`, stale
//! references refused, one `terminated` at the exit; tokens (wrong, missing, auth timeout), the
//! client cap, concurrent clients with their own seq spaces, unexpose and re-expose, and no
//! token in any log. A client's `evaluate` stays an expression on lldb-dap, Delve and debugpy
//! (their debugger commands and statements never run), and a scripted adapter
//! (`fake_adapter.py hold`) counts how many of one client's requests an agent request waits
//! behind. A bare TCP client ([`Raw`]) covers what the scripted IDE cannot do:
//! connection bursts, half-close, malformed and pipelined requests.

use crate::agent;
use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use agent::{fixture, Agent};
use serde_json::{json, Value};

/// How long one IDE command may take (the script has its own, shorter, event timeouts).
pub(crate) const IDE_TIMEOUT: Duration = Duration::from_secs(30);

/// The scripted IDE: one node process holding any number of `DebugClient`s.
pub(crate) struct Ide {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Ide {
    pub(crate) fn start() -> Ide {
        let package = common::node_package("@vscode/debugadapter-testsupport");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/node/mirror_ide.js");
        let mut child = Command::new("node")
            .arg(script)
            .arg(&package)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node (test dependency) must be on PATH");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Ide { child, stdin, lines }
    }

    pub(crate) fn cmd(&mut self, c: Value) -> Value {
        writeln!(self.stdin, "{c}").expect("write to the IDE script");
        let line = self.lines.recv_timeout(IDE_TIMEOUT).unwrap_or_else(|_| panic!("the IDE script did not answer {c}"));
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("IDE answer {line}: {e}"));
        assert!(v.get("error").is_none(), "IDE script failed on {c}: {v}");
        v
    }

    pub(crate) fn connect(&mut self, port: u64) -> u64 {
        self.cmd(json!({"op": "connect", "port": port}))["client"].as_u64().expect("client index")
    }

    pub(crate) fn request(&mut self, client: u64, command: &str, args: Value) -> Value {
        self.cmd(json!({"op": "request", "client": client, "command": command, "args": args}))
    }

    /// A request that must succeed; its body.
    pub(crate) fn ok(&mut self, client: u64, command: &str, args: Value) -> Value {
        let r = self.request(client, command, args.clone());
        assert_eq!(r["ok"], json!(true), "{command} {args}: {r}");
        r["body"].clone()
    }

    pub(crate) fn event(&mut self, client: u64, name: &str) -> Value {
        let r = self.cmd(json!({"op": "event", "client": client, "name": name, "timeout_ms": 10_000}));
        assert!(r.get("timeout").is_none(), "no `{name}` event for client {client}; events: {}", self.events(client));
        r["event"].clone()
    }

    pub(crate) fn events(&mut self, client: u64) -> Value {
        self.cmd(json!({"op": "events", "client": client}))["events"].clone()
    }

    pub(crate) fn closed(&mut self, client: u64) -> bool {
        self.cmd(json!({"op": "closed", "client": client, "timeout_ms": 10_000}))["closed"] == json!(true)
    }

    pub(crate) fn refused(&mut self, port: u64) -> bool {
        self.cmd(json!({"op": "probe", "port": port}))["refused"] == json!(true)
    }

    /// initialize + attach with `token` + the configuration sequence; the late-join `stopped`.
    pub(crate) fn attach(&mut self, port: u64, token: &str) -> (u64, Value) {
        let c = self.connect(port);
        let caps = self.ok(c, "initialize", json!({"adapterID": "debugpy", "linesStartAt1": true}));
        self.ok(c, "attach", json!({"mirrorToken": token}));
        self.event(c, "initialized");
        self.ok(c, "configurationDone", json!({}));
        (c, caps)
    }
}

impl Drop for Ide {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn expose(a: &mut Agent, session: &str) -> (u64, String) {
    let r = a.ok("expose_session", json!({"session": session}));
    let port = r.s["port"].as_u64().expect("port");
    let token = r.s["token"].as_str().expect("token").to_owned();
    (port, token)
}

pub(crate) fn stopped_line(r: &agent::Res) -> Value {
    r.s["stop"]["location"]["line"].clone()
}

/// `mirror_me.py` stopped at line 3 (`count = len(words)` in `greet`).
pub(crate) fn stopped_session(a: &mut Agent) -> String {
    let program = fixture("py/mirror_me.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 3}]}));
    assert_eq!(stopped_line(&r), json!(3), "{}", r.text);
    r.s["session"].as_str().expect("session id").to_owned()
}

pub(crate) fn assert_no_token(a: &mut Agent, session: &str, tokens: &[&str]) {
    let log = a.resource(&format!("agentdap://session/{session}/dap-log"));
    let sessions = a.ok("sessions", json!({}));
    let stderr = a.d.stderr();
    for t in tokens {
        assert!(!log.contains(t), "the DAP log holds a token");
        assert!(!stderr.contains(t), "the stderr log holds a token");
        assert!(!sessions.text.contains(t) && !sessions.s.to_string().contains(t), "`sessions` shows a token");
    }
}

#[test]
pub(crate) fn an_ide_reads_a_paused_debugpy_session_and_follows_the_agent_to_the_exit() {
    let mut a = Agent::start_with(|c| {
        c.env("RUST_LOG", "trace");
    });
    let id = stopped_session(&mut a);
    let (port, token) = expose(&mut a, &id);
    let again = a.ok("expose_session", json!({}));
    assert_eq!((again.s["port"].as_u64(), again.s["token"].as_str()), (Some(port), Some(token.as_str())), "idempotent");
    assert_eq!(again.s["launch_json"]["debugServer"], json!(port));
    assert_eq!(again.s["launch_json"]["type"], json!("debugpy"));
    assert_eq!(again.s["launch_json"]["request"], json!("attach"));
    assert!(again.text.contains(&format!("\"debugServer\": {port}")), "{}", again.text);
    let listed = a.session(&id);
    assert_eq!(listed["mirror"], json!({"host": "127.0.0.1", "port": port, "control": false}), "{listed}");

    let mut ide = Ide::start();
    let (c, caps) = ide.attach(port, &token);
    for off in ["supportsSetVariable", "supportsStepBack", "supportsRestartRequest", "supportsGotoTargetsRequest"] {
        assert_ne!(caps[off], json!(true), "{off} must be masked: {caps}");
    }
    assert_eq!(caps["exceptionBreakpointFilters"], json!([]));
    assert_eq!(caps["supportsConfigurationDoneRequest"], json!(true));
    assert_eq!(caps["supportsSetVariable"], json!(false), "debugpy has it; the mirror masks it: {caps}");

    // Late join: a `stopped` mirroring the real stop, right after the handshake.
    let stop = ide.event(c, "stopped");
    assert_eq!(stop["body"]["reason"], json!("breakpoint"), "{stop}");
    let thread = stop["body"]["threadId"].as_i64().expect("threadId");

    // Soft-succeeded configuration.
    let bps = ide.ok(
        c,
        "setBreakpoints",
        json!({"source": {"path": fixture("py/mirror_me.py")}, "breakpoints": [{"line": 4}]}),
    );
    assert_eq!(bps["breakpoints"][0]["verified"], json!(false), "{bps}");
    assert!(bps["breakpoints"][0]["message"].as_str().is_some_and(|m| m.contains("read-only")), "{bps}");
    ide.ok(c, "setExceptionBreakpoints", json!({"filters": []}));

    // Real values.
    let threads = ide.ok(c, "threads", json!({}));
    assert!(threads["threads"].as_array().is_some_and(|t| t.iter().any(|t| t["id"] == json!(thread))), "{threads}");
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 20}));
    let top = &st["stackFrames"][0];
    assert_eq!((top["name"].clone(), top["line"].clone()), (json!("greet"), json!(3)), "{st}");
    let frame = top["id"].as_i64().expect("frame id");
    assert!(frame >= 1000, "the client sees agentdap handles, not adapter ids: {frame}");
    let scopes = ide.ok(c, "scopes", json!({"frameId": frame}));
    let locals = scopes["scopes"][0]["variablesReference"].as_i64().expect("locals ref");
    assert!(locals >= 1000, "{scopes}");
    let vars = ide.ok(c, "variables", json!({"variablesReference": locals}));
    let value_of = |vars: &Value, name: &str| {
        vars["variables"].as_array().and_then(|l| l.iter().find(|v| v["name"] == json!(name)).cloned())
    };
    let words = value_of(&vars, "words").unwrap_or_else(|| panic!("words in {vars}"));
    assert_eq!(words["value"], json!("['hello', '变量 world']"), "{vars}");
    let words_ref = words["variablesReference"].as_i64().expect("words ref");
    assert!(words_ref >= 1000, "{words}");
    let items = ide.ok(c, "variables", json!({"variablesReference": words_ref}));
    assert!(items.to_string().contains("'hello'"), "{items}");
    // UTF-8 both ways (`Content-Length` in bytes, microsoft/vscode#99421) through the mirror writer and reader.
    let e = ide.ok(c, "evaluate", json!({"expression": "name + ' 变'", "frameId": frame, "context": "hover"}));
    assert_eq!(e["result"], json!("'变量 world 变'"), "{e}");

    // Control is refused quietly and the session stays paused for the agent.
    for (command, args) in [("continue", json!({"threadId": thread})), ("next", json!({"threadId": thread}))] {
        let r = ide.request(c, command, args);
        assert_eq!(r["ok"], json!(false), "{command}: {r}");
        assert!(r["message"].as_str().is_some_and(|m| m.contains("read-only")), "{r}");
    }
    let r = ide.request(c, "setVariable", json!({"variablesReference": locals, "name": "count", "value": "9"}));
    assert_eq!(r["ok"], json!(false), "{r}");
    let s = a.session(&id);
    assert_eq!((s["state"].clone(), s["stop"]["location"]["line"].clone()), (json!("stopped"), json!(3)), "{s}");

    // The agent steps: the IDE sees `continued`, then `stopped` at the new line.
    let r = a.ok("step", json!({"kind": "over"}));
    assert_eq!(stopped_line(&r), json!(4), "{}", r.text);
    ide.event(c, "continued");
    let stop = ide.event(c, "stopped");
    let events = ide.events(c);
    let kinds: Vec<&str> = events.as_array().unwrap().iter().filter_map(|e| e["event"].as_str()).collect();
    let (cont, last_stop) =
        (kinds.iter().rposition(|k| *k == "continued"), kinds.iter().rposition(|k| *k == "stopped"));
    assert!(cont < last_stop, "continued before stopped: {kinds:?}");
    let thread = stop["body"]["threadId"].as_i64().unwrap_or(thread);
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 1}));
    assert_eq!(st["stackFrames"][0]["line"], json!(4), "{st}");
    // A reference kept from before the step fails cleanly.
    let stale = ide.request(c, "variables", json!({"variablesReference": words_ref}));
    assert_eq!(stale["ok"], json!(false), "{stale}");
    assert!(stale["message"].as_str().is_some_and(|m| m.contains("has run since")), "{stale}");
    let stale = ide.request(c, "scopes", json!({"frameId": frame}));
    assert_eq!(stale["ok"], json!(false), "{stale}");

    // The program exits: exactly one `terminated`, then the socket closes and the port refuses.
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    ide.event(c, "terminated");
    assert!(ide.closed(c), "the socket closes after terminated");
    let events = ide.events(c);
    let terminated = events.as_array().unwrap().iter().filter(|e| e["event"] == json!("terminated")).count();
    assert_eq!(terminated, 1, "{events}");
    let outputs: String = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == json!("output"))
        .filter_map(|e| e["body"]["output"].as_str())
        .collect();
    assert!(outputs.contains("result"), "the IDE got the program's output: {outputs:?}");
    assert!(ide.refused(port), "the port refuses connections once the program ended");
    assert!(a.session(&id).get("mirror").is_none(), "no endpoint listed once closed");
    assert_no_token(&mut a, &id, &[&token]);
}

#[test]
pub(crate) fn tokens_the_client_cap_concurrent_clients_and_unexpose() {
    let mut a = Agent::start_with(|c| {
        c.env("RUST_LOG", "trace").env("AGENTDAP_MIRROR_AUTH_TIMEOUT_MS", "1500");
    });
    let id = stopped_session(&mut a);
    let (port, token) = expose(&mut a, &id);
    let mut ide = Ide::start();

    // Wrong and missing tokens: an error the IDE shows, then the socket closes.
    for args in [json!({"mirrorToken": "0".repeat(48)}), json!({})] {
        let c = ide.connect(port);
        ide.ok(c, "initialize", json!({"adapterID": "debugpy"}));
        let r = ide.request(c, "attach", args.clone());
        assert_eq!(r["ok"], json!(false), "{args}: {r}");
        assert!(r["message"].as_str().is_some_and(|m| m.contains("mirrorToken")), "{r}");
        assert_eq!(r["body"]["error"]["showUser"], json!(true), "{r}");
        assert!(ide.closed(c), "closed after a bad token");
    }
    // No attach in time (shortened to 1.5 s here): closed.
    let idle = ide.connect(port);
    assert!(ide.closed(idle), "closed after the auth timeout");

    // Two clients at once, each with its own seq space, both served.
    let (c1, _) = ide.attach(port, &token);
    let (c2, _) = ide.attach(port, &token);
    let thread = ide.event(c1, "stopped")["body"]["threadId"].as_i64().expect("thread");
    ide.event(c2, "stopped");
    let st = ide.ok(c1, "stackTrace", json!({"threadId": thread, "levels": 1}));
    let frame = st["stackFrames"][0]["id"].as_i64().expect("frame");
    ide.ok(c2, "stackTrace", json!({"threadId": thread, "levels": 1}));
    let batch = json!([
        {"command": "evaluate", "args": {"expression": "sum(range(10**5))", "context": "repl", "frameId": frame}},
        {"command": "threads"},
        {"command": "stackTrace", "args": {"threadId": thread, "levels": 1}},
    ]);
    let one = ide.cmd(json!({"op": "send_many", "client": c1, "requests": batch}));
    let two = ide.cmd(json!({"op": "send_many", "client": c2, "requests": batch}));
    for answers in [&one, &two] {
        let list = answers["responses"].as_array().expect("responses");
        let commands: Vec<&str> = list.iter().filter_map(|r| r["command"].as_str()).collect();
        assert_eq!(commands, ["evaluate", "threads", "stackTrace"], "each answer matched its own request: {answers}");
        assert!(list.iter().all(|r| r["ok"] == json!(true)), "{answers}");
    }
    // Both started from seq 1 (initialize) — the same request_seqs, answered to each.
    let seqs =
        |v: &Value| v["responses"].as_array().unwrap().iter().map(|r| r["request_seq"].clone()).collect::<Vec<_>>();
    assert_eq!(seqs(&one), seqs(&two), "independent seq spaces");

    // A fifth connection is refused (four are in: c1, c2 and two more).
    let (c3, _) = ide.attach(port, &token);
    let (c4, _) = ide.attach(port, &token);
    let c5 = ide.connect(port);
    let r = ide.request(c5, "initialize", json!({"adapterID": "debugpy"}));
    assert_eq!(r["ok"], json!(false), "{r}");
    assert!(r["message"].as_str().is_some_and(|m| m.contains("4 clients")), "{r}");
    assert!(ide.closed(c5));
    ide.ok(c4, "threads", json!({}));
    // A client leaving never touches the session.
    ide.ok(c3, "disconnect", json!({}));
    assert!(ide.closed(c3));
    assert_eq!(a.session(&id)["state"], json!("stopped"));

    // unexpose: clients get `terminated`, the port refuses; a second expose has a new port and token.
    let r = a.ok("unexpose_session", json!({"session": id}));
    assert_eq!(r.s["closed"], json!(true), "{}", r.text);
    assert!(ide.refused(port), "refused right after unexpose");
    for c in [c1, c2, c4] {
        ide.event(c, "terminated");
        assert!(ide.closed(c));
    }
    let r = a.ok("unexpose_session", json!({"session": id}));
    assert_eq!(r.s["closed"], json!(false), "a no-op success: {}", r.text);
    let (port2, token2) = expose(&mut a, &id);
    assert!(port2 != port && token2 != token, "a new endpoint and token");
    let (c6, _) = ide.attach(port2, &token2);
    ide.event(c6, "stopped");
    let old = ide.connect(port2);
    let r = ide.request(old, "attach", json!({"mirrorToken": token}));
    assert_eq!(r["ok"], json!(false), "the old token is dead: {r}");

    assert_no_token(&mut a, &id, &[&token, &token2]);
    a.ok("disconnect", json!({}));
    ide.event(c6, "terminated");
    assert!(ide.closed(c6));
    let stderr = a.d.stderr();
    assert!(stderr.contains("mirror client") && stderr.contains("[redacted]"), "the attach was traced, redacted");
    assert!(!stderr.contains(&token2), "trace log without the token");
}

/// `point.c`: stopped at line 5 (`p.x = p.x + 1;`), with `struct point p = {3, 4}` in scope.
pub(crate) const C_SOURCE: &str = "struct point { int x; int y; };\nint main(void) {\n    struct point p = { 3, 4 };\n    int sum = 0;\n    p.x = p.x + 1;\n    sum = p.x + p.y;\n    return sum - 8;\n}\n";

#[test]
pub(crate) fn the_same_attach_works_on_a_real_lldb_dap_session() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mirror-lldb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let source = dir.join("point.c");
    std::fs::write(&source, C_SOURCE).expect("write C");
    let program = dir.join("point");
    let built = Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&program).arg(&source).status();
    assert!(built.is_ok_and(|s| s.success()), "gcc (test dependency) failed");

    let mut a = Agent::start();
    let source = source.to_string_lossy().into_owned();
    let r =
        a.ok("launch", json!({"program": program, "breakpoints": [{"path": source, "line": 5}], "wait_ms": 30_000}));
    assert_eq!(stopped_line(&r), json!(5), "{}", r.text);
    let id = r.s["session"].as_str().expect("id").to_owned();
    let exposed = a.ok("expose_session", json!({}));
    assert_eq!(exposed.s["launch_json"]["type"], json!("lldb-dap"));
    let (port, token) = expose(&mut a, &id);

    let mut ide = Ide::start();
    let (c, caps) = ide.attach(port, &token);
    assert_eq!(caps["supportsSetVariable"], json!(false), "lldb-dap has it; the mirror masks it: {caps}");
    assert_eq!(caps["exceptionBreakpointFilters"], json!([]));
    let stop = ide.event(c, "stopped");
    let thread = stop["body"]["threadId"].as_i64().expect("threadId");
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 5}));
    assert_eq!(st["stackFrames"][0]["line"], json!(5), "{st}");
    let frame = st["stackFrames"][0]["id"].as_i64().expect("frame");
    let scopes = ide.ok(c, "scopes", json!({"frameId": frame}));
    let locals = scopes["scopes"][0]["variablesReference"].as_i64().expect("locals");
    let vars = ide.ok(c, "variables", json!({"variablesReference": locals}));
    let p = vars["variables"].as_array().and_then(|l| l.iter().find(|v| v["name"] == json!("p")).cloned());
    let p = p.unwrap_or_else(|| panic!("p in {vars}"));
    let p_ref = p["variablesReference"].as_i64().expect("p ref");
    let fields = ide.ok(c, "variables", json!({"variablesReference": p_ref}));
    let x = fields["variables"].as_array().and_then(|l| l.iter().find(|v| v["name"] == json!("x")).cloned());
    assert_eq!(x.map(|x| x["value"].clone()), Some(json!("3")), "{fields}");
    let e = ide.ok(c, "evaluate", json!({"expression": "p.x + p.y", "frameId": frame, "context": "watch"}));
    assert_eq!(e["result"], json!("7"), "{e}");
    let r = ide.request(c, "next", json!({"threadId": thread}));
    assert_eq!(r["ok"], json!(false), "{r}");

    // lldb-dap reuses its ids at every stop: the old reference must fail, not show new data.
    let r = a.ok("step", json!({"kind": "over"}));
    assert_eq!(stopped_line(&r), json!(6), "{}", r.text);
    ide.event(c, "continued");
    ide.event(c, "stopped");
    let stale = ide.request(c, "variables", json!({"variablesReference": p_ref}));
    assert_eq!(stale["ok"], json!(false), "{stale}");
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 1}));
    let frame = st["stackFrames"][0]["id"].as_i64().expect("frame");
    let e = ide.ok(c, "evaluate", json!({"expression": "p.x", "frameId": frame, "context": "watch"}));
    assert_eq!(e["result"], json!("4"), "{e}");

    let r = a.ok("continue", json!({"wait_ms": 30_000}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    ide.event(c, "terminated");
    assert!(ide.closed(c));
    let n = ide.events(c).as_array().map_or(0, |l| l.iter().filter(|e| e["event"] == json!("terminated")).count());
    assert_eq!(n, 1);
    assert!(ide.refused(port));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bare DAP client over TCP.
pub(crate) struct Raw {
    pub(crate) stream: TcpStream,
    buf: Vec<u8>,
    /// Events seen while waiting for responses, in order.
    events: Vec<Value>,
}

impl Raw {
    pub(crate) fn connect(port: u64) -> Raw {
        let port = u16::try_from(port).expect("port");
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the mirror");
        Raw { stream, buf: Vec::new(), events: Vec::new() }
    }

    pub(crate) fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    pub(crate) fn request_frame(seq: i64, command: &str, args: Value) -> Vec<u8> {
        let body = json!({"seq": seq, "type": "request", "command": command, "arguments": args});
        Raw::frame(body.to_string().as_bytes())
    }

    pub(crate) fn send(&mut self, seq: i64, command: &str, args: Value) {
        self.stream.write_all(&Raw::request_frame(seq, command, args)).expect("write to the mirror");
    }

    /// The next message, or `None` at EOF or after `within`.
    pub(crate) fn next(&mut self, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let header = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                let len: usize = header
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .and_then(|n| n.trim().parse().ok())
                    .expect("Content-Length");
                if self.buf.len() >= end + 4 + len {
                    let body: Vec<u8> = self.buf.drain(..end + 4 + len).skip(end + 4).collect();
                    return Some(serde_json::from_slice(&body).expect("JSON body"));
                }
            }
            let left = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero())?;
            self.stream.set_read_timeout(Some(left)).expect("timeout");
            let mut chunk = [0u8; 64 * 1024];
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                    return None
                }
                Err(_) => return None,
            }
        }
    }

    /// The response to `request_seq` (events on the way are kept).
    pub(crate) fn response(&mut self, request_seq: i64) -> Value {
        loop {
            let m = self.next(IDE_TIMEOUT).unwrap_or_else(|| panic!("no response to {request_seq}"));
            if m["type"] == json!("event") {
                self.events.push(m);
            } else if m["request_seq"] == json!(request_seq) {
                return m;
            }
        }
    }

    pub(crate) fn call(&mut self, seq: i64, command: &str, args: Value) -> Value {
        self.send(seq, command, args);
        self.response(seq)
    }

    pub(crate) fn attach(port: u64, token: &str) -> Raw {
        let mut c = Raw::connect(port);
        assert_eq!(c.call(1, "initialize", json!({"adapterID": "debugpy"}))["success"], json!(true));
        let r = c.call(2, "attach", json!({"mirrorToken": token}));
        assert_eq!(r["success"], json!(true), "{r}");
        c
    }

    /// Waits for event `name`; the events before it are kept.
    pub(crate) fn event(&mut self, name: &str) -> Value {
        if let Some(i) = self.events.iter().position(|e| e["event"] == json!(name)) {
            return self.events.remove(i);
        }
        loop {
            let m = self.next(IDE_TIMEOUT).unwrap_or_else(|| panic!("no `{name}`; events: {:?}", self.events));
            if m["event"] == json!(name) {
                return m;
            }
            self.events.push(m);
        }
    }

    /// True when the server closed the socket within `within`.
    pub(crate) fn closed_within(&mut self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            self.stream.set_read_timeout(Some(Duration::from_millis(100))).expect("timeout");
            let mut chunk = [0u8; 4096];
            match self.stream.read(&mut chunk) {
                Ok(0) => return true,
                Ok(_) => {}
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(_) => return true,
            }
        }
        false
    }
}

pub(crate) fn message(r: &Value) -> String {
    r["message"].as_str().unwrap_or_default().to_owned()
}

#[test]
pub(crate) fn hostile_mirror_clients_neither_lock_out_the_ide_nor_disturb_the_agent() {
    let mut a = Agent::start_with(|c| {
        c.env("RUST_LOG", "trace");
    });
    let id = stopped_session(&mut a);
    let (port, token) = expose(&mut a, &id);

    // Twenty idle connections queued while agentdap is stopped (more than one wake-up's worth),
    // then the IDE: it is accepted and attaches; the oldest idle ones were evicted.
    a.d.signal(libc::SIGSTOP);
    let mut idle: Vec<Raw> = (0..20).map(|_| Raw::connect(port)).collect();
    let mut ide = Raw::connect(port);
    ide.send(1, "initialize", json!({"adapterID": "debugpy"}));
    ide.send(2, "attach", json!({"mirrorToken": token}));
    a.d.signal(libc::SIGCONT);
    assert_eq!(ide.response(1)["success"], json!(true));
    assert_eq!(ide.response(2)["success"], json!(true), "the IDE gets in past a burst of idle connections");
    assert!(idle[0].closed_within(Duration::from_secs(5)), "the oldest idle connection was evicted");
    // Idle connections do not count against the 4 attached clients; a fifth attached one does.
    let mut others: Vec<Raw> = (0..3).map(|_| Raw::attach(port, &token)).collect();
    let mut fifth = Raw::connect(port);
    let r = fifth.call(1, "initialize", json!({"adapterID": "debugpy"}));
    assert!(r["success"] == json!(false) && message(&r).contains("4 clients"), "{r}");
    others.truncate(1);
    idle.clear();

    // debugpy advertises no loadedSources and has no readMemory/disassemble: refused at once,
    // and the agent's own requests are not held up behind them.
    for (seq, command, args) in [
        (3, "loadedSources", json!({})),
        (4, "readMemory", json!({"memoryReference": "0x0", "count": 16})),
        (5, "disassemble", json!({"memoryReference": "0x0", "instructionCount": 4})),
    ] {
        let r = ide.call(seq, command, args);
        assert!(r["success"] == json!(false) && message(&r).contains("does not support"), "{r}");
    }
    let t = Instant::now();
    a.ok("context", json!({"session": id}));
    assert!(t.elapsed() < Duration::from_secs(5), "the agent waited {:?}", t.elapsed());

    // Ids that are not integers never reach the adapter untranslated.
    for (seq, command, args) in
        [(6, "variables", json!({"variablesReference": 2.0})), (7, "scopes", json!({"frameId": "1000"}))]
    {
        let r = ide.call(seq, command, args);
        assert!(r["success"] == json!(false) && message(&r).contains("integer"), "{r}");
    }
    // A request without a command still gets an answer to its seq.
    ide.stream.write_all(&Raw::frame(br#"{"seq":8,"type":"request"}"#)).expect("write");
    assert_eq!(ide.response(8)["success"], json!(false));

    // A handle from another session's mirror says whose it is.
    let program = fixture("py/mirror_me.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 3}]}));
    let id2 = r.s["session"].as_str().expect("second session").to_owned();
    let (port2, token2) = expose(&mut a, &id2);
    let mut other = Raw::attach(port2, &token2);
    let thread = other.call(3, "threads", json!({}))["body"]["threads"][0]["id"].clone();
    let st = other.call(4, "stackTrace", json!({"threadId": thread, "levels": 1}));
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let r = ide.call(9, "scopes", json!({"frameId": frame}));
    assert!(r["success"] == json!(false) && message(&r).contains(&format!("belongs to session {id2}")), "{r}");
    drop(other);

    // A client that half-closes after pipelining still gets every answer, then the socket closes.
    let mut half = others.pop().expect("an attached client");
    let batch = [Raw::request_frame(10, "threads", json!({})), Raw::request_frame(11, "modules", json!({}))].concat();
    half.stream.write_all(&batch).expect("write");
    half.stream.shutdown(Shutdown::Write).expect("half-close");
    assert_eq!(half.response(10)["success"], json!(true));
    assert_eq!(half.response(11)["command"], json!("modules"));
    assert!(half.closed_within(Duration::from_secs(5)), "closed once answered");

    // Pipelined 200 KB evaluates: at most `MAX_ADAPTER_IN_FLIGHT` of them at the adapter at once,
    // the rest queued in the mirror; the agent's calls go through meanwhile.
    let thread = ide.call(12, "threads", json!({}))["body"]["threads"][0]["id"].clone();
    let st = ide.call(13, "stackTrace", json!({"threadId": thread, "levels": 1}));
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let expr = format!("1 #{}", "x".repeat(200_000 - 100));
    let blast: Vec<u8> = (0..24)
        .flat_map(|i| {
            Raw::request_frame(100 + i, "evaluate", json!({"expression": expr, "context": "watch", "frameId": frame}))
        })
        .collect();
    let mut writer = ide.stream.try_clone().expect("clone");
    let sender = std::thread::spawn(move || writer.write_all(&blast).is_ok());
    for _ in 0..5 {
        let r = a.call("context", json!({"session": id}));
        assert!(!r.is_error, "the agent's call failed under mirror load: {}", r.text);
    }
    assert!(sender.join().expect("writer"), "agentdap read the whole burst");
    let mut answers = Vec::new();
    while answers.len() < 24 {
        let m = ide.next(IDE_TIMEOUT).unwrap_or_else(|| panic!("{} of 24 answers", answers.len()));
        if m["command"] == json!("evaluate") {
            answers.push(m);
        }
    }
    for r in &answers {
        assert_eq!(r["success"], json!(true), "queued, then evaluated: {}", message(r));
    }

    // The agent steps: exactly one `continued` before the next `stopped`.
    ide.events.clear();
    a.ok("step", json!({"session": id, "kind": "over"}));
    ide.event("stopped");
    let continued = ide.events.iter().filter(|e| e["event"] == json!("continued")).count();
    assert_eq!(continued, 1, "{:?}", ide.events);

    // unexpose and expose in one write: the expose answers with a new, live endpoint.
    let unexpose = json!({"jsonrpc": "2.0", "id": "u", "method": "tools/call",
        "params": {"name": "unexpose_session", "arguments": {"session": id}}});
    let expose_again = json!({"jsonrpc": "2.0", "id": "e", "method": "tools/call",
        "params": {"name": "expose_session", "arguments": {"session": id}}});
    a.d.send_bytes(format!("{unexpose}\n{expose_again}\n").as_bytes());
    let mut fresh = None;
    while fresh.is_none() {
        let m = a.d.recv();
        if m["id"] == json!("e") {
            fresh = Some(m["result"]["structuredContent"].clone());
        }
    }
    let fresh = fresh.unwrap_or_default();
    let (port3, token3) = (fresh["port"].as_u64().expect("port"), fresh["token"].as_str().expect("token"));
    assert!(port3 != port && token3 != token, "{fresh}");
    Raw::attach(port3, token3);
    let listed = a.ok("sessions", json!({}));
    assert!(listed.text.contains(&format!("mirror 127.0.0.1:{port3}")), "{}", listed.text);
    assert_no_token(&mut a, &id, &[&token, token3]);
}

/// The token is "not in the stderr log at any level" (SECURITY.md), but bytes the mirror's
/// decoder skips are logged with their first 32 bytes (`skipped … (starting "…")`): an IDE
/// whose `Content-Length` undercounts its `attach` (characters counted, not UTF-8 bytes, with
/// a non-ASCII path before the token) leaves the token's start as the skipped bytes, and 32 of
/// its 48 hex digits reach the log.
#[test]
fn a_short_content_length_does_not_put_the_token_in_the_stderr_log() {
    let mut a = Agent::start_with(|c| {
        c.env("RUST_LOG", "trace");
    });
    let id = stopped_session(&mut a);
    let (port, token) = expose(&mut a, &id);
    let body = format!(
        r#"{{"seq":1,"type":"request","command":"attach","arguments":{{"name":"é","mirrorToken":"{token}"}}}}"#
    );
    let cut = body.find(&token).expect("token in body");
    let mut s = TcpStream::connect(("127.0.0.1", port as u16)).expect("connect");
    // The frame cut before the token, the token left over as garbage, then a frame to resync at.
    let bytes = format!("Content-Length: {cut}\r\n\r\n{body}\r\nContent-Length: 2\r\n\r\n{{}}");
    s.write_all(bytes.as_bytes()).expect("write");
    s.flush().ok();
    std::thread::sleep(Duration::from_millis(500));
    drop(s);
    std::thread::sleep(Duration::from_millis(200));
    let stderr = a.d.stderr();
    assert!(!stderr.contains(&token[..16]), "the stderr log holds the token's start: {stderr}");
}
