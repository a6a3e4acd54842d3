//! Sans-IO tests of the `memory` tool against answers that do not fit what was asked, through
//! [`crate::session::scripted::Rig`]: more bytes or instructions than asked, an
//! `unreadableBytes` past the request, an answer at another address, entries without an
//! address, a window the adapter could not extend backwards, and the most a read shows within
//! one result. Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::tests::{adapter, code, memory, memory_caps, stopped};
use super::{codec, MemoryOp};
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::Reply;
use crate::reply::MAX_TEXT_CHARS;

fn read_answer(answer: Value) -> crate::session::scripted::Rig {
    let mut a = adapter(memory_caps());
    a.on("readMemory", Reply::ok(answer));
    stopped(a, AdapterKind::Lldb)
}

#[test]
fn a_read_answered_with_more_bytes_than_asked_shows_only_those_asked() {
    let sent: Vec<u8> = (0..102_400u32).map(|i| (i % 251) as u8).collect();
    let mut rig = read_answer(json!({"address": "0x2000", "data": codec::base64_encode(&sent)}));
    let out = memory(&mut rig, MemoryOp::Read, Some("0x2000"), Some(16));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("s1 memory at 0x2000 · 16 bytes · rev 1\n0x00002000  00 01 02"), "{}", out.text);
    assert!(
        out.text.ends_with("\nthe adapter sent 102400 bytes, more than the 16 asked; the first 16 are shown"),
        "{}",
        out.text
    );
    assert_eq!(out.text.lines().count(), 3, "{}", out.text);
    let data = out.structured["data"].as_str().map(codec::base64_decode);
    assert_eq!(data, Some(Ok(sent[..16].to_vec())), "valid base64 of the 16 bytes");
    assert_eq!(out.structured["bytes"], json!(16));
}

#[test]
fn a_read_of_the_most_bytes_fits_in_one_result() {
    let sent = vec![0x41u8; 2048];
    let mut rig = read_answer(json!({"address": "0x7fffffffe000", "data": codec::base64_encode(&sent)}));
    let out = memory(&mut rig, MemoryOp::Read, Some("0x7fffffffe000"), Some(4096));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains(" · 2048 bytes · rev 1 (count 4096 capped at 2048)\n"), "{}", out.text);
    let chars = out.clone().into_value()["content"][0]["text"].as_str().map_or(0, |t| t.chars().count());
    assert!(chars <= MAX_TEXT_CHARS && chars == out.text.chars().count(), "{chars} characters, not cut");
    assert_eq!(out.text.lines().count(), 1 + 2048 / 16, "every row shown");
    let sent = rig.adapter.last("readMemory").map(|r| r["arguments"]["count"].clone());
    assert_eq!(sent, Some(json!(2048)));
}

#[test]
fn an_unreadable_count_past_the_request_is_clamped_and_said() {
    // 5 bytes and a claim of 10^18 unreadable for a 16-byte read.
    let mut rig =
        read_answer(json!({"address": "0x2000", "data": "AQIDBAU=", "unreadableBytes": 1_000_000_000_000_000_000u64}));
    let out = memory(&mut rig, MemoryOp::Read, Some("0x2000"), Some(16));
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.ends_with(
            "\n11 bytes from 0x0000000000002005 on are unreadable\
             \nthe adapter claimed 1000000000000000000 unreadable bytes, more than the 11 left of the 16 asked\
             \nthe adapter answered 5 of the 16 bytes asked for"
        ),
        "{}",
        out.text
    );
    assert_eq!(out.structured["unreadable"], json!(11));
    assert_eq!(out.structured["unreadable_claimed"], json!(1_000_000_000_000_000_000u64));
}

#[test]
fn an_answer_at_another_address_says_whose_address_the_rows_show() {
    let mut rig = read_answer(json!({"address": "0xdeadbeef", "data": "KgAAAA=="}));
    let out = memory(&mut rig, MemoryOp::Read, Some("0x1000"), Some(4));
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text.lines().take(3).collect::<Vec<_>>(),
        [
            "s1 memory at 0x1000 · 4 bytes · rev 1",
            "the adapter answered from 0x00000000deadbeef, not the 0x0000000000001000 asked; the rows show its address",
            "0xdeadbeef  2a 00 00 00                                       |*...|",
        ]
    );
    assert_eq!(out.structured["asked_address"], json!("0x0000000000001000"));
    // The same address written differently is the same address.
    let mut rig = read_answer(json!({"address": "4096", "data": "KgAAAA=="}));
    let out = memory(&mut rig, MemoryOp::Read, Some("0x1000"), Some(4));
    assert!(!out.text.contains("the adapter answered from"), "{}", out.text);
    // An answer address that is no address is said, not silently replaced by the one asked.
    let mut rig = read_answer(json!({"address": "banana", "data": "KgAAAA=="}));
    let out = memory(&mut rig, MemoryOp::Read, Some("0x1000"), Some(4));
    assert!(
        out.text.contains(
            "the adapter answered with address banana, which is not an address; the rows count from the address asked"
        ),
        "{}",
        out.text
    );
}

fn disassembly(answer: Value, count: u64) -> crate::reply::ToolResult {
    let mut a = adapter(memory_caps());
    a.on("disassemble", Reply::ok(answer));
    let mut rig = stopped(a, AdapterKind::Lldb);
    memory(&mut rig, MemoryOp::Disassemble, None, Some(count))
}

#[test]
fn a_disassembly_answered_with_more_instructions_than_asked_keeps_the_window_asked_for() {
    // 100,000 one-byte instructions, the current one (0x1008) the 101st.
    let list: Vec<Value> =
        (0..100_000u64).map(|i| json!({"address": format!("0x{:x}", 0xfa4 + i), "instruction": "nop"})).collect();
    let out = disassembly(json!({"instructions": list}), 16);
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with("s1 disassembly around 0x1008 (the current instruction) · 16 instructions"),
        "{}",
        out.text
    );
    let lines: Vec<&str> = out.text.lines().skip(1).collect();
    assert_eq!(lines.first(), Some(&"  0x00001000    nop"), "{}", out.text);
    assert_eq!(lines.get(8), Some(&"→ 0x00001008    nop"), "{}", out.text);
    assert_eq!(lines.get(15), Some(&"  0x0000100f    nop"), "{}", out.text);
    assert_eq!(
        lines.get(16),
        Some(&"(the adapter sent 100000 instructions, 99984 more than the 16 asked; the ones around the current instruction are shown)")
    );
    assert_eq!(lines.len(), 17, "{}", out.text);
    assert_eq!(out.structured["instructions"].as_array().map(Vec::len), Some(16));
}

#[test]
fn a_window_the_adapter_could_not_extend_backwards_is_not_called_centred() {
    // lldb-dap 22's shape (`tests/native/memory.rs`): `-1` invalid entries, then code from the
    // current instruction on.
    let invalid = json!({"address": "-1", "instruction": "", "presentationHint": "invalid"});
    let out = disassembly(
        json!({"instructions": [invalid, invalid,
            {"address": "0x1008", "instruction": "push rbp", "symbol": "main"},
            {"address": "0x1009", "instruction": "mov rbp, rsp"},
            {"instruction": "?"}, {"address": "", "instruction": "?"}]}),
        6,
    );
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text,
        "s1 disassembly from 0x1008 (the current instruction) · 2 instructions · rev 1\
         \n→ 0x00001008  <main>    push rbp\
         \n  0x00001009  <main+1>  mov rbp, rsp\
         \n(the adapter gave no instructions before 0x0000000000001008: it could not disassemble backwards from here)\
         \n(2 entries without an address left out)"
    );
    // Asked from an address, the same entries are said as what they are.
    let mut a = adapter(memory_caps());
    a.on(
        "disassemble",
        Reply::ok(json!({"instructions": [invalid, {"address": "0x1000", "instruction": "nop"}, invalid]})),
    );
    let mut rig = stopped(a, AdapterKind::Lldb);
    let out = memory(&mut rig, MemoryOp::Disassemble, Some("0x1000"), Some(3));
    assert!(
        out.text.ends_with("\n  0x00001000    nop\n(2 entries the adapter marked invalid left out)"),
        "{}",
        out.text
    );
    assert_eq!(code(&out), None);
}

#[test]
fn a_disassembly_too_long_for_one_result_names_the_call_that_lists_the_rest() {
    // 200 instructions, each with a symbol and an instruction text of hundreds of characters.
    let long = "x".repeat(400);
    let list: Vec<Value> = (0..200u64)
        .map(|i| json!({"address": format!("0x{:x}", 0x1000 + 4 * i), "instruction": long, "symbol": format!("{long}{i}")}))
        .collect();
    let out = disassembly(json!({"instructions": list}), 200);
    assert!(out.text.chars().count() <= crate::reply::MAX_TEXT_CHARS, "{} characters", out.text.len());
    assert!(!out.text.contains("characters cut here"), "no generic cut: the listing ends itself");
    let shown = out.structured["instructions"].as_array().map_or(0, Vec::len);
    assert!(shown > 0 && shown < 200, "{shown}");
    let next = format!("0x{:016x}", 0x1000 + 4 * shown as u64);
    let call =
        format!("`memory {{\"op\": \"disassemble\", \"address\": \"{next}\", \"count\": {}}}` lists them", 200 - shown);
    assert!(out.text.contains(&call), "{}", &out.text[out.text.len().saturating_sub(400)..]);
}
