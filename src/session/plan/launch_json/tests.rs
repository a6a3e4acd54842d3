//! `launch {config}` and `launch {list_configs}` read from a real `.vscode/launch.json` in a
//! scratch folder through `OsFiles`: what each type becomes, what is refused by name, what is
//! dropped with a note, and how the call's own arguments go over the configuration's.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::fields::dotenv_value;
use super::{from_project, Project};
use crate::os::files::OsFiles;
use crate::session::plan::AttachArgs;
use crate::session::LaunchArgs;

/// A scratch project folder holding `.vscode/launch.json` with `text`, and `app.py`.
fn project(tag: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentdap-launch-json-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".vscode")).unwrap();
    std::fs::write(dir.join(".vscode/launch.json"), text).unwrap();
    std::fs::write(dir.join("app.py"), "print(1)\n").unwrap();
    dir
}

fn call(dir: &std::path::Path, config: &str) -> LaunchArgs {
    LaunchArgs { cwd: Some(dir.to_string_lossy().into_owned()), config: Some(config.into()), ..LaunchArgs::default() }
}

fn launched(p: Result<Project, crate::session::ToolResult>) -> (LaunchArgs, Vec<String>) {
    match p {
        Ok(Project::Launch { args, notes }) => (args, notes),
        Ok(other) => panic!("not a launch: {other:?}"),
        Err(e) => panic!("refused: {}", e.text),
    }
}

fn attached(p: Result<Project, crate::session::ToolResult>) -> AttachArgs {
    match p {
        Ok(Project::Attach { args, .. }) => args,
        Ok(other) => panic!("not an attach: {other:?}"),
        Err(e) => panic!("refused: {}", e.text),
    }
}

fn refusal(p: Result<Project, crate::session::ToolResult>) -> String {
    match p {
        Err(e) => e.text,
        Ok(other) => panic!("not refused: {other:?}"),
    }
}

const PYTHON: &str = r#"{
    // A comment, and a trailing comma below.
    "version": "0.2.0",
    "configurations": [
        {
            "name": "app",
            "type": "debugpy",
            "request": "launch",
            "program": "${workspaceFolder}/app.py", /* inline */
            "cwd": "${workspaceFolder}/sub",
            "args": ["--n", 3],
            "env": {"MODE": "dev", "HOME_TOO": "${userHome}"},
            "python": "/opt/evil/python",
            "justMyCode": false,
            "console": "integratedTerminal",
            "presentation": {"group": "x"},
        },
        {"name": "build first", "type": "debugpy", "request": "launch", "program": "app.py", "preLaunchTask": "build"},
        {"name": "current", "type": "python", "request": "launch", "program": "${file}"},
        {"name": "ask", "type": "debugpy", "request": "launch", "program": "app.py", "args": ["${input:n}"]},
        {"name": "rb", "type": "chrome", "request": "launch"},
        {"name": "mod", "type": "debugpy", "request": "launch", "module": "flask"},
    ],
    "compounds": [{"name": "both", "configurations": ["app", "current"]}],
}"#;

#[test]
fn a_python_configuration_becomes_the_calls_arguments() {
    let dir = project("python", PYTHON);
    let (args, notes) = launched(from_project(call(&dir, "app"), &OsFiles));
    assert_eq!(args.program, dir.join("app.py").to_string_lossy());
    assert_eq!(args.cwd.as_deref(), Some(&*dir.join("sub").to_string_lossy()));
    assert_eq!(args.args, ["--n", "3"]);
    assert_eq!(args.env["MODE"], "dev");
    assert_eq!(args.env["HOME_TOO"], json!(std::env::var("HOME").unwrap_or_default()));
    assert_eq!(args.adapter.as_deref(), Some("debugpy"));
    assert_eq!(args.console.as_deref(), Some("terminal"));
    assert_eq!(Value::Object(args.adapter_args.clone()), json!({"justMyCode": false}));
    assert!(notes.iter().any(|n| n.starts_with("launch.json `python` not used")), "{notes:?}");
    assert_eq!(args.config, None);
}

#[test]
fn the_calls_own_arguments_win() {
    let dir = project("call-wins", PYTHON);
    let mut c = call(&dir, "app");
    c.args = vec!["--other".into()];
    c.env = json!({"MODE": "prod"}).as_object().cloned().unwrap_or_default();
    c.adapter_args = json!({"justMyCode": true, "python": "/usr/bin/python3"}).as_object().cloned().unwrap_or_default();
    c.stop_on_entry = Some(true);
    c.console = Some("internal".into());
    c.wait_ms = Some(1234);
    let (args, _) = launched(from_project(c, &OsFiles));
    assert_eq!(args.args, ["--other"]);
    assert_eq!(args.env["MODE"], "prod");
    assert_eq!(args.adapter_args["justMyCode"], true);
    // The agent's own `python` is an explicit choice (SECURITY.md), unlike the project's.
    assert_eq!(args.adapter_args["python"], "/usr/bin/python3");
    assert_eq!((args.stop_on_entry, args.console.as_deref(), args.wait_ms), (Some(true), Some("internal"), Some(1234)));
}

#[test]
fn what_cannot_be_honoured_is_refused_by_field() {
    let dir = project("refusals", PYTHON);
    let text = refusal(from_project(call(&dir, "build first"), &OsFiles));
    assert!(text.starts_with("unsupported: configuration `build first`"), "{text}");
    assert!(text.contains("`preLaunchTask` runs a VS Code task"), "{text}");
    let text = refusal(from_project(call(&dir, "current"), &OsFiles));
    assert!(text.contains("`${file}` (in `program`) means the editor's current file"), "{text}");
    let text = refusal(from_project(call(&dir, "ask"), &OsFiles));
    assert!(text.contains("`${input:n}` (in `args[0]`)"), "{text}");
    let text = refusal(from_project(call(&dir, "rb"), &OsFiles));
    assert!(text.contains("`type` `chrome` is not a debug type agentdap runs"), "{text}");
    let text = refusal(from_project(call(&dir, "mod"), &OsFiles));
    assert!(text.contains("`module` runs a module"), "{text}");
    let text = refusal(from_project(call(&dir, "both"), &OsFiles));
    assert!(text.contains("one of `compounds`"), "{text}");
    let text = refusal(from_project(call(&dir, "nope"), &OsFiles));
    assert!(text.contains("no configuration named `nope`; its configurations: `app`, `build first`"), "{text}");
}

#[test]
fn file_variables_take_the_calls_program() {
    let dir = project("file-var", PYTHON);
    let mut c = call(&dir, "current");
    c.program = "app.py".into();
    let (args, _) = launched(from_project(c, &OsFiles));
    assert_eq!(args.program, dir.join("app.py").to_string_lossy());
}

#[test]
fn the_listing_says_what_runs_and_what_stops_each() {
    let dir = project("list", PYTHON);
    let c = LaunchArgs { cwd: Some(dir.to_string_lossy().into_owned()), list_configs: true, ..LaunchArgs::default() };
    let Ok(Project::Listing(r)) = from_project(c, &OsFiles) else { panic!("no listing") };
    let list = r.structured["configurations"].as_array().cloned().unwrap_or_default();
    assert_eq!(list.len(), 6, "{}", r.text);
    assert_eq!(list[0]["program"], json!(dir.join("app.py")));
    assert_eq!((list[0]["runnable"].clone(), list[0]["adapter"].clone()), (json!(true), json!("debugpy")));
    assert_eq!((list[1]["runnable"].clone(), list[1]["field"].clone()), (json!(false), json!("preLaunchTask")));
    assert_eq!(list[2]["field"], "${file}");
    assert_eq!(r.structured["compounds"], json!(["both"]));
    let line =
        format!("- `build first` (debugpy launch): {} — cannot run: `preLaunchTask`", dir.join("app.py").display());
    assert!(r.text.contains(&line), "{}", r.text);
    assert_eq!(list[2]["program"], "${file}");
}

#[test]
fn a_missing_or_broken_file_is_named_with_its_place() {
    let dir = std::env::temp_dir().join(format!("agentdap-launch-json-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = refusal(from_project(call(&dir, "x"), &OsFiles));
    let path = dir.join(".vscode/launch.json");
    assert_eq!(
        text,
        format!(
            "invalid_argument: {} does not exist; pass `cwd`: the folder that holds .vscode/launch.json.",
            path.display()
        )
    );
    let dir = project("broken", "{\n  \"configurations\": [\n    {\"name\": \"a\" \"type\": \"go\"}\n  ]\n}");
    let text = refusal(from_project(call(&dir, "a"), &OsFiles));
    assert!(text.contains("is not valid JSON with comments: line 3, column 18: expected"), "{text}");
}

const NATIVE: &str = r#"{"configurations": [
    {"name": "c", "type": "cppdbg", "request": "launch", "program": "${workspaceFolder}/a.out",
     "environment": [{"name": "A", "value": "1"}], "stopAtEntry": true, "MIMode": "gdb",
     "miDebuggerPath": "/usr/bin/gdb", "setupCommands": [{"text": "-enable-pretty-printing"}], "externalConsole": false,
     "linux": {"args": ["on-linux"]}, "windows": {"args": ["on-windows"]}},
    {"name": "core", "type": "cppdbg", "request": "launch", "program": "a.out", "coreDumpPath": "core"},
    {"name": "pick", "type": "cppdbg", "request": "attach", "program": "a.out", "processId": "${command:pickProcess}"},
    {"name": "pid", "type": "lldb-dap", "request": "attach", "pid": 4242},
    {"name": "code", "type": "lldb", "request": "launch", "program": "a.out", "cargo": {"args": ["build"]}},
    {"name": "cl", "type": "lldb", "request": "launch", "program": "a.out", "sourceLanguages": ["rust"], "terminal": "integrated"},
    {"name": "go", "type": "go", "request": "launch", "mode": "test", "program": "${workspaceFolder}", "dlvToolPath": "/x/dlv",
     "console": "integratedTerminal"},
    {"name": "auto", "type": "go", "request": "launch", "mode": "auto", "program": "."},
    {"name": "remote", "type": "go", "request": "attach", "mode": "remote", "host": "127.0.0.1", "port": 2345},
    {"name": "py", "type": "debugpy", "request": "attach", "connect": {"host": "localhost", "port": 5678}, "pathMappings": []},
    {"name": "node", "type": "pwa-node", "request": "attach", "port": 9229, "address": "localhost"},
    {"name": "server", "type": "node", "request": "launch", "program": "a.js", "debugServer": 4711},
    {"name": "envf", "type": "node", "request": "launch", "program": "a.js", "envFile": "${workspaceFolder}/.env",
     "env": {"B": "from env"}}
]}"#;

#[test]
fn native_configurations_run_lldb_dap_and_drop_the_mi_keys() {
    let dir = project("native", NATIVE);
    let (args, notes) = launched(from_project(call(&dir, "c"), &OsFiles));
    assert_eq!(args.adapter.as_deref(), Some("lldb"));
    assert_eq!(args.program, dir.join("a.out").to_string_lossy());
    assert_eq!((args.env["A"].clone(), args.stop_on_entry), (json!("1"), Some(true)));
    assert_eq!(args.args, ["on-linux"]);
    assert_eq!(Value::Object(args.adapter_args), json!({}));
    let dropped: Vec<&str> = notes.iter().filter_map(|n| n.split('`').nth(1)).collect();
    assert_eq!(dropped, ["MIMode", "miDebuggerPath", "setupCommands", "externalConsole"], "{notes:?}");
    assert!(refusal(from_project(call(&dir, "core"), &OsFiles))
        .contains("`coreDumpPath` opens a core dump: use attach {core, program}"));
    let text = refusal(from_project(call(&dir, "pick"), &OsFiles));
    assert!(text.contains("`${command:pickProcess}` (in `processId`) is VS Code's process picker"), "{text}");
    let a = attached(from_project(call(&dir, "pid"), &OsFiles));
    assert_eq!((a.pid, a.adapter.as_deref()), (Some(4242), Some("lldb")));
}

#[test]
fn codelldb_go_and_attach_targets() {
    let dir = project("others", NATIVE);
    assert!(refusal(from_project(call(&dir, "code"), &OsFiles)).contains("`cargo` makes CodeLLDB run cargo"));
    let (args, notes) = launched(from_project(call(&dir, "cl"), &OsFiles));
    assert_eq!(args.adapter.as_deref(), Some("codelldb"));
    assert_eq!(Value::Object(args.adapter_args), json!({"sourceLanguages": ["rust"]}));
    assert!(notes[0].starts_with("launch.json `terminal` not used"), "{notes:?}");
    let (args, notes) = launched(from_project(call(&dir, "go"), &OsFiles));
    assert_eq!((args.adapter.as_deref(), args.program.as_str()), (Some("delve"), &*dir.to_string_lossy()));
    assert_eq!((Value::Object(args.adapter_args), args.console), (json!({"mode": "test"}), None));
    assert_eq!(notes.len(), 2, "{notes:?}");
    let (args, _) = launched(from_project(call(&dir, "auto"), &OsFiles));
    assert_eq!(Value::Object(args.adapter_args), json!({}), "mode auto is left to the recipe");
    let a = attached(from_project(call(&dir, "remote"), &OsFiles));
    let c = a.connect.expect("connect");
    assert_eq!((c.host.as_deref(), c.port, a.adapter.as_deref()), (Some("127.0.0.1"), 2345, Some("delve")));
    assert_eq!(Value::Object(a.adapter_args), json!({"mode": "remote"}));
    let a = attached(from_project(call(&dir, "py"), &OsFiles));
    let c = a.connect.expect("connect");
    assert_eq!((c.host.as_deref(), c.port), (Some("localhost"), 5678));
    assert_eq!(Value::Object(a.adapter_args), json!({"pathMappings": []}));
    let a = attached(from_project(call(&dir, "node"), &OsFiles));
    assert_eq!((a.connect.map(|c| c.port), a.adapter.as_deref()), (Some(9229), Some("node")));
    let text = refusal(from_project(call(&dir, "server"), &OsFiles));
    assert!(text.contains("`debugServer` makes VS Code connect"), "{text}");
}

#[test]
fn an_env_file_is_read_under_env() {
    let dir = project("envfile", NATIVE);
    let (_, notes) = launched(from_project(call(&dir, "envf"), &OsFiles));
    assert!(notes[0].contains("`envFile`") && notes[0].contains("does not exist"), "{notes:?}");
    std::fs::write(dir.join(".env"), "# c\nexport A=1\nB=from file\nC=\"x\\ny\" \nD='$lit' \nE=v # note\n").unwrap();
    let (args, notes) = launched(from_project(call(&dir, "envf"), &OsFiles));
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(Value::Object(args.env), json!({"A": "1", "B": "from env", "C": "x\ny", "D": "$lit", "E": "v"}));
    assert_eq!(dotenv_value(r#""a\"b\\c""#), "a\"b\\c");
}

#[test]
fn a_listing_never_expands_agentdaps_environment() {
    let home = std::env::var("HOME").unwrap_or_default();
    assert!(!home.is_empty(), "the test reads $HOME");
    let text =
        r#"{"configurations": [{"name": "e", "type": "debugpy", "request": "launch", "program": "${env:HOME}/x.py"}]}"#;
    let dir = project("env", text);
    let c = LaunchArgs { cwd: Some(dir.to_string_lossy().into_owned()), list_configs: true, ..LaunchArgs::default() };
    let Ok(Project::Listing(r)) = from_project(c, &OsFiles) else { panic!("no listing") };
    assert_eq!(r.structured["configurations"][0]["program"], json!("${env:HOME}/x.py"), "{}", r.text);
    assert!(!r.text.contains(&format!("{home}/x.py")), "{}", r.text);
}
