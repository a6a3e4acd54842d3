//! The real [`Files`]: the one bounded, non-blocking file read, `canonicalize`, the small `/proc` reads the session layer needs, and agentdap's private scratch directories; it never reads an unbounded file or a non-regular one, and removes only what `watchdog::is_own_scratch_dir` accepts.
//!
//! These run on the loop's thread: a local file read has no pollable handle, so each is
//! bounded instead (a regular file opened `O_NONBLOCK`, a byte cap; procfs files of a few KiB).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::spawn::{self, Pid};
use super::watchdog::{remove_own_scratch_dir, SCRATCH_PREFIX};
use crate::dap::adapters::{self, RealHost};
use crate::session::files::{Files, ProcessStat, ReadError};

/// The operating system's files and `/proc`.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsFiles;

impl Files for OsFiles {
    fn adapter_host(&self) -> &dyn adapters::Host {
        &RealHost
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn is_file(&self, path: &Path) -> io::Result<bool> {
        std::fs::metadata(path).map(|m| m.is_file())
    }

    fn count_lines(&self, path: &Path, cap: u64) -> Option<u64> {
        count_lines(path, cap)
    }

    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }

    fn read_bounded(&self, path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
        read_bounded(path, cap)
    }

    fn process_exists(&self, pid: i64) -> bool {
        Path::new(&format!("/proc/{pid}")).exists()
    }

    fn process_stat(&self, pid: i64) -> Option<ProcessStat> {
        let st = spawn::proc_stat(Pid::try_from(pid).ok()?).ok()?;
        Some(ProcessStat { state: st.state, ppid: i64::from(st.ppid) })
    }

    fn process_cmdline(&self, pid: i64, cap: usize) -> Option<Vec<u8>> {
        let file = File::open(format!("/proc/{pid}/cmdline")).ok()?;
        let mut bytes = Vec::new();
        file.take(cap as u64).read_to_end(&mut bytes).ok()?;
        Some(bytes)
    }

    fn process_exe(&self, pid: i64) -> Option<PathBuf> {
        std::fs::read_link(format!("/proc/{pid}/exe")).ok()
    }

    fn ptrace_scope(&self) -> Option<u8> {
        std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope").ok()?.trim().parse().ok()
    }

    fn has_cap_sys_ptrace(&self) -> bool {
        let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return false };
        status
            .lines()
            .find_map(|l| l.strip_prefix("CapEff:"))
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
            .is_some_and(|caps| caps & (1 << 19) != 0)
    }

    fn make_scratch_dir(&self) -> io::Result<PathBuf> {
        make_scratch_dir()
    }
}

/// The bytes of the regular file `path`, at most `cap` (see [`Files::read_bounded`]): opened
/// `O_NONBLOCK | O_NOCTTY` (a FIFO or terminal named by mistake neither waits for a writer nor
/// becomes agentdap's controlling terminal), `fstat`ed, and read through `take(cap + 1)`.
pub fn read_bounded(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge { len: meta.len() });
    }
    // Room for the whole file, so it is read in one `read` and the end-of-file one (from empty,
    // `read_to_end` probes with 32 bytes and doubles: 7 reads for a 2 KB source at every stop).
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
    // `take` bounds the read even if the file grows meanwhile (or lies about its size, as
    // /proc files do).
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::OverCap);
    }
    Ok(bytes)
}

/// The lines of the regular file `path` (see [`Files::count_lines`]): opened as
/// [`read_bounded`] opens, then counted one 64 KiB chunk at a time through `take(cap + 1)`.
pub fn count_lines(path: &Path, cap: u64) -> Option<u64> {
    use std::os::unix::fs::OpenOptionsExt;
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > cap {
        return None;
    }
    // `take` bounds the read even if the file grows meanwhile (or lies about its size).
    let mut reader = file.take(cap.saturating_add(1));
    let mut buf = [0u8; 64 * 1024]; // cap: one 64 KiB chunk at a time
    let (mut read, mut newlines, mut last) = (0u64, 0u64, b'\n');
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        read += n as u64;
        newlines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[n - 1];
    }
    if read > cap {
        return None;
    }
    Some(newlines + u64::from(last != b'\n'))
}

/// A fresh private directory under the system's temporary directory (mode 0700), named
/// `agentdap-build-<pid>-<tag>`. The IO shell records it with the watchdog when it spawns the
/// adapter that uses it, so it goes even when agentdap is SIGKILLed (`os::watchdog`).
fn make_scratch_dir() -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    remove_stale_scratch_dirs(&base);
    let mut last = None;
    for _ in 0..8 {
        let mut bytes = [0u8; 6];
        getrandom::getrandom(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
        let tag: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = base.join(format!("{SCRATCH_PREFIX}{}-{tag}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no name left"))) // infallible: the loop ran
}

/// Most temporary-directory entries looked at for stale scratch directories.
const STALE_SCAN_CAP: usize = 10_000;

/// Removes scratch directories left by an agentdap whose pid (in the name) no longer runs and
/// whose watchdog did not remove them (it was killed too, or the directory was never recorded).
/// Only real directories of this uid with agentdap's name ([`super::watchdog::is_own_scratch_dir`]);
/// a symlink or another user's entry by that name is left alone.
fn remove_stale_scratch_dirs(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten().take(STALE_SCAN_CAP) {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(SCRATCH_PREFIX)) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = remove_own_scratch_dir(&entry.path(), base, Some(pid));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("agentdap-files-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        Scratch(dir)
    }

    #[test]
    fn bounded_read_takes_regular_files_up_to_the_cap_only() {
        let dir = scratch("read");
        let small = dir.0.join("small.py");
        std::fs::write(&small, b"a\nb\n").expect("write");
        assert_eq!(read_bounded(&small, 4).ok(), Some(b"a\nb\n".to_vec()));
        assert!(matches!(read_bounded(&small, 3), Err(ReadError::TooLarge { len: 4 })));
        assert!(matches!(read_bounded(&dir.0, 1 << 20), Err(ReadError::NotRegular)));
        assert!(matches!(read_bounded(&dir.0.join("missing"), 1), Err(ReadError::Io(_))));
        // A FIFO answers at once (O_NONBLOCK) instead of waiting for a writer.
        let fifo = dir.0.join("fifo");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("no NUL");
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(read_bounded(&fifo, 1 << 20), Err(ReadError::NotRegular)));
        // /proc files claim size 0 and hold more: the read itself stops past the cap.
        assert!(matches!(read_bounded(Path::new("/proc/self/status"), 8), Err(ReadError::OverCap)));
    }

    #[test]
    fn line_count_counts_a_last_line_without_newline_and_skips_what_it_cannot_read_cheaply() {
        let dir = scratch("lines");
        let file = |name: &str, text: &[u8]| {
            let p = dir.0.join(name);
            std::fs::write(&p, text).expect("write");
            p
        };
        assert_eq!(count_lines(&file("empty.py", b""), 16), Some(0));
        assert_eq!(count_lines(&file("two.py", b"a\nb\n"), 16), Some(2));
        assert_eq!(count_lines(&file("open.py", b"a\nb"), 16), Some(2));
        assert_eq!(OsFiles.count_lines(&file("one.py", b"x = 1\n"), 16), Some(1));
        // Sparse: larger than the cap without writing it.
        let big = dir.0.join("big.py");
        std::fs::File::create(&big).and_then(|f| f.set_len(16 << 20 | 1)).expect("sparse file");
        assert_eq!(count_lines(&big, 16 << 20), None);
        // A FIFO with no writer: opened non-blocking and not counted (a blocking open would hang).
        let fifo = dir.0.join("pipe.py");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("no NUL");
        // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(count_lines(&fifo, 16), None);
        assert_eq!(count_lines(&dir.0, 1 << 20), None, "a directory");
        // Grown past the cap while counted looks the same as over it by `fstat`.
        assert_eq!(count_lines(Path::new("/proc/self/status"), 8), None);
        assert!(OsFiles.is_file(&file("f.py", b"")).is_ok_and(|f| f));
        assert!(OsFiles.is_file(&dir.0).is_ok_and(|f| !f));
        assert!(OsFiles.is_file(&dir.0.join("missing")).is_err());
    }

    #[test]
    fn proc_reads_see_this_process() {
        let me = i64::from(std::process::id());
        let files = OsFiles;
        assert!(files.process_exists(me));
        let st = files.process_stat(me).expect("own stat");
        // SAFETY: getppid takes nothing and cannot fail.
        assert_eq!(st.ppid, i64::from(unsafe { libc::getppid() }));
        assert!(files.process_cmdline(me, 4096).is_some_and(|c| !c.is_empty()));
        assert_eq!(files.process_cmdline(me, 3).map(|c| c.len()), Some(3));
        assert!(files.process_exe(me).is_some());
        assert!(!files.process_exists(-1));
        assert_eq!(files.process_stat(i64::MAX), None);
    }

    #[test]
    fn scratch_dirs_are_private_and_named_for_the_watchdog() {
        use std::os::unix::fs::PermissionsExt;
        let dir = OsFiles.make_scratch_dir().expect("scratch dir");
        let _cleanup = Scratch(dir.clone());
        let mode = std::fs::metadata(&dir).map(|m| m.permissions().mode() & 0o777).ok();
        assert_eq!(mode, Some(0o700));
        assert!(super::super::watchdog::is_own_scratch_dir(&dir, &std::env::temp_dir(), Some(std::process::id())));
    }
}
