//! `set_breakpoints {kind: function}`: the session's function breakpoints, kept in the
//! [`crate::session::breakpoints::BreakpointStore`] like source breakpoints (pending ones apply
//! at the next launch; a relaunch and child sessions replay them), sent whole with DAP
//! `setFunctionBreakpoints` — which replaces every function breakpoint, so agentdap's temporary
//! entry breakpoint (`session/startup.rs`) always travels with the agent's list. Must not:
//! touch IO, or another group's state.

use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::super::{Answer, Started};
use super::Op;
use crate::session::breakpoints::{functions_json, state_text, FunctionBreakpoint, Mode};
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// The function breakpoints' `structuredContent`: the kind, the list, and either `pending` (not
/// sent yet) or the session it was sent to.
#[derive(Serialize)]
struct Functions<'a> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pending: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    breakpoints: Value,
}

impl Functions<'_> {
    fn to_value(&self) -> Value {
        // A bool, strings and a `Value`: serialising them cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// `list` applied to `current` by `mode`: replace, add (a name already there is replaced), or
/// remove (by name).
fn combine(current: Vec<FunctionBreakpoint>, mode: Mode, list: Vec<FunctionBreakpoint>) -> Vec<FunctionBreakpoint> {
    match mode {
        Mode::Replace => list,
        Mode::Add => {
            let mut out: Vec<FunctionBreakpoint> =
                current.into_iter().filter(|c| !list.iter().any(|l| l.name == c.name)).collect();
            out.extend(list);
            out
        }
        Mode::Remove => current.into_iter().filter(|c| !list.iter().any(|l| l.name == c.name)).collect(),
    }
}

impl Sessions {
    /// `set_breakpoints {kind: function}`: changes the function breakpoints of the live session
    /// `key` (and its children), or, without one, those waiting for the next launch.
    pub fn set_function_breakpoints(
        &mut self,
        key: Option<SessionKey>,
        mode: Mode,
        list: Vec<FunctionBreakpoint>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let requested = |e: &[crate::session::breakpoints::FunctionEntry]| -> Vec<FunctionBreakpoint> {
            e.iter().map(|e| e.requested.clone()).collect()
        };
        let live = key.and_then(|k| self.slab.get_mut(k)).filter(|s| !s.run.state.is_over());
        let Some(s) = live else {
            let list = combine(requested(self.pending_breakpoints.functions()), mode, list);
            self.pending_breakpoints.set_functions(list);
            let set = self.pending_breakpoints.functions();
            let text = format!(
                "{} function breakpoint(s) saved; no session is live, so they apply at the next `launch` or `restart`.",
                set.len()
            );
            let structured =
                Functions { kind: "function", pending: Some(true), session: None, breakpoints: functions_json(set) };
            self.complete(call, ToolResult::ok(text, structured.to_value()));
            return Ok(());
        };
        if s.link.client.capabilities().is_some_and(|c| !c.supports_function_breakpoints) {
            let msg = format!(
                "{} has no function breakpoints (the adapter lacks supportsFunctionBreakpoints); set a breakpoint on the function's first line with set_breakpoints.",
                s.link.adapter
            );
            return Err(ToolResult::error(ErrorCode::Unsupported, msg));
        }
        let list = combine(requested(s.breaks.store.functions()), mode, list);
        s.breaks.store.set_functions(list.clone());
        if !s.startup.configured {
            let text = format!(
                "function breakpoints recorded; {} is still starting, they are sent in its configuration phase.",
                s.id
            );
            let breakpoints = functions_json(s.breaks.store.functions());
            let structured = Functions { kind: "function", pending: Some(true), session: None, breakpoints };
            self.complete(call, ToolResult::ok(text, structured.to_value()));
            return Ok(());
        }
        s.send_function_breakpoints(Some(call), now);
        let parent = s.key;
        self.after(parent, now);
        // Child sessions debug the same program: they get the new list too.
        for child in self.children_of(parent) {
            let Some(c) = self.slab.get_mut(child).filter(|c| !c.run.state.is_over() && !c.link.is_closing()) else {
                continue;
            };
            c.breaks.store.set_functions(list.clone());
            if c.startup.configured
                && c.link.client.capabilities().is_some_and(|caps| caps.supports_function_breakpoints)
            {
                c.send_function_breakpoints(None, now);
            }
            self.after(child, now);
        }
        Ok(())
    }
}

impl Session {
    /// Sends the agent's function breakpoints (plus the entry breakpoint while it is set).
    pub(in crate::session) fn send_function_breakpoints(&mut self, call: Option<CallKey>, now: Instant) {
        let sent: Vec<FunctionBreakpoint> = self.breaks.store.functions().iter().map(|e| e.requested.clone()).collect();
        let entry = self.link.plan.entry_function.filter(|_| self.breaks.entry_breakpoint);
        let args = self.breaks.store.function_arguments(entry);
        self.send("setFunctionBreakpoints", Some(args), Origin::Breakpoints(Op::Functions { call, sent }), now);
    }

    pub(super) fn function_breakpoints_answered(
        &mut self,
        call: Option<CallKey>,
        sent: &[FunctionBreakpoint],
        answer: Answer,
    ) {
        match &answer {
            Ok(body) => self.breaks.store.on_functions_response(sent, Ok(body)),
            Err((_, msg)) => self.breaks.store.on_functions_response(sent, Err(msg)),
        }
        let Some(call) = call else {
            if let Err((_, msg)) = answer {
                log::warn!("{}: setFunctionBreakpoints failed: {msg}", self.id);
            }
            return;
        };
        let out = match answer {
            Err((code, msg)) if code != ErrorCode::AdapterError => ToolResult::error(code, msg),
            other => {
                let set = self.breaks.store.functions();
                let mut text = format!("{} function breakpoint(s)", set.len());
                for e in set {
                    text.push_str(&format!("\n  {}: {}", e.requested.name, state_text(e)));
                }
                if let Err((_, msg)) = other {
                    text.push_str(&format!("\nthe adapter refused the request: {msg}"));
                }
                let structured = Functions {
                    kind: "function",
                    pending: None,
                    session: Some(&self.id),
                    breakpoints: functions_json(set),
                };
                ToolResult::ok(text, structured.to_value())
            }
        };
        self.calls.done.push((call, out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, condition: Option<&str>) -> FunctionBreakpoint {
        FunctionBreakpoint { name: name.into(), condition: condition.map(Into::into), hit_condition: None }
    }

    #[test]
    fn modes_apply_to_the_function_set_by_name() {
        let now = vec![f("a", None), f("b", None)];
        let names = |l: Vec<FunctionBreakpoint>| l.into_iter().map(|b| b.name).collect::<Vec<_>>();
        assert_eq!(names(combine(now.clone(), Mode::Replace, vec![f("c", None)])), ["c"]);
        let added = combine(now.clone(), Mode::Add, vec![f("b", Some("x > 1")), f("c", None)]);
        assert_eq!(added, [f("a", None), f("b", Some("x > 1")), f("c", None)]);
        assert_eq!(names(combine(now, Mode::Remove, vec![f("a", None)])), ["b"]);
    }
}
