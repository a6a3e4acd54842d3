//! Real MCP clients against the built binary: the official Python SDK (`tests/python/`) and the
//! MCP Inspector CLI. Their dependencies come from `scripts/install-test-deps`; when one is
//! missing the test fails and says how to install it.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{describe, run_with_timeout};
use serde_json::Value;

#[test]
fn official_python_sdk_client_session_and_discover_probing_client() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/sdk_client.py");
    let mut cmd = Command::new(common::venv_python());
    cmd.arg(&script).arg(common::bin());
    let output = run_with_timeout(cmd, Duration::from_secs(120));
    assert!(output.status.success(), "{}", describe(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("all MCP SDK checks passed"), "{}", describe(&output));
    assert!(stdout.contains("mode=auto negotiated 2026-07-28"), "{}", describe(&output));
}

#[test]
fn mcp_inspector_cli_lists_the_tools() {
    let inspector = common::node_package("@modelcontextprotocol/inspector");
    let launcher = inspector.join("cli/build/cli.js");
    assert!(launcher.exists(), "the inspector's CLI launcher moved: {}", launcher.display());
    let mut cmd = Command::new("node");
    cmd.arg(&launcher).args(["--cli", common::bin(), "--method", "tools/list"]);
    let output = run_with_timeout(cmd, Duration::from_secs(120));
    assert!(output.status.success(), "{}", describe(&output));
    let listed: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("inspector output is not JSON ({e}): {}", describe(&output)));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools array: {listed}"))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"sessions"), "tools: {names:?}");
}

/// A whole debugging scenario driven by the official MCP Python SDK against real debugpy
/// (issue 5): launch with a breakpoint, context, evaluate, step, continue to the exit, output.
#[test]
fn official_python_sdk_drives_a_whole_debugging_scenario() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = common::venv_python();
    let mut cmd = Command::new(&python);
    cmd.arg(root.join("tests/python/sdk_debug.py")).arg(common::bin()).arg(root.join("tests/fixtures")).arg(&python);
    let output = run_with_timeout(cmd, Duration::from_secs(120));
    assert!(output.status.success(), "{}", describe(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("all SDK debugging checks passed"),
        "{}",
        describe(&output)
    );
}
