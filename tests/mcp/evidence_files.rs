//! How agentdap creates its evidence files (SECURITY.md, "Files agentdap creates"), through the
//! built binary with a scripted adapter: a symlink planted at the ledger's or a `--dap-log` file's
//! name is refused and its target never written; an existing file others could read or write is
//! tightened to 0600 and a directory others could write loses their write permission; a directory
//! of another user is refused; a record torn by an earlier failed write never swallows the next.

use crate::agent;
use crate::common;

use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agent::{debugpy_python, eventually, fixture, Agent};
use common::TempDir;
use serde_json::{json, Value};

/// A config declaring the scripted adapter (`tests/fixtures/fake_adapter.py`) as `fake`.
fn config(dir: &Path) -> PathBuf {
    let path = dir.join("config.json");
    let fake = json!({"command": debugpy_python(), "args": [fixture("fake_adapter.py"), "plain"]});
    std::fs::write(&path, json!({"adapters": {"fake": fake}}).to_string()).expect("write config");
    path
}

/// One session that leaves ledger records and DAP messages: its launch carries `SECRET`.
fn run_a_session(a: &mut Agent) {
    let program = fixture("prog.fake");
    let args = json!({"program": program, "adapter": "fake", "env": {"SECRET": "hunter2"}, "stop_on_entry": true});
    let r = a.ok("launch", args);
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    a.ok("disconnect", json!({}));
}

/// Generous: waits end as soon as the condition holds.
const SETTLE: Duration = Duration::from_secs(30);

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0)
}

fn set_mode(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// `20250131T090507Z` for `secs` since the epoch, as agentdap names its DAP log files.
fn compact_utc(secs: u64) -> String {
    let out = Command::new("date").args(["-u", "-d", &format!("@{secs}"), "+%Y%m%dT%H%M%SZ"]).output().expect("date");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn epoch_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[test]
fn a_symlink_planted_at_an_evidence_file_name_is_refused_and_its_target_never_written() {
    let tmp = TempDir::new("evidence-symlink");
    let (state, dap, victims) = (tmp.0.join("state"), tmp.0.join("dap"), tmp.0.join("victims"));
    for d in [&state, &dap, &victims] {
        std::fs::create_dir_all(d).expect("mkdir");
        set_mode(d, 0o700);
    }
    // The ledger's name is fixed; a DAP log's is `<session>-<start time>-<pid>.ndjson`.
    symlink(victims.join("from-ledger"), state.join("ledger.jsonl")).expect("plant");
    let config = config(&tmp.0);
    let before = epoch_secs();
    let mut a = Agent::start_with(|cmd| {
        cmd.arg("--config").arg(&config).env("AGENTDAP_STATE_DIR", &state).arg("--dap-log").arg(&dap);
    });
    let pid = a.d.pid();
    for secs in before.saturating_sub(1)..=epoch_secs() + 1 {
        let name = format!("s1-{}-{pid}.ndjson", compact_utc(secs));
        symlink(victims.join(&name), dap.join(&name)).expect("plant");
    }
    run_a_session(&mut a);
    // Evidence is written at the end of the loop turn that answered the call.
    eventually(SETTLE, || a.d.stderr().matches("cannot write").count() == 2);
    let stderr = a.d.stderr();
    assert_eq!(std::fs::read_dir(&victims).expect("victims").count(), 0, "nothing followed a symlink:\n{stderr}");
    assert_eq!(stderr.matches("ledger: cannot write").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("dap-log: cannot write").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("symbolic link").count(), 2, "{stderr}");
    // What agentdap keeps in memory still answers.
    let r = a.ok("ledger", json!({}));
    assert!(r.s["records"].as_array().is_some_and(|l| !l.is_empty()), "{}", r.text);
}

#[test]
fn files_and_directories_others_could_write_are_tightened_and_a_torn_record_stays_alone() {
    let tmp = TempDir::new("evidence-tighten");
    let (state, dap) = (tmp.0.join("state"), tmp.0.join("dap"));
    for d in [&state, &dap] {
        std::fs::create_dir_all(d).expect("mkdir");
        set_mode(d, 0o777);
    }
    let ledger = state.join("ledger.jsonl");
    // An earlier run's last write was torn by a full disk: no newline at the end.
    std::fs::write(&ledger, "{\"kind\":\"session_start\",\"session\":\"s0\"}\n{\"kind\":\"sto").expect("write");
    set_mode(&ledger, 0o666);
    let config = config(&tmp.0);
    let mut a = Agent::start_with(|cmd| {
        cmd.arg("--config").arg(&config).env("AGENTDAP_STATE_DIR", &state).arg("--dap-log").arg(&dap);
    });
    run_a_session(&mut a);
    let ended = || std::fs::read_to_string(&ledger).unwrap_or_default().contains("\"session_end\"");
    eventually(SETTLE, ended);
    assert_eq!((mode(&state), mode(&dap), mode(&ledger)), (0o755, 0o755, 0o600), "{}", a.d.stderr());
    let files: Vec<PathBuf> = std::fs::read_dir(&dap).expect("dap dir").flatten().map(|e| e.path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(mode(&files[0]), 0o600);
    let text = std::fs::read_to_string(&ledger).expect("ledger");
    let (records, torn) = agentdap::ledger::file::read_records(&text);
    assert_eq!(torn, 1, "only the torn record is lost:\n{text}");
    let kinds: Vec<&str> = records.iter().filter_map(|r| r["kind"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"session_start"), "{text}\n{}", a.d.stderr());
    let ours: Vec<&Value> = records.iter().filter(|r| r["session"] == json!("s1")).collect();
    assert_eq!(ours.first().map(|r| r["kind"].clone()), Some(json!("session_start")), "{text}\n{}", a.d.stderr());
}

#[test]
fn a_directory_of_another_user_is_refused() {
    let tmp = TempDir::new("evidence-owner");
    let (state, dap) = (tmp.0.join("state"), tmp.0.join("dap"));
    let nobody = 65534;
    for d in [&state, &dap] {
        std::fs::create_dir_all(d).expect("mkdir");
        set_mode(d, 0o755);
        std::os::unix::fs::chown(d, Some(nobody), Some(nobody)).expect("chown (the test runs as root)");
    }
    let me = std::fs::metadata(&tmp.0).expect("tmp").uid();
    assert_ne!(me, nobody, "the test's own user must not be {nobody}");
    let config = config(&tmp.0);
    let mut a = Agent::start_with(|cmd| {
        cmd.arg("--config").arg(&config).env("AGENTDAP_STATE_DIR", &state).arg("--dap-log").arg(&dap);
    });
    run_a_session(&mut a);
    eventually(SETTLE, || a.d.stderr().matches("belongs to another user").count() == 2);
    let stderr = a.d.stderr();
    assert_eq!(stderr.matches("belongs to another user").count(), 2, "{stderr}");
    for d in [&state, &dap] {
        assert_eq!(std::fs::read_dir(d).expect("dir").count(), 0, "nothing written in {}", d.display());
    }
}
