//! Where js-debug's standalone DAP server and `node` are on this host, in the order the README gives (`$AGENTDAP_JS_DEBUG`, the config file's `js_debug`, agentdap's data directory, a neovim mason install, a VS Code/VSCodium extension that has the standalone server), and which js-debug version a copy is; `stat`s, directory listings and small bounded reads only, never runs anything.

use std::path::{Path, PathBuf};

use super::{ENV_OVERRIDE, NAME, SERVER_SCRIPT};
use crate::dap::adapters::{find_on_path, AdapterError, Host};

/// How the server was found (what `doctor` says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `$AGENTDAP_JS_DEBUG`.
    Env,
    /// The config file's `js_debug`.
    Config,
    /// `<data>/js-debug`, where the release tarball unpacks.
    DataDir,
    /// neovim's mason package `js-debug-adapter`.
    Mason,
    /// A VS Code or VSCodium `ms-vscode.js-debug` extension that ships the standalone server.
    VsCode,
}

impl Source {
    /// How `doctor` names it.
    pub fn describe(self) -> &'static str {
        match self {
            Source::Env => "from $AGENTDAP_JS_DEBUG",
            Source::Config => "from the config file's js_debug",
            Source::DataDir => "agentdap's data dir",
            Source::Mason => "neovim mason's js-debug-adapter",
            Source::VsCode => "a VS Code extension",
        }
    }
}

/// A js-debug standalone server found on this host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// The script `node` runs (`…/src/dapDebugServer.js`, or the file named explicitly).
    pub script: PathBuf,
    /// Which rule found it.
    pub source: Source,
}

/// Directory entries examined per extensions directory.
const LIST_CAP: usize = 4096;

/// Bytes of a `package.json` or `manifest.json` read for the version (the key is near the top).
const VERSION_READ_CAP: usize = 64 * 1024;

/// Directories holding VS Code extensions a user installed or updated: `<name>-<version>` in each.
const USER_EXTENSION_DIRS: &[&str] = &[".vscode/extensions", ".vscode-oss/extensions", ".vscode-server/extensions"];

/// Where VS Code and VSCodium packages put their built-in extensions (`ms-vscode.js-debug`).
const BUILTIN_EXTENSION_DIRS: &[&str] = &[
    "/usr/share/code/resources/app/extensions",
    "/usr/share/code-insiders/resources/app/extensions",
    "/usr/share/codium/resources/app/extensions",
    "/usr/lib/code/extensions",
    "/opt/visual-studio-code/resources/app/extensions",
    "/snap/code/current/usr/share/code/resources/app/extensions",
];

/// The extension's directory name (built in), or its prefix (user-installed, then a version or
/// `nightly-`).
const EXTENSION: &str = "ms-vscode.js-debug";

/// agentdap's data directory as seen through `host`: `$XDG_DATA_HOME/agentdap` when absolute,
/// else `$HOME/.local/share/agentdap` (the same rule as `cli::data_dir`).
pub fn data_dir(host: &dyn Host) -> Option<PathBuf> {
    Some(data_home(host)?.join("agentdap"))
}

/// `$XDG_DATA_HOME` when absolute, else `$HOME/.local/share`.
fn data_home(host: &dyn Host) -> Option<PathBuf> {
    let xdg = host.var("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    xdg.or_else(|| Some(home(host)?.join(".local/share")))
}

fn home(host: &dyn Host) -> Option<PathBuf> {
    host.var("HOME").map(PathBuf::from).filter(|p| p.is_absolute())
}

/// The server in `path`: the file itself when it is a `.js`/`.cjs`/`.mjs` file, else
/// `src/dapDebugServer.js` or `js-debug/src/dapDebugServer.js` under the directory.
pub fn server_at(path: &Path, host: &dyn Host) -> Option<PathBuf> {
    let script_ext = path.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e, "js" | "cjs" | "mjs"));
    if script_ext && host.is_file(path) {
        return Some(path.to_path_buf());
    }
    if !host.is_dir(path) {
        return None;
    }
    [path.join(SERVER_SCRIPT), path.join("js-debug").join(SERVER_SCRIPT)].into_iter().find(|p| host.is_file(p))
}

/// Finds the server: `$AGENTDAP_JS_DEBUG`, then `config` (the config file's `js_debug`) — each,
/// when set, must hold a server (no fall-through: the user chose it) —, then `<data>/js-debug`,
/// mason's `js-debug-adapter` (`$XDG_DATA_HOME/nvim/mason/packages/…`), then the newest
/// user-installed `ms-vscode.js-debug-<version>` and the built-in ones that ship
/// `src/dapDebugServer.js` (VS Code's own build usually does not). Errors:
/// [`AdapterError::NotFound`] naming where it looked and how to get it.
pub fn find_server(host: &dyn Host, config: Option<&Path>) -> Result<Server, AdapterError> {
    if let Some(explicit) = host.var(ENV_OVERRIDE).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(explicit);
        return server_at(&path, host).map(|script| Server { script, source: Source::Env }).ok_or_else(|| {
            not_found(format!("{ENV_OVERRIDE} = {} holds no js-debug server ({})", path.display(), LAYOUT), host)
        });
    }
    if let Some(path) = config {
        return server_at(path, host).map(|script| Server { script, source: Source::Config }).ok_or_else(|| {
            not_found(
                format!("the config file's js_debug = {} holds no js-debug server ({})", path.display(), LAYOUT),
                host,
            )
        });
    }
    let data = data_dir(host).map(|d| d.join("js-debug"));
    if let Some(script) = data.as_deref().and_then(|d| server_at(d, host)) {
        return Ok(Server { script, source: Source::DataDir });
    }
    let mason = data_home(host).map(|d| d.join("nvim/mason/packages/js-debug-adapter/js-debug").join(SERVER_SCRIPT));
    if let Some(script) = mason.as_ref().filter(|p| host.is_file(p)) {
        return Ok(Server { script: script.clone(), source: Source::Mason });
    }
    if let Some(script) = vscode_extensions(host).into_iter().map(|e| e.join(SERVER_SCRIPT)).find(|p| host.is_file(p)) {
        return Ok(Server { script, source: Source::VsCode });
    }
    let data_words =
        data.map_or_else(|| "agentdap's data dir (no $XDG_DATA_HOME or $HOME)".into(), |d| d.display().to_string());
    let mason_words = mason.map_or_else(|| "neovim mason".into(), |m| m.display().to_string());
    Err(not_found(
        format!(
            "no js-debug found: ${ENV_OVERRIDE} and the config file's js_debug are unset, and neither {data_words} nor \
             {mason_words} nor a VS Code/VSCodium {EXTENSION} extension with {SERVER_SCRIPT} exists"
        ),
        host,
    ))
}

/// What a js-debug location must hold, in words.
const LAYOUT: &str =
    "name the server script itself (a .js or .cjs file), or a directory holding src/dapDebugServer.js or js-debug/src/dapDebugServer.js";

fn not_found(detail: String, host: &dyn Host) -> AdapterError {
    AdapterError::NotFound { adapter: NAME, detail, install: super::install_command(host) }
}

/// `ms-vscode.js-debug` extension directories, most likely first: user-installed ones by
/// version (newest first), then the built-in ones.
fn vscode_extensions(host: &dyn Host) -> Vec<PathBuf> {
    let mut user: Vec<(Vec<u64>, PathBuf)> = Vec::new();
    let home = home(host);
    for dir in USER_EXTENSION_DIRS.iter().filter_map(|d| home.as_ref().map(|h| h.join(d))) {
        for name in host.list_dir(&dir, LIST_CAP) {
            let Some(name) = name.to_str() else { continue };
            if let Some(version) = extension_version(name) {
                user.push((version, dir.join(name)));
            }
        }
    }
    user.sort_by(|a, b| b.0.cmp(&a.0));
    let builtin = BUILTIN_EXTENSION_DIRS.iter().map(|d| Path::new(d).join(EXTENSION));
    user.into_iter().map(|(_, p)| p).chain(builtin).collect()
}

/// The version numbers of a user-installed js-debug extension directory name
/// (`ms-vscode.js-debug-1.112.0` → `[1, 112, 0]`; the nightly `ms-vscode.js-debug-nightly-2025.3.1`
/// too); `None` for anything else (`ms-vscode.js-debug-companion-1.1.3` is another extension).
fn extension_version(name: &str) -> Option<Vec<u64>> {
    let rest = name.strip_prefix(EXTENSION)?.strip_prefix('-')?;
    let rest = rest.strip_prefix("nightly-").unwrap_or(rest);
    let numbers: Option<Vec<u64>> =
        rest.split(['.', '-']).take_while(|p| !p.is_empty()).map(|p| p.parse().ok()).collect();
    numbers.filter(|n| !n.is_empty())
}

/// `node` (else `nodejs`, Debian's old name) on `PATH`. Errors: [`AdapterError::NotFound`] with
/// the distribution's package command.
pub fn find_node(host: &dyn Host) -> Result<PathBuf, AdapterError> {
    find_on_path("node", host).or_else(|| find_on_path("nodejs", host)).ok_or_else(|| AdapterError::NotFound {
        adapter: NAME,
        detail: "no node on PATH (js-debug runs on Node.js, and so does the program)".into(),
        install: super::NODE_INSTALL.into(),
    })
}

/// The js-debug version of the copy whose server is `script`, when a file beside it says:
/// `package.json` of the release layout (`js-debug/package.json`, name `js-debug`), or a
/// vendoring `manifest.json` next to the script (`"version": "v1.112.0"`). Reads ≤ 64 KiB each.
pub fn server_version(script: &Path, host: &dyn Host) -> Option<String> {
    let dir = script.parent()?;
    let read = |p: PathBuf| host.read_range(&p, 0, VERSION_READ_CAP).map(|b| String::from_utf8_lossy(&b).into_owned());
    let package = dir.parent().map(|root| root.join("package.json")).and_then(read);
    if let Some(text) = package.filter(|t| json_string(t, "name").is_some_and(|n| n.starts_with("js-debug"))) {
        if let Some(v) = json_string(&text, "version") {
            return Some(v);
        }
    }
    let manifest = read(dir.join("manifest.json"))?;
    json_string(&manifest, "version").map(|v| v.trim_start_matches('v').to_owned())
}

/// The first `"key": "value"` string in `text` (a JSON document perhaps cut short by the read
/// cap, so not parsed whole); escapes are not decoded (names and versions have none).
pub(crate) fn json_string(text: &str, key: &str) -> Option<String> {
    let quoted = format!("\"{key}\"");
    let mut rest = text;
    while let Some(at) = rest.find(&quoted) {
        rest = &rest[at + quoted.len()..];
        let Some(value) = rest.trim_start().strip_prefix(':') else { continue };
        let Some(value) = value.trim_start().strip_prefix('"') else { continue };
        return value.find('"').map(|end| value[..end].to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::test_host::FakeHost;
    use std::collections::{HashMap, HashSet};

    const VENDORED: &str = "/deps/mcp-debugger/dist/vendor/js-debug/vsDebugServer.cjs";
    const DATA: &str = "/h/.local/share/agentdap/js-debug/src/dapDebugServer.js";
    const MASON: &str = "/h/.local/share/nvim/mason/packages/js-debug-adapter/js-debug/src/dapDebugServer.js";
    const VSCODE_OLD: &str = "/h/.vscode/extensions/ms-vscode.js-debug-1.99.0/src/dapDebugServer.js";
    const VSCODE_NEW: &str = "/h/.vscode/extensions/ms-vscode.js-debug-1.112.0/src/dapDebugServer.js";

    fn host(files: &[&'static str]) -> FakeHost {
        FakeHost {
            vars: HashMap::from([("HOME", "/h"), ("PATH", "/usr/bin")]),
            files: files.iter().map(|f| (*f, &b"//"[..])).collect(),
            dirs: HashSet::from(["/opt/jsd", "/h/.local/share/agentdap/js-debug", "/deps/release"]),
            ..FakeHost::default()
        }
    }

    fn found(h: &FakeHost, config: Option<&str>) -> Result<(String, Source), String> {
        find_server(h, config.map(Path::new))
            .map(|s| (s.script.display().to_string(), s.source))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn discovery_goes_env_config_data_dir_mason_then_vscode() {
        let all = [VENDORED, DATA, MASON, VSCODE_OLD, VSCODE_NEW, "/opt/jsd/src/dapDebugServer.js"];
        let mut h = host(&all);
        h.vars.insert("AGENTDAP_JS_DEBUG", VENDORED);
        assert_eq!(found(&h, Some("/opt/jsd")), Ok((VENDORED.into(), Source::Env)));
        h.vars.remove("AGENTDAP_JS_DEBUG");
        assert_eq!(found(&h, Some("/opt/jsd")), Ok(("/opt/jsd/src/dapDebugServer.js".into(), Source::Config)));
        assert_eq!(found(&h, None), Ok((DATA.into(), Source::DataDir)));
        let h = host(&all[2..]);
        assert_eq!(found(&h, None), Ok((MASON.into(), Source::Mason)));
        // The newest user-installed extension, by version numbers, not by name.
        let h = host(&all[3..5]);
        assert_eq!(found(&h, None), Ok((VSCODE_NEW.into(), Source::VsCode)));
        let builtin = "/usr/share/codium/resources/app/extensions/ms-vscode.js-debug/src/dapDebugServer.js";
        assert_eq!(found(&host(&[builtin]), None), Ok((builtin.into(), Source::VsCode)));
        // XDG_DATA_HOME moves both agentdap's data dir and mason's.
        let mut h = host(&["/x/agentdap/js-debug/src/dapDebugServer.js"]);
        h.vars.insert("XDG_DATA_HOME", "/x");
        h.dirs.insert("/x/agentdap/js-debug");
        assert_eq!(found(&h, None), Ok(("/x/agentdap/js-debug/src/dapDebugServer.js".into(), Source::DataDir)));
    }

    #[test]
    fn an_explicit_location_without_a_server_is_an_error_not_a_fall_through() {
        let mut h = host(&[DATA, "/opt/jsd/README.md"]);
        h.vars.insert("AGENTDAP_JS_DEBUG", "/opt/jsd");
        let err = found(&h, None).err().unwrap_or_default();
        assert!(
            err.starts_with(
                "node: AGENTDAP_JS_DEBUG = /opt/jsd holds no js-debug server (name the server script itself"
            ),
            "{err}"
        );
        h.vars.remove("AGENTDAP_JS_DEBUG");
        let err = found(&h, Some("/nowhere/js-debug")).err().unwrap_or_default();
        assert!(
            err.starts_with("node: the config file's js_debug = /nowhere/js-debug holds no js-debug server"),
            "{err}"
        );
        // The release tarball unpacked as is (`js-debug/src/…`), or into its own directory.
        assert_eq!(
            server_at(Path::new("/deps/release"), &host(&["/deps/release/js-debug/src/dapDebugServer.js"])),
            Some(PathBuf::from("/deps/release/js-debug/src/dapDebugServer.js"))
        );
        assert_eq!(server_at(Path::new("/deps/release/README.md"), &host(&["/deps/release/README.md"])), None);
    }

    #[test]
    fn nothing_found_says_where_it_looked_and_how_to_get_it() {
        // A built-in VS Code extension without the standalone server does not count.
        let h = host(&["/usr/share/code/resources/app/extensions/ms-vscode.js-debug/src/extension.js"]);
        let err = found(&h, None).err().unwrap_or_default();
        assert_eq!(
            err,
            "node: no js-debug found: $AGENTDAP_JS_DEBUG and the config file's js_debug are unset, and neither \
             /h/.local/share/agentdap/js-debug nor \
             /h/.local/share/nvim/mason/packages/js-debug-adapter/js-debug/src/dapDebugServer.js nor a VS Code/VSCodium \
             ms-vscode.js-debug extension with src/dapDebugServer.js exists; install it with: \
             mkdir -p /h/.local/share/agentdap && curl -fsSL \
             https://github.com/microsoft/vscode-js-debug/releases/download/v1.112.0/js-debug-dap-v1.112.0.tar.gz \
             | tar -xz -C /h/.local/share/agentdap"
        );
    }

    #[test]
    fn extension_names_and_versions() {
        assert_eq!(extension_version("ms-vscode.js-debug-1.112.0"), Some(vec![1, 112, 0]));
        assert_eq!(extension_version("ms-vscode.js-debug-nightly-2025.3.117"), Some(vec![2025, 3, 117]));
        assert_eq!(extension_version("ms-vscode.js-debug-companion-1.1.3"), None);
        assert_eq!(extension_version("ms-vscode.js-debug"), None);
        assert_eq!(extension_version("ms-python.python-2024.1.0"), None);
    }

    #[test]
    fn node_on_path_else_nodejs_else_the_package_command() {
        let mut h = host(&[]);
        h.exes.insert("/usr/bin/nodejs");
        assert_eq!(find_node(&h), Ok(PathBuf::from("/usr/bin/nodejs")));
        h.exes.insert("/usr/bin/node");
        assert_eq!(find_node(&h), Ok(PathBuf::from("/usr/bin/node")));
        let err = find_node(&host(&[])).map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err("node: no node on PATH (js-debug runs on Node.js, and so does the program); install it with: apt-get install nodejs".into())
        );
    }

    #[test]
    fn the_version_comes_from_the_release_package_json_or_a_vendoring_manifest() {
        let mut h = host(&[]);
        h.files.insert("/r/js-debug/src/dapDebugServer.js", b"//");
        h.files.insert(
            "/r/js-debug/package.json",
            b"{\n  \"name\": \"js-debug\",\n  \"version\": \"1.112.0\",\n  \"engines\": {}}",
        );
        assert_eq!(server_version(Path::new("/r/js-debug/src/dapDebugServer.js"), &h).as_deref(), Some("1.112.0"));
        // mcp-debugger's vendored copy: its package.json is a CommonJS marker (0.0.0), the
        // manifest says the release.
        h.files.insert(
            "/deps/mcp-debugger/dist/vendor/js-debug/package.json",
            b"{\"name\": \"vendored-js-debug-runtime\", \"version\": \"0.0.0\"}",
        );
        h.files.insert("/deps/mcp-debugger/dist/vendor/package.json", b"{\"name\": \"other\", \"version\": \"9\"}");
        h.files.insert(
            "/deps/mcp-debugger/dist/vendor/js-debug/manifest.json",
            b"{\"source\": \"prebuilt\", \"version\": \"v1.112.0\", \"asset\": \"js-debug-dap-v1.112.0.tar.gz\"}",
        );
        assert_eq!(server_version(Path::new(VENDORED), &h).as_deref(), Some("1.112.0"));
        assert_eq!(server_version(Path::new("/elsewhere/server.js"), &h), None);
        assert_eq!(json_string("{\"version\" : \"2\"}", "version").as_deref(), Some("2"));
        assert_eq!(
            json_string("{\"versions\": {\"version\": 3}, \"version\": \"4\"}", "version").as_deref(),
            Some("4")
        );
    }
}
