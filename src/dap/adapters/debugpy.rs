//! The debugpy recipe (`<python> -m debugpy.adapter` over stdio): interpreter resolution (a
//! project's `.venv` only for a program inside that project, SECURITY.md "Project
//! interpreters"), launch/attach defaults, quirks as data, and recognising a missing debugpy
//! module; never runs Python itself.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use serde_json::{json, Value};

use super::stack_sampler::{StackSampler, StacksQuirks};
use super::{
    find_on_path, shell_quote, AdapterError, AttachHelperFailure, ChildSessions, ExpressionOnly, FailureShape, Host,
    Quirks, Recipe, ResolveInput, RuntimeQuirks, Transport,
};
use crate::dap::command::AdapterCommand;

#[path = "debugpy_fastpath.rs"]
pub mod fastpath;

/// agentdap's name for the adapter.
pub const NAME: &str = "debugpy";

/// The VS Code debug `type` (the Python Debugger extension).
pub const VSCODE_TYPE: &str = "debugpy";

/// The debugpy version the quirks below were checked against.
pub const CHECKED_VERSION: &str = "1.8.22";

/// How a mirror client's `evaluate` stays an expression, read in pydevd 1.8.22
/// (`internal_evaluate_expression_json` in `pydevd_comm.py`, `on_evaluate_request` in
/// `pydevd_process_net_command_json.py`): with a `frameId`, the text is `eval`ed, and it is
/// `exec`ed as a statement (`x = 5`, `import os`) only when `eval` failed to compile it and the
/// context is `repl`; `watch`, `hover`, `clipboard` and `variables` never exec. Without a
/// `frameId` it is exec'ed in every context, which is why the mirror requires one. No command
/// syntax (the adapter forwards `evaluate` to pydevd untouched).
pub const MIRROR_EVALUATE: ExpressionOnly = ExpressionOnly {
    contexts: &["watch", "hover", "clipboard", "variables"],
    command_words: &[],
    command_prefixes: &[],
    refused_anywhere: &[],
};

/// How debugpy 1.8.22's injector for `attach {processId}` fails (`debugpy/adapter/servers.py`
/// `inject`: "Attach to PID failed." then the injector's output, both `stderr` output events,
/// and no `attach` answer until its 60 s wait for the debug server ends). Its output is pydevd's
/// `Running: gdb …` line, gdb's (13.1: `tests/debugpy/debugpy_attach.rs` probes whether gdb can
/// call a function in a process here), then debugpy's `E+<seconds>: Code injection into PID=<pid>
/// failed:` with the `CalledProcessError` traceback.
pub const INJECTOR_FAILURE: AttachHelperFailure = AttachHelperFailure {
    helper: "its injector (gdb, run by `python -m debugpy --pid`)",
    output_name: "The injector's output",
    harm: "the injector (gdb, or lldb with `linuxAttachPreferLldb`) stops the process and calls functions in it",
    marker: "Attach to PID failed.",
    progress: "Attaching to PID: ",
    error_line: "E+",
    routine: &[
        // debugpy's adapter and pydevd.
        "--- Starting attach to pid:",
        "Debugger warning: It seems that frozen modules are being used",
        "make the debugger miss breakpoints. Please pass -Xfrozen_modules=off",
        "to python to disable frozen modules.",
        "Note: Debugging will proceed. Set PYDEVD_DISABLE_FILE_VALIDATION=1",
        "PYDEVD_GDB_SCAN_SHARED_LIBRARIES not set",
        "Running: gdb ",
        // gdb 13.1 on every attach.
        "[Thread debugging using libthread_db enabled]",
        "Using host libthread_db library",
        "To enable execution of this file add",
        "add-auto-load-safe-path",
        "line to your configuration file",
        "To completely disable this security protection add",
        "set auto-load safe-path /",
        "For more information about this security protection see the",
        "\"Auto-loading safe path\" section in the GDB manual",
        "info \"(gdb)Auto-loading safe path\"",
        "auto-loading has been declined by your `auto-load safe-path'",
        "The target architecture is set to",
        "[Inferior 1 (process ",
    ],
};

/// The quirks of debugpy, checked against [`CHECKED_VERSION`].
pub fn quirks() -> Quirks {
    Quirks {
        // 1.8.22: the adapter sends `initialized` only once it has the launch/attach request.
        initialized_after_launch: true,
        // 1.8.22: the launch/attach response is held until configurationDone.
        launch_response_after_configuration_done: true,
        // 1.8.22: the three filters of its initialize response; there is no `all`.
        exception_filters: &["raised", "uncaught", "userUnhandled"],
        // Agents say `all`; debugpy's nearest is `raised` (every raised exception).
        exception_filter_aliases: &[("all", "raised")],
        // 1.8.22: `uncaught` is `default: true` but pydevd stops on nothing until it is sent.
        default_filters_off_until_sent: true,
        // 1.8.22: with `uncaught` on, `sys.exit(<non-zero>)` stops as a SystemExit exception.
        exit_stops_as_exception: true,
        // 1.8.22: a value is the object's `repr()`; the builtins' reprs show every item (a
        // cut one ends in `...`), a class's own `__repr__` may not (the fresh user's `Cfg()`:
        // `session::stop_frame_tests`).
        // 1.8.22 (pydevd `pydevd_net_command_factory_json.py`, `pydevd_comm.py`
        // `build_exception_info_response`): a test's assertion that failed in a helper stops with
        // the helper on top and `test_total (Current frame)` below it, the exception named
        // `AssertionError       (note: full exception trace is shown but execution is paused at:
        // test_total)` (`tests/debugpy` `test_runs::an_exception_that_left_its_frame_says_where_the_program_is_paused`).
        paused_frame_marker: Some((
            " (Current frame)",
            "(note: full exception trace is shown but execution is paused at: ",
        )),
        repr_whole_types: Some(&[
            "list",
            "tuple",
            "dict",
            "set",
            "frozenset",
            "str",
            "bytes",
            "bytearray",
            "int",
            "float",
            "complex",
            "bool",
            "NoneType",
            "range",
            "deque",
            "OrderedDict",
            "defaultdict",
            "Counter",
        ]),
        // 1.8.22: no supportsVariablePaging; `start`/`count` are ignored.
        variable_paging: false,
        // 1.8.22: a breakpoint on a blank/comment line moves to the next code line, `verified`.
        moves_unbindable_breakpoints: true,
        // 1.8.22: subprocesses arrive as `startDebugging` whose `connect` is its internal
        // listener (without the capability: a private `debugpyAttach` event and a hung child).
        child_sessions: ChildSessions::StartDebuggingConnect,
        // 1.8.22: capability spelled with an s, unlike the spec's `supportTerminateDebuggee`.
        terminate_debuggee_capability: "supportsTerminateDebuggee",
        // 1.8.22: sends `output` events with category telemetry at start.
        dropped_output_categories: &["telemetry"],
        // 1.8.22: custom event listing its sockets, meaningless to agents.
        dropped_events: &["debugpySockets"],
        // 1.8.22: `attach {processId}` injects the debug server with gdb (needs ptrace).
        attach_pid_key: "processId",
        // 1.8.22: when that injection fails the `attach` is never answered in time (seen with
        // gdb 13.1 on Linux 6.18: "Couldn't write extended state status: Bad address.").
        attach_helper_failure: Some(INJECTOR_FAILURE),
        // 1.8.22: `variables` reads the live objects on every request.
        variables_are_snapshots: false,
        // 1.8.22: with `console: internalConsole` its launcher reads the program's stdout and
        // stderr pipes on threads and sends `output` events over its own socket
        // (debugpy/launcher/output.py), while `stopped` comes from pydevd over another
        // (`console: terminal` output comes through agentdap's terminal, in order).
        launch_output_apart_from_stops: true,
        // 1.8.22: pydevd's `internal_set_expression_json` execs `<expr> = (<value>)` with
        // `evaluate_expression(is_exec=True)` in one dict merged from `f_globals` and
        // `f_locals`, then `update_globals_and_locals` copies every changed name into
        // `frame.f_locals` (pydevd_save_locals.py); `save_locals` writes back only the frame's
        // own variables, so a global keeps its value under a shadow key the next evaluation reads.
        set_expression_shadows_nonlocals: true,
        // 1.8.22: a log point's message is sent by pydevd itself (pydevd_frame.py:
        // `cmd_factory.make_io_message(info.pydev_message + os.linesep, "1")`), category `stdout`,
        // with `source: {}`, over the debuggee's socket; the program's own prints come from the
        // launcher's pipes without `source`, so the two are not ordered against each other.
        logpoint_output_key: Some("source"),
        // 1.8.22: a file's breakpoints are kept by line, the last of a list standing (`pydevd.py`
        // `consolidate_breakpoints`; a
        // breaker's person's `condition: False` on the agent's line disabled the agent's).
        one_breakpoint_per_line: true,
        // 1.8.22: a `loadedSources` request is never answered (pydevd has no handler for it and
        // the capability is not advertised); every request after it waits behind it.
        unanswered_requests: &[(
            "loadedSources",
            "debugpy 1.8 never answers it and every later request would wait behind it; use `modules {sources: true}`",
        )],
        // 1.8.22: `on_modules_request` lists the files pydevd's `ModulesManager.track_module`
        // saw in the frames it reported, each module's `path` its `.py` file.
        loaded_sources_from_modules: true,
        ..Quirks::STANDARD
    }
}

/// debugpy's quirks about entry, exit, output and processes: the standard ones, but for `pause`.
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // 1.8.22: a syntax error's traceback starts in pydevd's evaluator (`pydevd_comm.py`,
        // `pydevd_vars.py`), vendored under `debugpy/_vendored/pydevd/` or installed as `pydevd`.
        evaluate_own_frames: &["/_pydevd_bundle/"],
        // 1.8.22: pydevd stops a thread from its trace function, which runs only between Python
        // bytecodes; a thread blocked in native code (`Lock.acquire`, `time.sleep`, a C call)
        // never gets there, so `pause` is answered but no `stopped` follows.
        pause_unanswered: Some(
            "debugpy pauses a thread only when it next runs Python code; a thread blocked in native code \
             (a lock acquire, time.sleep, I/O, a C extension) does not stop, so a deadlocked or blocked program \
             keeps running. Now: `wait` in case it gets there (or `output` for news); `evaluate` and `context` need \
             a stop; `disconnect` ends the session; for native stacks of the blocked threads, attach lldb to the \
             program's pid (`attach {pid, adapter: \"lldb\"}`, where ptrace is allowed)",
        ),
        // 1.8.22: in the `repl` context pydevd runs the input as the Python REPL would and
        // answers `result: ""` when there is nothing to echo — an expression whose value is
        // None, or a statement (`n = 5`, `print(x)`, whose output arrives as output); `watch`,
        // `hover` and `clipboard` answer `None` (NoneType) and refuse statements.
        empty_evaluate: Some((
            "repl",
            "(nothing to show: debugpy's repl shows nothing when the value is None or the input is a statement; \
             context \"watch\" shows None)",
        )),
        mirror_evaluate: MIRROR_EVALUATE,
        // the program is Python: an uncaught exception prints a traceback.
        failure_shapes: &[FailureShape::PythonTraceback],
        // 1.8.x: pydevd prints this (category console) each time a condition raises, then goes
        // on without stopping (`tests/debugpy` `life_debugpy`).
        condition_error_marks: &[("pydevd: Error while evaluating expression in conditional breakpoint: ", false)],
        // 1.8.x: `levels: 1` of a recursion 3 deep answers `totalFrames: 3` (`tests/debugpy`
        // `stop_frame_debugpy::recursion_is_a_new_frame_at_every_depth`).
        total_frames_exact: true,
        // 1.8.22: `pause` cannot stop a thread blocked in native code (see `pause_unanswered`);
        // py-spy reads every thread's Python stack without stopping it. pydevd's own threads are
        // named `pydevd.Writer`, `pydevd.Reader`, `pydevd.CommandThread`, `pydevd.CheckAliveThread`
        // (`tests/fixtures/pyspy/dump_under_debugpy.json`).
        stacks: StacksQuirks {
            sampler: Some(StackSampler::PySpy { own_threads: &["pydevd."] }),
            ..StacksQuirks::STANDARD
        },
        ..RuntimeQuirks::STANDARD
    }
}

/// DAP `launch` arguments agentdap sends unless the agent's `adapter_args` override them.
/// `program`, `args`, `cwd`, `env`, `stopOnEntry` are set by the session from the tool call.
pub fn launch_defaults() -> Value {
    json!({
        "type": VSCODE_TYPE,
        "request": "launch",
        // Step only through the user's code, like VS Code's default.
        "justMyCode": true,
        // Debuggee output comes back as `output` events (agentdap's ring), not a terminal.
        "console": "internalConsole",
        "redirectOutput": true,
        // Follow multiprocessing/subprocess children as child sessions.
        "subProcess": true,
        // Show the return value after stepping out of a function.
        "showReturnValue": true,
    })
}

/// DAP `launch` arguments for `console: terminal`, merged over [`launch_defaults`]: debugpy
/// asks agentdap (`runInTerminal`) to start its launcher, which runs the program with the
/// launcher's stdio, agentdap's pipes.
pub fn terminal_arguments() -> Value {
    json!({
        "console": "integratedTerminal",
        // The program's output reaches agentdap on the terminal's pipes; redirecting it into
        // `output` events as well would show every line twice.
        "redirectOutput": false,
    })
}

/// DAP `attach` arguments agentdap sends unless the agent's `adapter_args` override them.
/// `connect` or `processId` are set by the session from the tool call.
pub fn attach_defaults() -> Value {
    json!({
        "type": VSCODE_TYPE,
        "request": "attach",
        "justMyCode": true,
        "subProcess": true,
        "showReturnValue": true,
        // The program's prints reach the agent as `output` events (and still its own stdout).
        "redirectOutput": true,
    })
}

/// Where the interpreter came from (reported by `doctor` and in errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PythonSource {
    /// `adapter_args.python` (a string, or the first element of an array).
    AdapterArgs,
    /// `$AGENTDAP_PYTHON`.
    AgentdapPython,
    /// `$VIRTUAL_ENV/bin/python` (an activated venv).
    VirtualEnv,
    /// `<root>/.venv/bin/python` where `<root>` is the nearest directory above the launched
    /// program that holds a `.venv` (the program is inside that project).
    DotVenv,
    /// agentdap's private venv (`agentdap install debugpy`): `$XDG_DATA_HOME/agentdap/venv`, else
    /// `~/.local/share/agentdap/venv`.
    DataVenv,
    /// `python3` on `$PATH`.
    Path,
}

/// A resolved interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpreter {
    /// Absolute or PATH-resolved path of the interpreter.
    pub path: PathBuf,
    /// Which rule found it.
    pub source: PythonSource,
    /// [`PythonSource::DotVenv`]: the directory holding the `.venv`, which holds the program.
    pub project_root: Option<PathBuf>,
}

/// Most directories looked at above a program for its project's `.venv`.
const PROJECT_SEARCH_DEPTH: usize = 64;

impl Interpreter {
    fn new(path: PathBuf, source: PythonSource) -> Interpreter {
        Interpreter { path, source, project_root: None }
    }
}

/// The install command for debugpy into `python`: `<python> -m pip install debugpy`.
pub fn install_command(python: &Path) -> String {
    format!("{} -m pip install debugpy", shell_quote(&python.to_string_lossy()))
}

const NO_PYTHON_INSTALL: &str = "apt-get install python3 python3-pip && python3 -m pip install debugpy";

/// Finds the interpreter, first match wins: `adapter_args.python`, `$AGENTDAP_PYTHON`,
/// `$VIRTUAL_ENV/bin/python`, the project's `.venv/bin/python` ([`project_venv`]: only for a
/// `program` inside the directory holding that `.venv`), agentdap's private venv, `python3` on
/// `$PATH`. Without a program (`attach`, `doctor`) no project's `.venv` is used. An explicit
/// choice (the first two) that is not executable is an error, not skipped. Only `stat`s files;
/// never runs the interpreter. Errors: [`AdapterError::NotFound`].
pub fn resolve_python(
    program: Option<&Path>,
    input: ResolveInput<'_>,
    host: &dyn Host,
) -> Result<Interpreter, AdapterError> {
    let base = launch_dir(input.cwd, host);
    let explicit = [
        (explicit_python(input.adapter_args), PythonSource::AdapterArgs, "adapter_args.python"),
        (
            host.var("AGENTDAP_PYTHON").map(|v| v.to_string_lossy().into_owned()),
            PythonSource::AgentdapPython,
            "AGENTDAP_PYTHON",
        ),
    ];
    for (value, source, what) in explicit {
        let Some(value) = value.filter(|v| !v.is_empty()) else { continue };
        let found = if value.contains('/') {
            let p = base.as_ref().map_or_else(|| PathBuf::from(&value), |b| b.join(&value));
            host.is_executable(&p).then_some(p)
        } else {
            find_on_path(&value, host)
        };
        return found.map(|path| Interpreter::new(path, source)).ok_or_else(|| AdapterError::NotFound {
            adapter: NAME,
            detail: format!(
                "{what} = {value:?} is not an executable Python interpreter; point it at one (or unset it to let agentdap choose)"
            ),
            install: "agentdap install debugpy".to_string(),
        });
    }
    if let Some(venv) = host.var("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(venv).join("bin/python");
        if host.is_executable(&p) {
            return Ok(Interpreter::new(p, PythonSource::VirtualEnv));
        }
    }
    if let Some((root, p)) = program.and_then(|p| project_venv(p, host)) {
        return Ok(Interpreter { path: p, source: PythonSource::DotVenv, project_root: Some(root) });
    }
    if let Some(p) = data_venv_python(host).filter(|p| host.is_executable(p)) {
        return Ok(Interpreter::new(p, PythonSource::DataVenv));
    }
    if let Some(p) = find_on_path("python3", host) {
        return Ok(Interpreter::new(p, PythonSource::Path));
    }
    Err(AdapterError::NotFound {
        adapter: NAME,
        detail: "no Python interpreter found (adapter_args.python, AGENTDAP_PYTHON, VIRTUAL_ENV, the program's project .venv, agentdap's venv, python3 on PATH)"
            .to_string(),
        install: NO_PYTHON_INSTALL.to_string(),
    })
}

/// The project's interpreter for `program` (absolute): the nearest directory above it (at most
/// [`PROJECT_SEARCH_DEPTH`] levels) holding an executable `.venv/bin/python` is its project
/// root. That venv is used only if no other user could have planted it (`.venv` and
/// `.venv/bin` owned by agentdap's user or root, not writable by everyone); otherwise, or when
/// there is none, `None` — the search never goes past the nearest `.venv`.
pub fn project_venv(program: &Path, host: &dyn Host) -> Option<(PathBuf, PathBuf)> {
    let root = program.ancestors().skip(1).take(PROJECT_SEARCH_DEPTH).find(|d| host.is_executable(&venv_python(d)))?;
    let venv = root.join(".venv");
    if host.others_could_write(&venv) || host.others_could_write(&venv.join("bin")) {
        log::warn!("not using {}: another user could have written it", venv_python(root).display());
        return None;
    }
    Some((root.to_path_buf(), venv_python(root)))
}

fn venv_python(dir: &Path) -> PathBuf {
    dir.join(".venv/bin/python")
}

/// What the agent is told about the interpreter: which project's `.venv` runs and why, or,
/// when the launch directory has a `.venv` that was not used, why not (its packages are
/// missing from the run). `None` when there is nothing to explain.
pub fn interpreter_note(
    interp: &Interpreter,
    program: Option<&Path>,
    cwd: Option<&Path>,
    host: &dyn Host,
) -> Option<String> {
    if let (PythonSource::DotVenv, Some(root)) = (interp.source, &interp.project_root) {
        let program = program.map_or_else(|| "the program".to_string(), |p| p.display().to_string());
        return Some(format!(
            "python: {} (the project's .venv, because {program} is inside {})",
            interp.path.display(),
            root.display()
        ));
    }
    if !matches!(interp.source, PythonSource::DataVenv | PythonSource::Path) {
        return None;
    }
    let dir = launch_dir(cwd, host)?;
    let unused = venv_python(&dir);
    if !host.is_executable(&unused) {
        return None;
    }
    let program = program?;
    Some(format!(
        "python: {} ({}); {} was not used because {} is not inside {} (a project's .venv runs only for its own programs; pass adapter_args.python to choose it)",
        interp.path.display(),
        source_words(interp.source),
        unused.display(),
        program.display(),
        dir.display()
    ))
}

/// How a [`PythonSource`] reads in a sentence.
pub fn source_words(source: PythonSource) -> &'static str {
    match source {
        PythonSource::AdapterArgs => "adapter_args.python",
        PythonSource::AgentdapPython => "from $AGENTDAP_PYTHON",
        PythonSource::VirtualEnv => "from $VIRTUAL_ENV",
        PythonSource::DotVenv => "the program's project .venv",
        PythonSource::DataVenv => "agentdap's private venv (agentdap install debugpy)",
        PythonSource::Path => "python3 on PATH",
    }
}

/// The interpreter of agentdap's private venv, where `agentdap install debugpy` puts debugpy:
/// `$XDG_DATA_HOME/agentdap/venv/bin/python` (an absolute `XDG_DATA_HOME` only, per the XDG spec),
/// else `$HOME/.local/share/agentdap/venv/bin/python`.
pub fn data_venv_python(host: &dyn Host) -> Option<PathBuf> {
    let xdg = host.var("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let base =
        xdg.or_else(|| host.var("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(base.join("agentdap/venv/bin/python"))
}

/// The launch cwd made absolute against agentdap's cwd (or agentdap's cwd when none was given).
fn launch_dir(cwd: Option<&Path>, host: &dyn Host) -> Option<PathBuf> {
    match cwd {
        Some(c) if c.is_absolute() => Some(c.to_path_buf()),
        Some(c) => host.cwd().map(|d| d.join(c)),
        None => host.cwd(),
    }
}

/// `adapter_args.python`: a string, or an array whose first element is the interpreter (the
/// same shape debugpy's own `python` launch argument takes).
fn explicit_python(adapter_args: Option<&Value>) -> Option<String> {
    let python = adapter_args?.get("python")?;
    match python {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => items.first()?.as_str().map(str::to_string),
        _ => None,
    }
}

/// The full recipe: `<python> -m debugpy.adapter` over stdio in `/`;
/// with the fast path on (the default, see [`fastpath`]) `<python> -c <bootstrap>`, which runs
/// the same module the same way after tuning the adapter's sockets. Errors: [`AdapterError::NotFound`] when no interpreter is found. A missing debugpy module is
/// only known once the adapter runs: see [`missing_debugpy`].
///
/// `program` (absolute) decides whether its project's `.venv` may run ([`resolve_python`]).
pub fn recipe(program: Option<&Path>, input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    let python = resolve_python(program, input, host)?;
    let notes = interpreter_note(&python, program, input.cwd, host).into_iter().collect();
    let fast = fastpath::enabled(host);
    log::debug!("debugpy fast path {}", if fast { "requested" } else { "off (AGENTDAP_DEBUGPY_FASTPATH)" });
    let command = AdapterCommand {
        program: python.path.clone().into_os_string(),
        args: fastpath::adapter_args(fast),
        // In `/`, never the project: `-m` (and the bootstrap, which keeps `-m`'s `sys.path`)
        // put the working directory first on the adapter's `sys.path`, so a `debugpy.py` in it
        // would run as the adapter. The debuggee's directory is unaffected: the launch `cwd`,
        // else the program's own directory (debugpy 1.8.22 `adapter/clients.py`).
        cwd: Some(PathBuf::from("/")),
        env: vec![
            // Python ≥ 3.11 with frozen modules makes pydevd print a multi-line warning into the
            // debuggee's stderr on every launch; agents read that output.
            (OsString::from("PYDEVD_DISABLE_FILE_VALIDATION"), Some(OsString::from("1"))),
        ],
    };
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command,
        transport: Transport::Stdio,
        launch_defaults: launch_defaults(),
        attach_defaults: attach_defaults(),
        quirks: quirks(),
        install_command: install_command(&python.path),
        notes,
    })
}

/// Recognises the adapter's own "debugpy is not installed" failure in its stderr tail (Python
/// prints `<python>: No module named debugpy` for `-m`, or a `ModuleNotFoundError` when an
/// import inside fails), and turns it into `adapter_not_found` with the exact install command.
/// `exit` is the adapter's exit status if it already exited; a failure exit is required when
/// given (a zero exit never means a missing module). `None` when the tail says something else.
pub fn missing_debugpy(python: &Path, stderr_tail: &str, exit: Option<ExitStatus>) -> Option<AdapterError> {
    if exit.is_some_and(|s| s.success()) {
        return None;
    }
    let missing = stderr_tail.contains("No module named debugpy") || stderr_tail.contains("No module named 'debugpy");
    missing.then(|| AdapterError::NotFound {
        adapter: NAME,
        detail: format!("the debugpy module is not installed for {}", python.display()),
        install: format!(
            "{} (or `agentdap install debugpy` for a private copy agentdap finds by itself)",
            install_command(python)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::test_host::FakeHost;
    use std::collections::{HashMap, HashSet};
    use std::os::unix::process::ExitStatusExt;

    fn full_host() -> FakeHost {
        FakeHost {
            cwd: Some("/home/u/proj"),
            vars: HashMap::from([
                ("AGENTDAP_PYTHON", "/opt/dp/python"),
                ("VIRTUAL_ENV", "/venvs/a"),
                ("PATH", "/nope:/usr/bin"),
            ]),
            exes: HashSet::from([
                "/opt/ask/python",
                "/opt/dp/python",
                "/venvs/a/bin/python",
                "/srv/app/.venv/bin/python",
                "/home/u/proj/.venv/bin/python",
                "/usr/bin/python3",
                "/usr/bin/python3.12",
            ]),
            ..FakeHost::default()
        }
    }

    fn resolve(
        host: &FakeHost,
        args: Option<Value>,
        cwd: Option<&str>,
    ) -> Result<(String, PythonSource), AdapterError> {
        resolve_for(host, args, cwd, None)
    }

    fn resolve_for(
        host: &FakeHost,
        args: Option<Value>,
        cwd: Option<&str>,
        program: Option<&str>,
    ) -> Result<(String, PythonSource), AdapterError> {
        let input = ResolveInput { adapter_args: args.as_ref(), cwd: cwd.map(Path::new), js_debug: None };
        resolve_python(program.map(Path::new), input, host).map(|i| (i.path.to_string_lossy().into_owned(), i.source))
    }

    #[test]
    fn resolution_order_is_args_env_venv_project_venv_data_venv_path() {
        let mut host = full_host();
        let args = Some(json!({"python": "/opt/ask/python"}));
        assert_eq!(resolve(&host, args, Some("/srv/app")), Ok(("/opt/ask/python".into(), PythonSource::AdapterArgs)));
        assert_eq!(resolve(&host, None, Some("/srv/app")), Ok(("/opt/dp/python".into(), PythonSource::AgentdapPython)));
        host.vars.remove("AGENTDAP_PYTHON");
        assert_eq!(
            resolve(&host, None, Some("/srv/app")),
            Ok(("/venvs/a/bin/python".into(), PythonSource::VirtualEnv))
        );
        host.vars.remove("VIRTUAL_ENV");
        let dotvenv = Ok(("/srv/app/.venv/bin/python".into(), PythonSource::DotVenv));
        assert_eq!(resolve_for(&host, None, None, Some("/srv/app/src/pkg/main.py")), dotvenv);
        assert_eq!(resolve_for(&host, None, Some("/elsewhere"), Some("/srv/app/main.py")), dotvenv);
        assert_eq!(resolve_for(&host, None, Some("/elsewhere"), Some("/elsewhere/x.py")), path_python());
        // agentdap's private venv (`agentdap install debugpy`) comes before python3 on PATH.
        host.vars.insert("XDG_DATA_HOME", "/data");
        host.exes.insert("/data/agentdap/venv/bin/python");
        let data = Ok(("/data/agentdap/venv/bin/python".into(), PythonSource::DataVenv));
        assert_eq!(resolve(&host, None, Some("/elsewhere")), data);
        host.vars.insert("XDG_DATA_HOME", "relative/is/ignored");
        host.vars.insert("HOME", "/home/u");
        host.exes.insert("/home/u/.local/share/agentdap/venv/bin/python");
        let home = Ok(("/home/u/.local/share/agentdap/venv/bin/python".into(), PythonSource::DataVenv));
        assert_eq!(resolve(&host, None, Some("/elsewhere")), home);
    }

    fn path_python() -> Result<(String, PythonSource), AdapterError> {
        Ok(("/usr/bin/python3".into(), PythonSource::Path))
    }

    #[test]
    fn a_projects_venv_runs_only_for_a_program_inside_that_project() {
        let mut host = full_host();
        host.vars.remove("AGENTDAP_PYTHON");
        host.vars.remove("VIRTUAL_ENV");
        // agentdap's cwd (/home/u/proj) has a .venv: a program elsewhere, an attach (no program)
        // and doctor (neither) never run it.
        assert_eq!(resolve_for(&host, None, None, Some("/opt/tools/x.py")), path_python());
        assert_eq!(resolve_for(&host, None, Some("/home/u/proj"), Some("/opt/tools/x.py")), path_python());
        assert_eq!(resolve(&host, None, None), path_python());
        assert_eq!(
            resolve_for(&host, None, None, Some("/home/u/proj/x.py")),
            Ok(("/home/u/proj/.venv/bin/python".into(), PythonSource::DotVenv))
        );
        // The nearest .venv is the project; one another user could have planted is not used,
        // and the search does not go further up.
        host.exes.insert("/srv/app/sub/.venv/bin/python");
        host.shared.insert("/srv/app/sub/.venv/bin");
        assert_eq!(resolve_for(&host, None, None, Some("/srv/app/sub/x.py")), path_python());
        host.shared.clear();
        host.shared.insert("/srv/app/sub/.venv");
        assert_eq!(resolve_for(&host, None, None, Some("/srv/app/sub/x.py")), path_python());
        // What the agent is told, either way.
        let input = |cwd| ResolveInput { adapter_args: None, cwd, js_debug: None };
        let used = resolve_python(Some(Path::new("/srv/app/main.py")), input(None), &host).unwrap();
        assert_eq!(
            interpreter_note(&used, Some(Path::new("/srv/app/main.py")), None, &host).as_deref(),
            Some(
                "python: /srv/app/.venv/bin/python (the project's .venv, because /srv/app/main.py is inside /srv/app)"
            )
        );
        let outside = Path::new("/opt/tools/x.py");
        let unused = resolve_python(Some(outside), input(None), &host).unwrap();
        assert_eq!(
            interpreter_note(&unused, Some(outside), None, &host).as_deref(),
            Some(
                "python: /usr/bin/python3 (python3 on PATH); /home/u/proj/.venv/bin/python was not used because \
                 /opt/tools/x.py is not inside /home/u/proj (a project's .venv runs only for its own programs; \
                 pass adapter_args.python to choose it)"
            )
        );
        assert_eq!(interpreter_note(&unused, Some(outside), Some(Path::new("/elsewhere")), &host), None);
    }

    #[test]
    fn explicit_choices_accept_arrays_bare_names_and_relative_paths() {
        let host = full_host();
        let array = Some(json!({"python": ["/opt/ask/python", "-X", "dev"]}));
        assert_eq!(resolve(&host, array, None), Ok(("/opt/ask/python".into(), PythonSource::AdapterArgs)));
        let bare = Some(json!({"python": "python3.12"}));
        assert_eq!(resolve(&host, bare, None), Ok(("/usr/bin/python3.12".into(), PythonSource::AdapterArgs)));
        let relative = Some(json!({"python": ".venv/bin/python"}));
        assert_eq!(
            resolve(&host, relative, Some("/srv/app")),
            Ok(("/srv/app/.venv/bin/python".into(), PythonSource::AdapterArgs))
        );
    }

    #[test]
    fn explicit_choice_that_is_missing_is_an_error_not_a_fallback() {
        let host = full_host();
        let err = resolve(&host, Some(json!({"python": "/nope/python"})), None);
        let Err(AdapterError::NotFound { detail, .. }) = err else { panic!("{err:?}") };
        assert_eq!(
            detail,
            "adapter_args.python = \"/nope/python\" is not an executable Python interpreter; point it at one (or unset it to let agentdap choose)"
        );
        let mut host = full_host();
        host.vars.insert("AGENTDAP_PYTHON", "/nope/python");
        assert_eq!(resolve(&host, None, None).map_err(|e| e.code()), Err("adapter_not_found"));
    }

    #[test]
    fn no_python_anywhere_says_how_to_install() {
        let host = FakeHost { vars: HashMap::from([("PATH", "/usr/bin")]), ..FakeHost::default() };
        let err = resolve(&host, None, None);
        let Err(AdapterError::NotFound { install, .. }) = err else { panic!("{err:?}") };
        assert_eq!(install, NO_PYTHON_INSTALL);
    }

    #[test]
    fn recipe_runs_the_adapter_module_over_stdio() {
        let host = full_host();
        let input = ResolveInput { adapter_args: None, cwd: Some(Path::new("/srv/app")), js_debug: None };
        let Ok(recipe) = recipe(None, input, &host) else { panic!("no recipe") };
        assert_eq!(recipe.command.program, OsString::from("/opt/dp/python"));
        assert_eq!(recipe.command.args, fastpath::adapter_args(true));
        assert_eq!(recipe.command.cwd, Some(PathBuf::from("/")), "never the project: its files are not imported");
        assert_eq!(recipe.transport, Transport::Stdio);
        assert_eq!(recipe.install_command, "/opt/dp/python -m pip install debugpy");
        assert_eq!(recipe.launch_defaults["console"], "internalConsole");
        assert_eq!(recipe.quirks.terminate_debuggee_capability, "supportsTerminateDebuggee");
    }

    #[test]
    fn fast_path_off_runs_the_stock_module() {
        let mut host = full_host();
        host.vars.insert(fastpath::ENV, "0");
        let input = ResolveInput { adapter_args: None, cwd: None, js_debug: None };
        let Ok(recipe) = recipe(None, input, &host) else { panic!("no recipe") };
        assert_eq!(recipe.command.args, vec![OsString::from("-m"), OsString::from("debugpy.adapter")]);
    }

    #[test]
    fn missing_module_in_stderr_becomes_adapter_not_found() {
        let python = Path::new("/opt/my env/bin/python");
        let failed = Some(ExitStatus::from_raw(1 << 8));
        let tail = "/opt/my env/bin/python: No module named debugpy\n";
        let err = missing_debugpy(python, tail, failed);
        assert_eq!(
            err.map(|e| (e.code(), e.to_string())),
            Some((
                "adapter_not_found",
                "debugpy: the debugpy module is not installed for /opt/my env/bin/python; install it with: \
                 '/opt/my env/bin/python' -m pip install debugpy (or `agentdap install debugpy` for a private copy agentdap finds by itself)"
                    .to_string()
            ))
        );
        let traceback = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'debugpy'\n";
        assert!(missing_debugpy(python, traceback, None).is_some());
        // What CPython 3.11 prints for `-m debugpy.adapter` when the package is absent.
        let spec = "/usr/bin/python3: Error while finding module specification for 'debugpy.adapter' \
                    (ModuleNotFoundError: No module named 'debugpy')\n";
        assert!(missing_debugpy(python, spec, failed).is_some());
        assert!(missing_debugpy(python, tail, Some(ExitStatus::from_raw(0))).is_none());
        assert!(missing_debugpy(python, "Traceback: KeyError: 'x'\n", failed).is_none());
    }
}

/// 1.8.22: a subprocess run as `python -c <code>` runs pydevd's own start-up code first, in
/// the same `-c` argument: `…; pydevd.settrace(…, __setup_holder__={…}); <code>` (pydevd's
/// `pydev_monkey.py`, which patches subprocess arguments). The program's own code follows the
/// first end marker after the start marker; what comes before carries an access token and is
/// never shown.
pub const SUBPROCESS_C_CODE_AFTER: (&str, &str) = ("__setup_holder__=", "}); ");

/// How a Python command line reads, for naming a child session by what it runs (CPython 3.11
/// `python --help`, debugpy 1.8.22's `debugpy/server/cli.py` and its pydevd's
/// `_pydevd_bundle/pydevd_command_line_handling.py`).
pub mod cmdline {
    /// CPython's one-letter options that take a value (attached, `-Wignore`, or as the next
    /// argument); every other letter is a flag and may be combined (`-Esu`). `-c` and `-m` end
    /// the options: their value is the program.
    pub const PYTHON_LETTERS_WITH_VALUE: &str = "WX";
    /// CPython's long options that take the next argument.
    pub const PYTHON_LONG_WITH_VALUE: &[&str] = &["--check-hash-based-pycs"];
    /// debugpy's command line (`python <…>/debugpy --connect … <script>`, how debugpy starts a
    /// launched program and the processes forked from it): options that take the next
    /// argument (`--configure-<name>` too), then `-m <module>`, `-c <code>`, `--pid <pid>` or
    /// the script.
    pub const DEBUGPY_WITH_VALUE: &[&str] =
        &["--log-to", "--listen", "--connect", "--parent-session-pid", "--adapter-access-token"];
    pub const DEBUGPY_CONFIGURE_PREFIX: &str = "--configure-";
    /// pydevd's launcher (`python <…>/pydevd.py --port N --client H … --file <script> <args>`,
    /// how pydevd's `pydev_monkey.py` rewrites a subprocess's `python <script>`): options that
    /// take the next argument; every other `--` option is a flag, up to `--file`, whose value
    /// is the program (a module with the `--module` flag).
    pub const PYDEVD_WITH_VALUE: &[&str] = &[
        "--port",
        "--ppid",
        "--vm_type",
        "--client",
        "--access-token",
        "--client-access-token",
        "--debug-mode",
        "--preimport",
        "--log-file",
        "--log-level",
    ];
    /// The file name of pydevd's launcher script.
    pub const PYDEVD_SCRIPT: &str = "pydevd.py";
    /// The directory name of the debugpy package, run as a script.
    pub const DEBUGPY_PACKAGE: &str = "debugpy";
    /// `-c` code of multiprocessing's own processes and what each is (CPython 3.8–3.13
    /// `multiprocessing/spawn.py` `get_command_line`, `forkserver.py` `ensure_running`,
    /// `resource_tracker.py` `ensure_running`), and the argument `spawn` adds after its code.
    pub const MULTIPROCESSING_CODE: &[(&str, &str)] = &[
        ("from multiprocessing.spawn import spawn_main", "multiprocessing worker"),
        ("from multiprocessing.forkserver import main", "multiprocessing fork server"),
        ("from multiprocessing.resource_tracker import main", "multiprocessing resource tracker"),
    ];
    pub const MULTIPROCESSING_FORK_ARG: &str = "--multiprocessing-fork";
}
