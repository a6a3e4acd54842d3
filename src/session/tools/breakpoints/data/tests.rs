//! Sans-IO tests of data and instruction breakpoints and exception filter conditions against a
//! scripted adapter: what no real adapter here does on demand (a refusal before anything is
//! sent, an adapter that advertises what lldb-dap lacks), and the exact wire shapes.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{DataItem, Watched};
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};
use crate::session::breakpoints::{InstructionBreakpoint, Mode};
use crate::session::scripted::Rig;

fn caps(extra: Value) -> Value {
    let mut c = json!({"supportsConfigurationDoneRequest": true});
    if let (Some(c), Value::Object(e)) = (c.as_object_mut(), extra) {
        c.extend(e);
    }
    c
}

/// A launched C program on an lldb plan (its quirks), stopped at a breakpoint.
fn stopped(adapter: ScriptedAdapter) -> Rig {
    let mut rig = Rig::new(adapter);
    let launch = rig.launch_program(AdapterKind::Lldb, "/src/w");
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    let out = rig.answered(launch);
    assert!(!out.is_error, "{}", out.text);
    rig
}

fn adapter(capabilities: Value) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(caps(capabilities)));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("threads", Reply::ok(json!({"threads": [{"id": 1, "name": "main"}]})));
    a.on(
        "stackTrace",
        Reply::ok(json!({"stackFrames": [{"id": 9, "name": "main", "line": 9, "source": {"path": "/src/w.c"}}]})),
    );
    a
}

fn watch(expression: &str) -> DataItem {
    DataItem {
        watched: Watched::Expression { expression: expression.into(), bytes: None },
        access: None,
        condition: None,
        hit_condition: None,
    }
}

#[test]
fn a_watchpoint_past_the_hardware_limit_is_named_as_such() {
    let mut a = adapter(json!({"supportsDataBreakpoints": true}));
    let info = |id: &str| json!({"dataId": id, "description": format!("4 bytes at {id}"), "accessTypes": ["read", "write", "readWrite"]});
    a.on("dataBreakpointInfo", Reply::ok(info("A/4")));
    a.on("dataBreakpointInfo", Reply::ok(info("B/4")));
    // lldb-dap 22.1.8's answer past x86-64's 4 debug registers.
    a.on(
        "setDataBreakpoints",
        Reply::ok(json!({"breakpoints": [{"id": 1, "verified": true},
            {"verified": false, "message": "Setting one of the watchpoint resources failed"}]})),
    );
    let mut rig = stopped(a);
    let call = rig
        .call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("a"), watch("b")], call, now));
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    let infos: Vec<Value> = rig
        .adapter
        .received()
        .iter()
        .filter(|r| r["command"] == "dataBreakpointInfo")
        .map(|r| r["arguments"].clone())
        .collect();
    assert_eq!(infos, [json!({"name": "a", "frameId": 9}), json!({"name": "b", "frameId": 9})]);
    assert_eq!(
        rig.adapter.last("setDataBreakpoints").map(|r| r["arguments"].clone()),
        Some(
            json!({"breakpoints": [{"dataId": "A/4", "accessType": "write"}, {"dataId": "B/4", "accessType": "write"}]})
        )
    );
    assert!(out.text.contains("`a` (4 bytes at A/4) · write: verified"), "{}", out.text);
    assert!(
        out.text.contains("`b` (4 bytes at B/4) · write: NOT verified (Setting one of the watchpoint resources failed) — the hardware watchpoint limit"),
        "{}",
        out.text
    );
    let b = out.structured["breakpoints"][1]["id"].clone();
    assert_eq!(out.structured["hardware_limit"], json!([b]));
    // A stop the adapter credits to watch 1 names agentdap's id for `a`.
    rig.event("stopped", json!({"reason": "data breakpoint", "threadId": 1, "hitBreakpointIds": [1]}));
    let list = rig.s.get(rig.key).map(|s| s.breaks.store.data().to_vec()).unwrap_or_default();
    assert!(list[0].hits.any() && !list[1].hits.any());
}

#[test]
fn a_null_data_id_or_an_access_not_offered_is_refused_in_the_adapters_words_and_sets_nothing() {
    let mut a = adapter(json!({"supportsDataBreakpoints": true}));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": null, "description": "variable not found: nosuch"})));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": "C/4", "accessTypes": ["write"]})));
    let mut rig = stopped(a);
    let call =
        rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("nosuch")], call, now));
    let out = rig.answered(call);
    assert_eq!(
        out.text,
        "invalid_argument: lldb cannot watch `nosuch`: variable not found: nosuch; no data breakpoint was changed."
    );
    let read = DataItem { access: Some("read".into()), ..watch("c") };
    let call = rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Add, vec![read], call, now));
    let out = rig.answered(call);
    assert_eq!(
        out.text,
        "invalid_argument: lldb can watch `c` only for [write], not read; no data breakpoint was changed."
    );
    assert!(!rig.adapter.commands().contains(&"setDataBreakpoints".to_owned()));
}

#[test]
fn kinds_the_adapter_does_not_advertise_are_refused_before_anything_is_sent() {
    let mut rig = stopped(adapter(json!({"supportsDataBreakpoints": true})));
    let sent = rig.adapter.received().len();
    let bytes = DataItem { watched: Watched::Expression { expression: "&g".into(), bytes: Some(4) }, ..watch("") };
    let call = rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![bytes], call, now));
    assert_eq!(
        rig.answered(call).text,
        "unsupported: set_breakpoints {kind: data, expression} is not available here: lldb does not advertise supportsDataBreakpointBytes; watch a variable by its container's ref and name."
    );
    let at = InstructionBreakpoint { address: "0x10".into(), offset: None, condition: None, hit_condition: None };
    let call = rig.call(|s, key, call, now| s.set_instruction_breakpoints(key, Mode::Replace, vec![at], call, now));
    assert_eq!(
        rig.answered(call).text,
        "unsupported: set_breakpoints {kind: instruction} is not available here: lldb does not advertise supportsInstructionBreakpoints."
    );
    let call = rig.call(|s, key, call, now| {
        let lines = super::super::locations::Lines { path: "/src/w.c".into(), line: 3, end_line: None };
        s.breakpoint_locations(key, lines, call, now)
    });
    assert!(rig.answered(call).text.contains("lldb does not advertise supportsBreakpointLocationsRequest"));
    assert_eq!(rig.adapter.received().len(), sent, "nothing was sent");
}

#[test]
fn instruction_breakpoints_go_whole_and_conditions_the_adapter_lacks_are_named() {
    let mut a = adapter(json!({"supportsInstructionBreakpoints": true}));
    a.on(
        "setInstructionBreakpoints",
        Reply::ok(json!({"breakpoints": [{"id": 3, "verified": true, "line": 11, "source": {"path": "/src/w.c"}}]})),
    );
    a.on(
        "setInstructionBreakpoints",
        Reply::ok(json!({"breakpoints": [{"id": 3, "verified": true, "line": 11, "source": {"path": "/src/w.c"}}, {"id": 4, "verified": false}]})),
    );
    let mut rig = stopped(a);
    let at = |address: &str, condition: Option<&str>| InstructionBreakpoint {
        address: address.into(),
        offset: None,
        condition: condition.map(Into::into),
        hit_condition: None,
    };
    let call = rig.call(|s, key, call, now| {
        s.set_instruction_breakpoints(key, Mode::Replace, vec![at("0x519A", None)], call, now)
    });
    let out = rig.answered(call);
    assert_eq!(out.text, "1 instruction breakpoint(s)\n  0x519A: verified at w.c:11");
    let call = rig.call(|s, key, call, now| {
        s.set_instruction_breakpoints(key, Mode::Add, vec![at("0x1", Some("c == 3"))], call, now)
    });
    let out = rig.answered(call);
    assert_eq!(
        rig.adapter.last("setInstructionBreakpoints").map(|r| r["arguments"].clone()),
        Some(
            json!({"breakpoints": [{"instructionReference": "0x519A"}, {"instructionReference": "0x1", "condition": "c == 3"}]})
        )
    );
    assert!(out.text.contains("0x1 · if c == 3: NOT verified (no reason given by the adapter)"), "{}", out.text);
    assert!(
        out.text.contains("warning: lldb does not support conditions (supportsConditionalBreakpoints is not set): on the instruction breakpoint(s) 0x1 it is ignored"),
        "{}",
        out.text
    );
}

#[test]
fn exception_conditions_go_as_filter_options_and_a_filter_without_support_is_refused_by_name() {
    let filters = json!([{"filter": "raised", "label": "Raised"}, {"filter": "cpp_throw", "label": "C++ Throw", "supportsCondition": true}]);
    let mut rig =
        stopped(adapter(json!({"exceptionBreakpointFilters": filters, "supportsExceptionFilterOptions": true})));
    let conditions = |id: &str| BTreeMap::from([(id.to_owned(), "x > 1".to_owned())]);
    let call = rig.call(|s, key, call, now| s.set_exception_breakpoints(key, vec![], conditions("raised"), call, now));
    assert_eq!(
        rig.answered(call).text,
        "unsupported: exception filter `raised` of lldb takes no condition (its supportsCondition is not set); turn it on without one in `filters`."
    );
    let call = rig.call(|s, key, call, now| {
        s.set_exception_breakpoints(key, vec!["raised".into(), "cpp_throw".into()], conditions("cpp_throw"), call, now)
    });
    let out = rig.answered(call);
    assert_eq!(out.text, "exception filters set: [raised] · cpp_throw if x > 1");
    assert_eq!(out.structured, json!({"filters": ["raised"], "conditions": {"cpp_throw": "x > 1"}}));
    assert_eq!(
        rig.adapter.last("setExceptionBreakpoints").map(|r| r["arguments"].clone()),
        Some(json!({"filters": ["raised"], "filterOptions": [{"filterId": "cpp_throw", "condition": "x > 1"}]}))
    );
}

#[test]
fn exception_conditions_are_refused_unsent_where_filter_options_are_not_advertised() {
    let filters = json!([{"filter": "cpp_throw", "label": "C++ Throw", "supportsCondition": true}]);
    let mut rig = stopped(adapter(json!({"exceptionBreakpointFilters": filters})));
    let sent = rig.adapter.received().len();
    let conditions = BTreeMap::from([("cpp_throw".to_owned(), "1".to_owned())]);
    let call = rig.call(|s, key, call, now| s.set_exception_breakpoints(key, vec![], conditions, call, now));
    assert_eq!(
        rig.answered(call).text,
        "unsupported: set_exception_breakpoints {conditions} is not available here: lldb does not advertise supportsExceptionFilterOptions."
    );
    assert_eq!(rig.adapter.received().len(), sent, "nothing was sent");
}

#[test]
fn a_restart_keeps_the_watches_that_persist_and_says_which_it_dropped() {
    let mut a = adapter(json!({"supportsDataBreakpoints": true, "supportsRestartRequest": true}));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": "A/4", "canPersist": true})));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": "B/4"})));
    a.on(
        "setDataBreakpoints",
        Reply::ok(json!({"breakpoints": [{"id": 1, "verified": true}, {"id": 2, "verified": true}]})),
    );
    a.on("setDataBreakpoints", Reply::ok(json!({"breakpoints": [{"id": 3, "verified": true}]})));
    let mut rig = stopped(a);
    let call = rig
        .call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("a"), watch("b")], call, now));
    assert!(!rig.answered(call).is_error);
    let restart = rig.call(|s, key, call, now| s.restart(key, None, call, now));
    let sent: Vec<&Value> =
        rig.adapter.received().iter().filter(|r| r["command"] != "threads" && r["command"] != "stackTrace").collect();
    let last_two: Vec<Value> =
        sent.iter().rev().take(2).rev().map(|r| json!([r["command"], r["arguments"]["breakpoints"]])).collect();
    assert_eq!(
        last_two,
        [json!(["setDataBreakpoints", [{"dataId": "A/4"}]]), json!(["restart", null])],
        "the set that persists, then the restart"
    );
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    let out = rig.answered(restart);
    assert!(
        out.text.contains("warning: the restart dropped data `b`: they named places in the old run's memory"),
        "{}",
        out.text
    );
    let kept: Vec<String> = rig
        .s
        .get(rig.key)
        .map(|s| s.breaks.store.data().iter().map(|e| e.requested.what.clone()).collect())
        .unwrap_or_default();
    assert_eq!(kept, ["a"]);
}

#[test]
fn a_restart_that_drops_only_instruction_breakpoints_says_why_in_their_words() {
    let mut a = adapter(json!({"supportsInstructionBreakpoints": true, "supportsRestartRequest": true}));
    a.on("setInstructionBreakpoints", Reply::ok(json!({"breakpoints": [{"id": 3, "verified": true}]})));
    a.on("setInstructionBreakpoints", Reply::ok(json!({"breakpoints": []})));
    let mut rig = stopped(a);
    let at = InstructionBreakpoint { address: "0x519A".into(), offset: None, condition: None, hit_condition: None };
    let call = rig.call(|s, key, call, now| s.set_instruction_breakpoints(key, Mode::Replace, vec![at], call, now));
    assert!(!rig.answered(call).is_error);
    let restart = rig.call(|s, key, call, now| s.restart(key, None, call, now));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    let out = rig.answered(restart);
    assert!(
        out.text.contains("warning: the restart dropped instruction 0x519A: they named places in the old run's memory (instruction breakpoints name addresses of one run); set them again at a stop"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("data breakpoint"), "{}", out.text);
}

/// lldb-dap 22.1.8's answers (measured by `tests/native/breakpoint_truth.rs`): a `dataId` of
/// `<address>/<size>` whatever `bytes` asked, and a watch of 0 bytes refused without a word.
#[test]
fn the_size_lldb_watches_is_read_from_its_data_id_and_a_zero_byte_watch_is_named_so() {
    let mut a = adapter(json!({"supportsDataBreakpoints": true, "supportsDataBreakpointBytes": true}));
    let offered = json!(["read", "write", "readWrite"]);
    a.on(
        "dataBreakpointInfo",
        Reply::ok(json!({"dataId": "7FFC/1", "description": "1 bytes at 7FFC", "accessTypes": offered})),
    );
    a.on(
        "dataBreakpointInfo",
        Reply::ok(json!({"dataId": "7FF0/0", "description": "0 bytes at 7FF0", "accessTypes": offered})),
    );
    a.on("setDataBreakpoints", Reply::ok(json!({"breakpoints": [{"id": 1, "verified": true}, {"verified": false}]})));
    let mut rig = stopped(a);
    let at = |expression: &str| DataItem {
        watched: Watched::Expression { expression: expression.into(), bytes: Some(4) },
        access: Some("read".into()),
        ..watch("")
    };
    let items = vec![at("(char*)p + 8"), at("0x7ff0")];
    let call = rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, items, call, now));
    let out = rig.answered(call);
    assert!(
        out.text.contains("`(char*)p + 8` (1 bytes at 7FFC) · read: verified — asked 4 bytes, lldb watches 1; it sizes an address watch by the type the expression points to: cast it, e.g. `(int *)0x…` for 4 bytes"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains(
            "`0x7ff0` (0 bytes at 7FF0) · read: NOT verified (lldb made it a watch of 0 bytes, asked 4; it sizes"
        ),
        "{}",
        out.text
    );
    assert_eq!(out.structured["breakpoints"][0]["watched_bytes"], json!(1));
    assert_eq!(out.structured["breakpoints"][1]["watched_bytes"], json!(0));
    if cfg!(target_arch = "x86_64") {
        assert!(
            out.text.contains("warning: lldb also stops a read watch on writes here (the hardware has no read-only watchpoints): `(char*)p + 8`, `0x7ff0`"),
            "{}",
            out.text
        );
    }
}

#[test]
fn an_expression_lldb_refuses_to_watch_gets_the_ampersand_hint_and_a_write_watch_is_said_to_need_a_change() {
    let mut a = adapter(json!({"supportsDataBreakpoints": true}));
    let refusal = "memory region for address 64 has no read or write permissions";
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": null, "description": refusal})));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": null, "description": refusal})));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": "7FF8/4", "accessTypes": ["read", "write", "readWrite"]})));
    a.on("setDataBreakpoints", Reply::ok(json!({"breakpoints": [{"id": 1, "verified": true}]})));
    let mut rig = stopped(a);
    let call = rig
        .call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("acct.balance")], call, now));
    assert_eq!(
        rig.answered(call).text,
        format!("invalid_argument: lldb cannot watch `acct.balance`: {refusal}; pass `&acct.balance` (lldb watches the address the expression gives); no data breakpoint was changed.")
    );
    // Already an address: no hint.
    let call =
        rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("&p->x")], call, now));
    assert_eq!(
        rig.answered(call).text,
        format!("invalid_argument: lldb cannot watch `&p->x`: {refusal}; no data breakpoint was changed.")
    );
    let call = rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("&x")], call, now));
    let out = rig.answered(call);
    assert!(
        out.text.ends_with("\nwarning: lldb stops a write watch only when the value changes (a write of the same value does not stop): `&x`"),
        "{}",
        out.text
    );
}

/// lldb-dap 22.1.8 looks an expression watch without `bytes` up as a variable's name: a
/// member's path is "variable not found" though it evaluates (a fresh user's `s.sum`), and the
/// error names the forms that work; a plain name that is not found gets no such hint.
#[test]
fn a_member_lldb_looks_up_as_a_name_gets_the_forms_that_work() {
    let mut a = adapter(json!({"supportsDataBreakpoints": true}));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": null, "description": "variable not found: s.sum"})));
    a.on("dataBreakpointInfo", Reply::ok(json!({"dataId": null, "description": "variable not found: &p->x"})));
    let mut rig = stopped(a);
    let call =
        rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("s.sum")], call, now));
    assert_eq!(
        rig.answered(call).text,
        "invalid_argument: lldb cannot watch `s.sum`: variable not found: s.sum; lldb looks such an expression up as a \
         variable's name: for a member, pass its parent's `ref` and the member's `name`, or its address with its size \
         (`expression: \"&s.sum\", bytes: 4`, for a 4-byte member); no data breakpoint was changed."
    );
    let call =
        rig.call(|s, key, call, now| s.set_data_breakpoints(key, Mode::Replace, vec![watch("&p->x")], call, now));
    assert!(rig.answered(call).text.contains("(`expression: \"&p->x\", bytes: 4`"));
}

/// A restart the adapter carries out (lldb-dap's DAP `restart`) is a new run: every count
/// starts again, as after a relaunch, and the breakpoints stay bound (a fresh user's restart
/// listed `hit 2×` from the old run).
#[test]
fn a_restart_by_the_adapter_starts_the_hit_counts_again() {
    use crate::session::breakpoints::SourceBreakpoint;
    let mut a = adapter(json!({"supportsRestartRequest": true}));
    a.on("setBreakpoints", Reply::ok(json!({"breakpoints": [{"id": 4, "verified": true, "line": 9}]})));
    let mut rig = stopped(a);
    let bp = SourceBreakpoint { line: 9, column: None, condition: None, hit_condition: None, log_message: None };
    let call = rig
        .call(|s, key, call, now| s.set_breakpoints(Some(key), "/src/w.c".into(), Mode::Replace, vec![bp], call, now));
    assert!(!rig.answered(call).is_error);
    let call = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [4]}));
    rig.answered(call);
    let counts = |rig: &Rig| -> Vec<(u32, bool)> {
        let s = rig.s.get(rig.key).expect("session");
        s.breaks
            .store
            .get("/src/w.c")
            .iter()
            .map(|e| (e.hits.count, e.bound.as_ref().is_some_and(|b| b.verified)))
            .collect()
    };
    assert_eq!(counts(&rig), [(1, true)]);
    let restart = rig.call(|s, key, call, now| s.restart(key, None, call, now));
    assert_eq!(counts(&rig), [(0, true)], "a new run, the breakpoint still bound");
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [4]}));
    assert!(!rig.answered(restart).is_error);
    assert_eq!(counts(&rig), [(1, true)]);
}
