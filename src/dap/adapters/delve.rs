//! The Delve recipe (`dlv dap` over TCP, port announced on its stdout): finding `dlv`, `mode` from the program, launch defaults, and Delve's quirks as data; only `stat`s and lists directories, never runs anything.
//!
//! Observed with a raw DAP client against Delve 1.20.2 (Go 1.19) on a program built with
//! `-gcflags='all=-N -l'` (`mode: exec`) and on a `.go` file (`mode: debug`):
//!
//! - `dlv dap --listen=127.0.0.1:0` prints exactly `DAP server listening at: 127.0.0.1:<port>`
//!   and a newline on its stdout, then accepts one connection.
//! - Start-up: `initialize` answered at once (no `exceptionBreakpointFilters`); `initialized`
//!   follows `launch` (after the build in `debug` mode: ~0.2 s warm, ~11 s with a cold
//!   GOCACHE); the launch response follows `initialized` *before* `configurationDone`.
//! - `stopOnEntry: true` stops with `stopped {reason: "entry", threadId: 1}` before the
//!   runtime starts: `threads` is `[{id: 1, name: "Dummy"}]` and `stackTrace` on it fails
//!   (`unknown goroutine 1`). Hence [`RuntimeQuirks::entry_function`] = `main.main`, which
//!   stops as `stopped {reason: "function breakpoint", hitBreakpointIds}` on `func main()`.
//! - Steps: `continued`, the step's response, `stopped {reason: "step"}`.
//! - Output: the debuggee's stdout arrives on dlv's own stdout and its stderr on dlv's
//!   stderr, never as `output` events (the `outputMode: "remote"` launch argument of newer
//!   Delves is ignored by 1.20.2). dlv's own `output` events are console lines.
//! - Exit: `terminated {}` only — no `exited`. The status appears after agentdap sends
//!   `disconnect`: console `Process <pid> has exited with status 7`, console `Detaching`, the
//!   disconnect response, a second `terminated`; then dlv closes the socket and exits 0.
//! - Processes: the debuggee (`__debug_bin` in `debug` mode, built into dlv's cwd) is dlv's
//!   child in a process group of its own. SIGKILL or SIGTERM of dlv's group, or closing the
//!   DAP socket, took it down within 3 s; after SIGKILL the `__debug_bin` file stays behind.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{
    elf, find_on_path, AdapterError, CoreOpen, DebuggeeOutput, ExitReport, ExpressionOnly, FailureShape, Host,
    PortDiscovery, Quirks, Recipe, RefusedStep, ResolveInput, RuntimeQuirks, Transport,
};
use crate::dap::command::AdapterCommand;

/// agentdap's name for the adapter.
pub const NAME: &str = "delve";

/// The VS Code debug `type` (the Go extension).
pub const VSCODE_TYPE: &str = "go";

/// The Delve version the quirks below were checked against.
pub const CHECKED_VERSION: &str = "1.20.2";

/// The install command shown when `dlv` is not found (Debian/Ubuntu; `go install
/// github.com/go-delve/delve/cmd/dlv@latest` elsewhere).
pub const INSTALL: &str = "apt-get install delve golang-go";

/// Overrides discovery: the `dlv` executable to run.
pub const ENV_OVERRIDE: &str = "AGENTDAP_DLV";

/// What dlv prints before `host:port` once it listens.
pub const LISTENING_PREFIX: &str = "DAP server listening at: ";

/// What precedes the exit status in the console line dlv prints after `disconnect`.
pub const EXIT_MARKER: &str = " has exited with status ";

/// Directory entries examined when deciding whether a directory is a Go package.
const LIST_CAP: usize = 4096;

/// Delve's quirks in the shape every recipe shares, checked against [`CHECKED_VERSION`].
pub fn quirks() -> Quirks {
    Quirks {
        // 1.20.2: a log point's message is an `output` event, category `stdout`, with `source`
        // and `line` (text `> [Go 1]: <message>`); a launched program's prints
        // come through dlv's pipes, never as events (`tests/native/breakpoint_truth.rs`).
        logpoint_output_key: Some("source"),
        // 1.20.2: `initialized` is sent in reaction to `launch` (after a `debug` build).
        initialized_after_launch: true,
        // 1.20.2: launch answered right after `initialized`, before configurationDone.
        launch_response_after_configuration_done: false,
        // 1.20.2: no exceptionBreakpointFilters at all; panics stop as `exception` anyway.
        exception_filters: &[],
        // 1.20: greets the debug console with this line.
        console_banner: &["Type 'dlv help' for list of commands."],
        // 1.20.2: `attach {mode: local, processId}`.
        attach_pid_key: "processId",
        // 1.20.2: a reference keeps the values loaded when it was made (its `variableHandles`
        // hold the loaded variables, service/dap/server.go): after a `setVariable` of `i` to 7,
        // `variables` on the scope's ref still answers 0 while `evaluate i` answers 7.
        variables_are_snapshots: true,
        // 1.20.2: `call f()` in the repl runs a function in the program.
        mutating_evaluate_prefixes: &["call "],
        // 1.20.2: a pointer `p`'s one child is `{"name": "", "evaluateName": "(*p)"}`.
        unnamed_child_from_evaluate_name: true,
        // 1.20.2 does not advertise supportsHitConditionalBreakpoints but applies `hitCondition`
        // (service/dap/server.go `setBreakpoints`, shared by all its breakpoint kinds): a hit
        // condition of 2 on a loop stops once, at the second pass. Conditions and log points
        // are advertised.
        unadvertised_settings: &["hit_condition"],
        ..Quirks::STANDARD
    }
}

/// Delve's quirks about entry, exit, output and processes (see the module comment).
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // 1.20.2: a panic stops (reason `exception`) in `runtime.fatalpanic`; the program's
        // frame is below `runtime.gopanic` and the runtime's check (`runtime.goPanicIndex`).
        exception_runtime_frames: Some("runtime."),
        // 1.20.2: its own entry stop precedes the runtime (no goroutine, no stack).
        entry_function: Some("main.main"),
        // 1.20.2: the entry stop's only thread, on which stackTrace fails.
        placeholder_thread: Some("Dummy"),
        // 1.20.2: a goroutine shown at one stop may have ended by the next; a step on it then
        // fails in Delve ("unknown goroutine 34") and Delve reports a `stopped` with reason
        // `error` (`tests/native/delve_truth.rs`
        // `a_goroutine_from_an_earlier_stop_is_checked_again_before_a_step_names_it`).
        thread_ids_churn: true,
        // Steps and continues may stop before their response.
        stop_before_response: true,
        // 1.20.2: debuggee stdout/stderr on dlv's stdout/stderr.
        debuggee_output: DebuggeeOutput::AdapterPipes,
        // 1.20.2: no `exited`; the status comes in console output after `disconnect`.
        exit_report: ExitReport::ConsoleAfterDisconnect { marker: EXIT_MARKER },
        // 1.20.2: closes the socket and exits 0 after the disconnect response.
        exits_after_disconnect: true,
        // `dlv dap` serves one client and then exits.
        single_client: true,
        // 1.20.2: frame ids restart at 1000 at every stop.
        reuses_ids_across_stops: true,
        // 1.20.2: `stackTrace`, `scopes` and `variables` are handled one at a time in arrival
        // order (`service/dap/server.go`: `serveDAPCodec` calls `handleRequest` for one at a time), and frame and variable handles
        // restart at 1000 at every stop, so the stop's own reads number them the same each time
        // (`tests/native/stop_frame_delve.rs`).
        pipelined_stop_reads: true,
        debuggee_own_process_group: true,
        // 1.20.2's logger (`pkg/logflags`) writes errors to dlv's stderr, which is also the
        // program's: `<RFC 3339 time> <level> layer=<layer> <message>`.
        adapter_log_after_timestamp: &["error layer=", "warning layer=", "info layer=", "debug layer="],
        // 1.20.2 (and master, `service/dap/server.go` `runUntilStopAndNotify`): a step while an
        // earlier one is pending (it was interrupted by a breakpoint, e.g. on another goroutine)
        // fails in `proc` with "next while nexting" before anything resumes; Delve sends the
        // step's response, then `stopped {reason: exception, description: "invalid command",
        // text: "Unable to step while the previous step is interrupted by a breakpoint. …"}`
        // (`tests/native/delve_truth.rs`
        // `a_step_delve_refuses_is_a_refusal_not_a_stop_and_continue_finishes_the_pending_step`).
        refused_step: Some(RefusedStep {
            description: "invalid command",
            why: "an earlier step, interrupted by a breakpoint, is still pending in Delve; `continue` resumes \
                  that step (a breakpoint may interrupt it again)",
        }),
        // `debug`/`test` modes run `go build` inside `launch`.
        launch_builds: true,
        // 1.20.2: `output` names the built binary (default `./__debug_bin` in the cwd).
        build_output: Some(("output", "__debug_bin")),
        mirror_evaluate: MIRROR_EVALUATE,
        // the program is Go: an unrecovered panic or a runtime fatal error.
        failure_shapes: &[FailureShape::GoPanic],
        // 1.20.2: `launch {mode: core, program, coreFilePath}`; its one stop is reason
        // `exception`, description `runtime error`, and names no signal (`tests/native/core_dump.rs`).
        core_file: Some(CoreOpen {
            request: "launch",
            core_key: "coreFilePath",
            arguments: &[("mode", "core")],
            minidump: false,
            runtime_frames: Some("runtime."),
        }),
        ..RuntimeQuirks::STANDARD
    }
}

/// How a mirror client's `evaluate` stays an expression, read in Delve 1.20.2's
/// `service/dap/server.go` (`onEvaluateRequest`): in *every* context, text matching
/// `^\s*dlv\s+\S+` runs as a Delve command (`dlv config …`, `dlv help`), and text matching
/// `^\s*call\s+\S+` injects a function call (`doCall`) that resumes the whole process, may stop
/// it somewhere else (and then sends `stopped`), and also performs assignments (`call x = 5`).
/// Both words are refused; anything else is `EvalVariableInScope`, which reads only (no
/// function calls without `call`). The context only changes how much of a string is loaded.
pub const MIRROR_EVALUATE: ExpressionOnly = ExpressionOnly {
    contexts: &["watch", "hover", "clipboard", "variables"],
    command_words: &["dlv", "call"],
    command_prefixes: &[],
    refused_anywhere: &[],
};

/// Delve's launch `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Build and debug a `.go` file or a package directory.
    Debug,
    /// Debug an already built binary.
    Exec,
    /// Build and debug a package's tests (only when the agent asks: `adapter_args.mode`).
    Test,
}

impl Mode {
    /// The DAP spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Debug => "debug",
            Mode::Exec => "exec",
            Mode::Test => "test",
        }
    }
}

/// Whether `path` is a directory holding a `go.mod` or `.go` files (at most 4096 entries
/// examined).
pub fn is_package_dir(path: &Path, host: &dyn Host) -> bool {
    host.is_dir(path)
        && host.list_dir(path, LIST_CAP).iter().any(|n| n == "go.mod" || n.to_str().is_some_and(|n| n.ends_with(".go")))
}

/// The mode for `program`: `adapter_args.mode` when the agent gave one; `exec` for an ELF
/// file; otherwise `debug` (a `.go` file, a package directory, or an import path).
pub fn mode_for(program: &Path, adapter_args: Option<&Value>, host: &dyn Host) -> Mode {
    match adapter_args.and_then(|a| a.get("mode")).and_then(Value::as_str) {
        Some("test") => return Mode::Test,
        Some("exec") => return Mode::Exec,
        Some("debug") => return Mode::Debug,
        _ => {}
    }
    if elf::is_elf(program, host) {
        Mode::Exec
    } else {
        Mode::Debug
    }
}

/// Finds `dlv`: `$AGENTDAP_DLV`, `dlv` on `$PATH`, `$GOBIN`, `$GOPATH/bin`, `~/go/bin` (where
/// `go install` puts it). Errors: [`AdapterError::NotFound`] with [`INSTALL`].
pub fn find_adapter(host: &dyn Host) -> Result<PathBuf, AdapterError> {
    if let Some(explicit) = host.var(ENV_OVERRIDE).filter(|v| !v.is_empty()) {
        let name = explicit.to_string_lossy().into_owned();
        return find_on_path(&name, host).ok_or_else(|| AdapterError::NotFound {
            adapter: NAME,
            detail: format!("{ENV_OVERRIDE} = {name:?} is not an executable"),
            install: INSTALL.to_string(),
        });
    }
    if let Some(found) = find_on_path("dlv", host) {
        return Ok(found);
    }
    let gobin = host.var("GOBIN").filter(|v| !v.is_empty()).map(PathBuf::from);
    let gopath = host
        .var("GOPATH")
        .filter(|v| !v.is_empty())
        .and_then(|p| std::env::split_paths(&p).next())
        .map(|p| p.join("bin"));
    let home = host.var("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join("go/bin"));
    [gobin, gopath, home].into_iter().flatten().map(|d| d.join("dlv")).find(|p| host.is_executable(p)).ok_or_else(
        || AdapterError::NotFound {
            adapter: NAME,
            detail: "no dlv found on PATH, in $GOBIN, $GOPATH/bin or ~/go/bin".to_string(),
            install: INSTALL.to_string(),
        },
    )
}

/// DAP `launch` arguments agentdap sends unless the agent's `adapter_args` override them.
/// `program`, `args`, `cwd`, `env`, `stopOnEntry` are set by the session from the tool call.
pub fn launch_defaults(mode: Option<Mode>) -> Value {
    let mut v = json!({"type": VSCODE_TYPE, "request": "launch"});
    if let Some(mode) = mode {
        v["mode"] = mode.as_str().into();
    }
    v
}

/// DAP `attach` arguments (`mode: local` attaches to a pid).
pub fn attach_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "attach", "mode": "local"})
}

/// The full recipe: `dlv dap --listen=127.0.0.1:0`, port from the announced line.
///
/// The adapter's cwd matters in `debug`/`test` mode: `go build` finds `go.mod` from it, and
/// the `__debug_bin` lands there. It is the launch `cwd` when given, else the package
/// directory (a `.go` file's parent, or the directory itself), else agentdap's. Errors:
/// [`AdapterError::NotFound`] with [`INSTALL`].
pub fn recipe(program: Option<&Path>, input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    let dlv = find_adapter(host)?;
    let mode = program.map(|p| mode_for(p, input.adapter_args, host));
    let package_dir =
        program.and_then(|p| if host.is_dir(p) { Some(p.to_path_buf()) } else { p.parent().map(Path::to_path_buf) });
    let cwd = match (input.cwd, mode) {
        (Some(c), _) if c.is_absolute() => Some(c.to_path_buf()),
        (Some(c), _) => host.cwd().map(|d| d.join(c)),
        (None, Some(Mode::Debug | Mode::Test)) => package_dir,
        (None, _) => None,
    };
    let command = AdapterCommand {
        program: dlv.into_os_string(),
        args: vec![OsString::from("dap"), OsString::from("--listen=127.0.0.1:0")],
        cwd,
        env: Vec::new(),
    };
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command,
        transport: Transport::Tcp { port: PortDiscovery::AnnouncedLine { prefix: LISTENING_PREFIX } },
        launch_defaults: launch_defaults(mode),
        attach_defaults: attach_defaults(),
        quirks: quirks(),
        install_command: INSTALL.to_string(),
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::parse_exit_report;
    use crate::dap::adapters::test_host::FakeHost;
    use std::collections::{HashMap, HashSet};

    fn go_host() -> FakeHost {
        FakeHost {
            vars: HashMap::from([("PATH", "/usr/bin"), ("HOME", "/h")]),
            exes: HashSet::from(["/usr/bin/dlv"]),
            files: HashMap::from([
                ("/src/app/main.go", &b"package main"[..]),
                ("/src/app/go.mod", &b"module app"[..]),
                ("/src/app/app", &b"\x7fELF\x02\x01\x01"[..]),
                ("/src/notgo/readme.txt", &b"hi"[..]),
            ]),
            dirs: HashSet::from(["/src/app", "/src/notgo"]),
            ..FakeHost::default()
        }
    }

    fn mode(host: &FakeHost, program: &str, args: Option<Value>) -> &'static str {
        mode_for(Path::new(program), args.as_ref(), host).as_str()
    }

    #[test]
    fn mode_follows_the_program_unless_asked() {
        let h = go_host();
        assert_eq!(mode(&h, "/src/app/main.go", None), "debug");
        assert_eq!(mode(&h, "/src/app", None), "debug");
        assert_eq!(mode(&h, "/src/app/app", None), "exec");
        assert_eq!(mode(&h, "/src/app", Some(json!({"mode": "test"}))), "test");
        assert_eq!(mode(&h, "/src/app/main.go", Some(json!({"mode": "bogus"}))), "debug");
        assert!(is_package_dir(Path::new("/src/app"), &h));
        assert!(!is_package_dir(Path::new("/src/notgo"), &h));
        assert!(!is_package_dir(Path::new("/src/app/main.go"), &h));
    }

    #[test]
    fn recipe_listens_on_loopback_port_zero_and_builds_in_the_package_dir() {
        let h = go_host();
        let got = recipe(Some(Path::new("/src/app/main.go")), ResolveInput::default(), &h);
        let Ok(r) = got else { panic!("{got:?}") };
        assert_eq!(r.command.program, OsString::from("/usr/bin/dlv"));
        assert_eq!(r.command.args, vec![OsString::from("dap"), OsString::from("--listen=127.0.0.1:0")]);
        assert_eq!(r.command.cwd, Some(PathBuf::from("/src/app")));
        assert_eq!(
            r.transport,
            Transport::Tcp { port: PortDiscovery::AnnouncedLine { prefix: "DAP server listening at: " } }
        );
        assert_eq!(r.launch_defaults, json!({"type": "go", "request": "launch", "mode": "debug"}));
        let Ok(exec) = recipe(Some(Path::new("/src/app/app")), ResolveInput::default(), &h) else { panic!() };
        assert_eq!((exec.launch_defaults["mode"].as_str(), exec.command.cwd), (Some("exec"), None));
        let input = ResolveInput { adapter_args: None, cwd: Some(Path::new("sub")), js_debug: None };
        let Ok(dir) = recipe(Some(Path::new("/src/app")), input, &h) else { panic!() };
        assert_eq!(dir.command.cwd, Some(PathBuf::from("/srv/cwd/sub")));
    }

    #[test]
    fn dlv_from_go_install_dirs_or_an_install_hint() {
        let mut h = FakeHost { vars: HashMap::from([("PATH", "/usr/bin"), ("HOME", "/h")]), ..FakeHost::default() };
        h.exes.insert("/h/go/bin/dlv");
        assert_eq!(find_adapter(&h), Ok(PathBuf::from("/h/go/bin/dlv")));
        h.vars.insert("GOPATH", "/gp:/other");
        h.exes.insert("/gp/bin/dlv");
        assert_eq!(find_adapter(&h), Ok(PathBuf::from("/gp/bin/dlv")));
        let none = FakeHost { vars: HashMap::from([("PATH", "/usr/bin")]), ..FakeHost::default() };
        let err = find_adapter(&none).map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err("delve: no dlv found on PATH, in $GOBIN, $GOPATH/bin or ~/go/bin; install it with: \
                 apt-get install delve golang-go"
                .into())
        );
    }

    #[test]
    fn exit_status_is_read_from_the_console_line() {
        let q = runtime_quirks();
        let ExitReport::ConsoleAfterDisconnect { marker } = q.exit_report else { panic!("{:?}", q.exit_report) };
        assert_eq!(parse_exit_report(marker, "Process 17724 has exited with status 7\n"), Some(7));
        assert_eq!(parse_exit_report(marker, "Process 1 has exited with status -1"), Some(-1));
        assert_eq!(parse_exit_report(marker, "Detaching\n"), None);
        assert_eq!(parse_exit_report(marker, "Process 1 has exited with status \n"), None);
        assert_eq!((q.entry_function, q.placeholder_thread), (Some("main.main"), Some("Dummy")));
        assert_eq!(q.debuggee_output, DebuggeeOutput::AdapterPipes);
    }
}
