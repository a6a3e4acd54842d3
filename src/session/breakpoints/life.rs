//! What happened to each breakpoint of one run: how many stops were credited to it, the last one
//! (revision and thread), and the short "never hit" line a result shows when the program ends.
//! Must not: decide which breakpoints a stop names (`BreakpointStore::on_stop` does, from
//! `hitBreakpointIds`) or send anything.

use serde_json::{Map, Value};

use super::BreakpointStore;

/// The stop a breakpoint was last credited with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastHit {
    /// The session's revision at that stop (the `revision` of its result).
    pub revision: u64,
    /// The thread that stopped, when the adapter said.
    pub thread: Option<i64>,
}

/// The stops credited to one breakpoint in this run. A relaunch (`restart`) starts a new run and
/// new counts: the store a relaunch starts with is built by `requested_only`, which keeps none
/// (`a_restart_resets_the_counts`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hits {
    pub count: u32,
    pub last: Option<LastHit>,
    /// How often the adapter said its condition failed to evaluate, and the revision of the last
    /// time (`RuntimeQuirks::condition_error_marks`).
    pub condition_errors: u32,
    pub condition_error_revision: Option<u64>,
}

impl Hits {
    /// At least one stop was credited to it.
    pub fn any(&self) -> bool {
        self.count > 0
    }

    /// Credits one stop.
    pub fn record(&mut self, at: LastHit) {
        self.count = self.count.saturating_add(1);
        self.last = Some(at);
    }

    /// ` · hit 3× (last rev 7, thread 1)`, or ` · never hit` when `verified` (a stop could have
    /// been credited to it), else nothing (its state already says why it cannot stop).
    pub fn text(&self, verified: bool) -> String {
        let hits = match self.last {
            Some(l) if self.any() => {
                let thread = l.thread.map(|t| format!(", thread {t}")).unwrap_or_default();
                format!(" · hit {}× (last rev {}{thread})", self.count, l.revision)
            }
            _ if verified => " · never hit".to_owned(),
            _ => String::new(),
        };
        format!("{hits}{}", self.condition_text())
    }

    /// ` · its condition failed to evaluate 2× (the adapter's words are in output)`, or nothing.
    pub fn condition_text(&self) -> String {
        match self.condition_errors {
            0 => String::new(),
            n => format!(" · its condition failed to evaluate {n}× (the adapter's words are in output)"),
        }
    }

    /// ` · never hit` for a verified breakpoint no stop was credited to, else nothing (for a
    /// state text that already ends with [`Hits::text`]`(false)`).
    pub fn never_text(&self, verified: bool) -> &'static str {
        if verified && !self.any() {
            " · never hit"
        } else {
            ""
        }
    }

    /// The adapter said the condition failed to evaluate (at revision `revision`).
    pub fn condition_failed(&mut self, revision: u64) {
        self.condition_errors = self.condition_errors.saturating_add(1);
        self.condition_error_revision = Some(revision);
    }

    /// `hit: true`, `hits` and `last_hit {revision, thread}` once hit, else nothing (the
    /// listing adds `hits: 0`: [`put_never_hit`]).
    pub fn put_json(&self, m: &mut Map<String, Value>) {
        if self.condition_errors > 0 {
            m.insert("condition_errors".into(), self.condition_errors.into());
        }
        if !self.any() {
            return;
        }
        m.insert("hit".into(), true.into());
        m.insert("hits".into(), self.count.into());
        if let Some(l) = self.last {
            let mut last = Map::new();
            last.insert("revision".into(), l.revision.into());
            if let Some(t) = l.thread {
                last.insert("thread".into(), t.into());
            }
            m.insert("last_hit".into(), Value::Object(last));
        }
    }
}

/// ` (its condition failed to evaluate)` after a name in the "never hit" line, or nothing.
fn failed(h: &Hits) -> &'static str {
    if h.condition_errors > 0 {
        " (its condition failed to evaluate)"
    } else {
        ""
    }
}

/// In the `breakpoints` listing's JSON, `hits: 0` on every item that could stop but never did:
/// verified, not a logpoint, and not hit.
pub fn put_never_hit(items: &mut Value) {
    let Value::Array(items) = items else { return };
    for item in items.iter_mut().filter_map(Value::as_object_mut) {
        let verified = item.get("verified").and_then(Value::as_bool) == Some(true);
        if verified && !item.contains_key("hits") && !item.contains_key("log_message") {
            item.insert("hits".into(), 0.into());
        }
    }
}

/// The condition an output line names as having failed to evaluate, when it starts with one of
/// `marks` (`RuntimeQuirks::condition_error_marks`).
pub fn failed_condition<'a>(line: &'a str, marks: &[(&str, bool)]) -> Option<&'a str> {
    let line = line.trim_end_matches(['\r', '\n']);
    marks.iter().find_map(|(mark, quoted)| {
        let rest = line.strip_prefix(mark)?;
        if !quoted {
            return Some(rest.trim());
        }
        let (first, last) = (rest.find('"')?, rest.rfind('"')?);
        (last > first).then(|| &rest[first + 1..last])
    })
}

impl BreakpointStore {
    /// Marks every breakpoint whose condition is `condition` as having failed to evaluate at
    /// `revision`. The adapters name the condition, not the breakpoint, so breakpoints sharing
    /// one condition text are all marked. Returns how many were.
    pub fn on_condition_error(&mut self, condition: &str, revision: u64) -> usize {
        self.changes += 1;
        let mut marked = 0;
        let same = |c: &Option<String>| c.as_deref().map(str::trim) == Some(condition.trim());
        let mut mark = |c: &Option<String>, h: &mut Hits| {
            if same(c) {
                h.condition_failed(revision);
                marked += 1;
            }
        };
        for e in self.files.values_mut().flatten() {
            mark(&e.requested.condition, &mut e.hits);
        }
        for e in &mut self.functions {
            mark(&e.requested.condition, &mut e.hits);
        }
        for e in &mut self.data {
            mark(&e.requested.condition, &mut e.hits);
        }
        for e in &mut self.instructions {
            mark(&e.requested.condition, &mut e.hits);
        }
        marked
    }

    /// Every verified breakpoint no stop was credited to, as a result names it: `app.py:12`,
    /// `main()`, data `` `x` ``, `instruction 0x1000`. Logpoints never stop, so they are not
    /// named; unverified ones are named as "never verified" instead.
    pub fn never_hit(&self) -> Vec<String> {
        let verified = |b: &Option<super::Bound>| b.as_ref().is_some_and(|b| b.verified);
        let files = self.files().flat_map(|(p, set)| set.iter().map(move |e| (p, e)));
        let mut out: Vec<String> = files
            .filter(|(_, e)| e.requested.log_message.is_none() && verified(&e.bound) && !e.hits.any())
            .map(|(p, e)| {
                // Named as asked, and where the adapter put it when that is another line.
                let moved = match &e.bound {
                    Some(b) if e.moved() => b.line.map(|l| format!(" (moved to line {l})")).unwrap_or_default(),
                    _ => String::new(),
                };
                format!("{}:{}{moved}{}", crate::session::text::short(p), e.requested.line, failed(&e.hits))
            })
            .collect();
        let unhit = |b: &Option<super::Bound>, h: &Hits| verified(b) && !h.any();
        let functions = self.functions().iter().filter(|e| unhit(&e.bound, &e.hits));
        out.extend(functions.map(|e| format!("{}(){}", e.requested.name, failed(&e.hits))));
        let data = self.data().iter().filter(|e| unhit(&e.bound, &e.hits));
        out.extend(data.map(|e| format!("`{}`{}", e.requested.what, failed(&e.hits))));
        let instructions = self.instructions().iter().filter(|e| unhit(&e.bound, &e.hits));
        out.extend(instructions.map(|e| format!("instruction {}{}", e.requested.place(), failed(&e.hits))));
        out
    }
}

/// Most breakpoints a "never hit" line names; the rest are counted.
pub const NEVER_HIT_NAMED: usize = 10;

/// `never hit: app.py:12, app.py:20` (at most [`NEVER_HIT_NAMED`] named, then `and N more`), or
/// `None` for an empty list.
pub fn never_hit_line(names: &[String]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let shown = names.iter().take(NEVER_HIT_NAMED).cloned().collect::<Vec<_>>().join(", ");
    let more = names.len().saturating_sub(NEVER_HIT_NAMED);
    Some(match more {
        0 => format!("never hit: {shown}"),
        n => format!("never hit: {shown} and {n} more"),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{FunctionBreakpoint, Mode, SourceBreakpoint};
    use super::*;
    use serde_json::json;

    fn bp(line: u32) -> SourceBreakpoint {
        SourceBreakpoint { line, column: None, condition: None, hit_condition: None, log_message: None }
    }

    /// `a.py` lines 4, 6 and 9 (adapter ids 1, 2, 3) verified, and function `f` (adapter id 8).
    fn store() -> BreakpointStore {
        let mut s = BreakpointStore::default();
        s.apply("/p/a.py", Mode::Replace, vec![bp(4), bp(6), bp(9)]);
        let body = json!({"breakpoints": [
            {"id": 1, "verified": true}, {"id": 2, "verified": true}, {"id": 3, "verified": true}]});
        s.on_response("/p/a.py", Ok(&body));
        let f = vec![FunctionBreakpoint { name: "f".into(), condition: None, hit_condition: None }];
        s.set_functions(f.clone());
        s.on_functions_response(&f, Ok(&json!({"breakpoints": [{"id": 8, "verified": true}]})));
        s
    }

    #[test]
    fn a_breakpoint_the_adapter_moved_is_named_with_the_line_it_was_moved_to() {
        let mut s = BreakpointStore::default();
        s.apply("/p/a.py", Mode::Replace, vec![bp(9), bp(12)]);
        let body =
            json!({"breakpoints": [{"id": 1, "verified": true, "line": 7}, {"id": 2, "verified": true, "line": 12}]});
        s.on_response("/p/a.py", Ok(&body));
        assert_eq!(s.never_hit(), ["a.py:9 (moved to line 7)", "a.py:12"]);
    }

    #[test]
    fn a_stop_credited_to_two_breakpoints_counts_both() {
        let mut s = store();
        let at = LastHit { revision: 2, thread: Some(1) };
        // Listed twice by the adapter: still one stop.
        let ours = s.on_stop(&[1, 2, 1], "breakpoint", at);
        assert_eq!(ours.len(), 2);
        s.on_stop(&[1], "breakpoint", LastHit { revision: 4, thread: Some(3) });
        let hits: Vec<u32> = s.get("/p/a.py").iter().map(|e| e.hits.count).collect();
        assert_eq!(hits, [2, 1, 0]);
        assert_eq!(s.get("/p/a.py")[0].hits.last, Some(LastHit { revision: 4, thread: Some(3) }));
        assert_eq!(s.get("/p/a.py")[1].hits.last, Some(at));
        assert_eq!(s.never_hit(), ["a.py:9", "f()"]);
        s.on_stop(&[8], "function breakpoint", at);
        assert_eq!(s.never_hit(), ["a.py:9"]);
    }

    #[test]
    fn a_restart_resets_the_counts_and_setting_a_file_again_keeps_them() {
        let mut s = store();
        s.on_stop(&[1, 8], "breakpoint", LastHit { revision: 2, thread: None });
        // The same line asked for again (an `add`, or a replace that keeps it): same count.
        s.apply("/p/a.py", Mode::Add, vec![bp(12)]);
        s.apply("/p/a.py", Mode::Replace, vec![bp(4), bp(12)]);
        assert_eq!(s.get("/p/a.py")[0].hits.count, 1);
        // A relaunch is a new run: no stop of it was credited yet.
        let (next, _) = s.for_relaunch();
        assert!(next.get("/p/a.py").iter().all(|e| !e.hits.any()));
        assert!(next.functions().iter().all(|e| !e.hits.any()));
        assert!(next.never_hit().is_empty(), "nothing verified yet in the new run");
    }

    #[test]
    fn logpoints_and_unverified_breakpoints_are_not_named_never_hit() {
        let mut s = BreakpointStore::default();
        let mut log = bp(3);
        log.log_message = Some("x={x}".into());
        s.apply("/p/b.py", Mode::Replace, vec![log, bp(5)]);
        let body = json!({"breakpoints": [{"id": 1, "verified": true}, {"id": 2, "verified": false}]});
        s.on_response("/p/b.py", Ok(&body));
        assert!(s.never_hit().is_empty());
        let mut items =
            json!([{"id": 1, "verified": true}, {"id": 2, "verified": true, "hits": 2}, {"verified": false}]);
        put_never_hit(&mut items);
        assert_eq!(
            items,
            json!([{"id": 1, "verified": true, "hits": 0}, {"id": 2, "verified": true, "hits": 2}, {"verified": false}])
        );
    }

    #[test]
    fn hits_read_as_a_count_with_the_last_stop_and_never_hit_only_once_answered() {
        let mut h = Hits::default();
        assert_eq!(h.text(false), "");
        assert_eq!(h.text(true), " · never hit");
        h.record(LastHit { revision: 3, thread: Some(1) });
        h.record(LastHit { revision: 7, thread: None });
        assert_eq!(h.text(true), " · hit 2× (last rev 7)");
        h.record(LastHit { revision: 9, thread: Some(4) });
        assert_eq!(h.text(false), " · hit 3× (last rev 9, thread 4)");
        let mut m = Map::new();
        h.put_json(&mut m);
        assert_eq!(Value::Object(m), json!({"hit": true, "hits": 3, "last_hit": {"revision": 9, "thread": 4}}));
    }

    #[test]
    fn the_adapters_condition_error_lines_name_the_condition() {
        let debugpy = [("pydevd: Error while evaluating expression in conditional breakpoint: ", false)];
        let line = "pydevd: Error while evaluating expression in conditional breakpoint: s == \"a\"\n";
        assert_eq!(failed_condition(line, &debugpy), Some("s == \"a\""));
        let lldb = [("error: stopped due to an error evaluating condition of breakpoint ", true)];
        let line = "error: stopped due to an error evaluating condition of breakpoint 1.1: \"nosuch > 0\"\r\n";
        assert_eq!(failed_condition(line, &lldb), Some("nosuch > 0"));
        assert_eq!(failed_condition("Couldn't parse conditional expression:", &lldb), None);
        let mut s = store();
        s.apply("/p/a.py", Mode::Add, vec![SourceBreakpoint { condition: Some("nosuch > 0".into()), ..bp(20) }]);
        assert_eq!(s.on_condition_error("nosuch > 0", 5), 1);
        let e = &s.get("/p/a.py")[3];
        assert_eq!((e.hits.condition_errors, e.hits.condition_error_revision), (1, Some(5)));
        assert!(e.hits.text(false).contains("its condition failed to evaluate 1×"), "{}", e.hits.text(false));
    }

    #[test]
    fn the_never_hit_line_names_ten_then_counts() {
        assert_eq!(never_hit_line(&[]), None);
        let two = ["a.py:1".to_owned(), "a.py:2".to_owned()];
        assert_eq!(never_hit_line(&two).as_deref(), Some("never hit: a.py:1, a.py:2"));
        let many: Vec<String> = (1..=13).map(|l| format!("a.py:{l}")).collect();
        let line = never_hit_line(&many).unwrap_or_default();
        assert!(line.starts_with("never hit: a.py:1, ") && line.ends_with("a.py:10 and 3 more"), "{line}");
    }
}
