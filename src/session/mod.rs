//! Debug sessions, sans-IO: the session table, the start-up choreography (DESIGN §5), run state
//! and revisions, output, breakpoints, and the waits behind `launch`/`continue`.
//!
//! The IO shell (`server.rs`) feeds adapter bytes, adapter exits and the clock in, and carries out
//! the [`Action`]s queued here (spawn an adapter, answer an MCP call, stop an adapter). After any
//! call it also writes every session's pending DAP bytes ([`Sessions::outbound`]).

mod adapter_io;
pub mod breakpoints;
mod children;
pub mod control;
pub mod ctl;
#[cfg(test)]
mod ctl_tests;
mod edit;
mod events;
mod evidence;
pub mod files;
pub mod function_breakpoints;
pub mod handles;
pub mod host;
pub mod inspect;
pub mod mirror;
mod names;
mod ops;
pub mod output;
pub mod plan;
mod preview;
mod raw;
mod render;
mod restart;
pub mod run_to;
pub mod snapshot;
pub mod source;
#[cfg(test)]
mod tests;
mod threads;

use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use slab::Slab;

use crate::config::Config;
use crate::dap::adapters::{AdapterKind, Quirks, RuntimeQuirks, Transport};
use crate::dap::client::{self, ClientConfig, DapClient};
use crate::dap::command::AdapterCommand;
use breakpoints::{BreakpointStore, Mode, SourceBreakpoint};
use children::ChildStop;
use control::{Until, Waiter};
pub use events::breakpoints_json;
use events::{group_by_path, wait_duration};
pub use evidence::DEFAULT_IDLE_REAP;
pub use files::Files;
use output::{Category, OutputRing, SNAPSHOT_TAIL};
use snapshot::{RunState, Stop};

/// Most sessions alive at once (DESIGN §9). Ended sessions count until disconnected.
pub const MAX_SESSIONS: usize = 32;
/// Default and cap of `wait_ms` (DESIGN §3): clients give up on a request after ~60 s.
pub const DEFAULT_WAIT: Duration = Duration::from_millis(10_000);
pub const MAX_WAIT: Duration = Duration::from_millis(50_000);
/// How long a `disconnect` may take before the adapter's process group is killed anyway.
pub const DISCONNECT_GRACE: Duration = Duration::from_millis(2_000);
/// DAP messages kept per session for the `dap-log` resource (DESIGN §9).
pub const DAP_LOG_CAP: usize = 5_000;
/// ... and at most this many bytes of message text per session.
pub const DAP_LOG_BYTES: usize = 8 << 20;
/// A logged message longer than this is kept as its size and first KiB (bytes).
pub const DAP_LOG_ENTRY_MAX: usize = 64 << 10;
/// Adapter stderr kept for error messages (bytes).
const STDERR_TAIL: usize = 8 << 10;

/// Slab key of a session (not the agent-facing `s1` id).
pub type SessionKey = usize;

use crate::reply::{CallKey, ErrorCode, ToolResult};

/// Work for the IO shell.
#[derive(Debug)]
pub enum Action {
    /// Start the session's adapter and open its DAP transport (its stdio, or a TCP connection
    /// to it); once DAP can flow call [`Sessions::on_spawned`], else [`Sessions::on_spawn_failed`].
    Spawn { session: SessionKey, command: AdapterCommand, transport: Transport },
    /// Open a DAP connection over TCP to a server already listening (no process of agentdap's
    /// behind it: `attach {connect}`, child sessions); then as for `Spawn`.
    Connect { session: SessionKey, addr: std::net::SocketAddr },
    /// Answer the MCP call.
    Complete { call: CallKey, output: ToolResult },
    /// Stop the adapter: close its stdin, SIGTERM its process group, SIGKILL after a grace period.
    StopAdapter { session: SessionKey },
    /// A launched debuggee's pid (DAP `process` event): record it with the watchdog.
    RecordDebuggee { pid: i64 },
    /// The session's state or revision changed: `agentdap://session/{id}/state` (and
    /// `agentdap://sessions`) subscribers are told.
    StateChanged { session: String },
    /// Record the processes below every adapter now with the watchdog and their adapter (DESIGN
    /// §2: adapters put debuggees and helpers in process groups of their own; and before a
    /// `disconnect` reaches one, since a debuggee's children become orphans once it is gone).
    TrackProcesses,
    /// The session is done with its adapter: stop the adapter if it still runs, stop delivering
    /// its events, then drop the session with [`Sessions::remove`]. Removal goes through the IO
    /// shell so a slab key is never reused while an adapter could still deliver to it.
    Release { session: SessionKey },
    /// A waiting call is still waiting (MCP progress; sent only if the call has a progress token).
    Progress { call: CallKey, progress: f64, message: String },
    /// `restart` without DAP `restart`: stop the session's adapter and let go of it (its bytes and
    /// exit no longer reach the session); once it is gone, call [`Sessions::on_adapter_replaced`]
    /// with `id`, which opens the new one.
    Replace { session: SessionKey, id: String },
    /// The adapter of `parent` asked for a child session (`startDebugging`). Handled inside
    /// [`Sessions::next_action`] (it needs the whole table); never reaches the IO shell.
    OpenChild { parent: SessionKey, id: client::ReverseId, request: String, configuration: Value },
    /// A ledger record (DESIGN §8): the IO shell stamps it with the wall-clock time, keeps it in
    /// [`Sessions::ledger`] and appends it to the ledger file.
    Ledger(crate::ledger::Record),
    /// The adapter of `session` asked agentdap to run a command (`runInTerminal`). Handled inside
    /// [`Sessions::next_action`] by the host-request policy ([`host`]); never reaches the IO shell.
    HostRequest { session: SessionKey, id: client::ReverseId, arguments: Value },
    /// Run `command` for the session's adapter (an allowed `runInTerminal`): piped stdio, own
    /// process group, recorded with the watchdog; then [`Sessions::on_terminal_spawned`].
    RunInTerminal { session: SessionKey, reverse: client::ReverseId, command: AdapterCommand },
}

/// Who a DAP request's answer goes to.
#[derive(Debug)]
pub enum Origin {
    Startup(Step),
    /// `setBreakpoints` for `path` (start-up or a tool call).
    SetBreakpoints {
        path: String,
        call: Option<CallKey>,
    },
    /// `setBreakpoints` for `path` sent again under the file's other spelling (through or
    /// around a symlink) after the adapter verified none of them (CASES C22).
    SetBreakpointsRetry {
        path: String,
        alias: String,
        call: Option<CallKey>,
    },
    SetExceptionBreakpoints {
        call: Option<CallKey>,
    },
    /// A resume (`continue`): its failure fails the call's wait.
    Resume {
        call: CallKey,
    },
    /// The top frame after a stop, for the stop's location.
    StopLocation {
        revision: u64,
    },
    StopThreads {
        revision: u64,
    },
    /// `exceptionInfo` after an exception stop, for the exception's name and message.
    StopException {
        revision: u64,
    },
    Disconnect {
        call: Option<CallKey>,
    },
    Terminate {
        call: CallKey,
    },
    /// A `threads` refresh at a stop (for validating thread arguments).
    ThreadList {
        revision: u64,
    },
    /// `pause`: its failure fails the call's wait.
    Pause {
        call: CallKey,
    },
    /// The temporary function breakpoint that makes "stop on entry" stop at `main`
    /// (`remove`: the request that clears it at the first stop).
    EntryBreakpoint {
        remove: bool,
    },
    /// An inspection tool's request; `revision` is the session's when it was sent.
    Inspect {
        call: CallKey,
        op: inspect::Op,
        revision: u64,
    },
    /// A mirror client's read-only request (DESIGN §7); the answer goes back to that client.
    Mirror(mirror::Forwarded),
    /// A request of `run_to`, `goto`, `restart`, `set_variable`, `set_expression`,
    /// `set_function_breakpoints` or `source` ([`ctl`]).
    Ctl(ctl::Op),
    /// A `dap_request` call: the raw response body goes back to it.
    Raw {
        call: CallKey,
    },
}

/// A start-up step, named in timeouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Initialize,
    Launch,
    ConfigurationDone,
}

impl client::Origin for Origin {
    fn step(&self) -> Option<&'static str> {
        match self {
            Origin::Startup(Step::Initialize) => Some("initialize"),
            Origin::Startup(Step::Launch) => Some("launch/attach (waiting for its response)"),
            Origin::Startup(Step::ConfigurationDone) => Some("configurationDone"),
            Origin::SetBreakpoints { call: None, .. } => Some("setBreakpoints (configuration phase)"),
            Origin::SetExceptionBreakpoints { call: None } => Some("setExceptionBreakpoints (configuration phase)"),
            Origin::EntryBreakpoint { remove: false } => Some("setFunctionBreakpoints (entry function)"),
            _ => None,
        }
    }
}

/// Arguments of the `launch` tool (DESIGN §4).
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchArgs {
    pub program: String,
    #[serde(default)]
    pub args: Vec<String>,
    pub cwd: Option<String>,
    #[serde(default)]
    pub env: Map<String, Value>,
    pub adapter: Option<String>,
    pub stop_on_entry: Option<bool>,
    #[serde(default)]
    pub breakpoints: Vec<LaunchBreakpoint>,
    pub exception_filters: Option<Vec<String>>,
    #[serde(default)]
    pub no_debug: bool,
    #[serde(default)]
    pub adapter_args: Map<String, Value>,
    pub wait_ms: Option<u64>,
    /// `internal` (default) or `terminal`: agentdap runs the program (`runInTerminal`), owning
    /// its stdin.
    pub console: Option<String>,
}

/// What a new session starts with, whatever opened it.
struct Start {
    /// What `sessions` shows as the program (for an attach: the pid or the address).
    program: String,
    breakpoints: BreakpointStore,
    exception_filters: Option<Vec<String>>,
}

/// The `attach` tool's arguments, checked (see `mcp::tools::run`).
#[derive(Clone, Debug, Default)]
pub struct AttachStart {
    /// `pid 4242` or `127.0.0.1:5678`, shown as the session's program.
    pub target: String,
    pub pid: Option<i64>,
    /// The host the agent named for `connect`.
    pub connect_host: Option<String>,
    pub breakpoints: Vec<LaunchBreakpoint>,
    pub exception_filters: Option<Vec<String>>,
    pub wait_ms: Option<u64>,
}

/// A breakpoint given to `launch`: a path plus a DAP `SourceBreakpoint`.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct LaunchBreakpoint {
    pub path: String,
    #[serde(flatten)]
    pub breakpoint: SourceBreakpoint,
}

/// What an adapter recipe resolved to for one launch (see [`plan::launch`]).
#[derive(Clone, Debug)]
pub struct AdapterPlan {
    /// Recipe name, e.g. `debugpy`, or a custom adapter's name from the config file.
    pub name: String,
    /// The built-in recipe; `None` for a custom adapter.
    pub kind: Option<AdapterKind>,
    /// The adapter's deviations from plain DAP (custom adapters: [`Quirks::STANDARD`]).
    pub quirks: Quirks,
    /// Its quirks about entry, exit, output and processes ([`RuntimeQuirks::STANDARD`] for
    /// custom adapters).
    pub runtime: RuntimeQuirks,
    /// How DAP flows: the adapter's stdio, or TCP to it.
    pub transport: Transport,
    /// "Stop on entry" as a temporary function breakpoint on this function, removed at the
    /// first stop ([`RuntimeQuirks::entry_function`]; `None` when not stopping on entry).
    pub entry_function: Option<&'static str>,
    /// A temporary directory agentdap created for this launch (a build's output); removed when
    /// the session's adapter is gone.
    pub scratch_dir: Option<std::path::PathBuf>,
    pub command: AdapterCommand,
    /// The DAP request that starts the session: `launch` or `attach`.
    pub request: &'static str,
    /// The DAP `launch` (or `attach`) arguments, complete.
    pub launch_arguments: Value,
    /// `attach {connect}` and child sessions: DAP flows over a TCP connection to a server
    /// already listening, with no process of agentdap's behind it (nothing is spawned).
    pub connect: Option<std::net::SocketAddr>,
    /// What the agent must be told about how the adapter was chosen (the project's `.venv`
    /// interpreter and why), shown with the first result as warnings.
    pub notes: Vec<String>,
}

/// The start-up choreography's progress (DESIGN §5).
#[derive(Debug, Default)]
struct Startup {
    launch_sent: bool,
    configured: bool,
    /// The launch response: `None` until it arrives.
    launch_result: Option<Result<(), String>>,
    /// Configuration-phase `setBreakpoints` requests not answered yet.
    breakpoints_pending: usize,
    /// `configurationDone` is sent once `breakpoints_pending` reaches 0.
    configuration_done_due: bool,
}

/// One debug session: one adapter connection and what agentdap knows about its debuggee.
pub struct Session {
    pub id: String,
    /// The session's slab key (stable for its life).
    pub key: SessionKey,
    pub adapter: String,
    pub program: String,
    pub state: RunState,
    /// Bumped on every stopped↔running transition (DESIGN §5).
    pub revision: u64,
    pub stop: Option<Stop>,
    /// True once the stop's location is known (or could not be): results may be written.
    stop_ready: bool,
    /// Stop details (top frame, exception info) still awaited for the current stop.
    stop_pending: u8,
    pub exit_code: Option<i64>,
    /// The fatal signal (name, number) the last stop was at, while no other stop followed.
    pub stop_signal: Option<(&'static str, i64)>,
    /// The program died of this signal (name, number): the adapter reported its number as the
    /// exit code after the agent resumed it from that signal's stop
    /// (`RuntimeQuirks::signal_exit_as_status`).
    pub killed_by: Option<(&'static str, i64)>,
    pub output: OutputRing,
    /// The output cursor when the last result was written.
    result_cursor: u64,
    pub dap_log: VecDeque<client::LogEntry>,
    /// Bytes of message text in `dap_log` (capped at [`DAP_LOG_BYTES`]).
    dap_log_bytes: usize,
    /// When the session was created (DAP log times are relative to it).
    pub started: Instant,
    pub breakpoints: BreakpointStore,
    pub exception_filters: Option<Vec<String>>,
    pub focus_thread: Option<i64>,
    /// Thread ids from the last `threads` response.
    /// Thread ids the agent may name: those of `threads` answers and of stops since (calls naming
    /// another are refused before anything is sent; empty: none known yet, the adapter decides).
    pub known_threads: Vec<i64>,
    /// Frame ids and variable references handed to the agent (DESIGN §5).
    pub handles: handles::Handles,
    /// Children of variable containers fetched this revision (adapter ref → revision, children):
    /// agentdap pages them itself, from one fetch per revision.
    var_cache: std::collections::HashMap<i64, (u64, std::rc::Rc<Vec<Value>>)>,
    /// The first children of containers fetched only for a preview (maybe not all of them;
    /// never served as a `variables` page). Cleared with `var_cache`.
    preview_cache: std::collections::HashMap<i64, std::rc::Rc<Vec<Value>>>,
    /// The frame each variables reference came from (adapter ref → the handles' variables
    /// epoch then, adapter frame id), for reading a change back by evaluation (`edit.rs`); an
    /// entry of an older epoch means nothing. At most `inspect::MAX_VAR_FRAMES` entries.
    var_frames: std::collections::HashMap<i64, (u64, i64)>,
    /// Watch expressions (id, expression), evaluated by `context` and at stops.
    pub watches: Vec<(u32, String)>,
    pub debuggee_pid: Option<i64>,
    client: DapClient<Origin>,
    plan: AdapterPlan,
    startup: Startup,
    waiters: Vec<Waiter>,
    stderr_tail: Vec<u8>,
    adapter_alive: bool,
    /// Set when agentdap asked the adapter to go (disconnect sent or adapter stopped).
    closing: bool,
    /// Why the session ended early (launch refused, adapter died), for `sessions` and results.
    pub failure: Option<String>,
    /// Notes for the next result (e.g. an exception filter the adapter does not have).
    warnings: Vec<String>,
    /// Breakpoints set before this session while no session was live (`path:line`,
    /// `name()`), said once in the launch or attach result.
    carried_over: Vec<String>,
    /// The program ended because agentdap ended it (`disconnect`, `terminate`, shutdown): its exit
    /// code is the kill's, not the program's own.
    pub ended_by_agentdap: bool,
    /// (revision, thread, adapter frame id) of the top frame fetched at the last stop.
    top_frame: Option<(u64, i64, i64)>,
    /// A resume was sent and neither its response nor a `continued`/`stopped` came yet.
    resume_unacked: bool,
    /// A `pause` was sent and no stop has come since.
    pause_sent: bool,
    /// The (state, revision) last announced to resource subscribers.
    last_announced: Option<(RunState, u64)>,
    /// `disconnect` was called: the session leaves the table once its adapter is gone.
    disconnected: bool,
    /// `disconnect` calls answered when the adapter is gone.
    disconnect_calls: Vec<CallKey>,
    /// Calls answered inside a session method; `pump` moves them to the action queue.
    done: Vec<(CallKey, ToolResult)>,
    /// The IDE mirror's view of this session (DESIGN §7).
    pub mirror: mirror::Tap,
    /// The entry function breakpoint is set and not yet removed.
    entry_breakpoint: bool,
    /// `terminated` came from an adapter that reports the exit only after `disconnect`
    /// ([`crate::dap::adapters::ExitReport::ConsoleAfterDisconnect`]): the waits end when the
    /// disconnect is answered, with the exit code read meanwhile.
    awaiting_exit_report: bool,
    /// The adapter's output started a crash report: the rest is kept in the stderr tail only.
    crashed: bool,
    /// The adapter's own stdout/stderr now carry the debuggee's output
    /// ([`crate::dap::adapters::DebuggeeOutput::AdapterPipes`], after the port announcement).
    pipes_are_program_output: bool,
    /// The adapter's descendants were recorded at the first stop.
    descendants_recorded: bool,
    /// Breakpoint files the adapter accepts only under another spelling (path as given →
    /// the spelling sent), learned by a retry (CASES C22).
    path_aliases: std::collections::HashMap<String, String>,
    /// The session that opened this one through `startDebugging`: (slab key, id). The id
    /// guards against a reused slab key once the parent is gone.
    pub parent: Option<(SessionKey, String)>,
    /// The debuggee is agentdap's to end: a `launch` and its child sessions. False for `attach`
    /// (and its children): the attached process is the user's, never killed or recorded.
    pub owns_debuggee: bool,
    /// Where an `attach {connect}` went, as the agent named it (children may follow a
    /// `connect` back to the same host).
    pub attach_target: Option<String>,
    /// Child stops not yet shown in a result of this session (DESIGN §5 child sessions).
    child_stops: Vec<ChildStop>,
    /// The revision of this session's last stop announced to its parent.
    stop_told_parent: u64,
    /// Ledger records not yet handed to the action queue (drained by `pump`).
    ledger_out: Vec<crate::ledger::Record>,
    /// The revision of the last stop recorded in the ledger.
    ledger_stop_rev: u64,
    /// When the session was first seen ended (its `session_end` was recorded): idle reaping
    /// counts from here.
    ended_at: Option<Instant>,
    /// DAP messages logged since the session began (the `dap_log` ring keeps the last ones):
    /// `--dap-log` files follow it.
    pub dap_log_total: u64,
    /// State of `run_to` and `restart` ([`ctl`]).
    ctl: ctl::State,
    /// Host requests (`runInTerminal`) and the stdin of a program agentdap runs itself.
    pub host: host::HostState,
}

/// Every session, plus the breakpoints waiting for the next launch.
pub struct Sessions {
    slab: Slab<Session>,
    next_id: u32,
    latest: Option<SessionKey>,
    /// Breakpoints set while no session was live: they apply at the next launch.
    pub pending_breakpoints: BreakpointStore,
    actions: VecDeque<Action>,
    request_timeout: Duration,
    /// The user's configuration (custom adapters), read once at start.
    pub config: Config,
    /// The ledger's recent records (DESIGN §8); the IO shell appends them to the file.
    pub ledger: crate::ledger::Ledger,
    /// How long an ended session stays before it is released; `None`: until disconnected.
    idle_reap: Option<Duration>,
    /// The host-request policy (`--host-requests`) and host-request ids.
    pub host: host::HostTable,
    /// How the session layer reads files and `/proc` (the IO shell's `os::files::OsFiles`, or a
    /// test's fake). Shared (`Rc`) so a `Session` can hold the same handle.
    files: Rc<dyn Files>,
}

#[cfg(test)]
impl Default for Sessions {
    fn default() -> Self {
        Sessions::new(client::DEFAULT_REQUEST_TIMEOUT)
    }
}

impl Sessions {
    /// A session table with the real file system (tests only: the server hands its own
    /// [`Files`] to [`Sessions::with_files`]).
    #[cfg(test)]
    pub fn new(request_timeout: Duration) -> Sessions {
        Sessions::with_files(request_timeout, Config::default(), Rc::new(crate::os::files::OsFiles))
    }

    /// A session table that knows the custom adapters of `config` (tests only, as
    /// [`Sessions::new`]).
    #[cfg(test)]
    pub fn with_config(request_timeout: Duration, config: Config) -> Sessions {
        Sessions::with_files(request_timeout, config, Rc::new(crate::os::files::OsFiles))
    }

    /// A session table that knows the custom adapters of `config` and reads files and `/proc`
    /// only through `files`.
    pub fn with_files(request_timeout: Duration, config: Config, files: Rc<dyn Files>) -> Sessions {
        Sessions {
            slab: Slab::new(),
            next_id: 1,
            latest: None,
            pending_breakpoints: BreakpointStore::default(),
            actions: VecDeque::new(),
            request_timeout,
            config,
            ledger: crate::ledger::Ledger::default(),
            idle_reap: Some(evidence::DEFAULT_IDLE_REAP),
            host: host::HostTable::default(),
            files,
        }
    }

    /// How this table reads files and `/proc` ([`Files`]).
    pub fn files(&self) -> &dyn Files {
        &*self.files
    }

    /// The next action for the IO shell, oldest first. Child sessions are opened here, and
    /// when the queue runs dry the parent/child bookkeeping runs ([`Sessions::sweep_children`]),
    /// which may queue more.
    pub fn next_action(&mut self, now: Instant) -> Option<Action> {
        // Each round either hands out an action or sweeps once; a sweep that queues nothing ends it.
        for _ in 0..MAX_SESSIONS * 4 {
            match self.actions.pop_front() {
                Some(Action::OpenChild { parent, id, request, configuration }) => {
                    self.open_child(parent, id, request, configuration, now);
                }
                Some(Action::HostRequest { session, id, arguments }) => self.host_request(session, id, arguments, now),
                Some(action) => {
                    if let Action::StateChanged { session } = &action {
                        // The default session is the one that most recently stopped (or started).
                        let stopped = self.slab.iter().find(|(_, s)| s.id == *session && s.state == RunState::Stopped);
                        if let Some((key, _)) = stopped {
                            self.latest = Some(key);
                        }
                    }
                    return Some(action);
                }
                None => {
                    self.sweep_children(now);
                    self.sweep_ended(now);
                    if self.actions.is_empty() {
                        return None;
                    }
                }
            }
        }
        self.actions.pop_front()
    }

    /// Sessions, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (SessionKey, &Session)> {
        self.slab.iter()
    }

    pub fn get(&self, key: SessionKey) -> Option<&Session> {
        self.slab.get(key)
    }

    /// Makes unfinished output lines of `key` readable (before an `output` read).
    pub fn flush_output(&mut self, key: SessionKey) {
        if let Some(s) = self.slab.get_mut(key) {
            s.output.flush();
        }
    }

    /// Finds a session by its agent-facing id, or the most recent live one when `id` is `None`.
    pub fn resolve(&self, id: Option<&str>) -> Result<SessionKey, ToolResult> {
        match id {
            Some(id) => self.slab.iter().find(|(_, s)| s.id == id).map(|(k, _)| k).ok_or_else(|| {
                let known: Vec<&str> = self.slab.iter().map(|(_, s)| s.id.as_str()).collect();
                ToolResult::error(
                    ErrorCode::SessionNotFound,
                    format!(
                        "no session `{id}`; known sessions: [{}]. Call `sessions` to list them or `launch` to start one.",
                        known.join(", ")
                    ),
                )
            }),
            None => self
                .latest
                .filter(|k| self.slab.get(*k).is_some_and(|s| !s.state.is_over()))
                .or_else(|| self.slab.iter().rev().find(|(_, s)| !s.state.is_over()).map(|(k, _)| k))
                .or_else(|| self.slab.iter().next_back().map(|(k, _)| k))
                .ok_or_else(|| {
                    ToolResult::error(ErrorCode::SessionNotFound, "there is no session; call `launch` to start one.")
                }),
        }
    }

    /// Starts a launch: a new session in `starting`, its adapter to spawn. The call is answered at
    /// the first stop, the exit, or after `wait_ms` (then honestly `running`).
    pub fn launch(&mut self, args: LaunchArgs, plan: AdapterPlan, call: CallKey, now: Instant) {
        if let Err(output) = self.room() {
            return self.actions.push_back(Action::Complete { call, output });
        }
        let mut breakpoints = std::mem::take(&mut self.pending_breakpoints);
        let carried_over = breakpoints.listing();
        for (path, set) in group_by_path(args.breakpoints) {
            breakpoints.apply(&path, Mode::Add, set);
        }
        let waiter = Waiter::new(call, now, wait_duration(args.wait_ms), "launched", Until::Stop, 0);
        let terminal = args.console.as_deref() == Some("terminal");
        let start = Start { program: args.program, breakpoints, exception_filters: args.exception_filters };
        let key = self.open(start, plan, Some(waiter), None, true, now);
        if let Some(s) = self.slab.get_mut(key) {
            s.host.terminal_console = terminal;
            s.carried_over = carried_over;
        }
        self.latest = Some(key);
    }

    /// Starts an attach (`attach` tool): like a launch, with the DAP `attach` request, a
    /// debuggee that is never agentdap's to end, and a call answered once attached (or at a
    /// first stop, or after `wait_ms`). `target` is what the session shows as its program.
    pub fn attach(&mut self, args: AttachStart, plan: AdapterPlan, call: CallKey, now: Instant) {
        if let Err(output) = self.room() {
            return self.actions.push_back(Action::Complete { call, output });
        }
        let mut breakpoints = std::mem::take(&mut self.pending_breakpoints);
        let carried_over = breakpoints.listing();
        for (path, set) in group_by_path(args.breakpoints) {
            breakpoints.apply(&path, Mode::Add, set);
        }
        let waiter = Waiter::new(call, now, wait_duration(args.wait_ms), "attached", Until::Attached, 0);
        let start = Start { program: args.target.clone(), breakpoints, exception_filters: args.exception_filters };
        let key = self.open(start, plan, Some(waiter), None, false, now);
        if let Some(s) = self.slab.get_mut(key) {
            s.attach_target = args.connect_host;
            s.carried_over = carried_over;
            s.debuggee_pid = args.pid;
        }
        self.latest = Some(key);
    }

    /// Creates a session in `starting` and queues what opens its transport: `Connect` for a
    /// server already listening, else `Spawn`.
    fn open(
        &mut self,
        start: Start,
        plan: AdapterPlan,
        waiter: Option<Waiter>,
        parent: Option<(SessionKey, String)>,
        owns_debuggee: bool,
        now: Instant,
    ) -> SessionKey {
        let id = format!("s{}", self.next_id);
        self.next_id += 1;
        let config = client_config(&id, &plan.name, self.request_timeout);
        let warnings = plan.notes.clone();
        let entry = self.slab.vacant_entry();
        let key = entry.key();
        let session = Session {
            id,
            key,
            adapter: plan.name.clone(),
            program: start.program,
            state: RunState::Starting,
            revision: 0,
            stop: None,
            stop_ready: false,
            stop_pending: 0,
            exit_code: None,
            stop_signal: None,
            killed_by: None,
            output: OutputRing::default(),
            result_cursor: 0,
            dap_log: VecDeque::new(),
            dap_log_bytes: 0,
            started: now,
            breakpoints: start.breakpoints,
            exception_filters: start.exception_filters,
            focus_thread: None,
            known_threads: Vec::new(),
            handles: handles::Handles::new(),
            var_cache: std::collections::HashMap::new(),
            preview_cache: std::collections::HashMap::new(),
            var_frames: std::collections::HashMap::new(),
            watches: Vec::new(),
            debuggee_pid: None,
            client: DapClient::new(config),
            plan,
            startup: Startup::default(),
            waiters: waiter.into_iter().collect(),
            stderr_tail: Vec::new(),
            adapter_alive: false,
            closing: false,
            failure: None,
            warnings,
            carried_over: Vec::new(),
            ended_by_agentdap: false,
            last_announced: None,
            pause_sent: false,
            resume_unacked: false,
            top_frame: None,
            disconnected: false,
            disconnect_calls: Vec::new(),
            done: Vec::new(),
            mirror: mirror::Tap::default(),
            entry_breakpoint: false,
            awaiting_exit_report: false,
            crashed: false,
            pipes_are_program_output: false,
            descendants_recorded: false,
            path_aliases: std::collections::HashMap::new(),
            parent,
            owns_debuggee,
            attach_target: None,
            child_stops: Vec::new(),
            stop_told_parent: 0,
            ledger_out: Vec::new(),
            ledger_stop_rev: 0,
            ended_at: None,
            dap_log_total: 0,
            ctl: ctl::State::default(),
            host: host::HostState::default(),
        };
        self.actions.push_back(Action::Ledger(session.start_record()));
        let action = match session.plan.connect {
            Some(addr) => Action::Connect { session: key, addr },
            None => Action::Spawn {
                session: key,
                command: session.plan.command.clone(),
                transport: session.plan.transport.clone(),
            },
        };
        entry.insert(session);
        self.actions.push_back(action);
        key
    }

    /// The earliest deadline of any session (request timeouts, waits, idle reaping).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.slab
            .iter()
            .flat_map(|(_, s)| s.client.next_deadline().into_iter().chain(s.waiters.iter().map(Waiter::next_deadline)))
            .chain(self.next_reap())
            .min()
    }

    /// Fires every deadline at or before `now`.
    pub fn on_timer(&mut self, now: Instant) {
        for (_, s) in self.slab.iter_mut() {
            s.client.on_timer(now);
            s.pump(now, &mut self.actions);
            s.tick_waiters(now, &mut self.actions);
        }
        self.reap_idle(now);
    }

    /// Pending DAP bytes for `key`'s adapter (write them, then [`Sessions::consume`]).
    pub fn outbound(&self, key: SessionKey) -> &[u8] {
        self.slab.get(key).map_or(&[], |s| s.client.outbound())
    }

    pub fn consume(&mut self, key: SessionKey, n: usize) {
        if let Some(s) = self.slab.get_mut(key) {
            s.client.consume(n);
        }
    }

    /// Keys of sessions that have bytes to write.
    pub fn with_outbound(&self) -> Vec<SessionKey> {
        self.slab.iter().filter(|(_, s)| !s.client.outbound().is_empty()).map(|(k, _)| k).collect()
    }
}

impl Session {
    fn send(&mut self, command: &str, arguments: Option<Value>, origin: Origin, now: Instant) {
        self.send_with_timeout(command, arguments, origin, now, None);
    }

    /// Sends DAP `disconnect` (`terminateDebuggee` as given, no restart) with a short timeout:
    /// an adapter that does not answer it is stopped after [`DISCONNECT_GRACE`] instead of
    /// holding the agent for the full request timeout.
    pub(super) fn send_disconnect(&mut self, terminate_debuggee: Option<bool>, origin: Origin, now: Instant) {
        let mut args = serde_json::json!({ "restart": false });
        if let Some(t) = terminate_debuggee {
            args["terminateDebuggee"] = t.into();
        }
        self.send_with_timeout("disconnect", Some(args), origin, now, Some(DISCONNECT_GRACE));
    }

    /// [`Session::send`] with a timeout other than the client's default.
    fn send_with_timeout(
        &mut self,
        command: &str,
        arguments: Option<Value>,
        origin: Origin,
        now: Instant,
        timeout: Option<Duration>,
    ) {
        if let Err(refused) = self.client.request(command, arguments, origin, now, timeout) {
            // Answer the origin as if the adapter had refused, so no wait hangs.
            let msg = format!("could not send `{command}`: {}", refused.error);
            log::warn!("{}: {msg}", self.id);
            // Only a closed connection is `disconnected`; a full queue or pending table is the
            // adapter not keeping up, and the session lives on.
            let code = match refused.error {
                crate::dap::client::RequestError::Closed => ErrorCode::Disconnected,
                _ => ErrorCode::AdapterError,
            };
            self.failed_origin(refused.origin, code, msg);
        }
    }

    fn keep_stderr(&mut self, bytes: &[u8]) {
        self.stderr_tail.extend_from_slice(bytes);
        if self.stderr_tail.len() > STDERR_TAIL {
            let cut = self.stderr_tail.len() - STDERR_TAIL;
            self.stderr_tail.drain(..cut);
        }
    }

    /// The adapter's output started a crash report ([`RuntimeQuirks::crash_markers`]): one
    /// diagnostic in the output, the report itself only in the stderr tail (shown when the
    /// session ends), instead of hundreds of output entries.
    pub(super) fn note_crash(&mut self, first: &str) {
        self.crashed = true;
        let line = first.lines().find(|l| self.plan.runtime.is_crash_report(l)).unwrap_or(first).trim();
        self.output.push(
            Category::Adapter,
            &format!("{} crashed ({line}); the rest of its crash report is not shown as output\n", self.adapter),
        );
    }

    /// A request that never went out: its owner learns why.
    fn failed_origin(&mut self, origin: Origin, code: ErrorCode, msg: String) {
        match origin {
            Origin::Resume { call } | Origin::Terminate { call } | Origin::Pause { call } => {
                self.waiters.retain(|w| w.call != call);
                self.done.push((call, ToolResult::error(code, msg)));
            }
            Origin::SetBreakpoints { call: Some(call), .. }
            | Origin::SetBreakpointsRetry { call: Some(call), .. }
            | Origin::SetExceptionBreakpoints { call: Some(call) } => {
                self.done.push((call, ToolResult::error(code, msg)));
            }
            Origin::Disconnect { call: Some(call) } => {
                let out = self.result("disconnected", false);
                self.done.push((call, out));
            }
            Origin::Inspect { call, .. } | Origin::Raw { call } => self.done.push((call, ToolResult::error(code, msg))),
            Origin::Ctl(op) => self.ctl_failed(op, code, msg),
            _ => {}
        }
    }
}

/// `s` cut to at most `max` characters (ending in `…` when cut), for one-line summaries.
pub fn clip_text(s: &str, max: usize) -> String {
    inspect::clip(s, max).0
}

/// The DAP client configuration of every session's connection (a new session, a relaunch).
fn client_config(id: &str, adapter: &str, request_timeout: Duration) -> ClientConfig {
    let mut config = ClientConfig::new(format!("{id} {adapter}"));
    config.request_timeout = request_timeout;
    // `runInTerminal` goes to the host-request policy (`Action::HostRequest`).
    config.run_in_terminal = client::RunInTerminalPolicy::Surface;
    config
}
