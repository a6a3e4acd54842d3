//! Tool group "edit" (`mcp/tools/edit.rs`): `set_variable` and `set_expression`.
//!
//! A set reads the value before (from the container's children or an evaluation), sends DAP
//! `setVariable`/`setExpression`, then reads it back, so the result says what the program now
//! holds — and says so when the adapter acknowledged a change that did not happen. Variable refs
//! are agentdap handles, checked before anything is sent; the cached variables pages of the
//! stop are dropped, so the next `variables` shows the new value. Where the adapter's references
//! keep the values they were made with (Delve), the read-back evaluates the variable's
//! `evaluateName` in its frame instead, and refs from before the change are refused from then on.
//!
//! Must not: touch IO, or another group's state.

use std::time::Instant;

use serde_json::{json, Value};

use super::gates::Gate;
use super::inspect::{top_frame_id, Target};
use super::{session, stopped, Answer, Started};
use crate::dap::requests::{
    Evaluate, EvaluateArguments, Request, Scopes, ScopesArguments, SetExpression, SetExpressionArguments, SetVariable,
    SetVariableArguments, StackTrace, StackTraceArguments, Variables, VariablesArguments,
};
use crate::session::handles::Kind as HandleKind;
use crate::session::snapshot::RunState;
use crate::session::text::{clip, value_text};
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// What an edit request is doing; carried in [`Origin::Edit`].
#[derive(Debug)]
pub enum Op {
    /// `set_variable` / `set_expression`, one request at a time.
    Value(Box<Job>),
}

/// Most child names listed when the variable asked for is not in the container.
const NAMES_SHOWN: usize = 20;
/// Most characters of a value in the result's text.
const VALUE_CHARS: usize = 300;

/// The request a job's phase sends.
enum Ask {
    Frame(StackTraceArguments),
    Variables(VariablesArguments),
    Evaluate(EvaluateArguments),
    SetVariable(SetVariableArguments),
    SetExpression(SetExpressionArguments),
    Scopes(ScopesArguments),
}

/// What is being set.
#[derive(Debug)]
enum Subject {
    /// A child `name` of the container `reference` (the agent's handle `handle`); `fresh`: the
    /// child's `evaluateName` and the container's frame, once the value before was read (how
    /// a snapshot adapter's change is read back).
    /// `adapter_name`: the child's name as the adapter spells it (it differs from the shown
    /// `name` for an unnamed child, see `Session::shown_name`).
    Variable { handle: i64, reference: i64, name: String, adapter_name: String, fresh: Option<(String, i64)> },
    /// An assignable expression in a frame (`frame`: the adapter's id, once known).
    Expression { expression: String, thread: i64, frame: Option<i64> },
}

/// Where a job is: each answer moves it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The top frame (for an expression without `frame`).
    Frame,
    /// The frame's scopes, then its locals' names, then its globals' names: where a bare name
    /// lives, for an adapter whose `setExpression` shadows names that are not locals
    /// (`Quirks::set_expression_shadows_nonlocals`).
    Scopes,
    Locals,
    Globals,
    /// The value before.
    Before,
    /// The set request itself.
    Set,
    /// The read-back.
    After,
}

/// A `set_variable` or `set_expression` in flight.
#[derive(Debug)]
pub struct Job {
    pub call: CallKey,
    /// The frames' epoch when the job started: it moves only when the program runs (or the
    /// adapter invalidates its stacks), not with the `invalidated` (`variables`) event an adapter
    /// sends for the change itself (lldb-dap does).
    frames_epoch: u64,
    target: Subject,
    value: String,
    phase: Phase,
    old: Option<String>,
    /// The adapter's answer to the set request.
    ack: Option<Value>,
    /// The frame's `Locals` and `Globals` scopes, learned in `Phase::Scopes`.
    locals: Option<i64>,
    globals: Option<i64>,
    /// The expression was a global name, set through the `Globals` scope instead.
    via_globals: bool,
}

impl Job {
    /// A job at `phase` that has read nothing yet.
    fn new(call: CallKey, frames_epoch: u64, target: Subject, value: String, phase: Phase) -> Job {
        Job {
            call,
            frames_epoch,
            target,
            value,
            phase,
            old: None,
            ack: None,
            locals: None,
            globals: None,
            via_globals: false,
        }
    }
}

impl Sessions {
    /// `set_variable`: child `name` of the variables handle `handle` becomes `value`.
    pub fn set_variable(
        &mut self,
        key: SessionKey,
        handle: i64,
        name: String,
        value: String,
        call: CallKey,
        now: Instant,
    ) -> Started {
        session(&mut self.slab, key)?.require_live("set_variable")?;
        let s = stopped(&mut self.slab, key)?;
        s.require(Gate::SetVariable)?;
        let reference = self.handle_arg(key, HandleKind::Variables, handle)?;
        let s = session(&mut self.slab, key)?;
        let target = Subject::Variable { handle, reference, adapter_name: name.clone(), name, fresh: None };
        let frames_epoch = s.view.handles.epoch(HandleKind::Frame);
        let job = Job::new(call, frames_epoch, target, value, Phase::Before);
        s.edit_next(job, now);
        self.after(key, now);
        Ok(())
    }

    /// `set_expression`: the assignable `expression` becomes `value`, in `target`'s frame
    /// (default: the focus thread's top frame).
    pub fn set_expression(
        &mut self,
        key: SessionKey,
        expression: String,
        value: String,
        target: Target,
        call: CallKey,
        now: Instant,
    ) -> Started {
        session(&mut self.slab, key)?.require_live("set_expression")?;
        let s = stopped(&mut self.slab, key)?;
        s.require(Gate::SetExpression)?;
        let frame = self.frame_arg(key, target.frame)?;
        let thread = self.thread_arg(key, target.thread)?;
        let s = session(&mut self.slab, key)?;
        let frame = frame.or_else(|| s.known_top_frame(thread));
        let where_first = s.link.plan.quirks.set_expression_shadows_nonlocals && is_bare_name(&expression);
        let phase = match (frame, where_first) {
            (None, _) => Phase::Frame,
            (Some(_), true) => Phase::Scopes,
            (Some(_), false) => Phase::Before,
        };
        let target = Subject::Expression { expression, thread, frame };
        let frames_epoch = s.view.handles.epoch(HandleKind::Frame);
        let job = Job::new(call, frames_epoch, target, value, phase);
        s.edit_next(job, now);
        self.after(key, now);
        Ok(())
    }
}

impl Session {
    /// The answer to one of these tools' requests.
    pub(in crate::session) fn edit_answered(&mut self, op: Op, answer: Answer, now: Instant) {
        match op {
            Op::Value(job) => self.value_answered(*job, answer, now),
        }
    }

    /// A request that never went out: its call is answered with why.
    pub(in crate::session) fn edit_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        let Op::Value(job) = op;
        self.calls.done.push((job.call, ToolResult::error(code, msg)));
    }

    /// Sends the request of the job's phase (the value before comes from the cache when the
    /// container's children were fetched at this stop).
    fn edit_next(&mut self, job: Job, now: Instant) {
        let watch = |expression: &str, frame_id: Option<i64>| EvaluateArguments {
            expression: expression.to_owned(),
            frame_id,
            context: Some("watch".into()),
            format: None,
        };
        let list =
            |variables_reference: i64| VariablesArguments { variables_reference, ..VariablesArguments::default() };
        let ask = match (&job.target, job.phase) {
            (Subject::Expression { thread, .. }, Phase::Frame) => {
                Ask::Frame(StackTraceArguments { thread_id: *thread, start_frame: Some(0), levels: Some(1) })
            }
            (Subject::Variable { reference, .. }, Phase::Before) => {
                let cached = self.view.var_cache.get(reference).filter(|(rev, _)| *rev == self.run.revision);
                if let Some(children) = cached.map(|(_, c)| std::rc::Rc::clone(c)) {
                    let body = json!({ "variables": *children });
                    return self.edit_step(job, body, now);
                }
                Ask::Variables(list(*reference))
            }
            (Subject::Variable { fresh, .. }, Phase::After) if self.link.plan.quirks.variables_are_snapshots => {
                let Some((expression, frame)) = fresh else {
                    // Nothing to read it back with: the result says so.
                    let out = self.edit_result(&job, None);
                    return self.calls.done.push((job.call, out));
                };
                Ask::Evaluate(watch(expression, Some(*frame)))
            }
            (Subject::Variable { reference, .. }, Phase::After) => Ask::Variables(list(*reference)),
            (Subject::Variable { reference, adapter_name, .. }, Phase::Set) => Ask::SetVariable(SetVariableArguments {
                variables_reference: *reference,
                name: adapter_name.clone(),
                value: job.value.clone(),
            }),
            // `frame` is known by now (`Phase::Frame` comes first without one), so `frameId` is
            // sent as before; `None` would leave the key out.
            (Subject::Expression { expression, frame, .. }, Phase::Before | Phase::After) => {
                Ask::Evaluate(watch(expression, *frame))
            }
            (Subject::Expression { expression, frame, .. }, Phase::Set) => Ask::SetExpression(SetExpressionArguments {
                expression: expression.clone(),
                value: job.value.clone(),
                frame_id: *frame,
            }),
            (Subject::Expression { frame: Some(frame), .. }, Phase::Scopes) => {
                Ask::Scopes(ScopesArguments { frame_id: *frame })
            }
            (Subject::Expression { .. }, Phase::Locals | Phase::Globals) => {
                let reference = if job.phase == Phase::Locals { job.locals } else { job.globals };
                let Some(reference) = reference else {
                    return self.edit_step(job, Value::Null, now);
                };
                Ask::Variables(list(reference))
            }
            // `Phase::Scopes` is entered only with a frame (`set_expression`, `Phase::Frame`); an
            // expression without one would find no scopes and be evaluated as a local.
            (Subject::Expression { frame: None, .. }, Phase::Scopes)
            | (Subject::Variable { .. }, Phase::Frame | Phase::Scopes | Phase::Locals | Phase::Globals) => {
                return self.edit_step(job, Value::Null, now)
            }
        };
        let origin = Origin::Edit(Op::Value(Box::new(job)));
        match ask {
            Ask::Frame(args) => self.request::<StackTrace>(args, origin, now),
            Ask::Variables(args) => self.request::<Variables>(args, origin, now),
            Ask::Evaluate(args) => self.request::<Evaluate>(args, origin, now),
            Ask::SetVariable(args) => self.request::<SetVariable>(args, origin, now),
            Ask::SetExpression(args) => self.request::<SetExpression>(args, origin, now),
            Ask::Scopes(args) => self.request::<Scopes>(args, origin, now),
        }
    }

    fn value_answered(&mut self, job: Job, answer: Answer, now: Instant) {
        if job.frames_epoch != self.view.handles.epoch(HandleKind::Frame) || self.run.state != RunState::Stopped {
            let msg =
                format!("{} ran while the value was being set (now rev {}); look again.", self.id, self.run.revision);
            return self.calls.done.push((job.call, ToolResult::error(ErrorCode::TargetInvalidated, msg)));
        }
        match answer {
            Ok(body) => self.edit_step(job, body, now),
            // Without the value before (an expression that does not evaluate on its own), the
            // set still goes ahead; the result then only says what it is now.
            Err(_) if job.phase == Phase::Before && matches!(job.target, Subject::Expression { .. }) => {
                let job = Job { phase: Phase::Set, ..job };
                self.edit_next(job, now)
            }
            Err((code, msg)) => {
                if job.phase == Phase::After {
                    // The set went through; only the read-back failed.
                    let out = self.edit_result(&job, None);
                    return self.calls.done.push((job.call, out));
                }
                self.calls.done.push((job.call, ToolResult::error(code, msg)))
            }
        }
    }

    fn edit_step(&mut self, mut job: Job, body: Value, now: Instant) {
        match job.phase {
            Phase::Frame => {
                let frame = match top_frame_id(&body) {
                    Ok(frame) => frame,
                    Err(why) => {
                        let msg = format!("the focus thread {why}; pass `frame` (see `stack_trace`).");
                        return self.calls.done.push((job.call, ToolResult::error(ErrorCode::AdapterError, msg)));
                    }
                };
                if let Subject::Expression { frame: f, expression, .. } = &mut job.target {
                    *f = Some(frame);
                    let where_first =
                        self.link.plan.quirks.set_expression_shadows_nonlocals && is_bare_name(expression);
                    job.phase = if where_first { Phase::Scopes } else { Phase::Before };
                }
            }
            Phase::Scopes => {
                let scopes = Scopes::parse(Some(&body)).unwrap_or_default().scopes;
                let named = |n: &str| {
                    scopes
                        .iter()
                        .find(|s| s.name.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(n)))
                        .and_then(|s| s.variables_reference)
                        .filter(|r| *r > 0)
                };
                job.locals = named("locals");
                job.globals = named("globals");
                job.phase = Phase::Locals;
            }
            Phase::Locals => {
                let Subject::Expression { expression, .. } = &job.target else { return };
                // A local (or, at module level, any module name: there the locals are the
                // globals) is set by `setExpression` as the program sees it; so is everything
                // when the frame shows no locals to tell by.
                let local = body.is_null() || self.child(&body, expression).is_some();
                job.phase = if local { Phase::Before } else { Phase::Globals };
            }
            Phase::Globals => {
                let Subject::Expression { expression, .. } = &job.target else { return };
                let name = expression.clone();
                let (Some(reference), Some(_)) = (job.globals, self.child(&body, &name)) else {
                    let msg = format!(
                        "`{name}` is neither a local nor a global of this frame (a builtin, or a name it does not have): \
                         {}'s setExpression would only assign it in a copy of the frame's locals that the program never \
                         reads, so nothing was sent; set the variable it really is (`scopes`, `variables`, then \
                         `set_variable`), or an attribute or item (`obj.attr`, `d['k']`).",
                        self.link.adapter
                    );
                    return self.calls.done.push((job.call, ToolResult::error(ErrorCode::InvalidArgument, msg)));
                };
                let handle = self.view.handles.mint(HandleKind::Variables, reference).map_or(0, i64::from);
                job.target = Subject::Variable { handle, reference, adapter_name: name.clone(), name, fresh: None };
                job.via_globals = true;
                job.phase = Phase::Before;
                return self.edit_step(job, body, now);
            }
            Phase::Before => {
                if let Subject::Variable { reference, name, adapter_name, fresh, .. } = &mut job.target {
                    if let Some(c) = self.child(&body, name) {
                        let evaluate_name = c.get("evaluateName").and_then(Value::as_str);
                        *fresh = evaluate_name.zip(self.frame_of(*reference)).map(|(e, f)| (e.to_owned(), f));
                        *adapter_name = c.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                    }
                }
                job.old = match &job.target {
                    Subject::Variable { handle, name, .. } => match self.child_value(&body, name) {
                        Some(v) => Some(v),
                        None => {
                            let names: Vec<std::borrow::Cow<str>> =
                                children(&body).iter().filter_map(|v| self.shown_name(v)).take(NAMES_SHOWN).collect();
                            let msg = format!(
                                "ref {handle} has no child `{name}`; its children are [{}] (names as `variables` shows them).",
                                names.join(", ")
                            );
                            return self
                                .calls
                                .done
                                .push((job.call, ToolResult::error(ErrorCode::InvalidArgument, msg)));
                        }
                    },
                    Subject::Expression { .. } => evaluated(&body),
                };
                job.phase = Phase::Set;
            }
            Phase::Set => {
                // The program's state changed: pages fetched at this stop may show old values,
                // and a later stop's changes may include this one.
                self.values_changed();
                let what = match &job.target {
                    Subject::Variable { name, .. } => format!("{name} = {}", job.value),
                    Subject::Expression { expression, .. } => format!("{expression} = {}", job.value),
                };
                let tool =
                    if matches!(job.target, Subject::Variable { .. }) { "set_variable" } else { "set_expression" };
                self.note_own_change(crate::session::own_change::own_change(tool, &what));
                job.ack = Some(body);
                job.phase = Phase::After;
            }
            Phase::After => {
                let now_value = match &job.target {
                    Subject::Variable { .. } if self.link.plan.quirks.variables_are_snapshots => evaluated(&body),
                    Subject::Variable { reference, name, .. } => {
                        let list = std::rc::Rc::new(children(&body).to_vec());
                        self.view.var_cache.insert(*reference, (self.run.revision, list));
                        self.child_value(&body, name)
                    }
                    Subject::Expression { .. } => evaluated(&body),
                };
                if let (Subject::Variable { reference, name, .. }, Some(now)) = (&job.target, &now_value) {
                    // The value read back, with what the set's answer said of its type and children.
                    let mut read = job.ack.clone().filter(Value::is_object).unwrap_or_else(|| json!({}));
                    read["value"] = now.clone().into();
                    self.note_set_local(*reference, name, &read);
                }
                let out = self.edit_result(&job, now_value);
                return self.calls.done.push((job.call, out));
            }
        }
        self.edit_next(job, now)
    }

    /// The result: what it is now (read back), what it was, and whether it changed.
    fn edit_result(&mut self, job: &Job, now_value: Option<String>) -> ToolResult {
        let ack = job.ack.clone().unwrap_or(Value::Null);
        // `setVariable` and `setExpression` answer the same body.
        let acked = SetVariable::parse(Some(&ack)).unwrap_or_default().value.typed().cloned();
        let label = match &job.target {
            Subject::Variable { name, .. } => name.clone(),
            Subject::Expression { expression, .. } => expression.clone(),
        };
        let mut j = self.variable_json(&ack);
        if let Some(m) = j.as_object_mut() {
            m.remove("name");
            m.remove("evaluate_name");
        }
        j["session"] = self.id.clone().into();
        j["revision"] = self.run.revision.into();
        let mut note = None;
        match &job.target {
            Subject::Variable { name, .. } if self.link.plan.quirks.variables_are_snapshots => {
                // The adapter's references hold the values they were made with: the old ones
                // are refused from now on, and this one would show the old values too.
                note = Some(format!(
                    "\n(refs from before this change are refused now: {} keeps the values a ref was made with; call `context` or `scopes` for fresh ones)",
                    self.link.adapter
                ));
                j["name"] = name.clone().into();
            }
            Subject::Variable { reference, name, .. } if job.via_globals => {
                if let Some(h) = self.view.handles.mint(HandleKind::Variables, *reference) {
                    j["container_ref"] = h.into();
                    note = Some(format!(
                        "\n(`{name}` is not a local of this frame: set in its module's globals, where the program reads it, \
                         through the Globals scope, ref {h}; {}'s setExpression would only have shadowed it in a copy of the \
                         frame's locals)",
                        self.link.adapter
                    ));
                }
                j["expression"] = name.clone().into();
                j["set_in"] = "globals".into();
            }
            Subject::Variable { handle, reference, name, .. } => {
                // The container's handle, a new one when the adapter invalidated variables
                // meanwhile (lldb-dap does after every change).
                if let Some(h) = self.view.handles.mint(HandleKind::Variables, *reference) {
                    j["container_ref"] = h.into();
                    if i64::from(h) != *handle {
                        note = Some(format!("\n(the adapter invalidated variables: the container is now ref {h})"));
                    }
                }
                j["name"] = name.clone().into();
            }
            Subject::Expression { expression, .. } => j["expression"] = expression.clone().into(),
        }

        let shown = |v: &str| value_text(&clip(v, VALUE_CHARS).0).to_owned();
        let mut text;
        match (&now_value, &job.old) {
            // Unchanged although the adapter answered another value (or, without an answer,
            // although another value was asked for): the set did not take.
            (Some(now), Some(old)) if now == old && acked.as_ref().map_or(*now != job.value, |a| a != now) => {
                text = format!(
                    "{label} is still {}: the adapter acknowledged setting it to {} but the value did not change",
                    shown(now),
                    shown(&job.value)
                );
                j["changed"] = false.into();
                j["acknowledged_without_effect"] = true.into();
            }
            (Some(now), Some(old)) if now == old => {
                // Either it already had that value, or the adapter kept the old one (debugpy
                // does when the new value raises, and prints the traceback to the program's stderr).
                text = format!(
                    "{label} is unchanged: {} (asked for {}; if that is not this value, the adapter did not apply it)",
                    shown(now),
                    shown(&job.value)
                );
                j["changed"] = false.into();
                j["old_value"] = old.clone().into();
            }
            (Some(now), Some(old)) => {
                text = format!("{label} = {} (was {})", shown(now), shown(old));
                j["changed"] = true.into();
                j["old_value"] = old.clone().into();
            }
            (Some(now), None) => text = format!("{label} = {}", shown(now)),
            (None, _) => {
                let said = acked.as_deref().unwrap_or(&job.value);
                let why = match &job.target {
                    Subject::Variable { fresh: None, .. } if self.link.plan.quirks.variables_are_snapshots => {
                        "agentdap cannot read it back: the adapter's refs keep old values and this variable has no expression to evaluate"
                    }
                    _ => "reading it back failed",
                };
                text = format!("{label} set to {} (the adapter's answer; {why})", shown(said));
                j["read_back"] = false.into();
            }
        }
        if let Some(now) = &now_value {
            j["value"] = clip(now, VALUE_CHARS).0.into();
            if acked.as_deref().is_some_and(|a| a != now) {
                text.push_str(&format!(" (the adapter answered {})", shown(acked.as_deref().unwrap_or(""))));
            }
        }
        if let Some(t) = j.get("type").and_then(Value::as_str) {
            text.push_str(&format!("  ({t})"));
        }
        if let Some(r) = j.get("ref") {
            text.push_str(&format!("  [ref {r}]"));
        }
        text.push_str(&note.unwrap_or_default());
        ToolResult::ok(text, j)
    }
}

/// A plain Python-style identifier (`counter`, `_x1`): what `setExpression` assigns as a name.
fn is_bare_name(expression: &str) -> bool {
    let mut chars = expression.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// An `evaluate` answer's `result` when it is a string.
fn evaluated(body: &Value) -> Option<String> {
    Evaluate::parse(Some(body)).unwrap_or_default().result.typed().cloned()
}

fn children(body: &Value) -> &[Value] {
    body.get("variables").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

impl Session {
    /// The child of a `variables` answer shown under `name`.
    fn child<'a>(&self, body: &'a Value, name: &str) -> Option<&'a Value> {
        children(body).iter().find(|v| self.shown_name(v).as_deref() == Some(name))
    }

    fn child_value(&self, body: &Value, name: &str) -> Option<String> {
        self.child(body, name).and_then(|v| v.get("value").and_then(Value::as_str)).map(str::to_owned)
    }
}
