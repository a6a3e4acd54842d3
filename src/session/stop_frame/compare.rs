//! How a stop compares the locals of one frame across stops, and the words it says them in:
//! each local as shown and as compared ([`Local`]), what changed ([`Changes`]), and whether a
//! value is shown whole enough to be called unchanged. Pure: no session, no requests (the
//! fetching and the result are `stop_frame.rs`).

use serde_json::Value;

use crate::session::preview;
use crate::session::text::{clip, value_text};
use crate::session::values::VALUE_CHARS;

use super::NAME_CHARS;

/// Changed, new or gone locals listed at a stop in the same frame.
pub(super) const CHANGES_SHOWN: usize = 10;
/// Most characters of one value in a stop's text.
const STOP_VALUE_CHARS: usize = 120;
/// Most characters of a container's value in a stop's text (its items are behind its ref).
const CONTAINER_CHARS: usize = 60;
/// A container announcing at least this many children is shown by its count (`300 items`).
const BIG_COLLECTION: u64 = 100;

/// One local as a stop compares and shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Local {
    pub name: String,
    /// What the text shows (cut to [`STOP_VALUE_CHARS`], or the summary of a big collection).
    pub shown: String,
    /// What two stops compare: the value (or preview) cut to [`VALUE_CHARS`].
    pub compared: String,
    /// False when `compared` may not be the whole value: cut, a summary, or a container whose
    /// children were not read; equal values are then "maybe changed", not "unchanged".
    pub exact: bool,
    pub ty: Option<String>,
    /// The adapter's `variablesReference` (0: none).
    pub reference: i64,
    /// Its value says nothing and its members were not read (a preview may come at another
    /// stop): a difference from a preview is no change.
    pub bare: bool,
}

/// What changed in the locals of the same frame since the last stop that read them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// (name, before, now), shown values.
    pub changed: Vec<(String, String, String)>,
    pub new: Vec<Local>,
    pub gone: Vec<String>,
    /// Equal as far as shown, but not shown whole: they may have changed.
    pub unsure: Vec<String>,
    pub unchanged: usize,
    /// What the agent (or a mirror client) did to the program's values between the two reads
    /// (`set_variable total = 1000`): some of the changes may be its own, not the program's.
    pub yours: Vec<String>,
}

/// The locals of `now` against those of `before` (the same frame), matched by name and, for a
/// name that appears twice (C's shadowed locals), by its occurrence.
pub fn compare(before: &[Local], now: &[Local]) -> Changes {
    let nth = |list: &[Local], i: usize| list[..i].iter().filter(|l| l.name == list[i].name).count();
    fn find<'a>(list: &'a [Local], name: &str, k: usize) -> Option<&'a Local> {
        list.iter().filter(|l| l.name == name).nth(k)
    }
    let mut c = Changes::default();
    for (i, l) in now.iter().enumerate() {
        match find(before, &l.name, nth(now, i)) {
            None => c.new.push(l.clone()),
            // A preview against a bare value (the preview budget went elsewhere, or its fetch
            // failed) is not a change of the value.
            Some(b) if b.bare != l.bare => c.unsure.push(l.name.clone()),
            Some(b) if b.compared != l.compared => {
                let (before, now) = match b.shown == l.shown {
                    // Alike as far as shown: where they differ is what says the change.
                    true => around_difference(&b.compared, &l.compared),
                    false => (b.shown.clone(), l.shown.clone()),
                };
                c.changed.push((l.name.clone(), before, now))
            }
            Some(b) if b.exact && l.exact => c.unchanged += 1,
            Some(_) => c.unsure.push(l.name.clone()),
        }
    }
    for (i, b) in before.iter().enumerate() {
        if find(now, &b.name, nth(before, i)).is_none() {
            c.gone.push(b.name.clone());
        }
    }
    c
}

/// Whether `v`'s value, a repr (`Quirks::repr_whole_types`), may leave out state a stop would
/// need to call it unchanged: a value with members is whole only when its type is a builtin in
/// `whole` and its repr holds nothing but literals (`[1, 'a', None]`, not `[Cfg()]`: a list
/// shows its items by their own reprs), or when it was read as its members (`lookup`) and none
/// of those may hide anything.
pub fn repr_may_hide(v: &Value, whole: &[&str], lookup: &dyn Fn(i64) -> Option<std::rc::Rc<Vec<Value>>>) -> bool {
    repr_may_hide_at(v, whole, lookup, 0)
}

fn repr_may_hide_at(
    v: &Value,
    whole: &[&str],
    lookup: &dyn Fn(i64) -> Option<std::rc::Rc<Vec<Value>>>,
    depth: u8,
) -> bool {
    let reference = v.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
    if reference <= 0 {
        return false;
    }
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
    let value = v.get("value").and_then(Value::as_str).unwrap_or("");
    if whole.contains(&ty) && literal_repr(value, ty) {
        return false;
    }
    // Its members, where a preview read them (as the stop shows them), each whole too.
    match lookup(reference).filter(|_| preview::wants_preview(v).is_some() && depth < 2) {
        Some(members) => {
            members.iter().filter(|m| !preview::is_grouping(m)).any(|m| repr_may_hide_at(m, whole, lookup, depth + 1))
        }
        None => true,
    }
}

/// A repr made of literals only: numbers, quoted strings, `True`/`False`/`None`, brackets,
/// commas and colons, and `ty` itself (`deque([1, 2])`, `set()`). Any other name is something's
/// own repr, which may hide its state.
fn literal_repr(text: &str, ty: &str) -> bool {
    let mut chars = text.chars().peekable();
    let mut after_digit = false;
    while let Some(c) = chars.next() {
        if c == '\'' || c == '"' {
            // A string literal, to its closing quote (`\` escapes one character).
            while let Some(d) = chars.next() {
                match d {
                    '\\' => {
                        chars.next();
                    }
                    d if d == c => break,
                    _ => {}
                }
            }
            after_digit = false;
        } else if c.is_alphabetic() || c == '_' {
            let mut word = String::from(c);
            while let Some(&d) = chars.peek().filter(|d| d.is_alphanumeric() || **d == '_') {
                word.push(d);
                chars.next();
            }
            // `1e5`, `3j`, `b'…'`, `rb"…"`.
            let number_part = after_digit && word.chars().all(|d| d.is_ascii_digit() || "eEj".contains(d));
            let prefix =
                matches!(chars.peek(), Some('\'' | '"')) && matches!(word.as_str(), "b" | "r" | "u" | "br" | "rb");
            let known = matches!(word.as_str(), "True" | "False" | "None" | "inf" | "nan") || word == ty;
            if !(number_part || prefix || known) {
                return false;
            }
            after_digit = false;
        } else if c.is_ascii_digit() {
            after_digit = true;
        } else if c.is_whitespace() || "[]{}(),:.+-".contains(c) {
            after_digit = after_digit && c == '.';
        } else {
            return false;
        }
    }
    true
}

/// Characters of each value shown before and from the first place two values differ.
const AROUND_BEFORE: usize = 20;
const AROUND_AFTER: usize = 40;

/// Two values that read alike at their start, each from a little before the first character
/// where they differ (`…Label: "a", L: 0, M: 1}` against `…Label: "a", L: 12, M: 1}`), marked
/// `…` where cut.
fn around_difference(a: &str, b: &str) -> (String, String) {
    let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let from = at.saturating_sub(AROUND_BEFORE);
    let window = |s: &str| {
        let total = s.chars().count();
        let part: String = s.chars().skip(from).take(AROUND_BEFORE + AROUND_AFTER).collect();
        let head = if from > 0 { "…" } else { "" };
        let tail = if from + AROUND_BEFORE + AROUND_AFTER < total { "…" } else { "" };
        // One line, as a stop's changes are.
        value_text(&format!("{head}{part}{tail}").replace('\n', "\\n")).to_owned()
    };
    (window(a), window(b))
}

/// How one variable reads at a stop; `preview` is its children's preview when fetched.
pub fn local_of(name: String, v: &Value, preview: Option<String>) -> Local {
    let name = clip(&name, NAME_CHARS).0;
    let reference = v.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
    let ty = v.get("type").and_then(Value::as_str).filter(|t| !t.is_empty()).map(|t| clip(t, NAME_CHARS).0);
    let count = |key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(0);
    let children = count("indexedVariables").max(count("namedVariables"));
    let value = v.get("value").and_then(Value::as_str).unwrap_or("");
    if reference > 0 && children >= BIG_COLLECTION {
        // Never expanded: its size is what a stop needs to say, after the start of a value that
        // says something (a C string's text); a value that is its type (`int[300]`) is left out.
        let said = value.trim();
        let shown = match said.is_empty() || Some(said) == ty.as_deref() {
            true => format!("{children} items"),
            false => format!("{} ({children} items)", clip(first_line_of(said), CONTAINER_CHARS).0),
        };
        let compared = format!("{shown}: {}", clip(value, VALUE_CHARS).0);
        return Local { name, compared, shown, exact: false, ty, reference, bare: false };
    }
    let wants = preview::wants_preview(v).is_some();
    let bare = wants && preview.is_none();
    let (text, exact) = match preview {
        Some(p) => {
            let whole = !p.contains('…');
            (p, whole)
        }
        // A container whose value says nothing and whose children were not read.
        None => (value.to_owned(), !wants),
    };
    let (compared, cut) = clip(&text, VALUE_CHARS);
    // Cut by the adapter (debugpy's `[0, 1, ..., 58, ...]`), or holding default reprs (`[<Account
    // object at 0x…>]`), which stay the same when the objects' members change.
    let cut = cut || text.contains("...") || (reference > 0 && text.contains(" object at 0x"));
    // A pointer (lldb-dap, Delve: its value is the address, its target behind its ref): the
    // address can stay while what it points to changes.
    let cut = cut || (reference > 0 && preview_is_address(&text));
    // A container's long value (debugpy's repr of a big list, cut by debugpy with `...`) is its
    // start: its items are behind its ref.
    let limit = if reference > 0 { CONTAINER_CHARS } else { STOP_VALUE_CHARS };
    let (first, more_lines) = crate::session::text::first_line(&text);
    // `clip` marks its own cut with `…`; a value of several lines is its first, marked too.
    let (shown, _) = clip(first, limit);
    let shown = match more_lines && !shown.ends_with('…') {
        true => format!("{}…", value_text(&shown)),
        false => value_text(&shown).to_owned(),
    };
    Local { name, shown, compared, exact: exact && !cut, ty, reference, bare }
}

/// `0x7ffe…` or `(int *) 0x7ffe…`: a value that is an address.
fn preview_is_address(value: &str) -> bool {
    let v = value.trim();
    let v = v.strip_prefix('(').and_then(|r| r.split_once(") ")).map_or(v, |(_, rest)| rest);
    v.split_whitespace()
        .next()
        .is_some_and(|a| a.len() > 2 && a.starts_with("0x") && a[2..].bytes().all(|b| b.is_ascii_hexdigit()))
}

fn first_line_of(s: &str) -> &str {
    crate::session::text::first_line(s).0
}

/// `subtotal: 12 → 13 · new: tax = 6 (int) · gone: i`, or `unchanged`.
pub fn changes_text(c: &Changes) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut listed = 0;
    let mut more = 0;
    for (name, before, now) in &c.changed {
        if listed < CHANGES_SHOWN {
            // Two values alike as far as shown (a first line, a cut) differ further on.
            match before == now {
                true => parts.push(format!("{name}: changed past what is shown ({now})")),
                false => parts.push(format!("{name}: {before} → {now}")),
            }
            listed += 1;
        } else {
            more += 1;
        }
    }
    for l in &c.new {
        if listed < CHANGES_SHOWN {
            let ty = l.ty.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
            parts.push(format!("new: {} = {}{ty}", l.name, l.shown));
            listed += 1;
        } else {
            more += 1;
        }
    }
    if !c.gone.is_empty() {
        let shown: Vec<&str> = c.gone.iter().take(CHANGES_SHOWN).map(String::as_str).collect();
        parts.push(format!("gone: {}", shown.join(", ")));
        more += c.gone.len() - shown.len();
    }
    if more > 0 {
        parts.push(format!("… {more} more changes (`context` lists the locals)"));
    }
    let unsure: Vec<&str> = c.unsure.iter().take(CHANGES_SHOWN).map(String::as_str).collect();
    let yours = match c.yours.is_empty() {
        true => String::new(),
        false => format!(" (since that read you also ran: {}; some of this may be yours)", c.yours.join("; ")),
    };
    if parts.is_empty() {
        return match unsure.is_empty() {
            true => format!("unchanged{yours}"),
            false => format!("maybe changed (not shown whole): {} · nothing else changed{yours}", unsure.join(", ")),
        };
    }
    if !unsure.is_empty() {
        parts.push(format!("maybe changed (not shown whole): {}", unsure.join(", ")));
    }
    parts.join(" · ") + &yours
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_repr_of_literals_is_whole_and_one_naming_an_object_is_not() {
        for (text, ty) in [
            ("[1, 'a', None]", "list"),
            ("{'k': (1.5e3, -2, 3j)}", "dict"),
            ("deque([1, 2])", "deque"),
            ("b'x\\'y'", "bytes"),
            ("set()", "set"),
        ] {
            assert!(literal_repr(text, ty), "{text}");
        }
        for (text, ty) in
            [("[Cfg()]", "list"), ("{'a': Cfg()}", "dict"), ("(Cfg(),)", "tuple"), ("[<A object at 0x1>]", "list")]
        {
            assert!(!literal_repr(text, ty), "{text}");
        }
    }

    #[test]
    fn values_alike_as_far_as_shown_are_shown_where_they_differ() {
        let long = |l: u32| format!("main.Big {{Label: \"{}\", L: {l}, M: 1}}", "a-rather-long-label-".repeat(8));
        let v = |l: u32| json!({"name": "b", "value": long(l), "type": "main.Big", "variablesReference": 0});
        let (before, now) = (local_of("b".into(), &v(0), None), local_of("b".into(), &v(12), None));
        assert_eq!(before.shown, now.shown, "alike as far as shown");
        let c = compare(&[before], &[now]);
        let (_, b, n) = &c.changed[0];
        assert!(b.starts_with('…') && b.contains("L: 0, M: 1}"), "{b}");
        assert!(n.starts_with('…') && n.contains("L: 12, M: 1}"), "{n}");
        assert!(!changes_text(&c).contains("changed past what is shown"), "{}", changes_text(&c));
    }

    fn local(name: &str, value: &str) -> Local {
        local_of(name.to_owned(), &json!({"name": name, "value": value, "type": "int", "variablesReference": 0}), None)
    }

    #[test]
    fn a_changed_local_is_named_with_both_values_and_the_rest_count_as_unchanged() {
        let before = [local("x", "1"), local("y", "2")];
        let now = [local("x", "2"), local("y", "2")];
        let c = compare(&before, &now);
        assert_eq!(c.changed, vec![("x".to_owned(), "1".to_owned(), "2".to_owned())]);
        assert_eq!((c.unchanged, c.new.len(), c.gone.len()), (1, 0, 0));
        assert_eq!(changes_text(&c), "x: 1 → 2");
    }

    #[test]
    fn new_and_gone_locals_are_said() {
        let c = compare(&[local("i", "3")], &[local("tmp", "10")]);
        assert_eq!(changes_text(&c), "new: tmp = 10 (int) · gone: i");
    }

    #[test]
    fn nothing_changed_reads_unchanged() {
        let c = compare(&[local("x", "1")], &[local("x", "1")]);
        assert_eq!(changes_text(&c), "unchanged");
    }

    #[test]
    fn shadowed_names_match_by_occurrence() {
        let c = compare(&[local("i", "1"), local("i", "5")], &[local("i", "1"), local("i", "6")]);
        assert_eq!(c.changed, vec![("i".to_owned(), "5".to_owned(), "6".to_owned())]);
        assert_eq!(c.unchanged, 1);
    }

    #[test]
    fn a_big_collection_is_summarized_and_never_called_unchanged() {
        let v = json!({"name": "xs", "value": "[0, 1, 2, ...]", "type": "list", "variablesReference": 7, "indexedVariables": 100000});
        let l = local_of("xs".into(), &v, None);
        assert_eq!(l.shown, "[0, 1, 2, ...] (100000 items)");
        assert!(!l.exact);
        let c = compare(std::slice::from_ref(&l), std::slice::from_ref(&l));
        assert_eq!(c.unsure, vec!["xs".to_owned()]);
        assert_eq!(changes_text(&c), "maybe changed (not shown whole): xs · nothing else changed");
    }

    #[test]
    fn a_value_the_adapter_cut_or_made_of_default_reprs_is_not_called_unchanged() {
        // debugpy 1.8 cuts a long list's repr itself; a list of objects repeats their addresses.
        let cut = json!({"name": "big", "value": "[0, 1, 2, ..., 58, ...]", "type": "list", "variablesReference": 4});
        let objects =
            json!({"name": "items", "value": "[<Account object at 0x7f01>]", "type": "list", "variablesReference": 5});
        for v in [cut, objects] {
            let l = local_of("v".into(), &v, None);
            assert!(!l.exact, "{v}");
            assert_eq!(compare(std::slice::from_ref(&l), std::slice::from_ref(&l)).unsure, vec!["v".to_owned()]);
        }
        let whole = json!({"name": "xs", "value": "[1, 2, 3]", "type": "list", "variablesReference": 6});
        assert!(local_of("xs".into(), &whole, None).exact, "a whole repr compares as it is");
    }

    #[test]
    fn a_pointer_whose_address_stays_is_not_called_unchanged() {
        // lldb-dap 22: `p = 0x00007ffe3c1a2b10` with the pointee behind its ref.
        let p = json!({"name": "p", "value": "0x00007ffe3c1a2b10", "type": "point *", "variablesReference": 8});
        let l = local_of("p".into(), &p, None);
        assert!(!l.exact);
        assert_eq!(compare(std::slice::from_ref(&l), std::slice::from_ref(&l)).unsure, vec!["p".to_owned()]);
        let n = json!({"name": "n", "value": "0x10", "type": "int", "variablesReference": 0});
        assert!(local_of("n".into(), &n, None).exact, "a number in hex without members is a value");
    }

    #[test]
    fn a_preview_against_a_bare_value_is_no_change() {
        let v = json!({"name": "p", "value": "<P object at 0x1>", "type": "P", "variablesReference": 9});
        let read = local_of("p".into(), &v, Some("{x = 5}".into()));
        let bare = local_of("p".into(), &v, None);
        let c = compare(&[read], &[bare]);
        assert_eq!((c.changed.len(), c.unsure.clone()), (0, vec!["p".to_owned()]));
    }

    #[test]
    fn a_struct_without_its_children_read_is_not_called_unchanged() {
        let v = json!({"name": "p", "value": "point", "type": "point", "variablesReference": 9});
        let l = local_of("p".into(), &v, None);
        assert!(!l.exact, "its value says nothing of its fields");
        let read = local_of("p".into(), &v, Some("{x = 1, y = 2}".into()));
        assert!(read.exact && read.shown == "{x = 1, y = 2}");
        let cut = local_of("p".into(), &v, Some("{a = 1, …}".into()));
        assert!(!cut.exact);
    }

    #[test]
    fn a_long_value_is_cut_in_the_text_but_compared_further() {
        let long = "x".repeat(200);
        let a = local("s", &long);
        assert_eq!(a.shown.chars().count(), STOP_VALUE_CHARS + 1, "cut with …");
        let mut other = long.clone();
        other.push('y');
        let b = local("s", &other);
        assert_eq!(compare(&[a], &[b]).changed.len(), 1, "the difference past the shown part still counts");
    }

    #[test]
    fn a_change_past_what_is_shown_does_not_read_as_the_same_value_twice() {
        let c = compare(&[local("f", "a\nb")], &[local("f", "a\nc")]);
        assert_eq!(changes_text(&c), "f: a\\nb → a\\nc", "where they differ, on one line");
    }

    #[test]
    fn many_changes_are_capped_with_a_count() {
        let before: Vec<Local> = (0..15).map(|i| local(&format!("v{i}"), "0")).collect();
        let now: Vec<Local> = (0..15).map(|i| local(&format!("v{i}"), "1")).collect();
        let text = changes_text(&compare(&before, &now));
        assert!(text.ends_with("… 5 more changes (`context` lists the locals)"), "{text}");
        assert_eq!(text.matches('→').count(), CHANGES_SHOWN);
    }
}
