//! The user's configuration file: custom DAP adapters, overrides of built-in recipes (README § Custom adapters) and where js-debug is (`js_debug`). Read once at start from
//! `--config`, `$AGENTDAP_CONFIG` or `$XDG_CONFIG_HOME/agentdap/config.json` (`~/.config/…` when
//! unset) — never from the project being debugged, which could otherwise make agentdap run its
//! commands (see SECURITY.md). Parsing only; nothing here spawns.
//!
//! ```json
//! {"adapters": {"mydbg": {"command": "/opt/mydbg/bin/dap", "args": ["--stdio"],
//!   "env": {"MYDBG_LOG": "0"}, "launch_defaults": {"type": "mydbg"}, "extensions": [".my"]}},
//!  "js_debug": "/opt/js-debug"}
//! ```

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::dap::adapters::AdapterKind;

mod overrides;
pub use overrides::{apply as apply_override, command_of, custom_command, custom_transport};

/// Largest config file read (bytes): it is read once, synchronously, before the loop starts.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A custom adapter (a program speaking DAP on its stdin/stdout, or over TCP), or, when its name
/// is a built-in recipe's ([`AdapterKind::name`]), an override of that recipe: what it sets
/// replaces the recipe's (`command`, `args`, `tcp`) or is merged over it (`env`,
/// `launch_defaults`, `extensions` added), and the recipe's quirks, attach shape and selection
/// stay ([`Config::override_of`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomAdapter {
    /// The executable: an absolute path, a path relative to the config file's directory (when it
    /// contains a `/`), or a bare name looked up on `PATH`. Required for a custom adapter; an
    /// override without it runs what the recipe finds.
    #[serde(default)]
    pub command: Option<String>,
    /// The adapter's arguments. An override without them keeps the recipe's.
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// Environment variables set for the adapter (on top of agentdap's, and of the recipe's for an
    /// override).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Merged under the DAP `launch` arguments (the agent's `adapter_args` win); for an override,
    /// merged over the recipe's launch defaults.
    #[serde(default)]
    pub launch_defaults: Map<String, Value>,
    /// File extensions (with the dot, e.g. `.foo`) whose programs this adapter debugs when
    /// `launch` names no adapter. They take precedence over the built-in inference (an override
    /// adds them to the recipe's own selection).
    #[serde(default)]
    pub extensions: Vec<String>,
    /// `true`: the adapter speaks DAP over TCP on a port agentdap chooses and passes in `args`
    /// as `{port}` (codelldb ≥ 1.7.0 wants `--port {port}`,
    /// simrat39/rust-tools.nvim#157); ready once a connect succeeds. `false`: stdio. An override
    /// without it keeps the recipe's transport.
    #[serde(default)]
    pub tcp: Option<bool>,
}

/// The placeholder in a TCP adapter's `args` replaced by the port agentdap chose.
pub const PORT_PLACEHOLDER: &str = "{port}";

/// The parsed configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    /// Custom adapters and overrides of built-in recipes, by name.
    pub adapters: BTreeMap<String, CustomAdapter>,
    /// js-debug's standalone DAP server (`node` adapter): its `dapDebugServer.js`, or a directory
    /// holding `src/dapDebugServer.js` or `js-debug/src/dapDebugServer.js`; a relative path is
    /// taken against the config file's directory. After `$AGENTDAP_JS_DEBUG`, before every other
    /// place agentdap looks (`dap::adapters::jsdebug::find_server`).
    pub js_debug: Option<PathBuf>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    adapters: BTreeMap<String, CustomAdapter>,
    #[serde(default)]
    js_debug: Option<PathBuf>,
}

/// Why a config file could not be used (one sentence, naming the file).
#[derive(Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Where the configuration comes from, and whether the user named it explicitly (then a missing
/// file is an error; the default location may simply not exist).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    pub explicit: bool,
}

/// Picks the file: `flag` (`--config`), else `$AGENTDAP_CONFIG`, else
/// `$XDG_CONFIG_HOME/agentdap/config.json`, else `$HOME/.config/agentdap/config.json`.
/// Never the working directory.
pub fn locate(flag: Option<&Path>, var: impl Fn(&str) -> Option<OsString>) -> Option<Location> {
    if let Some(p) = flag {
        return Some(Location { path: p.to_path_buf(), explicit: true });
    }
    if let Some(p) = var("AGENTDAP_CONFIG").filter(|v| !v.is_empty()) {
        return Some(Location { path: PathBuf::from(p), explicit: true });
    }
    let base = match var("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        _ => PathBuf::from(var("HOME").filter(|v| !v.is_empty())?).join(".config"),
    };
    Some(Location { path: base.join("agentdap/config.json"), explicit: false })
}

/// Reads and validates the file at `loc`. A default location that does not exist gives an empty
/// config. Errors: unreadable, too large, not JSON, unknown keys, invalid entries.
pub fn load(loc: &Location) -> Result<Config, ConfigError> {
    let path = &loc.path;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !loc.explicit => return Ok(Config::default()),
        Err(e) => return Err(ConfigError(format!("cannot read config file {}: {e}", path.display()))),
    };
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(ConfigError(format!("config file {} is over {MAX_CONFIG_BYTES} bytes", path.display())));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("cannot read config file {}: {e}", path.display())))?;
    let mut config = parse(&text).map_err(|e| ConfigError(format!("config file {}: {e}", path.display())))?;
    let dir = path.parent().unwrap_or(Path::new("/"));
    for command in config.adapters.values_mut().filter_map(|a| a.command.as_mut()) {
        if command.contains('/') && Path::new(command.as_str()).is_relative() {
            *command = dir.join(command.as_str()).to_string_lossy().into_owned();
        }
    }
    if let Some(js) = config.js_debug.as_mut().filter(|p| p.is_relative()) {
        *js = dir.join(&*js);
    }
    Ok(config)
}

/// Parses and validates config text. Errors: one sentence saying what is wrong and where.
pub fn parse(text: &str) -> Result<Config, String> {
    let file: File = serde_json::from_str(text).map_err(|e| format!("not a valid agentdap config: {e}"))?;
    for (name, a) in &file.adapters {
        let ok_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
        if !ok_name {
            return Err(format!("adapter name {name:?} must be letters, digits, `_`, `-` or `.`"));
        }
        match AdapterKind::from_name(name) {
            // An override names the recipe exactly as `doctor` and results do, so one recipe
            // has at most one entry (`python` and `debugpy` would otherwise both claim it).
            Some(kind) if kind.name() != name => {
                return Err(format!(
                    "adapter name {name:?} is another name of the built-in adapter `{}`; to override that recipe name the entry {:?}, otherwise choose a name that is not a built-in's",
                    kind.name(),
                    kind.name()
                ));
            }
            Some(_) => {}
            None if a.command.is_none() => {
                return Err(format!(
                    "adapter {name:?}: missing field `command` (only an entry named like a built-in adapter, which overrides its recipe, may leave it out)"
                ));
            }
            None => {}
        }
        if a.command.as_deref().is_some_and(|c| c.trim().is_empty()) {
            return Err(format!("adapter {name:?} has an empty `command`"));
        }
        let args = a.args.as_deref().unwrap_or_default();
        if a.tcp == Some(true) && !args.iter().any(|arg| arg.contains(PORT_PLACEHOLDER)) {
            return Err(format!("adapter {name:?}: a `tcp` adapter needs `{PORT_PLACEHOLDER}` in its `args`"));
        }
        if let Some(bad) = a.extensions.iter().find(|e| !e.starts_with('.') || e.len() < 2) {
            return Err(format!("adapter {name:?}: extension {bad:?} must start with a dot, like \".foo\""));
        }
    }
    if file.js_debug.as_ref().is_some_and(|p| p.as_os_str().is_empty()) {
        return Err("`js_debug` is empty; name js-debug's dapDebugServer.js or the directory holding it".into());
    }
    Ok(Config { adapters: file.adapters, js_debug: file.js_debug })
}

impl Config {
    /// The custom adapter named `name` (exact match), never an override of a built-in recipe.
    pub fn by_name(&self, name: &str) -> Option<(&str, &CustomAdapter)> {
        self.adapters
            .get_key_value(name)
            .filter(|(k, _)| AdapterKind::from_name(k).is_none())
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The entry declaring `program`'s extension (case-insensitive), custom adapter or
    /// override, if any.
    pub fn by_program(&self, program: &str) -> Option<(&str, &CustomAdapter)> {
        let ext = Path::new(program).extension()?.to_str()?.to_ascii_lowercase();
        self.adapters
            .iter()
            .find(|(_, a)| a.extensions.iter().any(|e| e[1..].eq_ignore_ascii_case(&ext)))
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The entry overriding the built-in recipe `kind`, if any (named exactly [`AdapterKind::name`]).
    pub fn override_of(&self, kind: AdapterKind) -> Option<&CustomAdapter> {
        self.adapters.get(kind.name())
    }

    /// Custom adapter names (not overrides), for error messages.
    pub fn names(&self) -> Vec<&str> {
        self.adapters.keys().map(String::as_str).filter(|k| AdapterKind::from_name(k).is_none()).collect()
    }
}

impl CustomAdapter {
    /// The command line this entry runs, for a custom adapter (the recipe's own for an override
    /// that sets no `command`): the program and its arguments.
    pub fn command_line(&self) -> Option<(&str, &[String])> {
        Some((self.command.as_deref()?, self.args.as_deref().unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn locates_flag_then_env_then_xdg_then_home_never_cwd() {
        let flag = Path::new("/etc/x.json");
        let all = [("AGENTDAP_CONFIG", "/e/c.json"), ("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")];
        let at = |p: &str, explicit| Some(Location { path: PathBuf::from(p), explicit });
        assert_eq!(locate(Some(flag), vars(&all)), at("/etc/x.json", true));
        assert_eq!(locate(None, vars(&all)), at("/e/c.json", true));
        assert_eq!(locate(None, vars(&all[1..])), at("/x/agentdap/config.json", false));
        // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
        assert_eq!(
            locate(None, vars(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")])),
            at("/h/.config/agentdap/config.json", false)
        );
        assert_eq!(locate(None, vars(&[])), None);
    }

    #[test]
    fn parses_adapters_and_rejects_bad_entries_with_a_reason() {
        let c = parse(
            r#"{"adapters": {"fake": {"command": "python3", "args": ["a.py"], "env": {"K": "v"},
               "launch_defaults": {"type": "fake"}, "extensions": [".Foo"]}}}"#,
        )
        .unwrap_or_default();
        assert_eq!(c.by_name("fake").map(|(_, a)| a.args.clone()), Some(Some(vec!["a.py".to_owned()])));
        assert_eq!(c.by_program("/w/prog.foo").map(|(n, _)| n), Some("fake"));
        assert_eq!(c.by_program("/w/prog.py"), None);
        assert_eq!(parse("{}").map(|c| c.adapters.len()), Ok(0));
        let err = |text: &str| parse(text).err().unwrap_or_default();
        assert!(err("[").starts_with("not a valid agentdap config"));
        assert!(err(r#"{"adapters": {"x": {"command": "c", "argz": []}}}"#).contains("unknown field `argz`"));
        assert!(err(r#"{"adapters": {"x": {}}}"#).contains("missing field `command`"));
        assert_eq!(err(r#"{"adapters": {"x": {"command": " "}}}"#), "adapter \"x\" has an empty `command`");
        assert!(err(r#"{"adapters": {"python": {"command": "c"}}}"#)
            .contains("override that recipe name the entry \"debugpy\""));
        assert!(err(r#"{"adapters": {"a b": {"command": "c"}}}"#).contains("must be letters"));
        assert!(err(r#"{"adapters": {"x": {"command": "c", "extensions": ["foo"]}}}"#).contains("start with a dot"));
        assert!(err(r#"{"adapters": {"x": {"command": "c", "tcp": true}}}"#).contains("needs `{port}`"));
        assert_eq!(parse(r#"{"js_debug": "/opt/js-debug"}"#).map(|c| c.js_debug), Ok(Some("/opt/js-debug".into())));
        assert!(err(r#"{"js_debug": ""}"#).contains("`js_debug` is empty"));
        assert!(err(r#"{"js_debug": 3}"#).starts_with("not a valid agentdap config"));
    }

    #[test]
    fn an_entry_named_like_a_built_in_overrides_its_recipe_and_is_no_custom_adapter() {
        let c = parse(
            r#"{"adapters": {"lldb": {"command": "/opt/llvm/bin/lldb-dap"}, "delve": {"env": {"K": "v"}},
            "mine": {"command": "m"}}}"#,
        );
        let c = c.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.override_of(AdapterKind::Lldb).and_then(|a| a.command.as_deref()), Some("/opt/llvm/bin/lldb-dap"));
        assert_eq!(c.override_of(AdapterKind::Delve).map(|a| a.command.clone()), Some(None));
        assert_eq!(c.override_of(AdapterKind::Debugpy), None);
        assert_eq!((c.by_name("lldb"), c.names()), (None, vec!["mine"]));
        let err = parse(r#"{"adapters": {"lldb-dap": {}}}"#).err().unwrap_or_default();
        assert!(err.contains("another name of the built-in adapter `lldb`"), "{err}");
        assert!(parse(r#"{"adapters": {"LLDB": {}}}"#).is_err(), "the name is exact");
    }

    #[test]
    fn the_js_debug_recipe_spells_the_port_placeholder_as_the_server_replaces_it() {
        assert_eq!(crate::dap::adapters::PORT_ARG, PORT_PLACEHOLDER);
    }

    #[test]
    fn a_relative_js_debug_path_is_taken_against_the_config_files_directory() {
        let dir = std::env::temp_dir().join(format!("agentdap-config-test-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("config.json");
        let _ = std::fs::write(&path, r#"{"js_debug": "vendor/js-debug"}"#);
        let loaded = load(&Location { path, explicit: true });
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(loaded.map(|c| c.js_debug), Ok(Some(dir.join("vendor/js-debug"))));
    }

    #[test]
    fn a_missing_default_file_is_empty_but_a_missing_named_one_is_an_error() {
        let path = PathBuf::from("/nonexistent-agentdap/config.json");
        assert_eq!(load(&Location { path: path.clone(), explicit: false }), Ok(Config::default()));
        let e = load(&Location { path, explicit: true }).err().map(|e| e.0).unwrap_or_default();
        assert!(e.starts_with("cannot read config file /nonexistent-agentdap/config.json"), "{e}");
    }
}
