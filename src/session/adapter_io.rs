//! What the IO shell tells the session table about transports: open, failed, bytes, stderr, closed.

use super::*;
use crate::dap::adapters::ExitReport;
use crate::dap::requests::{Initialize, InitializeArguments};
use host::ProgramExit;
use output::Category;
use snapshot::RunState;
use std::time::Instant;
use text::{last_lines, utf8_text};

impl Sessions {
    /// The adapter's DAP transport is open (its pipes registered, or its TCP connection made):
    /// start the choreography.
    pub fn on_spawned(&mut self, key: SessionKey, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        s.link.spawned();
        // runInTerminal is always answered: by the host-request policy (`--host-requests`).
        let args = InitializeArguments::agentdap(&s.link.plan.name, true);
        s.request::<Initialize>(args, Origin::Startup(super::Step::Initialize), now);
        s.pump(now, &mut self.actions);
    }

    /// The adapter could not be started: the launch fails with `reason`.
    pub fn on_spawn_failed(&mut self, key: SessionKey, code: ErrorCode, reason: String) {
        let Some(s) = self.slab.get_mut(key) else { return };
        s.run.state = RunState::Terminated;
        s.run.failure = Some(reason.clone());
        for w in s.calls.waiters.drain(..) {
            self.actions.push_back(Action::Complete { call: w.call, output: ToolResult::error(code, reason.clone()) });
        }
    }

    /// Bytes from the adapter's DAP stream.
    pub fn on_adapter_bytes(&mut self, key: SessionKey, bytes: &[u8], now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        s.link.client.receive(bytes, now);
        s.pump(now, &mut self.actions);
        if let Some(d) = s.link.client.untrusted().filter(|_| s.link.is_alive()) {
            // A frame over the size cap ends trust in the connection. The session
            // ends `disconnected` naming the claim; every wait is answered now, not at a timeout.
            log::warn!("{}: the adapter {d}; ending the session", s.id);
            if !s.run.state.is_over() {
                s.run.failure = Some(format!("agentdap ended the session: the adapter {d}"));
                s.run.state = RunState::Terminated;
                s.run.stop = None;
                s.fail_waiters(ErrorCode::Disconnected);
            }
            self.actions.push_back(Action::StopAdapter { session: key });
            self.on_adapter_closed(key, now);
        }
    }

    /// Bytes from the adapter's stderr: kept as a tail for error messages, and as `adapter`
    /// output — or as the debuggee's `stderr` once the adapter's pipes carry program output
    /// ([`Sessions::on_adapter_listening`]).
    pub fn on_adapter_stderr(&mut self, key: SessionKey, bytes: &[u8]) {
        let Some(s) = self.slab.get_mut(key) else { return };
        s.keep_stderr(bytes);
        if s.link.crashed {
            return;
        }
        let text = utf8_text(&mut s.link.pipe_carry[1], bytes);
        // Where the adapter's pipes are the program's (rdbg), its lines are the program's.
        if !s.link.pipes_are_program_output && s.link.plan.runtime.is_crash_report(&text) {
            s.note_crash(&text);
            return;
        }
        if !s.link.pipes_are_program_output {
            s.output.push(Category::Adapter, &text);
        } else {
            // rdbg 1.4.0 writes its own `DEBUGGER: ` lines into the program's stderr.
            for (adapters, run) in host::adapter_lines(&text, &s.link.plan.runtime) {
                s.output.push(if adapters { Category::Adapter } else { Category::Stderr }, &run);
            }
        }
        self.output_arrived(key);
    }

    /// Bytes from the stdout of an adapter whose DAP flows over TCP: the debuggee's `stdout`
    /// once the adapter's pipes carry program output, else `adapter` output.
    pub fn on_adapter_stdout(&mut self, key: SessionKey, bytes: &[u8]) {
        let Some(s) = self.slab.get_mut(key) else { return };
        let category = if s.link.pipes_are_program_output { Category::Stdout } else { Category::Adapter };
        let text = utf8_text(&mut s.link.pipe_carry[0], bytes);
        // The line a server prints once it listens on the port agentdap chose says nothing new.
        let text: String = match s.link.plan.runtime.listening_line.filter(|_| category == Category::Adapter) {
            Some(prefix) => text.split_inclusive('\n').filter(|l| !l.starts_with(prefix)).collect(),
            None => text,
        };
        if text.is_empty() {
            return;
        }
        s.output.push(category, &text);
        self.output_arrived(key);
    }

    /// Output came through a pipe rather than a DAP `output` event: answer the waits it
    /// satisfies (`wait {for: output}`) now, not at the next DAP message.
    pub(super) fn output_arrived(&mut self, key: SessionKey) {
        let Some(s) = self.slab.get_mut(key) else { return };
        s.complete_waiters();
        for (call, output) in s.calls.done.drain(..) {
            self.actions.push_back(Action::Complete { call, output });
        }
    }

    /// A TCP adapter announced its port (or accepted the connection to a chosen one): from now
    /// on its stdout and stderr are the debuggee's, when its recipe says so
    /// ([`crate::dap::adapters::DebuggeeOutput::AdapterPipes`]). `addr` is where DAP flows: a
    /// child session of an adapter that serves several connections (js-debug) connects there too.
    pub fn on_adapter_listening(&mut self, key: SessionKey, addr: std::net::SocketAddr) {
        let Some(s) = self.slab.get_mut(key) else { return };
        s.link.server_addr = Some(addr);
        // A core file's program never runs: what the adapter writes is its own (Delve 1.20.2 logs
        // "error layer=dap runtime error: …" at a core's stop).
        s.link.pipes_are_program_output = s.link.plan.runtime.debuggee_output
            == crate::dap::adapters::DebuggeeOutput::AdapterPipes
            && s.family.core.is_none();
    }

    /// The adapter's stderr so far (the tail agentdap keeps), for error messages.
    pub fn stderr_tail(&self, key: SessionKey) -> String {
        self.slab.get(key).map(Session::stderr_text).unwrap_or_default()
    }

    /// The session's temporary directory, to remove once its adapter is gone.
    pub fn scratch_dir(&self, key: SessionKey) -> Option<&std::path::Path> {
        self.slab.get(key).and_then(|s| s.link.plan.scratch_dir.as_deref())
    }

    /// The adapter's process exited with `code` or died of `signal` (its pipes drained). Only an
    /// adapter whose process is the program (`ExitReport::AdapterExitStatus`, a launch) makes
    /// it the program's exit status: kept until the DAP connection's close, or ending the run
    /// that waits for it.
    pub fn on_adapter_exited(&mut self, key: SessionKey, code: Option<i64>, signal: Option<i64>, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        if !s.reports_exit_by_process() {
            return;
        }
        let exit = ProgramExit { code, signal };
        s.host.program_exit = Some(exit);
        if std::mem::take(&mut s.run.awaiting_exit_report) {
            s.finish_run(Some(exit), now);
            s.pump(now, &mut self.actions);
            for (call, output) in s.calls.done.drain(..) {
                self.actions.push_back(Action::Complete { call, output });
            }
        }
    }

    /// The adapter's DAP stream closed or its process exited: fail what is pending, end the session.
    pub fn on_adapter_closed(&mut self, key: SessionKey, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        if !s.link.is_alive() && s.link.client.is_closed() {
            return;
        }
        s.link.gone();
        let tail = s.stderr_text();
        if !s.run.state.is_over() && !s.link.is_closing() && s.run.failure.is_none() {
            // Explain a known start-up failure (debugpy missing) before the pending requests fail
            // with a bare "connection closed".
            if let Some(why) = plan::explain_early_exit(&s.link.plan, &tail) {
                s.run.failure = Some(why);
                s.run.state = RunState::Terminated;
                s.fail_waiters(ErrorCode::AdapterNotFound);
            }
        }
        s.link.client.on_closed(&tail);
        // No late reply will come: timed-out mirror requests free their places.
        s.mirror.adapter_answered(None);
        s.pump(now, &mut self.actions);
        let by_process = s.reports_exit_by_process() && !s.link.is_closing() && s.run.failure.is_none();
        if !s.run.state.is_over() && by_process {
            // rdbg 1.4.0: the connection closes as the program ends; the process's status (if
            // reaped already) is the program's, else the waits end once it is.
            match s.host.program_exit {
                Some(exit) => s.finish_run(Some(exit), now),
                None => {
                    s.run.awaiting_exit_report = true;
                    s.run.stop = None;
                }
            }
        } else if !s.run.state.is_over() && s.family.stands_in && !s.link.is_closing() && s.run.failure.is_none() {
            // js-debug closes a target's connection when the program ends: how it ended is the
            // launcher's to tell (`Sessions::sweep_launchers`), not a failure of this one.
            s.run.awaiting_exit_report = true;
            s.run.stop = None;
        } else if !s.run.state.is_over() {
            if s.run.failure.is_none() && !s.link.is_closing() {
                let mapped = plan::explain_early_exit(&s.link.plan, &tail);
                let why = match &mapped {
                    Some(m) => m.clone(),
                    None if tail.is_empty() => "the adapter exited unexpectedly".to_owned(),
                    None => format!("the adapter exited unexpectedly; its stderr ended with: {}", last_lines(&tail, 5)),
                };
                s.run.failure = Some(why);
                let code = if mapped.is_some() { ErrorCode::AdapterNotFound } else { ErrorCode::Disconnected };
                s.run.state = RunState::Terminated;
                s.fail_waiters(code);
            } else {
                s.run.state = RunState::Terminated;
            }
        }
        s.complete_waiters();
        for call in std::mem::take(&mut s.calls.disconnect_calls) {
            let output = s.result("disconnected", false, false);
            s.calls.done.push((call, output));
        }
        s.pump(now, &mut self.actions);
        if s.link.disconnected {
            self.actions.push_back(Action::Release { session: key });
        }
    }
}

impl Session {
    /// The exit status of the adapter's process is the program's: a launch with an adapter that
    /// runs inside the program (`ExitReport::AdapterExitStatus`).
    fn reports_exit_by_process(&self) -> bool {
        self.link.plan.runtime.exit_report == ExitReport::AdapterExitStatus && self.link.plan.request == "launch"
    }
}
