//! What the native tests share: a C program built with `gcc -g -O0` and a Go package built with
//! optimizations off (`-N -l`), each written into a test's scratch directory. Must not: start
//! agentdap or an adapter.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::agent::build;
use crate::common::go_env;

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
