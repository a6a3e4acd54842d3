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
/// Most characters of an instruction's symbol shown (an adapter may send a name of megabytes;
/// every line repeats it).
const SYMBOL_CHARS: usize = 80;
/// Most characters of an instruction's source path kept in `structuredContent` (each of up to
/// [`super::MAX_INSTRUCTIONS`] entries repeats it), and of its file name in the text.
const PATH_CHARS: usize = 500;
const FILE_CHARS: usize = 60;

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

/// The address a value reads as: the value itself when it is a memory reference, or its first
/// word when the rest is a parenthesized note (lldb-dap 22 shows a function's address as
/// `0x000055555555519c (prog`add at prog.c:17:23)`). `None` for anything else.
pub fn leading_reference(value: &str) -> Option<&str> {
    let value = value.trim();
    let lead = value.split_whitespace().next()?;
    let rest = value[lead.len()..].trim_start();
    (is_reference(lead) && (rest.is_empty() || (rest.starts_with('(') && rest.ends_with(')')))).then_some(lead)
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
    pub address: u64,
    pub text: String,
    pub json: Value,
}

/// Entries of a disassembly left out, by why.
#[derive(Default, Clone, Copy)]
pub struct Skipped {
    pub invalid: usize,
    pub no_address: usize,
}

/// What a disassembly shows: its lines, the entries left out and why, and whether the current
/// instruction was among the lines.
#[derive(Default)]
pub struct Listing {
    pub lines: Vec<Line>,
    /// Entries marked `invalid`, and entries without an address (or one that does not read as
    /// an address), before the first instruction shown: in a window centred on the current
    /// instruction they are where the adapter could not disassemble backwards (lldb-dap 22
    /// answers `-1` there before `main`, where `frame_dummy` is: `tests/native/memory.rs`).
    pub leading: Skipped,
    /// The same after the first instruction shown.
    pub later: Skipped,
    /// Entries at the address of the one before, or at the last address: two instructions
    /// cannot share an address and none is at `0xffffffffffffffff`, so they are filler (Delve
    /// repeats `0x0` reading at 0 and pads past the end of code with `0xffffffffffffffff`
    /// `invalid instruction`: `tests/native/memory.rs`).
    pub padding: usize,
    pub has_current: bool,
}

/// The part of an answer of `instructions` that was asked for (`count` entries) when the
/// adapter sent more: the window around `centre` (where the request was centred and the answer
/// holds it), else the first `count`. The second value is how many entries were left out.
pub fn asked_window(
    instructions: &[DisassembledInstruction],
    count: usize,
    centre: Option<u64>,
) -> (&[DisassembledInstruction], usize) {
    if instructions.len() <= count {
        return (instructions, 0);
    }
    let at =
        centre.and_then(|c| instructions.iter().position(|i| i.address.as_deref().and_then(parse_address) == Some(c)));
    let start = at.map_or(0, |i| i.saturating_sub(count / 2).min(instructions.len() - count));
    (&instructions[start..start + count], instructions.len() - count)
}

/// The lines of a disassembly; `current` is the address to mark `→`.
pub fn disassembly(instructions: &[DisassembledInstruction], current: Option<u64>) -> Listing {
    let mut out = Listing::default();
    let mut symbol: Option<(String, u64)> = None;
    let mut previous: Option<u64> = None;
    let mut rows = Vec::new();
    for ins in instructions {
        let address = ins.address.as_deref().and_then(parse_address);
        let invalid = ins.presentation_hint.as_deref() == Some("invalid");
        let Some(addr) = address.filter(|_| !invalid) else {
            let skipped = if rows.is_empty() { &mut out.leading } else { &mut out.later };
            if invalid {
                skipped.invalid += 1;
            } else {
                skipped.no_address += 1;
            }
            symbol = None;
            continue;
        };
        if addr == u64::MAX || previous == Some(addr) {
            out.padding += 1;
            continue;
        }
        previous = Some(addr);
        if let Some(name) = ins.symbol.as_deref().filter(|s| !s.is_empty()) {
            symbol = Some((clip(name, SYMBOL_CHARS).0, addr));
        }
        let sym = symbol.as_ref().filter(|(_, start)| *start <= addr).map(|(name, start)| match addr - start {
            0 => name.clone(),
            off => format!("{name}+{off}"),
        });
        let source = ins
            .location
            .as_ref()
            .and_then(|l| l.path.as_deref().or(l.name.as_deref()))
            .filter(|p| !p.is_empty())
            .map(|p| (clip(p.rsplit('/').next().unwrap_or(p), FILE_CHARS).0, clip(p, PATH_CHARS).0));
        let text = clip(ins.instruction.as_deref().unwrap_or("").trim(), INSTRUCTION_CHARS).0;
        rows.push((addr, sym, text, source, ins.line));
    }
    let max = rows.iter().map(|r| r.0).max().unwrap_or(0);
    let wide = wide(max);
    let sym_width = rows.iter().map(|r| r.1.as_ref().map_or(0, |s| s.chars().count() + 2)).max().unwrap_or(0);
    let text_width = rows.iter().map(|r| r.2.chars().count()).max().unwrap_or(0).min(40);
    out.lines = rows
        .into_iter()
        .map(|(addr, sym, text, source, line)| {
            let is_current = Some(addr) == current;
            out.has_current |= is_current;
            let mark = if is_current { "→" } else { " " };
            let sym_col = sym.as_ref().map(|s| format!("<{s}>")).unwrap_or_default();
            let mut row = format!("{mark} {}  {sym_col:<sym_width$}  {text}", address_text(addr, wide));
            let place = match (&source, line) {
                (Some((file, _)), Some(l)) => Some(format!("{file}:{l}")),
                (None, Some(l)) => Some(format!("line {l}")),
                _ => None,
            };
            if let Some(place) = &place {
                let pad = text_width.saturating_sub(text.chars().count());
                row.push_str(&format!("{:pad$}  ; {place}", ""));
            }
            let mut m = Map::new();
            m.insert("address".into(), address_text(addr, wide).into());
            m.insert("instruction".into(), text.into());
            put(&mut m, "symbol", sym.map(Value::from));
            put(&mut m, "path", source.map(|(_, path)| Value::from(path)));
            put(&mut m, "line", line.map(Value::from));
            if is_current {
                m.insert("current".into(), json!(true));
            }
            Line { address: addr, text: row.trim_end().to_owned(), json: Value::Object(m) }
        })
        .collect();
    out
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
        // lldb-dap 22's value of `&add` (and of `add`): the address, then its symbol.
        assert_eq!(
            leading_reference("0x000055555555519c (corrupt`add at corrupt.c:17:23)"),
            Some("0x000055555555519c")
        );
        assert_eq!(leading_reference("0x7ffd1234"), Some("0x7ffd1234"));
        assert_eq!(leading_reference("0x10 + 3"), None);
        assert_eq!(leading_reference("(int *) 0x10"), None);
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
        assert_eq!((out.leading.invalid, out.later.invalid, out.has_current), (1, 0, true));
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

    #[test]
    fn repeated_addresses_and_the_last_address_are_padding_not_instructions() {
        // Delve 1.x reading 4 at address 0, and past the end of code (`tests/native/memory.rs`).
        let at_zero = json!({"address": "0x0", "instruction": "invalid instruction", "location": {}});
        let out = disassembly(&instructions(json!({"instructions": [at_zero, at_zero, at_zero, at_zero]})), None);
        assert_eq!(
            out.lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(),
            ["  0x00000000    invalid instruction"]
        );
        assert_eq!(out.padding, 3);
        let end = json!({"address": "0xffffffffffffffff", "instruction": "invalid instruction", "location": {}});
        let out = disassembly(
            &instructions(json!({"instructions": [
                {"address": "0x49af96", "instruction": "JMP $main.main(SB)"}, end, end]})),
            None,
        );
        assert_eq!(out.lines.len(), 1);
        assert_eq!((out.padding, out.later.invalid, out.later.no_address), (2, 0, 0));
    }

    #[test]
    fn a_huge_symbol_and_source_path_are_clipped_on_every_line() {
        let name = "s".repeat(3000);
        let path = format!("/{}/{}.c", "d".repeat(3000), "f".repeat(3000));
        let list = instructions(json!({"instructions": [
            {"address": "0x1000", "instruction": "nop", "symbol": name, "line": 1, "location": {"path": path}},
            {"address": "0x1001", "instruction": "nop", "line": 2, "location": {"path": path}},
        ]}));
        let out = disassembly(&list, None);
        for line in &out.lines {
            assert!(line.text.chars().count() < 200, "{} characters: {}", line.text.chars().count(), line.text);
            assert!(line.text.contains("ss…") && line.text.contains("fff…:"), "{}", line.text);
            let kept = line.json["path"].as_str().map_or(0, |p| p.chars().count());
            assert_eq!(kept, PATH_CHARS + 1, "the path kept, cut with its …");
        }
    }
}
