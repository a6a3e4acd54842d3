//! A `cppdbg` configuration of a project's `.vscode/launch.json` (as VS Code's C/C++ extension
//! writes it: `environment`, `stopAtEntry`, `MIMode`, `setupCommands`) runs a C program under
//! lldb-dap through the built binary: the environment and arguments as configured, the call's
//! breakpoint hit, the gdb/MI keys named as left out.

use crate::agent;

use std::process::Command;

use agent::{build, require, scratch, Agent};
use serde_json::json;

const SOURCE: &str = "#include <stdio.h>\n\
#include <stdlib.h>\n\
int main(int argc, char **argv) {\n\
    const char *mode = getenv(\"APP_MODE\");\n\
    int n = argc;\n\
    printf(\"mode %s argc %d\\n\", mode ? mode : \"-\", n);\n\
    return 0;\n\
}\n";

const LAUNCH_JSON: &str = r#"{
    "version": "0.2.0",
    "configurations": [
        {
            "name": "(gdb) Launch",
            "type": "cppdbg",
            "request": "launch",
            "program": "${workspaceFolder}/build/app",
            "args": ["--fast", "x"],
            "stopAtEntry": false,
            "cwd": "${workspaceFolder}",
            "environment": [{"name": "APP_MODE", "value": "native"}],
            "externalConsole": false,
            "MIMode": "gdb",
            "setupCommands": [
                // As the extension's template has it.
                {"description": "Enable pretty-printing for gdb", "text": "-enable-pretty-printing", "ignoreFailures": true},
            ],
        },
    ],
}"#;

#[test]
fn a_cppdbg_configuration_runs_under_lldb_dap() {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("launch-json-cppdbg");
    std::fs::create_dir_all(dir.join("build")).expect("mkdir build");
    std::fs::create_dir_all(dir.join(".vscode")).expect("mkdir .vscode");
    std::fs::write(dir.join("main.c"), SOURCE).expect("write C");
    std::fs::write(dir.join(".vscode/launch.json"), LAUNCH_JSON).expect("write launch.json");
    build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(dir.join("build/app")).arg(dir.join("main.c")), "gcc");
    let mut a = Agent::start_plain(|_| {});
    let r =
        a.ok("launch", json!({"config": "(gdb) Launch", "cwd": dir, "breakpoints": [{"path": "main.c", "line": 6}]}));
    assert_eq!(r.s["adapter"], json!("lldb"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);
    assert!(r.text.contains("launch.json `MIMode` not used"), "{}", r.text);
    assert!(r.text.contains("launch.json `setupCommands` not used"), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "n"})).s["value"], json!("3"));
    let mode = a.ok("evaluate", json!({"expression": "mode"}));
    assert!(mode.s["value"].as_str().unwrap_or_default().contains("\"native\""), "{}", mode.text);
    let arg = a.ok("evaluate", json!({"expression": "argv[1]"}));
    assert!(arg.s["value"].as_str().unwrap_or_default().contains("\"--fast\""), "{}", arg.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let out = a.ok("output", json!({}));
    assert!(out.text.contains("mode native argc 3"), "{}", out.text);
}

/// `type: lldb` is CodeLLDB's in VS Code: it runs CodeLLDB when installed, and where it is not,
/// the answer is `adapter_not_found` saying how to run the configuration under lldb-dap.
#[test]
fn an_lldb_configuration_runs_codelldb_or_says_how_to_use_lldb_dap() {
    let codelldb = std::env::var_os("AGENTDAP_CODELLDB").filter(|p| std::path::Path::new(p).exists());
    assert!(codelldb.is_some(), "test dependency missing: CodeLLDB; set AGENTDAP_CODELLDB as scripts/test does");
    let dir = scratch("launch-json-codelldb");
    std::fs::create_dir_all(dir.join(".vscode")).expect("mkdir .vscode");
    std::fs::write(dir.join("main.c"), SOURCE).expect("write C");
    let config = r#"{"configurations": [{"name": "cl", "type": "lldb", "request": "launch",
        "program": "${workspaceFolder}/app", "args": ["a"], "env": {"APP_MODE": "code"}}]}"#;
    std::fs::write(dir.join(".vscode/launch.json"), config).expect("write launch.json");
    build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(dir.join("app")).arg(dir.join("main.c")), "gcc");
    let call = json!({"config": "cl", "cwd": dir, "breakpoints": [{"path": "main.c", "line": 6}]});

    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", call.clone());
    assert_eq!(r.s["adapter"], json!("codelldb"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "n"})).s["value"], json!("2"));
    a.ok("disconnect", json!({}));

    let mut a = Agent::start_plain(|cmd| {
        cmd.env("AGENTDAP_CODELLDB", dir.join("no-codelldb"));
    });
    let r = a.call("launch", call.clone());
    assert_eq!(r.code(), "adapter_not_found", "{}", r.text);
    assert!(r.text.contains("pass `adapter: \"lldb\"` in the call"), "{}", r.text);
    let mut with_lldb = call;
    with_lldb["adapter"] = json!("lldb");
    let r = a.ok("launch", with_lldb);
    assert_eq!(r.s["adapter"], json!("lldb"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(6), "{}", r.text);
}
