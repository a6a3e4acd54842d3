//! Tool group "control" (`mcp/tools/control.rs`): `step`, `pause`, `wait`, and the resume every
//! tool that runs the program shares (`continue`, `step`, `goto`, `run_to`): the wait it starts
//! and what a refused resume or pause means. Must not: decide what a wait's result says (see
//! `session/waiters.rs`).

use std::time::{Duration, Instant};

use serde_json::Value;

use super::gates::Gate;
use super::{session, stopped, Reply, Started};
use crate::dap::requests::{
    Next, NextArguments, Pause, PauseArguments, Request, StepBack, StepIn, StepInArguments, StepOut,
};
use crate::session::snapshot::RunState;
use crate::session::waiters::{wait_duration, Until, Waiter};
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// What a control request is doing; carried in [`Origin::Control`].
#[derive(Debug)]
pub enum Op {
    /// A resume (`continue`, a step, `goto`): its failure fails the call's wait.
    Resume { call: CallKey },
    /// `pause`: its failure fails the call's wait.
    Pause { call: CallKey },
    /// A `continue` agentdap sends on its own past a stop that is the adapter's, not the
    /// program's (`RuntimeQuirks::entry_stop_repeats`): no call waits on it.
    PassOver,
}

/// How far a `step` goes (DAP `next`/`stepIn`/`stepOut`/`stepBack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    Over,
    In,
    Out,
    Back,
}

impl StepKind {
    pub fn parse(s: &str) -> Option<StepKind> {
        match s {
            "over" | "next" => Some(StepKind::Over),
            "in" | "into" => Some(StepKind::In),
            "out" => Some(StepKind::Out),
            "back" => Some(StepKind::Back),
            _ => None,
        }
    }
}

impl Sessions {
    /// `step`: one step of `kind` on `thread` (default: the focus thread).
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        key: SessionKey,
        kind: StepKind,
        granularity: Option<String>,
        thread: Option<i64>,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        session(&mut self.slab, key)?.require_live("step")?;
        let s = stopped(&mut self.slab, key)?;
        s.check_thread(thread)?;
        if kind == StepKind::Back {
            s.require(Gate::StepBack)?;
        }
        let Some(t) = s.thread_for(thread) else {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, "no thread to step; pass `thread`."));
        };
        let (wait, verb) = (wait_duration(wait_ms), "stepped");
        // `next`, `stepOut` and `stepBack` take the same arguments (DAP § Requests › Next).
        let args = NextArguments { thread_id: t, single_thread: None, granularity };
        match kind {
            StepKind::Over => s.resume::<Next>(args, call, wait, verb, now),
            StepKind::In => {
                let NextArguments { thread_id, single_thread, granularity } = args;
                let args = StepInArguments { thread_id, single_thread, target_id: None, granularity };
                s.resume::<StepIn>(args, call, wait, verb, now)
            }
            StepKind::Out => s.resume::<StepOut>(args, call, wait, verb, now),
            StepKind::Back => s.resume::<StepBack>(args, call, wait, verb, now),
        }
        self.after(key, now);
        Ok(())
    }

    /// `pause`: interrupts a running session and waits for the stop.
    pub fn pause(
        &mut self,
        key: SessionKey,
        thread: Option<i64>,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let s = session(&mut self.slab, key)?;
        s.require_live("pause")?;
        match s.run.state {
            RunState::Stopped => {
                let out = s.result("already stopped", false, s.calls.locals);
                self.complete(call, out);
                return Ok(());
            }
            RunState::Exited | RunState::Terminated | RunState::Starting => {
                let msg = format!("{} is {}; there is nothing to pause.", s.id, s.run.state.as_str());
                return Err(ToolResult::error(ErrorCode::NotStopped, msg));
            }
            RunState::Running => {}
        }
        let t = thread.or(s.view.focus_thread).unwrap_or(0);
        let since = s.run.revision;
        let mut w = Waiter::new(call, now, wait_duration(wait_ms), "paused", Until::Stop, since);
        w.locals = s.calls.locals;
        s.calls.waiters.push(w);
        s.run.pause_sent = true;
        s.mirror.person_cause = None;
        s.request::<Pause>(PauseArguments { thread_id: t }, Origin::Control(Op::Pause { call }), now);
        self.after(key, now);
        Ok(())
    }

    /// `wait`: for the next stop, the exit, or new output; at once when already satisfied.
    pub fn wait(
        &mut self,
        key: SessionKey,
        until: Until,
        since_revision: Option<u64>,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let s = session(&mut self.slab, key)?;
        // Default: a stop the agent has not seen — the current one counts when stopped.
        let since = since_revision.unwrap_or(if s.run.state == RunState::Stopped {
            s.run.revision.saturating_sub(1)
        } else {
            s.run.revision
        });
        let mut w = Waiter::new(call, now, wait_duration(wait_ms), "waited", until, since);
        w.locals = s.calls.locals;
        s.output.flush();
        w.output_cursor = Some(s.result_cursor_value());
        if s.satisfies(&w) {
            let out = s.wait_result(&w, true);
            self.complete(call, out);
            return Ok(());
        }
        s.calls.waiters.push(w);
        Ok(())
    }
}

impl Session {
    /// Resumes the stopped session with the typed request `R` (`continue`, `next`, `stepIn`,
    /// `stepOut`, `stepBack`, `goto`) and waits for the next stop or the exit.
    pub(in crate::session) fn resume<R: Request>(
        &mut self,
        args: R::Arguments,
        call: CallKey,
        wait: Duration,
        verb: &'static str,
        now: Instant,
    ) {
        self.resume_wait(call, wait, verb, now);
        self.request::<R>(args, Origin::Control(Op::Resume { call }), now);
    }

    /// [`Session::resume`] with the command by name and its arguments as JSON.
    pub(in crate::session) fn resume_with(
        &mut self,
        command: &str,
        args: Value,
        call: CallKey,
        wait: Duration,
        verb: &'static str,
        now: Instant,
    ) {
        self.resume_wait(call, wait, verb, now);
        self.send(command, Some(args), Origin::Control(Op::Resume { call }), now);
    }

    /// What every resume does before its request goes out: the session runs, and `call` waits
    /// for the next stop or the exit.
    fn resume_wait(&mut self, call: CallKey, wait: Duration, verb: &'static str, now: Instant) {
        let since = self.run.revision + 1;
        self.run.stop_before_resume = self.run.stop.clone();
        // The agent's own resume: the stop it leads to is not the person's.
        self.mirror.person_cause = None;
        self.mark_running();
        self.run.resume_unacked = true;
        let mut w = Waiter::new(call, now, wait, verb, Until::Stop, since - 1);
        w.locals = self.calls.locals;
        w.output_cursor = Some(self.output.cursor());
        self.calls.waiters.push(w);
    }

    /// The answer to a resume or a pause.
    pub(in crate::session) fn control_answered(&mut self, op: Op, reply: Reply) {
        let Reply { failure, code, .. } = reply;
        match op {
            Op::Resume { call } => {
                let before = self.run.stop_before_resume.take();
                if failure.is_none() {
                    self.run.resume_unacked = false;
                    self.mirror_resumed();
                }
                if let (Some(msg), ErrorCode::Timeout) = (&failure, code) {
                    // No answer is not a refusal: the program may well be running (debugpy
                    // 1.8.22 leaves a `continue` unanswered when another thread stops while it
                    // resumes them all, and forwards nothing more). Where it is cannot be known:
                    // never back at the old stop; the session stays running, unacknowledged.
                    self.calls.waiters.retain(|w| w.call != call);
                    self.calls.warnings.push(format!(
                        "{msg}: whether the program resumed is unknown, and {} may be hung (`disconnect` ends the session)",
                        self.link.adapter
                    ));
                    self.calls.done.push((call, ToolResult::error(ErrorCode::Timeout, msg.clone())));
                    return;
                }
                if let Some(msg) = failure {
                    // The adapter refused to resume: the session is still where it was (a new
                    // revision all the same: the handles of the old one are gone).
                    self.calls.waiters.retain(|w| w.call != call);
                    if self.run.state == RunState::Running {
                        self.run.state = RunState::Stopped;
                        self.run.stop = before;
                        // A stop of its own revision: the last one's reads are not this one's.
                        self.run.stop_revision = self.run.revision;
                        self.run.details_ready();
                    }
                    self.calls.done.push((call, ToolResult::error(code, msg)));
                }
            }
            Op::Pause { call } => {
                if let Some(msg) = failure {
                    self.calls.waiters.retain(|w| w.call != call);
                    self.calls.done.push((call, ToolResult::error(code, msg)));
                }
            }
            Op::PassOver => {
                if let Some(msg) = failure {
                    // The program stays paused where the adapter stopped it: say so.
                    log::warn!("{}: could not go on past the adapter's repeated entry stop: {msg}", self.id);
                    self.calls
                        .warnings
                        .push(format!("{} could not resume past its own entry breakpoint: {msg}", self.link.adapter));
                }
            }
        }
    }

    /// A resume or pause that never went out: its wait ends with why.
    pub(in crate::session) fn control_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        let (Op::Resume { call } | Op::Pause { call }) = op else {
            log::warn!("{}: could not go on past the adapter's repeated entry stop: {msg}", self.id);
            return;
        };
        self.calls.waiters.retain(|w| w.call != call);
        self.calls.done.push((call, ToolResult::error(code, msg)));
    }
}
