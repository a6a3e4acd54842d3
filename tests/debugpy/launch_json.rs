//! The project's own configurations on the built binary with real debugpy: `launch {config}`
//! reads `.vscode/launch.json` (comments, trailing commas, `${workspaceFolder}`, `env`, `args`,
//! `cwd`) and runs the program as configured, with the call's breakpoints; `list_configs` lists
//! the configurations and what stops each; a `preLaunchTask` is refused by name and nothing runs.

use crate::agent;

use std::path::PathBuf;

use agent::{scratch, Agent};
use serde_json::json;

const PROGRAM: &str = "import os, sys\n\
mode = os.environ.get('APP_MODE')\n\
argv = sys.argv[1:]\n\
here = os.getcwd()\n\
print('mode', mode, 'args', argv, 'cwd', here, flush=True)\n\
total = len(argv)\n\
print('done', total)\n";

const LAUNCH_JSON: &str = r#"{
    // Written as VS Code's Python extension writes it, then edited by hand.
    "version": "0.2.0",
    "configurations": [
        {
            "name": "Python: app",
            "type": "debugpy",
            "request": "launch",
            "program": "${workspaceFolder}/src/app.py", /* the entry point */
            "cwd": "${workspaceFolder}/data",
            "args": ["--level", "3",],
            "env": {"APP_MODE": "staging"},
            "console": "integratedTerminal",
            "justMyCode": true,
        },
        {
            "name": "Build then run",
            "type": "debugpy",
            "request": "launch",
            "program": "${workspaceFolder}/src/app.py",
            "preLaunchTask": "build",
        },
    ],
}"#;

/// A project folder: `src/app.py`, an empty `data/`, and `.vscode/launch.json`.
fn project(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("src")).expect("mkdir src");
    std::fs::create_dir_all(dir.join("data")).expect("mkdir data");
    std::fs::create_dir_all(dir.join(".vscode")).expect("mkdir .vscode");
    std::fs::write(dir.join("src/app.py"), PROGRAM).expect("write app.py");
    std::fs::write(dir.join(".vscode/launch.json"), LAUNCH_JSON).expect("write launch.json");
    dir
}

#[test]
fn a_launch_json_configuration_runs_as_configured() {
    let dir = project("launch-json-runs");
    let app = dir.join("src/app.py");
    let mut a = Agent::start();
    let r = a
        .ok("launch", json!({"config": "Python: app", "cwd": dir, "breakpoints": [{"path": "src/app.py", "line": 6}]}));
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["path"], json!(app), "{}", r.text);
    let mode = a.ok("evaluate", json!({"expression": "mode"}));
    assert_eq!(mode.s["value"], json!("'staging'"), "{}", mode.text);
    let argv = a.ok("evaluate", json!({"expression": "argv"}));
    assert_eq!(argv.s["value"], json!("['--level', '3']"), "{}", argv.text);
    let here = a.ok("evaluate", json!({"expression": "here"}));
    assert_eq!(here.s["value"], json!(format!("'{}'", dir.join("data").display())), "{}", here.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let out = a.ok("output", json!({}));
    let printed = format!("mode staging args ['--level', '3'] cwd {}", dir.join("data").display());
    assert!(out.text.contains(&printed) && out.text.contains("done 2"), "{}", out.text);
}

#[test]
fn list_configs_lists_them_and_a_pre_launch_task_is_refused_by_name() {
    let dir = project("launch-json-list");
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"list_configs": true, "cwd": dir}));
    let list = r.s["configurations"].as_array().cloned().unwrap_or_default();
    let app = dir.join("src/app.py");
    assert_eq!(list.len(), 2, "{}", r.text);
    assert_eq!(list[0]["name"], json!("Python: app"), "{}", r.text);
    assert_eq!((list[0]["type"].clone(), list[0]["request"].clone()), (json!("debugpy"), json!("launch")));
    assert_eq!((list[0]["program"].clone(), list[0]["runnable"].clone()), (json!(app), json!(true)), "{}", r.text);
    assert_eq!((list[1]["runnable"].clone(), list[1]["field"].clone()), (json!(false), json!("preLaunchTask")));
    assert!(r.text.contains("cannot run: `preLaunchTask` runs a VS Code task"), "{}", r.text);
    assert_eq!(a.ok("sessions", json!({})).s["sessions"], json!([]), "listing started something");

    let r = a.call("launch", json!({"config": "Build then run", "cwd": dir}));
    assert!(r.is_error, "{}", r.text);
    assert_eq!(r.code(), "unsupported", "{}", r.text);
    assert!(r.text.contains("configuration `Build then run`") && r.text.contains("`preLaunchTask`"), "{}", r.text);
    assert_eq!(a.ok("sessions", json!({})).s["sessions"], json!([]), "a refused configuration started something");

    let missing = scratch("launch-json-none");
    let r = a.call("launch", json!({"config": "x", "cwd": missing}));
    assert_eq!(r.code(), "invalid_argument", "{}", r.text);
    assert!(
        r.text.contains(&format!("{} does not exist", missing.join(".vscode/launch.json").display())),
        "{}",
        r.text
    );
}

/// A `request: attach` configuration (`connect` with its port from `${env:…}`) attaches to a
/// `python -m debugpy --listen` process, stops at the call's breakpoint, and detaching leaves the
/// process running.
#[test]
fn an_attach_configuration_attaches_by_connect() {
    let program = agent::fixture("py/attach_me.py");
    let port = agent::free_port();
    let mut target = std::process::Command::new(agent::debugpy_python());
    target.args(["-m", "debugpy", "--listen", &format!("127.0.0.1:{port}"), "--wait-for-client", &program, "40"]);
    target.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    let mut target = agent::Reap(target.spawn().expect("start python -m debugpy --listen"));
    // A loaded machine starts debugpy's server slower than agentdap's connect retries last;
    // the kernel's socket table says when it listens, without a connection debugpy would see.
    let listens = agent::eventually(std::time::Duration::from_secs(30), || listening_on(port));
    assert!(listens, "python -m debugpy --listen never listened on {port}");
    let dir = scratch("launch-json-attach");
    std::fs::create_dir_all(dir.join(".vscode")).expect("mkdir .vscode");
    let config = r#"{"configurations": [{
        "name": "Python: Attach", "type": "debugpy", "request": "attach",
        "connect": {"host": "localhost", "port": "${env:LAUNCH_JSON_PORT}"}, "justMyCode": false
    }]}"#;
    std::fs::write(dir.join(".vscode/launch.json"), config).expect("write launch.json");
    let mut a = Agent::start_with(|cmd| {
        cmd.env("LAUNCH_JSON_PORT", port.to_string());
    });
    let call = json!({"config": "Python: Attach", "cwd": dir, "wait_ms": 40000,
                      "breakpoints": [{"path": program, "line": 6}]});
    let r = a.ok("launch", call);
    let r = if r.s["state"] == json!("stopped") { r } else { a.ok("wait", json!({"for": "stop", "wait_ms": 40000})) };
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);
    let entry = a.session("s1");
    assert_eq!(entry["request"], json!("attach"), "{entry}");
    assert_eq!(entry["program"], json!(format!("127.0.0.1:{port}")), "{entry}");
    a.ok("disconnect", json!({}));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(matches!(target.0.try_wait(), Ok(None)), "the attached process was ended by a detach");
}

/// Whether a socket listens on 127.0.0.1:`port` (`/proc/net/tcp`: local address `0100007F:<port
/// in hex>`, state `0A`).
fn listening_on(port: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    let local = format!("0100007F:{port:04X}");
    table.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.get(1) == Some(&local.as_str()) && f.get(3) == Some(&"0A")
    })
}
