use super::*;
use crate::json::arbitrary::AnyValue;
use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde_json::json;

/// When this reader answers, `serde_json` answers the same; `known` says it must answer.
fn check(text: &[u8], known: bool) {
    let theirs = serde_json::from_slice::<Value>(text).ok();
    match value(text) {
        Some(ours) => assert_eq!(Some(&ours), theirs.as_ref(), "{:?}", String::from_utf8_lossy(text)),
        None => assert!(!known, "gave up on {:?} (serde_json: {theirs:?})", String::from_utf8_lossy(text)),
    }
}

#[test]
fn numbers_read_as_serde_json_reads_them() {
    for t in ["0", "-0", "-1", "7", "-7", "18446744073709551615", "-9223372036854775808", "9223372036854775808"] {
        check(t.as_bytes(), true);
    }
    // Read by serde_json itself (floats, integers past 64 bits), or invalid.
    for t in [
        "18446744073709551616",
        "-9223372036854775809",
        "1.5",
        "-0.0",
        "1e3",
        "2.5E-8",
        "1e400",
        "01",
        "-01",
        "1.",
        ".5",
        "-",
        "1e",
        "1e+",
        "+1",
        "0x1",
        "1.5.2",
        "--1",
        "1 2",
    ] {
        check(t.as_bytes(), false);
    }
    assert_eq!(value(b"-0"), serde_json::from_str("-0").ok(), "serde_json reads -0 as the float -0.0");
    assert_eq!(value(b"1.5"), Some(json!(1.5)), "a float is read, through serde_json's own number");
}

#[test]
fn strings_and_escapes_read_as_serde_json_reads_them() {
    for t in [
        r#""""#,
        r#""plain""#,
        r#""\"\\\/\b\f\n\r\t""#,
        r#""\u00e9\u65e5""#,
        r#""\ud83e\udd80 crab""#,
        "\"é · 日本 🦀\"",
        "\"\u{7f}\u{2028}\"",
    ] {
        check(t.as_bytes(), true);
    }
    assert_eq!(value(br#""\ud83e\udd80""#), Some(json!("🦀")));
    for t in [
        r#""\ud800""#,
        r#""\udc00x""#,
        r#""\ud800\u0041""#,
        r#""\x""#,
        r#""\u12""#,
        r#""\u12g4""#,
        "\"a\u{1}b\"",
        "\"tab\there\"",
        r#""open"#,
        r#""\"#,
    ] {
        check(t.as_bytes(), false);
    }
    check(b"\"\xff\"", false);
    check(b"\"ok\" \xff", false);
}

#[test]
fn structure_reads_as_serde_json_reads_it() {
    for t in ["[]", "{}", " [ 1 , { \"a\" : [ null , true , false ] } ] ", "{\"a\":1,\"a\":2}", "\t\r\n{}\n"] {
        check(t.as_bytes(), true);
    }
    assert_eq!(value(b"{\"a\":1,\"a\":2}"), Some(json!({"a": 2})), "the last of a repeated key stands");
    for t in ["", " ", "[1,]", "{\"a\":1,}", "{a:1}", "[1 2]", "{\"a\" 1}", "[", "{", "{} {}", "nul", "truex", "[]]"] {
        check(t.as_bytes(), false);
    }
    for depth in [1, 100, 101, 127, 128, 129, 200, 10_000] {
        let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        check(arrays.as_bytes(), depth <= 100);
        let objects = format!("{}1{}", "{\"k\":".repeat(depth), "}".repeat(depth));
        check(objects.as_bytes(), depth <= 100);
    }
}

#[test]
fn generated_values_read_back_as_serde_json_reads_them() {
    fn same(v: AnyValue, pretty: bool) -> bool {
        let text = if pretty { serde_json::to_string_pretty(&v.0) } else { serde_json::to_string(&v.0) };
        let text = text.expect("serializable");
        check(text.as_bytes(), true);
        true
    }
    QuickCheck::new().tests(2_000).quickcheck(same as fn(AnyValue, bool) -> bool);
}

/// A text with one byte changed, removed or added somewhere.
#[derive(Clone, Debug)]
struct Mangled(Vec<u8>);

impl Arbitrary for Mangled {
    fn arbitrary(g: &mut Gen) -> Mangled {
        let mut text = serde_json::to_vec(&AnyValue::arbitrary(g).0).expect("serializable");
        let at = usize::arbitrary(g) % (text.len() + 1);
        let byte = *g.choose(b"\"\\{}[],:.-+eE0159 \t\nutfanlx\x00\x1f\x7f\xc3\xa9\xff").expect("not empty");
        match u8::arbitrary(g) % 3 {
            0 if at < text.len() => text[at] = byte,
            1 if at < text.len() => {
                text.remove(at);
            }
            _ => text.insert(at, byte),
        }
        Mangled(text)
    }
}

#[test]
fn mangled_texts_are_read_as_serde_json_reads_them_or_left_to_it() {
    fn same(m: Mangled) -> bool {
        check(&m.0, false);
        true
    }
    QuickCheck::new().tests(5_000).quickcheck(same as fn(Mangled) -> bool);
}

#[test]
fn strings_written_as_escapes_read_back_whole() {
    fn same(s: String, every: bool) -> bool {
        let mut text = String::from("\"");
        for (i, c) in s.chars().enumerate() {
            if every || i % 2 == 0 {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    text.push_str(&format!("\\u{u:04X}"));
                }
            } else {
                let quoted = serde_json::to_string(&c.to_string()).expect("a string");
                text.push_str(&quoted[1..quoted.len() - 1]);
            }
        }
        text.push('"');
        check(text.as_bytes(), true);
        value(text.as_bytes()) == Some(Value::String(s))
    }
    QuickCheck::new().tests(2_000).quickcheck(same as fn(String, bool) -> bool);
}
