//! The js-debug recipe (`adapter: "node"`; JavaScript and TypeScript on Node.js): js-debug's standalone DAP server `node <dapDebugServer.js> <port> 127.0.0.1` over TCP, its discovery (`jsdebug_find.rs`), launch and attach defaults (source maps under the project, the TypeScript runtime), and js-debug's quirks as data; only `stat`s and small bounded reads, never runs anything.
//!
//! Observed with a raw DAP client (parent and child connections, `runInTerminal` answered by
//! spawning the program with pipes) against js-debug 1.112.0 (the release asset
//! `js-debug-dap-v1.112.0.tar.gz`'s `js-debug/src/dapDebugServer.js`) on Node 20.20.2:
//!
//! - The server prints `Debug server listening at 127.0.0.1:<port>` and serves any number of TCP
//!   connections, each one DAP session; it keeps running when they end (agentdap ends it).
//! - Parent connection: `initialize` → `initialized` at once; `launch {type: pwa-node, program,
//!   cwd}`, `configurationDone`; with `console: "integratedTerminal"` the parent sends
//!   `runInTerminal {kind: integrated, cwd, args: ["/usr/bin/node", "./app.js"], env:
//!   {NODE_OPTIONS: "--require …/bootloader.js …", VSCODE_INSPECTOR_OPTIONS: …},
//!   argsCanBeInterpretedByShell: false}` (the program relative to `cwd`), answers `launch` once
//!   that is answered, then sends `startDebugging {request: "launch", configuration: {type,
//!   name: "app.js [<pid>]", __pendingTargetId}}` when the program's bootloader connects.
//! - Child connection (a new connection to the same port): `initialize`, `launch` with that
//!   configuration verbatim → `initialized` → `setBreakpoints` (answered `verified: false`,
//!   `breakpoint.provisionalBreakpoint`; a `breakpoint` event verifies them, sometimes after the
//!   first stop) → `setExceptionBreakpoints` → `configurationDone` → the `launch` response →
//!   a second `initialized` (configure once). Stops, threads, stacks and variables are all on the
//!   child. Thread ids and frame ids count from 0 per server process (0 is a valid id); a worker
//!   thread's child connection comes from a `startDebugging` on its parent's child connection.
//! - Output: with `integratedTerminal` the program's stdout and stderr reach only the process
//!   agentdap started (no `output` events; exact bytes, in order), with Node's own notices on its
//!   stderr: `Debugger attached.` after the bootloader connects and `Waiting for the debugger to
//!   disconnect...` at the exit ([`RuntimeQuirks::inspector_notices`]). Log points are
//!   `console.log` calls in the program: they print on its stdout. With `console:
//!   "internalConsole"` there is no exit code at all (`terminated`, no `exited`), hence
//!   `runInTerminal`, whose process agentdap waits for.
//! - Exit: child `thread {reason: exited}`, `terminated {}`; parent `terminated {restart: false}`.
//!   `disconnect {terminateDebuggee: true}` does not end a program started through
//!   `runInTerminal`: the child answers it and detaches (the program runs on), the parent did
//!   not answer within 6 s. The program also starts a helper, `node …/watchdog.js`, in its own
//!   process group.
//! - Source maps: js-debug 1.112.0 drops `rootPath` unless `__workspaceFolder` is set
//!   (`resolveWorkspaceInConfig` in `src/configuration.ts`), and with no `rootPath` its `outFiles`
//!   count as empty (`FileGlobList`), so no breakpoint prediction: a breakpoint on a `.ts` line
//!   of code that runs while the program loads stays unbound and is never hit. With
//!   `__workspaceFolder` and absolute `outFiles` it binds on the `.ts` line, and stops report the
//!   `.ts` path and line — for `tsc --sourceMap` output (even with `program` naming the `.ts`
//!   file: js-debug runs the compiled file its source map names) and for `--import tsx`.
//! - TypeScript runtimes: `runtimeArgs: ["--import", "tsx"]` (tsx 4.23 on Node 20) is one
//!   process: the program is the first child session, and tsx's loader thread a `[worker 1]`
//!   child of it. `runtimeExecutable: "tsx"` (found in the cwd's `node_modules/.bin`) is tsx's
//!   CLI process first (`tsx [<pid>]`, no user code), the program a child of that, its loader
//!   thread a grandchild. Node 20 cannot run a `.ts` file itself (`SyntaxError` at the first
//!   type).
//! - `stopOnEntry` is a breakpoint on line 1, column 1 of the program that js-debug never removes
//!   (`createLifecycle` in `src/targets/node/nodeLauncher.ts`): when line 1 starts a function,
//!   every call of it stops with reason `entry` ([`RuntimeQuirks::entry_stop_repeats`]).
//! - Scopes are snapshots: after `setVariable s = 100` (answered `100`), `variables` on the
//!   scope's reference still answers `s = 42` while `evaluate s` answers 100.
//! - Evaluate: `repl` wraps object literals (`{a: 1}` is an object; `watch` answers 1) and
//!   appends a stack to errors (`Uncaught ReferenceError ReferenceError: nosuch is not defined
//!   \n    at eval (repl:1:1)`); `watch` answers `Uncaught ReferenceError: nosuch is not defined`.
//!   `.scripts`, in any context, opens js-debug's diagnostic tool instead of evaluating.
//! - Attach: `attach {port, address}` to `node --inspect` gives `startDebugging {request:
//!   "attach", configuration: {name: "Remote Process [0]", __pendingTargetId}}`, and the child
//!   works as for a launch; the program's prints arrive as child `output` events (`stdout`).
//!   Nothing listening: after `timeout` (10 s) the parent connection closes with no `attach`
//!   response, and the server's stderr says `Error: Could not connect to debug target at
//!   http://127.0.0.1:1: Could not find any debuggable target`; the server stays up.
//!   `processId` is resolved by VS Code's UI only (`src/ui/processPicker.ts`): the standalone
//!   server ignores it and tries port 9229. Sending the process `SIGUSR1` first (what VS Code
//!   does) opens Node's inspector on 127.0.0.1:9229, and the attach works.
//! - Exceptions: filters `all` (caught) and `uncaught`, both off by default; a script throwing on
//!   line 1 with `uncaught` stops as `exception` at 1:1, `exceptionInfo` has `exceptionId:
//!   "Error: at once"` and the stack; without a filter the program exits 1 at once.
//! - A breakpoint on a blank line is moved to the next statement and verified there.
//! - Capabilities: no `supportsFunctionBreakpoints`, no `supportsVariablePaging`;
//!   `supportTerminateDebuggee`, `supportsSetVariable`, `supportsSetExpression`,
//!   `supportsLogPoints`, `supportsExceptionInfoRequest`.
//!
//! TypeScript without configuration: when the program is a `.ts`/`.mts`/`.cts` file and
//! `adapter_args` name no `runtimeExecutable` or `runtimeArgs`, the recipe runs it through the
//! project's tsx (`node_modules/tsx` in the program's directory or above) with `runtimeArgs:
//! ["--import", "tsx"]` (the loader's file when the cwd is outside that project); without tsx it
//! runs on plain node (js-debug then runs the compiled output whose source map names the file,
//! if there is one) and the launch result says what to do. To choose yourself, pass
//! `adapter_args: {"runtimeArgs": ["--import", "tsx"]}` (Node ≥ 20.6 / 18.19), or
//! `{"runtimeArgs": ["--experimental-strip-types"]}` on Node 22.6 to 23.5.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{
    AttachEndpoint, ChildSessions, DebuggeeSignal, ExpressionOnly, FailureShape, Host, PortDiscovery, Quirks, Recipe,
    ResolveInput, RuntimeQuirks, Transport,
};
use crate::dap::command::AdapterCommand;

#[path = "jsdebug_find.rs"]
pub mod find;

pub use find::{find_node, find_server, server_version, Server, Source};

/// agentdap's name for the adapter.
pub const NAME: &str = "node";

/// The VS Code debug `type` (js-debug's Node.js type).
pub const VSCODE_TYPE: &str = "pwa-node";

/// The js-debug version the quirks below were checked against.
pub const CHECKED_VERSION: &str = "1.112.0";

/// Overrides discovery: the server script, or a directory holding it.
pub const ENV_OVERRIDE: &str = "AGENTDAP_JS_DEBUG";

/// The standalone server inside a js-debug directory (the release tarball's `js-debug/`).
pub const SERVER_SCRIPT: &str = "src/dapDebugServer.js";

/// Where js-debug's releases are.
pub const RELEASES: &str = "https://github.com/microsoft/vscode-js-debug/releases";

/// [`install_command`] for the default data directory (`doctor` and `install` without a host
/// view; kept equal to it by `jsdebug::tests`).
pub const INSTALL: &str = "mkdir -p ~/.local/share/agentdap && curl -fsSL \
https://github.com/microsoft/vscode-js-debug/releases/download/v1.112.0/js-debug-dap-v1.112.0.tar.gz \
| tar -xz -C ~/.local/share/agentdap";

/// The package command shown when `node` is missing (Debian/Ubuntu).
pub const NODE_INSTALL: &str = "apt-get install nodejs";

/// What js-debug 1.112.0's server prints once it listens, before `<host>:<port>`: it prints the
/// address the kernel gave it (`server.address()` in `src/dapDebugServer.ts`), so port 0 is
/// race-free. With a port agentdap chose and freed (`tcp::choose_port`), another process could
/// take it first: js-debug then exits with `EADDRINUSE` and the connect reaches the stranger (a
/// CI run's `initialize` met a server that closed the connection).
pub const LISTENING_PREFIX: &str = "Debug server listening at ";

/// Node's inspector port when a command line names none (`node --inspect`, or after `SIGUSR1`).
pub const INSPECTOR_PORT: u16 = 9229;

/// The release asset for [`CHECKED_VERSION`]: the standalone DAP server, unpacked as `js-debug/`.
pub fn release_asset() -> String {
    format!("js-debug-dap-v{CHECKED_VERSION}.tar.gz")
}

/// The asset's download address.
pub fn release_url() -> String {
    format!("{RELEASES}/download/v{CHECKED_VERSION}/{}", release_asset())
}

/// The shell command that puts js-debug where agentdap looks (`<data>/js-debug`, from the
/// release tarball; `~/.local/share/agentdap` when the data dir is unknown).
pub fn install_command(host: &dyn Host) -> String {
    let data = find::data_dir(host)
        .map_or_else(|| "~/.local/share/agentdap".to_owned(), |d| super::shell_quote(&d.to_string_lossy()));
    format!("mkdir -p {data} && curl -fsSL {} | tar -xz -C {data}", release_url())
}

/// js-debug's quirks in the shape every recipe shares, checked against [`CHECKED_VERSION`].
pub fn quirks() -> Quirks {
    Quirks {
        // 1.112.0, the child connection: `initialized` follows its `launch`/`attach` (and comes
        // again after the response). The parent sends `initialized` right after `initialize`.
        initialized_after_launch: true,
        // 1.112.0: the child answers `launch` after `configurationDone`.
        launch_response_after_configuration_done: true,
        // 1.112.0 offers `all` (caught) and `uncaught`, both `default: false`: agents' names.
        exception_filters: &["all", "uncaught"],
        // 1.112.0 does not advertise supportsVariablePaging.
        variable_paging: false,
        // 1.112.0: a breakpoint on a blank line is verified on the next statement.
        moves_unbindable_breakpoints: true,
        // 1.112.0: the program is a `startDebugging` child on a new connection to the server.
        child_sessions: ChildSessions::StartDebuggingSameServer,
        // 1.112.0: scopes `Block`, `Local: <fn>`, `Closure (<fn>)`, …, `Global` (expensive); the
        // ones before `Global` are what a reader of the code sees.
        context_scopes: &["Local", "Closure", "Block"],
        // 1.112.0: `exceptionInfo {exceptionId: "Error: bad n 2", details: {stackTrace}}`.
        exception_id_has_message: true,
        // 1.112.0: scope references hold the values of the stop (see the module comment).
        variables_are_snapshots: true,
        // 1.112.0: `attach {address, port}` reaches Node's inspector; a pid gets SIGUSR1 first.
        attach_endpoint: AttachEndpoint::DebuggeeEndpoint {
            host_key: "address",
            port_key: "port",
            pid_signal: Some(DebuggeeSignal::Usr1),
            default_port: INSPECTOR_PORT,
            endpoint_flags: &["--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port", "--debug-port"],
            port_only_flags: &["--inspect-port", "--debug-port"],
        },
        ..Quirks::STANDARD
    }
}

/// js-debug's quirks about entry, exit, output and processes (see the module comment).
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // 1.112.0: the server outlives every DAP connection.
        exits_after_disconnect: false,
        // 1.112.0: `watch` gives one-line errors (`repl` appends a stack).
        evaluate_context: "watch",
        mirror_evaluate: MIRROR_EVALUATE,
        failure_shapes: &[FailureShape::NodeUncaught],
        // Node 20 prints these on the program's stderr around a debugger's attach and detach.
        inspector_notices: &[
            "Debugger attached.",
            "Waiting for the debugger to disconnect...",
            "Debugger listening on ws://",
            "Debugger ending on ws://",
            "For help, see: https://nodejs.org/en/docs/inspector",
        ],
        // 1.112.0: `stopOnEntry` is a breakpoint on line 1 it never removes.
        entry_stop_repeats: true,
        // 1.112.0: V8 puts that breakpoint at the file's first breakable position, which is
        // inside a function when the file starts with one.
        entry_is_first_breakable: true,
        // 1.112.0: a pause in Node's internals steps on to the program's code, reported as `step`.
        pause_stops_as_step: true,
        // 1.112.0: a condition that throws prints this on the program's stderr, once per pass.
        adapter_stderr_prefixes: &["Breakpoint condition error: "],
        // 1.112.0 reports no exit status: the program runs through `runInTerminal`, on pipes.
        program_on_pipes: true,
        // 1.112.0 prints `Debug server listening at 127.0.0.1:<port>` on its stdout.
        listening_line: Some(LISTENING_PREFIX),
        // 1.112.0 answers `format: {hex: true}` with bare hex digits (`20` → `"14"`).
        hex_without_prefix: true,
        ..RuntimeQuirks::STANDARD
    }
}

/// Message keys js-debug 1.112.0's standalone server sends untranslated (its `l10n` has no
/// strings loaded): seen in its `setBreakpoints` answers, with what they mean.
pub const MESSAGE_KEYS: &[(&str, &str)] =
    &[("breakpoint.provisionalBreakpoint", "not bound yet: js-debug binds it when code at that line is loaded")];

/// How a mirror client's `evaluate` stays an expression, read in js-debug 1.112's
/// `src/adapter/threads.ts` (`evaluate`, `_evaluteJs`) and `debugAdapter.ts` (`onEvaluate`): every
/// context evaluates the text as JavaScript (which may call functions, as any expression can);
/// `repl` also rewrites it (object literals, top-level `await`) and takes `cd <context>` as a
/// command, and `.scripts`, in every context, opens the diagnostic tool.
pub const MIRROR_EVALUATE: ExpressionOnly = ExpressionOnly {
    contexts: &["watch", "hover", "clipboard", "variables"],
    command_words: &[],
    command_prefixes: &[".scripts"],
    refused_anywhere: &[],
};

/// Whether `path` is a TypeScript file (`.ts`, `.mts`, `.cts`).
pub fn is_typescript(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "ts" | "mts" | "cts"))
}

/// Directories above a program examined for `package.json` and `node_modules/tsx`.
const ANCESTOR_CAP: usize = 64;

/// Bytes of tsx's `package.json` read to find its loader.
const PACKAGE_JSON_CAP: usize = 64 * 1024;

/// The program's project: the nearest directory above it holding a `package.json` (never `/`
/// or `$HOME` itself, whose trees are too big to search), else the program's directory. The
/// program's default cwd, and one of the [`search_roots`].
pub fn project_root(program: &Path, host: &dyn Host) -> Option<PathBuf> {
    let dir = program.parent()?;
    let home = host.var("HOME").map(PathBuf::from);
    let project = dir
        .ancestors()
        .take(ANCESTOR_CAP)
        .take_while(|d| d.parent().is_some() && Some(*d) != home.as_deref())
        .find(|d| host.is_file(&d.join("package.json")));
    Some(project.unwrap_or(dir).to_path_buf())
}

/// Where js-debug searches for compiled output and lets source maps apply: the launch `cwd`
/// (absolute) and the program's [`project_root`], the outer one only when one holds the other,
/// the cwd first. With a cwd outside the project the project must stay: a source map is used
/// only for a script under these roots, and tsx's compiled script is the `.ts` file itself.
pub fn search_roots(program: Option<&Path>, cwd: Option<&Path>, host: &dyn Host) -> Vec<PathBuf> {
    let cwd = cwd.and_then(|c| if c.is_absolute() { Some(c.to_path_buf()) } else { Some(host.cwd()?.join(c)) });
    let project = program.and_then(|p| project_root(p, host));
    match (cwd, project) {
        (Some(c), Some(p)) if p.starts_with(&c) => vec![c],
        (Some(c), Some(p)) if c.starts_with(&p) => vec![p],
        (c, p) => c.into_iter().chain(p).collect(),
    }
}

/// How a TypeScript program is run when the agent did not say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TsRuntime {
    /// `runtimeArgs: ["--import", "tsx"]`: tsx is in `node_modules` of this directory (at or above
    /// the cwd, so Node resolves it).
    ImportTsx(PathBuf),
    /// `runtimeArgs: ["--import", <file>]`: tsx's loader, by path (the cwd is outside the
    /// project holding tsx, where `tsx` would not resolve).
    ImportFile(PathBuf),
    /// No tsx found: plain node.
    Missing,
}

/// The runtime for the TypeScript `program` run in `cwd`: the nearest `node_modules/tsx` in the
/// program's directory or above (reads tsx's `package.json`, ≤ 64 KiB, only when its loader must
/// be named by path).
pub fn ts_runtime(program: &Path, cwd: Option<&Path>, host: &dyn Host) -> TsRuntime {
    let Some(dir) = program.parent() else { return TsRuntime::Missing };
    let Some(project) =
        dir.ancestors().take(ANCESTOR_CAP).find(|d| host.is_file(&d.join("node_modules/tsx/package.json")))
    else {
        return TsRuntime::Missing;
    };
    // Node resolves `--import tsx` from the cwd, looking in `node_modules` there and above.
    let resolvable = match cwd {
        None => true,
        Some(c) => c.starts_with(project),
    };
    if resolvable {
        return TsRuntime::ImportTsx(project.to_path_buf());
    }
    match tsx_loader(&project.join("node_modules/tsx"), host) {
        Some(file) => TsRuntime::ImportFile(file),
        None => TsRuntime::ImportTsx(project.to_path_buf()),
    }
}

/// The file tsx's `package.json` exports as `.` (tsx 4: `./dist/loader.mjs`), if it is there.
fn tsx_loader(package: &Path, host: &dyn Host) -> Option<PathBuf> {
    let text = host.read_range(&package.join("package.json"), 0, PACKAGE_JSON_CAP)?;
    let manifest: Value = serde_json::from_slice(&text).ok()?;
    let dot = manifest.get("exports")?.get(".")?;
    let rel = dot.as_str().or_else(|| ["import", "default"].iter().find_map(|k| dot.get(k)?.as_str()))?;
    let file = package.join(rel.trim_start_matches("./"));
    (!rel.contains("..") && host.is_file(&file)).then_some(file)
}

/// The launch arguments for `runtime`, and what the agent is told about it.
fn runtime_arguments(program: &Path, roots: &[PathBuf], runtime: &TsRuntime) -> (Option<Value>, String) {
    let name = program.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match runtime {
        TsRuntime::ImportTsx(project) => (
            Some(json!(["--import", "tsx"])),
            format!(
                "{name} runs through the project's tsx ({}/node_modules/tsx): runtimeArgs [\"--import\", \"tsx\"]; \
                 adapter_args runtimeArgs or runtimeExecutable choose another runtime",
                project.display()
            ),
        ),
        TsRuntime::ImportFile(file) => (
            Some(json!(["--import", file.to_string_lossy()])),
            format!("{name} runs through the project's tsx (runtimeArgs [\"--import\", \"{}\"])", file.display()),
        ),
        TsRuntime::Missing => (
            None,
            format!(
                "{name} is TypeScript and no tsx was found in node_modules of its directory or above, so plain node runs \
                 it: js-debug runs the compiled JavaScript instead when a source map under {} names it (tsc --sourceMap), \
                 and Node runs .ts itself from 23.6 (22.6: adapter_args {{\"runtimeArgs\": [\"--experimental-strip-types\"]}}); \
                 otherwise `npm install --save-dev tsx` in the project, or pass adapter_args {{\"runtimeArgs\": [\"--import\", \"tsx\"]}}",
                roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(" or ")
            ),
        ),
    }
}

/// DAP `launch` arguments agentdap sends unless the agent's `adapter_args` override them;
/// `program`, `args`, `cwd`, `env`, `stopOnEntry` are set by the session from the tool call.
///
/// `integratedTerminal`: js-debug asks agentdap (`runInTerminal`) to run the program, so agentdap
/// has its exact stdout and stderr, its exit status and its stdin. `cwd`: the program's project
/// when the agent gives none ([`project_root`]). `roots` ([`search_roots`]): where compiled output
/// and source maps are searched (absolute globs, `node_modules` excluded); the first is js-debug's
/// `__workspaceFolder`, without which it ignores `outFiles`. `runtime_args`: the TypeScript
/// runtime ([`ts_runtime`]).
pub fn launch_defaults(cwd: Option<&Path>, roots: &[PathBuf], runtime_args: Option<Value>) -> Value {
    let mut v = json!({
        "type": VSCODE_TYPE,
        "request": "launch",
        "console": "integratedTerminal",
        "outputCapture": "std",
        "sourceMaps": true,
        "skipFiles": ["<node_internals>/**"],
    });
    if let Some(cwd) = cwd {
        v["cwd"] = cwd.to_string_lossy().into_owned().into();
    }
    let globs = |tail: &str| -> Vec<Value> {
        let mut g: Vec<Value> =
            roots.iter().map(|r| format!("{}/{tail}", r.to_string_lossy().trim_end_matches('/')).into()).collect();
        g.push("!**/node_modules/**".into());
        g
    };
    if let Some(first) = roots.first() {
        v["__workspaceFolder"] = first.to_string_lossy().into_owned().into();
        v["outFiles"] = globs("**/*.(m|c|)js").into();
        v["resolveSourceMapLocations"] = globs("**").into();
    }
    if let Some(args) = runtime_args {
        v["runtimeArgs"] = args;
    }
    v
}

/// DAP `launch` arguments for agentdap's `console: terminal`: the same as the defaults (js-debug
/// always runs the program through `runInTerminal`).
pub fn terminal_arguments() -> Value {
    json!({"console": "integratedTerminal"})
}

/// DAP `attach` arguments agentdap sends unless the agent's `adapter_args` override them; the
/// inspector's `address` and `port` come from the `attach` call.
pub fn attach_defaults() -> Value {
    json!({
        "type": VSCODE_TYPE,
        "request": "attach",
        "sourceMaps": true,
        "skipFiles": ["<node_internals>/**"],
    })
}

/// The full recipe: `node <server> 0 127.0.0.1`, the port the kernel gives js-debug, read off
/// its [`LISTENING_PREFIX`] line. `program` (absolute) decides the project and, for TypeScript, the
/// runtime (unless `adapter_args` name `runtimeExecutable` or `runtimeArgs`). Errors:
/// [`AdapterError::NotFound`](super::AdapterError::NotFound) (no js-debug: where agentdap looked
/// and the download; no node: the package command).
pub fn recipe(program: Option<&Path>, input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, super::AdapterError> {
    let server = find_server(host, input.js_debug)?;
    let node = find_node(host)?;
    let roots = search_roots(program, input.cwd, host);
    let project = program.and_then(|p| project_root(p, host));
    let cwd = match input.cwd {
        Some(c) if c.is_relative() => host.cwd().map(|d| d.join(c)),
        Some(c) => Some(c.to_path_buf()),
        None => project.clone(),
    };
    let chosen = |key: &str| input.adapter_args.and_then(|a| a.get(key)).is_some();
    let mut notes = Vec::new();
    let mut runtime_args = None;
    if let Some(p) = program.filter(|p| is_typescript(p) && !chosen("runtimeExecutable") && !chosen("runtimeArgs")) {
        let (args, note) = runtime_arguments(p, &roots, &ts_runtime(p, cwd.as_deref(), host));
        runtime_args = args;
        notes.push(note);
    }
    let command = AdapterCommand {
        program: node.into_os_string(),
        args: vec![server.script.into_os_string(), "0".into(), "127.0.0.1".into()],
        // Never the project's directory: nothing of it is the adapter's business.
        cwd: Some(PathBuf::from("/")),
        env: Vec::new(),
    };
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command,
        transport: Transport::Tcp { port: PortDiscovery::AnnouncedLine { prefix: LISTENING_PREFIX } },
        launch_defaults: launch_defaults(project.as_deref(), &roots, runtime_args),
        attach_defaults: attach_defaults(),
        quirks: quirks(),
        install_command: install_command(host),
        notes,
    })
}

#[cfg(test)]
#[path = "jsdebug_tests.rs"]
mod tests;
