//! The real debugpy adapter from its recipe: spawns, answers DAP `initialize` over the non-blocking pipes, its quirks match what it says, and its process group is gone after `kill_group`; a Python without debugpy maps to `adapter_not_found`.
//!
//! The interpreter is `$AGENTDAP_TEST_PYTHON`, else `.deps/venv/bin/python` in the crate (the
//! venv `.ci/run` creates with debugpy installed). Missing → the test fails, it does not skip.

use crate::spawn_util;

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use agentdap::dap::adapters::{self, debugpy, AdapterKind, RealHost, ResolveInput};
use agentdap::dap::framing::Decoder;
use agentdap::os::spawn::{self, spawn_adapter, Pid, StderrTail};
use mio::{Events, Interest, Poll, Token};
use serde_json::{json, Value};
use spawn_util::{group_members, wait_until, DEADLINE};

fn python() -> PathBuf {
    let path = std::env::var_os("AGENTDAP_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".deps/venv/bin/python"));
    assert!(path.exists(), "no Python with debugpy at {} (set AGENTDAP_TEST_PYTHON)", path.display());
    path
}

fn reap(pid: Pid) {
    let mut status = 0;
    // SAFETY: waitpid on our own child with a valid status pointer.
    unsafe { libc::waitpid(pid, &mut status, 0) };
}

const STDOUT: Token = Token(1);
const STDERR: Token = Token(2);

#[test]
fn real_debugpy_answers_initialize_and_dies_with_its_group() {
    let python = python();
    let args = json!({"python": python.to_str().expect("utf-8 path")});
    let kind = adapters::select(None, Some("app/main.py")).expect("select");
    let recipe =
        adapters::recipe(kind, ResolveInput { adapter_args: Some(&args), cwd: None, js_debug: None }, &RealHost)
            .expect("recipe");
    assert_eq!(recipe.command.program, python.as_os_str());
    let mut adapter = spawn_adapter(&recipe.command).expect("spawn debugpy.adapter");

    let mut poll = Poll::new().expect("poll");
    poll.registry().register(&mut adapter.stdout, STDOUT, Interest::READABLE).expect("register stdout");
    poll.registry().register(&mut adapter.stderr, STDERR, Interest::READABLE).expect("register stderr");
    let body = json!({"seq": 1, "type": "request", "command": "initialize",
        "arguments": {"clientID": "agentdap", "adapterID": "debugpy", "linesStartAt1": true,
                      "columnsStartAt1": true, "pathFormat": "path"}})
    .to_string();
    let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    adapter.stdin.write_all(frame.as_bytes()).expect("write initialize");

    let mut decoder = Decoder::new();
    let mut tail = StderrTail::default();
    let mut response: Option<Value> = None;
    let mut events = Events::with_capacity(8);
    let end = Instant::now() + Duration::from_secs(30);
    let mut buf = [0u8; 8192];
    while response.is_none() && Instant::now() < end {
        poll.poll(&mut events, Some(Duration::from_millis(200))).expect("poll");
        loop {
            match adapter.stdout.read(&mut buf) {
                Ok(0) => panic!("adapter closed stdout; stderr: {}", tail.text()),
                Ok(n) => decoder.feed(&buf[..n], |frame| {
                    let msg: Value = serde_json::from_slice(frame.expect("clean frame")).expect("json");
                    if msg["type"] == "response" && msg["request_seq"] == 1 {
                        response = Some(msg);
                    }
                }),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("read stdout: {e}"),
            }
        }
        while let Ok(n) = adapter.stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            tail.push(&buf[..n]);
        }
    }
    let response = response.unwrap_or_else(|| panic!("no initialize response; stderr: {}", tail.text()));
    assert_eq!((&response["command"], &response["success"]), (&json!("initialize"), &json!(true)));
    let caps = &response["body"];
    let quirks = debugpy::quirks();
    assert_eq!(caps[quirks.terminate_debuggee_capability], true, "capability spelling: {caps}");
    let filters: Vec<&str> = caps["exceptionBreakpointFilters"]
        .as_array()
        .expect("filters")
        .iter()
        .filter_map(|f| f["filter"].as_str())
        .collect();
    assert_eq!(filters, quirks.exception_filters);
    assert!(caps.get("supportsVariablePaging").is_none(), "quirk says no variable paging");
    assert_eq!(AdapterKind::from_name(recipe.name), Some(AdapterKind::Debugpy));

    assert!(group_members(adapter.pgid).contains(&adapter.pid));
    assert_eq!(spawn::kill_group(adapter.pgid).ok(), Some(true));
    assert!(wait_until(DEADLINE, || group_members(adapter.pgid).is_empty()), "left: {:?}", group_members(adapter.pgid));
    reap(adapter.pid);
}

#[test]
fn python_without_debugpy_maps_to_adapter_not_found() {
    let python = python();
    let mut recipe = debugpy::recipe(
        None,
        ResolveInput {
            adapter_args: Some(&json!({"python": python.to_str().expect("utf-8 path")})),
            cwd: None,
            js_debug: None,
        },
        &RealHost,
    )
    .expect("recipe");
    // -S skips site-packages: the same interpreter, as if debugpy were not installed.
    recipe.command.args.insert(0, "-S".into());
    let mut adapter = spawn_adapter(&recipe.command).expect("spawn");
    let mut tail = StderrTail::default();
    let mut buf = [0u8; 4096];
    let eof = wait_until(DEADLINE, || match adapter.stderr.read(&mut buf) {
        Ok(0) => true,
        Ok(n) => {
            tail.push(&buf[..n]);
            false
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
        Err(e) => panic!("read stderr: {e}"),
    });
    assert!(eof, "adapter without debugpy did not exit");
    let mut status = 0;
    // SAFETY: waitpid on our own child with a valid status pointer.
    unsafe { libc::waitpid(adapter.pid, &mut status, 0) };
    let exit = std::os::unix::process::ExitStatusExt::from_raw(status);
    let err = debugpy::missing_debugpy(&python, &tail.text(), Some(exit));
    let err = err.unwrap_or_else(|| panic!("not recognised: {:?}", tail.text()));
    assert_eq!(err.code(), "adapter_not_found");
    assert_eq!(
        err.to_string(),
        format!(
            "debugpy: the debugpy module is not installed for {}; install it with: {} (or `agentdap install debugpy` for a private copy agentdap finds by itself)",
            python.display(),
            debugpy::install_command(&python)
        )
    );
}
