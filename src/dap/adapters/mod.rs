//! Adapter recipes: one file per adapter, each producing plain data (command, transport, defaults, quirks), plus adapter selection; no process is started here and nothing blocks beyond `stat` calls and small bounded reads (the ELF probe, rustup's settings).
//!
//! Quirks are data fields, read where the behaviour is handled (session choreography, exception
//! filter mapping, output filtering), never `if adapter == "…"` checks.

pub mod debugpy;
pub mod delve;
pub mod elf;
pub mod lldb;
#[cfg(test)]
pub(crate) mod test_host;

use std::ffi::OsString;
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::command::AdapterCommand;

/// How agentdap talks DAP to an adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// DAP on the adapter's stdin/stdout.
    Stdio,
    /// DAP over TCP to 127.0.0.1 (Delve); the connect is driven by [`crate::dap::tcp`].
    Tcp {
        /// How the port becomes known.
        port: PortDiscovery,
    },
}

/// How a TCP adapter's port is learned; see [`crate::dap::tcp::PortScanner`] and
/// [`crate::dap::tcp::choose_port`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortDiscovery {
    /// The adapter prints a line containing `prefix` followed by `host:port` on stdout or
    /// stderr (Delve: `DAP server listening at: `).
    AnnouncedLine {
        /// The text before `host:port`.
        prefix: &'static str,
    },
    /// agentdap picks the port and passes it on the command line; ready once a connect succeeds.
    Chosen,
}

/// How an adapter opens child sessions (subprocesses, workers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildSessions {
    /// The adapter has none.
    None,
    /// `startDebugging` whose configuration has `connect {host, port}`: agentdap opens a TCP
    /// connection there, even when the parent runs over stdio.
    StartDebuggingConnect,
    /// `startDebugging` answered by a new connection to the same TCP server.
    StartDebuggingSameServer,
}

/// Known deviations of an adapter from the plain DAP start-up and behaviour, as data.
/// [`Quirks::STANDARD`] is what an adapter following the spec to the letter would need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quirks {
    /// `initialized` is sent only after the `launch`/`attach` request arrives.
    pub initialized_after_launch: bool,
    /// The `launch`/`attach` response comes only after `configurationDone`.
    pub launch_response_after_configuration_done: bool,
    /// Filter ids the adapter accepts in `setExceptionBreakpoints` (empty: trust capabilities).
    pub exception_filters: &'static [&'static str],
    /// Filter names agents use mapped to the adapter's ids (`("all", "raised")`).
    pub exception_filter_aliases: &'static [(&'static str, &'static str)],
    /// Filters marked `default: true` stay off until the client sends them.
    pub default_filters_off_until_sent: bool,
    /// With the `uncaught` filter on, a non-zero `sys.exit` stops as an exception.
    pub exit_stops_as_exception: bool,
    /// `variables` honours `start`/`count` (when false agentdap pages itself).
    pub variable_paging: bool,
    /// Breakpoints on unbindable lines are moved and still reported `verified`.
    pub moves_unbindable_breakpoints: bool,
    /// How child sessions arrive.
    pub child_sessions: ChildSessions,
    /// The capability name for `disconnect { terminateDebuggee }` support.
    pub terminate_debuggee_capability: &'static str,
    /// `output` event categories dropped before they reach the session ring.
    pub dropped_output_categories: &'static [&'static str],
    /// Custom events dropped silently.
    pub dropped_events: &'static [&'static str],
    /// `console` output lines starting with these are the adapter's greeting, not the
    /// program's or the session's news: dropped (line by line; the event's other lines are
    /// kept) before they reach the output ring.
    pub console_banner: &'static [&'static str],
    /// A `pause` is reported as an `exception` stop whose words name this signal (it interrupts
    /// the process with it); agentdap reports it as the `pause` it is.
    pub pause_signal: Option<&'static str>,
    /// The launch argument meaning "stop at entry".
    pub stop_on_entry_key: &'static str,
    /// The `attach` argument naming the process to attach to by pid.
    pub attach_pid_key: &'static str,
    /// A `variablesReference` holds the values loaded when it was made: after a change (a
    /// `setVariable`, a function call) `variables` on it answers the old values, so agentdap
    /// reads a change back by evaluating the variable's `evaluateName` and refuses refs from
    /// before it.
    pub variables_are_snapshots: bool,
    /// `evaluate` expressions starting with these run code that may change values (with
    /// [`Quirks::variables_are_snapshots`], refs from before such an evaluation are refused).
    pub mutating_evaluate_prefixes: &'static [&'static str],
    /// A child with an empty `name` (a pointer's target) is shown under its `evaluateName`
    /// without the outer parentheses (`(*p)` → `*p`); `set_variable` takes that name.
    pub unnamed_child_from_evaluate_name: bool,
    /// A launched program's output (internal console) reaches agentdap on another path than
    /// its stops, with no order between them: a stop's result may come before the output
    /// printed just before the stop, so it says that more may follow.
    pub launch_output_apart_from_stops: bool,
    /// `setExpression` on a bare name assigns it in a copy of the frame's locals: a name that is
    /// not a local of the frame (a `global`, a module name read from a function, a builtin, a
    /// new name) gets a shadow entry there that the program never reads, and the adapter's
    /// evaluations read that shadow too. agentdap sets such a name through the frame's
    /// `Globals` scope (`setVariable`) when it is there, and refuses it otherwise.
    pub set_expression_shadows_nonlocals: bool,
    /// `output` events that carry this key are the adapter's own messages (log points), not
    /// the program's prints: they are labelled `logpoint`.
    pub logpoint_output_key: Option<&'static str>,
}

impl Quirks {
    /// A spec-following adapter.
    pub const STANDARD: Quirks = Quirks {
        initialized_after_launch: false,
        launch_response_after_configuration_done: false,
        exception_filters: &[],
        exception_filter_aliases: &[],
        default_filters_off_until_sent: false,
        exit_stops_as_exception: false,
        variable_paging: true,
        moves_unbindable_breakpoints: false,
        child_sessions: ChildSessions::None,
        terminate_debuggee_capability: "supportTerminateDebuggee",
        dropped_output_categories: &["telemetry"],
        dropped_events: &[],
        console_banner: &[],
        pause_signal: None,
        stop_on_entry_key: "stopOnEntry",
        attach_pid_key: "processId",
        variables_are_snapshots: false,
        mutating_evaluate_prefixes: &[],
        unnamed_child_from_evaluate_name: false,
        launch_output_apart_from_stops: false,
        set_expression_shadows_nonlocals: false,
        logpoint_output_key: None,
    };

    /// Maps an agent's exception filter name to the adapter's id (`all` → `raised` for
    /// debugpy); unknown names pass through unchanged for the caller to validate against
    /// [`Quirks::exception_filters`].
    pub fn map_exception_filter<'a>(&self, name: &'a str) -> &'a str {
        self.exception_filter_aliases.iter().find(|(from, _)| *from == name).map_or(name, |(_, to)| to)
    }
}

/// Everything agentdap needs to start and drive one adapter: plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// agentdap's name for the adapter (`debugpy`).
    pub name: &'static str,
    /// The VS Code debug `type` (for the mirror's launch.json snippet).
    pub vscode_type: &'static str,
    /// What to spawn (program, args, env changes, cwd).
    pub command: AdapterCommand,
    /// How DAP flows.
    pub transport: Transport,
    /// Merged under the agent's DAP `launch` arguments (the agent's keys win).
    pub launch_defaults: Value,
    /// Merged under the agent's DAP `attach` arguments.
    pub attach_defaults: Value,
    /// Deviations from plain DAP.
    pub quirks: Quirks,
    /// The shell command that installs the adapter (shown in `adapter_not_found`).
    pub install_command: String,
    /// What the agent must be told about the choice (the project's `.venv` interpreter and
    /// why, or why it was not used), shown with the first result.
    pub notes: Vec<String>,
}

/// How a finished debuggee's exit code becomes known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitReport {
    /// A DAP `exited` event with `exitCode` (before `terminated`).
    ExitedEvent,
    /// No `exited` event: after `terminated` agentdap sends `disconnect`, and the adapter prints
    /// the status in a console `output` event containing `marker` followed by the decimal code
    /// (Delve: `Process 1234 has exited with status 7`). Parse with [`parse_exit_report`].
    ConsoleAfterDisconnect {
        /// The text right before the code.
        marker: &'static str,
    },
}

/// Where the debuggee's stdout/stderr arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebuggeeOutput {
    /// As DAP `output` events (categories `stdout`/`stderr`).
    OutputEvents,
    /// As DAP `output` events, but from a pseudo-terminal: one `stdout` stream with stderr
    /// merged into it and `\r\n` line ends (strip the `\r` when assembling lines).
    OutputEventsFromPty,
    /// On the adapter's own stdout and stderr pipes, not as `output` events: the session reads
    /// them as categories `stdout`/`stderr` (after the port announcement, for TCP adapters).
    AdapterPipes,
}

/// Quirks about a debuggee's life (entry, exit, output, processes), as data for the session
/// layer. Kept apart from [`Quirks`] so that existing recipes build unchanged; one value per
/// [`AdapterKind`] from [`AdapterKind::runtime_quirks`]. [`RuntimeQuirks::STANDARD`] is a
/// spec-following adapter (debugpy fits it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeQuirks {
    /// "Stop on entry" means: launch with the adapter's stop-on-entry off, set a temporary
    /// function breakpoint on this function during the configuration phase, and remove it at
    /// the first stop (`launch`'s `stop_on_entry`). `None`: the adapter's own stop-on-entry is used.
    pub entry_function: Option<&'static str>,
    /// Reasons the adapter's *own* entry stop may carry (they are passed through unchanged;
    /// agentdap never synthesises `entry`; llvm/llvm-project#195352 shows why).
    pub adapter_entry_reasons: &'static [&'static str],
    /// The name of a placeholder thread the adapter reports at its own entry stop, on which
    /// `stackTrace` fails: not a real thread to focus.
    pub placeholder_thread: Option<&'static str>,
    /// A `stopped` may arrive before the response to the request that caused it (the request
    /// still succeeds; the stop wins).
    pub stop_before_response: bool,
    /// Where the debuggee's output arrives.
    pub debuggee_output: DebuggeeOutput,
    /// How the exit code is learned.
    pub exit_report: ExitReport,
    /// The adapter exits by itself after answering `disconnect`.
    pub exits_after_disconnect: bool,
    /// The adapter serves a single DAP connection for its whole life.
    pub single_client: bool,
    /// Frame ids and `variablesReference`s repeat at every stop (so agentdap always mints its
    /// own handles).
    pub reuses_ids_across_stops: bool,
    /// The adapter puts the debuggee (and helpers, [`RuntimeQuirks::helper_processes`]) in
    /// process groups of their own: killing the adapter's group does not reach them, so their
    /// pids must be recorded with the watchdog.
    pub debuggee_own_process_group: bool,
    /// Names (`/proc/<pid>/stat` comm, 15 bytes max) of helper processes the adapter starts.
    pub helper_processes: &'static [&'static str],
    /// Text that starts a crash report of the adapter itself; from the first line containing
    /// one, the rest of the adapter's output (events or stderr) is one diagnostic, not program
    /// output.
    pub crash_markers: &'static [&'static str],
    /// `launch` may compile the program first (seconds to minutes): its response deserves a
    /// longer timeout than other requests ([`BUILD_LAUNCH_TIMEOUT`]), and a failure carries the
    /// compiler's words.
    pub launch_builds: bool,
    /// The launch argument naming where a build puts the binary, and the file name agentdap gives
    /// it inside a temporary directory it owns (Delve: `output`, `__debug_bin`; by default it
    /// lands in the user's tree, and stays there when dlv is killed).
    pub build_output: Option<(&'static str, &'static str)>,
    /// The `evaluate` context used when the agent names none (lldb-dap treats `repl` input as
    /// a debugger command and answers `(int) $0 = 7`; `watch` gives the value itself).
    pub evaluate_context: &'static str,
    /// How a mirror client's `evaluate` must reach this adapter so that it is only ever an
    /// expression, never a debugger command or a statement (`mirror::as_expression`; SECURITY.md).
    /// The agent's own `evaluate` does not use it.
    pub mirror_evaluate: ExpressionOnly,
    /// Why a `pause` may end with the program still running, and what the agent can do then
    /// (shown when a `pause` wait ends without a stop). `None`: nothing known.
    pub pause_unanswered: Option<&'static str>,
    /// What an empty `result` of `evaluate` in the context given means for this adapter (shown
    /// in place of the empty value). `None`: nothing known, agentdap says the adapter showed none.
    pub empty_evaluate: Option<(&'static str, &'static str)>,
    /// A process killed by signal N is reported as `exitCode` N, word for word like `exit(N)`:
    /// after a stop at signal N that the agent resumed, such an exit is the signal.
    pub signal_exit_as_status: bool,
    /// How the debuggee's language says on stderr what ended it: a program that failed shows
    /// the line found by the first of these that matches as its "last stderr line", rather than
    /// the last line (a stack frame, a hint about backtraces). Empty: the last line.
    pub failure_shapes: &'static [FailureShape],
}

/// A known shape of a runtime's report of what ended a program on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureShape {
    /// Go (1.x runtime): `panic: <value>` or `fatal error: <message>` at the start of a line,
    /// then goroutine stacks.
    GoPanic,
    /// CPython: `Traceback (most recent call last):`, indented frame lines, then the exception
    /// (`KeyError: 'x'`) on the first line not indented.
    PythonTraceback,
    /// Rust std: `thread 'main' panicked at src/main.rs:4:5:` with the message on the next line
    /// (Rust 1.73 on; 1.90 adds the thread id: `thread 'main' (1909) panicked at`), or the
    /// message in the same line (`panicked at 'msg', src/main.rs:4:5`, earlier versions).
    RustPanic,
}

/// Most characters of a failure line shown (a panic value can be a whole data structure).
const FAILURE_LINE_CHARS: usize = 300;

impl FailureShape {
    /// The line of `lines` (stderr, oldest first) that says what happened, in this shape's
    /// last report there, if any.
    pub fn find(self, lines: &[&str]) -> Option<String> {
        let found = match self {
            FailureShape::GoPanic => lines
                .iter()
                .rposition(|l| l.starts_with("panic: ") || l.starts_with("fatal error: "))
                .map(|i| lines[i].to_owned()),
            FailureShape::PythonTraceback => {
                let header = lines.iter().rposition(|l| l.trim_end() == "Traceback (most recent call last):")?;
                lines[header + 1..]
                    .iter()
                    .find(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
                    .map(|l| (*l).to_owned())
            }
            FailureShape::RustPanic => {
                let at = lines.iter().rposition(|l| l.starts_with("thread '") && l.contains(" panicked at "))?;
                let line = lines[at].trim_end();
                match (line.ends_with(':'), lines.get(at + 1)) {
                    (true, Some(message)) => Some(format!("{line} {}", message.trim())),
                    _ => Some(line.to_owned()),
                }
            }
        }?;
        Some(found.chars().take(FAILURE_LINE_CHARS).collect())
    }
}

/// The shape of an `evaluate` an adapter evaluates as an expression only: the contexts in which
/// it never runs the text as a debugger command (`repl` input often is one: LLDB commands in
/// lldb-dap, gdb commands in gdb's DAP, statements in debugpy) and the words or prefixes that
/// make it run one in any context. The mirror also requires a `frameId`: debugpy executes a
/// frameless `evaluate` as a statement whatever the context (see `debugpy::MIRROR_EVALUATE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpressionOnly {
    /// Contexts passed through as the client named them; any other context (`repl`, none, an
    /// unknown one) is replaced by the first.
    pub contexts: &'static [&'static str],
    /// Words that turn the text into a command in every context when it starts with one of them
    /// followed by whitespace (leading whitespace ignored): refused.
    pub command_words: &'static [&'static str],
    /// Prefixes that escape to a command: an expression starting with one (leading whitespace
    /// ignored) is refused.
    pub command_prefixes: &'static [&'static str],
}

impl ExpressionOnly {
    /// DAP's own meaning (DAP § Requests Evaluate: `watch`, `hover`, `clipboard`, `variables`
    /// evaluate an expression for a view; `repl` is the debug console, which adapters may treat
    /// as commands). Nothing refused beyond that: an unknown adapter's command syntax is unknown.
    pub const STANDARD: ExpressionOnly =
        ExpressionOnly { contexts: &["watch", "hover"], command_words: &[], command_prefixes: &[] };
}

/// The `launch` request's timeout for adapters whose `launch` builds the program
/// ([`RuntimeQuirks::launch_builds`]): a cold `go build` takes 10+ s, a big module minutes.
pub const BUILD_LAUNCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

impl RuntimeQuirks {
    /// A spec-following adapter.
    pub const STANDARD: RuntimeQuirks = RuntimeQuirks {
        entry_function: None,
        adapter_entry_reasons: &["entry"],
        placeholder_thread: None,
        stop_before_response: false,
        debuggee_output: DebuggeeOutput::OutputEvents,
        exit_report: ExitReport::ExitedEvent,
        exits_after_disconnect: true,
        single_client: false,
        reuses_ids_across_stops: false,
        debuggee_own_process_group: false,
        helper_processes: &[],
        crash_markers: &[],
        launch_builds: false,
        build_output: None,
        evaluate_context: "repl",
        mirror_evaluate: ExpressionOnly::STANDARD,
        pause_unanswered: None,
        empty_evaluate: None,
        signal_exit_as_status: false,
        failure_shapes: &[],
    };

    /// Whether `text` (one output line or a stderr chunk) starts the adapter's crash report.
    pub fn is_crash_report(&self, text: &str) -> bool {
        self.crash_markers.iter().any(|m| text.contains(m))
    }

    /// The timeout of the `launch` request: [`BUILD_LAUNCH_TIMEOUT`] when it builds, else the
    /// client's default (`None`).
    pub fn launch_timeout(&self) -> Option<std::time::Duration> {
        self.launch_builds.then_some(BUILD_LAUNCH_TIMEOUT)
    }
}

/// The exit code in an [`ExitReport::ConsoleAfterDisconnect`] line: the decimal number right
/// after `marker` (a leading `-` allowed). `None` when the line is something else.
pub fn parse_exit_report(marker: &str, line: &str) -> Option<i64> {
    let rest = &line[line.find(marker)? + marker.len()..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(rest.len(), |(i, _)| i);
    rest[..end].parse().ok()
}

/// The adapters agentdap has recipes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdapterKind {
    /// debugpy (Python).
    Debugpy,
    /// lldb-dap (C, C++, Rust, Swift: native ELF programs).
    Lldb,
    /// Delve (Go), over TCP.
    Delve,
}

impl AdapterKind {
    /// Every kind, in the order `doctor` lists them.
    pub const ALL: &'static [AdapterKind] = &[AdapterKind::Debugpy, AdapterKind::Lldb, AdapterKind::Delve];

    /// agentdap's name for it (the `adapter` argument).
    pub fn name(self) -> &'static str {
        match self {
            AdapterKind::Debugpy => debugpy::NAME,
            AdapterKind::Lldb => lldb::NAME,
            AdapterKind::Delve => delve::NAME,
        }
    }

    /// The kind named by an `adapter` argument (case-insensitive; `python` means debugpy,
    /// `lldb-dap` lldb, `go`/`dlv` delve).
    pub fn from_name(name: &str) -> Option<AdapterKind> {
        match name.to_ascii_lowercase().as_str() {
            "debugpy" | "python" | "py" => Some(AdapterKind::Debugpy),
            "lldb" | "lldb-dap" => Some(AdapterKind::Lldb),
            "delve" | "go" | "dlv" => Some(AdapterKind::Delve),
            _ => None,
        }
    }

    /// The adapter's quirks about entry, exit, output and processes.
    pub fn runtime_quirks(self) -> RuntimeQuirks {
        match self {
            AdapterKind::Debugpy => debugpy::runtime_quirks(),
            AdapterKind::Lldb => lldb::runtime_quirks(),
            AdapterKind::Delve => delve::runtime_quirks(),
        }
    }

    /// The adapter's deviations from plain DAP (the same as its resolved recipe's).
    pub fn quirks(self) -> Quirks {
        match self {
            AdapterKind::Debugpy => debugpy::quirks(),
            AdapterKind::Lldb => lldb::quirks(),
            AdapterKind::Delve => delve::quirks(),
        }
    }

    /// The DAP `attach` arguments agentdap sends under the agent's (the same as its recipe's).
    pub fn attach_defaults(self) -> Value {
        match self {
            AdapterKind::Debugpy => debugpy::attach_defaults(),
            AdapterKind::Lldb => lldb::attach_defaults(),
            AdapterKind::Delve => delve::attach_defaults(),
        }
    }

    /// How the adapter runs the program through `runInTerminal` (`launch {console:
    /// "terminal"}`); `None` when it cannot (Delve 1.20.2 has no `console` setting).
    pub fn terminal_launch(self) -> Option<TerminalLaunch> {
        match self {
            AdapterKind::Debugpy => Some(TerminalLaunch { arguments: debugpy::terminal_arguments(), attaches: false }),
            AdapterKind::Lldb => Some(TerminalLaunch { arguments: lldb::terminal_arguments(), attaches: true }),
            AdapterKind::Delve => None,
        }
    }

    /// The command that installs the adapter when no recipe can be resolved at all (`doctor`,
    /// `install`: printed, never run). debugpy's depends on the interpreter found; this is the
    /// generic form.
    pub fn install_command(self) -> &'static str {
        match self {
            AdapterKind::Debugpy => "python3 -m pip install debugpy",
            AdapterKind::Lldb => lldb::INSTALL,
            AdapterKind::Delve => delve::INSTALL,
        }
    }
}

/// An adapter's way of running the program through `runInTerminal`.
#[derive(Clone, Debug, PartialEq)]
pub struct TerminalLaunch {
    /// DAP `launch` arguments merged over the launch defaults.
    pub arguments: Value,
    /// The adapter attaches to the process agentdap starts (ptrace from a process that is not
    /// its ancestor; lldb-dap's launcher allows it with `PR_SET_PTRACER`). debugpy's launcher
    /// connects back over TCP instead.
    pub attaches: bool,
}

/// Why no recipe could be produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdapterError {
    /// The adapter (or what it needs, like a Python interpreter or the debugpy module) is not
    /// installed. Code `adapter_not_found`.
    NotFound {
        /// Which adapter.
        adapter: &'static str,
        /// What was missing, in one sentence.
        detail: String,
        /// The exact command that installs it.
        install: String,
    },
    /// `adapter` named no known adapter. Code `invalid_argument`.
    Unknown {
        /// The name given.
        name: String,
    },
    /// No `adapter` was given and the program says nothing. Code `invalid_argument`.
    NotInferred {
        /// The program given, if any.
        program: Option<String>,
    },
}

impl AdapterError {
    /// The stable error code (`reply::ErrorCode`'s name for it).
    pub fn code(&self) -> &'static str {
        match self {
            AdapterError::NotFound { .. } => "adapter_not_found",
            AdapterError::Unknown { .. } | AdapterError::NotInferred { .. } => "invalid_argument",
        }
    }
}

fn known_names() -> String {
    AdapterKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdapterError::NotFound { adapter, detail, install } => {
                write!(f, "{adapter}: {detail}; install it with: {install}")
            }
            AdapterError::Unknown { name } => {
                write!(f, "unknown adapter {name:?}; known adapters: {}", known_names())
            }
            AdapterError::NotInferred { program: Some(p) } => {
                write!(f, "cannot tell which adapter debugs {p:?}; pass `adapter` (one of: {})", known_names())
            }
            AdapterError::NotInferred { program: None } => {
                write!(f, "no program given; pass `program` or `adapter` (one of: {})", known_names())
            }
        }
    }
}

impl std::error::Error for AdapterError {}

/// Picks the adapter: the `adapter` argument if given, else from the program (`.py`/`.pyw` →
/// debugpy; `.go` or a directory holding `.go` files or `go.mod` → delve; an ELF executable →
/// delve when Go built it, else lldb). Errors: [`AdapterError::Unknown`],
/// [`AdapterError::NotInferred`]. Reads: `stat`s and the bounded [`elf::probe`].
pub fn select_on(adapter: Option<&str>, program: Option<&str>, host: &dyn Host) -> Result<AdapterKind, AdapterError> {
    if let Some(name) = adapter {
        return AdapterKind::from_name(name).ok_or_else(|| AdapterError::Unknown { name: name.to_string() });
    }
    let not_inferred = || AdapterError::NotInferred { program: program.map(str::to_string) };
    let Some(program) = program else { return Err(not_inferred()) };
    let path = Path::new(program);
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("py" | "pyw") => return Ok(AdapterKind::Debugpy),
        Some("go") => return Ok(AdapterKind::Delve),
        _ => {}
    }
    if delve::is_package_dir(path, host) {
        return Ok(AdapterKind::Delve);
    }
    match elf::probe(path, host) {
        Some(facts) if facts.go => Ok(AdapterKind::Delve),
        Some(_) => Ok(AdapterKind::Lldb),
        None => Err(not_inferred()),
    }
}

/// [`select_on`] against the real file system.
pub fn select(adapter: Option<&str>, program: Option<&str>) -> Result<AdapterKind, AdapterError> {
    select_on(adapter, program, &RealHost)
}

/// What a recipe is resolved against: the agent's arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResolveInput<'a> {
    /// `adapter_args` of the launch/attach call (an object, or absent).
    pub adapter_args: Option<&'a Value>,
    /// `cwd` of the launch call (relative paths are taken against agentdap's cwd).
    pub cwd: Option<&'a Path>,
}

/// The host facts a recipe depends on, behind a trait so resolution is testable without
/// touching the real environment or file system.
pub trait Host {
    /// An environment variable of agentdap.
    fn var(&self, name: &str) -> Option<OsString>;
    /// Whether `path` is a regular file with an execute bit (follows symlinks).
    fn is_executable(&self, path: &Path) -> bool;
    /// agentdap's working directory.
    fn cwd(&self) -> Option<PathBuf>;
    /// Up to `len` bytes of `path` from byte `offset` (fewer at the end of the file); `None`
    /// when unreadable. Callers keep `len` small (the ELF probe: ≤ 64 KiB). Default: nothing.
    fn read_range(&self, _path: &Path, _offset: u64, _len: usize) -> Option<Vec<u8>> {
        None
    }
    /// Whether `path` is a regular file (follows symlinks). Default: no.
    fn is_file(&self, _path: &Path) -> bool {
        false
    }
    /// Whether `path` is a directory (follows symlinks). Default: no.
    fn is_dir(&self, _path: &Path) -> bool {
        false
    }
    /// The names in directory `path`, at most `cap` of them, unsorted; empty when unreadable.
    /// Default: empty.
    fn list_dir(&self, _path: &Path, _cap: usize) -> Vec<OsString> {
        Vec::new()
    }
    /// Whether another user could have put or changed what is at `path` (follows symlinks): it
    /// is owned by neither agentdap's user nor root, or anyone may write it. Unreadable counts
    /// as yes. Default: no.
    fn others_could_write(&self, _path: &Path) -> bool {
        false
    }
}

/// The real process environment and file system (`stat` only).
#[derive(Clone, Copy, Debug, Default)]
pub struct RealHost;

impl Host for RealHost {
    fn var(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn is_executable(&self, path: &Path) -> bool {
        std::fs::metadata(path).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
    }

    fn cwd(&self) -> Option<PathBuf> {
        std::env::current_dir().ok()
    }

    fn read_range(&self, path: &Path, offset: u64, len: usize) -> Option<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = std::fs::File::open(path).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None; // a FIFO or device would block or never end
        }
        file.seek(SeekFrom::Start(offset)).ok()?;
        let mut out = Vec::with_capacity(len.min(64 * 1024));
        file.take(len as u64).read_to_end(&mut out).ok()?;
        Some(out)
    }

    fn is_file(&self, path: &Path) -> bool {
        std::fs::metadata(path).map(|m| m.is_file()).unwrap_or(false)
    }

    fn is_dir(&self, path: &Path) -> bool {
        std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false)
    }

    fn list_dir(&self, path: &Path, cap: usize) -> Vec<OsString> {
        let Ok(dir) = std::fs::read_dir(path) else { return Vec::new() };
        dir.take(cap).flatten().map(|e| e.file_name()).collect()
    }

    fn others_could_write(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Ok(m) = std::fs::metadata(path) else { return true };
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        (m.uid() != me && m.uid() != 0) || m.mode() & 0o002 != 0
    }
}

/// Builds the recipe for `kind` without looking at the program (lldb: no Rust formatters;
/// delve: `mode` left to the agent). Prefer [`recipe_for_program`]. Errors:
/// [`AdapterError::NotFound`] with the install command.
pub fn recipe(kind: AdapterKind, input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    recipe_for_program(kind, None, input, host)
}

/// Builds the recipe for `kind` and the absolute `program` (lldb: rustc's formatters for a
/// Rust binary; delve: `mode` and the build directory). Errors: [`AdapterError::NotFound`]
/// with the install command.
pub fn recipe_for_program(
    kind: AdapterKind,
    program: Option<&Path>,
    input: ResolveInput<'_>,
    host: &dyn Host,
) -> Result<Recipe, AdapterError> {
    match kind {
        AdapterKind::Debugpy => debugpy::recipe(program, input, host),
        AdapterKind::Lldb => lldb::recipe(program, input, host),
        AdapterKind::Delve => delve::recipe(program, input, host),
    }
}

/// Looks `name` up on `$PATH` like `execvp` would, without running anything. A name with a `/`
/// is returned as is if executable. Empty `PATH` entries mean the current directory.
pub fn find_on_path(name: &str, host: &dyn Host) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return host.is_executable(&p).then_some(p);
    }
    let path = host.var("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| if dir.as_os_str().is_empty() { PathBuf::from(".").join(name) } else { dir.join(name) })
        .find(|candidate| host.is_executable(candidate))
}

/// Quotes `s` for a POSIX shell when needed (install commands are meant to be pasted).
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Shallow-merges `overrides` (an object; anything else is ignored) over `defaults`: keys in
/// `overrides` win. Used for launch/attach arguments over recipe defaults.
pub fn merge_arguments(defaults: &Value, overrides: Option<&Value>) -> Value {
    let mut merged = defaults.as_object().cloned().unwrap_or_default();
    if let Some(Value::Object(extra)) = overrides {
        for (k, v) in extra {
            merged.insert(k.clone(), v.clone());
        }
    }
    Value::Object(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Stderr as the runtimes print it (Go 1.19 `go run`, Rust 1.90 with RUST_BACKTRACE=1,
    /// CPython 3.11 with a chained exception), paths shortened.
    #[test]
    fn a_failure_shape_finds_the_line_that_says_what_happened() {
        let go = "transfer 2 of 200: err=insufficient funds\npanic: assignment to entry in nil map\n\n\
                  goroutine 1 [running]:\nmain.main()\n\t/src/gobank/main.go:44 +0x3e5\nexit status 2\n";
        let rust = "thread 'main' (1909) panicked at p.rs:1:54:\nindex out of bounds: the len is 0 but the index is 3\n\
                    stack backtrace:\n   0: __rustc::rust_begin_unwind\n             at /rustc/library/std/src/panicking.rs:689:5\n\
                    note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n";
        let rust_old = "thread 'main' panicked at 'boom', src/main.rs:2:5\nnote: run with `RUST_BACKTRACE=1`\n";
        let python = "Traceback (most recent call last):\n  File \"/src/t.py\", line 4, in <module>\n    f()\n\
                      KeyError: 'x'\n\nThe above exception was the direct cause of the following exception:\n\n\
                      Traceback (most recent call last):\n  File \"/src/t.py\", line 6, in <module>\n    \
                      raise ValueError(\"bad\\nsecond line\") from e\n    ^^^^^^^^^^\nValueError: bad\nsecond line\ncleanup done\n";
        let check = |shape: FailureShape, text: &str| shape.find(&text.lines().collect::<Vec<_>>());
        assert_eq!(check(FailureShape::GoPanic, go).as_deref(), Some("panic: assignment to entry in nil map"));
        let fatal = "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\n";
        assert_eq!(
            check(FailureShape::GoPanic, fatal).as_deref(),
            Some("fatal error: all goroutines are asleep - deadlock!")
        );
        assert_eq!(
            check(FailureShape::RustPanic, rust).as_deref(),
            Some("thread 'main' (1909) panicked at p.rs:1:54: index out of bounds: the len is 0 but the index is 3")
        );
        assert_eq!(
            check(FailureShape::RustPanic, rust_old).as_deref(),
            Some("thread 'main' panicked at 'boom', src/main.rs:2:5")
        );
        assert_eq!(check(FailureShape::PythonTraceback, python).as_deref(), Some("ValueError: bad"));
        // Not this shape: nothing found, and the caller shows the last line.
        assert_eq!(check(FailureShape::GoPanic, python), None);
        assert_eq!(check(FailureShape::PythonTraceback, go), None);
        assert_eq!(check(FailureShape::RustPanic, "error: file not found\n"), None);
        let long = format!("panic: {}\n", "x".repeat(1000));
        assert_eq!(check(FailureShape::GoPanic, &long).map(|l| l.chars().count()), Some(FAILURE_LINE_CHARS));
    }

    #[test]
    fn selects_by_name_or_program() {
        assert_eq!(select(Some("debugpy"), None), Ok(AdapterKind::Debugpy));
        assert_eq!(select(Some("Python"), Some("x.go")), Ok(AdapterKind::Debugpy));
        assert_eq!(select(None, Some("/src/app/main.py")), Ok(AdapterKind::Debugpy));
        assert_eq!(select(None, Some("tool.PYW")), Ok(AdapterKind::Debugpy));
        assert_eq!(select(Some("gdbx"), None), Err(AdapterError::Unknown { name: "gdbx".into() }));
        let err = select(None, Some("a.out"));
        assert_eq!(err, Err(AdapterError::NotInferred { program: Some("a.out".into()) }));
        let text = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(text, "cannot tell which adapter debugs \"a.out\"; pass `adapter` (one of: debugpy, lldb, delve)");
    }

    #[test]
    fn maps_exception_filter_aliases() {
        let q = debugpy::quirks();
        assert_eq!(q.map_exception_filter("all"), "raised");
        assert_eq!(q.map_exception_filter("uncaught"), "uncaught");
        assert_eq!(Quirks::STANDARD.map_exception_filter("all"), "all");
    }

    #[test]
    fn quotes_for_the_shell_only_when_needed() {
        assert_eq!(shell_quote("/usr/bin/python3"), "/usr/bin/python3");
        assert_eq!(shell_quote("/opt/my env/python"), "'/opt/my env/python'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn merge_lets_the_agent_win() {
        let merged = merge_arguments(
            &json!({"justMyCode": true, "console": "internalConsole"}),
            Some(&json!({"justMyCode": false})),
        );
        assert_eq!(merged, json!({"justMyCode": false, "console": "internalConsole"}));
        assert_eq!(merge_arguments(&json!({"a": 1}), Some(&json!([1]))), json!({"a": 1}));
    }
}
