//! `quickcheck` properties of the frame decoder: any chunking of valid (and of honest bodies
//! holding header text) decodes the same, random bytes and header soup never panic, garbage is
//! skipped up to the next valid message, and a claim over the cap or a lying length ends trust
//! for good. Uses the field-case helpers of [`super`]; must not hold exact-bytes cases.

use super::*;
use quickcheck::{QuickCheck, TestResult};

/// How one generated message's header is spelled.
fn header_for(style: u8, len: usize) -> String {
    match style % 6 {
        0 => format!("Content-Length: {len}\r\n\r\n"),
        1 => format!("content-length: {len}\r\n\r\n"),
        2 => format!("Content-Length: {len}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"),
        3 => format!("Content-Length: {len}\n\n"),
        4 => format!("\r\n\r\nCONTENT-LENGTH:{len}\r\n\r\n"),
        _ => format!("X-Other: 1\r\nContent-Length: {len}\r\n\r\n"),
    }
}

/// Chunk sizes from arbitrary bytes: mostly tiny (inside headers and UTF-8 sequences), some larger.
fn cut(stream: &[u8], sizes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = stream;
    let mut i = 0;
    while !rest.is_empty() {
        let s = sizes.get(i % sizes.len().max(1)).copied().unwrap_or(255);
        let n = if s < 128 { usize::from(s % 8) + 1 } else { usize::from(s) };
        let (a, b) = rest.split_at(n.min(rest.len()));
        out.push(a.to_vec());
        rest = b;
        i += 1;
    }
    out
}

fn decode_pieces(pieces: &[Vec<u8>]) -> Vec<Out> {
    let refs: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
    run(&mut Decoder::new(), &refs)
}

fn prop_any_chunking_of_valid_messages_decodes_them_in_order(texts: Vec<(String, u8)>, sizes: Vec<u8>) -> bool {
    let mut stream = Vec::new();
    let mut bodies = Vec::new();
    for (seq, (text, style)) in texts.iter().enumerate() {
        let body = json!({"seq": seq, "type": "event", "event": "output", "body": {"output": text}}).to_string();
        stream.extend_from_slice(header_for(*style, body.len()).as_bytes());
        stream.extend_from_slice(body.as_bytes());
        bodies.push(frame(body.as_bytes()));
    }
    decode_pieces(&cut(&stream, &sizes)) == bodies
}

#[test]
fn any_chunking_of_valid_messages_decodes_them_in_order() {
    QuickCheck::new().tests(400).quickcheck(
        prop_any_chunking_of_valid_messages_decodes_them_in_order as fn(Vec<(String, u8)>, Vec<u8>) -> bool,
    );
}

fn prop_random_bytes_never_panic(bytes: Vec<u8>, sizes: Vec<u8>, max_body: u8) -> bool {
    let mut dec = Decoder::with_max_body(usize::from(max_body));
    let mut consumed_all = true;
    for piece in cut(&bytes, &sizes) {
        let mut input = piece.as_slice();
        loop {
            let step = dec.decode(input);
            consumed_all &= step.consumed <= input.len();
            input = &input[step.consumed.min(input.len())..];
            if step.status == Status::Partial {
                consumed_all &= input.is_empty();
                break;
            }
        }
    }
    consumed_all
}

#[test]
fn random_bytes_never_panic() {
    QuickCheck::new().tests(2000).quickcheck(prop_random_bytes_never_panic as fn(Vec<u8>, Vec<u8>, u8) -> bool);
}

/// Bytes biased towards what confuses a header parser.
fn header_soup(picks: &[u8]) -> Vec<u8> {
    const PARTS: [&[u8]; 12] =
        [b"\r", b"\n", b":", b" ", b"Content-", b"Length", b"conte", b"X: y", b"7", b"{}", "é".as_bytes(), b"\x00"];
    picks.iter().map(|&p| PARTS[usize::from(p) % PARTS.len()]).collect::<Vec<_>>().concat()
}

fn prop_header_soup_never_panics(picks: Vec<u8>, sizes: Vec<u8>) -> bool {
    prop_random_bytes_never_panic(header_soup(&picks), sizes, 16)
}

#[test]
fn header_like_soup_never_panics() {
    QuickCheck::new().tests(2000).quickcheck(prop_header_soup_never_panics as fn(Vec<u8>, Vec<u8>) -> bool);
}

fn prop_garbage_then_a_valid_message_yields_that_message(
    garbage: Vec<u8>,
    picks: Vec<u8>,
    text: String,
    sizes: Vec<u8>,
) -> TestResult {
    let garbage = [garbage, header_soup(&picks)].concat();
    if contains_ignore_case(&garbage, b"content-length") || garbage.len() > MAX_HEADER_BLOCK {
        return TestResult::discard();
    }
    let body = json!({"seq": 1, "type": "event", "event": "output", "body": {"output": text}}).to_string();
    let stream = [garbage.as_slice(), header_for(0, body.len()).as_bytes(), body.as_bytes()].concat();
    let got = decode_pieces(&cut(&stream, &sizes));
    let skipped = skipped_bytes(&got);
    TestResult::from_bool(frames_only(got) == [body.into_bytes()] && skipped <= garbage.len())
}

#[test]
fn garbage_then_a_valid_message_yields_that_message() {
    QuickCheck::new().tests(1000).quickcheck(
        prop_garbage_then_a_valid_message_yields_that_message as fn(Vec<u8>, Vec<u8>, String, Vec<u8>) -> TestResult,
    );
}

fn prop_after_a_claim_over_the_cap_no_frame_is_ever_decoded(
    before: Vec<String>,
    excess: u64,
    digits: u8,
    after: Vec<u8>,
    sizes: Vec<u8>,
    max_body: u16,
) -> bool {
    let max_body = usize::from(max_body);
    let mut stream = Vec::new();
    let mut expected = Vec::new();
    for text in &before {
        let body = json!({"output": text}).to_string();
        if body.len() > max_body {
            continue;
        }
        stream.extend_from_slice(header_for(0, body.len()).as_bytes());
        stream.extend_from_slice(body.as_bytes());
        expected.push(frame(body.as_bytes()));
    }
    // Either a number just over the cap or a long run of digits.
    let (claim, declared) = match digits % 2 {
        0 => {
            let n = max_body as u64 + 1 + excess % (1 << 50);
            (n.to_string(), Claim::Bytes(n))
        }
        _ => {
            let d = 20 + usize::from(digits);
            ("9".repeat(d), Claim::Digits(d))
        }
    };
    stream.extend_from_slice(format!("Content-Length: {claim}\r\n\r\n").as_bytes());
    // Whatever follows, valid frames included, never decodes.
    stream.extend_from_slice(&after);
    stream.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
    expected.push(too_large(declared, max_body));
    let refs = cut(&stream, &sizes);
    let refs: Vec<&[u8]> = refs.iter().map(Vec::as_slice).collect();
    let mut dec = Decoder::with_max_body(max_body);
    run(&mut dec, &refs) == expected && dec.is_finished()
}

#[test]
fn after_a_claim_over_the_cap_no_frame_is_ever_decoded() {
    QuickCheck::new().tests(500).quickcheck(
        prop_after_a_claim_over_the_cap_no_frame_is_ever_decoded
            as fn(Vec<String>, u64, u8, Vec<u8>, Vec<u8>, u16) -> bool,
    );
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle))
}

/// An honest body with raw `\r\n` whitespace between tokens and `Content-Length` text in strings.
fn honest_body(seq: usize, text: &str) -> Vec<u8> {
    let v = json!({"seq": seq, "type": "event", "event": "output",
        "body": {"output": text, "note": "\r\nContent-Length: 12\r\n\r\n", "Content-Length:": 1}});
    serde_json::to_string_pretty(&v).unwrap_or_default().replace('\n', "\r\n").into_bytes()
}

fn prop_any_chunking_of_honest_bodies_with_header_text_decodes_them(texts: Vec<(String, u8)>, sizes: Vec<u8>) -> bool {
    let mut stream = Vec::new();
    let mut bodies = Vec::new();
    for (seq, (text, style)) in texts.iter().enumerate() {
        let body = honest_body(seq, text);
        stream.extend_from_slice(header_for(*style, body.len()).as_bytes());
        stream.extend_from_slice(&body);
        bodies.push(frame(&body));
    }
    decode_pieces(&cut(&stream, &sizes)) == bodies
}

#[test]
fn any_chunking_of_honest_bodies_with_header_text_decodes_them() {
    QuickCheck::new().tests(400).quickcheck(
        prop_any_chunking_of_honest_bodies_with_header_text_decodes_them as fn(Vec<(String, u8)>, Vec<u8>) -> bool,
    );
}

fn prop_any_chunking_of_a_lying_length_ends_trust(
    before: Vec<String>,
    start: String,
    excess: u32,
    style: u8,
    sizes: Vec<u8>,
) -> bool {
    let mut stream = Vec::new();
    let mut expected = Vec::new();
    for (seq, text) in before.iter().enumerate() {
        let body = honest_body(seq, text);
        stream.extend_from_slice(header_for(0, body.len()).as_bytes());
        stream.extend_from_slice(&body);
        expected.push(frame(&body));
    }
    // The lie: a claim longer than everything after it, then a line of JSON text (no raw
    // newline), then honest frames that the claimed body would swallow.
    let start = serde_json::to_string(&start).unwrap_or_default();
    let mut after = start.clone().into_bytes();
    after.extend_from_slice(b"\r\n");
    let at = after.len();
    for (seq, text) in before.iter().enumerate() {
        let body = honest_body(seq, text);
        // Not style 5: its first line is another header.
        after.extend_from_slice(header_for(style % 5, body.len()).trim_start().as_bytes());
        after.extend_from_slice(&body);
    }
    after.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
    let declared = (after.len() + 1 + excess as usize % (1 << 20)).min(DEFAULT_MAX_BODY);
    stream.extend_from_slice(header_for(0, declared).as_bytes());
    stream.extend_from_slice(&after);
    expected.push(header_in_body(declared, at));
    let refs = cut(&stream, &sizes);
    let refs: Vec<&[u8]> = refs.iter().map(Vec::as_slice).collect();
    let mut dec = Decoder::new();
    run(&mut dec, &refs) == expected && dec.is_finished()
}

#[test]
fn any_chunking_of_a_lying_length_ends_trust() {
    QuickCheck::new().tests(400).quickcheck(
        prop_any_chunking_of_a_lying_length_ends_trust as fn(Vec<String>, String, u32, u8, Vec<u8>) -> bool,
    );
}
