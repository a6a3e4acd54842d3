//! A JavaScript debugging scenario driven by the official MCP Python SDK (`tests/python/sdk_node.py`)
//! against real js-debug, as `tests/mcp/sdk_clients.rs` does for debugpy; afterwards no process
//! agentdap started is alive.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::agent::{self, HYGIENE};
use crate::common::{describe, run_with_timeout, venv_python};

use crate::node_util::{js_debug, marked, project, MARK_VAR};

#[test]
fn official_python_sdk_drives_a_javascript_session() {
    let (mark, dir) = project("sdk");
    let program = dir.join("closure.js");
    std::fs::copy(agent::fixture("js/closure.js"), &program).expect("copy fixture");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/sdk_node.py");
    let mut cmd = Command::new(venv_python());
    cmd.arg(script).arg(crate::common::bin()).arg(&program).arg(js_debug()).arg(MARK_VAR).arg(&mark);
    let output = run_with_timeout(cmd, Duration::from_secs(120));
    let mut left = Vec::new();
    let clean = agent::eventually(HYGIENE, || {
        left = marked(&mark, &dir, |_| false);
        left.is_empty()
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(output.status.success(), "{}", describe(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("all SDK node checks passed"), "{}", describe(&output));
    assert!(clean, "after the SDK client closed agentdap's stdin: {left:#?}");
}
