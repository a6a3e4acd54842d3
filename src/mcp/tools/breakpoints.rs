//! Tool group "breakpoints": `set_breakpoints`, `breakpoints`, `set_exception_breakpoints`.
//! agentdap keeps each file's set so `add` never clobbers; results say per breakpoint whether the
//! adapter verified it and where it really bound.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::breakpoints::{functions_json, state_text};
use crate::session::breakpoints::{Mode, SourceBreakpoint};
use crate::session::Files;

const SETTING: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "set_breakpoints",
        description: "Set a file's breakpoints; says which bound and where. Without a session they wait for launch.",
        input_schema: set_schema,
        annotations: SETTING,
        handler: set_breakpoints,
    },
    Tool {
        name: "breakpoints",
        description: "Every breakpoint with its verification.",
        input_schema: session_only_schema,
        annotations: Annotations::READ_ONLY,
        handler: list,
    },
    Tool {
        name: "set_exception_breakpoints",
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
        if let Some(msg) = missing_file(cx.sessions.files(), &path) {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let last = list.iter().map(|b| b.line).max().unwrap_or(0);
        if let Some(msg) = past_end(cx.sessions.files(), &path, last) {
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
    let session = match a.session.as_deref() {
        Some(id) => {
            let k = cx.sessions.resolve(Some(id))?;
            Some(
                cx.sessions
                    .get(k)
                    .ok_or_else(|| ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."))?,
            )
        }
        None => cx.sessions.resolve(None).ok().and_then(|k| cx.sessions.get(k)),
    };
    let (id, store) = match session {
        Some(s) => (Some(s.id.clone()), &s.breaks.store),
        None => (None, &cx.sessions.pending_breakpoints),
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
    // An adapter whose setBreakpoints only adds (`Quirks::breakpoints_only_added`) still stops
    // at lines the agent's sets left out.
    let mut kept_json = Vec::new();
    if let Some(s) = session.filter(|s| !s.run.state.is_over()) {
        let mut kept: Vec<_> = s.breaks.kept_by_adapter.iter().filter(|(_, k)| !k.is_empty()).collect();
        kept.sort();
        for (path, lines) in kept {
            for (line, condition) in lines {
                let cond = condition.as_ref().map(|c| format!(" if {c}")).unwrap_or_default();
                text.push_str(&format!(
                    "{path}:{line}{cond} still set in {} (it never removes a breakpoint it was given)\n",
                    s.link.adapter
                ));
                kept_json.push(json!({"path": path, "line": line, "condition": condition}));
            }
        }
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
    if !kept_json.is_empty() {
        structured["kept_by_adapter"] = kept_json.into();
    }
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
pub(crate) fn missing_file(files: &dyn Files, path: &str) -> Option<String> {
    match files.is_file(Path::new(path)) {
        Ok(true) => None,
        Ok(false) => Some(format!("{path} is not a file; breakpoints go on source files.")),
        Err(e) => Some(format!(
            "no source file {path} ({e}); check the spelling (relative paths are taken against the session's cwd)."
        )),
    }
}

/// Most bytes of a source file read to count its lines; past it the line check is skipped.
const MAX_COUNTED: u64 = 16 << 20;

/// Why `line` is not a line of the file at `path`, if agentdap can tell it is not: the file
/// has fewer lines. Adapters move such a breakpoint to the last line and call it verified
/// (debugpy 1.8.22), so it is refused before anything is sent or run.
pub(crate) fn past_end(files: &dyn Files, path: &str, line: u32) -> Option<String> {
    let lines = files.count_lines(Path::new(path), MAX_COUNTED)?;
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
    use std::io;
    use std::path::{Path, PathBuf};

    use super::{missing_file, past_end, MAX_COUNTED};
    use crate::dap::adapters;
    use crate::os::files::OsFiles;
    use crate::session::files::{Files, ProcessStat, ReadError};

    /// A file system holding one file, `/src/one.py` (one line), in the directory `/src`; a file
    /// at `/src/big.py` too large to count. Counting itself is `os::files`' (tested there).
    struct OneFile;

    impl Files for OneFile {
        fn adapter_host(&self) -> &dyn adapters::Host {
            OsFiles.adapter_host()
        }
        fn exists(&self, path: &Path) -> bool {
            self.is_file(path).is_ok()
        }
        fn is_dir(&self, path: &Path) -> bool {
            path == Path::new("/src")
        }
        fn is_file(&self, path: &Path) -> io::Result<bool> {
            match path.to_str() {
                Some("/src/one.py" | "/src/big.py") => Ok(true),
                Some("/src") => Ok(false),
                _ => Err(io::Error::from(io::ErrorKind::NotFound)),
            }
        }
        fn count_lines(&self, path: &Path, cap: u64) -> Option<u64> {
            (path == Path::new("/src/one.py") && cap >= 6).then_some(1)
        }
        fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
            self.exists(path).then(|| path.to_owned())
        }
        fn read_bounded(&self, _: &Path, _: u64) -> Result<Vec<u8>, ReadError> {
            Err(ReadError::NotRegular)
        }
        fn process_exists(&self, _: i64) -> bool {
            false
        }
        fn process_stat(&self, _: i64) -> Option<ProcessStat> {
            None
        }
        fn process_cmdline(&self, _: i64, _: usize) -> Option<Vec<u8>> {
            None
        }
        fn process_exe(&self, _: i64) -> Option<PathBuf> {
            None
        }
        fn ptrace_scope(&self) -> Option<u8> {
            None
        }
        fn has_cap_sys_ptrace(&self) -> bool {
            false
        }
        fn make_scratch_dir(&self) -> io::Result<PathBuf> {
            Err(io::Error::from(io::ErrorKind::Unsupported))
        }
    }

    #[test]
    fn past_end_names_the_file_and_its_line_count_and_missing_file_says_why() {
        assert!(MAX_COUNTED >= 6, "the cap passed to count_lines");
        assert_eq!(past_end(&OneFile, "/src/one.py", 1), None);
        assert_eq!(past_end(&OneFile, "/src/one.py", 2).as_deref(), Some("line 2 is past the end of one.py (1 line)"));
        // A file that cannot be counted cheaply: the line check is skipped.
        assert_eq!(past_end(&OneFile, "/src/big.py", 1 << 30), None);
        assert_eq!(missing_file(&OneFile, "/src/one.py"), None);
        assert_eq!(
            missing_file(&OneFile, "/src").as_deref(),
            Some("/src is not a file; breakpoints go on source files.")
        );
        assert_eq!(
            missing_file(&OneFile, "/src/gone.py").as_deref(),
            Some(
                "no source file /src/gone.py (entity not found); check the spelling (relative paths are taken \
                 against the session's cwd)."
            )
        );
    }
}
