//! JSON text to a `serde_json::Value` for the common case, giving up (`None`) on anything
//! unusual so that the caller asks `serde_json` instead. When it answers, it answers exactly what
//! `serde_json::from_slice::<Value>` would (the tests compare the two on generated texts and on
//! mangled ones); it never decides that a text is invalid.
//!
//! Why: under the release profile's `opt-level = "z"` `serde_json`'s `Value` parse costs ~55
//! instructions per byte (`scripts/callgrind-roundtrip --adapter lldb`: 74k of a `stack_trace`
//! call's ~290k, for lldb-dap's 1.4 KB answer), and every DAP message and MCP request is parsed
//! once. Generic code is compiled in the crate that uses it, so a per-package `opt-level` for
//! `serde_json` does not reach this parse (measured: no change).
//!
//! Gives up on: text that is not UTF-8, a control character in a string, an escape other than
//! RFC 8259 § 7's, a `\u` escape of a lone surrogate, nesting deeper than 100 levels (`serde_json`
//! refuses 128), trailing text, any syntax error. Numbers other than integers within `u64`/`i64` are
//! read by `serde_json` itself, token by token, so they come out as its own.

use serde_json::{Map, Number, Value};

/// Deepest nesting read here; deeper text is `serde_json`'s to read or refuse (its default
/// limit refuses 128 levels).
const MAX_DEPTH: usize = 100;

/// The value `text` holds, as `serde_json::from_slice::<Value>` reads it; `None` when this
/// reader does not know (the caller asks `serde_json`).
pub fn value(text: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(text).ok()?;
    let mut r = Reader { text, b: text.as_bytes(), i: 0 };
    let v = r.value(0)?;
    r.skip_space();
    (r.i == r.b.len()).then_some(v)
}

struct Reader<'a> {
    /// The whole text; slices between ASCII delimiters are taken from it, not checked again.
    text: &'a str,
    /// `text`'s bytes.
    b: &'a [u8],
    i: usize,
}

/// The bytes that end a run of a string's plain characters: `"`, `\\`, and the control
/// characters (which `serde_json` refuses inside a string).
const STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

impl Reader<'_> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_space();
        match *self.b.get(self.i)? {
            b'"' => self.string().map(Value::String),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'n' => self.word(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn word(&mut self, word: &[u8], v: Value) -> Option<Value> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| {
            self.i = end;
            v
        })
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_space();
            match *self.b.get(self.i)? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(Value::Array(items));
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let mut map = Map::new();
        self.skip_space();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Some(Value::Object(map));
        }
        loop {
            self.skip_space();
            if self.b.get(self.i) != Some(&b'"') {
                return None;
            }
            let key = self.string()?;
            self.skip_space();
            if self.b.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            let v = self.value(depth)?;
            // A repeated key: the last one stands, as in `serde_json`'s map visitor.
            map.insert(key, v);
            self.skip_space();
            match *self.b.get(self.i)? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(Value::Object(map));
                }
                _ => return None,
            }
        }
    }

    /// A string starting at its opening quote.
    fn string(&mut self) -> Option<String> {
        self.i += 1;
        let start = self.i;
        self.skip_plain();
        // The common case: no escape, one copy.
        if self.b.get(self.i) == Some(&b'"') {
            let s = self.text.get(start..self.i)?.to_owned();
            self.i += 1;
            return Some(s);
        }
        let mut out = String::from(self.text.get(start..self.i)?);
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(out);
                }
                b'\\' => {
                    let escaped = *self.b.get(self.i + 1)?;
                    self.i += 2;
                    let c = match escaped {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    out.push(c);
                }
                // A control character: `serde_json` refuses it.
                _ => return None,
            }
            let run = self.i;
            self.skip_plain();
            out.push_str(self.text.get(run..self.i)?);
        }
    }

    /// Moves past the bytes of a string that stand for themselves (up to a quote, a backslash,
    /// a control character or the end). Those are whole characters: the stops are ASCII.
    fn skip_plain(&mut self) {
        let rest = self.b.get(self.i..).unwrap_or_default();
        self.i += rest.iter().position(|&b| STOP[usize::from(b)]).unwrap_or(rest.len());
    }

    /// The character of a `\uXXXX` escape (a surrogate pair takes two), the index after `\u`.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                if self.b.get(self.i..self.i + 2)? != b"\\u" {
                    return None;
                }
                self.i += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            c => char::from_u32(c),
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + 4)?;
        let mut n = 0u32;
        for &d in digits {
            n = n * 16 + char::from(d).to_digit(16)?;
        }
        self.i += 4;
        Some(n)
    }

    /// A number: integers within `u64` (or `i64` when negative) here; the rest as `serde_json`
    /// reads the token.
    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        let negative = self.b.get(self.i) == Some(&b'-');
        if negative {
            self.i += 1;
        }
        let digits = self.i;
        let mut n: u64 = 0;
        let mut fits = true;
        while let Some(&d @ b'0'..=b'9') = self.b.get(self.i) {
            match n.checked_mul(10).and_then(|n| n.checked_add(u64::from(d - b'0'))) {
                Some(m) => n = m,
                None => fits = false,
            }
            self.i += 1;
        }
        let len = self.i - digits;
        if len == 0 || (len > 1 && self.b.get(digits) == Some(&b'0')) {
            return None;
        }
        let integer = !matches!(self.b.get(self.i), Some(b'.' | b'e' | b'E'));
        if integer && fits {
            if !negative {
                return Some(Value::Number(n.into()));
            }
            // `-0` is the float -0.0 to `serde_json`: left to it, below.
            if let Some(m) = 0i64.checked_sub_unsigned(n).filter(|_| n != 0) {
                return Some(Value::Number(m.into()));
            }
        }
        if !integer {
            if self.b.get(self.i) == Some(&b'.') {
                self.i += 1;
                let frac = self.i;
                while let Some(b'0'..=b'9') = self.b.get(self.i) {
                    self.i += 1;
                }
                if self.i == frac {
                    return None;
                }
            }
            if let Some(b'e' | b'E') = self.b.get(self.i) {
                self.i += 1;
                if let Some(b'+' | b'-') = self.b.get(self.i) {
                    self.i += 1;
                }
                let exp = self.i;
                while let Some(b'0'..=b'9') = self.b.get(self.i) {
                    self.i += 1;
                }
                if self.i == exp {
                    return None;
                }
            }
        }
        let token = self.text.get(start..self.i)?;
        match serde_json::from_str::<Number>(token) {
            Ok(n) => Some(Value::Number(n)),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests;
