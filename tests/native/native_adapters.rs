//! The real lldb-dap and Delve from their recipes: selection of compiled C, Rust and Go programs, lldb-dap over stdio (initialize, a stop at `main`, lldb-server and the inferior in their own groups), Delve over TCP (port announced on stdout, connect through the state machine, initialize), and no process left after `kill_group`.
//!
//! Needs `gcc`, `rustc`, `lldb-dap-NN` (`apt-get install lldb-22`) and `dlv` + `go`
//! (`apt-get install delve golang-go`); a missing one fails the test with that command.

use crate::common;
use crate::spawn_util;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentdap::dap::adapters::{self, delve, lldb, AdapterKind, RealHost, ResolveInput, Transport};
use agentdap::dap::framing::Decoder;
use agentdap::dap::tcp::{Connector, PortScanner, Scan, Step};
use agentdap::os::spawn::{self, spawn_adapter, Pid, StderrTail};
use common::go_env;
use mio::{Events, Interest, Poll, Token};
use serde_json::{json, Value};
use spawn_util::{group_members, running, wait_until, DEADLINE};

/// Generous: a cold `go build` of a small program takes ~10 s on a 2-core machine.
const BUILD_DEADLINE: Duration = Duration::from_secs(240);
const DAP_DEADLINE: Duration = Duration::from_secs(60);

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("native-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs a build tool; a missing tool fails with the package that provides it.
fn run(cmd: &mut Command, package: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}; install it with: apt-get install {package}"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
}

const C_SOURCE: &str = "#include <stdio.h>\nstruct point { int x; int y; };\nint main(void) {\n    struct point p = { 3, 4 };\n    printf(\"sum=%d\\n\", p.x + p.y);\n    return 7;\n}\n";
const RUST_SOURCE: &str = "fn main() {\n    let v = vec![10, 20, 30];\n    println!(\"{}\", v.len());\n}\n";
const GO_SOURCE: &str = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello from go\")\n}\n";

fn build_c(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("hello.c"), C_SOURCE).expect("write C");
    let bin = dir.join("hello");
    run(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&bin).arg(dir.join("hello.c")), "gcc");
    bin
}

fn go_package(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("main.go"), GO_SOURCE).expect("write Go");
    std::fs::write(dir.join("go.mod"), "module example.com/hello\n\ngo 1.19\n").expect("write go.mod");
    dir.join("main.go")
}

fn build_go(dir: &Path) -> PathBuf {
    go_package(dir);
    let bin = dir.join("hello-go");
    let mut cmd = Command::new("go");
    go_env(cmd.current_dir(dir).args(["build", "-gcflags=all=-N -l", "-o"]).arg(&bin).arg("."));
    let start = Instant::now();
    run(&mut cmd, "golang-go");
    assert!(start.elapsed() < BUILD_DEADLINE, "go build took {:?}", start.elapsed());
    bin
}

fn selected(program: &Path) -> Result<AdapterKind, String> {
    adapters::select(None, program.to_str()).map_err(|e| e.to_string())
}

#[test]
fn selection_by_program_on_real_binaries() {
    let dir = scratch("select");
    let c = build_c(&dir);
    assert_eq!(std::fs::read(&c).expect("read").get(..4), Some(&b"\x7fELF"[..]));
    assert_eq!(selected(&c), Ok(AdapterKind::Lldb));
    let c_recipe = adapters::recipe_for_program(AdapterKind::Lldb, Some(&c), ResolveInput::default(), &RealHost);
    let c_recipe = c_recipe.unwrap_or_else(|e| panic!("{e}"));
    assert!(c_recipe.launch_defaults.get("initCommands").is_none(), "C needs no Rust formatters");

    std::fs::write(dir.join("vec.rs"), RUST_SOURCE).expect("write Rust");
    let rust = dir.join("vec");
    run(Command::new("rustc").args(["-g", "-o"]).arg(&rust).arg(dir.join("vec.rs")), "rustc (rustup)");
    assert_eq!(selected(&rust), Ok(AdapterKind::Lldb));
    let r = adapters::recipe_for_program(AdapterKind::Lldb, Some(&rust), ResolveInput::default(), &RealHost);
    let r = r.unwrap_or_else(|e| panic!("{e}"));
    let init = r.launch_defaults["initCommands"].as_array().cloned().unwrap_or_default();
    assert_eq!(init.len(), 2, "rustc's formatters for a Rust binary: {}", r.launch_defaults);
    assert!(init[0]
        .as_str()
        .is_some_and(|c| c.starts_with("?command script import ") && c.ends_with("lldb_lookup.py")));

    let go_dir = dir.join("gopkg");
    std::fs::create_dir_all(&go_dir).expect("go dir");
    let go_bin = build_go(&go_dir);
    assert_eq!(selected(&go_bin), Ok(AdapterKind::Delve), "a Go ELF goes to Delve");
    assert_eq!(selected(&go_dir.join("main.go")), Ok(AdapterKind::Delve));
    assert_eq!(selected(&go_dir), Ok(AdapterKind::Delve), "a package directory");
    let modes: Vec<String> = [go_bin.as_path(), &go_dir.join("main.go"), &go_dir]
        .iter()
        .map(|p| delve::mode_for(p, None, &RealHost).as_str().to_string())
        .collect();
    assert_eq!(modes, ["exec", "debug", "debug"]);
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a program").expect("write");
    assert!(selected(&text).is_err_and(|e| e.starts_with("cannot tell which adapter debugs")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// One DAP connection in a test: frames out, decoded messages in, with a deadline.
struct Dap<S> {
    poll: Poll,
    source: S,
    decoder: Decoder,
    inbox: Vec<Value>,
    seq: i64,
}

const DAP: Token = Token(1);

impl<S: Read + mio::event::Source> Dap<S> {
    fn new(mut source: S) -> Dap<S> {
        let poll = Poll::new().expect("poll");
        poll.registry().register(&mut source, DAP, Interest::READABLE).expect("register");
        Dap { poll, source, decoder: Decoder::new(), inbox: Vec::new(), seq: 0 }
    }

    fn frame(&mut self, command: &str, arguments: Value) -> (i64, Vec<u8>) {
        self.seq += 1;
        let body = json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        (self.seq, format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes())
    }

    /// Waits for the first message matching `pred` (earlier ones stay in `inbox`).
    fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool, tail: &dyn Fn() -> String) -> Value {
        let end = Instant::now() + DAP_DEADLINE;
        let mut events = Events::with_capacity(4);
        let mut buf = [0u8; 16 * 1024];
        loop {
            if let Some(i) = self.inbox.iter().position(&pred) {
                return self.inbox.remove(i);
            }
            let left = end.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {what} within {DAP_DEADLINE:?}; got {:?}; stderr: {}", self.inbox, tail());
            self.poll.poll(&mut events, Some(left.min(Duration::from_millis(200)))).expect("poll");
            loop {
                match self.source.read(&mut buf) {
                    Ok(0) => panic!("adapter closed the DAP stream waiting for {what}; stderr: {}", tail()),
                    Ok(n) => {
                        let inbox = &mut self.inbox;
                        self.decoder
                            .feed(&buf[..n], |f| inbox.push(serde_json::from_slice(f.expect("frame")).expect("json")));
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => panic!("read: {e}"),
                }
            }
        }
    }
}

fn response_to(seq: i64) -> impl Fn(&Value) -> bool {
    move |m: &Value| m["type"] == "response" && m["request_seq"] == seq
}

fn event(name: &'static str) -> impl Fn(&Value) -> bool {
    move |m: &Value| m["type"] == "event" && m["event"] == name
}

fn initialize_args(adapter_id: &str) -> Value {
    json!({"clientID": "agentdap", "adapterID": adapter_id, "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"})
}

fn reap(pid: Pid) {
    let mut status = 0;
    // SAFETY: waitpid on our own child with a valid status pointer.
    unsafe { libc::waitpid(pid, &mut status, 0) };
}

#[test]
fn real_lldb_dap_stops_at_main_and_leaves_nothing_after_kill_group() {
    let dir = scratch("lldb");
    let program = build_c(&dir);
    let recipe = adapters::recipe_for_program(AdapterKind::Lldb, Some(&program), ResolveInput::default(), &RealHost)
        .unwrap_or_else(|e| panic!("{e} (the test needs lldb-dap)"));
    assert_eq!(recipe.transport, Transport::Stdio);
    let quirks = lldb::runtime_quirks();
    let mut adapter = spawn_adapter(&recipe.command).expect("spawn lldb-dap");
    let mut stdin = adapter.stdin;
    let mut tail = StderrTail::default();
    let stderr = std::cell::RefCell::new(&mut adapter.stderr);
    let tail_cell = std::cell::RefCell::new(&mut tail);
    let stderr_text = || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.borrow_mut().read(&mut buf) {
            if n == 0 {
                break;
            }
            tail_cell.borrow_mut().push(&buf[..n]);
        }
        tail_cell.borrow().text()
    };
    let mut dap = Dap::new(adapter.stdout);

    let (seq, frame) = dap.frame("initialize", initialize_args("lldb-dap"));
    stdin.write_all(&frame).expect("write initialize");
    let init = dap.wait_for("initialize response", response_to(seq), &stderr_text);
    assert_eq!(init["success"], true, "{init}");
    assert!(init["body"]["$__lldb_version"].as_str().is_some_and(|v| v.starts_with("lldb version")), "{init}");

    // The entry choreography the session layer will run: a function breakpoint on main.
    let mut launch = recipe.launch_defaults.clone();
    launch["program"] = json!(program);
    launch[recipe.quirks.stop_on_entry_key] = json!(false);
    let (launch_seq, frame) = dap.frame("launch", launch);
    stdin.write_all(&frame).expect("write launch");
    dap.wait_for("initialized", event("initialized"), &stderr_text);
    let entry = quirks.entry_function.expect("lldb has an entry function");
    let (bp_seq, frame) = dap.frame("setFunctionBreakpoints", json!({"breakpoints": [{"name": entry}]}));
    stdin.write_all(&frame).expect("write setFunctionBreakpoints");
    let (done_seq, frame) = dap.frame("configurationDone", json!({}));
    stdin.write_all(&frame).expect("write configurationDone");
    let process = dap.wait_for("process event", event("process"), &stderr_text);
    let stopped = dap.wait_for("stopped at main", event("stopped"), &stderr_text);
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    let bp = dap.wait_for("setFunctionBreakpoints response", response_to(bp_seq), &stderr_text);
    assert_eq!(stopped["body"]["hitBreakpointIds"][0], bp["body"]["breakpoints"][0]["id"], "{bp}");
    dap.wait_for("configurationDone response", response_to(done_seq), &stderr_text);
    dap.wait_for("launch response", response_to(launch_seq), &stderr_text);

    // lldb-server and the inferior lead process groups of their own (the quirk).
    let inferior = process["body"]["systemProcessId"].as_i64().expect("systemProcessId") as Pid;
    let family = spawn::descendants(adapter.pid, &[]);
    let server = family.iter().find(|p| p.pid != inferior).expect("lldb-server among the descendants");
    let inferior_stat = spawn::proc_stat(inferior).expect("inferior stat");
    assert!(quirks.debuggee_own_process_group);
    assert_eq!((server.pgid, inferior_stat.pgid), (server.pid, inferior), "own groups: {family:?}");
    assert_eq!(inferior_stat.ppid, server.pid, "the inferior is lldb-server's child");
    let comm = std::fs::read_to_string(format!("/proc/{}/comm", server.pid)).unwrap_or_default();
    assert!(quirks.helper_processes.iter().any(|h| comm.starts_with(h)), "helper {comm:?}");

    // Killing the adapter's group takes lldb-server and the inferior down with it.
    assert_eq!(spawn::kill_group(adapter.pgid).ok(), Some(true));
    reap(adapter.pid);
    let gone =
        wait_until(DEADLINE, || !running(server.pid) && !running(inferior) && group_members(adapter.pgid).is_empty());
    assert!(gone, "left: server {} inferior {}", running(server.pid), running(inferior));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn real_delve_announces_its_port_and_answers_initialize_over_tcp() {
    let dir = scratch("delve");
    let program = build_go(&dir);
    let recipe = adapters::recipe_for_program(AdapterKind::Delve, Some(&program), ResolveInput::default(), &RealHost)
        .unwrap_or_else(|e| panic!("{e} (the test needs dlv)"));
    let Transport::Tcp { port: adapters::PortDiscovery::AnnouncedLine { prefix } } = recipe.transport else {
        panic!("{:?}", recipe.transport)
    };
    assert_eq!(recipe.launch_defaults["mode"], "exec");
    let mut adapter = spawn_adapter(&recipe.command).expect("spawn dlv");
    let mut tail = StderrTail::default();

    // Port discovery on dlv's stdout, connect through the state machine, all on one poll.
    let mut poll = Poll::new().expect("poll");
    const OUT: Token = Token(10);
    const SOCK: Token = Token(11);
    poll.registry().register(&mut adapter.stdout, OUT, Interest::READABLE).expect("register stdout");
    let mut scanner = PortScanner::new(prefix);
    let mut connector = Connector::awaiting_port(Instant::now(), DAP_DEADLINE);
    let mut stream: Option<mio::net::TcpStream> = None;
    let mut events = Events::with_capacity(8);
    let mut buf = [0u8; 4096];
    let mut step = Step::Wait;
    let connected = loop {
        match step {
            Step::Connect(addr) => {
                let mut s = mio::net::TcpStream::connect(addr).expect("socket");
                poll.registry().register(&mut s, SOCK, Interest::WRITABLE).expect("register socket");
                stream = Some(s);
                step = connector.connect_started(Instant::now(), Ok(()));
                continue;
            }
            Step::Retry => {
                if let Some(mut s) = stream.take() {
                    poll.registry().deregister(&mut s).expect("deregister");
                }
            }
            Step::Connected(addr) => break addr,
            Step::Failed(e) => {
                while let Ok(n) = adapter.stderr.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    tail.push(&buf[..n]);
                }
                panic!("{e}; dlv stderr: {}", tail.text())
            }
            Step::Wait => {}
        }
        let timeout = connector.next_deadline().map(|d| d.saturating_duration_since(Instant::now()));
        poll.poll(&mut events, timeout).expect("poll");
        step = Step::Wait;
        for ev in events.iter() {
            if ev.token() == OUT {
                while let Ok(n) = adapter.stdout.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Scan::Found { addr, .. } = scanner.feed(&buf[..n]) {
                        assert!(addr.ip().is_loopback(), "{addr}");
                        step = connector.port_known(addr, Instant::now());
                    }
                }
            } else if let (SOCK, Some(s)) = (ev.token(), stream.as_ref()) {
                step = connector.on_writable(Instant::now(), s.take_error(), s.peer_addr());
            }
        }
        if step == Step::Wait {
            step = connector.on_timer(Instant::now());
        }
    };
    let mut sock = stream.take().expect("connected stream");
    poll.registry().deregister(&mut sock).expect("deregister");
    assert_eq!(sock.peer_addr().ok(), Some(connected));

    let mut dap = Dap::new(sock);
    let (seq, frame) = dap.frame("initialize", initialize_args("go"));
    write_all_nonblocking(&mut dap, &frame);
    let no_tail = || String::new();
    let init = dap.wait_for("initialize response", response_to(seq), &no_tail);
    assert_eq!(init["success"], true, "{init}");
    assert!(init["body"]["supportsConfigurationDoneRequest"] == true, "{init}");
    let filters = init["body"].get("exceptionBreakpointFilters").and_then(Value::as_array).map_or(0, Vec::len);
    assert_eq!(filters, 0, "Delve has no exception filters: {init}");

    assert_eq!(spawn::kill_group(adapter.pgid).ok(), Some(true));
    reap(adapter.pid);
    assert!(wait_until(DEADLINE, || group_members(adapter.pgid).is_empty()), "left: {:?}", group_members(adapter.pgid));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes a small frame to a non-blocking socket (a fresh socket's buffer takes it at once;
/// the loop bounds the rare partial write).
fn write_all_nonblocking(dap: &mut Dap<mio::net::TcpStream>, mut bytes: &[u8]) {
    let end = Instant::now() + DAP_DEADLINE;
    while !bytes.is_empty() {
        match dap.source.write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && Instant::now() < end => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => panic!("write: {e}"),
        }
    }
}
