//! How the `memory` tool's answers read: a hex dump (16 bytes a line, each line with its
//! address, the bytes, and their ASCII) and a disassembly (one instruction a line, its address,
//! `<symbol+offset>` counted from the last instruction the adapter named a symbol for, the
//! adapter's text, the source line where the adapter gives one, the current instruction marked).
//! Must not: send requests or read session state (the caller hands in what to show).

use serde_json::{json, Map, Value};

use crate::dap::requests::DisassembledInstruction;
use crate::session::snapshot::put;
use crate::session::text::clip;

/// Bytes per hex dump line.
pub const DUMP_WIDTH: usize = 16;
/// Most characters of one instruction's text shown.
const INSTRUCTION_CHARS: usize = 120;

/// Reads an address as DAP writes them (DAP § Requests › ReadMemory `address`, § Types ›
/// DisassembledInstruction `address`): hex when prefixed with `0x`, else decimal.
pub fn parse_address(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() => u64::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None => t.parse().ok(),
    }
}

/// Whether `text` is written as a memory reference (`0x…` hex) rather than an expression: the
/// adapters here give memory references that way (lldb-dap 22 `0x7FFFFFFFE514`, Delve
/// `0x49af01` as an `instructionPointerReference`).
pub fn is_reference(text: &str) -> bool {
    let t = text.trim();
    t.strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .is_some_and(|h| !h.is_empty() && h.len() <= 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// An address as the results show it: `0x` and 16 hex digits (8 where `wide` is false).
pub fn address_text(addr: u64, wide: bool) -> String {
    if wide {
        format!("0x{addr:016x}")
    } else {
        format!("0x{addr:08x}")
    }
}

/// Whether addresses up to `max` need 16 hex digits.
fn wide(max: u64) -> bool {
    max > u64::from(u32::MAX)
}

/// The hex dump of `bytes` read at `base` (when the adapter's address could be read; else each
/// line shows its offset from the start): `0x00007fffffffe514  2a 00 00 00 … |*...|`.
pub fn hex_dump(base: Option<u64>, bytes: &[u8]) -> String {
    let last = base.unwrap_or(0).saturating_add(bytes.len() as u64);
    let wide = wide(last);
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(DUMP_WIDTH).enumerate() {
        let at = (i * DUMP_WIDTH) as u64;
        let label = match base {
            Some(b) => address_text(b.wrapping_add(at), wide),
            None => format!("+0x{at:04x}"),
        };
        let mut hex = String::with_capacity(3 * DUMP_WIDTH + 1);
        for (j, b) in chunk.iter().enumerate() {
            if j == DUMP_WIDTH / 2 {
                hex.push(' ');
            }
            hex.push_str(&format!("{b:02x} "));
        }
        let ascii: String =
            chunk.iter().map(|&b| if (0x20..0x7f).contains(&b) { char::from(b) } else { '.' }).collect();
        out.push_str(&format!("\n{label}  {hex:<width$} |{ascii}|", width = 3 * DUMP_WIDTH + 1));
    }
    out
}

/// One disassembled instruction as a result shows it.
pub struct Line {
    pub text: String,
    pub json: Value,
}

/// What a disassembly shows: its lines, how many entries the adapter marked invalid (left
/// out), and whether the current instruction was among them.
pub struct Listing {
    pub lines: Vec<Line>,
    pub invalid: usize,
    pub has_current: bool,
}

/// The lines of a disassembly; `current` is the address to mark `→`.
pub fn disassembly(instructions: &[DisassembledInstruction], current: Option<u64>) -> Listing {
    let mut symbol: Option<(String, u64)> = None;
    let mut invalid = 0;
    let mut rows = Vec::new();
    for ins in instructions {
        let address = ins.address.as_deref().and_then(parse_address);
        if ins.presentation_hint.as_deref() == Some("invalid") || address.is_none() {
            // lldb-dap 22 answers `-1` for a slot where no code is mapped.
            invalid += 1;
            symbol = None;
            continue;
        }
        let addr = address.unwrap_or(0);
        if let Some(name) = ins.symbol.as_deref().filter(|s| !s.is_empty()) {
            symbol = Some((name.to_owned(), addr));
        }
        let sym = symbol.as_ref().filter(|(_, start)| *start <= addr).map(|(name, start)| match addr - start {
            0 => name.clone(),
            off => format!("{name}+{off}"),
        });
        let source =
            ins.location.as_ref().and_then(|l| l.path.as_deref().or(l.name.as_deref())).filter(|p| !p.is_empty());
        let text = clip(ins.instruction.as_deref().unwrap_or("").trim(), INSTRUCTION_CHARS).0;
        rows.push((addr, sym, text, source.map(str::to_owned), ins.line));
    }
    let max = rows.iter().map(|r| r.0).max().unwrap_or(0);
    let wide = wide(max);
    let sym_width = rows.iter().map(|r| r.1.as_ref().map_or(0, |s| s.chars().count() + 2)).max().unwrap_or(0);
    let text_width = rows.iter().map(|r| r.2.chars().count()).max().unwrap_or(0).min(40);
    let mut has_current = false;
    let lines = rows
        .into_iter()
        .map(|(addr, sym, text, source, line)| {
            let is_current = Some(addr) == current;
            has_current |= is_current;
            let mark = if is_current { "→" } else { " " };
            let sym_col = sym.as_ref().map(|s| format!("<{s}>")).unwrap_or_default();
            let mut out = format!("{mark} {}  {sym_col:<sym_width$}  {text}", address_text(addr, wide));
            let place = match (&source, line) {
                (Some(p), Some(l)) => Some(format!("{}:{l}", p.rsplit('/').next().unwrap_or(p))),
                (None, Some(l)) => Some(format!("line {l}")),
                _ => None,
            };
            if let Some(place) = &place {
                let pad = text_width.saturating_sub(text.chars().count());
                out.push_str(&format!("{:pad$}  ; {place}", ""));
            }
            let mut m = Map::new();
            m.insert("address".into(), address_text(addr, wide).into());
            m.insert("instruction".into(), text.into());
            put(&mut m, "symbol", sym.map(Value::from));
            put(&mut m, "path", source.map(Value::from));
            put(&mut m, "line", line.map(Value::from));
            if is_current {
                m.insert("current".into(), json!(true));
            }
            Line { text: out.trim_end().to_owned(), json: Value::Object(m) }
        })
        .collect();
    Listing { lines, invalid, has_current }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instructions(v: Value) -> Vec<DisassembledInstruction> {
        use crate::dap::requests::{Disassemble, Request};
        Disassemble::parse(Some(&v)).map(|r| r.instructions).unwrap_or_default()
    }

    #[test]
    fn addresses_and_references_read_as_dap_writes_them() {
        assert_eq!(parse_address("0x7FFFFFFFE514"), Some(0x7fff_ffff_e514));
        assert_eq!(parse_address("4096"), Some(4096));
        assert_eq!(parse_address("-1"), None);
        assert_eq!(parse_address("0x"), None);
        assert!(is_reference("0x7FFFFFFFE514") && is_reference(" 0x49af01 "));
        assert!(!is_reference("counter") && !is_reference("&x") && !is_reference("0x") && !is_reference("0xfoo"));
    }

    #[test]
    fn a_hex_dump_shows_each_lines_address_bytes_and_ascii() {
        let bytes: Vec<u8> = [0x2a, 0, 0, 0].iter().copied().chain(b"abc\0".iter().copied()).chain(0..10).collect();
        assert_eq!(
            hex_dump(Some(0x7fff_ffff_e514), &bytes),
            "\n0x00007fffffffe514  2a 00 00 00 61 62 63 00  00 01 02 03 04 05 06 07  |*...abc.........|\
             \n0x00007fffffffe524  08 09                                             |..|"
        );
        assert_eq!(hex_dump(None, b"A"), format!("\n+0x0000  41 {:46} |A|", ""));
        assert_eq!(hex_dump(Some(0x1000), b"A"), format!("\n0x00001000  41 {:46} |A|", ""));
    }

    #[test]
    fn a_disassembly_counts_symbol_offsets_marks_the_current_instruction_and_leaves_out_invalid_slots() {
        // lldb-dap 22's answer (trimmed) for `main` of a C program stopped at 0x555555555158.
        let list = instructions(json!({"instructions": [
            {"address": "-1", "instruction": "", "presentationHint": "invalid"},
            {"address": "0x555555555139", "instruction": "pushq   %rbp                      ;  main", "line": 2,
             "location": {"name": "prog.c", "path": "/w/prog.c"}, "symbol": "main"},
            {"address": "0x55555555513A", "instruction": "movq    %rsp, %rbp               "},
            {"address": "0x555555555158", "instruction": "movl    -0xc(%rbp), %eax         ", "line": 6,
             "location": {"name": "prog.c", "path": "/w/prog.c"}},
        ]}));
        let out = disassembly(&list, Some(0x5555_5555_5158));
        let text: Vec<&str> = out.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            text,
            [
                "  0x0000555555555139  <main>     pushq   %rbp                      ;  main  ; prog.c:2",
                "  0x000055555555513a  <main+1>   movq    %rsp, %rbp",
                "→ 0x0000555555555158  <main+31>  movl    -0xc(%rbp), %eax                  ; prog.c:6",
            ]
        );
        assert_eq!((out.invalid, out.has_current), (1, true));
        assert_eq!(out.lines[2].json["current"], json!(true));
        assert_eq!(out.lines[2].json["symbol"], json!("main+31"));
        // Delve 1.x: no symbols, `location: {}` where the line does not change.
        let delve = instructions(json!({"instructions": [
            {"address": "0x49af01", "instruction": "MOVQ $0x2b, 0x18(SP)", "location": {"path": "/w/main.go"}, "line": 7},
            {"address": "0x49af0a", "instruction": "MOVUPS X15, 0x30(SP)", "location": {}},
        ]}));
        let out = disassembly(&delve, Some(0x49af01));
        let text: Vec<&str> = out.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(text, ["→ 0x0049af01    MOVQ $0x2b, 0x18(SP)  ; main.go:7", "  0x0049af0a    MOVUPS X15, 0x30(SP)"]);
    }
}
