//! A `go` configuration of a project's `.vscode/launch.json` (as VS Code Go writes it: `mode:
//! auto`, `program: ${workspaceFolder}`) runs the package under Delve through the built binary,
//! with its `env` and `args`, and the call's breakpoint hit.

use crate::agent;
use crate::common::go_env;

use agent::{require, scratch, Agent};
use serde_json::json;

const SOURCE: &str = "package main\n\
\n\
import (\n\
\t\"fmt\"\n\
\t\"os\"\n\
)\n\
\n\
func main() {\n\
\tmode := os.Getenv(\"APP_MODE\")\n\
\targs := len(os.Args) - 1\n\
\tfmt.Println(\"mode\", mode, \"args\", args)\n\
}\n";

const LAUNCH_JSON: &str = r#"{
    "version": "0.2.0",
    "configurations": [
        {
            "name": "Launch Package",
            "type": "go",
            "request": "launch",
            "mode": "auto",
            "program": "${workspaceFolder}",
            "env": {"APP_MODE": "go"},
            "args": ["x", "y", "z"],
        }
    ]
}"#;

#[test]
fn a_go_configuration_builds_and_runs_the_package_under_delve() {
    require("dlv", "delve golang-go");
    let dir = scratch("launch-json-go");
    std::fs::create_dir_all(dir.join(".vscode")).expect("mkdir .vscode");
    std::fs::write(dir.join("main.go"), SOURCE).expect("write Go");
    std::fs::write(dir.join("go.mod"), "module example.com/lj\n\ngo 1.19\n").expect("write go.mod");
    std::fs::write(dir.join(".vscode/launch.json"), LAUNCH_JSON).expect("write launch.json");
    let mut a = Agent::start_plain(|cmd| {
        go_env(cmd);
    });
    let call = json!({"config": "Launch Package", "cwd": dir, "wait_ms": 50000,
                      "breakpoints": [{"path": "main.go", "line": 11}]});
    let r = a.ok("launch", call);
    assert_eq!(r.s["adapter"], json!("delve"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(11), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "mode"})).s["value"], json!("\"go\""));
    assert_eq!(a.ok("evaluate", json!({"expression": "args"})).s["value"], json!("3"));
    let log = a.dap_log("s1");
    let launch = log.iter().find(|e| e["message"]["command"] == json!("launch")).expect("launch sent");
    assert_eq!(launch["message"]["arguments"]["mode"], json!("debug"), "mode auto is agentdap's choice");
    a.ok("disconnect", json!({}));
}
