//! The debugpy fast path: the adapter command that runs `debugpy.adapter` through an embedded bootstrap which sets `TCP_NODELAY`/`TCP_QUICKACK` on the adapter's own DAP sockets; the on/off switch; recognising the bootstrap's verdict. Never touches the debuggee.
//!
//! debugpy ≤ 1.8.22 (upstream microsoft/debugpy#2054, unfixed when written): pydevd, inside the
//! debuggee, writes each DAP message as two `sendall`s (header, then body) on a socket with
//! Nagle on, so the body waits for the adapter to ACK the header, and the adapter's kernel
//! delays that ACK by ~40 ms: every request costs ~44 ms. The bootstrap re-arms
//! `TCP_QUICKACK` before each read on the adapter's side of that socket (the ACK leaves at once,
//! the body follows) and sets `TCP_NODELAY` on the adapter's own writes. Only sockets passed to
//! debugpy's `JsonIOStream.from_socket` in the adapter process are touched; the debuggee's
//! interpreter, environment and sockets are not. See ARCHITECTURE.md § debugpy fast path.

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
