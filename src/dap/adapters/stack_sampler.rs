//! Stack samplers: tools agentdap runs beside an adapter to read a running program's threads
//! without stopping it (py-spy for Python). Owns the quirk a recipe names one with
//! ([`StackSampler`], `RuntimeQuirks::stack_sampler`), where py-spy is, its commands, and
//! reading what it prints. Must not: run anything (the session layer asks the IO shell to, as
//! a job) or read more than [`Host`] gives.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{find_on_path, Host};
use crate::dap::command::AdapterCommand;

/// What `stacks` must know of an adapter (`RuntimeQuirks::stacks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StacksQuirks {
    /// A tool that reads every thread's stack without stopping the program, run by `stacks`
    /// before a `pause` (which debugpy 1.8.22 cannot make a thread blocked in native code obey).
    pub sampler: Option<StackSampler>,
    /// The first `threads` answer after the start is the list taken at `configurationDone`,
    /// whatever ran since (lldb-dap 22.1.8 `ThreadsRequestHandler.cpp`: `initial_thread_list`,
    /// answered once, then cleared; a program's later threads are missing): `stacks` asks twice.
    pub first_threads_stale: bool,
}

impl StacksQuirks {
    pub const STANDARD: StacksQuirks = StacksQuirks { sampler: None, first_threads_stale: false };
}

/// A tool that reads a running program's stacks without the adapter, for an adapter whose
/// `pause` cannot stop every thread (`RuntimeQuirks::stack_sampler`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackSampler {
    /// `py-spy dump --pid <pid> --json` (PyPI `py-spy`, checked on 0.4.3): reads the
    /// interpreter's memory through `process_vm_readv`, so it needs ptrace rights over the
    /// program. `own_threads`: name prefixes of the adapter's own threads inside the program
    /// (debugpy 1.8.22's `pydevd.Writer`, `pydevd.Reader`, …), left out of the result and counted.
    PySpy { own_threads: &'static [&'static str] },
}

impl StackSampler {
    /// The name results use, e.g. `py-spy`.
    pub fn name(self) -> &'static str {
        match self {
            StackSampler::PySpy { .. } => "py-spy",
        }
    }

    /// The command that installs it.
    pub fn install_command(self) -> &'static str {
        match self {
            StackSampler::PySpy { .. } => PY_SPY_INSTALL,
        }
    }

    /// Whether a thread of this name is the adapter's own (left out of results).
    pub fn is_own_thread(self, name: &str) -> bool {
        match self {
            StackSampler::PySpy { own_threads } => own_threads.iter().any(|p| name.starts_with(p)),
        }
    }

    /// Where the sampler is: see [`find_py_spy`].
    pub fn find(self, host: &dyn Host) -> Result<PathBuf, String> {
        match self {
            StackSampler::PySpy { .. } => find_py_spy(host),
        }
    }
}

/// The environment variable naming the py-spy to run.
pub const PY_SPY_ENV: &str = "AGENTDAP_PY_SPY";

/// The command that installs py-spy where agentdap looks (`src/cli/install.rs`).
pub const PY_SPY_INSTALL: &str = "agentdap install py-spy";

/// Where py-spy is: `$AGENTDAP_PY_SPY` (which must then be an executable file), `py-spy` on
/// `PATH`, beside the interpreter `$AGENTDAP_PYTHON` names or in `$VIRTUAL_ENV` (the same venv's
/// `bin/`: `pip install py-spy` there puts it so), or agentdap's data directory, where
/// `agentdap install py-spy` puts it (`<data>/venv/bin/py-spy`, else `<data>/pydeps/bin/py-spy`
/// when python3 cannot make a venv).
/// `Err` says where it looked.
pub fn find_py_spy(host: &dyn Host) -> Result<PathBuf, String> {
    if let Some(named) = host.var(PY_SPY_ENV).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(named);
        if host.is_executable(&path) {
            return Ok(path);
        }
        return Err(format!("${PY_SPY_ENV} is {}, which is not an executable file", path.display()));
    }
    if let Some(path) = find_on_path("py-spy", host) {
        return Ok(path);
    }
    // The interpreter's own directory as named (a venv's `bin/python` is a symlink out of it).
    let beside_python = host
        .var("AGENTDAP_PYTHON")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .and_then(|p| p.parent().map(|d| d.join("py-spy")));
    let in_venv = host.var("VIRTUAL_ENV").map(PathBuf::from).filter(|p| p.is_absolute()).map(|v| v.join("bin/py-spy"));
    let in_data = data_dir(host).into_iter().flat_map(|d| [d.join("venv/bin/py-spy"), d.join("pydeps/bin/py-spy")]);
    let mut looked = Vec::new();
    for candidate in beside_python.into_iter().chain(in_venv).chain(in_data) {
        if host.is_executable(&candidate) {
            return Ok(candidate);
        }
        looked.push(candidate.display().to_string());
    }
    let data = if looked.is_empty() { String::new() } else { format!(", nor at {}", looked.join(" or ")) };
    Err(format!("py-spy is not on PATH{data}, and ${PY_SPY_ENV} is not set"))
}

/// agentdap's data dir (`$XDG_DATA_HOME/agentdap`, an absolute `XDG_DATA_HOME` only, else
/// `~/.local/share/agentdap`), where `agentdap install py-spy` puts it.
fn data_dir(host: &dyn Host) -> Option<PathBuf> {
    let xdg = host.var("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let base =
        xdg.or_else(|| host.var("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(base.join("agentdap"))
}

/// `py-spy --version`, whose stdout [`parse_version`] reads.
pub fn version_command(py_spy: &Path) -> AdapterCommand {
    let mut c = AdapterCommand::new(py_spy.as_os_str());
    c.args.push("--version".into());
    c
}

/// `py-spy dump --pid <pid> --json`: every thread's Python stack once, as JSON on stdout
/// ([`parse_dump`]). py-spy suspends the program while it reads its memory (milliseconds;
/// `--nonblocking` would not, at the price of stacks torn mid-change) and resumes it.
pub fn dump_command(py_spy: &Path, pid: i64) -> AdapterCommand {
    let mut c = AdapterCommand::new(py_spy.as_os_str());
    // py-spy is a Rust program: agentdap's own `RUST_BACKTRACE` would make its one-line errors
    // a backtrace.
    c.env.push(("RUST_BACKTRACE".into(), None));
    c.args.extend(["dump".into(), "--pid".into(), pid.to_string().into(), "--json".into()]);
    c
}

/// The version in `py-spy --version`'s output (`py-spy 0.4.3`).
pub fn parse_version(stdout: &str) -> Option<String> {
    let version = stdout.lines().next()?.trim().strip_prefix("py-spy ")?.trim();
    let plain = !version.is_empty() && version.chars().all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
    plain.then(|| version.to_owned())
}

/// One thread of a sample, its innermost frame first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledThread {
    /// The operating system's thread id (the program's pid for its main thread).
    pub os_id: Option<i64>,
    pub name: String,
    /// py-spy saw it running (not idle in a wait) at the sample.
    pub active: bool,
    /// It held the GIL at the sample.
    pub owns_gil: bool,
    pub frames: Vec<SampledFrame>,
}

/// One Python frame of a sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledFrame {
    /// The function's qualified name (`Thread.join`, `<module>`).
    pub function: String,
    /// The file's full path as the interpreter has it (`<frozen runpy>` for frozen modules).
    pub path: String,
    pub line: Option<u64>,
}

/// The shape of one thread in `py-spy dump --json` (0.4.3; fields agentdap does not read are
/// ignored).
#[derive(Deserialize)]
struct DumpThread {
    #[serde(default)]
    os_thread_id: Option<i64>,
    #[serde(default)]
    thread_name: Option<String>,
    #[serde(default)]
    active: bool,
    #[serde(default)]
    owns_gil: bool,
    #[serde(default)]
    frames: Vec<DumpFrame>,
}

#[derive(Deserialize)]
struct DumpFrame {
    #[serde(default)]
    name: String,
    #[serde(default)]
    filename: String,
    #[serde(default)]
    line: Option<i64>,
}

/// The threads of `py-spy dump --json`'s stdout, ordered by their OS thread id (py-spy 0.4.3
/// lists the newest thread first; the main thread, whose id is the pid, comes first this way).
/// `Err` says what was wrong when it is not that JSON.
pub fn parse_dump(stdout: &[u8]) -> Result<Vec<SampledThread>, String> {
    let threads: Vec<DumpThread> =
        serde_json::from_slice(stdout).map_err(|e| format!("py-spy's output is not its dump JSON: {e}"))?;
    let mut out: Vec<SampledThread> = threads
        .into_iter()
        .map(|t| SampledThread {
            os_id: t.os_thread_id,
            name: t.thread_name.unwrap_or_default(),
            active: t.active,
            owns_gil: t.owns_gil,
            frames: t
                .frames
                .into_iter()
                .map(|f| SampledFrame {
                    function: f.name,
                    path: f.filename,
                    line: f.line.and_then(|l| u64::try_from(l).ok()).filter(|&l| l > 0),
                })
                .collect(),
        })
        .collect();
    out.sort_by_key(|t| t.os_id.unwrap_or(i64::MAX));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::test_host::FakeHost;

    /// `py-spy dump --pid <pid> --json` (0.4.3) of `two_locks.py` (two threads each holding one
    /// lock and waiting for the other) run by `python -m debugpy --listen` (debugpy 1.8.22,
    /// CPython 3.11), the machine's paths replaced.
    const UNDER_DEBUGPY: &str = include_str!("../../../tests/fixtures/pyspy/dump_under_debugpy.json");

    const DEBUGPY_THREADS: StackSampler = StackSampler::PySpy { own_threads: &["pydevd."] };

    #[test]
    fn a_dump_reads_as_threads_with_their_innermost_frame_first() {
        let threads = parse_dump(UNDER_DEBUGPY.as_bytes()).expect("py-spy's real output");
        let names: Vec<&str> = threads.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "MainThread",
                "pydevd.Writer",
                "pydevd.Reader",
                "pydevd.CommandThread",
                "pydevd.CheckAliveThread",
                "first",
                "second"
            ]
        );
        let first = &threads[5];
        assert_eq!(first.os_id, Some(27182));
        assert!(!first.active && !first.owns_gil);
        assert_eq!(
            first.frames[0],
            SampledFrame { function: "first".into(), path: "two_locks.py".into(), line: Some(12) }
        );
        assert_eq!(threads[6].frames[0].line, Some(18));
        assert_eq!(threads[0].frames[0].function, "Thread._wait_for_tstate_lock");
        assert_eq!(
            threads[0].frames[2],
            SampledFrame { function: "<module>".into(), path: "two_locks.py".into(), line: Some(26) }
        );
        let own: Vec<&str> =
            threads.iter().filter(|t| DEBUGPY_THREADS.is_own_thread(&t.name)).map(|t| t.name.as_str()).collect();
        assert_eq!(own.len(), 4, "{own:?}");
    }

    #[test]
    fn output_that_is_not_a_dump_says_so() {
        let e = parse_dump(b"Error: Failed to find python version from target process").unwrap_err();
        assert!(e.starts_with("py-spy's output is not its dump JSON: "), "{e}");
        assert_eq!(parse_dump(b"[]").unwrap(), Vec::new());
        // A frame without a line (0) or with a field missing still reads.
        let odd = br#"[{"thread_name": "t", "frames": [{"name": "f", "filename": "x.py", "line": 0}, {}]}]"#;
        let t = parse_dump(odd).unwrap();
        assert_eq!(t[0].frames[0].line, None);
        assert_eq!(t[0].frames[1], SampledFrame { function: String::new(), path: String::new(), line: None });
    }

    #[test]
    fn the_version_is_the_word_after_the_name() {
        assert_eq!(parse_version("py-spy 0.4.3\n").as_deref(), Some("0.4.3"));
        assert_eq!(parse_version("something else 1.0"), None);
        assert_eq!(parse_version("py-spy $(rm)"), None);
    }

    #[test]
    fn the_commands_name_the_pid_and_ask_for_json() {
        let c = dump_command(Path::new("/opt/py-spy"), 4242);
        assert_eq!(c.program, "/opt/py-spy");
        assert_eq!(c.args, ["dump", "--pid", "4242", "--json"]);
        assert_eq!(c.env, [("RUST_BACKTRACE".into(), None)]);
        assert_eq!(version_command(Path::new("/opt/py-spy")).args, ["--version"]);
    }

    #[test]
    fn py_spy_is_found_by_the_variable_then_path_then_beside_the_python_then_the_data_dir() {
        let mut h = FakeHost::default();
        h.vars.insert("HOME", "/home/u");
        h.vars.insert("PATH", "/usr/bin");
        let e = find_py_spy(&h).unwrap_err();
        assert_eq!(
            e,
            "py-spy is not on PATH, nor at /home/u/.local/share/agentdap/venv/bin/py-spy or /home/u/.local/share/agentdap/pydeps/bin/py-spy, and $AGENTDAP_PY_SPY is not set"
        );
        h.exes.insert("/home/u/.local/share/agentdap/pydeps/bin/py-spy");
        assert_eq!(find_py_spy(&h).unwrap(), PathBuf::from("/home/u/.local/share/agentdap/pydeps/bin/py-spy"));
        h.exes.insert("/home/u/.local/share/agentdap/venv/bin/py-spy");
        assert_eq!(find_py_spy(&h).unwrap(), PathBuf::from("/home/u/.local/share/agentdap/venv/bin/py-spy"));
        // The venv agentdap's debugpy runs in: its `bin/`, where `pip install py-spy` puts it.
        h.vars.insert("VIRTUAL_ENV", "/proj/.venv");
        h.exes.insert("/proj/.venv/bin/py-spy");
        assert_eq!(find_py_spy(&h).unwrap(), PathBuf::from("/proj/.venv/bin/py-spy"));
        h.vars.insert("AGENTDAP_PYTHON", "/opt/tools/venv/bin/python");
        h.exes.insert("/opt/tools/venv/bin/py-spy");
        assert_eq!(find_py_spy(&h).unwrap(), PathBuf::from("/opt/tools/venv/bin/py-spy"));
        h.exes.insert("/usr/bin/py-spy");
        assert_eq!(find_py_spy(&h).unwrap(), PathBuf::from("/usr/bin/py-spy"));
        h.vars.insert("AGENTDAP_PY_SPY", "/nowhere/py-spy");
        assert_eq!(
            find_py_spy(&h).unwrap_err(),
            "$AGENTDAP_PY_SPY is /nowhere/py-spy, which is not an executable file"
        );
        h.exes.insert("/nowhere/py-spy");
        assert_eq!(find_py_spy(&h).unwrap(), PathBuf::from("/nowhere/py-spy"));
    }
}
