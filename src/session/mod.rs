//! Debug sessions, sans-IO: the session table, the start-up choreography (DAP § Overview ›
//! Initialization), run state and revisions, output, breakpoints, and the waits behind
//! `launch`/`continue`.
//!
//! The IO shell (`server.rs`) feeds adapter bytes, adapter exits and the clock in, and carries out
//! the [`Action`]s queued here (spawn an adapter, answer an MCP call, stop an adapter). After any
//! call it also writes every session's pending DAP bytes ([`Sessions::outbound`]).

#[cfg(test)]
mod adapter_crash_tests;
mod adapter_io;
#[cfg(test)]
mod ahead_tests;
#[cfg(test)]
mod attach_tests;
pub mod breakpoints;
mod calls;
#[cfg(test)]
mod capability_tests;
mod children;
#[cfg(test)]
mod choreography_tests;
#[cfg(test)]
mod disconnect_tests;
mod events;
mod evidence;
pub mod files;
#[cfg(test)]
mod gdb_quirk_tests;
pub mod handles;
pub mod host;
#[cfg(test)]
mod inspect_more_tests;
pub mod jobs;
mod launcher;
#[cfg(test)]
mod launcher_tests;
mod link;
pub mod mirror;
mod mirror_breakpoints;
#[cfg(test)]
mod mirror_breakpoints_tests;
mod names;
#[cfg(test)]
mod netcoredbg_tests;
mod ops;
pub mod output;
#[cfg(test)]
mod oversized_tests;
mod own_change;
#[cfg(test)]
mod own_changes_tests;
pub mod plan;
pub mod postmortem;
#[cfg(test)]
mod postmortem_tests;
mod preview;
#[cfg(test)]
mod quirk_tests;
mod render;
#[cfg(test)]
mod scripted;
pub mod snapshot;
#[cfg(test)]
mod stacks_tests;
mod startup;
#[cfg(test)]
mod stop_depth_tests;
mod stop_frame;
#[cfg(test)]
mod stop_frame_tests;
pub mod test_outcome;
pub mod test_rust;
#[cfg(test)]
mod tests;
mod text;
mod threads;
pub mod tools;
mod traceback;
#[cfg(test)]
mod unnamed_ids_tests;
mod values;
pub mod waiters;

use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::Value;
use slab::Slab;

use crate::config::Config;
use crate::dap::adapters::{AdapterKind, Quirks, RuntimeQuirks, Transport};
use crate::dap::client::{self, ClientConfig, DapClient};
use crate::dap::command::AdapterCommand;
use crate::dap::requests::Request;
use breakpoints::BreakpointStore;
pub use evidence::DEFAULT_IDLE_REAP;
pub use files::Files;
use output::{Category, OutputRing, SNAPSHOT_TAIL};
use snapshot::RunState;
pub use tools::breakpoints::breakpoints_json;
pub use tools::run::{AttachStart, LaunchArgs, LaunchBreakpoint};
use waiters::Waiter;

/// Most sessions alive at once. Ended sessions count until disconnected.
pub const MAX_SESSIONS: usize = 32;
/// Default and cap of `wait_ms`: MCP clients give up on a request after ~60 s.
pub const DEFAULT_WAIT: Duration = Duration::from_millis(10_000);
pub const MAX_WAIT: Duration = Duration::from_millis(50_000);
/// How long a `disconnect` may take before the adapter's process group is killed anyway.
pub const DISCONNECT_GRACE: Duration = Duration::from_millis(2_000);
/// DAP messages kept per session for the `dap-log` resource.
pub const DAP_LOG_CAP: usize = 5_000;
/// ... and at most this many bytes of message text per session: as much as the output ring
/// holds. A flooding program's `output` events are most of its log, their text already in the
/// output ring; at 8 MiB one such session took agentdap from 8 to 16 MiB RSS (`cargo bench
/// --bench scale`). `--dap-log` files still get every message: they are written every loop turn,
/// and one turn logs far less than this per session (at most one read of its adapter).
pub const DAP_LOG_BYTES: usize = 1 << 20;
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
    /// Send `signal` to process `pid` before an attach (Node's `SIGUSR1` opens its inspector).
    SignalDebuggee { pid: i64, signal: crate::dap::adapters::DebuggeeSignal },
    /// The session's state or revision changed: `agentdap://session/{id}/state` (and
    /// `agentdap://sessions`) subscribers are told.
    StateChanged { session: String },
    /// Record the processes below every adapter now with the watchdog and their adapter
    /// (adapters put debuggees and helpers in process groups of their own; and before a
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
    /// A ledger record (README § What happened): the IO shell stamps it with the wall-clock time,
    /// keeps it in [`Sessions::ledger`] and appends it to the ledger file.
    Ledger(crate::ledger::Record),
    /// The adapter of `session` asked agentdap to run a command (`runInTerminal`). Handled inside
    /// [`Sessions::next_action`] by the host-request policy ([`host`]); never reaches the IO shell.
    HostRequest { session: SessionKey, id: client::ReverseId, arguments: Value },
    /// Run `command` for the session's adapter (an allowed `runInTerminal`): on a pseudo-terminal
    /// (`pty`: the agent asked for a terminal) or on three pipes (stdout and stderr apart), own
    /// process group, recorded with the watchdog; then [`Sessions::on_terminal_spawned`].
    RunInTerminal { session: SessionKey, reverse: client::ReverseId, command: AdapterCommand, pty: bool },
    /// Run a helper command (`jobs.rs`: a build, a stack sampler) on pipes, stdin closed, in its
    /// own process group, killed after `timeout`; then [`Sessions::on_job_done`] with what it wrote.
    RunJob { job: jobs::JobId, command: AdapterCommand, timeout: std::time::Duration },
    /// Kill a job's process group (its call was cancelled); its result, if any, is dropped.
    StopJob { job: jobs::JobId },
}

/// What to do with a job's result (`jobs.rs`): the owner's continuation, handed back by
/// [`Sessions::on_job_done`].
#[derive(Debug)]
pub enum Job {
    /// A step of debugging one Rust test (`launch {test}`): building its test binaries, then
    /// finding the one that has the test (`test_rust.rs`).
    RustTest(Box<test_rust::Step>),
    /// A stack sampler's run for `stacks` (`tools/inspect/stacks/sampled.rs`).
    Stacks(tools::inspect::stacks::Sample),
}

/// Who a DAP request's answer goes to: the start-up, the stop's bookkeeping, a tool group (its
/// operation type names the step), or a mirror client. `events.rs` routes every answer by it.
#[derive(Debug)]
pub enum Origin {
    Startup(Step),
    /// What a stop result shows (its location, threads, exception).
    Stop(events::StopDetail),
    Run(tools::run::Op),
    Control(tools::control::Op),
    Breakpoints(tools::breakpoints::Op),
    /// An inspection tool's request; `revision` is the session's when it was sent.
    Inspect {
        call: CallKey,
        op: tools::inspect::Op,
        revision: u64,
    },
    Flow(tools::flow::Op),
    Edit(tools::edit::Op),
    Source(tools::source::Op),
    Host(tools::host::Op),
    Memory(tools::memory::Op),
    /// A `stacks` read's request (`tools/inspect/stacks.rs`).
    Stacks(tools::inspect::stacks::Step),
    /// A mirror client's read-only request (SECURITY.md § The IDE mirror); the answer goes back to
    /// that client.
    Mirror(mirror::Forwarded),
}

/// A start-up request, named in timeouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Initialize,
    Launch,
    ConfigurationDone,
    /// The temporary function breakpoint that makes "stop on entry" stop at `main`
    /// (`remove`: the request that clears it at the first stop).
    EntryBreakpoint {
        remove: bool,
    },
}

impl Step {
    /// How a timeout names the request (`None`: not a start-up step the agent waits on).
    fn name(self) -> Option<&'static str> {
        match self {
            Step::Initialize => Some("initialize"),
            Step::Launch => Some("launch/attach (waiting for its response)"),
            Step::ConfigurationDone => Some("configurationDone"),
            Step::EntryBreakpoint { remove: false } => Some("setFunctionBreakpoints (entry function)"),
            Step::EntryBreakpoint { remove: true } => None,
        }
    }
}

impl client::Origin for Origin {
    fn step(&self) -> Option<&'static str> {
        match self {
            Origin::Startup(step) => step.name(),
            Origin::Breakpoints(tools::breakpoints::Op::Set { call: None, .. }) => {
                Some("setBreakpoints (configuration phase)")
            }
            Origin::Breakpoints(tools::breakpoints::Op::Exception { call: None }) => {
                Some("setExceptionBreakpoints (configuration phase)")
            }
            _ => None,
        }
    }
}

/// What a new session starts with, whatever opened it.
struct Start {
    /// What `sessions` shows as the program (for an attach: the pid or the address).
    program: String,
    breakpoints: BreakpointStore,
    exception_filters: Option<Vec<String>>,
    /// The agent-facing id, when the session takes over one ([`launcher`]'s stand-in: its
    /// start was recorded under that id already); else the next `sN`.
    id: Option<String>,
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

/// The start-up choreography's progress (DAP § Overview › Initialization).
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
    /// The adapter said its attach helper failed (`Quirks::attach_helper_failure`'s marker);
    /// its report comes next.
    helper_failed: bool,
    /// When an attach by pid last looked whether its process is still there, and when it first
    /// found it gone.
    target_checked: Option<Instant>,
    target_gone: Option<Instant>,
}

/// One debug session: one adapter connection and what agentdap knows about its debuggee, as a
/// few owned parts.
pub struct Session {
    pub id: String,
    /// The session's slab key (stable for its life).
    pub key: SessionKey,
    pub program: String,
    /// Run state, the stop, and how the run ended.
    pub run: snapshot::Run,
    /// The adapter, its plan and the DAP connection.
    pub link: link::Link,
    /// Waits under way, calls answered, what the next result says.
    pub calls: calls::Calls,
    /// Handles, threads, watches and the variables fetched this revision.
    pub view: handles::View,
    /// The DAP log and ledger records.
    pub evidence: evidence::Evidence,
    /// The parent session, child stops, the debuggee's pid and ownership.
    pub family: children::Family,
    startup: Startup,
    pub breaks: breakpoints::Breaks,
    pub output: OutputRing,
    /// The IDE mirror's view of this session.
    pub mirror: mirror::Tap,
    /// State of `run_to`, `goto` and `restart` ([`tools::flow`]).
    flow: tools::flow::State,
    /// Host requests (`runInTerminal`) and the stdin of a program agentdap runs itself.
    pub host: host::HostState,
    /// What stop results show of the frame: the current stop's view and the last one read.
    pub stops: stop_frame::StopFrames,
    /// The test this session runs (`launch {test}`), whose outcome its results report.
    pub test: Option<test_outcome::TestSession>,
    /// The `stacks` read under way and a pause of its own that may still stop the program.
    pub stacks: tools::inspect::stacks::State,
}

/// The environment variable (and `--stop-locals` flag) for the default of a call's `locals`:
/// `on` or `off`.
pub const STOP_LOCALS_ENV: &str = "AGENTDAP_STOP_LOCALS";

/// Every session, plus the breakpoints waiting for the next launch.
pub struct Sessions {
    slab: Slab<Session>,
    next_id: u32,
    /// Sessions opened so far (each session's `evidence.opened`).
    opened: u64,
    latest: Option<SessionKey>,
    /// Breakpoints set while no session was live: they apply at the next launch.
    pub pending_breakpoints: BreakpointStore,
    actions: VecDeque<Action>,
    request_timeout: Duration,
    /// The user's configuration (custom adapters), read once at start.
    pub config: Config,
    /// Whether a stop result shows the top frame's locals by default (`--stop-locals`).
    stop_locals: bool,
    /// ... and for the tool call being dispatched ([`Sessions::set_call_locals`]).
    call_locals: bool,
    /// The ledger's recent records (README § What happened); the IO shell appends them to the file.
    pub ledger: crate::ledger::Ledger,
    /// How long an ended session stays before it is released; `None`: until disconnected.
    idle_reap: Option<Duration>,
    /// The host-request policy (`--host-requests`) and host-request ids.
    pub host: host::HostTable,
    /// Operator limits (`--allow`): a mirror client gets at most what the agent may.
    pub allow: crate::allow::Allow,
    /// How the session layer reads files and `/proc` (the IO shell's `os::files::OsFiles`, or a
    /// test's fake). Shared (`Rc`) so a `Session` can hold the same handle.
    files: Rc<dyn Files>,
    /// Helper commands running for the sessions' start-ups and tools (`jobs.rs`).
    jobs: jobs::JobTable,
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
            opened: 0,
            latest: None,
            pending_breakpoints: BreakpointStore::default(),
            actions: VecDeque::new(),
            request_timeout,
            config,
            ledger: crate::ledger::Ledger::default(),
            idle_reap: Some(evidence::DEFAULT_IDLE_REAP),
            host: host::HostTable::default(),
            allow: crate::allow::Allow::all(),
            files,
            jobs: jobs::JobTable::default(),
            stop_locals: true,
            call_locals: true,
        }
    }

    /// Whether stop results show the top frame's locals when a call does not say (`--stop-locals`).
    pub fn set_default_locals(&mut self, on: bool) {
        self.stop_locals = on;
        self.call_locals = on;
        for (_, s) in self.slab.iter_mut() {
            s.stops.default_locals = on;
            s.calls.locals = on;
        }
    }

    /// The `locals` argument of the tool call about to be dispatched (`None`: not given, the
    /// default applies); the waits the call starts keep it. The MCP layer calls this before every
    /// tool handler.
    pub fn set_call_locals(&mut self, locals: Option<bool>) {
        let on = locals.unwrap_or(self.stop_locals);
        self.call_locals = on;
        for (_, s) in self.slab.iter_mut() {
            s.calls.locals = on;
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
                        let stopped =
                            self.slab.iter().find(|(_, s)| s.id == *session && s.run.state == RunState::Stopped);
                        if let Some((key, _)) = stopped {
                            self.latest = Some(key);
                        }
                    }
                    return Some(action);
                }
                None => {
                    self.sweep_launchers(now);
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
        // A hidden launcher (`launcher.rs`) is never the agent's to name: its stand-in is.
        let mut visible = self.slab.iter().filter(|(k, _)| !self.is_hidden(*k));
        match id {
            Some(id) => visible.find(|(_, s)| s.id == id).map(|(k, _)| k).ok_or_else(|| {
                let known: Vec<&str> =
                    self.slab.iter().filter(|(k, _)| !self.is_hidden(*k)).map(|(_, s)| s.id.as_str()).collect();
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
                .filter(|k| !self.is_hidden(*k) && self.slab.get(*k).is_some_and(|s| !s.run.state.is_over()))
                // Else the most recently opened live session, else the most recently opened one.
                .or_else(|| visible.clone().filter(|(_, s)| !s.run.state.is_over()).max_by_key(|(_, s)| s.evidence.opened).map(|(k, _)| k))
                .or_else(|| visible.max_by_key(|(_, s)| s.evidence.opened).map(|(k, _)| k))
                .ok_or_else(|| {
                    let msg = format!("there is no session; {}.", self.allow.how_to_start());
                    ToolResult::error(ErrorCode::SessionNotFound, msg)
                }),
        }
    }

    /// What a call with no `session` must say when it went to `key` though other sessions are
    /// stopped too (a worker's stop can move the default between two calls): which one it was,
    /// and the others. `None` when `key` is the only stopped session.
    pub fn default_note(&self, key: SessionKey) -> Option<String> {
        let stopped = |k: SessionKey| self.slab.get(k).is_some_and(|s| s.run.state == RunState::Stopped);
        let others: Vec<&str> = self
            .slab
            .iter()
            .filter(|(k, _)| *k != key && !self.is_hidden(*k) && stopped(*k))
            .map(|(_, s)| s.id.as_str())
            .collect();
        let id = &self.slab.get(key)?.id;
        (!others.is_empty()).then(|| {
            format!(
                "note: that was {id} (the default session); also stopped: {}. Pass `session` to choose.",
                others.join(", ")
            )
        })
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
        let stands_in = start.id.is_some();
        let id = start.id.unwrap_or_else(|| {
            self.next_id += 1;
            format!("s{}", self.next_id - 1)
        });
        let config = client_config(&id, &plan.name, self.request_timeout);
        self.opened += 1;
        let warnings = plan.notes.clone();
        let mut store = start.breakpoints;
        store.one_per_line = plan.quirks.one_breakpoint_per_line;
        let entry = self.slab.vacant_entry();
        let key = entry.key();
        let session = Session {
            id,
            key,
            program: start.program,
            run: snapshot::Run::default(),
            link: link::Link::new(DapClient::new(config), plan, Rc::clone(&self.files)),
            calls: calls::Calls {
                waiters: waiter
                    .into_iter()
                    .map(|mut w| {
                        w.locals = self.call_locals;
                        w
                    })
                    .collect(),
                warnings,
                locals: self.call_locals,
                ..calls::Calls::default()
            },
            view: handles::View::default(),
            evidence: evidence::Evidence { opened: self.opened, ..evidence::Evidence::new(now) },
            family: children::Family { parent, owns_debuggee, ..children::Family::default() },
            startup: Startup::default(),
            breaks: breakpoints::Breaks {
                store,
                exception_filters: start.exception_filters,
                ..breakpoints::Breaks::default()
            },
            output: OutputRing::default(),
            mirror: mirror::Tap::default(),
            flow: tools::flow::State::default(),
            host: host::HostState::default(),
            stops: stop_frame::StopFrames::new(self.stop_locals),
            test: None,
            stacks: tools::inspect::stacks::State::default(),
        };
        if !stands_in {
            self.actions.push_back(Action::Ledger(session.start_record()));
        }
        let action = match session.link.plan.connect {
            Some(addr) => Action::Connect { session: key, addr },
            None => Action::Spawn {
                session: key,
                command: session.link.plan.command.clone(),
                transport: session.link.plan.transport.clone(),
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
            .flat_map(|(_, s)| {
                let waits = s.calls.waiters.iter().map(Waiter::next_deadline).chain(s.stacks.deadline());
                s.link.client.next_deadline().into_iter().chain(waits)
            })
            .chain(self.next_reap())
            .min()
    }

    /// Fires every deadline at or before `now`.
    pub fn on_timer(&mut self, now: Instant) {
        for (_, s) in self.slab.iter_mut() {
            s.link.client.on_timer(now);
            s.stacks_tick(now);
            s.pump(now, &mut self.actions);
            s.check_attach_target(now, &mut self.actions);
            s.tick_waiters(now, &mut self.actions);
        }
        self.reap_idle(now);
    }

    /// Pending DAP bytes for `key`'s adapter (write them, then [`Sessions::consume`]).
    pub fn outbound(&self, key: SessionKey) -> &[u8] {
        self.slab.get(key).map_or(&[], |s| s.link.client.outbound())
    }

    pub fn consume(&mut self, key: SessionKey, n: usize) {
        if let Some(s) = self.slab.get_mut(key) {
            s.link.client.consume(n);
        }
    }

    /// Keys of sessions that have bytes to write.
    pub fn with_outbound(&self) -> Vec<SessionKey> {
        self.slab.iter().filter(|(_, s)| !s.link.client.outbound().is_empty()).map(|(k, _)| k).collect()
    }
}

impl Session {
    fn send(&mut self, command: &str, arguments: Option<Value>, origin: Origin, now: Instant) {
        self.send_with_timeout(command, arguments, origin, now, None);
    }

    /// Sends the typed request `R` ([`crate::dap::requests`]): the same frame as
    /// [`Session::send`] with `R::COMMAND` and its arguments serialised (none for `()`).
    fn request<R: Request>(&mut self, arguments: R::Arguments, origin: Origin, now: Instant) {
        self.send(R::COMMAND, R::arguments(&arguments).unwrap_or(None), origin, now)
    }

    /// Sends DAP `disconnect` (`terminateDebuggee` as given, no restart) with a short timeout:
    /// an adapter that does not answer it is stopped after [`DISCONNECT_GRACE`] instead of
    /// holding the agent for the full request timeout.
    pub(super) fn send_disconnect(&mut self, terminate_debuggee: Option<bool>, origin: Origin, now: Instant) {
        use crate::dap::requests::{Disconnect, DisconnectArguments};
        if terminate_debuggee.is_some() {
            self.run.disconnect_terminates = terminate_debuggee;
        }
        let args = DisconnectArguments { restart: Some(false), terminate_debuggee, suspend_debuggee: None };
        // Serialising these plain fields cannot fail (`unwrap_or` only satisfies the type).
        let args = Disconnect::arguments(&args).unwrap_or(None);
        self.send_with_timeout(Disconnect::COMMAND, args, origin, now, Some(DISCONNECT_GRACE));
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
        if let Some(why) = self.link.plan.quirks.unknown_request(&self.link.adapter, command) {
            log::warn!("{}: {why}", self.id);
            self.failed_origin(origin, ErrorCode::Unsupported, format!("{why}."));
            return;
        }
        self.run.note_request(command, arguments.as_ref());
        // An expression that may write is the agent's change whatever the answer (it can write
        // and then fail): a later stop's changes say so (`own_change.rs`). A raw request is
        // named when it is answered (`events.rs`).
        if command == "evaluate" && !matches!(origin, Origin::Host(_)) {
            // A watch `context` evaluates counts only when it assigns.
            let watch = matches!(&origin, Origin::Inspect { op: tools::inspect::Op::Context(_), .. });
            self.note_evaluate(arguments.as_ref(), !watch, if watch { "the watch" } else { "evaluate" });
        }
        if let Err(refused) = self.link.client.request(command, arguments, origin, now, timeout) {
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
        self.link.stderr_tail.extend_from_slice(bytes);
        if self.link.stderr_tail.len() > STDERR_TAIL {
            let cut = self.link.stderr_tail.len() - STDERR_TAIL;
            self.link.stderr_tail.drain(..cut);
        }
    }

    /// The adapter's output started a crash report ([`RuntimeQuirks::crash_markers`]): one
    /// diagnostic in the output, the report itself only in the stderr tail (shown when the
    /// session ends), instead of hundreds of output entries.
    pub(super) fn note_crash(&mut self, first: &str) {
        self.link.crashed = true;
        let line = first.lines().find(|l| self.link.plan.runtime.is_crash_report(l)).unwrap_or(first).trim();
        self.output.push(
            Category::Adapter,
            &format!("{} crashed ({line}); the rest of its crash report is not shown as output\n", self.link.adapter),
        );
    }
}

/// `s` cut to at most `max` characters (ending in `…` when cut), for one-line summaries.
pub fn clip_text(s: &str, max: usize) -> String {
    text::clip(s, max).0
}

/// The DAP client configuration of every session's connection (a new session, a relaunch).
fn client_config(id: &str, adapter: &str, request_timeout: Duration) -> ClientConfig {
    let mut config = ClientConfig::new(format!("{id} {adapter}"));
    config.request_timeout = request_timeout;
    // `runInTerminal` goes to the host-request policy (`Action::HostRequest`).
    config.run_in_terminal = client::RunInTerminalPolicy::Surface;
    config
}
