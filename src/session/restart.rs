//! `restart` (DESIGN §4): DAP `restart` when the adapter advertises `supportsRestartRequest`
//! (the launch arguments re-sent as its `arguments`), else a relaunch — the same plan,
//! configuration and breakpoints, a new adapter process started once the old one is gone.
//!
//! The session keeps its id, output (the new run's follows the old run's; cursors keep
//! counting), breakpoints, exception filters, watches and DAP log. Its revision moves on, so
//! every frame id and variable ref from before is refused with `target_invalidated`. Its mirror
//! closes (§7) and its child sessions end with the old run. Sans-IO.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::json;

use super::control::{Until, Waiter};
use super::ctl::{Answer, Op};
use super::events::wait_duration;
use super::snapshot::RunState;
use super::{Action, CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, Startup, ToolResult};
use crate::dap::client::DapClient;

/// The result's verb.
const VERB: &str = "restarted";

impl Sessions {
    /// `restart`: answered at the new run's first stop, its exit, or after `wait_ms`.
    pub fn restart(&mut self, key: SessionKey, wait_ms: Option<u64>, call: CallKey, now: Instant) {
        let Some(s) = self.slab.get(key) else {
            return self.complete(call, ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."));
        };
        let refusal = if let Some((_, parent)) = &s.family.parent {
            Some((
                ErrorCode::Unsupported,
                format!("{} is a child session of {parent}; restart {parent} instead.", s.id),
            ))
        } else if s.link.disconnected {
            Some((ErrorCode::InvalidArgument, format!("{} was disconnected; `launch` the program again.", s.id)))
        } else if s.ctl.relaunch_pending
            || s.ctl.restart_call.is_some_and(|(c, _)| s.calls.waiters.iter().any(|w| w.call == c))
        {
            Some((ErrorCode::InvalidArgument, format!("a restart of {} is under way; call `wait`.", s.id)))
        } else {
            None
        };
        if let Some((code, msg)) = refusal {
            return self.complete(call, ToolResult::error(code, msg));
        }
        let in_adapter = s.link.client.capabilities().is_some_and(|c| c.supports_restart_request)
            && s.link.adapter_alive
            && !s.link.closing
            && matches!(s.run.state, RunState::Stopped | RunState::Running);
        if !in_adapter && s.link.plan.request != "launch" {
            let msg = format!(
                "{} is attached to a program agentdap did not start, and its adapter cannot restart it (no supportsRestartRequest); disconnect and attach again.",
                s.id
            );
            return self.complete(call, ToolResult::error(ErrorCode::Unsupported, msg));
        }
        let owns = s.family.owns_debuggee;
        // The mirror closes (DESIGN §7); an IDE attaches again to the new run.
        self.request_unexpose(key);
        // Child sessions belong to the old run.
        for child in self.children_of(key) {
            if let Some(c) = self.slab.get_mut(child) {
                c.link.disconnected = true;
                if !c.link.adapter_alive {
                    self.actions.push_back(Action::Release { session: child });
                    continue;
                }
            }
            self.end_child(child, owns, now);
        }
        self.latest = Some(key);
        let wait = wait_duration(wait_ms);
        let Some(s) = self.slab.get_mut(key) else { return };
        if in_adapter {
            s.restart_in_adapter(call, wait, now);
            s.pump(now, &mut self.actions);
        } else {
            // Breakpoints set since the program ended wait for "the next launch": this one.
            s.breaks.store.take_over(std::mem::take(&mut self.pending_breakpoints));
            s.begin_relaunch(call, wait, now, &mut self.actions);
        }
    }

    /// The old adapter of a relaunching session is gone (the IO shell carried out
    /// [`Action::Replace`]): a fresh DAP client, and the new adapter is started. Ignored unless
    /// `key` is still that session (`id`) and it still waits for this.
    pub fn on_adapter_replaced(&mut self, key: SessionKey, id: &str, now: Instant) {
        let timeout = self.request_timeout;
        let Some(s) = self.slab.get_mut(key).filter(|s| s.id == id && s.ctl.relaunch_pending) else { return };
        s.ctl.relaunch_pending = false;
        s.link.client = DapClient::new(super::client_config(&s.id, &s.link.plan.name, timeout));
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
    /// DAP `restart` with the launch arguments (DAP § Requests: Restart). The adapter keeps its
    /// breakpoints; "stop on entry" sets the temporary entry breakpoint again first.
    fn restart_in_adapter(&mut self, call: CallKey, wait: Duration, now: Instant) {
        if let Some(name) = self.link.plan.entry_function {
            if self.link.client.capabilities().is_some_and(|c| c.supports_function_breakpoints) {
                self.breaks.entry_breakpoint = true;
                let args = self.breaks.store.function_arguments(Some(name));
                self.send("setFunctionBreakpoints", Some(args), Origin::EntryBreakpoint { remove: false }, now);
            }
        }
        if self.run.state == RunState::Running {
            // A restart is a new run even when the program was running: the revision moves on.
            self.run.revision += 1;
        }
        self.mark_running();
        self.run.exit_code = None;
        self.run.stop_signal = None;
        self.run.killed_by = None;
        self.ctl.restart_call = Some((call, "adapter"));
        self.push_restart_waiter(call, wait, now);
        let args = json!({ "arguments": self.link.plan.launch_arguments });
        self.send("restart", Some(args), Origin::Ctl(Op::Restart { call, wait }), now);
    }

    fn push_restart_waiter(&mut self, call: CallKey, wait: Duration, now: Instant) {
        let mut w = Waiter::new(call, now, wait, VERB, Until::Stop, self.run.revision);
        w.output_cursor = Some(self.output.cursor());
        self.calls.waiters.push(w);
    }

    /// The answer to DAP `restart`: nothing to do when it succeeded (the stop or the exit ends
    /// the wait); a refusal (or no answer) relaunches a launched program instead.
    pub(super) fn restart_answered(&mut self, call: CallKey, wait: Duration, answer: Answer) {
        let Err((code, msg)) = answer else { return };
        self.calls.waiters.retain(|w| w.call != call);
        self.ctl.restart_call = None;
        if self.link.plan.request == "launch" {
            self.calls
                .warnings
                .push(format!("the adapter's restart failed ({msg}); agentdap relaunched the program instead"));
            self.ctl.relaunch_due = Some((call, wait));
        } else {
            self.calls.done.push((call, ToolResult::error(code, msg)));
        }
    }

    /// Starts a relaunch: the old run's pending requests fail now (their calls hear why),
    /// the session goes back to `starting` with its breakpoints as requested, and the IO shell
    /// replaces the adapter ([`Action::Replace`]); [`Sessions::on_adapter_replaced`] follows.
    pub(super) fn begin_relaunch(
        &mut self,
        call: CallKey,
        wait: Duration,
        now: Instant,
        actions: &mut VecDeque<Action>,
    ) {
        self.link.client.on_closed("");
        self.pump(now, actions);
        // Every handle of the old run goes stale.
        self.run.revision += 1;
        self.view.handles.resumed();
        self.clear_var_caches();
        self.run.state = RunState::Starting;
        self.run.stop = None;
        self.run.stop_ready = false;
        self.run.stop_pending = 0;
        self.run.exit_code = None;
        self.run.stop_signal = None;
        self.run.killed_by = None;
        self.startup = Startup::default();
        self.link.adapter_alive = false;
        self.link.closing = false;
        self.run.failure = None;
        self.run.ended_by_agentdap = false;
        self.run.top_frame = None;
        self.run.resume_unacked = false;
        self.breaks.entry_breakpoint = false;
        self.run.awaiting_exit_report = false;
        self.link.crashed = false;
        self.link.pipes_are_program_output = false;
        self.link.descendants_recorded = false;
        self.link.stderr_tail.clear();
        self.family.debuggee_pid = None;
        self.view.known_threads.clear();
        self.host.forget_terminal();
        self.view.focus_thread = None;
        self.family.child_stops.clear();
        // The new adapter verifies them afresh.
        self.breaks.store = self.breaks.store.requested_only();
        self.ctl.run_to = None;
        self.ctl.relaunch_pending = true;
        self.ctl.restart_call = Some((call, "relaunch"));
        self.push_restart_waiter(call, wait, now);
        actions.push_back(Action::Replace { session: self.key, id: self.id.clone() });
        self.pump(now, actions);
    }
}
