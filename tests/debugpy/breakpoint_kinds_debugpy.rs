//! Breakpoint kinds on real debugpy 1.8 through the built binary: data and instruction
//! breakpoints and breakpoint locations answer `unsupported` naming the capability debugpy
//! lacks, before anything is sent; a function breakpoint by `kind: function` stops (its relaunch
//! replay: `ctl_debugpy::restart_relaunches_with_the_same_id_and_breakpoints_and_leaves_no_old_process`).

use crate::agent;

use agent::{fixture, Agent};
use serde_json::json;

#[test]
fn debugpy_refuses_data_and_instruction_breakpoints_and_locations_unsent_and_stops_at_a_function() {
    let mut a = Agent::start();
    let p = fixture("py/run_to.py");
    let r = a.ok("launch", json!({"program": p, "breakpoints": [{"path": p, "line": 9}]}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(9), "{}", r.text);
    let locals = a.ok("context", json!({})).s["locals"]["ref"].clone();
    let before = a.dap_log("s1").len();
    let d = a.call("set_breakpoints", json!({"kind": "data", "breakpoints": [{"ref": locals, "name": "total"}]}));
    assert_eq!(
        d.text,
        "unsupported: set_breakpoints {kind: data} is not available here: debugpy does not advertise supportsDataBreakpoints."
    );
    let i = a.call("set_breakpoints", json!({"kind": "instruction", "breakpoints": [{"address": "0x10"}]}));
    assert!(i.code() == "unsupported" && i.text.contains("supportsInstructionBreakpoints"), "{}", i.text);
    let l = a.call("breakpoints", json!({"path": p, "line": 9}));
    assert!(l.code() == "unsupported" && l.text.contains("supportsBreakpointLocationsRequest"), "{}", l.text);
    assert_eq!(a.dap_log("s1").len(), before, "nothing was sent");
    // A field of another kind is refused by name.
    let bad = a.call("set_breakpoints", json!({"kind": "function", "breakpoints": [{"name": "work", "line": 3}]}));
    assert!(
        bad.text.contains("`line` is not a field of kind function (it takes name, condition, hit_condition)"),
        "{}",
        bad.text
    );
    let f = a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": [{"name": "work"}]}));
    assert_eq!(f.s["breakpoints"][0]["verified"], json!(true), "{}", f.text);
    let r = a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("work"), "{}", r.text);
    assert_eq!(a.ok("evaluate", json!({"expression": "n"})).s["value"], json!("3"), "work(3)");
    a.ok("disconnect", json!({}));
}
