//! The breakpoint kinds kept as one list each, which one DAP request replaces whole: function
//! breakpoints (`setFunctionBreakpoints`), data breakpoints (watchpoints, `setDataBreakpoints`)
//! and instruction breakpoints (`setInstructionBreakpoints`), with the entry type [`Listed`] they
//! share. Must not: send anything or know a session (the session layer's
//! `session/tools/breakpoints/` does).

use serde_json::{Map, Value};

use super::{bound_from, options_text, Bound, BreakpointStore, Entry, Hits, LastHit};
use crate::dap::requests::{self, SetBreakpointsResponse};

/// One requested breakpoint of a listed kind and, once the adapter answered, its state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed<T> {
    /// agentdap's id for it, stable while it exists (adapters renumber theirs on every request).
    pub id: i64,
    pub requested: T,
    pub bound: Option<Bound>,
    /// The stops a `stopped` event credited to it in `hitBreakpointIds`.
    pub hits: Hits,
}

/// A data breakpoint as agentdap set it: what the agent named, and what `dataBreakpointInfo`
/// answered for it (DAP § Requests › DataBreakpointInfo).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataBreakpoint {
    /// What the agent watched, as it named it: a child's name or an expression.
    pub what: String,
    /// The adapter's id for the data.
    pub data_id: String,
    /// The access type sent (`None`: the adapter offered none, so its default).
    pub access: Option<String>,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
    /// The adapter's description of the data (`4 bytes at 7FFFFFFFE70C a` on lldb-dap 22).
    pub description: Option<String>,
    /// The adapter said the breakpoint can persist across sessions (`canPersist`).
    pub can_persist: bool,
    /// The `bytes` the agent asked for (an address watch), to compare with what the adapter
    /// watches.
    pub bytes_asked: Option<u64>,
}

impl DataBreakpoint {
    /// Its wire shape (DAP § Types › DataBreakpoint).
    pub fn wire(&self) -> requests::DataBreakpoint {
        requests::DataBreakpoint {
            data_id: self.data_id.clone(),
            access_type: self.access.clone(),
            condition: self.condition.clone(),
            hit_condition: self.hit_condition.clone(),
        }
    }
}

/// An instruction breakpoint as requested (DAP § Types › InstructionBreakpoint).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstructionBreakpoint {
    /// A memory reference: a frame's `instructionPointerReference` or a disassembled address.
    pub address: String,
    /// Bytes from `address`.
    pub offset: Option<i64>,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
}

impl InstructionBreakpoint {
    /// Its wire shape.
    pub fn wire(&self) -> requests::InstructionBreakpoint {
        requests::InstructionBreakpoint {
            instruction_reference: self.address.clone(),
            offset: self.offset,
            condition: self.condition.clone(),
            hit_condition: self.hit_condition.clone(),
        }
    }

    /// `0x55555555519a` or `0x55555555519a+4`.
    pub fn place(&self) -> String {
        match self.offset {
            Some(o) if o != 0 => format!("{}{o:+}", self.address),
            _ => self.address.clone(),
        }
    }
}

/// Replaces `set` with `list`: an entry asked for again unchanged keeps its id and what is known
/// about it; a new one gets the next id.
fn replace<T: PartialEq>(set: &mut Vec<Listed<T>>, list: Vec<T>, last_id: &mut i64) {
    let mut old = std::mem::take(set);
    *set = list
        .into_iter()
        .map(|requested| match old.iter().position(|e| e.requested == requested) {
            Some(i) => old.swap_remove(i),
            None => {
                *last_id += 1;
                Listed { id: *last_id, requested, bound: None, hits: Hits::default() }
            }
        })
        .collect();
}

/// Records the answer to a request that held `sent` (in order); ignored when the set changed
/// meanwhile (a newer request's answer follows).
fn answer<T: PartialEq>(set: &mut [Listed<T>], sent: &[T], result: Result<&SetBreakpointsResponse, &str>) {
    let same = sent.len() == set.len() && sent.iter().zip(set.iter()).all(|(s, e)| *s == e.requested);
    if !same {
        return;
    }
    let answers = match result {
        Ok(body) => body.breakpoints.as_slice(),
        Err(_) => &[][..],
    };
    for (i, e) in set.iter_mut().enumerate() {
        e.bound = Some(match (answers.get(i), result) {
            (Some(a), _) => bound_from(a),
            (None, Err(message)) => Bound { message: Some(message.to_owned()), ..Bound::default() },
            (None, Ok(_)) => {
                Bound { message: Some("the adapter did not answer for this breakpoint".into()), ..Bound::default() }
            }
        });
    }
}

impl BreakpointStore {
    pub fn data(&self) -> &[Listed<DataBreakpoint>] {
        &self.data
    }

    pub fn instructions(&self) -> &[Listed<InstructionBreakpoint>] {
        &self.instructions
    }

    /// Replaces the data breakpoints (DAP `setDataBreakpoints` replaces them all).
    pub fn set_data(&mut self, list: Vec<DataBreakpoint>) {
        self.changes += 1;
        replace(&mut self.data, list, &mut self.last_id);
    }

    /// Replaces the instruction breakpoints (DAP `setInstructionBreakpoints` replaces them all).
    pub fn set_instructions(&mut self, list: Vec<InstructionBreakpoint>) {
        self.changes += 1;
        replace(&mut self.instructions, list, &mut self.last_id);
    }

    /// Records a `setDataBreakpoints` answer for `sent`.
    pub fn on_data_answer(&mut self, sent: &[DataBreakpoint], result: Result<&SetBreakpointsResponse, &str>) {
        self.changes += 1;
        answer(&mut self.data, sent, result);
    }

    /// Records a `setInstructionBreakpoints` answer for `sent`.
    pub fn on_instructions_answer(
        &mut self,
        sent: &[InstructionBreakpoint],
        result: Result<&SetBreakpointsResponse, &str>,
    ) {
        self.changes += 1;
        answer(&mut self.instructions, sent, result);
    }

    /// A restart the adapter carries out (DAP `restart`): the breakpoints stay as the adapter
    /// holds them, and every count starts again, as for a relaunch (`for_relaunch`). A fresh
    /// user's lldb-dap restart listed the old run's hits.
    pub fn new_run(&mut self) {
        self.changes += 1;
        for slot in self.slots(Scope::All) {
            *slot.hits = Hits::default();
        }
        self.people.new_run();
    }

    /// The store a relaunch starts with, and what it dropped: every source and function
    /// breakpoint as requested; data breakpoints only where the adapter said `canPersist` (DAP §
    /// Requests › DataBreakpointInfo: an id without it is valid in this debug session only);
    /// no instruction breakpoint (an address of the old process).
    pub fn for_relaunch(&self) -> (BreakpointStore, Vec<String>) {
        let mut next = self.requested_only();
        let (kept, gone): (Vec<_>, Vec<_>) = self.data.iter().partition(|e| e.requested.can_persist);
        next.data = kept.into_iter().map(|e| Listed { bound: None, hits: Hits::default(), ..e.clone() }).collect();
        let mut dropped: Vec<String> = gone.iter().map(|e| format!("data `{}`", e.requested.what)).collect();
        dropped.extend(self.instructions.iter().map(|e| format!("instruction {}", e.requested.place())));
        (next, dropped)
    }

    /// Every listed kind's entries as `(agentdap id, what the adapter said)`.
    pub(super) fn listed_bounds(&self) -> impl Iterator<Item = (i64, &Option<Bound>)> {
        let functions = self.functions.iter().map(|e| (e.id, &e.bound));
        let data = self.data.iter().map(|e| (e.id, &e.bound));
        functions.chain(data).chain(self.instructions.iter().map(|e| (e.id, &e.bound)))
    }

    /// What the adapter said of every breakpoint of every kind, to update from an event.
    pub(super) fn bounds_mut(&mut self) -> impl Iterator<Item = &mut Option<Bound>> {
        let files = self.files.values_mut().flatten().map(|e| &mut e.bound);
        let functions = self.functions.iter_mut().map(|e| &mut e.bound);
        let data = self.data.iter_mut().map(|e| &mut e.bound);
        let instructions = self.instructions.iter_mut().map(|e| &mut e.bound);
        files.chain(functions).chain(data).chain(instructions).chain(self.people.bounds_mut())
    }
}

/// Which kinds a stop's `hitBreakpointIds` name, by its reason (DAP § Events › Stopped: `function
/// breakpoint`, `data breakpoint`, `instruction breakpoint`): lldb-dap 22.1.8 numbers its
/// watchpoints apart from its breakpoints (watchpoint 1 beside breakpoint 1), so an id alone
/// does not say which was hit. Any other reason looks at every kind, source lines first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    All,
    Function,
    Data,
    Instruction,
}

impl Scope {
    fn of(reason: &str) -> Scope {
        match reason {
            "function breakpoint" => Scope::Function,
            "data breakpoint" => Scope::Data,
            "instruction breakpoint" => Scope::Instruction,
            _ => Scope::All,
        }
    }
}

/// One breakpoint of any kind, as a stop updates it.
struct Slot<'a> {
    id: i64,
    bound: &'a mut Option<Bound>,
    hits: &'a mut Hits,
}

impl BreakpointStore {
    /// The breakpoints a stop of `scope` can name, in the order they are looked through.
    fn slots(&mut self, scope: Scope) -> Vec<Slot<'_>> {
        let mut out = Vec::new();
        if scope == Scope::All {
            out.extend(self.files.values_mut().flatten().map(|e| Slot {
                id: e.id,
                bound: &mut e.bound,
                hits: &mut e.hits,
            }));
        }
        if matches!(scope, Scope::All | Scope::Function) {
            out.extend(self.functions.iter_mut().map(|e| Slot { id: e.id, bound: &mut e.bound, hits: &mut e.hits }));
        }
        if matches!(scope, Scope::All | Scope::Instruction) {
            out.extend(self.instructions.iter_mut().map(|e| Slot { id: e.id, bound: &mut e.bound, hits: &mut e.hits }));
        }
        if matches!(scope, Scope::All | Scope::Data) {
            out.extend(self.data.iter_mut().map(|e| Slot { id: e.id, bound: &mut e.bound, hits: &mut e.hits }));
        }
        out
    }

    /// A `stopped` event with `hitBreakpointIds` (the adapter's ids) and `reason`: marks the
    /// breakpoints it names hit and returns agentdap's ids for them (ids that are not the agent's
    /// breakpoints — `run_to`'s, the entry breakpoint — are left out). A stop the adapter credits
    /// to a breakpoint proves it bound, whatever its last answer said (js-debug 1.112.0 answers
    /// `verified: false, breakpoint.provisionalBreakpoint` and may send the `breakpoint` event
    /// that verifies it before that answer, or never).
    /// Each breakpoint is credited once per stop, even when the adapter lists its id twice; a
    /// stop naming two breakpoints credits both (`a_stop_credited_to_two_breakpoints_counts_both`).
    pub fn on_stop(&mut self, adapter_ids: &[i64], reason: &str, at: LastHit) -> Vec<i64> {
        self.changes += 1;
        let mut slots = self.slots(Scope::of(reason));
        let mut ours = Vec::new();
        for a in adapter_ids {
            let Some(slot) = slots.iter_mut().find(|s| s.bound.as_ref().and_then(|b| b.id) == Some(*a)) else {
                continue;
            };
            if let Some(b) = slot.bound.as_mut().filter(|b| !b.verified) {
                b.verified = true;
                b.message = None;
            }
            if !ours.contains(&slot.id) {
                slot.hits.record(at);
                ours.push(slot.id);
            }
        }
        ours
    }
}

impl BreakpointStore {
    /// A breakpoint stop that names no breakpoint id but its place, `path:line`
    /// (`Quirks::breakpoint_in_stop_description`: rdbg 1.4.0 gives its breakpoints no ids and
    /// answers `setBreakpoints` with `verified: true` alone). Credits the one source breakpoint of
    /// `path` bound (or asked for) at `line`; failing that, the one rdbg moved there: it moves a
    /// breakpoint only forward, to the first line with code (`breakpoint.rb`
    /// `LineBreakpoint#try_activate`), so the not yet placed one asked for last before `line`,
    /// unless a line the adapter also holds (`held`: lines it kept after the agent took them out,
    /// the person's) lies between. That one is now bound at `line`. Nothing known, nothing
    /// credited. Returns agentdap's id of the one credited.
    pub fn on_stop_at(&mut self, path: &str, line: u32, held: &[u32], at: LastHit) -> Vec<i64> {
        self.changes += 1;
        let people: Vec<u32> = self.people_in(path).map(|e| e.requested.line).collect();
        let Some(set) = self.files.get_mut(path) else { return Vec::new() };
        let bound_line = |e: &Entry| e.bound.as_ref().and_then(|b| b.line).unwrap_or(e.requested.line);
        let exact: Vec<usize> = (0..set.len()).filter(|&i| bound_line(&set[i]) == line).collect();
        let chosen = match exact[..] {
            [one] => Some(one),
            [] => {
                let unplaced = |e: &Entry| e.bound.as_ref().and_then(|b| b.line).is_none() && e.requested.line < line;
                let before = (0..set.len()).filter(|&i| unplaced(&set[i])).max_by_key(|&i| set[i].requested.line);
                before.filter(|&i| {
                    let from = set[i].requested.line;
                    !held.iter().chain(&people).any(|&h| h > from && h <= line)
                })
            }
            _ => None,
        };
        let Some(i) = chosen else { return Vec::new() };
        let e = &mut set[i];
        let b = e.bound.get_or_insert_with(Bound::default);
        b.line = Some(line);
        b.verified = true;
        b.message = None;
        e.hits.record(at);
        vec![e.id]
    }
}

/// `verified`, `verified at w.c:11`, `NOT verified (why)` or `no answer yet`, with ` · hit` once
/// it stopped there.
pub fn list_state_text<T>(e: &Listed<T>) -> String {
    let mut s = match &e.bound {
        None => "no answer yet".to_owned(),
        Some(b) if b.verified => match &b.at {
            Some(at) => format!("verified at {at}"),
            None => "verified".to_owned(),
        },
        Some(b) => format!("NOT verified ({})", b.why_not()),
    };
    // "never hit" is the listing's word (`breakpoints`), not a set result's.
    s.push_str(&e.hits.text(false));
    s
}

/// The common JSON of a listed entry: id, condition, hit condition, verified, message, hit.
fn entry_json<T>(
    e: &Listed<T>,
    condition: Option<&str>,
    hit_condition: Option<&str>,
    mut m: Map<String, Value>,
) -> Value {
    m.insert("id".into(), e.id.into());
    if let Some(c) = condition {
        m.insert("condition".into(), c.into());
    }
    if let Some(h) = hit_condition {
        m.insert("hit_condition".into(), h.into());
    }
    if let Some(b) = &e.bound {
        m.insert("verified".into(), b.verified.into());
        if let Some(message) = &b.message {
            m.insert("message".into(), message.clone().into());
        }
        if let Some(at) = &b.at {
            m.insert("at".into(), at.clone().into());
        }
    }
    e.hits.put_json(&mut m);
    Value::Object(m)
}

/// The data breakpoints as JSON: id, what, access, description, can_persist, condition,
/// hit condition, verified, message, hit.
pub fn data_json(set: &[Listed<DataBreakpoint>]) -> Value {
    let item = |e: &Listed<DataBreakpoint>| {
        let d = &e.requested;
        let mut m = Map::new();
        m.insert("what".into(), d.what.clone().into());
        if let Some(a) = &d.access {
            m.insert("access".into(), a.clone().into());
        }
        if let Some(desc) = &d.description {
            m.insert("description".into(), desc.clone().into());
        }
        if d.can_persist {
            m.insert("can_persist".into(), true.into());
        }
        entry_json(e, d.condition.as_deref(), d.hit_condition.as_deref(), m)
    };
    Value::Array(set.iter().map(item).collect())
}

/// The instruction breakpoints as JSON: id, address, offset, condition, hit condition, verified,
/// message, at, hit.
pub fn instructions_json(set: &[Listed<InstructionBreakpoint>]) -> Value {
    let item = |e: &Listed<InstructionBreakpoint>| {
        let i = &e.requested;
        let mut m = Map::new();
        m.insert("address".into(), i.address.clone().into());
        if let Some(o) = i.offset {
            m.insert("offset".into(), o.into());
        }
        entry_json(e, i.condition.as_deref(), i.hit_condition.as_deref(), m)
    };
    Value::Array(set.iter().map(item).collect())
}

impl DataBreakpoint {
    /// ` · write · if x > 0 · hit condition >= 3` (what the `breakpoints` text shows besides `what`).
    pub fn options_text(&self) -> String {
        let access = self.access.as_ref().map(|a| format!(" · {a}")).unwrap_or_default();
        format!("{access}{}", options_text(self.condition.as_deref(), self.hit_condition.as_deref()))
    }
}

impl InstructionBreakpoint {
    /// ` · if x > 0 · hit condition >= 3`.
    pub fn options_text(&self) -> String {
        options_text(self.condition.as_deref(), self.hit_condition.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::requests::{Request, SetDataBreakpoints};
    use serde_json::json;

    const AT: LastHit = LastHit { revision: 4, thread: Some(2) };

    fn watch(what: &str, persist: bool) -> DataBreakpoint {
        DataBreakpoint {
            what: what.into(),
            data_id: format!("{what}/4"),
            access: Some("write".into()),
            condition: None,
            hit_condition: None,
            description: None,
            can_persist: persist,
            bytes_asked: None,
        }
    }

    #[test]
    fn data_breakpoints_take_the_answer_per_breakpoint_and_a_stop_names_the_watch() {
        let mut s = BreakpointStore::default();
        let sent = vec![watch("a", false), watch("b", true)];
        s.set_data(sent.clone());
        // lldb-dap 22.1.8 on x86-64, past its debug registers.
        let body = json!({"breakpoints": [
            {"message": "Setting one of the watchpoint resources failed", "verified": false},
            {"id": 7, "verified": true}]});
        let parsed = SetDataBreakpoints::parse(Some(&body)).unwrap_or_default();
        s.on_data_answer(&sent, Ok(&parsed));
        assert_eq!(list_state_text(&s.data()[0]), "NOT verified (Setting one of the watchpoint resources failed)");
        let b_id = s.data()[1].id;
        assert_eq!(s.on_stop(&[7], "data breakpoint", AT), [b_id]);
        assert_eq!(list_state_text(&s.data()[1]), "verified · hit 1× (last rev 4, thread 2)");
        // Asked again unchanged: same id, same state.
        s.set_data(vec![watch("b", true)]);
        assert_eq!((s.data()[0].id, s.data()[0].hits.count), (b_id, 1));
    }

    #[test]
    fn a_stop_reason_says_which_kinds_an_adapter_id_names() {
        // lldb-dap 22.1.8: breakpoint 1 (a source line) and watchpoint 1 (`b`) at once.
        let mut s = BreakpointStore::default();
        s.apply(
            "/p/w.c",
            super::super::Mode::Replace,
            vec![super::super::SourceBreakpoint {
                line: 8,
                column: None,
                condition: None,
                hit_condition: None,
                log_message: None,
            }],
        );
        s.on_response("/p/w.c", Ok(&json!({"breakpoints": [{"id": 1, "verified": true}]})));
        let sent = vec![watch("b", false)];
        s.set_data(sent.clone());
        let parsed = SetDataBreakpoints::parse(Some(&json!({"breakpoints": [{"id": 1, "verified": true}]})));
        s.on_data_answer(&sent, Ok(&parsed.unwrap_or_default()));
        let watch_id = s.data()[0].id;
        assert_eq!(s.on_stop(&[1], "data breakpoint", AT), [watch_id]);
        assert!(!s.get("/p/w.c")[0].hits.any(), "the source line was not hit");
        assert_eq!(s.on_stop(&[1], "breakpoint", AT), [s.get("/p/w.c")[0].id]);
    }

    #[test]
    fn a_relaunch_keeps_only_persisting_watches_and_no_instruction_breakpoint() {
        let mut s = BreakpointStore::default();
        s.set_data(vec![watch("a", false), watch("b", true)]);
        let at =
            InstructionBreakpoint { address: "0x1000".into(), offset: Some(4), condition: None, hit_condition: None };
        s.set_instructions(vec![at]);
        let (next, dropped) = s.for_relaunch();
        assert_eq!(next.data().iter().map(|e| e.requested.what.as_str()).collect::<Vec<_>>(), ["b"]);
        assert!(next.instructions().is_empty());
        assert_eq!(dropped, ["data `a`", "instruction 0x1000+4"]);
        assert!(s.requested_only().data().is_empty(), "a child session gets no watch of its parent's memory");
    }

    #[test]
    fn an_instruction_breakpoint_says_where_it_bound() {
        let mut s = BreakpointStore::default();
        let sent = vec![InstructionBreakpoint {
            address: "0x55555555519A".into(),
            offset: None,
            condition: None,
            hit_condition: None,
        }];
        s.set_instructions(sent.clone());
        let body = json!({"breakpoints": [{"id": 3, "verified": true, "line": 11,
            "instructionReference": "0x55555555519A", "source": {"name": "w.c", "path": "/p/w.c"}}]});
        let parsed = SetDataBreakpoints::parse(Some(&body)).unwrap_or_default();
        s.on_instructions_answer(&sent, Ok(&parsed));
        assert_eq!(list_state_text(&s.instructions()[0]), "verified at w.c:11");
        assert_eq!(
            instructions_json(s.instructions()),
            json!([{"id": 1, "address": "0x55555555519A", "verified": true, "at": "w.c:11"}])
        );
    }
}
