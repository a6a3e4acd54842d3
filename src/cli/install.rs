//! `agentdap install <adapter>` and the Python side of the first run: finding an interpreter that
//! already has debugpy, and installing debugpy into agentdap's data directory (a private venv,
//! else `pip --target`, else the distribution's package command); py-spy beside it
//! (`install_pyspy.rs`). CLI only: runs Python and pip
//! as child processes and blocks on them.

#[path = "install_pyspy.rs"]
pub mod pyspy;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Duration;

use crate::dap::adapters::{
    codelldb, delve, find_on_path, gdb, jsdebug, lldb, netcoredbg, rdbg, shell_quote, AdapterKind, RealHost,
};

/// How long an `import debugpy` probe may take (a cold start on a loaded machine is slow).
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// Tests set this to `1` so that `demo` ignores every interpreter outside agentdap's data dir and
/// therefore always exercises the install path, whatever the machine's `python3` has.
pub const ENV_FORCE_INSTALL: &str = "AGENTDAP_DEMO_FORCE_INSTALL";

/// Where an interpreter with debugpy came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `$AGENTDAP_PYTHON`.
    AgentdapPython,
    /// `$VIRTUAL_ENV/bin/python`.
    VirtualEnv,
    /// `<data>/venv/bin/python`, made by `agentdap install debugpy`.
    DataVenv,
    /// `python3` with `PYTHONPATH=<data>/pydeps` (the `pip --target` fallback).
    DataPydeps,
    /// `python3` on `PATH`.
    Path,
}

impl Source {
    /// How `doctor` and `demo` name it.
    pub fn describe(self) -> &'static str {
        match self {
            Source::AgentdapPython => "from $AGENTDAP_PYTHON",
            Source::VirtualEnv => "from $VIRTUAL_ENV",
            Source::DataVenv => "agentdap's private venv",
            Source::DataPydeps => "python3 + agentdap's pydeps",
            Source::Path => "python3 on PATH",
        }
    }
}

/// An interpreter to run debugpy with, and the `PYTHONPATH` entry it needs (pydeps only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Python {
    /// The interpreter.
    pub path: PathBuf,
    /// A directory to put first on `PYTHONPATH` (the `pip --target` fallback), else `None`.
    pub pythonpath: Option<PathBuf>,
    /// Which rule found it.
    pub source: Source,
}

impl Python {
    /// A command running this interpreter with its `PYTHONPATH` set.
    pub fn command(&self) -> Process {
        let mut cmd = Process::new(&self.path);
        if let Some(extra) = self.pythonpath_value() {
            cmd.env("PYTHONPATH", extra);
        }
        cmd
    }

    /// The `PYTHONPATH` to run with: the pydeps dir before whatever is already set.
    pub fn pythonpath_value(&self) -> Option<OsString> {
        let dir = self.pythonpath.as_ref()?;
        let mut paths = vec![dir.clone()];
        if let Some(old) = std::env::var_os("PYTHONPATH") {
            paths.extend(std::env::split_paths(&old));
        }
        std::env::join_paths(paths).ok()
    }

    /// The interpreter's version and debugpy's, by running it (`None` for debugpy when the import
    /// fails; `None` overall when the interpreter does not run).
    pub fn probe(&self) -> Option<(String, Option<String>)> {
        let script = "import sys; print(sys.version.split()[0]); import debugpy; print(debugpy.__version__)";
        let ran = crate::cli::run_with_timeout(self.command().args(["-c", script]), PROBE_TIMEOUT)?;
        let mut lines = ran.stdout.lines().map(str::trim);
        let python = lines.next().filter(|l| !l.is_empty())?.to_string();
        let debugpy = if ran.success { lines.next().map(str::to_string) } else { None };
        Some((python, debugpy))
    }

    /// debugpy's version when this interpreter can import it.
    pub fn debugpy_version(&self) -> Option<String> {
        self.probe()?.1
    }
}

/// The data dir's venv interpreter.
pub fn venv_python(data: &Path) -> PathBuf {
    data.join("venv/bin/python")
}

/// The data dir's `pip --target` directory.
pub fn pydeps_dir(data: &Path) -> PathBuf {
    data.join("pydeps")
}

/// `python3` on `PATH`.
pub fn system_python3() -> Option<PathBuf> {
    find_on_path("python3", &RealHost)
}

/// What agentdap itself installed into `data`, if it imports: the venv, else pydeps.
pub fn installed_in(data: &Path) -> Option<(Python, String)> {
    let venv = Python { path: venv_python(data), pythonpath: None, source: Source::DataVenv };
    if venv.path.exists() {
        if let Some(version) = venv.debugpy_version() {
            return Some((venv, version));
        }
    }
    let pydeps = pydeps_dir(data);
    if pydeps.join("debugpy").is_dir() {
        let python = Python { path: system_python3()?, pythonpath: Some(pydeps), source: Source::DataPydeps };
        if let Some(version) = python.debugpy_version() {
            return Some((python, version));
        }
    }
    None
}

/// The first interpreter that imports debugpy, in order: `$AGENTDAP_PYTHON`, `$VIRTUAL_ENV`, the
/// data dir (venv, then pydeps), `python3` on `PATH`. With `data_only`, only the data dir.
/// Each candidate is checked by running it. `skipped` collects why a set candidate did not qualify.
pub fn find_with_debugpy(data: &Path, data_only: bool, skipped: &mut Vec<String>) -> Option<(Python, String)> {
    let env_path = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let early = [
        (env_path("AGENTDAP_PYTHON"), Source::AgentdapPython),
        (env_path("VIRTUAL_ENV").map(|v| v.join("bin/python")), Source::VirtualEnv),
    ];
    if !data_only {
        for (path, source) in early {
            let Some(path) = path else { continue };
            let Some(path) = find_on_path(&path.to_string_lossy(), &RealHost) else {
                skipped.push(format!("{} ({}) is not an executable", path.display(), source.describe()));
                continue;
            };
            let python = Python { path, pythonpath: None, source };
            match python.debugpy_version() {
                Some(version) => return Some((python, version)),
                None => skipped.push(format!("{} ({}) has no debugpy", python.path.display(), source.describe())),
            }
        }
    }
    if let Some(found) = installed_in(data) {
        return Some(found);
    }
    if data_only {
        return None;
    }
    let python = Python { path: system_python3()?, pythonpath: None, source: Source::Path };
    python.debugpy_version().map(|version| (python, version))
}

/// Why debugpy could not be installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstallError {
    /// No `python3` on `PATH`.
    NoPython {
        /// The distribution's package command.
        command: String,
    },
    /// Neither `venv` nor `pip` works for `python3`.
    NoPip {
        /// The distribution's package command.
        command: String,
    },
    /// A step ran and failed (no network, a full disk, …).
    Failed {
        /// The command that failed, as typed in a shell.
        step: String,
        /// The end of its output.
        tail: String,
    },
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstallError::NoPython { command } => {
                write!(f, "no python3 on PATH; install Python first:\n    {command}")
            }
            InstallError::NoPip { command } => write!(
                f,
                "python3 has neither `venv` (ensurepip) nor `pip`, so debugpy cannot be installed; \
                 install them with the distribution's packages, then run this again:\n    {command}"
            ),
            InstallError::Failed { step, tail } => write!(f, "`{step}` failed:\n{tail}"),
        }
    }
}

/// The package command that gives `python3` pip and venv on this distribution, from the text of
/// `/etc/os-release` (its `ID` and `ID_LIKE`); both common forms when it is unknown.
pub fn distro_pip_command(os_release: &str) -> String {
    let mut ids = Vec::new();
    for line in os_release.lines() {
        if let Some(v) = line.strip_prefix("ID=").or_else(|| line.strip_prefix("ID_LIKE=")) {
            ids.extend(v.trim_matches('"').split_whitespace().map(str::to_ascii_lowercase));
        }
    }
    let has = |names: &[&str]| ids.iter().any(|id| names.contains(&id.as_str()));
    if has(&["debian", "ubuntu"]) {
        "apt-get install python3-pip python3-venv".to_string()
    } else if has(&["fedora", "rhel", "centos"]) {
        "dnf install python3-pip".to_string()
    } else if has(&["alpine"]) {
        "apk add py3-pip".to_string()
    } else if has(&["arch"]) {
        "pacman -S python-pip".to_string()
    } else {
        "apt-get install python3-pip python3-venv   (Fedora: dnf install python3-pip)".to_string()
    }
}

fn this_distro_pip_command() -> String {
    distro_pip_command(&std::fs::read_to_string("/etc/os-release").unwrap_or_default())
}

/// The command that installs debugpy the way [`install_debugpy`] would, for `--no-install`.
pub fn install_hint(data: &Path) -> String {
    format!(
        "agentdap install debugpy   (does: python3 -m venv {0}/venv && {0}/venv/bin/python -m pip install debugpy)",
        data.display()
    )
}

/// What [`install_debugpy`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// The interpreter to use.
    pub python: Python,
    /// debugpy's version.
    pub version: String,
    /// False when it was there already.
    pub fresh: bool,
}

/// Runs one install step with output captured; its failure becomes [`InstallError::Failed`].
fn step(cmd: &mut Process) -> Result<(), InstallError> {
    let shown = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| shell_quote(&a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ");
    // In `/`: `python -m venv`/`-m pip` would import a `venv.py` or `pip.py` from the directory
    // `agentdap install` was started in.
    match cmd.current_dir("/").stdin(std::process::Stdio::null()).output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            Err(InstallError::Failed { step: shown, tail: crate::cli::tail(&text, 12) })
        }
        Err(e) => Err(InstallError::Failed { step: shown, tail: format!("    {e}") }),
    }
}

const PIP_QUIET: [&str; 3] = ["--quiet", "--disable-pip-version-check", "--no-input"];

/// Installs debugpy into `data` (idempotent): a venv at `<data>/venv` (seeing python3's own
/// packages) with pip; when
/// `venv`/`ensurepip` is missing, `python3 -m pip install --target <data>/pydeps`; when pip is
/// missing too, [`InstallError::NoPip`] with the distribution's command. Progress goes to stderr.
pub fn install_debugpy(data: &Path) -> Result<Installed, InstallError> {
    if let Some((python, version)) = installed_in(data) {
        return Ok(Installed { python, version, fresh: false });
    }
    let Some(python3) = system_python3() else {
        let command = this_distro_pip_command().replace("python3-pip", "python3 python3-pip");
        return Err(InstallError::NoPython { command });
    };
    std::fs::create_dir_all(data)
        .map_err(|e| InstallError::Failed { step: format!("mkdir -p {}", data.display()), tail: format!("    {e}") })?;
    let venv = data.join("venv");
    let venv_py = venv_python(data);
    eprintln!("agentdap: installing debugpy into a private venv: {}", venv.display());
    // A venv left by an interrupted earlier run is reused when its pip works, else recreated.
    // `--system-site-packages`: debugpy runs the program with this interpreter (unless the launch
    // says `python`), so the program still sees the packages installed for python3.
    let pip_works = |py: &Path| {
        crate::cli::run_with_timeout(Process::new(py).args(["-m", "pip", "--version"]), PROBE_TIMEOUT)
            .is_some_and(|r| r.success)
    };
    let venv_ready = venv_py.exists() && pip_works(&venv_py)
        || step(Process::new(&python3).args(["-m", "venv", "--clear", "--system-site-packages"]).arg(&venv)).is_ok();
    if venv_ready {
        step(Process::new(&venv_py).args(["-m", "pip", "install"]).args(PIP_QUIET).arg("debugpy"))?;
        let python = Python { path: venv_py, pythonpath: None, source: Source::DataVenv };
        return verified(python);
    }
    // Debian's python3 without python3-venv fails in ensurepip and leaves a venv without pip.
    let _ = std::fs::remove_dir_all(&venv);
    if !pip_works(&python3) {
        return Err(InstallError::NoPip { command: this_distro_pip_command() });
    }
    let pydeps = pydeps_dir(data);
    eprintln!("agentdap: python3 cannot make a venv (no ensurepip); installing with pip --target {}", pydeps.display());
    // `--target` also skips PEP 668's externally-managed check: nothing system-wide changes.
    step(
        Process::new(&python3)
            .args(["-m", "pip", "install"])
            .args(PIP_QUIET)
            .arg("--upgrade")
            .arg("--target")
            .arg(&pydeps)
            .arg("debugpy"),
    )?;
    verified(Python { path: python3, pythonpath: Some(pydeps), source: Source::DataPydeps })
}

fn verified(python: Python) -> Result<Installed, InstallError> {
    match python.debugpy_version() {
        Some(version) => Ok(Installed { python, version, fresh: true }),
        None => Err(InstallError::Failed {
            step: format!("{} -c 'import debugpy'", shell_quote(&python.path.to_string_lossy())),
            tail: "    pip reported success but debugpy does not import".to_string(),
        }),
    }
}

/// How to point an MCP client (or a shell) at `python`: `AGENTDAP_PYTHON=…` plus `PYTHONPATH=…`
/// for the pydeps fallback, as `(name, value)` pairs.
pub fn client_env(python: &Python) -> Vec<(&'static str, String)> {
    let mut env = vec![("AGENTDAP_PYTHON", python.path.display().to_string())];
    if let Some(dir) = &python.pythonpath {
        env.push(("PYTHONPATH", dir.display().to_string()));
    }
    env
}

/// `agentdap install <adapter>`: 0 installed (or already there), 1 failed or needs a package
/// command run by the user, 2 unknown adapter.
pub fn run(adapter: &str) -> u8 {
    // Not an adapter: the stack sampler `stacks` runs for Python programs.
    if adapter == "py-spy" {
        return pyspy::run();
    }
    let Some(kind) = AdapterKind::from_name(adapter) else {
        eprintln!(
            "agentdap: unknown adapter {adapter:?}; known adapters: {} (and py-spy, the stack sampler)",
            crate::cli::known_adapters()
        );
        return 2;
    };
    match kind {
        AdapterKind::Debugpy => install_debugpy_command(),
        AdapterKind::Lldb => package_adapter(kind.name(), lldb::find_adapter(&RealHost).ok(), lldb::INSTALL),
        AdapterKind::Delve => package_adapter(kind.name(), delve::find_adapter(&RealHost).ok(), delve::INSTALL),
        AdapterKind::JsDebug => install_js_debug(),
        // CodeLLDB is in no distribution's packages: the release's unpack commands are printed.
        AdapterKind::CodeLldb => package_adapter(
            kind.name(),
            codelldb::find_adapter(&RealHost).ok().map(|f| f.path),
            &codelldb::install_command(&RealHost),
        ),
        AdapterKind::Rdbg => package_adapter(kind.name(), rdbg::find(&RealHost).ok().map(|f| f.rdbg), rdbg::INSTALL),
        AdapterKind::Gdb => match gdb_without_dap() {
            Some(why) => {
                let head = format!(
                    "{why}; agentdap does not run package managers. Install gdb {} or newer with:",
                    gdb::DAP_SINCE
                );
                println!("{head}"); // stdout-ok
                println!("  {}   (Debian 13, Ubuntu 24.04 and later ship one)", gdb::INSTALL); // stdout-ok
                1
            }
            None => package_adapter(kind.name(), gdb::find_adapter(&RealHost).ok(), gdb::INSTALL),
        },
        AdapterKind::Netcoredbg => match netcoredbg::find_adapter(&RealHost) {
            Ok(path) => package_adapter(kind.name(), Some(path), ""),
            Err(_) => {
                println!("netcoredbg is in no package registry agentdap uses and agentdap downloads nothing; fetch Samsung/netcoredbg's release {} and unpack it where agentdap looks with:", netcoredbg::RELEASE); // stdout-ok
                println!("  {}", netcoredbg::install_command(&RealHost)); // stdout-ok
                let dotnet =
                    "The program also needs .NET (`dotnet`): https://learn.microsoft.com/dotnet/core/install/linux";
                println!("{dotnet}"); // stdout-ok
                1
            }
        },
    }
}

/// js-debug is in no package registry under its own name, so nothing is installed: where it is
/// (exit 0, with node), or the download and unpack commands for the release asset (exit 1).
/// agentdap downloads nothing itself.
fn install_js_debug() -> u8 {
    let config = crate::config::locate(None, |k| std::env::var_os(k))
        .and_then(|loc| crate::config::load(&loc).ok())
        .unwrap_or_default();
    let node = jsdebug::find_node(&RealHost);
    match jsdebug::find_server(&RealHost, config.js_debug.as_deref()) {
        Ok(server) => {
            let version =
                jsdebug::server_version(&server.script, &RealHost).map(|v| format!(" {v}")).unwrap_or_default();
            let found = format!(
                "js-debug{version} is already installed: {} ({})",
                server.script.display(),
                server.source.describe()
            );
            println!("{found}"); // stdout-ok
            match node {
                Ok(_) => 0,
                Err(_) => {
                    println!("It runs on Node.js, which is not on PATH; install it with:"); // stdout-ok
                    println!("  {}", jsdebug::NODE_INSTALL); // stdout-ok
                    1
                }
            }
        }
        Err(e) => {
            let data = crate::cli::data_dir()
                .map_or_else(|| "~/.local/share/agentdap".to_owned(), |d| shell_quote(&d.to_string_lossy()));
            match e {
                crate::dap::adapters::AdapterError::NotFound { detail, .. } => println!("{detail}."), // stdout-ok
                other => println!("{other}."),                                                        // stdout-ok
            }
            let why = format!(
                "js-debug is not published in any package registry under its own name, so agentdap cannot install it from one, and it downloads nothing itself. Get the standalone DAP server, the {} asset of {}, and unpack it into agentdap's data directory:",
                jsdebug::release_asset(),
                jsdebug::RELEASES
            );
            println!("{why}"); // stdout-ok
            println!("  mkdir -p {data}"); // stdout-ok
            println!("  curl -fsSL {} | tar -xz -C {data}", jsdebug::release_url()); // stdout-ok
            let where_ = format!(
                "That makes {data}/js-debug/{}, where agentdap looks. Or point ${} (or the config file's \"js_debug\") at a copy you have: neovim mason's js-debug-adapter, or the release unpacked elsewhere.",
                jsdebug::SERVER_SCRIPT,
                jsdebug::ENV_OVERRIDE
            );
            println!("{where_}"); // stdout-ok
            if node.is_err() {
                let node = format!("js-debug also needs Node.js, which is not on PATH: {}", jsdebug::NODE_INSTALL);
                println!("{node}"); // stdout-ok
            }
            1
        }
    }
}

fn install_debugpy_command() -> u8 {
    let Some(data) = crate::cli::data_dir() else {
        eprintln!("agentdap: neither $XDG_DATA_HOME nor $HOME is set: no data directory to install into");
        return 1;
    };
    match install_debugpy(&data) {
        Ok(done) => {
            let how = if done.fresh { "installed" } else { "already installed" };
            let python = &done.python;
            println!("debugpy {} {how}: {} ({})", done.version, python.path.display(), python.source.describe()); // stdout-ok
            if let Some(dir) = &python.pythonpath {
                println!("  with PYTHONPATH={}", dir.display()); // stdout-ok
            }
            let env = client_env(python);
            let json: Vec<String> =
                env.iter().map(|(k, v)| format!("\"{k}\": {}", serde_json::Value::from(v.as_str()))).collect();
            println!("Give it to agentdap in your MCP client's configuration:"); // stdout-ok
            println!("  \"env\": {{{}}}", json.join(", ")); // stdout-ok
            let toml: Vec<String> =
                env.iter().map(|(k, v)| format!("{k} = {}", serde_json::Value::from(v.as_str()))).collect();
            println!("  (Codex: env = {{ {} }})", toml.join(", ")); // stdout-ok
            0
        }
        Err(e) => {
            eprintln!("agentdap: installing debugpy failed: {e}");
            1
        }
    }
}

/// lldb and Delve come from the distribution: report the path, or print the command.
/// Why the gdb the server would run has no DAP interpreter (its version, from `gdb --version`,
/// is below 14), if that is so; `None` when it has one, none is found, or the version is unknown.
pub fn gdb_without_dap() -> Option<String> {
    let path = gdb::find_adapter(&RealHost).ok()?;
    let ran = super::run_with_timeout(
        std::process::Command::new(&path).arg("--version"),
        std::time::Duration::from_secs(15),
    )?;
    let (major, minor) = gdb::parse_version(&ran.stdout)?;
    (major < gdb::DAP_SINCE).then(|| {
        format!("gdb {major}.{minor} at {} has no DAP interpreter (DAP came in gdb {})", path.display(), gdb::DAP_SINCE)
    })
}

fn package_adapter(name: &str, found: Option<PathBuf>, command: &str) -> u8 {
    match found {
        Some(path) => {
            println!("{name} is already installed: {}", path.display()); // stdout-ok
            0
        }
        None => {
            println!("{name} is not installed; agentdap does not run package managers. Install it with:"); // stdout-ok
            println!("  {command}"); // stdout-ok
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_package_command_from_os_release() {
        let debian = "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nID=debian\n";
        assert_eq!(distro_pip_command(debian), "apt-get install python3-pip python3-venv");
        let ubuntu = "ID=ubuntu\nID_LIKE=debian\n";
        assert_eq!(distro_pip_command(ubuntu), "apt-get install python3-pip python3-venv");
        let rocky = "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n";
        assert_eq!(distro_pip_command(rocky), "dnf install python3-pip");
        assert_eq!(distro_pip_command("ID=alpine\n"), "apk add py3-pip");
        assert!(distro_pip_command("").contains("apt-get install python3-pip python3-venv"));
        assert!(distro_pip_command("").contains("dnf install python3-pip"));
    }

    #[test]
    fn client_env_adds_pythonpath_only_for_pydeps() {
        let venv = Python { path: PathBuf::from("/d/venv/bin/python"), pythonpath: None, source: Source::DataVenv };
        assert_eq!(client_env(&venv), vec![("AGENTDAP_PYTHON", "/d/venv/bin/python".to_string())]);
        let pydeps = Python {
            path: PathBuf::from("/usr/bin/python3"),
            pythonpath: Some("/d/pydeps".into()),
            source: Source::DataPydeps,
        };
        assert_eq!(
            client_env(&pydeps),
            vec![("AGENTDAP_PYTHON", "/usr/bin/python3".to_string()), ("PYTHONPATH", "/d/pydeps".to_string())]
        );
    }
}
