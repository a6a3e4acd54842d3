//! The rdbg recipe (`adapter: "rdbg"`; Ruby through the `debug` gem): `ruby <rdbg> --open --port <p> --host 127.0.0.1 -- <program> <args>` over TCP, finding rdbg and a `ruby` (`$AGENTDAP_RDBG`, `PATH`, the gem directories), and rdbg's quirks as data; only `stat`s and directory listings, never runs anything.
//!
//! Observed with a raw DAP client against debug 1.4.0 (Debian 12's `ruby` 3.1.2, whose gem
//! directory holds `debug-1.4.0/exe/rdbg`, not on `PATH`):
//!
//! - rdbg is not a separate adapter: it sets `RUBYOPT=-r <gem>/lib/debug/open` and `exec`s
//!   `ruby <program> <args>`, so the process agentdap starts *is* the debuggee, with the DAP
//!   server in a thread of it (same pid). It prints `DEBUGGER: Debugger can attach via TCP/IP
//!   (127.0.0.1:<port>)` and, once the script is loaded, `DEBUGGER: wait for debugger
//!   connection...` on its stderr, then waits at a one-shot breakpoint on the script's first
//!   line until a client connects (~0.5 s after the start). Without `--nonstop` nothing of the
//!   program runs before `configurationDone`.
//! - Start-up: `initialize` is answered and `initialized` follows at once; `launch` and `attach`
//!   are answered at once and their arguments ignored (`stopOnEntry` too). `configurationDone`
//!   after `launch` continues the program; after `attach` it stays stopped and sends `stopped
//!   {reason: "pause"}` on `<main>` line 1, which is how agentdap stops on entry
//!   ([`Quirks::stop_on_entry_request`]). `attach` also sends the process `SIGURG`, which
//!   pauses a program that runs (an `rdbg --open` attached later).
//! - Capabilities: `supportsConfigurationDoneRequest`, `supportsFunctionBreakpoints` (but
//!   `setFunctionBreakpoints` is answered with no body and sets nothing), conditional
//!   breakpoints, `supportTerminateDebuggee`, `supportsTerminateRequest`, step back, hover
//!   evaluation, completions; exception filters `any` ("rescue any exception") and
//!   `RuntimeError` (`default: true`), which stop at the `raise` whether rescued or not. No
//!   `setVariable`, no `exceptionInfo`, no log points, no `uncaught` filter.
//! - A request it does not know (`exceptionInfo`, `setVariable`, …) raises `Unknown request` in
//!   its reader thread: the connection closes and the program is killed (exit status 1).
//!   agentdap sends only what the capabilities list; a `dap_request` of another command ends
//!   the run.
//! - `setBreakpoints` only adds: each line is given to `add_line_breakpoint` and none is
//!   deleted, so a line once set stops until the program ends, and a line set again keeps its
//!   first condition (the second is a disabled duplicate) ([`Quirks::breakpoints_only_added`]).
//! - The program's stdin is the process's own: with DAP on TCP, agentdap's pipe to it is free for
//!   `send_input`.
//! - Breakpoints are answered `verified: true` whatever the line. Stops: `stopped {reason:
//!   "breakpoint", description: " BP - Line  <path>:<line> (call)"}`; steps answer, then `stopped
//!   {reason: "step"}`; `stepOut` stops on the method's `end` line first (its return event), the
//!   next step lands in the caller. One thread, id 1, named `#1 prog.rb:16:in `<main>'`. Frame
//!   ids and variable references keep counting up across stops (never reused).
//! - Scopes: `Local variables` (first, with `%self` and the locals) and `Global variables`
//!   (every value `"Not implemented yet..."`). `variables` pages only with `filter: indexed`.
//! - Evaluate: `repl` and `watch` both evaluate Ruby in the frame (any expression, assignments
//!   and method calls included); an error is a successful answer whose result is the exception
//!   (`#<NameError: undefined local variable or method `nosuch' for main:Object>`); `hover` reads
//!   names only; no `frameId` fails with `can't evaluate`. 1.4.0 runs no debugger commands in
//!   `repl` (later releases run `,<command>` there).
//! - Output: the program's stdout and stderr are the process's own pipes, never `output`
//!   events; rdbg's own lines on stderr start with `DEBUGGER: ` (`Connected.`, `Disconnected.`).
//!   Ruby buffers `$stdout` on a pipe until a flush or the exit.
//! - Exit: no `exited`, no `terminated`: the connection closes when the program ends, and the
//!   process's exit status is the program's (`exit 3` → 3; [`ExitReport::AdapterExitStatus`]).
//!   `disconnect {terminateDebuggee: false}` lets the program run on to its end;
//!   `terminateDebuggee: true` and `terminate` kill it (status 1).
//! - Rarely (2 of ~20 connects) 1.4.0 writes its console listing and prompt (`out [1, 10] in
//!   prog.rb …`, `input <pid>`) on the socket before the first DAP frame, when the client
//!   connects just as the script reaches its first line: agentdap's decoder skips to the next
//!   `Content-Length` header and the session goes on.
//! - A client that connects as soon as the port opens may be refused: the reader thread takes it
//!   before the session exists (`ReaderThreadError: uninitialized constant
//!   DEBUGGER__::ThreadClient::SESSION`) and closes it. agentdap connects once rdbg printed
//!   [`READY_LINE`] ([`PortDiscovery::ChosenAfterLine`]).
//! - After a client's `disconnect` the program cannot run on: at its next debugger event rdbg
//!   writes to the closed connection and dies of a `NoMethodError` (`@sock.write` on nil in
//!   `send_event`, exit status 1), so detaching from an attached program ends it soon after.
//!
//! Newer releases (1.5 on) add `exited`/`terminated`, `stopOnEntry`/`nonstop` launch options,
//! `setVariable` and debugger commands in the debug console; this recipe was checked on 1.4.0
//! only.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{
    find_on_path, AdapterError, DebuggeeOutput, ExitReport, ExpressionOnly, FailureShape, Host, PortDiscovery, Quirks,
    Recipe, ResolveInput, RuntimeQuirks, Transport, PORT_ARG,
};
use crate::dap::command::AdapterCommand;

/// agentdap's name for the adapter.
pub const NAME: &str = "rdbg";

/// The VS Code debug `type` (the KoichiSasada.vscode-rdbg extension).
pub const VSCODE_TYPE: &str = "rdbg";

/// The debug gem version the quirks below were checked against.
pub const CHECKED_VERSION: &str = "1.4.0";

/// The install command shown when no rdbg or no `ruby` is found (Debian/Ubuntu: Ruby 3.1+
/// bundles the debug gem; elsewhere `gem install debug`).
pub const INSTALL: &str = "apt-get install ruby (or: gem install debug)";

/// Overrides discovery: the rdbg script or executable.
pub const ENV_OVERRIDE: &str = "AGENTDAP_RDBG";

/// What rdbg prints at the start of each of its own stderr lines.
pub const STDERR_PREFIX: &str = "DEBUGGER: ";

/// What rdbg prints at the start of its own stderr lines in a forked child (1.4.0:
/// `DEBUGGER[<program>#<pid>]: Connected.`).
pub const CHILD_STDERR_PREFIX: &str = "DEBUGGER[";

/// What rdbg prints on stderr once its session can take a client (1.4.0: earlier connections
/// may fail).
pub const READY_LINE: &str = "DEBUGGER: wait for debugger connection...";

/// Every request debug 1.4.0's DAP server dispatches (`lib/debug/server_dap.rb`); any other
/// kills the program ([`Quirks::only_requests`]).
pub const ONLY_REQUESTS: &[&str] = &[
    "initialize",
    "launch",
    "attach",
    "setBreakpoints",
    "setFunctionBreakpoints",
    "setExceptionBreakpoints",
    "configurationDone",
    "disconnect",
    "continue",
    "next",
    "stepIn",
    "stepOut",
    "terminate",
    "pause",
    "reverseContinue",
    "stepBack",
    "threads",
    "stackTrace",
    "scopes",
    "variables",
    "evaluate",
    "source",
    "completions",
];

/// Directory entries examined per gem directory level.
const LIST_CAP: usize = 512;

/// How rdbg was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `$AGENTDAP_RDBG`.
    Env,
    /// `rdbg` on `PATH` (where `gem install debug` puts its wrapper).
    Path,
    /// `<gem dir>/gems/debug-<version>/exe/rdbg` (Ruby's bundled gem, or a user install).
    GemDir,
}

impl Rule {
    /// How `doctor` names the rule.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Env => "from $AGENTDAP_RDBG",
            Rule::Path => "rdbg on PATH",
            Rule::GemDir => "the debug gem's exe/rdbg in a gem directory",
        }
    }
}

/// An rdbg agentdap can run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The rdbg script (or executable).
    pub rdbg: PathBuf,
    /// The `ruby` that runs it; `None` when `$AGENTDAP_RDBG` names an executable run as is.
    pub ruby: Option<PathBuf>,
    /// Which rule found it.
    pub rule: Rule,
    /// The gem version from the path (`debug-1.4.0` → `1.4.0`), when the path shows it.
    pub version: Option<String>,
}

impl Found {
    /// The program and the arguments before rdbg's own.
    fn command(&self) -> AdapterCommand {
        match &self.ruby {
            Some(ruby) => AdapterCommand {
                program: ruby.clone().into_os_string(),
                args: vec![self.rdbg.clone().into_os_string()],
                ..AdapterCommand::default()
            },
            None => AdapterCommand::new(self.rdbg.clone().into_os_string()),
        }
    }
}

/// rdbg's quirks in the shape every recipe shares, checked against [`CHECKED_VERSION`].
pub fn quirks() -> Quirks {
    Quirks {
        // 1.4.0: `any` rescues every exception; there is no `uncaught` filter.
        exception_filters: &["any", "RuntimeError"],
        exception_filter_aliases: &[("all", "any"), ("raised", "any")],
        // Ruby: `arr.pop`, `arr.sort!`, `h.delete :k` call methods (a breaker's finding: what
        // they wrote read as the program's change).
        calls_without_parentheses: true,
        // 1.4.0: `setBreakpoints` answers `{verified: true}` alone (no id, no line) and a stop
        // sends `description: " BP - Line  <path>:<line> (line)"` (`server_dap.rb` `event
        // :suspend_bp`; `breakpoint.rb` `LineBreakpoint#to_s`, the line it moved to): a fresh
        // user's hits read "never hit".
        breakpoint_in_stop_description: Some((" BP - Line  ", " (")),
        // 1.4.0: `variables` honours start/count only with `filter: indexed`.
        variable_paging: false,
        // The program writes to the process's pipes, its stops come over TCP: no order.
        launch_output_apart_from_stops: true,
        // 1.4.0 ignores `stopOnEntry`; `attach` keeps the program at its first line.
        stop_on_entry_request: Some("attach"),
        // 1.4.0's `server_dap.rb` dispatches these and raises `Unknown request` on any other.
        only_requests: ONLY_REQUESTS,
        breakpoints_only_added: true,
        detached_program_fate: Some(
            "debug 1.4.0 does not survive a client leaving: the program dies (exit status 1) at its next debugger event, \
             at once or later, at a breakpoint, a pause or another client's attach (ruby/debug#622, fixed in later releases)",
        ),
        ..Quirks::STANDARD
    }
}

/// rdbg's quirks about entry, exit, output and processes (see the module comment).
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // 1.4.0: the entry stop of an `attach` is a pause.
        adapter_entry_reasons: &["pause"],
        // 1.4.0: the program's stdout/stderr are the process's own.
        debuggee_output: DebuggeeOutput::AdapterPipes,
        // 1.4.0: no `exited`/`terminated`; the process is the program.
        exit_report: ExitReport::AdapterExitStatus,
        // 1.4.0: `repl` and `watch` evaluate alike; `watch` stays an expression in later
        // releases, whose `repl` runs `,<command>` as a debugger command.
        evaluate_context: "watch",
        mirror_evaluate: MIRROR_EVALUATE,
        // 1.4.0: rdbg's own stderr lines (`DEBUGGER: Connected.`).
        adapter_stderr_prefixes: &[STDERR_PREFIX, CHILD_STDERR_PREFIX],
        program_on_command_line: true,
        // 1.4.0's `ThreadClient` `:evaluate`: a frame without a binding answers this text as
        // the result, and `repl`/`watch` answer a raised exception as the value.
        evaluate_refusals: &["Error: Can not evaluate on this frame"],
        evaluate_raises_as_value: true,
        failure_shapes: &[FailureShape::RubyUncaught],
        ..RuntimeQuirks::STANDARD
    }
}

/// How a mirror client's `evaluate` stays an expression (1.4.0's `server_dap.rb`, `evaluate`):
/// `watch` and `hover` never run debugger commands; a `,` starts one in the `repl` of later
/// releases, so it is refused in any context.
pub const MIRROR_EVALUATE: ExpressionOnly = ExpressionOnly {
    contexts: &["watch", "hover"],
    command_words: &[],
    command_prefixes: &[","],
    refused_anywhere: &[],
};

/// The gem version in a path's `debug-<version>` component, if any.
pub fn version_in_path(path: &Path) -> Option<String> {
    path.components().rev().find_map(|c| {
        let name = c.as_os_str().to_str()?;
        let v = name.strip_prefix("debug-")?;
        v.chars().next().filter(char::is_ascii_digit).map(|_| v.to_owned())
    })
}

/// A version's numeric parts for ordering (`1.10.0` after `1.9.2`).
fn version_key(v: &str) -> Vec<u64> {
    v.split(['.', '-']).map(|p| p.parse().unwrap_or(0)).collect()
}

/// Gem directories (each holding `gems/`) where Ruby installs or bundles the debug gem, with the
/// `ruby` next to them when there is one: `$GEM_HOME`, Debian's `/usr/lib/ruby/gems/*` and
/// `/var/lib/gems/*`, `/usr/local/lib/ruby/gems/*`, `~/.gem/ruby/*`,
/// `~/.local/share/gem/ruby/*`, and rbenv's, rvm's and asdf's rubies.
fn gem_dirs(host: &dyn Host) -> Vec<(PathBuf, Option<PathBuf>)> {
    let children = |dir: &Path| -> Vec<PathBuf> {
        let mut names = host.list_dir(dir, LIST_CAP);
        names.sort();
        names.into_iter().map(|n| dir.join(n)).collect()
    };
    let mut out: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    if let Some(home) = host.var("GEM_HOME").filter(|v| !v.is_empty()) {
        out.push((PathBuf::from(home), None));
    }
    for (root, bin) in [("/usr/lib/ruby/gems", "/usr/bin/ruby"), ("/usr/local/lib/ruby/gems", "/usr/local/bin/ruby")] {
        out.extend(children(Path::new(root)).into_iter().map(|d| (d, Some(PathBuf::from(bin)))));
    }
    out.extend(children(Path::new("/var/lib/gems")).into_iter().map(|d| (d, Some(PathBuf::from("/usr/bin/ruby")))));
    let Some(home) = host.var("HOME").filter(|v| !v.is_empty()).map(PathBuf::from) else { return out };
    for user in [".gem/ruby", ".local/share/gem/ruby"] {
        out.extend(children(&home.join(user)).into_iter().map(|d| (d, None)));
    }
    // A version manager's ruby: `<prefix>/bin/ruby` beside `<prefix>/lib/ruby/gems/<abi>`.
    for versions in [".rbenv/versions", ".asdf/installs/ruby", ".rubies"] {
        for prefix in children(&home.join(versions)) {
            let ruby = prefix.join("bin/ruby");
            out.extend(children(&prefix.join("lib/ruby/gems")).into_iter().map(|d| (d, Some(ruby.clone()))));
        }
    }
    // rvm keeps gems apart from its rubies: `~/.rvm/gems/ruby-3.2.2` ↔ `~/.rvm/rubies/ruby-3.2.2`.
    for gems in children(&home.join(".rvm/gems")) {
        let ruby = gems.file_name().map(|n| home.join(".rvm/rubies").join(n).join("bin/ruby"));
        out.push((gems, ruby));
    }
    out
}

/// The `ruby` to run rdbg with: the one beside its gem directory when it is there, else `ruby`
/// on `PATH`.
fn ruby_for(beside: Option<&Path>, host: &dyn Host) -> Option<PathBuf> {
    beside.filter(|r| host.is_executable(r)).map(Path::to_path_buf).or_else(|| find_on_path("ruby", host))
}

fn not_found(detail: String) -> AdapterError {
    AdapterError::NotFound { adapter: NAME, detail, install: INSTALL.to_string() }
}

/// Finds rdbg and the `ruby` to run it: `$AGENTDAP_RDBG` (an executable runs as is, a script
/// with `ruby`), `rdbg` on `PATH`, then `<gem dir>/gems/debug-*/exe/rdbg` in the directories of
/// [`gem_dirs`], the newest debug version first. Errors: [`AdapterError::NotFound`] with
/// [`INSTALL`] (no rdbg, or no `ruby` to run it).
pub fn find(host: &dyn Host) -> Result<Found, AdapterError> {
    let no_ruby = |rdbg: &Path| not_found(format!("found {} but no `ruby` on PATH to run it", rdbg.display()));
    if let Some(explicit) = host.var(ENV_OVERRIDE).filter(|v| !v.is_empty()) {
        let rdbg = PathBuf::from(&explicit);
        let version = version_in_path(&rdbg);
        if host.is_executable(&rdbg) {
            return Ok(Found { rdbg, ruby: None, rule: Rule::Env, version });
        }
        if !host.is_file(&rdbg) {
            return Err(not_found(format!("{ENV_OVERRIDE} = {:?} is not a file", rdbg.display().to_string())));
        }
        let ruby = ruby_for(None, host).ok_or_else(|| no_ruby(&rdbg))?;
        return Ok(Found { rdbg, ruby: Some(ruby), rule: Rule::Env, version });
    }
    if let Some(rdbg) = find_on_path("rdbg", host) {
        let ruby = ruby_for(None, host).ok_or_else(|| no_ruby(&rdbg))?;
        let version = version_in_path(&rdbg);
        return Ok(Found { rdbg, ruby: Some(ruby), rule: Rule::Path, version });
    }
    let mut candidates: Vec<(Vec<u64>, PathBuf, Option<PathBuf>)> = Vec::new();
    for (dir, ruby) in gem_dirs(host) {
        let gems = dir.join("gems");
        for name in host.list_dir(&gems, LIST_CAP) {
            let Some(version) = name.to_str().and_then(|n| n.strip_prefix("debug-")) else { continue };
            let rdbg = gems.join(&name).join("exe/rdbg");
            if host.is_file(&rdbg) {
                candidates.push((version_key(version), rdbg, ruby.clone()));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0));
    let Some((_, rdbg, beside)) = candidates.into_iter().next() else {
        return Err(not_found(
            "no rdbg found ($AGENTDAP_RDBG, rdbg on PATH, or the debug gem in Ruby's gem directories)".to_string(),
        ));
    };
    let ruby = ruby_for(beside.as_deref(), host).ok_or_else(|| no_ruby(&rdbg))?;
    let version = version_in_path(&rdbg);
    Ok(Found { rdbg, ruby: Some(ruby), rule: Rule::GemDir, version })
}

/// DAP `launch` arguments (1.4.0 reads none of them; the program is on rdbg's command line).
pub fn launch_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "launch"})
}

/// DAP `attach` arguments (to an `rdbg --open --port` that already listens).
pub fn attach_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "attach"})
}

/// The full recipe: `ruby <rdbg> --open --port {port} --host 127.0.0.1 --`, to which the session
/// appends the program and its arguments ([`RuntimeQuirks::program_on_command_line`]); ready
/// once a connect to the chosen port succeeds. Errors: [`AdapterError::NotFound`] with
/// [`INSTALL`].
pub fn recipe(_program: Option<&Path>, _input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    let found = find(host)?;
    let mut command = found.command();
    command.args.extend(["--open", "--port", PORT_ARG, "--host", "127.0.0.1", "--"].into_iter().map(OsString::from));
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command,
        transport: Transport::Tcp { port: PortDiscovery::ChosenAfterLine { line: READY_LINE } },
        launch_defaults: launch_defaults(),
        attach_defaults: attach_defaults(),
        quirks: quirks(),
        install_command: INSTALL.to_string(),
        notes: found
            .version
            .as_deref()
            .filter(|v| *v != CHECKED_VERSION)
            .map(|v| {
                format!(
                    "rdbg: debug {v} is driven as debug {CHECKED_VERSION}, the version agentdap was checked against"
                )
            })
            .into_iter()
            .collect(),
    })
}

#[cfg(test)]
#[path = "rdbg_tests.rs"]
mod tests;
