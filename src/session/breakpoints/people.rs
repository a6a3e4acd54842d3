//! The person's source breakpoints (issue 22): what each attached IDE (a mirror client, by its
//! [`ClientRef`]) asked for per file, beside the agent's sets. DAP's `setBreakpoints` replaces
//! every breakpoint of one source (DAP § Requests › SetBreakpoints), so the adapter is always sent
//! the **union** of a file's sets ([`BreakpointStore::union`]): the agent's entries first, in their
//! order, then each person's entry that is not identical (line, column, condition, hit condition,
//! log message) to one before it. One answer is split back by position to every entry that took
//! part in it, so an identical line is sent once and belongs to both.
//!
//! A person's entry has an agentdap id like the agent's (from the same counter, so no id names two
//! breakpoints): the IDE is told those, never the adapter's, which debugpy and lldb-dap renumber on
//! every `setBreakpoints` of the file. Must not: send anything, or know about mirror notes.

use serde_json::{json, Map, Value};

use super::{bound_from, distinct_id, Bound, BreakpointStore, Entry, Hits, LastHit, SourceBreakpoint};
use crate::dap::requests::{self, SetBreakpointsResponse};

/// Every person's sets: per path, each client's entries in the order its IDE asked for them.
#[derive(Clone, Debug, Default)]
pub struct People {
    pub(super) files: std::collections::BTreeMap<String, Vec<(ClientRef, Vec<Entry>)>>,
}

impl People {
    /// The people's entries' bounds, for a `breakpoint` event (`BreakpointStore::bounds_mut`).
    pub(super) fn bounds_mut(&mut self) -> impl Iterator<Item = &mut Option<Bound>> {
        self.files.values_mut().flatten().flat_map(|(_, v)| v.iter_mut()).map(|e| &mut e.bound)
    }

    /// Every person's entry starts its counts again (`BreakpointStore::new_run`).
    pub(super) fn new_run(&mut self) {
        for e in self.files.values_mut().flatten().flat_map(|(_, v)| v.iter_mut()) {
            e.hits = Hits::default();
        }
    }
}

/// A mirror client as the store knows it: `session::mirror::ClientRef`'s slab key and serial
/// (kept apart so this module needs nothing of the mirror).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientRef {
    pub key: usize,
    pub serial: u64,
}

/// One client's exception filters as its IDE set them (DAP § Requests › SetExceptionBreakpoints).
#[derive(Clone, Debug)]
pub struct PersonFilters {
    pub client: ClientRef,
    pub filters: Vec<String>,
    pub options: Vec<requests::ExceptionFilterOptions>,
}

impl BreakpointStore {
    /// Replaces `client`'s set of `path` with `list` (the IDE's whole list for the file). An
    /// entry asked for again unchanged keeps its id, what the adapter said and its hits.
    pub fn set_person(&mut self, client: ClientRef, path: &str, list: Vec<SourceBreakpoint>) {
        self.changes += 1;
        let sets = self.people.files.entry(path.to_owned()).or_default();
        let old = sets.iter().position(|(c, _)| *c == client).map(|i| sets.remove(i).1).unwrap_or_default();
        let mut last_id = self.last_id;
        let new: Vec<Entry> = list
            .into_iter()
            .map(|requested| match old.iter().find(|e| e.requested == requested) {
                Some(e) => e.clone(),
                None => {
                    last_id += 1;
                    Entry { id: last_id, requested, bound: None, hits: Hits::default() }
                }
            })
            .collect();
        self.last_id = last_id;
        sets.push((client, new));
    }

    /// `client`'s set of `path`.
    pub fn person(&self, client: ClientRef, path: &str) -> &[Entry] {
        let sets = self.people.files.get(path);
        sets.and_then(|s| s.iter().find(|(c, _)| *c == client)).map_or(&[], |(_, v)| v.as_slice())
    }

    /// Every person's entries in `path`, client by client.
    pub fn people_in(&self, path: &str) -> impl Iterator<Item = &Entry> {
        self.people.files.get(path).into_iter().flatten().flat_map(|(_, v)| v.iter())
    }

    /// Every path a person has breakpoints in, with its entries that are not identical to one of
    /// the agent's (those are listed once, as the agent's, owned by both).
    pub fn people_only(&self) -> Vec<(&str, Vec<&Entry>)> {
        let mut out = Vec::new();
        for path in self.people.files.keys() {
            let agent: Vec<&SourceBreakpoint> = self.get(path).iter().map(|e| &e.requested).collect();
            let mut own: Vec<&Entry> = Vec::new();
            for e in self.people_in(path) {
                if !agent.contains(&&e.requested) && !own.iter().any(|o| o.requested == e.requested) {
                    own.push(e);
                }
            }
            if !own.is_empty() {
                out.push((path.as_str(), own));
            }
        }
        out
    }

    /// Whether a person's set of `path` holds a breakpoint identical to `requested`.
    pub fn person_shares(&self, path: &str, requested: &SourceBreakpoint) -> bool {
        self.people_in(path).any(|e| e.requested == *requested)
    }

    /// How many distinct breakpoints the people have in `path` that the agent has not.
    pub fn people_kept(&self, path: &str) -> usize {
        self.people_only().into_iter().find(|(p, _)| *p == path).map_or(0, |(_, v)| v.len())
    }

    /// What the adapter is sent for `path`: the agent's set, then each person's breakpoint not
    /// identical to one before it, and, for an adapter that keeps one breakpoint per line, on a
    /// line none before it holds (the agent's stands there: a person's conditional breakpoint
    /// sent after it took its place at debugpy, and the agent's never stopped again).
    pub fn union(&self, path: &str) -> Vec<SourceBreakpoint> {
        let mut out: Vec<SourceBreakpoint> = self.get(path).iter().map(|e| e.requested.clone()).collect();
        for e in self.people_in(path) {
            let line_taken = self.one_per_line && out.iter().any(|o| o.line == e.requested.line);
            if !out.contains(&e.requested) && !line_taken {
                out.push(e.requested.clone());
            }
        }
        out
    }

    /// Every path the adapter must hold breakpoints of: the agent's files and the people's.
    pub fn union_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.files().map(|(p, _)| p.to_owned()).collect();
        for p in self.people.files.keys() {
            if !paths.contains(p) {
                paths.push(p.clone());
            }
        }
        paths
    }

    /// The people's share of an answer to the union of `path` (see [`BreakpointStore::on_answer`]):
    /// each entry takes the answer at its place in the union.
    pub(super) fn people_answer(&mut self, path: &str, result: Result<&SetBreakpointsResponse, &str>) {
        let union = self.union(path);
        let Some(sets) = self.people.files.get_mut(path) else { return };
        for e in sets.iter_mut().flat_map(|(_, v)| v.iter_mut()) {
            e.bound = Some(match result {
                Ok(body) => {
                    let ids: Vec<Option<i64>> = body.breakpoints.iter().map(|b| b.id).collect();
                    let at = union.iter().position(|u| *u == e.requested);
                    match at.and_then(|i| body.breakpoints.get(i).map(|b| (i, b))) {
                        Some((i, b)) => Bound { id: distinct_id(&ids, i), ..bound_from(b) },
                        None if self.one_per_line => Bound {
                            message: Some(format!(
                                "not set: the adapter keeps one breakpoint per line, and the agent's holds line {}",
                                e.requested.line
                            )),
                            ..Bound::default()
                        },
                        None => Bound {
                            message: Some("the adapter did not answer for this breakpoint".into()),
                            ..Bound::default()
                        },
                    }
                }
                Err(message) => Bound { message: Some(message.to_owned()), ..Bound::default() },
            });
        }
    }

    /// Every client with a breakpoint in some file.
    pub fn people_clients(&self) -> Vec<ClientRef> {
        self.people.files.values().flatten().map(|(c, _)| *c).collect()
    }

    /// Drops every breakpoint of `client`; returns the paths it had a set in (each must be sent
    /// again with what remains).
    pub fn forget_person(&mut self, client: ClientRef) -> Vec<String> {
        self.changes += 1;
        let mut touched = Vec::new();
        for (path, sets) in self.people.files.iter_mut() {
            let before = sets.len();
            sets.retain(|(c, _)| *c != client);
            if sets.len() != before {
                touched.push(path.clone());
            }
        }
        self.people.files.retain(|_, sets| !sets.is_empty());
        touched
    }

    /// Credits a stop to the people's entries the adapter's `hitBreakpointIds` name (a stop whose
    /// reason names a function, data or instruction breakpoint names none of them). Returns
    /// whether any was.
    pub fn on_person_stop(&mut self, adapter_ids: &[i64], reason: &str, at: LastHit) -> bool {
        if matches!(reason, "function breakpoint" | "data breakpoint" | "instruction breakpoint") {
            return false;
        }
        let mut any = false;
        for e in self.people.files.values_mut().flatten().flat_map(|(_, v)| v.iter_mut()) {
            let id = e.bound.as_ref().and_then(|b| b.id);
            if id.is_some_and(|id| adapter_ids.contains(&id)) {
                if let Some(b) = e.bound.as_mut() {
                    b.verified = true;
                    b.message = None;
                }
                e.hits.record(at);
                any = true;
            }
        }
        any
    }

    /// `client`'s ids for a stop's `hitBreakpointIds` (the adapter's), for its `stopped` event.
    pub fn person_hit_ids(&self, client: ClientRef, adapter_ids: &[i64]) -> Vec<i64> {
        let sets = self.people.files.values().flatten().filter(|(c, _)| *c == client);
        let mut ids: Vec<i64> = sets
            .flat_map(|(_, v)| v.iter())
            .filter(|e| e.bound.as_ref().and_then(|b| b.id).is_some_and(|id| adapter_ids.contains(&id)))
            .map(|e| e.id)
            .collect();
        ids.dedup();
        ids
    }

    /// A DAP `breakpoint` event (DAP § Events › Breakpoint) as each client with the breakpoint
    /// must see it: `breakpoint.id` is the client's id for it. Read after [`BreakpointStore::on_event`].
    pub fn person_events(&self, body: &Value) -> Vec<(ClientRef, Value)> {
        let Some(id) = body.get("breakpoint").and_then(|b| b.get("id")).and_then(Value::as_i64) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (client, set) in self.people.files.values().flatten() {
            for e in set.iter().filter(|e| e.bound.as_ref().and_then(|b| b.id) == Some(id)) {
                let mut b = body.clone();
                b["breakpoint"]["id"] = e.id.into();
                out.push((*client, b));
            }
        }
        out
    }

    /// The `setBreakpoints` response body for `client`'s request of `path` (DAP § Requests ›
    /// SetBreakpoints): one `Breakpoint` per breakpoint it asked for, in its order, with its ids.
    pub fn person_response_body(&self, client: ClientRef, path: &str) -> Value {
        let items: Vec<Value> = self.person(client, path).iter().map(|e| person_breakpoint(e, path)).collect();
        json!({ "breakpoints": items })
    }
}

/// One person's entry as a DAP `Breakpoint`: its id, and `verified`/`line`/`message` as the
/// adapter said (nothing said yet: not verified, with a message saying so).
fn person_breakpoint(e: &Entry, path: &str) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), e.id.into());
    let b =
        e.bound.clone().unwrap_or(Bound { message: Some("no answer from the adapter yet".into()), ..Bound::default() });
    m.insert("verified".into(), b.verified.into());
    if let Some(line) = b.line {
        m.insert("line".into(), line.into());
    }
    if let Some(msg) = b.message {
        m.insert("message".into(), msg.into());
    }
    // Serialising a path cannot fail.
    m.insert("source".into(), serde_json::to_value(requests::Source::path(path)).unwrap_or_default());
    Value::Object(m)
}
