//! The values a stopped session shows: one variable as a result shows it (name, value cut to
//! size, preview, `ref` handle, memory reference), the children cached for this revision (agentdap pages them
//! itself), and the frame each variables reference came from. Shared by the inspection, edit and
//! mirror tools; must not send requests (the tools do).

use serde_json::{Map, Value};

use super::handles::Kind;
use super::preview;
use super::snapshot::put;
use super::text::{clip, value_text};
use super::Session;

/// Most characters of one value shown in text (the structured value is cut the same way).
pub const VALUE_CHARS: usize = 300;
/// Most characters of a tool result's text; past it the page ends early.
pub const RESULT_CHARS: usize = 19_000;
/// Most variables references whose frame is remembered (`Session::var_frames`).
pub const MAX_VAR_FRAMES: usize = 4096;

impl Session {
    /// One variable for a result: name, value (cut to [`VALUE_CHARS`]), type, and a `ref` handle
    /// when it has children.
    pub(in crate::session) fn variable_json(&mut self, v: &Value) -> Value {
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
        // DAP § Types › Variable `memoryReference`: where `memory` can read it (`mem 0x…`).
        let memory = v.get("memoryReference").and_then(Value::as_str).filter(|r| !r.is_empty());
        put(&mut m, "memoryReference", memory.map(Value::from));
        Value::Object(m)
    }

    /// The name a child is shown under (and that `set_variable` takes): the adapter's, or for
    /// an unnamed one its `evaluateName` without outer parentheses
    /// (`Quirks::unnamed_child_from_evaluate_name`).
    pub(in crate::session) fn shown_name<'a>(&self, v: &'a Value) -> Option<std::borrow::Cow<'a, str>> {
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

    /// Children cached for this revision (a `variables` page or a preview fetched them).
    pub(in crate::session) fn cached_children(&self, reference: i64) -> Option<std::rc::Rc<Vec<Value>>> {
        let page = self.view.var_cache.get(&reference).map(|(_, c)| c);
        page.or_else(|| self.view.preview_cache.get(&reference)).map(std::rc::Rc::clone)
    }

    /// Drops every cached container (the program ran, or a value changed).
    pub(in crate::session) fn clear_var_caches(&mut self) {
        self.view.var_cache.clear();
        self.view.preview_cache.clear();
    }

    /// A value of the program changed at this stop (a set, a call): agentdap's pages are
    /// dropped, and where the adapter's references hold the old values
    /// (`Quirks::variables_are_snapshots`, Delve) the agent's refs from before are refused from
    /// now on rather than answered with those values.
    pub(in crate::session) fn values_changed(&mut self) {
        self.clear_var_caches();
        if self.link.plan.quirks.variables_are_snapshots {
            self.view.handles.invalidated(&["variables"]);
        }
    }

    /// Remembers `frame` as the frame of every variables reference in `references` (of scopes,
    /// variables or an evaluation's result; 0 and below are none), up to [`MAX_VAR_FRAMES`].
    pub(in crate::session) fn note_frame_of(&mut self, references: impl IntoIterator<Item = i64>, frame: i64) {
        let epoch = self.view.handles.epoch(Kind::Variables);
        if self.view.var_frames.len() >= MAX_VAR_FRAMES {
            self.view.var_frames.retain(|_, (e, _)| *e == epoch);
        }
        for reference in references {
            if reference > 0 && self.view.var_frames.len() < MAX_VAR_FRAMES {
                self.view.var_frames.insert(reference, (epoch, frame));
            }
        }
    }

    /// Children's references come from their container's frame.
    pub(in crate::session) fn note_children_frame(&mut self, container: i64, children: &[Value]) {
        if let Some(frame) = self.frame_of(container) {
            let references = children.iter().map(|c| c.get("variablesReference").and_then(Value::as_i64).unwrap_or(0));
            self.note_frame_of(references, frame);
        }
    }

    /// The frame a variables reference came from, when agentdap saw it made since the
    /// program last ran (or the adapter's references were last invalidated).
    pub(in crate::session) fn frame_of(&self, reference: i64) -> Option<i64> {
        let epoch = self.view.handles.epoch(Kind::Variables);
        self.view.var_frames.get(&reference).filter(|(e, _)| *e == epoch).map(|&(_, f)| f)
    }

    /// References among `vars` that want a preview and are not cached yet (at most
    /// [`preview::PREVIEW_CONTAINERS`]).
    pub(in crate::session) fn missing_previews<'a>(&self, vars: impl Iterator<Item = &'a Value>) -> Vec<i64> {
        let mut refs: Vec<i64> = vars
            .filter_map(preview::wants_preview)
            .filter(|r| !self.view.var_cache.contains_key(r) && !self.view.preview_cache.contains_key(r))
            .take(preview::PREVIEW_CONTAINERS)
            .collect();
        refs.dedup();
        refs
    }
}

/// `x = 3 (int)` or `items = [1, 2] (list) [ref 1012]`
pub(in crate::session) fn variable_line(v: &Value) -> String {
    let raw = v.get("preview").or_else(|| v.get("value")).and_then(Value::as_str).unwrap_or("");
    // A value of several lines (js-debug shows a function as its source) is its first line in a
    // listing; `evaluate` and `structuredContent` have all of it.
    let value = match super::text::first_line(raw) {
        (first, true) => format!("{}…", value_text(first)),
        (whole, false) => value_text(whole).to_string(),
    };
    let mut s = format!("{} = {}", v.get("name").and_then(Value::as_str).unwrap_or("?"), value);
    if let Some(t) = v.get("type").and_then(Value::as_str) {
        s.push_str(&format!(" ({t})"));
    }
    if let Some(r) = v.get("ref") {
        s.push_str(&format!(" [ref {r}]"));
    }
    if let Some(m) = v.get("memoryReference").and_then(Value::as_str) {
        s.push_str(&format!(" mem {m}"));
    }
    s
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

/// The `variables` list of an answer, taken out of it (an answer read once needs no copy);
/// empty when there is none.
pub(super) fn take_variables(body: &mut Value) -> Vec<Value> {
    body.get_mut("variables").and_then(Value::as_array_mut).map(std::mem::take).unwrap_or_default()
}
