//! Sans-IO tests of gdb's quirks (`src/dap/adapters/gdb.rs`) against the scripted adapter through
//! [`super::scripted::Rig`]: gdb's start-up order (the launch answered only after
//! `configurationDone`, a launch error then ending the wait with gdb's words), its frame ids
//! starting at 0 (never taken for "no frame"), `evaluate` through `watch`, and the plan's
//! stop-on-entry key. Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::plan;
use super::scripted::{args, plan as rig_plan, Rig};
use super::tools::inspect::Target;
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// gdb 15's order (gdb manual "Debugger Adapter Protocol"; go-delve/mcp-dap-server#22):
/// `initialized` right after the initialize response, the launch answered only after
/// `configurationDone`, then the stop. Frame ids are indices from 0 (go-delve/mcp-dap-server#12).
fn gdb_adapter(launch: Reply) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})).then("initialized", Value::Null));
    a.on("launch", launch.after_configuration_done());
    a.on("setBreakpoints", Reply::ok(json!({"breakpoints": [{"id": 1, "verified": true, "line": 9}]})));
    a.on(
        "stackTrace",
        Reply::ok(json!({"stackFrames": [
            {"id": 0, "name": "main", "line": 9, "source": {"path": "/src/prog.c"}},
            {"id": 1, "name": "__libc_start_call_main", "line": 0}], "totalFrames": 2})),
    );
    a.on("scopes", Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 1, "expensive": false}]})));
    a.on("variables", Reply::ok(json!({"variables": [{"name": "s", "value": "7", "variablesReference": 0}]})));
    a.on("evaluate", Reply::ok(json!({"result": "8", "type": "int", "variablesReference": 0})));
    a
}

fn gdb_launch(rig: &mut Rig) -> crate::reply::CallKey {
    rig.launch(
        rig_plan(AdapterKind::Gdb, json!({"program": "/src/prog", "stopAtBeginningOfMainSubprogram": false}), None),
        args(json!({"program": "/src/prog", "breakpoints": [{"path": "/src/prog.c", "line": 9}]})),
    )
}

#[test]
fn a_gdb_launch_answered_after_configuration_done_stops_in_frame_0_and_every_read_names_frame_0() {
    let stopped = json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [1]});
    let mut rig = Rig::new(gdb_adapter(Reply::ok(Value::Null).then("stopped", stopped)));
    let launch = gdb_launch(&mut rig);
    // No exception filters advertised: no setExceptionBreakpoints.
    // Then frame 0's scopes and locals, for the stop result (`stop_frame.rs`).
    assert_eq!(
        rig.adapter.commands(),
        ["initialize", "launch", "setBreakpoints", "configurationDone", "stackTrace", "scopes", "variables"]
    );
    let out = rig.answered(launch);
    assert!(out.text.starts_with("s1 stopped (breakpoint) at prog.c:9 in main() · thread 1"), "{}", out.text);
    let trace = rig.call(|s, key, call, now| s.stack_trace(key, None, 0, 20, call, now));
    let trace = rig.answered(trace);
    let frames = trace.structured["frames"].as_array().cloned().unwrap_or_default();
    assert_eq!(frames.len(), 2, "{}", trace.structured);
    let frame = frames[0]["frame"].as_i64();
    assert!(frame.is_some() && frame != frames[1]["frame"].as_i64(), "frame 0 has a handle like any other: {frames:?}");

    // The top frame (id 0) is the default frame of every read, and is sent as 0.
    let scopes = rig.call(|s, key, call, now| s.scopes(key, Target::default(), call, now));
    assert!(!rig.answered(scopes).is_error);
    assert_eq!(rig.adapter.last("scopes").map(|r| r["arguments"].clone()), Some(json!({"frameId": 0})));
    let eval = rig.call(|s, key, call, now| s.evaluate(key, "s + 1".into(), Target::default(), None, call, now));
    let answer = rig.answered(eval);
    assert!(!answer.is_error && answer.text.contains('8'), "{}", answer.text);
    assert_eq!(
        rig.adapter.last("evaluate").map(|r| r["arguments"].clone()),
        Some(json!({"expression": "s + 1", "frameId": 0, "context": "watch"})),
        "gdb's `repl` runs gdb commands: expressions go through `watch`"
    );
    // Named by its handle, frame 0 is still frame 0 (and the next frame is 1).
    let by_handle = Target { thread: None, frame };
    let eval = rig.call(|s, key, call, now| s.evaluate(key, "s".into(), by_handle, None, call, now));
    assert!(!rig.answered(eval).is_error);
    assert_eq!(rig.adapter.last("evaluate").map(|r| r["arguments"]["frameId"].clone()), Some(json!(0)));
    let context = rig.call(|s, key, call, now| s.context(key, Target::default(), Some(0), None, call, now));
    let shown = rig.answered(context);
    assert!(!shown.is_error, "{}", shown.text);
    assert!(shown.text.contains("s = 7"), "{}", shown.text);
    let scopes_sent: Vec<Value> =
        rig.adapter.received().iter().filter(|r| r["command"] == "scopes").map(|r| r["arguments"].clone()).collect();
    assert!(scopes_sent.iter().all(|a| *a == json!({"frameId": 0})), "{scopes_sent:?}");
}

#[test]
fn a_gdb_launch_error_after_configuration_done_ends_the_wait_at_once_with_gdbs_words() {
    let refused = Reply::error("No executable file specified.\nUse the \"file\" or \"exec-file\" command.");
    let mut rig = Rig::new(gdb_adapter(refused));
    let launch = gdb_launch(&mut rig);
    let out = rig.answered(launch);
    assert!(out.is_error);
    assert!(out.text.starts_with("adapter_error: `launch` failed: No executable file specified."), "{}", out.text);
    assert!(rig.adapter.commands().contains(&"configurationDone".to_owned()), "the error came after configurationDone");
}

#[test]
fn stop_on_entry_asks_gdb_for_main_by_its_own_key_and_sets_no_breakpoint_of_agentdaps() {
    // An override of the built-in `gdb` whose command is any executable: the plan is gdb's.
    let config = crate::config::parse(r#"{"adapters": {"gdb": {"command": "/bin/sh"}}}"#).unwrap_or_default();
    let launch: super::LaunchArgs = args(json!({"program": "/bin/sh", "adapter": "gdb", "stop_on_entry": true}));
    let p = plan::launch(&launch, false, &config, &crate::os::files::OsFiles).unwrap_or_else(|e| panic!("{}", e.text));
    assert_eq!(p.kind, Some(AdapterKind::Gdb));
    assert_eq!(p.command.program, "/bin/sh");
    assert_eq!(p.entry_function, None);
    assert_eq!(p.launch_arguments["stopAtBeginningOfMainSubprogram"], json!(true));
    assert_eq!(p.launch_arguments.get("stopOnEntry"), None, "stopOnEntry would stop at the first instruction");
    assert_eq!(p.launch_arguments["type"], json!("gdb"));
}
