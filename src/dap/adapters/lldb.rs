//! The lldb-dap recipe (stdio): finding `lldb-dap[-NN]`/`lldb-vscode[-NN]`, rustc's LLDB formatters for Rust programs, launch defaults, and lldb-dap's quirks as data; reads only directory listings and small files, never runs anything.
//!
//! Observed with a raw DAP client against `lldb-dap-22` (Debian LLVM 22.1.8) on a C program
//! built `gcc -g -O0`, and on a Rust program built `rustc -g`:
//!
//! - Start-up: `initialize` is answered at once (`$__lldb_version` in the capabilities). Two
//!   console `output` events (the debug console greeting) follow the `launch` request, then
//!   `initialized` (~0.2 s later: the target is created only once `launch` arrives). The launch
//!   response comes only after `configurationDone`, right after its response.
//! - `stopOnEntry: true`: `process`, then `stopped {reason: "entry", description: "signal
//!   SIGSTOP"}` in the dynamic loader's `_start` (ld-linux), *before* the responses to
//!   `configurationDone` and `launch`. Hence [`RuntimeQuirks::entry_function`] = `main`: a
//!   function breakpoint on `main` stops after its prologue on the first source line, as
//!   `stopped {reason: "breakpoint", description: "breakpoint 1.1", hitBreakpointIds}`.
//! - Steps: `continued`, then `stopped {reason: "step"}`, usually after the step's response
//!   (the order is not guaranteed; older versions stop first more often).
//! - Output: the inferior runs on a pseudo-terminal: its stdout *and stderr* arrive as
//!   `output` events of category `stdout` with `\r\n` line ends. lldb's own messages are
//!   category `console` (`\r\n` for most, `\n` for the exit line).
//! - Exit: console `Process <pid> exited with status = 7 (0x00000007)`, `exited {exitCode: 7}`,
//!   `terminated` (with `$__lldb_statistics`). After `disconnect` is answered, lldb-dap exits 0.
//! - Ids: frame id 524288 for the top frame and `variablesReference` 1 for Locals at every stop.
//! - Processes: lldb-dap → `lldb-server-22` (gdbserver mode; its own process group, same
//!   session) → the inferior (a process group of its own). While the inferior was stopped,
//!   SIGKILL or SIGTERM of lldb-dap's group, or EOF on its stdin, took lldb-server and the
//!   inferior down within 3 s; the session layer still records both pids with the watchdog.
//! - Rust: without formatters a `Vec<i32>` reads `{buf, len}`; with rustc's `lldb_lookup.py` and
//!   `lldb_commands` loaded through `initCommands` it reads `size=3` with children `[0]`..`[2]`
//!   and a `String` reads `"agentdap"`. The commands are prefixed `?` (lldb-dap prints their
//!   output only on failure) and sourced with `-s 1`; without that, lldb-dap echoes ~90
//!   console `output` events. `lldb_commands` registers a synthetic provider for every type
//!   (`-x ".*"`), so it is loaded for Rust programs only.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{
    elf, find_on_path, AdapterError, CoreOpen, DebuggeeOutput, ExitReport, ExpressionOnly, FailureShape, Host, Quirks,
    Recipe, ResolveInput, RuntimeQuirks, Transport,
};
use crate::dap::command::AdapterCommand;

/// agentdap's name for the adapter.
pub const NAME: &str = "lldb";

/// The VS Code debug `type` (the LLDB DAP extension).
pub const VSCODE_TYPE: &str = "lldb-dap";

/// The lldb-dap version the quirks below were checked against.
pub const CHECKED_VERSION: &str = "22.1.8";

/// The install command shown when no lldb-dap is found (Debian/Ubuntu, apt.llvm.org).
pub const INSTALL: &str = "apt-get install lldb-22";

/// Overrides discovery: the lldb-dap executable to run.
pub const ENV_OVERRIDE: &str = "AGENTDAP_LLDB_DAP";

/// Overrides the Rust sysroot whose `lib/rustlib/etc` holds the LLDB formatters.
pub const ENV_RUST_SYSROOT: &str = "AGENTDAP_RUST_SYSROOT";

/// Directory entries examined per directory while looking for versioned executables.
const LIST_CAP: usize = 16 * 1024;

/// Bytes of rustup's `settings.toml` read at most.
const SETTINGS_CAP: usize = 64 * 1024;

/// The quirks of lldb-dap in the shape every recipe shares, checked against
/// [`CHECKED_VERSION`].
pub fn quirks() -> Quirks {
    Quirks {
        // 22.1.8: `initialized` comes ~0.2 s after `launch` (the target is made then).
        initialized_after_launch: true,
        // 22.1.8: launch answered after configurationDone (older versions answer it at once;
        // the choreography accepts both, DAP § Overview › Initialization).
        launch_response_after_configuration_done: true,
        // 22.1.8 offers cpp_catch, cpp_throw, objc_catch, objc_throw, none `default`: trust
        // the capabilities.
        exception_filters: &[],
        // 22.1.8 does not advertise supportsVariablePaging; whether it honours `start`/`count`
        // anyway is unverified, so agentdap pages itself.
        variable_paging: false,
        // LLDB resolves a line without code to the next line with code (not yet checked
        // against 22.1.8 through DAP).
        moves_unbindable_breakpoints: true,
        child_sessions: super::ChildSessions::None,
        // 22.1.8: spelled as the spec spells it.
        terminate_debuggee_capability: "supportTerminateDebuggee",
        // 22.1.8 greets every session with the first two lines on the debug console, and every
        // launch with `Executable binary set to '<path>' (<triple>).` followed, in the same
        // event, by `Attached to process <pid>.` (kept: it names the pid). Both come from
        // lldb-dap's `PrintIntroductionMessage` (lldb/tools/lldb-dap/Handler/RequestHandler.cpp).
        console_banner: &[
            "To get started with the debug console",
            "For more information visit https://lldb.llvm.org",
            "Executable binary set to '",
        ],
        // 22.1.8 interrupts with SIGSTOP and says `exception` / `signal SIGSTOP`.
        pause_signal: Some("SIGSTOP"),
        // 22.1.8: `attach {pid}`.
        attach_pid_key: "pid",
        // 22.1.8: `variables` reads the target on every request, and sends `invalidated`
        // (`variables`) after a `setVariable`.
        variables_are_snapshots: false,
        // 22.1.8 on x86-64: a `setDataBreakpoints` past the 4 debug registers answers each
        // watchpoint that did not fit with these words (`verified: false`).
        watchpoint_limit_message: Some("Setting one of the watchpoint resources failed"),
        // 22.1.8: `dataBreakpointInfo` answers `dataId` `<address>/<size>`, the size taken from
        // the expression's pointee type whatever `bytes` asked (`tests/native/breakpoint_truth.rs`).
        watch_size_in_data_id: Some((
            '/',
            "it sizes an address watch by the type the expression points to: cast it, e.g. `(int *)0x…` for 4 bytes",
        )),
        // 22.1.8 on x86-64: a `read` watch is set read/write (no read-only debug registers);
        // elsewhere (AArch64 has load-only watchpoints) not measured.
        read_watch_stops_on_writes: cfg!(target_arch = "x86_64"),
        // 22.1.8: write watchpoints are LLDB's `modify` kind (stop on a changed value only).
        write_watch_on_change_only: true,
        // 22.1.8: an expression names the address to watch (`&x`), not a variable; a value
        // that is no mapped address is refused in these words.
        watch_address_refusal: Some("memory region for address "),
        // 22.1.8: without `bytes` an expression is looked up as a variable's name (a fresh user's
        // `s.sum` and `&s.sum`), which only a plain local's or global's name is.
        watch_name_refusal: Some("variable not found"),
        ..Quirks::STANDARD
    }
}

/// lldb-dap's quirks about entry, exit, output and processes (see the module comment for what
/// was observed).
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // 22.1.8: its own entry stop is in the loader's `_start`, useless to an agent.
        entry_function: Some("main"),
        // LLDB's step plans (`tests/native/stop_frame_lldb.rs`
        // `steps_in_one_call_read_two_frames_and_a_step_out_compares_with_the_callers_last_stop`).
        step_stays_in_call: true,
        // 22.1.8: one thread handles the requests in arrival order (`lldb/tools/lldb-dap/DAP.cpp`,
        // `DAP::Loop`); a thread's top frame id is `index << 19` and the Locals scope is
        // reference 1 at every stop (`MakeDAPFrameID`, `VARREF_LOCALS`). Each round trip costs
        // it ~0.25 ms even for `threads` (2 cores), so reading ahead saves two per stop
        // (`tests/native/stop_frame_lldb.rs`).
        pipelined_stop_reads: true,
        // 22.1.8 says `entry` (description "signal SIGSTOP"); before llvm/llvm-project#165901 it
        // was `exception` with the same description. Passed through unchanged (the test
        // `entry_stops_at_main_and_reasons_pass_through` pins it).
        adapter_entry_reasons: &["entry", "exception"],
        // 22.1.8: the entry stop arrives before the configurationDone and launch responses.
        stop_before_response: true,
        // All versions: the inferior's terminal is a PTY (stderr merged, CRLF).
        debuggee_output: DebuggeeOutput::OutputEventsFromPty,
        // 22.1.8: `exited {exitCode}` before `terminated`.
        exit_report: ExitReport::ExitedEvent,
        // 22.1.8: a SIGSEGV death is `exited {exitCode: 11}` and the console line "Process N
        // exited with status = 11 (0x0000000b)", the very words of `exit(11)`: lldb-server's
        // `X0b` (signal) stop reply reaches lldb as status 11 with no description.
        signal_exit_as_status: true,
        single_client: true,
        // All versions: top frame id 524288 and Locals reference 1 at every stop.
        reuses_ids_across_stops: true,
        // lldb-server and the inferior each lead their own process group.
        debuggee_own_process_group: true,
        // comm is cut to 15 bytes: `lldb-server-22.1.8` shows as `lldb-server-22.`.
        helper_processes: &["lldb-server"],
        // LLVM's crash handler (older lldb-vscode/lldb-dap crashed on shutdown and their
        // stderr arrived as hundreds of `output` events).
        crash_markers: &["PLEASE submit a bug report", "Stack dump:"],
        // 22.1.8: `repl` runs `a+b` as an expression command and answers `(int) $0 = 7`.
        evaluate_context: "watch",
        mirror_evaluate: MIRROR_EVALUATE,
        // Rust programs panic in this shape; C and C++ have no single one.
        failure_shapes: &[FailureShape::RustPanic],
        // 22.1.8: a condition that fails to evaluate stops there (`hitBreakpointIds` names it),
        // then says so in `important` output, the condition quoted (`tests/native` `life_lldb`).
        condition_error_marks: &[("error: stopped due to an error evaluating condition of breakpoint ", true)],
        // 22.1.8: `attach {program, coreFile}` loads the core; its one stop then says reason
        // `entry` with the signal in `description` (llvm/llvm-project PR#195352), and `disconnect`
        // must end the target; it reads a minidump the same way (`tests/native/core_dump.rs`).
        core_file: Some(CoreOpen {
            request: "attach",
            core_key: "coreFile",
            arguments: &[],
            minidump: true,
            runtime_frames: None,
        }),
        // 22.1.8: the first `threads` answer is the thread list of `configurationDone`
        // (`tests/native` `stacks_lldb`: a program's two later threads missing).
        stacks: super::stack_sampler::StacksQuirks {
            first_threads_stale: true,
            ..super::stack_sampler::StacksQuirks::STANDARD
        },
        ..RuntimeQuirks::STANDARD
    }
}

/// How a mirror client's `evaluate` stays an expression, read in lldb-dap's
/// `Handler/EvaluateRequestHandler.cpp` and checked on 22.1.8: only the `repl` context runs
/// text as LLDB commands (`thread step-over`, `process kill`, `breakpoint delete`,
/// `platform shell …`: a command when `DetectReplMode` says so, or always after the
/// `commandEscapePrefix`, a backtick by default, which the `launch` arguments may change).
/// Every other context looks the text up as a variable path (`frame variable`), and then, except
/// for `hover`, evaluates it with the expression parser (`SBFrame::EvaluateExpression`, which can
/// call functions in the inferior — unwinding on error and ignoring breakpoints, so the thread
/// ends where it was — but runs no LLDB command); `clipboard` only asks for a longer
/// description. So `watch` is the context for anything else, `hover` keeps its look-up-only
/// meaning, and a leading backtick is refused outright.
pub const MIRROR_EVALUATE: ExpressionOnly = ExpressionOnly {
    contexts: &["watch", "hover", "clipboard", "variables"],
    command_words: &[],
    command_prefixes: &["`"],
    refused_anywhere: &[],
};

/// DAP `launch` arguments agentdap sends unless the agent's `adapter_args` override them.
/// `program`, `args`, `cwd`, `env`, `stopOnEntry` are set by the session from the tool call.
pub fn launch_defaults() -> Value {
    json!({
        "type": VSCODE_TYPE,
        "request": "launch",
        // Output as `output` events; `runInTerminal` only when the agent asks for a terminal.
        "runInTerminal": false,
    })
}

/// DAP `launch` arguments for `console: terminal`, merged over [`launch_defaults`].
///
/// 22.1.8: `runInTerminal` asks agentdap to run `<lldb-dap> --comm-file <fifo> --debugger-pid
/// <pid> --launch-target <program> <args>`: a launcher (lldb-dap itself) that sends its pid over
/// the fifo, waits up to 20 s for lldb-dap to attach to it, then `exec`s the program. The path
/// is derived from lldb-dap's own `argv[0]` (relative to the working directory when it is not
/// absolute), so the recipe always starts lldb-dap by absolute path. Attaching loads the
/// launcher's ~50 libraries, and Debian's LLDB asks `https://debuginfod.debian.net/` for every
/// one without local symbols: without network each lookup waits 5 s for DNS, the attach took
/// 20.7 s, the launcher gave up first and the launch failed ("Timed out trying to send
/// messages to the runInTerminal launcher"). The lookups are for lldb-dap's own libraries, so
/// debuginfod is cleared before the attach (`adapter_args.preRunCommands` replaces this).
pub fn terminal_arguments() -> Value {
    json!({
        "runInTerminal": true,
        "preRunCommands": ["?settings clear plugin.symbol-locator.debuginfod.server-urls"],
    })
}

/// DAP `attach` arguments agentdap sends unless the agent's `adapter_args` override them.
pub fn attach_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "attach"})
}

/// One candidate executable, ordered by preference.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    /// 0 = `lldb-dap`, 1 = `lldb-vscode` (renamed to lldb-dap in LLVM 18).
    family: u8,
    /// `u32::MAX` for the unversioned name (the distribution's choice), else the version,
    /// negated by [`Candidate::key`] so that the newest comes first.
    version: u32,
    path: PathBuf,
}

impl Candidate {
    fn key(&self) -> (u8, std::cmp::Reverse<u32>) {
        (self.family, std::cmp::Reverse(self.version))
    }
}

/// `lldb-dap` → (0, MAX), `lldb-dap-22` → (0, 22), `lldb-vscode-14` → (1, 14).
fn parse_name(name: &str) -> Option<(u8, u32)> {
    for (family, base) in [(0u8, "lldb-dap"), (1u8, "lldb-vscode")] {
        if let Some(rest) = name.strip_prefix(base) {
            if rest.is_empty() {
                return Some((family, u32::MAX));
            }
            let digits = rest.strip_prefix('-')?;
            if !digits.is_empty() && digits.len() <= 3 && digits.bytes().all(|b| b.is_ascii_digit()) {
                return Some((family, digits.parse().ok()?));
            }
        }
    }
    None
}

/// Finds the adapter, best first: `$AGENTDAP_LLDB_DAP`; then `lldb-dap` (unversioned: what the
/// user or distribution made the default), `lldb-dap-NN` newest first, `lldb-vscode`,
/// `lldb-vscode-NN` newest first — looked up in `$PATH`, `/usr/bin` and
/// `/usr/lib/llvm-NN/bin`. Only lists directories and `stat`s files. Errors:
/// [`AdapterError::NotFound`] with [`INSTALL`].
pub fn find_adapter(host: &dyn Host) -> Result<PathBuf, AdapterError> {
    if let Some(explicit) = host.var(ENV_OVERRIDE).filter(|v| !v.is_empty()) {
        let name = explicit.to_string_lossy().into_owned();
        return find_on_path(&name, host).ok_or_else(|| AdapterError::NotFound {
            adapter: NAME,
            detail: format!("{ENV_OVERRIDE} = {name:?} is not an executable"),
            install: INSTALL.to_string(),
        });
    }
    let mut dirs: Vec<PathBuf> = host.var("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    dirs.push(PathBuf::from("/usr/bin"));
    for entry in host.list_dir(Path::new("/usr/lib"), LIST_CAP) {
        let name = entry.to_string_lossy();
        if name.strip_prefix("llvm-").is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())) {
            dirs.push(Path::new("/usr/lib").join(&*name).join("bin"));
        }
    }
    let mut found: Vec<Candidate> = Vec::new();
    for dir in dirs.iter().filter(|d| !d.as_os_str().is_empty()) {
        for entry in host.list_dir(dir, LIST_CAP) {
            let Some((family, mut version)) = entry.to_str().and_then(parse_name) else { continue };
            let path = dir.join(&entry);
            if !host.is_executable(&path) {
                continue;
            }
            // `/usr/lib/llvm-22/bin/lldb-dap` is version 22, not "the default".
            if version == u32::MAX {
                if let Some(v) = llvm_dir_version(dir) {
                    version = v;
                }
            }
            found.push(Candidate { family, version, path });
        }
    }
    // Stable: among equal keys, the earlier directory (PATH order) wins.
    found.sort_by_key(Candidate::key);
    found.into_iter().next().map(|c| c.path).ok_or_else(|| AdapterError::NotFound {
        adapter: NAME,
        detail: "no lldb-dap (or lldb-vscode) found on PATH, in /usr/bin or /usr/lib/llvm-*/bin".to_string(),
        install: INSTALL.to_string(),
    })
}

/// `/usr/lib/llvm-22/bin` → 22.
fn llvm_dir_version(dir: &Path) -> Option<u32> {
    let name = dir.strip_prefix("/usr/lib").ok()?.components().next()?.as_os_str().to_str()?;
    name.strip_prefix("llvm-")?.parse().ok()
}

/// rustc's LLDB formatter files of one toolchain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustFormatters {
    /// `<sysroot>/lib/rustlib/etc/lldb_lookup.py` (the Python providers).
    pub lookup: PathBuf,
    /// `<sysroot>/lib/rustlib/etc/lldb_commands` (the `type synthetic/summary add` lines).
    pub commands: PathBuf,
}

impl RustFormatters {
    /// The `initCommands` that load them quietly (`?`: lldb-dap prints output only on error).
    pub fn init_commands(&self) -> Vec<String> {
        vec![
            format!("?command script import {}", quote_lldb(&self.lookup)),
            format!("?command source -s 1 {}", quote_lldb(&self.commands)),
        ]
    }
}

/// Quotes a path for an LLDB command line (double quotes, `\` and `"` escaped).
fn quote_lldb(path: &Path) -> String {
    let s = path.to_string_lossy();
    if s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b)) {
        return s.into_owned();
    }
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Finds rustc's LLDB formatters *without running rustc*. `rustc --print sysroot` would be
/// the exact answer, but it is a blocking child probe (and through a rustup proxy it may even
/// download a toolchain), which the loop must not do at launch time (it never blocks). Instead,
/// first match wins, each candidate checked for both files:
///
/// 1. `$AGENTDAP_RUST_SYSROOT`;
/// 2. rustup's layout: `$RUSTUP_TOOLCHAIN` (a path, or a toolchain name under
///    `$RUSTUP_HOME/toolchains`, `$RUSTUP_HOME` defaulting to `~/.rustup`), else the
///    `default_toolchain` of `$RUSTUP_HOME/settings.toml` (a ≤ 64 KiB read); a short name
///    like `stable` matches `stable-<host triple>`;
/// 3. a rustc on `$PATH` that is not a rustup proxy: `<bin>/..` (distribution packages).
///
/// Directory overrides (`rust-toolchain.toml`) are not consulted: the formatters of any
/// recent toolchain read any Rust binary's `Vec`/`String` alike, and (1) pins one exactly.
pub fn find_rust_formatters(host: &dyn Host) -> Option<RustFormatters> {
    let check = |sysroot: &Path| {
        let etc = sysroot.join("lib/rustlib/etc");
        let f = RustFormatters { lookup: etc.join("lldb_lookup.py"), commands: etc.join("lldb_commands") };
        (host.is_file(&f.lookup) && host.is_file(&f.commands)).then_some(f)
    };
    if let Some(root) = host.var(ENV_RUST_SYSROOT).filter(|v| !v.is_empty()) {
        return check(Path::new(&root));
    }
    let rustup_home = host
        .var("RUSTUP_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| host.var("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".rustup")));
    if let Some(home) = &rustup_home {
        let toolchains = home.join("toolchains");
        let named = host.var("RUSTUP_TOOLCHAIN").filter(|v| !v.is_empty()).map(|v| v.to_string_lossy().into_owned());
        let wanted = named.or_else(|| default_toolchain(&home.join("settings.toml"), host));
        if let Some(name) = wanted {
            if Path::new(&name).is_absolute() {
                return check(Path::new(&name));
            }
            if let Some(found) = check(&toolchains.join(&name)) {
                return Some(found);
            }
            let prefix = format!("{name}-");
            let mut entries: Vec<OsString> = host.list_dir(&toolchains, LIST_CAP);
            entries.sort();
            for entry in entries {
                if entry.to_str().is_some_and(|e| e.starts_with(&prefix)) {
                    if let Some(found) = check(&toolchains.join(&entry)) {
                        return Some(found);
                    }
                }
            }
        }
    }
    let rustc = find_on_path("rustc", host)?;
    check(rustc.parent()?.parent()?)
}

/// `default_toolchain = "…"` from rustup's settings file (bounded read; a line-level parse of
/// the one key, enough for the TOML rustup writes).
fn default_toolchain(settings: &Path, host: &dyn Host) -> Option<String> {
    let bytes = host.read_range(settings, 0, SETTINGS_CAP)?;
    let text = String::from_utf8_lossy(&bytes);
    text.lines().find_map(|line| {
        let value = line.trim().strip_prefix("default_toolchain")?.trim_start().strip_prefix('=')?.trim();
        let value = value.strip_prefix('"')?.split('"').next()?;
        (!value.is_empty()).then(|| value.to_string())
    })
}

/// The full recipe: lldb-dap over stdio; for a Rust `program` (its `.comment` names rustc,
/// [`elf::probe`]) the formatters' `initCommands` go into the launch and attach defaults.
/// Errors: [`AdapterError::NotFound`] with [`INSTALL`].
pub fn recipe(program: Option<&Path>, _input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    let mut adapter = find_adapter(host)?;
    if adapter.is_relative() {
        // lldb-dap names itself by `argv[0]` in `runInTerminal` (see [`terminal_arguments`]),
        // and the launcher runs in the program's working directory, not agentdap's.
        if let Some(cwd) = host.cwd() {
            adapter = cwd.join(adapter);
        }
    }
    let mut launch = launch_defaults();
    let mut attach = attach_defaults();
    let rust = program.and_then(|p| elf::probe(p, host)).is_some_and(|f| f.rust);
    if rust {
        if let Some(formatters) = find_rust_formatters(host) {
            launch["initCommands"] = json!(formatters.init_commands());
            attach["initCommands"] = json!(formatters.init_commands());
        }
    }
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command: AdapterCommand::new(adapter),
        transport: Transport::Stdio,
        launch_defaults: launch,
        attach_defaults: attach,
        quirks: quirks(),
        install_command: INSTALL.to_string(),
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::test_host::FakeHost;
    use std::collections::HashMap;

    fn host(path: &'static str, exes: &[&'static str]) -> FakeHost {
        FakeHost { vars: HashMap::from([("PATH", path)]), exes: exes.iter().copied().collect(), ..FakeHost::default() }
    }

    fn check_found(h: &FakeHost, expected: &str) {
        assert_eq!(find_adapter(h).map(|p| p.to_string_lossy().into_owned()), Ok(expected.to_string()));
    }

    #[test]
    fn names_parse_into_family_and_version() {
        assert_eq!(parse_name("lldb-dap"), Some((0, u32::MAX)));
        assert_eq!(parse_name("lldb-dap-22"), Some((0, 22)));
        assert_eq!(parse_name("lldb-vscode-14"), Some((1, 14)));
        assert_eq!(parse_name("lldb-vscode"), Some((1, u32::MAX)));
        for no in ["lldb-dap-", "lldb-dap-x", "lldb-dap22", "lldb-dap-22.1", "lldb", "lldb-server-22", "lldb-dap-1234"]
        {
            assert_eq!(parse_name(no), None, "{no}");
        }
    }

    #[test]
    fn unversioned_first_then_newest_then_lldb_vscode() {
        let all = ["/usr/bin/lldb-dap-18", "/usr/bin/lldb-dap-22", "/opt/l/lldb-dap", "/usr/bin/lldb-vscode-30"];
        check_found(&host("/opt/l:/usr/bin", &all), "/opt/l/lldb-dap");
        check_found(&host("/usr/bin", &all[..3]), "/usr/bin/lldb-dap-22");
        check_found(&host("/usr/bin", &["/usr/bin/lldb-vscode-30", "/usr/bin/lldb-vscode"]), "/usr/bin/lldb-vscode");
        check_found(
            &host("/usr/bin", &["/usr/bin/lldb-vscode-14", "/usr/bin/lldb-vscode-30"]),
            "/usr/bin/lldb-vscode-30",
        );
    }

    #[test]
    fn llvm_lib_dirs_count_as_their_version_and_path_order_breaks_ties() {
        let h =
            host("/nope", &["/usr/lib/llvm-19/bin/lldb-dap", "/usr/lib/llvm-22/bin/lldb-dap", "/usr/bin/lldb-dap-20"]);
        check_found(&h, "/usr/lib/llvm-22/bin/lldb-dap");
        let h = host("/a:/b", &["/b/lldb-dap-22", "/a/lldb-dap-22"]);
        check_found(&h, "/a/lldb-dap-22");
        // Not executable: skipped.
        let mut h = host("/a", &["/a/lldb-dap-21"]);
        h.files.insert("/a/lldb-dap-22", b"");
        check_found(&h, "/a/lldb-dap-21");
    }

    #[test]
    fn override_and_missing_say_what_to_do() {
        let mut h = host("/usr/bin", &["/usr/bin/lldb-dap-22", "/opt/mine/lldb-dap"]);
        h.vars.insert(ENV_OVERRIDE, "/opt/mine/lldb-dap");
        check_found(&h, "/opt/mine/lldb-dap");
        h.vars.insert(ENV_OVERRIDE, "/nope/lldb-dap");
        let err = find_adapter(&h).map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err("lldb: AGENTDAP_LLDB_DAP = \"/nope/lldb-dap\" is not an executable; install it with: apt-get install lldb-22"
                .into())
        );
        let err = find_adapter(&host("/usr/bin", &[])).map_err(|e| (e.code(), e.to_string()));
        assert_eq!(
            err,
            Err((
                "adapter_not_found",
                "lldb: no lldb-dap (or lldb-vscode) found on PATH, in /usr/bin or /usr/lib/llvm-*/bin; \
                 install it with: apt-get install lldb-22"
                    .into()
            ))
        );
    }

    const ETC: &str = "lib/rustlib/etc";

    fn rust_host(vars: &[(&'static str, &'static str)], sysroots: &[&'static str]) -> FakeHost {
        let mut h = FakeHost { vars: vars.iter().copied().collect(), ..FakeHost::default() };
        for root in sysroots {
            let lookup: &'static str = Box::leak(format!("{root}/{ETC}/lldb_lookup.py").into_boxed_str());
            let commands: &'static str = Box::leak(format!("{root}/{ETC}/lldb_commands").into_boxed_str());
            h.files.insert(lookup, b"");
            h.files.insert(commands, b"");
        }
        h
    }

    fn sysroot_of(h: &FakeHost) -> Option<String> {
        find_rust_formatters(h)
            .map(|f| f.commands.to_string_lossy().trim_end_matches("/lib/rustlib/etc/lldb_commands").to_string())
    }

    #[test]
    fn rust_sysroot_from_env_rustup_and_path() {
        let stable = "/h/.rustup/toolchains/stable-x86_64-unknown-linux-gnu";
        let nightly = "/h/.rustup/toolchains/nightly-x86_64-unknown-linux-gnu";
        let mut h = rust_host(&[("HOME", "/h")], &[stable, nightly, "/opt/rust"]);
        h.files.insert(
            "/h/.rustup/settings.toml",
            b"version = \"12\"\ndefault_toolchain = \"stable-x86_64-unknown-linux-gnu\"\n",
        );
        assert_eq!(sysroot_of(&h).as_deref(), Some(stable));
        h.vars.insert("RUSTUP_TOOLCHAIN", "nightly");
        assert_eq!(sysroot_of(&h).as_deref(), Some(nightly));
        h.vars.insert("RUSTUP_TOOLCHAIN", "/opt/rust");
        assert_eq!(sysroot_of(&h).as_deref(), Some("/opt/rust"));
        h.vars.insert(ENV_RUST_SYSROOT, "/nope");
        assert_eq!(sysroot_of(&h), None, "an explicit sysroot without formatters is not second-guessed");
        // A distribution rustc: /usr/bin/rustc → /usr.
        let mut h = rust_host(&[("PATH", "/usr/bin"), ("HOME", "/h")], &["/usr"]);
        h.exes.insert("/usr/bin/rustc");
        assert_eq!(sysroot_of(&h).as_deref(), Some("/usr"));
        assert_eq!(sysroot_of(&rust_host(&[("PATH", "/usr/bin")], &[])), None);
    }

    #[test]
    fn formatter_commands_are_quiet_and_quoted() {
        let f = RustFormatters {
            lookup: PathBuf::from("/r/lib/rustlib/etc/lldb_lookup.py"),
            commands: PathBuf::from("/my \"r\"/lldb_commands"),
        };
        assert_eq!(
            f.init_commands(),
            vec![
                "?command script import /r/lib/rustlib/etc/lldb_lookup.py".to_string(),
                "?command source -s 1 \"/my \\\"r\\\"/lldb_commands\"".to_string(),
            ]
        );
    }

    #[test]
    fn recipe_is_stdio_and_loads_formatters_only_for_rust() {
        let mut h = rust_host(
            &[("PATH", "/usr/bin"), ("RUSTUP_HOME", "/ru"), ("RUSTUP_TOOLCHAIN", "stable")],
            &["/ru/toolchains/stable-aarch64-unknown-linux-gnu"],
        );
        h.exes.insert("/usr/bin/lldb-dap-22");
        let input = ResolveInput::default();
        let c_recipe = recipe(Some(Path::new("/w/c_prog")), input, &h);
        let Ok(c_recipe) = c_recipe else { panic!("{c_recipe:?}") };
        assert_eq!(c_recipe.command, AdapterCommand::new("/usr/bin/lldb-dap-22"));
        assert_eq!(c_recipe.transport, Transport::Stdio);
        assert_eq!(c_recipe.launch_defaults, json!({"type": "lldb-dap", "request": "launch", "runInTerminal": false}));
        assert_eq!(c_recipe.install_command, INSTALL);
        // Not ELF at all (unreadable): no formatters either.
        h.files.insert("/w/rust_prog", b"");
        let Ok(r) = recipe(Some(Path::new("/w/rust_prog")), input, &h) else { panic!() };
        assert!(r.launch_defaults.get("initCommands").is_none());
    }

    #[test]
    fn quirks_say_main_is_entry_and_ids_repeat() {
        let q = runtime_quirks();
        assert_eq!(q.entry_function, Some("main"));
        assert!(q.reuses_ids_across_stops && q.stop_before_response && q.debuggee_own_process_group);
        assert_eq!(q.debuggee_output, DebuggeeOutput::OutputEventsFromPty);
        assert!(q.is_crash_report("PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/"));
        assert!(!q.is_crash_report("Process 12 exited with status = 0 (0x00000000)"));
    }
}
