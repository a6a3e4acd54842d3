//! The debugpy fast path: the adapter command that runs `debugpy.adapter` through an embedded bootstrap which sets `TCP_NODELAY`/`TCP_QUICKACK` on the adapter's own DAP sockets; the on/off switch; recognising the bootstrap's verdict. Never touches the debuggee.
//!
//! debugpy ≤ 1.8.22 costs ~44 ms per DAP request (upstream microsoft/debugpy#2054, unfixed when
//! written). pydevd, inside the debuggee, writes each message to the adapter as two `sendall`s —
//! header, then body — on a TCP socket with Nagle on; the body waits for the header's ACK, and the
//! adapter's kernel delays that ACK by 40 ms. The adapter writes header and body in one `write`, so
//! only this direction stalls.
//!
//! agentdap fixes it from the adapter's side only. The debugpy recipe starts the adapter as
//! `<python> -c <bootstrap>` instead of `<python> -m debugpy.adapter` (the bootstrap is
//! `src/dap/adapters/debugpy_bootstrap.py`, embedded with `include_str!`). The bootstrap wraps
//! `debugpy.common.messaging.JsonIOStream.from_socket` — the one place the adapter turns a TCP socket
//! into a DAP stream (debuggee, launcher, subprocess connections) — to set `TCP_NODELAY` on that socket
//! and switch it to a `socket.socket` subclass whose `recv_into` re-arms `TCP_QUICKACK` before each
//! read (Linux drops quick-ack mode again after sending; re-arming also flushes an ACK held back
//! for bytes already read, so pydevd's body leaves at once). Then it runs
//! `runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)` with the same
//! `sys.argv` tail and `sys.path[0]` as `-m`. The debuggee's interpreter, environment, imports and
//! sockets are untouched: no `sitecustomize`, no environment variable, nothing inherited (the
//! adapter starts the launcher and the debuggee with `exec`).
//!
//! It stands aside, printing `agentdap-fastpath: off: <why>` on the adapter's stderr (shown as
//! `adapter` output), when debugpy is older than 1.0, when pydevd's `start_client` already sets
//! `TCP_NODELAY` (the upstream fix), or when the patch point is missing or has another shape. It is
//! silent when on. `--no-debugpy-fastpath` or `AGENTDAP_DEBUGPY_FASTPATH=0` runs the stock command.
//!
//! Measured (`cargo bench --bench roundtrip`, debugpy 1.8.22, Python 3.11, Linux 6.x, medians of 15
//! round trips, raw DAP client straight to the adapter):
//!
//! | operation | stock | fast path |
//! |---|---|---|
//! | `evaluate` | 43.9 ms | 0.7 ms |
//! | `stackTrace` | 43.7 ms | 0.7 ms |
//! | `variables` | 44.1 ms | 0.7 ms |
//! | `next` → `stopped` | 44.4 ms | 1.4 ms |
//! | `continue` → `stopped` (bp → bp) | 44.0 ms | 2.2 ms |
//! | through agentdap: `continue` tool (bp → bp) | 87.8 ms | 1.9 ms |
//!
//! Launch → first breakpoint is dominated by starting three Python processes (adapter, launcher,
//! debuggee with pydevd). Two start-up trims in the same bootstrap take ~120 ms off it:
//!
//! - debugpy's adapter, launcher and server each call `log.describe_environment()` at start-up, which
//!   builds a report of `sys.path` and every installed distribution (`importlib.metadata`) even when
//!   no log file will keep it: ~40 ms per process, plus ~35 ms to import `importlib.metadata` at all.
//!   The bootstrap makes the report lazy (built only when a log file records `info` — with
//!   `DEBUGPY_LOG_DIR`, `--log-dir` or `--log-stderr` the log text is the same) and loads
//!   `importlib.metadata` with `importlib.util.LazyLoader` (on first use). Adapter spawn → DAP
//!   `initialize` answered: ~95 ms stock, ~53 ms with the trims.
//! - The launcher (debugpy's own process that starts the debuggee and reports its exit code) gets
//!   the same two trims. For an internal console the adapter starts it as
//!   `<python> -c <launcher bootstrap> <launcher dir> <port> -- <args>` instead of
//!   `<python> <launcher dir> <port> -- <args>` (the adapter's `spawn_debuggee` gets two more items
//!   in its launcher-python list; nothing else changes). The launcher bootstrap drops the `""` that
//!   `-c` puts on `sys.path`, applies the trims, and runs the directory with `runpy.run_path` as
//!   `python <dir>` would. The debuggee's command line, environment (`os.environ` is never
//!   written), working directory and interpreter flags are exactly what debugpy builds; a test
//!   compares everything a program can see of its start (argv, `sys.path`, cwd, interpreter,
//!   flags, its environment and its parent's) with the fast path on and off. What does change: the
//!   debuggee's parent process shows `-c <bootstrap>` in its command line (`ps`). Terminal consoles
//!   (`runInTerminal`) keep debugpy's own launcher command.
//!
//! The debuggee itself still spends ~40 ms on its own environment report, and pydevd's import and
//! set-up; those are inside the user's process and are left alone.
//!
//! Launch → first breakpoint on this 2-CPU machine (`cargo bench --bench roundtrip`, release build,
//! debugpy 1.8.22, Python 3.11, medians of 7 fresh starts): 446 ms through agentdap with the fast path
//! (445 ms for a raw DAP client running the same bootstrap), 732 ms stock — where agentdap's own
//! start-up requests that a bare client skips (`setExceptionBreakpoints`, the stop's details) each
//! pay debugpy's 40 ms stall, ~120 ms in all, against ~5 ms with the fast path. One launch's timeline from
//! the DAP log: adapter spawn → `initialize` answered 49 ms (98 ms stock), `launch` → `initialized`
//! 195 ms (273 ms), `configurationDone` → `stopped` ~180 ms either way (that part is the debuggee).
//!
//! **Fast exits.** A program that ends under debugpy took ~600–770 ms from its last line to the
//! `exited` event, although its remaining work was microseconds (`continue → exited`, raw DAP
//! client, stock or with the socket tuning above). The time is spent inside pydevd at shutdown,
//! and the adapter's side decides how much. When no thread of the program is left, pydevd's
//! `CheckAliveThread` (which polls every 0.2 s) ends the session and waits up to 0.5 s for pydevd's
//! other threads; its reader thread, woken by end-of-file when the adapter closes the connection
//! after pydevd's `terminated`, joins that same dispose and waits for it to finish — so both wait
//! out the full 0.5 s, and only then does Python run the program's `atexit` handlers and exit
//! (seen in pydevd's debug log and `strace -f -tt` of debugpy 1.8.22). When instead the reader
//! sees end-of-file *first* (what happens when a client detaches), pydevd ends the session at
//! once. So the bootstrap wraps the adapter's handler for pydevd's events: after a `thread` event
//! with reason `exited` leaves no thread it has seen start, it asks pydevd `threads`; when the
//! answer is an empty list (no live thread at all — stricter than `CheckAliveThread`, which ignores
//! daemon threads), it half-closes (`SHUT_WR`) its side of that pydevd connection. At that moment
//! nothing of the program can run: its main thread is in interpreter shutdown waiting for pydevd's
//! non-daemon thread, and `atexit` handlers run after pydevd's session has ended in either case.
//! The adapter's debug log records `agentdap fast path: no thread of Server[…] is alive;
//! half-closing its connection` when it acts. A thread that outlives the main thread keeps the
//! session (and its breakpoints) until it ends; a daemon thread still alive keeps the stock path.
//! `tests/debugpy/fastpath.rs` checks that the program's end is the same with the fast path on
//! and off (atexit handlers in order, the last 2,000 lines of output, exit codes, an uncaught
//! exception, a worker thread that outlives main and stops at a breakpoint after main's end).
//!
//! Measured (debugpy 1.8.22, Python 3.11, a 2-CPU machine, a program that ends two loop turns
//! after its breakpoint): `continue → exited` ~770 ms stock, ~145 ms with the fast exit (raw DAP
//! client by hand, median of 30 runs; `cargo bench --bench roundtrip`'s `continue→exited` row:
//! 141.7 ms raw and 145.0 ms through agentdap, p90 145.5 / 149.5, against 612 / 679 stock). About
//! one run in seven by hand (4 of those 30) still took ~550 ms: pydevd's dispose races its own
//! pollers — `CheckAliveThread` and the `CommandThread` (whose `PyDB.process_internal_commands`
//! also disposes once no program thread is alive), each every 0.2 s — and when one of them
//! enters the dispose before the reader sees end-of-file, the two wait out pydevd's 0.5 s; that
//! race is inside the debuggee and left alone.
//!
//! What is left, and why the adapter cannot shorten it (issue 21 asked for ≤ 150 ms; on the same
//! machine shared with other work, a later raw client by hand: median 188 ms, p90 225, 25 runs;
//! again 198 / 274 over 30 runs under more load; stock 725 / 769 over 10; `cargo bench --bench
//! roundtrip`'s `continue→exited` row: 191.3 ms raw and 179.0 ms through agentdap, p90 198.9 /
//! 201.4, against 740 / 646 stock). The timeline, from `continue` sent, as ranges over 8–10 runs
//! (`strace -f -tt --seccomp-bpf` of `shutdown`, `clock_nanosleep`, `exit_group`, `wait4`, and
//! timestamps in the adapter):
//!
//! | from `continue` | what | whose |
//! |---|---|---|
//! | 4–8 ms | pydevd's `thread` event (`exited`) reaches the adapter: the program's last lines, then pydevd's trace function notices the main thread stopped inside `threading._shutdown` | the program, pydevd |
//! | +0.9–2.0 ms | `threads` asked and answered `[]`; the adapter half-closes | adapter |
//! | +100 ms | pydevd's reader sees end-of-file and disposes: `PyDB.__wait_for_threads_to_finish` (`pydevd.py`) finds its writer and command threads still alive — it signalled them a moment before and still holds the GIL — and sleeps `time.sleep(1 / 10.0)` before looking again. Every way into `PyDB.dispose_and_kill_all_pydevd_threads` (reader end-of-file, a writer error, `CheckAliveThread`, `process_internal_commands`, the `stoptrace` `atexit` hook) goes through that loop, so one sleep is unavoidable. The main thread, in `stoptrace`, waits for it | pydevd |
//! | +44–82 ms | the interpreter's finalization (`Py_FinalizeEx`: garbage collection and module teardown; `perf` shows it on the CPU in `gc_collect_main`, no system calls). An interpreter that only imports pydevd and `debugpy.server.api` spends 48–129 ms (medians 62–83 over 3 sets of 8–10) from its last `atexit` handler to being reaped, ~13 ms if that handler calls `gc.freeze()`, ~4 ms without pydevd: the heap's size under pydevd, and the machine's load, decide it | the program |
//! | +2.6–4.5 ms | `exit_group` → the launcher's `wait4` returns (the kernel tears the process down) | kernel |
//! | +3.6–5.3 ms | the launcher sends `exited` then `terminated` (~0.5 ms after `wait4`, `launcher/debuggee.py` `wait_for_exit`); the adapter keeps the code at `exited` and sends the client `exited` at `terminated` (`adapter/launchers.py`, `Launcher.terminated_event`), the rest in its parser and handler threads (~3 ms from the launcher's `exited` arriving to the client's `exited` leaving) | launcher, adapter |
//!
//! The adapter's and the launcher's share is about 5 ms. Of it, the `threads` question (~1 ms) is
//! what keeps a daemon thread's session alive, and forwarding the launcher's `exited` at once
//! rather than at `terminated` (debugpy waits because the launcher may first wait for a key press)
//! would win about the handling of one message, ~1 ms, lost in a run-to-run spread of 155–285 ms.
//! The 100 ms sleep and the finalization are the program's own process; a shorter first poll in
//! pydevd's dispose would be an upstream change. The exit code itself exists only once the process
//! has gone: `Py_FinalizeEx` can still make it 120 when its last flush of `sys.stdout` fails. So
//! nothing is cut from this path within the rule that the program is not touched. The earlier
//! ~145 ms fits the same path with a finalization near 30 ms, the part that varies with the
//! machine's load.
//!
//! ARCHITECTURE.md keeps the invariant: the fast path changes only debugpy's own processes.

use std::ffi::OsString;

use super::super::Host;

/// The Python source run as `<python> -c BOOTSTRAP <adapter args>…` instead of
/// `<python> -m debugpy.adapter <adapter args>…`.
pub const BOOTSTRAP: &str = include_str!("debugpy_bootstrap.py");

/// Environment variable that turns the fast path off when `0`, `false`, `off` or `no`
/// (`--no-debugpy-fastpath` sets it to `0` at start-up).
pub const ENV: &str = "AGENTDAP_DEBUGPY_FASTPATH";

/// The prefix of the one line the bootstrap writes to the adapter's stderr (it reaches the
/// session's `adapter` output): `agentdap-fastpath: on: …` or `agentdap-fastpath: off: <why>`.
pub const MARKER: &str = "agentdap-fastpath:";

/// Whether the fast path is wanted: on unless [`ENV`] says `0`/`false`/`off`/`no`
/// (case-insensitive). Whether it *applies* is decided by the bootstrap (debugpy version,
/// patch point present) and reported on the adapter's stderr after [`MARKER`].
pub fn enabled(host: &dyn Host) -> bool {
    match host.var(ENV) {
        Some(v) => {
            let v = v.to_string_lossy().trim().to_ascii_lowercase();
            !matches!(v.as_str(), "0" | "false" | "off" | "no")
        }
        None => true,
    }
}

/// The interpreter arguments that start debugpy's adapter: the bootstrap when `fast`, else the
/// stock `-m debugpy.adapter`. Adapter options (none today) would follow these.
pub fn adapter_args(fast: bool) -> Vec<OsString> {
    if fast {
        vec![OsString::from("-c"), OsString::from(BOOTSTRAP)]
    } else {
        vec![OsString::from("-m"), OsString::from("debugpy.adapter")]
    }
}

/// What the bootstrap said about itself, read from the adapter's stderr text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The sockets are tuned; the text names the debugpy version.
    On(String),
    /// The bootstrap stood aside (old or fixed debugpy, patch point missing); the text says why.
    Off(String),
}

/// Finds the bootstrap's line in adapter stderr text. `None` when there is none (fast path
/// disabled, or debugpy missing — then the stock "No module named debugpy" follows instead).
pub fn verdict(stderr: &str) -> Option<Verdict> {
    let line = stderr.lines().find_map(|l| l.trim_start().strip_prefix(MARKER))?.trim();
    if let Some(rest) = line.strip_prefix("on:") {
        return Some(Verdict::On(rest.trim().to_string()));
    }
    Some(Verdict::Off(line.strip_prefix("off:").unwrap_or(line).trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    struct Env(Option<&'static str>);

    impl Host for Env {
        fn var(&self, name: &str) -> Option<OsString> {
            (name == ENV).then_some(self.0).flatten().map(OsString::from)
        }
        fn is_executable(&self, _: &Path) -> bool {
            false
        }
        fn cwd(&self) -> Option<PathBuf> {
            None
        }
    }

    #[test]
    fn on_by_default_and_off_by_env() {
        assert!(enabled(&Env(None)));
        assert!(enabled(&Env(Some("1"))));
        assert!(enabled(&Env(Some(""))));
        for off in ["0", "false", "OFF", " no "] {
            assert!(!enabled(&Env(Some(off))), "{off:?}");
        }
    }

    #[test]
    fn args_run_the_bootstrap_or_the_module() {
        assert_eq!(adapter_args(false), vec![OsString::from("-m"), OsString::from("debugpy.adapter")]);
        let fast = adapter_args(true);
        assert_eq!(fast[0], OsString::from("-c"));
        assert!(BOOTSTRAP.contains("runpy.run_module(\"debugpy.adapter\", run_name=\"__main__\", alter_sys=True)"));
        assert!(BOOTSTRAP.contains(MARKER));
    }

    #[test]
    fn reads_the_bootstrap_verdict() {
        let on =
            "x\nagentdap-fastpath: on: debugpy 1.8.22, TCP_NODELAY and TCP_QUICKACK on the adapter's DAP sockets\n";
        assert_eq!(
            verdict(on),
            Some(Verdict::On("debugpy 1.8.22, TCP_NODELAY and TCP_QUICKACK on the adapter's DAP sockets".into()))
        );
        assert_eq!(
            verdict("agentdap-fastpath: off: patch point missing in debugpy 2.0\n"),
            Some(Verdict::Off("patch point missing in debugpy 2.0".into()))
        );
        assert_eq!(verdict("python: No module named debugpy\n"), None);
    }
}
