//! The person's breakpoints and exception filters from an attached IDE (issue 22), sans-IO: an
//! IDE's `setBreakpoints` / `setExceptionBreakpoints` is kept per mirror client beside the agent's
//! (`breakpoints/people.rs`), the adapter is sent the union, and the answer is split back: the
//! agent's entries take theirs, and the client hears a response with exactly its own breakpoints,
//! under agentdap's ids, through the mirror's notes. When a client goes, every file it touched is
//! sent again with what remains. Must not: decide whether a client may set breakpoints (the
//! mirror's request policy does) or touch sockets.

use std::path::Path;
use std::time::Instant;

use serde_json::{json, Value};

use super::mirror::ClientRef;
use super::tools::breakpoints::{MirrorOp, Op};
use super::tools::Reply;
use super::{Origin, Session, SessionKey, Sessions};
use crate::dap::protocol::{Response, Seq};
use crate::dap::requests::{
    ExceptionFilterOptions, Request, SetBreakpoints, SetExceptionBreakpoints, SetExceptionBreakpointsArguments,
};
use crate::session::breakpoints::{PersonFilters, PersonRef, SourceBreakpoint};

/// The store's name for a mirror client.
fn person(c: ClientRef) -> PersonRef {
    PersonRef { key: c.key, serial: c.serial }
}

/// The mirror's name for a client the store names.
fn client(p: PersonRef) -> ClientRef {
    ClientRef { key: p.key, serial: p.serial }
}

/// A response for a client (its `seq` fields are set by the client's state machine).
fn response(command: &str, outcome: Result<Option<Value>, String>) -> Response {
    let (success, message, body) = match outcome {
        Ok(body) => (true, None, body),
        Err(m) => (false, Some(m.clone()), Some(json!({"error": {"id": 2, "format": m, "showUser": false}}))),
    };
    Response { seq: Seq::new(0), request_seq: Seq::new(0), success, command: command.to_owned(), message, body }
}

/// Whether a client's breakpoint request carries code for the adapter to run: a condition, hit
/// condition or log message (DAP § Types › SourceBreakpoint, FunctionBreakpoint), or an
/// exception filter's condition (§ ExceptionFilterOptions).
fn runs_code(args: &Value) -> bool {
    let lists = ["breakpoints", "filterOptions"].map(|k| args.get(k).and_then(Value::as_array));
    let has = |b: &Value| ["condition", "hitCondition", "logMessage"].iter().any(|f| b.get(*f).is_some());
    lists.into_iter().flatten().flatten().any(has)
}

/// The IDE's `setBreakpoints` list: `breakpoints`, or the deprecated `lines` (DAP § Requests ›
/// SetBreakpoints).
fn requested_list(args: &Value) -> Result<Vec<SourceBreakpoint>, String> {
    if let Some(list) = args.get("breakpoints") {
        return serde_json::from_value(list.clone())
            .map_err(|e| format!("setBreakpoints: `breakpoints` is not a list of SourceBreakpoint: {e}"));
    }
    let lines = args.get("lines").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    lines
        .iter()
        .map(|l| {
            let line = l.as_u64().and_then(|l| u32::try_from(l).ok());
            let line = line.ok_or_else(|| format!("setBreakpoints: `lines` holds {l}, not a line number"))?;
            Ok(SourceBreakpoint { line, column: None, condition: None, hit_condition: None, log_message: None })
        })
        .collect()
}

/// The IDE's exception filters: `filters` and `filterOptions` (`exceptionOptions` are not shared).
fn requested_filters(client: PersonRef, args: &Value) -> Result<PersonFilters, String> {
    let strings = |v: &Value| v.as_str().map(str::to_owned);
    let filters = args.get("filters").and_then(Value::as_array).map(|a| a.iter().filter_map(strings).collect());
    let filters = filters.ok_or("setExceptionBreakpoints: `filters` (a list of filter ids) is required")?;
    let mut options = Vec::new();
    for o in args.get("filterOptions").and_then(Value::as_array).into_iter().flatten() {
        let Some(filter_id) = o.get("filterId").and_then(strings) else {
            return Err(format!("setExceptionBreakpoints: a filterOptions entry has no `filterId`: {o}"));
        };
        options.push(ExceptionFilterOptions { filter_id, condition: o.get("condition").and_then(strings) });
    }
    Ok(PersonFilters { client, filters, options })
}

impl Sessions {
    /// A mirror client's `setBreakpoints`, `setExceptionBreakpoints` or `setFunctionBreakpoints`
    /// for session `key`: kept as the person's, the union sent to the adapter, and the client
    /// answered through the notes ([`super::mirror::Note::Response`]) with its own share.
    pub fn mirror_set_breakpoints(
        &mut self,
        key: SessionKey,
        client: ClientRef,
        request_seq: i64,
        command: &str,
        arguments: Option<Value>,
        now: Instant,
    ) {
        let Some(s) = self.slab.get_mut(key) else { return };
        let who = person(client);
        let args = arguments.unwrap_or(Value::Null);
        let refuse =
            |s: &mut Session, msg: String| s.mirror.note_response(client, request_seq, response(command, Err(msg)));
        if s.run.state.is_over() || !s.link.is_alive() || s.link.is_closing() {
            return refuse(s, format!("session {} has ended; its breakpoints can no longer be set", s.id));
        }
        // A condition, hit condition or log message is code the adapter runs in the program: a
        // client gets at most what the agent may (`--allow` without `evaluate`).
        if !self.allow.mirror_may(crate::allow::Switch::Evaluate) && runs_code(&args) {
            let what = format!("a `{command}` with a condition, hit condition or log message");
            return refuse(s, self.allow.refusal(&what, crate::allow::Switch::Evaluate));
        }
        match command {
            "setBreakpoints" => {
                let path = match args.get("source").and_then(|src| src.get("path")).and_then(Value::as_str) {
                    Some(p) => s.mirror_path(p),
                    None => return refuse(s, "setBreakpoints: agentdap shares breakpoints of files by `source.path`; this source has none".into()),
                };
                let list = match requested_list(&args) {
                    Ok(l) => l,
                    Err(msg) => return refuse(s, msg),
                };
                s.breaks.store.set_person(who, &path, list);
                if !s.startup.configured {
                    // Sent in the configuration phase with the agent's (`Session::configure`).
                    let body = s.breaks.store.person_response_body(who, &path);
                    return s.mirror.note_response(client, request_seq, response(command, Ok(Some(body))));
                }
                s.run_to_overridden(&path);
                let args = s.breakpoint_request(&path);
                let op = MirrorOp::Set { path, reply: Some((who, request_seq)) };
                s.request::<SetBreakpoints>(args, Origin::Breakpoints(Op::Mirror(Box::new(op))), now);
            }
            "setExceptionBreakpoints" => {
                let asked = match requested_filters(who, &args) {
                    Ok(f) => f,
                    Err(msg) => return refuse(s, msg),
                };
                s.breaks.person_filters.retain(|p| p.client != who);
                s.breaks.person_filters.push(asked.clone());
                if !s.startup.configured {
                    return s.mirror.note_response(client, request_seq, response(command, Ok(None)));
                }
                s.send_exception_union(Some((who, request_seq)), Some(asked), now);
            }
            // Function breakpoints stay the agent's alone for now: a person's would replace them.
            _ => {
                return refuse(
                    s,
                    format!("agentdap does not share `{command}` with the agent's yet; set function breakpoints through the agent"),
                )
            }
        }
        s.pump(now, &mut self.actions);
    }

    /// A mirror client went (disconnected, or lost control): its breakpoints and exception filters
    /// are dropped, and every file it touched is sent again with what remains (the agent's and
    /// other clients'). The agent's entries are unchanged.
    pub fn mirror_forget_client(&mut self, key: SessionKey, client: ClientRef, now: Instant) {
        let Some(s) = self.slab.get_mut(key) else { return };
        let who = person(client);
        let paths = s.breaks.store.forget_person(who);
        let had_filters = s.breaks.person_filters.iter().any(|p| p.client == who);
        s.breaks.person_filters.retain(|p| p.client != who);
        let live = s.startup.configured && !s.run.state.is_over() && s.link.is_alive() && !s.link.is_closing();
        if !live {
            return;
        }
        for path in paths {
            s.run_to_overridden(&path);
            let args = s.breakpoint_request(&path);
            let op = MirrorOp::Set { path, reply: None };
            s.request::<SetBreakpoints>(args, Origin::Breakpoints(Op::Mirror(Box::new(op))), now);
        }
        if had_filters {
            s.send_exception_union(None, None, now);
        }
        s.pump(now, &mut self.actions);
    }
}

impl Sessions {
    /// Control was taken back: every client's breakpoints and filters go, as when it leaves
    /// ([`Sessions::mirror_forget_client`]).
    pub fn mirror_forget_people(&mut self, key: SessionKey, now: Instant) {
        let Some(s) = self.slab.get(key) else { return };
        let mut who: Vec<PersonRef> = s.breaks.store.people_clients();
        who.extend(s.breaks.person_filters.iter().map(|p| p.client));
        who.sort_unstable_by_key(|p| (p.key, p.serial));
        who.dedup();
        for p in who {
            self.mirror_forget_client(key, client(p), now);
        }
    }
}

impl Session {
    /// The path a client's `source.path` names as agentdap keys it: a file already holding
    /// breakpoints under another spelling of the same file (a symlink) is that file, so the
    /// adapter never gets two requests for one source, each replacing the other's.
    fn mirror_path(&self, given: &str) -> String {
        let paths = self.breaks.store.union_paths();
        if paths.iter().any(|p| p == given) {
            return given.to_owned();
        }
        let real = self.link.files.canonicalize(Path::new(given));
        let same = |p: &&String| real.is_some() && self.link.files.canonicalize(Path::new(p.as_str())) == real;
        paths.iter().find(same).cloned().unwrap_or_else(|| given.to_owned())
    }

    /// Sends `setExceptionBreakpoints` with the agent's filters and every client's.
    fn send_exception_union(&mut self, reply: Option<(PersonRef, i64)>, asked: Option<PersonFilters>, now: Instant) {
        let agent = self.breaks.exception_filters.clone().unwrap_or_default();
        let sent = self.exception_arguments(agent);
        let op = MirrorOp::Exception { reply, sent: sent.clone(), asked };
        self.request::<SetExceptionBreakpoints>(sent, Origin::Breakpoints(Op::Mirror(Box::new(op))), now);
    }

    /// Adds every client's exception filters to the agent's `args` (each once): the adapter holds
    /// the union. A condition goes as `filterOptions` only where the agent's arguments use them
    /// or the adapter takes them (else the filter goes plain, as the agent's do).
    pub(in crate::session) fn add_person_filters(&self, args: &mut SetExceptionBreakpointsArguments) {
        let takes_options = self.link.client.capabilities().is_some_and(|c| c.supports_exception_filter_options);
        for p in &self.breaks.person_filters {
            for f in &p.filters {
                if !args.filters.contains(f) {
                    args.filters.push(f.clone());
                }
            }
            for o in &p.options {
                if takes_options || args.filter_options.is_some() {
                    let options = args.filter_options.get_or_insert_with(Vec::new);
                    if !options.contains(o) {
                        options.push(o.clone());
                    }
                } else if !args.filters.contains(&o.filter_id) {
                    args.filters.push(o.filter_id.clone());
                }
            }
        }
    }

    /// The adapter answered a mirror breakpoints request.
    pub(in crate::session) fn mirror_breakpoints_answered(&mut self, op: MirrorOp, reply: Reply) {
        let Reply { failure, body, .. } = reply;
        match op {
            MirrorOp::Set { path, reply } => {
                let answer = SetBreakpoints::parse(Some(&body)).unwrap_or_default();
                match &failure {
                    None => self.breaks.store.on_answer(&path, Ok(&answer)),
                    Some(msg) => self.breaks.store.on_answer(&path, Err(msg)),
                }
                match (reply, failure) {
                    (Some((who, seq)), None) => {
                        let body = self.breaks.store.person_response_body(who, &path);
                        self.mirror.note_response(client(who), seq, response("setBreakpoints", Ok(Some(body))));
                    }
                    (Some((who, seq)), Some(msg)) => {
                        self.mirror.note_response(client(who), seq, response("setBreakpoints", Err(msg)))
                    }
                    (None, Some(msg)) => log::warn!("{}: re-sending {path} after a mirror client left: {msg}", self.id),
                    (None, None) => {}
                }
            }
            MirrorOp::Exception { reply, sent, asked } => {
                let outcome = match failure {
                    Some(msg) => Err(msg),
                    None => Ok(asked.and_then(|a| person_exception_body(&sent, &a, &body))),
                };
                match (reply, outcome) {
                    (Some((who, seq)), outcome) => {
                        self.mirror.note_response(client(who), seq, response("setExceptionBreakpoints", outcome))
                    }
                    (None, Err(msg)) => log::warn!("{}: exception filters after a mirror client left: {msg}", self.id),
                    (None, Ok(_)) => {}
                }
            }
        }
    }

    /// A mirror breakpoints request that never went out: the client hears why.
    pub(in crate::session) fn mirror_breakpoints_failed(&mut self, op: MirrorOp, msg: String) {
        let (reply, command) = match op {
            MirrorOp::Set { reply, .. } => (reply, "setBreakpoints"),
            MirrorOp::Exception { reply, .. } => (reply, "setExceptionBreakpoints"),
        };
        match reply {
            Some((who, seq)) => self.mirror.note_response(client(who), seq, response(command, Err(msg))),
            None => log::warn!("{}: {command} after a mirror client left: {msg}", self.id),
        }
    }

    /// A `breakpoint` event as each client with that breakpoint must see it (its id, not the
    /// adapter's), for the mirror to send to that client alone. Read after the session took it.
    pub fn mirror_breakpoint_events(&self, body: &Value) -> Vec<(ClientRef, Value)> {
        self.breaks.store.person_events(body).into_iter().map(|(p, b)| (client(p), b)).collect()
    }

    /// `client`'s ids of the breakpoints a stop's `hitBreakpointIds` (the adapter's) name, for
    /// the `stopped` event it is sent.
    pub fn mirror_hit_ids(&self, client: ClientRef, adapter_ids: &[i64]) -> Vec<i64> {
        self.breaks.store.person_hit_ids(person(client), adapter_ids)
    }
}

/// The client's share of a `setExceptionBreakpoints` answer: when the adapter listed its
/// `breakpoints` (one per entry of `filters`, then of `filterOptions`, in order), the ones for the
/// client's own filters and options; else no body.
fn person_exception_body(
    sent: &SetExceptionBreakpointsArguments,
    asked: &PersonFilters,
    body: &Value,
) -> Option<Value> {
    let answers = body.get("breakpoints").and_then(Value::as_array)?;
    let options = sent.filter_options.as_deref().unwrap_or_default();
    let plain = asked.filters.iter().map(|f| sent.filters.iter().position(|s| s == f));
    let conditioned = asked.options.iter().map(|o| {
        let as_option = options.iter().position(|s| s == o).map(|i| sent.filters.len() + i);
        as_option.or_else(|| sent.filters.iter().position(|s| *s == o.filter_id))
    });
    let unknown = json!({"verified": false, "message": "the adapter did not answer for this filter"});
    let items: Vec<Value> = plain
        .chain(conditioned)
        .map(|i| i.and_then(|i| answers.get(i)).cloned().unwrap_or_else(|| unknown.clone()))
        .collect();
    Some(json!({ "breakpoints": items }))
}

#[cfg(test)]
mod code_tests {
    use super::runs_code;
    use serde_json::json;

    #[test]
    fn conditions_hit_conditions_log_messages_and_filter_conditions_run_code_plain_lines_do_not() {
        for args in [
            json!({"breakpoints": [{"line": 3}, {"line": 4, "condition": "x > 1"}]}),
            json!({"breakpoints": [{"line": 3, "hitCondition": "2"}]}),
            json!({"breakpoints": [{"line": 3, "logMessage": "x={x}"}]}),
            json!({"filters": [], "filterOptions": [{"filterId": "raised", "condition": "E"}]}),
        ] {
            assert!(runs_code(&args), "{args}");
        }
        for args in [json!({"breakpoints": [{"line": 3}, {"line": 9, "column": 2}]}), json!({"filters": ["raised"]})] {
            assert!(!runs_code(&args), "{args}");
        }
    }
}
