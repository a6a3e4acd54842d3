//! Where CodeLLDB's `codelldb` is on this host, in the order the README gives (`$AGENTDAP_CODELLDB`, `codelldb` on `PATH`, agentdap's data directory, a neovim mason install, the newest VS Code / VSCodium / Cursor `vadimcn.vscode-lldb` extension), which version a copy is, and the commands that install it; `stat`s, directory listings and small bounded reads only, never runs or downloads anything.

use std::path::{Path, PathBuf};

use super::{CHECKED_VERSION, ENV_OVERRIDE, NAME};
use crate::dap::adapters::jsdebug::find::{data_dir, json_string};
use crate::dap::adapters::{find_on_path, shell_quote, AdapterError, Host};

/// How `codelldb` was found (what `doctor` says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `$AGENTDAP_CODELLDB`.
    Env,
    /// `codelldb` on `PATH`.
    Path,
    /// `<data>/codelldb/extension/adapter/codelldb`, where [`install_command`] unpacks it.
    DataDir,
    /// neovim mason's `codelldb` package.
    Mason,
    /// A VS Code, VSCodium or Cursor `vadimcn.vscode-lldb` extension.
    VsCode,
}

impl Source {
    /// How `doctor` names it.
    pub fn describe(self) -> &'static str {
        match self {
            Source::Env => "from $AGENTDAP_CODELLDB",
            Source::Path => "on PATH",
            Source::DataDir => "agentdap's data dir",
            Source::Mason => "neovim mason's codelldb",
            Source::VsCode => "a VS Code extension",
        }
    }
}

/// A `codelldb` found on this host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The executable.
    pub path: PathBuf,
    /// Which rule found it.
    pub source: Source,
}

/// Directory entries examined per extensions directory.
const LIST_CAP: usize = 4096;

/// Bytes of `version.json` or `package.json` read for the version (the key is near the top).
const VERSION_READ_CAP: usize = 64 * 1024;

/// The executable inside an unpacked extension (the `.vsix` holds `extension/…`).
const IN_VSIX: &str = "extension/adapter/codelldb";

/// The executable inside an installed extension's directory.
const IN_EXTENSION: &str = "adapter/codelldb";

/// Directories holding the extensions of VS Code, VSCodium, VS Code's remote server and Cursor:
/// `vadimcn.vscode-lldb-<version>` in each.
const USER_EXTENSION_DIRS: &[&str] =
    &[".vscode/extensions", ".vscode-oss/extensions", ".vscode-server/extensions", ".cursor/extensions"];

/// The extension's directory name before `-<version>`.
const EXTENSION: &str = "vadimcn.vscode-lldb";

/// Where the releases are.
pub const RELEASES: &str = "https://github.com/vadimcn/codelldb/releases";

/// [`install_command`] for the default data directory on x86-64 (`doctor` and `install` without
/// a host view; kept equal to it by `codelldb::tests`).
pub const INSTALL: &str = "mkdir -p ~/.local/share/agentdap && curl -fsSL -o ~/.local/share/agentdap/codelldb.vsix \
https://github.com/vadimcn/codelldb/releases/download/v1.11.8/codelldb-linux-x64.vsix \
&& unzip -q -o ~/.local/share/agentdap/codelldb.vsix -d ~/.local/share/agentdap/codelldb \
&& chmod +x ~/.local/share/agentdap/codelldb/extension/adapter/codelldb ~/.local/share/agentdap/codelldb/extension/lldb/bin/*";

/// The release asset's platform for this machine (`linux-x64`, `linux-arm64`, `linux-armhf`).
pub fn platform() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "linux-arm64",
        "arm" => "linux-armhf",
        _ => "linux-x64",
    }
}

/// The release asset for [`CHECKED_VERSION`] (a VS Code extension, a zip file).
pub fn release_url() -> String {
    format!("{RELEASES}/download/v{CHECKED_VERSION}/codelldb-{}.vsix", platform())
}

/// The shell command that unpacks the release into `<data>/codelldb` (`~/.local/share/agentdap`
/// when the data dir is unknown), where agentdap looks. CodeLLDB is in no distribution's
/// packages; neovim's mason or the VS Code extension also install it.
pub fn install_command(host: &dyn Host) -> String {
    let data =
        data_dir(host).map_or_else(|| "~/.local/share/agentdap".to_owned(), |d| shell_quote(&d.to_string_lossy()));
    format!(
        "mkdir -p {data} && curl -fsSL -o {data}/codelldb.vsix {} && unzip -q -o {data}/codelldb.vsix -d {data}/codelldb \
         && chmod +x {data}/codelldb/{IN_VSIX} {data}/codelldb/extension/lldb/bin/*",
        release_url()
    )
}

/// `codelldb` in `path`: the file itself when executable, else `adapter/codelldb` or
/// `extension/adapter/codelldb` under the directory.
pub fn adapter_at(path: &Path, host: &dyn Host) -> Option<PathBuf> {
    if host.is_executable(path) {
        return Some(path.to_path_buf());
    }
    if !host.is_dir(path) {
        return None;
    }
    [path.join(IN_EXTENSION), path.join(IN_VSIX)].into_iter().find(|p| host.is_executable(p))
}

/// Finds `codelldb`: `$AGENTDAP_CODELLDB` (when set it must hold one: no fall-through), `codelldb`
/// on `PATH`, `<data>/codelldb`, mason's `codelldb` package (`$XDG_DATA_HOME/nvim/mason/…`), then
/// the newest user-installed `vadimcn.vscode-lldb-<version>`. Errors: [`AdapterError::NotFound`]
/// naming where it looked and how to get it.
pub fn find_adapter(host: &dyn Host) -> Result<Found, AdapterError> {
    if let Some(explicit) = host.var(ENV_OVERRIDE).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(explicit);
        return adapter_at(&path, host).map(|path| Found { path, source: Source::Env }).ok_or_else(|| {
            not_found(
                format!(
                    "{ENV_OVERRIDE} = {} is neither the codelldb executable nor a directory holding {IN_EXTENSION} or {IN_VSIX}",
                    path.display()
                ),
                host,
            )
        });
    }
    if let Some(path) = find_on_path(NAME, host) {
        return Ok(Found { path, source: Source::Path });
    }
    let data = data_dir(host).map(|d| d.join("codelldb").join(IN_VSIX));
    if let Some(path) = data.as_ref().filter(|p| host.is_executable(p)) {
        return Ok(Found { path: path.clone(), source: Source::DataDir });
    }
    let mason = data_dir(host).and_then(|d| Some(d.parent()?.join("nvim/mason/packages/codelldb").join(IN_VSIX)));
    if let Some(path) = mason.as_ref().filter(|p| host.is_executable(p)) {
        return Ok(Found { path: path.clone(), source: Source::Mason });
    }
    if let Some(path) =
        vscode_extensions(host).into_iter().map(|e| e.join(IN_EXTENSION)).find(|p| host.is_executable(p))
    {
        return Ok(Found { path, source: Source::VsCode });
    }
    let words =
        |p: Option<PathBuf>| p.map_or_else(|| "(no $XDG_DATA_HOME or $HOME)".to_owned(), |p| p.display().to_string());
    Err(not_found(
        format!(
            "no codelldb found: ${ENV_OVERRIDE} is unset, none is on PATH, and neither {} nor {} nor a VS Code/VSCodium/Cursor \
             {EXTENSION} extension exists",
            words(data),
            words(mason)
        ),
        host,
    ))
}

fn not_found(detail: String, host: &dyn Host) -> AdapterError {
    AdapterError::NotFound { adapter: NAME, detail, install: install_command(host) }
}

/// `vadimcn.vscode-lldb-<version>` extension directories, newest version first.
fn vscode_extensions(host: &dyn Host) -> Vec<PathBuf> {
    let Some(home) = host.var("HOME").map(PathBuf::from).filter(|p| p.is_absolute()) else { return Vec::new() };
    let mut found: Vec<(Vec<u64>, PathBuf)> = Vec::new();
    for dir in USER_EXTENSION_DIRS.iter().map(|d| home.join(d)) {
        for name in host.list_dir(&dir, LIST_CAP) {
            let Some(name) = name.to_str() else { continue };
            if let Some(version) = extension_version(name) {
                found.push((version, dir.join(name)));
            }
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0));
    found.into_iter().map(|(_, p)| p).collect()
}

/// The version numbers of an extension directory name (`vadimcn.vscode-lldb-1.11.8` → `[1, 11,
/// 8]`; a platform suffix such as `-linux-x64` is ignored); `None` for any other name.
fn extension_version(name: &str) -> Option<Vec<u64>> {
    let rest = name.strip_prefix(EXTENSION)?.strip_prefix('-')?;
    let numbers: Vec<u64> = rest.split(['.', '-']).map_while(|p| p.parse().ok()).collect();
    (!numbers.is_empty()).then_some(numbers)
}

/// The CodeLLDB version of the copy whose executable is `adapter`, when a file one directory
/// above `adapter/` says: `version.json` (a vendored copy) or the extension's `package.json`
/// (name `vscode-lldb`). Reads ≤ 64 KiB each.
pub fn version(adapter: &Path, host: &dyn Host) -> Option<String> {
    let root = adapter.parent()?.parent()?;
    let read = |p: PathBuf| host.read_range(&p, 0, VERSION_READ_CAP).map(|b| String::from_utf8_lossy(&b).into_owned());
    if let Some(v) = read(root.join("version.json")).and_then(|t| json_string(&t, "version")) {
        return Some(v);
    }
    let package = read(root.join("package.json"))?;
    json_string(&package, "name").filter(|n| n == "vscode-lldb")?;
    json_string(&package, "version")
}
