//! Unit tests of the js-debug recipe (`jsdebug.rs`) against a [`FakeHost`]: command and transport, launch defaults per project layout, the TypeScript runtime choice, selection and quirks.

use super::*;
use crate::dap::adapters::test_host::FakeHost;
use crate::dap::adapters::{select_on, AdapterError, AdapterKind, TerminalLaunch};
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;

const SERVER: &str = "/opt/js-debug/src/dapDebugServer.js";

/// Node on PATH, js-debug through `$AGENTDAP_JS_DEBUG`, a project `/w/app` (package.json, a tsx
/// install, `src/`), and a stray `package.json` in `$HOME` (never a root).
fn host() -> FakeHost {
    FakeHost {
        vars: HashMap::from([("PATH", "/usr/bin"), ("HOME", "/h"), ("AGENTDAP_JS_DEBUG", "/opt/js-debug")]),
        exes: HashSet::from(["/usr/bin/node", "/w/app/node_modules/.bin/tsx"]),
        files: HashMap::from([
            (SERVER, &b"//"[..]),
            ("/w/app/package.json", &b"{}"[..]),
            ("/w/app/src/main.ts", &b"let x: number = 1;"[..]),
            ("/w/app/src/main.js", &b"let x = 1;"[..]),
            (
                "/w/app/node_modules/tsx/package.json",
                &b"{\"name\": \"tsx\", \"exports\": {\"./package.json\": \"./package.json\", \".\": \"./dist/loader.mjs\"}}"[..],
            ),
            ("/w/app/node_modules/tsx/dist/loader.mjs", &b"//"[..]),
            ("/h/package.json", &b"{}"[..]),
            ("/h/scripts/tool.js", &b"1"[..]),
            ("/h/scripts/tool.ts", &b"1"[..]),
        ]),
        dirs: HashSet::from(["/opt/js-debug", "/w/app", "/w/app/src", "/h", "/h/scripts"]),
        cwd: Some("/srv/agent"),
        ..FakeHost::default()
    }
}

fn resolve(program: &str, args: Option<Value>, cwd: Option<&str>) -> Recipe {
    let input = ResolveInput { adapter_args: args.as_ref(), cwd: cwd.map(Path::new), js_debug: None };
    match recipe(Some(Path::new(program)), input, &host()) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn the_server_runs_on_node_on_the_port_it_announces() {
    let r = resolve("/w/app/src/main.js", None, None);
    assert_eq!(r.name, "node");
    assert_eq!(r.vscode_type, "pwa-node");
    assert_eq!(r.command.program, OsString::from("/usr/bin/node"));
    let args: Vec<&str> = r.command.args.iter().filter_map(|a| a.to_str()).collect();
    assert_eq!(args, [SERVER, "0", "127.0.0.1"]);
    assert_eq!(r.command.cwd, Some(PathBuf::from("/")));
    assert_eq!(r.transport, Transport::Tcp { port: PortDiscovery::AnnouncedLine { prefix: LISTENING_PREFIX } });
    assert_eq!(
        r.attach_defaults,
        json!({"type": "pwa-node", "request": "attach", "sourceMaps": true, "skipFiles": ["<node_internals>/**"]})
    );
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn launch_defaults_search_the_project_holding_the_program() {
    let r = resolve("/w/app/src/main.js", None, None);
    assert_eq!(
        r.launch_defaults,
        json!({
            "type": "pwa-node",
            "request": "launch",
            "console": "integratedTerminal",
            "outputCapture": "std",
            "sourceMaps": true,
            "skipFiles": ["<node_internals>/**"],
            "cwd": "/w/app",
            "__workspaceFolder": "/w/app",
            "outFiles": ["/w/app/**/*.(m|c|)js", "!**/node_modules/**"],
            "resolveSourceMapLocations": ["/w/app/**", "!**/node_modules/**"],
        })
    );
    // A launch cwd inside the project: the project is searched (the agent's cwd goes in as
    // `cwd` over the default).
    let r = resolve("/w/app/src/main.js", None, Some("/w/app/src"));
    assert_eq!(r.launch_defaults["__workspaceFolder"], "/w/app");
    // One holding the project is searched whole; one elsewhere is searched with the project,
    // whose source maps would otherwise be ignored (relative: against agentdap's cwd).
    let r = resolve("/w/app/src/main.js", None, Some("/w"));
    assert_eq!(r.launch_defaults["outFiles"], json!(["/w/**/*.(m|c|)js", "!**/node_modules/**"]));
    let r = resolve("/w/app/src/main.js", None, Some("sub"));
    assert_eq!(r.launch_defaults["__workspaceFolder"], "/srv/agent/sub");
    assert_eq!(
        r.launch_defaults["resolveSourceMapLocations"],
        json!(["/srv/agent/sub/**", "/w/app/**", "!**/node_modules/**"])
    );
    // No package.json below $HOME: the program's own directory, never $HOME's whole tree.
    let r = resolve("/h/scripts/tool.js", None, None);
    assert_eq!(
        (&r.launch_defaults["__workspaceFolder"], &r.launch_defaults["cwd"]),
        (&json!("/h/scripts"), &json!("/h/scripts"))
    );
    assert_eq!(search_roots(None, None, &host()), Vec::<PathBuf>::new());
    assert_eq!(project_root(Path::new("/w/app/src/main.js"), &host()), Some(PathBuf::from("/w/app")));
    assert_eq!(launch_defaults(None, &[], None).get("outFiles"), None);
}

#[test]
fn typescript_runs_through_the_projects_tsx_unless_the_agent_chose() {
    let r = resolve("/w/app/src/main.ts", None, None);
    assert_eq!(r.launch_defaults["runtimeArgs"], json!(["--import", "tsx"]));
    assert_eq!(
        r.notes,
        ["main.ts runs through the project's tsx (/w/app/node_modules/tsx): runtimeArgs [\"--import\", \"tsx\"]; \
          adapter_args runtimeArgs or runtimeExecutable choose another runtime"]
    );
    // A cwd outside the project: `tsx` would not resolve from there, its loader's path does.
    let r = resolve("/w/app/src/main.ts", None, Some("/srv/run"));
    assert_eq!(r.launch_defaults["runtimeArgs"], json!(["--import", "/w/app/node_modules/tsx/dist/loader.mjs"]));
    // The agent's runtime wins, and no runtime is added under it.
    for chosen in [json!({"runtimeExecutable": "tsx"}), json!({"runtimeArgs": ["--experimental-strip-types"]})] {
        let r = resolve("/w/app/src/main.ts", Some(chosen), None);
        assert_eq!(r.launch_defaults.get("runtimeArgs"), None);
        assert!(r.notes.is_empty());
    }
    // JavaScript never gets one.
    assert_eq!(resolve("/w/app/src/main.js", None, None).launch_defaults.get("runtimeArgs"), None);
}

#[test]
fn typescript_without_tsx_runs_on_plain_node_and_says_what_to_do() {
    let r = resolve("/h/scripts/tool.ts", None, None);
    assert_eq!(r.launch_defaults.get("runtimeArgs"), None);
    assert_eq!(
        r.notes,
        ["tool.ts is TypeScript and no tsx was found in node_modules of its directory or above, so plain node runs it: \
          js-debug runs the compiled JavaScript instead when a source map under /h/scripts names it (tsc --sourceMap), \
          and Node runs .ts itself from 23.6 (22.6: adapter_args {\"runtimeArgs\": [\"--experimental-strip-types\"]}); \
          otherwise `npm install --save-dev tsx` in the project, or pass adapter_args {\"runtimeArgs\": [\"--import\", \"tsx\"]}"]
    );
    assert_eq!(ts_runtime(Path::new("/h/scripts/tool.ts"), None, &host()), TsRuntime::Missing);
    // A tsx whose package.json names no loader file: `--import tsx` still (Node says why if not).
    let mut h = host();
    h.files.insert("/w/app/node_modules/tsx/package.json", b"{\"exports\": {\".\": \"../outside.mjs\"}}");
    assert_eq!(
        ts_runtime(Path::new("/w/app/src/main.ts"), Some(Path::new("/srv/elsewhere")), &h),
        TsRuntime::ImportTsx(PathBuf::from("/w/app"))
    );
    assert!(
        is_typescript(Path::new("a.MTS")) && is_typescript(Path::new("a.cts")) && !is_typescript(Path::new("a.tsx"))
    );
}

#[test]
fn js_and_ts_files_and_the_aliases_select_node() {
    let h = host();
    for program in ["/w/a.js", "/w/a.mjs", "/w/a.cjs", "/w/a.ts", "/w/a.mts", "/w/a.CTS"] {
        assert_eq!(select_on(None, Some(program), &h), Ok(AdapterKind::JsDebug), "{program}");
    }
    for name in ["node", "js-debug", "js", "javascript", "ts", "TypeScript"] {
        assert_eq!(select_on(Some(name), Some("/w/a.py"), &h), Ok(AdapterKind::JsDebug), "{name}");
    }
    assert_eq!(AdapterKind::JsDebug.name(), "node");
    assert_eq!(AdapterKind::JsDebug.vscode_type(), "pwa-node");
    assert!(AdapterKind::ALL.contains(&AdapterKind::JsDebug));
}

#[test]
fn agentdaps_console_either_way_is_js_debugs_integrated_terminal() {
    let terminal = AdapterKind::JsDebug.terminal_launch();
    assert_eq!(terminal, Some(TerminalLaunch { arguments: json!({"console": "integratedTerminal"}), attaches: false }));
    assert_eq!(launch_defaults(None, &[], None)["console"], "integratedTerminal");
}

#[test]
fn quirks_are_js_debugs() {
    let q = AdapterKind::JsDebug.quirks();
    assert_eq!(q.exception_filters, ["all", "uncaught"]);
    assert_eq!(q.map_exception_filter("all"), "all");
    assert_eq!(q.child_sessions, ChildSessions::StartDebuggingSameServer);
    assert!(q.variables_are_snapshots && !q.variable_paging);
    let AttachEndpoint::DebuggeeEndpoint { host_key, port_key, pid_signal, default_port, .. } = q.attach_endpoint
    else {
        panic!("{:?}", q.attach_endpoint)
    };
    assert_eq!(
        (host_key, port_key, pid_signal, default_port),
        ("address", "port", Some(crate::dap::adapters::DebuggeeSignal::Usr1), 9229)
    );
    let r = AdapterKind::JsDebug.runtime_quirks();
    assert!(r.is_inspector_notice("Debugger attached."));
    assert!(r.is_inspector_notice("Waiting for the debugger to disconnect..."));
    assert!(r.is_inspector_notice("Debugger listening on ws://127.0.0.1:9229/78e2f66f-2fe1-4330-85de-b7860bdd6f91"));
    assert!(!r.is_inspector_notice("total 3") && !RuntimeQuirks::STANDARD.is_inspector_notice("Debugger attached."));
    assert!(r.entry_stop_repeats && !r.exits_after_disconnect);
    assert_eq!(r.evaluate_context, "watch");
    assert_eq!(r.mirror_evaluate.command_prefixes, [".scripts"]);
}

#[test]
fn the_install_command_unpacks_the_release_asset_into_the_data_dir() {
    assert_eq!(release_asset(), "js-debug-dap-v1.112.0.tar.gz");
    assert_eq!(install_command(&FakeHost::default()), INSTALL);
    assert_eq!(AdapterKind::JsDebug.install_command(), INSTALL);
    let mut h = FakeHost::default();
    h.vars.insert("XDG_DATA_HOME", "/data dir");
    assert_eq!(
        install_command(&h),
        format!("mkdir -p '/data dir/agentdap' && curl -fsSL {} | tar -xz -C '/data dir/agentdap'", release_url())
    );
}

#[test]
fn a_missing_js_debug_or_node_is_adapter_not_found() {
    let mut h = host();
    h.vars.remove("AGENTDAP_JS_DEBUG");
    let err = recipe(Some(Path::new("/w/app/src/main.js")), ResolveInput::default(), &h).map(|r| r.name);
    assert!(matches!(&err, Err(AdapterError::NotFound { adapter: "node", .. })), "{err:?}");
    // The config file's path is used when the variable is unset.
    let input = ResolveInput { js_debug: Some(Path::new("/opt/js-debug")), ..ResolveInput::default() };
    assert!(recipe(None, input, &h).is_ok());
    h.exes.remove("/usr/bin/node");
    let err = recipe(None, input, &h).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("no node on PATH"), "{err}");
}
