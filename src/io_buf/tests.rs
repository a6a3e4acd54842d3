//! Unit and property tests for the line reader and the output buffer.

use super::*;
use quickcheck::{quickcheck, TestResult};

#[derive(Debug, PartialEq, Eq, Clone)]
enum Ev {
    Line(Vec<u8>),
    TooLong(usize),
}

/// Drains every event the reader has ready.
fn drain(reader: &mut LineReader, evs: &mut Vec<Ev>) {
    while let Some(ev) = reader.next_line() {
        evs.push(match ev {
            LineEvent::Line(l) => Ev::Line(l.to_vec()),
            LineEvent::TooLong(n) => Ev::TooLong(n),
        });
    }
}

/// Feeds `input` in chunks of the given sizes (cycled), then EOF, and returns all events.
fn read_chunked(cap: usize, input: &[u8], chunks: &[usize]) -> Vec<Ev> {
    let mut reader = LineReader::new(cap);
    let mut evs = Vec::new();
    let mut rest = input;
    let mut sizes = chunks.iter().map(|&n| n.max(1)).cycle();
    while !rest.is_empty() {
        let n = sizes.next().unwrap_or(rest.len()).min(rest.len());
        reader.feed(&rest[..n]);
        rest = &rest[n..];
        drain(&mut reader, &mut evs);
        assert!(reader.buf.len() <= cap + n + 1, "buffered {} bytes with cap {cap}", reader.buf.len());
    }
    reader.finish();
    drain(&mut reader, &mut evs);
    assert!(reader.is_done());
    evs
}

fn check(cap: usize, input: &str, expected: &[Ev]) {
    assert_eq!(read_chunked(cap, input.as_bytes(), &[input.len().max(1)]), expected, "whole input");
    assert_eq!(read_chunked(cap, input.as_bytes(), &[1]), expected, "byte by byte");
    assert_eq!(read_chunked(cap, input.as_bytes(), &[3, 7]), expected, "chunks of 3 and 7");
}

fn line(s: &str) -> Ev {
    Ev::Line(s.as_bytes().to_vec())
}

#[test]
fn splits_on_newline_and_strips_one_trailing_cr() {
    check(100, "{\"a\":1}\n{\"b\":2}\r\n{\"c\":3}\r\r\n", &[line("{\"a\":1}"), line("{\"b\":2}"), line("{\"c\":3}\r")]);
}

#[test]
fn skips_blank_and_whitespace_only_lines() {
    check(100, "\n\r\n  \t\r\nx\n\n\ny\n", &[line("x"), line("y")]);
}

#[test]
fn strips_a_bom_on_the_first_line_only() {
    check(100, "\u{feff}{}\n\u{feff}{}\n", &[line("{}"), line("\u{feff}{}")]);
    check(100, "\u{feff}\n{}\n", &[line("{}")]);
}

#[test]
fn a_final_line_without_newline_is_delivered_at_eof() {
    check(100, "a\nb", &[line("a"), line("b")]);
    check(100, "a\nb\r", &[line("a"), line("b")]);
}

#[test]
fn a_line_at_the_cap_is_accepted_one_byte_more_is_rejected() {
    check(4, "abcd\nabcde\nok\n", &[line("abcd"), Ev::TooLong(5), line("ok")]);
    check(4, "abcd\r\n", &[Ev::TooLong(5)]);
}

#[test]
fn an_over_long_line_is_reported_once_with_its_full_length_and_the_stream_recovers() {
    let long = "x".repeat(1000);
    check(10, &format!("a\n{long}\nb\n{long}"), &[line("a"), Ev::TooLong(1000), line("b"), Ev::TooLong(1000)]);
}

#[test]
fn an_over_long_first_line_consumes_the_bom_allowance() {
    check(4, "\u{feff}abcdef\n\u{feff}x\n", &[Ev::TooLong(9), line("\u{feff}x")]);
}

#[test]
fn a_giant_line_is_never_buffered_whole() {
    let mut reader = LineReader::new(1024);
    let chunk = vec![b'x'; 4096];
    for _ in 0..1000 {
        reader.feed(&chunk);
        assert_eq!(reader.next_line(), None);
        assert!(reader.buf.capacity() <= 8192, "capacity {}", reader.buf.capacity());
    }
    reader.feed(b"x\n{}\n");
    assert_eq!(reader.next_line(), Some(LineEvent::TooLong(4096 * 1000 + 1)));
    assert_eq!(reader.next_line(), Some(LineEvent::Line(b"{}")));
    assert_eq!(reader.next_line(), None);
}

#[test]
fn lines_left_in_the_buffer_survive_a_pause() {
    let mut reader = LineReader::new(100);
    reader.feed(b"a\nb\nc");
    assert_eq!(reader.next_line(), Some(LineEvent::Line(b"a")));
    // The caller pauses here (output over its cap), then comes back.
    assert_eq!(reader.next_line(), Some(LineEvent::Line(b"b")));
    assert_eq!(reader.next_line(), None);
    reader.feed(b"d\n");
    assert_eq!(reader.next_line(), Some(LineEvent::Line(b"cd")));
}

quickcheck! {
    fn any_chunking_gives_the_same_lines(lines: Vec<Vec<u8>>, chunks: Vec<usize>) -> TestResult {
        let cap = 16;
        let mut input = Vec::new();
        for l in &lines {
            input.extend(l.iter().map(|&b| if b == b'\n' { b'n' } else { b }));
            input.push(b'\n');
        }
        let whole = read_chunked(cap, &input, &[input.len().max(1)]);
        let chunks: Vec<usize> = chunks.into_iter().map(|n| n % 40 + 1).collect();
        TestResult::from_bool(read_chunked(cap, &input, &chunks) == whole)
    }

    fn garbage_never_panics_and_lines_respect_the_cap(input: Vec<u8>, chunks: Vec<usize>) -> bool {
        let chunks: Vec<usize> = chunks.into_iter().map(|n| n % 40 + 1).collect();
        read_chunked(8, &input, &chunks).iter().all(|ev| match ev {
            Ev::Line(l) => l.len() <= 8 && !l.contains(&b'\n') && !l.is_empty(),
            Ev::TooLong(n) => *n > 8,
        })
    }
}

/// A writer that accepts a scripted number of bytes per call, then `WouldBlock`, `Interrupted` or
/// an error.
struct Script {
    got: Vec<u8>,
    steps: Vec<Result<usize, io::ErrorKind>>,
}

impl io::Write for Script {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.steps.first().copied() {
            None => Err(io::ErrorKind::WouldBlock.into()),
            Some(step) => {
                let _ = self.steps.remove(0);
                let n = step.map_err(io::Error::from)?.min(buf.len());
                self.got.extend_from_slice(&buf[..n]);
                Ok(n)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn out_buf_writes_until_would_block_retrying_interrupted() {
    let mut out = OutBuf::new();
    out.tail().extend_from_slice(b"hello world\n");
    let mut w = Script { got: Vec::new(), steps: vec![Ok(5), Err(io::ErrorKind::Interrupted), Ok(3)] };
    assert_eq!(out.write_to(&mut w).unwrap(), Written { bytes: 8, blocked: true });
    assert_eq!(out.pending(), 4);
    out.tail().extend_from_slice(b"more\n");
    w.steps = vec![Ok(100)];
    assert_eq!(out.write_to(&mut w).unwrap(), Written { bytes: 9, blocked: false });
    assert_eq!(out.pending(), 0);
    assert_eq!(w.got, b"hello world\nmore\n");
}

#[test]
fn out_buf_reports_errors_and_keeps_the_unwritten_rest() {
    let mut out = OutBuf::new();
    out.tail().extend_from_slice(b"abcdef");
    let mut w = Script { got: Vec::new(), steps: vec![Ok(2), Err(io::ErrorKind::BrokenPipe)] };
    assert_eq!(out.write_to(&mut w).unwrap_err().kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(out.pending(), 4);
    out.clear();
    assert_eq!(out.pending(), 0);
}

#[test]
fn out_buf_cap_is_soft_and_compaction_keeps_order() {
    let mut out = OutBuf::new();
    let block = vec![b'z'; 1024 * 1024];
    for _ in 0..5 {
        out.tail().extend_from_slice(&block);
    }
    assert!(out.over_cap());
    let mut sink = Script { got: Vec::new(), steps: vec![Ok(3 * 1024 * 1024)] };
    out.write_to(&mut sink).unwrap();
    assert!(!out.over_cap());
    out.tail().extend_from_slice(b"end");
    sink.steps = vec![Ok(usize::MAX)];
    out.write_to(&mut sink).unwrap();
    assert_eq!(sink.got.len(), 5 * 1024 * 1024 + 3);
    assert!(sink.got.ends_with(b"zzend"));
}

#[test]
fn out_buf_consumes_what_the_caller_wrote_and_hands_the_rest_over() {
    let mut out = OutBuf::with_cap(4);
    out.tail().extend_from_slice(b"abcdef");
    assert!(out.over_cap(), "6 pending bytes are over a cap of 4");
    out.consume(2);
    assert_eq!((out.unwritten(), out.over_cap()), (&b"cdef"[..], false));
    out.consume(100);
    assert_eq!(out.unwritten(), b"", "consume never passes the end");
    // Past COMPACT_AT written bytes (and half the buffer) the front goes; order is kept.
    let block = vec![b'x'; COMPACT_AT];
    out.tail().extend_from_slice(&block);
    out.tail().extend_from_slice(b"tail");
    out.consume(COMPACT_AT);
    assert_eq!(out.unwritten(), b"tail");
    out.tail().extend_from_slice(b"!");
    assert_eq!(out.take(), b"tail!");
    assert_eq!(out.pending(), 0);
}
