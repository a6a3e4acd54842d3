//! The event loop: one `mio::Poll` over stdin, stdout, signals and (later) adapter pipes and
//! streams, mirror listeners and clients; the deadline queue; shutdown. The only mio user, and
//! the only code that touches the MCP stdio file descriptors. It speaks no protocol itself: lines
//! go to [`Mcp`], bytes come back.
//!
//! Architecture Invariant: nothing here blocks. Every fd the loop reads or writes is either
//! non-blocking or a regular file (which epoll cannot watch and which never blocks for long).

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

use log::{debug, info, trace, warn};
use mio::event::Event;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll};

mod adapters;
mod evidence;
mod jobs;
mod mirror;

pub use evidence::{DAP_LOG_ENV, IDLE_REAP_ENV};
mod streams;
mod terminal;

use std::collections::HashMap;

use slab::Slab;

use crate::config::Config;
use crate::io_buf::{LineEvent, LineReader, OutBuf};
use crate::mcp::{Context, Mcp};
use crate::os::proc_scan::ProcScan;
use crate::os::spawn::{self, Pid};
use crate::os::watchdog::Watchdog;
use crate::session::{SessionKey, Sessions};
use crate::timer::{TimerId, Timers};
use crate::token::{self, Kind, Source};
use adapters::AdapterIo;
use streams::StreamIo;

/// Bytes read from stdin per `read` call.
const READ_CHUNK: usize = 64 * 1024;
/// Reads of stdin per loop turn (one chunk, 64 KiB), like every other source's: see [`TURN_BUDGET`].
const READS_PER_TURN: usize = 1;
/// Bytes one adapter pipe, adapter stream or terminal pipe may deliver per loop turn (one read).
///
/// Architecture Invariant (fairness): work per source per loop turn is bounded. Events only
/// mark a source ready; each turn serves every ready source once, up to its budget, and a source
/// left with data keeps its ready flag, so the loop polls again without waiting and serves it
/// next turn, after everyone else had theirs. One flooding adapter thus delays another session
/// by at most one budget's worth of its processing (`cargo bench --bench fairness`).
pub(super) const TURN_BUDGET: usize = 4 * 1024;
/// Events taken from one `poll` call.
const MAX_EVENTS: usize = 256;
/// During shutdown, give up on stdout after it has accepted nothing for this long.
const FLUSH_STALL: Duration = Duration::from_millis(500);
/// During shutdown, how long sessions get to disconnect before their adapters are killed
/// (the whole shutdown stays within ~3 s; `sigterm_leaves_nothing` pins it).
const SHUTDOWN_GRACE: Duration = Duration::from_millis(2000);

const STDIN_FD: RawFd = 0;
const STDOUT_FD: RawFd = 1;

/// Why the server stops (all of them end with exit code 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShutdownReason {
    /// stdin reached end of file (or failed to read).
    StdinEof,
    /// SIGTERM, SIGINT or SIGHUP (the signal number).
    Signal(i32),
    /// The client closed its end of stdout (`EPIPE`) or writing to it failed.
    StdoutClosed,
}

/// A failure that stops the server before or outside the normal shutdown path.
#[derive(Debug)]
pub enum ServerError {
    /// A setup step failed (the step, and the OS error).
    Setup(&'static str, io::Error),
    /// `epoll_wait` failed.
    Poll(io::Error),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Setup(step, e) => write!(f, "cannot {step}: {e}"),
            ServerError::Poll(e) => write!(f, "event loop failed: {e}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// Runs the stdio MCP server until shutdown. `Ok` means a clean shutdown (exit code 0).
///
/// `config` holds the custom adapters (`--config`).
///
/// Errors: [`ServerError`] when the loop cannot be set up or `epoll_wait` fails.
pub fn run(config: Config) -> Result<(), ServerError> {
    Server::new(config)?.run()
}

/// What a deadline does when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimerEvent {
    /// Shutdown has waited long enough for stdout (it made no progress for [`FLUSH_STALL`]).
    FlushDeadline,
    /// An adapter's SIGTERM grace period is over (adapter slab key, and its pid to detect reuse).
    KillAdapter { key: usize, pid: Pid },
    /// Shutdown has waited long enough for sessions to disconnect.
    ShutdownGrace,
    /// Time to walk the process tree below running adapters (`adapters::WALK_EVERY`).
    WalkDescendants,
    /// A mirror client's deadline (slab key, and its serial to detect reuse).
    MirrorClient { key: usize, serial: u64 },
    /// A TCP connector's deadline (stream slab key): a retry's backoff, an attempt's or the
    /// whole connect's timeout.
    Connect { key: usize },
    /// A terminal process's SIGTERM grace period is over (terminal slab key, and its pid).
    KillTerminal { key: usize, pid: Pid },
    /// A job's deadline (job slab key, and its pid to detect reuse): SIGKILL it.
    JobDeadline { key: usize, pid: Pid },
}

/// How stdin is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StdinMode {
    /// Registered with the poll (pipe, socket, tty), non-blocking.
    Polled,
    /// Not pollable (a regular file or `/dev/null`): always readable until EOF.
    File,
    /// EOF reached or shutting down: no longer registered, never read again.
    Done,
}

/// How stdout is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StdoutMode {
    /// Pollable and non-blocking; registered WRITABLE only while output is pending and the last
    /// write hit `WouldBlock`.
    Polled { registered: bool },
    /// Not pollable (a regular file): written directly.
    Direct,
}

/// The event loop and everything it owns.
///
/// Adding a dynamic source kind (adapter pipes, adapter streams, mirror listeners and clients):
/// give this struct a `Slab` for it, register each source with `token::encode(kind, key)` where
/// `key` is its slab key, and handle the kind in [`Server::on_dynamic`], ignoring keys that are
/// vacant. Deregister before removing from the slab; a key freed and reused can then only receive
/// events for the new source.
struct Server {
    poll: Poll,
    mcp: Mcp,
    sessions: Sessions,
    /// Running adapter processes (token kind `AdapterPipe`, key = slab key × 4 + pipe).
    adapters: Slab<AdapterIo>,
    adapter_of: HashMap<SessionKey, usize>,
    /// DAP connections over TCP (token kind `AdapterStream`), with or without an adapter
    /// process behind them. A session's DAP transport is its adapter's pipes when it has no
    /// entry here, else this stream.
    streams: Slab<StreamIo>,
    stream_of: HashMap<SessionKey, usize>,
    /// Processes run for adapters' `runInTerminal` (token kind `TerminalPipe`, key = slab key
    /// × 4 + pipe).
    terminals: Slab<terminal::TerminalIo>,
    /// Helper commands run for the session layer (`Action::RunJob`; token kind `JobPipe`, key =
    /// slab key × 4 + pipe).
    jobs: Slab<jobs::JobIo>,
    /// Processes adopted by agentdap (a child subreaper) that no adapter or terminal tree holds any
    /// more — a debuggee's daemon (`setsid`, double fork) — and that no single session could be
    /// named for, as (pid, start time): killed when no session is left, and at shutdown.
    orphans: Vec<(Pid, u64)>,
    /// Reused read buffer for adapter pipes.
    pipe_buf: Vec<u8>,
    /// Kills launched debuggees if agentdap dies; `None` if it could not start.
    watchdog: Option<Watchdog>,
    grace_expired: bool,
    /// A `WalkDescendants` timer is pending.
    walk_armed: bool,
    /// A walk of the process tree is due at the end of this turn (`Server::walk_descendants`),
    /// once the turn's DAP requests and answers are written.
    walk_due: bool,
    /// `/proc` as the last walk saw it.
    proc_scan: ProcScan,
    timers: Timers<TimerEvent>,
    signals: Signals,
    reader: LineReader,
    read_buf: Vec<u8>,
    out: OutBuf,
    stdin_mode: StdinMode,
    stdout_mode: StdoutMode,
    /// stdin may have data (set by READABLE, cleared by `WouldBlock`): reads paused by
    /// backpressure resume from here without waiting for a new edge.
    stdin_readable: bool,
    stdin_eof: bool,
    /// Reading is paused because stdout's buffer is over its cap (kept for logging transitions).
    stdin_paused: bool,
    /// The reader may hold complete lines (set by `feed`, cleared when `next_line` is `None`).
    lines_pending: bool,
    /// stdout accepted the last write or signalled WRITABLE since it refused one.
    stdout_writable: bool,
    shutdown: Option<ShutdownReason>,
    flush_deadline: Option<TimerId>,
    flush_expired: bool,
    force_exit: bool,
    /// Mirror listeners and clients.
    mirror: mirror::MirrorIo,
    /// The ledger file and `--dap-log` files.
    evidence: evidence::Evidence,
    /// Restores the original file status flags of stdin and stdout on exit, the last changed
    /// first (see [`FdFlags`]).
    _flags: Vec<FdFlags>,
}

impl Server {
    fn new(config: Config) -> Result<Server, ServerError> {
        ignore_sigpipe();
        let poll = Poll::new().map_err(|e| ServerError::Setup("create the poll", e))?;
        let signals = Signals::new().map_err(|e| ServerError::Setup("set up signal handling", e))?;
        poll.registry()
            .register(&mut SourceFd(&signals.fd.as_raw_fd()), token::SIGNALS, Interest::READABLE)
            .map_err(|e| ServerError::Setup("register signals", e))?;

        let mut flags = Vec::new();
        let mut stdin_eof = false;
        let stdin_mode = match poll.registry().register(&mut SourceFd(&STDIN_FD), token::STDIN, Interest::READABLE) {
            Ok(()) => {
                flags.push(
                    FdFlags::set_nonblocking(STDIN_FD).map_err(|e| ServerError::Setup("set stdin non-blocking", e))?,
                );
                StdinMode::Polled
            }
            Err(e) if e.raw_os_error() == Some(libc::EPERM) => StdinMode::File,
            Err(e) => {
                warn!("stdin is unusable ({e}); shutting down");
                stdin_eof = true;
                StdinMode::Done
            }
        };
        // Probe once whether stdout is pollable; afterwards WRITABLE is registered only on demand.
        let stdout_mode = match poll.registry().register(&mut SourceFd(&STDOUT_FD), token::STDOUT, Interest::WRITABLE) {
            Ok(()) => {
                flags.insert(
                    0,
                    FdFlags::set_nonblocking(STDOUT_FD)
                        .map_err(|e| ServerError::Setup("set stdout non-blocking", e))?,
                );
                StdoutMode::Polled { registered: true }
            }
            Err(_) => StdoutMode::Direct,
        };
        debug!("stdin {stdin_mode:?}, stdout {stdout_mode:?}");

        if let Err(e) = spawn::become_subreaper() {
            warn!("cannot become a child subreaper ({e}); orphaned debuggees may escape");
        }
        let watchdog = match Watchdog::start() {
            Ok(w) => Some(w),
            Err(e) => {
                warn!("cannot start the watchdog ({e}); debuggees may outlive a killed agentdap");
                None
            }
        };
        let files = std::rc::Rc::new(crate::os::files::OsFiles);
        let mut sessions = Sessions::with_files(crate::dap::client::DEFAULT_REQUEST_TIMEOUT, config, files);
        sessions.set_idle_reap(evidence::idle_reap_from_env());
        // Validated by `main`; unset means on.
        if std::env::var(crate::session::STOP_LOCALS_ENV).is_ok_and(|v| v.trim() == "off") {
            sessions.set_default_locals(false);
        }
        let mut reader = LineReader::default();
        if stdin_eof {
            reader.finish();
        }
        // Validated by `main` (an invalid value never gets here); unset means allow.
        let policy = std::env::var(crate::session::host::POLICY_ENV).ok();
        sessions.host.policy = policy.as_deref().and_then(crate::session::host::HostPolicy::parse).unwrap_or_default();
        // Under `ask`, launches wait for `resolve_host_request`: offered even with `--tools core`.
        let ask = sessions.host.policy == crate::session::host::HostPolicy::Ask;
        let also: &[&str] = if ask { &["resolve_host_request"] } else { &[] };
        // Validated by `main`; unset means everything.
        let allow = crate::allow::Allow::from_env_value(std::env::var(crate::allow::ENV).ok().as_deref());
        sessions.allow = allow;
        let tool_set = crate::mcp::ToolSet::from_env_value(std::env::var(crate::mcp::TOOLS_ENV).ok().as_deref());
        Ok(Server {
            poll,
            mcp: Mcp::with_limits(tool_set, also, allow),
            sessions,
            adapters: Slab::new(),
            adapter_of: HashMap::new(),
            streams: Slab::new(),
            stream_of: HashMap::new(),
            terminals: Slab::new(),
            jobs: Slab::new(),
            orphans: Vec::new(),
            pipe_buf: Vec::new(),
            watchdog,
            grace_expired: false,
            walk_armed: false,
            walk_due: false,
            proc_scan: ProcScan::default(),
            timers: Timers::new(),
            signals,
            reader,
            read_buf: vec![0; READ_CHUNK],
            out: OutBuf::new(),
            stdin_mode,
            stdout_mode,
            stdin_readable: true,
            stdin_eof,
            stdin_paused: false,
            lines_pending: stdin_eof,
            stdout_writable: true,
            shutdown: None,
            flush_deadline: None,
            flush_expired: false,
            force_exit: false,
            mirror: mirror::MirrorIo::new(),
            evidence: evidence::Evidence::from_env(),
            _flags: flags,
        })
    }

    fn run(&mut self) -> Result<(), ServerError> {
        let mut events = Events::with_capacity(MAX_EVENTS);
        loop {
            let now = Instant::now();
            self.fire_timers(now);
            self.read_ready_adapters(now);
            self.read_ready_terminals();
            self.read_ready_jobs(now);
            self.read_ready_streams(now);
            self.pump_stdin(now);
            // Requests the adapters' messages and the agent's calls queued go out before the
            // turn's other work (answers rendered, ledger records, walks).
            self.write_adapters(now);
            self.process_actions(now);
            self.arm_walk(now);
            self.pump_mirrors(now);
            // The agent's answers first; a walk, the ledger and `--dap-log` files after.
            self.flush_stdout(now);
            self.mcp.release_spent();
            if std::mem::take(&mut self.walk_due) {
                self.walk_descendants();
            }
            self.flush_evidence();
            if self.out.over_cap() != self.stdin_paused {
                self.stdin_paused = !self.stdin_paused;
                let state = if self.stdin_paused { "paused" } else { "resumed" };
                debug!("stdin {state}: {} bytes of output pending", self.out.pending());
            }
            if self.ready_to_exit() {
                self.kill_all_adapters();
                // Whatever the kills recorded reaches the ledger too.
                self.flush_evidence();
                info!("shutdown complete ({:?})", self.shutdown);
                return Ok(());
            }
            let busy = self.stdin_has_work()
                || self.adapters_have_work()
                || self.terminals_have_work()
                || self.jobs_have_work()
                || self.streams_have_work();
            let timeout = if busy || self.mirrors_have_work() {
                Some(Duration::ZERO)
            } else {
                let sessions = self.sessions.next_deadline().map(|d| d.saturating_duration_since(now));
                match (self.timers.timeout(now), sessions) {
                    (Some(a), Some(b)) => Some(a.min(b + Duration::from_millis(1))),
                    (a, b) => a.or(b.map(|b| b + Duration::from_millis(1))),
                }
            };
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(ServerError::Poll(e));
            }
            let now = Instant::now();
            for event in events.iter() {
                self.dispatch(event, now);
            }
        }
    }

    fn dispatch(&mut self, event: &Event, now: Instant) {
        match token::decode(event.token()) {
            // Readable, read-closed and error all mean: the next read says which.
            Some(Source::Stdin) => self.stdin_readable = true,
            Some(Source::Stdout) => self.stdout_writable = true,
            Some(Source::Signals) => self.on_signals(),
            Some(Source::Dynamic(kind, key)) => self.on_dynamic(kind, key, event, now),
            None => trace!("event for unknown token {:?}", event.token()),
        }
    }

    /// Events of dynamic sources; vacant keys are ignored.
    fn on_dynamic(&mut self, kind: Kind, key: usize, event: &Event, now: Instant) {
        match kind {
            Kind::AdapterPipe => self.on_adapter_pipe(key, event),
            Kind::MirrorListener => self.on_mirror_listener(key, now),
            Kind::MirrorClient => self.on_mirror_client(key, event, now),
            Kind::AdapterStream => self.on_adapter_stream(key, event, now),
            Kind::TerminalPipe => self.on_terminal_pipe(key, event),
            Kind::JobPipe => self.on_job_pipe(key, now),
        }
    }

    fn fire_timers(&mut self, now: Instant) {
        while let Some((id, event)) = self.timers.pop_expired(now) {
            match event {
                TimerEvent::FlushDeadline => {
                    if self.flush_deadline == Some(id) {
                        if self.out.pending() > 0 {
                            warn!("stdout accepted nothing for {FLUSH_STALL:?}; dropping {} bytes", self.out.pending());
                        }
                        self.flush_expired = true;
                    }
                }
                TimerEvent::KillAdapter { key, pid } => self.kill_adapter(key, pid),
                TimerEvent::WalkDescendants => {
                    self.walk_armed = false;
                    self.walk_due = true;
                    self.arm_walk(now);
                }
                TimerEvent::MirrorClient { key, serial } => self.on_mirror_timer(key, serial, now),
                TimerEvent::ShutdownGrace => {
                    if !self.adapters_gone() {
                        warn!("sessions did not end within {SHUTDOWN_GRACE:?}; killing their adapters");
                    }
                    self.grace_expired = true;
                }
                TimerEvent::Connect { key } => self.on_connect_timer(key, id, now),
                TimerEvent::KillTerminal { key, pid } => self.kill_terminal(key, pid),
                TimerEvent::JobDeadline { key, pid } => self.kill_job(key, pid, true),
            }
        }
    }

    /// Whether the loop should come back to stdin without sleeping.
    fn stdin_has_work(&self) -> bool {
        self.shutdown.is_none()
            && !self.out.over_cap()
            && (self.lines_pending || (self.stdin_readable && !self.stdin_eof))
    }

    /// Hands buffered lines to the MCP layer and reads more, while output is under its cap.
    /// Reads at most [`READS_PER_TURN`] chunks, so other sources are not starved.
    fn pump_stdin(&mut self, now: Instant) {
        let mut reads = 0;
        while self.shutdown.is_none() && !self.out.over_cap() {
            if self.lines_pending {
                match self.reader.next_line() {
                    Some(LineEvent::Line(line)) => {
                        let cx = &mut Context { out: self.out.tail(), now, sessions: &mut self.sessions };
                        self.mcp.handle_line(line, cx);
                    }
                    Some(LineEvent::TooLong(len)) => {
                        warn!("dropped an input line of {len} bytes (over the line cap)");
                        let cx = &mut Context { out: self.out.tail(), now, sessions: &mut self.sessions };
                        self.mcp.line_too_long(len, cx);
                    }
                    None => {
                        self.lines_pending = false;
                        if self.reader.is_done() {
                            self.begin_shutdown(ShutdownReason::StdinEof, now);
                        }
                    }
                }
                continue;
            }
            if !self.stdin_readable || self.stdin_eof || reads == READS_PER_TURN {
                return;
            }
            reads += 1;
            match read_fd(STDIN_FD, &mut self.read_buf) {
                Ok(0) => self.stdin_reached_eof(),
                Ok(n) => {
                    self.reader.feed(&self.read_buf[..n]);
                    self.lines_pending = true;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.stdin_readable = false,
                Err(e) => {
                    warn!("reading stdin failed: {e}; treating it as end of input");
                    self.stdin_reached_eof();
                }
            }
        }
    }

    fn stdin_reached_eof(&mut self) {
        debug!("stdin reached EOF");
        self.stdin_eof = true;
        self.reader.finish();
        self.lines_pending = true;
        self.deregister_stdin();
    }

    fn deregister_stdin(&mut self) {
        if self.stdin_mode == StdinMode::Polled {
            // Failure only means it was not registered any more.
            let _ = self.poll.registry().deregister(&mut SourceFd(&STDIN_FD));
        }
        self.stdin_mode = StdinMode::Done;
    }

    /// Writes pending output; keeps WRITABLE interest registered exactly while it is needed.
    fn flush_stdout(&mut self, now: Instant) {
        if self.out.pending() > 0 && self.stdout_writable {
            match self.out.write_to(&mut FdWriter(STDOUT_FD)) {
                Ok(written) => {
                    if written.blocked {
                        self.stdout_writable = false;
                    }
                    if written.bytes > 0 && self.shutdown.is_some() {
                        self.arm_flush_deadline(now);
                    }
                }
                Err(e) => {
                    if e.kind() == io::ErrorKind::BrokenPipe {
                        debug!("stdout closed by the client");
                    } else {
                        warn!("writing stdout failed: {e}");
                    }
                    self.out.clear();
                    self.begin_shutdown(ShutdownReason::StdoutClosed, now);
                }
            }
        }
        if let StdoutMode::Polled { registered } = self.stdout_mode {
            let want = self.out.pending() > 0;
            if want != registered {
                let registry = self.poll.registry();
                let result = if want {
                    registry.register(&mut SourceFd(&STDOUT_FD), token::STDOUT, Interest::WRITABLE)
                } else {
                    registry.deregister(&mut SourceFd(&STDOUT_FD))
                };
                match result {
                    Ok(()) => self.stdout_mode = StdoutMode::Polled { registered: want },
                    Err(e) => {
                        warn!("cannot change stdout interest: {e}; writing it directly from now on");
                        self.stdout_mode = StdoutMode::Direct;
                        self.stdout_writable = true;
                    }
                }
            }
        }
    }

    fn on_signals(&mut self) {
        loop {
            match self.signals.read() {
                Ok(Some(signo)) => self.on_signal(signo),
                Ok(None) => return,
                Err(e) => {
                    warn!("reading signals failed: {e}");
                    return;
                }
            }
        }
    }

    fn on_signal(&mut self, signo: i32) {
        match signo {
            libc::SIGTERM | libc::SIGINT | libc::SIGHUP => {
                if self.shutdown.is_some() {
                    info!("signal {signo} during shutdown; exiting now");
                    self.force_exit = true;
                } else {
                    info!("signal {signo}; shutting down");
                    self.begin_shutdown(ShutdownReason::Signal(signo), Instant::now());
                }
            }
            // signalfd coalesces SIGCHLDs: reap every exited child.
            libc::SIGCHLD => self.reap_children(Instant::now()),
            _ => trace!("ignored signal {signo}"),
        }
    }

    /// Stops taking work: disconnects every session (launched debuggees terminated, attached ones
    /// detached), answers open subscriptions, and lets [`Server::ready_to_exit`] wait until the
    /// adapters are gone or [`SHUTDOWN_GRACE`] passed (then they are killed).
    fn begin_shutdown(&mut self, reason: ShutdownReason, now: Instant) {
        if self.shutdown.is_some() {
            return;
        }
        debug!("shutting down: {reason:?}");
        self.shutdown = Some(reason);
        self.deregister_stdin();
        self.arm_flush_deadline(now);
        // Disconnect every session (launched debuggees are terminated) and give them a grace
        // period; whatever is left afterwards is killed.
        self.sessions.shutdown(now);
        // A build or a sampler has nothing to finish that anyone will read.
        self.kill_all_jobs();
        // Sessions still connecting to their adapter have nothing to disconnect: stop them.
        let connecting: Vec<(usize, SessionKey, bool)> = self
            .streams
            .iter()
            .filter(|(_, s)| !s.is_connected())
            .map(|(k, s)| (k, s.session(), s.process.is_some()))
            .collect();
        for (key, session, has_process) in connecting {
            if has_process {
                self.stop_adapter(session, now);
            } else {
                self.close_stream(key, true, now);
            }
        }
        self.process_actions(now);
        // Open `subscriptions/listen` requests get their final answer (MCP 2026-07-28).
        let cx = &mut Context { out: self.out.tail(), now, sessions: &mut self.sessions };
        self.mcp.close_subscriptions(cx);
        if self.timers.insert(now + SHUTDOWN_GRACE, TimerEvent::ShutdownGrace).is_err() {
            self.grace_expired = true;
        }
    }

    fn arm_flush_deadline(&mut self, now: Instant) {
        if let Some(old) = self.flush_deadline.take() {
            self.timers.cancel(old);
        }
        match self.timers.insert(now + FLUSH_STALL, TimerEvent::FlushDeadline) {
            Ok(id) => self.flush_deadline = Some(id),
            Err(e) => {
                warn!("{e}; not waiting for stdout");
                self.flush_expired = true;
            }
        }
    }

    /// Keeps one `WalkDescendants` timer pending while adapters run.
    fn arm_walk(&mut self, now: Instant) {
        if !self.walk_armed && self.adapters.is_empty() && self.terminals.is_empty() && !self.orphans.is_empty() {
            // The last session is gone: what it left behind goes too.
            self.kill_orphans();
        }
        if self.walk_armed || (self.adapters.is_empty() && self.terminals.is_empty()) {
            return;
        }
        if self.timers.insert(now + adapters::WALK_EVERY, TimerEvent::WalkDescendants).is_ok() {
            self.walk_armed = true;
        }
    }

    fn ready_to_exit(&self) -> bool {
        let adapters_done = self.adapters_gone() || self.grace_expired;
        self.force_exit || (self.shutdown.is_some() && adapters_done && (self.out.pending() == 0 || self.flush_expired))
    }
}

/// `read(2)` on a raw fd, retrying `EINTR`.
fn read_fd(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        // SAFETY: `buf` is valid for `buf.len()` bytes of writes.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// `io::Write` over a raw fd that it does not own (stdout stays open for the process's life).
struct FdWriter(RawFd);

impl io::Write for FdWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: `buf` is valid for `buf.len()` bytes of reads.
        let n = unsafe { libc::write(self.0, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A file descriptor's original status flags, restored on drop (stdin and stdout may be shared
/// with the parent, e.g. a terminal, which must not be left non-blocking) and by the panic hook
/// [`restore_on_panic`] installs: the release build aborts on a panic (`panic = "abort"` in
/// Cargo.toml), so no destructor runs then. Restored in the reverse order of the changes: stdin
/// and stdout are often one open file description (a terminal opened once), whose flags stdout's
/// change found already non-blocking.
struct FdFlags {
    fd: RawFd,
    original: libc::c_int,
}

/// The original flags of stdin (index 0) and stdout (index 1) while an [`FdFlags`] holds them
/// changed; -1 when there is nothing to restore.
static HELD_FLAGS: [AtomicI32; 2] = [AtomicI32::new(-1), AtomicI32::new(-1)];

/// The [`HELD_FLAGS`] slot of stdin or stdout.
fn held_flags(fd: RawFd) -> Option<&'static AtomicI32> {
    usize::try_from(fd).ok().and_then(|i| HELD_FLAGS.get(i))
}

impl FdFlags {
    fn set_nonblocking(fd: RawFd) -> io::Result<FdFlags> {
        // SAFETY: fcntl on an fd number has no memory-safety preconditions.
        let original = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if original < 0 {
            return Err(io::Error::last_os_error());
        }
        restore_on_panic();
        if let Some(held) = held_flags(fd) {
            held.store(original, Ordering::SeqCst);
        }
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, original | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(FdFlags { fd, original })
    }
}

impl Drop for FdFlags {
    fn drop(&mut self) {
        if let Some(held) = held_flags(self.fd) {
            held.store(-1, Ordering::SeqCst);
        }
        // SAFETY: as above. Best effort: nothing useful to do on failure at exit.
        unsafe { libc::fcntl(self.fd, libc::F_SETFL, self.original) };
    }
}

/// Installs (once) a panic hook that gives stdin and stdout back their original flags before
/// the default hook prints the panic; the process then aborts (release) or unwinds (tests).
fn restore_on_panic() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            for fd in [STDOUT_FD, STDIN_FD] {
                let original = held_flags(fd).map_or(-1, |held| held.swap(-1, Ordering::SeqCst));
                if original >= 0 {
                    // SAFETY: as in `FdFlags::set_nonblocking`.
                    unsafe { libc::fcntl(fd, libc::F_SETFL, original) };
                }
            }
            default(info);
        }));
    });
}

/// Makes a write to a closed pipe return `EPIPE` instead of killing the process. Children
/// spawned through `std::process::Command` get the default disposition back.
fn ignore_sigpipe() {
    // SAFETY: setting a signal disposition to SIG_IGN has no preconditions.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

/// SIGTERM, SIGINT, SIGHUP and SIGCHLD, delivered through a non-blocking `signalfd`.
///
/// The signals are blocked for the process so that they queue on the fd. A blocked mask is
/// inherited across `exec`; `std::process::Command` resets it in the child, and any other spawn
/// path must do the same.
struct Signals {
    fd: OwnedFd,
}

impl Signals {
    const HANDLED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGCHLD];

    fn new() -> io::Result<Signals> {
        // SAFETY: `set` is a plain C struct initialised by sigemptyset before use; the calls get
        // valid pointers to it.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for signo in Self::HANDLED {
                libc::sigaddset(&mut set, signo);
            }
            if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
            let fd = libc::signalfd(-1, &set, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(Signals { fd: OwnedFd::from_raw_fd(fd) })
        }
    }

    /// The next pending signal number, or `None` when none is pending.
    fn read(&self) -> io::Result<Option<i32>> {
        // SAFETY: signalfd_siginfo is a plain C struct; all-zero is a valid value.
        let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::signalfd_siginfo>();
        // SAFETY: `info` is a live value of exactly `size` bytes, viewed as bytes only here.
        let buf = unsafe { std::slice::from_raw_parts_mut((&mut info as *mut libc::signalfd_siginfo).cast(), size) };
        match read_fd(self.fd.as_raw_fd(), buf) {
            Ok(n) if n == size => Ok(Some(info.ssi_signo as i32)),
            Ok(n) => Err(io::Error::new(io::ErrorKind::InvalidData, format!("short signalfd read of {n} bytes"))),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }
}
