//! `run_to` and `goto` (DESIGN §4). `run_to` adds a temporary breakpoint to the file's set
//! (DAP `setBreakpoints` replaces a file's set, so it goes out with the agent's own breakpoints
//! of that file), continues, and takes it out again at the first stop — wherever that is — or
//! when the call ends; the agent's breakpoints never change. `goto` asks `gotoTargets`, then
//! jumps with `goto` and waits for the stop like a step. Sans-IO.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::breakpoints::SourceBreakpoint;
use super::ctl::{Answer, Op};
use super::events::{short, wait_duration};
use super::snapshot::RunState;
use super::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// The result's verb while it runs to the line ("… (run_to; still running when the wait ended …").
const VERB: &str = "run_to";

/// A `run_to` under way: its temporary breakpoint and what the result says about it.
#[derive(Debug)]
pub struct RunTo {
    call: CallKey,
    path: String,
    line: u32,
    /// Where the adapter bound the temporary breakpoint (it may move it off a line without code).
    bound_line: u32,
    /// The temporary breakpoint's id, as the adapter numbered it.
    id: Option<i64>,
    /// The temporary breakpoint is in the adapter's set (not taken out yet). False when the line
    /// already had one of the agent's breakpoints: nothing temporary was added.
    armed: bool,
    /// The agent set the same file's breakpoints while it ran: that request replaced the set
    /// without the temporary breakpoint, so the program may have run past the line.
    overridden: bool,
}

/// A `run_to` request in flight.
#[derive(Debug)]
pub enum Step {
    /// The file's set with the temporary breakpoint at `line` (at index `temp`: after the
    /// agent's, or in place of the agent's conditional one on that line); `sent` is the agent's
    /// set.
    Arm {
        call: CallKey,
        path: String,
        line: u32,
        temp: usize,
        thread: i64,
        wait: Duration,
        revision: u64,
        sent: Vec<SourceBreakpoint>,
    },
    /// The file's set alone again.
    Disarm { path: String, sent: Vec<SourceBreakpoint> },
}

/// A `goto` whose `gotoTargets` is in flight.
#[derive(Debug)]
pub struct GotoJob {
    pub call: CallKey,
    thread: i64,
    line: u32,
    wait: Duration,
    revision: u64,
}

impl Sessions {
    /// `run_to`: runs the stopped session to `path:line` (absolute path) through a temporary
    /// breakpoint; answered like `continue`. A line the adapter cannot bind is refused with
    /// `invalid_argument` before the program runs.
    pub fn run_to(
        &mut self,
        key: SessionKey,
        path: String,
        line: u32,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) {
        let Some(s) = self.stopped(key, call) else { return };
        let Some(thread) = s.thread_for(None) else {
            let msg = "no thread known to resume; call `threads`, then `select_thread`.";
            return self.complete(call, ToolResult::error(ErrorCode::InvalidArgument, msg));
        };
        let wait = wait_duration(wait_ms);
        let set = s.breaks.store.get(&path);
        let plain =
            |b: &SourceBreakpoint| b.condition.is_none() && b.hit_condition.is_none() && b.log_message.is_none();
        let own = set.iter().any(|e| {
            let there =
                e.requested.line == line || e.bound.as_ref().is_some_and(|b| b.verified && b.line == Some(line));
            there && plain(&e.requested)
        });
        // A conditional breakpoint (or log point) of the agent's on that very line may not stop:
        // the temporary one takes its place in the request until it goes out again.
        let conditional = set.iter().position(|e| e.requested.line == line);
        if own {
            // The agent's own breakpoint already stops there: nothing temporary to add.
            s.ctl.run_to =
                Some(RunTo { call, path, line, bound_line: line, id: None, armed: false, overridden: false });
            s.resume_with("continue", json!({ "threadId": thread }), call, wait, VERB, now);
        } else {
            let sent: Vec<SourceBreakpoint> = set.iter().map(|e| e.requested.clone()).collect();
            let mut args = s.breakpoint_arguments(&path);
            let temp = conditional.unwrap_or(sent.len());
            if let Some(list) = args["breakpoints"].as_array_mut() {
                match list.get_mut(temp) {
                    Some(entry) => *entry = json!({ "line": line }),
                    None => list.push(json!({ "line": line })),
                }
            }
            let revision = s.run.revision;
            let step = Step::Arm { call, path, line, temp, thread, wait, revision, sent };
            s.send("setBreakpoints", Some(args), Origin::Ctl(Op::RunTo(step)), now);
        }
        self.after(key, now);
    }

    /// `goto`: moves the stopped thread to `path:line` (DAP `gotoTargets`, then `goto`) and
    /// waits for the stop like a step (the revision moves on).
    #[allow(clippy::too_many_arguments)]
    pub fn goto(
        &mut self,
        key: SessionKey,
        path: String,
        line: u32,
        thread: Option<i64>,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) {
        let Some(s) = self.stopped(key, call) else { return };
        if !s.link.client.capabilities().is_some_and(|c| c.supports_goto_targets_request) {
            let msg = format!(
                "{} cannot jump (the adapter lacks supportsGotoTargetsRequest); use run_to, or restart the program.",
                s.link.adapter
            );
            return self.complete(call, ToolResult::error(ErrorCode::Unsupported, msg));
        }
        // A jump stays in the stopped frame's file (debugpy ignores the path and jumps to the
        // line in the current file); another file is refused before anything is sent.
        let here = s.run.stop.as_ref().and_then(|st| st.location.as_ref()).and_then(|l| l.path.clone());
        if let Some(here) = here.filter(|h| !same_file(h, &path)) {
            let msg = format!(
                "goto jumps within the stopped frame's file ({here}), not to {path}; use run_to to go elsewhere."
            );
            return self.complete(call, ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let Some(thread) = self.thread_arg(key, thread, call) else { return };
        let Some(s) = self.slab.get_mut(key) else { return };
        // The file as the adapter knows it (a symlinked spelling learned by set_breakpoints).
        let source = s.breakpoint_arguments(&path)["source"].clone();
        let args = json!({ "source": source, "line": line });
        let job = GotoJob { call, thread, line, wait: wait_duration(wait_ms), revision: s.run.revision };
        s.send("gotoTargets", Some(args), Origin::Ctl(Op::GotoTargets(job)), now);
        self.after(key, now);
    }
}

impl Session {
    pub(super) fn run_to_answered(&mut self, step: Step, answer: Answer, now: Instant) {
        match step {
            Step::Disarm { path, sent } => match answer {
                Ok(body) => self.record_file_answer(&path, &sent, &body),
                Err((_, msg)) => log::warn!("{}: taking run_to's breakpoint out failed: {msg}", self.id),
            },
            Step::Arm { call, path, line, temp, thread, wait, revision, sent } => {
                let body = match answer {
                    Ok(body) => body,
                    Err((code, msg)) => {
                        self.disarm(&path, now);
                        return self.calls.done.push((call, ToolResult::error(code, msg)));
                    }
                };
                self.record_file_answer(&path, &sent, &body);
                let temp = body.get("breakpoints").and_then(Value::as_array).and_then(|l| l.get(temp));
                let verified = temp.and_then(|t| t.get("verified")).and_then(Value::as_bool) == Some(true);
                if !verified {
                    self.disarm(&path, now);
                    let why = temp
                        .and_then(|t| t.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("the adapter did not verify a breakpoint there");
                    let msg = format!(
                        "{}:{line} cannot take a breakpoint ({why}); pick a line with code (see `source`). The program did not run.",
                        short(&path)
                    );
                    return self.calls.done.push((call, ToolResult::error(ErrorCode::InvalidArgument, msg)));
                }
                if self.run.state != RunState::Stopped || self.run.revision != revision {
                    self.disarm(&path, now);
                    let msg =
                        format!("{} ran while run_to set its breakpoint; call `wait`, then run_to again.", self.id);
                    return self.calls.done.push((call, ToolResult::error(ErrorCode::NotStopped, msg)));
                }
                let bound_line = temp
                    .and_then(|t| t.get("line"))
                    .and_then(Value::as_u64)
                    .and_then(|l| u32::try_from(l).ok())
                    .unwrap_or(line);
                let id = temp.and_then(|t| t.get("id")).and_then(Value::as_i64);
                self.ctl.run_to = Some(RunTo { call, path, line, bound_line, id, armed: true, overridden: false });
                self.resume_with("continue", json!({ "threadId": thread }), call, wait, VERB, now);
            }
        }
    }

    /// Records the adapter's answers for the agent's breakpoints of `path` (the first
    /// `sent.len()` of the response), unless the file's set changed since the request went out.
    fn record_file_answer(&mut self, path: &str, sent: &[SourceBreakpoint], body: &Value) {
        let now_set: Vec<&SourceBreakpoint> = self.breaks.store.get(path).iter().map(|e| &e.requested).collect();
        if now_set.len() != sent.len() || now_set.iter().zip(sent).any(|(a, b)| *a != b) {
            return;
        }
        let answers: Vec<Value> = body
            .get("breakpoints")
            .and_then(Value::as_array)
            .map_or(Vec::new(), |l| l.iter().take(sent.len()).cloned().collect());
        self.breaks.store.on_response(path, Ok(&json!({ "breakpoints": answers })));
    }

    /// Sends the file's own set again (the temporary breakpoint out).
    fn disarm(&mut self, path: &str, now: Instant) {
        if self.run.state.is_over() || !self.link.adapter_alive || self.link.closing {
            return;
        }
        let sent: Vec<SourceBreakpoint> = self.breaks.store.get(path).iter().map(|e| e.requested.clone()).collect();
        let args = self.breakpoint_arguments(path);
        let step = Step::Disarm { path: path.to_owned(), sent };
        self.send("setBreakpoints", Some(args), Origin::Ctl(Op::RunTo(step)), now);
    }

    /// Takes the temporary breakpoint out once the session stopped (anywhere) or ended, or once
    /// the call is no longer waiting (its wait ran out, or it was cancelled); forgets the
    /// `run_to` once its call was answered.
    pub(super) fn run_to_settle(&mut self, now: Instant) {
        let Some(rt) = &self.ctl.run_to else { return };
        let waiting = self.calls.waiters.iter().any(|w| w.call == rt.call);
        if rt.armed && (self.run.state != RunState::Running || !waiting) {
            let path = rt.path.clone();
            if let Some(rt) = &mut self.ctl.run_to {
                rt.armed = false;
            }
            self.disarm(&path, now);
        }
        if !waiting {
            self.ctl.run_to = None;
        }
    }

    /// Says in `run_to`'s result whether it got there, and if not, why.
    pub(super) fn run_to_annotate(&mut self, call: CallKey, out: &mut ToolResult) {
        let Some(rt) = self.ctl.run_to.as_ref().filter(|rt| rt.call == call) else { return };
        let target = format!("{}:{}", short(&rt.path), rt.bound_line);
        let stop = self.run.stop.as_ref().filter(|_| self.run.state == RunState::Stopped);
        let reached = stop.is_some_and(|st| {
            let by_id = rt.id.is_some_and(|id| st.adapter_hits.contains(&id));
            let at = st.location.as_ref().is_some_and(|l| {
                l.line == Some(u64::from(rt.bound_line)) && l.path.as_deref().is_some_and(|p| same_file(p, &rt.path))
            });
            by_id || at
        });
        let note = match self.run.state {
            _ if reached => String::new(),
            RunState::Stopped if rt.overridden => format!(
                "run_to: set_breakpoints on {} while it ran replaced the temporary breakpoint, so the program may have run past {target}",
                short(&rt.path)
            ),
            RunState::Stopped => format!(
                "run_to: stopped before reaching {target}; the temporary breakpoint is out again (call run_to again to go on)"
            ),
            RunState::Running | RunState::Starting => {
                format!("run_to: {target} not reached yet; the temporary breakpoint is out again (call `wait` or `pause`)")
            }
            RunState::Exited | RunState::Terminated => format!("run_to: the program ended before reaching {target}"),
        };
        let mut text = note;
        if rt.bound_line != rt.line {
            let moved =
                format!("line {} has no code; the adapter put the breakpoint on line {}", rt.line, rt.bound_line);
            text = if text.is_empty() { moved } else { format!("{moved}\n{text}") };
        }
        if !text.is_empty() {
            super::ctl::add_note(out, &text);
        }
        out.structured["run_to"] =
            json!({ "path": rt.path, "line": rt.line, "actual_line": rt.bound_line, "reached": reached });
    }

    /// `set_breakpoints` replaced `path`'s set in the adapter: a `run_to` armed there lost its
    /// temporary breakpoint.
    pub(super) fn run_to_overridden(&mut self, path: &str) {
        if let Some(rt) = self.ctl.run_to.as_mut().filter(|rt| rt.armed && same_file(&rt.path, path)) {
            rt.overridden = true;
        }
    }

    pub(super) fn goto_targets_answered(&mut self, job: GotoJob, answer: Answer, now: Instant) {
        let body = match answer {
            Ok(b) => b,
            Err((code, msg)) => return self.calls.done.push((job.call, ToolResult::error(code, msg))),
        };
        let targets = body.get("targets").and_then(Value::as_array).cloned().unwrap_or_default();
        let chosen = targets
            .iter()
            .find(|t| t.get("line").and_then(Value::as_u64) == Some(u64::from(job.line)))
            .or_else(|| targets.first())
            .and_then(|t| t.get("id").and_then(Value::as_i64));
        let Some(target) = chosen else {
            let msg = format!(
                "the adapter offers no goto target at line {} (no code there, or outside the current function).",
                job.line
            );
            return self.calls.done.push((job.call, ToolResult::error(ErrorCode::InvalidArgument, msg)));
        };
        if self.run.state != RunState::Stopped || self.run.revision != job.revision {
            let msg = format!("{} ran while goto asked for its targets; call `wait`, then goto again.", self.id);
            return self.calls.done.push((job.call, ToolResult::error(ErrorCode::NotStopped, msg)));
        }
        let args = json!({ "threadId": job.thread, "targetId": target });
        self.resume_with("goto", args, job.call, job.wait, "jumped", now);
    }
}

/// Whether two spellings name the same file (equal, or the same after resolving symlinks).
fn same_file(a: &str, b: &str) -> bool {
    a == b || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}
