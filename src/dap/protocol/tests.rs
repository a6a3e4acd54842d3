//! Unit tests for the DAP wire types: lenient reading, exact writing, capabilities, error text.

use super::*;
use serde_json::json;

fn parse(text: &str) -> Result<Parsed, MessageError> {
    Message::from_value(serde_json::from_str(text).expect("test JSON"))
}

#[test]
fn seq_as_string_is_coerced_and_flagged() {
    let p = parse(r#"{"seq":"1","type":"event","event":"initialized","body":{}}"#).expect("event");
    assert_eq!(
        p.message,
        Message::Event(Event { seq: Seq::new(1), event: "initialized".into(), body: Some(json!({})) })
    );
    assert!(p.nonconformances.contains(Nonconformance::SeqAsString));
    assert!(!p.nonconformances.contains(Nonconformance::RequestSeqAsString));
}

#[test]
fn response_reads_every_field() {
    let p = parse(
        r#"{"seq":"2","type":"response","request_seq":"1","success":false,"command":"launch","message":"boom","body":null}"#,
    )
    .expect("response");
    assert_eq!(
        p.message,
        Message::Response(Response {
            seq: Seq::new(2),
            request_seq: Seq::new(1),
            success: false,
            command: "launch".into(),
            message: Some("boom".into()),
            body: None,
        })
    );
    let all: Vec<_> = p.nonconformances.iter().collect();
    assert_eq!(all, vec![Nonconformance::SeqAsString, Nonconformance::RequestSeqAsString]);
}

#[test]
fn event_without_seq_is_tolerated_but_request_is_not() {
    let p = parse(r#"{"type":"event","event":"output"}"#).expect("event");
    assert!(p.nonconformances.contains(Nonconformance::SeqMissing));
    assert_eq!(parse(r#"{"type":"request","command":"runInTerminal"}"#), Err(MessageError::BadField("seq")));
}

#[test]
fn not_dap_messages_are_named() {
    assert_eq!(parse("[1,2]"), Err(MessageError::NotAnObject));
    assert_eq!(parse(r#"{"seq":1}"#), Err(MessageError::BadType));
    assert_eq!(parse(r#"{"seq":1,"type":"notification"}"#), Err(MessageError::BadType));
    assert_eq!(parse(r#"{"seq":"x","type":"event","event":"e"}"#), Err(MessageError::BadField("seq")));
    assert_eq!(parse(r#"{"seq":1,"type":"event"}"#), Err(MessageError::BadField("event")));
    assert_eq!(
        parse(r#"{"seq":1,"type":"response","request_seq":1,"command":"x"}"#),
        Err(MessageError::BadField("success"))
    );
    assert_eq!(
        parse(r#"{"seq":1,"type":"response","success":true,"command":"x"}"#),
        Err(MessageError::BadField("request_seq"))
    );
    assert_eq!(MessageError::BadField("seq").to_string(), "a message with a missing or ill-typed \"seq\"");
}

#[test]
fn response_serialises_in_spec_field_order() {
    let r = Response {
        seq: Seq::new(9),
        request_seq: Seq::new(5),
        success: false,
        command: "runInTerminal".into(),
        message: Some("runInTerminal is not supported by this client".into()),
        body: None,
    };
    assert_eq!(
        serde_json::to_string(&r).expect("serialise"),
        r#"{"seq":9,"type":"response","request_seq":5,"success":false,"command":"runInTerminal","message":"runInTerminal is not supported by this client"}"#
    );
}

#[test]
fn request_and_event_serialise_exactly() {
    let r = Request { seq: Seq::new(3), command: "next".into(), arguments: Some(json!({"threadId": 1})) };
    assert_eq!(
        serde_json::to_string(&Message::Request(r)).expect("serialise"),
        r#"{"seq":3,"type":"request","command":"next","arguments":{"threadId":1}}"#
    );
    let r = Request { seq: Seq::new(4), command: "configurationDone".into(), arguments: None };
    assert_eq!(
        serde_json::to_string(&r).expect("serialise"),
        r#"{"seq":4,"type":"request","command":"configurationDone"}"#
    );
    let e = Event { seq: Seq::new(1), event: "initialized".into(), body: None };
    assert_eq!(serde_json::to_string(&e).expect("serialise"), r#"{"seq":1,"type":"event","event":"initialized"}"#);
}

fn failed(message: Option<&str>, body: Option<Value>) -> Response {
    Response {
        seq: Seq::new(1),
        request_seq: Seq::new(2),
        success: false,
        command: "launch".into(),
        message: message.map(str::to_owned),
        body,
    }
}

#[test]
fn error_text_prefers_format_with_variables() {
    let r = failed(
        Some("raw"),
        Some(json!({"error": {"id": 1, "format": "Cannot open {path}: {_reason} ({missing})",
            "variables": {"path": "/x/a.out", "_reason": "no such file"}}})),
    );
    assert_eq!(r.error_text(), "Cannot open /x/a.out: no such file ({missing})");
}

#[test]
fn error_text_falls_back_to_message_then_command() {
    assert_eq!(failed(Some("notStopped"), Some(json!({"error": {"id": 3}}))).error_text(), "notStopped");
    assert_eq!(failed(None, None).error_text(), "`launch` failed");
    assert_eq!(
        failed(Some("x"), Some(json!({"error": {"format": "unclosed {brace"}}))).error_text(),
        "unclosed {brace"
    );
}

#[test]
fn capabilities_typed_subset_and_raw() {
    let body = json!({
        "supportsConfigurationDoneRequest": true,
        "supportsCancelRequest": "yes",
        "supportsTerminateDebuggee": true,
        "supportsVendorThing": true,
        "exceptionBreakpointFilters": [
            {"filter": "raised", "label": "Raised Exceptions", "default": false},
            {"filter": "uncaught", "label": "Uncaught Exceptions", "default": true, "supportsCondition": true},
            {"label": "no id: skipped"},
            {"filter": "userUnhandled"}
        ]
    });
    let caps = Capabilities::from_body(Some(&body));
    assert!(caps.supports_configuration_done_request);
    assert!(!caps.supports_cancel_request, "only a JSON true counts");
    assert!(caps.supports_terminate_debuggee, "debugpy's spelling is accepted");
    assert!(caps.flag("supportsVendorThing"));
    assert_eq!(caps.raw.len(), 5);
    let ids: Vec<_> = caps.exception_breakpoint_filters.iter().map(|f| (f.filter.as_str(), f.default)).collect();
    assert_eq!(ids, vec![("raised", false), ("uncaught", true), ("userUnhandled", false)]);
    assert_eq!(caps.exception_breakpoint_filters[2].label, "userUnhandled");
    assert!(caps.exception_breakpoint_filters[1].supports_condition);
}

#[test]
fn capabilities_event_merges() {
    let mut caps = Capabilities::from_body(Some(&json!({"supportsCancelRequest": true, "supportsStepBack": true})));
    let update = json!({"supportsStepBack": false, "supportsRestartRequest": true});
    caps.merge(update.as_object().expect("object"));
    assert!(caps.supports_cancel_request && caps.supports_restart_request && !caps.supports_step_back);
    assert_eq!(Capabilities::from_body(Some(&json!([]))), Capabilities::default());
}

#[test]
fn initialize_arguments_exact() {
    assert_eq!(
        initialize_arguments("debugpy", false).to_string(),
        concat!(
            r#"{"adapterID":"debugpy","clientID":"agentdap","clientName":"agentdap","columnsStartAt1":true,"#,
            r#""linesStartAt1":true,"pathFormat":"path","supportsInvalidatedEvent":true,"#,
            r#""supportsMemoryReferences":true,"supportsProgressReporting":false,"#,
            r#""supportsRunInTerminalRequest":false,"supportsStartDebuggingRequest":true,"#,
            r#""supportsVariablePaging":true,"supportsVariableType":true}"#
        )
    );
}
