//! The byte codecs of the `memory` tool: base64 (RFC 4648 § 4, the standard alphabet with `=`
//! padding, which DAP § Requests › ReadMemory and › WriteMemory use for `data`) and hex as the
//! agent writes it (pairs of digits, whitespace between them allowed). Must not: know about
//! DAP requests or sessions.

use std::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why a text is not the bytes it claims to be: the offending character and its position (in
/// characters, from 0), or a length that cannot be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodecError {
    /// A character that is not part of the encoding.
    BadChar { ch: char, at: usize },
    /// Hex with an odd number of digits (half a byte at the end).
    OddDigits,
    /// base64 whose length (without whitespace) leaves a lone character in its last group.
    BadLength,
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecError::BadChar { ch, at } => write!(f, "character {ch:?} at position {at} does not belong there"),
            CodecError::OddDigits => write!(f, "an odd number of hex digits (each byte is two)"),
            CodecError::BadLength => write!(f, "its length is not that of base64 (a lone character in the last group)"),
        }
    }
}

/// `bytes` as base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Reads base64 (whitespace ignored, padding optional, `=` only at the end).
pub fn base64_decode(text: &str) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    let mut digits = 0usize;
    let mut padding = false;
    for (at, ch) in text.chars().enumerate() {
        if ch.is_whitespace() {
            continue;
        }
        if ch == '=' {
            padding = true;
            continue;
        }
        let value = match ch {
            'A'..='Z' => ch as u32 - 'A' as u32,
            'a'..='z' => ch as u32 - 'a' as u32 + 26,
            '0'..='9' => ch as u32 - '0' as u32 + 52,
            '+' => 62,
            '/' => 63,
            _ => return Err(CodecError::BadChar { ch, at }),
        };
        if padding {
            // A digit after `=`: the padding was not at the end.
            return Err(CodecError::BadChar { ch: '=', at: at.saturating_sub(1) });
        }
        acc = (acc << 6) | value;
        bits += 6;
        digits += 1;
        if bits >= 8 {
            bits -= 8;
            // The low byte of a value shifted into range: the cast keeps exactly those 8 bits.
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if digits % 4 == 1 {
        return Err(CodecError::BadLength);
    }
    Ok(out)
}

/// `bytes` as lowercase hex pairs separated by one space (`2a 00 ff`).
pub fn hex_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Reads hex digit pairs; whitespace may separate them (`2a00 ff`, `2a 00 ff`).
pub fn hex_decode(text: &str) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    for (at, ch) in text.chars().enumerate() {
        if ch.is_whitespace() && high.is_none() {
            continue;
        }
        // A digit's value is below 16: the cast cannot lose anything.
        let Some(d) = ch.to_digit(16).map(|d| d as u8) else {
            return Err(CodecError::BadChar { ch, at });
        };
        match high.take() {
            None => high = Some(d),
            Some(h) => out.push((h << 4) | d),
        }
    }
    if high.is_some() {
        return Err(CodecError::OddDigits);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        // RFC 4648 § 10.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_encode(plain.as_bytes()), coded);
            assert_eq!(base64_decode(coded), Ok(plain.as_bytes().to_vec()));
        }
        // lldb-dap 22's answer for `int counter = 0x2a` and the 12 bytes after it.
        assert_eq!(base64_decode("KgAAABTl////fwAAAQAAAA==").map(|b| b[..4].to_vec()), Ok(vec![0x2a, 0, 0, 0]));
    }

    #[test]
    fn base64_reads_unpadded_and_spaced_text_and_names_a_bad_character() {
        assert_eq!(base64_decode("Zm9v YmE"), Ok(b"fooba".to_vec()));
        assert_eq!(base64_decode("Zm9v!"), Err(CodecError::BadChar { ch: '!', at: 4 }));
        assert_eq!(base64_decode("Zg==Zg"), Err(CodecError::BadChar { ch: '=', at: 3 }));
        assert_eq!(base64_decode("Zm9vY"), Err(CodecError::BadLength));
    }

    #[test]
    fn hex_reads_pairs_with_or_without_spaces_and_names_a_bad_character() {
        assert_eq!(hex_decode("2a 00 00 00"), Ok(vec![0x2a, 0, 0, 0]));
        assert_eq!(hex_decode("2A00ff"), Ok(vec![0x2a, 0, 0xff]));
        assert_eq!(hex_decode("  "), Ok(vec![]));
        assert_eq!(hex_decode("2a 0g"), Err(CodecError::BadChar { ch: 'g', at: 4 }));
        assert_eq!(hex_decode("2 a"), Err(CodecError::BadChar { ch: ' ', at: 1 }));
        assert_eq!(hex_decode("2a0"), Err(CodecError::OddDigits));
        assert_eq!(hex_encode(&[0x2a, 0, 0xff]), "2a 00 ff");
        assert_eq!(
            CodecError::BadChar { ch: 'g', at: 4 }.to_string(),
            "character 'g' at position 4 does not belong there"
        );
    }

    quickcheck! {
        fn base64_round_trips(bytes: Vec<u8>) -> bool {
            base64_decode(&base64_encode(&bytes)) == Ok(bytes)
        }

        fn hex_round_trips(bytes: Vec<u8>) -> bool {
            hex_decode(&hex_encode(&bytes)) == Ok(bytes)
        }
    }
}
