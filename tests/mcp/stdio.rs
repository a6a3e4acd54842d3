//! The built binary over real pipes: MCP transport behaviour (MCP 2025-11-25 § Basic › Transports ›
//! stdio), backpressure, files as stdio, and shutdown on EOF, signals and EPIPE.

use crate::common;

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::{initialize_request, modern_meta, modern_request, Agentdap};
use serde_json::{json, Value};

/// "Exits promptly" is < 1 s by design; the assertion leaves room for a loaded CI machine.
const PROMPT_EXIT: Duration = Duration::from_secs(3);

fn ping(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

#[test]
fn initialize_echoes_each_listed_version_and_answers_the_latest_for_others() {
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2023-01-01", "2025-11-25"),
    ] {
        let mut agentdap = Agentdap::spawn();
        let response = agentdap.initialize(asked);
        assert_eq!(response["id"], json!(1), "{response}");
        assert_eq!(response["result"]["protocolVersion"], json!(answered), "asked {asked}: {response}");
        assert!(response["result"]["capabilities"]["tools"].is_object(), "{response}");
        assert_eq!(response["result"]["serverInfo"]["name"], json!("agentdap"), "{response}");
        assert!(response["result"]["instructions"].is_string(), "{response}");
        // `notifications/initialized` got no reply: the next line answers the next request.
        assert_eq!(agentdap.request(ping(json!(2))), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    }
}

#[test]
fn modern_discover_and_tools_list_are_served_statelessly() {
    let mut agentdap = Agentdap::spawn();
    let discover = agentdap.request(modern_request(json!(1), "server/discover", "2026-07-28"));
    let result = &discover["result"];
    assert_eq!(discover["id"], json!(1), "{discover}");
    assert_eq!(result["resultType"], json!("complete"), "{discover}");
    let versions = result["supportedVersions"].as_array().expect("supportedVersions");
    assert!(versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")), "{discover}");
    assert!(result["capabilities"]["tools"].is_object(), "{discover}");
    assert!(result["ttlMs"].as_u64().is_some() && result["cacheScope"].is_string(), "{discover}");

    let list = agentdap.request(modern_request(json!("list"), "tools/list", "2026-07-28"));
    assert_eq!(list["id"], json!("list"), "{list}");
    assert_eq!(list["result"]["resultType"], json!("complete"), "{list}");
    assert!(list["result"]["ttlMs"].as_u64().is_some(), "{list}");
    let tools = list["result"]["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t["name"] == json!("sessions")), "{list}");
    for tool in tools {
        assert!(tool["inputSchema"]["type"] == json!("object"), "{tool}");
    }
}

#[test]
fn an_unsupported_modern_version_is_refused_with_32022() {
    let mut agentdap = Agentdap::spawn();
    let response = agentdap.request(modern_request(json!(7), "tools/list", "2099-01-01"));
    assert_eq!(response["id"], json!(7), "{response}");
    assert_eq!(response["error"]["code"], json!(-32022), "{response}");
    // A modern request missing the required capabilities key is invalid params.
    let mut meta = modern_meta("2026-07-28");
    meta.as_object_mut().unwrap().remove("io.modelcontextprotocol/clientCapabilities");
    let response =
        agentdap.request(json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": meta}}));
    assert_eq!(response["error"]["code"], json!(-32602), "{response}");
}

#[test]
fn ids_are_echoed_exactly_and_notifications_get_no_reply() {
    let mut agentdap = Agentdap::spawn();
    agentdap.initialize("2025-11-25");
    agentdap.send_json(&ping(json!(1)));
    assert_eq!(agentdap.recv_line(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    agentdap.send_json(&ping(json!("1")));
    assert_eq!(agentdap.recv_line(), r#"{"jsonrpc":"2.0","id":"1","result":{}}"#);
    // A notification for any method, known or not, is never answered.
    agentdap.send(r#"{"jsonrpc":"2.0","method":"ping"}"#);
    agentdap.send(r#"{"jsonrpc":"2.0","method":"no/such/method"}"#);
    agentdap.send_json(&ping(json!(3)));
    assert_eq!(agentdap.recv()["id"], json!(3));
}

#[test]
fn malformed_json_gets_32700_and_the_next_line_is_answered() {
    let mut agentdap = Agentdap::spawn();
    agentdap.initialize("2025-11-25");
    agentdap.send(r#"{"jsonrpc":"2.0","id":1,"method":"#);
    let error = agentdap.recv();
    assert_eq!(error["error"]["code"], json!(-32700), "{error}");
    assert_eq!(error["id"], Value::Null, "{error}");
    agentdap.send_bytes(b"\xff\xfe not utf-8\n");
    assert_eq!(agentdap.recv()["error"]["code"], json!(-32700));
    assert_eq!(agentdap.request(ping(json!(2)))["id"], json!(2));
}

#[test]
fn crlf_blank_lines_and_a_leading_bom_are_tolerated() {
    let mut agentdap = Agentdap::spawn();
    agentdap.send_bytes(b"\xEF\xBB\xBF");
    agentdap.send_bytes(format!("{}\r\n\r\n   \n", initialize_request(1, "2025-06-18")).as_bytes());
    assert_eq!(agentdap.recv()["result"]["protocolVersion"], json!("2025-06-18"));
    agentdap.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n");
    assert_eq!(agentdap.recv()["id"], json!(2));
}

#[test]
fn an_oversized_line_is_rejected_and_the_stream_recovers() {
    let mut agentdap = Agentdap::spawn();
    agentdap.initialize("2025-11-25");
    let pad = "x".repeat(17 * 1024 * 1024);
    agentdap.send(&format!(r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"pad":"{pad}"}}}}"#));
    let error = agentdap.recv();
    assert!(error["error"]["code"].as_i64().is_some(), "{error}");
    assert_eq!(error["id"], Value::Null, "the id of a dropped line is never read: {error}");
    assert_eq!(agentdap.request(ping(json!(6))), json!({"jsonrpc": "2.0", "id": 6, "result": {}}));
}

#[test]
fn a_batch_is_answered_as_a_batch_under_2025_03_26() {
    let mut agentdap = Agentdap::spawn();
    agentdap.initialize("2025-03-26");
    agentdap.send(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}},{"jsonrpc":"2.0","id":"b","method":"ping"}]"#);
    let batch = agentdap.recv();
    let answers = batch.as_array().unwrap_or_else(|| panic!("expected an array: {batch}"));
    let mut ids: Vec<String> = answers.iter().map(|a| a["id"].to_string()).collect();
    ids.sort();
    assert_eq!(ids, [r#""b""#, "1"], "{batch}");
    assert_eq!(agentdap.request(ping(json!(3)))["id"], json!(3));
}

#[test]
fn a_client_that_stops_reading_loses_nothing() {
    let mut agentdap = Agentdap::spawn();
    agentdap.initialize("2025-11-25");
    let list = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list"});
    let one = agentdap.request(list.clone()).to_string().len();
    // Enough answers to pass stdout's 4 MiB cap twice, so stdin is paused and resumed.
    let count = (8 * 1024 * 1024 / one + 1).min(50_000);
    let mut stdin = agentdap.take_stdin();
    let writer = thread::spawn(move || {
        let mut batch = Vec::new();
        for id in 1..=count {
            let mut request = list.clone();
            request["id"] = json!(id);
            batch.extend_from_slice(request.to_string().as_bytes());
            batch.push(b'\n');
        }
        stdin.write_all(&batch).expect("write requests");
        stdin // keep stdin open until the test is done reading
    });
    thread::sleep(Duration::from_secs(1));
    let mut seen = vec![false; count + 1];
    for _ in 0..count {
        let answer = agentdap.recv();
        let id = answer["id"].as_u64().unwrap_or_else(|| panic!("no numeric id: {answer}")) as usize;
        assert!(answer["result"]["tools"].is_array(), "{answer}");
        assert!(!std::mem::replace(&mut seen[id], true), "id {id} answered twice");
    }
    assert!(seen[1..].iter().all(|&s| s), "every id answered");
    let _stdin = writer.join().expect("writer thread");
    let log = agentdap.stderr();
    assert!(log.contains("stdin paused") && log.contains("stdin resumed"), "backpressure engaged:\n{log}");
}

#[test]
fn stdin_eof_exits_zero_promptly_after_answering() {
    let mut agentdap = Agentdap::spawn();
    agentdap.send_json(&initialize_request(1, "2025-11-25"));
    agentdap.send_json(&ping(json!(2)));
    agentdap.close_stdin();
    let closed = Instant::now();
    assert_eq!(agentdap.recv()["id"], json!(1));
    assert_eq!(agentdap.recv()["id"], json!(2));
    agentdap.assert_clean_exit(PROMPT_EXIT);
    assert!(closed.elapsed() < PROMPT_EXIT);
}

#[test]
fn a_final_line_without_newline_is_answered_at_eof() {
    let mut agentdap = Agentdap::spawn();
    agentdap.send_bytes(initialize_request(1, "2025-11-25").to_string().as_bytes());
    agentdap.close_stdin();
    assert_eq!(agentdap.recv()["id"], json!(1));
    agentdap.assert_clean_exit(PROMPT_EXIT);
}

#[test]
fn sigterm_sigint_and_sighup_exit_zero_promptly() {
    for signo in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let mut agentdap = Agentdap::spawn();
        agentdap.initialize("2025-11-25");
        agentdap.signal(signo);
        agentdap.assert_clean_exit(PROMPT_EXIT);
    }
}

#[test]
fn sigterm_exits_even_while_a_client_is_not_reading_stdout() {
    let mut agentdap = Agentdap::spawn();
    agentdap.initialize("2025-11-25");
    // Far more output than a pipe holds (each answer is ~14 KB), but few enough requests that
    // they fit in stdin's pipe once agentdap stops reading it: the test never blocks writing.
    for id in 2..500 {
        agentdap.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}));
    }
    thread::sleep(Duration::from_millis(200));
    agentdap.signal(libc::SIGTERM);
    agentdap.assert_clean_exit(PROMPT_EXIT);
    assert!(agentdap.stderr().contains("stdout accepted nothing"), "stderr:\n{}", agentdap.stderr());
}

#[test]
fn sigchld_is_not_a_shutdown() {
    let mut agentdap = Agentdap::spawn();
    agentdap.signal(libc::SIGCHLD);
    agentdap.initialize("2025-11-25");
    assert_eq!(agentdap.request(ping(json!(2)))["id"], json!(2));
}

#[test]
fn epipe_on_stdout_exits_zero() {
    let mut agentdap = Agentdap::spawn();
    agentdap.initialize("2025-11-25");
    agentdap.close_stdout();
    agentdap.send_json(&ping(json!(2)));
    agentdap.assert_clean_exit(PROMPT_EXIT);
    assert!(agentdap.stderr().contains("stdout closed"), "stderr:\n{}", agentdap.stderr());
}

#[test]
fn stdin_and_stdout_can_be_regular_files() {
    let dir = std::env::temp_dir().join(format!("agentdap-stdio-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("requests.jsonl");
    let output = dir.join("responses.jsonl");
    let mut requests = String::new();
    requests.push_str(&format!("{}\n", initialize_request(1, "2025-11-25")));
    requests.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for id in 2..=200 {
        requests.push_str(&format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})));
    }
    std::fs::write(&input, requests).unwrap();

    let mut child = Command::new(common::bin())
        .stdin(File::open(&input).unwrap())
        .stdout(File::create(&output).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "agentdap did not finish reading a regular file");
        thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "stderr:\n{stderr}");

    let text = std::fs::read_to_string(&output).unwrap();
    let ids: Vec<Value> = text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone()).collect();
    assert_eq!(ids, (1..=200).map(|i| json!(i)).collect::<Vec<_>>());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A terminal as both stdin and stdout is one open file description, so the two share their
/// file status flags: agentdap leaves it blocking, as it found it (restoring stdin's flags last).
#[test]
fn a_terminal_as_stdin_and_stdout_is_left_blocking_at_exit() {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    // SAFETY: posix_openpt returns a new fd or -1; grantpt, unlockpt and TIOCGPTPEER (which opens
    // the other side and returns a new fd or -1) act on that fd; termios is a plain C struct.
    let (master, terminal) = unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(master >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let master = OwnedFd::from_raw_fd(master);
        assert_eq!(libc::grantpt(master.as_raw_fd()), 0);
        assert_eq!(libc::unlockpt(master.as_raw_fd()), 0);
        let terminal = libc::ioctl(master.as_raw_fd(), libc::TIOCGPTPEER, libc::O_RDWR | libc::O_NOCTTY);
        assert!(terminal >= 0, "TIOCGPTPEER: {}", std::io::Error::last_os_error());
        let terminal = OwnedFd::from_raw_fd(terminal);
        let mut t: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(terminal.as_raw_fd(), &mut t), 0);
        t.c_lflag &= !libc::ECHO;
        assert_eq!(libc::tcsetattr(terminal.as_raw_fd(), libc::TCSANOW, &t), 0);
        (File::from(master), terminal)
    };
    // SAFETY: F_GETFL on an fd this test owns.
    let non_blocking = || unsafe { libc::fcntl(terminal.as_raw_fd(), libc::F_GETFL) } & libc::O_NONBLOCK != 0;
    assert!(!non_blocking(), "a new terminal is blocking");

    let mut child = Command::new(common::bin())
        .stdin(terminal.try_clone().unwrap())
        .stdout(terminal.try_clone().unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut master = master;
    writeln!(master, "{}", initialize_request(1, "2025-11-25")).unwrap();
    // The answer shows the server runs (and holds the terminal non-blocking); `serverInfo` is
    // in the answer only.
    let mut seen = Vec::new();
    let start = Instant::now();
    while !String::from_utf8_lossy(&seen).contains("serverInfo") {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no answer on the terminal: {}",
            String::from_utf8_lossy(&seen)
        );
        let mut ready = libc::pollfd { fd: master.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd for an fd this test owns.
        if unsafe { libc::poll(&mut ready, 1, 100) } <= 0 {
            continue;
        }
        let mut chunk = [0u8; 4096];
        let n = master.read(&mut chunk).unwrap();
        seen.extend_from_slice(&chunk[..n]);
    }
    assert!(non_blocking(), "agentdap serves a terminal non-blocking");
    // End of input on a terminal (VEOF, ^D at the start of a line): agentdap exits.
    master.write_all(&[4]).unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "agentdap did not exit at the terminal's end of input");
        thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(0));
    assert!(!non_blocking(), "agentdap left the terminal non-blocking");
}

#[test]
fn nothing_but_mcp_reaches_stdout_even_with_trace_logging() {
    let mut agentdap = Agentdap::spawn_with(|cmd| {
        cmd.env("RUST_LOG", "trace");
    });
    agentdap.send_json(&initialize_request(1, "2025-11-25"));
    agentdap.send("garbage");
    agentdap.close_stdin();
    assert_eq!(agentdap.recv()["id"], json!(1));
    assert_eq!(agentdap.recv()["error"]["code"], json!(-32700));
    assert_eq!(agentdap.recv_line_within(Duration::from_secs(5)), None, "stdout closes after the answers");
    agentdap.assert_clean_exit(PROMPT_EXIT);
    assert!(agentdap.stderr().contains("stdin reached EOF"), "logs go to stderr:\n{}", agentdap.stderr());
}

#[test]
fn cli_version_help_and_unknown_flags() {
    let run = |args: &[&str]| Command::new(common::bin()).args(args).stdin(Stdio::null()).output().unwrap();
    let version = run(&["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&version.stdout), format!("agentdap {}\n", env!("CARGO_PKG_VERSION")));
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--log") && help.contains("AGENTDAP_LOG") && help.contains("--version"), "{help}");
    let bad = run(&["--no-such-flag"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(bad.stdout.is_empty());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown flag --no-such-flag"));
}

/// `--tools core` (and `AGENTDAP_TOOLS=core`) lists only the everyday tools, in a smaller
/// `tools/list`; a tool outside the set cannot be called.
#[test]
fn tools_core_lists_the_everyday_tools_only() {
    let list = |configure: &dyn Fn(&mut Command)| {
        let mut agentdap = Agentdap::spawn_with(|cmd| configure(cmd));
        agentdap.initialize("2025-11-25");
        let r = agentdap.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
        let names: Vec<String> =
            r["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
        let call = agentdap.request(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "capabilities", "arguments": {}}}));
        (names, r["result"].to_string().len(), call)
    };
    let (full, full_len, _) = list(&|_| {});
    let (core, core_len, call) = list(&|cmd| {
        cmd.arg("--tools").arg("core");
    });
    let (env_core, _, _) = list(&|cmd| {
        cmd.env("AGENTDAP_TOOLS", "core");
    });
    assert!(full.len() > core.len() && core_len < full_len, "{full:?} vs {core:?}");
    assert_eq!(core, env_core);
    for name in &core {
        assert!(agentdap::mcp::CORE_TOOLS.contains(&name.as_str()), "{name} is not a core tool");
    }
    assert!(core.contains(&"context".to_owned()) && !core.contains(&"capabilities".to_owned()));
    assert_eq!(call["error"]["code"], json!(-32602), "a tool outside the set is unknown: {call}");
    assert!(call["error"]["message"].as_str().unwrap_or_default().contains("--tools full"), "{call}");
    assert!(full_len <= 16 * 1024, "tools/list is {full_len} bytes");
    assert!(core_len <= 6 * 1024, "core tools/list is {core_len} bytes (at most 6 KB)");
}

/// The core listing leaves advanced arguments out of its schemas, but a call that passes one
/// is served as in the full set.
#[test]
fn tools_core_still_accepts_the_arguments_it_does_not_list() {
    let mut agentdap = Agentdap::spawn_with(|cmd| {
        cmd.arg("--tools").arg("core");
    });
    agentdap.initialize("2025-11-25");
    let r = agentdap.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let tools = r["result"]["tools"].as_array().cloned().unwrap_or_default();
    let launch = tools.iter().find(|t| t["name"] == "launch").cloned().unwrap_or_default();
    let props = &launch["inputSchema"]["properties"];
    assert!(props.get("program").is_some() && props.get("adapter_args").is_none(), "{launch}");
    assert!(tools.iter().all(|t| t.get("title").is_none()), "no titles in the core listing");
    // `exception_filters` is not listed, yet it is read: an unknown filter is refused by name.
    let call = agentdap.request(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "set_breakpoints", "arguments": {"path": "/nonexistent/x.py", "lines": [0]}}}));
    assert_eq!(call["result"]["isError"], json!(true), "{call}");
    let call = agentdap.request(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "evaluate", "arguments": {"expression": "1", "context": "no-such-context"}}}));
    let text = call["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("context"), "the unlisted `context` argument is still validated: {call}");
}

/// `--tools core` with `--host-requests ask` still offers `resolve_host_request` (launches wait
/// for it); a `AGENTDAP_TOOLS` that is neither `core` nor `full` is refused at start.
#[test]
fn tools_core_offers_what_the_host_request_policy_needs_and_a_bad_tool_set_is_refused() {
    let mut d = Agentdap::spawn_with(|cmd| {
        cmd.args(["--tools", "core", "--host-requests", "ask"]);
    });
    d.initialize("2025-11-25");
    let r = d.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let names: Vec<String> = r["result"]["tools"]
        .as_array()
        .map(|l| l.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert!(names.contains(&"resolve_host_request".to_owned()) && !names.contains(&"ledger".to_owned()), "{names:?}");
    let out = std::process::Command::new(common::bin())
        .env("AGENTDAP_TOOLS", "bogus")
        .stdin(std::process::Stdio::null())
        .output();
    let out = out.expect("run agentdap");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("AGENTDAP_TOOLS must be `core` or `full`"));
}
