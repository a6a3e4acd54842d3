//! From a `launch` call to an [`AdapterPlan`]: pick the adapter (a custom one from the config
//! file, else a built-in recipe), resolve it on this host, and build the complete DAP `launch`
//! arguments (recipe or config defaults < agentdap's < `adapter_args`).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::files::Files;
use super::{AdapterPlan, ErrorCode, LaunchArgs, ToolResult};
use crate::config::{apply_override, command_of, custom_command, custom_transport, Config, CustomAdapter};
use crate::dap::adapters::{
    self, AdapterError, AdapterKind, AttachEndpoint, Quirks, ResolveInput, RuntimeQuirks, Transport,
};
use crate::dap::command::AdapterCommand;

mod jsonc;
pub mod launch_json;
pub mod test_id;
mod vars;

/// Keys of `adapter_args` that configure agentdap's choice of adapter, not the DAP arguments.
pub(super) const RECIPE_KEYS: &[&str] = &["python"];

/// `adapter_args` without [`RECIPE_KEYS`]: what goes into the DAP `launch`/`attach` arguments.
pub(super) fn dap_adapter_args(adapter_args: &Map<String, Value>) -> Map<String, Value> {
    adapter_args
        .iter()
        .filter(|(k, _)| !RECIPE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Builds the plan for `args`. `has_breakpoints` counts breakpoints already waiting for this
/// launch, which turn the `stop_on_entry` default off (README § Tools).
///
/// Custom adapters in `config` are chosen by name first, then by their declared extensions
/// (which win over the built-in inference); otherwise the built-in recipes apply, each with the
/// config entry overriding it merged in (`config::apply_override`; an override's extensions choose
/// its recipe).
///
/// Errors (as tool results): `invalid_argument` (no such program, unknown adapter, adapter not
/// inferable), `adapter_not_found` (with the install command). Files and `/proc` are read
/// through `files` only.
pub fn launch(
    args: &LaunchArgs,
    has_breakpoints: bool,
    config: &Config,
    files: &dyn Files,
) -> Result<AdapterPlan, ToolResult> {
    let cwd = args.cwd.as_deref().map(|c| resolve_path(c, None));
    let program = resolve_path(&args.program, args.cwd.as_deref());
    if !files.exists(&program) {
        return Err(ToolResult::error(
            ErrorCode::InvalidArgument,
            format!(
                "program {} does not exist; pass an existing path (relative paths are taken against cwd).",
                program.display()
            ),
        ));
    }
    if let Some(dir) = &cwd {
        if !files.is_dir(dir) {
            return Err(ToolResult::error(
                ErrorCode::InvalidArgument,
                format!("cwd {} is not a directory.", dir.display()),
            ));
        }
    }
    let program_str = program.to_string_lossy().into_owned();
    let (custom, extension_kind) = match args.adapter.as_deref() {
        Some(name) => (config.by_name(name), None),
        None => match config.by_program(&program_str) {
            Some((name, entry)) => match AdapterKind::from_name(name) {
                Some(kind) => (None, Some(kind)),
                None => (Some((name, entry)), None),
            },
            None => (None, None),
        },
    };
    let stop_on_entry = args.stop_on_entry.unwrap_or(!has_breakpoints && args.breakpoints.is_empty());
    let terminal = match args.console.as_deref() {
        None | Some("internal") => false,
        Some("terminal") => true,
        Some(other) => {
            let msg = format!("console must be `internal` or `terminal`, not `{other}`.");
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
    };
    if let Some((name, adapter)) = custom {
        if terminal {
            return Err(ToolResult::error(
                ErrorCode::Unsupported,
                format!(
                    "agentdap does not know how the custom adapter `{name}` asks for a terminal; pass its own setting in adapter_args (e.g. console: integratedTerminal): agentdap answers its runInTerminal either way."
                ),
            ));
        }
        return Ok(custom_plan(name, adapter, args, &program_str, cwd.as_deref(), stop_on_entry));
    }
    let kind = match extension_kind {
        Some(kind) => kind,
        None => adapters::select(args.adapter.as_deref(), Some(&program_str)).map_err(|e| tool_error(e, config))?,
    };
    let terminal_arguments = match (terminal, kind.terminal_launch()) {
        (false, _) => None,
        (true, Some(t)) => {
            if let Some(why) = t.attaches.then(|| terminal_ptrace_refused(files)).flatten() {
                return Err(ToolResult::error(ErrorCode::Unsupported, format!("{}: {why}.", kind.name())));
            }
            Some(t.arguments)
        }
        (true, None) => {
            return Err(ToolResult::error(
                ErrorCode::Unsupported,
                format!(
                    "{} cannot run the program in a terminal (no runInTerminal); launch with console `internal`.",
                    kind.name()
                ),
            ))
        }
    };
    let adapter_args = Value::Object(args.adapter_args.clone());
    let input =
        ResolveInput { adapter_args: Some(&adapter_args), cwd: cwd.as_deref(), js_debug: config.js_debug.as_deref() };
    let entry = config.override_of(kind);
    let mut recipe =
        adapters::recipe_with_command(kind, Some(&program), input, command_of(entry), files.adapter_host())
            .map_err(|e| tool_error(e, config))?;
    if let Some(entry) = entry {
        apply_override(&mut recipe, entry);
    }
    let runtime = kind.runtime_quirks();
    // What the adapter runs may be built from what the agent named (a `.csproj` → its `.dll`).
    let built = kind
        .launch_program(&program, files.adapter_host())
        .map_err(|e| ToolResult::error(ErrorCode::InvalidArgument, format!("{}: {e}.", kind.name())))?;
    let program_str = match &built {
        Some(built) => {
            recipe.notes.push(format!("program: {} (built from {})", built.display(), program.display()));
            built.to_string_lossy().into_owned()
        }
        None => program_str,
    };
    // "Entry" of a native or Go program is its `main` (README § Native and Go programs): a
    // temporary function breakpoint set in the configuration phase, not the adapter's stop in the
    // loader.
    let entry_function = runtime.entry_function.filter(|_| stop_on_entry && !args.no_debug);
    let adapter_stop_on_entry = stop_on_entry && entry_function.is_none();
    let ours =
        our_arguments(args, &program_str, cwd.as_deref(), recipe.quirks.stop_on_entry_key, adapter_stop_on_entry);
    let defaults = adapters::merge_arguments(&recipe.launch_defaults, terminal_arguments.as_ref());
    let mut launch = adapters::merge_arguments(&defaults, Some(&Value::Object(ours)));
    let mut scratch_dir = None;
    if let Some((key, file)) = runtime.build_output.filter(|(key, _)| !args.adapter_args.contains_key(*key)) {
        // The built binary goes into a directory agentdap owns and removes with the session,
        // never into the user's tree (where a killed adapter would leave it).
        let dir = files.make_scratch_dir().map_err(|e| {
            ToolResult::error(
                ErrorCode::AdapterError,
                format!("cannot create a temporary directory for the build: {e}"),
            )
        })?;
        launch[key] = dir.join(file).to_string_lossy().into_owned().into();
        scratch_dir = Some(dir);
    }
    let extra = dap_adapter_args(&args.adapter_args);
    launch = adapters::merge_arguments(&launch, Some(&Value::Object(extra)));

    let mut command = recipe.command;
    if runtime.program_on_command_line {
        program_on_command_line(&mut command, &program_str, args, cwd.as_deref());
    }
    Ok(AdapterPlan {
        name: recipe.name.to_owned(),
        kind: Some(kind),
        quirks: recipe.quirks,
        runtime,
        transport: recipe.transport,
        entry_function,
        scratch_dir,
        command,
        request: "launch",
        launch_arguments: launch,
        connect: None,
        notes: recipe.notes,
    })
}

/// An adapter that runs the program itself from its command line
/// (`RuntimeQuirks::program_on_command_line`, rdbg: `… -- <program> <args>`): the program and its
/// arguments go last, the process runs in the launch `cwd` with the launch `env` (a string is
/// set, `null` removes, another value is set as its JSON text).
fn program_on_command_line(command: &mut AdapterCommand, program: &str, args: &LaunchArgs, cwd: Option<&Path>) {
    command.args.push(program.into());
    command.args.extend(args.args.iter().map(Into::into));
    if let Some(dir) = cwd {
        command.cwd = Some(dir.to_path_buf());
    }
    for (key, value) in &args.env {
        let value = match value {
            Value::Null => None,
            Value::String(s) => Some(s.into()),
            other => Some(other.to_string().into()),
        };
        command.env.push((key.into(), value));
    }
}

/// The DAP `launch` arguments agentdap itself sets from the tool's arguments.
fn our_arguments(
    args: &LaunchArgs,
    program: &str,
    cwd: Option<&Path>,
    stop_on_entry_key: &str,
    stop_on_entry: bool,
) -> Map<String, Value> {
    let mut ours = Map::new();
    ours.insert("request".into(), "launch".into());
    ours.insert("program".into(), program.into());
    ours.insert("args".into(), json!(args.args));
    ours.insert(stop_on_entry_key.into(), stop_on_entry.into());
    if args.no_debug {
        ours.insert("noDebug".into(), true.into());
    }
    if let Some(dir) = cwd {
        ours.insert("cwd".into(), dir.to_string_lossy().into_owned().into());
    }
    if !args.env.is_empty() {
        ours.insert("env".into(), Value::Object(args.env.clone()));
    }
    ours
}

/// A plan for a custom adapter: its command as configured, plain-DAP quirks, its
/// `launch_defaults` under agentdap's arguments, `adapter_args` over both.
fn custom_plan(
    name: &str,
    adapter: &CustomAdapter,
    args: &LaunchArgs,
    program: &str,
    cwd: Option<&Path>,
    stop_on_entry: bool,
) -> AdapterPlan {
    let quirks = Quirks::STANDARD;
    let command = custom_command(adapter);
    let transport = custom_transport(adapter);
    let ours = our_arguments(args, program, cwd, quirks.stop_on_entry_key, stop_on_entry);
    let defaults = Value::Object(adapter.launch_defaults.clone());
    let mut launch = adapters::merge_arguments(&defaults, Some(&Value::Object(ours)));
    launch = adapters::merge_arguments(&launch, Some(&Value::Object(args.adapter_args.clone())));
    AdapterPlan {
        name: name.to_owned(),
        kind: None,
        quirks,
        runtime: RuntimeQuirks::STANDARD,
        transport,
        entry_function: None,
        scratch_dir: None,
        command,
        request: "launch",
        launch_arguments: launch,
        connect: None,
        notes: Vec::new(),
    }
}

/// Explains an adapter that exited during start-up, from its stderr tail, when the recipe knows
/// the failure (debugpy not installed, a gdb without DAP → `adapter_not_found` with the install
/// command: `AdapterKind::explain_early_exit`).
pub fn explain_early_exit(plan: &AdapterPlan, stderr_tail: &str) -> Option<String> {
    plan.kind?.explain_early_exit(Path::new(&plan.command.program), stderr_tail).map(|e| e.to_string())
}

pub(super) fn tool_error(e: AdapterError, config: &Config) -> ToolResult {
    let code = match e {
        AdapterError::NotFound { .. } => ErrorCode::AdapterNotFound,
        _ => ErrorCode::InvalidArgument,
    };
    let mut msg = format!("{e}");
    let custom = config.names();
    if !custom.is_empty() && matches!(e, AdapterError::Unknown { .. } | AdapterError::NotInferred { .. }) {
        msg.push_str(&format!("; custom adapters from the config file: {}", custom.join(", ")));
    }
    ToolResult::error(code, format!("{msg}."))
}

/// `path` made absolute: a relative one is taken against `base` (itself taken against agentdap's
/// working directory when relative), else against agentdap's working directory. What `program`,
/// `cwd` and breakpoint paths of `launch`/`attach`/`set_breakpoints` all mean.
pub fn resolve_path(path: &str, base: Option<&str>) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let base = match base {
        Some(b) => resolve_path(b, None),
        None => match std::env::current_dir() {
            Ok(d) => d,
            Err(_) => return p.to_path_buf(),
        },
    };
    base.join(p)
}

/// What an attach by pid needs from the kernel, named in errors (`attach {pid}`).
pub const PTRACE_HINT: &str = "attaching by pid needs ptrace permission: /proc/sys/kernel/yama/ptrace_scope must be 0 \
(or agentdap needs CAP_SYS_PTRACE, which containers drop by default: `--cap-add SYS_PTRACE`); debugpy also needs gdb";

/// `connect` of the `attach` tool.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectArg {
    /// An IP literal or `localhost` (default `127.0.0.1`); never resolved through DNS.
    pub host: Option<String>,
    pub port: u16,
}

/// Arguments of the `attach` tool (README § Attach to a running program).
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachArgs {
    pub pid: Option<i64>,
    pub connect: Option<ConnectArg>,
    pub adapter: Option<String>,
    #[serde(default)]
    pub adapter_args: Map<String, Value>,
    #[serde(default)]
    pub breakpoints: Vec<super::LaunchBreakpoint>,
    pub exception_filters: Option<Vec<String>>,
    pub wait_ms: Option<u64>,
    /// A core file to read post-mortem, with `program` (`session::postmortem`).
    pub core: Option<String>,
    pub program: Option<String>,
}

/// Builds the plan for an `attach` call, and what the session starts with.
///
/// `connect`: DAP goes straight to the server listening there (`python -m debugpy --listen`):
/// nothing is spawned. `pid`: the adapter is spawned as for a launch and sent
/// `attach {<pid key>: pid}`. An adapter whose `connect` names the debuggee's own endpoint
/// ([`AttachEndpoint::DebuggeeEndpoint`], js-debug and `node --inspect`) is spawned for both and
/// sent the address (`attach {address, port}`); for `pid`, the one the process's command line
/// names, else the default port on 127.0.0.1 (the session sends the process `pid_signal` first).
/// Either way the DAP `attach` arguments are the recipe's attach defaults (custom adapters:
/// their `launch_defaults`) < agentdap's < `adapter_args`. `core` and `program` are
/// `session::postmortem`'s (the MCP handler sends them there).
///
/// Errors (as tool results): `invalid_argument` (neither or both of `pid`/`connect`, a host
/// that is not an IP literal or `localhost`, no such process, unknown adapter),
/// `unsupported` (ptrace not permitted: [`PTRACE_HINT`]), `adapter_not_found`. Files and
/// `/proc` are read through `files` only.
pub fn attach(
    args: &AttachArgs,
    config: &Config,
    files: &dyn Files,
) -> Result<(AdapterPlan, super::AttachStart), ToolResult> {
    let invalid = |msg: String| ToolResult::error(ErrorCode::InvalidArgument, msg);
    let name = args.adapter.as_deref().unwrap_or("debugpy");
    let builtin = if config.by_name(name).is_none() { adapters::select(Some(name), None).ok() } else { None };
    let endpoint = builtin.map_or(AttachEndpoint::DapServer, |k| k.quirks().attach_endpoint);
    let mut signal_first = None;
    let (target, mut ours, connect) = match (&args.connect, args.pid) {
        (Some(c), None) => {
            let host = c.host.as_deref().unwrap_or("127.0.0.1");
            let ip = parse_host(host).ok_or_else(|| {
                invalid(format!("connect.host `{host}` is not an IP address or `localhost` (agentdap does no DNS lookups)."))
            })?;
            if c.port == 0 {
                return Err(invalid("connect.port must be the port the debug server listens on (1-65535).".into()));
            }
            let addr = std::net::SocketAddr::new(ip, c.port);
            let mut ours = Map::new();
            match endpoint {
                AttachEndpoint::DapServer => {
                    ours.insert("connect".into(), json!({ "host": ip.to_string(), "port": c.port }));
                    (addr.to_string(), ours, Some(addr))
                }
                AttachEndpoint::DebuggeeEndpoint { host_key, port_key, .. } => {
                    ours.insert(host_key.into(), ip.to_string().into());
                    ours.insert(port_key.into(), c.port.into());
                    (addr.to_string(), ours, None)
                }
            }
        }
        (None, Some(pid)) => {
            if pid <= 0 || !files.process_exists(pid) {
                return Err(invalid(format!("there is no process {pid}; pass the pid of a running process.")));
            }
            if let Some(kind) = builtin {
                if let Some(why) = wrong_process(kind, &ProcessFacts::read(pid, files)) {
                    return Err(invalid(format!("{why}.")));
                }
            }
            let mut ours = Map::new();
            if let AttachEndpoint::DebuggeeEndpoint { host_key, port_key, default_port, pid_signal, .. } = endpoint {
                // No ptrace: the runtime opens its own endpoint (after `pid_signal`, unless its
                // command line opened it already).
                let cmdline = files.process_cmdline(pid, CMDLINE_CAP).unwrap_or_default();
                signal_first = pid_signal.filter(|_| !endpoint.opened_on_command_line(&cmdline));
                let (host, port) = endpoint.on_command_line(&cmdline).unwrap_or((None, default_port));
                let host = host.filter(|h| !h.is_unspecified()).unwrap_or(std::net::Ipv4Addr::LOCALHOST.into());
                ours.insert(host_key.into(), host.to_string().into());
                ours.insert(port_key.into(), port.into());
            } else if let Some(why) = ptrace_refused(files) {
                return Err(ToolResult::error(ErrorCode::Unsupported, format!("cannot attach to pid {pid}: {why}.")));
            }
            (format!("pid {pid}"), ours, None)
        }
        _ => {
            return Err(invalid(
                "pass exactly one of `pid` (a running process), `connect {host, port}` (a debug server listening, e.g. `python -m debugpy --listen 5678`, or for adapter node a `node --inspect` process), or `core` with `program` (a core file).".into(),
            ))
        }
    };
    ours.insert("request".into(), "attach".into());
    let (mut plan, defaults) = match config.by_name(name) {
        Some((name, adapter)) => {
            let plan = AdapterPlan {
                name: name.to_owned(),
                kind: None,
                quirks: Quirks::STANDARD,
                runtime: RuntimeQuirks::STANDARD,
                transport: custom_transport(adapter),
                entry_function: None,
                scratch_dir: None,
                command: custom_command(adapter),
                request: "attach",
                launch_arguments: Value::Null,
                connect,
                notes: Vec::new(),
            };
            (plan, Value::Object(adapter.launch_defaults.clone()))
        }
        None => {
            let kind = adapters::select(Some(name), None).map_err(|e| tool_error(e, config))?;
            let (command, transport, quirks) = if connect.is_some() {
                // Nothing to spawn: the server is the adapter.
                (AdapterCommand::new(kind.name()), Transport::Stdio, kind.quirks())
            } else {
                let adapter_args = Value::Object(args.adapter_args.clone());
                let input =
                    ResolveInput { adapter_args: Some(&adapter_args), cwd: None, js_debug: config.js_debug.as_deref() };
                let entry = config.override_of(kind);
                let mut recipe =
                    adapters::recipe_with_command(kind, None, input, command_of(entry), files.adapter_host())
                        .map_err(|e| tool_error(e, config))?;
                if let Some(entry) = entry {
                    apply_override(&mut recipe, entry);
                }
                (recipe.command, recipe.transport, recipe.quirks)
            };
            let plan = AdapterPlan {
                name: kind.name().to_owned(),
                kind: Some(kind),
                quirks,
                runtime: kind.runtime_quirks(),
                transport,
                entry_function: None,
                scratch_dir: None,
                command,
                request: "attach",
                launch_arguments: Value::Null,
                connect,
                notes: Vec::new(),
            };
            (plan, kind.attach_defaults())
        }
    };
    if let (Some(pid), AttachEndpoint::DapServer) = (args.pid, plan.quirks.attach_endpoint) {
        ours.insert(plan.quirks.attach_pid_key.into(), pid.into());
    }
    let extra: Map<String, Value> = args
        .adapter_args
        .iter()
        .filter(|(k, _)| plan.kind.is_none() || !RECIPE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let merged = adapters::merge_arguments(&defaults, Some(&Value::Object(ours)));
    plan.launch_arguments = adapters::merge_arguments(&merged, Some(&Value::Object(extra)));
    let start = super::AttachStart {
        target,
        pid: args.pid,
        connect_host: args.connect.as_ref().map(|c| c.host.clone().unwrap_or_else(|| "127.0.0.1".into())),
        breakpoints: args.breakpoints.clone(),
        exception_filters: args.exception_filters.clone(),
        wait_ms: args.wait_ms,
        signal_first,
        core: None,
    };
    Ok((plan, start))
}

/// Bytes of `/proc/<pid>/maps` read to find a Python runtime in a process whose executable is
/// not named python (an embedding program: uwsgi, blender, …).
const MAPS_CAP: usize = 4 << 20;

/// Bytes of `/proc/<pid>/cmdline` read for the flags that name a debuggee's endpoint (they come
/// before the script).
const CMDLINE_CAP: usize = 16 * 1024;

/// What `/proc` says a process runs, read before an attach by pid (local, bounded reads).
#[derive(Debug, Default)]
pub struct ProcessFacts {
    pub pid: i64,
    /// `/proc/<pid>/exe`; `None` when unreadable (another user's process, a kernel thread).
    pub exe: Option<PathBuf>,
    /// The process is a zombie (`Z` in `/proc/<pid>/stat`): it has exited.
    pub zombie: bool,
    /// A kernel thread (`/proc/<pid>/cmdline` empty and no executable).
    pub kernel_thread: bool,
    /// Its memory maps name a `libpython` (read only when the executable's name is not python).
    pub loads_libpython: bool,
    /// Its executable is a Go program (`elf::probe`).
    pub go: bool,
}

impl ProcessFacts {
    /// Reads the facts of `pid` from `/proc` through `files` (each read small and bounded;
    /// nothing blocks).
    pub fn read(pid: i64, files: &dyn Files) -> ProcessFacts {
        let exe = files.process_exe(pid);
        let zombie = files.process_stat(pid).is_some_and(|st| st.state == b'Z');
        // One byte tells an empty command line (a kernel thread's) from any other.
        let kernel_thread = exe.is_none() && files.process_cmdline(pid, 1).is_some_and(|c| c.is_empty()) && !zombie;
        let named_python = exe.as_deref().is_some_and(is_python_name);
        let maps = PathBuf::from(format!("/proc/{pid}/maps"));
        let loads_libpython = !named_python
            && exe.is_some()
            && files.adapter_host().read_range(&maps, 0, MAPS_CAP).is_some_and(|m| {
                String::from_utf8_lossy(&m)
                    .lines()
                    .any(|l| l.rsplit('/').next().is_some_and(|f| f.starts_with("libpython")))
            });
        let go = exe.as_ref().and_then(|e| adapters::elf::probe(e, files.adapter_host())).is_some_and(|f| f.go);
        ProcessFacts { pid, exe, zombie, kernel_thread, loads_libpython, go }
    }
}

/// Whether an executable's name is a Python interpreter's (`python`, `python3.11`, `pypy3`).
fn is_python_name(exe: &Path) -> bool {
    let name = exe.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    name.starts_with("python") || name.starts_with("pypy")
}

/// Whether an executable's name is Node.js's (`node`, `nodejs`, `node20`).
fn is_node_name(exe: &Path) -> bool {
    exe.file_name().is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().starts_with("node"))
}

/// Why `kind` cannot attach to the process `facts` describe, naming what it runs and which
/// adapter can; `None` when it may (or agentdap cannot tell: an unreadable executable).
/// debugpy injects into a Python runtime (debugpy 1.8.22 `attach {processId}` runs gdb and
/// hangs until its timeout when there is none); Delve attaches only to Go programs; lldb-dap
/// attaches to any native process; js-debug's attach by pid signals the process (`SIGUSR1`,
/// which opens Node's inspector and ends most other programs), so only a `node` is accepted.
pub fn wrong_process(kind: AdapterKind, facts: &ProcessFacts) -> Option<String> {
    let pid = facts.pid;
    if facts.zombie {
        return Some(format!(
            "process {pid} has exited (a zombie waiting for its parent); there is nothing to attach to"
        ));
    }
    if facts.kernel_thread {
        return Some(format!("process {pid} is a kernel thread; no debugger attaches to it"));
    }
    let exe = facts.exe.as_ref()?;
    let native = if facts.go {
        "for a Go program use adapter: delve"
    } else if is_node_name(exe) {
        "for Node.js use adapter: node"
    } else {
        "for native processes use adapter: lldb"
    };
    match kind {
        AdapterKind::Debugpy if !is_python_name(exe) && !facts.loads_libpython => Some(format!(
            "pid {pid} runs {}, not Python; attach by pid works for Python processes (debugpy); {native}",
            exe.display()
        )),
        AdapterKind::Delve if !facts.go => {
            let other =
                if is_python_name(exe) || facts.loads_libpython { "for Python use adapter: debugpy" } else { native };
            Some(format!("pid {pid} runs {}, not a Go program; Delve attaches to Go programs; {other}", exe.display()))
        }
        AdapterKind::JsDebug if !is_node_name(exe) => {
            let other =
                if is_python_name(exe) || facts.loads_libpython { "for Python use adapter: debugpy" } else { native };
            Some(format!(
                "pid {pid} runs {}, not Node.js; attach by pid sends node SIGUSR1 to open its inspector, which ends most other programs; {other}",
                exe.display()
            ))
        }
        _ => None,
    }
}

/// An IP literal, or `localhost` (127.0.0.1). Never a DNS lookup (it would block the loop).
pub fn parse_host(host: &str) -> Option<std::net::IpAddr> {
    if host.eq_ignore_ascii_case("localhost") {
        return Some(std::net::Ipv4Addr::LOCALHOST.into());
    }
    host.trim_start_matches('[').trim_end_matches(']').parse().ok()
}

/// Why the kernel will refuse ptrace to a process that is not agentdap's descendant, if it
/// will: Yama's `ptrace_scope` ≥ 1 without `CAP_SYS_PTRACE` (3: never). Two small `/proc` reads.
pub fn ptrace_refused(files: &dyn Files) -> Option<String> {
    let scope = files.ptrace_scope()?;
    if !yama_refuses(scope, files.has_cap_sys_ptrace(), false) {
        return None;
    }
    Some(format!(
        "the kernel does not let agentdap's debugger ptrace a process it did not start (/proc/sys/kernel/yama/ptrace_scope is {scope}); {PTRACE_HINT}"
    ))
}

/// Why the kernel will refuse an adapter's attach to the process agentdap started for it
/// (`console: terminal` with an adapter whose launcher declares it with `PR_SET_PTRACER`,
/// which Yama's scope 1 honours), if it will.
pub fn terminal_ptrace_refused(files: &dyn Files) -> Option<String> {
    let scope = files.ptrace_scope()?;
    if !yama_refuses(scope, files.has_cap_sys_ptrace(), true) {
        return None;
    }
    Some(format!(
        "the adapter attaches to the program agentdap starts for it, and /proc/sys/kernel/yama/ptrace_scope is {scope} \
         (2 needs CAP_SYS_PTRACE, 3 forbids it); launch with console `internal`"
    ))
}

/// Whether Yama refuses ptrace to a non-descendant at `scope` (1: unless the target declared
/// the tracer with `PR_SET_PTRACER`; 2: unless `CAP_SYS_PTRACE`; 3: always).
fn yama_refuses(scope: u8, cap_sys_ptrace: bool, declared_tracer: bool) -> bool {
    match scope {
        0 => false,
        1 => !(declared_tracer || cap_sys_ptrace),
        2 => !cap_sys_ptrace,
        _ => true,
    }
}

/// Where a child session's `startDebugging` configuration says to connect (`connect
/// {host, port}`), if agentdap will follow it: a loopback address or `localhost`, an unspecified
/// one (a listener on every interface, reached on loopback), or the host the agent itself
/// named for the root's `attach {connect}`. Anything else is refused: a configuration from
/// an adapter must not send agentdap (and the breakpoints it replays) to another machine.
pub fn child_address(configuration: &Value, agent_host: Option<&str>) -> Result<std::net::SocketAddr, String> {
    let connect = configuration.get("connect").ok_or("its configuration has no `connect` address")?;
    let host = connect.get("host").and_then(Value::as_str).unwrap_or("127.0.0.1");
    let port = connect
        .get("port")
        .and_then(Value::as_u64)
        .and_then(|p| u16::try_from(p).ok())
        .filter(|p| *p != 0)
        .ok_or("its `connect` has no valid port")?;
    let ip = parse_host(host).ok_or_else(|| format!("its `connect` host `{host}` is not an IP address"))?;
    let agent_ip = agent_host.and_then(parse_host);
    let ip = match ip {
        std::net::IpAddr::V4(v4) if v4.is_unspecified() => std::net::Ipv4Addr::LOCALHOST.into(),
        std::net::IpAddr::V6(v6) if v6.is_unspecified() => std::net::Ipv6Addr::LOCALHOST.into(),
        ip if ip.is_loopback() || Some(ip) == agent_ip => ip,
        ip => return Err(format!("its `connect` host {ip} is not on this machine")),
    };
    Ok(std::net::SocketAddr::new(ip, port))
}

#[cfg(test)]
mod attach_tests {
    use super::*;
    use crate::os::files::OsFiles;

    #[test]
    fn child_addresses_stay_on_loopback_or_the_agents_host() {
        let cfg = |host: &str| json!({"connect": {"host": host, "port": 4711}});
        assert_eq!(child_address(&cfg("127.0.0.1"), None), Ok("127.0.0.1:4711".parse().unwrap()));
        assert_eq!(child_address(&cfg("localhost"), None), Ok("127.0.0.1:4711".parse().unwrap()));
        assert_eq!(child_address(&cfg("0.0.0.0"), None), Ok("127.0.0.1:4711".parse().unwrap()));
        assert_eq!(child_address(&cfg("::1"), None), Ok("[::1]:4711".parse().unwrap()));
        assert!(child_address(&cfg("10.1.2.3"), None).is_err());
        assert!(child_address(&cfg("example.com"), None).is_err());
        assert_eq!(child_address(&cfg("10.1.2.3"), Some("10.1.2.3")), Ok("10.1.2.3:4711".parse().unwrap()));
        assert!(child_address(&json!({"name": "x"}), None).is_err());
        assert!(child_address(&json!({"connect": {"host": "127.0.0.1", "port": 0}}), None).is_err());
    }

    #[test]
    fn yama_scopes_decide_who_may_trace() {
        let verdicts: Vec<bool> = [
            (0, false, false),
            (1, false, false),
            (1, false, true),
            (1, true, false),
            (2, false, true),
            (2, true, false),
            (3, true, true),
        ]
        .iter()
        .map(|&(scope, cap, declared)| yama_refuses(scope, cap, declared))
        .collect();
        assert_eq!(verdicts, [false, true, false, false, true, false, true]);
    }

    #[test]
    fn attach_by_pid_names_what_the_process_runs_and_which_adapter_fits() {
        let facts = |exe: &str, go: bool, libpython: bool| ProcessFacts {
            pid: 42,
            exe: Some(exe.into()),
            go,
            loads_libpython: libpython,
            ..ProcessFacts::default()
        };
        let sleep = facts("/usr/bin/sleep", false, false);
        assert_eq!(
            wrong_process(AdapterKind::Debugpy, &sleep).as_deref(),
            Some("pid 42 runs /usr/bin/sleep, not Python; attach by pid works for Python processes (debugpy); for native processes use adapter: lldb")
        );
        assert_eq!(wrong_process(AdapterKind::Lldb, &sleep), None);
        assert_eq!(
            wrong_process(AdapterKind::Delve, &sleep).as_deref(),
            Some("pid 42 runs /usr/bin/sleep, not a Go program; Delve attaches to Go programs; for native processes use adapter: lldb")
        );
        let go = facts("/srv/app", true, false);
        assert!(wrong_process(AdapterKind::Debugpy, &go)
            .is_some_and(|w| w.ends_with("for a Go program use adapter: delve")));
        assert_eq!(wrong_process(AdapterKind::Delve, &go), None);
        assert_eq!(wrong_process(AdapterKind::Debugpy, &facts("/usr/bin/python3.11", false, false)), None);
        assert_eq!(wrong_process(AdapterKind::Debugpy, &facts("/usr/bin/uwsgi", false, true)), None);
        assert!(wrong_process(AdapterKind::Delve, &facts("/usr/bin/python3", false, false))
            .is_some_and(|w| w.ends_with("for Python use adapter: debugpy")));
        // Unreadable (another user's process): agentdap cannot tell, the attach goes ahead.
        assert_eq!(wrong_process(AdapterKind::Debugpy, &ProcessFacts { pid: 42, ..ProcessFacts::default() }), None);
        let zombie = ProcessFacts { pid: 42, zombie: true, ..ProcessFacts::default() };
        assert!(wrong_process(AdapterKind::Lldb, &zombie).is_some_and(|w| w.contains("has exited")));
        let kthread = ProcessFacts { pid: 2, kernel_thread: true, ..ProcessFacts::default() };
        assert!(wrong_process(AdapterKind::Lldb, &kthread).is_some_and(|w| w.contains("kernel thread")));
    }

    #[test]
    fn hosts_are_ip_literals_or_localhost() {
        assert_eq!(parse_host("localhost"), Some("127.0.0.1".parse().unwrap()));
        assert_eq!(parse_host("[::1]"), Some("::1".parse().unwrap()));
        assert_eq!(parse_host("192.168.0.7"), Some("192.168.0.7".parse().unwrap()));
        assert_eq!(parse_host("db.internal"), None);
    }

    #[test]
    fn attach_by_connect_spawns_nothing_and_sends_attach() {
        let args = AttachArgs {
            connect: Some(ConnectArg { host: Some("localhost".into()), port: 5678 }),
            adapter_args: json!({"justMyCode": false}).as_object().cloned().unwrap_or_default(),
            ..AttachArgs::default()
        };
        let (plan, start) = attach(&args, &Config::default(), &OsFiles).unwrap();
        assert_eq!(plan.connect, Some("127.0.0.1:5678".parse().unwrap()));
        assert_eq!(plan.request, "attach");
        assert_eq!(plan.launch_arguments["request"], "attach");
        assert_eq!(plan.launch_arguments["connect"], json!({"host": "127.0.0.1", "port": 5678}));
        assert_eq!(plan.launch_arguments["justMyCode"], false);
        assert_eq!(start.target, "127.0.0.1:5678");
        let both = AttachArgs { pid: Some(1), ..args };
        assert!(attach(&both, &Config::default(), &OsFiles).is_err());
        let dns = AttachArgs {
            connect: Some(ConnectArg { host: Some("db.internal".into()), port: 1 }),
            ..AttachArgs::default()
        };
        let err = attach(&dns, &Config::default(), &OsFiles).err().map(|e| e.text).unwrap_or_default();
        assert!(err.contains("no DNS"), "{err}");
    }
}

#[cfg(test)]
#[path = "plan_node_tests.rs"]
mod node_tests;
