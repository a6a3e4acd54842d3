//! Child processes: spawning adapters (own process group, PR_SET_PDEATHSIG, non-blocking piped stdio), reaping, group signals, and the `/proc` walk; never touches `Poll` and never blocks.
//!
//! The event loop owns the policy (when to signal, how long the grace period is, which fds to
//! register); this module gives it primitives. Transports: only stdio today. A TCP transport
//! (issue 7) will add a non-blocking connect state machine here next to [`spawn_adapter`]; the
//! adapter process itself is spawned the same way in both cases.
//!
//! Architecture invariant: nothing in agentdap calls `std::process::Child::wait`; every child (and
//! every orphan reparented to agentdap while it is a subreaper) is reaped by [`reap_exited`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};

use mio::unix::pipe;

pub use crate::dap::command::AdapterCommand;

/// A process id or process-group id, as the kernel spells it (`pid_t`).
pub type Pid = libc::pid_t;

/// A freshly spawned child: its ids and its three pipe ends, all `O_NONBLOCK`, ready for
/// `mio::Registry::register` (`stdin` WRITABLE, `stdout`/`stderr` READABLE).
///
/// Dropping a pipe end closes it; dropping the whole value neither kills nor reaps the child.
#[derive(Debug)]
pub struct SpawnedAdapter {
    /// The child's pid.
    pub pid: Pid,
    /// Its process group: always equal to `pid` (the child leads a new group).
    pub pgid: Pid,
    /// The write end of the child's stdin.
    pub stdin: pipe::Sender,
    /// The read end of the child's stdout (the DAP stream for stdio adapters).
    pub stdout: pipe::Receiver,
    /// The read end of the child's stderr (feed it to a [`StderrTail`]).
    pub stderr: pipe::Receiver,
}

/// Why a spawn failed.
#[derive(Debug)]
pub enum SpawnError {
    /// The program does not exist (`ENOENT` from `execvp`). Callers turn this into
    /// `adapter_not_found` with the recipe's install command.
    NotFound {
        /// The program as given.
        program: OsString,
    },
    /// The program exists but is not executable (`EACCES`).
    PermissionDenied {
        /// The program as given.
        program: OsString,
    },
    /// The requested working directory is not a directory.
    BadCwd {
        /// The directory as given.
        cwd: PathBuf,
    },
    /// Any other OS error (fork, pipe, fcntl, prctl).
    Io(io::Error),
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpawnError::NotFound { program } => write!(f, "{} not found", program.to_string_lossy()),
            SpawnError::PermissionDenied { program } => {
                write!(f, "{} is not executable (permission denied)", program.to_string_lossy())
            }
            SpawnError::BadCwd { cwd } => write!(f, "working directory {} is not a directory", cwd.display()),
            SpawnError::Io(e) => write!(f, "spawn failed: {e}"),
        }
    }
}

impl std::error::Error for SpawnError {}

/// Spawns `cmd` with piped stdin/stdout/stderr (never inherited: agentdap's stdout is the MCP
/// stream), in a new process group led by the child, with `PR_SET_PDEATHSIG(SIGKILL)` and an
/// empty signal mask.
///
/// PR_SET_PDEATHSIG fires when the *thread* that forked exits, so call this from the event
/// loop's thread, which lives as long as agentdap. Blocks only for `fork`/`exec` (the exec
/// result comes back over std's CLOEXEC pipe), never on the child's behaviour.
///
/// Errors: [`SpawnError`]; on error no child is left running.
pub fn spawn_adapter(cmd: &AdapterCommand) -> Result<SpawnedAdapter, SpawnError> {
    if let Some(cwd) = &cmd.cwd {
        if !cwd.is_dir() {
            return Err(SpawnError::BadCwd { cwd: cwd.clone() });
        }
    }
    let mut command = Command::new(&cmd.program);
    command.args(&cmd.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(cwd) = &cmd.cwd {
        command.current_dir(cwd);
    }
    for (key, value) in &cmd.env {
        match value {
            Some(v) => command.env(key, v),
            None => command.env_remove(key),
        };
    }
    command.process_group(0);
    let parent = std::process::id() as Pid;
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // calls (sigemptyset, sigprocmask, prctl, getppid, _exit); it allocates nothing and touches
    // no lock (`io::Error::last_os_error` only wraps errno).
    unsafe {
        command.pre_exec(move || child_setup(parent));
    }
    let mut child = command.spawn().map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => SpawnError::NotFound { program: cmd.program.clone() },
        io::ErrorKind::PermissionDenied => SpawnError::PermissionDenied { program: cmd.program.clone() },
        _ => SpawnError::Io(e),
    })?;
    let pid = child.id() as Pid;
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    // `child` is dropped without waiting: reaping belongs to `reap_exited`.
    drop(child);
    let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
        // Unreachable with Stdio::piped, but never leave a child behind.
        let _ = kill_group(pid);
        return Err(SpawnError::Io(io::Error::other("child pipes missing")));
    };
    let stdin = pipe::Sender::from(stdin);
    let stdout = pipe::Receiver::from(stdout);
    let stderr = pipe::Receiver::from(stderr);
    let nonblocking = stdin.set_nonblocking(true).and(stdout.set_nonblocking(true)).and(stderr.set_nonblocking(true));
    if let Err(e) = nonblocking {
        let _ = kill_group(pid);
        return Err(SpawnError::Io(e));
    }
    Ok(SpawnedAdapter { pid, pgid: pid, stdin, stdout, stderr })
}

/// A process spawned on a pseudo-terminal: its ids, the master side (read: everything it
/// writes, one stream; write: its input) and the terminal's end-of-input character.
#[derive(Debug)]
pub struct SpawnedTerminal {
    /// The child's pid.
    pub pid: Pid,
    /// Its process group: equal to `pid` (the child leads a new session and group).
    pub pgid: Pid,
    /// The master side for writing the child's input (`O_NONBLOCK`, register WRITABLE).
    pub input: pipe::Sender,
    /// The master side for reading what the child writes to stdout and stderr (`O_NONBLOCK`,
    /// register READABLE). A read fails with `EIO` once no process holds the terminal open.
    pub output: pipe::Receiver,
    /// The terminal's `VEOF` character (^D): written at the start of a line, a canonical-mode
    /// read returns end of input.
    pub eof_char: u8,
}

/// Columns and rows of the pseudo-terminal (`TIOCSWINSZ`): a wide terminal, so programs that
/// wrap or truncate at the width (progress bars, tables) print whole lines for the agent.
pub const TERMINAL_SIZE: (u16, u16) = (120, 40);

/// Spawns `cmd` on a new pseudo-terminal as its controlling terminal (stdin, stdout and stderr
/// are the terminal's slave side), as an IDE's integrated terminal runs a program: `isatty()`
/// is true, so the program line-buffers its output and prompts show when printed. The child
/// leads a new session (`setsid`, hence its own process group) with `PR_SET_PDEATHSIG(SIGKILL)`
/// and an empty signal mask, like [`spawn_adapter`]. The terminal does not echo input (the
/// agent's input is not output) and does not turn `\n` into `\r\n` (`ONLCR` off); a program can
/// change both with `tcsetattr`. `TERM` is `dumb` unless `cmd` sets it: the terminal interprets
/// no escape sequences.
///
/// Errors: [`SpawnError`]; on error no child is left running.
pub fn spawn_in_pty(cmd: &AdapterCommand) -> Result<SpawnedTerminal, SpawnError> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    if let Some(cwd) = &cmd.cwd {
        if !cwd.is_dir() {
            return Err(SpawnError::BadCwd { cwd: cwd.clone() });
        }
    }
    let cvt = |rc: libc::c_int| if rc == -1 { Err(SpawnError::Io(io::Error::last_os_error())) } else { Ok(rc) };
    // SAFETY: posix_openpt returns a new fd or -1; the fd is owned from here on.
    let master =
        unsafe { OwnedFd::from_raw_fd(cvt(libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC))?) };
    // SAFETY: grantpt/unlockpt/ioctl on an fd we own; TIOCGPTPEER (Linux 4.13) opens the slave
    // side without a path lookup and returns a new fd or -1.
    let slave = unsafe {
        cvt(libc::grantpt(master.as_raw_fd()))?;
        cvt(libc::unlockpt(master.as_raw_fd()))?;
        let flags = libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC;
        OwnedFd::from_raw_fd(cvt(libc::ioctl(master.as_raw_fd(), libc::TIOCGPTPEER, flags))?)
    };
    // SAFETY: termios and winsize are plain C structs filled or read by the kernel.
    let eof_char = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        cvt(libc::tcgetattr(slave.as_raw_fd(), &mut t))?;
        t.c_lflag &= !(libc::ECHO | libc::ECHONL);
        t.c_oflag &= !libc::ONLCR;
        cvt(libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t))?;
        let ws = libc::winsize { ws_col: TERMINAL_SIZE.0, ws_row: TERMINAL_SIZE.1, ws_xpixel: 0, ws_ypixel: 0 };
        cvt(libc::ioctl(master.as_raw_fd(), libc::TIOCSWINSZ, &ws))?;
        t.c_cc[libc::VEOF]
    };
    let stdio = |fd: &OwnedFd| fd.try_clone().map(Stdio::from).map_err(SpawnError::Io);
    let mut command = Command::new(&cmd.program);
    command.args(&cmd.args).stdin(stdio(&slave)?).stdout(stdio(&slave)?).stderr(Stdio::from(slave));
    if let Some(cwd) = &cmd.cwd {
        command.current_dir(cwd);
    }
    command.env("TERM", "dumb");
    for (key, value) in &cmd.env {
        match value {
            Some(v) => command.env(key, v),
            None => command.env_remove(key),
        };
    }
    let parent = std::process::id() as Pid;
    // SAFETY: as in `spawn_adapter`, plus setsid and ioctl(TIOCSCTTY) on fd 0 (the slave side,
    // already dup2'd by std), both async-signal-safe. No `process_group`: setsid makes the child
    // a new group's leader, and fails in one that already leads a group.
    unsafe {
        command.pre_exec(move || {
            child_setup(parent)?;
            if libc::setsid() == -1 || libc::ioctl(0, libc::TIOCSCTTY, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let spawned = command.spawn();
    // The slave side's copies in `command` close here: only the child holds the terminal open.
    drop(command);
    let child = spawned.map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => SpawnError::NotFound { program: cmd.program.clone() },
        io::ErrorKind::PermissionDenied => SpawnError::PermissionDenied { program: cmd.program.clone() },
        _ => SpawnError::Io(e),
    })?;
    let pid = child.id() as Pid;
    // `child` is dropped without waiting: reaping belongs to `reap_exited`.
    drop(child);
    let ends = master.try_clone().map(|input| (pipe::Sender::from(input), pipe::Receiver::from(master)));
    let (input, output) = match ends {
        Ok(ends) => ends,
        Err(e) => {
            let _ = kill_group(pid);
            return Err(SpawnError::Io(e));
        }
    };
    // One open file description behind both ends: O_NONBLOCK set once holds for both.
    if let Err(e) = output.set_nonblocking(true) {
        let _ = kill_group(pid);
        return Err(SpawnError::Io(e));
    }
    Ok(SpawnedTerminal { pid, pgid: pid, input, output, eof_char })
}

/// Runs in the forked child: empty signal mask (the loop may block SIGCHLD/SIGTERM for a
/// signalfd, and the mask survives exec), die with the parent, and close the race where the
/// parent died before `prctl` took effect.
fn child_setup(parent: Pid) -> io::Result<()> {
    // SAFETY: async-signal-safe libc calls on a stack-local sigset; see `spawn_adapter`.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        if libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()) == -1 {
            return Err(io::Error::last_os_error());
        }
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) == -1 {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            // The parent is already gone (we were reparented): the death signal will never come.
            libc::_exit(1);
        }
    }
    Ok(())
}

/// Marks agentdap as a child subreaper (`PR_SET_CHILD_SUBREAPER`): orphaned descendants
/// (debuggees whose adapter died, lldb-server, the debugpy launcher's children) are reparented
/// to agentdap instead of init, so [`reap_exited`] sees them and the `/proc` walk finds them.
/// Call once at server start. Errors: the `prctl` error.
pub fn become_subreaper() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only; no memory is passed.
    let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Most children reaped per [`reap_exited`] call; call again if it returned this many.
pub const REAP_CAP: usize = 4096;

/// Reaps every exited child without blocking (`waitpid(-1, WNOHANG)` until none is left, at
/// most [`REAP_CAP`]). Call it on every SIGCHLD (signals coalesce, so one wake-up may stand for
/// many exits) and once per shutdown tick. Returns `(pid, status)` in reap order; pids agentdap
/// does not know (reparented orphans) are included and may be ignored.
pub fn reap_exited() -> Vec<(Pid, ExitStatus)> {
    let mut reaped = Vec::new();
    while reaped.len() < REAP_CAP {
        let mut status: libc::c_int = 0;
        // SAFETY: `status` is a valid, writable c_int for the duration of the call.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid > 0 {
            reaped.push((pid, ExitStatus::from_raw(status)));
            continue;
        }
        if pid == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        // 0: children exist but none has exited; -1/ECHILD: no children at all.
        break;
    }
    reaped
}

/// Sends SIGTERM to every process in group `pgid` (`kill(-pgid, SIGTERM)`): the first step of
/// shutting an adapter down; follow with [`kill_group`] when the grace period ends.
///
/// Returns `Ok(true)` if the group existed, `Ok(false)` if it is already gone (`ESRCH`).
/// Errors: `InvalidInput` for `pgid <= 1` or agentdap's own group (that would signal agentdap or
/// everything); other `kill` errors (`EPERM`).
pub fn terminate_group(pgid: Pid) -> io::Result<bool> {
    signal_group(pgid, libc::SIGTERM)
}

/// Sends SIGKILL to every process in group `pgid`. Same results and errors as
/// [`terminate_group`]. The killed processes still need reaping by [`reap_exited`].
pub fn kill_group(pgid: Pid) -> io::Result<bool> {
    signal_group(pgid, libc::SIGKILL)
}

/// Whether any process (zombies included, until reaped) is still in group `pgid`
/// (`kill(-pgid, 0)`). `false` for invalid or foreign-guarded ids.
pub fn group_exists(pgid: Pid) -> bool {
    signal_group(pgid, 0).unwrap_or(false)
}

fn signal_group(pgid: Pid, signal: libc::c_int) -> io::Result<bool> {
    // SAFETY: getpgrp takes no arguments and cannot fail.
    let own = unsafe { libc::getpgrp() };
    if pgid <= 1 || pgid == own {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("refusing to signal process group {pgid}")));
    }
    // SAFETY: kill with integer arguments; a negative pid addresses the group only.
    if unsafe { libc::kill(-pgid, signal) } == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) {
        return Ok(false);
    }
    Err(err)
}

/// Bytes of adapter stderr kept by default (the tail quoted in `disconnected` errors).
pub const STDERR_TAIL_CAP: usize = 8 * 1024;

/// A bounded tail of a byte stream (an adapter's stderr): keeps the last `cap` bytes and counts
/// what it dropped. The loop feeds it whatever it reads; it never allocates beyond `cap`.
#[derive(Clone, Debug)]
pub struct StderrTail {
    buf: VecDeque<u8>,
    cap: usize,
    dropped: u64,
}

impl Default for StderrTail {
    fn default() -> StderrTail {
        StderrTail::new(STDERR_TAIL_CAP)
    }
}

impl StderrTail {
    /// An empty tail keeping at most `cap` bytes.
    pub fn new(cap: usize) -> StderrTail {
        StderrTail { buf: VecDeque::with_capacity(cap.min(STDERR_TAIL_CAP)), cap, dropped: 0 }
    }

    /// Appends `bytes`, dropping the oldest bytes beyond the cap.
    pub fn push(&mut self, bytes: &[u8]) {
        let keep = if bytes.len() > self.cap {
            self.dropped += (bytes.len() - self.cap) as u64;
            &bytes[bytes.len() - self.cap..]
        } else {
            bytes
        };
        let overflow = (self.buf.len() + keep.len()).saturating_sub(self.cap);
        self.buf.drain(..overflow);
        self.dropped += overflow as u64;
        self.buf.extend(keep);
    }

    /// Bytes currently held (≤ cap).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Bytes dropped from the front since creation.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The tail as text: lossy UTF-8, without a character cut in half at the front.
    pub fn text(&self) -> String {
        let (a, b) = self.buf.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        let start = if self.dropped > 0 { bytes.iter().take(3).take_while(|&&c| c & 0xC0 == 0x80).count() } else { 0 };
        String::from_utf8_lossy(&bytes[start..]).into_owned()
    }
}

/// The fields agentdap needs from `/proc/<pid>/stat` (proc(5)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcStat {
    /// Field 1.
    pub pid: Pid,
    /// Field 3: `R`, `S`, `D`, `Z` (zombie), `X`, `T`, …
    pub state: u8,
    /// Field 4.
    pub ppid: Pid,
    /// Field 5: process group.
    pub pgid: Pid,
    /// Field 22: start time in clock ticks after boot; with `pid`, identifies a process even
    /// after its pid is recycled.
    pub start_time: u64,
}

impl ProcStat {
    /// Whether the process is still running (not a zombie or dead-and-being-reaped).
    pub fn is_running(&self) -> bool {
        !matches!(self.state, b'Z' | b'X' | b'x')
    }
}

/// Parses the text of a `/proc/<pid>/stat` file. The command name (field 2) may hold spaces
/// and parentheses, so fields are counted after the *last* `)`. `None` if malformed.
pub fn parse_proc_stat(text: &[u8]) -> Option<ProcStat> {
    let open = text.iter().position(|&c| c == b'(')?;
    let close = text.iter().rposition(|&c| c == b')')?;
    let pid = std::str::from_utf8(&text[..open]).ok()?.trim().parse().ok()?;
    let rest = std::str::from_utf8(text.get(close + 1..)?).ok()?;
    let fields: Vec<&str> = rest.split_ascii_whitespace().take(20).collect();
    // Counted from field 3 (state): ppid is field 4, pgrp 5, starttime 22.
    let state = *fields.first()?.as_bytes().first()?;
    Some(ProcStat {
        pid,
        state,
        ppid: fields.get(1)?.parse().ok()?,
        pgid: fields.get(2)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
    })
}

/// Reads and parses `/proc/<pid>/stat` (one read of a sub-kilobyte file).
/// Errors: `NotFound` when the process is gone; `InvalidData` when unparsable.
pub fn proc_stat(pid: Pid) -> io::Result<ProcStat> {
    let mut file = std::fs::File::open(format!("/proc/{pid}/stat"))?;
    let mut buf = [0u8; 1024];
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    parse_proc_stat(&buf[..len]).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "unparsable /proc stat"))
}

/// Whether `pid` is a running (non-zombie) process, and — when `start_time` is given — still
/// the same process rather than a recycled pid.
pub fn is_running(pid: Pid, start_time: Option<u64>) -> bool {
    match proc_stat(pid) {
        Ok(st) => st.is_running() && start_time.map_or(true, |t| t == st.start_time),
        Err(_) => false,
    }
}

/// Most `/proc` entries examined by [`descendants`].
pub const PROC_SCAN_CAP: usize = 32 * 1024;

/// Every live descendant of `root` (children, grandchildren, …; zombies excluded), found by one
/// scan of `/proc/*/stat` and ppid chains, without descending into the subtrees of `prune`
/// (e.g. the watchdog) nor returning those pids. Bounded by [`PROC_SCAN_CAP`] entries; each
/// read is a small procfs file. Order: breadth-first from `root`.
pub fn descendants(root: Pid, prune: &[Pid]) -> Vec<ProcStat> {
    descendants_in(&process_table(), root, prune)
}

/// One scan of `/proc/*/stat` (at most [`PROC_SCAN_CAP`] entries), for several
/// [`descendants_in`] queries over the same moment.
pub fn process_table() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut all = Vec::new();
    for entry in dir.take(PROC_SCAN_CAP).flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<Pid>().ok()) else {
            continue;
        };
        if let Ok(st) = proc_stat(pid) {
            all.push(st);
        }
    }
    all
}

/// [`descendants`] over an already collected process list (testable without `/proc`).
pub fn descendants_in(all: &[ProcStat], root: Pid, prune: &[Pid]) -> Vec<ProcStat> {
    let mut children: HashMap<Pid, Vec<usize>> = HashMap::new();
    for (i, st) in all.iter().enumerate() {
        children.entry(st.ppid).or_default().push(i);
    }
    let mut seen: HashSet<Pid> = HashSet::from([root]);
    let mut queue = VecDeque::from([root]);
    let mut out = Vec::new();
    while let Some(parent) = queue.pop_front() {
        for &i in children.get(&parent).map(Vec::as_slice).unwrap_or(&[]) {
            let st = all[i];
            if prune.contains(&st.pid) || !seen.insert(st.pid) {
                continue;
            }
            queue.push_back(st.pid);
            if st.is_running() {
                out.push(st);
            }
        }
    }
    out
}

/// Sends `signal` to each listed process that still runs with its recorded start time, as
/// `(pid, start time)` (a recycled pid is never signalled).
pub fn signal_listed(list: &[(Pid, u64)], signal: libc::c_int) {
    for &(pid, start) in list {
        if is_running(pid, Some(start)) {
            // SAFETY: kill with a pid and a signal number has no memory-safety preconditions.
            unsafe { libc::kill(pid, signal) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(pid: Pid, ppid: Pid, state: u8) -> ProcStat {
        ProcStat { pid, state, ppid, pgid: pid, start_time: 100 + pid as u64 }
    }

    #[test]
    fn parses_stat_with_spaces_and_parens_in_comm() {
        let text = b"4242 (we ird) (x)) S 17 4242 17 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1234 56\n";
        let got = parse_proc_stat(text);
        assert_eq!(got, Some(ProcStat { pid: 4242, state: b'S', ppid: 17, pgid: 4242, start_time: 987654 }));
    }

    #[test]
    fn rejects_truncated_stat() {
        assert_eq!(parse_proc_stat(b"12 (sh) S 1 12 12"), None);
        assert_eq!(parse_proc_stat(b""), None);
        assert_eq!(parse_proc_stat(b"x (sh) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"), None);
    }

    #[test]
    fn own_stat_is_readable() {
        let me = proc_stat(std::process::id() as Pid);
        assert!(matches!(me, Ok(s) if s.pid == std::process::id() as Pid && s.is_running()), "{me:?}");
    }

    #[test]
    fn descendants_follow_ppid_chains_and_prune() {
        let all = [
            st(10, 1, b'S'),
            st(11, 10, b'S'),
            st(12, 11, b'S'),
            st(13, 10, b'Z'),
            st(14, 13, b'S'),
            st(20, 10, b'S'),
            st(21, 20, b'S'),
            st(30, 1, b'S'),
        ];
        let pids: Vec<Pid> = descendants_in(&all, 10, &[20]).iter().map(|s| s.pid).collect();
        // 13 is a zombie: not returned, but its child 14 is.
        assert_eq!(pids, vec![11, 12, 14]);
    }

    #[test]
    fn tail_keeps_last_bytes_and_counts_drops() {
        let mut tail = StderrTail::new(8);
        tail.push(b"hello");
        assert_eq!((tail.text().as_str(), tail.dropped()), ("hello", 0));
        tail.push(b" world");
        assert_eq!((tail.text().as_str(), tail.dropped()), ("lo world", 3));
        tail.push(b"0123456789abc");
        assert_eq!((tail.text().as_str(), tail.dropped(), tail.len()), ("56789abc", 16, 8));
    }

    #[test]
    fn tail_text_skips_a_character_cut_at_the_front() {
        let mut tail = StderrTail::new(4);
        tail.push("xé€".as_bytes()); // 1 + 2 + 3 bytes; the kept 4 start inside 'é'
        assert_eq!(tail.text(), "€");
    }

    #[test]
    fn refuses_to_signal_own_or_reserved_groups() {
        // SAFETY: getpgrp takes no arguments and cannot fail.
        let own = unsafe { libc::getpgrp() };
        for pgid in [0, 1, -5, own] {
            assert_eq!(kill_group(pgid).map_err(|e| e.kind()), Err(io::ErrorKind::InvalidInput));
        }
    }

    #[test]
    fn spawn_of_missing_program_is_not_found() {
        let got = spawn_adapter(&AdapterCommand::new("/nonexistent/agentdap-no-such-adapter"));
        assert!(matches!(got, Err(SpawnError::NotFound { .. })), "{got:?}");
        let mut cmd = AdapterCommand::new("sh");
        cmd.cwd = Some(PathBuf::from("/nonexistent/dir"));
        assert!(matches!(spawn_adapter(&cmd), Err(SpawnError::BadCwd { .. })));
    }
}
