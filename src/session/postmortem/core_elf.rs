//! What a core file's own headers say about it, read from its first bytes (pure): where its
//! memory segments end (a file shorter than that is truncated) and the name of the process it
//! is of (`NT_PRPSINFO`'s `pr_fname`, which a program named in `attach {core, program}` must
//! match). Only 64-bit little-endian ELF cores (x86_64, aarch64 Linux) are read; anything else
//! reads as nothing known. Must not: read the file itself or refuse anything (the plan decides).

/// What the headers told.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CoreFacts {
    /// The end of the last `PT_LOAD` segment's bytes in the file (`p_offset + p_filesz`).
    pub load_end: Option<u64>,
    /// `pr_fname` of `NT_PRPSINFO`: the process's name as the kernel kept it (at most 15 bytes).
    pub process_name: Option<String>,
    /// The program header table goes on past the bytes read (a file cut inside its headers, when
    /// those bytes were all of it).
    pub headers_cut: bool,
}

/// `p_type` of a loadable segment and of a note segment (System V ABI, "Program Header").
const PT_LOAD: u32 = 1;
const PT_NOTE: u32 = 4;
/// The note type of `struct elf_prpsinfo` (Linux `include/uapi/linux/elf.h`).
const NT_PRPSINFO: u32 = 3;
/// Where `pr_fname` is in the 64-bit `struct elf_prpsinfo`, and its length (`TASK_COMM_LEN`).
const FNAME_AT: usize = 40;
const FNAME_LEN: usize = 16;
/// Program headers read at most (a core has one per mapping: thousands for a big process).
const MAX_PHDRS: usize = 65_536;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Reads the facts from `head`, the file's first bytes (the headers and the notes normally sit
/// in its first few KiB; what lies past `head` is not known).
pub fn inspect(head: &[u8]) -> CoreFacts {
    let mut facts = CoreFacts::default();
    // ELFCLASS64, ELFDATA2LSB.
    if head.get(4) != Some(&2) || head.get(5) != Some(&1) {
        return facts;
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(head, 0x20), u16_at(head, 0x36), u16_at(head, 0x38))
    else {
        return facts;
    };
    let (phentsize, phnum) = (usize::from(phentsize), usize::from(phnum).min(MAX_PHDRS));
    if phentsize < 0x38 {
        return facts;
    }
    let mut load_end: Option<u64> = None;
    let mut whole = true;
    for i in 0..phnum {
        let Some(at) = usize::try_from(phoff).ok().and_then(|o| o.checked_add(i * phentsize)) else { break };
        let (Some(p_type), Some(offset), Some(filesz)) =
            (u32_at(head, at), u64_at(head, at + 8), u64_at(head, at + 0x20))
        else {
            // The program headers go on past `head`: the segments' end is not known.
            whole = false;
            break;
        };
        match p_type {
            PT_LOAD => load_end = load_end.max(offset.checked_add(filesz)),
            PT_NOTE if facts.process_name.is_none() => facts.process_name = process_name(head, offset, filesz),
            _ => {}
        }
    }
    facts.load_end = load_end.filter(|_| whole);
    facts.headers_cut = !whole;
    facts
}

/// `pr_fname` from the note segment at `offset` (its notes as far as `head` holds them).
fn process_name(head: &[u8], offset: u64, size: u64) -> Option<String> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(size).ok()?)?.min(head.len());
    let mut at = start;
    while at + 12 <= end {
        let (namesz, descsz, kind) =
            (u32_at(head, at)? as usize, u32_at(head, at + 4)? as usize, u32_at(head, at + 8)?);
        let name_at = at + 12;
        let desc_at = name_at.checked_add(namesz.checked_add(3)? & !3)?;
        let next = desc_at.checked_add(descsz.checked_add(3)? & !3)?;
        if kind == NT_PRPSINFO && head.get(name_at..name_at + namesz.min(4)) == Some(b"CORE") {
            let fname = head.get(desc_at + FNAME_AT..desc_at + FNAME_AT + FNAME_LEN)?;
            let len = fname.iter().position(|&b| b == 0).unwrap_or(FNAME_LEN);
            return Some(String::from_utf8_lossy(&fname[..len]).into_owned());
        }
        at = next;
    }
    None
}

/// Whether `process` (a core's `pr_fname`) can be the process of the binary named `program`:
/// the kernel keeps the first 15 bytes of the executable's file name.
pub fn names_match(process: &str, program_file_name: &str) -> bool {
    let mut cut = program_file_name.len().min(FNAME_LEN - 1);
    while !program_file_name.is_char_boundary(cut) {
        cut -= 1;
    }
    process.as_bytes() == &program_file_name.as_bytes()[..cut]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-bit LE core: the ELF header, `loads` PT_LOAD headers (offset, size) and a PT_NOTE
    /// holding an NT_PRPSINFO with `fname`.
    fn core(loads: &[(u64, u64)], fname: &str) -> Vec<u8> {
        let phnum = loads.len() + 1;
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[16] = 4; // ET_CORE
        b[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        b[0x36..0x38].copy_from_slice(&0x38u16.to_le_bytes());
        b[0x38..0x3a].copy_from_slice(&(phnum as u16).to_le_bytes());
        let note_at = 64 + phnum * 0x38;
        let mut note = Vec::new();
        note.extend_from_slice(&5u32.to_le_bytes());
        note.extend_from_slice(&136u32.to_le_bytes());
        note.extend_from_slice(&NT_PRPSINFO.to_le_bytes());
        note.extend_from_slice(b"CORE\0\0\0\0");
        let mut desc = vec![0u8; 136];
        desc[FNAME_AT..FNAME_AT + fname.len()].copy_from_slice(fname.as_bytes());
        note.extend_from_slice(&desc);
        let mut ph = |t: u32, off: u64, size: u64| {
            let mut h = vec![0u8; 0x38];
            h[..4].copy_from_slice(&t.to_le_bytes());
            h[8..16].copy_from_slice(&off.to_le_bytes());
            h[0x20..0x28].copy_from_slice(&size.to_le_bytes());
            b.extend_from_slice(&h);
        };
        ph(PT_NOTE, note_at as u64, note.len() as u64);
        for &(off, size) in loads {
            ph(PT_LOAD, off, size);
        }
        b.extend_from_slice(&note);
        b
    }

    #[test]
    fn a_core_tells_where_its_segments_end_and_whose_it_is() {
        let b = core(&[(4096, 8192), (12288, 4096)], "crash");
        let whole = CoreFacts { load_end: Some(16384), process_name: Some("crash".into()), headers_cut: false };
        assert_eq!(inspect(&b), whole);
    }

    #[test]
    fn headers_cut_short_or_not_elf64_tell_nothing() {
        let b = core(&[(4096, 8192)], "crash");
        assert_eq!(inspect(&b[..100]).load_end, None);
        assert!(inspect(&b[..100]).headers_cut);
        assert_eq!(inspect(b"MDMP"), CoreFacts::default());
        let mut be = b.clone();
        be[5] = 2;
        assert_eq!(inspect(&be), CoreFacts::default());
    }

    #[test]
    fn a_process_name_is_the_programs_first_15_bytes() {
        assert!(names_match("crash", "crash"));
        assert!(names_match("a_very_long_pro", "a_very_long_program_name"));
        assert!(!names_match("other", "crash"));
    }
}
