//! `launch {test}` on a Rust test (issue 20): agentdap builds the crate's test binaries with
//! cargo, finds the binary that has the test, runs it under lldb-dap and stops at the panic, with
//! the panic's message and the test's own frame; a passing test says it passed; an id that names
//! no test says so. The fixture crate is `tests/fixtures/rs/cart`, copied to a scratch directory
//! so its `target/` stays out of the repository.

use std::path::{Path, PathBuf};

use crate::agent::{fixture, require, scratch, Agent};
use serde_json::json;

/// The fixture crate copied into a fresh scratch directory of its own (`name`: the test's).
fn cart_crate(name: &str) -> PathBuf {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch(&format!("rust-test-run-{name}"));
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
    let dir = cart_crate("fails");
    let cwd = dir.to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|c| {
        c.env("RUST_BACKTRACE", "0");
    });
    let r = a.ok("launch", json!({"test": "tests::total_adds_tax", "cwd": cwd, "wait_ms": 50000}));
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    // The stop is in `rust_panic`; the result shows the test's own frame, its line and locals.
    assert_eq!(r.s["stop"]["location"]["function"], json!("cart::tests::total_adds_tax"), "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], json!(17), "{}", r.text);
    assert!(r.text.contains("\n→   17          assert_eq!(got, 65"), "{}", r.text);
    assert!(r.text.contains("got = 66"), "{}", r.text);
    let t = &r.s["test"];
    assert_eq!((t["runner"].clone(), t["outcome"].clone()), (json!("cargo test"), json!("failed")), "{t}");
    let message = t["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("panicked at src/lib.rs:17:9: assertion `left == right` failed: total of [10, 20, 30]"),
        "{t}"
    );
    assert!(message.contains("left: 66") && message.contains("right: 65"), "{t}");
    assert!(t["stopped_in"].as_str().unwrap_or("").contains("rust_panic"), "{t}");
    let stack = a.ok("stack_trace", json!({"levels": 20}));
    assert!(stack.text.contains("#0 __rustc::rust_panic"), "{}", stack.text);
    assert!(stack.text.contains("cart::tests::total_adds_tax at lib.rs:17"), "{}", stack.text);
    // Run on: libtest reports the failure (status 101), and the result stays "failed".
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["exit_code"], json!(101), "{}", r.text);
    assert_eq!(r.s["test"]["outcome"], json!("failed"), "{}", r.text);

    // A passing test; a test of the crate's integration-test binary, by its name alone.
    let r = a.ok("launch", json!({"test": "total_of_nothing", "cwd": cwd, "wait_ms": 50000}));
    assert_eq!(r.s["test"]["outcome"], json!("passed"), "{}", r.text);
    assert!(r.text.contains("test total_of_nothing passed, never stopped"), "{}", r.text);
    assert!(r.text.contains("`total_of_nothing` is the test tests::total_of_nothing"), "{}", r.text);
    // Its failure breakpoint is launch {test}'s own: a pass is no "never hit" news.
    assert!(!r.text.contains("never hit"), "{}", r.text);
    let r = a.ok("launch", json!({"test": "big_order", "cwd": cwd, "wait_ms": 50000}));
    assert_eq!(r.s["test"]["outcome"], json!("passed"), "{}", r.text);
    assert!(r.text.contains("test big_order of totals (test)"), "{}", r.text);

    // A `should_panic` test's panic is not its failure: the stop says so, and its end decides.
    let r = a.ok("launch", json!({"test": "huge_tax_overflows", "cwd": cwd, "wait_ms": 50000}));
    assert_eq!(r.s["test"]["outcome"], json!("thrown"), "{}", r.text);
    assert!(r.text.contains("a `should_panic` test, so the panic may be what it expects"), "{}", r.text);
    assert!(r.s["test"]["message"].as_str().unwrap_or("").contains("attempt to multiply with overflow"), "{}", r.text);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!((r.s["exit_code"].clone(), r.s["test"]["outcome"].clone()), (json!(0), json!("passed")), "{}", r.text);
    assert!(r.text.contains("passed: what it stopped at (rev 1) was what it expects"), "{}", r.text);
    // One whose panic is not the expected one: failed where it panicked.
    a.ok("launch", json!({"test": "huge_tax_says_why", "cwd": cwd, "wait_ms": 50000}));
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!((r.s["exit_code"].clone(), r.s["test"]["outcome"].clone()), (json!(101), json!("failed")), "{}", r.text);
    assert_eq!(r.s["test"]["at"], json!("lib.rs:5 in cart::total()"), "{}", r.text);

    // An id no binary lists: refused, naming where it looked; nothing starts.
    let r = a.call("launch", json!({"test": "no_such_test", "cwd": cwd, "wait_ms": 50000}));
    assert!(r.is_error, "{}", r.text);
    assert!(r.text.contains("no test matched `no_such_test` in the test binaries of"), "{}", r.text);
    assert!(r.text.contains("cart (lib)") && r.text.contains("totals (test)"), "{}", r.text);
}

#[test]
fn a_rust_test_that_does_not_build_answers_with_rustcs_error() {
    let dir = cart_crate("broken");
    std::fs::write(dir.join("tests/broken.rs"), "#[test]\nfn broken() { let x: u32 = \"no\"; }\n").expect("write");
    let mut a = Agent::start_plain(|_| {});
    let r = a.call("launch", json!({"test": "big_order", "cwd": dir.to_string_lossy(), "wait_ms": 50000}));
    assert!(r.is_error, "{}", r.text);
    assert!(r.text.contains("`cargo test --no-run` failed (exit code 101); the test was not run:"), "{}", r.text);
    assert!(r.text.contains("mismatched types"), "{}", r.text);
    assert_eq!(a.ok("sessions", json!({})).s["sessions"], json!([]), "no session was started");
}

/// breaker2: `launch` refuses a NUL byte in `args`, `cwd` or `env` (lldb-dap cuts `x\0y` to `x`
/// without a word), but `launch {test}` returns to its own path before that check: a Rust test's
/// run under lldb-dap is started with `env: {"X": "x\u0000y"}` and `args: ["a\u0000b"]`, and the
/// test runs with its input cut at the NUL. It must be refused as `launch` refuses it.
#[test]
fn a_test_launch_with_a_nul_byte_in_env_or_args_is_refused_not_cut() {
    let dir = cart_crate("nul");
    let cwd = dir.to_string_lossy().into_owned();
    let mut a = Agent::start_plain(|_| {});
    for args in [
        json!({"test": "total_of_nothing", "cwd": cwd, "env": {"X": "x\u{0}y"}, "wait_ms": 50000}),
        json!({"test": "total_of_nothing", "cwd": cwd, "args": ["a\u{0}b"], "wait_ms": 50000}),
    ] {
        let r = a.call("launch", args.clone());
        assert!(r.is_error, "{args}: the test ran with its input cut at the NUL: {}", r.text);
        assert!(r.text.contains("NUL byte"), "{args}: {}", r.text);
    }
}
