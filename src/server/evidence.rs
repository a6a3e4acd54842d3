//! Evidence on disk as the loop's business: ledger records stamped with the wall
//! clock and appended to `ledger.jsonl` once per turn, and with `--dap-log DIR` every session's
//! DAP messages appended to a file of its own. Best effort: a write failure is logged once and
//! never touches the sessions; the ledger's memory (`Sessions::ledger`) answers either way.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

use super::Server;
use crate::ledger::file::{AppendFile, WhenFull};
use crate::ledger::{self, Record};
use crate::session::SessionKey;

/// `--dap-log DIR` (or this variable): also write every session's DAP log to files there.
pub const DAP_LOG_ENV: &str = "AGENTDAP_DAP_LOG";
/// `--idle-reap-secs N` (or this variable): seconds an ended session stays; 0 = forever.
pub const IDLE_REAP_ENV: &str = "AGENTDAP_IDLE_REAP_SECS";
/// A `--dap-log` file stops (with a marker line) at this size (bytes).
pub const DAP_LOG_FILE_CAP: u64 = 64 << 20;

/// The files evidence goes to.
pub(super) struct Evidence {
    /// `ledger.jsonl` in the state directory; `None` when no directory could be named.
    ledger: Option<AppendFile>,
    /// `--dap-log DIR`.
    dap_dir: Option<PathBuf>,
    /// Per session (slab key and id): its file and how many messages it holds.
    dap_files: HashMap<(SessionKey, String), (AppendFile, u64)>,
    /// `<pid>-<start time>`, shared by this process's DAP log file names.
    run_tag: String,
    /// Records of this turn, stamped when they happened: kept in the ledger after the turn's
    /// answers went out (a stop's records cost ~25,000 instructions, `scripts/callgrind-roundtrip`).
    /// Nothing reads the ledger in between: tool calls are read at the start of the next turn.
    pending: Vec<(Record, SystemTime)>,
}

impl Evidence {
    /// Reads the state directory (`$AGENTDAP_STATE_DIR`, `$XDG_STATE_HOME`, `$HOME`) and
    /// `$AGENTDAP_DAP_LOG`. Opens nothing yet.
    pub(super) fn from_env() -> Evidence {
        let ledger = match ledger::state_dir(|k| std::env::var_os(k)) {
            Some(dir) => {
                Some(AppendFile::new(dir.join(ledger::FILE_NAME), "ledger", ledger::ROTATE_AT, WhenFull::Rotate))
            }
            None => {
                log::warn!("ledger: no $AGENTDAP_STATE_DIR, $XDG_STATE_HOME or $HOME; it is kept in memory only");
                None
            }
        };
        let dap_dir = std::env::var_os(DAP_LOG_ENV).filter(|d| !d.is_empty()).map(PathBuf::from);
        let run_tag = format!("{}-{}", ledger::compact_utc(SystemTime::now()), std::process::id());
        Evidence { ledger, dap_dir, dap_files: HashMap::new(), run_tag, pending: Vec::new() }
    }
}

/// `$AGENTDAP_IDLE_REAP_SECS` as the reaping period: unset → the default, 0 → never.
pub(super) fn idle_reap_from_env() -> Option<std::time::Duration> {
    match std::env::var(IDLE_REAP_ENV) {
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(0) => None,
            Ok(secs) => Some(std::time::Duration::from_secs(secs)),
            Err(_) => {
                log::warn!("{IDLE_REAP_ENV}={v:?} is not a number of seconds; using the default");
                Some(crate::session::DEFAULT_IDLE_REAP)
            }
        },
        Err(_) => Some(crate::session::DEFAULT_IDLE_REAP),
    }
}

impl Server {
    /// Stamps a ledger record and keeps it (in the ledger at the end of the turn).
    pub(super) fn record(&mut self, record: Record) {
        self.evidence.pending.push((record, SystemTime::now()));
    }

    /// Appends what the turn produced: ledger lines, and new DAP log entries of every session.
    pub(super) fn flush_evidence(&mut self) {
        for (record, wall) in self.evidence.pending.drain(..) {
            self.sessions.ledger.push(record, wall);
        }
        let lines = self.sessions.ledger.take_unwritten();
        if let Some(file) = self.evidence.ledger.as_mut() {
            file.append(lines.as_bytes());
        }
        if self.evidence.dap_dir.is_none() {
            return;
        }
        // A session that took another id (a js-debug parent became its target's hidden
        // launcher, `session::launcher`) writes its whole log to the file of the new id; the old
        // file, whose name is now the target's, is removed before the target writes there.
        let sessions = &self.sessions;
        let renamed: Vec<(SessionKey, String)> = self
            .evidence
            .dap_files
            .keys()
            .filter(|(key, id)| sessions.get(*key).is_some_and(|s| s.id != *id))
            .cloned()
            .collect();
        for old in renamed {
            if let Some((file, _)) = self.evidence.dap_files.remove(&old) {
                let _ = std::fs::remove_file(file.path());
            }
        }
        let keys: Vec<SessionKey> = self.sessions.iter().map(|(k, _)| k).collect();
        for key in keys {
            self.flush_dap_log(key);
        }
        // Sessions that left the table: their files are complete.
        let sessions = &self.sessions;
        self.evidence.dap_files.retain(|(key, id), _| sessions.get(*key).is_some_and(|s| s.id == *id));
    }

    /// Appends `session`'s DAP messages not yet in its `--dap-log` file.
    pub(super) fn flush_dap_log(&mut self, session: SessionKey) {
        let Evidence { dap_dir: Some(dir), dap_files, run_tag, .. } = &mut self.evidence else { return };
        let Some(s) = self.sessions.get(session) else { return };
        let written = dap_files.get(&(session, s.id.clone())).map_or(0, |(_, n)| *n);
        if s.evidence.dap_log_total <= written {
            return;
        }
        let (file, count) = dap_files.entry((session, s.id.clone())).or_insert_with(|| {
            let path = dir.join(format!("{}-{run_tag}.ndjson", s.id));
            let marker = format!(
                "{{\"agentdap\":\"this file stopped at {} MiB; the agentdap://session/{}/dap-log resource keeps the latest messages\"}}\n",
                DAP_LOG_FILE_CAP >> 20,
                s.id
            );
            (AppendFile::new(path, "dap-log", DAP_LOG_FILE_CAP, WhenFull::Stop { marker }), 0)
        });
        if file.is_writable() {
            file.append(s.dap_log_lines_after(*count).as_bytes());
        }
        *count = s.evidence.dap_log_total;
        if file.failed() {
            // Said once (by the file); the directory is not tried again for other sessions.
            self.evidence.dap_dir = None;
            self.evidence.dap_files.clear();
        }
    }
}
