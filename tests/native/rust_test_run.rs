//! `launch {test}` on a Rust test (issue 20): agentdap builds the crate's test binaries with
//! cargo, finds the binary that has the test, runs it under lldb-dap and stops at the panic, with
//! the panic's message and the test's own frame; a passing test says it passed; an id that names
//! no test says so. The fixture crate is `tests/fixtures/rs/cart`, copied to a scratch directory
//! so its `target/` stays out of the repository.

use std::path::{Path, PathBuf};

use crate::agent::{fixture, require, scratch, Agent};
use serde_json::json;

/// The fixture crate copied into a fresh scratch directory.
fn cart_crate() -> PathBuf {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("rust-test-run");
    let from = PathBuf::from(fixture("rs/cart"));
    copy_dir(&from, &dir);
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("scratch crate");
    for entry in std::fs::read_dir(from).expect("fixture crate") {
        let entry = entry.expect("fixture entry");
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy fixture file");
        }
    }
}

#[test]
fn a_failing_rust_test_stops_at_its_panic_with_the_message_and_the_tests_frame() {
    let dir = cart_crate();
    let cwd = dir.to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"test": "tests::total_adds_tax", "cwd": cwd, "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    assert!(r.s["stop"]["location"]["function"].as_str().unwrap_or("").contains("rust_panic"), "{}", r.text);
    assert!(r.text.contains("panicked at src/lib.rs:17:9"), "{}", r.text);
    assert!(r.text.contains("left: 66"), "{}", r.text);
    let t = a.ok("stack_trace", json!({"levels": 20}));
    assert!(t.text.contains("cart::tests::total_adds_tax at lib.rs:17"), "{}", t.text);
    a.ok("disconnect", json!({}));
}
