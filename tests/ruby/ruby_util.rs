//! What the rdbg tests share: an agentdap, a scratch directory per test named by a unique
//! marker, and the leftover check that finds every process started for the test by that marker
//! (in its environment or its command line), never by a process name. Must not hold assertions
//! about any one tool.
#![allow(dead_code)] // each test module uses its own subset

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::agent::{self, Agent};
use agentdap::os::spawn::Pid;

/// Set in agentdap's environment, so inherited by rdbg and the program (one process); unique
/// per test.
pub const MARK_VAR: &str = "AGENTDAP_RUBY_TEST_MARK";

/// `wait_ms` for a launch or attach: ruby starts in ~0.5 s, more on a loaded 2-core machine.
pub const START: u64 = 20_000;

/// How long agentdap may take to exit after stdin EOF or SIGKILL.
pub const EXIT: Duration = Duration::from_secs(4);

/// How long a process may take to go once it should.
pub const GONE: Duration = Duration::from_secs(5);

/// Fails (never skips) when no `ruby` is on `PATH`.
pub fn require_ruby() {
    let found = std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("ruby").is_file()));
    assert!(found, "test dependency missing: ruby (run scripts/install-test-deps, or apt-get install ruby)");
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// One test's agentdap and scratch directory. `finish` ends agentdap by stdin EOF and checks
/// that nothing it started is left; dropped, it SIGKILLs agentdap if it still runs and whatever
/// carries the marker, so a failed test leaks nothing into the next one.
pub struct Ruby {
    pub a: Agent,
    pub mark: String,
    pub dir: PathBuf,
    keep: Vec<Pid>,
}

impl Ruby {
    pub fn start(tag: &str) -> Ruby {
        require_ruby();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let mark = format!("agentdap-ruby-{tag}-{}-{n}", std::process::id());
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(&mark);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let a = Agent::start_plain(|cmd| {
            cmd.env(MARK_VAR, &mark);
        });
        Ruby { a, mark, dir, keep: Vec::new() }
    }

    /// Copies `tests/fixtures/rb/<name>` into the scratch directory; its absolute path.
    pub fn copy(&self, name: &str) -> String {
        let to = self.dir.join(name);
        std::fs::copy(agent::fixture(&format!("rb/{name}")), &to).expect("copy fixture");
        to.to_string_lossy().into_owned()
    }

    /// Marked processes other than agentdap, its watchdog and `except`.
    pub fn leftovers(&self, except: &[Pid]) -> Vec<String> {
        let own = self.a.d.pid();
        marked(&self.mark, &self.dir, |p| p == own || except.contains(&p) || agent::is_watchdog(p))
    }

    /// Fails naming the survivors when a marked process outlives `within`.
    pub fn assert_no_leftovers(&self, except: &[Pid], within: Duration, what: &str) {
        let mut left = Vec::new();
        let gone = agent::eventually(within, || {
            left = self.leftovers(except);
            left.is_empty()
        });
        assert!(gone, "{what}: processes agentdap started are still alive after {within:?}: {left:#?}");
    }

    /// Ends agentdap by stdin EOF and checks that no process it started is alive afterwards.
    pub fn finish_except(mut self, except: &[Pid]) {
        self.keep = except.to_vec();
        self.a.d.close_stdin();
        self.a.d.close_stdout();
        self.a.d.assert_clean_exit(EXIT);
        self.assert_no_leftovers(except, GONE, "after the test (agentdap ended by stdin EOF)");
    }

    pub fn finish(self) {
        self.finish_except(&[])
    }
}

impl Drop for Ruby {
    fn drop(&mut self) {
        agent::end_marked(&mut self.a, MARK_VAR, &self.mark, &self.dir, &self.keep, EXIT);
    }
}

/// This test binary's processes: those whose environment has `MARK_VAR=mark` or whose command
/// line names `dir`, except those `skip` names (`agent::marked_processes`).
pub fn marked(mark: &str, dir: &Path, skip: impl Fn(Pid) -> bool) -> Vec<String> {
    agent::marked_processes(MARK_VAR, mark, dir, skip)
}

pub use crate::agent::stop_at;
