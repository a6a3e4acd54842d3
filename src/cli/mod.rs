//! The first-run subcommands (`demo`, `doctor`, `install`): argument parsing, agentdap's data
//! directory, and running short helper commands with a deadline. This is CLI code: it may block,
//! run child probes and print to stdout (each print marked `// stdout-ok`); nothing here is
//! reachable from the MCP server (`agentdap` with no arguments), whose stdout carries MCP only.

pub mod demo;
pub mod doctor;
pub mod install;

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

/// A subcommand and its arguments, as parsed from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `agentdap demo [--no-install]`.
    Demo {
        /// Print the install command instead of installing debugpy.
        no_install: bool,
    },
    /// `agentdap doctor`.
    Doctor,
    /// `agentdap install <adapter>`.
    Install {
        /// The adapter as typed (validated when run, so the error can list the known ones).
        adapter: String,
    },
    /// `agentdap <subcommand> --help`.
    Help {
        /// Which subcommand.
        name: &'static str,
    },
}

/// One subcommand for `--help`: usage and one line of help.
pub struct Subcommand {
    /// The word on the command line.
    pub name: &'static str,
    /// The usage line after `agentdap `.
    pub usage: &'static str,
    /// What it does, in one line.
    pub help: &'static str,
    /// More, for `agentdap <subcommand> --help`.
    pub details: &'static str,
}

/// Every subcommand, in `--help` order.
pub const SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "demo",
        usage: "demo [--no-install]",
        help: "debug a small buggy Python program through agentdap's own MCP server, step by step",
        details: "Writes an embedded Python program with a bug to a temporary directory, starts this binary as an\n\
                  MCP server over pipes and debugs the program with tools/call as an agent would: launch with a\n\
                  breakpoint, context, evaluate, step, continue, output; then names the bug.\n\
                  Python with debugpy is taken from $AGENTDAP_PYTHON, $VIRTUAL_ENV, agentdap's data dir\n\
                  ($XDG_DATA_HOME/agentdap, default ~/.local/share/agentdap) or python3; without one, debugpy is\n\
                  installed into the data dir first (like `agentdap install debugpy`).\n\n\
                  Options:\n  --no-install   print the install command instead of installing; exit 1\n\n\
                  Environment (for tests): AGENTDAP_DEMO_FORCE_INSTALL=1 ignores every interpreter outside the data\n\
                  dir, so the install path runs even where python3 has debugpy.",
    },
    Subcommand {
        name: "doctor",
        usage: "doctor",
        help: "which debug adapters would be used (path, version, why), install commands for the rest",
        details:
            "For every recipe (debugpy, lldb-dap, Delve, js-debug (node), rdbg, CodeLLDB, gdb, netcoredbg) and every\n\
                  adapter of the config file: what the server would start (path, version, the rule or variable that\n\
                  chose it, the command line), or the exact install command. Always exits 0.",
    },
    Subcommand {
        name: "install",
        usage: "install <adapter>",
        help: "install an adapter (debugpy: into a private venv in agentdap's data dir)",
        details: "debugpy: `python3 -m venv <data>/venv` and pip install debugpy there (idempotent); when venv or\n\
                  ensurepip is missing, `pip install --target <data>/pydeps`; when pip is missing, prints the\n\
                  distribution's package command. Prints the AGENTDAP_PYTHON to put in the MCP client's env.\n\
                  <data> is $XDG_DATA_HOME/agentdap, default ~/.local/share/agentdap.\n\
                  lldb, delve: prints the package command (exit 1), or where it is installed (exit 0).\n\
                  js-debug (node): in no package registry; prints where it is (exit 0), or the commands that\n\
                  fetch its release asset into <data> (exit 1). Nothing is downloaded.\n\
                  codelldb: the same, for CodeLLDB's release (.vsix) unpacked into <data>/codelldb.\n\
                  Unknown adapter: exit 2.",
    },
];

/// Whether `word` names a subcommand.
pub fn is_subcommand(word: &str) -> bool {
    SUBCOMMANDS.iter().any(|s| s.name == word)
}

/// Parses the arguments after the subcommand `name`. Errors are one sentence for stderr.
pub fn parse(name: &str, args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let Some(sub) = SUBCOMMANDS.iter().find(|s| s.name == name) else {
        return Err(format!("unknown subcommand {name}"));
    };
    let mut words = Vec::new();
    for arg in args {
        match arg.into_string() {
            Ok(a) => words.push(a),
            Err(a) => return Err(format!("argument {a:?} is not valid UTF-8")),
        }
    }
    if words.iter().any(|w| w == "-h" || w == "--help") {
        return Ok(Command::Help { name: sub.name });
    }
    let unexpected = |w: &str| {
        // A server flag (`--config`, `--log`, …) given after the subcommand: say where it goes.
        let flag = w.split('=').next().unwrap_or(w);
        let hint = if [
            "--config",
            "--log",
            "--tools",
            "--dap-log",
            "--host-requests",
            "--mirror-bind",
            "--stop-locals",
            "--allow",
        ]
        .contains(&flag)
        {
            format!(" (flags go before the subcommand: agentdap {flag} … {name})")
        } else {
            String::new()
        };
        Err(format!("{name}: unexpected argument {w}; usage: agentdap {}{hint}", sub.usage))
    };
    match sub.name {
        "demo" => {
            let mut no_install = false;
            for w in &words {
                match w.as_str() {
                    "--no-install" => no_install = true,
                    other => return unexpected(other),
                }
            }
            Ok(Command::Demo { no_install })
        }
        "doctor" => match words.first() {
            Some(w) => unexpected(w),
            None => Ok(Command::Doctor),
        },
        _ => match words.as_slice() {
            [adapter] if !adapter.starts_with('-') => Ok(Command::Install { adapter: adapter.clone() }),
            [] => Err(format!("install: which adapter? usage: agentdap {}; known: {}", sub.usage, known_adapters())),
            [first, ..] if first.starts_with('-') => unexpected(first),
            [_, extra, ..] | [extra] => unexpected(extra),
        },
    }
}

impl Command {
    /// Whether the subcommand writes to no pipe but its own stdout and stderr (`doctor`,
    /// `install`, `help`), so a closed stdout may end it as SIGPIPE ends any filter.
    pub fn prints_only(&self) -> bool {
        !matches!(self, Command::Demo { .. })
    }
}

/// Runs a subcommand; the value is the process exit code (0 success, 1 failure, 2 usage).
pub fn run(command: &Command) -> u8 {
    match command {
        Command::Demo { no_install } => demo::run(*no_install),
        Command::Doctor => doctor::run(),
        Command::Install { adapter } => install::run(adapter),
        Command::Help { name } => {
            let Some(sub) = SUBCOMMANDS.iter().find(|s| s.name == *name) else { return 2 };
            println!("Usage: agentdap {}\n\n{}.\n\n{}", sub.usage, sub.help, sub.details); // stdout-ok
            0
        }
    }
}

/// `debugpy, lldb, delve, node, rdbg, codelldb`.
pub fn known_adapters() -> String {
    use crate::dap::adapters::AdapterKind;
    AdapterKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

/// agentdap's data directory: `$XDG_DATA_HOME/agentdap` (when absolute), else
/// `$HOME/.local/share/agentdap`. `None` when neither variable is usable.
pub fn data_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let base = xdg.or_else(|| {
        let home = std::env::var_os("HOME").map(PathBuf::from).filter(|p| p.is_absolute())?;
        Some(home.join(".local/share"))
    })?;
    Some(base.join("agentdap"))
}

/// What a helper command did.
#[derive(Debug)]
pub struct Ran {
    /// Whether it exited 0.
    pub success: bool,
    /// Its stdout, lossily decoded (at most [`CAPTURE_CAP`] bytes).
    pub stdout: String,
    /// Its stderr, lossily decoded (at most [`CAPTURE_CAP`] bytes).
    pub stderr: String,
}

/// How much of a helper's stdout/stderr is kept, in bytes.
pub const CAPTURE_CAP: u64 = 256 * 1024;

/// Runs `cmd` with no stdin and captured output; kills it after `timeout`. `None` when it could
/// not be started or ran out of time. For short probes (`--version`, `import debugpy`): their
/// output is small, so reading it after the exit cannot fill a pipe and stall the child.
pub fn run_with_timeout(cmd: &mut Process, timeout: Duration) -> Option<Ran> {
    // In `/`, not the caller's directory: `python -c`/`-m` put the working directory first on
    // `sys.path`, so a probe run inside a project would import the project's own `debugpy.py`
    // (SECURITY.md: doctor never executes project files).
    let mut child =
        cmd.current_dir("/").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().ok()?;
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    if let Some(out) = child.stdout.take() {
        let _ = out.take(CAPTURE_CAP).read_to_end(&mut stdout);
    }
    if let Some(err) = child.stderr.take() {
        let _ = err.take(CAPTURE_CAP).read_to_end(&mut stderr);
    }
    Some(Ran {
        success: status.success(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

/// The last `max_lines` non-empty lines of `text`, each indented, for error messages.
pub fn tail(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(max_lines);
    lines[start..].iter().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

/// The version number in a tool's `--version` text: the token after the first "version"
/// (any case, an optional `:`), e.g. `Debian LLVM version 22.1.8` → `22.1.8`,
/// `Version: 1.20.2` → `1.20.2`. Else the first line.
pub fn version_in(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if let Some(at) = lower.find("version") {
        let rest = text[at + "version".len()..].trim_start_matches([':', ' ', '\t']);
        let token: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
        if token.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(token);
        }
    }
    text.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, args: &[&str], expected: Result<Command, &str>) {
        let got = parse(name, args.iter().map(OsString::from));
        assert_eq!(got, expected.map_err(str::to_owned), "{name} {args:?}");
    }

    #[test]
    fn parses_subcommands_and_their_arguments() {
        check("demo", &[], Ok(Command::Demo { no_install: false }));
        check("demo", &["--no-install"], Ok(Command::Demo { no_install: true }));
        check("demo", &["--help"], Ok(Command::Help { name: "demo" }));
        check("demo", &["x"], Err("demo: unexpected argument x; usage: agentdap demo [--no-install]"));
        check("doctor", &[], Ok(Command::Doctor));
        check("doctor", &["-v"], Err("doctor: unexpected argument -v; usage: agentdap doctor"));
        check(
            "doctor",
            &["--config", "/c.json"],
            Err("doctor: unexpected argument --config; usage: agentdap doctor (flags go before the subcommand: agentdap --config … doctor)"),
        );
        check("install", &["debugpy"], Ok(Command::Install { adapter: "debugpy".into() }));
        check("install", &["nope"], Ok(Command::Install { adapter: "nope".into() }));
        check(
            "install",
            &[],
            Err("install: which adapter? usage: agentdap install <adapter>; known: debugpy, lldb, delve, node, rdbg, codelldb, gdb, netcoredbg"),
        );
        check("install", &["a", "b"], Err("install: unexpected argument b; usage: agentdap install <adapter>"));
        check("serve", &[], Err("unknown subcommand serve"));
    }

    #[test]
    fn finds_version_numbers_in_tool_banners() {
        assert_eq!(version_in("lldb-dap: Debian LLVM version 22.1.8\n  Optimized build.\n").as_deref(), Some("22.1.8"));
        assert_eq!(version_in("Delve Debugger\nVersion: 1.20.2\nBuild: $Id: e0c2 $\n").as_deref(), Some("1.20.2"));
        assert_eq!(version_in("\nsomething odd\n").as_deref(), Some("something odd"));
        assert_eq!(version_in(""), None);
    }

    #[test]
    fn tail_keeps_the_last_non_empty_lines() {
        assert_eq!(tail("a\n\nb\nc\n\n", 2), "    b\n    c");
    }
}
