//! `launch {test}` on real debugpy with pytest and unittest (README § Recipes › A test fails):
//! a failing test stops at its assertion's line with the message, a parametrized case runs by its
//! id, a passing test says so, and an id that matches nothing says that, never "passed".

use crate::agent;

use agent::{fixture, Agent};
use serde_json::json;

/// Given to pytest after the id (`args`): no `.pytest_cache` in the repository's fixture.
const NO_CACHE: [&str; 2] = ["-p", "no:cacheprovider"];

fn project() -> String {
    fixture("tests_py")
}

#[test]
fn a_failing_pytest_test_stops_at_its_assertion_with_the_message() {
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"test": "tests/test_cart.py::test_total_fails", "cwd": project(), "args": NO_CACHE}));
    assert_eq!(r.s["state"], "stopped", "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], 12, "{}", r.text);
    let t = &r.s["test"];
    assert_eq!((t["runner"].as_str(), t["outcome"].as_str()), (Some("pytest"), Some("failed")), "{}", r.s);
    // pytest's rewritten assertion message, as the exception carries it.
    let message = t["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("AssertionError: assert 6 == 7"), "{message}");
    assert!(message.contains("where 6 = total([1, 2, 3])"), "{message}");
    assert!(
        r.text.contains("test tests/test_cart.py::test_total_fails failed at test_cart.py:12 in test_total_fails(): AssertionError: assert 6 == 7"),
        "{}",
        r.text
    );
    // The test's own frame, readable: its local and the line.
    assert!(r.text.contains("→   12      assert total(items) == 7"), "{}", r.text);
    let v = a.ok("evaluate", json!({"expression": "items"}));
    assert!(v.text.contains("[1, 2, 3]"), "{}", v.text);
    // Past the failure the run ends as pytest says: failed, never "passed".
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["exit_code"], 1, "{}", r.text);
    assert_eq!(r.s["test"]["outcome"], "failed", "{}", r.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn a_parametrized_case_runs_by_its_id() {
    let mut a = Agent::start();
    let id = "tests/test_cart.py::test_cases[case-2]";
    let r = a.ok("launch", json!({"test": id, "cwd": project(), "args": NO_CACHE}));
    assert_eq!(r.s["stop"]["location"]["line"], 18, "{}", r.text);
    assert_eq!(r.s["test"]["id"], id, "{}", r.s);
    let message = r.s["test"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("AssertionError: case 2 doubled is 4"), "{message}");
    let v = a.ok("evaluate", json!({"expression": "case"}));
    assert!(v.text.contains('2'), "{}", v.text);
    a.ok("disconnect", json!({}));
    // Case 1 passes: only that case ran.
    let r =
        a.ok("launch", json!({"test": "tests/test_cart.py::test_cases[case-1]", "cwd": project(), "args": NO_CACHE}));
    assert_eq!(
        (r.s["state"].as_str(), r.s["test"]["outcome"].as_str()),
        (Some("exited"), Some("passed")),
        "{}",
        r.text
    );
    assert!(r.text.contains("1 passed"), "{}", r.text);
}

#[test]
fn a_passing_test_says_passed_with_its_output() {
    let mut a = Agent::start();
    let r =
        a.ok("launch", json!({"test": "tests/test_cart.py::test_total_passes", "cwd": project(), "args": NO_CACHE}));
    assert_eq!(r.s["exit_code"], 0, "{}", r.text);
    assert_eq!(
        r.s["test"],
        json!({"id": "tests/test_cart.py::test_total_passes", "runner": "pytest", "outcome": "passed"})
    );
    assert!(r.text.contains("test tests/test_cart.py::test_total_passes passed, never stopped"), "{}", r.text);
    assert!(r.text.contains("1 passed"), "the runner's output tail: {}", r.text);
}

#[test]
fn a_failure_outside_the_tests_code_is_failed_never_passed() {
    let mut a = Agent::start();
    // pytest fails the test in its own setup (no such fixture): nothing of the test's raises.
    let id = "tests/test_cart.py::test_needs_a_missing_fixture";
    let r = a.ok("launch", json!({"test": id, "cwd": project(), "args": NO_CACHE}));
    assert_eq!((r.s["state"].as_str(), r.s["exit_code"].as_i64()), (Some("exited"), Some(1)), "{}", r.text);
    let t = &r.s["test"];
    assert_eq!((t["outcome"].as_str(), t["stopped"].as_bool()), (Some("failed"), Some(false)), "{}", r.s);
    assert_eq!(t["message"], format!("ERROR {id}"), "pytest's summary line: {}", r.s);
    assert!(r.text.contains("never stopped"), "{}", r.text);
    assert!(r.text.contains("fixture 'no_such_fixture' not found"), "the output tail: {}", r.text);
}

#[test]
fn an_id_that_matches_nothing_says_so() {
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"test": "tests/test_cart.py::test_nope", "cwd": project(), "args": NO_CACHE}));
    assert_eq!(r.s["test"]["outcome"], "no_match", "{}", r.text);
    assert!(r.text.contains("no test matched tests/test_cart.py::test_nope (pytest: ERROR: not found:"), "{}", r.text);
    // A file that is not there is refused before anything starts.
    let r = a.call("launch", json!({"test": "tests/test_gone.py::test_x", "cwd": project(), "args": NO_CACHE}));
    assert!(r.is_error && r.code() == "invalid_argument", "{}", r.text);
    assert!(r.text.contains("test_gone.py does not exist"), "{}", r.text);
    // Neither a program nor a test: refused, naming both.
    let r = a.call("launch", json!({"cwd": project()}));
    assert!(r.is_error && r.code() == "invalid_argument", "{}", r.text);
    assert!(r.text.contains("pass `program`, `test`"), "{}", r.text);
    // unittest: a name the class lacks.
    let r = a.ok("launch", json!({"test": "tests.test_units.TestCart.test_nope", "cwd": project()}));
    assert_eq!(
        (r.s["test"]["runner"].as_str(), r.s["test"]["outcome"].as_str()),
        (Some("unittest"), Some("no_match")),
        "{}",
        r.text
    );
    assert!(r.text.contains("has no attribute 'test_nope'"), "{}", r.text);
}

#[test]
fn a_unittest_id_stops_at_the_failing_assert_in_the_test() {
    let mut a = Agent::start();
    let r = a.ok("launch", json!({"test": "tests.test_units.TestCart.test_bad", "cwd": project()}));
    assert_eq!(r.s["test"]["runner"], "unittest", "{}", r.s);
    assert_eq!(r.s["test"]["outcome"], "failed", "{}", r.text);
    assert_eq!(r.s["stop"]["location"]["line"], 12, "{}", r.text);
    assert!(r.s["test"]["message"].as_str().is_some_and(|m| m.contains("3 != 4")), "{}", r.s);
    a.ok("disconnect", json!({}));
    let r = a.ok("launch", json!({"test": "tests.test_units.TestCart.test_ok", "cwd": project()}));
    assert_eq!(r.s["test"]["outcome"], "passed", "{}", r.text);
}

/// A test that ends its own process with status 0 in the middle of failing (`os._exit(0)` in a
/// `finally`): pytest never reports a pass, so the outcome is not known, never "passed".
#[test]
fn a_test_that_ends_its_own_process_is_not_passed() {
    let mut a = Agent::start();
    let id = "tests/test_cart.py::test_ends_the_process";
    // Only the exit counts here: `userUnhandled` would stop at the assertion first.
    let r = a.ok("launch", json!({"test": id, "cwd": project(), "args": NO_CACHE, "exception_filters": []}));
    let r = if r.s["state"] == "stopped" { a.ok("continue", json!({"wait_ms": 30000})) } else { r };
    assert_eq!(r.s["exit_code"], 0, "{}", r.text);
    assert_ne!(r.s["test"]["outcome"], json!("passed"), "{}", r.text);
    assert!(r.text.contains("without reporting a result"), "{}", r.text);
}

/// An id a runner would read as its option is refused before anything starts.
#[test]
fn a_test_id_that_is_an_option_is_refused() {
    let mut a = Agent::start();
    for id in ["--help", "-k x", " --collect-only"] {
        let r = a.call("launch", json!({"test": id, "cwd": project()}));
        assert!(r.is_error && r.code() == "invalid_argument", "{id}: {}", r.text);
        assert!(r.text.contains("which the runner would read as an option"), "{}", r.text);
    }
    assert_eq!(a.ok("sessions", json!({})).s["sessions"], json!([]));
}

/// A failed assertion in a helper the test calls: debugpy 1.8.22 shows the exception's whole
/// traceback, the helper on top though execution is paused in the test (`test_… (Current
/// frame)`), and names the exception `AssertionError       (note: full exception trace is shown
/// but execution is paused at: …)`. The stop shows the helper's line and locals and says where
/// the program is paused; the exception reads as itself.
#[test]
fn an_exception_that_left_its_frame_says_where_the_program_is_paused() {
    let mut a = Agent::start();
    let id = "tests/test_helper.py::test_checked_in_a_helper";
    let r = a.ok("launch", json!({"test": id, "cwd": project(), "args": NO_CACHE}));
    assert_eq!(r.s["stop"]["location"]["line"], 2, "the helper's assertion: {}", r.text);
    assert_eq!(r.s["stop"]["location"]["function"], "check", "{}", r.text);
    let paused = &r.s["stop"]["paused_in"];
    assert_eq!(
        (paused["function"].as_str(), paused["line"].as_u64()),
        (Some("test_checked_in_a_helper"), Some(7)),
        "{}",
        r.s
    );
    assert!(
        r.text.contains(" · paused at test_helper.py:7 in test_checked_in_a_helper(): the frames above it are the exception's traceback, already left"),
        "{}",
        r.text
    );
    assert_eq!(r.s["stop"]["exception"]["type"], "AssertionError", "{}", r.s);
    assert!(!r.text.contains("(note: full exception trace") && !r.text.contains("(Current frame)()"), "{}", r.text);
    let v = a.ok("evaluate", json!({"expression": "value"}));
    assert!(v.text.contains('6'), "the helper's frame is read: {}", v.text);
    a.ok("disconnect", json!({}));
}
