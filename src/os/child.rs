//! One child process as the event loop holds it (an adapter, or a program run for an adapter's `runInTerminal`): its pid and process group, its pipe ends (or a pseudo-terminal's master) each with its edge-triggered readiness, its exit, and the processes tracked below it; it reads, writes and signals, and decides nothing (when to stop, what the bytes mean and which session they reach are the server's).
//!
//! mio's readiness is edge-triggered (mio `Poll` docs: "Draining readiness"): a [`Pipe`] is
//! marked ready by an event, by its opening, or when agentdap must look again (the child was
//! reaped), and only an operation that answered `WouldBlock` clears it. A pipe left with data
//! keeps its flag, so the loop polls again at once (`server::TURN_BUDGET`).

use std::io::{self, Read, Write};
use std::process::ExitStatus;

use mio::event::Source;
use mio::unix::pipe;
use mio::{Interest, Registry, Token};

use super::spawn::{self, Pid, ProcStat, SpawnedAdapter, SpawnedTerminal};

/// Which of a child process's pipes a token names (the low two bits of its key:
/// `slab key << 2 | kind`), for adapters and for the processes run for `runInTerminal` alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PipeKind {
    Stdin = 0,
    Stdout = 1,
    Stderr = 2,
}

impl PipeKind {
    /// The kind a token's low two bits name (3, never encoded, reads as stderr).
    pub fn from_bits(bits: usize) -> PipeKind {
        match bits & 3 {
            0 => PipeKind::Stdin,
            1 => PipeKind::Stdout,
            _ => PipeKind::Stderr,
        }
    }
}

/// One non-blocking pipe end and its readiness; `None` once closed (or never opened: a
/// terminal has no separate stderr).
#[derive(Debug)]
pub struct Pipe<P> {
    end: Option<P>,
    ready: bool,
}

/// What one [`Pipe::read`] gave.
#[derive(Debug)]
pub enum ReadOutcome {
    /// `n` bytes at the front of the buffer.
    Data(usize),
    /// The pipe is drained for now (`WouldBlock`: readiness cleared), closed, or not ready.
    Empty,
    /// End of output: EOF, or `EIO` from a pseudo-terminal's master once no process holds the
    /// terminal open (pty(7)). Close the pipe.
    End,
    /// The read failed otherwise. Close the pipe.
    Failed(io::Error),
    /// A signal interrupted the read (`EINTR`); the pipe is still ready.
    Interrupted,
}

/// What one [`Pipe::write`] did.
#[derive(Debug)]
pub enum WriteOutcome {
    /// `n` bytes were written.
    Wrote(usize),
    /// The pipe's buffer is full (`WouldBlock`: readiness cleared), or the pipe is closed or
    /// not writable now.
    Full,
    /// A signal interrupted the write (`EINTR`); try again.
    Interrupted,
    /// The reader is gone or the write failed otherwise. Close the pipe.
    Failed(io::Error),
}

impl<P: Source> Pipe<P> {
    /// An open end, ready (nothing is known yet, so the first turn looks).
    pub fn open(end: P) -> Pipe<P> {
        Pipe { end: Some(end), ready: true }
    }

    /// No end at all.
    pub fn none() -> Pipe<P> {
        Pipe { end: None, ready: true }
    }

    /// Whether the end is still open.
    pub fn is_open(&self) -> bool {
        self.end.is_some()
    }

    /// An event (or agentdap itself) says the end may be read or written now.
    pub fn mark_ready(&mut self) {
        self.ready = true;
    }

    /// Whether the end is open and ready: a read or write may make progress.
    pub fn has_work(&self) -> bool {
        self.ready && self.end.is_some()
    }

    /// Registers the end (if open) under `token` for `interest`.
    fn register(&mut self, registry: &Registry, token: Token, interest: Interest) -> io::Result<()> {
        match self.end.as_mut() {
            Some(end) => registry.register(end, token, interest),
            None => Ok(()),
        }
    }

    /// Deregisters and closes the end; false when it was already closed.
    pub fn close(&mut self, registry: &Registry) -> bool {
        let Some(mut end) = self.end.take() else { return false };
        let _ = registry.deregister(&mut end);
        true
    }
}

impl Pipe<pipe::Receiver> {
    /// One `read` into `buf`, when the end is open and ready.
    pub fn read(&mut self, buf: &mut [u8]) -> ReadOutcome {
        let Some(end) = self.end.as_mut().filter(|_| self.ready) else { return ReadOutcome::Empty };
        match end.read(buf) {
            Ok(0) => ReadOutcome::End,
            Ok(n) => ReadOutcome::Data(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.ready = false;
                ReadOutcome::Empty
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => ReadOutcome::Interrupted,
            Err(e) if e.raw_os_error() == Some(libc::EIO) => ReadOutcome::End,
            Err(e) => ReadOutcome::Failed(e),
        }
    }
}

impl Pipe<pipe::Sender> {
    /// One `write` of `bytes`, when the end is open and ready.
    pub fn write(&mut self, bytes: &[u8]) -> WriteOutcome {
        let Some(end) = self.end.as_mut().filter(|_| self.ready) else { return WriteOutcome::Full };
        match end.write(bytes) {
            Ok(n) => WriteOutcome::Wrote(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.ready = false;
                WriteOutcome::Full
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => WriteOutcome::Interrupted,
            Err(e) => WriteOutcome::Failed(e),
        }
    }
}

/// A running (or exited, not yet forgotten) child of agentdap's.
#[derive(Debug)]
pub struct Child {
    /// Its pid.
    pub pid: Pid,
    /// Its process group (equal to `pid`: it leads its own).
    pub pgid: Pid,
    /// Its input: the stdin pipe, or the terminal's master.
    pub stdin: Pipe<pipe::Sender>,
    /// Its output: the stdout pipe, or the terminal's master (one stream).
    pub stdout: Pipe<pipe::Receiver>,
    /// Its stderr pipe (none on a terminal).
    pub stderr: Pipe<pipe::Receiver>,
    /// How it exited, once reaped.
    pub exit: Option<ExitStatus>,
    /// Processes below it, as (pid, start time), at most the cap given to [`Child::track`]:
    /// stopped with it; a recycled pid is never signalled.
    pub tracked: Vec<(Pid, u64)>,
    /// [`Child::terminate`] ran.
    pub stopping: bool,
}

impl From<SpawnedAdapter> for Child {
    fn from(s: SpawnedAdapter) -> Child {
        Child::new(s.pid, s.pgid, Pipe::open(s.stdin), Pipe::open(s.stdout), Pipe::open(s.stderr))
    }
}

impl Child {
    fn new(
        pid: Pid,
        pgid: Pid,
        stdin: Pipe<pipe::Sender>,
        stdout: Pipe<pipe::Receiver>,
        stderr: Pipe<pipe::Receiver>,
    ) -> Child {
        Child { pid, pgid, stdin, stdout, stderr, exit: None, tracked: Vec::new(), stopping: false }
    }

    /// A process on a pseudo-terminal: the master side is its input and its one output stream.
    /// Also gives the terminal's end-of-input character.
    pub fn from_terminal(s: SpawnedTerminal) -> (Child, u8) {
        let child = Child::new(s.pid, s.pgid, Pipe::open(s.input), Pipe::open(s.output), Pipe::none());
        (child, s.eof_char)
    }

    /// Registers the open ends: stdin WRITABLE, stdout and stderr READABLE, each under the
    /// token `token` gives for it. Errors: the registry's, or `Other` when `token` has none.
    pub fn register(&mut self, registry: &Registry, token: impl Fn(PipeKind) -> Option<Token>) -> io::Result<()> {
        let t = |kind| token(kind).ok_or_else(|| io::Error::other("token space exhausted"));
        self.stdin.register(registry, t(PipeKind::Stdin)?, Interest::WRITABLE)?;
        self.stdout.register(registry, t(PipeKind::Stdout)?, Interest::READABLE)?;
        self.stderr.register(registry, t(PipeKind::Stderr)?, Interest::READABLE)
    }

    /// The pipe end `kind` names.
    pub fn mark_ready(&mut self, kind: PipeKind) {
        match kind {
            PipeKind::Stdin => self.stdin.mark_ready(),
            PipeKind::Stdout => self.stdout.mark_ready(),
            PipeKind::Stderr => self.stderr.mark_ready(),
        }
    }

    /// The output end `kind` names (stdin: none, so stderr).
    pub fn output(&mut self, kind: PipeKind) -> &mut Pipe<pipe::Receiver> {
        match kind {
            PipeKind::Stdout => &mut self.stdout,
            _ => &mut self.stderr,
        }
    }

    /// Deregisters and closes the end `kind` names.
    pub fn close(&mut self, kind: PipeKind, registry: &Registry) -> bool {
        match kind {
            PipeKind::Stdin => self.stdin.close(registry),
            PipeKind::Stdout => self.stdout.close(registry),
            PipeKind::Stderr => self.stderr.close(registry),
        }
    }

    /// Whether an output end is open and ready (it may hold more than one turn's budget).
    pub fn has_output(&self) -> bool {
        self.stdout.has_work() || self.stderr.has_work()
    }

    /// The child was reaped: its exit is kept, and both outputs are read again, since what it
    /// wrote before exiting is still in them.
    pub fn reaped(&mut self, status: ExitStatus) {
        self.exit = Some(status);
        self.stdout.mark_ready();
        self.stderr.mark_ready();
    }

    /// Records every live process below it in `table` that it does not track yet (skipping the
    /// subtrees of `prune`), at most `cap` of them; `record` sees each new one (the watchdog
    /// records it). Nothing once it exited.
    pub fn track(&mut self, table: &[ProcStat], prune: &[Pid], cap: usize, mut record: impl FnMut(&ProcStat)) {
        if self.exit.is_some() {
            return;
        }
        for p in spawn::descendants_in(table, self.pid, prune) {
            if self.tracked.iter().any(|d| d.0 == p.pid) {
                continue;
            }
            // Recorded with the watchdog even past the cap: it kills them if agentdap dies.
            record(&p);
            if self.tracked.len() < cap {
                self.tracked.push((p.pid, p.start_time));
            }
        }
    }

    /// Whether `pid` is tracked below it.
    pub fn tracks(&self, pid: Pid) -> bool {
        self.tracked.iter().any(|d| d.0 == pid)
    }

    /// The first step of stopping it: stdin closed when `close_stdin` (else the caller closes
    /// it once what is queued is written), SIGTERM to its group while it runs and to every
    /// tracked process. False (nothing done) when it is already stopping.
    pub fn terminate(&mut self, registry: &Registry, close_stdin: bool) -> bool {
        if self.stopping {
            return false;
        }
        self.stopping = true;
        if close_stdin {
            self.stdin.close(registry);
        }
        if self.exit.is_none() {
            let _ = spawn::terminate_group(self.pgid);
        }
        spawn::signal_listed(&self.tracked, libc::SIGTERM);
        true
    }

    /// SIGKILL to whatever is left: its process group (if any process is still in it) and every
    /// tracked process still running. True when the group still existed.
    pub fn kill(&self) -> bool {
        let alive = spawn::group_exists(self.pgid);
        if alive {
            let _ = spawn::kill_group(self.pgid);
        }
        spawn::signal_listed(&self.tracked, libc::SIGKILL);
        alive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_kinds_round_trip_through_token_bits() {
        for kind in [PipeKind::Stdin, PipeKind::Stdout, PipeKind::Stderr] {
            assert_eq!(PipeKind::from_bits(7 << 2 | kind as usize), kind);
        }
        assert_eq!(PipeKind::from_bits(3), PipeKind::Stderr);
    }

    #[test]
    fn readiness_is_cleared_only_by_would_block_and_reads_reach_the_end() {
        let (mut tx, rx) = pipe::new().expect("pipe");
        let mut reader = Pipe::open(rx);
        let mut buf = [0u8; 8];
        assert!(reader.has_work(), "a new pipe is looked at once");
        assert!(matches!(reader.read(&mut buf), ReadOutcome::Empty));
        assert!(!reader.has_work(), "WouldBlock cleared readiness");
        assert!(matches!(reader.read(&mut buf), ReadOutcome::Empty), "not ready: no read at all");
        tx.write_all(b"hello").expect("write");
        reader.mark_ready();
        assert!(matches!(reader.read(&mut buf), ReadOutcome::Data(5)));
        assert!(reader.has_work(), "data read: still ready");
        drop(tx);
        assert!(matches!(reader.read(&mut buf), ReadOutcome::End));
        let registry = mio::Poll::new().expect("poll");
        assert!(reader.close(registry.registry()));
        assert!(!reader.is_open() && !reader.has_work());
    }

    #[test]
    fn a_full_pipe_clears_writability_and_a_gone_reader_fails() {
        let (tx, rx) = pipe::new().expect("pipe");
        let mut writer = Pipe::open(tx);
        let chunk = [b'x'; 64 * 1024];
        // Bounded: a Linux pipe holds 64 KiB by default, at most 1 MiB unprivileged.
        let mut full = false;
        for _ in 0..64 {
            if matches!(writer.write(&chunk), WriteOutcome::Full) {
                full = true;
                break;
            }
        }
        assert!(full && !writer.has_work());
        assert!(matches!(writer.write(b"x"), WriteOutcome::Full), "not writable until an event says so");
        drop(rx);
        writer.mark_ready();
        assert!(matches!(writer.write(b"x"), WriteOutcome::Failed(_)), "EPIPE");
    }
}
