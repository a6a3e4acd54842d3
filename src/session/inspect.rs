//! Inspecting a stopped session (DESIGN §4–§5): threads, stack traces, scopes, variables with
//! paging, evaluate, and the one-call `context`. Frame ids and variable references go out as
//! handles minted by agentdap ([`super::handles`]) and are checked before anything is sent.
//!
//! A request's [`Op`] travels in its DAP origin; when the response arrives, [`Session::finish`]
//! turns it into the tool result — or, for multi-step operations (`context`, a default frame),
//! sends the next request carrying the updated `Op`.

use std::time::Instant;

use serde_json::{json, Map, Value};

use super::handles::{HandleError, Kind};
use super::preview;
use super::snapshot::put;
use super::{CallKey, ErrorCode, Origin, Session, ToolResult};

/// Most variables one `variables` page returns (default page: [`DEFAULT_PAGE`]).
pub const MAX_PAGE: usize = 500;
pub const DEFAULT_PAGE: usize = 100;
/// Most characters of one value shown in text (the structured value is cut the same way).
const VALUE_CHARS: usize = 300;
/// Most characters of a tool result's text (DESIGN §9); past it the page ends early.
pub const RESULT_CHARS: usize = 20_000;
/// Default source lines around the current line in `context`, and its cap.
pub const DEFAULT_SOURCE_LINES: usize = 5;
const MAX_SOURCE_LINES: usize = 50;
/// Default locals shown by `context`, and its cap.
pub const DEFAULT_CONTEXT_VARS: usize = 30;
const MAX_CONTEXT_VARS: usize = 200;
/// Frames shown by `context`.
const CONTEXT_FRAMES: u64 = 5;
/// Most variables references whose frame is remembered (`Session::var_frames`).
pub const MAX_VAR_FRAMES: usize = 4096;
/// Source files larger than this are not read for `context` (bytes).
const MAX_SOURCE_FILE: u64 = 4 << 20;

/// What an inspection request is doing; carried in its DAP origin.
#[derive(Debug)]
pub enum Op {
    Threads,
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
    },
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
}

/// The `context` tool's progress through its requests.
#[derive(Debug, Default)]
pub struct ContextJob {
    pub thread: i64,
    pub source_lines: usize,
    pub max_variables: usize,
    frames: Vec<Value>,
    /// The stack answer's `totalFrames`, when the adapter sent one.
    total_frames: Option<u64>,
    /// The frame to show (index into `frames`), when the agent chose one.
    pub frame_handle: Option<i64>,
    /// The locals scope: its name, its variables, its adapter reference.
    locals: Option<(String, std::rc::Rc<Vec<Value>>, i64)>,
    watches_started: bool,
    watches: Vec<(String, Result<String, String>)>,
    pending_watches: Vec<String>,
}

/// The page a `variables` call asks for (all optional: from 0, [`DEFAULT_PAGE`] children, all).
#[derive(Debug, Default, Clone)]
pub struct Page {
    pub start: Option<usize>,
    pub count: Option<usize>,
    /// `indexed` or `named`.
    pub filter: Option<String>,
}

/// Arguments shared by inspection tools: a thread and a frame handle, both optional.
#[derive(Debug, Default, Clone, Copy)]
pub struct Target {
    pub thread: Option<i64>,
    pub frame: Option<i64>,
}

impl Session {
    /// The thread inspection applies to: the one given, else the focus thread, else the stop's.
    pub(super) fn thread_for(&self, thread: Option<i64>) -> Option<i64> {
        thread.or(self.view.focus_thread).or_else(|| self.run.stop.as_ref().and_then(|s| s.thread))
    }

    /// The adapter id of `thread`'s top frame at this stop, when the stop already fetched it.
    pub(super) fn known_top_frame(&self, thread: i64) -> Option<i64> {
        self.run.top_frame.filter(|(rev, t, _)| *rev == self.run.revision && *t == thread).map(|(_, _, f)| f)
    }

    /// Resolves a handle argument, or explains why it cannot be used (`target_invalidated`
    /// names the revision; nothing is sent to the adapter).
    pub(super) fn resolve_handle(&self, kind: Kind, handle: i64) -> Result<i64, ToolResult> {
        self.view.handles.resolve(kind, handle).map_err(|e| match e {
            HandleError::Stale => ToolResult::error(
                ErrorCode::TargetInvalidated,
                format!(
                    "{} {handle} is from an earlier stop, or from before a change that made the adapter's ids stale; {} is now at rev {}. Call `context` or `stack_trace` again for fresh ids.",
                    kind.as_str(),
                    self.id,
                    self.run.revision
                ),
            ),
            other => ToolResult::error(
                ErrorCode::InvalidArgument,
                format!("{} {handle} is not valid for {}: {other}. Use an id from a recent result.", kind.as_str(), self.id),
            ),
        })
    }

    /// Starts an inspection operation: sends its first request.
    pub(super) fn start_op(&mut self, call: CallKey, op: Op, now: Instant) {
        let (command, args) = match &op {
            Op::Threads => ("threads", None),
            Op::StackTrace { thread, start, levels } => {
                ("stackTrace", Some(json!({ "threadId": thread, "startFrame": start, "levels": levels })))
            }
            Op::Scopes { thread, frame: None } | Op::Evaluate { thread, frame: None, .. } => {
                ("stackTrace", Some(json!({ "threadId": thread, "startFrame": 0, "levels": 1 })))
            }
            Op::Scopes { frame: Some(f), .. } => ("scopes", Some(json!({ "frameId": f }))),
            Op::Evaluate { frame: Some(f), expression, context, .. } => {
                ("evaluate", Some(json!({ "expression": expression, "frameId": f, "context": context })))
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
                ("variables", Some(json!({ "variablesReference": q.reference })))
            }
            Op::Context(job) => {
                ("stackTrace", Some(json!({ "threadId": job.thread, "startFrame": 0, "levels": CONTEXT_FRAMES })))
            }
            Op::ExceptionInfo { thread } => ("exceptionInfo", Some(json!({ "threadId": thread }))),
            // The first few children are all a preview shows (adapters without paging send all).
            Op::Preview { fetching, .. } => (
                "variables",
                Some(json!({ "variablesReference": fetching, "start": 0, "count": preview::PREVIEW_FETCH })),
            ),
        };
        let revision = self.run.revision;
        self.send(command, args, Origin::Inspect { call, op, revision }, now);
    }

    /// A response to an inspection request arrived (`Err` carries the failure's code and words).
    pub(super) fn finish(
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
            let children = result.ok().and_then(|b| b.get("variables").and_then(Value::as_array).cloned());
            let children = std::rc::Rc::new(children.unwrap_or_default());
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
                other => self.finish(call, other, Ok(body), revision, now),
            };
        }
        let body =
            match result {
                Ok(b) => b,
                Err((code, msg)) => {
                    // A context whose scopes, locals or a watch failed still answers with the rest.
                    if let Op::Context(mut job) = op {
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
                            job.watches.extend(rest.into_iter().enumerate().map(|(i, e)| {
                                (e, Err(if i == 0 && in_flight_watch { msg.clone() } else { why.clone() }))
                            }));
                            if job.locals.is_none() || !in_flight_watch {
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
                            job.locals = Some((String::new(), std::rc::Rc::default(), 0));
                            return self.context_next(call, job, now);
                        }
                    }
                    self.calls.done.push((call, ToolResult::error(code, msg)));
                    return;
                }
            };
        let out = match op {
            Op::Threads => self.threads_result(&body),
            Op::StackTrace { thread, start, levels } => self.stack_result(thread, start, levels, &body),
            Op::Scopes { thread, frame: None } => match top_frame_id(&body) {
                Some(f) => return self.start_op(call, Op::Scopes { thread, frame: Some(f) }, now),
                None => ToolResult::error(ErrorCode::AdapterError, format!("thread {thread} has no frames")),
            },
            Op::Scopes { frame, .. } => {
                if let Some(f) = frame {
                    let scopes = body.get("scopes").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                    self.note_frame_of(scopes, f);
                }
                self.scopes_result(&body)
            }
            Op::Evaluate { thread, frame: None, expression, context } => match top_frame_id(&body) {
                Some(f) => {
                    return self.start_op(call, Op::Evaluate { thread, frame: Some(f), expression, context }, now)
                }
                None => ToolResult::error(ErrorCode::AdapterError, format!("thread {thread} has no frames")),
            },
            Op::Evaluate { ref expression, ref context, frame, .. } => {
                if let Some(f) = frame {
                    self.note_frame_of(std::slice::from_ref(&body), f);
                }
                let missing = self.missing_previews(std::iter::once(&body));
                if !missing.is_empty() {
                    return self.start_previews(call, missing, op, body, now);
                }
                self.evaluate_result(expression, context, &body)
            }
            Op::Variables(q) => {
                let vars = body.get("variables").and_then(Value::as_array).cloned().unwrap_or_default();
                self.note_children_frame(q.reference, &vars);
                self.view.var_cache.insert(q.reference, (self.run.revision, std::rc::Rc::new(vars)));
                // Served from the cache now, after any previews its page needs.
                return self.start_op(call, Op::Variables(q), now);
            }
            Op::Context(job) => return self.context_step(call, job, body, now),
            Op::ExceptionInfo { .. } => exception_result(&body),
            Op::Preview { .. } => return,
        };
        self.calls.done.push((call, out));
    }

    fn threads_result(&mut self, body: &Value) -> ToolResult {
        let threads = body.get("threads").and_then(Value::as_array).cloned().unwrap_or_default();
        self.view.known_threads = threads.iter().filter_map(|t| t.get("id").and_then(Value::as_i64)).collect();
        let focus = self.thread_for(None);
        let mut text = format!("{} threads ({}):", self.id, threads.len());
        let mut list = Vec::new();
        for t in &threads {
            let id = t.get("id").and_then(Value::as_i64).unwrap_or(0);
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            let mark = if Some(id) == focus { " (focus)" } else { "" };
            text.push_str(&format!("\n  {id} {name}{mark}"));
            list.push(json!({ "id": id, "name": name, "focus": Some(id) == focus }));
        }
        ToolResult::ok(text, json!({ "session": self.id, "revision": self.run.revision, "threads": list }))
    }

    fn frames_json(&mut self, frames: &[Value]) -> Vec<Value> {
        frames
            .iter()
            .map(|f| {
                let mut m = Map::new();
                let id = f.get("id").and_then(Value::as_i64).unwrap_or(0);
                put(&mut m, "frame", self.view.handles.mint(Kind::Frame, id).map(Value::from));
                let name = f.get("name").and_then(Value::as_str);
                put(&mut m, "function", name.map(|n| Value::from(super::names::readable_frame_name(n).into_owned())));
                let src = &f["source"];
                put(&mut m, "path", src.get("path").or_else(|| src.get("name")).cloned());
                let source_ref = src.get("sourceReference").and_then(Value::as_i64).filter(|&r| r > 0);
                put(&mut m, "source_ref", source_ref.map(Value::from));
                put(&mut m, "line", f.get("line").cloned());
                put(&mut m, "column", f.get("column").cloned());
                Value::Object(m)
            })
            .collect()
    }

    fn stack_result(&mut self, thread: i64, start: u64, levels: u64, body: &Value) -> ToolResult {
        let frames = body.get("stackFrames").and_then(Value::as_array).cloned().unwrap_or_default();
        let total = body.get("totalFrames").and_then(Value::as_u64);
        let list = self.frames_json(&frames);
        let mut text = format!("{} thread {thread} · rev {}", self.id, self.run.revision);
        for (i, f) in list.iter().enumerate() {
            text.push_str(&format!("\n  #{} {}", start as usize + i, frame_line(f)));
        }
        let mut structured =
            json!({ "session": self.id, "revision": self.run.revision, "thread": thread, "frames": list });
        if let Some(t) = total {
            structured["total_frames"] = t.into();
        }
        if let Some(next) = more_frames(start, levels, frames.len(), total) {
            text.push_str(&format!("\n  … more frames (call stack_trace with start={next})"));
            structured["next_start"] = next.into();
        }
        ToolResult::ok(text, structured)
    }

    fn scopes_result(&mut self, body: &Value) -> ToolResult {
        let scopes = body.get("scopes").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut text = format!("{} scopes · rev {}", self.id, self.run.revision);
        let mut list = Vec::new();
        for s in &scopes {
            let name = s.get("name").and_then(Value::as_str).unwrap_or("?");
            let reference = s.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
            let handle = if reference > 0 { self.view.handles.mint(Kind::Variables, reference) } else { None };
            let expensive = s.get("expensive").and_then(Value::as_bool).unwrap_or(false);
            text.push_str(&format!(
                "\n  {name}{}{}",
                handle.map(|h| format!(" [ref {h}]")).unwrap_or_default(),
                if expensive { " (expensive)" } else { "" }
            ));
            let mut m = Map::new();
            m.insert("name".into(), name.into());
            put(&mut m, "ref", handle.map(Value::from));
            put(&mut m, "named", s.get("namedVariables").cloned());
            put(&mut m, "indexed", s.get("indexedVariables").cloned());
            if expensive {
                m.insert("expensive".into(), true.into());
            }
            list.push(Value::Object(m));
        }
        ToolResult::ok(text, json!({ "session": self.id, "revision": self.run.revision, "scopes": list }))
    }

    /// One variable for a result: name, value (cut to [`VALUE_CHARS`]), type, and a `ref` handle
    /// when it has children.
    pub(super) fn variable_json(&mut self, v: &Value) -> Value {
        let mut m = Map::new();
        let name = self.shown_name(v).map_or(Value::Null, |n| Value::from(n.into_owned()));
        m.insert("name".into(), name);
        let value = v.get("value").or_else(|| v.get("result")).and_then(Value::as_str).unwrap_or("");
        let (value, cut) = clip(value, VALUE_CHARS);
        m.insert("value".into(), value.into());
        if cut {
            m.insert("value_truncated".into(), true.into());
        }
        put(&mut m, "type", v.get("type").cloned().filter(|t| t.as_str().is_some_and(|s| !s.is_empty())));
        let reference = v.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
        if let Some(children) = preview::wants_preview(v).and_then(|r| self.cached_children(r)) {
            if !children.is_empty() {
                let lookup = |r: i64| self.cached_children(r);
                m.insert("preview".into(), preview::render(&children, &lookup).into());
            }
        }
        if reference > 0 {
            put(&mut m, "ref", self.view.handles.mint(Kind::Variables, reference).map(Value::from));
            put(&mut m, "named", v.get("namedVariables").cloned());
            put(&mut m, "indexed", v.get("indexedVariables").cloned());
        }
        put(&mut m, "evaluate_name", v.get("evaluateName").cloned());
        Value::Object(m)
    }

    /// The name a child is shown under (and that `set_variable` takes): the adapter's, or for
    /// an unnamed one its `evaluateName` without outer parentheses
    /// (`Quirks::unnamed_child_from_evaluate_name`).
    pub(super) fn shown_name<'a>(&self, v: &'a Value) -> Option<std::borrow::Cow<'a, str>> {
        let name = v.get("name").and_then(Value::as_str)?;
        if !name.is_empty() || !self.link.plan.quirks.unnamed_child_from_evaluate_name {
            return Some(name.into());
        }
        let Some(e) = v.get("evaluateName").and_then(Value::as_str).filter(|e| !e.is_empty()) else {
            return Some(name.into());
        };
        let inner = e.strip_prefix('(').and_then(|i| i.strip_suffix(')')).filter(|i| balanced(i));
        Some(inner.unwrap_or(e).to_owned().into())
    }

    /// A page of a container's children, cut to the page size and to [`RESULT_CHARS`] of text,
    /// with the total and the `start` to ask for next (DESIGN §5: agentdap pages itself).
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
        let mut structured = json!({
            "session": self.id, "revision": self.run.revision, "ref": q.handle,
            "start": q.start, "total": total, "variables": list,
        });
        // debugpy lists the first 100 items of a big container, then `more` (a ref holding the
        // rest) and `len()`: say the real length so the agent knows what `more` holds.
        let length = all
            .iter()
            .find(|v| v.get("name").and_then(Value::as_str) == Some("len()"))
            .and_then(|v| v.get("value").and_then(Value::as_str))
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(n) = length {
            head.push_str(&format!(" · length {n}"));
            structured["length"] = n.into();
        }
        if q.count > MAX_PAGE {
            head.push_str(&format!(" (count capped at {MAX_PAGE})"));
        }
        // debugpy puts the items past its first 100 under a `more` child: point at it.
        if let Some(more) = list.iter().find(|v| v["name"] == "more").and_then(|v| v.get("ref")) {
            text.push_str(&format!("\n  (the remaining items are under `more`: call variables with ref={more})"));
        }
        if end < total {
            head.push_str(&format!(" (truncated: call variables with start={end} for more)"));
            structured["truncated"] = true.into();
            structured["next_start"] = end.into();
        }
        ToolResult::ok(format!("{head}{text}"), structured)
    }

    fn evaluate_result(&mut self, expression: &str, context: &str, body: &Value) -> ToolResult {
        let mut j = self.variable_json(body);
        if let Some(m) = j.as_object_mut() {
            m.remove("name");
            m.insert("expression".into(), expression.into());
        }
        let value = j.get("preview").or_else(|| j.get("value")).and_then(Value::as_str).unwrap_or("").to_owned();
        let value = if value.is_empty() {
            // The structured `value` stays the adapter's "", and says what it means.
            let known = self.link.plan.runtime.empty_evaluate.filter(|(c, _)| *c == context).map(|(_, what)| what);
            let what = known.unwrap_or(NO_VALUE);
            j["value_note"] = what.into();
            what.to_owned()
        } else {
            value
        };
        let mut text = format!("{expression} = {value}");
        if let Some(t) = j.get("type").and_then(Value::as_str) {
            text.push_str(&format!("  ({t})"));
        }
        if let Some(r) = j.get("ref") {
            text.push_str(&format!("  [ref {r}]"));
        }
        j["session"] = self.id.clone().into();
        j["revision"] = self.run.revision.into();
        ToolResult::ok(text, j)
    }

    /// Children cached for this revision (a `variables` page or a preview fetched them).
    fn cached_children(&self, reference: i64) -> Option<std::rc::Rc<Vec<Value>>> {
        let page = self.view.var_cache.get(&reference).map(|(_, c)| c);
        page.or_else(|| self.view.preview_cache.get(&reference)).map(std::rc::Rc::clone)
    }

    /// Drops every cached container (the program ran, or a value changed).
    pub(super) fn clear_var_caches(&mut self) {
        self.view.var_cache.clear();
        self.view.preview_cache.clear();
    }

    /// A value of the program changed at this stop (a set, a call): agentdap's pages are
    /// dropped, and where the adapter's references hold the old values
    /// (`Quirks::variables_are_snapshots`, Delve) the agent's refs from before are refused from
    /// now on rather than answered with those values.
    pub(super) fn values_changed(&mut self) {
        self.clear_var_caches();
        if self.link.plan.quirks.variables_are_snapshots {
            self.view.handles.invalidated(&["variables"]);
        }
    }

    /// Remembers `frame` as the frame of every reference among `items` (scopes, variables or an
    /// evaluation's result), up to [`MAX_VAR_FRAMES`].
    fn note_frame_of(&mut self, items: &[Value], frame: i64) {
        let epoch = self.view.handles.epoch(Kind::Variables);
        if self.view.var_frames.len() >= MAX_VAR_FRAMES {
            self.view.var_frames.retain(|_, (e, _)| *e == epoch);
        }
        for item in items {
            let reference = item.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
            if reference > 0 && self.view.var_frames.len() < MAX_VAR_FRAMES {
                self.view.var_frames.insert(reference, (epoch, frame));
            }
        }
    }

    /// Children's references come from their container's frame.
    fn note_children_frame(&mut self, container: i64, children: &[Value]) {
        if let Some(frame) = self.frame_of(container) {
            self.note_frame_of(children, frame);
        }
    }

    /// The frame a variables reference came from, when agentdap saw it made since the
    /// program last ran (or the adapter's references were last invalidated).
    pub(super) fn frame_of(&self, reference: i64) -> Option<i64> {
        let epoch = self.view.handles.epoch(Kind::Variables);
        self.view.var_frames.get(&reference).filter(|(e, _)| *e == epoch).map(|&(_, f)| f)
    }

    /// References among `vars` that want a preview and are not cached yet (at most
    /// [`preview::PREVIEW_CONTAINERS`]).
    fn missing_previews<'a>(&self, vars: impl Iterator<Item = &'a Value>) -> Vec<i64> {
        let mut refs: Vec<i64> = vars
            .filter_map(preview::wants_preview)
            .filter(|r| !self.view.var_cache.contains_key(r) && !self.view.preview_cache.contains_key(r))
            .take(preview::PREVIEW_CONTAINERS)
            .collect();
        refs.dedup();
        refs
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

    fn context_step(&mut self, call: CallKey, mut job: Box<ContextJob>, body: Value, now: Instant) {
        if job.frames.is_empty() {
            job.frames = body.get("stackFrames").and_then(Value::as_array).cloned().unwrap_or_default();
            job.total_frames = body.get("totalFrames").and_then(Value::as_u64);
            if job.frames.is_empty() {
                let msg = format!("thread {} has no frames", job.thread);
                self.calls.done.push((call, ToolResult::error(ErrorCode::AdapterError, msg)));
                return;
            }
            let id = self.context_frame(&job).get("id").and_then(Value::as_i64).unwrap_or(0);
            let revision = self.run.revision;
            self.send(
                "scopes",
                Some(json!({ "frameId": id })),
                Origin::Inspect { call, op: Op::Context(job), revision },
                now,
            );
            return;
        }
        if job.watches_started {
            if !job.pending_watches.is_empty() {
                let expr = job.pending_watches.remove(0);
                let value = body.get("result").and_then(Value::as_str).unwrap_or("").to_owned();
                job.watches.push((expr, Ok(value)));
            }
        } else if job.locals.is_none() {
            let scopes = body.get("scopes").and_then(Value::as_array).cloned().unwrap_or_default();
            // The first scope that is cheap (debugpy, lldb-dap and Delve all call it "Locals").
            let scope = scopes.iter().find(|s| !s.get("expensive").and_then(Value::as_bool).unwrap_or(false));
            let named =
                scope.and_then(|s| Some((s.get("name")?.as_str()?.to_owned(), s.get("variablesReference")?.as_i64()?)));
            match named {
                Some((name, reference)) if reference > 0 => {
                    if let Some(f) = self.context_frame(&job).get("id").and_then(Value::as_i64) {
                        let scope = json!({ "variablesReference": reference });
                        self.note_frame_of(std::slice::from_ref(&scope), f);
                    }
                    job.locals = Some((name, std::rc::Rc::default(), reference));
                    let args = json!({ "variablesReference": reference });
                    let revision = self.run.revision;
                    self.send("variables", Some(args), Origin::Inspect { call, op: Op::Context(job), revision }, now);
                    return;
                }
                _ => job.locals = Some((String::new(), std::rc::Rc::default(), 0)),
            }
        } else if let Some((_, list, reference)) = &mut job.locals {
            let vars = std::rc::Rc::new(body.get("variables").and_then(Value::as_array).cloned().unwrap_or_default());
            let reference = *reference;
            self.note_children_frame(reference, &vars);
            self.view.var_cache.insert(reference, (self.run.revision, std::rc::Rc::clone(&vars)));
            *list = std::rc::Rc::clone(&vars);
            let missing = self.missing_previews(vars.iter().filter(|v| !is_noise(v)).take(job.max_variables));
            if !missing.is_empty() {
                return self.start_previews(call, missing, Op::Context(job), Value::Null, now);
            }
        }
        self.context_next(call, job, now)
    }

    fn context_frame<'a>(&self, job: &'a ContextJob) -> &'a Value {
        let chosen = job
            .frame_handle
            .and_then(|h| self.view.handles.resolve(Kind::Frame, h).ok())
            .and_then(|id| job.frames.iter().find(|f| f.get("id").and_then(Value::as_i64) == Some(id)));
        chosen.unwrap_or(&job.frames[0])
    }

    /// Sends the next watch evaluation, or writes the `context` result.
    fn context_next(&mut self, call: CallKey, mut job: Box<ContextJob>, now: Instant) {
        if !job.watches_started {
            job.watches_started = true;
            job.pending_watches = self.view.watches.iter().map(|w| w.1.clone()).collect();
        }
        if let Some(expr) = job.pending_watches.first().cloned() {
            let id = self.context_frame(&job).get("id").and_then(Value::as_i64).unwrap_or(0);
            let args = json!({ "expression": expr, "frameId": id, "context": "watch" });
            let revision = self.run.revision;
            self.send("evaluate", Some(args), Origin::Inspect { call, op: Op::Context(job), revision }, now);
            return;
        }
        let out = self.context_result(&job);
        self.calls.done.push((call, out));
    }

    fn context_result(&mut self, job: &ContextJob) -> ToolResult {
        let mut text = self.headline();
        if self.run.stop.as_ref().and_then(|s| s.thread).is_some_and(|t| t != job.thread) {
            text.push_str(&format!("\nshowing thread {} (the focus thread)", job.thread));
        }
        let frames = self.frames_json(&job.frames);
        let top = self.context_frame(job).clone();
        let loc = super::snapshot::Location::from_frame(&top);
        let mut structured = self.snapshot_json();
        let frame_handle = frames
            .iter()
            .zip(&job.frames)
            .find(|(_, f)| f.get("id") == top.get("id"))
            .and_then(|(j, _)| j.get("frame").cloned());
        // Source excerpt, read from disk (bounded) when the frame has a path.
        if let (Some(path), Some(line)) = (&loc.path, loc.line) {
            if let Some((excerpt, lines)) = source_excerpt(path, line as usize, job.source_lines) {
                text.push('\n');
                text.push_str(&excerpt);
                structured["source"] = json!({ "path": path, "line": line, "lines": lines });
            }
        }
        if !frames.is_empty() {
            text.push_str("\nstack:");
            for (i, f) in frames.iter().enumerate() {
                text.push_str(&format!("\n  #{i} {}", frame_line(f)));
            }
        }
        if let Some(next) = more_frames(0, CONTEXT_FRAMES, frames.len(), job.total_frames) {
            text.push_str(&format!("\n  … more frames (call stack_trace with start={next})"));
            structured["more_frames_from"] = next.into();
        }
        structured["frames"] = Value::Array(frames);
        if let Some(m) = structured.as_object_mut() {
            put(m, "frame", frame_handle);
        }
        if let Some((scope, vars, reference)) = &job.locals {
            if !scope.is_empty() {
                let shown: Vec<Value> = vars
                    .iter()
                    .filter(|v| !is_noise(v))
                    .take(job.max_variables)
                    .cloned()
                    .collect::<Vec<_>>()
                    .iter()
                    .map(|v| self.variable_json(v))
                    .collect();
                let total = vars.iter().filter(|v| !is_noise(v)).count();
                let locals_ref = self.view.handles.mint(Kind::Variables, *reference);
                match locals_ref {
                    // The scope's ref: what `variables` pages and `set_variable` names.
                    Some(r) => text.push_str(&format!("\n{} [ref {r}]:", scope.to_lowercase())),
                    None => text.push_str(&format!("\n{}:", scope.to_lowercase())),
                }
                for v in &shown {
                    text.push_str(&format!("\n  {}", variable_line(v)));
                }
                if total > shown.len() {
                    text.push_str(&format!("\n  … {} more (call variables with the locals' ref)", total - shown.len()));
                }
                structured["locals"] = json!({ "scope": scope, "ref": locals_ref, "total": total, "variables": shown });
            }
        }
        if !job.watches.is_empty() {
            text.push_str("\nwatches:");
            let mut list = Vec::new();
            for (expr, r) in &job.watches {
                match r {
                    Ok(v) => {
                        text.push_str(&format!("\n  {expr} = {}", value_text(&clip(v, VALUE_CHARS).0)));
                        list.push(json!({ "expression": expr, "value": clip(v, VALUE_CHARS).0 }));
                    }
                    Err(e) => {
                        text.push_str(&format!("\n  {expr}: error: {e}"));
                        list.push(json!({ "expression": expr, "error": e }));
                    }
                }
            }
            structured["watches"] = Value::Array(list);
        }
        ToolResult::ok(text, structured)
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

pub(super) fn top_frame_id(body: &Value) -> Option<i64> {
    body.get("stackFrames")?.as_array()?.first()?.get("id")?.as_i64()
}

/// `total() at app.py:12 [frame 1004]`
fn frame_line(f: &Value) -> String {
    let mut s = f.get("function").and_then(Value::as_str).unwrap_or("?").to_owned();
    if let Some(p) = f.get("path").and_then(Value::as_str) {
        s.push_str(&format!(" at {}", p.rsplit('/').next().unwrap_or(p)));
        if let Some(l) = f.get("line") {
            s.push_str(&format!(":{l}"));
        }
    }
    if let Some(h) = f.get("frame") {
        s.push_str(&format!(" [frame {h}]"));
    }
    s
}

/// What a result shows for an empty value string from the adapter (any adapter, any place a
/// value is shown: evaluate, variables, watches, set_variable, previews): never nothing.
pub(super) const NO_VALUE: &str = "(no value shown by the adapter)";

/// `value`, or [`NO_VALUE`] when the adapter sent an empty one.
pub(super) fn value_text(value: &str) -> &str {
    if value.is_empty() {
        NO_VALUE
    } else {
        value
    }
}

/// `x = 3 (int)` or `items = [1, 2] (list) [ref 1012]`
pub(super) fn variable_line(v: &Value) -> String {
    let value = value_text(v.get("preview").or_else(|| v.get("value")).and_then(Value::as_str).unwrap_or(""));
    let mut s = format!("{} = {}", v.get("name").and_then(Value::as_str).unwrap_or("?"), value);
    if let Some(t) = v.get("type").and_then(Value::as_str) {
        s.push_str(&format!(" ({t})"));
    }
    if let Some(r) = v.get("ref") {
        s.push_str(&format!(" [ref {r}]"));
    }
    s
}

/// debugpy groups dunder and special entries under these names; `context` hides them.
fn is_noise(v: &Value) -> bool {
    let name = v.get("name").and_then(Value::as_str).unwrap_or("");
    matches!(name, "special variables" | "function variables" | "class variables" | "protected variables")
        || (name.starts_with("__") && name.ends_with("__"))
}

/// True when every `(` in `s` closes in `s` (so `(*p)` may lose its outer pair, `(a).(b)` not).
fn balanced(s: &str) -> bool {
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return false,
            ')' => depth -= 1,
            _ => {}
        }
    }
    depth == 0
}

fn is_index_name(name: &str) -> bool {
    let n = name.trim_start_matches('[').trim_end_matches(']');
    !n.is_empty() && (n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with("0x"))
}

fn exception_result(body: &Value) -> ToolResult {
    let id = body.get("exceptionId").and_then(Value::as_str).unwrap_or("?");
    let desc = body.get("description").and_then(Value::as_str).unwrap_or("");
    let mut text = format!("{id}: {desc}");
    if let Some(st) = body.get("details").and_then(|d| d.get("stackTrace")).and_then(Value::as_str) {
        text.push('\n');
        text.push_str(&clip(st, 4000).0);
    }
    ToolResult::ok(text, body.clone())
}

/// Cuts `s` to `max` characters on a char boundary; says whether it cut.
pub(super) fn clip(s: &str, max: usize) -> (String, bool) {
    match s.char_indices().nth(max) {
        Some((i, _)) => (format!("{}…", &s[..i]), true),
        None => (s.to_owned(), false),
    }
}

/// Numbered source lines around `line` (1-based), the current one marked with `→`; also the
/// lines as JSON. `None` when the file cannot be read or is too large.
fn source_excerpt(path: &str, line: usize, around: usize) -> Option<(String, Vec<Value>)> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SOURCE_FILE {
        return None;
    }
    let text = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&text);
    let around = around.min(MAX_SOURCE_LINES);
    let first = line.saturating_sub(around).max(1);
    let mut out = String::new();
    let mut lines = Vec::new();
    for (i, l) in text.lines().enumerate().skip(first - 1).take(2 * around + 1) {
        let n = i + 1;
        let mark = if n == line { "→" } else { " " };
        let l = clip(l, 200).0;
        out.push_str(&format!("{mark}{n:>5}  {l}\n"));
        lines.push(json!({ "line": n, "text": l }));
    }
    if lines.is_empty() {
        return None;
    }
    Some((out.trim_end().to_owned(), lines))
}

impl ContextJob {
    pub fn new(thread: i64, frame: Option<i64>, source_lines: Option<usize>, max_variables: Option<usize>) -> Self {
        ContextJob {
            thread,
            frame_handle: frame,
            source_lines: source_lines.unwrap_or(DEFAULT_SOURCE_LINES).min(MAX_SOURCE_LINES),
            max_variables: max_variables.unwrap_or(DEFAULT_CONTEXT_VARS).min(MAX_CONTEXT_VARS),
            ..ContextJob::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_cuts_on_char_boundaries() {
        assert_eq!(clip("héllo", 2), ("hé…".to_owned(), true));
        assert_eq!(clip("hé", 2), ("hé".to_owned(), false));
    }

    #[test]
    fn index_names() {
        assert!(is_index_name("0") && is_index_name("[12]") && is_index_name("0x1f"));
        assert!(!is_index_name("len()") && !is_index_name("x"));
    }

    #[test]
    fn frame_and_variable_lines_read_at_a_glance() {
        let f = json!({"frame": 1004, "function": "total", "path": "/w/app.py", "line": 12});
        assert_eq!(frame_line(&f), "total at app.py:12 [frame 1004]");
        let v = json!({"name": "items", "value": "[1, 2]", "type": "list", "ref": 1012});
        assert_eq!(variable_line(&v), "items = [1, 2] (list) [ref 1012]");
        let empty = json!({"name": "x", "value": "", "type": "T"});
        assert_eq!(variable_line(&empty), "x = (no value shown by the adapter) (T)");
    }
}
