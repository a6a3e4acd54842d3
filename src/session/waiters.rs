//! The waits behind every call that waits for the program (`launch`, `attach`, `continue`,
//! `step`, `pause`, `wait`, `restart`, `terminate`, an allowed host request): what each waits
//! for, when it is satisfied, its result, its deadline and progress notifications, and
//! cancellation. Must not: send DAP requests (the tools that start a wait do).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::snapshot::RunState;
use super::{Action, CallKey, ErrorCode, Session, Sessions, ToolResult};

/// Progress notifications go out this often while a call waits (MCP progress).
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// What a waiting call waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// A stop past `since` (or the end).
    Stop,
    /// The end of the program.
    Exit,
    /// New output (or a stop, or the end).
    Output,
    /// The end of the start-up: the attach answered (or a stop, or the end).
    Attached,
}

impl Until {
    pub fn parse(s: &str) -> Option<Until> {
        match s {
            "stop" => Some(Until::Stop),
            "exit" => Some(Until::Exit),
            "output" => Some(Until::Output),
            _ => None,
        }
    }
}

/// A call waiting for the program: `launch`, `continue`, `step`, `pause`, `wait`, `terminate`.
#[derive(Debug)]
pub struct Waiter {
    pub call: CallKey,
    pub deadline: Instant,
    /// The result's verb, e.g. "launched" or "continued".
    pub verb: &'static str,
    pub until: Until,
    /// Satisfied only by a stop at a revision above this.
    pub since: u64,
    /// Output cursor when the wait began (for `Until::Output` and progress counts).
    pub output_cursor: Option<u64>,
    /// The result shows the top frame's locals (or what changed in them) at a stop, as the
    /// call's `locals` asks; false: the location alone.
    pub locals: bool,
    started: Instant,
    next_progress: Instant,
}

impl Waiter {
    pub fn new(call: CallKey, now: Instant, wait: Duration, verb: &'static str, until: Until, since: u64) -> Waiter {
        Waiter {
            call,
            deadline: now + wait,
            verb,
            until,
            since,
            output_cursor: None,
            locals: true,
            started: now,
            next_progress: now + PROGRESS_EVERY,
        }
    }

    pub fn next_deadline(&self) -> Instant {
        self.deadline.min(self.next_progress)
    }
}

impl Session {
    /// Whether `w` can be answered now.
    pub(in crate::session) fn satisfies(&self, w: &Waiter) -> bool {
        // A host request waiting for `resolve_host_request` ends every wait (with that news).
        if self.run.state.is_over() || self.host.has_pending() {
            return true;
        }
        let stopped = self.run.state == RunState::Stopped && self.run.stop_ready() && self.run.revision > w.since;
        // A child session's stop ends the parent's waits for a stop: the agent waiting on the
        // parent hears of it (the result names the child).
        let child_stopped = !self.family.child_stops.is_empty();
        match w.until {
            Until::Stop => stopped || child_stopped,
            // A stopped program (or one whose child session is stopped, which it may wait for)
            // cannot end until it is resumed: `wait {for: exit}` says so at once rather than
            // waiting out its `wait_ms` (a fresh user's 50-second wait). Not while agentdap ends
            // it (`terminate`, `disconnect`): then the end comes from the stop, and is waited for.
            Until::Exit => {
                let ending = self.run.ended_by_agentdap || self.link.is_closing();
                let stopped_now = self.run.state == RunState::Stopped && self.run.stop_ready();
                w.verb == "waited" && !ending && (stopped_now || child_stopped)
            }
            // An unfinished line (a prompt) is output too: the result makes it an entry.
            Until::Output => {
                stopped
                    || child_stopped
                    || self.output.has_partial()
                    || w.output_cursor.is_some_and(|c| self.output.cursor() > c)
            }
            // An adapter whose `attach` stops the program (`Quirks::stop_on_entry_request` is
            // `attach`: rdbg 1.4.0 pauses it) is attached once it reports that stop.
            Until::Attached => {
                let stops = self.link.plan.quirks.stop_on_entry_request == Some("attach");
                stopped || child_stopped || (self.run.state == RunState::Running && !stops)
            }
        }
    }

    /// The result for a finished wait; `satisfied` false means the wait ran out first.
    pub(in crate::session) fn wait_result(&mut self, w: &Waiter, satisfied: bool) -> ToolResult {
        if let Some(pending) = self.host_pending_result() {
            return pending;
        }
        let mut out = self.result(w.verb, !satisfied, w.locals);
        self.flow_annotate(w.call, &mut out);
        if w.verb == "waited" {
            let stopped_instead = satisfied && w.until == Until::Exit && !self.run.state.is_over();
            out.structured["satisfied"] = (satisfied && !stopped_instead).into();
            if stopped_instead {
                let who = match self.run.state == RunState::Stopped {
                    true => "the program is stopped and cannot end until it is resumed",
                    false => "a child session is stopped, and the program may wait for it until it is resumed",
                };
                out.text.push_str(&format!("\n(not exited: {who}; `continue` lets it run on)"));
            } else if !satisfied {
                out.text.push_str(&format!("\n(wait_ms ran out before the {} came)", until_name(w.until)));
            }
        }
        out
    }

    /// Answers waits whose deadline passed; sends progress for the others.
    pub(in crate::session) fn tick_waiters(&mut self, now: Instant, actions: &mut VecDeque<Action>) {
        let (due, mut keep): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.calls.waiters).into_iter().partition(|w| w.deadline <= now);
        for w in due {
            let satisfied = self.satisfies(&w);
            let output = self.wait_result(&w, satisfied);
            actions.push_back(Action::Complete { call: w.call, output });
        }
        for w in &mut keep {
            if w.next_progress <= now {
                w.next_progress = now + PROGRESS_EVERY;
                let secs = now.saturating_duration_since(w.started).as_secs_f64();
                let new_output = self.output.cursor().saturating_sub(w.output_cursor.unwrap_or(self.output.cursor()));
                let message = format!(
                    "{} {} for {:.0} s · {} new output entries",
                    self.id,
                    self.run.state.as_str(),
                    secs,
                    new_output
                );
                actions.push_back(Action::Progress { call: w.call, progress: secs.floor(), message });
            }
        }
        self.calls.waiters = keep;
        // A `run_to` whose wait ran out takes its temporary breakpoint out.
        self.flow_settle(now, actions);
    }

    pub(in crate::session) fn fail_waiters(&mut self, code: ErrorCode) {
        let msg = self.run.failure.clone().unwrap_or_else(|| "the session ended".into());
        for w in std::mem::take(&mut self.calls.waiters) {
            self.calls.done.push((w.call, ToolResult::error(code, msg.clone())));
        }
    }

    /// Answers every wait that is satisfied (a stop whose location is known, the end, output).
    pub(in crate::session) fn complete_waiters(&mut self) {
        if self.calls.waiters.is_empty() {
            return;
        }
        let (done, keep): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.calls.waiters).into_iter().partition(|w| self.satisfies(w));
        self.calls.waiters = keep;
        for w in done {
            let out = self.wait_result(&w, true);
            self.calls.done.push((w.call, out));
        }
    }

    /// The output cursor as of the last result (what a wait for output compares against).
    pub(in crate::session) fn result_cursor_value(&self) -> u64 {
        self.calls.result_cursor
    }
}

impl Sessions {
    /// The client cancelled `call` (MCP `notifications/cancelled`): stop waiting for it. The
    /// program is not touched; no result is sent.
    pub fn cancel(&mut self, call: CallKey, now: Instant) {
        for (_, s) in self.slab.iter_mut() {
            s.calls.waiters.retain(|w| w.call != call);
            s.flow_settle(now, &mut self.actions);
        }
        self.cancel_jobs(call);
    }
}

/// `wait_ms` as a duration: [`super::DEFAULT_WAIT`] when not given, at most [`super::MAX_WAIT`].
pub(super) fn wait_duration(wait_ms: Option<u64>) -> Duration {
    wait_ms.map(Duration::from_millis).unwrap_or(super::DEFAULT_WAIT).min(super::MAX_WAIT)
}

fn until_name(u: Until) -> &'static str {
    match u {
        Until::Stop => "next stop",
        Until::Exit => "exit",
        Until::Output => "next output",
        Until::Attached => "attach",
    }
}
