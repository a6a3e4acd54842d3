//! How a session reacts to its adapter: events, the stop (and the details a stop result shows),
//! and the router that hands every response to the owner of its request ([`Origin`]). Sans-IO;
//! called from `Session::pump`. Must not: hold a tool's logic (see `session/tools/`) or the
//! start-up's (see `session/startup.rs`).

use std::collections::VecDeque;
use std::time::Instant;

use serde_json::Value;

use super::output::Category;
use super::snapshot::{ExceptionStop, Location, RunState, Stop, STEP_REFUSED};
use super::tools::{control, run, split, Reply};
use super::{Action, ErrorCode, Origin, Session, ToolResult, DAP_LOG_BYTES, DAP_LOG_CAP, DAP_LOG_ENTRY_MAX};
use crate::dap::adapters::{parse_exit_report, ExitReport};
use crate::dap::client::{ClientDiagnostic, Outcome, Output};
use crate::dap::protocol::{Event, Seq};
use crate::dap::requests::{
    Continue, ContinueArguments, ExceptionInfo, ExceptionInfoArguments, Request, StackTrace, StackTraceArguments,
    Threads,
};

/// Frames a stop that reads the locals asks for where `totalFrames` is not the stack's depth
/// (`RuntimeQuirks::total_frames_exact`): a page that ends before this gives the depth the
/// locals compare by (`stop_frame.rs`).
pub(super) const STOP_STACK_LEVELS: u64 = 20;

/// A request for what a stop result shows, sent at the stop of `revision`; carried in
/// [`Origin::Stop`].
#[derive(Debug)]
pub enum StopDetail {
    /// The top frame, for the stop's location; `levels` frames were asked for; `tell`: the
    /// depth may be told from the previous stop's (`Session::may_tell_depth`).
    Location { revision: u64, levels: u64, tell: bool },
    /// The stack below the top two frames, for the depth the top two did not tell; `levels`
    /// frames were asked for.
    RestOfStack { revision: u64, levels: u64 },
    /// The threads, for a stop that named none.
    Threads { revision: u64 },
    /// `exceptionInfo` after an exception stop, for the exception's name and message.
    Exception { revision: u64 },
    /// A `threads` refresh at a stop (for validating thread arguments).
    ThreadList { revision: u64 },
    /// The top frame's scopes, for its locals (`stop_frame.rs`).
    Scopes { revision: u64 },
    /// The locals scope's variables.
    Locals { revision: u64 },
    /// The `scopes` sent with the stop's `stackTrace`, for the ids of the previous stop's
    /// locals read (`stop_frame/ahead.rs`).
    AheadScopes { revision: u64 },
    /// The locals' `variables` sent with them.
    AheadLocals { revision: u64 },
    /// The first children of a local whose value says nothing without them.
    /// `outer`: a local itself (its members may be read one level down).
    Preview { revision: u64, fetching: i64, outer: bool },
}

impl Session {
    /// Drains the client's outputs and reacts to each, then queues finished calls.
    pub(super) fn pump(&mut self, now: Instant, actions: &mut VecDeque<Action>) {
        while let Some(out) = self.link.client.poll_output() {
            match out {
                Output::Log(mut entry) => {
                    if entry.body.len() > DAP_LOG_ENTRY_MAX {
                        // A huge message (a 30 MB variables response, a flood of output) is kept
                        // as its size and head: the log stays readable and bounded. The head is
                        // cut from the redacted text, never from the raw bytes.
                        entry.body = super::render::log_head(&entry.text()).into_bytes();
                    }
                    self.evidence.dap_log_bytes += entry.body.len();
                    self.evidence.dap_log.push_back(entry);
                    self.evidence.dap_log_total += 1;
                    while self.evidence.dap_log.len() > DAP_LOG_CAP || self.evidence.dap_log_bytes > DAP_LOG_BYTES {
                        match self.evidence.dap_log.pop_front() {
                            Some(old) => self.evidence.dap_log_bytes -= old.body.len(),
                            None => break,
                        }
                    }
                }
                Output::Event(e) => {
                    // Output reaches the mirror only while it is exposed (the hot path of a
                    // chatty program: no copy otherwise); stops and ends always (late joiners).
                    let copy = (e.event != "output" || self.mirror.endpoint.is_some()).then(|| e.clone());
                    self.on_event(e, now, actions);
                    if let Some(copy) = copy {
                        self.mirror_event(&copy);
                    }
                }
                Output::Completed { seq, origin, outcome } => {
                    let outcome = match outcome {
                        Outcome::Timeout { command, step, after, cancel_sent, .. }
                            if !matches!(origin, Origin::Mirror(_)) =>
                        {
                            // Truth about why: a mirror client's request may have held the adapter.
                            let busy = now.checked_sub(after).and_then(|sent| self.mirror.busy_note(sent));
                            Outcome::Timeout { command, step, after, cancel_sent, busy }
                        }
                        other => other,
                    };
                    self.on_completed(seq, origin, outcome, now, actions)
                }
                Output::StartDebugging { id, request, configuration } => {
                    // Opening a child needs the whole session table: `Sessions::next_action`
                    // answers the reverse request and opens the child in this same turn.
                    actions.push_back(Action::OpenChild { parent: self.key, id, request, configuration });
                }
                // The host-request policy decides (`Sessions::next_action`, in this same turn).
                Output::RunInTerminal { id, arguments } => {
                    actions.push_back(Action::HostRequest { session: self.key, id, arguments })
                }
                // The client already logged it (at warn); the session only notes it for tracing.
                Output::Diagnostic(d) => {
                    log::debug!("{}: {d}", self.id);
                    if let ClientDiagnostic::UnexpectedResponse { request_seq, .. } = d {
                        // A late reply to a timed-out request: a mirror client's place is free.
                        self.mirror.adapter_answered(Some(request_seq));
                    }
                }
            }
        }
        self.drop_pending_host_requests(now);
        self.flow_settle(now, actions);
        self.drain_notes(actions);
        for (call, output) in self.calls.done.drain(..) {
            actions.push_back(Action::Complete { call, output });
        }
        // Subscribers of `agentdap://session/{id}/state` hear of every stop, resume and exit.
        let now_seen = (self.run.state, self.run.revision);
        if self.run.last_announced != Some(now_seen) {
            self.run.last_announced = Some(now_seen);
            actions.push_back(Action::StateChanged { session: self.id.clone() });
        }
    }

    fn on_event(&mut self, e: Event, now: Instant, actions: &mut VecDeque<Action>) {
        let body = e.body.unwrap_or(Value::Null);
        match e.event.as_str() {
            "initialized" if self.startup.launch_sent => self.configure(now),
            "stopped" => {
                if self.link.plan.runtime.debuggee_own_process_group && !self.link.descendants_recorded {
                    // Helpers (lldb-server) may start after the `process` event: walk again.
                    self.link.descendants_recorded = true;
                    actions.push_back(Action::TrackProcesses);
                }
                if self.stacks_take_stop(&body, now) {
                    return;
                }
                self.run.stop_signal = fatal_signal(&body);
                self.on_stopped(&body, now)
            }
            "continued" => {
                self.run.resume_unacked = false;
                if self.run.state == RunState::Stopped {
                    self.mark_running();
                }
            }
            "exited" => {
                let code = body.get("exitCode").and_then(Value::as_i64);
                if let Some(first) = self.run.exit_code.filter(|_| self.run.state == RunState::Exited) {
                    // DAP § Events: Exited comes once per debuggee: a second one is the adapter
                    // contradicting itself, and the first report stands.
                    if code != Some(first) {
                        self.calls.warnings.push(format!(
                            "{} reported the program's exit twice: code {first}, then {}; the first is kept",
                            self.link.adapter,
                            code.map_or_else(|| "none".to_owned(), |c| c.to_string())
                        ));
                    }
                    return;
                }
                self.run.exit_code = code;
                // A start-up that failed is not a run agentdap ended.
                self.run.ended_by_agentdap |= self.link.is_closing() && self.run.failure.is_none();
                let signalled = self.run.stop_signal.filter(|(_, n)| Some(*n) == self.run.exit_code);
                if self.link.plan.runtime.signal_exit_as_status && !self.run.ended_by_agentdap {
                    self.run.killed_by = signalled;
                }
                self.run.state = RunState::Exited;
                self.run.stop = None;
            }
            "terminated"
                if self.family.stands_in
                    && self.run.exit_code.is_none()
                    && !self.run.state.is_over()
                    && !self.link.is_closing() =>
            {
                // js-debug reports no exit status; the program agentdap ran for the launcher
                // has it. The waits end once it (or the launcher's end) is known
                // (`Sessions::sweep_launchers`).
                self.run.awaiting_exit_report = true;
                self.run.stop = None;
            }
            "terminated" => {
                let report_after_disconnect =
                    matches!(self.link.plan.runtime.exit_report, ExitReport::ConsoleAfterDisconnect { .. });
                if report_after_disconnect
                    && self.run.exit_code.is_none()
                    && !self.link.is_closing()
                    && self.link.is_alive()
                {
                    // Delve: no `exited`; the status is printed once `disconnect` is sent. The
                    // waits end when the disconnect is answered, with the code read meanwhile.
                    self.run.awaiting_exit_report = true;
                    self.link.ask_to_close();
                    self.send_disconnect(None, Origin::Run(run::Op::Disconnect { call: None }), now);
                    return;
                }
                self.end_run(now);
            }
            "output" => {
                let category = body.get("category").and_then(Value::as_str);
                let Some(text) = body.get("output").and_then(Value::as_str) else { return };
                if self.link.crashed {
                    self.keep_stderr(text.as_bytes());
                    return;
                }
                // The program's own lines (`stdout`: under lldb-dap's default console its stderr
                // too, through the terminal) are never the adapter's crash report, whatever they
                // say (a breaker's program printed `Stack dump:`).
                if category != Some("stdout") && self.link.plan.runtime.is_crash_report(text) {
                    self.keep_stderr(text.as_bytes());
                    self.note_crash(text);
                    return;
                }
                if self.attach_helper_output(category, text, actions) {
                    return;
                }
                if let (ExitReport::ConsoleAfterDisconnect { marker }, Some("console" | "important") | None) =
                    (self.link.plan.runtime.exit_report, category)
                {
                    if let Some(code) = parse_exit_report(marker, text) {
                        self.run.exit_code = Some(code);
                        self.run.ended_by_agentdap |= self.link.is_closing() && !self.run.awaiting_exit_report;
                    }
                }
                let kept;
                let text = if category == Some("console") {
                    kept = without_banner(text, self.link.plan.quirks.console_banner);
                    if kept.is_empty() {
                        return;
                    }
                    kept.as_str()
                } else {
                    text
                };
                // Only a launched root session tells a log point's message by the key: there the
                // program's own prints come from debugpy's launcher without it. Under `attach`
                // and in child sessions the prints come through pydevd as well, carrying the
                // same key (debugpy 1.8.22 `pydevd_frame.py` sends a log point's message with
                // `make_io_message`, as it sends a print), so they stay `stdout`
                // (`attached_prints_are_not_labelled_log_points`).
                let logpoint = self.link.plan.request == "launch"
                    && self.family.parent.is_none()
                    && self.link.plan.quirks.logpoint_output_key.is_some_and(|k| body.get(k).is_some());
                // A program agentdap runs for the adapter writes to agentdap's pipes, never through
                // `output` events: an event's `stdout`/`stderr` is the adapter's own message (js-debug
                // 1.112.0: `Breakpoint condition error: …`), not the program's.
                let adapters_own = self.link.plan.runtime.program_on_pipes && self.link.plan.request == "launch";
                let adapters_stderr = self.link.plan.runtime.stderr_events_are_adapters;
                self.note_condition_errors(text);
                if let Some(c) = Category::from_dap(category) {
                    let c = if adapters_stderr && c == Category::Stderr { Category::Console } else { c };
                    let c = if logpoint && c == Category::Stdout { Category::Logpoint } else { c };
                    let c = if adapters_own && matches!(c, Category::Stdout | Category::Stderr) {
                        Category::Console
                    } else {
                        c
                    };
                    // The program's lines from a pseudo-terminal end in `\r\n` (lldb-dap's default
                    // console); everything else is kept exactly.
                    let pty = self.link.plan.runtime.debuggee_output
                        == crate::dap::adapters::DebuggeeOutput::OutputEventsFromPty
                        && matches!(c, Category::Stdout | Category::Stderr);
                    if self.family.stand_in.is_some() {
                        // A launcher's output is its stand-in's (`launcher.rs`).
                        self.family.forward.push((c, text.to_owned()));
                    } else if pty {
                        self.output.push_terminal(c, text);
                    } else {
                        self.output.push(c, text);
                    }
                }
            }
            "process" => {
                // A core's process is long gone (its pid may be another process's by now).
                let pid = body.get("systemProcessId").and_then(Value::as_i64).filter(|_| self.family.core.is_none());
                if let Some(pid) = pid {
                    self.family.debuggee_pid = Some(pid);
                    // An attached process is the user's: never recorded, so never killed.
                    if self.family.owns_debuggee {
                        actions.push_back(Action::RecordDebuggee { pid });
                    }
                }
                if self.link.plan.runtime.debuggee_own_process_group {
                    actions.push_back(Action::TrackProcesses);
                }
            }
            "breakpoint" => self.breaks.store.on_event(&body),
            "invalidated" => {
                let areas: Vec<&str> = body
                    .get("areas")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                self.run.revision += 1;
                self.view.handles.invalidated(&areas);
                self.clear_var_caches();
            }
            _ => {}
        }
    }

    /// The debuggee is gone: the run ends (exited when its code is known), the waits are
    /// answered, and the adapter is let go too (output still arriving is kept).
    pub(super) fn end_run(&mut self, now: Instant) {
        if !self.run.state.is_over() {
            self.run.state = if self.run.exit_code.is_some() { RunState::Exited } else { RunState::Terminated };
        }
        self.run.stop = None;
        self.complete_waiters();
        if !self.link.is_closing() && self.link.is_alive() {
            self.link.ask_to_close();
            self.send_disconnect(None, Origin::Run(run::Op::Disconnect { call: None }), now);
        }
    }

    pub(super) fn on_stopped(&mut self, body: &Value, now: Instant) {
        if body.get("reason").and_then(Value::as_str) == Some("entry") && self.link.plan.runtime.entry_stop_repeats {
            if self.run.entry_seen {
                // js-debug 1.112.0 never removes its entry breakpoint: a later pass over it is the
                // adapter's doing, not a stop of the program's (`dap::adapters::jsdebug`).
                let thread = body.get("threadId").and_then(Value::as_i64).unwrap_or(0);
                log::debug!("{}: passing over the adapter's repeated entry stop (thread {thread})", self.id);
                let args = ContinueArguments { thread_id: thread, single_thread: None };
                self.request::<Continue>(args, Origin::Control(control::Op::PassOver), now);
                return;
            }
            self.run.entry_seen = true;
        }
        self.run.resume_unacked = false;
        self.output.flush();
        let mut stop = Stop::from_event(body);
        stop.by_person = self.mirror.person_cause.take();
        let paused = std::mem::take(&mut self.run.pause_sent);
        // Another thread's stop during a step is not that step's end (Delve keeps such a step
        // pending and says so in its output; `tests/native/delve_truth.rs`).
        let other = |t: i64| stop.thread.is_some_and(|s| s != t);
        // A pause's stop is the pause's (the adapter names whichever thread it likes).
        let own = paused || stop.reason == "step" || stop.reason == "pause";
        stop.interrupted_step = self.run.step_to_this_stop().filter(|&(_, t)| other(t) && !own);
        // A step cut short by a breakpoint (or an exception) may be finished by the adapter at a
        // later resume: that stop says `step` after a `continue`.
        // Only the stepping thread's own `step` stop ends it.
        match (self.run.step_to_this_stop(), stop.reason.as_str()) {
            (Some(_), "step") => self.run.unfinished_step = None,
            (Some((kind, thread)), _) if !paused => {
                self.run.unfinished_step = Some((kind, thread, self.run.revision + 1));
            }
            (None, "step") if !paused && self.run.last_step.is_none() && self.run.resumes_since_stop > 0 => {
                if let Some((kind, thread, revision)) = self.run.unfinished_step {
                    if stop.thread == Some(thread) {
                        stop.finished_step = Some((kind, revision));
                        self.run.unfinished_step = None;
                    }
                }
            }
            _ => {}
        }
        // A pause during the step stops wherever the program was, a callee's callee too; a
        // breakpoint named on the way likewise.
        stop.stepped_over_or_out = self.run.note_stopped() && !paused && stop.adapter_hits.is_empty();
        if let (true, "exception", Some(signal)) = (paused, stop.reason.as_str(), self.link.plan.quirks.pause_signal) {
            // The adapter's reason and words pass through unchanged (lldb-dap's entry reasons:
            // llvm/llvm-project#165901, llvm/llvm-project#195352); the result says
            // this is the pause the agent asked for rather than something the program did.
            let words = [&stop.description, &stop.text];
            stop.requested_pause = words.iter().any(|w| w.as_deref().is_some_and(|w| w.contains(signal)));
        }
        if paused && stop.reason == "step" && self.link.plan.runtime.pause_stops_as_step {
            // The adapter stepped on from where the pause landed: still the agent's pause.
            stop.requested_pause = true;
        }
        let refused = self.link.plan.runtime.refused_step;
        if stop.reason == "exception" && refused.is_some_and(|r| stop.description.as_deref() == Some(r.description)) {
            // Nothing ran: the adapter refused the step and reported that as a stop.
            stop.reason = STEP_REFUSED.to_owned();
        }
        if let Some((_, note)) = self.link.plan.quirks.paused_frame_marker {
            stop.text = stop.text.map(|t| super::snapshot::without_note(&t, note));
        }
        if stop.reason == "exception" {
            stop.exception = ExceptionStop::from_event(stop.text.as_deref(), stop.description.as_deref());
            if self.link.plan.quirks.exit_stops_as_exception {
                if let Some(e) = &mut stop.exception {
                    e.note_system_exit();
                }
            }
        }
        self.run.revision += 1;
        self.view.handles.resumed();
        self.clear_var_caches();
        self.run.state = RunState::Stopped;
        self.run.stop_revision = self.run.revision;
        self.run.details_reset();
        if stop.thread.is_some() {
            self.view.focus_thread = stop.thread;
        }
        self.drop_entry_breakpoint(now);
        let at = crate::session::breakpoints::LastHit { revision: self.run.revision, thread: stop.thread };
        stop.hit_breakpoints = self.breaks.store.on_stop(&stop.adapter_hits, &stop.reason, at);
        if let Some((prefix, suffix)) = self.link.plan.quirks.breakpoint_in_stop_description {
            let place = stop.description.as_deref().and_then(|d| place_in_description(d, prefix, suffix));
            if let Some((path, line)) = place.filter(|_| stop.reason == "breakpoint" && stop.adapter_hits.is_empty()) {
                let path = self.breakpoint_file_named(path);
                let held: Vec<u32> = self
                    .breaks
                    .kept_by_adapter
                    .get(&path)
                    .map(|v| v.iter().map(|(l, _)| *l).collect())
                    .unwrap_or_default();
                stop.hit_breakpoints = self.breaks.store.on_stop_at(&path, line, &held, at);
            }
        }
        // Whose breakpoint it was, only as the hit ids say (issue 22): none named, none said.
        if self.breaks.store.on_person_stop(&stop.adapter_hits, &stop.reason, at) {
            use crate::session::snapshot::Owner;
            stop.owner = Some(if stop.hit_breakpoints.is_empty() { Owner::Person } else { Owner::Both });
        }
        let revision = self.run.revision;
        let thread = stop.thread.or(self.view.focus_thread);
        self.run.stop = Some(stop);
        match thread {
            Some(t) => {
                self.fetch_stop_details(t, revision, now);
                // The agent learns thread ids from stops and from `threads`; those are the ids it
                // may name (`check_thread`), so a stop asks for no thread list (a `threads` costs
                // debugpy ~0.5 ms and a stock debugpy a 40 ms delayed ACK; lldb-dap ~0.2 ms).
                if self.link.plan.runtime.thread_ids_churn {
                    self.view.known_threads = vec![t];
                } else if !self.view.known_threads.contains(&t) {
                    self.view.known_threads.push(t);
                }
                // An adapter with a placeholder thread (Delve's "Dummy") is asked at its entry
                // stop, the one stop that names the placeholder (before the runtime, no
                // goroutine exists), so the focus moves to a real thread before the result. Its
                // other stops name a real goroutine, and a `threads` there would cost Delve 1.20
                // ~2.5 ms in every step and continue (it lists every goroutine, and answers the
                // stop's `scopes` after it: the roundtrip bench).
                let entry = self.run.stop.as_ref().is_some_and(|s| s.reason == "entry");
                if self.link.plan.runtime.placeholder_thread.is_some() && entry {
                    self.run.details_await_one_more();
                    self.request::<Threads>((), Origin::Stop(StopDetail::ThreadList { revision }), now);
                }
            }
            None => {
                self.run.details_await(1);
                self.request::<Threads>((), Origin::Stop(StopDetail::Threads { revision }), now)
            }
        }
    }

    /// Asks for what a stop result shows: the top frame and, for an exception, `exceptionInfo`
    /// (when the adapter has it). The stop is ready once every answer is in.
    fn fetch_stop_details(&mut self, thread: i64, revision: u64, now: Instant) {
        self.run.details_await(1);
        let exception = self.run.stop.as_ref().is_some_and(|s| s.reason == "exception");
        if exception && self.link.client.capabilities().is_some_and(|c| c.supports_exception_info_request) {
            self.run.details_await_one_more();
            let args = ExceptionInfoArguments { thread_id: thread };
            self.request::<ExceptionInfo>(args, Origin::Stop(StopDetail::Exception { revision }), now);
        }
        // A stop that reads the locals compares them only with a frame of the same caller line
        // and depth (`stop_frame.rs`, `FrameKey`): where `totalFrames` is not the depth, enough
        // frames that a page ending before `levels` gives it for most programs (lldb-dap pays
        // ~0.3 ms for them after a stop in the roundtrip bench), unless a step from the stop
        // before tells it (`may_tell_depth`: then the top two frames); else the top frame and
        // its caller; the top frame alone when no locals are read. (A local's
        // `memoryReference` does not tell a frame apart: lldb-dap 22.1.8 gives a register
        // local's value there, and two calls at one stack height share addresses.)
        let exact = self.link.plan.runtime.total_frames_exact;
        let tell = !exact && self.may_tell_depth();
        let locals = self.stop_wants_locals();
        let levels = match (locals, exact) {
            (true, false) if tell => 2,
            (true, false) => STOP_STACK_LEVELS,
            (true, true) => 2,
            (false, _) => 1,
        };
        // A test stopped where the runner marks it failed: deep enough to find the test's frame.
        let test_levels = self.test_stop_levels();
        let levels = test_levels.map_or(levels, |l| l.max(levels));
        // A core's crash inside the runtime: deep enough to find the program's frame.
        let core = self.core_runtime_frames().is_some();
        let levels = if core { levels.max(STOP_STACK_LEVELS) } else { levels };
        let tell = tell && levels == 2;
        let args = StackTraceArguments { thread_id: thread, start_frame: Some(0), levels: Some(levels) };
        self.request::<StackTrace>(args, Origin::Stop(StopDetail::Location { revision, levels, tell }), now);
        // The top frame's locals, read ahead where the adapter allows it (not where a frame
        // below the top may be shown, nor where an earlier read timed out).
        let ahead = self.link.plan.runtime.pipelined_stop_reads && self.stops.may_read_ahead();
        if ahead && locals && test_levels.is_none() && !core {
            self.send_reads_ahead(thread, revision, now);
        }
    }

    /// One stop-detail answer is in; the waits are answered after the last one.
    fn stop_detail_done(&mut self) {
        if self.run.details_one_done() {
            self.finish_stop_frame();
            self.note_entry_inside_a_function();
            self.note_stop();
            self.complete_waiters();
        }
    }

    /// An adapter whose entry stop is the file's first breakable position
    /// (`RuntimeQuirks::entry_is_first_breakable`, js-debug) stopped there inside a function,
    /// not at the program's top level: the result says that the program ran up to that call.
    fn note_entry_inside_a_function(&mut self) {
        let Some(stop) = self.run.stop.as_ref().filter(|s| s.reason == "entry") else { return };
        if !self.link.plan.runtime.entry_is_first_breakable {
            return;
        }
        let function = stop.location.as_ref().and_then(|l| l.function.as_deref()).unwrap_or(TOP_LEVEL);
        if function != TOP_LEVEL {
            let function = crate::visible::escaped(function);
            self.calls.warnings.push(format!(
                "{} stops on entry at the file's first breakable line, which here is inside `{function}`: the program ran until its first call of it; set a breakpoint to stop earlier",
                self.link.adapter
            ));
        }
    }

    /// Hands a response to the owner of its request.
    fn on_completed(
        &mut self,
        seq: Seq,
        origin: Origin,
        outcome: Outcome,
        now: Instant,
        actions: &mut VecDeque<Action>,
    ) {
        if let Outcome::Success(r) = &outcome {
            match &origin {
                // Any request of the agent's own that is not a known read may have changed
                // the program's values (a `setVariable`, an `evaluate` that calls).
                Origin::Host(_) if !super::tools::host::only_reads(&r.command) => {
                    self.values_changed();
                    if !super::tools::host::keeps_values(&r.command) {
                        self.note_own_change(format!("a `{}` request", crate::visible::escaped(&r.command)));
                    }
                }
                // The `evaluate` tool's, and a mirror client's (it only reads, but an expression
                // can run code): an assignment or a call may have changed what pages show (what
                // a later stop calls changed is noted when it is sent: `Session::send_with_timeout`).
                Origin::Inspect { op, .. } if r.command == "evaluate" && op.evaluated().is_some() => {
                    let expression = op.evaluated().unwrap_or_default();
                    let prefixes = self.link.plan.quirks.mutating_evaluate_prefixes;
                    if prefixes.iter().any(|p| expression.starts_with(p)) {
                        self.values_changed();
                    } else {
                        self.clear_var_caches();
                    }
                }
                Origin::Mirror(_) if r.command == "evaluate" => self.clear_var_caches(),
                _ => {}
            }
        }
        // Owners that read the outcome themselves.
        let origin = match origin {
            Origin::Mirror(f) => return self.mirror_completed(seq, f, outcome),
            Origin::Host(op) => return self.host_answered(op, outcome),
            Origin::Flow(op) => return self.flow_answered(op, split(outcome), now),
            Origin::Edit(op) => return self.edit_answered(op, split(outcome), now),
            Origin::Source(op) => return self.source_answered(op, split(outcome)),
            Origin::Memory(op) => return self.memory_answered(op, split(outcome), now),
            Origin::Stacks(step) => return self.stacks_answered(step, split(outcome), now),
            other => other,
        };
        self.note_request_error(&outcome);
        let reply = Reply::of(outcome);
        match origin {
            Origin::Startup(step) => self.startup_answered(step, reply, now, actions),
            Origin::Stop(detail) => self.stop_detail_answered(detail, reply, now),
            Origin::Run(op) => self.run_answered(op, reply, actions),
            Origin::Control(op) => self.control_answered(op, reply),
            Origin::Breakpoints(op) => self.breakpoints_answered(op, reply, now),
            Origin::Inspect { call, op, revision } => self.inspect_answered(call, op, reply.answer(), revision, now),
            // Taken above.
            Origin::Mirror(_) | Origin::Host(_) | Origin::Flow(_) | Origin::Edit(_) | Origin::Source(_) => {}
            Origin::Memory(_) | Origin::Stacks(_) => {}
        }
    }

    /// A request that never went out: its owner learns why.
    pub(super) fn failed_origin(&mut self, origin: Origin, code: ErrorCode, msg: String) {
        match origin {
            Origin::Run(op) => self.run_failed(op, code, msg),
            Origin::Control(op) => self.control_failed(op, code, msg),
            Origin::Breakpoints(op) => self.breakpoints_failed(op, code, msg),
            Origin::Inspect { call, .. } => self.calls.done.push((call, ToolResult::error(code, msg))),
            Origin::Host(op) => self.host_failed(op, code, msg),
            Origin::Flow(op) => self.flow_failed(op, code, msg),
            Origin::Edit(op) => self.edit_failed(op, code, msg),
            Origin::Source(op) => self.source_failed(op, code, msg),
            Origin::Memory(op) => self.memory_failed(op, code, msg),
            Origin::Stacks(step) => self.stacks_failed(step, code, msg),
            Origin::Startup(_) | Origin::Stop(_) | Origin::Mirror(_) => {}
        }
    }

    /// The answer to a stop-detail request; the stop is ready once every one is in.
    fn stop_detail_answered(&mut self, detail: StopDetail, reply: Reply, now: Instant) {
        let Reply { failure, mut body, code } = reply;
        let frame_read = matches!(
            detail,
            StopDetail::Scopes { .. }
                | StopDetail::Locals { .. }
                | StopDetail::AheadScopes { .. }
                | StopDetail::AheadLocals { .. }
        );
        if frame_read && failure.is_some() && code == ErrorCode::Timeout {
            self.note_stop_timeout();
        }
        match detail {
            StopDetail::Location { revision, levels, tell } => {
                if self.run.is_current_stop(revision) {
                    // A body that is not an object reads as empty, as `body.get(…)` did.
                    let trace = StackTrace::parse(Some(&body)).unwrap_or_default();
                    // Normally the top frame; a test's own below its runner's (`test_outcome.rs`).
                    let shown = match self.test_shown_frame(revision, &trace.stack_frames) {
                        0 => match self.core_shown_frame(&trace.stack_frames) {
                            0 => self.exception_shown_frame(&trace.stack_frames),
                            shown => shown,
                        },
                        shown => shown,
                    };
                    let marker = self.link.plan.quirks.paused_frame_marker.map(|(m, _)| m);
                    let marked = |f: &crate::dap::requests::StackFrame| {
                        marker.is_some_and(|m| f.name.as_deref().is_some_and(|n| n.ends_with(m)))
                    };
                    let paused = trace.stack_frames.iter().position(marked).filter(|&k| k != shown);
                    let unmarked = |f: &crate::dap::requests::StackFrame| {
                        let mut location = Location::from_stack_frame(f);
                        if let (Some(m), Some(name)) = (marker, location.function.as_mut()) {
                            if let Some(cut) = name.strip_suffix(m).map(str::len) {
                                name.truncate(cut);
                            }
                        }
                        location
                    };
                    if let (Some(k), Some(stop)) = (paused, self.run.stop.as_mut()) {
                        stop.paused_in = trace.stack_frames.get(k).map(unmarked);
                    }
                    if let Some(frame) = trace.stack_frames.get(shown) {
                        if let Some(stop) = &mut self.run.stop {
                            stop.location = Some(unmarked(frame));
                            // The top frame of this stop: `evaluate`/`scopes` without a frame use
                            // it directly instead of asking for the stack again.
                            self.run.top_frame =
                                stop.thread.zip(frame.id.typed().copied()).map(|(t, f)| (revision, t, f));
                            self.run.shown_frame = shown;
                        }
                        let caller = trace.stack_frames.get(shown + 1);
                        let place = self.stop_depth(&trace, shown, levels, tell);
                        let rest_unread = place.is_none();
                        self.ask_stop_frame(revision, frame, caller, place.unwrap_or_default(), now);
                        if rest_unread {
                            let thread = self.run.stop.as_ref().and_then(|s| s.thread).unwrap_or(0);
                            let levels = STOP_STACK_LEVELS - 2;
                            let args =
                                StackTraceArguments { thread_id: thread, start_frame: Some(2), levels: Some(levels) };
                            self.stop_request::<StackTrace>(args, StopDetail::RestOfStack { revision, levels }, now);
                        }
                    }
                    self.stop_detail_done();
                }
            }
            StopDetail::RestOfStack { revision, levels } => {
                if self.run.is_current_stop(revision) {
                    if failure.is_none() {
                        let trace = StackTrace::parse(Some(&body)).unwrap_or_default();
                        self.rest_of_stack_read(revision, &trace.stack_frames, levels);
                    }
                    self.stop_detail_done();
                }
            }
            StopDetail::Exception { revision } => {
                if self.run.is_current_stop(revision) {
                    if failure.is_none() {
                        let info = ExceptionInfo::parse(Some(&body)).unwrap_or_default();
                        let mut info = ExceptionStop::from_info(&info);
                        if self.link.plan.quirks.exit_stops_as_exception {
                            info.note_system_exit();
                        }
                        if self.link.plan.quirks.exception_id_has_message {
                            info.split_message_from_type();
                        }
                        if let Some((_, note)) = self.link.plan.quirks.paused_frame_marker {
                            info.without_note(note);
                        }
                        if let Some(stop) = &mut self.run.stop {
                            stop.exception = Some(info);
                        }
                    }
                    self.stop_detail_done();
                }
            }
            StopDetail::Scopes { revision } => {
                if self.run.is_current_stop(revision) {
                    self.stop_scopes_answered(failure, &body, now);
                    self.stop_detail_done();
                }
            }
            StopDetail::Locals { revision } => {
                if self.run.is_current_stop(revision) {
                    self.stop_locals_answered(failure, &mut body, now);
                    self.stop_detail_done();
                }
            }
            StopDetail::AheadScopes { revision } => {
                if self.run.is_current_stop(revision) {
                    self.ahead_scopes_answered(revision, failure, &body, now);
                    self.stop_detail_done();
                }
            }
            StopDetail::AheadLocals { revision } => {
                if self.run.is_current_stop(revision) {
                    self.ahead_locals_answered(revision, failure, &mut body, now);
                    self.stop_detail_done();
                }
            }
            StopDetail::Preview { revision, fetching, outer } => {
                if self.run.is_current_stop(revision) {
                    self.stop_preview_answered(fetching, outer, failure, &body, now);
                    self.stop_detail_done();
                }
            }
            StopDetail::ThreadList { revision } => {
                self.note_threads(&body);
                if self.run.is_current_stop(revision) {
                    self.stop_detail_done();
                }
            }
            StopDetail::Threads { revision } => {
                self.note_threads(&body);
                if self.run.is_current_stop(revision) {
                    let first = self.first_real_thread(&body);
                    match first {
                        Some(t) => {
                            self.view.focus_thread = Some(t);
                            if let Some(stop) = &mut self.run.stop {
                                stop.thread = Some(t);
                            }
                            self.fetch_stop_details(t, revision, now);
                        }
                        None => self.stop_detail_done(),
                    }
                }
            }
        }
    }

    pub(super) fn mark_running(&mut self) {
        if self.run.state == RunState::Stopped {
            self.run.revision += 1;
        }
        self.view.handles.resumed();
        self.clear_var_caches();
        self.run.state = RunState::Running;
        self.run.stop = None;
        self.run.details_unready();
    }

    pub(super) fn require_stopped(&self) -> Result<(), ToolResult> {
        match self.run.state {
            RunState::Stopped => Ok(()),
            RunState::Running | RunState::Starting => Err(ToolResult::error(
                ErrorCode::NotStopped,
                format!(
                    "{} is {}; call `wait` for the next stop or `pause` it first.",
                    self.id,
                    self.run.state.as_str()
                ),
            )),
            RunState::Exited | RunState::Terminated if self.run.failure.is_some() => {
                let why = self.run.failure.as_deref().and_then(|f| f.lines().next()).unwrap_or_default();
                // A session whose program ran (it stopped, or its launch was answered) did start:
                // its adapter died later (the breaker's `adapter_crash_tests.rs`).
                if self.run.stops_seen > 0 || matches!(self.startup.launch_result, Some(Ok(()))) {
                    return Err(ToolResult::error(
                        ErrorCode::NotStopped,
                        format!(
                            "{} has ended: {why} after the program had run (state and values are gone); {}.",
                            self.id,
                            match self.link.plan.request {
                                "attach" => "`attach` connects again",
                                _ => "`launch` starts it again",
                            }
                        ),
                    ));
                }
                // An attach is tried again with `attach` (a fresh user's `context` after a failed
                // attach was told to `launch`).
                Err(ToolResult::error(
                    ErrorCode::NotStopped,
                    format!(
                        "{} did not start ({why}); `{}` again once that is fixed.",
                        self.id, self.link.plan.request
                    ),
                ))
            }
            RunState::Exited | RunState::Terminated => {
                // Only a top-level session of a relaunchable kind has `restart`.
                let again = if self.family.stands_in || self.family.parent.is_some() {
                    "`launch` runs it once more"
                } else {
                    "`restart` (or `launch`) runs it once more"
                };
                Err(ToolResult::error(
                    ErrorCode::NotStopped,
                    format!("{} has {}; {again}.", self.id, self.run.state.as_str()),
                ))
            }
        }
    }
}

/// A `console` output event's text without the lines that are the adapter's own chatter (lines
/// starting with one of `banner`, see `Quirks::console_banner`); every other line is kept as it
/// came. Empty when nothing is left.
fn without_banner(text: &str, banner: &[&str]) -> String {
    text.split_inclusive('\n').filter(|line| !banner.iter().any(|b| line.starts_with(b))).collect()
}

/// The name V8 (through js-debug) gives a module's top-level frame.
const TOP_LEVEL: &str = "<anonymous>";

/// Fatal signals a stop may name, with their Linux numbers.
const FATAL_SIGNALS: &[(&str, i64)] =
    &[("SIGSEGV", 11), ("SIGABRT", 6), ("SIGBUS", 7), ("SIGFPE", 8), ("SIGILL", 4), ("SIGTRAP", 5), ("SIGSYS", 31)];

/// The fatal signal a `stopped` event's `description` or `text` names as a word (lldb-dap:
/// "signal SIGSEGV: address not mapped to object (fault address=0x0)").
pub(super) fn fatal_signal(body: &Value) -> Option<(&'static str, i64)> {
    let words = ["description", "text"].into_iter().filter_map(|k| body.get(k).and_then(Value::as_str));
    let mut found = words.flat_map(|t| t.split(|c: char| !c.is_ascii_alphanumeric()));
    found.find_map(|w| FATAL_SIGNALS.iter().copied().find(|(name, _)| *name == w))
}

impl Session {
    /// Which of an exception stop's `frames` the result shows: the first that is not the
    /// runtime's (`RuntimeQuirks::exception_runtime_frames`), noted in `stop.runtime_above`
    /// with the top one; else the top frame (0).
    fn exception_shown_frame(&mut self, frames: &[crate::dap::requests::StackFrame]) -> usize {
        let Some(prefix) = self.link.plan.runtime.exception_runtime_frames else { return 0 };
        let Some(stop) = self.run.stop.as_mut().filter(|s| s.reason == "exception") else { return 0 };
        let Some(i) = below_runtime(frames, prefix) else { return 0 };
        stop.runtime_above = frames.first().map(|f| (i, Location::from_stack_frame(f)));
        i
    }
}

/// The first of `frames` whose function's name does not start with the runtime's `prefix`, when
/// that is not the top one: the program's frame under the runtime's (a Go panic, a core).
pub(super) fn below_runtime(frames: &[crate::dap::requests::StackFrame], prefix: &str) -> Option<usize> {
    let runtime = |f: &crate::dap::requests::StackFrame| f.name.as_deref().is_some_and(|n| n.starts_with(prefix));
    frames.iter().position(|f| !runtime(f)).filter(|&i| i > 0)
}

/// The `path` and `line` of `<prefix><path>:<line><suffix…>` (`Quirks::breakpoint_in_stop_description`):
/// the first `suffix` that follows `:<digits>`, so a path holding the suffix's text (`app (copy)/`)
/// stays whole.
fn place_in_description<'a>(description: &'a str, prefix: &str, suffix: &str) -> Option<(&'a str, u32)> {
    let rest = description.strip_prefix(prefix)?;
    let ends = rest.match_indices(suffix).map(|(i, _)| i).chain(std::iter::once(rest.len()));
    ends.filter_map(|end| {
        let (path, line) = rest[..end].rsplit_once(':')?;
        let digits = !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit());
        digits.then(|| Some((path, line.parse().ok()?))).flatten()
    })
    .next()
}

impl Session {
    /// The key of the agent's breakpoint file an adapter names by `path`: itself when the agent
    /// set breakpoints there, else the file whose real path it is (rdbg names `iseq.absolute_path`,
    /// through symlinks: a breaker's breakpoint under a symlinked directory read "never hit").
    fn breakpoint_file_named(&self, path: &str) -> String {
        let files: Vec<String> = self.breaks.store.files().map(|(p, _)| p.to_owned()).collect();
        if files.iter().any(|p| p == path) {
            return path.to_owned();
        }
        let real = std::path::Path::new(path);
        files
            .into_iter()
            .find(|p| self.link.files.canonicalize(std::path::Path::new(p)).is_some_and(|c| c == real))
            .unwrap_or_else(|| path.to_owned())
    }
}
