//! Tool group "run": start, resume and end sessions (`launch`, `attach`, `continue`,
//! `disconnect`, also graceful through DAP `terminate`). Handlers validate arguments and hand the work to the session manager, which
//! answers the call later (at a stop, the exit, or the end of `wait_ms`).

use serde_json::{json, Map, Value};

use super::{
    parse_args, session_key, session_prop, wait_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult,
};
use crate::session::plan::launch_json::{self, Project};
use crate::session::{plan, postmortem, Files, LaunchArgs, LaunchBreakpoint};

const CONTROL: Annotations = Annotations { read_only: false, destructive: false, idempotent: false };
const ENDING: Annotations = Annotations { read_only: false, destructive: true, idempotent: true };

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "launch",
        description: "Run a program under its debugger, breakpoints set first; returns at the first stop or exit.",
        input_schema: launch_schema,
        annotations: CONTROL,
        handler: launch,
    },
    Tool {
        name: "attach",
        description:
            "Attach to a process (pid), debug server (connect) or core dump (core+program); agentdap never kills it.",
        input_schema: attach_schema,
        annotations: CONTROL,
        handler: attach,
    },
    Tool {
        name: "continue",
        description: "Resume until the next stop or exit; after wait_ms it answers `running`.",
        input_schema: continue_schema,
        annotations: CONTROL,
        handler: resume,
    },
    Tool {
        name: "disconnect",
        description: "End the session; a launched program is terminated (graceful: asked to end itself first).",
        input_schema: disconnect_schema,
        annotations: ENDING,
        handler: disconnect,
    },
];

fn launch_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "program": {"type": "string"},
            "test": {"type": "string", "description": "pytest/unittest/Go/Rust/node test id"},
            "args": {"type": "array", "items": {"type": "string"}},
            "cwd": {"type": "string"},
            "env": {"type": "object", "properties": {}},
            "adapter": {"type": "string", "description": "By program; or debugpy lldb delve node rdbg codelldb gdb netcoredbg custom."},
            "stop_on_entry": {"type": "boolean", "description": "Default: if no breakpoints."},
            "breakpoints": {
                "type": "array",

                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "line": {"type": "integer"},
                        "condition": {"type": "string"},
                        "hit_condition": {"type": "string"},
                        "log_message": {"type": "string"}
                    },
                    "required": ["path", "line"]
                }
            },
            "exception_filters": {"type": "array", "items": {"type": "string"}, "description": "Default: the adapter's."},
            "no_debug": {"type": "boolean"},
            "console": {"type": "string", "enum": ["internal", "terminal"], "description": "terminal: stdin via send_input."},
            "adapter_args": {"type": "object", "properties": {}, "description": "Merged into DAP launch args."},
            "wait_ms": wait_prop(),
            "config": {"type": "string"},
            "list_configs": {"type": "boolean"}
        }
    })
}

fn attach_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pid": {"type": "integer", "description": "Needs ptrace (node: none)."},
            "connect": {
                "type": "object",
                "description": "A listening debug server, or node --inspect (host default 127.0.0.1).",
                "properties": {"host": {"type": "string"}, "port": {"type": "integer"}},
                "required": ["port"]
            },
            "core": {"type": "string"},
            "program": {"type": "string"},
            "adapter": {"type": "string", "description": "Default debugpy."},
            "breakpoints": launch_schema()["properties"]["breakpoints"].clone(),
            "exception_filters": {"type": "array", "items": {"type": "string"}, "description": "Default: the adapter's."},
            "adapter_args": {"type": "object", "properties": {}, "description": "Merged into DAP attach args."},
            "wait_ms": wait_prop()
        }
    })
}

fn continue_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "thread": {"type": "integer"},
            "reverse": {"type": "boolean"},
            "wait_ms": wait_prop()
        }
    })
}

fn disconnect_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "terminate_debuggee": {"type": "boolean", "description": "Default: true when launched, false when attached."},
            "graceful": {"type": "boolean"}
        }
    })
}

fn launch(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let mut args: LaunchArgs = parse_args(args)?;
    refuse_nul_bytes(&args)?;
    if let Some(id) = args.test.clone() {
        return launch_test(cx, args, id);
    }
    // Relative breakpoint paths mean the same as a relative `program`: against the launch `cwd`
    // when one is given, else against agentdap's working directory.
    prepare_breakpoints(cx.sessions.files(), &mut args.breakpoints, args.cwd.as_deref(), MissingFile::Refuse)?;
    let mut notes = Vec::new();
    let from_config = args.config.is_some();
    if args.config.is_some() || args.list_configs {
        match launch_json::from_project(args, cx.sessions.files())? {
            Project::Listing(result) => return Ok(Outcome::Done(result)),
            Project::Attach { args, notes } => return start_attach(cx, args, notes),
            Project::Launch { args: from_config, notes: dropped } => (args, notes) = (from_config, dropped),
        }
        // The configuration's own fields.
        refuse_nul_bytes(&args)?;
    }
    if args.program.is_empty() {
        let msg = "pass `program`, `test` (a test's id), or `config` (a configuration of .vscode/launch.json in `cwd`; `list_configs: true` lists them).";
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    }
    let has_breakpoints = !cx.sessions.pending_breakpoints.is_empty();
    let mut plan = plan::launch(&args, has_breakpoints, &cx.sessions.config, cx.sessions.files()).map_err(|e| {
        if from_config {
            launch_json::explain_not_found(e, &args)
        } else {
            e
        }
    })?;
    plan.notes.extend(notes);
    cx.sessions.launch(args, plan, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

/// `launch {test}`: one test of the project in `cwd` (or in `program`, a project directory).
fn launch_test(cx: &mut ToolCx<'_>, mut args: LaunchArgs, id: String) -> Result<Outcome, ToolResult> {
    if id.trim().is_empty() {
        return Err(ToolResult::error(ErrorCode::InvalidArgument, "`test` is empty; pass a test's id or name."));
    }
    // A runner reads a leading `-` as one of its options (`--help`, `-k x`, `--collect-only`):
    // the run would be that option's, not one test's. No test id starts with one.
    if id.trim_start().starts_with('-') {
        let msg = format!(
            "test {} starts with `-`, which the runner would read as an option; pass one test's id (runner options go in `args`).",
            crate::visible::quoted_cut(&id, 80)
        );
        return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
    }
    let base = args.cwd.clone().unwrap_or_else(|| ".".to_owned());
    let dir = if args.program.is_empty() {
        plan::resolve_path(&base, None)
    } else {
        plan::resolve_path(&args.program, Some(&base))
    };
    let files = cx.sessions.files();
    if !crate::session::test_rust::is_cargo_project(&dir, files) || plan::test_id::names_another_runner(&args) {
        // Python, Go and node:test runs: one launch of the runner (`plan/test_id.rs`).
        prepare_breakpoints(files, &mut args.breakpoints, args.cwd.as_deref(), MissingFile::Refuse)?;
        let has_breakpoints = !cx.sessions.pending_breakpoints.is_empty();
        let (args, plan) = plan::test_id::launch(&args, has_breakpoints, &cx.sessions.config, cx.sessions.files())?;
        cx.sessions.launch(args, plan, cx.call, cx.now)?;
        return Ok(Outcome::Pending);
    }
    prepare_breakpoints(files, &mut args.breakpoints, Some(&dir.to_string_lossy()), MissingFile::Refuse)?;
    args.program.clear();
    cx.sessions.launch_rust_test(args, id, dir, cx.call)?;
    Ok(Outcome::Pending)
}

fn attach(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    start_attach(cx, parse_args(args)?, Vec::new())
}

/// `attach` with its arguments parsed (from the call, or from a launch.json configuration with
/// the notes of what it left out).
fn start_attach(cx: &mut ToolCx<'_>, mut args: plan::AttachArgs, notes: Vec<String>) -> Result<Outcome, ToolResult> {
    // A debug server at `connect` may run on another machine or in a container, with its own
    // file system (and a `pathMappings` in `adapter_args`): a file missing here is sent as given
    // and named in the result. A process attached by pid runs here: as for `launch`.
    let missing = if args.connect.is_some() { MissingFile::Note } else { MissingFile::Refuse };
    let mut notes = notes;
    notes.extend(prepare_breakpoints(cx.sessions.files(), &mut args.breakpoints, None, missing)?);
    let (mut plan, start) = if args.core.is_some() || args.program.is_some() {
        postmortem::plan(&args, &cx.sessions.config, cx.sessions.files())?
    } else {
        plan::attach(&args, &cx.sessions.config, cx.sessions.files())?
    };
    plan.notes.extend(notes);
    cx.sessions.attach(start, plan, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ContinueArgs {
    session: Option<String>,
    thread: Option<i64>,
    #[serde(default)]
    reverse: bool,
    wait_ms: Option<u64>,
}

fn resume(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: ContinueArgs = parse_args(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.resume(key, a.thread, a.reverse, a.wait_ms, cx.call, cx.now)?;
    Ok(Outcome::Pending)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DisconnectArgs {
    session: Option<String>,
    terminate_debuggee: Option<bool>,
    graceful: Option<bool>,
}

fn disconnect(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: DisconnectArgs = parse_args(args)?;
    let key = session_key(cx, a.session.as_deref())?;
    // With no `session`, the program the default session belongs to: its top-level session (a
    // worker's or tsx's loader thread's child session is not what "disconnect" means).
    let key = if a.session.is_none() { cx.sessions.top_level(key) } else { key };
    if a.graceful == Some(true) {
        if a.terminate_debuggee == Some(false) {
            let msg = "`graceful` ends the program and `terminate_debuggee: false` keeps it; pass one of them.";
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        cx.sessions.terminate(key, cx.call, cx.now)?;
    } else {
        cx.sessions.disconnect(key, a.terminate_debuggee, cx.call, cx.now)?;
    }
    Ok(Outcome::Pending)
}

/// What [`prepare_breakpoints`] does with a breakpoint whose file does not exist here, or whose
/// line is past the end of the file here.
#[derive(Clone, Copy, PartialEq)]
enum MissingFile {
    /// Refused before anything starts (the program runs on this machine: a misspelling).
    Refuse,
    /// Kept, and named in the notes returned (the program may see another file system).
    Note,
}

/// Checks the breakpoints given to `launch`/`attach` (a usable path, 1-based lines, a file that
/// exists and holds the line unless `missing` says otherwise) and makes their paths absolute against `cwd` (else
/// agentdap's working directory). Returns the notes for files kept though missing.
fn prepare_breakpoints(
    files: &dyn Files,
    list: &mut [LaunchBreakpoint],
    cwd: Option<&str>,
    missing: MissingFile,
) -> Result<Vec<String>, ToolResult> {
    let mut notes = Vec::new();
    for b in list.iter_mut() {
        let problem = super::breakpoints::bad_path(&b.path)
            .or_else(|| (b.breakpoint.line == 0).then(|| "lines are 1-based; line 0 does not exist.".to_owned()));
        if let Some(msg) = problem {
            let msg = format!("breakpoint {}:{}: {msg}", b.path, b.breakpoint.line);
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        b.path = plan::resolve_path(&b.path, cwd).to_string_lossy().into_owned();
        // What the file on this machine says against the breakpoint, short (for a note: a
        // server may see other files) and whole (for the refusal).
        let against = match super::breakpoints::missing_file(files, &b.path) {
            Some(msg) => Some(("no such file".to_owned(), format!("{msg} Nothing was started."))),
            None => super::breakpoints::past_end(files, &b.path, b.breakpoint.line).map(|m| {
                let whole = format!("{m}; nothing was started.");
                (m, whole)
            }),
        };
        let Some((short, whole)) = against else { continue };
        let at = format!("breakpoint {}:{}", b.path, b.breakpoint.line);
        if missing == MissingFile::Note {
            notes.push(format!("{at}: {short} on this machine; sent as given, for the debug server's own files"));
            continue;
        }
        return Err(ToolResult::error(ErrorCode::InvalidArgument, format!("{at}: {whole}")));
    }
    Ok(notes)
}

/// A launch whose program, `args`, `cwd`, `env`, `test` or any string of `adapter_args` holds a
/// NUL byte is refused before anything starts: the program would get its input cut at the NUL
/// (argv, environ and paths are C strings; lldb-dap 22 cut `a\0b` to `a` without a word,
/// CodeLLDB 1.11.8 panicked: breakers' findings). Checked before the test runner's path and
/// before a configuration is read; a configuration's own fields are checked again after.
fn refuse_nul_bytes(args: &LaunchArgs) -> Result<(), ToolResult> {
    if let Some(at) = nul_in_value(&Value::Object(args.adapter_args.clone()), "adapter_args") {
        return Err(nul_error(&at));
    }
    if args.test.as_deref().is_some_and(|t| t.contains('\0')) {
        return Err(nul_error("test"));
    }
    let env = args.env.iter().flat_map(|(k, v)| {
        [
            (format!("env key {}", crate::visible::quoted(k)), k.as_str()),
            (format!("env.{}", crate::visible::escaped(k)), v.as_str().unwrap_or("")),
        ]
    });
    let fields = [("program".to_owned(), args.program.as_str()), ("cwd".to_owned(), args.cwd.as_deref().unwrap_or(""))]
        .into_iter()
        .chain(args.args.iter().enumerate().map(|(i, a)| (format!("args[{i}]"), a.as_str())))
        .chain(env);
    match fields.into_iter().find(|(_, text)| text.contains('\0')) {
        Some((field, _)) => Err(nul_error(&field)),
        None => Ok(()),
    }
}

fn nul_error(field: &str) -> ToolResult {
    let msg = format!(
        "`{field}` holds a NUL byte, which no program argument, environment value or path can carry (the program would get it cut there); nothing was started."
    );
    ToolResult::error(ErrorCode::InvalidArgument, msg)
}

/// Where in `v` (named `at`) a string or key holds a NUL byte: `adapter_args.args[0]`.
fn nul_in_value(v: &Value, at: &str) -> Option<String> {
    match v {
        Value::String(s) => s.contains('\0').then(|| at.to_owned()),
        Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| nul_in_value(item, &format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, item)| {
            let at = format!("{at}.{}", crate::visible::escaped(k));
            if k.contains('\0') {
                return Some(at);
            }
            nul_in_value(item, &at)
        }),
        _ => None,
    }
}
