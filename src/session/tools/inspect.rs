//! Tool group "inspect" (`mcp/tools/inspect.rs`): what a stopped program looks like — `context`,
//! `threads` (and `threads {select}`), `stack_trace`, `scopes`, `variables`, `evaluate`,
//! `exception_info`, `watch`, `capabilities`. Frame ids and variable references go out as handles
//! minted by agentdap ([`crate::session::handles`]) and are checked before anything is sent.
//!
//! A request's [`Op`] travels in its DAP origin ([`Origin::Inspect`]); when the response
//! arrives, [`Session::inspect_answered`] turns it into the tool result — or, for multi-step
//! operations (`context`, a default frame, previews), sends the next request carrying the
//! updated `Op`. Must not: read another group's state, or touch IO.

mod capabilities;
mod completions;
mod context;
pub(in crate::session) use context::{current_line, is_noise, lowercase_first};
mod many;
mod modules;
mod results;
pub mod stacks;
mod watch;

use std::time::Instant;

use serde_json::{Map, Value};

use super::gates::Gate;
use super::{session, stopped, Started};
use crate::dap::requests::{
    Evaluate, EvaluateArguments, ExceptionInfo, ExceptionInfoArguments, Request, Scope, Scopes, ScopesArguments,
    StackFrame, StackTrace, StackTraceArguments, Threads, ValueFormat, Variables, VariablesArguments,
};
use crate::session::handles::Kind;
use crate::session::preview;
use crate::session::snapshot::{put, RunState};
use crate::session::text::{clip, FRAME_NAME_CHARS, FRAME_PATH_CHARS, NO_VALUE};
use crate::session::values::{variable_line, RESULT_CHARS};
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};
pub use completions::CompletionsJob;
pub use context::ContextJob;
use context::CONTEXT_FRAMES;
pub use many::EvalMany;
pub use modules::ModulesJob;
pub(in crate::session) use results::{to_json, to_json_with};
use results::{FocusThread, ScopeList, StackResult, ThreadEntry, ThreadList, VariablesPage};
use watch::exception_result;

/// Most variables one `variables` page returns (default page: [`DEFAULT_PAGE`]).
pub const MAX_PAGE: usize = 500;
pub const DEFAULT_PAGE: usize = 100;

/// What an inspection request is doing; carried in its DAP origin.
#[derive(Debug)]
pub enum Op {
    /// `threads`; `first`: the first answer, which left out the thread the stop named, while
    /// the adapter is asked again (shown if the second ask fails).
    Threads {
        first: Option<Value>,
    },
    StackTrace {
        thread: i64,
        start: u64,
        levels: u64,
    },
    /// `scopes` of a frame; `frame` is `None` until the top frame was fetched.
    Scopes {
        thread: i64,
        frame: Option<i64>,
    },
    Variables(VarQuery),
    Evaluate {
        thread: i64,
        frame: Option<i64>,
        expression: String,
        context: String,
        /// `format: {hex: true}` was asked for: no previews (they would mix formats).
        hex: bool,
    },
    /// `evaluate {expressions}`: one after another in one frame (`many.rs`).
    Many(Box<EvalMany>),
    /// `completions` (`completions.rs`).
    Completions(CompletionsJob),
    /// `modules`, or the loaded sources (`modules.rs`).
    Modules(ModulesJob),
    Context(Box<ContextJob>),
    ExceptionInfo {
        thread: i64,
    },
    /// Children of containers whose values say nothing (see `preview.rs`), fetched before `then`
    /// answers: `fetching` is in flight (at `depth` 0 for the result's own values, 1 for their
    /// members), `rest` follow while `budget` lasts; `body` is `then`'s own response.
    Preview {
        fetching: i64,
        depth: u8,
        rest: Vec<(i64, u8)>,
        budget: usize,
        then: Box<Op>,
        body: Value,
    },
}

/// A `variables` request: the adapter's reference (already resolved) and the page wanted.
#[derive(Debug, Clone)]
pub struct VarQuery {
    pub handle: i64,
    pub reference: i64,
    pub start: usize,
    pub count: usize,
    pub filter: Option<String>,
    /// `format: {hex: true}`: fetched afresh, never cached (`many.rs`: `hex_page`).
    pub hex: bool,
}

/// The page a `variables` call asks for (all optional: from 0, [`DEFAULT_PAGE`] children, all).
#[derive(Debug, Default, Clone)]
pub struct Page {
    pub start: Option<usize>,
    pub count: Option<usize>,
    /// `indexed` or `named`.
    pub filter: Option<String>,
    /// Values in hex (Gate::ValueFormatting).
    pub hex: bool,
}

/// Arguments shared by inspection tools: a thread and a frame handle, both optional.
#[derive(Debug, Default, Clone, Copy)]
pub struct Target {
    pub thread: Option<i64>,
    pub frame: Option<i64>,
}

impl Sessions {
    /// Starts `op` on the stopped session `key`.
    fn inspect(&mut self, key: SessionKey, call: CallKey, op: Op, now: Instant) -> Started {
        stopped(&mut self.slab, key)?.start_op(call, op, now);
        self.after(key, now);
        Ok(())
    }

    pub fn threads(&mut self, key: SessionKey, call: CallKey, now: Instant) -> Started {
        self.inspect(key, call, Op::Threads { first: None }, now)
    }

    /// `threads {select}`: the focus thread for later calls (answered at once).
    pub fn select_thread(&mut self, key: SessionKey, thread: i64) -> Result<ToolResult, ToolResult> {
        let s = session(&mut self.slab, key)?;
        if s.run.state.is_over() {
            let msg = format!("{} has ended ({}); it has no threads to select.", s.id, s.run.state.as_str());
            return Err(ToolResult::error(ErrorCode::NotStopped, msg));
        }
        if s.view.known_threads.is_empty() {
            let msg = format!("agentdap has shown no thread of {} yet; call `threads` for the list.", s.id);
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        s.check_thread(Some(thread))?;
        s.view.focus_thread = Some(thread);
        Ok(ToolResult::ok(
            format!("{} focus thread is now {thread}", s.id),
            to_json(FocusThread { session: &s.id, thread }),
        ))
    }

    pub fn stack_trace(
        &mut self,
        key: SessionKey,
        thread: Option<i64>,
        start: u64,
        levels: u64,
        call: CallKey,
        now: Instant,
    ) -> Started {
        self.check_stopped(key)?;
        let thread = self.thread_arg(key, thread)?;
        self.inspect(key, call, Op::StackTrace { thread, start, levels }, now)
    }

    pub fn scopes(&mut self, key: SessionKey, target: Target, call: CallKey, now: Instant) -> Started {
        self.check_stopped(key)?;
        let frame = self.frame_arg(key, target.frame)?;
        let thread = self.thread_arg(key, target.thread)?;
        let frame = frame.or_else(|| self.slab.get(key).and_then(|s| s.known_top_frame(thread)));
        self.inspect(key, call, Op::Scopes { thread, frame }, now)
    }

    pub fn variables(&mut self, key: SessionKey, handle: i64, page: Page, call: CallKey, now: Instant) -> Started {
        let Page { start, count, filter, hex } = page;
        self.check_stopped(key)?;
        let reference = self.handle_arg(key, Kind::Variables, handle)?;
        if hex {
            stopped(&mut self.slab, key)?.require(Gate::ValueFormatting)?;
        }
        let q = VarQuery {
            handle,
            reference,
            start: start.unwrap_or(0),
            count: count.unwrap_or(DEFAULT_PAGE).max(1),
            filter,
            hex,
        };
        self.inspect(key, call, Op::Variables(q), now)
    }

    pub fn evaluate(
        &mut self,
        key: SessionKey,
        expression: String,
        target: Target,
        context: Option<String>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        self.evaluate_formatted(key, expression, target, context, false, call, now)
    }

    /// `evaluate`, with `format: {hex: true}` when `hex` (Gate::ValueFormatting).
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate_formatted(
        &mut self,
        key: SessionKey,
        expression: String,
        target: Target,
        context: Option<String>,
        hex: bool,
        call: CallKey,
        now: Instant,
    ) -> Started {
        self.check_stopped(key)?;
        let (thread, frame, context) = self.evaluate_in(key, target, context, hex)?;
        self.inspect(key, call, Op::Evaluate { thread, frame, expression, context, hex }, now)
    }

    /// Where and how an `evaluate` runs: the thread, the frame (the known top frame by default),
    /// the context (the recipe's by default); refused when `hex` is asked of an adapter without
    /// value formatting.
    pub(super) fn evaluate_in(
        &mut self,
        key: SessionKey,
        target: Target,
        context: Option<String>,
        hex: bool,
    ) -> Result<(i64, Option<i64>, String), ToolResult> {
        if hex {
            stopped(&mut self.slab, key)?.require(Gate::ValueFormatting)?;
        }
        let frame = self.frame_arg(key, target.frame)?;
        let thread = self.thread_arg(key, target.thread)?;
        let frame = frame.or_else(|| self.slab.get(key).and_then(|s| s.known_top_frame(thread)));
        let default = self.slab.get(key).map_or("repl", |s| s.link.plan.runtime.evaluate_context);
        Ok((thread, frame, context.unwrap_or_else(|| default.into())))
    }

    pub fn context(
        &mut self,
        key: SessionKey,
        target: Target,
        source_lines: Option<usize>,
        max_variables: Option<usize>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        self.check_stopped(key)?;
        self.frame_arg(key, target.frame)?;
        let thread = self.thread_arg(key, target.thread)?;
        let job = ContextJob::new(thread, target.frame, source_lines, max_variables);
        self.inspect(key, call, Op::Context(Box::new(job)), now)
    }

    pub fn exception_info(&mut self, key: SessionKey, thread: Option<i64>, call: CallKey, now: Instant) -> Started {
        let s = stopped(&mut self.slab, key)?;
        let reason = s.run.stop.as_ref().map(|st| st.reason.clone()).unwrap_or_default();
        if reason != "exception" {
            let msg = format!(
                "{} stopped for {reason}, not on an exception; exception_info applies to exception stops.",
                s.id
            );
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        if !s.link.client.capabilities().is_some_and(|c| c.supports_exception_info_request) {
            let msg = format!("{} has no exceptionInfo request; the stop's text is in the snapshot.", s.link.adapter);
            return Err(ToolResult::error(ErrorCode::Unsupported, msg));
        }
        let thread = self.thread_arg(key, thread)?;
        self.inspect(key, call, Op::ExceptionInfo { thread }, now)
    }
}

impl Session {
    /// Starts an inspection operation: sends its first request.
    pub(in crate::session) fn start_op(&mut self, call: CallKey, op: Op, now: Instant) {
        let revision = self.run.revision;
        match &op {
            Op::Threads { .. } => self.request::<Threads>((), Origin::Inspect { call, op, revision }, now),
            &Op::StackTrace { thread, start, levels } => {
                let args = StackTraceArguments { thread_id: thread, start_frame: Some(start), levels: Some(levels) };
                self.request::<StackTrace>(args, Origin::Inspect { call, op, revision }, now)
            }
            &Op::Scopes { thread, frame: None } | &Op::Evaluate { thread, frame: None, .. } => {
                let args = StackTraceArguments { thread_id: thread, start_frame: Some(0), levels: Some(1) };
                self.request::<StackTrace>(args, Origin::Inspect { call, op, revision }, now)
            }
            &Op::Scopes { frame: Some(f), .. } => {
                self.request::<Scopes>(ScopesArguments { frame_id: f }, Origin::Inspect { call, op, revision }, now)
            }
            Op::Evaluate { frame: Some(f), expression, context, hex, .. } => {
                let args = EvaluateArguments {
                    expression: expression.clone(),
                    frame_id: Some(*f),
                    context: Some(context.clone()),
                    format: ValueFormat::hex(*hex),
                };
                self.request::<Evaluate>(args, Origin::Inspect { call, op, revision }, now)
            }
            Op::Many(_) | Op::Completions(_) | Op::Modules(_) => self.start_more(call, op, now),
            Op::Variables(q) if q.hex => {
                let args = VariablesArguments {
                    variables_reference: q.reference,
                    format: ValueFormat::hex(true),
                    ..VariablesArguments::default()
                };
                self.request::<Variables>(args, Origin::Inspect { call, op, revision }, now)
            }
            Op::Variables(q) => {
                if let Some((_, vars)) = self.view.var_cache.get(&q.reference) {
                    // A shared handle, not a copy: later pages of a big container cost nothing.
                    let vars = std::rc::Rc::clone(vars);
                    let missing = self.missing_previews(vars.iter().skip(q.start).take(q.count.min(MAX_PAGE)));
                    if !missing.is_empty() {
                        return self.start_previews(call, missing, op, Value::Null, now);
                    }
                    let out = self.variables_page(q, &vars);
                    self.calls.done.push((call, out));
                    return;
                }
                let args = VariablesArguments { variables_reference: q.reference, ..VariablesArguments::default() };
                self.request::<Variables>(args, Origin::Inspect { call, op, revision }, now)
            }
            Op::Context(job) => {
                let args =
                    StackTraceArguments { thread_id: job.thread, start_frame: Some(0), levels: Some(CONTEXT_FRAMES) };
                self.request::<StackTrace>(args, Origin::Inspect { call, op, revision }, now)
            }
            &Op::ExceptionInfo { thread } => {
                let args = ExceptionInfoArguments { thread_id: thread };
                self.request::<ExceptionInfo>(args, Origin::Inspect { call, op, revision }, now)
            }
            // The first few children are all a preview shows (adapters without paging send all).
            &Op::Preview { fetching, .. } => {
                let args = preview::fetch_arguments(fetching);
                self.request::<Variables>(args, Origin::Inspect { call, op, revision }, now)
            }
        }
    }

    /// A response to an inspection request arrived (`Err` carries the failure's code and words).
    pub(in crate::session) fn inspect_answered(
        &mut self,
        call: CallKey,
        op: Op,
        result: Result<Value, (ErrorCode, String)>,
        revision: u64,
        now: Instant,
    ) {
        if revision != self.run.revision {
            let msg =
                format!("{} ran while the request was in flight (now rev {}); ask again.", self.id, self.run.revision);
            self.calls.done.push((call, ToolResult::error(ErrorCode::TargetInvalidated, msg)));
            return;
        }
        if let Op::Preview { fetching, depth, mut rest, mut budget, then, body } = op {
            // A failed fetch caches no children, so the value shows as the adapter gave it.
            let children = std::rc::Rc::new(
                result.ok().map(|mut b| crate::session::values::take_variables(&mut b)).unwrap_or_default(),
            );
            self.note_children_frame(fetching, &children);
            if children.len() < preview::PREVIEW_FETCH {
                // Fewer than asked for: that is every child, as good as a `variables` fetch.
                self.view.var_cache.insert(fetching, (self.run.revision, std::rc::Rc::clone(&children)));
            } else {
                self.view.preview_cache.insert(fetching, std::rc::Rc::clone(&children));
            }
            if depth == 0 {
                // Members that say nothing either (a struct inside a struct) show one level too.
                for r in self.missing_previews(children.iter()).into_iter().take(budget) {
                    rest.insert(0, (r, 1));
                    budget -= 1;
                }
            }
            if let Some((next, depth)) = rest.pop() {
                let op = Op::Preview { fetching: next, depth, rest, budget, then, body };
                return self.start_op(call, op, now);
            }
            return match *then {
                Op::Context(job) => self.context_next(call, job, now),
                Op::Variables(q) => self.start_op(call, Op::Variables(q), now),
                other => self.inspect_answered(call, other, Ok(body), revision, now),
            };
        }
        // A second `threads` that fails leaves the first answer standing.
        let (op, result) = match (op, result) {
            (Op::Threads { first: Some(first) }, Err(_)) => (Op::Threads { first: Some(Value::Null) }, Ok(first)),
            (op, result) => (op, result),
        };
        // These read their answers themselves (`many.rs` reports each expression's error).
        let op = match op {
            Op::Many(_) | Op::Completions(_) | Op::Modules(_) => return self.more_answered(call, op, result, now),
            other => other,
        };
        let mut body = match result {
            Ok(b) => b,
            Err((code, msg)) => {
                let hint = match &op {
                    Op::Evaluate { .. } => self.link.plan.runtime.evaluate_error_hint,
                    _ => None,
                };
                // A failed answer does not mean nothing ran (lldb-dap answers a call of a
                // `void` function "unknown error" after making it: a fresh user's finding).
                let ruby = self.link.plan.quirks.calls_without_parentheses;
                let wrote = op.evaluated().is_some_and(|e| crate::session::own_change::may_change_values_in(e, ruby));
                // A context whose scopes, locals or a watch failed still answers with the rest.
                if let Op::Context(mut job) = op {
                    // Asked before the timeout's bookkeeping below changes what is in flight.
                    let locals_in_flight = job.reading_locals();
                    // One request ran out of time (a repr that never returns): the rest would
                    // too, one timeout each, so the context answers with what it has.
                    if code == ErrorCode::Timeout && !job.frames.is_empty() {
                        let in_flight_watch = job.watches_started && !job.pending_watches.is_empty();
                        let rest: Vec<String> = if job.watches_started {
                            std::mem::take(&mut job.pending_watches)
                        } else {
                            self.view.watches.iter().map(|w| w.1.clone()).collect()
                        };
                        job.watches_started = true;
                        let why = format!("skipped: an earlier request of this context timed out ({msg})");
                        job.watches.extend(
                            rest.into_iter().enumerate().map(|(i, e)| {
                                (e, Err(if i == 0 && in_flight_watch { msg.clone() } else { why.clone() }))
                            }),
                        );
                        if job.locals.is_none() || !in_flight_watch {
                            // The locals' own read is the one that timed out, when it was asked.
                            if locals_in_flight {
                                job.locals_error = Some(msg.clone());
                            }
                            job.locals.get_or_insert_with(|| (String::new(), std::rc::Rc::default(), 0));
                        }
                        return self.context_next(call, job, now);
                    }
                    if job.watches_started && !job.pending_watches.is_empty() {
                        let expr = job.pending_watches.remove(0);
                        job.watches.push((expr, Err(msg)));
                        return self.context_next(call, job, now);
                    }
                    if !job.frames.is_empty() {
                        if locals_in_flight {
                            // The locals' `variables` failed: said, not shown as no locals.
                            job.locals_error = Some(msg);
                        } else {
                            job.locals = Some((String::new(), std::rc::Rc::default(), 0));
                        }
                        return self.context_next(call, job, now);
                    }
                }
                let msg = match hint.filter(|(words, _)| msg.contains(words)) {
                    Some((_, hint)) => format!("{msg} ({hint})"),
                    None => msg,
                };
                let msg = match wrote {
                        true => format!("{msg}; the expression may still have run (a call or an assignment acts before its answer fails, and a `void` call has no value to show): read the values again, and the next stop's changes name it"),
                        false => msg,
                    };
                let own = self.link.plan.runtime.evaluate_own_frames;
                let msg = crate::session::traceback::without_own_frames(&msg, own, &self.link.plan.name);
                self.calls.done.push((call, ToolResult::error(code, msg)));
                return;
            }
        };
        let out = match op {
            Op::Threads { first } => {
                let again = first.is_some();
                // lldb-dap 22 may answer the first `threads` after a stop without the thread that
                // stopped (one created since the last stop: the fresh user's `pthread_create`),
                // and the full list a moment later: asked once more before it is shown.
                let listed = Threads::parse(Some(&body)).unwrap_or_default().threads.unwrap_or_default();
                let stopped_on =
                    self.run.stop.as_ref().and_then(|s| s.thread).filter(|_| self.run.state == RunState::Stopped);
                if let Some(t) = stopped_on.filter(|t| !again && !listed.iter().any(|l| l.id == Some(*t))) {
                    log::debug!("{}: `threads` left out thread {t}, which the stop named: asking again", self.id);
                    return self.start_op(call, Op::Threads { first: Some(body) }, now);
                }
                self.threads_result(&body, stopped_on)
            }
            Op::StackTrace { thread, start, levels } => self.stack_result(thread, start, levels, &body),
            Op::Scopes { thread, frame: None } => match top_frame_id(&body) {
                Ok(f) => return self.start_op(call, Op::Scopes { thread, frame: Some(f) }, now),
                Err(why) => ToolResult::error(ErrorCode::AdapterError, format!("thread {thread} {why}")),
            },
            Op::Scopes { frame, .. } => {
                let scopes = Scopes::parse(Some(&body)).unwrap_or_default().scopes;
                if let Some(f) = frame {
                    self.note_frame_of(scopes.iter().map(|s| s.variables_reference.unwrap_or(0)), f);
                }
                self.scopes_result(&scopes)
            }
            Op::Evaluate { thread, frame: None, expression, context, hex } => match top_frame_id(&body) {
                Ok(f) => {
                    let op = Op::Evaluate { thread, frame: Some(f), expression, context, hex };
                    return self.start_op(call, op, now);
                }
                Err(why) => ToolResult::error(ErrorCode::AdapterError, format!("thread {thread} {why}")),
            },
            Op::Evaluate { ref expression, ref context, frame, hex, .. } => {
                if let Some(f) = frame {
                    let result = Evaluate::parse(Some(&body)).unwrap_or_default();
                    self.note_frame_of(result.variables_reference, f);
                }
                if hex {
                    let body = self.hex_answer(body, "result");
                    self.without_previews(|s| s.evaluate_result(expression, context, &body))
                } else {
                    let missing = self.missing_previews(std::iter::once(&body));
                    if !missing.is_empty() {
                        return self.start_previews(call, missing, op, body, now);
                    }
                    self.evaluate_result(expression, context, &body)
                }
            }
            Op::Variables(q) if q.hex => self.hex_page(&q, &body),
            Op::Variables(q) => {
                let vars = crate::session::values::take_variables(&mut body);
                self.note_children_frame(q.reference, &vars);
                self.view.var_cache.insert(q.reference, (self.run.revision, std::rc::Rc::new(vars)));
                // Served from the cache now, after any previews its page needs.
                return self.start_op(call, Op::Variables(q), now);
            }
            Op::Context(job) => return self.context_step(call, job, body, now),
            Op::ExceptionInfo { .. } => exception_result(&body),
            Op::Preview { .. } | Op::Many(_) | Op::Completions(_) | Op::Modules(_) => return,
        };
        self.calls.done.push((call, out));
    }

    /// `stopped_on`: the thread the current stop named, kept among the threads the agent may
    /// name and said to be missing when the adapter's list (asked twice) leaves it out.
    fn threads_result(&mut self, body: &Value, stopped_on: Option<i64>) -> ToolResult {
        let threads = Threads::parse(Some(body)).unwrap_or_default().threads.unwrap_or_default();
        self.view.known_threads = threads.iter().filter_map(|t| t.id).collect();
        let missing = stopped_on.filter(|t| !self.view.known_threads.contains(t));
        if let Some(t) = missing {
            self.view.known_threads.push(t);
        }
        let focus = self.thread_for(None);
        let mut text = format!("{} threads ({}):", self.id, threads.len());
        let mut list = Vec::new();
        for t in &threads {
            let name = t.name.as_deref().unwrap_or("");
            let focused = t.id.is_some() && t.id == focus;
            let mark = if focused { " (focus)" } else { "" };
            match t.id {
                Some(id) => text.push_str(&format!("\n  {id} {name}{mark}")),
                // DAP § Types › Thread: `id` is a number; without one it cannot be selected.
                None => text.push_str(&format!("\n  ? {name} (the adapter gave it no integer id)")),
            }
            list.push(ThreadEntry { id: t.id, name, focus: focused });
        }
        if let Some(t) = missing {
            text.push_str(&format!(
                "\nnote: the adapter's list leaves out thread {t}, which the stop named (asked twice); it may still be named"
            ));
        }
        let mut structured = to_json(ThreadList { session: &self.id, revision: self.run.revision, threads: list });
        if let Some(t) = missing {
            structured["stop_thread_unlisted"] = t.into();
        }
        ToolResult::ok(text, structured)
    }

    /// The frames of a `stackTrace` answer as a result shows them: `line`, `column` and `path`
    /// as the adapter sent them (test `a_frame_source_falls_back_to_its_name_as_today`).
    fn frames_json(&mut self, frames: &[StackFrame]) -> Vec<Value> {
        frames
            .iter()
            .map(|f| {
                let mut m = Map::new();
                // A frame without an integer id gets no handle: nothing could name it to the adapter.
                let handle = f.id.typed().and_then(|&id| self.view.handles.mint(Kind::Frame, id));
                put(&mut m, "frame", handle.map(Value::from));
                let name = f.name.as_deref();
                put(
                    &mut m,
                    "function",
                    name.map(|n| Value::from(clip(&crate::session::names::readable_frame_name(n), FRAME_NAME_CHARS).0)),
                );
                if let Some(src) = &f.source {
                    let path = if src.path.is_present() { src.path.raw() } else { src.name.raw() };
                    let path = path.map(|p| match p.as_str() {
                        Some(s) if s.chars().count() > FRAME_PATH_CHARS => Value::from(clip(s, FRAME_PATH_CHARS).0),
                        _ => p,
                    });
                    put(&mut m, "path", path);
                    let source_ref = src.source_reference.filter(|&r| r > 0);
                    put(&mut m, "source_ref", source_ref.map(Value::from));
                }
                put(&mut m, "line", f.line.raw());
                put(&mut m, "column", f.column.raw());
                Value::Object(m)
            })
            .collect()
    }

    fn stack_result(&mut self, thread: i64, start: u64, levels: u64, body: &Value) -> ToolResult {
        let mut trace = StackTrace::parse(Some(body)).unwrap_or_default();
        // DAP § Requests: StackTrace: `levels` is the most frames to return (an adapter that
        // sends more is cut to what was asked).
        trace.stack_frames.truncate(usize::try_from(levels).unwrap_or(usize::MAX));
        if start == 0 {
            self.stack_read_at_stop(thread, &trace.stack_frames, levels);
        }
        let total = trace.total_frames;
        let mut list = self.frames_json(&trace.stack_frames);
        let mut text = format!("{} thread {thread} · rev {}", self.id, self.run.revision);
        let mut shown = 0;
        for (i, (f, frame)) in list.iter_mut().zip(&trace.stack_frames).enumerate() {
            let mut line = format!("\n  #{} ", start as usize + i);
            push_frame_line(&mut line, f);
            // The frame's instruction address, as an instruction breakpoint or `memory` takes it.
            if let Some(ip) = frame.instruction_pointer_reference.as_deref().filter(|ip| !ip.is_empty()) {
                line.push_str(&format!(" @ {}", crate::visible::escaped(ip)));
                f["address"] = ip.into();
            }
            // Frames of huge names end the page early; the line below says where the rest starts.
            if text.len() + line.len() > RESULT_CHARS && shown > 0 {
                break;
            }
            text.push_str(&line);
            shown += 1;
        }
        list.truncate(shown);
        let next_start = match shown < trace.stack_frames.len() {
            true => Some(start + shown as u64),
            false => more_frames(start, levels, trace.stack_frames.len(), total),
        };
        if let Some(next) = next_start {
            text.push_str(&format!("\n  … more frames (call stack_trace with start={next})"));
        }
        let structured =
            StackResult { session: &self.id, revision: self.run.revision, thread, total_frames: total, next_start };
        ToolResult::ok(text, to_json_with(structured, "frames", list))
    }

    fn scopes_result(&mut self, scopes: &[Scope]) -> ToolResult {
        let mut text = format!("{} scopes · rev {}", self.id, self.run.revision);
        let mut list = Vec::new();
        for s in scopes {
            let name = s.name.as_deref().unwrap_or("?");
            let reference = s.variables_reference.unwrap_or(0);
            let handle = if reference > 0 { self.view.handles.mint(Kind::Variables, reference) } else { None };
            let expensive = s.expensive;
            text.push_str(&format!(
                "\n  {name}{}{}",
                handle.map(|h| format!(" [ref {h}]")).unwrap_or_default(),
                if expensive { " (expensive)" } else { "" }
            ));
            let mut m = Map::new();
            m.insert("name".into(), name.into());
            put(&mut m, "ref", handle.map(Value::from));
            put(&mut m, "named", s.named_variables.raw());
            put(&mut m, "indexed", s.indexed_variables.raw());
            if expensive {
                m.insert("expensive".into(), true.into());
            }
            list.push(Value::Object(m));
        }
        ToolResult::ok(text, to_json(ScopeList { session: &self.id, revision: self.run.revision, scopes: list }))
    }

    /// with the total and the `start` to ask for next (agentdap pages itself: not every adapter
    /// supports DAP `variables`' `start`/`count`).
    fn variables_page(&mut self, q: &VarQuery, all: &[Value]) -> ToolResult {
        let filtered: Vec<&Value> = all
            .iter()
            .filter(|v| match q.filter.as_deref() {
                Some("indexed") => v.get("name").and_then(Value::as_str).is_some_and(is_index_name),
                Some("named") => !v.get("name").and_then(Value::as_str).is_some_and(is_index_name),
                _ => true,
            })
            .collect();
        let total = filtered.len();
        let mut text = String::new();
        let mut list = Vec::new();
        let mut end = q.start.min(total);
        for v in filtered.iter().skip(q.start).take(q.count.min(MAX_PAGE)) {
            let j = self.variable_json(v);
            let line = variable_line(&j);
            if text.len() + line.len() > RESULT_CHARS && !list.is_empty() {
                break;
            }
            text.push_str("\n  ");
            text.push_str(&line);
            list.push(j);
            end += 1;
        }
        let mut head = format!(
            "{} ref {} · {}–{} of {} · rev {}",
            self.id,
            q.handle,
            q.start.min(total),
            end,
            total,
            self.run.revision
        );
        // debugpy lists the first 100 items of a big container, then `more` (a ref holding the
        // rest) and `len()`: say the real length so the agent knows what `more` holds.
        let length = all
            .iter()
            .find(|v| v.get("name").and_then(Value::as_str) == Some("len()"))
            .and_then(|v| v.get("value").and_then(Value::as_str))
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(n) = length {
            head.push_str(&format!(" · length {n}"));
        }
        if q.count > MAX_PAGE {
            head.push_str(&format!(" (count capped at {MAX_PAGE})"));
        }
        // debugpy puts the items past its first 100 under a `more` child: point at it.
        if let Some(more) = list.iter().find(|v| v["name"] == "more").and_then(|v| v.get("ref")) {
            text.push_str(&format!("\n  (the remaining items are under `more`: call variables with ref={more})"));
        }
        let truncated = end < total;
        if truncated {
            head.push_str(&format!(" (truncated: call variables with start={end} for more)"));
        }
        let structured = VariablesPage {
            session: &self.id,
            revision: self.run.revision,
            handle: q.handle,
            start: q.start,
            total,
            length,
            truncated: truncated.then_some(true),
            next_start: truncated.then_some(end),
        };
        ToolResult::ok(format!("{head}{text}"), to_json_with(structured, "variables", list))
    }

    fn evaluate_result(&mut self, expression: &str, context: &str, body: &Value) -> ToolResult {
        let mut j = self.variable_json(body);
        if let Some(m) = j.as_object_mut() {
            m.remove("name");
            m.insert("expression".into(), expression.into());
        }
        let value = j.get("preview").or_else(|| j.get("value")).and_then(Value::as_str).unwrap_or("").to_owned();
        let raw = body.get("result").and_then(Value::as_str).unwrap_or("");
        let runtime = &self.link.plan.runtime;
        // rdbg 1.4.0 sends the refusal as Ruby's inspection of the string, quotes included.
        let unquoted = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
        // An expression that itself spells the words (a string literal) answers them as its value.
        if runtime.evaluate_refusals.contains(&unquoted) && !expression.contains(unquoted) {
            let msg = format!(
                "{} could not evaluate `{expression}` in this frame: it answered {unquoted:?} (the frame has no binding to evaluate in, like a C method's); pass `frame` of a frame in the program's own code (`stack_trace` lists them).",
                self.link.adapter
            );
            return ToolResult::error(ErrorCode::AdapterError, msg);
        }
        let raised = j.get("type").and_then(Value::as_str).map(str::to_owned).filter(|t| {
            runtime.evaluate_raises_as_value
                && (t.ends_with("Error") || t.ends_with("Exception"))
                && raw.starts_with(&format!("#<{t}"))
        });
        if let Some(t) = &raised {
            j["value_note"] = format!(
                "{} answers an exception the expression raised as its value: this `{t}` is most likely the expression's failure",
                self.link.adapter
            )
            .into();
        }
        let value = if value.is_empty() {
            // The structured `value` stays the adapter's "", and says what it means.
            let known = self.link.plan.runtime.empty_evaluate.filter(|(c, _)| *c == context).map(|(_, what)| what);
            let what = known.unwrap_or(NO_VALUE);
            j["value_note"] = what.into();
            what.to_owned()
        } else {
            value
        };
        // A statement that answered nothing (`x = 5` in debugpy's repl) is not `x = 5 = …`.
        let statement = j.get("value_note").is_some() && crate::session::own_change::may_assign(expression);
        let mut text = match statement {
            true => format!("{expression}: {value}"),
            false => format!("{expression} = {value}"),
        };
        if let Some(t) = j.get("type").and_then(Value::as_str) {
            text.push_str(&format!("  ({t})"));
        }
        if let Some(r) = j.get("ref") {
            text.push_str(&format!("  [ref {r}]"));
        }
        if let Some(m) = j.get("memoryReference").and_then(Value::as_str) {
            text.push_str(&format!("  mem {m}"));
        }
        if let Some(note) = raised.and(j.get("value_note")).and_then(Value::as_str) {
            text.push_str(&format!("\n(note: {note})"));
        }
        j["session"] = self.id.clone().into();
        j["revision"] = self.run.revision.into();
        ToolResult::ok(text, j)
    }

    /// Fetches the children of `refs` one after another, then answers `then` (see `Op::Preview`).
    fn start_previews(&mut self, call: CallKey, refs: Vec<i64>, then: Op, body: Value, now: Instant) {
        let budget = (2 * preview::PREVIEW_CONTAINERS).saturating_sub(refs.len());
        let mut rest: Vec<(i64, u8)> = refs.into_iter().rev().map(|r| (r, 0)).collect();
        match rest.pop() {
            Some((fetching, depth)) => {
                let op = Op::Preview { fetching, depth, rest, budget, then: Box::new(then), body };
                self.start_op(call, op, now)
            }
            None => self.calls.done.push((call, ToolResult::error(ErrorCode::AdapterError, "nothing to preview"))),
        }
    }
}

/// Where the next page of frames starts, when a `stackTrace` answer (`got` frames of the
/// `levels` asked for from `start`) says more follow. The count is never shown: DAP § Requests:
/// StackTrace lets `totalFrames` exceed the frames there are (lldb-dap 22 answers 25 for a
/// 9-frame stack asked for 5); a page shorter than asked for is the end.
fn more_frames(start: u64, levels: u64, got: usize, total: Option<u64>) -> Option<u64> {
    let next = start + got as u64;
    let full_page = got as u64 >= levels && got > 0;
    (full_page && total.is_none_or(|t| t > next)).then_some(next)
}

/// The first frame's id of a `stackTrace` answer; else why there is none, to follow `thread N`:
/// it has no frames, or the adapter gave its top frame no integer `id` (DAP § Types ›
/// StackFrame: `id` is a number), which `scopes` and `evaluate` need to name it.
pub(in crate::session) fn top_frame_id(body: &Value) -> Result<i64, String> {
    let trace = StackTrace::parse(Some(body)).unwrap_or_default();
    let Some(top) = trace.stack_frames.first() else { return Err("has no frames".to_owned()) };
    top.id.typed().copied().ok_or_else(|| {
        let sent = top.id.raw().map_or_else(|| "none".to_owned(), |v| clip(&v.to_string(), 40).0);
        format!("has a top frame without an integer `id` (the adapter sent {sent}), so it cannot be read")
    })
}

/// `total() at app.py:12 [frame 1004]`, appended to `s`.
fn push_frame_line(s: &mut String, f: &Value) {
    s.push_str(f.get("function").and_then(Value::as_str).unwrap_or("?"));
    if let Some(p) = f.get("path").and_then(Value::as_str) {
        s.push_str(" at ");
        s.push_str(p.rsplit('/').next().unwrap_or(p));
        if let Some(l) = f.get("line") {
            push_value(s, ":", l);
        }
    }
    if let Some(h) = f.get("frame") {
        push_value(s, " [frame ", h);
        s.push(']');
    }
}

/// `before` and `v` as its JSON text; an integer is written as one (a `Value`'s `Display` runs a
/// JSON serializer, the dearer part of a frame's line).
fn push_value(s: &mut String, before: &str, v: &Value) {
    use std::fmt::Write;
    s.push_str(before);
    let _ = match v.as_u64() {
        Some(n) => write!(s, "{n}"),
        None => write!(s, "{v}"),
    };
}

fn is_index_name(name: &str) -> bool {
    let n = name.trim_start_matches('[').trim_end_matches(']');
    !n.is_empty() && (n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with("0x"))
}

#[cfg(test)]
mod line_tests;
