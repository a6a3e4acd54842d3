//! A `pwa-node` configuration of a project's `.vscode/launch.json` on real js-debug through the
//! built binary: `${workspaceFolder}` in `program`, `env` and `args` as configured, js-debug's
//! own fields (`skipFiles`) passed on, the call's breakpoint hit, nothing left running.

use serde_json::json;

use crate::node_util::{Node, START};

const PROGRAM: &str = "const mode = process.env.APP_MODE;\n\
const argv = process.argv.slice(2);\n\
console.log('mode', mode, 'args', argv.join(','));\n\
const total = argv.length;\n\
console.log('done', total);\n";

const LAUNCH_JSON: &str = r#"{
    "version": "0.2.0",
    "configurations": [
        {
            "type": "pwa-node",
            "request": "launch",
            "name": "Launch Program",
            "skipFiles": ["<node_internals>/**"],
            "program": "${workspaceFolder}/app.js",
            "args": ["one", "two"],
            "env": {"APP_MODE": "js"}, // trailing comma next line
        },
    ],
}"#;

#[test]
fn a_node_configuration_runs_as_configured() {
    let mut n = Node::start("launch-json");
    std::fs::create_dir_all(n.dir.join(".vscode")).expect("mkdir .vscode");
    std::fs::write(n.dir.join("app.js"), PROGRAM).expect("write app.js");
    std::fs::write(n.dir.join(".vscode/launch.json"), LAUNCH_JSON).expect("write launch.json");
    let call = json!({"config": "Launch Program", "cwd": n.dir, "breakpoints": [{"path": "app.js", "line": 4}], "wait_ms": START});
    let r = n.a.ok("launch", call);
    assert_eq!(r.s["adapter"], json!("node"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(4), "{}", r.text);
    assert_eq!(n.a.ok("evaluate", json!({"expression": "mode"})).s["value"], json!("'js'"));
    assert_eq!(n.a.ok("evaluate", json!({"expression": "argv.join(',')"})).s["value"], json!("'one,two'"));
    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!(r.s["exit_code"], json!(0), "{}", r.text);
    let out = n.a.ok("output", json!({}));
    assert!(out.text.contains("mode js args one,two") && out.text.contains("done 2"), "{}", out.text);
    n.finish();
}
