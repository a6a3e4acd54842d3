//! The ledger (README § What happened), sans-IO: one record per fact worth keeping about a session (started,
//! breakpoints set, stopped, ended, a request the adapter refused, a mirror opened or joined),
//! formatted as one JSON line, kept in a bounded in-memory copy for the `ledger` tool and the
//! `agentdap://ledger` resource, and queued for the IO shell to append to `ledger.jsonl`
//! ([`file::AppendFile`]). It never reads the clock: the shell passes the wall-clock time in.
//!
//! Architecture Invariant: a ledger line never carries a mirror token. Every record goes through
//! [`Ledger::push`], which redacts `token`/`mirrorToken` keys (as the DAP log does) and secret
//! command-line options, and clips long strings and lists.

pub mod file;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// Records kept in memory for the `ledger` tool and resource (the file keeps everything).
pub const MEMORY_CAP: usize = 2_000;
/// `ledger.jsonl` is renamed to `ledger.jsonl.1` when it would grow past this (bytes).
pub const ROTATE_AT: u64 = 5 << 20;
/// The ledger's file name in the state directory.
pub const FILE_NAME: &str = "ledger.jsonl";
/// Bytes of lines waiting for the shell; past it new lines are kept in memory only (the shell
/// drains the queue every loop turn, so this is never reached in practice).
const UNWRITTEN_CAP: usize = 1 << 20;
/// Characters kept of one string fact (an adapter's error, a failure, a path).
const MAX_TEXT: usize = 1024;
/// Items kept of one list fact (breakpoint lines, ids).
const MAX_ITEMS: usize = 64;

/// What a record is about (the `kind` field of a line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A session was opened: adapter, request, program (or pid, or connect address).
    SessionStart,
    /// The adapter answered a `setBreakpoints`: path, lines, how many it verified.
    BreakpointsSet,
    /// A stop at a breakpoint: location and breakpoint ids.
    BreakpointHit,
    /// A stop on an exception: what was raised, where.
    Exception,
    /// Any other stop (step, pause, entry, …): reason and location.
    Stop,
    /// The session ended: exit code and how.
    SessionEnd,
    /// The adapter refused a request or did not answer it: command and its words.
    RequestError,
    /// The IDE mirror opened: host and port (never the token).
    MirrorExposed,
    /// An IDE attached to the mirror, or left it.
    MirrorClient,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::SessionStart,
        Kind::BreakpointsSet,
        Kind::BreakpointHit,
        Kind::Exception,
        Kind::Stop,
        Kind::SessionEnd,
        Kind::RequestError,
        Kind::MirrorExposed,
        Kind::MirrorClient,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SessionStart => "session_start",
            Kind::BreakpointsSet => "breakpoints_set",
            Kind::BreakpointHit => "breakpoint_hit",
            Kind::Exception => "exception",
            Kind::Stop => "stop",
            Kind::SessionEnd => "session_end",
            Kind::RequestError => "request_error",
            Kind::MirrorExposed => "mirror_exposed",
            Kind::MirrorClient => "mirror_client",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One fact about a session, before it is stamped and formatted.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub session: String,
    pub kind: Kind,
    /// The kind's facts; `ts`, `session` and `kind` are reserved and dropped if given.
    pub facts: Map<String, Value>,
}

impl Record {
    pub fn new(session: impl Into<String>, kind: Kind) -> Record {
        Record { session: session.into(), kind, facts: Map::new() }
    }

    /// Adds a fact.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Record {
        self.facts.insert(key.to_owned(), value.into());
        self
    }

    /// Adds a fact when there is one (`None` and JSON `null` are left out).
    pub fn with_some(self, key: &str, value: Option<impl Into<Value>>) -> Record {
        match value.map(Into::into) {
            Some(v) if !v.is_null() => self.with(key, v),
            _ => self,
        }
    }
}

/// One record as kept in memory: its cursor and its line.
#[derive(Debug)]
struct Entry {
    /// 1, 2, 3, … for the life of the process (the `ledger` tool's cursor).
    seq: u64,
    session: String,
    kind: Kind,
    /// The JSON line, without its `\n`.
    line: String,
}

/// What the `ledger` tool asks for.
#[derive(Clone, Debug, Default)]
pub struct Query<'a> {
    /// Only this session's records.
    pub session: Option<&'a str>,
    /// Only these kinds (all when empty).
    pub kinds: &'a [Kind],
    /// Only records after this cursor, oldest first; without it, the newest `limit` records.
    pub since: Option<u64>,
    pub limit: usize,
}

/// A page of records.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    /// The records as JSON objects, oldest first, each with its `cursor`.
    pub records: Vec<Value>,
    /// Pass as `since` to read on from here.
    pub cursor: u64,
    /// More matching records follow `cursor`.
    pub more: bool,
    /// Matching records before the page that it does not show (newest-first reads only).
    pub older: usize,
    /// Records after `since` were already dropped from memory (they are still in the file).
    pub gap: bool,
}

/// The ledger's memory and the lines waiting to be written.
#[derive(Debug, Default)]
pub struct Ledger {
    entries: VecDeque<Entry>,
    last_seq: u64,
    unwritten: String,
    /// Lines not queued for the file because the queue was full.
    unqueued: u64,
}

impl Ledger {
    /// Stamps `record` with `wall` (RFC 3339 UTC, milliseconds), redacts and clips its facts,
    /// keeps its line in memory (the last [`MEMORY_CAP`]) and queues it for the file. Returns
    /// its cursor.
    pub fn push(&mut self, record: Record, wall: SystemTime) -> u64 {
        let mut facts = record.facts;
        for reserved in ["ts", "session", "kind"] {
            facts.remove(reserved);
        }
        let mut facts = Value::Object(facts);
        crate::dap::client::redact_value(&mut facts);
        clip(&mut facts, 0);
        // `ts`, `session` and `kind` lead the line (the facts follow in key order).
        let mut line = format!(
            "{{\"ts\":\"{}\",\"session\":{},\"kind\":\"{}\"",
            rfc3339_ms(wall),
            Value::from(record.session.as_str()),
            record.kind.as_str()
        );
        match facts.to_string().strip_prefix('{') {
            Some(rest) if rest != "}" => {
                line.push(',');
                line.push_str(rest);
            }
            _ => line.push('}'),
        }
        self.last_seq += 1;
        if self.unwritten.len() + line.len() < UNWRITTEN_CAP {
            self.unwritten.push_str(&line);
            self.unwritten.push('\n');
        } else {
            self.unqueued += 1;
        }
        self.entries.push_back(Entry { seq: self.last_seq, session: record.session, kind: record.kind, line });
        while self.entries.len() > MEMORY_CAP {
            self.entries.pop_front();
        }
        self.last_seq
    }

    /// Lines not yet handed to the file (each ends with `\n`); the queue is empty afterwards.
    pub fn take_unwritten(&mut self) -> String {
        if self.unqueued > 0 {
            log::warn!("ledger: {} line(s) were kept in memory only (write queue full)", self.unqueued);
            self.unqueued = 0;
        }
        std::mem::take(&mut self.unwritten)
    }

    /// The records in memory as NDJSON (the `agentdap://ledger` resource), oldest first.
    pub fn ndjson(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            out.push_str(&e.line);
            out.push('\n');
        }
        out
    }

    /// The records `q` asks for (see [`Query`]).
    pub fn query(&self, q: &Query<'_>) -> Page {
        let matches = |e: &&Entry| {
            q.session.map_or(true, |s| e.session == s) && (q.kinds.is_empty() || q.kinds.contains(&e.kind))
        };
        let limit = q.limit.max(1);
        let oldest = self.entries.front().map_or(self.last_seq + 1, |e| e.seq);
        match q.since {
            Some(since) => {
                let mut after = self.entries.iter().filter(|e| e.seq > since).filter(matches);
                let page: Vec<&Entry> = after.by_ref().take(limit).collect();
                let more = after.next().is_some();
                let cursor = match (more, page.last()) {
                    (true, Some(last)) => last.seq,
                    _ => self.last_seq.max(since),
                };
                Page { records: values(&page), cursor, more, older: 0, gap: since + 1 < oldest }
            }
            None => {
                let all: Vec<&Entry> = self.entries.iter().filter(matches).collect();
                let older = all.len().saturating_sub(limit);
                Page { records: values(&all[older..]), cursor: self.last_seq, more: false, older, gap: false }
            }
        }
    }
}

fn values(entries: &[&Entry]) -> Vec<Value> {
    entries
        .iter()
        .filter_map(|e| {
            let mut v: Value = serde_json::from_str(&e.line).ok()?;
            v.as_object_mut()?.insert("cursor".into(), e.seq.into());
            Some(v)
        })
        .collect()
}

/// Secret command-line options redacted and long strings and lists clipped, at any depth.
fn clip(v: &mut Value, depth: usize) {
    match v {
        Value::String(s) => {
            let mut text = crate::dap::protocol::redact_secrets(s);
            if let Some((cut, _)) = text.char_indices().nth(MAX_TEXT) {
                text.truncate(cut);
                text.push('…');
            }
            *s = text;
        }
        Value::Array(items) => {
            items.truncate(MAX_ITEMS);
            items.iter_mut().for_each(|i| clip(i, depth + 1));
        }
        Value::Object(map) if depth < 8 => map.values_mut().for_each(|i| clip(i, depth + 1)),
        Value::Object(map) => map.clear(),
        _ => {}
    }
}

/// `2025-01-31T09:05:07.042Z`: RFC 3339, UTC, milliseconds. Times before 1970 print as the epoch.
pub fn rfc3339_ms(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// `20250131T090507Z`: the same instant, compact, for file names.
pub fn compact_utc(t: SystemTime) -> String {
    let full = rfc3339_ms(t);
    let date: String = full[..10].chars().filter(|c| *c != '-').collect();
    let time: String = full[11..19].chars().filter(|c| *c != ':').collect();
    format!("{date}T{time}Z")
}

/// Year, month, day of a day count since 1970-01-01 (the proleptic Gregorian calendar;
/// Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The environment variable naming the ledger's directory.
pub const STATE_DIR_ENV: &str = "AGENTDAP_STATE_DIR";

/// Where the ledger lives: `$AGENTDAP_STATE_DIR`, else `$XDG_STATE_HOME/agentdap` (when absolute),
/// else `$HOME/.local/state/agentdap`; `None` when none of them is set. `env` reads a variable.
pub fn state_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(STATE_DIR_ENV) {
        return Some(dir);
    }
    if let Some(xdg) = set("XDG_STATE_HOME").filter(|p| p.is_absolute()) {
        return Some(xdg.join("agentdap"));
    }
    set("HOME").map(|home| home.join(".local/state/agentdap"))
}
