//! How a session reacts to its adapter: events, responses, the configuration phase, and the
//! results written to waiting calls. Sans-IO; called from `Session::pump`.

use std::collections::VecDeque;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::breakpoints::{Entry, SourceBreakpoint};
use super::output::Category;
use super::snapshot::{put, ExceptionStop, Location, RunState, Stop};
use super::{Action, ErrorCode, Origin, Session, Step, ToolResult, DAP_LOG_BYTES, DAP_LOG_CAP, DAP_LOG_ENTRY_MAX};
use crate::dap::adapters::{parse_exit_report, ExitReport};
use crate::dap::client::{ClientDiagnostic, Outcome, Output};
use crate::dap::protocol::{Event, Seq};

impl Session {
    /// Drains the client's outputs and reacts to each, then queues finished calls.
    pub(super) fn pump(&mut self, now: Instant, actions: &mut VecDeque<Action>) {
        while let Some(out) = self.link.client.poll_output() {
            match out {
                Output::Log(mut entry) => {
                    if entry.json.len() > DAP_LOG_ENTRY_MAX {
                        // A huge message (a 30 MB variables response, a flood of output) is
                        // logged as its size and head: the log stays readable and bounded.
                        let mut cut = 1024.min(entry.json.len());
                        while !entry.json.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        let head = &entry.json[..cut];
                        entry.json =
                            json!({ "agentdap_truncated": true, "bytes": entry.json.len(), "head": head }).to_string();
                    }
                    self.evidence.dap_log_bytes += entry.json.len();
                    self.evidence.dap_log.push_back(entry);
                    self.evidence.dap_log_total += 1;
                    while self.evidence.dap_log.len() > DAP_LOG_CAP || self.evidence.dap_log_bytes > DAP_LOG_BYTES {
                        match self.evidence.dap_log.pop_front() {
                            Some(old) => self.evidence.dap_log_bytes -= old.json.len(),
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
        self.ctl_settle(now, actions);
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
                self.run.exit_code = body.get("exitCode").and_then(Value::as_i64);
                self.run.ended_by_agentdap |= self.link.closing;
                let signalled = self.run.stop_signal.filter(|(_, n)| Some(*n) == self.run.exit_code);
                if self.link.plan.runtime.signal_exit_as_status && !self.run.ended_by_agentdap {
                    self.run.killed_by = signalled;
                }
                self.run.state = RunState::Exited;
                self.run.stop = None;
            }
            "terminated" => {
                let report_after_disconnect =
                    matches!(self.link.plan.runtime.exit_report, ExitReport::ConsoleAfterDisconnect { .. });
                if report_after_disconnect
                    && self.run.exit_code.is_none()
                    && !self.link.closing
                    && self.link.adapter_alive
                {
                    // Delve: no `exited`; the status is printed once `disconnect` is sent. The
                    // waits end when the disconnect is answered, with the code read meanwhile.
                    self.run.awaiting_exit_report = true;
                    self.link.closing = true;
                    self.send_disconnect(None, Origin::Disconnect { call: None }, now);
                    return;
                }
                if !self.run.state.is_over() {
                    self.run.state = if self.run.exit_code.is_some() { RunState::Exited } else { RunState::Terminated };
                }
                self.run.stop = None;
                self.complete_waiters();
                if !self.link.closing && self.link.adapter_alive {
                    // The debuggee is gone; let the adapter go too. Output still arriving is kept.
                    self.link.closing = true;
                    self.send_disconnect(None, Origin::Disconnect { call: None }, now);
                }
            }
            "output" => {
                let category = body.get("category").and_then(Value::as_str);
                let Some(text) = body.get("output").and_then(Value::as_str) else { return };
                if self.link.crashed {
                    self.keep_stderr(text.as_bytes());
                    return;
                }
                if self.link.plan.runtime.is_crash_report(text) {
                    self.keep_stderr(text.as_bytes());
                    self.note_crash(text);
                    return;
                }
                if let (ExitReport::ConsoleAfterDisconnect { marker }, Some("console" | "important") | None) =
                    (self.link.plan.runtime.exit_report, category)
                {
                    if let Some(code) = parse_exit_report(marker, text) {
                        self.run.exit_code = Some(code);
                        self.run.ended_by_agentdap |= self.link.closing && !self.run.awaiting_exit_report;
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
                let logpoint = self.link.plan.quirks.logpoint_output_key.is_some_and(|k| body.get(k).is_some());
                if let Some(c) = Category::from_dap(category) {
                    let c = if logpoint && c == Category::Stdout { Category::Logpoint } else { c };
                    self.output.push(c, text);
                }
            }
            "process" => {
                if let Some(pid) = body.get("systemProcessId").and_then(Value::as_i64) {
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

    fn on_stopped(&mut self, body: &Value, now: Instant) {
        self.run.resume_unacked = false;
        self.output.flush();
        let mut stop = Stop::from_event(body);
        let paused = std::mem::take(&mut self.run.pause_sent);
        if let (true, "exception", Some(signal)) = (paused, stop.reason.as_str(), self.link.plan.quirks.pause_signal) {
            // The adapter's reason and words pass through unchanged (CASES C14); the result says
            // this is the pause the agent asked for rather than something the program did.
            let words = [&stop.description, &stop.text];
            stop.requested_pause = words.iter().any(|w| w.as_deref().is_some_and(|w| w.contains(signal)));
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
        self.run.stop_ready = false;
        self.run.stop_pending = 0;
        if stop.thread.is_some() {
            self.view.focus_thread = stop.thread;
        }
        self.drop_entry_breakpoint(now);
        self.breaks.store.on_hit(&stop.adapter_hits);
        stop.hit_breakpoints = self.breaks.store.stable_ids(&stop.adapter_hits);
        let revision = self.run.revision;
        let thread = stop.thread.or(self.view.focus_thread);
        self.run.stop = Some(stop);
        match thread {
            Some(t) => {
                self.fetch_stop_details(t, revision, now);
                // The agent learns thread ids from stops and from `threads`; those are the ids it
                // may name (`check_thread`), so a stop asks for no thread list (a `threads` costs
                // debugpy ~0.5 ms and a stock debugpy a 40 ms delayed ACK; lldb-dap ~0.2 ms).
                if !self.view.known_threads.contains(&t) {
                    self.view.known_threads.push(t);
                }
                // An adapter with a placeholder thread (Delve's "Dummy") is asked at once, so the
                // focus moves to a real thread before the result.
                if self.link.plan.runtime.placeholder_thread.is_some() {
                    self.run.stop_pending += 1;
                    self.send("threads", None, Origin::ThreadList { revision }, now);
                }
            }
            None => {
                self.run.stop_pending = 1;
                self.send("threads", None, Origin::StopThreads { revision }, now)
            }
        }
    }

    /// Asks for what a stop result shows: the top frame and, for an exception, `exceptionInfo`
    /// (when the adapter has it). The stop is ready once every answer is in.
    fn fetch_stop_details(&mut self, thread: i64, revision: u64, now: Instant) {
        self.run.stop_pending = 1;
        let exception = self.run.stop.as_ref().is_some_and(|s| s.reason == "exception");
        if exception && self.link.client.capabilities().is_some_and(|c| c.supports_exception_info_request) {
            self.run.stop_pending += 1;
            self.send("exceptionInfo", Some(json!({ "threadId": thread })), Origin::StopException { revision }, now);
        }
        self.send(
            "stackTrace",
            Some(json!({ "threadId": thread, "startFrame": 0, "levels": 1 })),
            Origin::StopLocation { revision },
            now,
        );
    }

    /// One stop-detail answer is in; the waits are answered after the last one.
    fn stop_detail_done(&mut self) {
        self.run.stop_pending = self.run.stop_pending.saturating_sub(1);
        if self.run.stop_pending == 0 {
            self.run.stop_ready = true;
            self.note_stop();
            self.complete_waiters();
        }
    }

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
                Origin::Raw { .. } if !super::raw::only_reads(&r.command) => self.values_changed(),
                // The `evaluate` tool's, and a mirror client's (it only reads, but an expression
                // can run code): an assignment or a call may have changed what pages show.
                Origin::Inspect { op: super::inspect::Op::Evaluate { expression, .. }, .. }
                    if r.command == "evaluate" =>
                {
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
        match origin {
            Origin::Mirror(f) => return self.mirror_completed(seq, f, outcome),
            Origin::Raw { call } => return self.raw_completed(call, outcome),
            _ => {}
        }
        if let Origin::Ctl(op) = origin {
            return self.ctl_completed(op, outcome, now);
        }
        let failure = match &outcome {
            Outcome::Success(_) => None,
            other => Some(other.to_string()),
        };
        self.note_request_error(&outcome);
        let code = ErrorCode::of(&outcome).unwrap_or(ErrorCode::AdapterError);
        let body = match outcome {
            Outcome::Success(r) => r.body.unwrap_or(Value::Null),
            _ => Value::Null,
        };
        match origin {
            Origin::Startup(Step::Initialize) => match failure {
                None => {
                    let args = self.link.plan.launch_arguments.clone();
                    let timeout = self.link.plan.runtime.launch_timeout();
                    let request = self.link.plan.request;
                    self.send_with_timeout(request, Some(args), Origin::Startup(Step::Launch), now, timeout);
                    self.startup.launch_sent = true;
                    if self.link.client.initialized() {
                        self.configure(now);
                    }
                }
                Some(msg) => self.fail_start(code, format!("the adapter did not initialize: {msg}"), actions),
            },
            Origin::Startup(Step::Launch) => match failure {
                None => {
                    self.startup.launch_result = Some(Ok(()));
                    if self.run.state == RunState::Starting {
                        self.run.state = RunState::Running;
                    }
                    self.complete_waiters();
                }
                Some(msg) => {
                    self.startup.launch_result = Some(Err(msg.clone()));
                    // `msg` already names the request: "`attach` failed: <the adapter's words>".
                    let mut why = msg.clone();
                    if let Some(hint) = self.attach_hint() {
                        why.push_str(&format!(" ({hint})"));
                    }
                    self.fail_start(code, why, actions);
                }
            },
            Origin::Startup(Step::ConfigurationDone) => {
                if let Some(msg) = failure {
                    log::warn!("{}: {msg}", self.id);
                }
                if self.run.state == RunState::Starting && matches!(self.startup.launch_result, Some(Ok(()))) {
                    self.run.state = RunState::Running;
                    self.complete_waiters();
                }
            }
            Origin::SetBreakpointsRetry { path, alias, call } => {
                let verified = failure.is_none() && any_verified(&body);
                if verified {
                    self.breaks.store.on_response(&path, Ok(&body));
                    self.breaks.path_aliases.insert(path.clone(), alias);
                }
                self.note_breakpoints(&path, failure.as_deref());
                match call {
                    Some(call) => {
                        self.calls.done.push((call, breakpoint_result(&path, self.breaks.store.get(&path), None)))
                    }
                    None => {
                        self.startup.breakpoints_pending = self.startup.breakpoints_pending.saturating_sub(1);
                        self.configuration_step_done(now);
                    }
                }
            }
            Origin::SetBreakpoints { path, call } => {
                match &failure {
                    None => self.breaks.store.on_response(&path, Ok(&body)),
                    Some(msg) => self.breaks.store.on_response(&path, Err(msg)),
                }
                let none_verified = failure.is_none()
                    && !any_verified(&body)
                    && !self.breaks.store.get(&path).is_empty()
                    && !self.breaks.path_aliases.contains_key(&path);
                if let Some(alias) = none_verified.then(|| self.other_spelling(&path)).flatten() {
                    // The adapter may know the file only under its other spelling (debug info
                    // written through a symlink, or around it): try that before reporting.
                    let mut args = self.breaks.store.set_breakpoints_arguments(&path);
                    args["source"]["path"] = alias.clone().into();
                    self.send("setBreakpoints", Some(args), Origin::SetBreakpointsRetry { path, alias, call }, now);
                    return;
                }
                if failure.as_ref().map_or(true, |_| code != ErrorCode::Disconnected) {
                    self.note_breakpoints(&path, failure.as_deref());
                }
                if call.is_none() {
                    self.startup.breakpoints_pending = self.startup.breakpoints_pending.saturating_sub(1);
                    self.configuration_step_done(now);
                }
                if let Some(call) = call {
                    let output = match failure {
                        Some(msg) if code != ErrorCode::Disconnected => {
                            breakpoint_result(&path, self.breaks.store.get(&path), Some(msg))
                        }
                        Some(msg) => ToolResult::error(code, msg),
                        None => breakpoint_result(&path, self.breaks.store.get(&path), None),
                    };
                    self.calls.done.push((call, output));
                }
            }
            Origin::SetExceptionBreakpoints { call } => {
                if let Some(call) = call {
                    let output = match failure {
                        None => {
                            let filters = self.breaks.exception_filters.clone().unwrap_or_default();
                            ToolResult::ok(
                                format!("exception filters set: [{}]", filters.join(", ")),
                                json!({ "filters": filters }),
                            )
                        }
                        Some(msg) => ToolResult::error(code, msg),
                    };
                    self.calls.done.push((call, output));
                } else if let Some(msg) = failure {
                    log::warn!("{}: {msg}", self.id);
                }
            }
            Origin::Resume { call } => {
                if failure.is_none() {
                    self.run.resume_unacked = false;
                    self.mirror_resumed();
                }
                if let Some(msg) = failure {
                    // The adapter refused to resume: the session is still where it was.
                    self.calls.waiters.retain(|w| w.call != call);
                    if self.run.state == RunState::Running {
                        self.run.state = RunState::Stopped;
                        self.run.stop_ready = true;
                    }
                    self.calls.done.push((call, ToolResult::error(code, msg)));
                }
            }
            Origin::StopLocation { revision } => {
                if revision == self.run.revision {
                    if let Some(frame) = body.get("stackFrames").and_then(Value::as_array).and_then(|f| f.first()) {
                        if let Some(stop) = &mut self.run.stop {
                            stop.location = Some(Location::from_frame(frame));
                            // The top frame of this stop: `evaluate`/`scopes` without a frame use
                            // it directly instead of asking for the stack again.
                            self.run.top_frame =
                                stop.thread.zip(frame.get("id").and_then(Value::as_i64)).map(|(t, f)| (revision, t, f));
                        }
                    }
                    self.stop_detail_done();
                }
            }
            Origin::StopException { revision } => {
                if revision == self.run.revision {
                    if failure.is_none() {
                        let mut info = ExceptionStop::from_info(&body);
                        if self.link.plan.quirks.exit_stops_as_exception {
                            info.note_system_exit();
                        }
                        if let Some(stop) = &mut self.run.stop {
                            stop.exception = Some(info);
                        }
                    }
                    self.stop_detail_done();
                }
            }
            Origin::ThreadList { revision } => {
                self.note_threads(&body);
                if revision == self.run.revision {
                    self.stop_detail_done();
                }
            }
            Origin::StopThreads { revision } => {
                self.note_threads(&body);
                if revision == self.run.revision {
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
            Origin::Disconnect { call } => {
                if std::mem::take(&mut self.run.awaiting_exit_report) {
                    // The exit status (if the adapter printed it) was read from its output.
                    self.run.state = if self.run.exit_code.is_some() { RunState::Exited } else { RunState::Terminated };
                    self.run.stop = None;
                }
                if !self.run.state.is_over() {
                    self.run.state = RunState::Terminated;
                }
                self.link.closing = true;
                actions.push_back(Action::StopAdapter { session: self.key });
                self.complete_waiters();
                if let Some(call) = call {
                    let mut out = self.result("disconnected", false);
                    // An adapter that exits instead of answering `disconnect` did what was asked.
                    if let Some(msg) = failure.filter(|_| code != ErrorCode::Disconnected) {
                        out.text.push_str(&format!(
                            "\n(the adapter did not answer cleanly: {msg}; its process group was stopped)"
                        ));
                    }
                    self.calls.done.push((call, out));
                }
            }
            Origin::Pause { call } => {
                if let Some(msg) = failure {
                    self.calls.waiters.retain(|w| w.call != call);
                    self.calls.done.push((call, ToolResult::error(code, msg)));
                }
            }
            Origin::Inspect { call, op, revision } => {
                let result = match failure {
                    None => Ok(body),
                    Some(msg) => Err((code, msg)),
                };
                self.finish(call, op, result, revision, now);
            }
            Origin::Terminate { call } => {
                if let Some(msg) = failure {
                    self.calls.waiters.retain(|w| w.call != call);
                    self.calls.done.push((call, ToolResult::error(code, msg)));
                }
            }
            // Taken before `outcome` is consumed (above).
            Origin::Mirror(_) | Origin::Ctl(_) | Origin::Raw { .. } => {}
            Origin::EntryBreakpoint { remove } => self.entry_breakpoint_answered(remove, failure, &body),
        }
    }

    /// The configuration phase (DESIGN §5): breakpoints, exception filters, `configurationDone`.
    /// Runs once, after `launch` was sent and `initialized` arrived, in whichever order.
    fn configure(&mut self, now: Instant) {
        if self.startup.configured {
            return;
        }
        self.startup.configured = true;
        let paths: Vec<String> = self.breaks.store.files().map(|(p, _)| p.to_owned()).collect();
        for path in paths {
            self.startup.breakpoints_pending += 1;
            let args = self.breakpoint_arguments(&path);
            self.send("setBreakpoints", Some(args), Origin::SetBreakpoints { path, call: None }, now);
        }
        let caps = self.link.client.capabilities().cloned().unwrap_or_default();
        let known: Vec<String> = caps.exception_breakpoint_filters.iter().map(|f| f.filter.clone()).collect();
        let filters: Vec<String> = match &self.breaks.exception_filters {
            Some(asked) => {
                for f in asked.iter().filter(|f| map_filter(f, &known).is_none()) {
                    self.calls.warnings.push(format!(
                        "exception filter `{f}` is not one of {}'s [{}]; it was ignored",
                        self.link.adapter,
                        known.join(", ")
                    ));
                }
                asked.iter().filter_map(|f| map_filter(f, &known)).collect()
            }
            // A `default` is only a hint to the client: debugpy stops on nothing until told.
            None => caps.exception_breakpoint_filters.iter().filter(|f| f.default).map(|f| f.filter.clone()).collect(),
        };
        if !known.is_empty() {
            self.breaks.exception_filters = Some(filters.clone());
            self.send(
                "setExceptionBreakpoints",
                Some(json!({ "filters": filters })),
                Origin::SetExceptionBreakpoints { call: None },
                now,
            );
        }
        self.configure_function_breakpoints(&caps, now);
        // configurationDone waits for the breakpoints' answers (and retries under another
        // spelling), as VS Code does, so a retried breakpoint still hits in the first lines.
        self.startup.configuration_done_due = caps.supports_configuration_done_request;
        self.configuration_step_done(now);
    }

    /// One configuration-phase `setBreakpoints` answer is in (or none was pending): send
    /// `configurationDone` once all are.
    fn configuration_step_done(&mut self, now: Instant) {
        if self.startup.breakpoints_pending > 0 || !self.startup.configuration_done_due {
            return;
        }
        self.startup.configuration_done_due = false;
        self.send("configurationDone", None, Origin::Startup(Step::ConfigurationDone), now);
    }

    /// For a failed attach by pid: what usually stops it (ptrace permission).
    fn attach_hint(&self) -> Option<&'static str> {
        let by_pid = self.link.plan.request == "attach"
            && self.link.plan.connect.is_none()
            && self.link.plan.launch_arguments.get(self.link.plan.quirks.attach_pid_key).is_some();
        by_pid.then_some(super::plan::PTRACE_HINT)
    }

    pub(super) fn fail_start(&mut self, code: ErrorCode, msg: String, actions: &mut VecDeque<Action>) {
        if self.run.failure.is_none() {
            // Adapters often put the real reason in their output ("Build error: Check the debug
            // console"): the agent has no console, so the last lines come with the error.
            self.output.flush();
            let (tail, _, _) = self.output.tail_since(0, 1200);
            let tail = last_lines(tail.trim_end(), 8);
            let msg = if tail.is_empty() { msg } else { format!("{msg}\n{} output ended with:\n{tail}", self.id) };
            self.run.failure = Some(msg);
        }
        self.run.state = RunState::Terminated;
        self.fail_waiters(code);
        self.link.closing = true;
        actions.push_back(Action::StopAdapter { session: self.key });
    }

    pub(super) fn fail_waiters(&mut self, code: ErrorCode) {
        let msg = self.run.failure.clone().unwrap_or_else(|| "the session ended".into());
        for w in std::mem::take(&mut self.calls.waiters) {
            self.calls.done.push((w.call, ToolResult::error(code, msg.clone())));
        }
    }

    /// Answers every wait that is satisfied (a stop whose location is known, the end, output).
    pub(super) fn complete_waiters(&mut self) {
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

    pub(super) fn mark_running(&mut self) {
        if self.run.state == RunState::Stopped {
            self.run.revision += 1;
        }
        self.view.handles.resumed();
        self.clear_var_caches();
        self.run.state = RunState::Running;
        self.run.stop = None;
        self.run.stop_ready = false;
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
            RunState::Exited | RunState::Terminated => Err(ToolResult::error(
                ErrorCode::NotStopped,
                format!("{} has {}; `restart` (or `launch`) runs it once more.", self.id, self.run.state.as_str()),
            )),
        }
    }
}

/// Maps a requested exception filter onto the adapter's; `all` means `raised` where there is no
/// `all` (debugpy).
pub(super) fn map_filter(f: &str, known: &[String]) -> Option<String> {
    if known.iter().any(|k| k == f) {
        Some(f.to_owned())
    } else if f == "all" && known.iter().any(|k| k == "raised") {
        Some("raised".to_owned())
    } else {
        None
    }
}

/// Maps every filter, or names the first unknown one.
pub(super) fn map_filters(filters: &[String], known: &[String]) -> Result<Vec<String>, String> {
    filters.iter().map(|f| map_filter(f, known).ok_or_else(|| f.clone())).collect()
}

/// Whether a `setBreakpoints` response verified any breakpoint.
fn any_verified(body: &Value) -> bool {
    body.get("breakpoints")
        .and_then(Value::as_array)
        .is_some_and(|b| b.iter().any(|b| b.get("verified").and_then(Value::as_bool) == Some(true)))
}

impl Session {
    /// `setBreakpoints` arguments for `path`, under the spelling the adapter accepted.
    pub(super) fn breakpoint_arguments(&self, path: &str) -> Value {
        let mut args = self.breaks.store.set_breakpoints_arguments(path);
        if let Some(alias) = self.breaks.path_aliases.get(path) {
            args["source"]["path"] = alias.clone().into();
        }
        args
    }

    /// The other spelling of `path` (CASES C22): its real path when it goes through a symlink;
    /// else, when it lies under the real path of the program's or cwd's directory as given
    /// (a symlinked project), the same file under that directory as given. `stat`s only.
    fn other_spelling(&self, path: &str) -> Option<String> {
        let given = Path::new(path);
        let real = std::fs::canonicalize(given).ok()?;
        if real != given {
            return Some(real.to_string_lossy().into_owned());
        }
        let args = &self.link.plan.launch_arguments;
        let program_dir = args.get("program").and_then(Value::as_str).and_then(|p| Path::new(p).parent());
        let cwd = args.get("cwd").and_then(Value::as_str).map(Path::new);
        for base in [program_dir, cwd].into_iter().flatten() {
            let Ok(real_base) = std::fs::canonicalize(base) else { continue };
            if real_base == base {
                continue;
            }
            if let Ok(rest) = real.strip_prefix(&real_base) {
                return Some(base.join(rest).to_string_lossy().into_owned());
            }
        }
        None
    }
}

pub fn breakpoints_json(set: &[Entry]) -> Value {
    Value::Array(
        set.iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("id".into(), e.id.into());
                m.insert("line".into(), e.requested.line.into());
                if let Some(b) = &e.bound {
                    m.insert("verified".into(), b.verified.into());
                    if e.moved() {
                        put(&mut m, "actual_line", b.line.map(Value::from));
                        m.insert("moved".into(), true.into());
                    }
                    put(&mut m, "message", b.message.clone().map(Value::from));
                }
                put(&mut m, "condition", e.requested.condition.clone().map(Value::from));
                put(&mut m, "hit_condition", e.requested.hit_condition.clone().map(Value::from));
                put(&mut m, "log_message", e.requested.log_message.clone().map(Value::from));
                Value::Object(m)
            })
            .collect(),
    )
}

/// The `set_breakpoints` result: one line per breakpoint, verified/moved/unverified.
fn breakpoint_result(path: &str, set: &[Entry], failure: Option<String>) -> ToolResult {
    let mut text = format!("{} breakpoint(s) in {}", set.len(), short(path));
    for e in set {
        let line = e.requested.line;
        match &e.bound {
            Some(b) if b.verified && e.moved() => {
                text.push_str(&format!("\n  line {line}: verified, moved to line {}", b.line.unwrap_or(line)))
            }
            Some(b) if b.verified => text.push_str(&format!("\n  line {line}: verified")),
            Some(b) => text.push_str(&format!(
                "\n  line {line}: NOT verified ({})",
                b.message.as_deref().unwrap_or(
                    "the adapter gave no reason: is the file part of the program, and was it built with debug info?"
                )
            )),
            None => text.push_str(&format!("\n  line {line}: no answer yet")),
        }
    }
    if let Some(f) = failure {
        text.push_str(&format!("\nthe adapter refused the request: {f}"));
    }
    ToolResult::ok(text, json!({ "path": path, "breakpoints": breakpoints_json(set) }))
}

pub(super) fn group_by_path(list: Vec<super::LaunchBreakpoint>) -> Vec<(String, Vec<SourceBreakpoint>)> {
    let mut out: Vec<(String, Vec<SourceBreakpoint>)> = Vec::new();
    for b in list {
        match out.iter_mut().find(|(p, _)| *p == b.path) {
            Some((_, v)) => v.push(b.breakpoint),
            None => out.push((b.path, vec![b.breakpoint])),
        }
    }
    out
}

pub(super) fn wait_duration(wait_ms: Option<u64>) -> Duration {
    wait_ms.map(Duration::from_millis).unwrap_or(super::DEFAULT_WAIT).min(super::MAX_WAIT)
}

pub(super) fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

pub(super) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A `console` output event's text without the lines that are the adapter's own chatter (lines
/// starting with one of `banner`, see `Quirks::console_banner`); every other line is kept as it
/// came. Empty when nothing is left.
fn without_banner(text: &str, banner: &[&str]) -> String {
    text.split_inclusive('\n').filter(|line| !banner.iter().any(|b| line.starts_with(b))).collect()
}

/// Fatal signals a stop may name, with their Linux numbers.
const FATAL_SIGNALS: &[(&str, i64)] =
    &[("SIGSEGV", 11), ("SIGABRT", 6), ("SIGBUS", 7), ("SIGFPE", 8), ("SIGILL", 4), ("SIGTRAP", 5), ("SIGSYS", 31)];

/// The fatal signal a `stopped` event's `description` or `text` names as a word (lldb-dap:
/// "signal SIGSEGV: address not mapped to object (fault address=0x0)").
fn fatal_signal(body: &Value) -> Option<(&'static str, i64)> {
    let words = ["description", "text"].into_iter().filter_map(|k| body.get(k).and_then(Value::as_str));
    let mut found = words.flat_map(|t| t.split(|c: char| !c.is_ascii_alphanumeric()));
    found.find_map(|w| FATAL_SIGNALS.iter().copied().find(|(name, _)| *name == w))
}
