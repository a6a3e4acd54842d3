//! The netcoredbg recipe (.NET: stdio, `netcoredbg --interpreter=vscode`): finding netcoredbg, its install commands (printed, never run), the built assembly of a `.csproj` (a bounded read of the project file), launch defaults and quirks as data; never runs anything.
//!
//! Not observed on a real netcoredbg: neither it nor .NET can be had on this machine. What the
//! recipe says comes from netcoredbg's README and the reports cited next to each field; the
//! scripted fakes (`src/session/netcoredbg_tests.rs`, the `netcoredbg` scenario of
//! `tests/fixtures/fake_adapter.py`) reproduce its documented orderings through agentdap's real
//! session code:
//!
//! - `initialized` (and a `capabilities` event) may come *before* the `initialize` response, and
//!   `seq` may be a JSON string (Samsung/netcoredbg#161, #197; zed-industries/zed#33419): the DAP
//!   client coerces such a `seq` and the start-up remembers an early `initialized`, for every
//!   adapter.
//! - `launch {program: "<app>.dll"}` runs the assembly with `dotnet`; `stopAtEntry` stops at its
//!   entry point (the VS Code `coreclr` configuration's key).
//! - `attach {processId}`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{find_on_path, AdapterError, Host, Quirks, Recipe, ResolveInput, RuntimeQuirks, Transport};
use crate::dap::command::AdapterCommand;

/// agentdap's name for the adapter.
pub const NAME: &str = "netcoredbg";

/// The VS Code debug `type` of .NET Core debugging (C# extension, netcoredbg in its place).
pub const VSCODE_TYPE: &str = "coreclr";

/// Overrides discovery: the netcoredbg executable to run.
pub const ENV_OVERRIDE: &str = "AGENTDAP_NETCOREDBG";

/// The release whose assets the install hint names (Samsung/netcoredbg's GitHub releases).
pub const RELEASE: &str = "3.2.0-1092";

/// Bytes of a `.csproj` read at most.
const PROJECT_CAP: usize = 64 * 1024;

/// netcoredbg's quirks in the shape every recipe shares.
pub fn quirks() -> Quirks {
    Quirks {
        // The VS Code `coreclr` launch key netcoredbg reads.
        stop_on_entry_key: "stopAtEntry",
        // netcoredbg offers `all` and `user-unhandled`: trust the capabilities.
        exception_filters: &[],
        // Not verified: agentdap pages `variables` itself.
        variable_paging: false,
        ..Quirks::STANDARD
    }
}

/// netcoredbg's quirks about entry, exit, output and processes: nothing known beyond the spec.
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // netcoredbg's own `stopAtEntry` stops at the assembly's entry point (`Main`).
        entry_function: None,
        single_client: true,
        ..RuntimeQuirks::STANDARD
    }
}

/// DAP `launch` arguments agentdap sends unless the agent's `adapter_args` override them.
/// `program` (the assembly), `args`, `cwd`, `env`, `stopAtEntry` are set by the session.
pub fn launch_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "launch", "console": "internalConsole"})
}

/// DAP `attach` arguments agentdap sends unless the agent's `adapter_args` override them.
pub fn attach_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "attach"})
}

/// The release asset for this machine's architecture.
pub fn release_asset() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "netcoredbg-linux-arm64.tar.gz"
    } else {
        "netcoredbg-linux-amd64.tar.gz"
    }
}

/// agentdap's data dir (`$XDG_DATA_HOME/agentdap`, else `~/.local/share/agentdap`), where the
/// install commands unpack the release (`<data>/netcoredbg/netcoredbg`).
fn data_dir(host: &dyn Host) -> Option<PathBuf> {
    let xdg = host.var("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let base =
        xdg.or_else(|| host.var("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(base.join("agentdap"))
}

/// neovim mason's copy: `$XDG_DATA_HOME/nvim/mason/packages/netcoredbg/netcoredbg/netcoredbg`.
fn mason_copy(host: &dyn Host) -> Option<PathBuf> {
    let xdg = host.var("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let base =
        xdg.or_else(|| host.var("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(base.join("nvim/mason/packages/netcoredbg/netcoredbg/netcoredbg"))
}

/// The commands that fetch the release and unpack it where agentdap looks (printed by `doctor`,
/// `install` and `adapter_not_found`; agentdap downloads nothing itself).
pub fn install_command(host: &dyn Host) -> String {
    let dir = data_dir(host).map_or_else(|| "~/.local/share/agentdap".to_owned(), |d| d.display().to_string());
    let dir = super::shell_quote(&dir);
    format!(
        "mkdir -p {dir} && curl -fsSL https://github.com/Samsung/netcoredbg/releases/download/{RELEASE}/{} | tar -xz -C {dir}",
        release_asset()
    )
}

/// Finds netcoredbg, first match wins: `$AGENTDAP_NETCOREDBG`, `netcoredbg` on `$PATH`,
/// agentdap's data dir (`<data>/netcoredbg/netcoredbg`, where [`install_command`] unpacks it),
/// neovim mason's copy. Only `stat`s. Errors: [`AdapterError::NotFound`] with the install
/// commands.
pub fn find_adapter(host: &dyn Host) -> Result<PathBuf, AdapterError> {
    let not_found = |detail: String| AdapterError::NotFound { adapter: NAME, detail, install: install_command(host) };
    if let Some(explicit) = host.var(ENV_OVERRIDE).filter(|v| !v.is_empty()) {
        let name = explicit.to_string_lossy().into_owned();
        return find_on_path(&name, host)
            .ok_or_else(|| not_found(format!("{ENV_OVERRIDE} = {name:?} is not an executable")));
    }
    if let Some(found) = find_on_path("netcoredbg", host) {
        return Ok(found);
    }
    let data = data_dir(host).map(|d| d.join("netcoredbg/netcoredbg"));
    [data, mason_copy(host)].into_iter().flatten().find(|p| host.is_executable(p)).ok_or_else(|| {
        not_found(format!(
            "no netcoredbg found (${ENV_OVERRIDE}, PATH, agentdap's data dir, neovim mason); it is a release download of Samsung/netcoredbg, and the program needs .NET's `dotnet`"
        ))
    })
}

/// The full recipe: `netcoredbg --interpreter=vscode` over stdio. Errors:
/// [`AdapterError::NotFound`] with the install commands.
pub fn recipe(_program: Option<&Path>, _input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    let netcoredbg = find_adapter(host)?;
    let command = AdapterCommand {
        program: netcoredbg.into_os_string(),
        args: vec![OsString::from("--interpreter=vscode")],
        cwd: None,
        env: Vec::new(),
    };
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command,
        transport: Transport::Stdio,
        launch_defaults: launch_defaults(),
        attach_defaults: attach_defaults(),
        quirks: quirks(),
        install_command: install_command(host),
        notes: Vec::new(),
    })
}

/// The text of the first `<tag>…</tag>` in `xml` (trimmed), if any: enough for the property
/// elements of an SDK-style project file.
fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{tag}>"))? + start;
    Some(xml[start..end].trim()).filter(|t| !t.is_empty())
}

/// The assembly a `.csproj` builds in the Debug configuration:
/// `<dir>/bin/Debug/<TargetFramework>/<AssemblyName>.dll` (the first of `TargetFrameworks`; the
/// project file's name when it names no `AssemblyName`), from the first 64 KiB of the file.
/// `Ok(None)` for a program that is not a `.csproj`. Errors: one sentence for the agent — the
/// project unreadable, naming no target framework, or not built (then: `dotnet build`).
pub fn built_assembly(program: &Path, host: &dyn Host) -> Result<Option<PathBuf>, String> {
    let is_project = program.extension().is_some_and(|e| e.eq_ignore_ascii_case("csproj"));
    if !is_project {
        return Ok(None);
    }
    let bytes = host.read_range(program, 0, PROJECT_CAP).ok_or_else(|| format!("cannot read {}", program.display()))?;
    let xml = String::from_utf8_lossy(&bytes);
    let framework = element(&xml, "TargetFramework")
        .or_else(|| element(&xml, "TargetFrameworks").and_then(|l| l.split(';').map(str::trim).find(|f| !f.is_empty())))
        .ok_or_else(|| {
            format!(
                "{} names no <TargetFramework> in its first {} KiB; pass the built .dll as `program`",
                program.display(),
                PROJECT_CAP / 1024
            )
        })?;
    let stem = program.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let assembly = element(&xml, "AssemblyName").map_or(stem, str::to_owned);
    let dir = program.parent().unwrap_or(Path::new("/"));
    let dll = dir.join("bin/Debug").join(framework).join(format!("{assembly}.dll"));
    if !host.is_file(&dll) {
        return Err(format!(
            "{} is not built: {} does not exist; run `dotnet build {}` first (or pass the built .dll as `program`)",
            program.display(),
            dll.display(),
            super::shell_quote(&program.to_string_lossy())
        ));
    }
    Ok(Some(dll))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::test_host::FakeHost;
    use std::collections::HashMap;

    #[test]
    fn netcoredbg_is_found_by_variable_path_data_dir_or_mason_and_otherwise_named_with_the_download() {
        let mut h = FakeHost { vars: HashMap::from([("PATH", "/usr/bin"), ("HOME", "/h")]), ..FakeHost::default() };
        let err = find_adapter(&h).map_err(|e| (e.code(), e.to_string()));
        let expected = format!(
            "netcoredbg: no netcoredbg found ($AGENTDAP_NETCOREDBG, PATH, agentdap's data dir, neovim mason); it is a release \
             download of Samsung/netcoredbg, and the program needs .NET's `dotnet`; install it with: mkdir -p \
             /h/.local/share/agentdap && curl -fsSL https://github.com/Samsung/netcoredbg/releases/download/3.2.0-1092/{} \
             | tar -xz -C /h/.local/share/agentdap",
            release_asset()
        );
        assert_eq!(err, Err(("adapter_not_found", expected)));
        h.exes.insert("/h/.local/share/nvim/mason/packages/netcoredbg/netcoredbg/netcoredbg");
        assert_eq!(
            find_adapter(&h),
            Ok(PathBuf::from("/h/.local/share/nvim/mason/packages/netcoredbg/netcoredbg/netcoredbg"))
        );
        h.exes.insert("/h/.local/share/agentdap/netcoredbg/netcoredbg");
        assert_eq!(find_adapter(&h), Ok(PathBuf::from("/h/.local/share/agentdap/netcoredbg/netcoredbg")));
        h.exes.insert("/usr/bin/netcoredbg");
        let r = recipe(None, ResolveInput::default(), &h).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (r.command.program.clone(), r.command.args.clone()),
            ("/usr/bin/netcoredbg".into(), vec!["--interpreter=vscode".into()])
        );
        assert_eq!(r.launch_defaults["type"], json!("coreclr"));
        assert_eq!(r.quirks.stop_on_entry_key, "stopAtEntry");
        h.vars.insert(ENV_OVERRIDE, "/nope");
        assert!(find_adapter(&h)
            .is_err_and(|e| e.to_string().contains("AGENTDAP_NETCOREDBG = \"/nope\" is not an executable")));
    }

    #[test]
    fn a_csproj_names_its_built_dll_or_says_to_run_dotnet_build() {
        let mut h = FakeHost::default();
        h.files.insert(
            "/w/app/App.csproj",
            b"<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <OutputType>Exe</OutputType>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n</Project>\n",
        );
        let err = built_assembly(Path::new("/w/app/App.csproj"), &h);
        assert_eq!(
            err,
            Err("/w/app/App.csproj is not built: /w/app/bin/Debug/net8.0/App.dll does not exist; run `dotnet build /w/app/App.csproj` first (or pass the built .dll as `program`)".into())
        );
        h.files.insert("/w/app/bin/Debug/net8.0/App.dll", b"MZ");
        assert_eq!(
            built_assembly(Path::new("/w/app/App.csproj"), &h),
            Ok(Some(PathBuf::from("/w/app/bin/Debug/net8.0/App.dll")))
        );
        h.files.insert(
            "/w/lib/Lib.csproj",
            b"<Project><PropertyGroup><TargetFrameworks> net6.0;net8.0</TargetFrameworks><AssemblyName>Tool</AssemblyName></PropertyGroup></Project>",
        );
        h.files.insert("/w/lib/bin/Debug/net6.0/Tool.dll", b"MZ");
        assert_eq!(
            built_assembly(Path::new("/w/lib/Lib.csproj"), &h),
            Ok(Some(PathBuf::from("/w/lib/bin/Debug/net6.0/Tool.dll")))
        );
        h.files.insert("/w/x/X.csproj", b"<Project></Project>");
        assert!(built_assembly(Path::new("/w/x/X.csproj"), &h).is_err_and(|e| e.contains("names no <TargetFramework>")));
        assert_eq!(built_assembly(Path::new("/w/app/bin/Debug/net8.0/App.dll"), &h), Ok(None));
    }
}
