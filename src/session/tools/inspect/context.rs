//! The `context` tool's job: the stack, the chosen frame's scopes and locals (with previews),
//! the watch expressions, and the source excerpt, gathered request by request into one result.
//! Part of the "inspect" group ([`super`]); must not answer any other tool.

use std::time::Instant;

use serde_json::Value;

use super::results::{to_json, Excerpt, ExcerptLine, Locals, WatchValue};
use super::{more_frames, push_frame_line, Op};
use crate::dap::requests::{
    Evaluate, EvaluateArguments, Request, Scopes, ScopesArguments, StackFrame, StackTrace, Variables,
    VariablesArguments,
};
use crate::session::files::Files;
use crate::session::handles::Kind;
use crate::session::snapshot::put;
use crate::session::text::{clip, value_text};
use crate::session::values::{variable_line, VALUE_CHARS};
use crate::session::{CallKey, ErrorCode, Origin, Session, ToolResult};

/// Default source lines around the current line in `context`, and its cap.
pub const DEFAULT_SOURCE_LINES: usize = 5;
const MAX_SOURCE_LINES: usize = 50;
/// Default locals shown by `context`, and its cap.
pub const DEFAULT_CONTEXT_VARS: usize = 30;
const MAX_CONTEXT_VARS: usize = 200;
/// Frames shown by `context`.
pub(super) const CONTEXT_FRAMES: u64 = 5;
/// Scopes shown after the locals, at most (`Quirks::context_scopes`).
const MORE_SCOPES: usize = 3;

/// Source files larger than this are not read for `context` (bytes).
const MAX_SOURCE_FILE: u64 = 4 << 20;

/// The `context` tool's progress through its requests.
#[derive(Debug, Default)]
pub struct ContextJob {
    pub thread: i64,
    pub source_lines: usize,
    pub max_variables: usize,
    pub(super) frames: Vec<StackFrame>,
    /// The stack answer's `totalFrames`, when the adapter sent one.
    pub(super) total_frames: Option<u64>,
    /// The frame to show (index into `frames`), when the agent chose one.
    pub frame_handle: Option<i64>,
    /// The locals scope: its name, its variables, its adapter reference.
    pub(super) locals: Option<(String, std::rc::Rc<Vec<Value>>, i64)>,
    /// Why the locals scope's variables were not read (the request failed or timed out, or the
    /// answer had no list): said instead of an empty list.
    pub(super) locals_error: Option<String>,
    /// Scopes shown after the locals (`Quirks::context_scopes`: a JavaScript closure), not fetched
    /// yet: name and adapter reference.
    pub(super) more_scopes: std::collections::VecDeque<(String, i64)>,
    /// The one of them being fetched.
    pub(super) fetching_scope: Option<(String, i64)>,
    /// Those fetched: name, variables, adapter reference.
    pub(super) scopes_shown: Vec<(String, std::rc::Rc<Vec<Value>>, i64)>,
    pub(super) watches_started: bool,
    pub(super) watches: Vec<(String, Result<String, String>)>,
    pub(super) pending_watches: Vec<String>,
}

impl ContextJob {
    /// Whether the request in flight is the locals scope's `variables`.
    pub(super) fn reading_locals(&self) -> bool {
        let asked = self.locals.as_ref().is_some_and(|(scope, vars, _)| !scope.is_empty() && vars.is_empty());
        asked && self.fetching_scope.is_none() && !self.watches_started && self.locals_error.is_none()
    }

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

impl Session {
    pub(super) fn context_step(&mut self, call: CallKey, mut job: Box<ContextJob>, mut body: Value, now: Instant) {
        if job.frames.is_empty() {
            let mut trace = StackTrace::parse(Some(&body)).unwrap_or_default();
            // DAP § Requests: StackTrace: `levels` is the most frames to return; an adapter that
            // sends more (a hostile one, thousands) is cut to what was asked.
            trace.stack_frames.truncate(CONTEXT_FRAMES as usize);
            self.stack_read_at_stop(job.thread, &trace.stack_frames, CONTEXT_FRAMES);
            job.frames = trace.stack_frames;
            job.total_frames = trace.total_frames;
            if job.frames.is_empty() {
                let msg = format!("thread {} has no frames", job.thread);
                self.calls.done.push((call, ToolResult::error(ErrorCode::AdapterError, msg)));
                return;
            }
            let Some(id) = self.context_frame(&job).id.typed().copied() else {
                // Nothing can name this frame to the adapter: its stack and source are shown, its
                // locals and watches said to be unread (never another frame's, as `frameId: 0`).
                let why = "the adapter gave this frame no integer `id`, which `scopes` and `evaluate` need";
                job.locals_error = Some(why.to_owned());
                let not_evaluated = |w: &(_, String)| (w.1.clone(), Err(format!("not evaluated: {why}")));
                job.watches = self.view.watches.iter().map(not_evaluated).collect();
                job.watches_started = true;
                let out = self.context_result(&job);
                return self.calls.done.push((call, out));
            };
            let revision = self.run.revision;
            let args = ScopesArguments { frame_id: id };
            self.request::<Scopes>(args, Origin::Inspect { call, op: Op::Context(job), revision }, now);
            return;
        }
        if let Some((name, reference)) = job.fetching_scope.take() {
            let vars = std::rc::Rc::new(crate::session::values::take_variables(&mut body));
            self.note_children_frame(reference, &vars);
            self.view.var_cache.insert(reference, (self.run.revision, std::rc::Rc::clone(&vars)));
            job.scopes_shown.push((name, vars, reference));
            return self.context_next(call, job, now);
        }
        if job.watches_started {
            if !job.pending_watches.is_empty() {
                let expr = job.pending_watches.remove(0);
                let result = Evaluate::parse(Some(&body)).unwrap_or_default().result;
                let value = result.typed().cloned().unwrap_or_default();
                job.watches.push((expr, Ok(value)));
            }
        } else if job.locals.is_none() {
            let scopes = Scopes::parse(Some(&body)).unwrap_or_default().scopes;
            // The first scope that is cheap (debugpy, lldb-dap and Delve all call it "Locals").
            let first = scopes.iter().position(|s| !s.expensive);
            let more = self.link.plan.quirks.context_scopes;
            let frame = self.context_frame(&job).id.typed().copied();
            for s in first.map_or(&[][..], |i| &scopes[i + 1..]) {
                let (Some(name), Some(reference)) = (s.name.as_ref(), s.variables_reference.filter(|r| *r > 0)) else {
                    continue;
                };
                if !s.expensive && more.iter().any(|p| name.starts_with(p)) && job.more_scopes.len() < MORE_SCOPES {
                    if let Some(f) = frame {
                        self.note_frame_of([reference], f);
                    }
                    job.more_scopes.push_back((name.clone(), reference));
                }
            }
            let scope = first.map(|i| scopes[i].clone());
            let named = scope.and_then(|s| Some((s.name?, s.variables_reference?)));
            match named {
                Some((name, reference)) if reference > 0 => {
                    if let Some(&f) = self.context_frame(&job).id.typed() {
                        self.note_frame_of([reference], f);
                    }
                    job.locals = Some((name, std::rc::Rc::default(), reference));
                    let args = VariablesArguments { variables_reference: reference, ..VariablesArguments::default() };
                    let revision = self.run.revision;
                    self.request::<Variables>(args, Origin::Inspect { call, op: Op::Context(job), revision }, now);
                    return;
                }
                _ => job.locals = Some((String::new(), std::rc::Rc::default(), 0)),
            }
        } else if let Some((_, list, reference)) = &mut job.locals {
            if body.get("variables").and_then(Value::as_array).is_none() {
                job.locals_error = Some("the adapter's `variables` answer has no list of variables".to_owned());
                return self.context_next(call, job, now);
            }
            let vars = std::rc::Rc::new(crate::session::values::take_variables(&mut body));
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

    fn context_frame<'a>(&self, job: &'a ContextJob) -> &'a StackFrame {
        let chosen = job
            .frame_handle
            .and_then(|h| self.view.handles.resolve(Kind::Frame, h).ok())
            .and_then(|id| job.frames.iter().find(|f| f.id.typed() == Some(&id)));
        // Without one, the frame the stop shows (the program's below a Go panic's runtime
        // frames, a test's below its runner's): what the stop's headline says is shown (a
        // breaker's `context` showed `runtime.fatalpanic` under "frame #3 is shown").
        // By its place on the stack: frame ids need not repeat across `stackTrace` answers (Delve
        // 1.20's did not, here).
        let shown = self
            .run
            .top_frame
            .filter(|(revision, thread, _)| *revision == self.run.stop_revision && *thread == job.thread)
            .and_then(|_| job.frames.get(self.run.shown_frame));
        chosen.or(shown).unwrap_or(&job.frames[0])
    }

    /// Sends the next watch evaluation, or writes the `context` result.
    pub(super) fn context_next(&mut self, call: CallKey, mut job: Box<ContextJob>, now: Instant) {
        if !job.watches_started {
            if let Some((name, reference)) = job.more_scopes.pop_front() {
                job.fetching_scope = Some((name, reference));
                let args = VariablesArguments { variables_reference: reference, ..VariablesArguments::default() };
                let revision = self.run.revision;
                self.request::<Variables>(args, Origin::Inspect { call, op: Op::Context(job), revision }, now);
                return;
            }
            job.watches_started = true;
            job.pending_watches = self.view.watches.iter().map(|w| w.1.clone()).collect();
        }
        if let Some(expr) = job.pending_watches.first().cloned() {
            // The frame's id is an integer: a frame without one ends the job at its `scopes`.
            let id = self.context_frame(&job).id.typed().copied();
            let args =
                EvaluateArguments { expression: expr, frame_id: id, context: Some("watch".into()), format: None };
            let revision = self.run.revision;
            self.request::<Evaluate>(args, Origin::Inspect { call, op: Op::Context(job), revision }, now);
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
        let top = self.context_frame(job);
        let mut structured = self.snapshot_json();
        let frame_handle =
            frames.iter().zip(&job.frames).find(|(_, f)| f.id == top.id).and_then(|(j, _)| j.get("frame").cloned());
        // Source excerpt, read from disk (bounded) when the frame has a path.
        if let (Some(path), Some(line)) = frame_path_line(top) {
            if let Some((excerpt, lines)) = source_excerpt(&*self.link.files, path, line as usize, job.source_lines) {
                text.push('\n');
                text.push_str(&excerpt);
                structured["source"] = to_json(Excerpt { path, line, lines });
            }
        }
        if !frames.is_empty() {
            text.push_str("\nstack:");
            for (i, f) in frames.iter().enumerate() {
                text.push_str(&format!("\n  #{i} "));
                push_frame_line(&mut text, f);
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
                    Some(r) => text.push_str(&format!("\n{} [ref {r}]:", lowercase_first(scope))),
                    None => text.push_str(&format!("\n{}:", lowercase_first(scope))),
                }
                if let Some(why) = &job.locals_error {
                    text.push_str(&format!(" not read: {why}"));
                    structured["locals_error"] = why.clone().into();
                }
                for v in &shown {
                    text.push_str(&format!("\n  {}", variable_line(v)));
                }
                if total > shown.len() {
                    text.push_str(&format!("\n  … {} more (call variables with the locals' ref)", total - shown.len()));
                }
                structured["locals"] = to_json(Locals { scope, handle: locals_ref, total, variables: shown });
            }
        } else if let Some(why) = &job.locals_error {
            text.push_str(&format!("\nlocals not read: {why}"));
            structured["locals_error"] = why.clone().into();
        }
        let mut more = Vec::new();
        for (scope, vars, reference) in &job.scopes_shown {
            let listed: Vec<&Value> = vars.iter().filter(|v| !is_noise(v)).collect();
            let shown: Vec<Value> = listed.iter().take(job.max_variables).map(|v| self.variable_json(v)).collect();
            let handle = self.view.handles.mint(Kind::Variables, *reference);
            match handle {
                Some(r) => text.push_str(&format!("\n{} [ref {r}]:", lowercase_first(scope))),
                None => text.push_str(&format!("\n{}:", lowercase_first(scope))),
            }
            for v in &shown {
                text.push_str(&format!("\n  {}", variable_line(v)));
            }
            if listed.len() > shown.len() {
                text.push_str(&format!("\n  … {} more (call variables with its ref)", listed.len() - shown.len()));
            }
            more.push(to_json(Locals { scope, handle, total: listed.len(), variables: shown }));
        }
        if !more.is_empty() {
            structured["more_scopes"] = Value::Array(more);
        }
        if !job.watches.is_empty() {
            text.push_str("\nwatches:");
            let mut list = Vec::new();
            for (expr, r) in &job.watches {
                match r {
                    Ok(v) => {
                        text.push_str(&format!("\n  {expr} = {}", value_text(&clip(v, VALUE_CHARS).0)));
                        let value = Some(clip(v, VALUE_CHARS).0);
                        list.push(to_json(WatchValue { expression: expr, value, error: None }));
                    }
                    Err(e) => {
                        text.push_str(&format!("\n  {expr}: error: {e}"));
                        list.push(to_json(WatchValue { expression: expr, value: None, error: Some(e) }));
                    }
                }
            }
            structured["watches"] = Value::Array(list);
        }
        ToolResult::ok(text, structured)
    }
}

/// A scope's name as a heading: `Locals` → `locals`, `Closure (makeCounter)` → `closure
/// (makeCounter)` (only the first letter: the rest may be the program's own names).
pub(in crate::session) fn lowercase_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// debugpy groups dunder and special entries under these names; `context` hides them.
pub(in crate::session) fn is_noise(v: &Value) -> bool {
    let name = v.get("name").and_then(Value::as_str).unwrap_or("");
    matches!(name, "special variables" | "function variables" | "class variables" | "protected variables")
        || (name.starts_with("__") && name.ends_with("__"))
}

/// The frame's path (its source's `path`, else its `name`) and line (above 0), as
/// `Location::from_frame` in `session/snapshot.rs` reads them.
fn frame_path_line(frame: &StackFrame) -> (Option<&str>, Option<u64>) {
    let source = frame.source.as_ref();
    let path = source.and_then(|s| s.path.typed().or(s.name.typed()));
    (path.map(String::as_str), frame.line.typed().copied().filter(|&l| l > 0))
}

/// The line `line` (1-based) of `path` as `context` shows it (`→   12  text`), and its text:
/// what a stop result shows (`stop_frame.rs`). `None` when the file cannot be read.
pub(in crate::session) fn current_line(files: &dyn Files, path: &str, line: u64) -> Option<(String, String)> {
    let (marked, lines) = source_excerpt(files, path, usize::try_from(line).ok()?, 0)?;
    let text = lines.into_iter().next()?.text;
    Some((marked, text))
}

/// Numbered source lines around `line` (1-based), the current one marked with `→`; also the
/// lines for the result. `None` when the file cannot be read or is too large.
fn source_excerpt(files: &dyn Files, path: &str, line: usize, around: usize) -> Option<(String, Vec<ExcerptLine>)> {
    let text = files.read_bounded(std::path::Path::new(path), MAX_SOURCE_FILE).ok()?;
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
        lines.push(ExcerptLine { line: n, text: l });
    }
    if lines.is_empty() {
        return None;
    }
    Some((out.trim_end().to_owned(), lines))
}
