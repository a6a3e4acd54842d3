//! JSON with comments and trailing commas (what VS Code reads `.vscode/launch.json` as), made
//! plain JSON for `serde_json`: `//` and `/* */` comments and a comma before `]` or `}` become
//! spaces, so every line and byte column stays where it was and a parse error names the place in
//! the file as written. Sans-IO: text in, text or an error out; must not read files.

use std::fmt;

/// Why a text could not be read as JSON with comments: where (1-based line and column, counted
/// in characters) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsoncError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for JsoncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

/// Parses `text` (JSON with comments and trailing commas; a leading byte-order mark is skipped).
pub fn parse(text: &str) -> Result<serde_json::Value, JsoncError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let plain = strip(text)?;
    serde_json::from_str(&plain).map_err(|e| {
        let message = e.to_string();
        // serde_json appends " at line L column C" to its message; the place is given apart.
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_owned(),
            None => message,
        };
        JsoncError { line: e.line(), column: char_column(text, e.line(), e.column()), message }
    })
}

/// `text` with its comments and trailing commas replaced by spaces (newlines kept), or where a
/// block comment is left open.
pub fn strip(text: &str) -> Result<String, JsoncError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    // The last byte outside comments and whitespace: a comma after `[`, `{` or another comma
    // follows no value, so it is not a trailing one and stays (for serde_json to refuse).
    let mut last = b'[';
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            in_string = b != b'"';
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                last = b;
                out.push(b);
                i += 1;
            }
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(blank(bytes[i]));
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                let start = i;
                out.extend_from_slice(b"  ");
                i += 2;
                loop {
                    if i >= bytes.len() {
                        let (line, column) = place(text, start);
                        return Err(JsoncError { line, column, message: "a `/*` comment is never closed".into() });
                    }
                    if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                        out.extend_from_slice(b"  ");
                        i += 2;
                        break;
                    }
                    out.push(blank(bytes[i]));
                    i += 1;
                }
            }
            (b',', _) if !matches!(last, b'[' | b'{' | b',') && closes_next(bytes, i + 1) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                if !b.is_ascii_whitespace() {
                    last = b;
                }
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII bytes outside strings were replaced, each by an ASCII space, and a multi-byte
    // character inside a comment became one space per byte: the result is UTF-8 again.
    String::from_utf8(out).map_err(|_| JsoncError { line: 1, column: 1, message: "not UTF-8".into() })
}

/// A byte of a comment as it is replaced: newlines stay (lines keep their numbers), the rest
/// become spaces.
fn blank(b: u8) -> u8 {
    if b == b'\n' || b == b'\r' {
        b
    } else {
        b' '
    }
}

/// Whether the first thing after `from` that is neither whitespace nor a comment closes an array
/// or object (the comma before it is a trailing one). Each comma's scan ends at the next token,
/// so all scans together read the text about once.
fn closes_next(bytes: &[u8], mut i: usize) -> bool {
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b' ' | b'\t' | b'\n' | b'\r', _) => i += 1,
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            (b']' | b'}', _) => return true,
            _ => return false,
        }
    }
    false
}

/// The 1-based line and character column of byte `offset` of `text`.
fn place(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// serde_json's 1-based byte column on `line` as a character column (they differ after
/// non-ASCII text on the line).
fn char_column(text: &str, line: usize, byte_column: usize) -> usize {
    let Some(line_text) = text.split('\n').nth(line.saturating_sub(1)) else { return byte_column };
    let mut end = byte_column.saturating_sub(1).min(line_text.len());
    while !line_text.is_char_boundary(end) {
        end -= 1;
    }
    line_text[..end].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn check(input: &str, expected: Value) {
        assert_eq!(parse(input), Ok(expected), "{input}");
    }

    #[test]
    fn comments_go_and_strings_keep_what_looks_like_one() {
        check("// head\n{\"a\": 1 /* x */, /* y\n z */ \"b\": 2}", json!({"a": 1, "b": 2}));
        check(
            r#"{"url": "http://x//y", "glob": "src/*.py", "c": "/* no */"}"#,
            json!({"url": "http://x//y", "glob": "src/*.py", "c": "/* no */"}),
        );
        check(r#"{"q": "say \"//hi\" \\", "r": "\\\"/*"}"#, json!({"q": "say \"//hi\" \\", "r": "\\\"/*"}));
        check("{\"a\": 1} // last line without newline", json!({"a": 1}));
        check("\u{feff}{\"a\": \"é // ü\"} /* ü */", json!({"a": "é // ü"}));
        check("{\r\n  // c\r\n  \"a\": [1,\r\n  ],\r\n}\r\n", json!({"a": [1]}));
    }

    #[test]
    fn trailing_commas_go_across_comments_and_newlines() {
        check("[1, 2,]", json!([1, 2]));
        check("{\"a\": [1,\n // c\n ],\n /* d */ }", json!({"a": [1]}));
        check("{\"a\": 1, /* , */\n}", json!({"a": 1}));
        check(r#"{"s": ",]", "t": ",}",}"#, json!({"s": ",]", "t": ",}"}));
    }

    #[test]
    fn errors_name_the_line_and_column_as_written() {
        let e = parse("{\n  // c\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err();
        assert_eq!((e.line, e.column), (4, 3), "{e}");
        assert!(e.message.starts_with("expected `,` or `}`"), "{e}");
        let e = parse("{\"a\": 1 /* open\n\n").unwrap_err();
        assert_eq!(e.to_string(), "line 1, column 9: a `/*` comment is never closed");
        let e = parse("{\"é\": é}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 7), "{e}");
        // A comma after no value is not trailing: it still fails as JSON.
        assert!(parse("[,]").is_err());
        assert!(parse("[1,,]").is_err());
        assert!(parse("{,}").is_err());
    }

    /// A value built from quickcheck's strings and numbers, nested by `shape`.
    fn value_of(shape: &[u8], strings: &[String], numbers: &[i64]) -> Value {
        let mut stack: Vec<Value> = vec![Value::Array(Vec::new())];
        for (i, s) in shape.iter().enumerate() {
            let leaf = match s % 5 {
                0 => Value::String(strings.get(i % strings.len().max(1)).cloned().unwrap_or_default()),
                1 => json!(numbers.get(i % numbers.len().max(1)).copied().unwrap_or(0)),
                2 => Value::Null,
                3 => {
                    stack.push(Value::Array(Vec::new()));
                    continue;
                }
                _ if stack.len() > 1 => {
                    let inner = stack.pop().unwrap_or(Value::Null);
                    let key = strings.get(i % strings.len().max(1)).cloned().unwrap_or_default();
                    json!({ key: inner })
                }
                _ => Value::Bool(true),
            };
            if let Some(Value::Array(top)) = stack.last_mut() {
                top.push(leaf);
            }
        }
        while stack.len() > 1 {
            let inner = stack.pop().unwrap_or(Value::Null);
            if let Some(Value::Array(top)) = stack.last_mut() {
                top.push(inner);
            }
        }
        stack.pop().unwrap_or(Value::Null)
    }

    #[test]
    fn any_json_reads_the_same() {
        fn prop(shape: Vec<u8>, strings: Vec<String>, numbers: Vec<i64>) -> bool {
            let v = value_of(&shape, &strings, &numbers);
            let compact = serde_json::to_string(&v).unwrap_or_default();
            let pretty = serde_json::to_string_pretty(&v).unwrap_or_default();
            parse(&compact).as_ref() == Ok(&v) && parse(&pretty).as_ref() == Ok(&v)
        }
        quickcheck::QuickCheck::new().tests(500).quickcheck(prop as fn(Vec<u8>, Vec<String>, Vec<i64>) -> bool);
    }
}
