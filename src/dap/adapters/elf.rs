//! A bounded ELF probe for adapter selection: magic bytes, section names, the `.comment` text; reads a few small ranges of the file through [`Host`], never the whole binary, and never runs anything.
//!
//! Selection needs three facts about a native program: is it ELF (→ lldb-dap), was it built by
//! the Go toolchain (→ Delve in `exec` mode, which understands goroutines), and was it built by
//! rustc (→ load rustc's LLDB formatters). All three come from the first bytes and the section
//! table, so the probe costs a handful of `pread`-sized reads, each capped below, whatever the
//! size of the binary: it is a `stat`-sized probe and may run on the event loop.

use std::path::Path;

use super::Host;

/// The four bytes every ELF file starts with.
pub const MAGIC: [u8; 4] = *b"\x7fELF";

/// Most sections examined (real binaries have tens; the table of a hostile file is not trusted).
pub const MAX_SECTIONS: u64 = 4096;

/// Bytes read at most from one section (`.shstrtab`, `.comment`); larger sections are cut.
pub const MAX_SECTION_READ: usize = 64 * 1024;

/// What the probe learned about an ELF file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ElfFacts {
    /// A Go binary: it has a `.go.buildinfo` or `.gopclntab` section.
    pub go: bool,
    /// Built (at least partly) by rustc: `.comment` holds `rustc version`.
    pub rust: bool,
}

/// Whether `path` starts with the ELF magic (one read of 4 bytes). `false` when unreadable.
pub fn is_elf(path: &Path, host: &dyn Host) -> bool {
    host.read_range(path, 0, MAGIC.len()).is_some_and(|b| b == MAGIC)
}

/// Probes `path`: `None` when it is not a readable ELF file; otherwise the facts, where a
/// malformed section table simply yields `ElfFacts::default()` (still ELF, nothing known).
///
/// Reads: the 64-byte header, the section header table (≤ [`MAX_SECTIONS`] entries), and at
/// most [`MAX_SECTION_READ`] bytes of `.shstrtab` and of `.comment`.
pub fn probe(path: &Path, host: &dyn Host) -> Option<ElfFacts> {
    let header = host.read_range(path, 0, 64)?;
    if header.get(..4)? != MAGIC {
        return None;
    }
    Some(sections(path, host, &header).unwrap_or_default())
}

/// Field reader for one file's class (32/64-bit) and byte order.
struct Layout {
    wide: bool,
    little: bool,
}

impl Layout {
    fn uint(&self, bytes: &[u8], at: usize, len: usize) -> Option<u64> {
        let b = bytes.get(at..at + len)?;
        let mut v = 0u64;
        for i in 0..len {
            let byte = if self.little { b[len - 1 - i] } else { b[i] };
            v = (v << 8) | u64::from(byte);
        }
        Some(v)
    }

    /// An address-sized field (`Elf64_Off`/`Elf64_Xword` or their 32-bit forms).
    fn word(&self, bytes: &[u8], at: usize) -> Option<u64> {
        self.uint(bytes, at, if self.wide { 8 } else { 4 })
    }
}

fn sections(path: &Path, host: &dyn Host, header: &[u8]) -> Option<ElfFacts> {
    let layout = Layout {
        wide: match header.get(4)? {
            1 => false,
            2 => true,
            _ => return None,
        },
        little: match header.get(5)? {
            1 => true,
            2 => false,
            _ => return None,
        },
    };
    // e_shoff, e_shentsize, e_shnum, e_shstrndx (System V ABI, "ELF Header").
    let (shoff, rest) =
        if layout.wide { (layout.word(header, 0x28)?, 0x3A) } else { (layout.word(header, 0x20)?, 0x2E) };
    let entsize = layout.uint(header, rest, 2)?;
    let count = layout.uint(header, rest + 2, 2)?;
    let strndx = layout.uint(header, rest + 4, 2)?;
    let min_entsize = if layout.wide { 64 } else { 40 };
    if shoff == 0 || count == 0 || count > MAX_SECTIONS || entsize < min_entsize || strndx >= count {
        return None;
    }
    let table = host.read_range(path, shoff, usize::try_from(entsize * count).ok()?)?;
    // (name offset, file offset, size) of section `i`.
    let entry = |i: u64| -> Option<(u64, u64, u64)> {
        let at = usize::try_from(i * entsize).ok()?;
        let name = layout.uint(&table, at, 4)?;
        let (offset, size) = if layout.wide {
            (layout.word(&table, at + 0x18)?, layout.word(&table, at + 0x20)?)
        } else {
            (layout.word(&table, at + 0x10)?, layout.word(&table, at + 0x14)?)
        };
        Some((name, offset, size))
    };
    let (_, str_off, str_size) = entry(strndx)?;
    let names = host.read_range(path, str_off, clamp(str_size))?;
    let mut facts = ElfFacts::default();
    for i in 0..count {
        let Some((name_at, offset, size)) = entry(i) else { continue };
        let name = usize::try_from(name_at).ok().and_then(|at| names.get(at..)).map(|s| {
            let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
            &s[..end]
        });
        match name {
            Some(b".go.buildinfo" | b".gopclntab") => facts.go = true,
            Some(b".comment") => {
                let text = host.read_range(path, offset, clamp(size)).unwrap_or_default();
                facts.rust |= text.windows(b"rustc version".len()).any(|w| w == b"rustc version");
            }
            _ => {}
        }
    }
    Some(facts)
}

fn clamp(size: u64) -> usize {
    usize::try_from(size).unwrap_or(usize::MAX).min(MAX_SECTION_READ)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::path::PathBuf;

    /// A host whose only file is `bytes` (at any path).
    struct OneFile(Vec<u8>);

    impl Host for OneFile {
        fn var(&self, _: &str) -> Option<OsString> {
            None
        }
        fn is_executable(&self, _: &Path) -> bool {
            true
        }
        fn cwd(&self) -> Option<PathBuf> {
            None
        }
        fn read_range(&self, _: &Path, offset: u64, len: usize) -> Option<Vec<u8>> {
            let start = usize::try_from(offset).ok()?.min(self.0.len());
            Some(self.0[start..(start + len).min(self.0.len())].to_vec())
        }
    }

    /// A minimal little-endian ELF64 with the given (name, contents) sections after a null one.
    fn elf64(sections: &[(&str, &[u8])]) -> Vec<u8> {
        let mut names = vec![0u8];
        let mut data = Vec::new();
        let mut entries = vec![(0u32, 0u64, 0u64)];
        let mut all: Vec<(&str, &[u8])> = sections.to_vec();
        all.push((".shstrtab", &[]));
        let data_base = 64u64;
        for (name, contents) in &all {
            let name_at = names.len() as u32;
            names.extend_from_slice(name.as_bytes());
            names.push(0);
            entries.push((name_at, data_base + data.len() as u64, contents.len() as u64));
            data.extend_from_slice(contents);
        }
        // .shstrtab's contents are the names themselves, placed last.
        let last = entries.len() - 1;
        entries[last] = (entries[last].0, data_base + data.len() as u64, names.len() as u64);
        data.extend_from_slice(&names);
        let shoff = data_base + data.len() as u64;
        let mut out = vec![0u8; 64];
        out[..4].copy_from_slice(&MAGIC);
        out[4] = 2; // ELFCLASS64
        out[5] = 1; // ELFDATA2LSB
        out[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
        out[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
        out[0x3C..0x3E].copy_from_slice(&(entries.len() as u16).to_le_bytes());
        out[0x3E..0x40].copy_from_slice(&(last as u16).to_le_bytes());
        out.extend_from_slice(&data);
        for (name, offset, size) in entries {
            let mut sh = vec![0u8; 64];
            sh[..4].copy_from_slice(&name.to_le_bytes());
            sh[0x18..0x20].copy_from_slice(&offset.to_le_bytes());
            sh[0x20..0x28].copy_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&sh);
        }
        out
    }

    fn check(bytes: Vec<u8>, expected: Option<ElfFacts>) {
        assert_eq!(probe(Path::new("/p"), &OneFile(bytes)), expected);
    }

    #[test]
    fn recognises_go_rust_and_plain_c() {
        let c = elf64(&[(".text", b"\x90"), (".comment", b"GCC: (Debian 12.2.0) 12.2.0\0")]);
        check(c, Some(ElfFacts { go: false, rust: false }));
        let rust = elf64(&[(".comment", b"rustc version 1.95.0 (x)\0Linker: LLD\0GCC: 12\0")]);
        check(rust, Some(ElfFacts { go: false, rust: true }));
        check(
            elf64(&[(".gopclntab", b"\xf1\xff"), (".go.buildinfo", b"\xff Go")]),
            Some(ElfFacts { go: true, rust: false }),
        );
    }

    #[test]
    fn not_elf_or_short_is_none() {
        check(b"#!/bin/sh\n".to_vec(), None);
        check(b"\x7fEL".to_vec(), None);
        check(Vec::new(), None);
    }

    #[test]
    fn hostile_section_tables_are_elf_with_no_facts() {
        let mut bytes = elf64(&[(".comment", b"rustc version 1\0")]);
        // Claim 60000 sections of 64 bytes: over MAX_SECTIONS, nothing is read.
        bytes[0x3C..0x3E].copy_from_slice(&60000u16.to_le_bytes());
        check(bytes.clone(), Some(ElfFacts::default()));
        // A section table offset past the end of the file.
        bytes[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
        check(bytes, Some(ElfFacts::default()));
        // Truncated right after the magic and class bytes.
        check(b"\x7fELF\x02\x01".to_vec(), Some(ElfFacts::default()));
    }

    #[test]
    fn magic_check_reads_four_bytes() {
        assert!(is_elf(Path::new("/p"), &OneFile(b"\x7fELF\x02".to_vec())));
        assert!(!is_elf(Path::new("/p"), &OneFile(b"MZ\x90\x00".to_vec())));
    }
}
