//! Appending evidence to files, best effort (DESIGN §8): the ledger's `ledger.jsonl` (rotated to
//! `.1` at a cap) and `--dap-log` files (stopped at a cap with one marker line). Used only by the
//! IO shell. Small appends to a regular file opened `O_APPEND` never block the loop for long; a
//! failure is logged once to stderr and the file is given up, never the debugging.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
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
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).mode(0o600).open(&self.path)?;
        self.size = file.metadata()?.len();
        self.file = Some(file);
        self.state = State::Open;
        Ok(())
    }
}

/// `ledger.jsonl` → `ledger.jsonl.1`.
pub fn rotated(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}
