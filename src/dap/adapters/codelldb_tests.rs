//! Unit tests of the CodeLLDB recipe against a fake host: discovery order, the version files, the
//! install commands, the recipe's command and defaults, and that it is never inferred.

use super::find::{adapter_at, INSTALL};
use super::*;
use crate::dap::adapters::test_host::FakeHost;
use crate::dap::adapters::{select_on, AdapterKind, DebuggeeOutput};
use std::collections::{HashMap, HashSet};

const VENDORED: &str = "/deps/codelldb/linux-x64/adapter/codelldb";
const ON_PATH: &str = "/usr/local/bin/codelldb";
const DATA: &str = "/h/.local/share/agentdap/codelldb/extension/adapter/codelldb";
const MASON: &str = "/h/.local/share/nvim/mason/packages/codelldb/extension/adapter/codelldb";
const VSCODE_OLD: &str = "/h/.vscode/extensions/vadimcn.vscode-lldb-1.9.2/adapter/codelldb";
const VSCODE_NEW: &str = "/h/.vscode-oss/extensions/vadimcn.vscode-lldb-1.11.8/adapter/codelldb";
const CURSOR: &str = "/h/.cursor/extensions/vadimcn.vscode-lldb-1.10.0-linux-x64/adapter/codelldb";

fn host(exes: &[&'static str]) -> FakeHost {
    FakeHost {
        vars: HashMap::from([("HOME", "/h"), ("PATH", "/usr/local/bin:/usr/bin")]),
        exes: exes.iter().copied().collect(),
        dirs: HashSet::from(["/deps/codelldb/linux-x64", "/deps/vsix", "/deps/empty"]),
        ..FakeHost::default()
    }
}

fn found(h: &FakeHost) -> Result<(String, Source), String> {
    find_adapter(h).map(|f| (f.path.display().to_string(), f.source)).map_err(|e| e.to_string())
}

#[test]
fn discovery_goes_env_path_data_dir_mason_then_the_newest_extension() {
    let all = [VENDORED, ON_PATH, DATA, MASON, VSCODE_OLD, VSCODE_NEW, CURSOR];
    let mut h = host(&all);
    h.vars.insert(ENV_OVERRIDE, VENDORED);
    assert_eq!(found(&h), Ok((VENDORED.into(), Source::Env)));
    // A directory holding `adapter/codelldb` (the vendored layout) or `extension/adapter/codelldb`.
    h.vars.insert(ENV_OVERRIDE, "/deps/codelldb/linux-x64");
    assert_eq!(found(&h), Ok((VENDORED.into(), Source::Env)));
    h.exes.insert("/deps/vsix/extension/adapter/codelldb");
    assert_eq!(
        adapter_at(Path::new("/deps/vsix"), &h).map(|p| p.display().to_string()).as_deref(),
        Some("/deps/vsix/extension/adapter/codelldb")
    );
    h.vars.remove(ENV_OVERRIDE);
    assert_eq!(found(&h), Ok((ON_PATH.into(), Source::Path)));
    assert_eq!(found(&host(&all[2..])), Ok((DATA.into(), Source::DataDir)));
    assert_eq!(found(&host(&all[3..])), Ok((MASON.into(), Source::Mason)));
    // By version numbers, across VS Code, VSCodium and Cursor; a platform suffix is no version.
    assert_eq!(found(&host(&all[4..])), Ok((VSCODE_NEW.into(), Source::VsCode)));
    assert_eq!(found(&host(&[VSCODE_OLD, CURSOR])), Ok((CURSOR.into(), Source::VsCode)));
}

#[test]
fn an_explicit_location_without_codelldb_is_an_error_not_a_fall_through() {
    let mut h = host(&[ON_PATH]);
    h.vars.insert(ENV_OVERRIDE, "/deps/empty");
    let err = found(&h).err().unwrap_or_default();
    assert!(
        err.starts_with(
            "codelldb: AGENTDAP_CODELLDB = /deps/empty is neither the codelldb executable nor a directory holding \
             adapter/codelldb or extension/adapter/codelldb; install it with: mkdir -p /h/.local/share/agentdap && curl"
        ),
        "{err}"
    );
}

#[test]
fn nothing_found_says_where_it_looked_and_prints_the_unpack_commands() {
    let err = found(&host(&[])).err().unwrap_or_default();
    let want = format!(
        "codelldb: no codelldb found: $AGENTDAP_CODELLDB is unset, none is on PATH, and neither {DATA} nor {MASON} nor a \
         VS Code/VSCodium/Cursor vadimcn.vscode-lldb extension exists; install it with: mkdir -p /h/.local/share/agentdap \
         && curl -fsSL -o /h/.local/share/agentdap/codelldb.vsix {} && unzip -q -o /h/.local/share/agentdap/codelldb.vsix \
         -d /h/.local/share/agentdap/codelldb && chmod +x {DATA} /h/.local/share/agentdap/codelldb/extension/lldb/bin/*",
        find::release_url()
    );
    assert_eq!(err, want);
    assert!(find::release_url()
        .starts_with("https://github.com/vadimcn/codelldb/releases/download/v1.11.8/codelldb-linux-"));
    if std::env::consts::ARCH == "x86_64" {
        let no_home = FakeHost::default();
        assert_eq!(install_command(&no_home), INSTALL);
        assert_eq!(AdapterKind::CodeLldb.install_command(), INSTALL);
    }
}

#[test]
fn the_version_comes_from_version_json_or_the_extensions_package_json() {
    let mut h = host(&[VENDORED, VSCODE_NEW]);
    h.files.insert("/deps/codelldb/linux-x64/version.json", br#"{"version": "1.11.8", "platform": "linux-x64"}"#);
    assert_eq!(version(Path::new(VENDORED), &h).as_deref(), Some("1.11.8"));
    h.files.insert(
        "/h/.vscode-oss/extensions/vadimcn.vscode-lldb-1.11.8/package.json",
        br#"{"name": "vscode-lldb", "displayName": "CodeLLDB", "version": "1.11.8"}"#,
    );
    assert_eq!(version(Path::new(VSCODE_NEW), &h).as_deref(), Some("1.11.8"));
    h.files.insert("/usr/package.json", br#"{"name": "other", "version": "9"}"#);
    assert_eq!(version(Path::new("/usr/bin/codelldb"), &h), None);
}

#[test]
fn it_is_chosen_only_by_name_never_for_a_native_program() {
    let mut h = host(&[]);
    h.files.insert("/w/prog", b"\x7fELF\x02\x01\x01");
    assert_eq!(select_on(None, Some("/w/prog"), &h), Ok(AdapterKind::Lldb));
    for name in ["codelldb", "CodeLLDB", "vscode-lldb"] {
        assert_eq!(select_on(Some(name), Some("/w/prog"), &h), Ok(AdapterKind::CodeLldb), "{name}");
    }
    assert_eq!((AdapterKind::CodeLldb.name(), AdapterKind::CodeLldb.vscode_type()), ("codelldb", "lldb"));
    assert!(AdapterKind::ALL.contains(&AdapterKind::CodeLldb));
    assert_eq!(AdapterKind::CodeLldb.terminal_launch(), None);
}

#[test]
fn the_recipe_listens_on_a_chosen_port_with_console_output_and_rust_support_for_rust() {
    let h = host(&[ON_PATH]);
    let got = recipe(Some(Path::new("/w/c_prog")), ResolveInput::default(), &h);
    let Ok(r) = got else { panic!("{got:?}") };
    assert_eq!(r.command.program, OsString::from(ON_PATH));
    assert_eq!(r.command.args, vec![OsString::from("--port"), OsString::from("{port}")]);
    assert_eq!(r.transport, Transport::Tcp { port: PortDiscovery::Chosen });
    assert_eq!(r.launch_defaults, json!({"type": "lldb", "request": "launch", "terminal": "console"}));
    assert_eq!(r.attach_defaults, json!({"type": "lldb", "request": "attach"}));
    assert_eq!(launch_defaults(true)["sourceLanguages"], json!(["rust"]));
}

#[test]
fn quirks_say_main_is_entry_stderr_events_are_codelldbs_and_python_is_refused() {
    let q = runtime_quirks();
    assert_eq!((q.entry_function, q.evaluate_context), (Some("main"), "watch"));
    assert_eq!(q.debuggee_output, DebuggeeOutput::OutputEventsFromPty);
    assert!(q.stderr_events_are_adapters && q.reuses_ids_across_stops && q.debuggee_own_process_group);
    assert!(!q.exits_after_disconnect);
    assert_eq!(MIRROR_EVALUATE.command_prefixes, ["/py"]);
    assert!(!MIRROR_EVALUATE.contexts.contains(&"repl") && !MIRROR_EVALUATE.contexts.contains(&"_command"));
    let s = quirks();
    assert_eq!((s.attach_pid_key, s.pause_signal), ("pid", Some("SIGSTOP")));
    assert!(s.initialized_after_launch && s.launch_response_after_configuration_done);
}
