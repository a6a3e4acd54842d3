//! `agentdap doctor`: a report of what the server would use for each adapter recipe, built-in or
//! from the config file (path, version, which rule picked it, the command line it runs) or the
//! exact install command, plus facts about this binary.
//! CLI only: runs `<tool> --version` and Python probes with deadlines. Always exits 0.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Duration;

use super::install::{self, Python, Source};
use crate::config::{self, Config};
use crate::dap::adapters::debugpy;
use crate::dap::adapters::{
    self, codelldb, delve, find_on_path, gdb, jsdebug, lldb, netcoredbg, rdbg, shell_quote, AdapterError, AdapterKind,
    RealHost, ResolveInput,
};

/// How long `<tool> --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(15);

/// One adapter's line in the report.
struct Row {
    name: String,
    found: bool,
    /// What would be used, or what is missing.
    summary: String,
    /// Further lines (install command, hints).
    notes: Vec<String>,
}

/// `agentdap doctor`: prints the report; 0 always (it is a report, not a check).
pub fn run() -> u8 {
    print!("{}", report()); // stdout-ok
    0
}

/// The whole report as text.
pub fn report() -> String {
    let mut out = String::new();
    let linkage = if cfg!(target_feature = "crt-static") { "statically linked" } else { "dynamically linked" };
    out.push_str(&format!(
        "agentdap {} ({}-{}, {linkage})\n",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        std::env::consts::OS
    ));
    if let Ok(exe) = std::env::current_exe() {
        out.push_str(&format!("  binary    {}\n", exe.display()));
    }
    let data = super::data_dir();
    match &data {
        Some(d) => {
            let state = if d.is_dir() { "" } else { " (not created yet)" };
            out.push_str(&format!("  data dir  {}{state}\n", d.display()));
        }
        None => out.push_str("  data dir  none: neither $XDG_DATA_HOME nor $HOME is set\n"),
    }
    let (config, config_note) = match config::locate(None, |k| std::env::var_os(k)) {
        Some(loc) => match config::load(&loc) {
            Ok(c) => {
                let none = if loc.path.is_file() { "" } else { " (no file there)" };
                (c, Some(format!("  config    {}{none}", loc.path.display())))
            }
            Err(e) => (Config::default(), Some(format!("  config    {e} (the server would not start)"))),
        },
        None => (Config::default(), None),
    };
    if let Some(line) = config_note {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("\nadapters\n");
    for &kind in AdapterKind::ALL {
        let entry = config.override_of(kind);
        // An override's command is what the server runs: it is checked in place of the search.
        let found = |search: fn(&dyn adapters::Host) -> Result<PathBuf, AdapterError>| match config::command_of(entry) {
            Some(c) => find_on_path(&c.to_string_lossy(), &RealHost).ok_or_else(|| AdapterError::NotFound {
                adapter: kind.name(),
                detail: format!("the config file's command {} is not an executable", c.display()),
                install: kind.install_command().to_owned(),
            }),
            None => search(&RealHost),
        };
        let configured = entry.is_some_and(|e| e.command.is_some());
        let mut row = match kind {
            AdapterKind::Debugpy | AdapterKind::Rdbg if configured => configured_row(kind, &config),
            AdapterKind::Debugpy => debugpy_row(data.as_deref()),
            AdapterKind::Lldb => tool_row(
                kind.name(),
                found(lldb::find_adapter),
                lldb::ENV_OVERRIDE,
                configured,
                &["--version"],
                super::version_in,
            ),
            AdapterKind::Delve => tool_row(
                kind.name(),
                found(delve::find_adapter),
                delve::ENV_OVERRIDE,
                configured,
                &["version"],
                super::version_in,
            ),
            AdapterKind::JsDebug => node_row(&config),
            AdapterKind::CodeLldb => codelldb_row(config::command_of(entry)),
            AdapterKind::Rdbg => rdbg_row(),
            AdapterKind::Gdb => gdb_row(tool_row(
                kind.name(),
                found(gdb::find_adapter),
                gdb::ENV_OVERRIDE,
                configured,
                &["--version"],
                |text| gdb::parse_version(text).map(|(major, minor)| format!("{major}.{minor}")),
            )),
            AdapterKind::Netcoredbg => tool_row(
                kind.name(),
                found(netcoredbg::find_adapter),
                netcoredbg::ENV_OVERRIDE,
                configured,
                &["--version"],
                super::version_in,
            ),
        };
        if entry.is_some() {
            row.notes.push("overridden by the config file: its entry's settings over the recipe's".to_owned());
        }
        if let Some(line) = row.found.then(|| command_line(kind, &config)).flatten() {
            row.notes.push(format!("runs: {line}"));
        }
        push_row(&mut out, row);
    }
    for (name, entry) in config.adapters.iter().filter(|(n, _)| AdapterKind::from_name(n).is_none()) {
        push_row(&mut out, custom_row(name, entry));
    }
    out.push_str("\ntools\n");
    push_row(&mut out, py_spy_row());
    out
}

/// py-spy, which `stacks` runs to read a running Python program's threads.
fn py_spy_row() -> Row {
    use crate::dap::adapters::stack_sampler::{find_py_spy, parse_version, PY_SPY_ENV, PY_SPY_INSTALL};
    let found = find_py_spy(&RealHost).map_err(|detail| AdapterError::NotFound {
        adapter: "py-spy",
        detail,
        install: PY_SPY_INSTALL.to_owned(),
    });
    let mut row = tool_row("py-spy", found, PY_SPY_ENV, false, &["--version"], parse_version);
    row.notes.push("used by `stacks` on Python programs: every thread's stack without stopping it".to_owned());
    row
}

fn push_row(out: &mut String, row: Row) {
    let status = if row.found { "ok" } else { "missing" };
    out.push_str(&format!("  {:<10} {:<8} {}\n", row.name, status, row.summary));
    for note in row.notes {
        out.push_str(&format!("  {:<10} {:<8} {note}\n", "", ""));
    }
}

/// Most characters of one argument shown in a `runs:` line (debugpy's bootstrap is a program).
const ARG_CHARS: usize = 60;

/// The command line the server would run for `kind` (with the config's override merged in), each
/// argument shell-quoted and clipped; `None` when the recipe does not resolve.
fn command_line(kind: AdapterKind, config: &Config) -> Option<String> {
    let entry = config.override_of(kind);
    let input = ResolveInput { js_debug: config.js_debug.as_deref(), ..ResolveInput::default() };
    let mut recipe = adapters::recipe_with_command(kind, None, input, config::command_of(entry), &RealHost).ok()?;
    if let Some(entry) = entry {
        config::apply_override(&mut recipe, entry);
    }
    let words = std::iter::once(&recipe.command.program).chain(&recipe.command.args).map(|w| {
        // The port agentdap chooses at each start (`config::PORT_PLACEHOLDER`) reads as `<port>`.
        let w = w.to_string_lossy().replace(config::PORT_PLACEHOLDER, "<port>");
        if w == "<port>" {
            return w;
        }
        let clipped: String = w.chars().take(ARG_CHARS).collect();
        if clipped.len() < w.len() {
            format!("{}…", shell_quote(&clipped))
        } else {
            shell_quote(&w)
        }
    });
    let mut line = words.collect::<Vec<_>>().join(" ");
    if kind.runtime_quirks().program_on_command_line {
        line.push_str(" <program> <args>");
    }
    Some(line)
}

/// A custom adapter from the config file: its command line, and whether the command is there.
fn custom_row(name: &str, entry: &config::CustomAdapter) -> Row {
    let name = name.to_owned();
    let command = config::custom_command(entry);
    let program = command.program.to_string_lossy().into_owned();
    let line: Vec<String> = std::iter::once(program.clone())
        .chain(command.args.iter().map(|a| a.to_string_lossy().into_owned()))
        .map(|w| shell_quote(&w))
        .collect();
    let transport = if entry.tcp == Some(true) { "over TCP" } else { "on stdio" };
    match find_on_path(&program, &RealHost) {
        Some(path) => Row {
            name,
            found: true,
            summary: format!("custom adapter from the config file at {} ({transport})", path.display()),
            notes: vec![format!("runs: {}", line.join(" "))],
        },
        None => Row {
            name,
            found: false,
            summary: format!("custom adapter from the config file: {program} is not an executable"),
            notes: vec![format!("runs: {}", line.join(" "))],
        },
    }
}

/// debugpy: the interpreter the server would resolve for a program outside any project (no
/// project's `.venv`: doctor never executes project files), whether it imports debugpy, and
/// what `agentdap install debugpy` left in the data dir. A `.venv` in this directory is named,
/// never run.
fn debugpy_row(data: Option<&Path>) -> Row {
    let mut row = Row { name: debugpy::NAME.to_owned(), found: false, summary: String::new(), notes: Vec::new() };
    let installed = data.and_then(install::installed_in);
    match debugpy::resolve_python(None, ResolveInput::default(), &RealHost) {
        Err(AdapterError::NotFound { detail, install, .. }) => {
            row.summary = detail;
            row.notes.push(format!("install: {install}"));
        }
        Err(e) => row.summary = e.to_string(),
        Ok(interp) => {
            let python = Python { path: interp.path.clone(), pythonpath: None, source: Source::Path };
            let why = debugpy::source_words(interp.source);
            match python.probe() {
                None => row.summary = format!("{} ({why}) does not run", interp.path.display()),
                Some((py, Some(version))) => {
                    row.found = true;
                    row.summary = format!("debugpy {version}, Python {py} at {} ({why})", interp.path.display());
                }
                Some((py, None)) => {
                    row.summary = format!("Python {py} at {} ({why}) has no debugpy", interp.path.display());
                }
            }
            if !row.found && installed.is_none() {
                row.notes.push(format!(
                    "install: agentdap install debugpy   (or: {})",
                    debugpy::install_command(&interp.path)
                ));
            }
        }
    }
    if let Some(project) = std::env::current_dir().ok().map(|d| d.join(".venv/bin/python")).filter(|p| p.exists()) {
        row.notes.push(format!(
            "{} is used only for programs inside {} (not run by doctor)",
            project.display(),
            project.parent().and_then(Path::parent).and_then(Path::parent).unwrap_or(Path::new("")).display()
        ));
    }
    if let Some((python, version)) = installed {
        let env: Vec<String> = install::client_env(&python).iter().map(|(k, v)| format!("{k}={v}")).collect();
        if row.found {
            row.notes.push(format!("also installed by agentdap: debugpy {version} ({})", env.join(" ")));
        } else {
            // The server finds what the MCP client's configuration points it at.
            row.found = true;
            row.summary = format!("debugpy {version} at {} ({})", python.path.display(), python.source.describe());
            row.notes.push(format!("the server uses it when its env has: {}", env.join(" ")));
        }
    }
    row
}

/// lldb-dap and Delve: the path found, the rule that found it, and its version.
fn tool_row(
    name: &str,
    found: Result<PathBuf, AdapterError>,
    env_override: &str,
    configured: bool,
    version_args: &[&str],
    version_of: fn(&str) -> Option<String>,
) -> Row {
    match found {
        Err(AdapterError::NotFound { detail, install, .. }) => {
            Row { name: name.to_owned(), found: false, summary: detail, notes: vec![format!("install: {install}")] }
        }
        Err(e) => Row { name: name.to_owned(), found: false, summary: e.to_string(), notes: Vec::new() },
        Ok(path) => {
            let version = super::run_with_timeout(Process::new(&path).args(version_args), VERSION_TIMEOUT)
                .and_then(|r| version_of(&format!("{}{}", r.stdout, r.stderr)))
                .unwrap_or_else(|| "version unknown".to_string());
            let why = if configured { "from the config file".to_owned() } else { found_by(&path, env_override) };
            Row {
                name: name.to_owned(),
                found: true,
                summary: format!("{version} at {} ({why})", path.display()),
                notes: Vec::new(),
            }
        }
    }
}

/// gdb: found only counts when its version has the DAP interpreter (gdb ≥ 14); below that the
/// row says which version it is and that DAP came in 14.
fn gdb_row(mut row: Row) -> Row {
    let version = row.summary.split_whitespace().next().and_then(gdb::parse_version);
    match version {
        Some((major, minor)) if row.found && major < gdb::DAP_SINCE => {
            row.found = false;
            row.summary = format!(
                "{}: no DAP interpreter in gdb {major}.{minor} (DAP came in gdb {})",
                row.summary,
                gdb::DAP_SINCE
            );
            row.notes.push(format!(
                "install: {} (gdb {} or newer: Debian 13, Ubuntu 24.04 and later), or use lldb-dap (adapter: lldb)",
                gdb::INSTALL,
                gdb::DAP_SINCE
            ));
        }
        None if row.found => {
            row.notes.push(format!("its version is unknown: DAP needs gdb {} or newer", gdb::DAP_SINCE))
        }
        _ => {}
    }
    row
}

/// Which rule found `path`: the override variable, `PATH`, or a well-known directory.
fn found_by(path: &Path, env_override: &str) -> String {
    if std::env::var_os(env_override).is_some_and(|v| !v.is_empty()) {
        return format!("from ${env_override}");
    }
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let on_path = std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d == dir));
    if on_path {
        "on PATH".to_string()
    } else {
        format!("found in {}", dir.display())
    }
}

/// rdbg: the script found, the rule that found it, the debug gem's version from its path, and
/// the `ruby` that runs it (`ruby --version`); or where agentdap looked and how to get it.
fn rdbg_row() -> Row {
    let name = rdbg::NAME.to_owned();
    match rdbg::find(&RealHost) {
        Err(AdapterError::NotFound { detail, install, .. }) => {
            Row { name, found: false, summary: detail, notes: vec![format!("install: {install}")] }
        }
        Err(e) => Row { name, found: false, summary: e.to_string(), notes: Vec::new() },
        Ok(found) => {
            let version =
                found.version.as_deref().map_or("debug (version unknown)".to_string(), |v| format!("debug {v}"));
            let mut row = Row {
                name,
                found: true,
                summary: format!("{version} at {} ({})", found.rdbg.display(), found.rule.describe()),
                notes: Vec::new(),
            };
            if let Some(ruby) = &found.ruby {
                let ruby_version = super::run_with_timeout(Process::new(ruby).arg("--version"), VERSION_TIMEOUT)
                    .map(|r| r.stdout.trim().to_string())
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| "version unknown".to_string());
                row.notes.push(format!("run by {} ({ruby_version})", ruby.display()));
            }
            if found.version.as_deref() != Some(rdbg::CHECKED_VERSION) {
                row.notes.push(format!("checked against debug {}", rdbg::CHECKED_VERSION));
            }
            row
        }
    }
}

/// js-debug (`node`): which copy of the standalone server the server would run and why, its
/// version when a file beside it says, and `node --version`; or where agentdap looked and how to
/// get it. Reads the config file the server would read (for its `js_debug`).
fn node_row(config: &Config) -> Row {
    let mut row = Row { name: jsdebug::NAME.to_owned(), found: false, summary: String::new(), notes: Vec::new() };
    let server = match jsdebug::find_server(&RealHost, config.js_debug.as_deref()) {
        Ok(server) => server,
        Err(AdapterError::NotFound { detail, install, .. }) => {
            row.summary = detail;
            row.notes.push(format!("install: {install}"));
            row.notes.push(format!(
                "(or set ${} to an unpacked copy: neovim mason's js-debug-adapter, or the {} release asset)",
                jsdebug::ENV_OVERRIDE,
                jsdebug::release_asset()
            ));
            return row;
        }
        Err(e) => {
            row.summary = e.to_string();
            return row;
        }
    };
    let version = jsdebug::server_version(&server.script, &RealHost)
        .map_or_else(|| "js-debug (version unknown)".to_owned(), |v| format!("js-debug {v}"));
    row.summary = format!("{version} at {} ({})", server.script.display(), server.source.describe());
    match jsdebug::find_node(&RealHost) {
        Ok(node) => {
            row.found = true;
            let node_version = super::run_with_timeout(Process::new(&node).arg("--version"), VERSION_TIMEOUT)
                .map(|r| r.stdout.trim().to_owned())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "version unknown".to_owned());
            row.notes.push(format!("node {node_version} at {}", node.display()));
        }
        Err(e) => {
            row.notes.push(e.to_string());
        }
    }
    row
}

/// A recipe whose executable the config file names (`command`), for the rows that otherwise
/// search for it themselves (debugpy, rdbg): what the server would resolve, exactly as `launch`
/// does (`adapters::recipe_with_command`).
fn configured_row(kind: AdapterKind, config: &Config) -> Row {
    let name = kind.name().to_owned();
    let command = config::command_of(config.override_of(kind));
    let input = ResolveInput { js_debug: config.js_debug.as_deref(), ..ResolveInput::default() };
    match adapters::recipe_with_command(kind, None, input, command, &RealHost) {
        Ok(recipe) => Row {
            name,
            found: true,
            summary: format!("{} (from the config file)", std::path::Path::new(&recipe.command.program).display()),
            notes: Vec::new(),
        },
        Err(AdapterError::NotFound { detail, install, .. }) => {
            Row { name, found: false, summary: detail, notes: vec![format!("install: {install}")] }
        }
        Err(e) => Row { name, found: false, summary: e.to_string(), notes: Vec::new() },
    }
}

/// CodeLLDB (opt-in: `adapter: "codelldb"`): which `codelldb` the server would run and why, with
/// the version a file beside it says (`codelldb` has no version option); or where agentdap looked
/// and the commands that unpack the release (there is no distribution package).
fn codelldb_row(configured: Option<&Path>) -> Row {
    let name = codelldb::NAME.to_owned();
    if let Some(command) = configured {
        // The config file's command is what the server runs (`adapters::recipe_with_command`).
        return match find_on_path(&command.to_string_lossy(), &RealHost) {
            Some(path) => {
                let version = codelldb::version(&path, &RealHost)
                    .map_or_else(|| "CodeLLDB (version unknown)".to_owned(), |v| format!("CodeLLDB {v}"));
                let summary = format!("{version} at {} (from the config file)", path.display());
                Row { name, found: true, summary, notes: vec!["used only when asked: adapter \"codelldb\"".to_owned()] }
            }
            None => Row {
                name,
                found: false,
                summary: format!("the config file's command {} is not an executable", command.display()),
                notes: Vec::new(),
            },
        };
    }
    match codelldb::find_adapter(&RealHost) {
        Ok(found) => {
            let version = codelldb::version(&found.path, &RealHost)
                .map_or_else(|| "CodeLLDB (version unknown)".to_owned(), |v| format!("CodeLLDB {v}"));
            let summary = format!("{version} at {} ({})", found.path.display(), found.source.describe());
            Row { name, found: true, summary, notes: vec!["used only when asked: adapter \"codelldb\"".to_owned()] }
        }
        Err(AdapterError::NotFound { detail, install, .. }) => Row {
            name,
            found: false,
            summary: detail,
            notes: vec![
                format!("install: {install}"),
                format!(
                    "(or the VS Code extension vadimcn.vscode-lldb, or neovim mason's codelldb; or set ${} to an unpacked copy)",
                    codelldb::ENV_OVERRIDE
                ),
            ],
        },
        Err(e) => Row { name, found: false, summary: e.to_string(), notes: Vec::new() },
    }
}
