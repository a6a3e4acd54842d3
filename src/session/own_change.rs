//! What the agent (or a mirror client) did at a stop that may have changed the program's
//! values, as a stop's changes name it (`Session::note_own_change` in `stop_frame.rs`; the
//! tests are `own_changes_tests.rs`). Pure.

use super::text::clip;

/// Whether evaluating `expression` may change the program's values, as far as its text tells:
/// a call (`items.pop()`, `f(x)`), an assignment (`x = 1`, `x += 1`, `x <<= 1`, `y := 2`), a
/// `del`, an increment, or a debugger command that writes (`` `memory write … ``).
/// Plain reads (`a + b`, `p->x`, `x == 1`, `a <= b`) are taken as reads: a property or an
/// overloaded operator that writes is not seen.
#[cfg(test)]
pub fn may_change_values(expression: &str) -> bool {
    may_change_values_in(expression, false)
}

/// [`may_change_values`]; `without_parentheses`: the language calls methods without them
/// (Ruby, `Quirks::calls_without_parentheses`), so a method's name after a `.` or `::`
/// (`arr.pop`, `arr.sort!`, `Foo::bar`) and a word followed by an argument (`push 4`) call too.
pub fn may_change_values_in(expression: &str, without_parentheses: bool) -> bool {
    may_assign(expression) || calls(expression) || (without_parentheses && ruby_calls(expression))
}

/// Ruby's words that take an operand without calling anything.
const RUBY_KEYWORDS: &[&str] = &["and", "or", "not", "if", "unless", "then", "else", "defined?"];

/// A Ruby method call without parentheses: `recv.name`, `recv&.name`, `Mod::name`, or a name
/// followed by an argument (`puts x`, `push 4`), not a keyword's operand (`a and b`).
fn ruby_calls(expression: &str) -> bool {
    let b = expression.as_bytes();
    let starts_name = |c: u8| c.is_ascii_alphabetic() || c == b'_';
    let method = b.windows(2).any(|w| w[0] == b'.' && starts_name(w[1]))
        || b.windows(3).any(|w| w[0] == b':' && w[1] == b':' && starts_name(w[2]));
    let words: Vec<&str> = expression.split_whitespace().collect();
    let name = |w: &str| w.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && !RUBY_KEYWORDS.contains(&w);
    let operand = |w: &str| w.chars().next().is_some_and(|c| c.is_alphanumeric() || "_:@$\"'[".contains(c));
    let argument = words.windows(2).any(|p| name(p[0]) && !RUBY_KEYWORDS.contains(&p[1]) && operand(p[1]));
    method || argument
}

/// Words before a `(` that make no call: C's operators on types and values, Python's logical
/// operators (a fresh user's `sizeof(name)` was named as a possible change at the next stop).
const NOT_CALLS: &[&str] = &[
    "sizeof",
    "alignof",
    "_Alignof",
    "__alignof__",
    "typeof",
    "__typeof__",
    "decltype",
    "not",
    "and",
    "or",
    "in",
    "is",
];

/// Whether `expression` may call something: a `(` after a name (`f(x)`, `items.pop()`), after a
/// call's, an index's or a braced temporary's close (`f()()`, `fs[0](x)`, `Counter{}(x)`), after
/// a `>` (`std::max<int>(a, b)`; a comparison with a parenthesis counts too), a `.`
/// (`obj.reset?.()`) or a name's `!` (`action!(x)`). A `(` that opens the expression, or follows
/// an operator or a [`NOT_CALLS`] word that is no member (`buf.sizeof()` is a call), groups or
/// casts (`(a + b) * c`, `(int)x`).
fn calls(expression: &str) -> bool {
    let name_char = |c: char| c.is_alphanumeric() || c == '_';
    expression.match_indices('(').any(|(i, _)| {
        let before = expression[..i].trim_end();
        match before.chars().last() {
            Some(')' | ']' | '}' | '>' | '.') => true,
            Some('!') => before[..before.len() - 1].chars().last().is_some_and(name_char),
            Some(c) if name_char(c) => {
                let start = before.rfind(|c: char| !name_char(c)).map_or(0, |j| j + 1);
                let member = [".", "->", "::"].iter().any(|m| before[..start].trim_end().ends_with(m));
                member || !NOT_CALLS.contains(&&before[start..])
            }
            _ => false,
        }
    })
}

/// [`may_change_values`] without calls: what a watch or a mirror client's hover evaluates again
/// and again (`len(counts)`) is taken as a read unless it assigns, deletes, increments or runs a
/// debugger command (a second fresh user's finding: a watch of `len(counts)` was named at every
/// stop).
pub fn may_assign(expression: &str) -> bool {
    let b = expression.as_bytes();
    let assigns = b.iter().enumerate().any(|(i, &c)| {
        let at = |k: usize| i.checked_sub(k).map(|j| b[j]);
        // `<<=` and `>>=` assign; `<=`, `>=`, `==`, `!=` compare.
        let shift = matches!((at(2), at(1)), (Some(b'<'), Some(b'<')) | (Some(b'>'), Some(b'>')));
        let compares = matches!(at(1), Some(b'=' | b'!' | b'<' | b'>')) && !shift;
        c == b'=' && !compares && b.get(i + 1) != Some(&b'=')
    });
    // Python's `del`, JavaScript's and C++'s `delete` (a breaker's `delete o.k` under js-debug),
    // anywhere as a word: reserved words all three, so a name spelled so is no variable.
    let deletes =
        expression.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).any(|w| w == "del" || w == "delete");
    // A debugger command (lldb-dap's repl: `` `memory write … `` or `register write rax 5`).
    let command = expression.trim_start().starts_with('`') || expression.split_whitespace().any(|w| w == "write");
    assigns || deletes || command || expression.contains("++") || expression.contains("--")
}

/// `what` with `text` (an expression, a value) as the agent gave it, cut for a stop's line.
pub fn own_change(what: &str, text: &str) -> String {
    let text = clip(&crate::visible::escaped(text), 60).0;
    // Markdown's rule: a text holding a backtick is fenced with two, spaced.
    match text.contains('`') {
        true => format!("{what} `` {text} ``"),
        false => format!("{what} `{text}`"),
    }
}
