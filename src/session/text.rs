//! Text helpers every result shares: cutting to a length, the stand-in for an empty value, a
//! path's last component, the last lines of a text. Pure functions; must not know about sessions.

/// Cuts `s` to `max` characters on a char boundary; says whether it cut.
pub(in crate::session) fn clip(s: &str, max: usize) -> (String, bool) {
    match s.char_indices().nth(max) {
        Some((i, _)) => (format!("{}…", &s[..i]), true),
        None => (s.to_owned(), false),
    }
}

/// Most characters of a frame's function name shown (an adapter may send a name of megabytes; a
/// real one is a few hundred at most, a C++ template's).
pub(in crate::session) const FRAME_NAME_CHARS: usize = 500;
/// Most characters of a frame's path kept (Linux's `PATH_MAX`: no real path is longer).
pub(in crate::session) const FRAME_PATH_CHARS: usize = 4096;

/// What a result shows for an empty value string from the adapter (any adapter, any place a
/// value is shown: evaluate, variables, watches, set_variable, previews): never nothing.
pub(in crate::session) const NO_VALUE: &str = "(no value shown by the adapter)";

/// `value`, or [`NO_VALUE`] when the adapter sent an empty one.
pub(in crate::session) fn value_text(value: &str) -> &str {
    if value.is_empty() {
        NO_VALUE
    } else {
        value
    }
}

/// `value`'s first line, and whether more lines follow (js-debug shows a function as its whole
/// source): listings and previews show the first, marked `…`; `evaluate` shows all of it.
pub(in crate::session) fn first_line(value: &str) -> (&str, bool) {
    match value.trim_end().split_once('\n') {
        Some((first, _)) => (first, true),
        None => (value, false),
    }
}

/// The last component of `path` (the file name).
pub(in crate::session) fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The last `n` lines of `text`.
pub(in crate::session) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// `bytes` after `carry` as text; an unfinished UTF-8 sequence at the end stays in `carry` for
/// the next read (invalid bytes become U+FFFD).
pub(in crate::session) fn utf8_text(carry: &mut Vec<u8>, bytes: &[u8]) -> String {
    let mut all = std::mem::take(carry);
    all.extend_from_slice(bytes);
    // The last lead byte within the final 3: if its sequence is longer than what follows it,
    // it is unfinished.
    let start = all.len().saturating_sub(3);
    let keep = (start..all.len())
        .rev()
        .find(|&i| all[i] & 0xC0 != 0x80)
        .map(|i| {
            let need = match all[i] {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            if all.len() - i < need {
                all.len() - i
            } else {
                0
            }
        })
        .unwrap_or(0);
    let cut = all.len() - keep;
    *carry = all[cut..].to_vec();
    String::from_utf8_lossy(&all[..cut]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_cuts_on_char_boundaries() {
        assert_eq!(clip("héllo", 2), ("hé…".to_owned(), true));
        assert_eq!(clip("hé", 2), ("hé".to_owned(), false));
    }

    #[test]
    fn output_keeps_utf8_sequences_split_across_reads() {
        let mut carry = Vec::new();
        let word = "héllo ✓\n".as_bytes();
        let mut text = String::new();
        for chunk in word.chunks(1) {
            text.push_str(&utf8_text(&mut carry, chunk));
        }
        assert_eq!(text, "héllo ✓\n");
        assert!(carry.is_empty());
        assert_eq!(utf8_text(&mut carry, b"a\xffb\xe2\x9c"), "a\u{fffd}b");
        assert_eq!(utf8_text(&mut carry, b"\x93"), "✓");
    }
}
