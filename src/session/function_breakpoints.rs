//! Function breakpoints (DESIGN §4 `set_function_breakpoints`): kept in the session's
//! [`super::breakpoints::BreakpointStore`] like source breakpoints (pending ones apply at the next
//! launch; a relaunch and child sessions replay them), sent whole with DAP
//! `setFunctionBreakpoints` — which replaces every function breakpoint, so agentdap's temporary
//! entry breakpoint ("stop on entry" at `main`) always travels with the agent's list. Sans-IO.

use std::time::Instant;

use serde_json::{json, Value};

use super::breakpoints::{FunctionBreakpoint, FunctionEntry};
use super::ctl::{Answer, Op};
use super::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};
use crate::dap::protocol::Capabilities;

impl Sessions {
    /// `set_function_breakpoints`: replaces the function breakpoints of the live session `key`
    /// (and its children), or, without one, those waiting for the next launch.
    pub fn set_function_breakpoints(
        &mut self,
        key: Option<SessionKey>,
        list: Vec<FunctionBreakpoint>,
        call: CallKey,
        now: Instant,
    ) {
        let live = key.and_then(|k| self.slab.get_mut(k)).filter(|s| !s.run.state.is_over());
        let Some(s) = live else {
            self.pending_breakpoints.set_functions(list);
            let set = self.pending_breakpoints.functions();
            let text = format!(
                "{} function breakpoint(s) saved; no session is live, so they apply at the next `launch` or `restart`.",
                set.len()
            );
            let structured = json!({ "pending": true, "breakpoints": functions_json(set) });
            return self.complete(call, ToolResult::ok(text, structured));
        };
        if s.link.client.capabilities().is_some_and(|c| !c.supports_function_breakpoints) {
            let msg = format!(
                "{} has no function breakpoints (the adapter lacks supportsFunctionBreakpoints); set a breakpoint on the function's first line with set_breakpoints.",
                s.link.adapter
            );
            return self.complete(call, ToolResult::error(ErrorCode::Unsupported, msg));
        }
        s.breaks.store.set_functions(list.clone());
        if !s.startup.configured {
            let text = format!(
                "function breakpoints recorded; {} is still starting, they are sent in its configuration phase.",
                s.id
            );
            let structured = json!({ "pending": true, "breakpoints": functions_json(s.breaks.store.functions()) });
            return self.complete(call, ToolResult::ok(text, structured));
        }
        s.send_function_breakpoints(Some(call), now);
        let parent = s.key;
        self.after(parent, now);
        // Child sessions debug the same program: they get the new list too.
        for child in self.children_of(parent) {
            let Some(c) = self.slab.get_mut(child).filter(|c| !c.run.state.is_over() && !c.link.closing) else {
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
    }
}

impl Session {
    /// Sends the agent's function breakpoints (plus the entry breakpoint while it is set).
    fn send_function_breakpoints(&mut self, call: Option<CallKey>, now: Instant) {
        let sent: Vec<FunctionBreakpoint> = self.breaks.store.functions().iter().map(|e| e.requested.clone()).collect();
        let entry = self.link.plan.entry_function.filter(|_| self.breaks.entry_breakpoint);
        let args = self.breaks.store.function_arguments(entry);
        self.send("setFunctionBreakpoints", Some(args), Origin::Ctl(Op::FunctionBreakpoints { call, sent }), now);
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
                ToolResult::ok(text, json!({ "session": self.id, "breakpoints": functions_json(set) }))
            }
        };
        self.calls.done.push((call, out));
    }

    /// Configuration phase: the agent's function breakpoints and, for "stop on entry" of a native
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
                let args = self.breaks.store.function_arguments(Some(name));
                self.send("setFunctionBreakpoints", Some(args), Origin::EntryBreakpoint { remove: false }, now);
            }
            None if mine => self.send_function_breakpoints(None, now),
            None => {}
        }
    }

    /// At the first stop: the temporary entry breakpoint did its job (or another stop came
    /// first) and goes, so it never fires again (a recursive `main`); the agent's stay.
    pub(super) fn drop_entry_breakpoint(&mut self, now: Instant) {
        if !self.breaks.entry_breakpoint {
            return;
        }
        self.breaks.entry_breakpoint = false;
        let args = self.breaks.store.function_arguments(None);
        self.send("setFunctionBreakpoints", Some(args), Origin::EntryBreakpoint { remove: true }, now);
    }

    /// The answer to a request carrying (or dropping) the entry breakpoint: the agent's function
    /// breakpoints come first in it; a refused or unverified entry breakpoint is a warning.
    pub(super) fn entry_breakpoint_answered(&mut self, remove: bool, failure: Option<String>, body: &Value) {
        let sent: Vec<FunctionBreakpoint> = self.breaks.store.functions().iter().map(|e| e.requested.clone()).collect();
        match &failure {
            None => self.breaks.store.on_functions_response(&sent, Ok(body)),
            Some(msg) => self.breaks.store.on_functions_response(&sent, Err(msg)),
        }
        if remove {
            return;
        }
        let entry = body.get("breakpoints").and_then(Value::as_array).and_then(|l| l.get(sent.len()));
        let verified = entry.and_then(|b| b.get("verified")).and_then(Value::as_bool) == Some(true);
        if failure.is_some() || !verified {
            let name = self.link.plan.entry_function.unwrap_or("main");
            let why = failure.unwrap_or_else(|| "not verified".into());
            self.calls.warnings.push(format!(
                "stop on entry: the adapter did not set the breakpoint on `{name}` ({why}); the program may run to its end"
            ));
        }
    }
}

/// `verified`, `NOT verified (why)` or `no answer yet`, with ` · hit` once it stopped there.
pub fn state_text(e: &FunctionEntry) -> String {
    let mut s = match &e.bound {
        None => "no answer yet".to_owned(),
        Some(b) if b.verified => "verified".to_owned(),
        Some(b) => format!("NOT verified ({})", b.message.as_deref().unwrap_or("no reason given by the adapter")),
    };
    if e.hit {
        s.push_str(" · hit");
    }
    s
}

/// The function breakpoints as JSON: name, condition, hit condition, id, verified, message, hit.
pub fn functions_json(set: &[FunctionEntry]) -> Value {
    Value::Array(
        set.iter()
            .map(|e| {
                let mut m = serde_json::Map::new();
                m.insert("id".into(), e.id.into());
                m.insert("name".into(), e.requested.name.clone().into());
                super::snapshot::put(&mut m, "condition", e.requested.condition.clone().map(Value::from));
                super::snapshot::put(&mut m, "hit_condition", e.requested.hit_condition.clone().map(Value::from));
                if let Some(b) = &e.bound {
                    m.insert("verified".into(), b.verified.into());
                    super::snapshot::put(&mut m, "message", b.message.clone().map(Value::from));
                }
                if e.hit {
                    m.insert("hit".into(), true.into());
                }
                Value::Object(m)
            })
            .collect(),
    )
}
