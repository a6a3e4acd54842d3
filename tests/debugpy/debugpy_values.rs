//! Empty value strings, on the built binary with real debugpy: its `repl` context answers
//! `result: ""` for None and for statements, and agentdap says what that means instead of
//! showing nothing; `watch` shows None itself.

use crate::agent;

use agent::{fixture, Agent};
use serde_json::json;

#[test]
fn evaluate_of_none_never_reads_as_nothing() {
    let mut a = Agent::start();
    let program = fixture("py/nones.py");
    let r = a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 3}]}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    let repl = "(nothing to show: debugpy's repl shows nothing when the value is None or the input is a statement; \
                context \"watch\" shows None)";
    let r = a.ok("evaluate", json!({"expression": "n"}));
    assert_eq!(r.text, format!("n = {repl}"));
    assert_eq!((r.s["value"].clone(), r.s["value_note"].clone()), (json!(""), json!(repl)), "{}", r.s);
    let r = a.ok("evaluate", json!({"expression": "x = 5"}));
    // A statement: what it answered, not `x = 5 = …` (a second fresh user's finding).
    assert_eq!(r.text, format!("x = 5: {repl}"));
    let r = a.ok("evaluate", json!({"expression": "n", "context": "watch"}));
    assert_eq!(r.text, "n = None  (NoneType)");
    // The empty string is a value: shown as debugpy writes it.
    let r = a.ok("evaluate", json!({"expression": "s"}));
    assert_eq!(r.text, "s = ''  (str)");
    a.ok("disconnect", json!({}));
}

/// A syntax error's traceback starts in pydevd's own evaluator: those frames are left out and
/// counted, and what the expression did wrong stays (a fresh user's finding: 30 lines of
/// pydevd). Both in one `evaluate` and among `expressions`.
#[test]
fn a_syntax_error_names_the_error_without_pydevds_own_frames() {
    let mut a = Agent::start();
    let program = fixture("py/nones.py");
    a.ok("launch", json!({"program": program, "breakpoints": [{"path": program, "line": 3}]}));
    for args in [json!({"expression": "n +"}), json!({"expressions": ["n +", "s"]})] {
        let r = a.call("evaluate", args);
        assert!(r.text.contains("SyntaxError: invalid syntax"), "{}", r.text);
        assert!(r.text.contains("frames of debugpy's own evaluator left out)"), "{}", r.text);
        assert!(!r.text.contains("_pydevd_bundle"), "{}", r.text);
        assert!(r.text.lines().count() < 12, "{}", r.text);
    }
    a.ok("disconnect", json!({}));
}
