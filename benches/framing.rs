//! Framing benchmark (`cargo bench --bench framing`): decoder and encoder throughput against a
//! `memcpy` reference line and a naive decoder, printed as one table.
//!
//! Rows:
//! - `decode`: the real decoder fed one workload in fixed-size chunks (1 B, 7 B, 4 KiB, 64 KiB).
//!   Workloads: `small` (100 000 output events of about 150 bytes), `large` (64 responses with a
//!   1 MiB body), `mixed` (a stream shaped like a debugpy session: output events, stackTrace,
//!   variables, scopes, threads, evaluate responses, stopped/continued events, a few big values).
//! - `encode`: `Encoder::encode_into` of the same messages (from `serde_json::Value`) into one
//!   reused buffer.
//! - `memcpy`: the same stream copied in 64 KiB `copy_from_slice` calls into one pre-faulted
//!   buffer of the stream's size. `%memcpy` of a decode row is its MB/s over this line's MB/s.
//! - `naive`/`naive-ours`: a naive decoder (append every chunk to one buffer, view the whole
//!   buffer as text and search it for the header end from its start, drain each frame out of the
//!   front) against ours, both on 64 KiB messages in 7 B chunks. `ratio` is time(naive)/time(ours).
//!
//! MB is 10^6 bytes; bytes count the whole stream (headers included). Every case runs at least
//! `MIN_RUNS` times and for at least `MIN_TIME`; the table shows the fastest run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use agentdap::dap::framing::{Decoder, Encoder};
use serde_json::{json, Value};

const MIN_RUNS: u32 = 3;
const MIN_TIME: Duration = Duration::from_millis(400);
const CHUNKS: [usize; 4] = [1, 7, 4 << 10, 64 << 10];

/// A workload: its messages (for encoding) and their encoded stream.
struct Workload {
    name: &'static str,
    messages: Vec<Value>,
    stream: Vec<u8>,
}

impl Workload {
    fn new(name: &'static str, messages: Vec<Value>) -> Workload {
        let mut enc = Encoder::new();
        let mut stream = Vec::new();
        for m in &messages {
            enc.encode_into(m, &mut stream).expect("a Value always serializes");
        }
        Workload { name, messages, stream }
    }
}

/// Builds a workload's messages.
type Generator = fn() -> Vec<Value>;

/// Deterministic xorshift generator, so every run measures the same stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn output_event(seq: u64, text: &str) -> Value {
    json!({"seq": seq, "type": "event", "event": "output", "body": {"category": "stdout", "output": text}})
}

fn small_events() -> Vec<Value> {
    (0..100_000u64)
        .map(|seq| output_event(seq, &format!("iteration {seq:>6}: total={:>8} status=ok ✓\n", seq * 7)))
        .collect()
}

fn large_messages() -> Vec<Value> {
    (0..64u64)
        .map(|seq| {
            let head = json!({"seq": seq, "type": "response", "request_seq": seq, "success": true,
                "command": "evaluate", "body": {"result": "", "variablesReference": 0}});
            let pad = (1 << 20) - serde_json::to_vec(&head).map_or(0, |v| v.len());
            let value: String = (0..pad).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            json!({"seq": seq, "type": "response", "request_seq": seq, "success": true,
                "command": "evaluate", "body": {"result": value, "variablesReference": 0}})
        })
        .collect()
}

fn stack_trace(seq: u64, rng: &mut Rng) -> Value {
    let frames: Vec<Value> = (0..1 + rng.below(40))
        .map(|i| {
            json!({"id": 1000 + i, "name": format!("handler_{}", rng.below(500)),
                "source": {"name": "app.py", "path": format!("/srv/app/pkg/module_{i}/app.py")},
                "line": rng.below(2000), "column": 1})
        })
        .collect();
    let total = frames.len();
    json!({"seq": seq, "type": "response", "request_seq": seq - 1, "success": true,
        "command": "stackTrace", "body": {"stackFrames": frames, "totalFrames": total}})
}

fn variables(seq: u64, count: u64, value_len: usize) -> Value {
    let vars: Vec<Value> = (0..count)
        .map(|i| {
            json!({"name": format!("var_{i}"), "value": "x".repeat(value_len), "type": "str",
                "evaluateName": format!("locals()['var_{i}']"), "variablesReference": 0})
        })
        .collect();
    json!({"seq": seq, "type": "response", "request_seq": seq - 1, "success": true,
        "command": "variables", "body": {"variables": vars}})
}

/// About 20 MB shaped like a debugpy session: mostly output and small events, stack traces and
/// variables of various sizes, and now and then a big value.
fn mixed_session() -> Vec<Value> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    let mut seq = 1;
    let mut bytes = 0;
    while bytes < 20_000_000 {
        seq += 1;
        let m = match rng.below(100) {
            0..=54 => output_event(seq, &format!("log line {seq}: processed {} items\n", rng.below(10_000))),
            55..=64 => json!({"seq": seq, "type": "event", "event": "stopped",
                "body": {"reason": "breakpoint", "threadId": 1, "allThreadsStopped": true, "hitBreakpointIds": [1]}}),
            65..=69 => json!({"seq": seq, "type": "event", "event": "continued",
                "body": {"threadId": 1, "allThreadsContinued": true}}),
            70..=74 => json!({"seq": seq, "type": "response", "request_seq": seq - 1, "success": true,
                "command": "threads", "body": {"threads": [{"id": 1, "name": "MainThread"}, {"id": 2, "name": "worker"}]}}),
            75..=82 => stack_trace(seq, &mut rng),
            83..=94 => variables(seq, 1 + rng.below(60), 4 + rng.below(80) as usize),
            95..=97 => json!({"seq": seq, "type": "response", "request_seq": seq - 1, "success": true,
                "command": "evaluate", "body": {"result": "y".repeat(1000 + rng.below(60_000) as usize), "variablesReference": 0}}),
            _ => variables(seq, 2000, 100 + rng.below(200) as usize),
        };
        bytes += serde_json::to_vec(&m).map_or(0, |v| v.len());
        out.push(m);
    }
    out
}

/// Runs `f` at least `MIN_RUNS` times and `MIN_TIME` in total; returns the fastest run.
fn best_of(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut best = Duration::MAX;
    let mut runs = 0;
    while runs < MIN_RUNS || start.elapsed() < MIN_TIME {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
        runs += 1;
    }
    best
}

/// Feeds `stream` in `chunk`-byte pieces; returns (frames, body bytes).
fn decode_all(stream: &[u8], chunk: usize) -> (usize, usize) {
    let mut dec = Decoder::new();
    let mut frames = 0;
    let mut body_bytes = 0;
    for piece in stream.chunks(chunk) {
        dec.feed(black_box(piece), |r| {
            if let Ok(body) = r {
                frames += 1;
                body_bytes += black_box(body).len();
            }
        });
    }
    (frames, body_bytes)
}

fn memcpy_all(stream: &[u8], dst: &mut [u8]) {
    for (src, dst) in stream.chunks(64 << 10).zip(dst.chunks_mut(64 << 10)) {
        dst.copy_from_slice(black_box(src));
    }
    black_box(dst);
}

/// The naive decoder: one growing buffer, the header end searched from the start of the whole
/// buffer (viewed as text) after every chunk, each frame drained out of the front.
#[derive(Default)]
struct Naive {
    buf: Vec<u8>,
}

impl Naive {
    fn push(&mut self, chunk: &[u8], out: &mut Vec<Vec<u8>>) {
        self.buf.extend_from_slice(chunk);
        loop {
            let text = match std::str::from_utf8(&self.buf) {
                Ok(t) => t,
                Err(e) => std::str::from_utf8(&self.buf[..e.valid_up_to()]).unwrap_or(""),
            };
            let Some(end) = text.find("\r\n\r\n") else { return };
            let len: usize = text[..end]
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            let start = end + 4;
            if self.buf.len() < start + len {
                return;
            }
            out.push(self.buf[start..start + len].to_vec());
            self.buf.drain(..start + len);
        }
    }
}

struct Row {
    case: String,
    workload: &'static str,
    chunk: String,
    bytes: usize,
    msgs: usize,
    time: Duration,
    ratio: String,
}

impl Row {
    fn mbps(&self) -> f64 {
        self.bytes as f64 / self.time.as_secs_f64() / 1e6
    }
}

fn chunk_name(chunk: usize) -> String {
    match chunk {
        c if c >= 1 << 10 => format!("{} KiB", c >> 10),
        c => format!("{c} B"),
    }
}

fn main() {
    // `cargo test --all-targets` runs bench targets too, unoptimised and without `--bench`:
    // measuring there would only slow the test suite down.
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("framing benchmark: run it with `cargo bench --bench framing`");
        return;
    }
    // Cargo passes `--bench`; a filter word, if any, selects workloads by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let generators: [(&'static str, Generator); 3] =
        [("small", small_events), ("large", large_messages), ("mixed", mixed_session)];
    let mut rows = Vec::new();
    for (name, generate) in generators {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let w = Workload::new(name, generate());
        let n = w.messages.len();
        let mut dst = vec![1u8; w.stream.len()];
        let t = best_of(|| memcpy_all(&w.stream, &mut dst));
        let memcpy = Row {
            case: "memcpy".into(),
            workload: w.name,
            chunk: "64 KiB".into(),
            bytes: w.stream.len(),
            msgs: n,
            time: t,
            ratio: "100.0% memcpy".into(),
        };
        let reference = memcpy.mbps();
        rows.push(memcpy);
        for chunk in CHUNKS {
            let (frames, _) = decode_all(&w.stream, chunk);
            assert_eq!(frames, n, "{} in {chunk}-byte chunks decoded {frames} of {n} frames", w.name);
            let t = best_of(|| {
                black_box(decode_all(black_box(&w.stream), chunk));
            });
            let mut row = Row {
                case: "decode".into(),
                workload: w.name,
                chunk: chunk_name(chunk),
                bytes: w.stream.len(),
                msgs: n,
                time: t,
                ratio: String::new(),
            };
            row.ratio = format!("{:.1}% memcpy", 100.0 * row.mbps() / reference);
            rows.push(row);
        }
        let mut enc = Encoder::new();
        let mut out = Vec::with_capacity(w.stream.len());
        let t = best_of(|| {
            out.clear();
            for m in &w.messages {
                let _ = enc.encode_into(black_box(m), &mut out);
            }
            black_box(&out);
        });
        rows.push(Row {
            case: "encode".into(),
            workload: w.name,
            chunk: "-".into(),
            bytes: w.stream.len(),
            msgs: n,
            time: t,
            ratio: String::new(),
        });
    }

    if filter.as_ref().map_or(true, |f| "naive".contains(f.as_str())) {
        // The naive decoder's cost grows with the square of the message size: keep it small.
        let messages: Vec<Value> =
            (0..16u64).map(|seq| output_event(seq, &"z".repeat((64 << 10) - 80).chars().collect::<String>())).collect();
        let w = Workload::new("64KiB x16", messages);
        let n = w.messages.len();
        let mut naive_out = Vec::new();
        let mut naive = Naive::default();
        for piece in w.stream.chunks(7) {
            naive.push(piece, &mut naive_out);
        }
        assert_eq!(naive_out.len(), n, "the naive decoder lost frames");
        let t_naive = best_of(|| {
            let mut naive = Naive::default();
            let mut out = Vec::new();
            for piece in w.stream.chunks(7) {
                naive.push(black_box(piece), &mut out);
            }
            black_box(out);
        });
        let t_ours = best_of(|| {
            black_box(decode_all(black_box(&w.stream), 7));
        });
        let ratio = t_naive.as_secs_f64() / t_ours.as_secs_f64();
        for (case, time, ratio) in
            [("naive", t_naive, String::new()), ("naive-ours", t_ours, format!("{ratio:.0}x faster than naive"))]
        {
            rows.push(Row {
                case: case.into(),
                workload: w.name,
                chunk: "7 B".into(),
                bytes: w.stream.len(),
                msgs: n,
                time,
                ratio,
            });
        }
    }

    println!(
        "{:<11} {:<10} {:>7} {:>11} {:>8} {:>10} {:>10} {:>14}  ratio",
        "case", "workload", "chunk", "bytes", "msgs", "best_ms", "MB/s", "msgs/s"
    );
    for r in &rows {
        println!(
            "{:<11} {:<10} {:>7} {:>11} {:>8} {:>10.3} {:>10.1} {:>14.0}  {}",
            r.case,
            r.workload,
            r.chunk,
            r.bytes,
            r.msgs,
            r.time.as_secs_f64() * 1e3,
            r.mbps(),
            r.msgs as f64 / r.time.as_secs_f64(),
            r.ratio
        );
    }
}
