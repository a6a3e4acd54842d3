//! Adapter processes as sources of the loop: spawning them for the session layer, their three
//! pipes, writing DAP bytes, their exits, and stopping them (SIGTERM, then SIGKILL after a grace
//! period). Also carries out every other [`Action`] the session layer queues.

use std::io;
use std::time::{Duration, Instant};

use log::{debug, info, trace, warn};
use mio::event::Event;

use super::streams::{CONNECT_TIMEOUT, LISTENING_CONNECT_TIMEOUT};
use super::{Server, TimerEvent};
use crate::config::PORT_PLACEHOLDER;
use crate::dap::adapters::{PortDiscovery, Transport};
use crate::dap::tcp::{self, Connector, PortScanner, Scan};
use crate::mcp::Context;
use crate::os::child::{Child, PipeKind, ReadOutcome, WriteOutcome};
use crate::os::spawn::{self, Pid, SpawnError};
use crate::os::watchdog::Watchdog;
use crate::reply::ErrorCode;
use crate::session::{Action, SessionKey};
use crate::token::{self, Kind};

/// Bytes read from an adapter pipe per `read` call: one loop turn's budget.
const PIPE_CHUNK: usize = super::TURN_BUDGET;
/// Reads of one adapter pipe per loop turn ([`super::TURN_BUDGET`]); a pipe left with data keeps
/// its ready flag and is read again next turn.
const READS_PER_TURN: usize = 1;
/// Reads per pipe when a program's end is about to be reported: 64 × [`PIPE_CHUNK`] is 256 KiB,
/// four times a Linux pipe's default capacity (pipe(7)).
const READS_TO_DRAIN: usize = 64;
/// Reads of an exited adapter's pipes at its reaping (4 MiB): what it wrote before exiting
/// reaches the session before its exit does.
const READS_AT_EXIT: usize = 256;
/// How often the process tree below running adapters is walked for pids to track.
pub(super) const WALK_EVERY: Duration = Duration::from_secs(1);
/// Most processes tracked per adapter.
const MAX_TRACKED: usize = 1024;
/// Time between SIGTERM to an adapter's process group and SIGKILL.
pub(super) const KILL_GRACE: Duration = Duration::from_millis(1500);

fn pipe_token(key: usize, which: PipeKind) -> Option<mio::Token> {
    token::encode(Kind::AdapterPipe, key << 2 | which as usize)
}

/// One running adapter process.
pub(super) struct AdapterIo {
    session: SessionKey,
    /// The process, its pipes and the processes below it (debuggees, launchers), stopped with it.
    child: Child,
    /// The session let go of this adapter (it was released): its output is drained and dropped.
    detached: bool,
    /// DAP flows on stdin/stdout (a stdio adapter); otherwise over the stream `stream`, and
    /// stdout/stderr are the adapter's (and, per its recipe, the debuggee's) output.
    dap_on_pipes: bool,
    /// The TCP stream (key in `Server::streams`) this adapter serves.
    stream: Option<usize>,
    /// Port announcement scanners for stdout and stderr, until one finds the port.
    scanners: Option<[PortScanner; 2]>,
    /// A chosen port to connect to once the adapter printed this text
    /// (`PortDiscovery::ChosenAfterLine`).
    ready_line: Option<(&'static str, std::net::SocketAddr)>,
    /// The session's temporary directory, removed once the adapter is gone.
    scratch_dir: Option<std::path::PathBuf>,
    /// A `restart` replaces this adapter: the session (this id) opens the new one once this one
    /// is gone ([`crate::session::Sessions::on_adapter_replaced`]).
    replaced_for: Option<String>,
}

impl Server {
    /// Carries out every queued session action, answers finished calls, writes DAP bytes.
    pub(super) fn process_actions(&mut self, now: Instant) {
        for call in self.mcp.take_cancelled() {
            debug!("call {call:?} cancelled by the client; its wait ends, the program is not touched");
            self.sessions.cancel(call, now);
        }
        if self.sessions.next_deadline().is_some_and(|d| d <= now) {
            self.sessions.on_timer(now);
        }
        while let Some(action) = self.sessions.next_action(now) {
            match action {
                Action::Spawn { session, command, transport } => self.spawn(session, command, &transport, now),
                Action::Connect { session, addr } => {
                    let key = self.open_stream(session, Connector::new(addr, now, LISTENING_CONNECT_TIMEOUT), None);
                    if let Some(step) = self.streams.get_mut(key).map(|s| s.start(now)) {
                        self.drive_stream(key, step, now);
                    }
                }
                Action::Complete { call, output } => {
                    let cx = &mut Context { out: self.out.tail(), now, sessions: &mut self.sessions };
                    if !self.mcp.complete(call, output, cx) {
                        debug!("result for {call:?} dropped: the call was cancelled or already answered");
                    }
                }
                Action::StopAdapter { session } => {
                    self.stop_adapter(session, now);
                    self.stop_terminal(session, now);
                }
                Action::Replace { session, id } => {
                    // The old run's terminal-launched program goes with its adapter.
                    self.stop_terminal(session, now);
                    self.replace_adapter(session, id, now)
                }
                // After this turn's writes (`Server::run`): a walk never delays a request.
                Action::TrackProcesses => self.walk_due = true,
                Action::StateChanged { session } => {
                    let cx = &mut Context { out: self.out.tail(), now, sessions: &mut self.sessions };
                    self.mcp.resource_updated(&format!("agentdap://session/{session}/state"), cx);
                    self.mcp.resource_updated(crate::mcp::resources::SESSIONS_URI, cx);
                }
                Action::Release { session } => {
                    // Its DAP stream (a TCP adapter's, or an attach's) closes without telling the
                    // session, which is about to go.
                    if let Some(&skey) = self.stream_of.get(&session) {
                        self.close_stream(skey, false, now);
                    }
                    if self.adapter_of.contains_key(&session) {
                        self.stop_adapter(session, now);
                        if let Some(akey) = self.adapter_of.remove(&session) {
                            if let Some(io) = self.adapters.get_mut(akey) {
                                // Its remaining bytes and its exit no longer belong to any session.
                                io.detached = true;
                            }
                        }
                    }
                    // Its last DAP messages reach its `--dap-log` file before it goes.
                    self.flush_dap_log(session);
                    self.release_terminal(session, now);
                    self.sessions.remove(session);
                }
                Action::RecordDebuggee { pid } => self.record_debuggee(pid),
                Action::SignalDebuggee { pid, signal } => signal_debuggee(pid, signal),
                Action::Ledger(record) => self.record(record),
                // Handled by `Sessions::next_action` itself.
                Action::OpenChild { .. } | Action::HostRequest { .. } => {}
                Action::RunInTerminal { session, reverse, command, pty } => {
                    self.spawn_terminal(session, reverse, command, pty, now)
                }
                Action::RunJob { job, command, timeout } => self.spawn_job(job, command, timeout, now),
                Action::StopJob { job } => self.stop_job(job),
                Action::Progress { call, progress, message } => {
                    let cx = &mut Context { out: self.out.tail(), now, sessions: &mut self.sessions };
                    self.mcp.progress(call, progress, None, Some(&message), cx);
                }
            }
            // Completing a call or spawning may queue more actions; the loop takes them too.
        }
        self.write_adapters(now);
        self.write_adapter_inputs();
        self.write_terminals();
    }

    fn spawn(&mut self, session: SessionKey, mut command: spawn::AdapterCommand, transport: &Transport, now: Instant) {
        if self.shutdown.is_some() {
            self.sessions.on_spawn_failed(session, ErrorCode::Disconnected, "agentdap is shutting down".into());
            return;
        }
        // A TCP adapter: where its port comes from.
        let mut connector = None;
        let mut scanners = None;
        let mut ready_line = None;
        match transport {
            Transport::Stdio => {}
            Transport::Tcp { port: PortDiscovery::Chosen | PortDiscovery::ChosenAfterLine { .. } } => {
                let port = match tcp::choose_port() {
                    Ok(p) => p,
                    Err(e) => {
                        let msg = format!("cannot choose a port for the adapter: {e}");
                        self.sessions.on_spawn_failed(session, ErrorCode::AdapterError, msg);
                        return;
                    }
                };
                for arg in &mut command.args {
                    if let Some(text) = arg.to_str().filter(|t| t.contains(PORT_PLACEHOLDER)) {
                        *arg = text.replace(PORT_PLACEHOLDER, &port.to_string()).into();
                    }
                }
                let addr = std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, port));
                connector = Some(match transport {
                    Transport::Tcp { port: PortDiscovery::ChosenAfterLine { line } } => {
                        ready_line = Some((*line, addr));
                        Connector::awaiting_port(now, CONNECT_TIMEOUT)
                    }
                    _ => Connector::new(addr, now, CONNECT_TIMEOUT),
                });
            }
            Transport::Tcp { port: PortDiscovery::AnnouncedLine { prefix } } => {
                connector = Some(Connector::awaiting_port(now, CONNECT_TIMEOUT));
                scanners = Some([PortScanner::new(prefix), PortScanner::new(prefix)]);
            }
        }
        // The session's temporary directory (a build's output) exists from its plan on: recorded
        // before the adapter runs, so the watchdog removes it if agentdap dies at any point
        // after (it is removed with this adapter otherwise, in `forget_adapter_if_done`).
        if let (Some(dir), Some(w)) = (self.sessions.scratch_dir(session), self.watchdog.as_mut()) {
            if let Err(e) = w.record_dir(dir) {
                warn!("watchdog: cannot record {}: {e}; it stays if agentdap is killed", dir.display());
            }
        }
        let spawned = match spawn::spawn_adapter(&command) {
            Ok(s) => s,
            Err(e) => {
                let (code, msg) = match &e {
                    SpawnError::NotFound { program } => (
                        ErrorCode::AdapterNotFound,
                        format!(
                            "the adapter program {} (or the interpreter on its #! line) was not found; run `agentdap doctor` for install commands",
                            program.to_string_lossy()
                        ),
                    ),
                    other => (ErrorCode::AdapterError, format!("could not start the adapter: {other}")),
                };
                warn!("{msg}");
                self.sessions.on_spawn_failed(session, code, msg);
                return;
            }
        };
        let entry = self.adapters.vacant_entry();
        let key = entry.key();
        let mut io = AdapterIo {
            session,
            child: Child::from(spawned),
            detached: false,
            dap_on_pipes: connector.is_none(),
            stream: None,
            scanners,
            ready_line,
            scratch_dir: self.sessions.scratch_dir(session).map(Into::into),
            replaced_for: None,
        };
        let registered = io.child.register(self.poll.registry(), |w| pipe_token(key, w));
        info!("adapter for session key {session} started: pid {}", io.child.pid);
        entry.insert(io);
        self.adapter_of.insert(session, key);
        // While the adapter starts up nothing waits on agentdap: a walk now (at the end of the
        // turn) reads every process once, so the walk at the debuggee's `process` event reads
        // only agentdap's own and new processes (`ProcScan`).
        self.walk_due = true;
        if let Err(e) = registered {
            warn!("cannot watch the adapter's pipes: {e}");
            self.sessions.on_spawn_failed(
                session,
                ErrorCode::AdapterError,
                format!("cannot watch the adapter's pipes: {e}"),
            );
            self.stop_adapter(session, now);
            return;
        }
        match connector {
            None => self.sessions.on_spawned(session, now),
            Some(connector) => {
                let skey = self.open_stream(session, connector, Some(key));
                if let Some(io) = self.adapters.get_mut(key) {
                    io.stream = Some(skey);
                }
                if matches!(transport, Transport::Tcp { port: PortDiscovery::Chosen }) {
                    if let Some(step) = self.streams.get_mut(skey).map(|s| s.start(now)) {
                        self.drive_stream(skey, step, now);
                    }
                }
            }
        }
        // Its pipes start ready: this turn's serving round reads them.
    }

    /// Output of a TCP adapter (not DAP): scanned for the port announcement until found, and
    /// handed to the session as output (`which` says the pipe).
    fn adapter_output(&mut self, akey: usize, which: PipeKind, bytes: &[u8], now: Instant) {
        let Some(io) = self.adapters.get_mut(akey) else { return };
        let session = io.session;
        let ready = io.ready_line.filter(|(line, _)| bytes.windows(line.len()).any(|w| w == line.as_bytes()));
        if let Some((_, addr)) = ready {
            io.ready_line = None;
            if let Some(skey) = io.stream {
                if let Some(step) = self.streams.get_mut(skey).map(|s| s.port_known(addr, now)) {
                    self.drive_stream(skey, step, now);
                }
            }
        }
        let Some(io) = self.adapters.get_mut(akey) else { return };
        let mut rest = bytes;
        if let Some(scanners) = io.scanners.as_mut() {
            let scanner = &mut scanners[if which == PipeKind::Stdout { 0 } else { 1 }];
            match scanner.feed(bytes) {
                Scan::Pending => {}
                Scan::Found { addr, consumed } => {
                    io.scanners = None;
                    let (announcement, after) = bytes.split_at(consumed);
                    // The announcement line is agentdap's business, not the agent's: what came
                    // before it in the same read is still output.
                    let body = announcement.strip_suffix(b"\n").unwrap_or(announcement);
                    let line_start = body.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
                    log::debug!("adapter announced {addr}: {}", String::from_utf8_lossy(&body[line_start..]));
                    self.pipe_output(session, which, &announcement[..line_start]);
                    rest = after;
                    if let Some(skey) = self.adapters.get(akey).and_then(|io| io.stream) {
                        if let Some(step) = self.streams.get_mut(skey).map(|s| s.port_known(addr, now)) {
                            self.drive_stream(skey, step, now);
                        }
                    }
                }
                Scan::GaveUp => {
                    io.scanners = None;
                    if let Some(skey) = io.stream {
                        if let Some(step) = self.streams.get_mut(skey).map(|s| s.no_announcement()) {
                            self.drive_stream(skey, step, now);
                        }
                    }
                }
            }
        }
        self.pipe_output(session, which, rest);
    }

    fn pipe_output(&mut self, session: SessionKey, which: PipeKind, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        match which {
            PipeKind::Stdout => self.sessions.on_adapter_stdout(session, bytes),
            _ => self.sessions.on_adapter_stderr(session, bytes),
        }
    }

    /// Events on an adapter pipe.
    pub(super) fn on_adapter_pipe(&mut self, key: usize, event: &Event) {
        let (akey, which) = (key >> 2, PipeKind::from_bits(key));
        let Some(io) = self.adapters.get_mut(akey) else {
            trace!("event for vacant adapter key {akey} ignored");
            return;
        };
        if which == PipeKind::Stdin && (event.is_error() || event.is_write_closed()) {
            trace!("adapter stdin closed");
        }
        io.child.mark_ready(which);
        // Read in this turn's serving round (`read_ready_adapters`), within its budget.
    }

    /// Reads an adapter's stdout and stderr until `WouldBlock`, EOF, or `reads` reads each.
    pub(super) fn read_adapter(&mut self, akey: usize, now: Instant, reads: usize) {
        let mut buf = std::mem::take(&mut self.pipe_buf);
        buf.resize(PIPE_CHUNK, 0);
        for which in [PipeKind::Stderr, PipeKind::Stdout] {
            for _ in 0..reads {
                let Some(io) = self.adapters.get_mut(akey) else { break };
                let session = io.session;
                let detached = io.detached;
                let dap_on_pipes = io.dap_on_pipes;
                match io.child.output(which).read(&mut buf) {
                    ReadOutcome::End => {
                        self.close_pipe(akey, which, now);
                        break;
                    }
                    ReadOutcome::Data(_) if detached => {}
                    ReadOutcome::Data(n) if !dap_on_pipes => self.adapter_output(akey, which, &buf[..n], now),
                    ReadOutcome::Data(n) => match which {
                        PipeKind::Stdout => {
                            // A program agentdap runs itself (`runInTerminal`): what it wrote so far
                            // first, since it precedes the events its exit causes.
                            self.drain_terminal_of(session);
                            self.sessions.on_adapter_bytes(session, &buf[..n], now)
                        }
                        _ => self.sessions.on_adapter_stderr(session, &buf[..n]),
                    },
                    ReadOutcome::Empty => break,
                    ReadOutcome::Interrupted => {}
                    ReadOutcome::Failed(e) => {
                        debug!("reading adapter pipe failed: {e}");
                        self.close_pipe(akey, which, now);
                        break;
                    }
                }
            }
        }
        self.pipe_buf = buf;
    }

    /// Reads everything a session's adapter pipes hold now (up to [`READS_TO_DRAIN`] reads each),
    /// past the per-turn budget: before the session learns that its program ended.
    pub(super) fn drain_adapter_pipes_of(&mut self, session: SessionKey, now: Instant) {
        let keys: Vec<usize> = self.adapters.iter().filter(|(_, io)| io.session == session).map(|(k, _)| k).collect();
        for akey in keys {
            if let Some(io) = self.adapters.get_mut(akey) {
                io.child.mark_ready(PipeKind::Stdout);
                io.child.mark_ready(PipeKind::Stderr);
            }
            self.read_adapter(akey, now, READS_TO_DRAIN);
        }
    }

    /// True when some adapter pipe still holds data after its per-wake read cap.
    pub(super) fn adapters_have_work(&self) -> bool {
        self.adapters.iter().any(|(_, io)| io.child.has_output())
    }

    /// This turn's serving round for adapter pipes: every ready one is read once, within its budget.
    pub(super) fn read_ready_adapters(&mut self, now: Instant) {
        let keys: Vec<usize> = self.adapters.iter().filter(|(_, io)| io.child.has_output()).map(|(k, _)| k).collect();
        for k in keys {
            self.read_adapter(k, now, READS_PER_TURN);
        }
    }

    fn close_pipe(&mut self, akey: usize, which: PipeKind, now: Instant) {
        let Some(io) = self.adapters.get_mut(akey) else { return };
        io.child.close(which, self.poll.registry());
        if which == PipeKind::Stdout && io.dap_on_pipes && !io.detached {
            // The DAP stream is over: the session learns it (with the stderr read so far).
            self.sessions.on_adapter_closed(io.session, now);
        }
        self.forget_adapter_if_done(akey, now);
    }

    /// Writes every session's pending DAP bytes to its adapter's stdin.
    pub(super) fn write_adapters(&mut self, now: Instant) {
        for session in self.sessions.with_outbound() {
            if self.write_stream(session, now) {
                continue;
            }
            let Some(&akey) = self.adapter_of.get(&session) else { continue };
            let Some(io) = self.adapters.get_mut(akey) else { continue };
            if !io.child.stdin.has_work() {
                continue;
            }
            loop {
                let bytes = self.sessions.outbound(session);
                if bytes.is_empty() {
                    break;
                }
                match io.child.stdin.write(bytes) {
                    WriteOutcome::Wrote(n) => self.sessions.consume(session, n),
                    WriteOutcome::Full => break,
                    WriteOutcome::Interrupted => {}
                    WriteOutcome::Failed(e) => {
                        debug!("writing to the adapter failed: {e}");
                        io.child.stdin.close(self.poll.registry());
                        let pending = self.sessions.outbound(session).len();
                        self.sessions.consume(session, pending);
                        break;
                    }
                }
            }
        }
    }

    /// Writes `send_input`'s bytes to the stdin of adapters whose process is the program (rdbg:
    /// `session::host::HostState::stdin_is_adapters`; DAP goes over TCP, so stdin is the
    /// program's), closing it after the input sent with `eof`.
    pub(super) fn write_adapter_inputs(&mut self) {
        let keys: Vec<usize> = self
            .adapters
            .iter()
            .filter(|(_, io)| io.stream.is_some() && self.sessions.feeds_adapter_stdin(io.session))
            .map(|(k, _)| k)
            .collect();
        for akey in keys {
            let Some(io) = self.adapters.get_mut(akey) else { continue };
            if !io.child.stdin.has_work() {
                continue;
            }
            let session = io.session;
            feed_pipe(&mut io.child.stdin, self.poll.registry(), &mut self.sessions, session);
        }
    }

    fn record_debuggee(&mut self, pid: i64) {
        let Ok(pid) = Pid::try_from(pid) else { return };
        if let Some(w) = self.watchdog.as_mut() {
            if let Err(e) = w.record(pid) {
                debug!("watchdog: cannot record pid {pid}: {e}");
            }
        }
        // Remember it with the adapter that launched it, to stop it along with the adapter
        // (at the end of the turn, after its writes).
        self.walk_due = true;
    }

    /// Records every process below each running adapter (debuggees, launchers, lldb-server,
    /// the debuggee's own children — also those that left its process group or session) with
    /// its adapter and the watchdog, so none outlives the session. Run at a `process` event,
    /// every [`WALK_EVERY`] while adapters run (those two at the end of the loop turn, after
    /// its writes), and before an adapter is stopped. Bounded by `spawn::PROC_SCAN_CAP`; reads
    /// only small `/proc/<pid>/stat` files, after the first walk only those of agentdap's own
    /// and new processes ([`crate::os::proc_scan::ProcScan`]).
    pub(super) fn walk_descendants(&mut self) {
        // One scan of /proc serves the adapters, the terminals and the adopted processes.
        let table = self.proc_scan.table(std::process::id() as Pid);
        self.walk_terminals(&table);
        self.walk_adopted(&table);
        if self.adapters.is_empty() {
            return;
        }
        let prune: Vec<Pid> = self.watchdog.as_ref().map(|w| w.pid()).into_iter().collect();
        for (_, io) in self.adapters.iter_mut().filter(|(_, io)| !io.detached) {
            // Bounded: a fork bomb cannot grow the list past the cap.
            io.child.track(&table, &prune, MAX_TRACKED, |p| watch(&mut self.watchdog, p));
        }
    }

    /// Processes that left an adapter's or terminal's tree and were adopted by agentdap (it is a
    /// child subreaper): a debuggee that daemonized (`setsid`, then its parent exited) before a
    /// walk saw it below its adapter. Each is recorded with the watchdog; with a single adapter
    /// it is that adapter's to stop, else agentdap kills it once no session is left (and at
    /// shutdown). Only agentdap's own descendants are ever touched.
    fn walk_adopted(&mut self, table: &[spawn::ProcStat]) {
        let mut prune: Vec<Pid> = self.watchdog.as_ref().map(|w| w.pid()).into_iter().collect();
        prune.extend(self.adapters.iter().map(|(_, io)| io.child.pid));
        prune.extend(self.terminal_pids());
        // A job's process tree is its own (a build's compilers), ended with the job.
        prune.extend(self.job_pids());
        let me = std::process::id() as Pid;
        let known = |pid: Pid, adapters: &slab::Slab<AdapterIo>, orphans: &[(Pid, u64)]| {
            orphans.iter().any(|o| o.0 == pid) || adapters.iter().any(|(_, io)| io.child.tracks(pid))
        };
        for p in spawn::descendants_in(table, me, &prune) {
            if known(p.pid, &self.adapters, &self.orphans) || self.terminal_tracks(p.pid) {
                continue;
            }
            watch(&mut self.watchdog, &p);
            let mut live = self.adapters.iter_mut().filter(|(_, io)| !io.detached);
            match (live.next(), live.next()) {
                (Some((_, io)), None) if io.child.tracked.len() < MAX_TRACKED => {
                    io.child.tracked.push((p.pid, p.start_time))
                }
                _ if self.orphans.len() < MAX_TRACKED => self.orphans.push((p.pid, p.start_time)),
                _ => {}
            }
        }
        if self.adapters.is_empty() && self.terminals.is_empty() {
            self.kill_orphans();
        }
    }

    /// SIGKILLs the adopted processes no session could be named for (see [`Server::walk_adopted`]).
    pub(super) fn kill_orphans(&mut self) {
        let orphans = std::mem::take(&mut self.orphans);
        if !orphans.is_empty() {
            debug!("killing {} process(es) left behind by ended sessions", orphans.len());
        }
        spawn::signal_listed(&orphans, libc::SIGKILL);
    }

    /// Stops a session's adapter: closes its stdin, SIGTERMs its process group and its launched
    /// debuggees, and SIGKILLs them after [`KILL_GRACE`] unless they are gone by then. A TCP
    /// connection without a process of agentdap's behind it is simply closed.
    pub(super) fn stop_adapter(&mut self, session: SessionKey, now: Instant) {
        self.walk_descendants();
        let Some(&akey) = self.adapter_of.get(&session) else {
            if let Some(&skey) = self.stream_of.get(&session) {
                self.close_stream(skey, true, now);
            }
            return;
        };
        let Some(io) = self.adapters.get_mut(akey) else { return };
        // Let the adapter read what is already queued (its disconnect) before stdin closes.
        let pending = if io.dap_on_pipes { self.sessions.outbound(session).len() } else { 0 };
        if !io.child.terminate(self.poll.registry(), pending == 0) {
            return;
        }
        let pid = io.child.pid;
        if let Err(e) = self.timers.insert(now + KILL_GRACE, TimerEvent::KillAdapter { key: akey, pid }) {
            warn!("{e}; killing the adapter now");
            self.kill_adapter(akey, pid);
        }
    }

    /// The grace period is over: SIGKILL whatever of the adapter is left.
    pub(super) fn kill_adapter(&mut self, akey: usize, pid: Pid) {
        let Some(io) = self.adapters.get(akey).filter(|io| io.child.pid == pid) else { return };
        if io.child.kill() {
            debug!("adapter pid {pid} outlived its grace period; SIGKILL");
        }
    }

    /// Reaps exited children; an adapter that exited is drained and its session told.
    pub(super) fn reap_children(&mut self, now: Instant) {
        loop {
            let reaped = spawn::reap_exited();
            let full = reaped.len() == spawn::REAP_CAP;
            for (pid, status) in reaped {
                let found = self.adapters.iter().find(|(_, io)| io.child.pid == pid).map(|(k, _)| k);
                match found {
                    Some(akey) => {
                        debug!("adapter pid {pid} exited: {status}");
                        if let Some(io) = self.adapters.get_mut(akey) {
                            io.child.reaped(status);
                        }
                        // Taken before the pipes are read: reading them to EOF may forget the
                        // adapter (`forget_adapter_if_done`), and its stream must still hear why.
                        let stream = self.adapters.get(akey).and_then(|io| io.stream.map(|s| (s, io.session)));
                        let owner = self.adapters.get(akey).filter(|io| !io.detached).map(|io| io.session);
                        // Whatever it wrote before exiting is still in the pipes: read it first.
                        self.read_adapter(akey, now, READS_AT_EXIT);
                        if let Some(session) = owner {
                            // After the output: the status may end the run (an adapter whose
                            // process is the program, `ExitReport::AdapterExitStatus`).
                            use std::os::unix::process::ExitStatusExt;
                            let (code, signal) = (status.code().map(i64::from), status.signal().map(i64::from));
                            self.sessions.on_adapter_exited(session, code, signal, now);
                        }
                        // A TCP adapter that exits before accepting the connection: say why.
                        if let Some((skey, session)) = stream {
                            let stderr = self.sessions.stderr_tail(session);
                            let step =
                                self.streams.get_mut(skey).and_then(|s| s.adapter_exited(&status.to_string(), &stderr));
                            if let Some(step) = step {
                                self.drive_stream(skey, step, now);
                            }
                        }
                        if self.adapters.get(akey).is_some_and(|io| io.child.stdout.is_open()) {
                            // A grandchild may hold the pipe open; the adapter is gone all the same.
                            self.close_pipe(akey, PipeKind::Stdout, now);
                        }
                        self.forget_adapter_if_done(akey, now);
                    }
                    None if self.terminal_reaped(pid, status) => {}
                    None if self.job_reaped(pid, status, now) => {}
                    None => trace!("reaped pid {pid}: {status}"),
                }
            }
            if !full {
                break;
            }
        }
    }

    /// `restart` by relaunch: stops the session's adapter and lets go of it at once — its bytes
    /// and its exit no longer reach the session, and its temporary directory stays (the new
    /// adapter uses it) — then tells the session once the old process is gone (at once when there
    /// is none), so the old program never overlaps the new one.
    fn replace_adapter(&mut self, session: SessionKey, id: String, now: Instant) {
        if let Some(&skey) = self.stream_of.get(&session) {
            self.close_stream(skey, false, now);
        }
        let Some(&akey) = self.adapter_of.get(&session) else {
            self.sessions.on_adapter_replaced(session, &id, now);
            return;
        };
        self.stop_adapter(session, now);
        self.adapter_of.remove(&session);
        if let Some(io) = self.adapters.get_mut(akey) {
            io.detached = true;
            // Its stream is closed; the key may soon name the new adapter's.
            io.stream = None;
            io.scratch_dir = None;
            io.replaced_for = Some(id);
        }
        self.forget_adapter_if_done(akey, now);
    }

    /// Removes an adapter from the slab once its process was reaped and its pipes are closed.
    fn forget_adapter_if_done(&mut self, akey: usize, now: Instant) {
        let Some(io) = self.adapters.get(akey) else { return };
        if io.child.exit.is_none() || io.child.stdout.is_open() {
            return;
        }
        let mut io = self.adapters.remove(akey);
        io.child.close(PipeKind::Stderr, self.poll.registry());
        io.child.close(PipeKind::Stdin, self.poll.registry());
        if self.adapter_of.get(&io.session) == Some(&akey) {
            self.adapter_of.remove(&io.session);
        }
        if let Some(dir) = io.scratch_dir.take() {
            // Only agentdap's own temporary directory (a build's output), a few files. Once it is
            // gone the watchdog forgets it; if it could not be removed, the watchdog tries again
            // when agentdap exits.
            let removed = match std::fs::remove_dir_all(&dir) {
                Ok(()) => true,
                Err(e) if e.kind() == io::ErrorKind::NotFound => true,
                Err(e) => {
                    debug!("cannot remove {}: {e}", dir.display());
                    false
                }
            };
            if let (true, Some(w)) = (removed, self.watchdog.as_mut()) {
                if let Err(e) = w.forget_dir(&dir) {
                    debug!("watchdog: cannot forget {}: {e}", dir.display());
                }
            }
        }
        // Its process group may still hold a debuggee that ignored SIGTERM.
        io.child.kill();
        if io.replaced_for.is_none() && !io.detached {
            // A program run in a terminal for this adapter cannot be debugged without it.
            self.stop_terminal(io.session, now);
        }
        if let Some(id) = io.replaced_for.take() {
            self.sessions.on_adapter_replaced(io.session, &id, now);
        }
    }

    /// The TCP stream `skey` is closed: no adapter refers to it any more.
    pub(super) fn forget_stream(&mut self, skey: usize) {
        for (_, io) in self.adapters.iter_mut().filter(|(_, io)| io.stream == Some(skey)) {
            io.stream = None;
        }
    }

    /// SIGKILLs every adapter group and debuggee still known (the last step of shutdown).
    pub(super) fn kill_all_adapters(&mut self) {
        self.kill_all_terminals();
        self.kill_all_jobs();
        self.kill_orphans();
        for (_, io) in self.adapters.iter() {
            io.child.kill();
        }
    }

    /// True when no adapter process is left.
    pub(super) fn adapters_gone(&self) -> bool {
        self.adapters.is_empty() && self.streams.is_empty() && self.terminals.is_empty() && self.jobs.is_empty()
    }
}

/// Records a process with the watchdog (if one runs) by pid and start time; a failure is logged.
pub(super) fn watch(watchdog: &mut Option<Watchdog>, p: &spawn::ProcStat) {
    if let Some(w) = watchdog.as_mut() {
        if let Err(e) = w.record_with_start_time(p.pid, p.start_time) {
            debug!("watchdog: cannot record pid {}: {e}", p.pid);
        }
    }
}

/// Sends `signal` to `pid` (checked by the plan to be the program the agent named: Node's
/// `SIGUSR1` ends most other programs); a failure is logged, and the attach then says the
/// endpoint did not answer.
fn signal_debuggee(pid: i64, signal: crate::dap::adapters::DebuggeeSignal) {
    let number = match signal {
        crate::dap::adapters::DebuggeeSignal::Usr1 => libc::SIGUSR1,
    };
    let Ok(pid) = libc::pid_t::try_from(pid) else { return };
    // SAFETY: kill with a pid and a signal number has no memory-safety preconditions.
    if unsafe { libc::kill(pid, number) } != 0 {
        warn!("cannot send {signal:?} to pid {pid}: {}", std::io::Error::last_os_error());
    } else {
        info!("sent {signal:?} to pid {pid} (opens its debug endpoint)");
    }
}

/// Writes `session`'s queued input to `stdin`, a pipe, until it is written or the pipe is full,
/// and closes it after the input sent with `eof` (a pipe has no end-of-input character). Shared
/// by programs agentdap runs on pipes for `runInTerminal` and programs that are their adapter's
/// own process (rdbg: `Server::write_adapter_inputs`); `terminal.rs` uses it for the former.
pub(super) fn feed_pipe(
    stdin: &mut crate::os::child::Pipe<mio::unix::pipe::Sender>,
    registry: &mio::Registry,
    sessions: &mut crate::session::Sessions,
    session: SessionKey,
) {
    loop {
        let (queued, eof) = sessions.terminal_input(session);
        if queued.is_empty() {
            if eof {
                stdin.close(registry);
                sessions.on_terminal_stdin_closed(session, "closed after the input sent with eof");
            }
            return;
        }
        match stdin.write(queued) {
            WriteOutcome::Wrote(n) => sessions.consume_terminal_input(session, n),
            WriteOutcome::Full => return,
            WriteOutcome::Interrupted => {}
            WriteOutcome::Failed(e) => {
                debug!("writing a program's input failed: {e}");
                stdin.close(registry);
                sessions.on_terminal_stdin_closed(session, &format!("the program no longer reads it ({e})"));
                return;
            }
        }
    }
}
