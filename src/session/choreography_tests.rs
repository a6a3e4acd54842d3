//! Sans-IO tests of the start-up choreography (DAP § Overview › Initialization: `initialize` →
//! `launch`/`attach` → the `initialized` event → `setBreakpoints` per file,
//! `setFunctionBreakpoints`, `setExceptionBreakpoints` → `configurationDone` → the launch
//! response joined), against the scripted adapter of [`crate::dap::scripted`] through the
//! [`super::scripted::Rig`]. They assert only what leaves the session layer: the requests
//! written to the adapter, the `launch` call's result, actions and ledger records.

use std::time::Duration;

use serde_json::{json, Value};

use super::breakpoints::FunctionBreakpoint;
use super::scripted::{args, plan, standard_plan, Rig};
use super::Action;
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// What a spec-following adapter answers `initialize` with: configurationDone, function
/// breakpoints, and two exception filters of which `uncaught` is on by default.
fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "exceptionBreakpointFilters": [
            {"filter": "raised", "label": "Raised Exceptions", "default": false},
            {"filter": "uncaught", "label": "Uncaught Exceptions", "default": true}
        ]
    })
}

/// debugpy 1.8.22's `initialize` answer, the parts agentdap reads.
fn debugpy_capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsExceptionInfoRequest": true,
        "supportsTerminateDebuggee": true,
        "exceptionBreakpointFilters": [
            {"filter": "raised", "label": "Raised Exceptions", "default": false},
            {"filter": "uncaught", "label": "Uncaught Exceptions", "default": true},
            {"filter": "userUnhandled", "label": "User Uncaught Exceptions", "default": false}
        ]
    })
}

/// A `stackTrace` answer: one frame, `main` at `/src/app.py:3`.
fn top_frame() -> Reply {
    Reply::ok(
        json!({"stackFrames": [{"id": 1000, "name": "main", "line": 3, "column": 1, "source": {"path": "/src/app.py"}}], "totalFrames": 1}),
    )
}

fn stopped_at_breakpoint() -> Value {
    json!({"reason": "breakpoint", "threadId": 1, "allThreadsStopped": true})
}

/// The requests of `rig`'s adapter that are not stop details (`stackTrace`, `threads`).
fn start_up_commands(rig: &Rig) -> Vec<String> {
    rig.adapter.commands().into_iter().filter(|c| c != "stackTrace" && c != "threads").collect()
}

#[test]
fn start_up_requests_go_out_in_the_spec_order_with_their_exact_arguments() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(capabilities()).then("initialized", Value::Null));
    a.on("setBreakpoints", Reply::ok(json!({"breakpoints": [{"verified": true, "line": 3}]})));
    a.on("setBreakpoints", Reply::ok(json!({"breakpoints": [{"verified": true, "line": 8}]})));
    a.on("setFunctionBreakpoints", Reply::ok(json!({"breakpoints": [{"verified": true}]})));
    a.on("stackTrace", top_frame());
    let mut rig = Rig::new(a);
    let square = FunctionBreakpoint { name: "square".into(), condition: None, hit_condition: None };
    rig.s.pending_breakpoints.set_functions(vec![square]);
    let call = rig.launch(
        standard_plan(json!({"program": "/src/app.py"})),
        args(json!({"program": "/src/app.py", "breakpoints": [
            {"path": "/src/app.py", "line": 3}, {"path": "/src/lib.py", "line": 8}]})),
    );
    assert_eq!(
        rig.adapter.commands(),
        [
            "initialize",
            "launch",
            "setBreakpoints",
            "setBreakpoints",
            "setExceptionBreakpoints",
            "setFunctionBreakpoints",
            "configurationDone"
        ]
    );
    let sent = rig.adapter.received().to_vec();
    assert_eq!(sent[0]["arguments"]["adapterID"], json!("spec"));
    assert_eq!(sent[1]["arguments"], json!({"program": "/src/app.py"}), "the plan's launch arguments, verbatim");
    assert_eq!(sent[2]["arguments"], json!({"source": {"path": "/src/app.py"}, "breakpoints": [{"line": 3}]}));
    assert_eq!(sent[3]["arguments"], json!({"source": {"path": "/src/lib.py"}, "breakpoints": [{"line": 8}]}));
    assert_eq!(sent[4]["arguments"], json!({"filters": ["uncaught"]}), "none asked: the adapter's defaults");
    assert_eq!(sent[5]["arguments"], json!({"breakpoints": [{"name": "square"}]}));
    assert_eq!(sent[6].get("arguments"), None);
    assert!(rig.result(call).is_none(), "the launch waits for the first stop");

    rig.event("stopped", stopped_at_breakpoint());
    let out = rig.answered(call);
    assert_eq!(
        out.text,
        "s1 stopped (breakpoint) at app.py:3 in main() · thread 1 · rev 1\n\
         1 breakpoint(s) carried over from before this launch: square() (`set_breakpoints` with an empty list removes a file's)"
    );
    assert_eq!(
        out.structured["stop"]["location"],
        json!({"column": 1, "function": "main", "line": 3, "path": "/src/app.py"})
    );
    let kinds: Vec<&str> = rig.ledger().iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, ["session_start", "breakpoints_set", "breakpoints_set", "breakpoint_hit"]);
}

#[test]
fn initialized_before_or_after_the_launch_response_configures_once_after_launch() {
    // `initialized` right after the `initialize` response (before `launch` is even sent), and
    // only after the `launch` response: either way one configuration phase, after `launch`.
    for initialized_late in [false, true] {
        let mut a = ScriptedAdapter::new();
        if initialized_late {
            a.on("initialize", Reply::ok(capabilities()));
            a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
        } else {
            a.on("initialize", Reply::ok(capabilities()).then("initialized", Value::Null));
        }
        a.on("configurationDone", Reply::ok(Value::Null).then("stopped", stopped_at_breakpoint()));
        a.on("stackTrace", top_frame());
        let mut rig = Rig::new(a);
        let call =
            rig.launch(standard_plan(json!({"program": "/src/app.py"})), args(json!({"program": "/src/app.py"})));
        assert_eq!(
            start_up_commands(&rig),
            // The top frame's scopes: the stop result shows its locals (`stop_frame.rs`).
            ["initialize", "launch", "setExceptionBreakpoints", "configurationDone", "scopes"],
            "initialized late: {initialized_late}"
        );
        let out = rig.answered(call);
        assert_eq!(out.structured["state"], json!("stopped"), "{}", out.text);
    }
}

#[test]
fn a_launch_answered_only_after_configuration_done_is_joined_and_the_stop_reported() {
    // debugpy 1.8.22: `initialized` once `launch` arrives, the launch response after
    // configurationDone, the first stop after that.
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(debugpy_capabilities()));
    a.on(
        "launch",
        Reply::ok(Value::Null)
            .before("initialized", Value::Null)
            .then("stopped", stopped_at_breakpoint())
            .after_configuration_done(),
    );
    a.on("setBreakpoints", Reply::ok(json!({"breakpoints": [{"verified": true, "line": 3}]})));
    a.on("stackTrace", top_frame());
    let mut rig = Rig::new(a);
    let call = rig.launch(
        plan(AdapterKind::Debugpy, json!({"program": "/src/app.py"}), None),
        args(json!({"program": "/src/app.py", "breakpoints": [{"path": "/src/app.py", "line": 3}]})),
    );
    assert_eq!(
        rig.adapter.commands(),
        // Then the top frame's scopes, for the locals the stop result shows (`stop_frame.rs`).
        [
            "initialize",
            "launch",
            "setBreakpoints",
            "setExceptionBreakpoints",
            "configurationDone",
            "stackTrace",
            "scopes"
        ]
    );
    let out = rig.answered(call);
    assert!(out.text.starts_with("s1 stopped (breakpoint) at app.py:3 in main() · thread 1 · rev 1\n"), "{}", out.text);
}

#[test]
fn a_refused_launch_fails_the_call_with_the_adapters_words_and_stops_the_adapter() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(capabilities()).then("initialized", Value::Null));
    a.on("launch", Reply::error("Could not find the program '/src/missing.py'"));
    let mut rig = Rig::new(a);
    let call =
        rig.launch(standard_plan(json!({"program": "/src/missing.py"})), args(json!({"program": "/src/missing.py"})));
    let out = rig.answered(call);
    assert!(out.is_error);
    assert_eq!(out.text, "adapter_error: `launch` failed: Could not find the program '/src/missing.py'");
    assert!(rig.actions.iter().any(|a| matches!(a, Action::StopAdapter { .. })));
    let ledger = rig.ledger();
    let kinds: Vec<&str> = ledger.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, ["session_start", "request_error", "session_end"]);
    assert_eq!((ledger[2].1["how"].clone(), ledger[2].1["state"].clone()), (json!("failed"), json!("terminated")));
}

#[test]
fn a_breakpoint_of_a_refused_launch_is_said_never_set_not_never_verified() {
    // The launch was refused before the adapter said `initialized`, so no `setBreakpoints` was
    // sent: nothing the adapter said was about the breakpoint, and it is not said to be refused
    // (a fresh user's finding: "never verified" for a launch that failed before any).
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(capabilities()));
    a.on("launch", Reply::error("Could not find the program '/src/missing.py'"));
    let mut rig = Rig::new(a);
    let launch = json!({"program": "/src/missing.py", "breakpoints": [{"path": "/src/missing.py", "line": 3}]});
    let call = rig.launch(standard_plan(json!({"program": "/src/missing.py"})), args(launch));
    assert!(rig.answered(call).is_error);
    let call = rig.call(|s, key, call, now| s.disconnect(key, None, call, now));
    let out = rig.answered(call);
    let said = "1 breakpoint(s) never set (no `setBreakpoints` answer named them): missing.py:3";
    assert!(out.text.contains(said), "{}", out.text);
    assert!(!out.text.contains("never verified"), "{}", out.text);
    assert_eq!(out.structured["unset_breakpoints"], json!(["missing.py:3"]), "{}", out.structured);
}

#[test]
fn an_adapter_that_never_answers_initialize_fails_the_launch_naming_that_step() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::never());
    let mut rig = Rig::new(a);
    let call = rig.launch(
        standard_plan(json!({"program": "/src/app.py"})),
        args(json!({"program": "/src/app.py", "wait_ms": 50000})),
    );
    rig.advance(Duration::from_secs(29));
    assert!(rig.result(call).is_none(), "still within the request timeout");
    rig.advance(Duration::from_secs(2));
    let out = rig.answered(call);
    assert!(out.is_error);
    assert_eq!(
        out.text,
        "timeout: the adapter did not initialize: `initialize` got no response within 30000 ms (start-up step: initialize)"
    );
    assert_eq!(rig.adapter.commands(), ["initialize"], "nothing else was sent");
}

#[test]
fn breakpoints_given_to_launch_are_set_before_configuration_done_and_reported_as_answered() {
    let mut a = ScriptedAdapter::new();
    let mut caps = capabilities();
    caps["supportsConditionalBreakpoints"] = true.into();
    a.on("initialize", Reply::ok(caps).then("initialized", Value::Null));
    a.on(
        "setBreakpoints",
        Reply::ok(json!({"breakpoints": [
            {"id": 1, "verified": true, "line": 3},
            {"id": 2, "verified": true, "line": 12},
            {"id": 3, "verified": false, "message": "no code at line 40"}]})),
    );
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", stopped_at_breakpoint()));
    a.on("stackTrace", top_frame());
    let mut rig = Rig::new(a);
    let call = rig.launch(
        standard_plan(json!({"program": "/src/app.py"})),
        args(json!({"program": "/src/app.py", "breakpoints": [
            {"path": "/src/app.py", "line": 3}, {"path": "/src/app.py", "line": 40},
            {"path": "/src/app.py", "line": 10, "condition": "i > 2"}]})),
    );
    let commands = rig.adapter.commands();
    let set = commands.iter().position(|c| c == "setBreakpoints");
    let done = commands.iter().position(|c| c == "configurationDone");
    assert!(set.is_some() && set < done, "{commands:?}");
    assert_eq!(
        rig.adapter.last("setBreakpoints").map(|r| r["arguments"].clone()),
        Some(json!({"source": {"path": "/src/app.py"}, "breakpoints": [
            {"line": 3}, {"line": 10, "condition": "i > 2"}, {"line": 40}]})),
        "one request for the file, in line order"
    );
    let out = rig.answered(call);
    assert_eq!(
        out.text,
        "s1 stopped (breakpoint) at app.py:3 in main() · thread 1 · rev 1\n\
         1 breakpoint(s) not verified: app.py:40 (no code at line 40)\n\
         1 breakpoint(s) moved by the adapter: app.py:10 → line 12"
    );
    assert_eq!(out.structured["unverified_breakpoints"], json!(["app.py:40 (no code at line 40)"]));
    assert_eq!(out.structured["moved_breakpoints"], json!(["app.py:10 → line 12"]));
}

#[test]
fn stop_on_entry_is_the_adapters_own_entry_stop_passed_through() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(debugpy_capabilities()));
    a.on(
        "launch",
        Reply::ok(Value::Null)
            .before("initialized", Value::Null)
            .then("stopped", json!({"reason": "entry", "threadId": 1}))
            .after_configuration_done(),
    );
    a.on("stackTrace", top_frame());
    let mut rig = Rig::new(a);
    let call = rig.launch(
        plan(AdapterKind::Debugpy, json!({"program": "/src/app.py", "stopOnEntry": true}), None),
        args(json!({"program": "/src/app.py"})),
    );
    assert_eq!(rig.adapter.last("launch").map(|r| r["arguments"]["stopOnEntry"].clone()), Some(json!(true)));
    let out = rig.answered(call);
    assert!(out.text.starts_with("s1 stopped (entry) at app.py:3 in main() · thread 1 · rev 1\n"), "{}", out.text);
    assert_eq!(out.structured["stop"]["reason"], json!("entry"));
    assert_eq!(
        rig.adapter.commands().iter().filter(|c| *c == "setFunctionBreakpoints").count(),
        0,
        "no entry breakpoint"
    );
}

#[test]
fn an_entry_stop_before_the_configuration_done_and_launch_responses_answers_the_launch() {
    // lldb-dap 22.1.8 (`RuntimeQuirks::stop_before_response`): the stop at the entry function's
    // breakpoint arrives before configurationDone is answered, the launch response after it.
    let mut a = ScriptedAdapter::new();
    a.on(
        "initialize",
        Reply::ok(json!({"supportsConfigurationDoneRequest": true, "supportsFunctionBreakpoints": true})),
    );
    a.on("launch", Reply::ok(Value::Null).before("initialized", Value::Null).after_configuration_done());
    a.on("setFunctionBreakpoints", Reply::ok(json!({"breakpoints": [{"id": 1, "verified": true}]})));
    a.on(
        "configurationDone",
        Reply::ok(Value::Null)
            .before("stopped", json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [1]})),
    );
    a.on("stackTrace", top_frame());
    let mut rig = Rig::new(a);
    let call = rig.launch(
        plan(AdapterKind::Lldb, json!({"program": "/src/app"}), Some("main")),
        args(json!({"program": "/src/app"})),
    );
    let out = rig.answered(call);
    assert_eq!(out.text, "s1 stopped (breakpoint) at app.py:3 in main() · thread 1 · rev 1");
    let sent = rig.adapter.received();
    let function_sets: Vec<Value> =
        sent.iter().filter(|r| r["command"] == "setFunctionBreakpoints").map(|r| r["arguments"].clone()).collect();
    assert_eq!(
        function_sets,
        [json!({"breakpoints": [{"name": "main"}]}), json!({"breakpoints": []})],
        "the entry breakpoint in the configuration phase, removed at the stop"
    );
    assert_eq!(sent[1]["arguments"].get("stopOnEntry"), None, "not the adapter's own stop-on-entry");
}
