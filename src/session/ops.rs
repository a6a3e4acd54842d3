//! Session-table operations behind the run and breakpoint tools: `continue`, `set_breakpoints`,
//! `set_exception_breakpoints`, `disconnect`, `terminate`, shutdown, listing.

use super::*;
use breakpoints::{Mode, SourceBreakpoint};
use control::{Until, Waiter};
use events::{map_filters, wait_duration};
use serde_json::{json, Value};
use snapshot::RunState;
use std::time::Instant;

impl Sessions {
    /// `continue`: resumes the stopped session and waits for the next stop or the exit.
    pub fn resume(&mut self, key: SessionKey, thread: Option<i64>, wait_ms: Option<u64>, call: CallKey, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        if let Err(e) = s.require_stopped().and_then(|()| s.check_thread(thread)) {
            self.actions.push_back(Action::Complete { call, output: e });
            return;
        }
        let thread = s.thread_for(thread).unwrap_or(0);
        s.resume_with("continue", json!({ "threadId": thread }), call, wait_duration(wait_ms), "continued", now);
        s.pump(now, &mut self.actions);
    }

    /// `set_breakpoints`: updates the file's set and, when a session is live, sends it.
    pub fn set_breakpoints(
        &mut self,
        key: Option<SessionKey>,
        path: String,
        mode: Mode,
        list: Vec<SourceBreakpoint>,
        call: CallKey,
        now: Instant,
    ) {
        let live = key.and_then(|k| self.slab.get_mut(k)).filter(|s| !s.run.state.is_over());
        let Some(s) = live else {
            self.pending_breakpoints.apply(&path, mode, list);
            let set = self.pending_breakpoints.get(&path);
            let text = format!(
                "{} breakpoint(s) in {path} saved; no session is live, so they apply at the next `launch` or `restart`.",
                set.len()
            );
            let structured = json!({ "path": path, "pending": true, "breakpoints": breakpoints_json(set) });
            self.actions.push_back(Action::Complete { call, output: ToolResult::ok(text, structured) });
            return;
        };
        s.breaks.store.apply(&path, mode, list);
        if s.startup.configured {
            let args = s.breakpoint_arguments(&path);
            let set: Vec<SourceBreakpoint> = s.breaks.store.get(&path).iter().map(|e| e.requested.clone()).collect();
            s.run_to_overridden(&path);
            s.send("setBreakpoints", Some(args), Origin::SetBreakpoints { path: path.clone(), call: Some(call) }, now);
            s.pump(now, &mut self.actions);
            // Child sessions debug the same program: they get the file's new set too.
            for child in self.children_of(key.unwrap_or(usize::MAX)) {
                let Some(c) = self.slab.get_mut(child).filter(|c| !c.run.state.is_over() && !c.link.closing) else {
                    continue;
                };
                c.breaks.store.apply(&path, Mode::Replace, set.clone());
                if c.startup.configured {
                    let args = c.breakpoint_arguments(&path);
                    c.send(
                        "setBreakpoints",
                        Some(args),
                        Origin::SetBreakpoints { path: path.clone(), call: None },
                        now,
                    );
                    c.pump(now, &mut self.actions);
                }
            }
        } else {
            let text = format!(
                "breakpoints in {path} recorded; {} is still starting, they are sent in its configuration phase.",
                s.id
            );
            let structured =
                json!({ "path": path, "pending": true, "breakpoints": breakpoints_json(s.breaks.store.get(&path)) });
            self.actions.push_back(Action::Complete { call, output: ToolResult::ok(text, structured) });
        }
    }

    /// `set_exception_breakpoints`: validates the filters against the adapter's, then sends them.
    pub fn set_exception_breakpoints(&mut self, key: SessionKey, filters: Vec<String>, call: CallKey, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        let known: Vec<String> = s
            .link
            .client
            .capabilities()
            .map(|c| c.exception_breakpoint_filters.iter().map(|f| f.filter.clone()).collect())
            .unwrap_or_default();
        let mapped = match map_filters(&filters, &known) {
            Ok(m) => m,
            Err(bad) => {
                let msg = format!(
                    "unknown exception filter `{bad}` for {}; its filters are: [{}].",
                    s.link.adapter,
                    known.join(", ")
                );
                self.actions
                    .push_back(Action::Complete { call, output: ToolResult::error(ErrorCode::InvalidArgument, msg) });
                return;
            }
        };
        s.breaks.exception_filters = Some(mapped.clone());
        if s.startup.configured && !s.run.state.is_over() {
            s.send(
                "setExceptionBreakpoints",
                Some(json!({ "filters": mapped })),
                Origin::SetExceptionBreakpoints { call: Some(call) },
                now,
            );
            s.pump(now, &mut self.actions);
        } else {
            let text = format!("exception filters [{}] recorded for {}.", mapped.join(", "), s.id);
            self.actions
                .push_back(Action::Complete { call, output: ToolResult::ok(text, json!({ "filters": mapped })) });
        }
    }

    /// `disconnect`: ends the session (terminating a launched debuggee unless told otherwise),
    /// then the adapter's process group goes.
    pub fn disconnect(&mut self, key: SessionKey, terminate_debuggee: Option<bool>, call: CallKey, now: Instant) {
        // Children first (DESIGN §5): they are disconnected, and leave the table with the parent.
        let terminate_default = self.slab.get(key).is_some_and(|s| s.family.owns_debuggee);
        for child in self.children_of(key) {
            if let Some(c) = self.slab.get_mut(child) {
                c.link.disconnected = true;
                if !c.link.adapter_alive {
                    self.actions.push_back(Action::Release { session: child });
                    continue;
                }
            }
            self.end_child(child, terminate_debuggee.unwrap_or(terminate_default), now);
        }
        let Some(s) = self.slab.get_mut(key) else { return };
        if !s.link.adapter_alive {
            // Not started yet (its spawn may still be queued) or already gone: end it here; the
            // IO shell stops an adapter that starts meanwhile before the session is dropped.
            if !s.run.state.is_over() {
                s.link.closing = true;
                s.run.ended_by_agentdap = true;
                s.run.failure = Some(format!("{} was disconnected before its adapter started", s.id));
                s.run.state = RunState::Terminated;
                s.fail_waiters(ErrorCode::Disconnected);
                s.pump(now, &mut self.actions);
            }
            let output = s.result("disconnected", false);
            self.actions.push_back(Action::Complete { call, output });
            self.actions.push_back(Action::Release { session: key });
            return;
        }
        s.link.disconnected = true;
        if s.link.closing {
            // A disconnect is already under way (the debuggee ended, or an earlier call): answer
            // once the adapter is gone, and make sure it goes.
            s.calls.disconnect_calls.push(call);
            self.actions.push_back(Action::StopAdapter { session: key });
            return;
        }
        s.link.closing = true;
        // An attached process is the user's: detach unless the agent asks otherwise.
        let terminate = terminate_debuggee.unwrap_or(s.family.owns_debuggee);
        self.actions.push_back(Action::TrackProcesses);
        s.send_disconnect(Some(terminate), Origin::Disconnect { call: Some(call) }, now);
        s.pump(now, &mut self.actions);
    }

    /// `terminate`: DAP `terminate` when the adapter supports it, else `disconnect`.
    pub fn terminate(&mut self, key: SessionKey, call: CallKey, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        let supported = s.link.client.capabilities().is_some_and(|c| c.supports_terminate_request);
        if !supported || !s.link.adapter_alive || s.run.state.is_over() {
            return self.disconnect(key, Some(true), call, now);
        }
        let since = s.run.revision;
        s.run.ended_by_agentdap = true;
        s.calls.waiters.push(Waiter::new(call, now, DEFAULT_WAIT, "terminated", Until::Exit, since));
        s.send("terminate", Some(json!({})), Origin::Terminate { call }, now);
        s.pump(now, &mut self.actions);
    }

    /// Drops an ended session from the table.
    pub fn remove(&mut self, key: SessionKey) {
        if self.slab.contains(key) {
            let s = self.slab.remove(key);
            self.note_removed(&s);
        }
        if self.latest == Some(key) {
            self.latest = None;
        }
    }

    /// Asks every live adapter to end (shutdown): launched debuggees terminated.
    pub fn shutdown(&mut self, now: Instant) {
        self.actions.push_back(Action::TrackProcesses);
        for (_, s) in self.slab.iter_mut() {
            if s.link.adapter_alive && !s.link.closing {
                s.link.closing = true;
                let terminate = s.family.owns_debuggee;
                s.send_disconnect(Some(terminate), Origin::Disconnect { call: None }, now);
                s.pump(now, &mut self.actions);
            }
        }
    }

    /// True when no adapter is alive any more.
    pub fn all_closed(&self) -> bool {
        self.slab.iter().all(|(_, s)| !s.link.adapter_alive)
    }

    /// The JSON for `sessions` and `agentdap://sessions`: children right after their parent.
    pub fn list_json(&self) -> Value {
        let list: Vec<Value> = self.listed().into_iter().map(|(_, s)| s.summary_json()).collect();
        json!({ "sessions": list })
    }
}
