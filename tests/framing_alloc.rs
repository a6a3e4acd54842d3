//! Allocation bounds of the DAP frame codec, measured with a counting `#[global_allocator]`: the
//! decoder never allocates what a header merely claims, copies large bodies linearly (multi-megabyte
//! bodies in 64 KiB reads), lends whole frames without allocating, and the encoder allocates once per message.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use agentdap::dap::framing::{write_frame, Decoder, Encoder};

/// Allocator activity of the current thread (tests run on parallel threads; each counts its own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    calls: usize,
    /// Bytes requested by those calls (a `realloc` counts its new size).
    bytes: usize,
    /// Bytes a `realloc` may have had to move (its old size): the copying done by buffer growth.
    moved: usize,
}

thread_local! {
    static COUNTS: Cell<Counts> = const { Cell::new(Counts { calls: 0, bytes: 0, moved: 0 }) };
}

fn record(bytes: usize, moved: usize) {
    // `try_with`: allocations during thread teardown are simply not counted.
    let _ = COUNTS.try_with(|c| {
        let mut n = c.get();
        n.calls += 1;
        n.bytes += bytes;
        n.moved += moved;
        c.set(n);
    });
}

struct Counting;

// SAFETY: every call is forwarded unchanged to the system allocator; counting has no side effect
// on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size(), 0);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size(), 0);
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size, layout.size());
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns what it allocated on this thread.
fn counting<R>(f: impl FnOnce() -> R) -> (R, Counts) {
    let before = COUNTS.with(Cell::get);
    let r = f();
    let after = COUNTS.with(Cell::get);
    let diff = Counts {
        calls: after.calls - before.calls,
        bytes: after.bytes - before.bytes,
        moved: after.moved - before.moved,
    };
    (r, diff)
}

#[test]
fn header_claiming_60_mib_followed_by_10_bytes_allocates_only_a_small_bound() {
    let input = b"Content-Length: 62914560\r\n\r\n{\"seq\":1,\"";
    for size in [1, 7, input.len()] {
        let mut dec = Decoder::new();
        let (frames, counts) = counting(|| {
            let mut frames = 0;
            for piece in input.chunks(size) {
                dec.feed(piece, |_| frames += 1);
            }
            frames
        });
        assert_eq!((frames, dec.buffered()), (0, 10));
        assert!(counts.bytes <= 8 << 10, "{size}-byte reads allocated {counts:?}");
    }
}

#[test]
fn c04_large_bodies_in_64k_reads_are_copied_linearly() {
    let variables = format!(
        r#"{{"seq":10,"type":"response","request_seq":9,"success":true,"command":"variables","body":{{"variables":[{{"name":"big","value":"{}","variablesReference":0}}]}}}}"#,
        "7".repeat(20_000_000)
    );
    let output = format!(
        r#"{{"seq":11,"type":"event","event":"output","body":{{"category":"stdout","output":"{}"}}}}"#,
        "x".repeat(8_000_000)
    );
    let stopped = br#"{"seq":12,"type":"event","event":"stopped","body":{"reason":"pause","threadId":1}}"#;
    let mut stream = Vec::new();
    for body in [variables.as_bytes(), output.as_bytes(), stopped] {
        write_frame(&mut stream, body);
    }
    let reads: Vec<&[u8]> = stream.chunks(64 << 10).collect();
    let mut dec = Decoder::new();
    let mut lens = Vec::new();
    let ((), counts) = counting(|| {
        for piece in &reads {
            dec.feed(piece, |r| lens.push(r.map(<[u8]>::len)));
        }
    });
    assert_eq!(lens, [Ok(variables.len()), Ok(output.len()), Ok(stopped.len())]);
    let big = variables.len() + output.len();
    // Each body buffer at most doubles as bytes arrive: O(log n) allocations, a geometric series of
    // sizes (under 3 n bytes requested, under 2 n moved by growth, n = both bodies). Re-collecting
    // the body on each of the ~430 reads, as a naive reader does, would move about 6 GB instead.
    assert!(counts.calls <= 2 * 20, "{counts:?}");
    assert!(counts.bytes <= 3 * big + (64 << 10), "{counts:?}");
    assert!(counts.moved <= 2 * big, "{counts:?}");
}

#[test]
fn frames_that_arrive_whole_are_decoded_without_allocating() {
    let mut stream = Vec::new();
    for seq in 0..1000 {
        write_frame(&mut stream, format!(r#"{{"seq":{seq},"type":"event","event":"continued"}}"#).as_bytes());
    }
    let mut dec = Decoder::new();
    let (frames, counts) = counting(|| {
        let mut frames = 0;
        dec.feed(&stream, |r| frames += usize::from(r.is_ok()));
        frames
    });
    assert_eq!((frames, counts.calls), (1000, 0));
}

#[test]
fn encoder_allocates_once_per_message_and_not_at_all_into_a_roomy_buffer() {
    let msg =
        serde_json::json!({"seq": 1, "type": "request", "command": "evaluate", "arguments": {"expression": "变量"}});
    let mut enc = Encoder::new();
    let warm = enc.encode(&msg).map(|f| f.len()).ok();
    let (frame, counts) = counting(|| enc.encode(&msg));
    assert_eq!((frame.map(|f| f.len()).ok(), counts.calls), (warm, 1));

    let mut out = Vec::with_capacity(4096);
    let (r, counts) = counting(|| enc.encode_into(&msg, &mut out));
    assert_eq!((r.is_ok(), counts.calls), (true, 0));
    let body = r#"{"arguments":{"expression":"变量"},"command":"evaluate","seq":1,"type":"request"}"#;
    assert_eq!((body.len(), body.chars().count()), (83, 79));
    assert_eq!(out, [b"Content-Length: 83\r\n\r\n".as_slice(), body.as_bytes()].concat());
}
