//! The per-file source breakpoint sets agentdap keeps, so `add` never clobbers and a relaunch replays,
//! and the session's function, data and instruction breakpoints (DAP `setFunctionBreakpoints`,
//! `setDataBreakpoints`, `setInstructionBreakpoints`, each also replaced whole; `kinds.rs`).
//!
//! DAP's `setBreakpoints` replaces every breakpoint of one source at once (DAP § Requests:
//! SetBreakpoints), so agentdap owns the full set per path and sends it whole; the adapter's answer
//! (one `Breakpoint` per requested one, same order) and later `breakpoint` events update what is
//! known about each.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dap::requests::{
    self, Request, SetBreakpoints, SetBreakpointsArguments, SetBreakpointsResponse, SetFunctionBreakpointsArguments,
};

mod kinds;
mod life;
mod people;

pub use kinds::{data_json, instructions_json, list_state_text, DataBreakpoint, InstructionBreakpoint, Listed};
pub use life::{failed_condition, never_hit_line, put_never_hit, Hits, LastHit};
pub use people::{ClientRef as PersonRef, People, PersonFilters};

/// A breakpoint as requested (DAP `SourceBreakpoint`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceBreakpoint {
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(default, rename = "hitCondition", alias = "hit_condition", skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<String>,
    #[serde(default, rename = "logMessage", alias = "log_message", skip_serializing_if = "Option::is_none")]
    pub log_message: Option<String>,
}

impl SourceBreakpoint {
    /// What the breakpoint does besides stopping, as the `breakpoints` text shows it:
    /// ` · column 5 · if x > 0 · hit condition >= 3 · logs "v is {v}"` (empty for a plain one).
    pub fn options_text(&self) -> String {
        let mut s = self.column.map(|c| format!(" · column {c}")).unwrap_or_default();
        s.push_str(&options_text(self.condition.as_deref(), self.hit_condition.as_deref()));
        if let Some(m) = &self.log_message {
            // A logpoint does not stop: it prints the message (DAP § SourceBreakpoint).
            s.push_str(&format!(" · logs {m:?} (does not stop)"));
        }
        s
    }
}

impl From<&SourceBreakpoint> for requests::SourceBreakpoint {
    /// The wire shape: the same fields under the same keys (pinned by
    /// `breakpoint_requests_are_sent_as_today` in `src/dap/requests/tests.rs`).
    fn from(b: &SourceBreakpoint) -> requests::SourceBreakpoint {
        requests::SourceBreakpoint {
            line: b.line,
            column: b.column,
            condition: b.condition.clone(),
            hit_condition: b.hit_condition.clone(),
            log_message: b.log_message.clone(),
        }
    }
}

impl From<&FunctionBreakpoint> for requests::FunctionBreakpoint {
    /// The wire shape: the same fields under the same keys.
    fn from(b: &FunctionBreakpoint) -> requests::FunctionBreakpoint {
        requests::FunctionBreakpoint {
            name: b.name.clone(),
            condition: b.condition.clone(),
            hit_condition: b.hit_condition.clone(),
        }
    }
}

impl FunctionBreakpoint {
    /// Its condition and hit condition as the `breakpoints` text shows them (empty if none).
    pub fn options_text(&self) -> String {
        options_text(self.condition.as_deref(), self.hit_condition.as_deref())
    }
}

fn options_text(condition: Option<&str>, hit_condition: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(c) = condition {
        s.push_str(&format!(" · if {c}"));
    }
    if let Some(h) = hit_condition {
        s.push_str(&format!(" · hit condition {h}"));
    }
    s
}

/// A function breakpoint as requested (DAP `FunctionBreakpoint`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionBreakpoint {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(default, rename = "hitCondition", alias = "hit_condition", skip_serializing_if = "Option::is_none")]
    pub hit_condition: Option<String>,
}

/// One requested function breakpoint and, once the adapter answered, its state.
pub type FunctionEntry = Listed<FunctionBreakpoint>;

/// What the adapter said about one breakpoint (DAP `Breakpoint`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    pub id: Option<i64>,
    pub verified: bool,
    /// The line the adapter actually bound (it may move a breakpoint off a blank line).
    pub line: Option<u32>,
    pub message: Option<String>,
    /// Where the adapter placed it, `file:line`, when it said (an instruction breakpoint's
    /// source line).
    pub at: Option<String>,
}

impl Bound {
    /// Why the adapter did not verify it: its message, or that it gave none.
    pub fn why_not(&self) -> &str {
        self.message.as_deref().unwrap_or("no reason given by the adapter")
    }
}

/// One requested breakpoint and, once the adapter answered, its state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// agentdap's id for it, stable while it exists: debugpy and lldb-dap renumber their own on
    /// every `setBreakpoints` of the file (a `run_to`, an `add`), so results and `stopped`
    /// events are translated to these.
    pub id: i64,
    pub requested: SourceBreakpoint,
    pub bound: Option<Bound>,
    /// The stops a `stopped` event credited to it in `hitBreakpointIds`.
    pub hits: Hits,
}

impl Entry {
    /// The adapter verified it, or a stop was credited to it.
    fn proven(&self) -> bool {
        self.hits.any() || self.bound.as_ref().is_some_and(|b| b.verified)
    }

    /// True when the adapter bound the breakpoint on another line than the one asked for.
    pub fn moved(&self) -> bool {
        matches!(&self.bound, Some(Bound { verified: true, line: Some(l), .. }) if *l != self.requested.line)
    }
}

/// How `set_breakpoints` combines a new list with the file's current set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Replace,
    Add,
    Remove,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "replace" => Some(Mode::Replace),
            "add" => Some(Mode::Add),
            "remove" => Some(Mode::Remove),
            _ => None,
        }
    }
}

/// Every file's breakpoint set, keyed by the path as the agent gave it, and the function
/// breakpoints.
#[derive(Clone, Debug, Default)]
pub struct BreakpointStore {
    files: BTreeMap<String, Vec<Entry>>,
    functions: Vec<FunctionEntry>,
    data: Vec<Listed<DataBreakpoint>>,
    instructions: Vec<Listed<InstructionBreakpoint>>,
    /// The last id handed out (ids start at 1).
    last_id: i64,
    /// Bumped by every change of a set or of what the adapter said of it ([`BreakpointStore::changes`]).
    changes: u64,
    /// The person's breakpoints per file and mirror client (`people.rs`); the adapter holds the
    /// union of theirs and the agent's.
    people: People,
    /// The adapter keeps one breakpoint per line (`Quirks::one_breakpoint_per_line`): the union
    /// holds none of the people's on a line the agent's set holds.
    pub(crate) one_per_line: bool,
}

impl BreakpointStore {
    /// Applies `mode` with `list` to `path`'s set. Adding a line already present replaces that
    /// entry; removing matches on the line. States of untouched entries are kept.
    pub fn apply(&mut self, path: &str, mode: Mode, list: Vec<SourceBreakpoint>) {
        self.changes += 1;
        let mut last_id = self.last_id;
        let set = self.files.entry(path.to_owned()).or_default();
        // A line already in the set keeps its id; a new line gets the next one.
        let mut id_for = |set: &[Entry], line: u32| {
            set.iter().find(|e| e.requested.line == line).map(|e| e.id).unwrap_or_else(|| {
                last_id += 1;
                last_id
            })
        };
        match mode {
            Mode::Replace => {
                let new: Vec<Entry> = list
                    .into_iter()
                    .map(|requested| match set.iter().find(|e| e.requested == requested) {
                        Some(e) => Entry { bound: None, ..e.clone() },
                        None => {
                            Entry { id: id_for(set, requested.line), requested, bound: None, hits: Hits::default() }
                        }
                    })
                    .collect();
                *set = new;
            }
            Mode::Add => {
                for requested in list {
                    let id = id_for(set, requested.line);
                    match set.iter_mut().find(|e| e.requested.line == requested.line) {
                        Some(e) if e.requested == requested => {}
                        Some(e) => *e = Entry { id, requested, bound: None, hits: Hits::default() },
                        None => set.push(Entry { id, requested, bound: None, hits: Hits::default() }),
                    }
                }
                set.sort_by_key(|e| e.requested.line);
            }
            Mode::Remove => set.retain(|e| !list.iter().any(|r| r.line == e.requested.line)),
        }
        self.last_id = last_id;
    }

    /// agentdap's ids for the adapter's ids of a `stopped` event's `hitBreakpointIds` (ids that
    /// are not the agent's breakpoints — `run_to`'s, the entry breakpoint — are left out).
    pub fn stable_ids(&self, adapter_ids: &[i64]) -> Vec<i64> {
        let bound = |b: &Option<Bound>| b.as_ref().and_then(|b| b.id);
        adapter_ids
            .iter()
            .filter_map(|a| {
                let source = self.files.values().flatten().find(|e| bound(&e.bound) == Some(*a)).map(|e| e.id);
                source.or_else(|| self.listed_bounds().find(|(_, b)| bound(b) == Some(*a)).map(|(id, _)| id))
            })
            .collect()
    }

    /// The same breakpoints as requested, with nothing known about them yet (for a child session
    /// or a relaunch, whose adapter answers afresh).
    pub fn requested_only(&self) -> BreakpointStore {
        // The same ids: the agent's breakpoints keep them across a relaunch.
        let files = self
            .files
            .iter()
            .map(|(p, set)| {
                (p.clone(), set.iter().map(|e| Entry { bound: None, hits: Hits::default(), ..e.clone() }).collect())
            })
            .collect();
        let functions =
            self.functions.iter().map(|e| FunctionEntry { bound: None, hits: Hits::default(), ..e.clone() }).collect();
        // Data and instruction breakpoints name places in one process's memory: another
        // process (a child session) does not get them; a relaunch keeps some (`for_relaunch`).
        BreakpointStore {
            files,
            functions,
            data: Vec::new(),
            instructions: Vec::new(),
            last_id: self.last_id,
            changes: 0,
            // The mirror closes at a relaunch (`Sessions::restart`), and with it the person's
            // breakpoints: an IDE that attaches to the new run sends its own again.
            people: People::default(),
            one_per_line: self.one_per_line,
        }
    }

    /// Takes over `other`'s files (each replacing this store's set of that file) and, when it has
    /// any, its function breakpoints.
    pub fn take_over(&mut self, other: BreakpointStore) {
        for (path, set) in other.files {
            self.apply(&path, Mode::Replace, set.into_iter().map(|e| e.requested).collect());
        }
        if !other.functions.is_empty() {
            self.set_functions(other.functions.into_iter().map(|e| e.requested).collect());
        }
    }

    /// True when no file has a breakpoint and there is no function, data or instruction
    /// breakpoint.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
            && self.data.is_empty()
            && self.instructions.is_empty()
            && self.files.values().all(Vec::is_empty)
    }

    /// Replaces the function breakpoints (DAP `setFunctionBreakpoints` replaces them all). An
    /// entry asked for again unchanged keeps what is known about it.
    pub fn set_functions(&mut self, list: Vec<FunctionBreakpoint>) {
        let old = std::mem::take(&mut self.functions);
        let mut last_id = self.last_id;
        self.functions = list
            .into_iter()
            .map(|requested| match old.iter().find(|e| e.requested == requested) {
                Some(e) => e.clone(),
                None => {
                    last_id += 1;
                    FunctionEntry { id: last_id, requested, bound: None, hits: Hits::default() }
                }
            })
            .collect();
        self.last_id = last_id;
    }

    pub fn functions(&self) -> &[FunctionEntry] {
        &self.functions
    }

    /// The arguments of DAP `setFunctionBreakpoints`: every function breakpoint, then `extra`
    /// (agentdap's temporary entry breakpoint) when given.
    pub fn function_request(&self, extra: Option<&str>) -> SetFunctionBreakpointsArguments {
        let mut breakpoints: Vec<requests::FunctionBreakpoint> =
            self.functions.iter().map(|e| (&e.requested).into()).collect();
        if let Some(name) = extra {
            breakpoints.push(requests::FunctionBreakpoint { name: name.to_owned(), ..Default::default() });
        }
        SetFunctionBreakpointsArguments { breakpoints }
    }

    /// [`BreakpointStore::function_request`] as a JSON value, for a caller that still sends
    /// `setFunctionBreakpoints` by name.
    pub fn function_arguments(&self, extra: Option<&str>) -> Value {
        // Serialising strings and optional strings cannot fail.
        serde_json::to_value(self.function_request(extra)).unwrap_or_default()
    }

    /// Records a `setFunctionBreakpoints` answer for `sent` (what the request held, in order);
    /// ignored when the set changed meanwhile (a newer request's answer follows).
    pub fn on_functions_response(&mut self, sent: &[FunctionBreakpoint], result: Result<&Value, &str>) {
        // The answer's shape is `setBreakpoints`'s; a body that is not an object reads as
        // empty, as `body.get("breakpoints")` did.
        let body = result.map(|b| SetBreakpoints::parse(Some(b)).unwrap_or_default());
        self.on_functions_answer(sent, body.as_ref().map_err(|m| *m));
    }

    /// [`BreakpointStore::on_functions_response`] with the body already read.
    pub fn on_functions_answer(&mut self, sent: &[FunctionBreakpoint], result: Result<&SetBreakpointsResponse, &str>) {
        let same =
            sent.len() == self.functions.len() && sent.iter().zip(&self.functions).all(|(s, e)| *s == e.requested);
        if !same {
            return;
        }
        let answers = match result {
            Ok(body) => body.breakpoints.as_slice(),
            Err(_) => &[][..],
        };
        for (i, e) in self.functions.iter_mut().enumerate() {
            e.bound = Some(match (answers.get(i), result) {
                (Some(a), _) => bound_from(a),
                (None, Err(message)) => Bound { message: Some(message.to_owned()), ..Bound::default() },
                (None, Ok(_)) => {
                    Bound { message: Some("the adapter did not answer for this breakpoint".into()), ..Bound::default() }
                }
            });
        }
    }

    /// Function breakpoints that were answered but never verified.
    pub fn functions_never_verified(&self) -> Vec<&FunctionEntry> {
        self.functions.iter().filter(|e| !e.bound.as_ref().is_some_and(|b| b.verified)).collect()
    }

    /// The file's current set.
    pub fn get(&self, path: &str) -> &[Entry] {
        self.files.get(path).map_or(&[], Vec::as_slice)
    }

    /// Every file with its set (empty sets included: they still have to be cleared in the adapter).
    pub fn files(&self) -> impl Iterator<Item = (&str, &[Entry])> {
        self.files.iter().map(|(p, v)| (p.as_str(), v.as_slice()))
    }

    /// Every breakpoint as one short item: `path:line` (the full path) and `name()`.
    pub fn listing(&self) -> Vec<String> {
        let lines = self.files().flat_map(|(p, set)| set.iter().map(move |e| format!("{p}:{}", e.requested.line)));
        lines.chain(self.functions().iter().map(|e| format!("{}()", e.requested.name))).collect()
    }

    /// The arguments of the DAP `setBreakpoints` request for `path`: the union of the agent's set
    /// and the people's ([`BreakpointStore::union`]), the agent's first.
    pub fn set_breakpoints_arguments(&self, path: &str) -> SetBreakpointsArguments {
        let breakpoints = self.union(path).iter().map(Into::into).collect();
        SetBreakpointsArguments { source: requests::Source::path(path), breakpoints }
    }

    /// Records the adapter's `setBreakpoints` response body for `path` (same order as requested:
    /// the union, the agent's entries first, then the people's share of it). A failed request
    /// marks every entry unverified with `message`.
    pub fn on_response(&mut self, path: &str, result: Result<&Value, &str>) {
        // A body that is not an object reads as empty, as `body.get("breakpoints")` did.
        let body = result.map(|b| SetBreakpoints::parse(Some(b)).unwrap_or_default());
        self.on_answer(path, body.as_ref().map_err(|m| *m));
    }

    /// Sets what the adapter holds of `path`'s breakpoint at `index` (`run_to`'s temporary
    /// breakpoint standing in for it: nothing, `id: None`).
    pub fn set_bound(&mut self, path: &str, index: usize, bound: Option<Bound>) {
        if let Some(e) = self.files.get_mut(path).and_then(|set| set.get_mut(index)) {
            self.changes += 1;
            e.bound = bound;
        }
    }

    /// [`BreakpointStore::on_response`] with the body already read.
    pub fn on_answer(&mut self, path: &str, result: Result<&SetBreakpointsResponse, &str>) {
        self.changes += 1;
        self.people_answer(path, result);
        let Some(set) = self.files.get_mut(path) else { return };
        match result {
            Ok(body) => {
                let answers = body.breakpoints.as_slice();
                let ids: Vec<Option<i64>> = answers.iter().map(|b| b.id).collect();
                for (i, e) in set.iter_mut().enumerate() {
                    e.bound = Some(answers.get(i).map(bound_from).unwrap_or(Bound {
                        message: Some("the adapter did not answer for this breakpoint".into()),
                        ..Bound::default()
                    }));
                    if let Some(b) = e.bound.as_mut() {
                        b.id = distinct_id(&ids, i);
                    }
                }
            }
            Err(message) => {
                for e in set.iter_mut() {
                    e.bound = Some(Bound { message: Some(message.to_owned()), ..Bound::default() });
                }
            }
        }
    }

    /// Applies a DAP `breakpoint` event (`reason` changed/new/removed) to the entry with its id.
    pub fn on_event(&mut self, body: &Value) {
        self.changes += 1;
        // DAP § Events › Breakpoint: `breakpoint` is a `Breakpoint`, read field by field (not an
        // object: nothing known, so no id and nothing to update).
        let bp = requests::Breakpoint::deserialize(&body["breakpoint"]).unwrap_or_default();
        let Some(id) = bp.id else { return };
        for b in self.bounds_mut().flatten() {
            if b.id == Some(id) {
                let new = bound_from(&bp);
                b.verified = new.verified;
                if new.line.is_some() {
                    b.line = new.line;
                }
                if new.message.is_some() || new.verified {
                    b.message = new.message;
                }
            }
        }
    }

    /// Marks the entries whose adapter ids a `stopped` event listed in `hitBreakpointIds`, for
    /// a stop whose reason names no kind ([`BreakpointStore::on_stop`]).
    pub fn on_hit(&mut self, ids: &[i64], at: LastHit) {
        self.on_stop(ids, "breakpoint", at);
    }

    /// The breakpoints a child session verified (or hit), as `(path, requested)`.
    pub fn verified_requests(&self) -> Vec<(String, SourceBreakpoint)> {
        let files = self.files.iter().flat_map(|(p, v)| v.iter().map(move |e| (p, e)));
        files.filter(|(_, e)| e.proven()).map(|(p, e)| (p.clone(), e.requested.clone())).collect()
    }

    /// A number that changes whenever a set, or what the adapter said of it, does: what a reader
    /// compares instead of the sets.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Marks verified the entries a child session verified (`verified_requests`): a breakpoint
    /// that bound in the process that runs the code is not "never verified" (js-debug's parent of
    /// a worker or fork answers `provisional` for code it does not run).
    pub fn learn_verified(&mut self, proven: &[(String, SourceBreakpoint)]) {
        self.changes += 1;
        for (path, requested) in proven {
            for e in self.files.get_mut(path).into_iter().flatten().filter(|e| e.requested == *requested) {
                let b = e.bound.get_or_insert_with(Bound::default);
                if !b.verified {
                    b.verified = true;
                    b.message = None;
                }
            }
        }
    }

    /// Entries that were answered but never verified: what to warn about when a run ends.
    pub fn never_verified(&self) -> Vec<(&str, &Entry)> {
        self.files
            .iter()
            .flat_map(|(p, v)| v.iter().map(move |e| (p.as_str(), e)))
            .filter(|(_, e)| !e.bound.as_ref().is_some_and(|b| b.verified))
            .collect()
    }
}

/// The id the adapter gave the `index`th breakpoint of one `setBreakpoints` answer, unless it gave
/// the same id to another of them (js-debug 1.112.0 answers `[{id: 1, line: 20}, {id: 1, line:
/// 23}]` once a file has a second breakpoint): an id naming two breakpoints tells them apart in no
/// `breakpoint` event and no stop, so it is not used (`ids_shared_by_two_breakpoints_are_not_used`).
pub fn distinct_id(ids: &[Option<i64>], index: usize) -> Option<i64> {
    let id = (*ids.get(index)?)?;
    (ids.iter().filter(|other| **other == Some(id)).count() == 1).then_some(id)
}

/// The adapter's ids in one `setBreakpoints` answer, in order (for [`distinct_id`]).
pub fn answer_ids(body: &Value) -> Vec<Option<i64>> {
    SetBreakpoints::parse(Some(body)).unwrap_or_default().breakpoints.iter().map(|b| b.id).collect()
}

fn bound_from(bp: &requests::Breakpoint) -> Bound {
    let message = bp.message.as_deref().map(|m| crate::dap::adapters::readable_message(m).into_owned());
    let file = bp.source.as_ref().and_then(|s| s.path.typed().or(s.name.typed()).cloned());
    let at = match (file, bp.line) {
        (Some(f), Some(l)) => Some(format!("{}:{l}", f.rsplit('/').next().unwrap_or(&f))),
        _ => None,
    };
    Bound { id: bp.id, verified: bp.verified, line: bp.line, message, at }
}

/// `verified`, `NOT verified (why)` or `no answer yet`, with ` · hit` once it stopped there.
pub fn state_text(e: &FunctionEntry) -> String {
    let mut s = match &e.bound {
        None => "no answer yet".to_owned(),
        Some(b) if b.verified => "verified".to_owned(),
        Some(b) => format!("NOT verified ({})", b.why_not()),
    };
    // "never hit" is the listing's word (`breakpoints`), not a set result's.
    s.push_str(&e.hits.text(false));
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
                if let Some(c) = &e.requested.condition {
                    m.insert("condition".into(), c.clone().into());
                }
                if let Some(h) = &e.requested.hit_condition {
                    m.insert("hit_condition".into(), h.clone().into());
                }
                if let Some(b) = &e.bound {
                    m.insert("verified".into(), b.verified.into());
                    if let Some(message) = &b.message {
                        m.insert("message".into(), message.clone().into());
                    }
                }
                e.hits.put_json(&mut m);
                Value::Object(m)
            })
            .collect(),
    )
}

/// A session's breakpoints: the agent's sets, its exception filters, the spellings the adapter
/// accepts, and the temporary entry breakpoint.
#[derive(Default)]
pub struct Breaks {
    pub(crate) store: BreakpointStore,
    pub(crate) exception_filters: Option<Vec<String>>,
    /// Exception filters turned on with a condition (filter id → condition), sent as
    /// `filterOptions` (DAP § Types › ExceptionFilterOptions); not in `exception_filters`.
    pub(crate) exception_conditions: BTreeMap<String, String>,
    /// Breakpoint files the adapter accepts only under another spelling (path as given →
    /// the spelling sent), learned by a retry.
    pub(crate) path_aliases: std::collections::HashMap<String, String>,
    /// The entry function breakpoint is set and not yet removed.
    pub(crate) entry_breakpoint: bool,
    /// Lines (with the condition first sent there) the adapter still stops at although the
    /// agent's set no longer has them as sent, per file: an adapter whose `setBreakpoints` only
    /// adds (`Quirks::breakpoints_only_added`) keeps every line it was given.
    pub(crate) kept_by_adapter: std::collections::HashMap<String, Vec<(u32, Option<String>)>>,
    /// What the last restart dropped (data breakpoints that do not persist, instruction
    /// breakpoints), each as the warning named it, until the agent sets that kind again.
    pub(crate) dropped_at_restart: Vec<String>,
    /// Lines (with their condition) sent to such an adapter, per file.
    pub(crate) sent_to_adapter: std::collections::HashMap<String, Vec<(u32, Option<String>)>>,
    /// Each mirror client's exception filters (`session/mirror_breakpoints.rs`): the adapter is
    /// sent them with the agent's.
    pub(crate) person_filters: Vec<PersonFilters>,
    /// Per file, what the agent's last `set_breakpoints {mode: replace}` removed from its set,
    /// said in that call's result (a fresh user lost a launch's breakpoint unawares).
    pub(crate) replaced: std::collections::HashMap<String, Vec<Removed>>,
}

/// A breakpoint a `replace` took out of its file's set: its line and how often it was hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Removed {
    pub line: u32,
    pub hits: u32,
}

impl BreakpointStore {
    /// Applies `mode` with `list` as [`BreakpointStore::apply`] does, and returns what a
    /// `replace` removed from the set (nothing for `add` and `remove`, which say what they do).
    pub fn apply_telling(&mut self, path: &str, mode: Mode, list: Vec<SourceBreakpoint>) -> Vec<Removed> {
        let before: Vec<Removed> =
            self.get(path).iter().map(|e| Removed { line: e.requested.line, hits: e.hits.count }).collect();
        self.apply(path, mode, list);
        if mode != Mode::Replace {
            return Vec::new();
        }
        let after: Vec<u32> = self.get(path).iter().map(|e| e.requested.line).collect();
        before.into_iter().filter(|r| !after.contains(&r.line)).collect()
    }
}

/// The line a result adds for what a `replace` removed, e.g. `replaced the file's set: removed
/// line 20 (hit 1×), line 31; `mode: "add"` keeps a file's other breakpoints`.
pub fn removed_text(removed: &[Removed]) -> Option<String> {
    if removed.is_empty() {
        return None;
    }
    let lines: Vec<String> = removed
        .iter()
        .map(|r| match r.hits {
            0 => format!("line {}", r.line),
            n => format!("line {} (hit {n}×)", r.line),
        })
        .collect();
    Some(format!(
        "replaced the file's set: removed {}; `mode: \"add\"` keeps a file's other breakpoints",
        lines.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const AT: LastHit = LastHit { revision: 2, thread: Some(1) };

    fn bp(line: u32) -> SourceBreakpoint {
        SourceBreakpoint { line, column: None, condition: None, hit_condition: None, log_message: None }
    }

    fn lines(store: &BreakpointStore, path: &str) -> Vec<u32> {
        store.get(path).iter().map(|e| e.requested.line).collect()
    }

    #[test]
    fn add_merges_and_remove_drops_by_line() {
        let mut s = BreakpointStore::default();
        s.apply("a.py", Mode::Replace, vec![bp(5), bp(2)]);
        s.apply("a.py", Mode::Add, vec![bp(9), bp(2)]);
        assert_eq!(lines(&s, "a.py"), [2, 5, 9]);
        s.apply("a.py", Mode::Remove, vec![bp(5)]);
        assert_eq!(lines(&s, "a.py"), [2, 9]);
        s.apply("a.py", Mode::Replace, vec![]);
        assert_eq!(lines(&s, "a.py"), Vec::<u32>::new());
        assert_eq!(s.files().count(), 1, "an emptied file is still sent, to clear it in the adapter");
    }

    #[test]
    fn arguments_use_dap_names() {
        let mut s = BreakpointStore::default();
        let mut b = bp(3);
        b.hit_condition = Some("2".into());
        b.log_message = Some("x={x}".into());
        s.apply("/p/a.py", Mode::Replace, vec![b]);
        assert_eq!(
            serde_json::to_value(s.set_breakpoints_arguments("/p/a.py")).unwrap(),
            json!({"source": {"path": "/p/a.py"}, "breakpoints": [{"line": 3, "hitCondition": "2", "logMessage": "x={x}"}]})
        );
    }

    #[test]
    fn a_breakpoint_a_child_bound_is_verified_for_its_parent() {
        let mut parent = BreakpointStore::default();
        parent.apply("/p/kid.js", Mode::Replace, vec![bp(2), bp(9)]);
        let provisional = json!({"breakpoints": [
            {"id": 1, "verified": false, "message": "breakpoint.provisionalBreakpoint"}, {"id": 2, "verified": false}]});
        parent.on_response("/p/kid.js", Ok(&provisional));
        let mut child = parent.requested_only();
        child.on_response(
            "/p/kid.js",
            Ok(&json!({"breakpoints": [{"id": 5, "verified": true, "line": 2}, {"id": 6, "verified": false}]})),
        );
        parent.learn_verified(&child.verified_requests());
        let never: Vec<u32> = parent.never_verified().iter().map(|(_, e)| e.requested.line).collect();
        assert_eq!(never, [9], "line 2 bound in the child");
    }

    #[test]
    fn ids_shared_by_two_breakpoints_are_not_used() {
        // js-debug 1.112.0, a file's second breakpoint: both answered with id 1, then a
        // `breakpoint` event for id 1 at the second's line.
        let mut store = BreakpointStore::default();
        store.apply("/p/closure.js", Mode::Replace, vec![bp(20), bp(23)]);
        let body = json!({"breakpoints": [
            {"id": 1, "verified": true, "line": 20}, {"id": 1, "verified": true, "line": 23}]});
        store.on_response("/p/closure.js", Ok(&body));
        store.on_event(&json!({"reason": "changed", "breakpoint": {"id": 1, "verified": true, "line": 23}}));
        let lines: Vec<Option<u32>> =
            store.get("/p/closure.js").iter().map(|e| e.bound.as_ref().and_then(|b| b.line)).collect();
        assert_eq!(lines, [Some(20), Some(23)], "the event moved neither");
        assert!(store.stable_ids(&[1]).is_empty(), "a stop naming id 1 names no breakpoint");
        assert_eq!(distinct_id(&[Some(1), Some(2)], 1), Some(2));
        assert_eq!(distinct_id(&[Some(1), Some(1)], 1), None);
        assert_eq!(distinct_id(&[None], 0), None);
    }

    #[test]
    fn response_marks_moved_and_unverified_then_events_update() {
        let mut s = BreakpointStore::default();
        s.apply("a.py", Mode::Replace, vec![bp(4), bp(100)]);
        let body = json!({"breakpoints": [
            {"id": 1, "verified": true, "line": 5},
            {"id": 2, "verified": false, "message": "Line 100 is past the end"}
        ]});
        s.on_response("a.py", Ok(&body));
        let set = s.get("a.py");
        assert!(set[0].moved());
        assert!(!set[1].moved());
        assert_eq!(s.never_verified().len(), 1);
        s.on_event(&json!({"reason": "changed", "breakpoint": {"id": 2, "verified": true, "line": 99}}));
        assert!(s.never_verified().is_empty());
        s.on_hit(&[1], AT);
        assert!(s.get("a.py")[0].hits.any());
        // A hit proves a breakpoint the adapter still called unverified.
        let body =
            json!({"breakpoints": [{"id": 7, "verified": false, "message": "breakpoint.provisionalBreakpoint"}]});
        s.apply("b.js", Mode::Replace, vec![bp(3)]);
        s.on_response("b.js", Ok(&body));
        assert_eq!(s.never_verified().len(), 1);
        s.on_hit(&[7], AT);
        assert!(s.never_verified().is_empty() && s.get("b.js")[0].hits.any());
    }

    fn func(name: &str) -> FunctionBreakpoint {
        FunctionBreakpoint { name: name.into(), condition: None, hit_condition: None }
    }

    #[test]
    fn function_breakpoints_keep_what_is_known_and_ignore_an_answer_to_an_older_list() {
        let mut s = BreakpointStore::default();
        s.set_functions(vec![func("a"), func("b")]);
        let sent = vec![func("a"), func("b")];
        s.on_functions_response(&sent, Ok(&json!({"breakpoints": [{"id": 4, "verified": true}, {"verified": false}]})));
        s.on_hit(&[4], AT);
        assert_eq!(s.functions_never_verified().len(), 1);
        s.set_functions(vec![func("a"), func("c")]);
        assert!(s.functions()[0].hits.any() && s.functions()[1].bound.is_none(), "a unchanged keeps its state");
        // The answer to the older list [a, b] arrives late: ignored.
        s.on_functions_response(&sent, Ok(&json!({"breakpoints": [{"verified": false}, {"verified": true}]})));
        assert!(s.functions()[0].bound.as_ref().is_some_and(|b| b.verified));
        assert_eq!(
            s.function_arguments(Some("main")),
            json!({"breakpoints": [{"name": "a"}, {"name": "c"}, {"name": "main"}]})
        );
        let copy = s.requested_only();
        assert!(!copy.is_empty() && copy.functions().iter().all(|e| e.bound.is_none() && !e.hits.any()));
    }

    #[test]
    fn a_failed_request_leaves_every_entry_unverified_with_the_reason() {
        let mut s = BreakpointStore::default();
        s.apply("gone.py", Mode::Replace, vec![bp(1)]);
        s.on_response("gone.py", Err("file not found"));
        let b = s.get("gone.py")[0].bound.clone().unwrap_or_default();
        assert_eq!((b.verified, b.message.as_deref()), (false, Some("file not found")));
    }
}
