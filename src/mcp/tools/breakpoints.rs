//! Tool group "breakpoints": `set_breakpoints`, `breakpoints`, `set_exception_breakpoints`.
//! agentdap keeps each file's set so `add` never clobbers; results say per breakpoint whether the
//! adapter verified it and where it really bound.

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::breakpoints::{functions_json, state_text};
use crate::session::breakpoints::{Mode, SourceBreakpoint};

const SETTING: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "set_breakpoints",
        title: "Set breakpoints",
        description: "Set a file's breakpoints; says which were verified and where they bound. Without a session they wait for launch.",
        input_schema: set_schema,
        annotations: SETTING,
        handler: set_breakpoints,
    },
    Tool {
        name: "breakpoints",
        title: "List breakpoints",
        description: "Every breakpoint with its verification.",
        input_schema: session_only_schema,
        annotations: Annotations::READ_ONLY,
        handler: list,
    },
    Tool {
        name: "set_exception_breakpoints",
        title: "Set exception filters",
        description: "Which exceptions stop the program, by the adapter's filter ids.",
        input_schema: exception_schema,
        annotations: SETTING,
        handler: set_exception_breakpoints,
    },
];

fn set_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "path": {"type": "string"},
            "breakpoints": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "line": {"type": "integer"},
                        "column": {"type": "integer"},
                        "condition": {"type": "string"},
                        "hit_condition": {"type": "string"},
                        "log_message": {"type": "string"}
                    },
                    "required": ["line"]
                }
            },
            "lines": {"type": "array", "items": {"type": "integer"}, "description": "Shorthand: lines only."},
            "mode": {"type": "string", "enum": ["replace", "add", "remove"], "description": "Default replace."}
        },
        "required": ["path"]
    })
}

fn session_only_schema() -> Value {
    json!({"type": "object", "properties": {"session": session_prop()}})
}

fn exception_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "filters": {"type": "array", "items": {"type": "string"}, "description": "Filter ids; [] = none."}
        },
        "required": ["filters"]
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SetArgs {
    session: Option<String>,
    path: String,
    #[serde(default)]
    breakpoints: Vec<SourceBreakpoint>,
    #[serde(default)]
    lines: Vec<u32>,
    mode: Option<String>,
}

fn set_breakpoints(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: SetArgs = parse_args(args)?;
    let mode = match a.mode.as_deref().map(Mode::parse) {
        None => Mode::Replace,
        Some(Some(m)) => m,
        Some(None) => {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, "mode must be one of replace, add, remove."))
        }
    };
    let mut list = a.breakpoints;
    list.extend(a.lines.into_iter().map(|line| SourceBreakpoint {
        line,
        column: None,
        condition: None,
        hit_condition: None,
        log_message: None,
    }));
    if let Some(msg) = bad_path(&a.path) {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    }
    if list.iter().any(|b| b.line == 0) {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, "lines are 1-based; line 0 does not exist."));
    }
    // No session yet is fine: the breakpoints wait for the next launch.
    let key = match a.session.as_deref() {
        Some(id) => Some(cx.sessions.resolve(Some(id))?),
        None => cx.sessions.resolve(None).ok(),
    };
    // A relative path means what it meant at launch: against the session's `cwd`, if it had one.
    let cwd = key.and_then(|k| cx.sessions.get(k)).and_then(|s| s.cwd());
    let path = crate::session::plan::resolve_path(&a.path, cwd.as_deref()).to_string_lossy().into_owned();
    // Removing breakpoints of a file that is gone is fine; setting them is a misspelling.
    if !(mode == Mode::Remove || list.is_empty()) {
        if let Some(msg) = missing_file(&path) {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let last = list.iter().map(|b| b.line).max().unwrap_or(0);
        if let Some(msg) = past_end(&path, last) {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, format!("{msg}; no breakpoint was set.")));
        }
    }
    cx.sessions.set_breakpoints(key, path, mode, list, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    session: Option<String>,
}

fn list(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: SessionArgs = parse_args(args)?;
    let store = match a.session.as_deref() {
        Some(id) => {
            let k = cx.sessions.resolve(Some(id))?;
            cx.sessions.get(k).map(|s| (Some(s.id.clone()), &s.breaks.store))
        }
        None => match cx.sessions.resolve(None).ok().and_then(|k| cx.sessions.get(k)) {
            Some(s) => Some((Some(s.id.clone()), &s.breaks.store)),
            None => Some((None, &cx.sessions.pending_breakpoints)),
        },
    };
    let Some((id, store)) = store else {
        return Err(ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."));
    };
    let mut text = String::new();
    let mut files = Vec::new();
    for (path, set) in store.files() {
        if set.is_empty() {
            continue;
        }
        for e in set {
            let state = match &e.bound {
                None => "pending".to_owned(),
                Some(b) if b.verified && e.moved() => format!("verified, moved to line {}", b.line.unwrap_or(0)),
                Some(b) if b.verified => "verified".to_owned(),
                Some(b) => {
                    format!("NOT verified ({})", b.message.as_deref().unwrap_or("no reason given by the adapter"))
                }
            };
            let hit = if e.hit { " · hit" } else { "" };
            text.push_str(&format!("{path}:{}{} {state}{hit}\n", e.requested.line, e.requested.options_text()));
        }
        files.push(json!({"path": path, "breakpoints": crate::session::breakpoints_json(set)}));
    }
    let functions = store.functions();
    for e in functions {
        let options = e.requested.options_text();
        text.push_str(&format!("function {}{options}: {}\n", e.requested.name, state_text(e)));
    }
    if text.is_empty() {
        text = "no breakpoints".into();
    }
    let mut structured = json!({"files": files});
    if !functions.is_empty() {
        structured["functions"] = functions_json(functions);
    }
    if let Some(id) = id {
        structured["session"] = id.into();
    }
    Ok(Outcome::Done(ToolResult::ok(text.trim_end().to_owned(), structured)))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExceptionArgs {
    session: Option<String>,
    filters: Vec<String>,
}

fn set_exception_breakpoints(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: ExceptionArgs = parse_args(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.set_exception_breakpoints(key, a.filters, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

/// Why a breakpoint may not go on the absolute `path`, if it may not: nothing is there, or
/// not a file. Checked before anything is sent or run (a misspelled path would otherwise only
/// show as "never verified" once the program ended).
pub(crate) fn missing_file(path: &str) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(_) => Some(format!("{path} is not a file; breakpoints go on source files.")),
        Err(e) => Some(format!(
            "no source file {path} ({e}); check the spelling (relative paths are taken against the session's cwd)."
        )),
    }
}

/// Most bytes of a source file read to count its lines; past it the line check is skipped.
const MAX_COUNTED: u64 = 16 << 20;

/// How many lines the regular file at `path` has (a last line without a newline counts), or
/// `None` when agentdap cannot tell cheaply: not a regular file, over [`MAX_COUNTED`] bytes, or
/// unreadable. Opened non-blocking, so a FIFO never waits for a writer.
pub(crate) fn line_count(path: &str) -> Option<u64> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_COUNTED {
        return None;
    }
    // `take` bounds the read even if the file grows meanwhile (or lies about its size).
    let mut reader = file.take(MAX_COUNTED + 1);
    let mut buf = [0u8; 64 * 1024]; // cap: one 64 KiB chunk at a time
    let (mut read, mut newlines, mut last) = (0u64, 0u64, b'\n');
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        read += n as u64;
        newlines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[n - 1];
    }
    if read > MAX_COUNTED {
        return None;
    }
    Some(newlines + u64::from(last != b'\n'))
}

/// Why `line` is not a line of the file at `path`, if agentdap can tell it is not: the file
/// has fewer lines. Adapters move such a breakpoint to the last line and call it verified
/// (debugpy 1.8.22), so it is refused before anything is sent or run.
pub(crate) fn past_end(path: &str, line: u32) -> Option<String> {
    let lines = line_count(path)?;
    let name = path.rsplit('/').next().unwrap_or(path);
    let unit = if lines == 1 { "line" } else { "lines" };
    (u64::from(line) > lines).then(|| format!("line {line} is past the end of {name} ({lines} {unit})"))
}

/// Why a source path argument cannot be used, if it cannot (empty, or a NUL byte, which no file
/// name holds and which breaks adapters that pass it to the OS).
pub(crate) fn bad_path(path: &str) -> Option<String> {
    if path.trim().is_empty() {
        return Some("path is empty; give the source file's path.".into());
    }
    path.contains('\0').then(|| "path contains a NUL byte; no file name can.".into())
}

#[cfg(test)]
mod tests {
    use super::{line_count, past_end, MAX_COUNTED};

    #[test]
    fn line_count_counts_a_last_line_without_newline_and_skips_what_it_cannot_read_cheaply() {
        let dir = std::env::temp_dir().join(format!("agentdap-lines-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = |name: &str, text: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, text).expect("write");
            p.to_string_lossy().into_owned()
        };
        assert_eq!(line_count(&file("empty.py", b"")), Some(0));
        assert_eq!(line_count(&file("two.py", b"a\nb\n")), Some(2));
        assert_eq!(line_count(&file("open.py", b"a\nb")), Some(2));
        let one = file("one.py", b"x = 1\n");
        assert_eq!(past_end(&one, 1), None);
        assert_eq!(past_end(&one, 2).as_deref(), Some("line 2 is past the end of one.py (1 line)"));
        // Sparse: larger than the cap without writing it.
        let big = dir.join("big.py");
        std::fs::File::create(&big).and_then(|f| f.set_len(MAX_COUNTED + 1)).expect("sparse file");
        assert_eq!(line_count(&big.to_string_lossy()), None);
        // A FIFO with no writer: opened non-blocking and not counted (a blocking open would hang).
        let fifo = dir.join("pipe.py");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("no NUL");
        // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(line_count(&fifo.to_string_lossy()), None);
        assert_eq!(line_count(&dir.to_string_lossy()), None, "a directory");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
