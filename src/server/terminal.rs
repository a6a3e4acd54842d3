//! Processes agentdap runs for adapters (`runInTerminal`, DAP § Reverse Requests › RunInTerminal)
//! as loop sources: spawn on a pseudo-terminal ([`spawn::spawn_in_pty`]: own session and process
//! group, `PR_SET_PDEATHSIG`, recorded with the watchdog), what they write to the terminal into the
//! session's output (one stream, `stdout`), the stdin buffer the session holds written to the
//! terminal on WRITABLE (`eof` as the terminal's end-of-input character), reaping, and stopping
//! them with their session. Decides nothing: the policy is the session layer's
//! ([`crate::session::host`]).
//!
//! Architecture Invariant: such a process never inherits agentdap's stdin, stdout or stderr.

use std::process::ExitStatus;
use std::time::Instant;

use log::{debug, info, trace, warn};
use mio::event::Event;

use super::adapters::{feed_pipe, watch, KILL_GRACE};
use super::{Server, TimerEvent};
use crate::dap::client::ReverseId;
use crate::os::child::{Child, PipeKind, ReadOutcome, WriteOutcome};
use crate::os::spawn::{self, AdapterCommand, Pid};
use crate::session::SessionKey;
use crate::token::{self, Kind};

/// Bytes read from a terminal pipe per `read` call (a stack buffer: reads also happen while
/// the adapter's read buffer is in use, see [`Server::drain_terminal_of`]): one turn's budget.
const PIPE_CHUNK: usize = super::TURN_BUDGET;
/// Reads of one pipe per loop turn ([`super::TURN_BUDGET`]); one left with data stays ready.
const READS_PER_TURN: usize = 1;
/// Reads of a terminal's pipes before its session's adapter bytes are handled, and at its
/// reaping (1 MiB): the program's output precedes the events its exit causes.
const READS_TO_DRAIN: usize = 64;
/// Most descendants tracked per terminal process.
const MAX_TRACKED: usize = 1024;

fn pipe_token(key: usize, which: PipeKind) -> Option<mio::Token> {
    token::encode(Kind::TerminalPipe, key << 2 | which as usize)
}

/// One process started for a session's `runInTerminal`.
pub(super) struct TerminalIo {
    session: SessionKey,
    /// The process: on a terminal, the master side is its stdin and its one output stream
    /// (`stdout`; no `stderr`); on pipes, its three pipes. Below it the debuggee (under debugpy's
    /// launcher), its children.
    child: Child,
    /// The terminal's end-of-input character (`VEOF`), written for `send_input {eof: true}`.
    eof_char: u8,
    /// The last input byte written was not `\n`: a canonical-mode read takes the first `VEOF`
    /// as the end of that line, so end of input takes a second one.
    line_open: bool,
    /// `VEOF` characters still to write for an `eof` (0 until the queued input is written).
    eof_left: u8,
    /// Its session is gone: output is read and dropped.
    detached: bool,
    /// Three pipes rather than a terminal: end of input closes stdin (no `VEOF`).
    pipes: bool,
}

impl Server {
    /// Carries out an allowed `runInTerminal`: spawns `command` on a pseudo-terminal (`pty`) or
    /// on three pipes, and tells the session the pid (or why not), which answers the adapter.
    pub(super) fn spawn_terminal(
        &mut self,
        session: SessionKey,
        reverse: ReverseId,
        command: AdapterCommand,
        pty: bool,
        now: Instant,
    ) {
        if self.shutdown.is_some() {
            let why = "agentdap is shutting down".to_owned();
            return self.sessions.on_terminal_spawned(session, reverse, Err(why), now);
        }
        let spawned = if pty {
            spawn::spawn_in_pty(&command).map(Child::from_terminal)
        } else {
            spawn::spawn_adapter(&command).map(|s| (Child::from(s), 0))
        };
        // A terminal is one stream: stdout and stderr come through the master side.
        let (child, eof_char) = match spawned {
            Ok(s) => s,
            Err(e) => {
                warn!("runInTerminal: cannot run {}: {e}", command.program.to_string_lossy());
                return self.sessions.on_terminal_spawned(session, reverse, Err(e.to_string()), now);
            }
        };
        let entry = self.terminals.vacant_entry();
        let key = entry.key();
        let mut io =
            TerminalIo { session, child, eof_char, line_open: false, eof_left: 0, detached: false, pipes: !pty };
        let registered = io.child.register(self.poll.registry(), |w| pipe_token(key, w));
        let pid = io.child.pid;
        info!("runInTerminal for session key {session}: pid {pid}");
        entry.insert(io);
        // Launched by agentdap: the watchdog kills it if agentdap dies.
        if let Some(w) = self.watchdog.as_mut() {
            if let Err(e) = w.record(pid) {
                debug!("watchdog: cannot record pid {pid}: {e}");
            }
        }
        if let Err(e) = registered {
            warn!("cannot watch the pipes of pid {pid}: {e}");
            self.stop_terminal(session, now);
            let why = format!("cannot watch the process's pipes: {e}");
            return self.sessions.on_terminal_spawned(session, reverse, Err(why), now);
        }
        self.sessions.on_terminal_spawned(session, reverse, Ok(i64::from(pid)), now);
        self.write_terminal(key);
    }

    /// Events on a terminal pipe.
    pub(super) fn on_terminal_pipe(&mut self, key: usize, event: &Event) {
        let (tkey, which) = (key >> 2, PipeKind::from_bits(key));
        let Some(io) = self.terminals.get_mut(tkey) else {
            trace!("event for vacant terminal key {tkey} ignored");
            return;
        };
        if which == PipeKind::Stdin && (event.is_error() || event.is_write_closed()) {
            trace!("terminal stdin closed by the reader");
        }
        io.child.mark_ready(which);
        // Read in this turn's serving round (`read_ready_terminals`), within its budget.
        self.write_terminal(tkey);
    }

    /// Reads a terminal's stderr and stdout until `WouldBlock`, EOF or `reads` reads each.
    fn read_terminal(&mut self, tkey: usize, reads: usize) {
        let mut buf = [0u8; PIPE_CHUNK];
        // stdout first: of two pipes ready at once, what a program writes to stderr is more often
        // what ended it (the order between them is not known either way; README).
        for which in [PipeKind::Stdout, PipeKind::Stderr] {
            for _ in 0..reads {
                let Some(io) = self.terminals.get_mut(tkey) else { break };
                match io.child.output(which).read(&mut buf) {
                    // EOF, or EIO: a pseudo-terminal's master reads EIO once no process holds
                    // the terminal open, its end of output (pty(7)).
                    ReadOutcome::End => {
                        self.close_terminal_pipe(tkey, which);
                        break;
                    }
                    ReadOutcome::Data(_) if io.detached => {}
                    ReadOutcome::Data(n) => {
                        let session = io.session;
                        self.sessions.on_terminal_output(session, which == PipeKind::Stderr, &buf[..n]);
                    }
                    ReadOutcome::Empty => break,
                    ReadOutcome::Interrupted => {}
                    ReadOutcome::Failed(e) => {
                        debug!("reading a terminal pipe failed: {e}");
                        self.close_terminal_pipe(tkey, which);
                        break;
                    }
                }
            }
        }
    }

    /// Reads what the session's terminal process wrote so far, before the adapter's bytes are
    /// handled: the program's output comes before the events its exit causes.
    pub(super) fn drain_terminal_of(&mut self, session: SessionKey) {
        if self.terminals.is_empty() {
            return;
        }
        let keys: Vec<usize> = self.terminals.iter().filter(|(_, t)| t.session == session).map(|(k, _)| k).collect();
        for k in keys {
            if let Some(io) = self.terminals.get_mut(k) {
                io.child.stdout.mark_ready();
                io.child.stderr.mark_ready();
            }
            self.read_terminal(k, READS_TO_DRAIN);
        }
    }

    /// True when a terminal pipe still holds data after its per-turn read budget.
    pub(super) fn terminals_have_work(&self) -> bool {
        self.terminals.iter().any(|(_, t)| t.child.has_output())
    }

    /// This turn's serving round for terminal pipes: every ready one is read once, within its budget.
    pub(super) fn read_ready_terminals(&mut self) {
        let keys: Vec<usize> = self.terminals.iter().filter(|(_, t)| t.child.has_output()).map(|(k, _)| k).collect();
        for k in keys {
            self.read_terminal(k, READS_PER_TURN);
        }
    }

    /// Writes every session's queued stdin to its terminal process.
    pub(super) fn write_terminals(&mut self) {
        let keys: Vec<usize> = self.terminals.iter().map(|(k, _)| k).collect();
        for k in keys {
            self.write_terminal(k);
        }
    }

    /// Writes the session's queued input until it is written or the terminal's buffer is full;
    /// after the input sent with `eof`, writes the terminal's end-of-input character (twice when
    /// the input ended inside a line) and takes no more input. A program on pipes is fed by
    /// [`feed_pipe`].
    fn write_terminal(&mut self, tkey: usize) {
        let Some(io) = self.terminals.get_mut(tkey) else { return };
        if io.detached || !io.child.stdin.has_work() {
            return;
        }
        let session = io.session;
        if io.pipes {
            return feed_pipe(&mut io.child.stdin, self.poll.registry(), &mut self.sessions, session);
        }
        loop {
            let (queued, eof) = self.sessions.terminal_input(session);
            let eof_chars = [io.eof_char; 2];
            let bytes = if !queued.is_empty() {
                queued
            } else if eof {
                if io.eof_left == 0 {
                    io.eof_left = if io.line_open { 2 } else { 1 };
                }
                &eof_chars[..usize::from(io.eof_left)]
            } else {
                return;
            };
            match io.child.stdin.write(bytes) {
                WriteOutcome::Wrote(n) if !queued.is_empty() => {
                    io.line_open = bytes[..n].last().map_or(io.line_open, |&b| b != b'\n');
                    self.sessions.consume_terminal_input(session, n);
                }
                WriteOutcome::Wrote(n) => {
                    io.eof_left -= n.min(usize::from(io.eof_left)) as u8; // infallible: n ≤ 2
                    if io.eof_left == 0 {
                        io.line_open = false;
                        io.child.stdin.close(self.poll.registry());
                        let why = "the terminal's end of input (VEOF) was sent after the input sent with eof";
                        self.sessions.on_terminal_stdin_closed(session, why);
                        return;
                    }
                }
                WriteOutcome::Full => return,
                WriteOutcome::Interrupted => {}
                WriteOutcome::Failed(e) => {
                    debug!("writing a terminal's input failed: {e}");
                    io.child.stdin.close(self.poll.registry());
                    self.sessions.on_terminal_stdin_closed(session, &format!("the program no longer reads it ({e})"));
                    return;
                }
            }
        }
    }

    fn close_terminal_pipe(&mut self, tkey: usize, which: PipeKind) {
        let Some(io) = self.terminals.get_mut(tkey) else { return };
        io.child.close(which, self.poll.registry());
        self.forget_terminal_if_done(tkey);
    }

    /// A reaped child that is not an adapter: a terminal process exits (its session is told,
    /// what it wrote is read). False when `pid` is none of them.
    pub(super) fn terminal_reaped(&mut self, pid: Pid, status: ExitStatus) -> bool {
        let Some(tkey) = self.terminals.iter().find(|(_, t)| t.child.pid == pid).map(|(k, _)| k) else { return false };
        debug!("terminal pid {pid} exited: {status}");
        let Some(io) = self.terminals.get_mut(tkey) else { return true };
        io.child.reaped(status);
        let (session, detached) = (io.session, io.detached);
        // Draining may close the last pipe and forget the terminal: the session is told from
        // what was read before.
        self.read_terminal(tkey, READS_TO_DRAIN);
        if !detached {
            use std::os::unix::process::ExitStatusExt;
            let (code, signal) = (status.code().map(i64::from), status.signal().map(i64::from));
            self.sessions.on_terminal_exited(session, &status.to_string(), code, signal);
        }
        // A child of it may hold the pipes open; the process is gone all the same.
        for which in [PipeKind::Stdin, PipeKind::Stdout, PipeKind::Stderr] {
            self.close_terminal_pipe(tkey, which);
        }
        true
    }

    /// Removes a terminal once it was reaped and its output pipes are closed; whatever is left
    /// of its process group and descendants is killed.
    fn forget_terminal_if_done(&mut self, tkey: usize) {
        let Some(io) = self.terminals.get(tkey) else { return };
        if io.child.exit.is_none() || io.child.stdout.is_open() || io.child.stderr.is_open() {
            return;
        }
        let mut io = self.terminals.remove(tkey);
        io.child.close(PipeKind::Stdin, self.poll.registry());
        io.child.kill();
    }

    /// Records the processes below each running terminal process with it and the watchdog (the
    /// debuggee under debugpy's launcher, the program's children), as for adapters.
    /// The pids of the processes run for `runInTerminal`.
    pub(super) fn terminal_pids(&self) -> Vec<Pid> {
        self.terminals.iter().map(|(_, t)| t.child.pid).collect()
    }

    /// Whether a terminal process's walk already holds `pid`.
    pub(super) fn terminal_tracks(&self, pid: Pid) -> bool {
        self.terminals.iter().any(|(_, t)| t.child.tracks(pid))
    }

    pub(super) fn walk_terminals(&mut self, table: &[spawn::ProcStat]) {
        let prune: Vec<Pid> = self.watchdog.as_ref().map(|w| w.pid()).into_iter().collect();
        for (_, io) in self.terminals.iter_mut().filter(|(_, t)| !t.detached) {
            io.child.track(table, &prune, MAX_TRACKED, |p| watch(&mut self.watchdog, p));
        }
    }

    /// Stops the session's terminal process with its session: stdin closed, SIGTERM to its
    /// group and descendants, SIGKILL after [`KILL_GRACE`].
    pub(super) fn stop_terminal(&mut self, session: SessionKey, now: Instant) {
        let table = self.proc_scan.table(std::process::id() as Pid);
        self.walk_terminals(&table);
        let keys: Vec<usize> = self.terminals.iter().filter(|(_, t)| t.session == session).map(|(k, _)| k).collect();
        for tkey in keys {
            let Some(io) = self.terminals.get_mut(tkey) else { continue };
            if !io.child.terminate(self.poll.registry(), true) {
                continue;
            }
            let pid = io.child.pid;
            if let Err(e) = self.timers.insert(now + KILL_GRACE, TimerEvent::KillTerminal { key: tkey, pid }) {
                warn!("{e}; killing the terminal process now");
                self.kill_terminal(tkey, pid);
            }
        }
    }

    /// The session is released: its terminal is stopped and its output no longer delivered.
    pub(super) fn release_terminal(&mut self, session: SessionKey, now: Instant) {
        self.stop_terminal(session, now);
        for (_, io) in self.terminals.iter_mut().filter(|(_, t)| t.session == session) {
            io.detached = true;
        }
    }

    /// The grace period is over: SIGKILL what is left of the terminal process.
    pub(super) fn kill_terminal(&mut self, tkey: usize, pid: Pid) {
        let Some(io) = self.terminals.get(tkey).filter(|t| t.child.pid == pid) else { return };
        if io.child.kill() {
            debug!("terminal pid {pid} outlived its grace period; SIGKILL");
        }
    }

    /// SIGKILLs every terminal process group and descendant (the last step of shutdown).
    pub(super) fn kill_all_terminals(&mut self) {
        for (_, io) in self.terminals.iter() {
            io.child.kill();
        }
    }
}
