//! The agentdap binary: arguments, logging to stderr, then the server or a first-run subcommand
//! (`demo`, `doctor`, `install`, in `agentdap::cli`). Nothing here speaks a protocol; only
//! `--version`, `--help` and the subcommands write to stdout, never the server.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// One command-line flag and the environment variable that sets the same thing.
struct Flag {
    /// `--name`, plus a value placeholder when the flag takes one.
    usage: &'static str,
    /// The matching `AGENTDAP_*` variable, if any.
    env: Option<&'static str>,
    help: &'static str,
}

/// Every flag, in `--help` order. Later flags (`--tools`, `--config`, `--mirror-bind`,
/// `--dap-log`, …) are added here and in [`parse`].
const FLAGS: &[Flag] = &[
    Flag {
        usage: "--log <filter>",
        env: Some("AGENTDAP_LOG"),
        help: "log filter for stderr, env_logger syntax (e.g. `debug`, `agentdap=trace`); default `warn`, or $RUST_LOG",
    },
    Flag {
        usage: "--no-debugpy-fastpath",
        env: Some("AGENTDAP_DEBUGPY_FASTPATH"),
        help: "run debugpy's adapter stock, without the TCP_NODELAY/TCP_QUICKACK fast path (env: 0 = off)",
    },
    Flag {
        usage: "--tools <core|full>",
        env: Some("AGENTDAP_TOOLS"),
        help: "which tools tools/list offers: `full` (default) or `core` (the 14 everyday ones, for clients with a small context budget)",
    },
    Flag {
        usage: "--config <path>",
        env: Some("AGENTDAP_CONFIG"),
        help: "JSON config file with custom adapters; default $XDG_CONFIG_HOME/agentdap/config.json (never a project-local file)",
    },
    Flag {
        usage: "--mirror-bind <ip>",
        env: Some("AGENTDAP_MIRROR_BIND"),
        help: "IP address IDE mirror listeners bind to; default 127.0.0.1. Anything else exposes sessions beyond this machine (see SECURITY.md)",
    },
    Flag {
        usage: "--dap-log <dir>",
        env: Some("AGENTDAP_DAP_LOG"),
        help: "also append every session's DAP messages (secrets redacted) to <dir>/<session>-<time>-<pid>.ndjson",
    },
    Flag {
        usage: "--idle-reap-secs <n>",
        env: Some("AGENTDAP_IDLE_REAP_SECS"),
        help: "release a session that ended this many seconds ago (default 1800; 0 = keep until disconnected)",
    },
    Flag {
        usage: "--host-requests <allow|deny|ask>",
        env: Some("AGENTDAP_HOST_REQUESTS"),
        help: "when an adapter asks agentdap to run a command (runInTerminal, `console: terminal`): `allow` (default), `deny`, or `ask` (the agent decides with resolve_host_request)",
    },
    Flag {
        usage: "--stop-locals <on|off>",
        env: Some("AGENTDAP_STOP_LOCALS"),
        help: "whether results at a stop show the top frame's locals (or what changed in them) when the call gives no `locals`; default on",
    },
    Flag {
        usage: "--allow <list>",
        env: Some("AGENTDAP_ALLOW"),
        help: "what the agent may do, comma-separated: launch, attach, evaluate, modify, control, mirror, raw (default all), or `inspect` (attach and read state only; see SECURITY.md)",
    },
    Flag { usage: "-h, --help", env: None, help: "print this help and exit" },
    Flag { usage: "-V, --version", env: None, help: "print the version and exit" },
];

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    /// The stdio MCP server (no subcommand).
    Serve,
    Help,
    Version,
    /// A first-run subcommand (`demo`, `doctor`, `install`); see `agentdap::cli`.
    Cli(agentdap::cli::Command),
}

/// Options shared by every command.
#[derive(Debug, Default, PartialEq, Eq)]
struct Options {
    log: Option<String>,
    /// `--no-debugpy-fastpath`: published to the recipe as `AGENTDAP_DEBUGPY_FASTPATH=0`.
    no_debugpy_fastpath: bool,
    /// `--config`: the custom-adapter config file.
    config: Option<std::path::PathBuf>,
    /// `--mirror-bind`: published to the server as `AGENTDAP_MIRROR_BIND`.
    mirror_bind: Option<String>,
    /// `--tools`: published to the server as `AGENTDAP_TOOLS`.
    tools: Option<String>,
    /// `--dap-log`: published to the server as `AGENTDAP_DAP_LOG`.
    dap_log: Option<std::path::PathBuf>,
    /// `--idle-reap-secs`: published to the server as `AGENTDAP_IDLE_REAP_SECS`.
    idle_reap_secs: Option<u64>,
    /// `--host-requests`: published to the server as `AGENTDAP_HOST_REQUESTS`.
    host_requests: Option<String>,
    /// `--stop-locals`: published to the server as `AGENTDAP_STOP_LOCALS`.
    stop_locals: Option<String>,
    /// `--allow`: published to the server as `AGENTDAP_ALLOW` (the flag wins over the variable).
    allow: Option<String>,
}

/// Parses `args` (without the program name). Errors are one sentence for stderr.
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<(Command, Options), String> {
    let mut command = Command::Serve;
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str().map(str::to_owned) else {
            return Err(format!("argument {arg:?} is not valid UTF-8"));
        };
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |flag: &str| -> Result<String, String> {
            match inline.clone().or_else(|| args.next().and_then(|v| v.into_string().ok())) {
                Some(v) => Ok(v),
                None => Err(format!("{flag} needs a value")),
            }
        };
        match name.as_str() {
            "-h" | "--help" => command = Command::Help,
            "-V" | "--version" => command = Command::Version,
            "--log" => options.log = Some(value("--log")?),
            "--no-debugpy-fastpath" => options.no_debugpy_fastpath = true,
            "--config" => options.config = Some(value("--config")?.into()),
            "--mirror-bind" => options.mirror_bind = Some(value("--mirror-bind")?),
            "--dap-log" => options.dap_log = Some(value("--dap-log")?.into()),
            "--idle-reap-secs" => {
                let secs = value("--idle-reap-secs")?;
                let n =
                    secs.parse().map_err(|_| format!("--idle-reap-secs needs a number of seconds, not `{secs}`"))?;
                options.idle_reap_secs = Some(n);
            }
            "--tools" => {
                let set = value("--tools")?;
                if !matches!(set.as_str(), "core" | "full") {
                    return Err(format!("--tools must be `core` or `full`, not `{set}`"));
                }
                options.tools = Some(set);
            }
            "--host-requests" => options.host_requests = Some(host_policy(&value("--host-requests")?)?),
            "--allow" => {
                let list = value("--allow")?;
                agentdap::allow::Allow::parse(&list)?;
                options.allow = Some(list);
            }
            "--stop-locals" => options.stop_locals = Some(on_off("--stop-locals", &value("--stop-locals")?)?),
            // Subcommands take the rest of the command line; flags before them still apply.
            word if agentdap::cli::is_subcommand(word) => {
                command = Command::Cli(agentdap::cli::parse(word, args.by_ref())?);
                break;
            }
            _ if name.starts_with('-') => return Err(format!("unknown flag {name}")),
            _ => return Err(format!("unknown subcommand {name}")),
        }
    }
    Ok((command, options))
}

/// A valid `--host-requests` value, or the sentence saying what is.
fn host_policy(value: &str) -> Result<String, String> {
    match agentdap::session::host::HostPolicy::parse(value) {
        Some(_) => Ok(value.trim().to_owned()),
        None => Err(format!("--host-requests must be `allow`, `deny` or `ask`, not `{value}`")),
    }
}

/// `on` or `off`, or the sentence saying what `flag` takes.
fn on_off(flag: &str, value: &str) -> Result<String, String> {
    match value.trim() {
        v @ ("on" | "off") => Ok(v.to_owned()),
        _ => Err(format!("{flag} must be `on` or `off`, not `{value}`")),
    }
}

fn help() -> String {
    let mut text = format!(
        "agentdap {} — a debugger for AI agents: MCP on stdio, DAP to real debug adapters\n\n\
         Usage: agentdap [options]    run the MCP server on stdin/stdout\n       \
         agentdap <subcommand>  first-run helpers (not the server)\n\nSubcommands:\n",
        env!("CARGO_PKG_VERSION")
    );
    for sub in agentdap::cli::SUBCOMMANDS {
        text.push_str(&format!("  {:<20} {}\n", sub.usage, sub.help));
    }
    text.push_str("\nOptions:\n");
    for flag in FLAGS {
        let env = flag.env.map(|e| format!(" [env: {e}]")).unwrap_or_default();
        text.push_str(&format!("  {:<22} {}{}\n", flag.usage, flag.help, env));
    }
    text.push_str("\nThe server logs to stderr only; its stdout carries nothing but MCP messages.\n");
    text.push_str(
        "The ledger goes to $AGENTDAP_STATE_DIR/ledger.jsonl (else $XDG_STATE_HOME/agentdap, else ~/.local/state/agentdap).\n",
    );
    text.push_str("`agentdap <subcommand> --help` tells more about a subcommand.\n");
    text
}

/// Logging to stderr: `--log`, else `$AGENTDAP_LOG`, else `$RUST_LOG`, else warnings only.
fn init_logging(options: &Options) {
    let filter = options
        .log
        .clone()
        .or_else(|| std::env::var("AGENTDAP_LOG").ok())
        .or_else(|| std::env::var("RUST_LOG").ok())
        .unwrap_or_else(|| "warn".to_owned());
    env_logger::Builder::new().parse_filters(&filter).target(env_logger::Target::Stderr).init();
}

/// The configuration: `--config`, `$AGENTDAP_CONFIG`, or the user's config directory. A file the
/// user named must exist and be valid (else agentdap refuses to start, saying why); a broken file at
/// the default location is reported on stderr and ignored, so the server still starts.
fn load_config(options: &Options) -> Result<agentdap::config::Config, String> {
    use agentdap::config;
    let Some(loc) = config::locate(options.config.as_deref(), |k| std::env::var_os(k)) else {
        return Ok(config::Config::default());
    };
    match config::load(&loc) {
        Ok(c) => {
            log::debug!("config {}: {} custom adapter(s)", loc.path.display(), c.adapters.len());
            Ok(c)
        }
        Err(e) if loc.explicit => Err(e.to_string()),
        Err(e) => {
            log::error!("{e}; continuing without custom adapters");
            Ok(config::Config::default())
        }
    }
}

/// Prints to stdout; a closed stdout is not worth a panic.
fn print_stdout(text: &str) -> ExitCode {
    match std::io::stdout().write_all(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

fn main() -> ExitCode {
    // The hidden watchdog mode (`os::watchdog`): agentdap re-executed to kill launched debuggees when
    // the server dies. Checked before parsing so it never shows in `--help`.
    let raw: Vec<OsString> = std::env::args_os().skip(1).collect();
    if raw.first().is_some_and(|a| a == agentdap::os::watchdog::WATCHDOG_SUBCOMMAND) {
        let code = agentdap::os::watchdog::watchdog_main(&raw[1..]);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let (command, options) = match parse(raw) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("agentdap: {message}\nTry `agentdap --help`.");
            return ExitCode::from(2);
        }
    };
    let prints_only = match &command {
        Command::Help | Command::Version => true,
        Command::Cli(sub) => sub.prints_only(),
        _ => false,
    };
    if prints_only {
        // Rust starts with SIGPIPE ignored, so printing into a closed pipe (`agentdap doctor |
        // head -1`) was a panic and an abort. These commands only print (and run programs
        // whose output they read), so they take the default: a reader that stops ends them
        // quietly, as it ends `cat`. The server and `demo` keep SIGPIPE ignored: they write to
        // pipes of their own and report a peer that went away.
        // SAFETY: signal(2) with SIG_DFL, before any thread exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    match command {
        Command::Help => print_stdout(&help()),
        Command::Version => print_stdout(&format!("agentdap {}\n", env!("CARGO_PKG_VERSION"))),
        Command::Cli(sub) => {
            init_logging(&options);
            if let Some(path) = &options.config {
                // `doctor` (and the server `demo` starts) read the file the server would: the
                // flag is passed on as `$AGENTDAP_CONFIG`, set before any other thread exists.
                std::env::set_var("AGENTDAP_CONFIG", path);
            }
            ExitCode::from(agentdap::cli::run(&sub))
        }
        Command::Serve => {
            init_logging(&options);
            if options.no_debugpy_fastpath {
                // The debugpy recipe reads this variable; set before the server (and any other
                // thread) exists, so nothing reads the environment concurrently.
                std::env::set_var(agentdap::dap::adapters::debugpy::fastpath::ENV, "0");
            }
            // Read by the server at start; set before it (or any other thread) exists.
            if let Some(dir) = &options.dap_log {
                std::env::set_var(agentdap::server::DAP_LOG_ENV, dir);
            }
            if let Some(secs) = options.idle_reap_secs {
                std::env::set_var(agentdap::server::IDLE_REAP_ENV, secs.to_string());
            }
            if let Some(set) = &options.tools {
                // Read by the server when it builds its tool list; set before it exists.
                std::env::set_var(agentdap::mcp::TOOLS_ENV, set);
            }
            if let Ok(set) = std::env::var(agentdap::mcp::TOOLS_ENV) {
                if !matches!(set.trim(), "" | "core" | "full") {
                    eprintln!("agentdap: {} must be `core` or `full`, not `{set}`", agentdap::mcp::TOOLS_ENV);
                    return ExitCode::from(2);
                }
            }
            let host =
                options.host_requests.clone().or_else(|| std::env::var(agentdap::session::host::POLICY_ENV).ok());
            if let Some(value) = host.filter(|v| !v.trim().is_empty()) {
                match host_policy(&value) {
                    // Read by the server; set before it (or any other thread) exists.
                    Ok(v) => std::env::set_var(agentdap::session::host::POLICY_ENV, v),
                    Err(message) => {
                        eprintln!("agentdap: {message} ({} or the flag)", agentdap::session::host::POLICY_ENV);
                        return ExitCode::from(2);
                    }
                }
            }
            let allow = options.allow.clone().or_else(|| std::env::var(agentdap::allow::ENV).ok());
            if let Some(list) = allow.filter(|v| !v.trim().is_empty()) {
                match agentdap::allow::Allow::parse(&list) {
                    // Read by the server; set before it (or any other thread) exists.
                    Ok(_) => std::env::set_var(agentdap::allow::ENV, list.trim()),
                    Err(message) => {
                        eprintln!("agentdap: {message} ({} or the flag)", agentdap::allow::ENV);
                        return ExitCode::from(2);
                    }
                }
            }
            let stop_locals =
                options.stop_locals.clone().or_else(|| std::env::var(agentdap::session::STOP_LOCALS_ENV).ok());
            if let Some(value) = stop_locals.filter(|v| !v.trim().is_empty()) {
                match on_off("--stop-locals", &value) {
                    // Read by the server; set before it (or any other thread) exists.
                    Ok(v) => std::env::set_var(agentdap::session::STOP_LOCALS_ENV, v),
                    Err(message) => {
                        eprintln!("agentdap: {message} ({} or the flag)", agentdap::session::STOP_LOCALS_ENV);
                        return ExitCode::from(2);
                    }
                }
            }
            let bind = options.mirror_bind.clone().or_else(|| std::env::var(agentdap::mirror::BIND_ENV).ok());
            if let Some(bind) = bind.filter(|b| !b.trim().is_empty()) {
                match bind.trim().parse::<std::net::IpAddr>() {
                    // Read by the server; set before it (or any other thread) exists.
                    Ok(ip) => {
                        if !ip.is_loopback() {
                            eprintln!(
                                "agentdap: WARNING: --mirror-bind {ip}: exposed sessions will accept connections from other machines; \
                                 the mirror token is then all that stands between them and code execution in your program"
                            );
                        }
                        std::env::set_var(agentdap::mirror::BIND_ENV, ip.to_string());
                    }
                    Err(_) => {
                        eprintln!("agentdap: --mirror-bind needs an IP address (no host names), got {bind:?}");
                        return ExitCode::from(2);
                    }
                }
            }
            let config = match load_config(&options) {
                Ok(c) => c,
                Err(message) => {
                    eprintln!("agentdap: {message}");
                    return ExitCode::from(2);
                }
            };
            match agentdap::server::run(config) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    log::error!("{e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(args: &[&str], expected: Result<(Command, Options), &str>) {
        let got = parse(args.iter().map(OsString::from));
        assert_eq!(got, expected.map_err(str::to_owned), "args {args:?}");
    }

    #[test]
    fn parses_flags_and_rejects_unknown_ones() {
        check(&[], Ok((Command::Serve, Options::default())));
        check(&["--help"], Ok((Command::Help, Options::default())));
        check(&["-V"], Ok((Command::Version, Options::default())));
        check(&["--log", "debug"], Ok((Command::Serve, Options { log: Some("debug".into()), ..Options::default() })));
        check(&["--log=info"], Ok((Command::Serve, Options { log: Some("info".into()), ..Options::default() })));
        let no_fast = Options { no_debugpy_fastpath: true, ..Options::default() };
        check(&["--no-debugpy-fastpath"], Ok((Command::Serve, no_fast)));
        check(
            &["--config", "/c.json"],
            Ok((Command::Serve, Options { config: Some("/c.json".into()), ..Options::default() })),
        );
        check(&["--config"], Err("--config needs a value"));
        check(
            &["--mirror-bind", "0.0.0.0"],
            Ok((Command::Serve, Options { mirror_bind: Some("0.0.0.0".into()), ..Options::default() })),
        );
        check(&["--log"], Err("--log needs a value"));
        check(
            &["--dap-log", "/d", "--idle-reap-secs=5"],
            Ok((Command::Serve, Options { dap_log: Some("/d".into()), idle_reap_secs: Some(5), ..Options::default() })),
        );
        check(&["--idle-reap-secs", "soon"], Err("--idle-reap-secs needs a number of seconds, not `soon`"));
        check(
            &["--host-requests", "ask"],
            Ok((Command::Serve, Options { host_requests: Some("ask".into()), ..Options::default() })),
        );
        check(&["--host-requests=maybe"], Err("--host-requests must be `allow`, `deny` or `ask`, not `maybe`"));
        check(&["--frobnicate"], Err("unknown flag --frobnicate"));
        check(&["--frob=1"], Err("unknown flag --frob"));
        check(&["serve"], Err("unknown subcommand serve"));
        let demo = agentdap::cli::Command::Demo { no_install: true };
        check(&["demo", "--no-install"], Ok((Command::Cli(demo), Options::default())));
        let doctor = Ok((
            Command::Cli(agentdap::cli::Command::Doctor),
            Options { log: Some("debug".into()), ..Options::default() },
        ));
        check(&["--log", "debug", "doctor"], doctor);
        check(&["doctor", "--log=debug"], Err("doctor: unexpected argument --log=debug; usage: agentdap doctor (flags go before the subcommand: agentdap --log … doctor)"));
    }

    #[test]
    fn help_lists_every_flag_and_its_env_var() {
        let text = help();
        for flag in FLAGS {
            assert!(text.contains(flag.usage), "{}", flag.usage);
            if let Some(env) = flag.env {
                assert!(text.contains(env), "{env}");
            }
        }
        for sub in agentdap::cli::SUBCOMMANDS {
            assert!(text.contains(sub.usage), "{}", sub.usage);
        }
    }
}
