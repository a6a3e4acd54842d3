//! Previews of containers whose value says nothing: lldb-dap shows a C struct's value as its type
//! name (`p = point`), an array as `int[4]`; Python's default repr is `<Point object at 0x…>`.
//! For such values `context`, `evaluate` and `variables` fetch the children once (cached for the
//! revision like any `variables` page) and show `p = {x = 3, y = 4}`. Rendering only; the fetching
//! is in `inspect.rs`.

use serde_json::Value;

/// Containers whose children one result fetches for previews.
pub const PREVIEW_CONTAINERS: usize = 8;
/// Children shown in one preview before `…`.
const PREVIEW_ITEMS: usize = 8;
/// Children asked for per preview (`count`): one more than shown, so a preview knows to say `…`.
pub const PREVIEW_FETCH: usize = PREVIEW_ITEMS + 1;
/// Containers announcing more children than this are not fetched for a preview.
const MAX_CHILDREN: u64 = 64;
/// Longest preview (characters) before `…`.
const PREVIEW_CHARS: usize = 200;

/// The `variables` request for a preview of `reference`: its first children, one more than
/// shown (adapters without paging send all).
pub fn fetch_arguments(reference: i64) -> crate::dap::requests::VariablesArguments {
    crate::dap::requests::VariablesArguments {
        variables_reference: reference,
        start: Some(0),
        count: Some(PREVIEW_FETCH as u64),
        filter: None,
        format: None,
    }
}

/// The adapter's `variablesReference` of `v` when its value is worth previewing: it has children
/// and its value is empty, repeats its type, is an elided `{...}`, or is Python's default repr.
pub fn wants_preview(v: &Value) -> Option<i64> {
    let reference = v.get("variablesReference").and_then(Value::as_i64).filter(|r| *r > 0)?;
    // debugpy's member groups and the `more` holding a long list's tail are not values.
    if is_grouping(v) || name_of(v) == "more" {
        return None;
    }
    // A preview shows a handful of children: never fetch a big container for it.
    let count = |key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(0);
    if count("indexedVariables") > MAX_CHILDREN || count("namedVariables") > MAX_CHILDREN {
        return None;
    }
    let value = v.get("value").or_else(|| v.get("result")).and_then(Value::as_str).unwrap_or("").trim();
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("").trim();
    // js-debug 1.112.0's `this` in a sloppy-mode function: Node's global object, hundreds of
    // members in two round trips of 50–100 ms each (the roundtrip bench's js-debug `context`).
    if ty == GLOBAL_OBJECT_TYPE {
        return None;
    }
    let says_nothing = value.is_empty()
        || value == ty
        || value == "{...}"
        || value == "{…}"
        || (value.starts_with('<') && value.ends_with('>') && value.contains(" object at 0x"));
    says_nothing.then_some(reference)
}

/// `{x = 3, y = 4}` for named children, `[1, 2, 3]` for indexed ones; `lookup` gives the
/// children of a nested container when they are already cached (one more level is shown).
pub fn render(children: &[Value], lookup: &dyn Fn(i64) -> Option<std::rc::Rc<Vec<Value>>>) -> String {
    render_depth(children, lookup, 1)
}

fn render_depth(children: &[Value], lookup: &dyn Fn(i64) -> Option<std::rc::Rc<Vec<Value>>>, depth: u8) -> String {
    let shown: Vec<&Value> = children.iter().filter(|c| !is_grouping(c)).collect();
    let indexed = !shown.is_empty() && shown.iter().all(|c| name_of(c).starts_with('['));
    let mut out = String::from(if indexed { "[" } else { "{" });
    for (i, c) in shown.iter().enumerate() {
        if i == PREVIEW_ITEMS || out.chars().count() > PREVIEW_CHARS {
            out.push_str(", …");
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        if !indexed {
            out.push_str(name_of(c));
            out.push_str(" = ");
        }
        out.push_str(&child_value(c, lookup, depth));
    }
    out.push(if indexed { ']' } else { '}' });
    if out.chars().count() > PREVIEW_CHARS + 40 {
        let cut: String = out.chars().take(PREVIEW_CHARS).collect();
        return format!("{cut}…");
    }
    out
}

fn child_value(c: &Value, lookup: &dyn Fn(i64) -> Option<std::rc::Rc<Vec<Value>>>, depth: u8) -> String {
    let value = c.get("value").and_then(Value::as_str).unwrap_or("");
    match wants_preview(c) {
        Some(r) if depth < 2 => match lookup(r) {
            Some(grand) => render_depth(&grand, lookup, depth + 1),
            None => "{…}".to_string(),
        },
        Some(_) => "{…}".to_string(),
        None => first_line(value),
    }
}

/// A child's value in a preview: its first line, at most 60 characters (js-debug shows a function
/// as its whole source, `ƒ () {\n  …}`).
fn first_line(value: &str) -> String {
    let (line, more) = super::text::first_line(value);
    let line = super::text::value_text(line);
    let mut out: String = line.chars().take(60).collect();
    // Cut or not its only line: marked, so the preview is not taken as whole (`compare.rs`: a
    // cut preview is never called unchanged; a second fresh user saw `<__main__.Item ob}`).
    if more || line.chars().count() > 60 {
        out.push('…');
    }
    out
}

fn name_of(c: &Value) -> &str {
    c.get("name").and_then(Value::as_str).unwrap_or("?")
}

/// The `type` js-debug gives Node's global object.
const GLOBAL_OBJECT_TYPE: &str = "global";

/// debugpy's groups of dunder/special members and its `len()` entry, and V8's internal slots as
/// js-debug lists them (`[[Prototype]]`, `[[Scopes]]`): not part of the value.
pub(in crate::session) fn is_grouping(c: &Value) -> bool {
    let name = name_of(c);
    matches!(name, "special variables" | "function variables" | "class variables" | "protected variables" | "len()")
        || (name.starts_with("__") && name.ends_with("__"))
        || (name.starts_with("[[") && name.ends_with("]]"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_member_value_cut_at_its_length_is_marked_cut() {
        let long = format!("<__main__.Item object at 0x7f{}>", "0".repeat(40));
        let children = vec![json!({"name": "a", "value": long, "variablesReference": 0})];
        let shown = render(&children, &none);
        assert!(shown.ends_with("…}"), "{shown}");
    }

    fn none(_: i64) -> Option<std::rc::Rc<Vec<Value>>> {
        None
    }

    #[test]
    fn only_values_that_say_nothing_want_a_preview() {
        let cases = [
            (json!({"name": "p", "value": "point", "type": "point", "variablesReference": 7}), Some(7)),
            (json!({"name": "a", "value": "int[4]", "type": "int[4]", "variablesReference": 8}), Some(8)),
            (
                json!({"name": "o", "value": "<__main__.P object at 0x7f3>", "type": "P", "variablesReference": 9}),
                Some(9),
            ),
            (json!({"name": "e", "value": "", "variablesReference": 3}), Some(3)),
            (json!({"name": "d", "value": "{'a': 1}", "type": "dict", "variablesReference": 4}), None),
            (json!({"name": "s", "value": "main.P {X: 1}", "type": "main.P", "variablesReference": 5}), None),
            (json!({"name": "x", "value": "3", "type": "int", "variablesReference": 0}), None),
            (json!({"name": "special variables", "value": "", "variablesReference": 6}), None),
            (json!({"name": "more", "value": "", "variablesReference": 6}), None),
            (
                json!({"name": "a", "value": "int[1000]", "type": "int[1000]", "variablesReference": 6, "indexedVariables": 1000}),
                None,
            ),
        ];
        for (v, want) in cases {
            assert_eq!(wants_preview(&v), want, "{v}");
        }
    }

    #[test]
    fn named_and_indexed_children_read_like_literals() {
        let named = [json!({"name": "x", "value": "3"}), json!({"name": "y", "value": "4"})];
        assert_eq!(render(&named, &none), "{x = 3, y = 4}");
        let indexed: Vec<Value> =
            (1..=3).map(|i| json!({"name": format!("[{}]", i - 1), "value": i.to_string()})).collect();
        assert_eq!(render(&indexed, &none), "[1, 2, 3]");
        let many: Vec<Value> = (0..20).map(|i| json!({"name": format!("[{i}]"), "value": "0"})).collect();
        assert_eq!(render(&many, &none), "[0, 0, 0, 0, 0, 0, 0, 0, …]");
        let grouped = [json!({"name": "special variables", "value": ""}), json!({"name": "v", "value": "1"})];
        assert_eq!(render(&grouped, &none), "{v = 1}");
    }

    #[test]
    fn v8_internal_slots_and_the_global_object_are_not_previewed() {
        // js-debug 1.112.0: an empty object's only child is its prototype.
        let children = vec![
            json!({"name": "x", "value": "1", "variablesReference": 0}),
            json!({"name": "[[Prototype]]", "value": "Object", "variablesReference": 9}),
        ];
        assert_eq!(render(&children, &none), "{x = 1}");
        let global = json!({"name": "this", "value": "global", "type": "global", "variablesReference": 5});
        assert_eq!(wants_preview(&global), None);
    }

    #[test]
    fn a_multi_line_child_value_shows_its_first_line() {
        // js-debug 1.112.0 previews a function as its source.
        let children = vec![
            json!({"name": "f", "value": "ƒ () {\n      mod ??= require(id);\n}", "variablesReference": 0}),
            json!({"name": "n", "value": "1", "variablesReference": 0}),
        ];
        assert_eq!(render(&children, &none), "{f = ƒ () {…, n = 1}");
    }

    #[test]
    fn nested_containers_show_one_more_level_when_cached() {
        let inner = std::rc::Rc::new(vec![json!({"name": "x", "value": "1"})]);
        let outer = [json!({"name": "a", "value": "point", "type": "point", "variablesReference": 11})];
        let cached = |r: i64| (r == 11).then(|| std::rc::Rc::clone(&inner));
        assert_eq!(render(&outer, &cached), "{a = {x = 1}}");
        assert_eq!(render(&outer, &none), "{a = {…}}");
    }
}
