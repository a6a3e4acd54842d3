//! Tool group "breakpoints" (`mcp/tools/breakpoints.rs`): `set_breakpoints` of source lines and
//! `set_exception_breakpoints` on a live session (or kept for the next launch), their DAP
//! requests — also those of the configuration phase — and their answers, including the retry
//! under a file's other spelling; the other kinds in `breakpoints/` (`functions.rs`, `data.rs`:
//! data and instruction breakpoints, `locations.rs`: `breakpointLocations`). Must not: keep
//! breakpoint state itself (the [`crate::session::breakpoints::BreakpointStore`] does).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use serde_json::{Map, Value};

use super::gates::Gate;
use super::{session, Reply, Started};
use crate::dap::adapters::Quirks;
use crate::dap::requests::{
    ExceptionFilterOptions, Request, SetBreakpoints, SetBreakpointsArguments, SetBreakpointsResponse,
    SetExceptionBreakpoints, SetExceptionBreakpointsArguments, Source,
};
use crate::session::breakpoints::{
    DataBreakpoint, Entry, FunctionBreakpoint, InstructionBreakpoint, Mode, PersonFilters, PersonRef, SourceBreakpoint,
};
use crate::session::snapshot::put;
use crate::session::text::short;
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// What a breakpoints request is doing; carried in [`Origin::Breakpoints`].
#[derive(Debug)]
pub enum Op {
    /// `setBreakpoints` for `path` (start-up or a tool call).
    Set { path: String, call: Option<CallKey> },
    /// `setBreakpoints` for `path` sent again under the file's other spelling (through or
    /// around a symlink) after the adapter verified none of them (mfussenegger/nvim-dap#1197).
    Retry { path: String, alias: String, call: Option<CallKey> },
    /// `setExceptionBreakpoints` (start-up or a tool call).
    Exception { call: Option<CallKey> },
    /// `setFunctionBreakpoints` with the agent's list `sent` (`call`: the tool call, if any).
    Functions { call: Option<CallKey>, sent: Vec<FunctionBreakpoint> },
    /// One `dataBreakpointInfo` of a `set_breakpoints {kind: data}`.
    DataInfo(Box<data::DataJob>),
    /// `setDataBreakpoints` with the whole set `sent`.
    Data { call: Option<CallKey>, sent: Vec<DataBreakpoint> },
    /// `setInstructionBreakpoints` with the whole set `sent`.
    Instructions { call: Option<CallKey>, sent: Vec<InstructionBreakpoint> },
    /// `breakpointLocations` for `breakpoints {path, line}`.
    Locations { call: CallKey, lines: locations::Lines },
    /// A request for a mirror client's breakpoints or exception filters (the union sent).
    Mirror(Box<MirrorOp>),
}

/// A mirror breakpoints request at the adapter (`session/mirror_breakpoints.rs` sends and reads it).
#[derive(Debug)]
pub enum MirrorOp {
    /// The union of `path` sent: for a client's `setBreakpoints` (`reply`: whom to answer, with
    /// its `seq`), or after a client went (`None`).
    Set { path: String, reply: Option<(PersonRef, i64)> },
    /// The union of exception filters `sent`; `asked`: the client's own, to answer it with.
    Exception { reply: Option<(PersonRef, i64)>, sent: SetExceptionBreakpointsArguments, asked: Option<PersonFilters> },
}

pub mod data;
pub mod functions;
mod life;
pub mod locations;
mod watch_notes;

impl Sessions {
    /// `set_breakpoints`: updates the file's set and, when a session is live, sends it.
    pub fn set_breakpoints(
        &mut self,
        key: Option<SessionKey>,
        path: String,
        mode: Mode,
        list: Vec<SourceBreakpoint>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let live = key.and_then(|k| self.slab.get_mut(k)).filter(|s| !s.run.state.is_over());
        let Some(s) = live else {
            let removed = self.pending_breakpoints.apply_telling(&path, mode, list);
            let set = self.pending_breakpoints.get(&path);
            let text = format!(
                "{} breakpoint(s) in {path} saved; no session is live, so they apply at the next `launch` or `restart`.",
                set.len()
            );
            let structured = SetResult { path: &path, pending: Some(true), breakpoints: breakpoints_json(set) };
            let mut out = ToolResult::ok(text, structured.value());
            say_removed(&mut out, &removed);
            self.complete(call, out);
            return Ok(());
        };
        let removed = s.breaks.store.apply_telling(&path, mode, list);
        // Said in this call's result, which may come at once or with the adapter's answer.
        s.breaks.replaced.insert(path.clone(), removed);
        if s.startup.configured {
            let args = s.breakpoint_request(&path);
            let set: Vec<SourceBreakpoint> = s.breaks.store.get(&path).iter().map(|e| e.requested.clone()).collect();
            s.run_to_overridden(&path);
            s.request::<SetBreakpoints>(
                args,
                Origin::Breakpoints(Op::Set { path: path.clone(), call: Some(call) }),
                now,
            );
            s.pump(now, &mut self.actions);
            // Child sessions debug the same program: they get the file's new set too.
            for child in self.children_of(key.unwrap_or(usize::MAX)) {
                let Some(c) = self.slab.get_mut(child).filter(|c| !c.run.state.is_over() && !c.link.is_closing())
                else {
                    continue;
                };
                c.breaks.store.apply(&path, Mode::Replace, set.clone());
                if c.startup.configured {
                    let args = c.breakpoint_request(&path);
                    c.request::<SetBreakpoints>(
                        args,
                        Origin::Breakpoints(Op::Set { path: path.clone(), call: None }),
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
            let breakpoints = breakpoints_json(s.breaks.store.get(&path));
            let structured = SetResult { path: &path, pending: Some(true), breakpoints };
            let mut out = ToolResult::ok(text, structured.value());
            say_removed(&mut out, &s.breaks.replaced.remove(&path).unwrap_or_default());
            self.complete(call, out);
        }
        Ok(())
    }

    /// `set_exception_breakpoints`: validates the filters (and the conditions' filters) against
    /// the adapter's, then sends them: a filter with a condition as `filterOptions`
    /// (Gate::ExceptionFilterOptions), the rest as `filters`.
    pub fn set_exception_breakpoints(
        &mut self,
        key: SessionKey,
        filters: Vec<String>,
        conditions: BTreeMap<String, String>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let s = session(&mut self.slab, key)?;
        if !conditions.is_empty() {
            s.require(Gate::ExceptionFilterOptions)?;
        }
        let adapter_filters =
            s.link.client.capabilities().map(|c| c.exception_breakpoint_filters.clone()).unwrap_or_default();
        let known: Vec<String> = adapter_filters.iter().map(|f| f.filter.clone()).collect();
        let unknown = |bad: &str| {
            let msg = format!(
                "unknown exception filter `{bad}` for {}; its filters are: [{}].",
                s.link.adapter,
                known.join(", ")
            );
            ToolResult::error(ErrorCode::InvalidArgument, msg)
        };
        let mapped = map_filters(&filters, &known, &s.link.plan.quirks).map_err(|bad| unknown(&bad))?;
        let mut conditioned = BTreeMap::new();
        for (f, condition) in conditions {
            let id = map_filter(&f, &known, &s.link.plan.quirks).ok_or_else(|| unknown(&f))?;
            // DAP § Types › ExceptionBreakpointsFilter: a condition only where `supportsCondition`.
            if !adapter_filters.iter().any(|a| a.filter == id && a.supports_condition) {
                let msg = format!(
                    "exception filter `{id}` of {} takes no condition (its supportsCondition is not set); turn it on without one in `filters`.",
                    s.link.adapter
                );
                return Err(ToolResult::error(ErrorCode::Unsupported, msg));
            }
            conditioned.insert(id, condition);
        }
        let mapped: Vec<String> = mapped.into_iter().filter(|f| !conditioned.contains_key(f)).collect();
        s.breaks.exception_filters = Some(mapped.clone());
        s.breaks.exception_conditions = conditioned;
        if s.startup.configured && !s.run.state.is_over() {
            let args = s.exception_arguments(mapped);
            s.request::<SetExceptionBreakpoints>(args, Origin::Breakpoints(Op::Exception { call: Some(call) }), now);
            s.pump(now, &mut self.actions);
        } else {
            let text = format!("exception filters {} recorded for {}.", s.exception_text(&mapped), s.id);
            let structured = s.exception_json(mapped);
            self.complete(call, ToolResult::ok(text, structured));
        }
        Ok(())
    }
}

impl Session {
    /// `setExceptionBreakpoints` arguments: `filters`, and the session's conditioned filters as
    /// `filterOptions` where the adapter takes them (else as plain filters: the configuration
    /// phase of an adapter that stopped advertising them).
    /// Every mirror client's filters are added (`add_person_filters`): the adapter holds the union.
    pub(in crate::session) fn exception_arguments(&self, filters: Vec<String>) -> SetExceptionBreakpointsArguments {
        let mut args = self.agent_exception_arguments(filters);
        self.add_person_filters(&mut args);
        args
    }

    /// The agent's own `setExceptionBreakpoints` arguments.
    fn agent_exception_arguments(&self, mut filters: Vec<String>) -> SetExceptionBreakpointsArguments {
        let conditions = &self.breaks.exception_conditions;
        if conditions.is_empty() {
            return SetExceptionBreakpointsArguments { filters, filter_options: None };
        }
        if self.require(Gate::ExceptionFilterOptions).is_err() {
            filters.extend(conditions.keys().cloned());
            return SetExceptionBreakpointsArguments { filters, filter_options: None };
        }
        let options = conditions
            .iter()
            .map(|(id, c)| ExceptionFilterOptions { filter_id: id.clone(), condition: Some(c.clone()) })
            .collect();
        SetExceptionBreakpointsArguments { filters, filter_options: Some(options) }
    }

    /// `[raised, uncaught]` then ` · cpp_throw if x > 1` per conditioned filter.
    fn exception_text(&self, filters: &[String]) -> String {
        let mut text = format!("[{}]", filters.join(", "));
        for (id, c) in &self.breaks.exception_conditions {
            text.push_str(&format!(" · {id} if {c}"));
        }
        text
    }

    /// `{"filters": [...], "conditions": {id: condition}}` (`conditions` only when there are).
    fn exception_json(&self, filters: Vec<String>) -> Value {
        let mut out = filters_json(filters);
        if !self.breaks.exception_conditions.is_empty() {
            let conditions: Map<String, Value> =
                self.breaks.exception_conditions.iter().map(|(k, v)| (k.clone(), v.clone().into())).collect();
            out["conditions"] = Value::Object(conditions);
        }
        out
    }
}

impl Session {
    /// The answer to a `setBreakpoints` or `setExceptionBreakpoints`.
    pub(in crate::session) fn breakpoints_answered(&mut self, op: Op, reply: Reply, now: Instant) {
        let op = match op {
            Op::Functions { call, sent } => return self.function_breakpoints_answered(call, &sent, reply.answer()),
            Op::DataInfo(job) => return self.data_info_answered(*job, reply.answer(), now),
            Op::Data { call, sent } => return self.data_answered(call, &sent, reply.answer()),
            Op::Instructions { call, sent } => return self.instructions_answered(call, &sent, reply.answer()),
            Op::Locations { call, lines } => return self.locations_answered(call, lines, reply.answer()),
            Op::Mirror(op) => return self.mirror_breakpoints_answered(*op, reply),
            other => other,
        };
        let Reply { failure, code, body } = reply;
        // A body that is not an object reads as empty, as `body.get("breakpoints")` did.
        let answer = SetBreakpoints::parse(Some(&body)).unwrap_or_default();
        match op {
            Op::Retry { path, alias, call } => {
                let verified = failure.is_none() && any_verified(&answer);
                if verified {
                    self.breaks.store.on_answer(&path, Ok(&answer));
                    self.breaks.path_aliases.insert(path.clone(), alias);
                }
                self.note_breakpoints(&path, failure.as_deref());
                match call {
                    Some(call) => self.calls.done.push((call, {
                        let mut out = breakpoint_result(
                            &path,
                            self.breaks.store.get(&path),
                            self.breaks.store.people_kept(&path),
                            None,
                        );
                        say_removed(&mut out, &self.breaks.replaced.remove(&path).unwrap_or_default());
                        out
                    })),
                    None => {
                        self.startup.breakpoints_pending = self.startup.breakpoints_pending.saturating_sub(1);
                        self.configuration_step_done(now);
                    }
                }
            }
            Op::Set { path, call } => {
                match &failure {
                    None => self.breaks.store.on_answer(&path, Ok(&answer)),
                    Some(msg) => self.breaks.store.on_answer(&path, Err(msg)),
                }
                let none_verified = failure.is_none()
                    && !any_verified(&answer)
                    && !self.breaks.store.get(&path).is_empty()
                    && !self.breaks.path_aliases.contains_key(&path);
                if let Some(alias) = none_verified.then(|| self.other_spelling(&path)).flatten() {
                    // The adapter may know the file only under its other spelling (debug info
                    // written through a symlink, or around it): try that before reporting.
                    let mut args = self.breaks.store.set_breakpoints_arguments(&path);
                    args.source.path = Some(alias.clone());
                    self.request::<SetBreakpoints>(args, Origin::Breakpoints(Op::Retry { path, alias, call }), now);
                    return;
                }
                if failure.as_ref().map_or(true, |_| code != ErrorCode::Disconnected) {
                    self.note_breakpoints(&path, failure.as_deref());
                }
                if failure.is_none() {
                    self.note_sent_lines(&path);
                }
                let ignored = self.ignored_settings(&path);
                if call.is_none() {
                    self.calls.warnings.extend(ignored.clone());
                    self.startup.breakpoints_pending = self.startup.breakpoints_pending.saturating_sub(1);
                    self.configuration_step_done(now);
                }
                if let Some(call) = call {
                    let mut output = match failure {
                        Some(msg) if code != ErrorCode::Disconnected => breakpoint_result(
                            &path,
                            self.breaks.store.get(&path),
                            self.breaks.store.people_kept(&path),
                            Some(msg),
                        ),
                        Some(msg) => ToolResult::error(code, msg),
                        None => breakpoint_result(
                            &path,
                            self.breaks.store.get(&path),
                            self.breaks.store.people_kept(&path),
                            None,
                        ),
                    };
                    if !output.is_error {
                        say_removed(&mut output, &self.breaks.replaced.remove(&path).unwrap_or_default());
                    }
                    for note in &ignored {
                        output.text.push_str(&format!("\nwarning: {note}"));
                    }
                    if !ignored.is_empty() && !output.is_error {
                        output.structured["warnings"] = ignored.into();
                    }
                    self.calls.done.push((call, output));
                }
            }
            Op::Exception { call } => {
                if let Some(call) = call {
                    let output = match failure {
                        None => {
                            let filters = self.breaks.exception_filters.clone().unwrap_or_default();
                            let text = format!("exception filters set: {}", self.exception_text(&filters));
                            ToolResult::ok(text, self.exception_json(filters))
                        }
                        Some(msg) => ToolResult::error(code, msg),
                    };
                    self.calls.done.push((call, output));
                } else if let Some(msg) = failure {
                    log::warn!("{}: {msg}", self.id);
                }
            }
            // Taken above.
            Op::Functions { .. }
            | Op::DataInfo(_)
            | Op::Data { .. }
            | Op::Instructions { .. }
            | Op::Locations { .. }
            | Op::Mirror(_) => {}
        }
    }

    /// What the adapter will not do of `path`'s breakpoints, by the capabilities it announced
    /// (DAP § Types: Capabilities): a condition, a hit condition or a log message it has no
    /// support for is dropped or ignored, and the breakpoint stops on every hit (rdbg 1.4.0 takes
    /// a `hitCondition` without a word and ignores it).
    fn ignored_settings(&self, path: &str) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(kept) = self.breaks.kept_by_adapter.get(path).filter(|k| !k.is_empty()) {
            let lines: Vec<String> = kept
                .iter()
                .map(|(l, c)| c.as_ref().map_or_else(|| l.to_string(), |c| format!("{l} (if {c})")))
                .collect();
            notes.push(format!(
                "{} never removes or changes a breakpoint it was given (its setBreakpoints only adds): at {} line {} it still stops as first set, until the program ends",
                self.link.adapter,
                path.rsplit('/').next().unwrap_or(path),
                lines.join(", ")
            ));
        }
        let Some(caps) = self.link.client.capabilities() else { return notes };
        let entries = self.breaks.store.get(path);
        let lines = |has: fn(&SourceBreakpoint) -> bool| -> Vec<String> {
            entries.iter().filter(|e| has(&e.requested)).map(|e| e.requested.line.to_string()).collect()
        };
        let checks: [(bool, &str, &str, fn(&SourceBreakpoint) -> bool); 3] = [
            (
                self.honours("condition", caps.supports_conditional_breakpoints),
                "conditions",
                "supportsConditionalBreakpoints",
                |b| b.condition.is_some(),
            ),
            (
                self.honours("hit_condition", caps.supports_hit_conditional_breakpoints),
                "hit conditions",
                "supportsHitConditionalBreakpoints",
                |b| b.hit_condition.is_some(),
            ),
            (self.honours("log_message", caps.supports_log_points), "log points", "supportsLogPoints", |b| {
                b.log_message.is_some()
            }),
        ];
        let name = path.rsplit('/').next().unwrap_or(path);
        notes.extend(checks
            .into_iter()
            .filter(|(supported, ..)| !supported)
            .filter_map(|(_, what, capability, has)| {
                let at = lines(has);
                (!at.is_empty()).then(|| {
                    format!(
                        "{} does not support {what} ({capability} is not set): at {name} line {} it is ignored, and the breakpoint stops on every hit",
                        self.link.adapter,
                        at.join(", ")
                    )
                })
            }));
        notes
    }

    /// Whether the adapter honours the breakpoint setting `name` (`condition`, `hit_condition`,
    /// `log_message`): it advertised the capability for it, or it is among
    /// `Quirks::unadvertised_settings`.
    pub(in crate::session) fn honours(&self, name: &str, advertised: bool) -> bool {
        advertised || self.link.plan.quirks.unadvertised_settings.contains(&name)
    }

    /// After an answered `setBreakpoints` of `path` to an adapter that only adds
    /// (`Quirks::breakpoints_only_added`): which lines it was ever given, and which of them the
    /// agent's set no longer has as first given (they still stop).
    fn note_sent_lines(&mut self, path: &str) {
        if !self.link.plan.quirks.breakpoints_only_added {
            return;
        }
        let now: Vec<(u32, Option<String>)> =
            self.breaks.store.get(path).iter().map(|e| (e.requested.line, e.requested.condition.clone())).collect();
        let sent = self.breaks.sent_to_adapter.entry(path.to_owned()).or_default();
        for (line, condition) in &now {
            if !sent.iter().any(|(l, _)| l == line) {
                sent.push((*line, condition.clone()));
            }
        }
        let kept: Vec<(u32, Option<String>)> = sent.iter().filter(|s| !now.contains(s)).cloned().collect();
        self.breaks.kept_by_adapter.insert(path.to_owned(), kept);
    }

    /// A breakpoints request that never went out: a tool call hears why.
    pub(in crate::session) fn breakpoints_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        let call = match op {
            Op::DataInfo(job) => Some(job.call()),
            Op::Locations { call, .. } => Some(call),
            Op::Mirror(op) => return self.mirror_breakpoints_failed(*op, msg),
            Op::Set { call, .. }
            | Op::Retry { call, .. }
            | Op::Exception { call }
            | Op::Functions { call, .. }
            | Op::Data { call, .. }
            | Op::Instructions { call, .. } => call,
        };
        if let Some(call) = call {
            self.calls.done.push((call, ToolResult::error(code, msg)));
        }
    }

    /// `setBreakpoints` arguments for `path`, under the spelling the adapter accepted.
    pub(in crate::session) fn breakpoint_request(&self, path: &str) -> SetBreakpointsArguments {
        let mut args = self.breaks.store.set_breakpoints_arguments(path);
        args.source = self.breakpoint_source(path);
        args
    }

    /// The DAP `Source` of `path` as the adapter knows it (the spelling it accepted), for a
    /// request about a place in the file (`gotoTargets`).
    pub(in crate::session) fn breakpoint_source(&self, path: &str) -> Source {
        Source::path(self.breaks.path_aliases.get(path).map_or(path, String::as_str))
    }

    /// [`Session::breakpoint_request`] as a JSON value, for a caller that edits the list as
    /// JSON (`run_to`'s temporary breakpoint).
    pub(in crate::session) fn breakpoint_arguments(&self, path: &str) -> Value {
        // Serialising strings and numbers cannot fail.
        SetBreakpoints::arguments(&self.breakpoint_request(path)).unwrap_or(None).unwrap_or_default()
    }

    /// The other spelling of `path` (mfussenegger/nvim-dap#1197): its real path when it goes
    /// through a symlink; else, when it lies under the real path of the program's or cwd's
    /// directory as given (a symlinked project), the same file under that directory as given.
    /// `stat`s only.
    fn other_spelling(&self, path: &str) -> Option<String> {
        let given = Path::new(path);
        let real = self.link.files.canonicalize(given)?;
        if real != given {
            return Some(real.to_string_lossy().into_owned());
        }
        let args = &self.link.plan.launch_arguments;
        let program_dir = args.get("program").and_then(Value::as_str).and_then(|p| Path::new(p).parent());
        let cwd = args.get("cwd").and_then(Value::as_str).map(Path::new);
        for base in [program_dir, cwd].into_iter().flatten() {
            let Some(real_base) = self.link.files.canonicalize(base) else { continue };
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

/// Maps a requested exception filter onto the adapter's; `all` means `raised` where there is no
/// `all` (debugpy).
pub(in crate::session) fn map_filter(f: &str, known: &[String], quirks: &Quirks) -> Option<String> {
    if known.iter().any(|k| k == f) {
        return Some(f.to_owned());
    }
    let mapped = quirks.map_exception_filter(f);
    known.iter().any(|k| k == mapped).then(|| mapped.to_owned())
}

/// Maps every filter, or names the first unknown one.
fn map_filters(filters: &[String], known: &[String], quirks: &Quirks) -> Result<Vec<String>, String> {
    filters.iter().map(|f| map_filter(f, known, quirks).ok_or_else(|| f.clone())).collect()
}

/// Whether a `setBreakpoints` response verified any breakpoint.
fn any_verified(body: &SetBreakpointsResponse) -> bool {
    body.breakpoints.iter().any(|b| b.verified)
}

/// The structured result of `set_breakpoints`.
#[derive(Serialize)]
struct SetResult<'a> {
    path: &'a str,
    /// `true` when the set is only recorded (no live, configured session); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pending: Option<bool>,
    breakpoints: Value,
}

impl SetResult<'_> {
    fn value(&self) -> Value {
        // A struct of strings, a bool and a `Value` always serialises.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// The structured result of `set_exception_breakpoints`: `{"filters": [...]}`.
fn filters_json(filters: Vec<String>) -> Value {
    let mut m = Map::new();
    m.insert("filters".into(), filters.into());
    Value::Object(m)
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

/// Adds what a `replace` removed from the file's set to a `set_breakpoints` result (text and
/// `removed: [{line, hits}]`).
fn say_removed(out: &mut ToolResult, removed: &[crate::session::breakpoints::Removed]) {
    if let Some(text) = crate::session::breakpoints::removed_text(removed) {
        out.text.push_str(&format!("\n{text}"));
        let list: Vec<Value> = removed.iter().map(|r| serde_json::json!({"line": r.line, "hits": r.hits})).collect();
        out.structured["removed"] = list.into();
    }
}

/// The `set_breakpoints` result: one line per breakpoint, verified/moved/unverified.
/// `kept`: how many of the person's breakpoints (an attached IDE's) the file also holds; the
/// adapter was sent them too, and the agent's call never removes them (issue 22).
fn breakpoint_result(path: &str, set: &[Entry], kept: usize, failure: Option<String>) -> ToolResult {
    let mut text = format!("{} breakpoint(s) in {}", set.len(), short(path));
    if kept > 0 {
        text.push_str(&format!(" (+{kept} of the person's, kept)"));
    }
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
    let mut structured = SetResult { path, pending: None, breakpoints: breakpoints_json(set) }.value();
    if kept > 0 {
        structured["person_breakpoints_kept"] = kept.into();
    }
    ToolResult::ok(text, structured)
}
