//! Compact JSON text of a `serde_json::Value`: byte for byte what `serde_json::to_writer` writes
//! (the tests compare the two on generated values), with a table-driven string escape.
//!
//! Why not `serde_json::to_writer`: under the release profile's `opt-level = "z"` its string
//! escape costs ~50 instructions per byte (`scripts/callgrind-roundtrip --adapter lldb`: 51k of
//! a `stack_trace` answer's 313k instructions, for 1.2 KB of JSON). Strings are most of every
//! answer an agent reads, so this one loop is worth owning; numbers are still written by
//! `serde_json` (integers and `f64` have one spelling each there).
//!
//! Escapes (RFC 8259 § 7, as `serde_json` spells them): `"` and `\` with a backslash; `\b \t \n
//! \f \r`; every other byte below 0x20 as `\u00xx` (lower-case hex); nothing else.

use serde_json::Value;

/// Appends `value` as compact JSON text to `out`.
pub fn write(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            // A `Number` always serializes (it holds no non-finite float).
            let _ = serde_json::to_writer(&mut *out, n);
        }
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, key);
                out.push(b':');
                write(out, item);
            }
            out.push(b'}');
        }
    }
}

/// What follows the backslash for each byte that needs one: `u` for `\u00xx`, 0 for none.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string (quoted, escaped).
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = ESCAPE[b as usize];
        if escape == 0 {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        out.push(b'\\');
        out.push(escape);
        if escape == b'u' {
            out.extend_from_slice(&[b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::arbitrary::AnyValue;
    use quickcheck::QuickCheck;
    use serde_json::json;

    fn ours(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, v);
        out
    }

    fn theirs(v: &Value) -> Vec<u8> {
        serde_json::to_vec(v).expect("serde_json writes every Value")
    }

    #[test]
    fn every_ascii_byte_and_some_unicode_escape_as_serde_json_does() {
        let all: String = (0u8..0x80).map(char::from).collect();
        for s in [all.as_str(), "", "plain", "tab\there", "quote \" and \\ back", "é · 日本 🦀", "\u{7f}\u{80}\u{2028}"]
        {
            let v = Value::String(s.to_owned());
            assert_eq!(String::from_utf8(ours(&v)), String::from_utf8(theirs(&v)), "{s:?}");
        }
    }

    #[test]
    fn nested_values_and_numbers_write_as_serde_json_does() {
        let v = json!({
            "content": [{"type": "text", "text": "s1 · rev 1\n  #0 work at a.c:6"}],
            "n": [0, -1, u64::MAX, i64::MIN, 1.5, -0.0, 1e300, 2.5e-8],
            "empty": {}, "none": [], "t": true, "f": false, "z": null,
            "key \"quoted\"\u{1}": {"deep": [[[]]]},
        });
        assert_eq!(String::from_utf8(ours(&v)), String::from_utf8(theirs(&v)));
    }

    #[test]
    fn generated_values_write_as_serde_json_does() {
        fn same(v: AnyValue) -> bool {
            ours(&v.0) == theirs(&v.0)
        }
        QuickCheck::new().tests(2_000).quickcheck(same as fn(AnyValue) -> bool);
    }
}
