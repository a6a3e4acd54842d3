//! Tool group "breakpoints": `set_breakpoints` (kinds source, function, data, instruction),
//! `breakpoints` (the list of every kind, or with `path` and `line` the possible locations) and
//! `set_exception_breakpoints`. agentdap keeps each kind's set so `add` never clobbers; results
//! say per breakpoint whether the adapter verified it and where it really bound.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::breakpoints::{data_json, functions_json, instructions_json, list_state_text, state_text};
use crate::session::breakpoints::{put_never_hit, Bound, Mode, SourceBreakpoint};
use crate::session::tools::breakpoints::locations::Lines;
use crate::session::Files;

mod items;

use items::{Item, Kind};

const SETTING: Annotations = Annotations { read_only: false, destructive: false, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "set_breakpoints",
        description: "Set one kind's breakpoints, items by kind: source {line}, function {name}, data {ref and name, or expression &x}, instruction {address}; says which bound and where. Without a session, source and function ones wait for launch.",
        input_schema: set_schema,
        annotations: SETTING,
        handler: set_breakpoints,
    },
    Tool {
        name: "breakpoints",
        description: "Every breakpoint and its verification; path+line: where they can go.",
        input_schema: list_schema,
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
            "kind": {"type": "string", "enum": ["source", "function", "data", "instruction"], "description": "Default source."},
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
                        "log_message": {"type": "string"},
                        "name": {"type": "string"},
                        "ref": {"type": "integer"},
                        "expression": {"type": "string"},
                        "bytes": {"type": "integer", "description": "Size at expression."},
                        "access": {"type": "string", "enum": ["read", "write", "readWrite"]},
                        "address": {"type": "string"},
                        "offset": {"type": "integer"}
                    }
                }
            },
            "lines": {"type": "array", "items": {"type": "integer"}, "description": "Shorthand: lines only."},
            "mode": {"type": "string", "enum": ["replace", "add", "remove"], "description": "Default replace."}
        }
    })
}

fn list_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "path": {"type": "string"},
            "line": {"type": "integer"},
            "end_line": {"type": "integer"}
        }
    })
}

fn exception_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "filters": {"type": "array", "items": {"type": "string"}, "description": "Filter ids; [] = none."},
            "conditions": {"type": "object", "properties": {}, "description": "Filter id: condition."}
        },
        "required": ["filters"]
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SetArgs {
    session: Option<String>,
    kind: Option<String>,
    path: Option<String>,
    #[serde(default)]
    breakpoints: Vec<Item>,
    #[serde(default)]
    lines: Vec<u32>,
    mode: Option<String>,
}

fn set_breakpoints(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: SetArgs = parse_args(args)?;
    let kind = Kind::parse(a.kind.as_deref())?;
    let mode = match a.mode.as_deref().map(Mode::parse) {
        None => Mode::Replace,
        Some(Some(m)) => m,
        Some(None) => {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, "mode must be one of replace, add, remove."))
        }
    };
    if kind != Kind::Source {
        let other = [("path", a.path.is_some()), ("lines", !a.lines.is_empty())].into_iter().find(|(_, on)| *on);
        if let Some((arg, _)) = other {
            let msg = format!("`{arg}` is for kind source; this kind's breakpoints go in `breakpoints`.");
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
    }
    match kind {
        Kind::Source => {}
        Kind::Function => {
            let list = items::function(a.breakpoints)?;
            // No session yet is fine: they wait for the next launch.
            let key = match a.session.as_deref() {
                Some(id) => Some(cx.sessions.resolve(Some(id))?),
                None => cx.sessions.resolve(None).ok(),
            };
            cx.sessions.set_function_breakpoints(key, mode, list, cx.call, cx.now)?;
            return Ok(Outcome::Pending);
        }
        Kind::Data => {
            let list = items::data(a.breakpoints)?;
            let key = session_key(cx, a.session.as_deref())?;
            cx.sessions.set_data_breakpoints(key, mode, list, cx.call, cx.now)?;
            return Ok(Outcome::Pending);
        }
        Kind::Instruction => {
            let list = items::instruction(a.breakpoints)?;
            let key = session_key(cx, a.session.as_deref())?;
            cx.sessions.set_instruction_breakpoints(key, mode, list, cx.call, cx.now)?;
            return Ok(Outcome::Pending);
        }
    }
    let Some(given_path) = a.path else {
        let msg = "path is required for kind source (the file whose breakpoints these are).";
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    };
    let mut list = items::source(a.breakpoints)?;
    list.extend(a.lines.into_iter().map(|line| SourceBreakpoint {
        line,
        column: None,
        condition: None,
        hit_condition: None,
        log_message: None,
    }));
    if let Some(msg) = bad_path(&given_path) {
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
    let path = session_path(cx, key, &given_path);
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

/// A relative path means what it meant at launch: against the session's `cwd`, if it had one.
fn session_path(cx: &ToolCx<'_>, key: Option<crate::session::SessionKey>, given: &str) -> String {
    let cwd = key.and_then(|k| cx.sessions.get(k)).and_then(|s| s.cwd());
    crate::session::plan::resolve_path(given, cwd.as_deref()).to_string_lossy().into_owned()
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    session: Option<String>,
    path: Option<String>,
    line: Option<u32>,
    end_line: Option<u32>,
}

/// The adapter verified the breakpoint (a stop could be credited to it).
fn verified(bound: &Option<Bound>) -> bool {
    bound.as_ref().is_some_and(|b| b.verified)
}

/// `breakpoints {path, line, end_line}`: the possible locations, from the adapter.
fn locations(cx: &mut ToolCx<'_>, a: ListArgs) -> Result<Outcome, ToolResult> {
    let bad = |msg: &str| Err(ToolResult::error(ErrorCode::InvalidArgument, msg.to_owned()));
    let (Some(given), Some(line)) = (a.path, a.line) else {
        return bad("breakpoint locations need both `path` and `line` (and `end_line` for a range); without any of them, `breakpoints` lists the breakpoints.");
    };
    if let Some(msg) = bad_path(&given) {
        return bad(&msg);
    }
    if line == 0 || a.end_line == Some(0) {
        return bad("lines are 1-based; line 0 does not exist.");
    }
    if a.end_line.is_some_and(|e| e < line) {
        return bad("end_line is before line.");
    }
    let key = session_key(cx, a.session.as_deref())?;
    let path = session_path(cx, Some(key), &given);
    if let Some(msg) = missing_file(cx.sessions.files(), &path) {
        return bad(&msg);
    }
    cx.sessions.breakpoint_locations(key, Lines { path, line, end_line: a.end_line }, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

fn list(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: ListArgs = parse_args(args)?;
    if a.path.is_some() || a.line.is_some() || a.end_line.is_some() {
        return locations(cx, a);
    }
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
    // One line of the listing: where, what it does besides stopping, its state and hits.
    let line_text = |path: &str, e: &crate::session::breakpoints::Entry| {
        let state = match &e.bound {
            None => "pending".to_owned(),
            Some(b) if b.verified && e.moved() => format!("verified, moved to line {}", b.line.unwrap_or(0)),
            Some(b) if b.verified => "verified".to_owned(),
            Some(b) => format!("NOT verified ({})", b.why_not()),
        };
        let hit = if e.requested.log_message.is_some() {
            // A logpoint does not stop, so no stop is credited to it.
            String::new()
        } else {
            e.hits.text(verified(&e.bound))
        };
        format!("{path}:{}{} {state}{hit}", e.requested.line, e.requested.options_text())
    };
    // Items with their hits and owner (issue 22: the person's are an attached IDE's).
    let items_of = |set: &[&crate::session::breakpoints::Entry],
                    owner: &dyn Fn(&crate::session::breakpoints::Entry) -> &'static str| {
        let owned: Vec<crate::session::breakpoints::Entry> = set.iter().map(|e| (*e).clone()).collect();
        let mut items = crate::session::breakpoints_json(&owned);
        for (item, e) in items.as_array_mut().into_iter().flatten().zip(set) {
            if let Some(m) = item.as_object_mut() {
                e.hits.put_json(m);
                m.insert("owner".into(), owner(e).into());
            }
        }
        put_never_hit(&mut items);
        items
    };
    for (path, set) in store.files() {
        if set.is_empty() {
            continue;
        }
        for e in set {
            let shared = if store.person_shares(path, &e.requested) { " · also the person's" } else { "" };
            text.push_str(&format!("{}{shared}\n", line_text(path, e)));
        }
        let owner = |e: &crate::session::breakpoints::Entry| {
            if store.person_shares(path, &e.requested) {
                "agent and person"
            } else {
                "agent"
            }
        };
        let refs: Vec<&crate::session::breakpoints::Entry> = set.iter().collect();
        files.push(json!({"path": path, "breakpoints": items_of(&refs, &owner)}));
    }
    // The person's (an attached IDE's) that are not also the agent's; the agent's calls keep them.
    for (path, set) in store.people_only() {
        for e in &set {
            text.push_str(&format!("{} · the person's\n", line_text(path, e)));
        }
        let items = items_of(&set, &|_| "person");
        let at = files.iter().position(|f| f["path"] == path);
        match at.and_then(|i| files[i]["breakpoints"].as_array_mut()) {
            Some(list) => list.extend(items.as_array().cloned().unwrap_or_default()),
            None => files.push(json!({"path": path, "breakpoints": items})),
        }
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
        let never = e.hits.never_text(verified(&e.bound));
        text.push_str(&format!("function {}{options}: {}{never}\n", e.requested.name, state_text(e)));
    }
    for e in store.data() {
        let d = &e.requested;
        let state = session.map_or_else(|| list_state_text(e), |s| s.data_state_text(e));
        let never = e.hits.never_text(verified(&e.bound));
        text.push_str(&format!("data `{}`{}: {state}{never}\n", d.what, d.options_text()));
    }
    for e in store.instructions() {
        let i = &e.requested;
        let never = e.hits.never_text(verified(&e.bound));
        text.push_str(&format!("instruction {}{}: {}{never}\n", i.place(), i.options_text(), list_state_text(e)));
    }
    let dropped = session.map(|s| s.breaks.dropped_at_restart.as_slice()).unwrap_or_default();
    if !dropped.is_empty() {
        text.push_str(&format!(
            "dropped at the last restart (each named the old run's memory): {}\n",
            dropped.join(", ")
        ));
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
        put_never_hit(&mut structured["functions"]);
    }
    if !store.data().is_empty() {
        structured["data"] = data_json(store.data());
        put_never_hit(&mut structured["data"]);
    }
    if !store.instructions().is_empty() {
        structured["instructions"] = instructions_json(store.instructions());
        put_never_hit(&mut structured["instructions"]);
    }
    if !dropped.is_empty() {
        structured["dropped_at_restart"] = dropped.into();
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
    #[serde(default)]
    conditions: BTreeMap<String, String>,
}

fn set_exception_breakpoints(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: ExceptionArgs = parse_args(args)?;
    if let Some((id, _)) = a.conditions.iter().find(|(_, c)| c.trim().is_empty()) {
        let msg =
            format!("the condition of `{id}` is empty; leave the filter out of `conditions` to stop on every one.");
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    }
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.set_exception_breakpoints(key, a.filters, a.conditions, cx.call, cx.now)?;
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
