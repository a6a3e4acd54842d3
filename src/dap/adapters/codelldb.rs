//! The CodeLLDB recipe (`adapter: "codelldb"`, opt-in: native programs go to lldb-dap unless the agent names it): `codelldb --port <port>` over TCP on a port agentdap chooses, its launch and attach defaults (console output, CodeLLDB's own Rust support), its discovery (`codelldb_find.rs`) and its quirks as data; `stat`s, directory listings and small bounded reads only, never runs anything.
//!
//! Observed with a raw DAP client over TCP against CodeLLDB 1.11.8 (the `linux-x64` build with its
//! own liblldb in `../lldb/lib`) on a C program built `gcc -g -O0` and a Rust program built
//! `rustc -g`:
//!
//! - Start-up: `codelldb --port N` prints nothing and listens on 127.0.0.1:N (connects are refused
//!   for ~0.8 s while it loads liblldb and Python); without arguments it serves DAP on stdio. One
//!   connection is one session: when agentdap closes it, codelldb ends the debuggee and exits 0.
//!   `initialize` is answered at once; a console line `Console is in 'commands' mode, prefix
//!   expressions with '?'.` and `initialized` follow `launch` (~5 ms; ~0.2 s when a Rust program
//!   loads its formatters). `launch` is answered after `configurationDone`, just before its
//!   response, after console lines `Launching: <program>` and `Launched process <pid> from
//!   '<program>'`. There is no `process` event.
//! - `setBreakpoints` before the launch answers `verified: true, message: "Resolved locations:
//!   0"`; a `breakpoint` event (`Resolved locations: 1`) follows once the program is loaded.
//! - `stopOnEntry: true` stops in the loader's `_start` as `exception`, description `signal
//!   SIGSTOP`, after both responses; hence [`RuntimeQuirks::entry_function`] = `main`, where a
//!   function breakpoint stops after the prologue as `breakpoint`. A `pause` stops the same way
//!   (`exception`, `signal SIGSTOP`).
//! - Every stop is preceded, for a signal, by an `output` event of category `stderr`: `Stop
//!   reason: signal SIGSTOP`. Category `stderr` is CodeLLDB's own messages (`console_error` in
//!   `src/codelldb/src/debug_session.rs`); the program's stdout *and* stderr arrive as `stdout`,
//!   from a pseudo-terminal (`\r\n` line ends).
//! - Exit: `output` (stdout), console `Process exited with code 7.`, `exited {exitCode: 7}`,
//!   `terminated {}`. The adapter stays after the `disconnect` response until the connection closes.
//! - Ids: thread id = the pid; frame ids count from 1001 and Local's `variablesReference` is the
//!   same at every stop (1005 in the C program).
//! - Processes: codelldb → `lldb-server` (gdbserver mode, a process group of its own) → the
//!   debuggee (a process group of its own), all in agentdap's session.
//! - Evaluate: the `repl` context runs LLDB commands (`thread list`; `s` is `thread step-in` and
//!   resumes the program) unless the text starts with `?`. Every other context evaluates CodeLLDB's
//!   "simple" expressions — variable paths, indexing, arithmetic and comparisons, no calls
//!   (`add(1,2)` is `Syntax error`) — where `/nat <expr>` is LLDB's expression evaluator (which
//!   calls functions) and `/py <code>` runs Python inside the adapter (`get_expression_type` in
//!   `src/codelldb/src/expressions/mod.rs`). Errors of simple expressions come as Python
//!   tracebacks whose last line says what was wrong (`use of undeclared identifier 'nosuch'`).
//!   Every error response has `command: ""` (`dap::client` accepts it by its `request_seq`).
//! - Rust: with `sourceLanguages: ["rust"]` CodeLLDB's `lang_support/rust.py` asks `rustc
//!   --print=sysroot` itself and loads that toolchain's formatters (console `Loading Rust
//!   formatters from …`): a `Vec<i32>` reads `size=3` with children `[0]`..`[2]`, a `String`
//!   `"agentdap"`; it also sends a `capabilities` event whose exception filters are `rust_panic`.
//!   Without it a `Vec` reads `{len:3}` (`buf`, `len`).
//! - Terminal: `terminal: "integrated"` needs the `codelldb-launch` helper beside `codelldb`
//!   (`Failed to redirect stdio to a terminal. (Could not find codelldb-launch)`, then console
//!   output); 1.11.8 sends `runInTerminal` only to a client that advertises it
//!   (`create_terminal` in `src/codelldb/src/debug_session/launch.rs`), earlier versions also to
//!   others (vadimcn/codelldb#722). agentdap's `console: terminal` is not offered for CodeLLDB.
//! - Attach: `attach {pid}` attaches, answers after `configurationDone` and lets the process run;
//!   `disconnect {terminateDebuggee: false}` detaches: the process runs on with `TracerPid: 0`.
//! - Exception filters: `cpp_throw` (`default: true`) and `cpp_catch`; `rust_panic` for Rust.

use std::ffi::OsString;
use std::path::Path;

use serde_json::{json, Value};

use super::{
    elf, DebuggeeOutput, ExitReport, ExpressionOnly, FailureShape, Host, PortDiscovery, Quirks, Recipe, ResolveInput,
    RuntimeQuirks, Transport, PORT_ARG,
};
use crate::dap::command::AdapterCommand;

#[path = "codelldb_find.rs"]
pub mod find;

pub use find::{find_adapter, install_command, version, Found, Source};

/// agentdap's name for the adapter.
pub const NAME: &str = "codelldb";

/// The VS Code debug `type` (the `vadimcn.vscode-lldb` extension).
pub const VSCODE_TYPE: &str = "lldb";

/// The CodeLLDB version the quirks below were checked against.
pub const CHECKED_VERSION: &str = "1.11.8";

/// Overrides discovery: the `codelldb` executable, or a directory holding `adapter/codelldb` or
/// `extension/adapter/codelldb`.
pub const ENV_OVERRIDE: &str = "AGENTDAP_CODELLDB";

/// CodeLLDB's quirks in the shape every recipe shares, checked against [`CHECKED_VERSION`].
pub fn quirks() -> Quirks {
    Quirks {
        // 1.11.8: `initialized` follows `launch`/`attach`.
        initialized_after_launch: true,
        // 1.11.8: `launch` and `attach` are answered after configurationDone.
        launch_response_after_configuration_done: true,
        // 1.11.8 offers cpp_throw (default on) and cpp_catch, and rust_panic in a `capabilities`
        // event for a Rust program: trust the capabilities.
        exception_filters: &[],
        // 1.11.8 does not advertise supportsVariablePaging.
        variable_paging: false,
        // LLDB resolves a line without code to the next line with code (not checked through
        // CodeLLDB).
        moves_unbindable_breakpoints: true,
        terminate_debuggee_capability: "supportTerminateDebuggee",
        // 1.11.8 tells every session how its debug console reads input.
        console_banner: &["Console is in 'commands' mode"],
        // 1.11.8 interrupts with SIGSTOP and says `exception` / `signal SIGSTOP`.
        pause_signal: Some("SIGSTOP"),
        // 1.11.8: `attach {pid}`.
        attach_pid_key: "pid",
        ..Quirks::STANDARD
    }
}

/// CodeLLDB's quirks about entry, exit, output and processes (see the module comment).
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // 1.11.8: its own entry stop is in the loader's `_start`, useless to an agent.
        entry_function: Some("main"),
        // LLDB's step plans, as lldb-dap's (`RuntimeQuirks::step_stays_in_call`).
        step_stays_in_call: true,
        // 1.11.8: the program runs on a pseudo-terminal (stderr merged, CRLF).
        debuggee_output: DebuggeeOutput::OutputEventsFromPty,
        exit_report: ExitReport::ExitedEvent,
        // 1.11.8 stays after the disconnect response until the connection closes.
        exits_after_disconnect: false,
        // Without `--multi-session` codelldb serves one connection.
        single_client: true,
        // 1.11.8: frame 1001 and the same Local reference at every stop.
        reuses_ids_across_stops: true,
        // lldb-server and the debuggee each lead their own process group.
        debuggee_own_process_group: true,
        helper_processes: &["lldb-server"],
        // 1.11.8: `repl` runs LLDB commands; `watch` evaluates expressions.
        evaluate_context: "watch",
        mirror_evaluate: MIRROR_EVALUATE,
        failure_shapes: &[FailureShape::RustPanic],
        // 1.11.8, like lldb-dap: a program resumed from its SIGSEGV stop dies of it and is
        // reported as `exitCode` 11, word for word like `exit(11)` (the fresh-user report).
        signal_exit_as_status: true,
        // 1.11.8's simple expressions have no `->`, `*p`, casts or calls; `/nat` hands the
        // expression to LLDB's own evaluator.
        evaluate_error_hint: Some((
            "Syntax error",
            "CodeLLDB's default expressions are its simple syntax: paths, indexing, arithmetic; prefix `/nat ` for LLDB's C/C++ evaluator (`/nat v->items[i]`, `/nat *p`, calls)",
        )),
        // 1.11.8: category `stderr` is CodeLLDB's `console_error` (the program's stderr comes as
        // `stdout` from its terminal).
        stderr_events_are_adapters: true,
        ..RuntimeQuirks::STANDARD
    }
}

/// How a mirror client's `evaluate` stays an expression, read in CodeLLDB 1.11.8's
/// `handle_evaluate` (`src/codelldb/src/debug_session/variables.rs`) and
/// `get_expression_type` (`src/codelldb/src/expressions/mod.rs`): `repl` runs LLDB commands, and
/// so does the undocumented `_command` context; every other context evaluates an expression, in
/// which `/py ` runs Python code inside the adapter (refused) while `/nat ` and `/se ` choose
/// LLDB's evaluator or the simple one.
pub const MIRROR_EVALUATE: ExpressionOnly = ExpressionOnly {
    contexts: &["watch", "hover", "clipboard", "variables"],
    command_words: &[],
    command_prefixes: &["/py"],
    refused_anywhere: &[],
};

/// DAP `launch` arguments agentdap sends unless the agent's `adapter_args` override them;
/// `program`, `args`, `cwd`, `env`, `stopOnEntry` are set by the session from the tool call.
/// `terminal: console`: the program's output as `output` events (CodeLLDB's default is a
/// terminal through `runInTerminal`). `rust`: CodeLLDB's own Rust support (its formatters).
pub fn launch_defaults(rust: bool) -> Value {
    let mut v = json!({"type": VSCODE_TYPE, "request": "launch", "terminal": "console"});
    if rust {
        v["sourceLanguages"] = json!(["rust"]);
    }
    v
}

/// DAP `attach` arguments agentdap sends unless the agent's `adapter_args` override them.
pub fn attach_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "attach"})
}

/// The full recipe: `codelldb --port {port}`, the port chosen by agentdap, ready once a connect
/// succeeds. A Rust `program` (its `.comment` names rustc, [`elf::probe`]) gets
/// `sourceLanguages: ["rust"]`. Errors: [`super::AdapterError::NotFound`] naming where agentdap
/// looked and how to get CodeLLDB.
pub fn recipe(
    program: Option<&Path>,
    _input: ResolveInput<'_>,
    host: &dyn Host,
) -> Result<Recipe, super::AdapterError> {
    let found = find_adapter(host)?;
    let rust = program.and_then(|p| elf::probe(p, host)).is_some_and(|f| f.rust);
    let command = AdapterCommand {
        program: found.path.into_os_string(),
        args: vec![OsString::from("--port"), OsString::from(PORT_ARG)],
        cwd: None,
        env: Vec::new(),
    };
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command,
        transport: Transport::Tcp { port: PortDiscovery::Chosen },
        launch_defaults: launch_defaults(rust),
        attach_defaults: attach_defaults(),
        quirks: quirks(),
        install_command: install_command(host),
        notes: Vec::new(),
    })
}

#[cfg(test)]
#[path = "codelldb_tests.rs"]
mod tests;
