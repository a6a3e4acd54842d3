//! Appending evidence to files, best effort: the ledger's `ledger.jsonl` (rotated to
//! `.1` at a cap) and `--dap-log` files (stopped at a cap with one marker line). Used only by the
//! IO shell. Small appends to a regular file opened `O_APPEND` never block the loop for long; a
//! failure is logged once to stderr and the file is given up, never the debugging.
//!
//! How a file is opened (SECURITY.md, "Files agentdap creates"): missing directories are created
//! `0700`; the file's directory must be owned by agentdap's user (else the file is refused) and
//! loses group and other write permission if it had them. The file is opened relative to that
//! directory with `O_NOFOLLOW` (a symlink is refused), created with `O_CREAT | O_EXCL` and mode
//! `0600`, or, when it exists, accepted only as a regular file of agentdap's user with one link,
//! its mode tightened to `0600`. A file whose last byte is not a newline (a write torn by a full
//! disk) gets one before the first record, so every record starts on a line boundary.

use std::ffi::CString;
use std::fs::{DirBuilder, File};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What happens when a write would take the file past its cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WhenFull {
    /// Rename the file to `<name>.1` (replacing an older one) and start a new one.
    Rotate,
    /// Write this line (it must end with `\n`) and nothing more.
    Stop { marker: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Not opened yet (opened at the first append).
    Closed,
    Open,
    /// A write failed (logged once): nothing is written any more.
    Failed,
    /// [`WhenFull::Stop`] reached its cap.
    Full,
}

/// A file evidence is appended to: its directory is created `0700` and the file `0600` at the
/// first append.
#[derive(Debug)]
pub struct AppendFile {
    path: PathBuf,
    /// What the file holds, for the one log line a failure gets (e.g. "ledger").
    what: &'static str,
    cap: u64,
    when_full: WhenFull,
    file: Option<File>,
    /// Bytes in the file as far as this process knows (re-read before rotating).
    size: u64,
    state: State,
}

impl AppendFile {
    /// Nothing is opened until the first [`AppendFile::append`].
    pub fn new(path: PathBuf, what: &'static str, cap: u64, when_full: WhenFull) -> AppendFile {
        AppendFile { path, what, cap, when_full, file: None, size: 0, state: State::Closed }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// False once a write failed or the cap stopped the file.
    pub fn is_writable(&self) -> bool {
        matches!(self.state, State::Closed | State::Open)
    }

    /// True once a write failed (not when the cap stopped it).
    pub fn failed(&self) -> bool {
        self.state == State::Failed
    }

    /// Appends `bytes` (whole lines) in one `write`, rotating or stopping at the cap first.
    /// Errors are logged once and turn the file off; the caller goes on either way.
    pub fn append(&mut self, bytes: &[u8]) {
        if bytes.is_empty() || !self.is_writable() {
            return;
        }
        if let Err(e) = self.try_append(bytes) {
            log::warn!(
                "{}: cannot write {}: {e}; debugging goes on without this file (what agentdap keeps in memory still answers)",
                self.what,
                self.path.display()
            );
            self.file = None;
            self.state = State::Failed;
        }
    }

    fn try_append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.state == State::Open && self.when_full == WhenFull::Rotate {
            if self.replaced()? {
                // Another agentdap rotated the file: follow it to the new one.
                self.state = State::Closed;
            } else if let Some(f) = &self.file {
                // Other agentdap processes append too: the cap counts their bytes as well.
                self.size = f.metadata()?.len();
            }
        }
        if self.state == State::Closed {
            self.open()?;
        }
        let len = bytes.len() as u64;
        if self.size + len > self.cap && self.size > 0 {
            match self.when_full.clone() {
                WhenFull::Rotate => {
                    // Another process may have rotated meanwhile: trust the file, not our count.
                    self.size = self.file.as_ref().map_or(Ok(0), |f| f.metadata().map(|m| m.len()))?;
                    if self.size + len > self.cap && self.size > 0 {
                        std::fs::rename(&self.path, rotated(&self.path))?;
                        self.open()?;
                    }
                }
                WhenFull::Stop { marker } => {
                    self.write(marker.as_bytes())?;
                    self.file = None;
                    self.state = State::Full;
                    return Ok(());
                }
            }
        }
        self.write(bytes)
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let file = self.file.as_mut().ok_or_else(|| io::Error::other("not open"))?;
        file.write_all(bytes)?;
        self.size += bytes.len() as u64;
        Ok(())
    }

    /// Whether the path no longer names the file this process has open (rotated elsewhere).
    fn replaced(&self) -> io::Result<bool> {
        let Some(file) = &self.file else { return Ok(true) };
        let open = file.metadata()?;
        Ok(match std::fs::metadata(&self.path) {
            Ok(now) => (now.dev(), now.ino()) != (open.dev(), open.ino()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => true,
            Err(e) => return Err(e),
        })
    }

    fn open(&mut self) -> io::Result<()> {
        let dir = self.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = self.path.file_name().ok_or_else(|| io::Error::other("the path names no file"))?;
        DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let dir_fd = open_private_dir(dir)?;
        let file = open_private_file(&dir_fd, name.as_bytes())?;
        let mut size = file.metadata()?.len();
        let mut last = [0u8; 1];
        if size > 0 && file.read_at(&mut last, size - 1)? == 1 && last[0] != b'\n' {
            // A record torn by a failed write (a full disk): end it, so the next one stands alone.
            (&file).write_all(b"\n")?;
            size += 1;
        }
        self.size = size;
        self.file = Some(file);
        self.state = State::Open;
        Ok(())
    }
}

/// Opens `dir` for `openat`, after checking it: owned by this process's effective user (else
/// refused), and not writable by group or others (tightened when it was).
fn open_private_dir(dir: &Path) -> io::Result<OwnedFd> {
    let c = CString::new(dir.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: `c` is a valid NUL-terminated path; the returned fd is checked before use.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let st = fstat(&fd)?;
    let me = euid();
    if st.st_uid != me {
        return Err(io::Error::other(format!(
            "the directory {} belongs to another user (uid {}, agentdap runs as {me}); refusing to write there",
            dir.display(),
            st.st_uid
        )));
    }
    let mode = st.st_mode & 0o7777;
    if mode & 0o022 != 0 {
        log::warn!("{}: other users could write here (mode {mode:o}); removing their write permission", dir.display());
        // SAFETY: fchmod on an open fd has no memory-safety preconditions.
        if unsafe { libc::fchmod(fd.as_raw_fd(), mode & !0o022) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(fd)
}

/// Opens `name` inside `dir` for appending without following a symlink: created exclusively with
/// mode `0600`, or an existing regular file of this user with one link, tightened to `0600`.
fn open_private_file(dir: &OwnedFd, name: &[u8]) -> io::Result<File> {
    let c = CString::new(name).map_err(io::Error::other)?;
    // O_NONBLOCK: a FIFO planted under the name fails instead of blocking the loop.
    // O_RDWR: the last byte is read back to find a torn record.
    let flags = libc::O_RDWR | libc::O_APPEND | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK;
    let open = |extra: libc::c_int| {
        // SAFETY: `dir` is an open directory fd and `c` a valid NUL-terminated name.
        let fd = unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags | extra, 0o600 as libc::c_uint) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    };
    let fd = match open(libc::O_CREAT | libc::O_EXCL) {
        Ok(fd) => return Ok(File::from(fd)),
        Err(e) if e.raw_os_error() == Some(libc::EEXIST) => match open(0) {
            Ok(fd) => fd,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(io::Error::other("it is a symbolic link; refusing to follow it"))
            }
            Err(e) => return Err(e),
        },
        Err(e) => return Err(e),
    };
    let st = fstat(&fd)?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(io::Error::other("it exists and is not a regular file; refusing to write to it"));
    }
    if st.st_uid != euid() {
        return Err(io::Error::other(format!(
            "it belongs to another user (uid {}); refusing to write to it",
            st.st_uid
        )));
    }
    if st.st_nlink != 1 {
        return Err(io::Error::other(format!("it has {} hard links; refusing to write to it", st.st_nlink)));
    }
    if st.st_mode & 0o7777 != 0o600 {
        // SAFETY: fchmod on an open fd has no memory-safety preconditions.
        if unsafe { libc::fchmod(fd.as_raw_fd(), 0o600) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(File::from(fd))
}

fn fstat(fd: &OwnedFd) -> io::Result<libc::stat> {
    // SAFETY: `stat` is a plain C struct; all-zero is a valid value, filled in by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a live, writable stat struct.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

fn euid() -> libc::uid_t {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The records of a ledger file's text, in order: one JSON object per line. A line that is not
/// a whole JSON object (a record torn by a failed write, or two glued together) is skipped and
/// counted, never allowed to hide the lines around it.
pub fn read_records(text: &str) -> (Vec<serde_json::Value>, usize) {
    let mut records = Vec::new();
    let mut torn = 0;
    for line in text.split('\n').filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(v) if v.is_object() => records.push(v),
            _ => torn += 1,
        }
    }
    (records, torn)
}

/// `ledger.jsonl` → `ledger.jsonl.1`.
pub fn rotated(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}
