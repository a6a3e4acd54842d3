//! The layering test: reads every `src/**/*.rs`, collects the paths each module uses (`use` trees
//! and inline `crate::`, `super::`, `self::` and IO-crate paths, outside comments, literals and
//! `#[cfg(test)]` items) and fails when a module uses one its layer must not, or when sibling
//! modules import each other in a cycle. It is ARCHITECTURE.md's code map, "must not" column,
//! checked. Test-only: compiled under `#[cfg(test)]`, it must not become part of the binary.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A layer (a module and everything below it) and the modules it must not use.
struct MustNot {
    layer: &'static str,
    must_not: &'static [&'static str],
    why: &'static str,
}

/// Everything below `mcp`: none of these may use `mcp` (the shared reply types live in `reply`).
const BELOW_MCP: &[&str] = &[
    "allow", "session", "mirror", "dap", "ledger", "reply", "timer", "token", "io_buf", "json", "jsonrpc", "visible",
    "config",
];

/// Which layer may not use which. A layer matches the module itself and its descendants; so does
/// each entry of `must_not`.
const MUST_NOT: &[MustNot] = &[
    MustNot {
        layer: "session",
        must_not: &["mcp", "server", "cli"],
        why: "the session layer is sans-IO and knows nothing of the MCP layer above it or the IO shell",
    },
    MustNot {
        layer: "dap",
        must_not: &["session", "mcp", "server", "mirror", "cli"],
        why: "the DAP layer (wire, client, adapters) sits below every user of it",
    },
    MustNot {
        layer: "mirror",
        must_not: &["mcp", "server", "session", "cli"],
        why: "the mirror's sans-IO policy is handed what it needs; the session layer uses it, not the reverse",
    },
    MustNot { layer: "mcp", must_not: &["server", "cli"], why: "the MCP layer is sans-IO; the IO shell drives it" },
    MustNot {
        layer: "cli",
        must_not: &["server", "mcp", "session", "mirror"],
        why: "the first-run subcommands never reach the server",
    },
];

/// A layer that may use only the listed modules besides itself.
struct Only {
    layer: &'static str,
    may: &'static [&'static str],
    why: &'static str,
}

const ONLY: &[Only] = &[
    Only {
        layer: "reply",
        may: &["dap::client", "jsonrpc"],
        why: "`reply` is the leaf every layer shares: it reads `dap::client::Outcome` and writes JSON-RPC values, nothing else",
    },
    Only { layer: "jsonrpc", may: &["json"], why: "the JSON-RPC framing writes with `json` and is otherwise a leaf" },
    Only { layer: "json", may: &[], why: "JSON text and values are a leaf" },
    Only { layer: "io_buf", may: &[], why: "the line buffer is a leaf" },
    Only { layer: "timer", may: &[], why: "the timer wheel is a leaf" },
    Only { layer: "token", may: &[], why: "the token encoding is a leaf" },
    Only { layer: "visible", may: &[], why: "the text sanitiser is a leaf" },
];

/// The only layers that may touch the operating system directly (`IO_PATHS`).
const IO_LAYERS: &[&str] = &["server", "os", "cli", "main"];

/// Paths that reach the operating system: the event loop, files, processes, sockets, raw syscalls.
const IO_PATHS: &[&str] = &[
    "mio",
    "libc",
    "std::fs",
    "std::os::unix::fs",
    "std::os::unix::net",
    "std::os::unix::process",
    "std::process",
    "std::net::TcpStream",
    "std::net::TcpListener",
    "std::net::UdpSocket",
];

/// Paths below `IO_PATHS` that are plain data, not IO.
const NOT_IO: &[&str] = &["std::process::ExitStatus", "std::process::id"];

/// A use that breaks a rule today, known and owed: (file, the used path's prefix, reason). The
/// test fails when one no longer occurs, so the list shrinks as the fixes land.
struct Known {
    file: &'static str,
    uses: &'static str,
    why: &'static str,
}

const KNOWN: &[Known] = &[
    Known { file: "src/token.rs", uses: "mio", why: "tokens are `mio::Token` values; the type only, no registry" },
    Known {
        file: "src/dap/tcp.rs",
        uses: "std::net::TcpListener",
        why: "`free_port` binds port 0 to choose an adapter's port; belongs with the IO shell",
    },
    Known { file: "src/dap/tcp.rs", uses: "libc", why: "errno constants only (EINPROGRESS, ECONNREFUSED, …)" },
    Known {
        file: "src/dap/adapters/mod.rs",
        uses: "std::fs",
        why: "`RealHost`, the file-system `Host` the IO shell hands the recipes",
    },
    Known { file: "src/dap/adapters/mod.rs", uses: "std::os::unix::fs", why: "`RealHost` reads permission bits" },
    Known { file: "src/dap/adapters/mod.rs", uses: "libc", why: "`RealHost` compares file owners with geteuid" },
    Known {
        file: "src/ledger/file.rs",
        uses: "std::fs",
        why: "the evidence files' appender, called only by `server/evidence.rs`",
    },
    Known { file: "src/ledger/file.rs", uses: "std::os::unix::fs", why: "creates the evidence directory 0700" },
    Known {
        file: "src/ledger/file.rs",
        uses: "libc",
        why: "opens evidence files with O_NOFOLLOW relative to their directory",
    },
    Known { file: "src/config.rs", uses: "std::fs", why: "reads the configuration file once at start" },
];

/// Cycles among sibling modules present today (the members, sorted), with the reason. The test
/// fails on any other cycle and when one of these is gone.
const KNOWN_CYCLES: &[(&[&str], &str)] = &[];

/// One path a module uses: where, and the path as written (leading `crate`/`super`/`self`
/// resolved to absolute segments for crate paths).
#[derive(Debug, Clone)]
struct Use {
    file: String,
    line: usize,
    written: String,
    /// Absolute segments for a crate path; `None` for an external crate's path.
    crate_path: Option<Vec<String>>,
    /// The module the use occurs in.
    module: Vec<String>,
}

#[derive(Default)]
struct Scan {
    /// Module path → file (relative to the crate, e.g. `src/dap/client.rs`).
    modules: BTreeMap<Vec<String>, String>,
    /// Modules declared `#[cfg(test)] mod x;` and everything below them.
    test_only: BTreeSet<Vec<String>>,
    uses: Vec<Use>,
}

fn module_of(rel: &Path) -> Vec<String> {
    let mut segs: Vec<String> =
        rel.iter().skip(1).map(|s| s.to_string_lossy().trim_end_matches(".rs").to_owned()).collect();
    if matches!(segs.last().map(String::as_str), Some("mod" | "lib")) {
        segs.pop();
    }
    segs
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src` with comments and the contents of string and char literals blanked (newlines kept).
fn strip(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        j += 2;
                    } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if (i == 0 || !ident(b[i - 1]) || (b[i - 1] == b'b' && (i < 2 || !ident(b[i - 2]))))
                && matches!(b.get(i + 1), Some(b'"' | b'#')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = i + 2 + hashes;
                let mut j = start;
                while j < b.len() {
                    if b[j] == b'"' && b[j + 1..].iter().take(hashes).filter(|&&c| c == b'#').count() == hashes {
                        break;
                    }
                    j += 1;
                }
                blank(&mut out, start, j);
                i = j + 1 + hashes;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i + 1, j);
                i = j + 1;
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
                if b.get(i + 1) == Some(&b'\\') {
                    let end = b
                        .get(i + 3..)
                        .and_then(|rest| rest.iter().position(|&c| c == b'\''))
                        .map_or(b.len(), |p| i + 3 + p);
                    blank(&mut out, i + 1, end);
                    i = end + 1;
                } else {
                    let ch_len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                    if b.get(i + 1 + ch_len) == Some(&b'\'') {
                        blank(&mut out, i + 1, i + 1 + ch_len);
                        i += 2 + ch_len;
                    } else {
                        i += 1;
                    }
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The index just past the `}` matching the `{` at `open`.
fn matching_brace(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

fn word_at(b: &[u8], i: usize, word: &str) -> bool {
    let w = word.as_bytes();
    b[i..].starts_with(w) && (i == 0 || !is_ident(b[i - 1])) && !matches!(b.get(i + w.len()), Some(&c) if is_ident(c))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn ident_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() && is_ident(b[j]) {
        j += 1;
    }
    j
}

/// Expands a use tree starting at `i` (after `use`) into (offset, path) leaves; stops at `;`.
fn use_tree(b: &[u8], mut i: usize, prefix: &[String], out: &mut Vec<(usize, Vec<String>)>) -> usize {
    let mut segs = prefix.to_vec();
    let mut at = skip_ws(b, i);
    loop {
        i = skip_ws(b, i);
        if b[i..].starts_with(b"::") {
            i += 2;
            continue;
        }
        match b.get(i) {
            Some(b'{') => {
                i += 1;
                loop {
                    i = skip_ws(b, i);
                    match b.get(i) {
                        Some(b'}') => return i + 1,
                        Some(b',') => i += 1,
                        None => return i,
                        _ => {
                            let next = use_tree(b, i, &segs, out);
                            i = if next > i { next } else { i + 1 };
                        }
                    }
                }
            }
            Some(b'*') => {
                out.push((i, segs));
                return i + 1;
            }
            Some(&c) if is_ident(c) => {
                if segs.len() == prefix.len() {
                    at = i;
                }
                let end = ident_end(b, i);
                let word = String::from_utf8_lossy(&b[i..end]).into_owned();
                if word == "as" {
                    // `path as name`: the path is complete; skip the alias.
                    let alias_end = ident_end(b, skip_ws(b, end));
                    out.push((at, segs));
                    return alias_end;
                }
                if word == "self" && segs.len() == prefix.len() && !prefix.is_empty() {
                    // `a::{self, …}` names `a` itself (a leading `self::` is kept as a segment).
                    i = end;
                    continue;
                }
                segs.push(word);
                i = end;
            }
            _ => {
                if segs.len() > prefix.len() || !prefix.is_empty() {
                    out.push((at, segs));
                }
                return i;
            }
        }
    }
}

/// Resolves `crate::`, `super::`, `self::` (and `agentdap::` in the binary) against `module`.
fn resolve(module: &[String], path: &[String], in_main: bool) -> Option<Vec<String>> {
    let head = path.first()?.as_str();
    match head {
        "crate" | "$crate" => Some(path[1..].to_vec()),
        "agentdap" if in_main => Some(path[1..].to_vec()),
        "super" | "self" => {
            let mut base = module.to_vec();
            let mut rest = path;
            while let Some(h) = rest.first() {
                match h.as_str() {
                    "super" => {
                        base.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ => None,
    }
}

fn line_of(b: &[u8], i: usize) -> usize {
    b[..i.min(b.len())].iter().filter(|&&c| c == b'\n').count() + 1
}

fn scan_file(scan: &mut Scan, rel: &str, file_module: &[String], src: &str) {
    let b = strip(src);
    let in_main = rel == "src/main.rs";
    // (module path, brace depth at which its block closes) for inline `mod x { … }`.
    let mut inline: Vec<(Vec<String>, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let current = |inline: &Vec<(Vec<String>, usize)>| inline.last().map_or(file_module.to_vec(), |m| m.0.clone());
    while i < b.len() {
        let c = b[i];
        if c == b'{' {
            depth += 1;
            i += 1;
            continue;
        }
        if c == b'}' {
            depth = depth.saturating_sub(1);
            if inline.last().is_some_and(|m| m.1 == depth) {
                inline.pop();
            }
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"#[cfg(test)]") {
            // Skip the attributes that follow and the whole item.
            let mut j = i + "#[cfg(test)]".len();
            loop {
                j = skip_ws(&b, j);
                if b[j..].starts_with(b"#[") {
                    j = b[j..].iter().position(|&c| c == b']').map_or(b.len(), |p| j + p + 1);
                } else {
                    break;
                }
            }
            let item_start = j;
            while j < b.len() && b[j] != b';' && b[j] != b'{' {
                j += 1;
            }
            let head = String::from_utf8_lossy(&b[item_start..j]).into_owned();
            let words: Vec<&str> = head.split_whitespace().collect();
            if let Some(p) = words.iter().position(|w| *w == "mod") {
                if let (Some(name), Some(b';')) = (words.get(p + 1), b.get(j)) {
                    let mut m = current(&inline);
                    m.push((*name).to_owned());
                    scan.test_only.insert(m);
                }
            }
            i = if b.get(j) == Some(&b'{') { matching_brace(&b, j) } else { j + 1 };
            continue;
        }
        if word_at(&b, i, "mod") {
            let name_start = skip_ws(&b, i + 3);
            let name_end = ident_end(&b, name_start);
            let after = skip_ws(&b, name_end);
            if b.get(after) == Some(&b'{') {
                let mut m = current(&inline);
                m.push(String::from_utf8_lossy(&b[name_start..name_end]).into_owned());
                inline.push((m, depth));
                depth += 1;
                i = after + 1;
                continue;
            }
        }
        if word_at(&b, i, "use") {
            let mut leaves = Vec::new();
            let end = use_tree(&b, i + 3, &[], &mut leaves);
            let module = current(&inline);
            for (at, segs) in leaves {
                push_use(scan, rel, &b, at, &module, segs, in_main);
            }
            i = end.max(i + 3);
            continue;
        }
        if is_ident(c) && (i == 0 || (!is_ident(b[i - 1]) && b[i - 1] != b':')) {
            let start = if i > 0 && b[i - 1] == b'$' { i - 1 } else { i };
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let end = ident_end(&b, j);
                if end == j {
                    break;
                }
                segs.push(String::from_utf8_lossy(&b[j..end]).into_owned());
                if b[end..].starts_with(b"::") && b.get(end + 2).is_some_and(|&c| is_ident(c)) {
                    j = end + 2;
                } else {
                    j = end;
                    break;
                }
            }
            if start < i {
                segs[0].insert(0, '$');
            }
            if segs.len() > 1 {
                let module = current(&inline);
                push_use(scan, rel, &b, start, &module, segs, in_main);
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
}

fn push_use(scan: &mut Scan, rel: &str, b: &[u8], at: usize, module: &[String], segs: Vec<String>, in_main: bool) {
    let written = segs.join("::");
    let crate_path = resolve(module, &segs, in_main);
    let external = matches!(segs.first().map(String::as_str), Some("std" | "core" | "mio" | "libc"));
    if crate_path.is_none() && !external {
        return;
    }
    scan.uses.push(Use { file: rel.to_owned(), line: line_of(b, at), written, crate_path, module: module.to_vec() });
}

fn scan_crate() -> Scan {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rs_files(&root.join("src"), &mut files);
    let mut scan = Scan::default();
    for path in &files {
        let Ok(rel) = path.strip_prefix(root) else { continue };
        let rel_str = rel.to_string_lossy().into_owned();
        let module = if rel_str == "src/main.rs" { vec!["main".to_owned()] } else { module_of(rel) };
        scan.modules.insert(module, rel_str);
    }
    for path in &files {
        let Ok(rel) = path.strip_prefix(root) else { continue };
        let rel_str = rel.to_string_lossy().into_owned();
        let module = if rel_str == "src/main.rs" { vec!["main".to_owned()] } else { module_of(rel) };
        let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {rel_str}: {e}"));
        scan_file(&mut scan, &rel_str, &module, &src);
    }
    scan
}

impl Scan {
    /// Whether `module` is compiled only for tests: declared `#[cfg(test)]`, or a `tests` module.
    fn is_test(&self, module: &[String]) -> bool {
        (1..=module.len()).any(|n| self.test_only.contains(&module[..n]) || module[n - 1] == "tests")
    }

    /// The longest known module that is a prefix of `path`.
    fn module_for(&self, path: &[String]) -> Option<Vec<String>> {
        (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|m| self.modules.contains_key(m))
    }

    fn production_uses(&self) -> impl Iterator<Item = &Use> {
        self.uses.iter().filter(|u| !self.is_test(&u.module))
    }
}

fn within(module: &str, layer: &str) -> bool {
    module == layer || module.starts_with(&format!("{layer}::"))
}

fn path_within(path: &str, prefix: &str) -> bool {
    path == prefix || path.starts_with(&format!("{prefix}::"))
}

/// Every rule broken by a production use, as "file:line: `path` — rule" lines; and the known
/// exceptions that matched.
fn violations(scan: &Scan) -> (Vec<String>, BTreeSet<(&'static str, &'static str)>) {
    let mut out = Vec::new();
    let mut matched = BTreeSet::new();
    let mut report = |u: &Use, rule: String, matched: &mut BTreeSet<(&'static str, &'static str)>| {
        if let Some(k) = KNOWN.iter().find(|k| k.file == u.file && path_within(&u.written, k.uses)) {
            matched.insert((k.file, k.uses));
            return;
        }
        out.push(format!("{}:{}: `{}` — {rule}", u.file, u.line, u.written));
    };
    for u in scan.production_uses() {
        let from = u.module.join("::");
        if let Some(path) = &u.crate_path {
            let Some(target) = scan.module_for(path) else { continue };
            let to = target.join("::");
            if to.is_empty() || within(&to, &from) || within(&from, &to) {
                continue;
            }
            for layer in BELOW_MCP {
                if within(&from, layer) && within(&to, "mcp") {
                    report(
                        u,
                        format!("{layer} must not use mcp (nothing below the MCP layer imports it)"),
                        &mut matched,
                    );
                }
            }
            for rule in MUST_NOT {
                if within(&from, rule.layer) {
                    if let Some(bad) = rule.must_not.iter().find(|m| within(&to, m)) {
                        report(u, format!("{} must not use {bad} ({})", rule.layer, rule.why), &mut matched);
                    }
                }
            }
            for rule in ONLY {
                if within(&from, rule.layer) && !within(&to, rule.layer) && !rule.may.iter().any(|m| within(&to, m)) {
                    let may = if rule.may.is_empty() {
                        "must use nothing else in the crate".to_owned()
                    } else {
                        format!("may use only {}", rule.may.join(", "))
                    };
                    report(u, format!("{} {may} ({})", rule.layer, rule.why), &mut matched);
                }
            }
        } else if IO_PATHS.iter().any(|p| path_within(&u.written, p))
            && !NOT_IO.iter().any(|p| path_within(&u.written, p))
            && !IO_LAYERS.iter().any(|l| within(&from, l))
        {
            report(u, format!("only {} may touch the OS directly", IO_LAYERS.join(", ")), &mut matched);
        }
    }
    (out, matched)
}

/// The module-level import graph projected onto siblings: an edge `a::b::x → a::c::y` counts as
/// `a::b → a::c`; uses between a module and its ancestors or descendants do not count.
fn sibling_edges(scan: &Scan) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for u in scan.production_uses() {
        let Some(target) = u.crate_path.as_ref().and_then(|p| scan.module_for(p)) else { continue };
        let (a, b) = (&u.module, &target);
        let common = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
        if common < a.len() && common < b.len() {
            let site = format!("{}:{}: `{}`", u.file, u.line, u.written);
            edges.entry(a[..=common].join("::")).or_default().entry(b[..=common].join("::")).or_insert(site);
        }
    }
    edges
}

/// Strongly connected components with more than one member, each sorted.
fn cycles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for m in edges.get(&n).into_iter().flat_map(BTreeMap::keys) {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> = edges.keys().map(|k| (k, reach(k))).collect();
    let mut out: BTreeSet<Vec<String>> = BTreeSet::new();
    for (k, r) in &reaches {
        let scc: Vec<String> = r
            .iter()
            .filter(|m| *m == *k || reaches.get(m).is_some_and(|back| back.contains(*k)))
            .cloned()
            .chain(std::iter::once((*k).clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if scc.len() > 1 && r.contains(*k) {
            out.insert(scc);
        }
    }
    out.into_iter().collect()
}

#[test]
fn the_scanner_sees_the_crate() {
    let scan = scan_crate();
    for m in ["session", "mcp", "dap::client", "reply", "main"] {
        let key: Vec<String> = m.split("::").map(str::to_owned).collect();
        assert!(scan.modules.contains_key(&key), "module {m} not found");
    }
    assert!(scan.is_test(&["dap".to_owned(), "adapters".to_owned(), "test_host".to_owned()]));
    let reply_uses: Vec<&str> =
        scan.production_uses().filter(|u| u.file == "src/reply.rs").map(|u| u.written.as_str()).collect();
    assert!(reply_uses.contains(&"crate::dap::client::Outcome"), "{reply_uses:?}");
}

#[test]
fn use_trees_and_inline_paths_are_collected_with_lines() {
    let mut scan = Scan::default();
    let src = "//! x\nuse crate::{a::{b, c as d}, e::*};\nuse super::f::{self, G};\n// crate::in_comment\n\
               fn x() { let _ = \"crate::in_string\"; crate::h::i(); std::fs::read(p); }\n\
               #[cfg(test)]\nmod tests { use crate::hidden; }\n#[cfg(test)]\nmod helper;\n\
               mod inner { fn y() { super::k::l(); } }\n";
    scan_file(&mut scan, "src/p/q.rs", &["p".to_owned(), "q".to_owned()], src);
    let got: Vec<(usize, String, Option<String>)> =
        scan.uses.iter().map(|u| (u.line, u.written.clone(), u.crate_path.as_ref().map(|p| p.join("::")))).collect();
    let s = |x: &str| Some(x.to_owned());
    assert_eq!(
        got,
        [
            (2, "crate::a::b".to_owned(), s("a::b")),
            (2, "crate::a::c".to_owned(), s("a::c")),
            (2, "crate::e".to_owned(), s("e")),
            (3, "super::f".to_owned(), s("p::f")),
            (3, "super::f::G".to_owned(), s("p::f::G")),
            (5, "crate::h::i".to_owned(), s("h::i")),
            (5, "std::fs::read".to_owned(), None),
            (10, "super::k::l".to_owned(), s("p::q::k::l")),
        ]
    );
    assert!(scan.test_only.contains(&vec!["p".to_owned(), "q".to_owned(), "helper".to_owned()]));
    // In a `mod.rs`, `super::` is the parent of the directory's module.
    let mut scan = Scan::default();
    scan_file(&mut scan, "src/a/mod.rs", &["a".to_owned()], "use super::x::Y;\n");
    assert_eq!(scan.uses[0].crate_path, Some(vec!["x".to_owned(), "Y".to_owned()]));
}

#[test]
fn no_module_uses_one_its_layer_must_not() {
    let scan = scan_crate();
    let (broken, matched) = violations(&scan);
    assert!(broken.is_empty(), "layering rules broken (see src/layering.rs for the table):\n{}", broken.join("\n"));
    let stale: Vec<String> = KNOWN
        .iter()
        .filter(|k| !matched.contains(&(k.file, k.uses)))
        .map(|k| format!("{} no longer uses {} ({}): remove it from KNOWN", k.file, k.uses, k.why))
        .collect();
    assert!(stale.is_empty(), "known exceptions that no longer occur:\n{}", stale.join("\n"));
}

#[test]
fn no_import_cycle_between_sibling_modules() {
    let scan = scan_crate();
    let edges = sibling_edges(&scan);
    let found = cycles(&edges);
    let known: Vec<Vec<String>> =
        KNOWN_CYCLES.iter().map(|(members, _)| members.iter().map(|m| (*m).to_owned()).collect()).collect();
    // Each new cycle with the use behind every edge inside it (the first one found).
    let new: Vec<String> = found
        .iter()
        .filter(|c| !known.contains(c))
        .map(|c| {
            let inside = c.iter().flat_map(|from| {
                edges[from]
                    .iter()
                    .filter(|(to, _)| c.contains(to))
                    .map(move |(to, site)| format!("\n  {from} → {to}: {site}"))
            });
            format!("{}{}", c.join(" ↔ "), inside.collect::<String>())
        })
        .collect();
    assert!(new.is_empty(), "import cycles between sibling modules:\n{}", new.join("\n"));
    let gone: Vec<String> = known.iter().filter(|c| !found.contains(c)).map(|c| c.join(" ↔ ")).collect();
    assert!(gone.is_empty(), "known cycles that are gone: remove them from KNOWN_CYCLES:\n{}", gone.join("\n"));
}
