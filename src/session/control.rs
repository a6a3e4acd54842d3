//! Execution control and waits (DESIGN §4–§5): `step`, `pause`, `wait`, the waiters behind every
//! call that waits for the program, their progress notifications and cancellation; plus the
//! session-table entry points of the inspection tools.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::inspect::{ContextJob, Op, Page, Target, VarQuery, DEFAULT_PAGE};
use super::snapshot::RunState;
use super::{Action, CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};
use crate::session::handles::Kind;

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
    pub(super) fn satisfies(&self, w: &Waiter) -> bool {
        // A host request waiting for `resolve_host_request` ends every wait (with that news).
        if self.run.state.is_over() || self.host.has_pending() {
            return true;
        }
        let stopped = self.run.state == RunState::Stopped && self.run.stop_ready && self.run.revision > w.since;
        // A child session's stop ends the parent's waits for a stop: the agent waiting on the
        // parent hears of it (the result names the child).
        let child_stopped = !self.family.child_stops.is_empty();
        match w.until {
            Until::Stop => stopped || child_stopped,
            Until::Exit => false,
            // An unfinished line (a prompt) is output too: the result makes it an entry.
            Until::Output => {
                stopped
                    || child_stopped
                    || self.output.has_partial()
                    || w.output_cursor.is_some_and(|c| self.output.cursor() > c)
            }
            Until::Attached => stopped || child_stopped || self.run.state == RunState::Running,
        }
    }

    /// The result for a finished wait; `satisfied` false means the wait ran out first.
    pub(super) fn wait_result(&mut self, w: &Waiter, satisfied: bool) -> ToolResult {
        if let Some(pending) = self.host_pending_result() {
            return pending;
        }
        let mut out = self.result(w.verb, !satisfied);
        self.ctl_annotate(w.call, &mut out);
        if w.verb == "waited" {
            out.structured["satisfied"] = satisfied.into();
            if !satisfied {
                out.text.push_str(&format!("\n(wait_ms ran out before the {} came)", until_name(w.until)));
            }
        }
        out
    }

    /// Answers waits whose deadline passed; sends progress for the others.
    pub(super) fn tick_waiters(&mut self, now: Instant, actions: &mut VecDeque<Action>) {
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
        self.ctl_settle(now, actions);
    }

    /// Resumes the stopped session with `command` (`continue`, `next`, `stepIn`, `stepOut`,
    /// `stepBack`) and waits for the next stop or the exit.
    pub(super) fn resume_with(
        &mut self,
        command: &str,
        args: Value,
        call: CallKey,
        wait: Duration,
        verb: &'static str,
        now: Instant,
    ) {
        let since = self.run.revision + 1;
        self.mark_running();
        self.run.resume_unacked = true;
        let mut w = Waiter::new(call, now, wait, verb, Until::Stop, since - 1);
        w.output_cursor = Some(self.output.cursor());
        self.calls.waiters.push(w);
        self.send(command, Some(args), Origin::Resume { call }, now);
    }
}

fn until_name(u: Until) -> &'static str {
    match u {
        Until::Stop => "next stop",
        Until::Exit => "exit",
        Until::Output => "next output",
        Until::Attached => "attach",
    }
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

    fn command(self) -> &'static str {
        match self {
            StepKind::Over => "next",
            StepKind::In => "stepIn",
            StepKind::Out => "stepOut",
            StepKind::Back => "stepBack",
        }
    }
}

impl Sessions {
    pub(super) fn complete(&mut self, call: CallKey, output: ToolResult) {
        self.actions.push_back(Action::Complete { call, output });
    }

    /// Runs `f` on a stopped session, or answers `not_stopped` at once.
    pub(super) fn stopped(&mut self, key: SessionKey, call: CallKey) -> Option<&mut Session> {
        let check = self.slab.get(key).map(|s| s.require_stopped());
        match check {
            Some(Ok(())) => self.slab.get_mut(key),
            Some(Err(e)) => {
                self.complete(call, e);
                None
            }
            None => {
                self.complete(call, ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."));
                None
            }
        }
    }

    pub(super) fn after(&mut self, key: SessionKey, now: Instant) {
        if let Some(s) = self.slab.get_mut(key) {
            s.pump(now, &mut self.actions);
        }
    }

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
    ) {
        let Some(s) = self.stopped(key, call) else { return };
        if let Err(e) = s.check_thread(thread) {
            return self.complete(call, e);
        }
        if kind == StepKind::Back && !s.link.client.capabilities().is_some_and(|c| c.supports_step_back) {
            let msg = format!("{} cannot step back (the adapter lacks supportsStepBack).", s.link.adapter);
            return self.complete(call, ToolResult::error(ErrorCode::Unsupported, msg));
        }
        let Some(t) = s.thread_for(thread) else {
            return self
                .complete(call, ToolResult::error(ErrorCode::InvalidArgument, "no thread to step; pass `thread`."));
        };
        let mut args = json!({ "threadId": t });
        if let Some(g) = granularity {
            args["granularity"] = g.into();
        }
        s.resume_with(kind.command(), args, call, super::wait_duration(wait_ms), "stepped", now);
        self.after(key, now);
    }

    /// `pause`: interrupts a running session and waits for the stop.
    pub fn pause(&mut self, key: SessionKey, thread: Option<i64>, wait_ms: Option<u64>, call: CallKey, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        match s.run.state {
            RunState::Stopped => {
                let out = s.result("already stopped", false);
                return self.complete(call, out);
            }
            RunState::Exited | RunState::Terminated | RunState::Starting => {
                let msg = format!("{} is {}; there is nothing to pause.", s.id, s.run.state.as_str());
                return self.complete(call, ToolResult::error(ErrorCode::NotStopped, msg));
            }
            RunState::Running => {}
        }
        let t = thread.or(s.view.focus_thread).unwrap_or(0);
        let since = s.run.revision;
        s.calls.waiters.push(Waiter::new(call, now, super::wait_duration(wait_ms), "paused", Until::Stop, since));
        s.run.pause_sent = true;
        s.send("pause", Some(json!({ "threadId": t })), Origin::Pause { call }, now);
        self.after(key, now);
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
    ) {
        let Some(s) = self.slab.get_mut(key) else { return };
        // Default: a stop the agent has not seen — the current one counts when stopped.
        let since = since_revision.unwrap_or(if s.run.state == RunState::Stopped {
            s.run.revision.saturating_sub(1)
        } else {
            s.run.revision
        });
        let mut w = Waiter::new(call, now, super::wait_duration(wait_ms), "waited", until, since);
        s.output.flush();
        w.output_cursor = Some(s.result_cursor_value());
        if s.satisfies(&w) {
            let out = s.wait_result(&w, true);
            return self.complete(call, out);
        }
        s.calls.waiters.push(w);
    }

    /// The client cancelled `call` (MCP `notifications/cancelled`): stop waiting for it. The
    /// program is not touched; no result is sent.
    pub fn cancel(&mut self, call: CallKey, now: Instant) {
        for (_, s) in self.slab.iter_mut() {
            s.calls.waiters.retain(|w| w.call != call);
            s.ctl_settle(now, &mut self.actions);
        }
    }

    /// The session's handle table and state, for a tool that checks arguments first.
    fn inspect(&mut self, key: SessionKey, call: CallKey, op: Op, now: Instant) {
        if let Some(s) = self.stopped(key, call) {
            s.start_op(call, op, now);
            self.after(key, now);
        }
    }

    /// Resolves a `frame` handle argument on a stopped session; `Err` answers the call.
    pub(super) fn frame_arg(&mut self, key: SessionKey, frame: Option<i64>, call: CallKey) -> Result<Option<i64>, ()> {
        let Some(f) = frame else { return Ok(None) };
        match self.handle_arg(key, Kind::Frame, f) {
            Ok(id) => Ok(Some(id)),
            Err(e) => {
                self.complete(call, e);
                Err(())
            }
        }
    }

    /// Resolves a handle for `key`; one minted by another session says which.
    pub(super) fn handle_arg(&self, key: SessionKey, kind: Kind, handle: i64) -> Result<i64, ToolResult> {
        let Some(s) = self.slab.get(key) else {
            return Err(ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."));
        };
        s.resolve_handle(kind, handle).map_err(|e| {
            match self.slab.iter().find(|(k, other)| *k != key && other.view.handles.knows(handle)) {
                Some((_, owner)) => ToolResult::error(
                    ErrorCode::InvalidArgument,
                    format!(
                        "{} {handle} belongs to session {}; pass \"session\": \"{}\".",
                        kind.as_str(),
                        owner.id,
                        owner.id
                    ),
                ),
                None => e,
            }
        })
    }

    pub(super) fn thread_arg(&mut self, key: SessionKey, thread: Option<i64>, call: CallKey) -> Option<i64> {
        if let Some(Err(e)) = self.slab.get(key).map(|s| s.check_thread(thread)) {
            self.complete(call, e);
            return None;
        }
        let t = self.slab.get(key).and_then(|s| s.thread_for(thread));
        if t.is_none() {
            self.complete(
                call,
                ToolResult::error(ErrorCode::InvalidArgument, "no thread known yet; pass `thread` (see `threads`)."),
            );
        }
        t
    }

    pub fn threads(&mut self, key: SessionKey, call: CallKey, now: Instant) {
        self.inspect(key, call, Op::Threads, now);
    }

    /// `select_thread`: the focus thread for later calls.
    pub fn select_thread(&mut self, key: SessionKey, thread: i64, call: CallKey) {
        let Some(s) = self.slab.get_mut(key) else { return };
        if !s.view.known_threads.is_empty() && !s.view.known_threads.contains(&thread) {
            let known: Vec<String> = s.view.known_threads.iter().map(i64::to_string).collect();
            let msg = format!(
                "{} has no thread {thread} that agentdap has shown: known threads are [{}]; call `threads` for the current list.",
                s.id,
                known.join(", ")
            );
            return self.complete(call, ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        s.view.focus_thread = Some(thread);
        let out = ToolResult::ok(
            format!("{} focus thread is now {thread}", s.id),
            json!({ "session": s.id, "thread": thread }),
        );
        self.complete(call, out);
    }

    pub fn stack_trace(
        &mut self,
        key: SessionKey,
        thread: Option<i64>,
        start: u64,
        levels: u64,
        call: CallKey,
        now: Instant,
    ) {
        if self.stopped(key, call).is_none() {
            return;
        }
        let Some(thread) = self.thread_arg(key, thread, call) else { return };
        self.inspect(key, call, Op::StackTrace { thread, start, levels }, now);
    }

    pub fn scopes(&mut self, key: SessionKey, target: Target, call: CallKey, now: Instant) {
        if self.stopped(key, call).is_none() {
            return;
        }
        let Ok(frame) = self.frame_arg(key, target.frame, call) else { return };
        let Some(thread) = self.thread_arg(key, target.thread, call) else { return };
        let frame = frame.or_else(|| self.slab.get(key).and_then(|s| s.known_top_frame(thread)));
        self.inspect(key, call, Op::Scopes { thread, frame }, now);
    }

    pub fn variables(&mut self, key: SessionKey, handle: i64, page: Page, call: CallKey, now: Instant) {
        let Page { start, count, filter } = page;
        if self.stopped(key, call).is_none() {
            return;
        }
        let reference = match self.handle_arg(key, Kind::Variables, handle) {
            Ok(r) => r,
            Err(e) => return self.complete(call, e),
        };
        let q = VarQuery {
            handle,
            reference,
            start: start.unwrap_or(0),
            count: count.unwrap_or(DEFAULT_PAGE).max(1),
            filter,
        };
        self.inspect(key, call, Op::Variables(q), now);
    }

    pub fn evaluate(
        &mut self,
        key: SessionKey,
        expression: String,
        target: Target,
        context: Option<String>,
        call: CallKey,
        now: Instant,
    ) {
        if self.stopped(key, call).is_none() {
            return;
        }
        let Ok(frame) = self.frame_arg(key, target.frame, call) else { return };
        let Some(thread) = self.thread_arg(key, target.thread, call) else { return };
        let frame = frame.or_else(|| self.slab.get(key).and_then(|s| s.known_top_frame(thread)));
        let default = self.slab.get(key).map_or("repl", |s| s.link.plan.runtime.evaluate_context);
        let context = context.unwrap_or_else(|| default.into());
        self.inspect(key, call, Op::Evaluate { thread, frame, expression, context }, now);
    }

    pub fn context(
        &mut self,
        key: SessionKey,
        target: Target,
        source_lines: Option<usize>,
        max_variables: Option<usize>,
        call: CallKey,
        now: Instant,
    ) {
        if self.stopped(key, call).is_none() {
            return;
        }
        if let Some(f) = target.frame {
            if self.frame_arg(key, Some(f), call).is_err() {
                return;
            }
        }
        let Some(thread) = self.thread_arg(key, target.thread, call) else { return };
        let job = ContextJob::new(thread, target.frame, source_lines, max_variables);
        self.inspect(key, call, Op::Context(Box::new(job)), now);
    }

    pub fn exception_info(&mut self, key: SessionKey, thread: Option<i64>, call: CallKey, now: Instant) {
        let Some(s) = self.stopped(key, call) else { return };
        let reason = s.run.stop.as_ref().map(|st| st.reason.clone()).unwrap_or_default();
        if reason != "exception" {
            let msg = format!(
                "{} stopped for {reason}, not on an exception; exception_info applies to exception stops.",
                s.id
            );
            return self.complete(call, ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        if !s.link.client.capabilities().is_some_and(|c| c.supports_exception_info_request) {
            let msg = format!("{} has no exceptionInfo request; the stop's text is in the snapshot.", s.link.adapter);
            return self.complete(call, ToolResult::error(ErrorCode::Unsupported, msg));
        }
        let Some(thread) = self.thread_arg(key, thread, call) else { return };
        self.inspect(key, call, Op::ExceptionInfo { thread }, now);
    }

    /// `capabilities`: what the adapter said it supports, and which agentdap tools work.
    pub fn capabilities(&mut self, key: SessionKey, call: CallKey) {
        let Some(s) = self.slab.get(key) else { return };
        let Some(caps) = s.link.client.capabilities() else {
            let msg = format!("{} has not answered initialize yet; try again after launch returns.", s.id);
            return self.complete(call, ToolResult::error(ErrorCode::NotStopped, msg));
        };
        let gated = [
            ("step back", caps.supports_step_back),
            ("set_variable", caps.supports_set_variable),
            ("set_expression", caps.supports_set_expression),
            ("goto", caps.supports_goto_targets_request),
            ("restart_frame", caps.supports_restart_frame),
            ("exception_info", caps.supports_exception_info_request),
            ("completions", caps.supports_completions_request),
            ("modules", caps.supports_modules_request),
            ("loaded_sources", caps.supports_loaded_sources_request),
            ("set_function_breakpoints", caps.supports_function_breakpoints),
            ("set_data_breakpoints", caps.supports_data_breakpoints),
            ("set_instruction_breakpoints", caps.supports_instruction_breakpoints),
            ("read_memory", caps.supports_read_memory_request),
            ("disassemble", caps.supports_disassemble_request),
            ("terminate (graceful)", caps.supports_terminate_request),
            ("conditional breakpoints", caps.supports_conditional_breakpoints),
            ("hit conditions", caps.supports_hit_conditional_breakpoints),
            ("log points", caps.supports_log_points),
        ];
        let yes: Vec<&str> = gated.iter().filter(|g| g.1).map(|g| g.0).collect();
        let no: Vec<&str> = gated.iter().filter(|g| !g.1).map(|g| g.0).collect();
        let filters: Vec<Value> = caps
            .exception_breakpoint_filters
            .iter()
            .map(|f| json!({ "filter": f.filter, "label": f.label, "default": f.default }))
            .collect();
        let names: Vec<&str> = caps.exception_breakpoint_filters.iter().map(|f| f.filter.as_str()).collect();
        let text = format!(
            "{} ({}) DAP capabilities\nthe adapter supports: {}\nit does not support: {}\nexception filters: [{}]",
            s.id,
            s.link.adapter,
            yes.join(", "),
            no.join(", "),
            names.join(", ")
        );
        let (tools, missing) = s.tools_available(caps);
        let mut text = format!("{text}\nagentdap tools that work here: {}", tools.join(", "));
        if !missing.is_empty() {
            let why: Vec<String> = missing.iter().map(|(tool, needs)| format!("{tool} (needs {needs})")).collect();
            text.push_str(&format!("\nnot here: {}", why.join(", ")));
        }
        let missing: Vec<Value> = missing.iter().map(|(tool, needs)| json!({ "tool": tool, "needs": needs })).collect();
        let structured = json!({
            "session": s.id, "adapter": s.link.adapter, "supported": yes, "unsupported": no,
            "tools": { "available": tools, "unavailable": missing },
            "exception_filters": filters, "raw": Value::Object(caps.raw.clone()),
        });
        self.complete(call, ToolResult::ok(text, structured));
    }
}

impl Session {
    /// The output cursor as of the last result (what a wait for output compares against).
    pub(super) fn result_cursor_value(&self) -> u64 {
        self.calls.result_cursor
    }
}

/// Most watch expressions per session.
const MAX_WATCHES: usize = 32;

impl Sessions {
    /// `watch`: adds and removes watch expressions (answered at once).
    pub fn watch(&mut self, key: SessionKey, add: Vec<String>, remove: &[u32]) -> ToolResult {
        let Some(s) = self.slab.get_mut(key) else {
            return ToolResult::error(ErrorCode::SessionNotFound, "the session is gone.");
        };
        let unknown: Vec<String> =
            remove.iter().filter(|id| !s.view.watches.iter().any(|w| w.0 == **id)).map(u32::to_string).collect();
        if !unknown.is_empty() {
            let known: Vec<String> = s.view.watches.iter().map(|(id, e)| format!("{id}: {e}")).collect();
            let msg = format!(
                "{} has no watch with id {}; its watches are [{}].",
                s.id,
                unknown.join(", "),
                known.join(", ")
            );
            return ToolResult::error(ErrorCode::InvalidArgument, msg);
        }
        s.view.watches.retain(|w| !remove.contains(&w.0));
        for expr in add.into_iter().filter(|e| !e.trim().is_empty()) {
            if s.view.watches.len() >= MAX_WATCHES {
                return ToolResult::error(
                    ErrorCode::InvalidArgument,
                    format!("at most {MAX_WATCHES} watches per session."),
                );
            }
            let id = s.view.watches.iter().map(|w| w.0).max().unwrap_or(0) + 1;
            s.view.watches.push((id, expr));
        }
        let list: Vec<Value> = s.view.watches.iter().map(|(id, e)| json!({ "id": id, "expression": e })).collect();
        let mut text = format!("{} watches:", s.id);
        for (id, e) in &s.view.watches {
            text.push_str(&format!("\n  {id}: {e}"));
        }
        if s.view.watches.is_empty() {
            text = format!("{} has no watches", s.id);
        }
        ToolResult::ok(text, json!({ "session": s.id, "watches": list }))
    }
}
