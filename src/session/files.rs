//! What the session layer asks of the file system and of `/proc`, as a trait the IO shell implements and hands to `Sessions` (`os::files::OsFiles`); interface only: nothing under `src/session/` opens, reads or creates a file itself.
//!
//! Every operation is bounded and never blocks on another process: reads are of regular files
//! (opened `O_NONBLOCK`, so a FIFO or device named by mistake answers at once) up to a byte cap
//! the caller gives, or of small procfs files. A test hands `Sessions` the real implementation
//! or a fake one.

use std::io;
use std::path::{Path, PathBuf};

use crate::dap::adapters;

/// Why [`Files::read_bounded`] gave no bytes.
#[derive(Debug)]
pub enum ReadError {
    /// Opening, `fstat` or reading failed (no such file, permission denied, …).
    Io(io::Error),
    /// The path names something other than a regular file (a directory, FIFO, device).
    NotRegular,
    /// The file's size (`fstat`) is over the cap.
    TooLarge {
        /// The size the file claimed, in bytes.
        len: u64,
    },
    /// The file claimed at most the cap but more arrived (it grew meanwhile, or lies about its
    /// size as `/proc` files do).
    OverCap,
}

/// What `/proc/<pid>/stat` says of a process: the fields the session layer reads (proc(5)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessStat {
    /// Field 3: `R`, `S`, `D`, `Z` (zombie), `T`, …
    pub state: u8,
    /// Field 4: the parent's pid.
    pub ppid: i64,
}

/// The file system and `/proc` as the session layer sees them.
pub trait Files {
    /// What adapter recipes probe (executables on `PATH`, ELF headers, the environment):
    /// [`adapters::Host`], for `adapters::recipe_for_program` and `adapters::elf::probe`.
    fn adapter_host(&self) -> &dyn adapters::Host;

    /// Whether something exists at `path` (follows symlinks: one `stat`).
    fn exists(&self, path: &Path) -> bool;

    /// Whether `path` is a directory (follows symlinks: one `stat`).
    fn is_dir(&self, path: &Path) -> bool;

    /// Whether `path` is a regular file (follows symlinks: one `stat`); `Err` is why it could not
    /// be `stat`ed (no such file, permission denied, …).
    fn is_file(&self, path: &Path) -> io::Result<bool>;

    /// How many lines the regular file `path` has (a last line without a newline counts), read
    /// in 64 KiB chunks without holding the file; `None` when not a regular file, over `cap`
    /// bytes (by `fstat` or while reading), or unreadable. Opened `O_NONBLOCK | O_NOCTTY` as
    /// [`Files::read_bounded`] is.
    fn count_lines(&self, path: &Path, cap: u64) -> Option<u64>;

    /// `path` with every symlink, `.` and `..` resolved (realpath(3)); `None` when a component
    /// does not exist or cannot be read. `stat`s only.
    fn canonicalize(&self, path: &Path) -> Option<PathBuf>;

    /// The bytes of the regular file `path`, at most `cap` of them: opened `O_NONBLOCK |
    /// O_NOCTTY`, refused when not a regular file or when its size is over `cap`, and the read
    /// itself stopped past `cap`. The one way the session layer reads a file's content.
    fn read_bounded(&self, path: &Path, cap: u64) -> Result<Vec<u8>, ReadError>;

    /// Whether process `pid` exists (`/proc/<pid>` is there; zombies included).
    fn process_exists(&self, pid: i64) -> bool;

    /// `/proc/<pid>/stat`'s state and parent; `None` when the process is gone or unreadable.
    fn process_stat(&self, pid: i64) -> Option<ProcessStat>;

    /// At most `cap` bytes of `/proc/<pid>/cmdline` (arguments separated by NUL; empty for a
    /// kernel thread); `None` when unreadable.
    fn process_cmdline(&self, pid: i64, cap: usize) -> Option<Vec<u8>>;

    /// The executable of process `pid` (`/proc/<pid>/exe`); `None` when unreadable (another
    /// user's process, a kernel thread).
    fn process_exe(&self, pid: i64) -> Option<PathBuf>;

    /// Yama's `ptrace_scope` (`/proc/sys/kernel/yama/ptrace_scope`, 0–3); `None` without Yama.
    fn ptrace_scope(&self) -> Option<u8>;

    /// Whether agentdap runs with `CAP_SYS_PTRACE` (bit 19 of `CapEff` in `/proc/self/status`).
    fn has_cap_sys_ptrace(&self) -> bool;

    /// A fresh private directory (mode 0700) under the system's temporary directory, named
    /// `agentdap-build-<pid>-<tag>` (`os::watchdog::SCRATCH_PREFIX`), after removing such
    /// directories left by agentdaps that no longer run. The IO shell records it with the
    /// watchdog when it spawns the adapter that uses it, and removes it with that adapter.
    fn make_scratch_dir(&self) -> io::Result<PathBuf>;
}
