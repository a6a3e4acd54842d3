//! Frame names as a person reads them: Rust's legacy symbol mangling that an adapter leaves half
//! decoded (`r::main::_$u7b$$u7b$closure$u7d$$u7d$::hf4fa34fd753bb96d`, lldb-dap 22) becomes
//! `r::main::{{closure}}`. Names without those marks pass through untouched.

use std::borrow::Cow;

/// Readable form of a frame's function name (see the module doc). Only two marks are acted on,
/// both specific to rustc's legacy mangling: a trailing `::h` + 16 hex digits (the hash), and
/// `$…$` escapes (`$LT$`, `$u7b$`, …) with `..` for `::` inside the escaped parts.
pub fn readable_frame_name(name: &str) -> Cow<'_, str> {
    let unhashed = strip_hash(name);
    if !has_escape(unhashed) {
        return if unhashed.len() == name.len() { Cow::Borrowed(name) } else { Cow::Owned(unhashed.to_owned()) };
    }
    Cow::Owned(unescape(unhashed))
}

/// `path::h0123456789abcdef` → `path`.
fn strip_hash(name: &str) -> &str {
    let Some(i) = name.rfind("::h") else { return name };
    let hash = &name[i + 3..];
    if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        &name[..i]
    } else {
        name
    }
}

fn has_escape(name: &str) -> bool {
    ["$LT$", "$GT$", "$RF$", "$BP$", "$C$", "$SP$", "$u"].iter().any(|m| name.contains(m))
}

/// Decodes rustc's legacy escapes in each `::`-separated segment.
fn unescape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, segment) in name.split("::").enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        // A segment that starts with an escape is written with a leading `_`.
        let segment = segment.strip_prefix("_$").map_or(Cow::Borrowed(segment), |s| Cow::Owned(format!("${s}")));
        let mut rest: &str = &segment;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('$') {
                if let Some(end) = after.find('$') {
                    if let Some(c) = escape(&after[..end]) {
                        out.push(c);
                        rest = &after[end + 1..];
                        continue;
                    }
                }
                out.push('$');
                rest = after;
            } else if let Some(after) = rest.strip_prefix("..") {
                out.push_str("::");
                rest = after;
            } else {
                let mut chars = rest.chars();
                if let Some(c) = chars.next() {
                    out.push(c);
                }
                rest = chars.as_str();
            }
        }
    }
    out
}

fn escape(code: &str) -> Option<char> {
    Some(match code {
        "LT" => '<',
        "GT" => '>',
        "RF" => '&',
        "BP" => '*',
        "C" => ',',
        "SP" => '@',
        "LP" => '(',
        "RP" => ')',
        _ => {
            let hex = code.strip_prefix('u')?;
            if hex.is_empty() || hex.len() > 6 {
                return None;
            }
            char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_legacy_names_read_as_source_paths() {
        let cases = [
            ("r::helper::h5f9334a93b59a794", "r::helper"),
            ("r::main::_$u7b$$u7b$closure$u7d$$u7d$::hf4fa34fd753bb96d", "r::main::{{closure}}"),
            (
                "_$LT$core..slice..iter..Iter$LT$T$GT$$u20$as$u20$core..iter..traits..iterator..Iterator$GT$::fold::h0123456789abcdef",
                "<core::slice::iter::Iter<T> as core::iter::traits::iterator::Iterator>::fold",
            ),
            ("std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::h3b0e5a1c2d4f6a7b", "std::rt::lang_start::{{closure}}"),
            ("_$LT$$RF$T$u20$as$u20$core..fmt..Display$GT$::fmt", "<&T as core::fmt::Display>::fmt"),
        ];
        for (raw, want) in cases {
            assert_eq!(readable_frame_name(raw), want, "{raw}");
        }
    }

    #[test]
    fn other_names_pass_through_untouched() {
        for name in ["main", "main.main", "compute", "<module>", "ns::f(int)", "a$b", "x::hello", "f::h12", "$"] {
            assert!(matches!(readable_frame_name(name), Cow::Borrowed(_)), "{name}");
            assert_eq!(readable_frame_name(name), name);
        }
    }
}
