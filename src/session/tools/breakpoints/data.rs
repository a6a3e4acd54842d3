//! `set_breakpoints {kind: data}` and `{kind: instruction}`: watchpoints and breakpoints on
//! instruction addresses of a live session. For data, agentdap asks `dataBreakpointInfo` itself,
//! one item after the other (DAP § Requests › DataBreakpointInfo), checks the access the agent
//! asked for against the ones offered, then sends the whole set with `setDataBreakpoints` (DAP
//! replaces them all); instruction breakpoints go whole with `setInstructionBreakpoints`. Each
//! answer is per breakpoint: verified, or the adapter's words (a refusal for the hardware
//! watchpoint limit named as such: `Quirks::watchpoint_limit_message`). A restart drops what
//! would not mean the same in the new run. Must not: touch IO, or another group's state.

use std::time::Instant;

use serde_json::{json, Value};

use super::super::gates::Gate;
use super::super::{session, stopped, Answer, Started};
use super::Op;
use crate::dap::requests::{
    DataBreakpointInfo, DataBreakpointInfoArguments, Request, SetBreakpoints, SetDataBreakpoints,
    SetDataBreakpointsArguments, SetInstructionBreakpoints, SetInstructionBreakpointsArguments,
};
use crate::session::breakpoints::{
    data_json, instructions_json, list_state_text, DataBreakpoint, InstructionBreakpoint, Listed, Mode,
};
use crate::session::handles::Kind;
use crate::session::snapshot::RunState;
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// Most data or instruction breakpoints in one call.
pub const MAX_ITEMS: usize = 64;

/// What a data breakpoint watches, as the agent named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Watched {
    /// The child `name` of the variables handle `handle`.
    Child { handle: i64, name: String },
    /// An expression evaluated in the focus thread's top frame; with `bytes`, an address whose
    /// `bytes` bytes are watched (Gate::DataBreakpointBytes).
    Expression { expression: String, bytes: Option<u64> },
}

impl Watched {
    /// How the result and `breakpoints` name it: the child's name, or the expression.
    pub fn label(&self) -> &str {
        match self {
            Watched::Child { name, .. } => name,
            Watched::Expression { expression, .. } => expression,
        }
    }
}

/// One data breakpoint as the agent asked for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataItem {
    pub watched: Watched,
    /// `read`, `write` or `readWrite`; `None`: `write` where offered.
    pub access: Option<String>,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
}

/// A `set_breakpoints {kind: data}` between its `dataBreakpointInfo` answers.
#[derive(Debug)]
pub struct DataJob {
    call: CallKey,
    mode: Mode,
    /// The items with their `dataBreakpointInfo` arguments, in the agent's order.
    asks: Vec<(DataItem, DataBreakpointInfoArguments)>,
    /// Answered so far.
    done: Vec<DataBreakpoint>,
    /// The session's revision when the call came: a resume in between makes its refs stale.
    revision: u64,
}

impl DataJob {
    /// The tool call waiting for it.
    pub fn call(&self) -> CallKey {
        self.call
    }
}

impl Sessions {
    /// `set_breakpoints {kind: data}` on the stopped session `key` (a `remove` needs no stop).
    pub fn set_data_breakpoints(
        &mut self,
        key: SessionKey,
        mode: Mode,
        items: Vec<DataItem>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let s = live(session(&mut self.slab, key)?, "data")?;
        s.require(Gate::DataBreakpoints)?;
        if mode == Mode::Remove {
            let labels: Vec<&str> = items.iter().map(|i| i.watched.label()).collect();
            let current: Vec<DataBreakpoint> = s.breaks.store.data().iter().map(|e| e.requested.clone()).collect();
            let kept: Vec<DataBreakpoint> =
                current.iter().filter(|d| !labels.contains(&d.what.as_str())).cloned().collect();
            if let Some(missing) = labels.iter().find(|l| !current.iter().any(|d| d.what == **l)) {
                let set: Vec<&str> = current.iter().map(|d| d.what.as_str()).collect();
                let msg =
                    format!("no data breakpoint watches `{missing}`; the data breakpoints are [{}].", set.join(", "));
                return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
            }
            s.send_data_breakpoints(Some(call), kept, now);
            self.after(key, now);
            return Ok(());
        }
        stopped(&mut self.slab, key)?;
        let s = session(&mut self.slab, key)?;
        if items.iter().any(|i| matches!(i.watched, Watched::Expression { bytes: Some(_), .. })) {
            s.require(Gate::DataBreakpointBytes)?;
        }
        let thread = self.thread_arg(key, None).ok();
        let mut asks = Vec::with_capacity(items.len());
        for item in items {
            let args = match &item.watched {
                Watched::Child { handle, name } => {
                    let reference = self.handle_arg(key, Kind::Variables, *handle)?;
                    DataBreakpointInfoArguments {
                        variables_reference: Some(reference),
                        name: name.clone(),
                        ..DataBreakpointInfoArguments::default()
                    }
                }
                Watched::Expression { expression, bytes } => {
                    let s = session(&mut self.slab, key)?;
                    let frame_id = thread.and_then(|t| s.known_top_frame(t));
                    DataBreakpointInfoArguments {
                        variables_reference: None,
                        name: expression.clone(),
                        frame_id,
                        bytes: *bytes,
                        as_address: bytes.map(|_| true),
                    }
                }
            };
            asks.push((item, args));
        }
        let s = session(&mut self.slab, key)?;
        let job = DataJob { call, mode, asks, done: Vec::new(), revision: s.run.revision };
        s.data_next(job, now);
        self.after(key, now);
        Ok(())
    }

    /// `set_breakpoints {kind: instruction}` on the live session `key`.
    pub fn set_instruction_breakpoints(
        &mut self,
        key: SessionKey,
        mode: Mode,
        list: Vec<InstructionBreakpoint>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let s = live(session(&mut self.slab, key)?, "instruction")?;
        s.require(Gate::InstructionBreakpoints)?;
        let same = |a: &InstructionBreakpoint, b: &InstructionBreakpoint| {
            a.address.eq_ignore_ascii_case(&b.address) && a.offset.unwrap_or(0) == b.offset.unwrap_or(0)
        };
        let current: Vec<InstructionBreakpoint> =
            s.breaks.store.instructions().iter().map(|e| e.requested.clone()).collect();
        let next = match mode {
            Mode::Replace => list,
            Mode::Add => {
                let mut next: Vec<_> = current.into_iter().filter(|c| !list.iter().any(|l| same(c, l))).collect();
                next.extend(list);
                next
            }
            Mode::Remove => {
                if let Some(missing) = list.iter().find(|l| !current.iter().any(|c| same(c, l))) {
                    let set: Vec<String> = current.iter().map(InstructionBreakpoint::place).collect();
                    let msg = format!(
                        "no instruction breakpoint at {}; the instruction breakpoints are [{}].",
                        missing.place(),
                        set.join(", ")
                    );
                    return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
                }
                current.into_iter().filter(|c| !list.iter().any(|l| same(c, l))).collect()
            }
        };
        s.breaks.store.set_instructions(next.clone());
        s.breaks.dropped_at_restart.clear();
        let args =
            SetInstructionBreakpointsArguments { breakpoints: next.iter().map(InstructionBreakpoint::wire).collect() };
        let origin = Origin::Breakpoints(Op::Instructions { call: Some(call), sent: next });
        s.request::<SetInstructionBreakpoints>(args, origin, now);
        self.after(key, now);
        Ok(())
    }
}

/// The session when it is live and configured, else why a `kind` breakpoint cannot be set now.
fn live<'a>(s: &'a mut Session, kind: &str) -> Result<&'a mut Session, ToolResult> {
    if s.run.state.is_over() {
        let msg = format!(
            "{} has ended; {kind} breakpoints name places in a running program's memory: launch (or restart) and set them at a stop.",
            s.id
        );
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    }
    if !s.startup.configured {
        let msg = format!("{} is still starting; set {kind} breakpoints once it stopped (`wait`).", s.id);
        return Err(ToolResult::error(ErrorCode::NotStopped, msg));
    }
    Ok(s)
}

impl Session {
    /// Asks `dataBreakpointInfo` for the job's next item, or, once all are answered, sends the
    /// set the job makes.
    fn data_next(&mut self, job: DataJob, now: Instant) {
        let Some((_, args)) = job.asks.get(job.done.len()) else {
            let DataJob { call, mode, done, .. } = job;
            let next = match mode {
                Mode::Add => {
                    let current = self.breaks.store.data().iter().map(|e| e.requested.clone());
                    let mut next: Vec<_> =
                        current.filter(|c| !done.iter().any(|d| d.data_id == c.data_id || d.what == c.what)).collect();
                    next.extend(done);
                    next
                }
                Mode::Replace | Mode::Remove => done,
            };
            return self.send_data_breakpoints(Some(call), next, now);
        };
        let args = args.clone();
        self.request::<DataBreakpointInfo>(args, Origin::Breakpoints(Op::DataInfo(Box::new(job))), now);
    }

    /// Records `list` as the data breakpoints and sends it whole.
    pub(in crate::session) fn send_data_breakpoints(
        &mut self,
        call: Option<CallKey>,
        list: Vec<DataBreakpoint>,
        now: Instant,
    ) {
        self.breaks.store.set_data(list.clone());
        if call.is_some() {
            self.breaks.dropped_at_restart.clear();
        }
        let args = SetDataBreakpointsArguments { breakpoints: list.iter().map(DataBreakpoint::wire).collect() };
        self.request::<SetDataBreakpoints>(args, Origin::Breakpoints(Op::Data { call, sent: list }), now);
    }

    /// The answer to one `dataBreakpointInfo`: a null `dataId` or an access type not offered
    /// ends the call with the adapter's words; else the next item.
    pub(super) fn data_info_answered(&mut self, mut job: DataJob, answer: Answer, now: Instant) {
        let Some((item, _)) = job.asks.get(job.done.len()) else { return };
        let label = item.watched.label().to_owned();
        let fail =
            |code, msg: String| (job.call, ToolResult::error(code, format!("{msg}; no data breakpoint was changed.")));
        if self.run.revision != job.revision {
            let msg = format!("{} ran while the data breakpoints were being set; set them again at this stop", self.id);
            return self.calls.done.push(fail(ErrorCode::TargetInvalidated, msg));
        }
        let body = match answer {
            Ok(body) => body,
            Err((code, msg)) => {
                return self.calls.done.push(fail(code, format!("dataBreakpointInfo for `{label}` failed: {msg}")))
            }
        };
        let info = DataBreakpointInfo::parse(Some(&body)).unwrap_or_default();
        let description = info.description.filter(|d| !d.is_empty());
        let Some(data_id) = info.data_id else {
            let why = description.as_deref().unwrap_or("it gave no reason");
            let hint = self.refused_watch_hint(&item.watched, why);
            let msg = format!("{} cannot watch `{label}`: {}{hint}", self.link.adapter, crate::visible::escaped(why));
            return self.calls.done.push(fail(ErrorCode::InvalidArgument, msg));
        };
        let offered = info.access_types.unwrap_or_default();
        let access = match &item.access {
            Some(a) if !offered.is_empty() && !offered.contains(a) => {
                let msg =
                    format!("{} can watch `{label}` only for [{}], not {a}", self.link.adapter, offered.join(", "));
                return self.calls.done.push(fail(ErrorCode::InvalidArgument, msg));
            }
            Some(a) => Some(a.clone()),
            // DAP § Types › DataBreakpoint: without `accessType` the adapter picks; `write`, the
            // usual question ("who changes this?"), where it is offered.
            None => offered.iter().any(|a| a == "write").then(|| "write".to_owned()),
        };
        job.done.push(DataBreakpoint {
            what: label,
            data_id,
            access,
            condition: item.condition.clone(),
            hit_condition: item.hit_condition.clone(),
            description,
            can_persist: info.can_persist,
            bytes_asked: match item.watched {
                Watched::Expression { bytes, .. } => bytes,
                Watched::Child { .. } => None,
            },
        });
        self.data_next(job, now);
    }

    /// The answer to `setDataBreakpoints`: per breakpoint verified or the adapter's words.
    pub(super) fn data_answered(&mut self, call: Option<CallKey>, sent: &[DataBreakpoint], answer: Answer) {
        let parsed = answer.as_ref().map(|b| SetBreakpoints::parse(Some(b)).unwrap_or_default());
        self.breaks.store.on_data_answer(sent, parsed.as_ref().map_err(|(_, m)| m.as_str()));
        let Some(call) = call else {
            if let Err((_, msg)) = answer {
                log::warn!("{}: setDataBreakpoints failed: {msg}", self.id);
            }
            return;
        };
        let out = match answer {
            Err((code, msg)) if code != ErrorCode::AdapterError => ToolResult::error(code, msg),
            other => {
                let set = self.breaks.store.data();
                let mut text = format!("{} data breakpoint(s)", set.len());
                let limited = self.hardware_limited(set);
                for e in set {
                    let d = &e.requested;
                    let about = d
                        .description
                        .as_ref()
                        .map(|x| format!(" ({})", crate::visible::escaped(x)))
                        .unwrap_or_default();
                    let state = self.data_state_text(e);
                    text.push_str(&format!("\n  `{}`{about}{}: {state}", d.what, d.options_text()));
                    if limited.contains(&e.id) {
                        text.push_str(" — the hardware watchpoint limit: no debug register was left for it; remove another watch to set this one");
                    }
                }
                if let Err((_, msg)) = other {
                    text.push_str(&format!("\nthe adapter refused the request: {msg}"));
                }
                let conditions: Vec<(String, bool, bool)> = set
                    .iter()
                    .map(|e| {
                        (
                            format!("`{}`", e.requested.what),
                            e.requested.condition.is_some(),
                            e.requested.hit_condition.is_some(),
                        )
                    })
                    .collect();
                let mut structured = json!({"kind": "data", "session": self.id, "breakpoints": data_json(set)});
                if let Some(list) = structured["breakpoints"].as_array_mut() {
                    for (b, e) in list.iter_mut().zip(set) {
                        if let Some(n) = self.watched_bytes(&e.requested) {
                            b["watched_bytes"] = n.into();
                        }
                    }
                }
                if !limited.is_empty() {
                    structured["hardware_limit"] = limited.into();
                }
                let mut notes = self.ignored_conditions("data", &conditions);
                notes.extend(self.watch_notes(set));
                finish(&mut text, &mut structured, notes);
                ToolResult::ok(text, structured)
            }
        };
        self.calls.done.push((call, out));
    }

    /// The answer to `setInstructionBreakpoints`.
    pub(super) fn instructions_answered(
        &mut self,
        call: Option<CallKey>,
        sent: &[InstructionBreakpoint],
        answer: Answer,
    ) {
        let parsed = answer.as_ref().map(|b| SetBreakpoints::parse(Some(b)).unwrap_or_default());
        self.breaks.store.on_instructions_answer(sent, parsed.as_ref().map_err(|(_, m)| m.as_str()));
        let Some(call) = call else {
            if let Err((_, msg)) = answer {
                log::warn!("{}: setInstructionBreakpoints failed: {msg}", self.id);
            }
            return;
        };
        let out = match answer {
            Err((code, msg)) if code != ErrorCode::AdapterError => ToolResult::error(code, msg),
            other => {
                let set = self.breaks.store.instructions();
                let mut text = format!("{} instruction breakpoint(s)", set.len());
                for e in set {
                    let i = &e.requested;
                    text.push_str(&format!("\n  {}{}: {}", i.place(), i.options_text(), list_state_text(e)));
                }
                if let Err((_, msg)) = other {
                    text.push_str(&format!("\nthe adapter refused the request: {msg}"));
                }
                let conditions: Vec<(String, bool, bool)> = set
                    .iter()
                    .map(|e| {
                        (e.requested.place(), e.requested.condition.is_some(), e.requested.hit_condition.is_some())
                    })
                    .collect();
                let mut structured =
                    json!({"kind": "instruction", "session": self.id, "breakpoints": instructions_json(set)});
                let notes = self.ignored_conditions("instruction", &conditions);
                finish(&mut text, &mut structured, notes);
                ToolResult::ok(text, structured)
            }
        };
        self.calls.done.push((call, out));
    }

    /// The ids of the data breakpoints the adapter refused in its words for the hardware limit
    /// (`Quirks::watchpoint_limit_message`).
    fn hardware_limited(&self, set: &[Listed<DataBreakpoint>]) -> Vec<i64> {
        let Some(words) = self.link.plan.quirks.watchpoint_limit_message else { return Vec::new() };
        let refused = |e: &&Listed<DataBreakpoint>| {
            e.bound.as_ref().is_some_and(|b| !b.verified && b.message.as_deref().is_some_and(|m| m.contains(words)))
        };
        set.iter().filter(refused).map(|e| e.id).collect()
    }

    /// Conditions and hit conditions of `kind` breakpoints the adapter announced no support for
    /// (DAP § Types › Capabilities; `items`: name, has a condition, has a hit condition).
    fn ignored_conditions(&self, kind: &str, items: &[(String, bool, bool)]) -> Vec<String> {
        let Some(caps) = self.link.client.capabilities() else { return Vec::new() };
        let checks = [
            (
                self.honours("condition", caps.supports_conditional_breakpoints),
                "conditions",
                "supportsConditionalBreakpoints",
                true,
            ),
            (
                self.honours("hit_condition", caps.supports_hit_conditional_breakpoints),
                "hit conditions",
                "supportsHitConditionalBreakpoints",
                false,
            ),
        ];
        let mut notes = Vec::new();
        for (supported, what, capability, is_condition) in checks {
            let at: Vec<&str> =
                items.iter().filter(|(_, c, h)| if is_condition { *c } else { *h }).map(|(n, ..)| n.as_str()).collect();
            if !supported && !at.is_empty() {
                notes.push(format!(
                    "{} does not support {what} ({capability} is not set): on the {kind} breakpoint(s) {} it is ignored, and they stop on every hit",
                    self.link.adapter,
                    at.join(", ")
                ));
            }
        }
        notes
    }

    /// A restart (relaunch or the adapter's own): data breakpoints without `canPersist` and every
    /// instruction breakpoint name the old process's memory and are dropped, said in a warning
    /// and in `breakpoints` (DAP § Requests › DataBreakpointInfo `canPersist`). `in_adapter`:
    /// the adapter keeps its breakpoints over a DAP `restart`, so it is sent the sets that remain.
    pub(in crate::session) fn drop_for_restart(&mut self, in_adapter: bool, now: Instant) {
        let (next, dropped) = self.breaks.store.for_relaunch();
        let data: Vec<DataBreakpoint> = next.data().iter().map(|e| e.requested.clone()).collect();
        if !in_adapter {
            // The relaunch starts afresh from `next`: its new adapter verifies them again.
            self.breaks.store = next;
        }
        if dropped.is_empty() {
            return;
        }
        // Why, per kind dropped (`BreakpointStore::for_relaunch` names each `data …` or
        // `instruction …`).
        let mut why = Vec::new();
        if dropped.iter().any(|d| d.starts_with("data ")) {
            why.push("the adapter did not say a data breakpoint can persist");
        }
        if dropped.iter().any(|d| d.starts_with("instruction ")) {
            why.push("instruction breakpoints name addresses of one run");
        }
        self.calls.warnings.push(format!(
            "the restart dropped {}: they named places in the old run's memory ({}); set them again at a stop",
            dropped.join(", "),
            why.join("; ")
        ));
        self.breaks.dropped_at_restart = dropped;
        if !in_adapter {
            return;
        }
        if data.len() != self.breaks.store.data().len() {
            self.send_data_breakpoints(None, data, now);
        }
        if !self.breaks.store.instructions().is_empty() {
            self.breaks.store.set_instructions(Vec::new());
            let args = SetInstructionBreakpointsArguments { breakpoints: Vec::new() };
            let origin = Origin::Breakpoints(Op::Instructions { call: None, sent: Vec::new() });
            self.request::<SetInstructionBreakpoints>(args, origin, now);
        }
    }

    /// At a stop credited to data breakpoints, the line naming each watch with its access (the
    /// adapter's `description` of such a stop says only its own number: `data breakpoint 7` on
    /// lldb-dap 22.1.8).
    pub(in crate::session) fn watches_hit(&self) -> Option<String> {
        let stop = self.run.stop.as_ref().filter(|_| self.run.state == RunState::Stopped)?;
        let hit: Vec<String> = self
            .breaks
            .store
            .data()
            .iter()
            .filter(|e| stop.hit_breakpoints.contains(&e.id))
            .map(|e| format!("`{}`{}{}", e.requested.what, e.requested.options_text(), self.watch_hit_note(e)))
            .collect();
        (!hit.is_empty()).then(|| format!("watch hit: {}", hit.join(", ")))
    }

    /// The configuration phase of a relaunch: the data breakpoints that persist are sent again.
    pub(in crate::session) fn configure_data_breakpoints(&mut self, now: Instant) {
        let list: Vec<DataBreakpoint> = self.breaks.store.data().iter().map(|e| e.requested.clone()).collect();
        if list.is_empty() || self.require(Gate::DataBreakpoints).is_err() {
            return;
        }
        self.send_data_breakpoints(None, list, now);
    }
}

/// Adds the notes about ignored settings to a result's text and `warnings`.
fn finish(text: &mut String, structured: &mut Value, notes: Vec<String>) {
    for note in &notes {
        text.push_str(&format!("\nwarning: {note}"));
    }
    if !notes.is_empty() {
        structured["warnings"] = notes.into();
    }
}

#[cfg(test)]
mod tests;
