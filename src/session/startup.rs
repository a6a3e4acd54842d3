//! The start-up choreography (DAP § Overview: initialize, launch or attach, `initialized`, the
//! configuration phase, `configurationDone`), as VS Code runs it: `launch` goes out after
//! `initialize` is answered, the configuration phase runs once both the launch is sent and
//! `initialized` came, and `configurationDone` waits for the configuration-phase breakpoints'
//! answers. Also the temporary entry breakpoint that makes "stop on entry" stop at `main`. Must
//! not: answer tool calls other than through the waits it ends.

use std::collections::VecDeque;
use std::time::Instant;

use serde_json::Value;

use super::breakpoints::FunctionBreakpoint;
use super::files::Files;
use super::output::Category;
use super::snapshot::RunState;
use super::text::last_lines;
use super::tools::breakpoints::{map_filter, Op as BreakpointsOp};
use super::tools::Reply;
use super::{Action, ErrorCode, Origin, Session, Step};
use crate::dap::protocol::Capabilities;
use crate::dap::requests::{
    ConfigurationDone, Request, SetBreakpoints, SetExceptionBreakpoints, SetFunctionBreakpoints,
};

impl Session {
    /// The answer to a start-up request.
    pub(super) fn startup_answered(&mut self, step: Step, reply: Reply, now: Instant, actions: &mut VecDeque<Action>) {
        let Reply { failure, code, body } = reply;
        match step {
            Step::Initialize => match failure {
                None => {
                    let args = self.link.plan.launch_arguments.clone();
                    let timeout = self.link.plan.runtime.launch_timeout();
                    let request = self.launch_command();
                    self.send_with_timeout(request, Some(args), Origin::Startup(Step::Launch), now, timeout);
                    self.startup.launch_sent = true;
                    if self.link.client.initialized() {
                        self.configure(now);
                    }
                }
                Some(msg) => self.fail_start(code, format!("the adapter did not initialize: {msg}"), actions),
            },
            Step::Launch => match failure {
                None => {
                    self.startup.launch_result = Some(Ok(()));
                    if self.run.state == RunState::Starting && !self.awaits_target() {
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
            Step::ConfigurationDone => {
                if let Some(msg) = failure {
                    log::warn!("{}: {msg}", self.id);
                }
                if self.run.state == RunState::Starting
                    && matches!(self.startup.launch_result, Some(Ok(())))
                    && !self.awaits_target()
                {
                    self.run.state = RunState::Running;
                    self.complete_waiters();
                }
            }
            Step::EntryBreakpoint { remove } => self.entry_breakpoint_answered(remove, failure, &body),
        }
    }

    /// The request that starts the run: the plan's `launch` or `attach`, or for a launch that
    /// stops on entry the adapter's own way to do it (`Quirks::stop_on_entry_request`: rdbg
    /// 1.4.0 ignores `stopOnEntry`, and its `attach` leaves the program stopped at its start).
    fn launch_command(&self) -> &'static str {
        let plan = &self.link.plan;
        let on_entry = plan.launch_arguments.get(plan.quirks.stop_on_entry_key) == Some(&Value::Bool(true));
        match plan.quirks.stop_on_entry_request {
            Some(request) if plan.request == "launch" && on_entry => request,
            _ => plan.request,
        }
    }

    /// The configuration phase (DAP § Overview › Initialization): breakpoints, exception filters,
    /// `configurationDone`. Runs once, after `launch` was sent and `initialized` arrived, in
    /// whichever order.
    pub(super) fn configure(&mut self, now: Instant) {
        if self.startup.configured {
            return;
        }
        self.startup.configured = true;
        // The agent's files and any a person set breakpoints in: the adapter holds the union.
        let paths: Vec<String> = self.breaks.store.union_paths();
        for path in paths {
            self.startup.breakpoints_pending += 1;
            let args = self.breakpoint_request(&path);
            self.request::<SetBreakpoints>(args, Origin::Breakpoints(BreakpointsOp::Set { path, call: None }), now);
        }
        let caps = self.link.client.capabilities().cloned().unwrap_or_default();
        let known: Vec<String> = caps.exception_breakpoint_filters.iter().map(|f| f.filter.clone()).collect();
        let filters: Vec<String> = match &self.breaks.exception_filters {
            Some(asked) => {
                for f in asked.iter().filter(|f| map_filter(f, &known, &self.link.plan.quirks).is_none()) {
                    self.calls.warnings.push(format!(
                        "exception filter `{f}` is not one of {}'s [{}]; it was ignored",
                        self.link.adapter,
                        known.join(", ")
                    ));
                }
                asked.iter().filter_map(|f| map_filter(f, &known, &self.link.plan.quirks)).collect()
            }
            // A `default` is only a hint to the client: debugpy stops on nothing until told.
            None => caps.exception_breakpoint_filters.iter().filter(|f| f.default).map(|f| f.filter.clone()).collect(),
        };
        if !known.is_empty() {
            self.breaks.exception_filters = Some(filters.clone());
            self.request::<SetExceptionBreakpoints>(
                self.exception_arguments(filters),
                Origin::Breakpoints(BreakpointsOp::Exception { call: None }),
                now,
            );
        }
        self.configure_function_breakpoints(&caps, now);
        self.configure_data_breakpoints(now);
        // configurationDone waits for the breakpoints' answers (and retries under another
        // spelling), as VS Code does, so a retried breakpoint still hits in the first lines.
        self.startup.configuration_done_due = caps.supports_configuration_done_request;
        self.configuration_step_done(now);
    }

    /// One configuration-phase `setBreakpoints` answer is in (or none was pending): send
    /// `configurationDone` once all are.
    pub(super) fn configuration_step_done(&mut self, now: Instant) {
        if self.startup.breakpoints_pending > 0 || !self.startup.configuration_done_due {
            return;
        }
        self.startup.configuration_done_due = false;
        self.request::<ConfigurationDone>((), Origin::Startup(Step::ConfigurationDone), now);
    }

    /// The process of an attach by pid through an adapter that traces it (`attach {pid}`, not
    /// `connect`, not Node's inspector): the pid the `attach` request names.
    fn attach_pid(&self) -> Option<i64> {
        let plan = &self.link.plan;
        if plan.request != "attach" || plan.connect.is_some() {
            return None;
        }
        plan.launch_arguments.get(plan.quirks.attach_pid_key).and_then(Value::as_i64)
    }

    /// For a failed attach by pid: what is known of why, from the kernel's side. The process is
    /// gone (it ended during the attach); another process traces it (one tracer at a time); Yama
    /// refuses ptrace ([`super::plan::PTRACE_HINT`]); or, when none of these holds, that ptrace
    /// is permitted here, so the adapter's words are the reason. An adapter's helper that said it
    /// failed but sent no report
    /// ([`AttachHelperFailure`](crate::dap::adapters::AttachHelperFailure)) is named first.
    fn attach_hint(&self) -> Option<String> {
        let pid = self.attach_pid()?;
        let files = &self.link.files;
        let mut hint = Vec::new();
        if let Some(f) = self.link.plan.quirks.attach_helper_failure.filter(|_| self.startup.helper_failed) {
            hint.push(format!("{} said \"{}\"; {}", self.link.adapter, f.marker, f.helper));
        }
        hint.push(match process_fate(files.as_ref(), pid) {
            Fate::Gone => format!("process {pid} is no longer running: it ended during the attach"),
            Fate::Traced(tracer) => format!("process {pid} is traced by process {tracer} (only one tracer at a time)"),
            Fate::Running => match super::plan::ptrace_refused(files.as_ref()) {
                Some(why) => why,
                None => {
                    format!("ptrace is permitted here (Yama and CAP_SYS_PTRACE allow it); process {pid} still runs")
                }
            },
        });
        Some(hint.join("; "))
    }

    /// An `output` event while an attach by pid starts, for an adapter whose helper may fail
    /// without answering the `attach`
    /// ([`AttachHelperFailure`](crate::dap::adapters::AttachHelperFailure), `Quirks::attach_helper_failure`):
    /// until `initialized`, its `progress` lines and its `stderr` events (the helper's marker, the
    /// helper's output) are the adapter's words (`adapter` output, not the program's); the
    /// `stderr` event after the marker ends the start-up at once with what the debugger and the
    /// adapter said and what became of the process. `true` when the event was taken.
    pub(super) fn attach_helper_output(
        &mut self,
        category: Option<&str>,
        text: &str,
        actions: &mut VecDeque<Action>,
    ) -> bool {
        let Some(helper) = self.link.plan.quirks.attach_helper_failure else { return false };
        let Some(pid) = self.attach_pid() else { return false };
        // Once `initialized` came, the helper did its work (debugpy 1.8.22 sends it only after
        // the injected debug server connected): what follows may be the program's.
        if self.run.state != RunState::Starting || self.link.client.initialized() {
            return false;
        }
        let progress = category == Some("stdout") && !helper.progress.is_empty() && text.starts_with(helper.progress);
        if progress {
            self.output.push(Category::Adapter, text);
            return true;
        }
        if category != Some("stderr") {
            return false;
        }
        self.output.push(Category::Adapter, text);
        if !self.startup.helper_failed {
            if !helper.is_marker(text) {
                // The helper's output streamed while it runs long (debugpy: after 10 s): its own.
                return true;
            }
            self.startup.helper_failed = true;
            return true;
        }
        let words = helper.words(text);
        let mut msg = format!("{} could not attach to process {pid}: {} failed", self.link.adapter, helper.helper);
        if !words.debugger.is_empty() {
            let left_out = match words.debugger_left_out {
                0 => String::new(),
                n => format!(" ({n} earlier lines not shown)"),
            };
            msg.push_str(&format!(". {}{left_out}: {}", helper.output_name, quoted(&words.debugger)));
        }
        if !words.adapter.is_empty() {
            msg.push_str(&format!(". {} said: {}", self.link.adapter, quoted(&words.adapter)));
        }
        msg.push_str(&match process_fate(self.link.files.as_ref(), pid) {
            Fate::Gone => format!(". Process {pid} is gone: the failed attach may have ended it ({})", helper.harm),
            Fate::Traced(tracer) => format!(". Process {pid} is still traced by process {tracer}"),
            Fate::Running => {
                format!(". Process {pid} still runs; the failed attach may have harmed it ({})", helper.harm)
            }
        });
        msg.push_str(&format!(". The whole report: `output {{session: \"{}\"}}`.", self.id));
        // Set before `fail_start`, which would otherwise add the output's tail: the report is there.
        self.run.failure = Some(msg.clone());
        self.fail_start(ErrorCode::AdapterError, msg, actions);
        true
    }

    /// While an attach by pid starts and a call waits on it, at most every
    /// [`TARGET_CHECK_EVERY`]: when the process is gone the start-up fails, rather than at the
    /// request's timeout. A failed attach can end the process and report nothing (debugpy 1.8.22
    /// with `linuxAttachPreferLldb`: its lldb injector exits 0 whatever happened, and the adapter
    /// waits 60 s for a debug server). An adapter with a helper that reports its failure
    /// ([`AttachHelperFailure`](crate::dap::adapters::AttachHelperFailure)) gets
    /// [`HELPER_REPORT_GRACE`] after the process is first seen gone, since its report says more
    /// (debugpy's comes up to a second after its injector ends, which is after the process died).
    pub(super) fn check_attach_target(&mut self, now: Instant, actions: &mut VecDeque<Action>) {
        if self.run.state != RunState::Starting || self.calls.waiters.is_empty() || self.startup.helper_failed {
            return;
        }
        let Some(pid) = self.attach_pid() else { return };
        if self.startup.target_checked.is_some_and(|at| now < at + TARGET_CHECK_EVERY) {
            return;
        }
        self.startup.target_checked = Some(now);
        if !matches!(process_fate(self.link.files.as_ref(), pid), Fate::Gone) {
            return;
        }
        let gone_since = *self.startup.target_gone.get_or_insert(now);
        let grace =
            self.link.plan.quirks.attach_helper_failure.map_or(std::time::Duration::ZERO, |_| HELPER_REPORT_GRACE);
        if now < gone_since + grace {
            return;
        }
        let mut msg = format!("process {pid} ended while {} was attaching to it", self.link.adapter);
        if let Some(helper) = self.link.plan.quirks.attach_helper_failure {
            msg.push_str(&format!("; the attach may have ended it ({})", helper.harm));
        }
        self.fail_start(ErrorCode::AdapterError, msg, actions);
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
        self.link.ask_to_close();
        actions.push_back(Action::StopAdapter { session: self.key });
    }

    /// or Go program, the temporary breakpoint on its entry function, in one request.
    pub(super) fn configure_function_breakpoints(&mut self, caps: &Capabilities, now: Instant) {
        let entry = self.link.plan.entry_function;
        let mine = !self.breaks.store.functions().is_empty();
        if !caps.supports_function_breakpoints {
            if let Some(name) = entry {
                self.calls.warnings.push(format!(
                    "stop on entry: {} has no function breakpoints, so it cannot stop at `{name}`",
                    self.link.adapter
                ));
            }
            if mine {
                self.calls.warnings.push(format!(
                    "{} has no function breakpoints; the {} function breakpoint(s) were not set",
                    self.link.adapter,
                    self.breaks.store.functions().len()
                ));
            }
            return;
        }
        match entry {
            Some(name) => {
                self.breaks.entry_breakpoint = true;
                let args = self.breaks.store.function_request(Some(name));
                self.request::<SetFunctionBreakpoints>(
                    args,
                    Origin::Startup(Step::EntryBreakpoint { remove: false }),
                    now,
                );
            }
            None if mine => self.send_function_breakpoints(None, now),
            None => {}
        }
    }

    /// A restart by the adapter (DAP `restart`): "stop on entry" sets the temporary entry
    /// breakpoint again first (the adapter keeps the other breakpoints).
    pub(super) fn rearm_entry_breakpoint(&mut self, now: Instant) {
        if let Some(name) = self.link.plan.entry_function {
            if self.link.client.capabilities().is_some_and(|c| c.supports_function_breakpoints) {
                self.breaks.entry_breakpoint = true;
                let args = self.breaks.store.function_request(Some(name));
                let origin = Origin::Startup(Step::EntryBreakpoint { remove: false });
                self.request::<SetFunctionBreakpoints>(args, origin, now);
            }
        }
    }

    /// At the first stop: the temporary entry breakpoint did its job (or another stop came
    /// first) and goes, so it never fires again (a recursive `main`); the agent's stay.
    pub(super) fn drop_entry_breakpoint(&mut self, now: Instant) {
        if !self.breaks.entry_breakpoint {
            return;
        }
        self.breaks.entry_breakpoint = false;
        let args = self.breaks.store.function_request(None);
        self.request::<SetFunctionBreakpoints>(args, Origin::Startup(Step::EntryBreakpoint { remove: true }), now);
    }

    /// The answer to a request carrying (or dropping) the entry breakpoint: the agent's function
    /// breakpoints come first in it; a refused or unverified entry breakpoint is a warning.
    fn entry_breakpoint_answered(&mut self, remove: bool, failure: Option<String>, body: &Value) {
        let sent: Vec<FunctionBreakpoint> = self.breaks.store.functions().iter().map(|e| e.requested.clone()).collect();
        // A body that is not an object reads as empty, as `body.get("breakpoints")` did.
        let answer = SetFunctionBreakpoints::parse(Some(body)).unwrap_or_default();
        match &failure {
            None => self.breaks.store.on_functions_answer(&sent, Ok(&answer)),
            Some(msg) => self.breaks.store.on_functions_answer(&sent, Err(msg)),
        }
        if remove {
            return;
        }
        // The entry breakpoint is the one after the agent's.
        let verified = answer.breakpoints.get(sent.len()).is_some_and(|b| b.verified);
        if failure.is_some() || !verified {
            let name = self.link.plan.entry_function.unwrap_or("main");
            let why = failure.unwrap_or_else(|| "not verified".into());
            self.calls.warnings.push(format!(
                "stop on entry: the adapter did not set the breakpoint on `{name}` ({why}); the program may run to its end"
            ));
        }
    }
}

/// What became of a process an attach by pid was for, by `/proc` (proc(5)).
enum Fate {
    /// No such process, or a zombie.
    Gone,
    /// Another process traces it (`TracerPid` of `/proc/<pid>/status`).
    Traced(i64),
    Running,
}

/// How often a starting attach by pid looks whether its process is still there (one `/proc`
/// read).
const TARGET_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a helper's failure report may follow the end of the process it attached to before
/// the start-up fails without it (debugpy 1.8.22 polls its injector once a second; a loaded
/// machine adds seconds).
const HELPER_REPORT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Most bytes of a `/proc/<pid>/status` read (about 1.5 KiB on Linux 6).
const STATUS_CAP: u64 = 16 << 10;

fn process_fate(files: &dyn Files, pid: i64) -> Fate {
    match files.process_stat(pid) {
        None => return Fate::Gone,
        Some(st) if matches!(st.state, b'Z' | b'X') => return Fate::Gone,
        Some(_) => {}
    }
    let status = files.read_bounded(std::path::Path::new(&format!("/proc/{pid}/status")), STATUS_CAP);
    let tracer = status.ok().and_then(|bytes| {
        String::from_utf8_lossy(&bytes)
            .lines()
            .find_map(|l| l.strip_prefix("TracerPid:"))
            .and_then(|t| t.trim().parse::<i64>().ok())
    });
    match tracer {
        Some(t) if t > 0 => Fate::Traced(t),
        _ => Fate::Running,
    }
}

/// Lines as the agent reads them in one sentence: each quoted by [`crate::visible::quoted`] (an
/// adapter's text may hold anything), joined by `; `.
fn quoted(lines: &[String]) -> String {
    lines.iter().map(|l| crate::visible::quoted(l)).collect::<Vec<_>>().join("; ")
}
