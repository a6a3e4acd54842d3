//! What the native tests share: a C program built with `gcc -g -O0` and a Go package built with
//! optimizations off (`-N -l`), each written into a test's scratch directory, and reading
//! agentdap's `--dap-log` files. Must not: start agentdap or an adapter.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::agent::build;
use crate::common::go_env;
use serde_json::Value;

/// Writes `source` to `dir/<file>.c` and builds `dir/<file>` from it: (the source, the binary).
pub fn gcc(dir: &Path, file: &str, source: &str) -> (PathBuf, PathBuf) {
    let c = dir.join(format!("{file}.c"));
    std::fs::write(&c, source).expect("write C");
    let bin = dir.join(file);
    build(Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&bin).arg(&c), "gcc");
    (c, bin)
}

/// Writes a Go main package into `dir` (`main.go` and a `go.mod` for `module`): its `main.go`.
pub fn go_package(dir: &Path, module: &str, source: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("Go dir");
    std::fs::write(dir.join("main.go"), source).expect("write Go");
    std::fs::write(dir.join("go.mod"), format!("module example.com/{module}\n\ngo 1.19\n")).expect("write go.mod");
    dir.join("main.go")
}

/// Builds the Go package in `dir` into `dir/<bin>`, optimizations off so every local is there.
pub fn go_build(dir: &Path, bin: &str) -> PathBuf {
    let out = dir.join(bin);
    let mut cmd = Command::new("go");
    go_env(cmd.current_dir(dir).args(["build", "-gcflags=all=-N -l", "-o"]).arg(&out).arg("."));
    build(&mut cmd, "golang-go");
    out
}

/// Every entry of the `--dap-log` files under `dir` (`{ms, dir, message}`), file by file.
pub fn dap_log(dir: &std::path::Path) -> Vec<Value> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the DAP log directory") {
        let text = std::fs::read_to_string(entry.expect("an entry").path()).expect("a DAP log file");
        entries.extend(text.lines().map(|line| serde_json::from_str(line).unwrap_or(Value::Null)));
    }
    entries
}

/// The commands sent to the adapter in the `--dap-log` files under `dir`, each with its
/// `frameId` or `variablesReference` (0 when it has none), and a `response:<command>` for each
/// answer, in the order they crossed.
pub fn dap_traffic(dir: &std::path::Path) -> Vec<(String, i64)> {
    let entry = |v: &Value| {
        let m = &v["message"];
        let a = &m["arguments"];
        let id = a["frameId"].as_i64().or(a["variablesReference"].as_i64()).unwrap_or(0);
        let command = m["command"].as_str().unwrap_or("");
        match (v["dir"].as_str(), m["type"].as_str()) {
            (Some("to_adapter"), Some("request")) => Some((command.to_owned(), id)),
            (Some("from_adapter"), Some("response")) => Some((format!("response:{command}"), 0)),
            _ => None,
        }
    };
    dap_log(dir).iter().filter_map(entry).collect()
}

/// At each of the last `stops` `continue`s in `traffic` ([`dap_traffic`]), the stop's
/// `scopes` and `variables` went out with its `stackTrace`, before any answer, and no `scopes`
/// was sent twice: the reads sent ahead were the ones used
/// (`RuntimeQuirks::pipelined_stop_reads`).
pub fn assert_reads_ahead(traffic: &[(String, i64)], stops: usize) {
    let continues: Vec<usize> = traffic.iter().enumerate().filter(|(_, t)| t.0 == "continue").map(|(i, _)| i).collect();
    assert_eq!(continues.len(), stops, "{traffic:?}");
    for at in continues {
        let after: Vec<&(String, i64)> = traffic[at..].iter().filter(|t| t.0 != "response:continue").collect();
        let asked: Vec<&str> = after.iter().take(4).map(|t| t.0.as_str()).collect();
        assert_eq!(asked, ["continue", "stackTrace", "scopes", "variables"], "{traffic:?}");
        let stop: Vec<&str> =
            after[1..].iter().take_while(|t| t.0 != "continue" && t.0 != "disconnect").map(|t| t.0.as_str()).collect();
        assert_eq!(stop.iter().filter(|c| **c == "scopes").count(), 1, "{stop:?}");
    }
}
