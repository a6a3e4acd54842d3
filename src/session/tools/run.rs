//! Tool group "run" (`mcp/tools/run.rs`): `launch`, `attach`, `continue`, `disconnect`,
//! `terminate` — opening a session (the start-up itself is `session/startup.rs`), resuming it,
//! and ending it. Must not: resolve adapters or paths (`session/plan.rs` and the MCP handlers do).

use std::time::Instant;

use serde_json::{json, Map, Value};

use super::gates::Gate;
use super::{session, stopped, Reply, Started};
use crate::dap::requests::{Terminate, TerminateArguments};
use crate::session::breakpoints::{FunctionBreakpoint, Mode, SourceBreakpoint};
use crate::session::snapshot::RunState;
use crate::session::waiters::{wait_duration, Until, Waiter};
use crate::session::{
    Action, AdapterPlan, CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, Start, ToolResult, DEFAULT_WAIT,
};

/// What a run request is doing; carried in [`Origin::Run`].
#[derive(Debug)]
pub enum Op {
    /// DAP `disconnect`, for the `disconnect` tool's call, or agentdap's own (the debuggee
    /// ended, shutdown, a child ending with its parent).
    Disconnect { call: Option<CallKey> },
    /// DAP `terminate`: its failure fails the call's wait.
    Terminate { call: CallKey },
}

/// Arguments of the `launch` tool (README § Tools).
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchArgs {
    /// Required unless `test`, `config` or `list_configs` is given (the MCP handler checks).
    #[serde(default)]
    pub program: String,
    /// One test to debug (`launch {test}`: README § Recipes › A test fails): a pytest node id, a
    /// unittest id, a Go or Rust test name, a `node:test` test's name.
    pub test: Option<String>,
    /// The run [`Sessions::launch`] gives the session (set by the handler, never by the agent).
    #[serde(skip)]
    pub test_run: Option<crate::session::test_outcome::TestRun>,
    #[serde(default)]
    pub args: Vec<String>,
    pub cwd: Option<String>,
    #[serde(default)]
    pub env: Map<String, Value>,
    pub adapter: Option<String>,
    pub stop_on_entry: Option<bool>,
    #[serde(default)]
    pub breakpoints: Vec<LaunchBreakpoint>,
    pub exception_filters: Option<Vec<String>>,
    #[serde(default)]
    pub no_debug: bool,
    #[serde(default)]
    pub adapter_args: Map<String, Value>,
    pub wait_ms: Option<u64>,
    /// `internal` (default) or `terminal`: agentdap runs the program (`runInTerminal`), owning
    /// its stdin.
    pub console: Option<String>,
    /// A configuration of the project's `.vscode/launch.json` (`plan::launch_json`).
    pub config: Option<String>,
    /// List the project's launch.json configurations instead of launching.
    #[serde(default)]
    pub list_configs: bool,
}

/// The `attach` tool's arguments, checked (see `mcp::tools::run`).
#[derive(Clone, Debug, Default)]
pub struct AttachStart {
    /// `pid 4242` or `127.0.0.1:5678`, shown as the session's program.
    pub target: String,
    pub pid: Option<i64>,
    /// The host the agent named for `connect`.
    pub connect_host: Option<String>,
    pub breakpoints: Vec<LaunchBreakpoint>,
    pub exception_filters: Option<Vec<String>>,
    pub wait_ms: Option<u64>,
    /// Sent to `pid` before the adapter starts (Node's `SIGUSR1` opens its inspector:
    /// `AttachEndpoint::DebuggeeEndpoint`'s `pid_signal`).
    pub signal_first: Option<crate::dap::adapters::DebuggeeSignal>,
    /// `attach {core, program}`: the core file the session reads (`session::postmortem`).
    pub core: Option<crate::session::snapshot::PostMortem>,
}

/// A breakpoint given to `launch`: a path plus a DAP `SourceBreakpoint`.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct LaunchBreakpoint {
    pub path: String,
    #[serde(flatten)]
    pub breakpoint: SourceBreakpoint,
}

impl Sessions {
    /// Starts a launch: a new session in `starting`, its adapter to spawn. The call is answered at
    /// the first stop, the exit, or after `wait_ms` (then honestly `running`).
    pub fn launch(&mut self, args: LaunchArgs, plan: AdapterPlan, call: CallKey, now: Instant) -> Started {
        self.room()?;
        let mut breakpoints = std::mem::take(&mut self.pending_breakpoints);
        let carried_over = breakpoints.listing();
        for (path, set) in group_by_path(args.breakpoints) {
            breakpoints.apply(&path, Mode::Add, set);
        }
        let waiter = Waiter::new(call, now, wait_duration(args.wait_ms), "launched", Until::Stop, 0);
        // The adapter asks agentdap to run the program (`runInTerminal`): the agent's `console:
        // terminal`, or a recipe that always does (js-debug's `integratedTerminal`).
        let by_terminal = ["integratedTerminal", "externalTerminal"]
            .contains(&plan.launch_arguments.get("console").and_then(Value::as_str).unwrap_or(""));
        let asked = args.console.as_deref() == Some("terminal");
        let terminal = asked || by_terminal;
        let on_pipes = !asked && plan.runtime.program_on_pipes;
        // A runner whose failure is a call, not an exception (Go's `t.Errorf`): a function
        // breakpoint on it, after the agent's own.
        if let Some((f, runner)) = args.test_run.as_ref().and_then(|t| Some((t.runner.failure_function()?, t.runner))) {
            let mut list: Vec<FunctionBreakpoint> =
                breakpoints.functions().iter().map(|e| e.requested.clone()).collect();
            if !list.iter().any(|b| b.name == f) {
                let condition = runner.failure_condition().map(str::to_owned);
                list.push(FunctionBreakpoint { name: f.into(), condition, hit_condition: None });
                breakpoints.set_functions(list);
            }
        }
        let test = args.test_run;
        let start = Start { program: args.program, breakpoints, exception_filters: args.exception_filters, id: None };
        let key = self.open(start, plan, Some(waiter), None, true, now);
        if let Some(s) = self.slab.get_mut(key) {
            s.host.terminal_console = terminal;
            s.host.program_on_pipes = on_pipes;
            s.host.stdin_is_adapters = s.link.plan.runtime.program_on_command_line;
            s.calls.carried_over = carried_over;
            s.test = test.map(|run| crate::session::test_outcome::TestSession { run, below: None });
        }
        self.latest = Some(key);
        Ok(())
    }

    /// Starts an attach (`attach` tool): like a launch, with the DAP `attach` request, a
    /// debuggee that is never agentdap's to end, and a call answered once attached (or at a
    /// first stop, or after `wait_ms`). `target` is what the session shows as its program.
    pub fn attach(&mut self, args: AttachStart, plan: AdapterPlan, call: CallKey, now: Instant) -> Started {
        self.room()?;
        let mut breakpoints = std::mem::take(&mut self.pending_breakpoints);
        let carried_over = breakpoints.listing();
        for (path, set) in group_by_path(args.breakpoints) {
            breakpoints.apply(&path, Mode::Add, set);
        }
        // A core's one stop is the crash: the call waits for it (`session::postmortem`).
        let (verb, until) = if args.core.is_some() { ("opened", Until::Stop) } else { ("attached", Until::Attached) };
        let waiter = Waiter::new(call, now, wait_duration(args.wait_ms), verb, until, 0);
        if let (Some(signal), Some(pid)) = (args.signal_first, args.pid) {
            self.actions.push_back(Action::SignalDebuggee { pid, signal });
        }
        let start =
            Start { program: args.target.clone(), breakpoints, exception_filters: args.exception_filters, id: None };
        let key = self.open(start, plan, Some(waiter), None, false, now);
        if let Some(s) = self.slab.get_mut(key) {
            s.family.attach_target = args.connect_host;
            s.calls.carried_over = carried_over;
            s.family.debuggee_pid = args.pid;
            s.family.core = args.core;
        }
        self.latest = Some(key);
        Ok(())
    }

    /// `continue`: resumes the stopped session and waits for the next stop or the exit. With
    /// `reverse`, DAP `reverseContinue` (DAP § Requests › ReverseContinue), refused before
    /// anything is sent where the adapter does not advertise `supportsStepBack`.
    pub fn resume(
        &mut self,
        key: SessionKey,
        thread: Option<i64>,
        reverse: bool,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        session(&mut self.slab, key)?.require_live(if reverse { "continue {reverse}" } else { "continue" })?;
        let s = stopped(&mut self.slab, key)?;
        if reverse {
            s.require(Gate::ReverseContinue)?;
        }
        s.check_thread(thread)?;
        let thread = s.thread_for(thread).unwrap_or(0);
        let (command, verb) =
            if reverse { ("reverseContinue", "reverse-continued") } else { ("continue", "continued") };
        s.resume_with(command, json!({ "threadId": thread }), call, wait_duration(wait_ms), verb, now);
        s.pump(now, &mut self.actions);
        Ok(())
    }

    /// `disconnect`: ends the session (terminating a launched debuggee unless told otherwise),
    /// then the adapter's process group goes.
    pub fn disconnect(
        &mut self,
        key: SessionKey,
        terminate_debuggee: Option<bool>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        // Children first (DAP § Reverse Requests › StartDebugging): they are disconnected, and
        // leave the table with the parent.
        let terminate_default = self.slab.get(key).is_some_and(|s| s.family.owns_debuggee);
        for child in self.children_of(key) {
            if let Some(c) = self.slab.get_mut(child) {
                c.link.disconnected = true;
                if !c.link.is_alive() {
                    self.actions.push_back(Action::Release { session: child });
                    continue;
                }
            }
            self.end_child(child, terminate_debuggee.unwrap_or(terminate_default), now);
        }
        let s = session(&mut self.slab, key)?;
        if terminate_debuggee == Some(false) && s.family.stands_in && s.family.owns_debuggee {
            // The program is the process agentdap ran for js-debug (`session::launcher`): it goes
            // with the session whatever the flag says, and the result says so.
            s.calls.warnings.push(format!(
                "terminate_debuggee: false cannot keep this program running: agentdap runs it for {}, and it ends with the session",
                s.link.adapter
            ));
        }
        if !s.link.is_alive() {
            // Not started yet (its spawn may still be queued) or already gone: end it here; the
            // IO shell stops an adapter that starts meanwhile before the session is dropped.
            if !s.run.state.is_over() {
                s.link.ask_to_close();
                s.run.ended_by_agentdap = true;
                s.run.failure = Some(format!("{} was disconnected before its adapter started", s.id));
                s.run.state = RunState::Terminated;
                s.fail_waiters(ErrorCode::Disconnected);
                s.pump(now, &mut self.actions);
            }
            let output = s.result("disconnected", false, false);
            self.actions.push_back(Action::Complete { call, output });
            self.actions.push_back(Action::Release { session: key });
            return Ok(());
        }
        s.link.disconnected = true;
        if s.link.is_closing() {
            // A disconnect is already under way (the debuggee ended, or an earlier call): answer
            // once the adapter is gone, and make sure it goes.
            s.calls.disconnect_calls.push(call);
            self.actions.push_back(Action::StopAdapter { session: key });
            return Ok(());
        }
        s.link.ask_to_close();
        // An attached process is the user's: detach unless the agent asks otherwise. A core
        // file's debuggee is no process: ending it closes the file (lldb-dap 22.1.8 refuses to
        // detach from one; `tests/native/core_dump.rs`), and nothing else is touched.
        let terminate = s.family.core.is_some() || terminate_debuggee.unwrap_or(s.family.owns_debuggee);
        self.actions.push_back(Action::TrackProcesses);
        s.send_disconnect(Some(terminate), Origin::Run(Op::Disconnect { call: Some(call) }), now);
        s.pump(now, &mut self.actions);
        Ok(())
    }

    /// `disconnect {graceful}`: DAP `terminate` (the program is asked to end itself) when the
    /// adapter supports it, else `disconnect` with the program terminated, and the result says
    /// which ([`Gate::Terminate`]).
    pub fn terminate(&mut self, key: SessionKey, call: CallKey, now: Instant) -> Started {
        let s = session(&mut self.slab, key)?;
        if !s.link.is_alive() || s.run.state.is_over() || s.family.core.is_some() {
            // Nothing runs that could end itself (a core file: `session::postmortem`).
            return self.disconnect(key, Some(true), call, now);
        }
        if let Err(refused) = Gate::Terminate.check(&s.link.adapter, s.link.client.capabilities()) {
            let why = refused.text.trim_start_matches("unsupported: ").trim_end_matches('.');
            s.calls.warnings.push(format!("not graceful: {why}"));
            return self.disconnect(key, Some(true), call, now);
        }
        let since = s.run.revision;
        s.run.ended_by_agentdap = true;
        s.calls.waiters.push(Waiter::new(call, now, DEFAULT_WAIT, "terminated", Until::Exit, since));
        s.request::<Terminate>(TerminateArguments::default(), Origin::Run(Op::Terminate { call }), now);
        s.pump(now, &mut self.actions);
        Ok(())
    }
}

impl Session {
    /// The answer to `disconnect` or `terminate`.
    pub(in crate::session) fn run_answered(
        &mut self,
        op: Op,
        reply: Reply,
        actions: &mut std::collections::VecDeque<Action>,
    ) {
        let Reply { failure, code, .. } = reply;
        match op {
            Op::Disconnect { call } => {
                if std::mem::take(&mut self.run.awaiting_exit_report) {
                    // The exit status (if the adapter printed it) was read from its output.
                    self.run.state = if self.run.exit_code.is_some() { RunState::Exited } else { RunState::Terminated };
                    self.run.stop = None;
                }
                if !self.run.state.is_over() {
                    self.run.state = RunState::Terminated;
                }
                self.link.ask_to_close();
                actions.push_back(Action::StopAdapter { session: self.key });
                self.complete_waiters();
                if let Some(call) = call {
                    let mut out = self.result("disconnected", false, false);
                    // An adapter that exits instead of answering `disconnect` did what was asked.
                    if let Some(msg) = failure.filter(|_| code != ErrorCode::Disconnected) {
                        out.text.push_str(&format!(
                            "\n(the adapter did not answer cleanly: {msg}; its process group was stopped)"
                        ));
                    }
                    self.calls.done.push((call, out));
                }
            }
            Op::Terminate { call } => {
                if let Some(msg) = failure {
                    self.calls.waiters.retain(|w| w.call != call);
                    self.calls.done.push((call, ToolResult::error(code, msg)));
                }
            }
        }
    }

    /// A `disconnect` or `terminate` that never went out.
    pub(in crate::session) fn run_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        match op {
            Op::Terminate { call } => {
                self.calls.waiters.retain(|w| w.call != call);
                self.calls.done.push((call, ToolResult::error(code, msg)));
            }
            Op::Disconnect { call: Some(call) } => {
                let out = self.result("disconnected", false, false);
                self.calls.done.push((call, out));
            }
            Op::Disconnect { call: None } => {}
        }
    }
}

/// The breakpoints given to `launch`/`attach`, grouped by file in the order given.
fn group_by_path(list: Vec<LaunchBreakpoint>) -> Vec<(String, Vec<SourceBreakpoint>)> {
    let mut out: Vec<(String, Vec<SourceBreakpoint>)> = Vec::new();
    for b in list {
        match out.iter_mut().find(|(p, _)| *p == b.path) {
            Some((_, v)) => v.push(b.breakpoint),
            None => out.push((b.path, vec![b.breakpoint])),
        }
    }
    out
}
