//! Helpers shared by the `spawn_*` integration tests: polling `/proc` with a deadline and re-executing the test binary in a helper role.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use agentdap::os::spawn::{self, Pid};

/// Generous deadline for anything observed through `/proc` on a loaded 2-core machine.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// The environment variable that puts a re-executed test binary into a helper role.
pub const ROLE_VAR: &str = "AGENTDAP_TEST_ROLE";

/// Polls `cond` every 10 ms until it holds or `timeout` passes; returns its last value.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `pid` runs (zombies count as dead: a container's pid 1 may never reap them).
pub fn running(pid: Pid) -> bool {
    spawn::is_running(pid, None)
}

/// Running processes (zombies excluded) whose process group is `pgid`, from one `/proc` scan.
pub fn group_members(pgid: Pid) -> Vec<Pid> {
    let mut out = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<Pid>().ok()) else { continue };
            if let Ok(st) = spawn::proc_stat(pid) {
                if st.pgid == pgid && st.is_running() {
                    out.push(pid);
                }
            }
        }
    }
    out
}

/// The current test binary run with only the test `entry` and `ROLE_VAR=role`.
pub fn helper_command(entry: &str, role: &str) -> Command {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", entry, "--nocapture", "--test-threads=1", "-q"]).env(ROLE_VAR, role);
    cmd
}

/// The role this process was started in, if it is a helper.
pub fn role() -> Option<String> {
    std::env::var(ROLE_VAR).ok()
}

/// Starts a helper with piped stdout and reads `KEY value` lines until every key in `keys` was
/// seen (libtest's own lines are skipped). Returns the child and the values in `keys` order.
pub fn start_helper(entry: &str, role: &str, keys: &[&str]) -> (Child, Vec<Pid>) {
    let mut child = helper_command(entry, role).stdout(Stdio::piped()).spawn().expect("spawn helper");
    let stdout: ChildStdout = child.stdout.take().expect("helper stdout");
    let mut values = vec![None; keys.len()];
    let mut lines = BufReader::new(stdout).lines();
    while values.iter().any(Option::is_none) {
        let line = lines.next().expect("helper ended before reporting").expect("helper stdout");
        for (i, key) in keys.iter().enumerate() {
            if let Some(v) = line.strip_prefix(&format!("{key} ")) {
                values[i] = Some(v.trim().parse::<Pid>().expect("pid"));
            }
        }
    }
    (child, values.into_iter().map(|v| v.expect("all keys seen")).collect())
}

/// Parks a helper until it is killed (at most a minute, so a broken test cannot leak it).
pub fn park() -> ! {
    std::thread::sleep(Duration::from_secs(60));
    std::process::exit(3)
}

/// SIGKILLs one pid (test cleanup).
pub fn sigkill(pid: Pid) {
    // SAFETY: kill with integer arguments.
    unsafe { libc::kill(pid, libc::SIGKILL) };
}
