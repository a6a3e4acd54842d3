//! The ledger's formatting, memory, queries and files, with fixed wall-clock times.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::file::{read_records, rotated, AppendFile, WhenFull};
use super::*;

fn at(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

fn kinds_of(page: &Page) -> Vec<(u64, String)> {
    page.records
        .iter()
        .map(|r| (r["cursor"].as_u64().unwrap_or(0), r["kind"].as_str().unwrap_or("").to_owned()))
        .collect()
}

#[test]
fn timestamps_are_rfc3339_utc_with_milliseconds() {
    let check = |ms: u64, expected: &str| assert_eq!(rfc3339_ms(at(ms)), expected, "{ms}");
    check(0, "1970-01-01T00:00:00.000Z");
    check(951_782_400_007, "2000-02-29T00:00:00.007Z");
    check(1_738_314_307_042, "2025-01-31T09:05:07.042Z");
    check(4_102_444_799_999, "2099-12-31T23:59:59.999Z");
    assert_eq!(compact_utc(at(1_738_314_307_042)), "20250131T090507Z");
    assert_eq!(rfc3339_ms(UNIX_EPOCH - Duration::from_secs(5)), "1970-01-01T00:00:00.000Z");
}

#[test]
fn a_line_has_ts_session_kind_then_facts_with_secrets_redacted() {
    let mut ledger = Ledger::default();
    let record = Record::new("s1", Kind::MirrorExposed)
        .with("port", 4711)
        .with("kind", "overridden")
        .with("nested", json!({"mirrorToken": "abc123", "list": [{"Token": 7}]}))
        .with("command", "adapter --adapter-access-token s3cr3t --x")
        .with("long", "é".repeat(5000))
        .with_some("absent", None::<String>);
    assert_eq!(ledger.push(record, at(1_738_314_307_042)), 1);
    let text = ledger.take_unwritten();
    assert!(text.ends_with('\n') && text.lines().count() == 1, "{text}");
    assert!(!text.contains("abc123") && !text.contains("s3cr3t"), "{text}");
    let v: Value = serde_json::from_str(text.trim_end()).expect("one JSON line");
    assert_eq!(v["ts"], json!("2025-01-31T09:05:07.042Z"));
    assert_eq!((v["session"].clone(), v["kind"].clone()), (json!("s1"), json!("mirror_exposed")));
    assert_eq!(v["port"], json!(4711));
    assert_eq!(v["nested"], json!({"mirrorToken": "[redacted]", "list": [{"Token": "[redacted]"}]}));
    assert_eq!(v["command"], json!("adapter --adapter-access-token [redacted] --x"));
    assert_eq!(v["long"].as_str().map(|s| s.chars().count()), Some(1025), "clipped, with an ellipsis");
    assert!(v.get("absent").is_none());
    assert!(text.starts_with(r#"{"ts":"#), "ts leads the line: {text}");
    assert_eq!(ledger.take_unwritten(), "", "handed out once");
    assert_eq!(ledger.ndjson(), text, "memory keeps the same line");
}

#[test]
fn memory_keeps_the_newest_records_and_queries_filter_and_page() {
    let mut ledger = Ledger::default();
    for i in 0..MEMORY_CAP as u64 + 10 {
        let (session, kind) = if i % 2 == 0 { ("s1", Kind::Stop) } else { ("s2", Kind::BreakpointHit) };
        ledger.push(Record::new(session, kind).with("i", i), at(i));
    }
    assert_eq!(ledger.ndjson().lines().count(), MEMORY_CAP);
    let last = MEMORY_CAP as u64 + 10;

    // Newest first: the last `limit` matching records, oldest of them first.
    let page = ledger.query(&Query { session: Some("s2"), kinds: &[], since: None, limit: 2 });
    assert_eq!(kinds_of(&page), [(last - 2, "breakpoint_hit".into()), (last, "breakpoint_hit".into())]);
    assert_eq!((page.cursor, page.more, page.older, page.gap), (last, false, MEMORY_CAP / 2 - 2, false));

    // Forward from a cursor, with `more` and the cursor to go on from.
    let page = ledger.query(&Query { session: None, kinds: &[Kind::Stop], since: Some(last - 6), limit: 2 });
    assert_eq!(kinds_of(&page), [(last - 5, "stop".into()), (last - 3, "stop".into())]);
    assert_eq!((page.cursor, page.more), (last - 3, true));
    let page = ledger.query(&Query { session: None, kinds: &[Kind::Stop], since: Some(page.cursor), limit: 2 });
    assert_eq!(kinds_of(&page), [(last - 1, "stop".into())]);
    assert_eq!((page.cursor, page.more), (last, false), "the cursor moves past what did not match");

    // A cursor older than memory says records were dropped.
    let page = ledger.query(&Query { session: None, kinds: &[], since: Some(0), limit: 1 });
    assert_eq!(kinds_of(&page), [(11, "stop".into())]);
    assert!(page.gap && page.more);
    let none = ledger.query(&Query { session: Some("s9"), kinds: &[], since: None, limit: 5 });
    assert_eq!((none.records.len(), none.cursor), (0, last));
}

#[test]
fn kinds_round_trip_by_name() {
    for k in Kind::ALL {
        assert_eq!(Kind::parse(k.as_str()), Some(k));
    }
    assert_eq!(Kind::parse("stopped"), None);
}

#[test]
fn the_state_dir_follows_agentdap_then_xdg_then_home() {
    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
    }
    let all = [("AGENTDAP_STATE_DIR", "/d"), ("XDG_STATE_HOME", "/x"), ("HOME", "/h")];
    assert_eq!(state_dir(env(&all)), Some(PathBuf::from("/d")));
    assert_eq!(state_dir(env(&[("AGENTDAP_STATE_DIR", ""), ("XDG_STATE_HOME", "/x")])), Some("/x/agentdap".into()));
    assert_eq!(
        state_dir(env(&[("XDG_STATE_HOME", "relative"), ("HOME", "/h")])),
        Some("/h/.local/state/agentdap".into()),
        "XDG paths must be absolute"
    );
    assert_eq!(state_dir(env(&[])), None);
}

/// A fresh directory for one file test, removed afterwards.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("agentdap-ledger-unit-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn the_file_rotates_at_its_cap_with_private_permissions() {
    let scratch = Scratch::new("rotate");
    let path = scratch.0.join("state/ledger.jsonl");
    let mut file = AppendFile::new(path.clone(), "ledger", 30, WhenFull::Rotate);
    file.append(b"0123456789\n");
    file.append(b"abcdefghij\n");
    assert_eq!(read(&path), "0123456789\nabcdefghij\n");
    file.append(b"ABCDEFGHIJ\n"); // 33 bytes would pass the cap of 30
    assert_eq!(read(&rotated(&path)), "0123456789\nabcdefghij\n");
    assert_eq!(read(&path), "ABCDEFGHIJ\n");
    let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().expect("dir")), 0o700);

    // Another process rotated it: this one follows to the new file instead of writing into `.1`.
    std::fs::rename(&path, rotated(&path)).expect("rename");
    file.append(b"after\n");
    assert_eq!(read(&path), "after\n");
    assert!(file.is_writable());
}

#[test]
fn writers_sharing_one_ledger_rotate_at_the_shared_cap() {
    // Two agentdap processes append to one file: the cap counts both writers' bytes.
    let scratch = Scratch::new("shared");
    let path = scratch.0.join("ledger.jsonl");
    let mut one = AppendFile::new(path.clone(), "ledger", 30, WhenFull::Rotate);
    let mut two = AppendFile::new(path.clone(), "ledger", 30, WhenFull::Rotate);
    one.append(b"0123456789\n");
    two.append(b"abcdefghij\n");
    one.append(b"ABCDEFGHIJ\n"); // 33 bytes in the file would pass the cap of 30
    assert_eq!(read(&rotated(&path)), "0123456789\nabcdefghij\n");
    assert_eq!(read(&path), "ABCDEFGHIJ\n");
    two.append(b"klmnopqrst\n"); // follows the rotation instead of writing into `.1`
    assert_eq!(read(&path), "ABCDEFGHIJ\nklmnopqrst\n");
}

#[test]
fn a_capped_file_ends_with_its_marker_and_a_failed_one_gives_up() {
    let scratch = Scratch::new("stop");
    let path = scratch.0.join("s1.ndjson");
    let marker = WhenFull::Stop { marker: "{\"capped\":true}\n".into() };
    let mut file = AppendFile::new(path.clone(), "dap-log", 12, marker);
    file.append(b"{\"a\":1}\n");
    file.append(b"{\"b\":22}\n");
    file.append(b"{\"c\":3}\n");
    assert_eq!(read(&path), "{\"a\":1}\n{\"capped\":true}\n");
    assert!(!file.is_writable() && !file.failed());

    // A directory that cannot be created (a regular file is in the way).
    std::fs::write(scratch.0.join("plain"), b"x").expect("write");
    let mut bad = AppendFile::new(scratch.0.join("plain/sub/ledger.jsonl"), "ledger", 100, WhenFull::Rotate);
    bad.append(b"x\n");
    assert!(!bad.is_writable() && bad.failed());
    bad.append(b"y\n"); // no second attempt, no panic
}

#[test]
fn a_symlink_fifo_or_hard_link_at_the_name_is_refused_and_never_written_through() {
    use std::os::unix::fs::symlink;
    let scratch = Scratch::new("refuse");
    std::fs::create_dir_all(&scratch.0).expect("mkdir");
    let victim = scratch.0.join("victim");
    std::fs::write(&victim, "untouched\n").expect("write");
    let fifo = scratch.0.join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    symlink(&victim, scratch.0.join("link.jsonl")).expect("symlink");
    symlink(scratch.0.join("absent"), scratch.0.join("dangling.jsonl")).expect("symlink");
    std::fs::hard_link(&victim, scratch.0.join("hard.jsonl")).expect("hard link");
    for name in ["link.jsonl", "dangling.jsonl", "fifo.jsonl", "hard.jsonl"] {
        let mut file = AppendFile::new(scratch.0.join(name), "ledger", 1 << 20, WhenFull::Rotate);
        file.append(b"{\"secret\":1}\n");
        assert!(file.failed(), "{name}");
    }
    assert_eq!(read(&victim), "untouched\n");
    assert!(!scratch.0.join("absent").exists());
}

#[test]
fn a_record_torn_by_an_earlier_write_gets_its_newline_before_the_next() {
    let scratch = Scratch::new("torn");
    let path = scratch.0.join("ledger.jsonl");
    std::fs::create_dir_all(&scratch.0).expect("mkdir");
    std::fs::write(&path, "{\"a\":1}\n{\"b\":").expect("write");
    let mut file = AppendFile::new(path.clone(), "ledger", 1 << 20, WhenFull::Rotate);
    file.append(b"{\"c\":3}\n");
    file.append(b"{\"d\":4}\n");
    assert_eq!(read(&path), "{\"a\":1}\n{\"b\":\n{\"c\":3}\n{\"d\":4}\n");
    let (records, torn) = read_records(&read(&path));
    assert_eq!((records, torn), (vec![json!({"a": 1}), json!({"c": 3}), json!({"d": 4})], 1));
    // A file that ends on a line boundary gets nothing extra.
    let mut again = AppendFile::new(path.clone(), "ledger", 1 << 20, WhenFull::Rotate);
    again.append(b"{\"e\":5}\n");
    assert!(read(&path).ends_with("{\"d\":4}\n{\"e\":5}\n"));
}

#[test]
fn the_reader_skips_torn_and_glued_lines_and_keeps_the_rest() {
    let text = "{\"a\":1}\n{\"b\":{\"c\":3}\n\n[1]\n{\"d\":4}\n{\"e\":";
    let (records, torn) = read_records(text);
    assert_eq!((records, torn), (vec![json!({"a": 1}), json!({"d": 4})], 3));
}
