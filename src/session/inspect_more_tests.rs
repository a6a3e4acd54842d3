//! Sans-IO tests of the inspect additions of `evaluate {expressions, hex}`, `variables {hex}`,
//! `continue {reverse}`, `modules {sources}` and `dap_request`'s unanswered requests, against
//! the scripted adapter through [`super::scripted::Rig`]: what no adapter here does (reverse
//! execution), and proof that a refusal sent nothing. Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::scripted::{args, standard_plan, Rig};
use super::tools::inspect::{Page, Target};
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// A spec-following adapter advertising `caps`, stopped at a breakpoint in `main` (frame 7) once
/// launched.
fn adapter(caps: Value) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    let mut init = json!({"supportsConfigurationDoneRequest": true});
    if let (Some(m), Some(extra)) = (init.as_object_mut(), caps.as_object()) {
        m.extend(extra.clone());
    }
    a.on("initialize", Reply::ok(init));
    let stopped = json!({"reason": "breakpoint", "threadId": 1});
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", stopped));
    a.on("threads", Reply::ok(json!({"threads": [{"id": 1, "name": "main"}]})));
    a.on(
        "stackTrace",
        Reply::ok(json!({"stackFrames": [{"id": 7, "name": "main", "line": 9, "source": {"path": "/src/prog.c"}}]})),
    );
    a
}

fn launched(a: ScriptedAdapter) -> Rig {
    let mut rig = Rig::new(a);
    let launch = rig.launch(
        standard_plan(json!({"program": "/src/prog"})),
        args(json!({"program": "/src/prog", "stop_on_entry": false})),
    );
    let out = rig.answered(launch);
    assert!(out.text.contains("stopped (breakpoint)"), "{}", out.text);
    rig
}

#[test]
fn reverse_continue_is_refused_naming_supports_step_back_and_nothing_is_sent() {
    let mut rig = launched(adapter(json!({})));
    let sent = rig.adapter.commands().len();
    let call = rig.call(|s, key, call, now| s.resume(key, None, true, None, call, now));
    let out = rig.answered(call);
    assert_eq!(
        out.text,
        "unsupported: continue {reverse} is not available here: spec does not advertise supportsStepBack."
    );
    assert_eq!(rig.adapter.commands().len(), sent, "nothing was sent: {:?}", rig.adapter.commands());
}

#[test]
fn an_adapter_with_step_back_gets_reverse_continue_and_its_stop_is_reported() {
    let mut a = adapter(json!({"supportsStepBack": true}));
    a.on("reverseContinue", Reply::ok(Value::Null).then("stopped", json!({"reason": "breakpoint", "threadId": 1})));
    let mut rig = launched(a);
    let call = rig.call(|s, key, call, now| s.resume(key, None, true, None, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("stopped (breakpoint) at prog.c:9"), "{}", out.text);
    assert_eq!(rig.adapter.last("reverseContinue").map(|r| r["arguments"].clone()), Some(json!({"threadId": 1})));
}

#[test]
fn several_expressions_go_out_in_order_in_one_frame_and_one_error_is_that_ones() {
    let mut a = adapter(json!({}));
    a.on("evaluate", Reply::ok(json!({"result": "42", "type": "int", "variablesReference": 0})));
    a.on("evaluate", Reply::error("use of undeclared identifier 'nope'"));
    a.on("evaluate", Reply::ok(json!({"result": "'a'", "type": "char", "variablesReference": 0})));
    let mut rig = launched(a);
    let exprs = vec!["n".to_owned(), "nope".to_owned(), "c".to_owned()];
    let call = rig.call(|s, key, call, now| s.evaluate_many(key, exprs, Target::default(), None, false, call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.text, "n = 42 (int)\nnope: error: use of undeclared identifier 'nope'\nc = 'a' (char)");
    assert_eq!(
        out.structured["results"][1],
        json!({"expression": "nope", "error": "use of undeclared identifier 'nope'"})
    );
    assert_eq!(out.structured["results"][0]["value"], "42");
    let sent: Vec<Value> =
        rig.adapter.received().iter().filter(|r| r["command"] == "evaluate").map(|r| r["arguments"].clone()).collect();
    assert_eq!(
        sent,
        [
            json!({"expression": "n", "frameId": 7, "context": "repl"}),
            json!({"expression": "nope", "frameId": 7, "context": "repl"}),
            json!({"expression": "c", "frameId": 7, "context": "repl"}),
        ]
    );
}

#[test]
fn hex_goes_out_as_a_value_format_and_never_mixes_with_the_cached_plain_values() {
    let mut a = adapter(json!({"supportsValueFormattingOptions": true}));
    a.on("scopes", Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 3}]})));
    a.on("variables", Reply::ok(json!({"variables": [{"name": "n", "value": "42", "variablesReference": 0}]})));
    a.on("variables", Reply::ok(json!({"variables": [{"name": "n", "value": "0x0000002a", "variablesReference": 0}]})));
    a.on("evaluate", Reply::ok(json!({"result": "0x0000002a", "type": "int", "variablesReference": 0})));
    let mut rig = launched(a);
    let scopes = rig.call(|s, key, call, now| s.scopes(key, Target::default(), call, now));
    let locals = rig.answered(scopes).structured["scopes"][0]["ref"].as_i64().unwrap_or(0);
    let page = |hex| Page { hex, ..Page::default() };
    let plain = rig.call(|s, key, call, now| s.variables(key, locals, page(false), call, now));
    assert!(rig.answered(plain).text.contains("n = 42"));
    let hex = rig.call(|s, key, call, now| s.variables(key, locals, page(true), call, now));
    let hex = rig.answered(hex);
    assert!(hex.text.contains("n = 0x0000002a"), "{}", hex.text);
    assert_eq!(hex.structured["hex"], true);
    assert_eq!(
        rig.adapter.last("variables").map(|r| r["arguments"].clone()),
        Some(json!({"variablesReference": 3, "format": {"hex": true}}))
    );
    // The plain page is still the cached one: no request, no hex value in it.
    let sent = rig.adapter.commands().len();
    let again = rig.call(|s, key, call, now| s.variables(key, locals, page(false), call, now));
    assert!(rig.answered(again).text.contains("n = 42"));
    assert_eq!(rig.adapter.commands().len(), sent);
    let eval =
        rig.call(|s, key, call, now| s.evaluate_formatted(key, "n".into(), Target::default(), None, true, call, now));
    assert_eq!(rig.answered(eval).text, "n = 0x0000002a  (int)");
    assert_eq!(rig.adapter.last("evaluate").map(|r| r["arguments"]["format"].clone()), Some(json!({"hex": true})));
}

#[test]
fn hex_without_value_formatting_is_refused_before_anything_is_sent() {
    let mut rig = launched(adapter(json!({})));
    let sent = rig.adapter.commands().len();
    let eval =
        rig.call(|s, key, call, now| s.evaluate_formatted(key, "n".into(), Target::default(), None, true, call, now));
    assert_eq!(
        rig.answered(eval).text,
        "unsupported: hex is not available here: spec does not advertise supportsValueFormattingOptions; evaluate a hex conversion in the language."
    );
    assert_eq!(rig.adapter.commands().len(), sent);
}

/// debugpy 1.8.22 never answers `loadedSources` (`Quirks::unanswered_requests`): `dap_request`
/// refuses it before anything is sent, and the connection keeps serving; `modules {sources}`
/// reads the files from `modules` (`Quirks::loaded_sources_from_modules`) and says so.
#[test]
fn debugpys_unanswered_loaded_sources_is_refused_and_sources_come_from_modules() {
    let mut a = adapter(json!({"supportsModulesRequest": true}));
    a.on("loadedSources", Reply::never());
    a.on("modules", Reply::ok(json!({"modules": [{"id": 1, "name": "__main__", "path": "/src/app.py"}]})));
    let mut rig = Rig::new(a);
    let launch = rig.launch_program(AdapterKind::Debugpy, "/src/app.py");
    assert!(rig.answered(launch).text.contains("stopped"));
    let sent = rig.adapter.commands().len();
    let call = rig.call(|s, key, call, now| s.dap_request(key, "loadedSources", None, call, now));
    let out = rig.answered(call);
    assert!(
        out.is_error && out.text.starts_with("unsupported: debugpy does not answer `loadedSources`"),
        "{}",
        out.text
    );
    assert_eq!(rig.adapter.commands().len(), sent, "nothing was sent");
    let call = rig.call(|s, key, call, now| s.dap_request(key, "threads", None, call, now));
    assert!(!rig.answered(call).is_error);
    let call = rig.call(|s, key, call, now| s.modules(key, true, None, None, None, call, now));
    let out = rig.answered(call);
    assert!(
        out.text.contains("loaded sources (from modules)") && out.text.ends_with("\n  /src/app.py"),
        "{}",
        out.text
    );
    assert_eq!(rig.adapter.last("modules").map(|r| r["arguments"].clone()), Some(json!({})));
    assert!(!rig.adapter.commands().contains(&"loadedSources".to_owned()));
}
