//! One launch.json configuration made agentdap's: its `type` mapped to a recipe, the fields
//! agentdap understands (`program`, `args`, `cwd`, `env`, `envFile`, `stopOnEntry`, `console`,
//! cppdbg's `environment` and `stopAtEntry`, an attach's `processId`/`connect`/`port`) taken
//! out, what cannot be honoured refused by name, what would choose the adapter's command or
//! interpreter dropped with a note, and the rest kept as `adapter_args`. Must not: read any
//! file but an `envFile` (through `Files`), start anything.

use std::path::Path;

use serde_json::{Map, Value};

use super::super::vars::{self, Facts};
use super::super::{resolve_path, ConnectArg};
use super::{Refusal, LAUNCH_JSON_CAP};
use crate::dap::adapters::AdapterKind;
use crate::session::files::Files;

/// A configuration as agentdap's own arguments (see `Converted::into_call` for how the call's
/// arguments go over them).
#[derive(Debug, Default)]
pub struct Converted {
    /// agentdap's adapter name for the configuration's `type`.
    pub adapter: &'static str,
    /// Absolute (taken against the workspace folder when relative); launch only.
    pub program: Option<String>,
    pub args: Vec<String>,
    /// Absolute, as `program`.
    pub cwd: Option<String>,
    /// `envFile`'s variables with `env`'s over them.
    pub env: Map<String, Value>,
    pub stop_on_entry: Option<bool>,
    /// `internal` or `terminal`.
    pub console: Option<String>,
    pub adapter_args: Map<String, Value>,
    /// `request: attach`: what to attach to.
    pub attach: Option<Target>,
    /// What was left out and why, for the launch result.
    pub notes: Vec<String>,
}

/// What an attach configuration reaches.
#[derive(Debug, Default)]
pub struct Target {
    pub pid: Option<i64>,
    pub connect: Option<ConnectArg>,
}

/// Which recipe a VS Code debug `type` runs under. `lldb` is CodeLLDB's type in VS Code
/// (vadimcn.vscode-lldb), so it runs CodeLLDB, never silently lldb-dap: their launch keys differ
/// (`sourceLanguages`, `terminal`); when CodeLLDB is not installed the launch answers
/// `adapter_not_found` with its install command, and the call's `adapter: "lldb"` runs the same
/// configuration under lldb-dap instead.
pub fn recipe_of(ty: &str) -> Option<AdapterKind> {
    Some(match ty {
        "debugpy" | "python" => AdapterKind::Debugpy,
        "node" | "pwa-node" => AdapterKind::JsDebug,
        "lldb-dap" => AdapterKind::Lldb,
        "lldb" => AdapterKind::CodeLldb,
        "go" => AdapterKind::Delve,
        "cppdbg" | "cppvsdbg" => AdapterKind::Lldb,
        _ => return None,
    })
}

/// What happens to a field agentdap does not pass on as it is.
#[derive(Clone, Copy)]
enum Fate {
    /// The configuration cannot run as written: refused, naming the field.
    Refuse(&'static str),
    /// Left out, with a note saying why.
    Drop(&'static str),
    /// Left out silently: it only shapes VS Code's own window.
    Ignore,
}

/// Which types a [`FIELDS`] row applies to.
#[derive(Clone, Copy, PartialEq)]
enum Family {
    Any,
    Python,
    Go,
    CodeLldb,
    LldbDap,
    Cpp,
}

fn family_of(ty: &str) -> Family {
    match ty {
        "debugpy" | "python" => Family::Python,
        "go" => Family::Go,
        "lldb" => Family::CodeLldb,
        "lldb-dap" => Family::LldbDap,
        "cppdbg" | "cppvsdbg" => Family::Cpp,
        _ => Family::Any,
    }
}

const TASK: &str =
    "runs a VS Code task, and agentdap runs no tasks: run it yourself first (e.g. the build), then launch without it";
const ADAPTER: &str =
    "would choose the debug adapter's program, which agentdap takes only from its recipes and the user's config file (SECURITY.md)";
const INTERPRETER: &str = "would choose the interpreter debugpy's adapter runs under, which agentdap never takes from the project (SECURITY.md); the interpreter is chosen as for any launch (README § Adapters), or pass adapter_args.python in the call";
const LAUNCHER: &str =
    "would choose the interpreter of debugpy's launcher, which agentdap never takes from the project (SECURITY.md)";
const MI: &str = "is for gdb/MI (cppdbg), which lldb-dap does not read";

/// Fields with a fate of their own, by type family (`Any`: every type).
const FIELDS: &[(Family, &str, Fate)] = &[
    (Family::Any, "preLaunchTask", Fate::Refuse(TASK)),
    (Family::Any, "postDebugTask", Fate::Refuse(TASK)),
    (
        Family::Any,
        "debugServer",
        Fate::Refuse("makes VS Code connect to a debug adapter already listening, and agentdap starts its own from its recipe; for a running debug server use attach {connect}"),
    ),
    (Family::Any, "presentation", Fate::Ignore),
    (Family::Any, "internalConsoleOptions", Fate::Ignore),
    (Family::Any, "serverReadyAction", Fate::Drop("opens a browser from VS Code; agentdap does not")),
    (Family::Any, "debugAdapterPath", Fate::Drop(ADAPTER)),
    (Family::Any, "debugAdapterExecutable", Fate::Drop(ADAPTER)),
    (Family::Any, "debugAdapterArgs", Fate::Drop(ADAPTER)),
    (Family::Python, "python", Fate::Drop(INTERPRETER)),
    (Family::Python, "pythonPath", Fate::Drop(INTERPRETER)),
    (Family::Python, "debugLauncherPython", Fate::Drop(LAUNCHER)),
    (
        Family::Python,
        "module",
        Fate::Refuse("runs a module (python -m), and agentdap launches a program file: give `program` (the module's file) instead"),
    ),
    (Family::Python, "code", Fate::Refuse("runs a code string, and agentdap launches a program file: give `program` instead")),
    (Family::Go, "dlvToolPath", Fate::Drop(ADAPTER)),
    (Family::Go, "dlvFlags", Fate::Drop("are flags of the dlv command, which agentdap's recipe sets")),
    (Family::Go, "debugAdapter", Fate::Drop("chooses VS Code Go's adapter; agentdap speaks DAP to `dlv dap`")),
    (Family::CodeLldb, "cargo", Fate::Refuse("makes CodeLLDB run cargo to build; build it yourself (cargo build) and give `program`")),
    (Family::CodeLldb, "terminal", Fate::Drop("agentdap runs CodeLLDB's program on its own console (README § Adapters)")),
    (Family::Cpp, "MIMode", Fate::Drop(MI)),
    (Family::Cpp, "miDebuggerPath", Fate::Drop(ADAPTER)),
    (Family::Cpp, "miDebuggerArgs", Fate::Drop(ADAPTER)),
    (Family::Cpp, "setupCommands", Fate::Drop(MI)),
    (Family::Cpp, "customLaunchSetupCommands", Fate::Drop(MI)),
    (Family::Cpp, "launchCompleteCommand", Fate::Drop(MI)),
    (Family::Cpp, "externalConsole", Fate::Drop("opens a terminal window; agentdap captures the output (or pass console: terminal)")),
    (Family::Cpp, "logging", Fate::Drop(MI)),
    (Family::Cpp, "visualizerFile", Fate::Drop(MI)),
    (Family::Cpp, "showDisplayString", Fate::Drop(MI)),
    (Family::Cpp, "targetArchitecture", Fate::Drop(MI)),
    (Family::Cpp, "symbolLoadInfo", Fate::Drop(MI)),
    (Family::Cpp, "additionalSOLibSearchPath", Fate::Drop(MI)),
    (Family::Cpp, "sourceFileMap", Fate::Drop(MI)),
    (Family::Cpp, "filterStdout", Fate::Drop(MI)),
    (Family::Cpp, "filterStderr", Fate::Drop(MI)),
    (Family::Cpp, "avoidWindowsConsoleRedirection", Fate::Drop(MI)),
    (Family::Cpp, "symbolSearchPath", Fate::Drop(MI)),
    (Family::Cpp, "requireExactSource", Fate::Drop(MI)),
    (Family::Cpp, "enableDebugHeap", Fate::Drop(MI)),
    (Family::Cpp, "stopAtConnect", Fate::Drop(MI)),
    (Family::Cpp, "pipeTransport", Fate::Refuse("runs a command of the project's as the debugger's transport; agentdap never does")),
    (Family::Cpp, "debugServerPath", Fate::Refuse("makes cppdbg start a gdbserver of the project's choosing; agentdap never does")),
    (Family::Cpp, "miDebuggerServerAddress", Fate::Refuse("connects gdb to a gdbserver, which lldb-dap does not")),
    (Family::Cpp, "coreDumpPath", Fate::Refuse("opens a core dump: use attach {core, program}")),
];

/// Reads one configuration (`conf`, an entry of `configurations`) for this machine.
pub fn convert(conf: &Map<String, Value>, facts: &Facts<'_>, files: &dyn Files) -> Result<Converted, Refusal> {
    let ty = match conf.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return Err(Refusal::new("type", "is not a string")),
        None => return Err(Refusal::new("type", "is missing")),
    };
    let kind = recipe_of(ty).ok_or_else(|| {
        Refusal::new(
            "type",
            format!("`{ty}` is not a debug type agentdap runs (debugpy, python, node, pwa-node, lldb-dap, lldb (CodeLLDB), go, cppdbg, cppvsdbg)"),
        )
    })?;
    let attach = match conf.get("request").and_then(Value::as_str) {
        Some("launch") => false,
        Some("attach") => true,
        _ => return Err(Refusal::new("request", "must be `launch` or `attach`")),
    };
    let family = family_of(ty);
    let mut map = conf.clone();
    // VS Code merges the platform's own object over the configuration (launch.json's `linux`).
    if let Some(Value::Object(linux)) = map.remove("linux") {
        map.extend(linux);
    }
    for key in ["name", "type", "request", "windows", "osx"] {
        map.remove(key);
    }
    let mut out = Converted { adapter: kind.name(), ..Converted::default() };
    for (fam, key, fate) in FIELDS {
        if (*fam != Family::Any && *fam != family) || !map.contains_key(*key) {
            continue;
        }
        match fate {
            Fate::Refuse(why) => return Err(Refusal::new(*key, *why)),
            Fate::Drop(why) => out.notes.push(format!("launch.json `{key}` not used: it {why}")),
            Fate::Ignore => {}
        }
        map.remove(*key);
    }
    let mut value = Value::Object(map);
    vars::substitute_all(&mut value, facts, "")
        .map_err(|(at, u)| Refusal::new(u.variable, format!("(in `{at}`) {}", u.why)))?;
    let Value::Object(mut map) = value else { return Err(Refusal::new("(entry)", "is not an object")) };
    let workspace = facts.workspace.to_string_lossy().into_owned();
    let absolute = |key: &str, v: Value| match v {
        Value::String(s) => Ok(resolve_path(&s, Some(&workspace)).to_string_lossy().into_owned()),
        _ => Err(Refusal::new(key, "is not a string")),
    };
    if !attach {
        out.program = map.remove("program").map(|v| absolute("program", v)).transpose()?;
    }
    out.cwd = map.remove("cwd").map(|v| absolute("cwd", v)).transpose()?;
    if let Some(v) = map.remove("args") {
        out.args = strings("args", v)?;
    }
    if let Some(v) = map.remove("envFile") {
        let path = absolute("envFile", v)?;
        read_env_file(Path::new(&path), files, &mut out)?;
    }
    if let Some(v) = map.remove("env") {
        env_into("env", v, &mut out.env)?;
    }
    if family == Family::Cpp {
        if let Some(v) = map.remove("environment") {
            environment_into(v, &mut out.env)?;
        }
    }
    let entry_key = if family == Family::Cpp { "stopAtEntry" } else { "stopOnEntry" };
    if let Some(v) = map.remove(entry_key) {
        out.stop_on_entry = Some(v.as_bool().ok_or_else(|| Refusal::new(entry_key, "is not true or false"))?);
    }
    if let Some(v) = map.remove("console") {
        out.console = console(v, kind, &mut out.notes)?;
    }
    // VS Code Go resolves `mode: auto` itself (a `_test.go` program → test, else debug) and never
    // sends it; Delve 1.20.2 knows no such mode. Left out, agentdap's Delve recipe picks the mode
    // from the program as for any launch.
    if family == Family::Go && map.get("mode").and_then(Value::as_str) == Some("auto") {
        map.remove("mode");
    }
    if attach {
        out.attach = Some(target(&mut map, family)?);
    }
    out.adapter_args = map;
    Ok(out)
}

/// `args` as strings (numbers and booleans as their JSON text).
fn strings(key: &str, v: Value) -> Result<Vec<String>, Refusal> {
    let Value::Array(items) = v else {
        return Err(Refusal::new(key, "is one string (debugpy hands it to a shell); give an array of arguments"));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s),
            Value::Number(_) | Value::Bool(_) => Ok(item.to_string()),
            _ => Err(Refusal::new(format!("{key}[{i}]"), "is not a string")),
        })
        .collect()
}

/// `env` as an object (a string sets, `null` removes, a number or boolean sets its text), or
/// lldb-dap's array of `NAME=value` strings.
fn env_into(key: &str, v: Value, env: &mut Map<String, Value>) -> Result<(), Refusal> {
    match v {
        Value::Object(map) => {
            for (name, value) in map {
                let value = match value {
                    Value::String(_) | Value::Null => value,
                    Value::Number(_) | Value::Bool(_) => Value::String(value.to_string()),
                    _ => return Err(Refusal::new(format!("{key}.{name}"), "is not a string")),
                };
                env.insert(name, value);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.into_iter().enumerate() {
                let pair = item.as_str().and_then(|s| s.split_once('='));
                let Some((name, value)) = pair else {
                    return Err(Refusal::new(format!("{key}[{i}]"), "is not a `NAME=value` string"));
                };
                env.insert(name.to_owned(), value.into());
            }
        }
        _ => return Err(Refusal::new(key, "is not an object of variables")),
    }
    Ok(())
}

/// cppdbg's `environment: [{name, value}]`.
fn environment_into(v: Value, env: &mut Map<String, Value>) -> Result<(), Refusal> {
    let Value::Array(items) = v else { return Err(Refusal::new("environment", "is not an array of {name, value}")) };
    for (i, item) in items.iter().enumerate() {
        let name = item.get("name").and_then(Value::as_str);
        let value = item.get("value").and_then(Value::as_str);
        let (Some(name), Some(value)) = (name, value) else {
            return Err(Refusal::new(format!("environment[{i}]"), "is not {name, value} with two strings"));
        };
        env.insert(name.to_owned(), value.into());
    }
    Ok(())
}

/// `console`: VS Code's `internalConsole` is agentdap's `internal`; a terminal is agentdap's
/// `terminal` where the recipe can run the program in one, else left out with a note (the
/// output still arrives).
fn console(v: Value, kind: AdapterKind, notes: &mut Vec<String>) -> Result<Option<String>, Refusal> {
    match v.as_str() {
        Some("internalConsole") => Ok(Some("internal".into())),
        Some(t @ ("integratedTerminal" | "externalTerminal")) => {
            if kind.terminal_launch().is_some() {
                return Ok(Some("terminal".into()));
            }
            notes.push(format!(
                "launch.json `console: {t}` not used: {} runs the program without a terminal here; its output still arrives",
                kind.name()
            ));
            Ok(None)
        }
        _ => Err(Refusal::new("console", "must be internalConsole, integratedTerminal or externalTerminal")),
    }
}

/// An attach configuration's target: `processId` (or lldb-dap's `pid`), else `connect {host,
/// port}`, else `port` with `host` or `address`. Go's `mode` stays for Delve.
fn target(map: &mut Map<String, Value>, family: Family) -> Result<Target, Refusal> {
    let pid_key = if family == Family::LldbDap && map.contains_key("pid") { "pid" } else { "processId" };
    if let Some(v) = map.remove(pid_key) {
        let pid = match &v {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        let pid = pid.filter(|p| *p > 0).ok_or_else(|| Refusal::new(pid_key, "is not a process id"))?;
        return Ok(Target { pid: Some(pid), connect: None });
    }
    let port_of = |v: Option<&Value>, key: &str| -> Result<u16, Refusal> {
        let n = match v {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        n.and_then(|n| u16::try_from(n).ok()).filter(|p| *p != 0).ok_or_else(|| Refusal::new(key, "is not a port"))
    };
    if let Some(connect) = map.remove("connect") {
        let port = port_of(connect.get("port"), "connect.port")?;
        let host = connect.get("host").and_then(Value::as_str).map(str::to_owned);
        return Ok(Target { pid: None, connect: Some(ConnectArg { host, port }) });
    }
    if map.contains_key("port") {
        let port = port_of(map.remove("port").as_ref(), "port")?;
        let host = map.remove("host").or_else(|| map.remove("address"));
        let host = host.and_then(|h| h.as_str().map(str::to_owned));
        return Ok(Target { pid: None, connect: Some(ConnectArg { host, port }) });
    }
    Err(Refusal::new("processId", "is missing: an attach configuration needs `processId`, `connect` or `port`"))
}

/// An `envFile`'s `NAME=value` lines under `out.env` (`#` comments, `export `, quoted values;
/// a double-quoted one with `\n` escapes). A missing file is a note, as VS Code's Python
/// extension only warns about it.
fn read_env_file(path: &Path, files: &dyn Files, out: &mut Converted) -> Result<(), Refusal> {
    let bytes = match files.read_bounded(path, LAUNCH_JSON_CAP) {
        Ok(b) => b,
        Err(crate::session::files::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            out.notes
                .push(format!("launch.json `envFile` {} does not exist; nothing was read from it", path.display()));
            return Ok(());
        }
        Err(e) => return Err(Refusal::new("envFile", format!("{} cannot be read ({e:?})", path.display()))),
    };
    for line in String::from_utf8_lossy(&bytes).lines() {
        let line = line.trim();
        let line = line.strip_prefix("export ").unwrap_or(line);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, value)) = line.split_once('=') else { continue };
        out.env.insert(name.trim().to_owned(), dotenv_value(value.trim()).into());
    }
    Ok(())
}

/// One `.env` value: `"…"` with `\n`, `\"` and `\\` escapes, `'…'` as written, else up to a
/// ` #` comment.
pub(super) fn dotenv_value(v: &str) -> String {
    if let Some(inner) = v.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match (c, chars.clone().next()) {
                ('\\', Some('n')) => {
                    out.push('\n');
                    chars.next();
                }
                ('\\', Some(e @ ('"' | '\\'))) => {
                    out.push(e);
                    chars.next();
                }
                _ => out.push(c),
            }
        }
        return out;
    }
    if let Some(inner) = v.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return inner.to_owned();
    }
    v.split(" #").next().unwrap_or(v).trim_end().to_owned()
}
