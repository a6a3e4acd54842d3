//! Tool group "flow" (`mcp/tools/flow.rs`): `run_to`, `goto`, `restart`.
//!
//! `run_to` adds a temporary breakpoint to the file's set (DAP `setBreakpoints` replaces a
//! file's set, so it goes out with the agent's own breakpoints of that file), continues, and
//! takes it out again at the first stop — wherever that is — or when the call ends; the agent's
//! breakpoints never change. `goto` asks `gotoTargets`, then jumps with `goto` and waits for the
//! stop like a step.
//!
//! `restart` is DAP `restart` when the adapter advertises `supportsRestartRequest` (the launch
//! arguments re-sent as its `arguments`), else a relaunch — the same plan, configuration and
//! breakpoints, a new adapter process started once the old one is gone. The session keeps its
//! id, output (the new run's follows the old run's; cursors keep counting), breakpoints,
//! exception filters, watches and DAP log. Its revision moves on, so every frame id and variable
//! ref from before is refused with `target_invalidated`. Its mirror closes (§7) and its child
//! sessions end with the old run.
//!
//! Must not: touch IO (the relaunch goes through [`Action::Replace`]).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::gates::Gate;
use super::{add_note, session, stopped, Answer, Started};
use crate::dap::client::DapClient;
use crate::session::breakpoints::SourceBreakpoint;
use crate::session::files::Files;
use crate::session::snapshot::RunState;
use crate::session::text::short;
use crate::session::waiters::{wait_duration, Until, Waiter};
use crate::session::{Action, CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, Startup, ToolResult};

/// What a flow request is doing; carried in [`Origin::Flow`].
#[derive(Debug)]
pub enum Op {
    /// `run_to`'s temporary breakpoint going in, or coming out again.
    RunTo(Step),
    /// `goto`'s `gotoTargets`; the jump follows.
    GotoTargets(GotoJob),
    /// DAP `restart`: the adapter restarts the program itself.
    Restart { call: CallKey, wait: Duration },
}

/// A session's state for these tools.
#[derive(Debug, Default)]
pub struct State {
    /// The last `run_to`: kept until its call is answered and its breakpoint is out again.
    run_to: Option<RunTo>,
    /// A relaunch is under way: the old adapter is being stopped; the new one starts once it is
    /// gone ([`Sessions::on_adapter_replaced`]).
    relaunch_pending: bool,
    /// The adapter refused DAP `restart`: relaunch instead, for this call (taken at the end of
    /// the current `pump`, outside the loop that delivered the refusal).
    relaunch_due: Option<(CallKey, Duration)>,
    /// The `restart` call being answered and how it restarts (`adapter` or `relaunch`).
    restart_call: Option<(CallKey, &'static str)>,
}

/// The result's verb while it runs to the line ("… (run_to; still running when the wait ended …").
const VERB: &str = "run_to";
/// The result's verb of a restart.
const RESTART_VERB: &str = "restarted";

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

/// Why a session standing in for a hidden launcher (`session::launcher`, js-debug) has no
/// `restart`.
pub(in crate::session) const STAND_IN_RESTART: &str = "restart is not offered for this adapter: its program runs in a child connection that a restart would replace; `disconnect` and `launch` again.";

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
    ) -> Started {
        session(&mut self.slab, key)?.require_live("run_to")?;
        let s = stopped(&mut self.slab, key)?;
        let Some(thread) = s.thread_for(None) else {
            let msg = "no thread known to resume; call `threads`, then `threads {select: id}`.";
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
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
        if !own && s.link.plan.quirks.breakpoints_only_added {
            let msg = format!(
                "{} never removes a breakpoint it was given, so run_to's temporary one would keep stopping at line {line}; set a breakpoint there with set_breakpoints (it stays for the whole run) and `continue`.",
                s.link.adapter
            );
            return Err(ToolResult::error(ErrorCode::Unsupported, msg));
        }
        // A conditional breakpoint (or log point) of the agent's on that very line may not stop:
        // the temporary one takes its place in the request until it goes out again.
        let conditional = set.iter().position(|e| e.requested.line == line);
        if own {
            // The agent's own breakpoint already stops there: nothing temporary to add.
            s.flow.run_to =
                Some(RunTo { call, path, line, bound_line: line, id: None, armed: false, overridden: false });
            s.resume_with("continue", json!({ "threadId": thread }), call, wait, VERB, now);
        } else {
            let sent: Vec<SourceBreakpoint> = set.iter().map(|e| e.requested.clone()).collect();
            let mut args = s.breakpoint_arguments(&path);
            // Past the whole list sent (the agent's set and the person's: the union), unless it
            // takes the place of the agent's conditional one.
            let temp = conditional.unwrap_or_else(|| args["breakpoints"].as_array().map_or(0, Vec::len));
            if let Some(list) = args["breakpoints"].as_array_mut() {
                match list.get_mut(temp) {
                    Some(entry) => *entry = json!({ "line": line }),
                    None => list.push(json!({ "line": line })),
                }
            }
            let revision = s.run.revision;
            let step = Step::Arm { call, path, line, temp, thread, wait, revision, sent };
            s.send("setBreakpoints", Some(args), Origin::Flow(Op::RunTo(step)), now);
        }
        self.after(key, now);
        Ok(())
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
    ) -> Started {
        session(&mut self.slab, key)?.require_live("goto")?;
        let s = stopped(&mut self.slab, key)?;
        s.require(Gate::Goto)?;
        // A jump stays in the stopped frame's file (debugpy ignores the path and jumps to the
        // line in the current file); another file is refused before anything is sent.
        let here = s.run.stop.as_ref().and_then(|st| st.location.as_ref()).and_then(|l| l.path.clone());
        if let Some(here) = here.filter(|h| !same_file(&*s.link.files, h, &path)) {
            let msg = format!(
                "goto jumps within the stopped frame's file ({here}), not to {path}; use run_to to go elsewhere."
            );
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let thread = self.thread_arg(key, thread)?;
        let s = session(&mut self.slab, key)?;
        // The file as the adapter knows it (a symlinked spelling learned by set_breakpoints).
        let source = s.breakpoint_arguments(&path)["source"].clone();
        let args = json!({ "source": source, "line": line });
        let job = GotoJob { call, thread, line, wait: wait_duration(wait_ms), revision: s.run.revision };
        s.send("gotoTargets", Some(args), Origin::Flow(Op::GotoTargets(job)), now);
        self.after(key, now);
        Ok(())
    }

    /// `restart`: answered at the new run's first stop, its exit, or after `wait_ms`.
    pub fn restart(&mut self, key: SessionKey, wait_ms: Option<u64>, call: CallKey, now: Instant) -> Started {
        let Some(s) = self.slab.get(key) else {
            return Err(super::gone());
        };
        s.require_live("restart")?;
        let refusal = if s.family.stands_in {
            Some((ErrorCode::Unsupported, format!("{}: {STAND_IN_RESTART}", s.id)))
        } else if let Some((_, parent)) = &s.family.parent {
            Some((
                ErrorCode::Unsupported,
                format!("{} is a child session of {parent}; restart {parent} instead.", s.id),
            ))
        } else if s.link.disconnected {
            Some((ErrorCode::InvalidArgument, format!("{} was disconnected; `launch` the program again.", s.id)))
        } else if s.flow.relaunch_pending
            || s.flow.restart_call.is_some_and(|(c, _)| s.calls.waiters.iter().any(|w| w.call == c))
        {
            Some((ErrorCode::InvalidArgument, format!("a restart of {} is under way; call `wait`.", s.id)))
        } else {
            None
        };
        if let Some((code, msg)) = refusal {
            return Err(ToolResult::error(code, msg));
        }
        let in_adapter = s.link.client.capabilities().is_some_and(|c| c.supports_restart_request)
            && s.link.is_alive()
            && !s.link.is_closing()
            && matches!(s.run.state, RunState::Stopped | RunState::Running);
        if !in_adapter && s.link.plan.request != "launch" {
            let msg = format!(
                "{} is attached to a program agentdap did not start, and its adapter cannot restart it (no supportsRestartRequest); disconnect and attach again.",
                s.id
            );
            return Err(ToolResult::error(ErrorCode::Unsupported, msg));
        }
        let owns = s.family.owns_debuggee;
        // The mirror closes (SECURITY.md § The IDE mirror); an IDE attaches again to the new run.
        self.request_unexpose(key);
        // Child sessions belong to the old run.
        for child in self.children_of(key) {
            if let Some(c) = self.slab.get_mut(child) {
                c.link.disconnected = true;
                if !c.link.is_alive() {
                    self.actions.push_back(Action::Release { session: child });
                    continue;
                }
            }
            self.end_child(child, owns, now);
        }
        self.latest = Some(key);
        let wait = wait_duration(wait_ms);
        let s = session(&mut self.slab, key)?;
        if in_adapter {
            s.restart_in_adapter(call, wait, now);
            s.pump(now, &mut self.actions);
        } else {
            // Breakpoints set since the program ended wait for "the next launch": this one.
            s.breaks.store.take_over(std::mem::take(&mut self.pending_breakpoints));
            s.begin_relaunch(call, wait, now, &mut self.actions);
        }
        Ok(())
    }

    /// `restart {frame}`: DAP `restartFrame` (DAP § Requests › RestartFrame, when
    /// `supportsRestartFrame`): the frame runs again from its start; answered at the stop that
    /// follows, like a step (the revision moves on).
    pub fn restart_frame(
        &mut self,
        key: SessionKey,
        frame: i64,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        session(&mut self.slab, key)?.require_live("restart {frame}")?;
        stopped(&mut self.slab, key)?.require(Gate::RestartFrame)?;
        let frame_id = self.handle_arg(key, crate::session::handles::Kind::Frame, frame)?;
        let s = session(&mut self.slab, key)?;
        let args = json!({ "frameId": frame_id });
        s.resume_with("restartFrame", args, call, wait_duration(wait_ms), "restarted frame", now);
        self.after(key, now);
        Ok(())
    }

    /// The old adapter of a relaunching session is gone (the IO shell carried out
    /// [`Action::Replace`]): a fresh DAP client, and the new adapter is started. Ignored unless
    /// `key` is still that session (`id`) and it still waits for this.
    pub fn on_adapter_replaced(&mut self, key: SessionKey, id: &str, now: Instant) {
        let timeout = self.request_timeout;
        let Some(s) = self.slab.get_mut(key).filter(|s| s.id == id && s.flow.relaunch_pending) else { return };
        s.flow.relaunch_pending = false;
        s.link.client = DapClient::new(crate::session::client_config(&s.id, &s.link.plan.name, timeout));
        let action = match s.link.plan.connect {
            Some(addr) => Action::Connect { session: key, addr },
            None => Action::Spawn {
                session: key,
                command: s.link.plan.command.clone(),
                transport: s.link.plan.transport.clone(),
            },
        };
        log::info!("{}: relaunching", s.id);
        self.actions.push_back(action);
        s.pump(now, &mut self.actions);
    }
}

impl Session {
    /// The answer to one of these tools' requests.
    pub(in crate::session) fn flow_answered(&mut self, op: Op, answer: Answer, now: Instant) {
        match op {
            Op::RunTo(step) => self.run_to_answered(step, answer, now),
            Op::GotoTargets(job) => self.goto_targets_answered(job, answer, now),
            Op::Restart { call, wait } => self.restart_answered(call, wait, answer),
        }
    }

    /// A request that never went out (the connection is closed, or the adapter is not keeping
    /// up): its call is answered with why.
    pub(in crate::session) fn flow_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        let call = match op {
            Op::RunTo(Step::Arm { call, .. }) => Some(call),
            Op::GotoTargets(job) => Some(job.call),
            Op::Restart { call, .. } => {
                self.calls.waiters.retain(|w| w.call != call);
                Some(call)
            }
            Op::RunTo(Step::Disarm { .. }) => None,
        };
        if let Some(call) = call {
            self.calls.done.push((call, ToolResult::error(code, msg)));
        }
    }

    /// After every turn of the session: a `run_to` whose stop came (or whose call ended) takes
    /// its temporary breakpoint out; a refused DAP `restart` becomes a relaunch.
    pub(in crate::session) fn flow_settle(&mut self, now: Instant, actions: &mut VecDeque<Action>) {
        self.run_to_settle(now);
        if let Some((call, wait)) = self.flow.relaunch_due.take() {
            self.begin_relaunch(call, wait, now, actions);
        }
    }

    /// Adds what `run_to` and `restart` have to say to the result of their call.
    pub(in crate::session) fn flow_annotate(&mut self, call: CallKey, out: &mut ToolResult) {
        if let Some((c, how)) = self.flow.restart_call {
            if c == call {
                self.flow.restart_call = None;
                out.structured["restart"] = how.into();
                let note = match how {
                    "adapter" => "(restarted by the adapter)",
                    _ => "(relaunched: a new adapter and program; the old ones are gone)",
                };
                add_note(out, note);
            }
        }
        self.run_to_annotate(call, out);
    }

    fn run_to_answered(&mut self, step: Step, answer: Answer, now: Instant) {
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
                // The agent's conditional breakpoint the temporary one stands in for holds no
                // breakpoint of the adapter's until the file is sent again: the answer at its
                // place is the temporary one's, and a stop there is not its hit (a breaker's
                // `if i == 3` was credited at i == 1).
                let stood_in =
                    (temp < sent.len()).then(|| self.breaks.store.get(&path).get(temp).map(|e| e.bound.clone()));
                self.record_file_answer(&path, &sent, &body);
                if let Some(Some(before)) = stood_in {
                    let held = before.map(|b| crate::session::breakpoints::Bound { id: None, ..b });
                    self.breaks.store.set_bound(&path, temp, held);
                }
                let index = temp;
                let temp = body.get("breakpoints").and_then(Value::as_array).and_then(|l| l.get(index));
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
                let ids = crate::session::breakpoints::answer_ids(&body);
                let id = crate::session::breakpoints::distinct_id(&ids, index);
                self.flow.run_to = Some(RunTo { call, path, line, bound_line, id, armed: true, overridden: false });
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
        // The whole answer: the entries take theirs by position (the temporary breakpoint's, past
        // them, is read by none), and an id it shares with theirs names neither
        // (`breakpoints::distinct_id`).
        self.breaks.store.on_response(path, Ok(body));
    }

    /// Sends the file's own set again (the temporary breakpoint out).
    fn disarm(&mut self, path: &str, now: Instant) {
        if self.run.state.is_over() || !self.link.is_alive() || self.link.is_closing() {
            return;
        }
        let sent: Vec<SourceBreakpoint> = self.breaks.store.get(path).iter().map(|e| e.requested.clone()).collect();
        let args = self.breakpoint_arguments(path);
        let step = Step::Disarm { path: path.to_owned(), sent };
        self.send("setBreakpoints", Some(args), Origin::Flow(Op::RunTo(step)), now);
    }

    /// Takes the temporary breakpoint out once the session stopped (anywhere) or ended, or once
    /// the call is no longer waiting (its wait ran out, or it was cancelled); forgets the
    /// `run_to` once its call was answered.
    fn run_to_settle(&mut self, now: Instant) {
        let Some(rt) = &self.flow.run_to else { return };
        let waiting = self.calls.waiters.iter().any(|w| w.call == rt.call);
        if rt.armed && (self.run.state != RunState::Running || !waiting) {
            let path = rt.path.clone();
            if let Some(rt) = &mut self.flow.run_to {
                rt.armed = false;
            }
            self.disarm(&path, now);
        }
        if !waiting {
            self.flow.run_to = None;
        }
    }

    /// Says in `run_to`'s result whether it got there, and if not, why.
    fn run_to_annotate(&mut self, call: CallKey, out: &mut ToolResult) {
        let Some(rt) = self.flow.run_to.as_ref().filter(|rt| rt.call == call) else { return };
        let target = format!("{}:{}", short(&rt.path), rt.bound_line);
        let stop = self.run.stop.as_ref().filter(|_| self.run.state == RunState::Stopped);
        let reached = stop.is_some_and(|st| {
            let by_id = rt.id.is_some_and(|id| st.adapter_hits.contains(&id));
            let at = st.location.as_ref().is_some_and(|l| {
                l.line == Some(u64::from(rt.bound_line))
                    && l.path.as_deref().is_some_and(|p| same_file(&*self.link.files, p, &rt.path))
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
            add_note(out, &text);
        }
        out.structured["run_to"] =
            json!({ "path": rt.path, "line": rt.line, "actual_line": rt.bound_line, "reached": reached });
    }

    /// `set_breakpoints` replaced `path`'s set in the adapter: a `run_to` armed there lost its
    /// temporary breakpoint.
    pub(in crate::session) fn run_to_overridden(&mut self, path: &str) {
        if let Some(rt) =
            self.flow.run_to.as_mut().filter(|rt| rt.armed && same_file(&*self.link.files, &rt.path, path))
        {
            rt.overridden = true;
        }
    }

    fn goto_targets_answered(&mut self, job: GotoJob, answer: Answer, now: Instant) {
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

    /// DAP `restart` with the launch arguments (DAP § Requests: Restart). The adapter keeps its
    /// breakpoints; "stop on entry" sets the temporary entry breakpoint again first.
    fn restart_in_adapter(&mut self, call: CallKey, wait: Duration, now: Instant) {
        self.rearm_entry_breakpoint(now);
        self.drop_for_restart(true, now);
        self.breaks.store.new_run();
        self.stops.forget();
        if self.run.state == RunState::Running {
            // A restart is a new run even when the program was running: the revision moves on.
            self.run.revision += 1;
        }
        self.mark_running();
        self.run.exit_code = None;
        self.run.stop_signal = None;
        self.run.killed_by = None;
        // No step of the old run is left to finish.
        self.run.unfinished_step = None;
        self.flow.restart_call = Some((call, "adapter"));
        self.push_restart_waiter(call, wait, now);
        let args = json!({ "arguments": self.link.plan.launch_arguments });
        self.send("restart", Some(args), Origin::Flow(Op::Restart { call, wait }), now);
    }

    fn push_restart_waiter(&mut self, call: CallKey, wait: Duration, now: Instant) {
        let mut w = Waiter::new(call, now, wait, RESTART_VERB, Until::Stop, self.run.revision);
        w.locals = self.calls.locals;
        w.output_cursor = Some(self.output.cursor());
        self.calls.waiters.push(w);
    }

    /// The answer to DAP `restart`: nothing to do when it succeeded (the stop or the exit ends
    /// the wait); a refusal (or no answer) relaunches a launched program instead.
    fn restart_answered(&mut self, call: CallKey, wait: Duration, answer: Answer) {
        let Err((code, msg)) = answer else { return };
        self.calls.waiters.retain(|w| w.call != call);
        self.flow.restart_call = None;
        if self.link.plan.request == "launch" {
            self.calls
                .warnings
                .push(format!("the adapter's restart failed ({msg}); agentdap relaunched the program instead"));
            self.flow.relaunch_due = Some((call, wait));
        } else {
            self.calls.done.push((call, ToolResult::error(code, msg)));
        }
    }

    /// Starts a relaunch: the old run's pending requests fail now (their calls hear why),
    /// the session goes back to `starting` with its breakpoints as requested, and the IO shell
    /// replaces the adapter ([`Action::Replace`]); [`Sessions::on_adapter_replaced`] follows.
    fn begin_relaunch(&mut self, call: CallKey, wait: Duration, now: Instant, actions: &mut VecDeque<Action>) {
        self.link.client.on_closed("");
        self.pump(now, actions);
        // Every handle of the old run goes stale.
        self.run.revision += 1;
        self.view.handles.resumed();
        self.clear_var_caches();
        self.run.state = RunState::Starting;
        self.run.stop = None;
        self.run.details_reset();
        self.run.exit_code = None;
        self.run.stop_signal = None;
        self.run.killed_by = None;
        self.startup = Startup::default();
        self.link.relaunched();
        self.run.failure = None;
        self.run.ended_by_agentdap = false;
        self.run.unfinished_step = None;
        // A new adapter process holds only what this run sends it (rdbg's kept lines die with
        // the old one: `Quirks::breakpoints_only_added`).
        self.breaks.kept_by_adapter.clear();
        self.breaks.sent_to_adapter.clear();
        self.run.top_frame = None;
        self.run.resume_unacked = false;
        self.breaks.entry_breakpoint = false;
        self.run.awaiting_exit_report = false;
        self.family.debuggee_pid = None;
        self.view.known_threads.clear();
        self.host.forget_terminal();
        self.view.focus_thread = None;
        self.family.child_stops.clear();
        // The new adapter verifies them afresh; watches of the old run's memory are dropped.
        self.drop_for_restart(false, now);
        self.stops.forget();
        self.flow.run_to = None;
        self.flow.relaunch_pending = true;
        self.flow.restart_call = Some((call, "relaunch"));
        self.push_restart_waiter(call, wait, now);
        actions.push_back(Action::Replace { session: self.key, id: self.id.clone() });
        self.pump(now, actions);
    }
}

/// Whether two spellings name the same file (equal, or the same after resolving symlinks).
fn same_file(files: &dyn Files, a: &str, b: &str) -> bool {
    a == b || matches!((files.canonicalize(a.as_ref()), files.canonicalize(b.as_ref())), (Some(x), Some(y)) if x == y)
}
