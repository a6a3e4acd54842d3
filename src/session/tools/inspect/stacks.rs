//! `stacks` (tool group "inspect"): every thread's stack in one call, however the program is —
//! read while it is stopped; paused, read and resumed while it runs; or, where the adapter names
//! a stack sampler (`StacksQuirks::sampler`: py-spy for debugpy), sampled without stopping
//! it (`stacks/sampled.rs`) — and what a `pause` of its own that did not take effect leaves
//! behind: a late stop, resumed and never reported as a stop. The result names how the stacks
//! were read and whether the program is stopped (`stacks/render.rs`).
//!
//! Must not: change the session's run state or revision for a stop of its own pause (so no
//! other call's wait, `wait {for: stop}` included, and no stop-frame read takes it for the
//! program's), or touch IO (py-spy runs as a job of the IO shell).

mod render;
mod sampled;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::super::{session, Answer, Started};
use crate::dap::adapters::stack_sampler::StackSampler;
use crate::dap::requests::{
    Continue, ContinueArguments, Pause, PauseArguments, Request, StackTrace, StackTraceArguments, Threads,
};
use crate::session::snapshot::RunState;
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};
use render::{Report, ThreadOut};
pub use sampled::Sample;

/// How long one `stacks` request may take: an adapter that cannot answer `stackTrace` for a
/// thread in that time (debugpy for a thread it could not pause) will not in the DAP timeout
/// either, and the read says which threads it could not read.
pub const STACKS_REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Most threads whose stacks one `stacks` reads (the rest are named, with how to read them).
pub const MAX_THREADS: usize = 64;
/// Most frames read per thread (fewer are shown when the result would pass its budget).
pub const MAX_LEVELS: u64 = 20;
/// How long a `pause` of `stacks` may take to stop the program before the read goes on without
/// it (lldb-dap 22 stops in ~1 ms; debugpy 1.8.22 never stops a thread blocked in native code).
pub const PAUSE_DEADLINE: Duration = Duration::from_millis(1_500);

/// A `stacks` request's step; carried in [`Origin::Stacks`]. `read` is the serial of the read it
/// belongs to: an answer for a read that is over is dropped.
#[derive(Debug)]
pub enum Step {
    Pause {
        read: u64,
    },
    /// `stale`: an answer to throw away (`StacksQuirks::first_threads_stale`); the next is asked.
    Threads {
        read: u64,
        stale: bool,
    },
    Stack {
        read: u64,
        index: usize,
    },
    /// The `continue` after a read that paused the program.
    Resume {
        read: u64,
    },
    /// The `continue` of a late stop of a pause whose read had gone on without it.
    LateResume,
}

/// A session's `stacks` state: the read under way, and whether a pause of an earlier read may
/// still stop the program.
#[derive(Debug, Default)]
pub struct State {
    read: Option<Read>,
    serial: u64,
    /// A `pause` a read sent whose stop did not come in time: when it comes while the session
    /// runs, the program is resumed at once and the stop is not reported as one.
    stray_pause: bool,
    /// The sampler's version, once read (`stacks/sampled.rs`).
    pub(super) sampler_version: Option<String>,
    /// The clock of the last step (a request that could not be sent is answered with it).
    clock: Option<Instant>,
}

impl State {
    /// The deadline of the read under way, when one waits for a stop.
    pub fn deadline(&self) -> Option<Instant> {
        self.read.as_ref().and_then(|r| r.deadline)
    }
}

/// How the read gets its stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// The session was stopped when `stacks` came: read, and left stopped.
    WhileStopped,
    /// agentdap paused the program for the read; it resumes it afterwards.
    Paused,
    /// The program stopped on its own (a breakpoint) while agentdap's pause was on its way: read
    /// while stopped, and left stopped.
    StoppedMeanwhile,
    /// The pause did not stop the program in time: only the thread list can be read.
    PauseNotTaken,
    /// A stack sampler (a job) reads them; the program is not stopped.
    Sampling,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Sampling,
    Pausing,
    Threads,
    Stacks,
    Resuming,
}

#[derive(Debug)]
struct Read {
    serial: u64,
    call: CallKey,
    mode: Mode,
    phase: Phase,
    /// The revision the stacks belong to (set when the thread list is read).
    revision: u64,
    /// Until when the pause may take to stop the program.
    deadline: Option<Instant>,
    threads: Vec<Thread>,
    /// Threads beyond [`MAX_THREADS`], named only.
    unread: Vec<(i64, String)>,
    pending: usize,
    /// The thread the pause's stop named (the `continue` goes to it).
    stop_thread: Option<i64>,
    /// The pause's `stopped` body, reported as a stop if the resume fails.
    stop_body: Option<Value>,
    /// What the result says besides the stacks.
    notes: Vec<String>,
}

#[derive(Debug)]
struct Thread {
    id: i64,
    name: String,
    /// The `stackTrace` answer (`None` until it comes).
    answer: Option<Answer>,
}

impl Sessions {
    /// `stacks {session}`: every thread's stack (see the module doc). `Err`: the session has not
    /// started or has ended, or another `stacks` read of it is under way.
    pub fn stacks(&mut self, key: SessionKey, call: CallKey, now: Instant) -> Started {
        let s = session(&mut self.slab, key)?;
        if s.stacks.read.is_some() {
            let msg = format!(
                "{} is already reading its stacks for another call; ask again once that one is answered.",
                s.id
            );
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        match s.run.state {
            RunState::Stopped => s.start_read(call, Mode::WhileStopped, now),
            RunState::Running => match s.sampler_at_hand() {
                Ok((sampler, path, pid)) => {
                    let serial = s.new_read(call, Mode::Sampling, Phase::Sampling);
                    let owner = Some((key, s.id.clone()));
                    let version = s.stacks.sampler_version.clone();
                    self.start_sample(Sample::new(call, owner, serial, sampler, path, pid, version), now);
                }
                Err(notes) => {
                    s.new_read(call, Mode::Paused, Phase::Pausing);
                    s.pause_for_read(notes, now);
                }
            },
            RunState::Starting => {
                let msg = format!("{} is starting; `stacks` reads its threads once it runs or stops.", s.id);
                return Err(ToolResult::error(ErrorCode::NotStopped, msg));
            }
            RunState::Exited | RunState::Terminated => {
                let msg = format!("{} has {}: it has no threads to read.", s.id, s.run.state.as_str());
                return Err(ToolResult::error(ErrorCode::NotStopped, msg));
            }
        }
        self.after(key, now);
        Ok(())
    }
}

impl Session {
    fn new_read(&mut self, call: CallKey, mode: Mode, phase: Phase) -> u64 {
        self.stacks.serial += 1;
        let serial = self.stacks.serial;
        self.stacks.read = Some(Read {
            serial,
            call,
            mode,
            phase,
            revision: self.run.revision,
            deadline: None,
            threads: Vec::new(),
            unread: Vec::new(),
            pending: 0,
            stop_thread: None,
            stop_body: None,
            notes: Vec::new(),
        });
        serial
    }

    /// Sends a `stacks` request. A thread's `stackTrace` is answered within
    /// [`STACKS_REQUEST_TIMEOUT`] (the stacks are asked at once: the read takes about that at
    /// worst, not the DAP request timeout); `pause`, `threads` and `continue` keep the DAP
    /// request timeout, since a late answer to them must not be taken for none (a `continue`
    /// given up on while debugpy resumes 300 threads left agentdap calling a running program
    /// stopped).
    fn stacks_send<R: Request>(&mut self, args: R::Arguments, step: Step, now: Instant) {
        self.stacks.clock = Some(now);
        let timeout = matches!(step, Step::Stack { .. }).then_some(STACKS_REQUEST_TIMEOUT);
        let arguments = R::arguments(&args).unwrap_or(None);
        self.send_with_timeout(R::COMMAND, arguments, Origin::Stacks(step), now, timeout);
    }

    /// Asks for the thread list (twice where the first answer may be stale).
    fn ask_threads(&mut self, read: u64, now: Instant) {
        let stale = self.link.plan.runtime.stacks.first_threads_stale;
        self.stacks_send::<Threads>((), Step::Threads { read, stale }, now);
    }

    /// Starts a read of a stopped program: the thread list first.
    fn start_read(&mut self, call: CallKey, mode: Mode, now: Instant) {
        let read = self.new_read(call, mode, Phase::Threads);
        self.ask_threads(read, now);
    }

    /// The recipe's stack sampler, where it is and the program's pid, when all three are known;
    /// else what the result says about it (nothing when the recipe names none).
    fn sampler_at_hand(&self) -> Result<(StackSampler, PathBuf, i64), Vec<String>> {
        let Some(sampler) = self.link.plan.runtime.stacks.sampler else { return Err(Vec::new()) };
        match (sampler.find(self.link.files.adapter_host()), self.family.debuggee_pid) {
            (Ok(path), Some(pid)) => Ok((sampler, path, pid)),
            (Err(why), _) => Err(vec![format!(
                "{why}. Install it with `{}`: then `stacks` reads every thread without stopping the program, even one blocked in native code",
                sampler.install_command()
            )]),
            (Ok(_), None) => Err(vec![format!(
                "{} needs the program's pid, which {} did not report (no DAP `process` event)",
                sampler.name(),
                self.link.adapter
            )]),
        }
    }

    /// Pauses the program for the read under way; the read goes on at its stop, or without one
    /// after [`PAUSE_DEADLINE`]. `notes` come first in the result.
    fn pause_for_read(&mut self, notes: Vec<String>, now: Instant) {
        let Some(r) = self.stacks.read.as_mut() else { return };
        r.mode = Mode::Paused;
        r.phase = Phase::Pausing;
        r.deadline = Some(now + PAUSE_DEADLINE);
        r.notes.extend(notes);
        let read = r.serial;
        let thread = self.view.focus_thread.unwrap_or(0);
        self.stacks_send::<Pause>(PauseArguments { thread_id: thread }, Step::Pause { read }, now);
    }

    /// A `stopped` event came: `true` when it is a stop of a `stacks` pause, taken here and never
    /// seen by the stop bookkeeping (`events.rs` returns at once); `false` for every other stop,
    /// which goes on as usual (a read waiting for its pause then reads at that stop instead).
    pub(in crate::session) fn stacks_take_stop(&mut self, body: &Value, now: Instant) -> bool {
        if self.run.state != RunState::Running {
            return false;
        }
        let pausing = self.stacks.read.as_ref().is_some_and(|r| r.phase == Phase::Pausing);
        // The agent's own pause is on its way: a stop now is the agent's.
        let agents = self.run.pause_sent;
        if agents || !self.is_pause_stop(body) {
            if pausing {
                // A breakpoint (or exception, or step, or the agent's own pause) won the race
                // with the pause: that stop is reported as usual; the read goes on at it.
                self.stacks.stray_pause = false;
                if let Some(r) = &mut self.stacks.read {
                    r.mode = Mode::StoppedMeanwhile;
                    r.phase = Phase::Threads;
                    r.deadline = None;
                    let read = r.serial;
                    self.ask_threads(read, now);
                }
            }
            if agents {
                self.stacks.stray_pause = false;
            }
            return false;
        }
        let thread = body.get("threadId").and_then(Value::as_i64);
        let reading_paused = self.stacks.read.as_ref().is_some_and(|r| r.mode == Mode::Paused);
        if reading_paused && !pausing {
            // A further stop of the same pause (one per thread): the read is on already.
            log::debug!("{}: another stop of the `stacks` pause (thread {thread:?})", self.id);
            return true;
        }
        if pausing {
            if let Some(r) = &mut self.stacks.read {
                r.phase = Phase::Threads;
                r.deadline = None;
                r.stop_thread = thread;
                r.stop_body = Some(body.clone());
                let read = r.serial;
                self.ask_threads(read, now);
            }
            return true;
        }
        if !self.stacks.stray_pause {
            return false;
        }
        // The pause of a read that went on without it took effect late (debugpy stops a thread
        // once it runs Python code again): nobody asked for this stop, so the program runs on.
        self.stacks.stray_pause = false;
        log::info!("{}: resuming a late stop of a `stacks` pause (thread {thread:?})", self.id);
        self.calls.warnings.push(format!(
            "{} stopped the program late for an earlier `stacks` pause; agentdap resumed it at once (not a stop of the program's)",
            self.link.adapter
        ));
        let args = ContinueArguments { thread_id: thread.unwrap_or(0), single_thread: None };
        self.stacks_send::<Continue>(args, Step::LateResume, now);
        true
    }

    /// Whether a `stopped` body is what a `pause` makes: reason `pause`, or the adapter's own
    /// spelling of it (`Quirks::pause_signal`: an exception naming the interrupt signal;
    /// `RuntimeQuirks::pause_stops_as_step`: a step).
    fn is_pause_stop(&self, body: &Value) -> bool {
        let reason = body.get("reason").and_then(Value::as_str).unwrap_or_default();
        let words = ["description", "text"].map(|k| body.get(k).and_then(Value::as_str).unwrap_or_default());
        match reason {
            "pause" => true,
            "exception" => {
                self.link.plan.quirks.pause_signal.is_some_and(|signal| words.iter().any(|w| w.contains(signal)))
            }
            "step" => self.link.plan.runtime.pause_stops_as_step,
            _ => false,
        }
    }

    /// The deadline of a read waiting for its pause passed: the read goes on without a stop.
    pub(in crate::session) fn stacks_tick(&mut self, now: Instant) {
        let ms = PAUSE_DEADLINE.as_millis();
        let why = self.link.plan.runtime.pause_unanswered.unwrap_or("the adapter reported no stop after `pause`");
        let stopped = self.run.state == RunState::Stopped;
        let Some(r) = self.stacks.read.as_mut().filter(|r| r.deadline.is_some_and(|d| d <= now)) else { return };
        r.deadline = None;
        r.phase = Phase::Threads;
        let read = r.serial;
        if stopped {
            // Stopped by something else meanwhile (a stop this read did not see as its own).
            r.mode = Mode::StoppedMeanwhile;
            return self.ask_threads(read, now);
        }
        r.mode = Mode::PauseNotTaken;
        r.notes
            .insert(0, format!("the pause did not stop the program within {ms} ms, so no stack could be read: {why}"));
        self.stacks.stray_pause = true;
        if self.run.state.is_over() {
            return self.finish_read();
        }
        self.ask_threads(read, now);
    }

    /// An answer to a `stacks` request.
    pub(in crate::session) fn stacks_answered(&mut self, step: Step, answer: Answer, now: Instant) {
        if let Step::LateResume = step {
            if let Err((_, msg)) = answer {
                log::warn!("{}: could not resume the late stop of a `stacks` pause: {msg}", self.id);
                self.calls.warnings.push(format!(
                    "{} stopped the program late for an earlier `stacks` pause and refused to resume it ({msg}); the program may be paused: `pause` then `continue`",
                    self.link.adapter
                ));
            }
            return;
        }
        let serial = match step {
            Step::Pause { read } | Step::Threads { read, .. } | Step::Stack { read, .. } | Step::Resume { read } => {
                read
            }
            Step::LateResume => return,
        };
        let Some(r) = self.stacks.read.as_mut().filter(|r| r.serial == serial) else { return };
        match step {
            Step::Pause { .. } => {
                if let Err((_, msg)) = answer {
                    if r.phase == Phase::Pausing {
                        r.deadline = None;
                        r.mode = Mode::PauseNotTaken;
                        r.phase = Phase::Threads;
                        r.notes.insert(
                            0,
                            format!("{} refused to pause: {msg}; no stack could be read", self.link.adapter),
                        );
                        self.ask_threads(serial, now);
                    }
                }
            }
            Step::Threads { stale: true, .. } if answer.is_ok() => {
                self.stacks_send::<Threads>((), Step::Threads { read: serial, stale: false }, now)
            }
            Step::Threads { .. } => self.stacks_threads_answered(answer, now),
            Step::Stack { index, .. } => {
                if let Some(t) = r.threads.get_mut(index) {
                    t.answer = Some(answer);
                }
                r.pending = r.pending.saturating_sub(1);
                if r.pending == 0 {
                    self.stacks_read_done(now);
                }
            }
            Step::Resume { .. } => {
                if let Err((_, msg)) = answer {
                    // The program stays paused: from now on that is a stop like any other.
                    let body = r.stop_body.take().unwrap_or(Value::Null);
                    r.notes.push(format!(
                        "{} refused to resume the program after the read ({msg}): it is stopped now, as reported",
                        self.link.adapter
                    ));
                    r.mode = Mode::WhileStopped;
                    self.on_stopped(&body, now);
                    // The frames read are this stop's: the program did not move since.
                    let revision = self.run.revision;
                    if let Some(r) = self.stacks.read.as_mut() {
                        r.revision = revision;
                    }
                } else {
                    self.resumed_after_read();
                }
                self.finish_read();
            }
            Step::LateResume => {}
        }
    }

    /// A `stacks` request that never went out: as if the adapter had refused it.
    pub(in crate::session) fn stacks_failed(&mut self, step: Step, code: ErrorCode, msg: String) {
        // Every step was sent with a clock reading, so there is one (the layer never reads the
        // clock itself); without one there is nothing to send anyway.
        match self.stacks.clock {
            Some(now) => self.stacks_answered(step, Err((code, msg)), now),
            None => log::warn!("{}: a `stacks` request failed before any was sent: {msg}", self.id),
        }
    }

    fn stacks_threads_answered(&mut self, answer: Answer, now: Instant) {
        let revision = self.run.revision;
        let Some(r) = self.stacks.read.as_mut() else { return };
        r.revision = revision;
        let list = match answer {
            Ok(body) => Threads::parse(Some(&body)).unwrap_or_default().threads.unwrap_or_default(),
            Err((_, msg)) => {
                r.notes.push(format!("{} did not list the threads: {msg}", self.link.adapter));
                Vec::new()
            }
        };
        let mut threads: Vec<Thread> = list
            .iter()
            .filter_map(|t| Some(Thread { id: t.id?, name: t.name.clone().unwrap_or_default(), answer: None }))
            .collect();
        // The agent may name these threads later (`check_thread`).
        for t in &threads {
            if !self.view.known_threads.contains(&t.id) {
                self.view.known_threads.push(t.id);
            }
        }
        if threads.len() > MAX_THREADS {
            r.unread = threads.split_off(MAX_THREADS).into_iter().map(|t| (t.id, t.name)).collect();
        }
        r.threads = threads;
        if r.mode == Mode::PauseNotTaken || r.threads.is_empty() {
            return self.finish_read();
        }
        r.phase = Phase::Stacks;
        r.pending = r.threads.len();
        let read = r.serial;
        let ids: Vec<i64> = r.threads.iter().map(|t| t.id).collect();
        for (index, thread) in ids.into_iter().enumerate() {
            let args = StackTraceArguments { thread_id: thread, start_frame: Some(0), levels: Some(MAX_LEVELS) };
            self.stacks_send::<StackTrace>(args, Step::Stack { read, index }, now);
        }
    }

    /// Every stack is in: resume a program agentdap paused, else answer.
    fn stacks_read_done(&mut self, now: Instant) {
        let Some(r) = self.stacks.read.as_mut() else { return };
        if r.mode != Mode::Paused {
            return self.finish_read();
        }
        r.phase = Phase::Resuming;
        let read = r.serial;
        let args = ContinueArguments { thread_id: r.stop_thread.unwrap_or(0), single_thread: None };
        self.stacks_send::<Continue>(args, Step::Resume { read }, now);
    }

    /// The program runs again after a read: what was read of that stop is gone (a new revision;
    /// handles of it are stale), as after any resume.
    fn resumed_after_read(&mut self) {
        self.run.revision += 1;
        self.view.handles.resumed();
        self.clear_var_caches();
        self.mirror_resumed();
    }

    /// The session leaves the table: the answer of a read still under way (`None` for a sample:
    /// its job answers the call when it ends).
    pub(in crate::session) fn stacks_end(&mut self) -> Option<(CallKey, ToolResult)> {
        let r = self.stacks.read.take().filter(|r| r.mode != Mode::Sampling)?;
        let msg = format!("{} ended before its stacks were read.", self.id);
        Some((r.call, ToolResult::error(ErrorCode::Disconnected, msg)))
    }

    /// Answers the read's call and ends the read.
    fn finish_read(&mut self) {
        let Some(r) = self.stacks.read.take() else { return };
        let call = r.call;
        let out = self.stacks_result(r);
        self.calls.done.push((call, out));
    }

    fn stacks_result(&mut self, r: Read) -> ToolResult {
        let stopped = matches!(r.mode, Mode::WhileStopped | Mode::StoppedMeanwhile);
        if stopped && self.run.revision != r.revision {
            let msg = format!("{} ran while its stacks were read (now rev {}); ask again.", self.id, self.run.revision);
            return ToolResult::error(ErrorCode::TargetInvalidated, msg);
        }
        let mut threads = Vec::new();
        for t in r.threads {
            let mut out = ThreadOut { id: Some(t.id), name: t.name, ..ThreadOut::default() };
            match t.answer {
                Some(Ok(body)) => {
                    let trace = StackTrace::parse(Some(&body)).unwrap_or_default();
                    let mut frames = trace.stack_frames;
                    frames.truncate(MAX_LEVELS as usize);
                    out.more = super::more_frames(0, MAX_LEVELS, frames.len(), trace.total_frames).is_some();
                    out.frames = self.frames_json(&frames);
                    if !stopped {
                        // The program runs again: frame ids of that moment name nothing now.
                        for f in &mut out.frames {
                            if let Some(m) = f.as_object_mut() {
                                m.remove("frame");
                            }
                        }
                    }
                }
                Some(Err((_, msg))) => out.error = Some(msg),
                None => {}
            }
            threads.push(out);
        }
        let how = match r.mode {
            Mode::WhileStopped => render::How::WhileStopped,
            Mode::StoppedMeanwhile => render::How::StoppedMeanwhile,
            Mode::Paused => render::How::PausedResumed,
            Mode::PauseNotTaken => render::How::NotRead,
            // A sample is answered by `sampled.rs`, never through here.
            Mode::Sampling => render::How::NotRead,
        };
        let report = Report {
            session: &self.id,
            revision: self.run.revision,
            state: self.run.state,
            how,
            threads,
            unread: r.unread,
            hidden: 0,
            notes: r.notes,
        };
        report.render()
    }
}
