//! The ledger and evidence (README § What happened) and idle reaping on real debugpy through the built
//! binary: a run's records in order in `ledger.jsonl` (never the mirror token), the `ledger`
//! tool's filters and cursor, the `agentdap://ledger` resource, `--dap-log` files, a ledger that
//! cannot be written, and ended sessions released after `--idle-reap-secs` while a stopped one
//! stays.

use crate::agent;
use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent::{eventually, fixture, Agent};
use common::TempDir;
use serde_json::{json, Value};

/// Generous: waits end as soon as the condition holds.
const SETTLE: Duration = Duration::from_secs(30);

fn ledger_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("ledger line is not JSON ({e}): {l}")))
        .collect()
}

fn kinds(lines: &[Value]) -> Vec<String> {
    lines.iter().map(|l| l["kind"].as_str().unwrap_or("").to_owned()).collect()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).unwrap_or(0)
}

/// A bare DAP client that attaches to a mirror with `token`, then disconnects.
fn attach_and_leave(port: u64, token: &str) {
    let mut stream = TcpStream::connect(("127.0.0.1", port as u16)).expect("connect to the mirror");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let mut buf = Vec::new();
    let send = |stream: &mut TcpStream, seq: i64, command: &str, args: Value| {
        let body = json!({"seq": seq, "type": "request", "command": command, "arguments": args}).to_string();
        write!(stream, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to the mirror");
    };
    send(&mut stream, 1, "initialize", json!({"adapterID": "debugpy"}));
    send(&mut stream, 2, "attach", json!({"mirrorToken": token}));
    let deadline = Instant::now() + Duration::from_secs(10);
    let attached = loop {
        assert!(Instant::now() < deadline, "no attach response: {}", String::from_utf8_lossy(&buf));
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).expect("read from the mirror");
        assert!(n > 0, "the mirror closed: {}", String::from_utf8_lossy(&buf));
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        if let Some(i) = text.find(r#""command":"attach""#) {
            break text[..i].rfind(r#""success":true"#).is_some() || text[i..].contains(r#""success":true"#);
        }
    };
    assert!(attached, "attach refused: {}", String::from_utf8_lossy(&buf));
    send(&mut stream, 3, "disconnect", json!({}));
}

#[test]
fn a_run_leaves_its_records_in_order_with_no_token_and_the_ledger_tool_filters_them() {
    let tmp = TempDir::new("ledger-run");
    let state = tmp.0.join("state");
    let dap_dir = tmp.0.join("dap");
    let mut a = Agent::start_with(|cmd| {
        cmd.env("AGENTDAP_STATE_DIR", &state).arg("--dap-log").arg(&dap_dir);
    });
    let program = fixture("py/loop.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 7}]}));
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    let exposed = a.ok("expose_session", json!({}));
    let token = exposed.s["token"].as_str().expect("token").to_owned();
    let port = exposed.s["port"].as_u64().expect("port");
    attach_and_leave(port, &token);
    a.ok("set_breakpoints", json!({"path": program, "breakpoints": []}));
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["exception"]["type"], json!("SystemExit"), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(3), "{}", r.text);

    // The file: every line JSON, stamped, this session's, in the order things happened.
    let file = state.join("ledger.jsonl");
    let complete = |lines: &[Value]| {
        let k = kinds(lines);
        k.contains(&"session_end".to_owned())
            && lines.iter().any(|l| l["kind"] == json!("mirror_client") && l["event"] == json!("left"))
    };
    assert!(eventually(SETTLE, || complete(&ledger_lines(&file))), "ledger: {:?}", ledger_lines(&file));
    let lines = ledger_lines(&file);
    for l in &lines {
        let ts = l["ts"].as_str().unwrap_or("");
        assert!(ts.len() == 24 && ts.ends_with('Z') && &ts[10..11] == "T" && &ts[19..20] == ".", "{l}");
        assert_eq!(l["session"], json!("s1"), "{l}");
    }
    let main: Vec<String> =
        kinds(&lines).into_iter().filter(|k| k != "mirror_client" && k != "request_error").collect();
    assert_eq!(
        main,
        [
            "session_start",
            "breakpoints_set",
            "breakpoint_hit",
            "mirror_exposed",
            "breakpoints_set",
            "exception",
            "session_end"
        ],
        "{lines:#?}"
    );
    let by_kind = |k: &str| lines.iter().find(|l| l["kind"] == json!(k)).cloned().unwrap_or_default();
    let start = by_kind("session_start");
    assert_eq!(
        (&start["adapter"], &start["request"], &start["program"]),
        (&json!("debugpy"), &json!("launch"), &json!(program))
    );
    let set = by_kind("breakpoints_set");
    assert_eq!((&set["path"], &set["lines"], &set["verified"]), (&json!(program), &json!([7]), &json!(1)), "{set}");
    let hit = by_kind("breakpoint_hit");
    assert_eq!((&hit["location"]["path"], &hit["location"]["line"]), (&json!(program), &json!(7)), "{hit}");
    assert_eq!(by_kind("exception")["exception"]["type"], json!("SystemExit"));
    assert_eq!(by_kind("mirror_exposed")["port"], json!(port));
    let end = by_kind("session_end");
    assert_eq!((&end["how"], &end["exit_code"]), (&json!("exited"), &json!(3)), "{end}");
    let attached = lines.iter().position(|l| l["kind"] == json!("mirror_client") && l["event"] == json!("attached"));
    let exposed_at = lines.iter().position(|l| l["kind"] == json!("mirror_exposed"));
    assert!(attached > exposed_at, "{lines:#?}");

    // The tool: newest first by default, a forward read from a cursor, filters.
    let r = a.ok("ledger", json!({"kinds": ["breakpoint_hit", "session_end"], "limit": 1}));
    let records = r.s["records"].as_array().cloned().unwrap_or_default();
    assert_eq!(kinds(&records), ["session_end"], "{}", r.text);
    assert_eq!(r.s["older"], json!(1), "{}", r.s);
    let r = a.ok("ledger", json!({"kinds": ["breakpoint_hit", "session_end"], "since": 0, "limit": 1}));
    assert_eq!(kinds(r.s["records"].as_array().expect("records")), ["breakpoint_hit"], "{}", r.text);
    assert_eq!(r.s["more"], json!(true));
    let cursor = r.s["cursor"].as_u64().expect("cursor");
    let r = a.ok("ledger", json!({"kinds": ["breakpoint_hit", "session_end"], "since": cursor}));
    assert_eq!(kinds(r.s["records"].as_array().expect("records")), ["session_end"], "{}", r.text);
    assert!(r.text.contains("s1 session_end"), "{}", r.text);
    let r = a.ok("ledger", json!({"session": "s9"}));
    assert_eq!(r.s["records"], json!([]));
    let r = a.call("ledger", json!({"kinds": ["stopped"]}));
    assert!(r.is_error && r.text.starts_with("invalid_argument: unknown kind `stopped`"), "{}", r.text);
    let all = a.ok("ledger", json!({"limit": 200}));
    assert_eq!(all.s["records"].as_array().map(Vec::len), Some(lines.len()), "memory holds what the file holds");

    // The resource, and the DAP log files: JSON lines, private, `initialize` first.
    let resource = a.resource("agentdap://ledger");
    assert_eq!(resource.lines().count(), lines.len());
    let files: Vec<PathBuf> =
        std::fs::read_dir(&dap_dir).expect("dap-log dir").map(|e| e.expect("entry").path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().and_then(|n| n.to_str()).unwrap_or("").to_owned();
    assert!(name.starts_with("s1-") && name.ends_with(".ndjson"), "{name}");
    assert_eq!((mode(&dap_dir), mode(&files[0]), mode(&file)), (0o700, 0o600, 0o600));
    let dap_text = std::fs::read_to_string(&files[0]).expect("dap log file");
    let messages: Vec<Value> = dap_text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("dap-log line is not JSON ({e}): {l}")))
        .collect();
    assert_eq!(messages[0]["dir"], json!("to_adapter"));
    assert_eq!(messages[0]["message"]["command"], json!("initialize"));
    assert!(messages.iter().any(|m| m["message"]["event"] == json!("stopped")), "{dap_text}");

    // The token is nowhere but in the expose_session result.
    let file_text = std::fs::read_to_string(&file).expect("ledger file");
    for (what, text) in
        [("ledger file", &file_text), ("resource", &resource), ("tool", &all.text), ("dap log", &dap_text)]
    {
        assert!(!text.contains(&token), "the mirror token is in the {what}");
    }
    assert!(!a.d.stderr().contains(&token), "the mirror token is in stderr");
}

#[test]
fn an_unwritable_state_dir_leaves_debugging_and_the_ledger_tool_working() {
    let tmp = TempDir::new("ledger-unwritable");
    let blocker = tmp.0.join("plain-file");
    std::fs::write(&blocker, b"not a directory").expect("write");
    let mut a = Agent::start_with(|cmd| {
        cmd.env("AGENTDAP_STATE_DIR", blocker.join("state")).arg("--dap-log").arg(blocker.join("dap"));
    });
    let program = fixture("py/loop.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 7}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(7), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let r = a.ok("ledger", json!({"kinds": ["breakpoint_hit"]}));
    assert_eq!(r.s["records"].as_array().map(Vec::len), Some(2), "{}", r.text);
    a.ok("disconnect", json!({}));
    let stderr = a.d.stderr();
    assert_eq!(stderr.matches("ledger: cannot write").count(), 1, "logged once:\n{stderr}");
    assert_eq!(stderr.matches("dap-log: cannot write").count(), 1, "logged once:\n{stderr}");
    assert_eq!(std::fs::read(&blocker).expect("read"), b"not a directory");
}

#[test]
fn ended_sessions_are_reaped_after_the_idle_time_and_a_stopped_one_stays() {
    let mut a = Agent::start_with(|cmd| {
        cmd.arg("--idle-reap-secs").arg("1");
    });
    let program = fixture("py/loop.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 7}]}));
    assert_eq!(r.s["session"], json!("s1"));
    let r = a.ok("launch", json!({"program": fixture("py/app.py"), "stop_on_entry": false}));
    assert_eq!((r.s["session"].clone(), r.s["state"].clone()), (json!("s2"), json!("exited")), "{}", r.text);
    let listed = |a: &mut Agent| -> Vec<(String, String)> {
        std::thread::sleep(Duration::from_millis(50));
        let r = a.ok("sessions", json!({}));
        r.s["sessions"]
            .as_array()
            .map(|l| {
                l.iter()
                    .map(|s| {
                        (s["session"].as_str().unwrap_or("").to_owned(), s["state"].as_str().unwrap_or("").to_owned())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(eventually(SETTLE, || listed(&mut a).len() == 1), "s2 was never reaped: {:?}", listed(&mut a));
    assert_eq!(listed(&mut a), [("s1".to_owned(), "stopped".to_owned())]);
    // The ledger outlives the session.
    let r = a.ok("ledger", json!({"session": "s2", "kinds": ["session_end"]}));
    assert_eq!(r.s["records"][0]["exit_code"], json!(0), "{}", r.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["session"], json!("s1"), "the stopped session is still there to resume: {}", r.text);
}
