//! What a session leaves behind (README § What happened): the ledger records it emits (as
//! [`Action::Ledger`], stamped and written by the IO shell), the end of a session noticed once,
//! and idle reaping: a session that ended is released after `idle_reap` (a live one never is),
//! and the oldest ended one makes room when the table is full. Sans-IO.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::snapshot::RunState;
use super::{Action, ErrorCode, Session, SessionKey, Sessions, ToolResult, MAX_SESSIONS};
use crate::dap::client::Outcome;
use crate::ledger::{Kind, Record};

/// How long a session that ended stays in the table untouched before it is released;
/// `--idle-reap-secs` changes it, 0 turns reaping off.
pub const DEFAULT_IDLE_REAP: Duration = Duration::from_secs(30 * 60);
/// Records one session may queue between two drains (a drain follows every `pump`).
const MAX_QUEUED: usize = 256;

impl Session {
    /// Queues a ledger record; [`Session::pump`] hands it to the IO shell.
    pub(super) fn note(&mut self, record: Record) {
        if self.evidence.ledger_out.len() < MAX_QUEUED {
            self.evidence.ledger_out.push(record);
        }
    }

    /// Moves queued records to the action queue.
    pub(super) fn drain_notes(&mut self, actions: &mut std::collections::VecDeque<Action>) {
        actions.extend(self.evidence.ledger_out.drain(..).map(Action::Ledger));
    }

    /// `session_start`: what was started, and how.
    pub(super) fn start_record(&self) -> Record {
        let args = &self.link.plan.launch_arguments;
        let pid = (self.link.plan.request == "attach" && self.link.plan.connect.is_none())
            .then(|| args.get(self.link.plan.quirks.attach_pid_key).and_then(Value::as_i64))
            .flatten();
        Record::new(&self.id, Kind::SessionStart)
            .with("adapter", self.link.adapter.as_str())
            .with("request", self.link.plan.request)
            .with("program", self.program.as_str())
            .with_some("pid", pid)
            .with_some("connect", self.link.plan.connect.map(|a| a.to_string()))
            .with_some("cwd", args.get("cwd").and_then(Value::as_str))
            .with_some("parent", self.family.parent.as_ref().map(|(_, id)| id.as_str()))
    }

    /// `breakpoint_hit`, `exception` or `stop`, once per stop, when its details are in.
    pub(super) fn note_stop(&mut self) {
        if self.run.state != RunState::Stopped || self.evidence.ledger_stop_rev == self.run.revision {
            return;
        }
        let Some(stop) = &self.run.stop else { return };
        self.evidence.ledger_stop_rev = self.run.revision;
        let kind = if stop.reason == "exception" && !stop.requested_pause {
            Kind::Exception
        } else if stop.reason.contains("breakpoint") || !stop.hit_breakpoints.is_empty() {
            Kind::BreakpointHit
        } else {
            Kind::Stop
        };
        let mut record = Record::new(&self.id, kind).with("revision", self.run.revision);
        if let Value::Object(mut facts) = stop.to_json() {
            facts.remove("all_threads_stopped");
            if stop.exception.is_some() {
                // The exception's type and message say it; the event's words repeat them.
                facts.remove("text");
                facts.remove("description");
            }
            record.facts.extend(facts);
        }
        self.note(record);
    }

    /// `breakpoints_set`: the adapter's answer for one file.
    pub(super) fn note_breakpoints(&mut self, path: &str, failure: Option<&str>) {
        let set = self.breaks.store.get(path);
        let lines: Vec<u32> = set.iter().map(|e| e.requested.line).collect();
        let ids: Vec<i64> = set.iter().map(|e| e.id).collect();
        let verified = set.iter().filter(|e| e.bound.as_ref().is_some_and(|b| b.verified)).count();
        let record = Record::new(&self.id, Kind::BreakpointsSet)
            .with("path", path)
            .with("lines", lines)
            .with("ids", ids)
            .with("verified", verified)
            .with("unverified", set.len() - verified)
            .with_some("error", failure);
        self.note(record);
    }

    /// `request_error`: a request the adapter refused or left unanswered (not one that failed
    /// because the connection closed: the session's end says that).
    pub(super) fn note_request_error(&mut self, outcome: &Outcome) {
        let command = match outcome {
            Outcome::Error { response, .. } => response.command.clone(),
            Outcome::Timeout { command, .. } => command.clone(),
            Outcome::Success(_) | Outcome::Disconnected { .. } => return,
        };
        let record = Record::new(&self.id, Kind::RequestError)
            .with("command", command)
            .with_some("code", outcome.error_code())
            .with("message", outcome.to_string());
        self.note(record);
    }

    /// `session_end`: how the session ended and its exit code.
    fn end_record(&self) -> Record {
        let how = if self.run.failure.is_some() {
            "failed"
        } else if self.run.ended_by_agentdap {
            "ended_by_agentdap"
        } else if self.run.state == RunState::Exited {
            "exited"
        } else if !self.family.owns_debuggee && self.link.is_closing() {
            "detached"
        } else {
            "terminated"
        };
        Record::new(&self.id, Kind::SessionEnd)
            .with("state", self.run.state.as_str())
            .with("how", how)
            .with_some(
                "exit_code",
                self.run.exit_code.filter(|_| !self.run.ended_by_agentdap && self.run.killed_by.is_none()),
            )
            .with_some("signal", self.run.killed_by.map(|(name, _)| name))
            .with_some("reported_exit_code", self.run.exit_code.filter(|_| self.run.ended_by_agentdap))
            .with_some("failure", self.run.failure.as_deref())
            .with("revision", self.run.revision)
    }

    /// Whether reaping may release this session at `now` (ended long enough ago, a root, not
    /// already on its way out); its deadline otherwise.
    fn reap_at(&self, idle: Duration) -> Option<Instant> {
        let ended = self.evidence.ended_at?;
        let root = self.family.parent.is_none() || self.family.stands_in;
        (root && !self.link.disconnected && self.run.state.is_over()).then(|| ended + idle)
    }
}

impl Sessions {
    /// Sets how long an ended session stays before it is released (`None`: forever).
    pub fn set_idle_reap(&mut self, idle: Option<Duration>) {
        self.idle_reap = idle.filter(|d| !d.is_zero());
    }

    /// Notices sessions that ended since the last look: their `session_end` record, and the
    /// time their idle period starts. Runs whenever the action queue runs dry.
    pub(super) fn sweep_ended(&mut self, now: Instant) {
        for (_, s) in self.slab.iter_mut() {
            if s.run.state.is_over() && s.evidence.ended_at.is_none() {
                s.evidence.ended_at = Some(now);
                // A hidden launcher's run is its stand-in's, recorded under the same id.
                if s.family.stand_in.is_none() {
                    self.actions.push_back(Action::Ledger(s.end_record()));
                }
            }
        }
    }

    /// The `session_end` of a session leaving the table before [`Sessions::sweep_ended`] saw it
    /// end (a disconnect before its adapter started).
    pub(super) fn note_removed(&mut self, s: &Session) {
        if s.evidence.ended_at.is_none() && s.family.stand_in.is_none() {
            self.actions.push_back(Action::Ledger(s.end_record()));
        }
    }

    /// The earliest idle-reaping deadline.
    pub(super) fn next_reap(&self) -> Option<Instant> {
        let idle = self.idle_reap?;
        self.slab.iter().filter_map(|(_, s)| s.reap_at(idle)).min()
    }

    /// Releases every session idle past its deadline (children go with their parent).
    pub(super) fn reap_idle(&mut self, now: Instant) {
        let Some(idle) = self.idle_reap else { return };
        let due: Vec<SessionKey> =
            self.slab.iter().filter(|(_, s)| s.reap_at(idle).is_some_and(|t| t <= now)).map(|(k, _)| k).collect();
        for key in due {
            if let Some(s) = self.slab.get(key) {
                log::info!("{}: {} for {:?}; releasing it", s.id, s.run.state.as_str(), idle);
            }
            self.release_ended(key);
        }
    }

    /// Lets an ended session go: its adapter is stopped if it still runs, then it leaves the
    /// table (`on_adapter_closed` releases a disconnected session); its children follow
    /// ([`Sessions::sweep_children`]).
    fn release_ended(&mut self, key: SessionKey) {
        let Some(s) = self.slab.get_mut(key) else { return };
        s.link.disconnected = true;
        if s.link.is_alive() {
            self.actions.push_back(Action::StopAdapter { session: key });
        } else {
            self.actions.push_back(Action::Release { session: key });
        }
    }

    /// `Err` with the tool result to give when [`MAX_SESSIONS`] sessions are live.
    /// When the table is full of sessions that include ended ones, the one that ended longest ago
    /// (a root, or a child whose parent runs on: a finished worker thread) is released to make
    /// room; a hidden launcher goes with its stand-in.
    pub(super) fn room(&mut self) -> Result<(), ToolResult> {
        let counted = || self.slab.iter().filter(|(_, s)| !s.link.disconnected).count();
        if counted() >= MAX_SESSIONS {
            let oldest = self
                .slab
                .iter()
                .filter(|(_, s)| s.family.stand_in.is_none())
                .filter(|(_, s)| !s.link.disconnected && s.run.state.is_over())
                .min_by_key(|(_, s)| s.evidence.ended_at)
                .map(|(k, _)| k);
            if let Some(key) = oldest {
                self.release_ended(key);
            }
        }
        let counted = self.slab.iter().filter(|(_, s)| !s.link.disconnected).count();
        // Sessions on their way out still hold an adapter for a moment; the table stays bounded.
        if counted < MAX_SESSIONS && self.slab.len() < 2 * MAX_SESSIONS {
            return Ok(());
        }
        let live = self.slab.iter().filter(|(_, s)| !s.run.state.is_over()).count();
        let msg = if counted < MAX_SESSIONS {
            format!("{} sessions are still closing; try again in a few seconds.", self.slab.len() - counted)
        } else {
            format!(
                "{MAX_SESSIONS} sessions exist ({live} live), the most agentdap keeps; `disconnect` one you no longer need, then start again."
            )
        };
        Err(ToolResult::error(ErrorCode::InvalidArgument, msg))
    }
}

/// What a session keeps as evidence: the DAP log ring, ledger records not yet queued, and when
/// the session began and was first seen ended.
pub struct Evidence {
    pub(crate) dap_log: VecDeque<crate::dap::client::LogEntry>,
    /// Bytes of message text in `dap_log` (capped at [`super::DAP_LOG_BYTES`]).
    pub(crate) dap_log_bytes: usize,
    /// DAP messages logged since the session began (the `dap_log` ring keeps the last ones):
    /// `--dap-log` files follow it.
    pub(crate) dap_log_total: u64,
    /// When the session was created (DAP log times are relative to it).
    pub(crate) started: Instant,
    /// The table's count of sessions opened when this one was (`Sessions::opened`): which is
    /// more recent, whatever slab slot each took.
    pub(crate) opened: u64,
    /// Ledger records not yet handed to the action queue (drained by `pump`).
    pub(crate) ledger_out: Vec<Record>,
    /// The revision of the last stop recorded in the ledger.
    pub(crate) ledger_stop_rev: u64,
    /// When the session was first seen ended (its `session_end` was recorded): idle reaping
    /// counts from here.
    pub(crate) ended_at: Option<Instant>,
}

impl Evidence {
    /// Evidence of a session created at `now`.
    pub(crate) fn new(now: Instant) -> Evidence {
        Evidence {
            dap_log: VecDeque::new(),
            dap_log_bytes: 0,
            dap_log_total: 0,
            started: now,
            opened: 0,
            ledger_out: Vec::new(),
            ledger_stop_rev: 0,
            ended_at: None,
        }
    }
}

#[cfg(test)]
mod tests;
