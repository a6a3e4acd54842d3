//! Adapter recipes: one file per adapter, each producing plain data (command, transport, defaults, quirks), plus adapter selection; no process is started here and nothing blocks beyond `stat` calls and small bounded reads (the ELF probe, rustup's settings).
//!
//! Quirks are data fields (`quirks.rs`), read where the behaviour is handled (session
//! choreography, exception filter mapping, output filtering), never `if adapter == "…"` checks.

mod attach;
pub mod codelldb;
mod core_open;
pub mod debugpy;
pub mod delve;
pub mod elf;
pub mod gdb;
pub mod jsdebug;
pub mod lldb;
pub mod netcoredbg;
mod quirks;
pub mod rdbg;
pub mod stack_sampler;
#[cfg(test)]
pub(crate) mod test_host;

use std::ffi::OsString;
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::command::AdapterCommand;
pub use attach::{AttachEndpoint, AttachHelperFailure, DebuggeeSignal, HelperWords};
pub use core_open::CoreOpen;
pub use quirks::{
    parse_exit_report, ChildSessions, DebuggeeOutput, ExitReport, ExpressionOnly, FailureShape, Quirks, RefusedStep,
    RuntimeQuirks, BUILD_LAUNCH_TIMEOUT,
};

/// How agentdap talks DAP to an adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// DAP on the adapter's stdin/stdout.
    Stdio,
    /// DAP over TCP to 127.0.0.1 (Delve, js-debug); the connect is driven by [`crate::dap::tcp`].
    Tcp {
        /// How the port becomes known.
        port: PortDiscovery,
    },
}

/// How a TCP adapter's port is learned; see [`crate::dap::tcp::PortScanner`] and
/// [`crate::dap::tcp::choose_port`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortDiscovery {
    /// The adapter prints a line containing `prefix` followed by `host:port` on stdout or
    /// stderr (Delve: `DAP server listening at: `).
    AnnouncedLine {
        /// The text before `host:port`.
        prefix: &'static str,
    },
    /// agentdap picks the port and passes it on the command line (`config::PORT_PLACEHOLDER` in
    /// the arguments); ready once a connect succeeds (js-debug).
    Chosen,
    /// As [`PortDiscovery::Chosen`], but agentdap connects only once the adapter printed a line
    /// containing `line` on stdout or stderr: rdbg 1.4.0 accepts a connection before its
    /// session exists and then fails it (`uninitialized constant DEBUGGER__::ThreadClient::SESSION`),
    /// and writes `DEBUGGER: wait for debugger connection...` once it is ready.
    ChosenAfterLine {
        /// The text that says the adapter is ready.
        line: &'static str,
    },
}

/// The argument of a TCP adapter's command that the server layer replaces by the port it chose
/// (`PortDiscovery::Chosen`): `config::PORT_PLACEHOLDER`, spelled out here because this layer
/// does not use `config` (`config::tests` keeps the two equal).
pub const PORT_ARG: &str = "{port}";

/// Everything agentdap needs to start and drive one adapter: plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// agentdap's name for the adapter (`debugpy`).
    pub name: &'static str,
    /// The VS Code debug `type` (for the mirror's launch.json snippet).
    pub vscode_type: &'static str,
    /// What to spawn (program, args, env changes, cwd).
    pub command: AdapterCommand,
    /// How DAP flows.
    pub transport: Transport,
    /// Merged under the agent's DAP `launch` arguments (the agent's keys win).
    pub launch_defaults: Value,
    /// Merged under the agent's DAP `attach` arguments.
    pub attach_defaults: Value,
    /// Deviations from plain DAP.
    pub quirks: Quirks,
    /// The shell command that installs the adapter (shown in `adapter_not_found`).
    pub install_command: String,
    /// What the agent must be told about the choice (the project's `.venv` interpreter and
    /// why, or why it was not used), shown with the first result.
    pub notes: Vec<String>,
}

/// The adapters agentdap has recipes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdapterKind {
    /// debugpy (Python).
    Debugpy,
    /// lldb-dap (C, C++, Rust, Swift: native ELF programs).
    Lldb,
    /// Delve (Go), over TCP.
    Delve,
    /// js-debug (JavaScript and TypeScript on Node.js), over TCP; the program is a child session.
    JsDebug,
    /// CodeLLDB (native programs, opt-in only: never inferred), over TCP.
    CodeLldb,
    /// rdbg (Ruby's debug gem), over TCP; the adapter's process is the program.
    Rdbg,
    /// gdb's own DAP interpreter (gdb ≥ 14; native programs when asked, or when no lldb-dap is
    /// found).
    Gdb,
    /// netcoredbg (.NET: C#, F#, VB assemblies).
    Netcoredbg,
}

impl AdapterKind {
    /// Every kind, in the order `doctor` lists them.
    pub const ALL: &'static [AdapterKind] = &[
        AdapterKind::Debugpy,
        AdapterKind::Lldb,
        AdapterKind::Delve,
        AdapterKind::JsDebug,
        AdapterKind::Rdbg,
        AdapterKind::CodeLldb,
        AdapterKind::Gdb,
        AdapterKind::Netcoredbg,
    ];

    /// agentdap's name for it (the `adapter` argument).
    pub fn name(self) -> &'static str {
        match self {
            AdapterKind::Debugpy => debugpy::NAME,
            AdapterKind::Lldb => lldb::NAME,
            AdapterKind::Delve => delve::NAME,
            AdapterKind::JsDebug => jsdebug::NAME,
            AdapterKind::CodeLldb => codelldb::NAME,
            AdapterKind::Rdbg => rdbg::NAME,
            AdapterKind::Gdb => gdb::NAME,
            AdapterKind::Netcoredbg => netcoredbg::NAME,
        }
    }

    /// The VS Code debug `type` (for the mirror's launch.json snippet).
    pub fn vscode_type(self) -> &'static str {
        match self {
            AdapterKind::Debugpy => debugpy::VSCODE_TYPE,
            AdapterKind::Lldb => lldb::VSCODE_TYPE,
            AdapterKind::Delve => delve::VSCODE_TYPE,
            AdapterKind::JsDebug => jsdebug::VSCODE_TYPE,
            AdapterKind::CodeLldb => codelldb::VSCODE_TYPE,
            AdapterKind::Rdbg => rdbg::VSCODE_TYPE,
            AdapterKind::Gdb => gdb::VSCODE_TYPE,
            AdapterKind::Netcoredbg => netcoredbg::VSCODE_TYPE,
        }
    }

    /// The kind named by an `adapter` argument (case-insensitive; `python` means debugpy,
    /// `lldb-dap` lldb, `go`/`dlv` delve, `js-debug`/`js`/`javascript`/`ts`/`typescript` node,
    /// `ruby`/`rb`/`debug` rdbg, `codelldb` or `vscode-lldb` codelldb).
    pub fn from_name(name: &str) -> Option<AdapterKind> {
        match name.to_ascii_lowercase().as_str() {
            "debugpy" | "python" | "py" => Some(AdapterKind::Debugpy),
            "lldb" | "lldb-dap" => Some(AdapterKind::Lldb),
            "delve" | "go" | "dlv" => Some(AdapterKind::Delve),
            "node" | "js-debug" | "js" | "javascript" | "ts" | "typescript" => Some(AdapterKind::JsDebug),
            "codelldb" | "vscode-lldb" => Some(AdapterKind::CodeLldb),
            "rdbg" | "ruby" | "rb" | "debug" => Some(AdapterKind::Rdbg),
            "gdb" => Some(AdapterKind::Gdb),
            "netcoredbg" | "dotnet" | "csharp" | "cs" | "coreclr" => Some(AdapterKind::Netcoredbg),
            _ => None,
        }
    }

    /// The adapter's quirks about entry, exit, output and processes.
    pub fn runtime_quirks(self) -> RuntimeQuirks {
        match self {
            AdapterKind::Debugpy => debugpy::runtime_quirks(),
            AdapterKind::Lldb => lldb::runtime_quirks(),
            AdapterKind::Delve => delve::runtime_quirks(),
            AdapterKind::JsDebug => jsdebug::runtime_quirks(),
            AdapterKind::CodeLldb => codelldb::runtime_quirks(),
            AdapterKind::Rdbg => rdbg::runtime_quirks(),
            AdapterKind::Gdb => gdb::runtime_quirks(),
            AdapterKind::Netcoredbg => netcoredbg::runtime_quirks(),
        }
    }

    /// The adapter's deviations from plain DAP (the same as its resolved recipe's).
    pub fn quirks(self) -> Quirks {
        match self {
            AdapterKind::Debugpy => debugpy::quirks(),
            AdapterKind::Lldb => lldb::quirks(),
            AdapterKind::Delve => delve::quirks(),
            AdapterKind::JsDebug => jsdebug::quirks(),
            AdapterKind::CodeLldb => codelldb::quirks(),
            AdapterKind::Rdbg => rdbg::quirks(),
            AdapterKind::Gdb => gdb::quirks(),
            AdapterKind::Netcoredbg => netcoredbg::quirks(),
        }
    }

    /// The DAP `attach` arguments agentdap sends under the agent's (the same as its recipe's).
    pub fn attach_defaults(self) -> Value {
        match self {
            AdapterKind::Debugpy => debugpy::attach_defaults(),
            AdapterKind::Lldb => lldb::attach_defaults(),
            AdapterKind::Delve => delve::attach_defaults(),
            AdapterKind::JsDebug => jsdebug::attach_defaults(),
            AdapterKind::CodeLldb => codelldb::attach_defaults(),
            AdapterKind::Rdbg => rdbg::attach_defaults(),
            AdapterKind::Gdb => gdb::attach_defaults(),
            AdapterKind::Netcoredbg => netcoredbg::attach_defaults(),
        }
    }

    /// How the adapter runs the program through `runInTerminal` (`launch {console:
    /// "terminal"}`); `None` when it cannot (Delve 1.20.2 has no `console` setting; CodeLLDB 1.11.8
    /// needs its `codelldb-launch` helper for a terminal, which agentdap has not run). js-debug
    /// runs every launched program that way (its launch defaults already say so).
    pub fn terminal_launch(self) -> Option<TerminalLaunch> {
        match self {
            AdapterKind::Debugpy => Some(TerminalLaunch { arguments: debugpy::terminal_arguments(), attaches: false }),
            AdapterKind::Lldb => Some(TerminalLaunch { arguments: lldb::terminal_arguments(), attaches: true }),
            AdapterKind::Delve => None,
            AdapterKind::JsDebug => Some(TerminalLaunch { arguments: jsdebug::terminal_arguments(), attaches: false }),
            AdapterKind::CodeLldb => None,
            // 1.4.0: the program is rdbg's own process; there is no runInTerminal.
            AdapterKind::Rdbg => None,
            // gdb's DAP has no `console` setting and sends no `runInTerminal` (gdb 14–16).
            AdapterKind::Gdb => None,
            // Not verified against a real netcoredbg: programs run with `console: internalConsole`.
            AdapterKind::Netcoredbg => None,
        }
    }

    /// The environment variable that names the recipe's executable, checked before any search
    /// (`$AGENTDAP_LLDB_DAP`); a config override's `command` is given to the recipe through it.
    /// `None`: the recipe has none for the program it runs (js-debug's names the server script,
    /// not `node`).
    pub fn command_variable(self) -> Option<&'static str> {
        match self {
            AdapterKind::Debugpy => Some("AGENTDAP_PYTHON"),
            AdapterKind::Lldb => Some(lldb::ENV_OVERRIDE),
            AdapterKind::Delve => Some(delve::ENV_OVERRIDE),
            AdapterKind::JsDebug => None,
            AdapterKind::Gdb => Some(gdb::ENV_OVERRIDE),
            AdapterKind::Netcoredbg => Some(netcoredbg::ENV_OVERRIDE),
            AdapterKind::CodeLldb => Some(codelldb::ENV_OVERRIDE),
            AdapterKind::Rdbg => Some(rdbg::ENV_OVERRIDE),
        }
    }

    /// The command that installs the adapter when no recipe can be resolved at all (`doctor`,
    /// `install`: printed, never run). debugpy's depends on the interpreter found; this is the
    /// generic form.
    pub fn install_command(self) -> &'static str {
        match self {
            AdapterKind::Debugpy => "python3 -m pip install debugpy",
            AdapterKind::Lldb => lldb::INSTALL,
            AdapterKind::Delve => delve::INSTALL,
            AdapterKind::JsDebug => jsdebug::INSTALL,
            AdapterKind::CodeLldb => codelldb::find::INSTALL,
            AdapterKind::Rdbg => rdbg::INSTALL,
            AdapterKind::Gdb => gdb::INSTALL,
            AdapterKind::Netcoredbg => "see `agentdap install netcoredbg` (a release download of Samsung/netcoredbg)",
        }
    }

    /// What the adapter's exit during start-up means, from its stderr tail, when the recipe knows
    /// the failure (debugpy not installed for `program`, a gdb without DAP at `program`):
    /// [`AdapterError::NotFound`] with the install command. `program` is what was run.
    pub fn explain_early_exit(self, program: &Path, stderr_tail: &str) -> Option<AdapterError> {
        match self {
            AdapterKind::Debugpy => debugpy::missing_debugpy(program, stderr_tail, None),
            AdapterKind::Gdb => gdb::no_dap(program, stderr_tail),
            AdapterKind::Lldb
            | AdapterKind::Delve
            | AdapterKind::JsDebug
            | AdapterKind::CodeLldb
            | AdapterKind::Rdbg
            | AdapterKind::Netcoredbg => None,
        }
    }

    /// The file the adapter's `program` must name for the program the agent gave, when it is
    /// another (a `.csproj` → its built `.dll`: [`netcoredbg::built_assembly`]); `Ok(None)`: the
    /// program itself. Errors: one sentence saying what to do (`dotnet build`). Reads: a bounded
    /// read of the project file.
    pub fn launch_program(self, program: &Path, host: &dyn Host) -> Result<Option<PathBuf>, String> {
        match self {
            AdapterKind::Netcoredbg => netcoredbg::built_assembly(program, host),
            AdapterKind::Debugpy
            | AdapterKind::Lldb
            | AdapterKind::Delve
            | AdapterKind::JsDebug
            | AdapterKind::CodeLldb
            | AdapterKind::Rdbg
            | AdapterKind::Gdb => Ok(None),
        }
    }
}

/// An adapter's way of running the program through `runInTerminal`.
#[derive(Clone, Debug, PartialEq)]
pub struct TerminalLaunch {
    /// DAP `launch` arguments merged over the launch defaults.
    pub arguments: Value,
    /// The adapter attaches to the process agentdap starts (ptrace from a process that is not
    /// its ancestor; lldb-dap's launcher allows it with `PR_SET_PTRACER`). debugpy's launcher
    /// connects back over TCP instead.
    pub attaches: bool,
}

/// Why no recipe could be produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdapterError {
    /// The adapter (or what it needs, like a Python interpreter or the debugpy module) is not
    /// installed. Code `adapter_not_found`.
    NotFound {
        /// Which adapter.
        adapter: &'static str,
        /// What was missing, in one sentence.
        detail: String,
        /// The exact command that installs it.
        install: String,
    },
    /// `adapter` named no known adapter. Code `invalid_argument`.
    Unknown {
        /// The name given.
        name: String,
    },
    /// No `adapter` was given and the program says nothing. Code `invalid_argument`.
    NotInferred {
        /// The program given, if any.
        program: Option<String>,
    },
}

impl AdapterError {
    /// The stable error code (`reply::ErrorCode`'s name for it).
    pub fn code(&self) -> &'static str {
        match self {
            AdapterError::NotFound { .. } => "adapter_not_found",
            AdapterError::Unknown { .. } | AdapterError::NotInferred { .. } => "invalid_argument",
        }
    }
}

fn known_names() -> String {
    AdapterKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdapterError::NotFound { adapter, detail, install } => {
                write!(f, "{adapter}: {detail}; install it with: {install}")
            }
            AdapterError::Unknown { name } => {
                write!(f, "unknown adapter {name:?}; known adapters: {}", known_names())
            }
            AdapterError::NotInferred { program: Some(p) } => {
                // A native program's source is not what a native adapter runs (a fresh user's
                // `launch {program: "prog.c"}`).
                let ext = p.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
                if matches!(ext.as_str(), "c" | "cc" | "cpp" | "cxx" | "h" | "hpp" | "rs" | "zig") {
                    return write!(
                        f,
                        "{p:?} is source code: build it with debug info (`gcc -g -O0`, `clang -g`, `cargo build`) and pass the built program, with `adapter: \"lldb\"` if its name says nothing"
                    );
                }
                write!(f, "cannot tell which adapter debugs {p:?}; pass `adapter` (one of: {})", known_names())
            }
            AdapterError::NotInferred { program: None } => {
                write!(f, "no program given; pass `program` or `adapter` (one of: {})", known_names())
            }
        }
    }
}

impl std::error::Error for AdapterError {}

/// Picks the adapter: the `adapter` argument if given, else from the program (`.py`/`.pyw` →
/// debugpy; `.js`/`.mjs`/`.cjs`/`.ts`/`.mts`/`.cts` → node (js-debug); `.rb` → rdbg; `.go` or a directory
/// holding `.go` files or `go.mod` → delve; an ELF executable → delve when Go built it, else
/// lldb; codelldb only when named). Errors: [`AdapterError::Unknown`],
/// debugpy; `.js`/`.mjs`/`.cjs`/`.ts`/`.mts`/`.cts` → node (js-debug); `.dll`/`.csproj` →
/// netcoredbg; `.go` or a directory
/// holding `.go` files or `go.mod` → delve; an ELF executable → delve when Go built it, else
/// lldb, or gdb when no lldb-dap is found but gdb is). Errors: [`AdapterError::Unknown`],
/// [`AdapterError::NotInferred`]. Reads: `stat`s and the bounded [`elf::probe`].
pub fn select_on(adapter: Option<&str>, program: Option<&str>, host: &dyn Host) -> Result<AdapterKind, AdapterError> {
    if let Some(name) = adapter {
        return AdapterKind::from_name(name).ok_or_else(|| AdapterError::Unknown { name: name.to_string() });
    }
    let not_inferred = || AdapterError::NotInferred { program: program.map(str::to_string) };
    let Some(program) = program else { return Err(not_inferred()) };
    let path = Path::new(program);
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("py" | "pyw") => return Ok(AdapterKind::Debugpy),
        Some("go") => return Ok(AdapterKind::Delve),
        Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts") => return Ok(AdapterKind::JsDebug),
        Some("rb") => return Ok(AdapterKind::Rdbg),
        Some("dll" | "csproj") => return Ok(AdapterKind::Netcoredbg),
        _ => {}
    }
    if delve::is_package_dir(path, host) {
        return Ok(AdapterKind::Delve);
    }
    match elf::probe(path, host) {
        Some(facts) if facts.go => Ok(AdapterKind::Delve),
        // gdb only when it is there and lldb-dap is not: a machine with gdb alone still debugs.
        Some(_) if lldb::find_adapter(host).is_err() && gdb::find_adapter(host).is_ok() => Ok(AdapterKind::Gdb),
        Some(_) => Ok(AdapterKind::Lldb),
        None => Err(not_inferred()),
    }
}

/// [`select_on`] against the real file system.
pub fn select(adapter: Option<&str>, program: Option<&str>) -> Result<AdapterKind, AdapterError> {
    select_on(adapter, program, &RealHost)
}

/// What a recipe is resolved against: the agent's arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResolveInput<'a> {
    /// `adapter_args` of the launch/attach call (an object, or absent).
    pub adapter_args: Option<&'a Value>,
    /// `cwd` of the launch call (relative paths are taken against agentdap's cwd).
    pub cwd: Option<&'a Path>,
    /// The config file's `js_debug` (where js-debug is; `config::Config::js_debug`).
    pub js_debug: Option<&'a Path>,
}

/// The host facts a recipe depends on, behind a trait so resolution is testable without
/// touching the real environment or file system.
pub trait Host {
    /// An environment variable of agentdap.
    fn var(&self, name: &str) -> Option<OsString>;
    /// Whether `path` is a regular file with an execute bit (follows symlinks).
    fn is_executable(&self, path: &Path) -> bool;
    /// agentdap's working directory.
    fn cwd(&self) -> Option<PathBuf>;
    /// Up to `len` bytes of `path` from byte `offset` (fewer at the end of the file); `None`
    /// when unreadable. Callers keep `len` small (the ELF probe: ≤ 64 KiB). Default: nothing.
    fn read_range(&self, _path: &Path, _offset: u64, _len: usize) -> Option<Vec<u8>> {
        None
    }
    /// Whether `path` is a regular file (follows symlinks). Default: no.
    fn is_file(&self, _path: &Path) -> bool {
        false
    }
    /// Whether `path` is a directory (follows symlinks). Default: no.
    fn is_dir(&self, _path: &Path) -> bool {
        false
    }
    /// The names in directory `path`, at most `cap` of them, unsorted; empty when unreadable.
    /// Default: empty.
    fn list_dir(&self, _path: &Path, _cap: usize) -> Vec<OsString> {
        Vec::new()
    }
    /// Whether another user could have put or changed what is at `path` (follows symlinks): it
    /// is owned by neither agentdap's user nor root, or anyone may write it. Unreadable counts
    /// as yes. Default: no.
    fn others_could_write(&self, _path: &Path) -> bool {
        false
    }
}

/// The real process environment and file system (`stat` only).
#[derive(Clone, Copy, Debug, Default)]
pub struct RealHost;

impl Host for RealHost {
    fn var(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }

    fn is_executable(&self, path: &Path) -> bool {
        std::fs::metadata(path).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
    }

    fn cwd(&self) -> Option<PathBuf> {
        std::env::current_dir().ok()
    }

    fn read_range(&self, path: &Path, offset: u64, len: usize) -> Option<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = std::fs::File::open(path).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None; // a FIFO or device would block or never end
        }
        file.seek(SeekFrom::Start(offset)).ok()?;
        let mut out = Vec::with_capacity(len.min(64 * 1024));
        file.take(len as u64).read_to_end(&mut out).ok()?;
        Some(out)
    }

    fn is_file(&self, path: &Path) -> bool {
        std::fs::metadata(path).map(|m| m.is_file()).unwrap_or(false)
    }

    fn is_dir(&self, path: &Path) -> bool {
        std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false)
    }

    fn list_dir(&self, path: &Path, cap: usize) -> Vec<OsString> {
        let Ok(dir) = std::fs::read_dir(path) else { return Vec::new() };
        dir.take(cap).flatten().map(|e| e.file_name()).collect()
    }

    fn others_could_write(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Ok(m) = std::fs::metadata(path) else { return true };
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        (m.uid() != me && m.uid() != 0) || m.mode() & 0o002 != 0
    }
}

/// Builds the recipe for `kind` without looking at the program (lldb: no Rust formatters;
/// delve: `mode` left to the agent). Prefer [`recipe_for_program`]. Errors:
/// [`AdapterError::NotFound`] with the install command.
pub fn recipe(kind: AdapterKind, input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    recipe_for_program(kind, None, input, host)
}

/// Builds the recipe for `kind` and the absolute `program` (lldb: rustc's formatters for a
/// Rust binary; delve: `mode` and the build directory; node: the project's source-map search
/// and, for TypeScript, its runtime). Errors: [`AdapterError::NotFound`]
/// with the install command.
pub fn recipe_for_program(
    kind: AdapterKind,
    program: Option<&Path>,
    input: ResolveInput<'_>,
    host: &dyn Host,
) -> Result<Recipe, AdapterError> {
    match kind {
        AdapterKind::Debugpy => debugpy::recipe(program, input, host),
        AdapterKind::Lldb => lldb::recipe(program, input, host),
        AdapterKind::Delve => delve::recipe(program, input, host),
        AdapterKind::JsDebug => jsdebug::recipe(program, input, host),
        AdapterKind::CodeLldb => codelldb::recipe(program, input, host),
        AdapterKind::Rdbg => rdbg::recipe(program, input, host),
        AdapterKind::Gdb => gdb::recipe(program, input, host),
        AdapterKind::Netcoredbg => netcoredbg::recipe(program, input, host),
    }
}

/// [`recipe_for_program`] with the executable a config entry overriding the recipe names (its
/// `command`), when it names one: given to the recipe as its [`AdapterKind::command_variable`]
/// (so the recipe checks it as it checks that variable, and says so when it is not an
/// executable), or, for a recipe without one, set as the command's program in place of what it
/// found.
pub fn recipe_with_command(
    kind: AdapterKind,
    program: Option<&Path>,
    input: ResolveInput<'_>,
    command: Option<&Path>,
    host: &dyn Host,
) -> Result<Recipe, AdapterError> {
    let Some(command) = command else { return recipe_for_program(kind, program, input, host) };
    let variable = kind.command_variable();
    let named = CommandHost { inner: host, variable, command };
    let mut recipe = recipe_for_program(kind, program, input, &named).map_err(|e| match e {
        // The variable was the config file's `command` passed on: say what the user wrote.
        AdapterError::NotFound { adapter, detail, install } if variable.is_some_and(|v| detail.contains(v)) => {
            AdapterError::NotFound {
                adapter,
                detail: format!("the config file's command {} is not a file {adapter} can run", command.display()),
                install,
            }
        }
        other => other,
    })?;
    if variable.is_none() {
        recipe.command.program = command.as_os_str().to_owned();
    }
    Ok(recipe)
}

/// A host whose one variable names a config override's executable.
struct CommandHost<'a> {
    inner: &'a dyn Host,
    variable: Option<&'static str>,
    command: &'a Path,
}

impl Host for CommandHost<'_> {
    fn var(&self, name: &str) -> Option<OsString> {
        if self.variable == Some(name) {
            return Some(self.command.as_os_str().to_owned());
        }
        self.inner.var(name)
    }
    fn is_executable(&self, path: &Path) -> bool {
        self.inner.is_executable(path)
    }
    fn cwd(&self) -> Option<PathBuf> {
        self.inner.cwd()
    }
    fn read_range(&self, path: &Path, offset: u64, len: usize) -> Option<Vec<u8>> {
        self.inner.read_range(path, offset, len)
    }
    fn is_file(&self, path: &Path) -> bool {
        self.inner.is_file(path)
    }
    fn is_dir(&self, path: &Path) -> bool {
        self.inner.is_dir(path)
    }
    fn list_dir(&self, path: &Path, cap: usize) -> Vec<OsString> {
        self.inner.list_dir(path, cap)
    }
    fn others_could_write(&self, path: &Path) -> bool {
        self.inner.others_could_write(path)
    }
}

/// An adapter's message as a reader should see it: a message *key* an adapter sends untranslated
/// (js-debug 1.112.0's standalone server loads no strings: [`jsdebug::MESSAGE_KEYS`]) becomes its
/// words, with the key kept; anything else is unchanged.
pub fn readable_message(message: &str) -> std::borrow::Cow<'_, str> {
    match jsdebug::MESSAGE_KEYS.iter().find(|(key, _)| *key == message) {
        Some((key, words)) => format!("{words} ({key})").into(),
        None => message.into(),
    }
}

/// Looks `name` up on `$PATH` like `execvp` would, without running anything. A name with a `/`
/// is returned as is if executable. Empty `PATH` entries mean the current directory.
pub fn find_on_path(name: &str, host: &dyn Host) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return host.is_executable(&p).then_some(p);
    }
    let path = host.var("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| if dir.as_os_str().is_empty() { PathBuf::from(".").join(name) } else { dir.join(name) })
        .find(|candidate| host.is_executable(candidate))
}

/// Quotes `s` for a POSIX shell when needed (install commands are meant to be pasted).
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Shallow-merges `overrides` (an object; anything else is ignored) over `defaults`: keys in
/// `overrides` win. Used for launch/attach arguments over recipe defaults.
pub fn merge_arguments(defaults: &Value, overrides: Option<&Value>) -> Value {
    let mut merged = defaults.as_object().cloned().unwrap_or_default();
    if let Some(Value::Object(extra)) = overrides {
        for (k, v) in extra {
            merged.insert(k.clone(), v.clone());
        }
    }
    Value::Object(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selects_by_name_or_program() {
        assert_eq!(select(Some("debugpy"), None), Ok(AdapterKind::Debugpy));
        assert_eq!(select(Some("Python"), Some("x.go")), Ok(AdapterKind::Debugpy));
        assert_eq!(select(None, Some("/src/app/main.py")), Ok(AdapterKind::Debugpy));
        assert_eq!(select(None, Some("tool.PYW")), Ok(AdapterKind::Debugpy));
        assert_eq!(select(Some("gdbx"), None), Err(AdapterError::Unknown { name: "gdbx".into() }));
        let err = select(None, Some("a.out"));
        assert_eq!(err, Err(AdapterError::NotInferred { program: Some("a.out".into()) }));
        let text = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            text,
            "cannot tell which adapter debugs \"a.out\"; pass `adapter` (one of: debugpy, lldb, delve, node, rdbg, codelldb, gdb, netcoredbg)"
        );
    }

    #[test]
    fn native_source_is_said_to_need_building() {
        let text = select(None, Some("src/prog.c")).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(text.starts_with("\"src/prog.c\" is source code: build it"), "{text}");
    }

    #[test]
    fn quotes_for_the_shell_only_when_needed() {
        assert_eq!(shell_quote("/usr/bin/python3"), "/usr/bin/python3");
        assert_eq!(shell_quote("/opt/my env/python"), "'/opt/my env/python'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn merge_lets_the_agent_win() {
        let merged = merge_arguments(
            &json!({"justMyCode": true, "console": "internalConsole"}),
            Some(&json!({"justMyCode": false})),
        );
        assert_eq!(merged, json!({"justMyCode": false, "console": "internalConsole"}));
        assert_eq!(merge_arguments(&json!({"a": 1}), Some(&json!([1]))), json!({"a": 1}));
    }
}
