//! The watchdog (agentdap re-executed as `__watchdog`) that SIGKILLs recorded launched debuggees when the server's pipe closes and then removes the temporary directories agentdap recorded, the server-side handle that feeds it, and the debuggee pid book; attached processes are never recorded, and nothing agentdap did not make is ever removed.
//!
//! Wire format on the pipe (one line each, well under `PIPE_BUF`, so every write is atomic):
//! `+<pid> <start_time>\n` records a launched process, `-<pid>\n` forgets it;
//! `+dir <path>\n` records a temporary directory agentdap created, `-dir <path>\n` forgets it
//! (agentdap removed it itself). `start_time` is field 22 of `/proc/<pid>/stat`; the watchdog
//! kills only a pid whose start time still matches, so a recycled pid is never touched. A
//! directory is removed only if it still passes [`is_own_scratch_dir`] for the server that
//! started the watchdog (its parent), and only once the processes it killed are gone.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::spawn::{proc_stat, Pid, ProcStat};

/// The hidden subcommand that runs [`watchdog_main`].
pub const WATCHDOG_SUBCOMMAND: &str = "__watchdog";

/// Most pids a watchdog (and a [`DebuggeeBook`]) keeps; records beyond it are refused.
pub const MAX_RECORDED: usize = 4096;

/// Most temporary directories a watchdog keeps; records beyond it are refused.
pub const MAX_DIRS: usize = 256;

/// Longest directory path a `+dir`/`-dir` line carries (bytes); longer ones are not recorded.
pub const MAX_DIR_PATH: usize = 1024;

/// Longest command line accepted by the watchdog (bytes, newline excluded): a `+dir` line with
/// the longest path, far below `PIPE_BUF` (4096 on Linux), so a write is never split.
const MAX_LINE: usize = MAX_DIR_PATH + 8;

/// How long the watchdog waits for the processes it SIGKILLed to be gone before it removes the
/// directories (a built binary may still be executing from one).
const KILL_WAIT: Duration = Duration::from_secs(10);

/// Name prefix of every temporary directory agentdap creates: `agentdap-build-<pid>-<tag>` in
/// [`std::env::temp_dir`], `<pid>` the server's.
pub const SCRATCH_PREFIX: &str = "agentdap-build-";

/// Whether `path` is a temporary directory the agentdap with pid `server` (any agentdap when
/// `None`) would have created: directly inside `base` (the temporary directory), named
/// `agentdap-build-<pid>-<tag>`, a real directory (`lstat`: never a symlink) owned by this
/// process's effective uid. One `lstat`; false on any error.
pub fn is_own_scratch_dir(path: &Path, base: &Path, server: Option<u32>) -> bool {
    if !path.is_absolute() || path.parent() != Some(base) {
        return false;
    }
    let Some(rest) = path.file_name().and_then(OsStr::to_str).and_then(|n| n.strip_prefix(SCRATCH_PREFIX)) else {
        return false;
    };
    let Some((pid, tag)) = rest.split_once('-') else { return false };
    if tag.is_empty() || pid.parse::<u32>().map_or(true, |p| server.is_some_and(|s| s != p)) {
        return false;
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else { return false };
    // SAFETY: geteuid takes nothing and cannot fail.
    meta.file_type().is_dir() && meta.uid() == unsafe { libc::geteuid() }
}

/// Removes `path` recursively if [`is_own_scratch_dir`] holds for it. `remove_dir_all` does not
/// follow symlinks: it descends with `openat(O_NOFOLLOW)` and unlinks a link itself, so nothing
/// outside the directory is touched even if an entry inside is a link.
pub fn remove_own_scratch_dir(path: &Path, base: &Path, server: Option<u32>) -> io::Result<bool> {
    if !is_own_scratch_dir(path, base, server) {
        return Ok(false);
    }
    std::fs::remove_dir_all(path)?;
    Ok(true)
}

/// Bytes of commands queued in the handle while the pipe is full.
const MAX_PENDING: usize = 16 * 1024;

/// Entry point of the watchdog process (`agentdap __watchdog`): reads commands from stdin (the
/// server's pipe) until EOF, then SIGKILLs every recorded pid whose start time still matches
/// (its whole process group first if it leads one), waits until those are gone (at most
/// [`KILL_WAIT`]), removes every recorded directory that still passes [`is_own_scratch_dir`]
/// for its parent (the server), and returns the exit code (0).
///
/// `args` are the arguments after the subcommand (none are defined; extra ones are logged and
/// ignored). Never writes to stdout: fd 1 is pointed at `/dev/null` first, in case it was not.
pub fn watchdog_main(args: &[OsString]) -> i32 {
    if !args.is_empty() {
        log::warn!("watchdog: ignoring arguments {args:?}");
    }
    if let Ok(null) = File::options().write(true).open("/dev/null") {
        // SAFETY: dup2 of two valid open fds; fd 1 is replaced atomically.
        unsafe { libc::dup2(null.as_raw_fd(), 1) };
    }
    // Read first: once the server dies the parent is someone else.
    // SAFETY: getppid takes nothing and cannot fail.
    let server = unsafe { libc::getppid() } as u32;
    let base = std::env::temp_dir();
    let _ = std::env::set_current_dir("/");
    let mut recorded = Recorded::default();
    let mut stdin = io::stdin().lock();
    let mut line: Vec<u8> = Vec::with_capacity(MAX_LINE);
    let mut overlong = false;
    let mut buf = [0u8; 4096];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait_readable(0);
                continue;
            }
            Err(e) => {
                log::warn!("watchdog: reading the server pipe failed ({e}); acting as if the server died");
                break;
            }
        };
        for &byte in &buf[..n] {
            if byte != b'\n' {
                if line.len() < MAX_LINE {
                    line.push(byte);
                } else {
                    overlong = true;
                }
                continue;
            }
            if !overlong {
                apply_command(&line, &mut recorded);
            }
            line.clear();
            overlong = false;
        }
    }
    let killed: Vec<(Pid, u64, libc::c_int)> = recorded
        .pids
        .iter()
        .filter_map(|(&pid, &start)| kill_recorded(pid, start).map(|fd| (pid, start, fd)))
        .collect();
    wait_gone(&killed, KILL_WAIT);
    for &(_, _, fd) in &killed {
        close_fd(fd);
    }
    for dir in &recorded.dirs {
        match remove_own_scratch_dir(dir, &base, Some(server)) {
            Ok(true) => {}
            // Already gone (removed with its adapter, then recorded again by a relaunch).
            Ok(false) if std::fs::symlink_metadata(dir).is_err() => {}
            Ok(false) => log::warn!("watchdog: {} is not a directory agentdap made; left alone", dir.display()),
            Err(e) => log::warn!("watchdog: cannot remove {}: {e}", dir.display()),
        }
    }
    0
}

/// What the watchdog acts on at EOF.
#[derive(Debug, Default, PartialEq, Eq)]
struct Recorded {
    /// Launched pids and their start times, at most [`MAX_RECORDED`].
    pids: HashMap<Pid, u64>,
    /// Temporary directories, at most [`MAX_DIRS`], in the order recorded.
    dirs: Vec<PathBuf>,
}

/// Waits until every killed process (pid, start time, pidfd or -1) has exited, or `limit`
/// passed. A pidfd turns readable when its process exits; without one, `/proc` is polled.
fn wait_gone(killed: &[(Pid, u64, libc::c_int)], limit: Duration) {
    let end = Instant::now() + limit;
    loop {
        let left: Vec<_> =
            killed.iter().filter(|(pid, start, _)| super::spawn::is_running(*pid, Some(*start))).collect();
        if left.is_empty() {
            return;
        }
        let now = Instant::now();
        if now >= end {
            log::warn!("watchdog: {} killed process(es) still running after {limit:?}", left.len());
            return;
        }
        let mut fds: Vec<libc::pollfd> = left
            .iter()
            .filter(|k| k.2 >= 0)
            .map(|k| libc::pollfd { fd: k.2, events: libc::POLLIN, revents: 0 })
            .collect();
        // Without a pidfd for every process, look again every 10 ms.
        let step = if fds.len() == left.len() { end - now } else { Duration::from_millis(10).min(end - now) };
        let ms = step.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a valid array of `fds.len()` pollfds (possibly empty: a plain sleep).
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    }
}

/// Blocks until `fd` is readable or hung up (only the watchdog process does this).
fn wait_readable(fd: libc::c_int) {
    let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd on the stack; -1 waits without timeout.
    unsafe { libc::poll(&mut pfd, 1, -1) };
}

/// What one watchdog command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchdogCommand {
    /// `+<pid> <start_time>`: kill `pid` when the pipe closes if it still started at
    /// `start_time` (clock ticks after boot, `/proc/<pid>/stat` field 22).
    Record {
        /// The process.
        pid: Pid,
        /// Its start time.
        start_time: u64,
    },
    /// `-<pid>`: stop watching `pid`.
    Forget {
        /// The process.
        pid: Pid,
    },
    /// `+dir <path>`: remove this temporary directory (agentdap created it) once the killed
    /// processes are gone. At most [`MAX_DIR_PATH`] bytes, no newline.
    RecordDir(PathBuf),
    /// `-dir <path>`: agentdap removed the directory itself; forget it.
    ForgetDir(PathBuf),
}

/// Parses one command line (without its newline). `None` for anything malformed, including
/// pids ≤ 1 and directory paths that are empty, relative or over [`MAX_DIR_PATH`] bytes.
pub fn parse_command(line: &[u8]) -> Option<WatchdogCommand> {
    for (prefix, record) in [(&b"+dir "[..], true), (&b"-dir "[..], false)] {
        if let Some(path) = line.strip_prefix(prefix) {
            let path = PathBuf::from(OsStr::from_bytes(path));
            if path.as_os_str().len() > MAX_DIR_PATH || !path.is_absolute() {
                return None;
            }
            return Some(if record { WatchdogCommand::RecordDir(path) } else { WatchdogCommand::ForgetDir(path) });
        }
    }
    let text = std::str::from_utf8(line).ok()?.trim_end_matches('\r');
    let op = text.chars().next()?;
    let mut parts = text[op.len_utf8()..].split(' ');
    let pid: Pid = parts.next()?.parse().ok()?;
    if pid <= 1 {
        return None;
    }
    let cmd = match op {
        '+' => WatchdogCommand::Record { pid, start_time: parts.next()?.parse().ok()? },
        '-' => WatchdogCommand::Forget { pid },
        _ => return None,
    };
    parts.next().is_none().then_some(cmd)
}

/// Formats a command as its wire line (with the newline). Errors: `InvalidInput` for a
/// directory path with a newline, relative, or over [`MAX_DIR_PATH`] bytes.
pub fn format_command(cmd: &WatchdogCommand) -> io::Result<Vec<u8>> {
    let (prefix, path) = match cmd {
        WatchdogCommand::Record { pid, start_time } => return Ok(format!("+{pid} {start_time}\n").into_bytes()),
        WatchdogCommand::Forget { pid } => return Ok(format!("-{pid}\n").into_bytes()),
        WatchdogCommand::RecordDir(path) => ("+dir ", path),
        WatchdogCommand::ForgetDir(path) => ("-dir ", path),
    };
    let bytes = path.as_os_str().as_bytes();
    if bytes.len() > MAX_DIR_PATH || bytes.contains(&b'\n') || !path.is_absolute() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "directory path cannot go on a watchdog line"));
    }
    Ok([prefix.as_bytes(), bytes, b"\n"].concat())
}

fn apply_command(line: &[u8], recorded: &mut Recorded) {
    match parse_command(line) {
        Some(WatchdogCommand::Record { pid, start_time }) => {
            if recorded.pids.len() < MAX_RECORDED || recorded.pids.contains_key(&pid) {
                recorded.pids.insert(pid, start_time);
            } else {
                log::warn!("watchdog: {MAX_RECORDED} pids recorded; not recording {pid}");
            }
        }
        Some(WatchdogCommand::Forget { pid }) => {
            recorded.pids.remove(&pid);
        }
        Some(WatchdogCommand::RecordDir(path)) if recorded.dirs.contains(&path) => {}
        Some(WatchdogCommand::RecordDir(path)) => {
            if recorded.dirs.len() < MAX_DIRS {
                recorded.dirs.push(path);
            } else {
                log::warn!("watchdog: {MAX_DIRS} directories recorded; not recording {}", path.display());
            }
        }
        Some(WatchdogCommand::ForgetDir(path)) => recorded.dirs.retain(|d| *d != path),
        None => log::warn!("watchdog: ignoring malformed command {:?}", String::from_utf8_lossy(line)),
    }
}

/// Kills `pid` (and its process group if it leads one) if it is still the process that started
/// at `start_time`. A pidfd, when the kernel has them, pins the process between the check and
/// the signal. Returns `None` when nothing was signalled, else the pidfd (or -1 without one),
/// for [`wait_gone`]; the caller closes it.
fn kill_recorded(pid: Pid, start_time: u64) -> Option<libc::c_int> {
    // SAFETY: pidfd_open takes a pid and flags; it returns a new fd or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as libc::c_int;
    let Ok(st) = proc_stat(pid) else {
        close_fd(pidfd);
        return None;
    };
    if st.start_time != start_time || !st.is_running() {
        close_fd(pidfd);
        return None;
    }
    if st.pgid == pid {
        // SAFETY: kill with integer arguments; pid > 1 was checked when recorded.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    if pidfd >= 0 {
        // SAFETY: pidfd is an fd we own; a null siginfo is allowed.
        unsafe { libc::syscall(libc::SYS_pidfd_send_signal, pidfd, libc::SIGKILL, std::ptr::null::<u8>(), 0) };
    } else {
        // SAFETY: kill with integer arguments.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    Some(pidfd)
}

fn close_fd(fd: libc::c_int) {
    if fd >= 0 {
        // SAFETY: fd was returned to us by pidfd_open and is closed once.
        unsafe { libc::close(fd) };
    }
}

/// The server's handle on its watchdog process: the non-blocking write end of the pipe.
///
/// Dropping the handle closes the pipe, which makes the watchdog kill whatever is still
/// recorded and exit — exactly what happens when agentdap dies, even by SIGKILL.
#[derive(Debug)]
pub struct Watchdog {
    pid: Pid,
    pipe: File,
    pending: Vec<u8>,
}

impl Watchdog {
    /// Starts the watchdog as `/proc/self/exe __watchdog`: stdin is the pipe, stdout
    /// `/dev/null` (never the MCP stream), stderr inherited (logs), cwd `/`, in a new session
    /// (so signals to agentdap's process group or terminal miss it) and without
    /// PR_SET_PDEATHSIG. Call once at server start, after [`super::spawn::become_subreaper`].
    /// Errors: spawning or `fcntl` errors.
    pub fn start() -> io::Result<Watchdog> {
        Watchdog::start_with(Path::new("/proc/self/exe"), &[OsString::from(WATCHDOG_SUBCOMMAND)], &[])
    }

    /// [`Watchdog::start`] with another program, arguments and extra environment (tests run
    /// their own harness as the watchdog). The program must end up in [`watchdog_main`].
    pub fn start_with(program: &Path, args: &[OsString], env: &[(OsString, OsString)]) -> io::Result<Watchdog> {
        let mut command = Command::new(program);
        command.args(args).envs(env.iter().cloned()).stdin(Stdio::piped()).stdout(Stdio::null()).current_dir("/");
        // SAFETY: runs in the forked child before exec; sigemptyset, sigprocmask and setsid are
        // async-signal-safe, the sigset lives on the stack and the closure allocates nothing.
        unsafe {
            command.pre_exec(|| {
                // An empty mask: the server may block signals for a signalfd, and masks survive exec.
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
                if libc::setsid() == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn()?;
        let pid = child.id() as Pid;
        let stdin = child.stdin.take().ok_or_else(|| io::Error::other("watchdog stdin missing"))?;
        // The child is reaped by `reap_exited` like every other; never waited here.
        drop(child);
        let pipe = File::from(std::os::fd::OwnedFd::from(stdin));
        set_nonblocking(&pipe)?;
        Ok(Watchdog { pid, pipe, pending: Vec::new() })
    }

    /// The watchdog's pid (exclude it from descendant walks; if [`super::spawn::reap_exited`]
    /// reports it, the watchdog died and should be restarted with the book replayed).
    pub fn pid(&self) -> Pid {
        self.pid
    }

    /// Records a launched process by pid, reading its start time from `/proc`.
    /// Errors: `NotFound` if the process is already gone; pipe errors as for [`Watchdog::send`].
    pub fn record(&mut self, pid: Pid) -> io::Result<()> {
        let st = proc_stat(pid)?;
        self.record_with_start_time(pid, st.start_time)
    }

    /// Records a launched process whose start time the caller already read (e.g. from a
    /// [`ProcStat`] of the descendant walk).
    pub fn record_with_start_time(&mut self, pid: Pid, start_time: u64) -> io::Result<()> {
        self.send(WatchdogCommand::Record { pid, start_time })
    }

    /// Forgets a pid (it exited, or was detached and must survive agentdap).
    pub fn forget(&mut self, pid: Pid) -> io::Result<()> {
        self.send(WatchdogCommand::Forget { pid })
    }

    /// Records a temporary directory agentdap just created (named by [`SCRATCH_PREFIX`] in the
    /// temporary directory), for the watchdog to remove after agentdap dies. Errors: as for
    /// [`format_command`] and [`Watchdog::send`].
    pub fn record_dir(&mut self, dir: &Path) -> io::Result<()> {
        self.send(WatchdogCommand::RecordDir(dir.to_path_buf()))
    }

    /// Forgets a directory agentdap removed itself.
    pub fn forget_dir(&mut self, dir: &Path) -> io::Result<()> {
        self.send(WatchdogCommand::ForgetDir(dir.to_path_buf()))
    }

    /// Bytes still queued because the pipe was full.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Writes one command without blocking. If the pipe is full the line is queued (up to
    /// 16 KiB, then `WouldBlock` is returned and the command is lost) and sent by the next call
    /// or [`Watchdog::flush`]. Errors: `BrokenPipe` when the watchdog died.
    pub fn send(&mut self, cmd: WatchdogCommand) -> io::Result<()> {
        let line = format_command(&cmd)?;
        self.flush()?;
        if !self.pending.is_empty() {
            return self.queue(&line);
        }
        match self.pipe.write(&line) {
            // Lines are below PIPE_BUF, so a write is all or nothing.
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.queue(&line),
            Err(e) => Err(e),
        }
    }

    /// Sends queued commands that fit now. Errors: as for [`Watchdog::send`], except that a
    /// still-full pipe is not an error.
    pub fn flush(&mut self) -> io::Result<()> {
        while !self.pending.is_empty() {
            match self.pipe.write(&self.pending) {
                Ok(n) => {
                    self.pending.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn queue(&mut self, line: &[u8]) -> io::Result<()> {
        if self.pending.len() + line.len() > MAX_PENDING {
            return Err(io::Error::new(io::ErrorKind::WouldBlock, "watchdog pipe full; command dropped"));
        }
        self.pending.extend_from_slice(line);
        Ok(())
    }
}

fn set_nonblocking(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on an fd we own, with integer arguments.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags == -1 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// How agentdap came to know a debuggee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Launched on agentdap's behalf: recorded with the watchdog, killed if agentdap dies.
    Launched,
    /// Attached to: the user's process, never recorded, never killed.
    Attached,
}

/// One known debuggee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Debuggee {
    /// Its pid.
    pub pid: Pid,
    /// Field 22 of its `/proc/<pid>/stat` when it was learned (0 for attached ones not read).
    pub start_time: u64,
    /// Launched or attached.
    pub origin: Origin,
}

/// The pid of a DAP `process` event (DAP § Events: Process), if it names a local process:
/// `systemProcessId` present and `isLocalProcess` not `false`. Also returns whether
/// `startMethod` says `attach`.
pub fn process_event_pid(body: &Value) -> Option<(Pid, bool)> {
    if body.get("isLocalProcess").and_then(Value::as_bool) == Some(false) {
        return None;
    }
    let pid = Pid::try_from(body.get("systemProcessId")?.as_i64()?).ok().filter(|&p| p > 1)?;
    let attached = body.get("startMethod").and_then(Value::as_str) == Some("attach");
    Some((pid, attached))
}

/// Every debuggee pid agentdap knows, launched or attached, kept in step with the watchdog:
/// launched ones are recorded there, attached ones never are. Capped at [`MAX_RECORDED`].
#[derive(Debug, Default)]
pub struct DebuggeeBook {
    known: HashMap<Pid, Debuggee>,
}

impl DebuggeeBook {
    /// An empty book.
    pub fn new() -> DebuggeeBook {
        DebuggeeBook::default()
    }

    /// The debuggee with this pid, if known.
    pub fn get(&self, pid: Pid) -> Option<&Debuggee> {
        self.known.get(&pid)
    }

    /// Launched debuggees (the ones the watchdog would kill).
    pub fn launched(&self) -> impl Iterator<Item = &Debuggee> {
        self.known.values().filter(|d| d.origin == Origin::Launched)
    }

    /// Learns the pid of a DAP `process` event. `session_launched` says whether the session was
    /// started by `launch` (not `attach`); an event with `startMethod: attach` counts as
    /// attached either way. Returns the debuggee noted, if any.
    pub fn note_process_event(
        &mut self,
        body: &Value,
        session_launched: bool,
        watchdog: Option<&mut Watchdog>,
    ) -> Option<Debuggee> {
        let (pid, attached) = process_event_pid(body)?;
        if attached || !session_launched {
            self.note_attached(pid);
            return self.known.get(&pid).copied();
        }
        let st = proc_stat(pid).ok()?;
        self.note_launched(st, watchdog)
    }

    /// Notes a launched process (from a `process` event, a runInTerminal child, or the walk)
    /// and records it with the watchdog. A pid noted as attached stays attached.
    pub fn note_launched(&mut self, st: ProcStat, watchdog: Option<&mut Watchdog>) -> Option<Debuggee> {
        if let Some(known) = self.known.get(&st.pid) {
            if known.origin == Origin::Attached || known.start_time == st.start_time {
                return Some(*known);
            }
        }
        if self.known.len() >= MAX_RECORDED {
            log::warn!("{MAX_RECORDED} debuggees known; not recording {}", st.pid);
            return None;
        }
        let debuggee = Debuggee { pid: st.pid, start_time: st.start_time, origin: Origin::Launched };
        self.known.insert(st.pid, debuggee);
        if let Some(wd) = watchdog {
            if let Err(e) = wd.record_with_start_time(st.pid, st.start_time) {
                log::warn!("watchdog: could not record pid {}: {e}", st.pid);
            }
        }
        Some(debuggee)
    }

    /// Notes an attached process: never recorded with the watchdog, never killed.
    pub fn note_attached(&mut self, pid: Pid) {
        let start_time = proc_stat(pid).map(|s| s.start_time).unwrap_or(0);
        self.known.insert(pid, Debuggee { pid, start_time, origin: Origin::Attached });
    }

    /// Notes every launched descendant found by a walk (`spawn::descendants(own_pid,
    /// &[watchdog_pid])`), skipping the adapter processes themselves (`adapters`: they have
    /// PR_SET_PDEATHSIG) and anything noted as attached. Returns the pids newly noted.
    pub fn note_walk(&mut self, walk: &[ProcStat], adapters: &[Pid], mut watchdog: Option<&mut Watchdog>) -> Vec<Pid> {
        let mut added = Vec::new();
        for st in walk {
            if adapters.contains(&st.pid) {
                continue;
            }
            let new =
                self.known.get(&st.pid).map_or(true, |d| d.origin == Origin::Launched && d.start_time != st.start_time);
            if new && self.note_launched(*st, watchdog.as_deref_mut()).is_some() {
                added.push(st.pid);
            }
        }
        added
    }

    /// Forgets a pid (reaped, exited, or detached on purpose) and tells the watchdog.
    pub fn forget(&mut self, pid: Pid, watchdog: Option<&mut Watchdog>) {
        let Some(d) = self.known.remove(&pid) else {
            return;
        };
        if let (Origin::Launched, Some(wd)) = (d.origin, watchdog) {
            if let Err(e) = wd.forget(pid) {
                log::warn!("watchdog: could not forget pid {pid}: {e}");
            }
        }
    }

    /// Forgets every debuggee that is no longer running as the same process (one small
    /// `/proc` read each). Returns the pids forgotten.
    pub fn forget_dead(&mut self, mut watchdog: Option<&mut Watchdog>) -> Vec<Pid> {
        let dead: Vec<Pid> = self
            .known
            .values()
            .filter(|d| !super::spawn::is_running(d.pid, (d.origin == Origin::Launched).then_some(d.start_time)))
            .map(|d| d.pid)
            .collect();
        for &pid in &dead {
            self.forget(pid, watchdog.as_deref_mut());
        }
        dead
    }

    /// Replays every launched debuggee into a (restarted) watchdog.
    pub fn replay(&self, watchdog: &mut Watchdog) -> io::Result<()> {
        for d in self.launched() {
            watchdog.record_with_start_time(d.pid, d.start_time)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_round_trip_and_reject_garbage() {
        let dir = PathBuf::from("/scratch space/agentdap-build-12-ab");
        for cmd in [
            WatchdogCommand::Record { pid: 4242, start_time: 987654321 },
            WatchdogCommand::Forget { pid: 77 },
            WatchdogCommand::RecordDir(dir.clone()),
            WatchdogCommand::ForgetDir(dir),
        ] {
            let Ok(line) = format_command(&cmd) else { panic!("{cmd:?} not formatted") };
            assert_eq!(line.last(), Some(&b'\n'));
            assert_eq!(parse_command(&line[..line.len() - 1]), Some(cmd));
        }
        for bad in ["", "+", "+12", "+12 x", "-1", "+0 5", "-abc", "*12 5", "+12 5 6", "- 12", "+-5 3"] {
            assert_eq!(parse_command(bad.as_bytes()), None, "{bad:?}");
        }
        for bad in ["+dir ", "+dir rel/dir", "-dir ", "+dir", "+dirx /a"] {
            assert_eq!(parse_command(bad.as_bytes()), None, "{bad:?}");
        }
        let long = format!("+dir /{}", "a".repeat(MAX_DIR_PATH));
        assert_eq!(parse_command(long.as_bytes()), None);
        for unsendable in ["/a\nb", "rel", ""] {
            let cmd = WatchdogCommand::RecordDir(PathBuf::from(unsendable));
            assert!(format_command(&cmd).is_err(), "{unsendable:?}");
        }
        let longest = WatchdogCommand::RecordDir(PathBuf::from(format!("/{}", "a".repeat(MAX_DIR_PATH - 1))));
        assert!(format_command(&longest).is_ok_and(|l| l.len() <= MAX_LINE + 1 && l.len() < 4096));
    }

    #[test]
    fn records_are_capped_and_forgettable() {
        let mut recorded = Recorded::default();
        apply_command(b"+100 5", &mut recorded);
        apply_command(b"+101 6", &mut recorded);
        apply_command(b"-100", &mut recorded);
        apply_command(b"garbage", &mut recorded);
        apply_command(b"+dir /t/a", &mut recorded);
        apply_command(b"+dir /t/b", &mut recorded);
        apply_command(b"+dir /t/a", &mut recorded);
        apply_command(b"-dir /t/b", &mut recorded);
        assert_eq!(recorded.pids, HashMap::from([(101, 6)]));
        assert_eq!(recorded.dirs, [PathBuf::from("/t/a")]);
        for i in 0..MAX_DIRS + 5 {
            apply_command(format!("+dir /t/{i}").as_bytes(), &mut recorded);
        }
        assert_eq!(recorded.dirs.len(), MAX_DIRS);
    }

    #[test]
    fn own_scratch_dir_is_named_placed_and_a_real_directory() {
        let base = std::env::temp_dir().join(format!("agentdap-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        assert!(std::fs::create_dir(&base).is_ok());
        let me = std::process::id();
        let dir = base.join(format!("agentdap-build-{me}-00aa"));
        let link = base.join(format!("agentdap-build-{me}-00bb"));
        let file = base.join(format!("agentdap-build-{me}-00cc"));
        let other = base.join("agentdap-build-x-00dd");
        assert!(std::fs::create_dir(&dir).is_ok() && std::fs::create_dir(&other).is_ok());
        assert!(std::os::unix::fs::symlink(&dir, &link).is_ok() && std::fs::write(&file, "").is_ok());
        assert!(is_own_scratch_dir(&dir, &base, Some(me)));
        assert!(is_own_scratch_dir(&dir, &base, None));
        assert!(!is_own_scratch_dir(&dir, &base, Some(me + 1)), "another server's");
        assert!(!is_own_scratch_dir(&dir, Path::new("/"), Some(me)), "outside the temporary directory");
        assert!(!is_own_scratch_dir(&base.join("x").join("..").join(dir.file_name().unwrap_or_default()), &base, None));
        assert!(!is_own_scratch_dir(&link, &base, Some(me)), "a symlink");
        assert!(!is_own_scratch_dir(&file, &base, Some(me)), "a file");
        assert!(!is_own_scratch_dir(&other, &base, None), "no pid in the name");
        assert!(!is_own_scratch_dir(&base.join(format!("agentdap-build-{me}-")), &base, None), "no tag");
        assert!(!is_own_scratch_dir(&base.join(format!("agentdap-build-{me}-gone")), &base, None), "missing");
        assert!(matches!(remove_own_scratch_dir(&link, &base, Some(me)), Ok(false)));
        assert!(link.symlink_metadata().is_ok() && dir.is_dir());
        assert!(matches!(remove_own_scratch_dir(&dir, &base, Some(me)), Ok(true)));
        assert!(!dir.exists());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn process_event_pid_honours_local_and_start_method() {
        assert_eq!(process_event_pid(&json!({"name": "a.py", "systemProcessId": 321})), Some((321, false)));
        assert_eq!(process_event_pid(&json!({"systemProcessId": 321, "startMethod": "attach"})), Some((321, true)));
        assert_eq!(process_event_pid(&json!({"systemProcessId": 321, "isLocalProcess": false})), None);
        assert_eq!(process_event_pid(&json!({"name": "a.py"})), None);
        assert_eq!(process_event_pid(&json!({"systemProcessId": 1})), None);
        assert_eq!(process_event_pid(&json!({"systemProcessId": -3})), None);
    }

    #[test]
    fn book_never_turns_an_attached_pid_into_a_launched_one() {
        let me = std::process::id() as Pid;
        let mut book = DebuggeeBook::new();
        book.note_attached(me);
        let st = proc_stat(me).map_err(|e| e.to_string());
        let Ok(st) = st else { panic!("own stat: {st:?}") };
        assert_eq!(book.note_walk(&[st], &[], None), Vec::<Pid>::new());
        assert_eq!(book.get(me).map(|d| d.origin), Some(Origin::Attached));
        assert_eq!(book.launched().count(), 0);
    }

    #[test]
    fn book_notes_walk_skipping_adapters_and_forgets() {
        let mut book = DebuggeeBook::new();
        let a = ProcStat { pid: 500, state: b'S', ppid: 1, pgid: 500, start_time: 9 };
        let d = ProcStat { pid: 501, state: b'S', ppid: 500, pgid: 501, start_time: 10 };
        assert_eq!(book.note_walk(&[a, d], &[500], None), vec![501]);
        assert_eq!(book.note_walk(&[a, d], &[500], None), Vec::<Pid>::new());
        let recycled = ProcStat { start_time: 11, ..d };
        assert_eq!(book.note_walk(&[recycled], &[500], None), vec![501]);
        assert_eq!(book.get(501).map(|d| d.start_time), Some(11));
        book.forget(501, None);
        assert_eq!(book.get(501), None);
    }
}
