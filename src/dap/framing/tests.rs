//! Unit tests for the frame decoder and encoder: exact-bytes field cases (UTF-8 bodies, blank lines
//! between messages, multi-megabyte bodies, string seqs), recovery from every kind of garbage, the
//! body cap, and reading bodies; the `quickcheck` properties are in `tests/properties.rs`.

use super::*;
use serde_json::json;

mod properties;

/// What the decoder handed out, owned so a whole run can be compared at once.
#[derive(Debug, PartialEq, Eq)]
enum Out {
    Frame(Vec<u8>),
    Diag(Diagnostic),
}

/// Feeds `chunks` one after the other to `dec` and collects everything it produced.
fn run(dec: &mut Decoder, chunks: &[&[u8]]) -> Vec<Out> {
    let mut out = Vec::new();
    for c in chunks {
        dec.feed(c, |r| {
            out.push(match r {
                Ok(body) => Out::Frame(body.to_vec()),
                Err(d) => Out::Diag(d),
            })
        });
    }
    out
}

/// Decodes `chunks` with a fresh default decoder and checks the result and that it ends idle.
fn check(chunks: &[&[u8]], expected: &[Out]) {
    let mut dec = Decoder::new();
    let got = run(&mut dec, chunks);
    assert_eq!(got, expected);
    assert!(dec.is_idle(), "the decoder should wait for a new frame, holding nothing");
}

/// Splits `stream` into pieces of `size` bytes.
fn pieces(stream: &[u8], size: usize) -> Vec<&[u8]> {
    stream.chunks(size).collect()
}

fn frame(body: &[u8]) -> Out {
    Out::Frame(body.to_vec())
}

fn skipped(problem: Problem, bytes: usize, preview: &[u8]) -> Out {
    let mut p = Preview::default();
    p.push(preview);
    Out::Diag(Diagnostic::Skipped { problem, bytes, preview: p })
}

/// Total bytes reported as skipped by `Skipped` diagnostics (a long run may be reported in parts).
fn skipped_bytes(out: &[Out]) -> usize {
    out.iter().map(|o| if let Out::Diag(Diagnostic::Skipped { bytes, .. }) = o { *bytes } else { 0 }).sum()
}

fn frames_only(out: Vec<Out>) -> Vec<Vec<u8>> {
    out.into_iter().filter_map(|o| if let Out::Frame(b) = o { Some(b) } else { None }).collect()
}

// Content-Length counts bytes, not characters (DAP § Base Protocol; microsoft/vscode#99421).

const C01_BODY: &str = r#"{"seq":5,"type":"request","command":"evaluate","arguments":{"expression":"变量","frameId":1000,"context":"hover"}}"#;
const C01_FRAME: &[u8] = b"Content-Length: 116\r\n\r\n{\"seq\":5,\"type\":\"request\",\"command\":\"evaluate\",\"arguments\":{\"expression\":\"\xE5\x8F\x98\xE9\x87\x8F\",\"frameId\":1000,\"context\":\"hover\"}}";
const C01_SECOND: &[u8] = "Content-Length: 94\r\n\r\n{\"seq\":7,\"type\":\"event\",\"event\":\"output\",\"body\":{\"category\":\"stdout\",\"output\":\"héllo ✓\\n\"}}".as_bytes();

#[test]
fn c01_body_length_counts_bytes_not_characters() {
    assert_eq!((C01_BODY.chars().count(), C01_BODY.len()), (112, 116));
    check(&[C01_FRAME], &[frame(C01_BODY.as_bytes())]);
    let msg = parse_body(C01_BODY.as_bytes()).map(|v| v["arguments"]["expression"].clone());
    assert_eq!(msg, Ok(json!("变量")));
}

#[test]
fn c01_body_split_inside_a_cjk_character_yields_one_message() {
    let header_end = C01_FRAME.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let cjk = C01_FRAME.windows(3).position(|w| w == "变".as_bytes());
    let (Some(header_end), Some(cjk)) = (header_end, cjk) else { panic!("C01 bytes changed") };
    let split = cjk + 1; // between 0xE5 and 0x8F
    assert_eq!(&C01_FRAME[split - 1..split + 1], b"\xE5\x8F");
    let reads = [&C01_FRAME[..header_end], &C01_FRAME[header_end..split], &C01_FRAME[split..]];
    check(&reads, &[frame(C01_BODY.as_bytes())]);
}

#[test]
fn c01_two_messages_in_one_read_decode_in_order() {
    let read = [C01_FRAME, C01_SECOND].concat();
    let second = &C01_SECOND[22..];
    check(&[&read], &[frame(C01_BODY.as_bytes()), frame(second)]);
    assert_eq!(parse_body(second).map(|v| v["body"]["output"].clone()), Ok(json!("héllo ✓\n")));
}

#[test]
fn c01_every_two_way_split_decodes_the_same() {
    let read = [C01_FRAME, C01_SECOND].concat();
    let expected = [frame(C01_BODY.as_bytes()), frame(&C01_SECOND[22..])];
    for at in 0..=read.len() {
        check(&[&read[..at], &read[at..]], &expected);
    }
    for size in 1..=9 {
        check(&pieces(&read, size), &expected);
    }
}

// Tolerant header parsing: blank lines between messages, any header-name case, unknown fields.

const C02_INIT: &[u8] = b"{\"seq\":1,\"type\":\"response\",\"request_seq\":1,\"success\":true,\"command\":\"initialize\",\"body\":{\"supportsConfigurationDoneRequest\":true}}";
const C02_INITIALIZED: &[u8] = b"{\"seq\":2,\"type\":\"event\",\"event\":\"initialized\"}";

fn c02_check(stream: &[u8]) {
    let expected = [frame(C02_INIT), frame(C02_INITIALIZED)];
    check(&[stream], &expected);
    check(&pieces(stream, 1), &expected);
    check(&pieces(stream, 7), &expected);
}

#[test]
fn c02_blank_lines_between_messages_are_skipped() {
    c02_check(b"Content-Length: 130\r\n\r\n{\"seq\":1,\"type\":\"response\",\"request_seq\":1,\"success\":true,\"command\":\"initialize\",\"body\":{\"supportsConfigurationDoneRequest\":true}}\r\n\r\nContent-Length: 46\r\n\r\n{\"seq\":2,\"type\":\"event\",\"event\":\"initialized\"}");
}

#[test]
fn c02_header_names_match_case_insensitively() {
    c02_check(
        b"content-length: 130\r\n\r\n{\"seq\":1,\"type\":\"response\",\"request_seq\":1,\"success\":true,\"command\":\"initialize\",\"body\":{\"supportsConfigurationDoneRequest\":true}}CONTENT-LENGTH:46\r\n\r\n{\"seq\":2,\"type\":\"event\",\"event\":\"initialized\"}",
    );
}

#[test]
fn c02_unknown_headers_are_ignored() {
    c02_check(b"Content-Length: 130\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"seq\":1,\"type\":\"response\",\"request_seq\":1,\"success\":true,\"command\":\"initialize\",\"body\":{\"supportsConfigurationDoneRequest\":true}}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 46\r\n\r\n{\"seq\":2,\"type\":\"event\",\"event\":\"initialized\"}");
}

#[test]
fn c02_bare_newline_line_ends_are_accepted() {
    c02_check(b"Content-Length: 130\n\n{\"seq\":1,\"type\":\"response\",\"request_seq\":1,\"success\":true,\"command\":\"initialize\",\"body\":{\"supportsConfigurationDoneRequest\":true}}\n\nContent-Length: 46\r\n\n{\"seq\":2,\"type\":\"event\",\"event\":\"initialized\"}");
}

// Multi-megabyte bodies in 64 KiB reads.

#[test]
fn c04_large_bodies_in_64k_reads_decode_and_hold_only_what_arrived() {
    let variables = format!(
        r#"{{"seq":10,"type":"response","request_seq":9,"success":true,"command":"variables","body":{{"variables":[{{"name":"big","value":"{}","variablesReference":0}}]}}}}"#,
        "7".repeat(20_000_000)
    );
    let output = format!(
        r#"{{"seq":11,"type":"event","event":"output","body":{{"category":"stdout","output":"{}"}}}}"#,
        "é".repeat(4_000_000)
    );
    let stopped = br#"{"seq":12,"type":"event","event":"stopped","body":{"reason":"pause","threadId":1}}"#;
    let mut stream = Vec::new();
    for body in [variables.as_bytes(), output.as_bytes(), stopped] {
        write_frame(&mut stream, body);
    }
    let mut dec = Decoder::new();
    let mut got = Vec::new();
    let mut in_body = 0;
    for piece in stream.chunks(64 << 10) {
        dec.feed(piece, |r| match r {
            Ok(body) => got.push((body.len(), body.to_vec())),
            Err(d) => panic!("unexpected diagnostic {d}"),
        });
        // What the decoder holds is exactly the unfinished body: nothing is kept twice.
        in_body += piece.len();
        assert!(dec.buffered() <= in_body && dec.buffered() <= 20_000_200, "holds {}", dec.buffered());
        if dec.buffered() == 0 {
            in_body = 0;
        }
    }
    let lens: Vec<usize> = got.iter().map(|g| g.0).collect();
    assert_eq!(lens, [variables.len(), output.len(), stopped.len()]);
    assert!(got[0].1 == variables.as_bytes() && got[1].1 == output.as_bytes() && got[2].1 == stopped);
    assert!(dec.is_idle());
}

// `seq` as a string (netcoredbg, Samsung/netcoredbg#161) is the DAP client's business, not the codec's.

#[test]
fn c05_seq_as_a_string_survives_decoding() {
    let first = br#"{"seq":"1","type":"event","event":"initialized","body":{}}"#;
    let second = br#"{"seq":"2","type":"response","request_seq":1,"success":true,"command":"initialize","body":{"supportsConfigurationDoneRequest":true}}"#;
    let stream =
        [b"Content-Length: 58\r\n\r\n".as_slice(), first, b"Content-Length: 132\r\n\r\n".as_slice(), second].concat();
    check(&[&stream], &[frame(first), frame(second)]);
    check(&pieces(&stream, 3), &[frame(first), frame(second)]);
    assert_eq!(parse_body(first).map(|v| v["seq"].clone()), Ok(json!("1")));
    assert_eq!(parse_body(second).map(|v| (v["seq"].clone(), v["request_seq"].clone())), Ok((json!("2"), json!(1))));
}

// The body cap and bodies that are not JSON.

fn too_large(declared: Claim, max: usize) -> Out {
    Out::Diag(Diagnostic::BodyTooLarge { declared, max })
}

#[test]
fn frame_over_the_cap_is_reported_once_and_finishes_the_decoder() {
    let stream =
        b"Content-Length: 2\r\n\r\n[]Content-Length: 11\r\n\r\n{\"a\":\"xxx\"}Content-Length: 10\r\n\r\n{\"a\":\"xx\"}Content-Length: 2\r\n\r\n{}";
    let expected = [frame(b"[]"), too_large(Claim::Bytes(11), 10)];
    for size in [1, 3, 7, stream.len()] {
        let mut dec = Decoder::with_max_body(10);
        assert_eq!(run(&mut dec, &pieces(stream, size)), expected);
        assert!(dec.is_finished() && !dec.is_idle());
        assert_eq!(run(&mut dec, &[b"Content-Length: 2\r\n\r\n{}"]), [], "nothing decodes after the lie");
        assert_eq!(dec.buffered(), 0);
    }
}

#[test]
fn any_claim_over_the_cap_finishes_the_decoder_whatever_its_digit_count() {
    let claims: Vec<(String, Claim)> = vec![
        ("67108865".into(), Claim::Bytes(67_108_865)),
        ("999999999999".into(), Claim::Bytes(999_999_999_999)),
        ("1099511627776".into(), Claim::Bytes(1 << 40)),
        ("18446744073709551615".into(), Claim::Digits(20)),
        ("9".repeat(30), Claim::Digits(30)),
        ("7".repeat(5000), Claim::Digits(5000)),
        (format!("{}67108865", "0".repeat(40)), Claim::Bytes(67_108_865)),
    ];
    for (claim, declared) in claims {
        for header in [format!("Content-Length: {claim}\r\n\r\n"), format!("X: 1\r\ncontent-length:{claim}\n\n")] {
            let stream = [header.as_bytes(), b"{\"seq\":1}Content-Length: 2\r\n\r\n{}"].concat();
            for size in [1, 5, 4096, stream.len()] {
                let mut dec = Decoder::new();
                let got = run(&mut dec, &pieces(&stream, size));
                assert_eq!(got, [too_large(declared, DEFAULT_MAX_BODY)], "{claim} in pieces of {size}");
                assert!(dec.is_finished());
            }
        }
    }
}

#[test]
fn a_claim_at_the_cap_is_collected_and_zeros_in_front_do_not_count() {
    let body = vec![b'x'; 64];
    for header in ["Content-Length: 64\r\n\r\n".to_string(), format!("Content-Length: {}64\r\n\r\n", "0".repeat(30))] {
        let stream = [header.as_bytes(), &body].concat();
        let mut dec = Decoder::with_max_body(64);
        assert_eq!(run(&mut dec, &pieces(&stream, 7)), [frame(&body)], "{header}");
        assert!(dec.is_idle());
    }
}

#[test]
fn body_over_the_cap_is_never_held() {
    let mut dec = Decoder::with_max_body(1 << 10);
    let got = run(&mut dec, &[b"Content-Length: 1000000\r\n\r\n"]);
    assert_eq!(got, [too_large(Claim::Bytes(1_000_000), 1 << 10)]);
    let filler = vec![b'x'; 4096];
    for _ in 0..300 {
        assert_eq!(run(&mut dec, &[&filler]), []);
        assert_eq!(dec.buffered(), 0);
    }
}

#[test]
fn body_that_is_not_json_is_reported_and_the_next_frame_decodes() {
    let stream = b"Content-Length: 9\r\n\r\nnot json!Content-Length: 11\r\n\r\n{\"seq\":1}\r\n";
    let mut dec = Decoder::new();
    let mut parsed = Vec::new();
    dec.feed(stream, |r| parsed.push(r.and_then(parse_body)));
    assert_eq!(parsed, [Err(Diagnostic::NotJson { len: 9, line: 1, column: 2 }), Ok(json!({"seq": 1}))]);
}

#[test]
fn empty_body_is_a_frame_that_is_not_json() {
    check(&[b"Content-Length: 0\r\n\r\nContent-Length: 2\r\n\r\n{}"], &[frame(b""), frame(b"{}")]);
    assert!(matches!(parse_body(b""), Err(Diagnostic::NotJson { len: 0, .. })));
}

// Garbage and resynchronisation.

#[test]
fn garbage_line_before_a_header_is_reported_and_skipped() {
    let stream = b"hello world\r\nContent-Length: 2\r\n\r\n{}";
    let expected = [skipped(Problem::NotAHeader, 13, b"hello world\r"), frame(b"{}")];
    check(&[stream], &expected);
    for size in [1, 2, 5] {
        let got = run(&mut Decoder::new(), &pieces(stream, size));
        assert_eq!((skipped_bytes(&got), frames_only(got)), (13, vec![b"{}".to_vec()]));
    }
}

#[test]
fn garbage_glued_to_the_front_of_a_header_loses_nothing_of_the_frame() {
    check(&[b"xyzContent-Length: 2\r\n\r\n{}"], &[skipped(Problem::NotAHeader, 3, b"xyz"), frame(b"{}")]);
    check(
        &[b"{\"tail\":1}Content-Length: 2\r\n\r\n{}"],
        &[skipped(Problem::NotAHeader, 10, b"{\"tail\":1}"), frame(b"{}")],
    );
}

#[test]
fn body_shorter_than_declared_costs_only_the_frames_it_overlaps() {
    // The first frame claims 40 bytes but carries 8: its body swallows the next frame's header
    // up to "-L"; "ength: 2" then reads as an unknown header and the block has no Content-Length.
    // The frame after that one decodes again.
    let stream = b"Content-Length: 40\r\n\r\n{\"a\":1}\nContent-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]Content-Length: 4\r\n\r\nnull";
    let expected = [
        frame(&stream[22..62]),
        skipped(Problem::MissingContentLength, 12, b""),
        skipped(Problem::NotAHeader, 2, b"[]"),
        frame(b"null"),
    ];
    check(&[stream], &expected);
    // Read in pieces, the swallowed header shows up while the body is still incomplete: the
    // claim is known to be a lie and trust ends instead (module docs).
    let mut dec = Decoder::new();
    assert_eq!(run(&mut dec, &pieces(stream, 3)), [header_in_body(40, 8)]);
    assert!(dec.is_finished());
}

fn header_in_body(declared: usize, at: usize) -> Out {
    Out::Diag(Diagnostic::HeaderInBody { declared, at })
}

#[test]
fn a_header_inside_an_unfinished_body_ends_trust_wherever_it_begins() {
    // Right at the body's start (the liar sent no body at all), after a line, in any case, and at
    // exactly the cap; and the bytes after it never decode.
    let cases: [(&[u8], usize, usize); 4] = [
        (b"Content-Length: 60000000\r\n\r\nContent-Length: 2\r\n\r\n{}", 60_000_000, 0),
        (b"Content-Length: 1000\r\n\r\n{\"a\":1}\r\ncontent-LENGTH: 2\r\n\r\n{}", 1000, 9),
        (b"Content-Length: 1000\r\n\r\n\n\nCONTENT-LENGTH:2\n\n{}", 1000, 2),
        (b"Content-Length: 67108864\r\n\r\nContent-Length: 2\r\n\r\n{}", DEFAULT_MAX_BODY, 0),
    ];
    for (stream, declared, at) in cases {
        for size in [1, 2, 5, 16, stream.len()] {
            let mut dec = Decoder::new();
            let got = run(&mut dec, &pieces(stream, size));
            assert_eq!(got, [header_in_body(declared, at)], "{} in pieces of {size}", stream.escape_ascii());
            assert!(dec.is_finished() && dec.buffered() == 0);
            assert_eq!(run(&mut dec, &[b"Content-Length: 2\r\n\r\n{}"]), [], "nothing decodes after the lie");
        }
    }
}

#[test]
fn header_text_that_is_not_at_a_line_start_in_an_unfinished_body_is_body() {
    // Escaped inside a string, after whitespace, or cut short: JSON may hold these.
    let body = br#"{"a":"\r\nContent-Length: 5", "b":"Content-Length: 7"}
  Content-Length
Content-Length"#;
    let stream = [format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(), body].concat();
    for size in [1, 3, 20, stream.len()] {
        check(&pieces(&stream, size), &[frame(body)]);
    }
}

#[test]
fn header_line_over_the_block_cap_is_skipped() {
    let mut stream = vec![b'a'; 20 << 10];
    stream.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\n{}");
    let garbage = (20 << 10) + 2;
    for size in [1, 7, 4096, stream.len()] {
        let mut dec = Decoder::new();
        let got = run(&mut dec, &pieces(&stream, size));
        assert!(matches!(got[0], Out::Diag(Diagnostic::Skipped { problem: Problem::HeaderTooLong, .. })), "{got:?}");
        assert_eq!((skipped_bytes(&got), frames_only(got)), (garbage, vec![b"{}".to_vec()]));
        assert!(dec.is_idle());
    }
}

#[test]
fn header_block_of_many_lines_over_the_cap_is_skipped() {
    let mut stream = b"X-Filler: 0123456789\r\n".repeat(1000);
    let garbage = stream.len();
    stream.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
    let got = run(&mut Decoder::new(), &[&stream]);
    assert!(matches!(got[0], Out::Diag(Diagnostic::Skipped { problem: Problem::HeaderTooLong, .. })), "{got:?}");
    assert_eq!((skipped_bytes(&got), frames_only(got)), (garbage, vec![b"{}".to_vec()]));
}

#[test]
fn header_block_at_exactly_the_cap_is_accepted_and_one_byte_more_is_not() {
    // Block = "Content-Length: 2\r\n" (19) + "X:" filler "\r\n" + "\r\n".
    let block = |filler: usize| [b"Content-Length: 2\r\nX:".as_slice(), &vec![b'y'; filler], b"\r\n\r\n"].concat();
    let at_cap = block(MAX_HEADER_BLOCK - 25);
    assert_eq!(at_cap.len(), MAX_HEADER_BLOCK);
    let stream = [at_cap.as_slice(), b"{}"].concat();
    check(&[&stream], &[frame(b"{}")]);
    check(&pieces(&stream, 1000), &[frame(b"{}")]);
    check(&pieces(&stream, 1), &[frame(b"{}")]);
    let over = [block(MAX_HEADER_BLOCK - 24).as_slice(), b"{}Content-Length: 2\r\n\r\n[]"].concat();
    for size in [1, 1000, over.len()] {
        let got = run(&mut Decoder::new(), &pieces(&over, size));
        assert!(matches!(got[0], Out::Diag(Diagnostic::Skipped { problem: Problem::HeaderTooLong, .. })), "{got:?}");
        assert_eq!(frames_only(got), [b"[]".to_vec()]);
    }
}

#[test]
fn bad_content_length_values_are_skipped() {
    for bad in ["abc", "", "-5", "+5", "1 2", "0x10", "12345678901234567890x", "9e99"] {
        let stream = format!("Content-Length: {bad}\r\n\r\nContent-Length: 2\r\n\r\n{{}}");
        let got = run(&mut Decoder::new(), &[stream.as_bytes()]);
        let garbage = 16 + bad.len() + 4;
        assert!(matches!(got[0], Out::Diag(Diagnostic::Skipped { problem: Problem::BadContentLength, .. })), "{bad}");
        assert_eq!((skipped_bytes(&got), frames_only(got)), (garbage, vec![b"{}".to_vec()]), "{bad}");
    }
}

#[test]
fn content_length_with_leading_zeros_and_padding_is_accepted() {
    check(&[b"Content-Length:  \t002 \r\n\r\n{}"], &[frame(b"{}")]);
    check(&[b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"], &[frame(b"{}")]);
}

#[test]
fn conflicting_content_lengths_are_skipped() {
    let stream = b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}Content-Length: 2\r\n\r\n[]";
    let got = run(&mut Decoder::new(), &[stream]);
    assert!(matches!(got[0], Out::Diag(Diagnostic::Skipped { problem: Problem::ConflictingContentLength, .. })));
    assert_eq!((skipped_bytes(&got), frames_only(got)), (stream.len() - 23, vec![b"[]".to_vec()]));
}

#[test]
fn header_block_without_content_length_is_reported() {
    let stream = b"Content-Type: x\r\n\r\nContent-Length: 2\r\n\r\n{}";
    check(&[stream], &[skipped(Problem::MissingContentLength, 19, b""), frame(b"{}")]);
    check(&pieces(stream, 1), &[skipped(Problem::MissingContentLength, 19, b""), frame(b"{}")]);
}

#[test]
fn long_garbage_run_is_reported_in_parts_without_being_held() {
    let garbage = vec![b'#'; 3 << 20];
    let mut dec = Decoder::new();
    let mut got = Vec::new();
    for piece in garbage.chunks(64 << 10) {
        got.extend(run(&mut dec, &[piece]));
        assert!(dec.buffered() <= MAX_HEADER_BLOCK);
    }
    assert!(got.len() >= 2, "a long run is reported as it goes: {}", got.len());
    got.extend(run(&mut dec, &[b"Content-Length: 2\r\n\r\n{}"]));
    assert_eq!((skipped_bytes(&got), frames_only(got)), (garbage.len(), vec![b"{}".to_vec()]));
}

#[test]
fn pattern_split_across_reads_during_resync_is_found() {
    let stream = b"junk line\nCONTENT-length: 2\r\n\r\n{}";
    for at in 0..stream.len() {
        let got = run(&mut Decoder::new(), &[&stream[..at], &stream[at..]]);
        assert_eq!((skipped_bytes(&got), frames_only(got)), (10, vec![b"{}".to_vec()]), "split at {at}");
    }
}

// The step API.

#[test]
fn need_more_bytes_is_partial_not_an_error() {
    let mut dec = Decoder::new();
    let step = dec.decode(b"");
    assert_eq!((step.consumed, step.status), (0, Status::Partial));
    let step = dec.decode(b"Content-Len");
    assert_eq!((step.consumed, step.status), (11, Status::Partial));
    let step = dec.decode(b"gth: 4\r\n\r\nnu");
    assert_eq!((step.consumed, step.status), (12, Status::Partial));
    assert!(!dec.is_idle());
    let step = dec.decode(b"llContent");
    assert_eq!((step.consumed, step.status), (2, Status::Frame(Cow::Borrowed(b"null"))));
}

#[test]
fn frame_that_arrived_whole_is_lent_from_the_input() {
    let input = b"\r\nContent-Length: 4\r\n\r\nnullrest";
    let step = Decoder::new().decode(input);
    assert_eq!(step.consumed, input.len() - 4);
    assert!(matches!(step.status, Status::Frame(Cow::Borrowed(b"null"))));
}

#[test]
fn frame_that_arrived_in_pieces_is_handed_over_owned() {
    let mut dec = Decoder::new();
    assert_eq!(dec.decode(b"Content-Length: 4\r\n\r\nnu").status, Status::Partial);
    assert_eq!(dec.buffered(), 2);
    let step = dec.decode(b"ll");
    assert!(matches!(step.status, Status::Frame(Cow::Owned(ref b)) if b == b"null"));
    assert_eq!((dec.buffered(), dec.is_idle()), (0, true));
}

#[test]
fn diagnostics_read_as_log_lines() {
    let mut preview = Preview::default();
    preview.push(b"hi\x00\r\n");
    let cases = [
        (
            Diagnostic::Skipped { problem: Problem::NotAHeader, bytes: 5, preview },
            r#"skipped 5 bytes after a line that is not a header (starting "hi\x00\r\n"); resynchronising at the next Content-Length"#,
        ),
        (
            Diagnostic::Skipped { problem: Problem::MissingContentLength, bytes: 9, preview: Preview::default() },
            "skipped 9 bytes after a header block without Content-Length; resynchronising at the next Content-Length",
        ),
        (
            Diagnostic::BodyTooLarge { declared: Claim::Bytes(70), max: 64 },
            "sent a frame claiming 70 bytes, over the 64-byte limit; its framing is no longer trusted",
        ),
        (
            Diagnostic::BodyTooLarge { declared: Claim::Digits(30), max: 64 },
            "sent a frame claiming a 30-digit number of bytes, over the 64-byte limit; its framing is no longer trusted",
        ),
        (
            Diagnostic::HeaderInBody { declared: 60_000_000, at: 0 },
            "sent a frame claiming 60000000 bytes, but a Content-Length header began 0 bytes into that body; its framing is no longer trusted",
        ),
        (
            Diagnostic::NotJson { len: 3, line: 1, column: 2 },
            "skipped a 3-byte message that is not JSON (error at line 1, column 2)",
        ),
    ];
    for (d, text) in cases {
        assert_eq!(d.to_string(), text);
    }
}

#[test]
fn preview_keeps_the_first_32_bytes() {
    let mut p = Preview::default();
    p.push(&[b'a'; 20]);
    p.push(&[b'b'; 20]);
    assert_eq!(p.as_bytes(), [[b'a'; 20].as_slice(), &[b'b'; 12]].concat());
}

// The encoder.

#[test]
fn encoder_writes_length_in_bytes_and_compact_json() {
    let msg = json!({"seq": 1, "type": "event", "event": "output", "body": {"output": "变量 ✓"}});
    let frame = Encoder::new().encode(&msg).unwrap();
    let body = r#"{"body":{"output":"变量 ✓"},"event":"output","seq":1,"type":"event"}"#;
    assert_eq!(frame, [format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(), body.as_bytes()].concat());
    assert_eq!(body.len(), body.chars().count() + 6);
}

#[test]
fn encode_into_appends_and_round_trips_through_the_decoder() {
    let messages = [
        json!({"seq": 1, "type": "request", "command": "evaluate", "arguments": {"expression": "变量"}}),
        json!({"seq": 2, "type": "event", "event": "output", "body": {"output": "héllo ✓\n🎉"}}),
        json!({"seq": 3, "type": "response", "request_seq": 1, "success": true, "command": "evaluate"}),
    ];
    let mut enc = Encoder::new();
    let mut wire = b"Content-Length: 2\r\n\r\n{}".to_vec();
    for m in &messages {
        enc.encode_into(m, &mut wire).unwrap();
    }
    for size in [1, 5, wire.len()] {
        let mut decoded = Vec::new();
        let mut dec = Decoder::new();
        for piece in wire.chunks(size) {
            dec.feed(piece, |r| decoded.push(r.and_then(parse_body)));
        }
        let expected: Vec<_> = [json!({})].iter().chain(&messages).cloned().map(Ok).collect();
        assert_eq!(decoded, expected);
    }
}

#[test]
fn encode_error_leaves_the_destination_unchanged() {
    let mut bad = std::collections::BTreeMap::new();
    bad.insert(vec![1u8], 1);
    let mut out = b"kept".to_vec();
    assert!(Encoder::new().encode_into(&bad, &mut out).is_err());
    assert_eq!(out, b"kept");
}

#[test]
fn header_len_matches_what_is_written() {
    for n in [0, 9, 10, 99, 100, 12345, 1 << 20, usize::MAX] {
        assert_eq!(header_len(n), format!("Content-Length: {n}\r\n\r\n").len());
    }
}

#[test]
fn a_body_with_a_stray_byte_or_lone_surrogate_is_read_and_pairs_and_escaped_backslashes_stay() {
    let check = |body: &[u8], want: serde_json::Value| {
        assert_eq!(parse_body(body).ok(), Some(want), "{}", String::from_utf8_lossy(body));
    };
    check(b"{\"r\":\"caf\xe9\"}", serde_json::json!({"r": "caf\u{fffd}"}));
    check(br#"{"r":"a\ud800b"}"#, serde_json::json!({"r": "a\u{fffd}b"}));
    check(br#"{"r":"\udc00\ud800"}"#, serde_json::json!({"r": "\u{fffd}\u{fffd}"}));
    // A real pair is one character; an escaped backslash before `u` is text, not an escape.
    check(br#"{"r":"\ud83d\ude00","s":"\\ud800"}"#, serde_json::json!({"r": "\u{1f600}", "s": "\\ud800"}));
    check(br#"{"r":"\\\ud800"}"#, serde_json::json!({"r": "\\\u{fffd}"}));
    assert!(parse_body(b"{\"r\": nope}").is_err());
}

#[test]
fn the_request_seq_of_an_unreadable_response_is_found_only_when_said_plainly() {
    assert_eq!(unreadable_response_seq(br#"{"seq":9,"type":"response","request_seq":42,"body":[[["#), Some(42));
    assert_eq!(unreadable_response_seq(br#"{"seq":9,"type":"event","request_seq":42"#), None);
    assert_eq!(unreadable_response_seq(br#"{"type":"response","body":{}}"#), None);
}
