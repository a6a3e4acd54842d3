//! Unit tests for the typed requests: the exact wire `arguments` of every request against what
//! the session layer builds today (its `json!` copied here, with the file it is in), and one test
//! per leniency of today's `body.get(…)` reads.

use super::*;
use crate::dap::client::{ClientConfig, DapClient, Origin, ReverseAnswer};
use crate::dap::protocol::initialize_arguments;
use serde_json::{json, Map};
use std::time::Instant;

/// What `R` puts on the wire: its command and its `arguments` (`None`: no key).
fn wire<R: Request>(arguments: R::Arguments) -> (&'static str, Option<String>) {
    let args = R::arguments(&arguments).expect("serialisable");
    (R::COMMAND, args.map(|v| v.to_string()))
}

/// The session layer's request today: its command and `json!` arguments, as wire text.
fn today(command: &'static str, arguments: Option<Value>) -> (&'static str, Option<String>) {
    (command, arguments.map(|v| v.to_string()))
}

#[test]
fn session_requests_are_sent_as_today() {
    // session/adapter_io.rs: `initialize_arguments(&s.plan.name, true)`.
    for rit in [true, false] {
        assert_eq!(
            wire::<Initialize>(InitializeArguments::agentdap("debugpy", rit)),
            today("initialize", Some(initialize_arguments("debugpy", rit)))
        );
    }
    // session/startup.rs: the plan's launch arguments, untouched (the recipe's plus adapter_args).
    let launch = json!({"program": "/w/app.py", "justMyCode": false, "env": {"A": null}});
    assert_eq!(wire::<Launch>(launch.clone()), today("launch", Some(launch.clone())));
    assert_eq!(wire::<Attach>(launch.clone()), today("attach", Some(launch.clone())));
    // session/startup.rs: `self.send("configurationDone", None, …)`.
    assert_eq!(wire::<ConfigurationDone>(()), today("configurationDone", None));
    // session/mod.rs `send_disconnect`: `{"restart": false}` plus `terminateDebuggee` when given.
    assert_eq!(
        wire::<Disconnect>(DisconnectArguments { restart: Some(false), ..Default::default() }),
        today("disconnect", Some(json!({ "restart": false })))
    );
    assert_eq!(
        wire::<Disconnect>(DisconnectArguments {
            restart: Some(false),
            terminate_debuggee: Some(true),
            ..Default::default()
        }),
        today("disconnect", Some(json!({ "restart": false, "terminateDebuggee": true })))
    );
    // session/tools/run.rs: `s.send("terminate", Some(json!({})), …)` — an empty object, not no arguments.
    assert_eq!(wire::<Terminate>(TerminateArguments::default()), today("terminate", Some(json!({}))));
    // session/tools/flow.rs `restart_in_adapter`: `json!({ "arguments": self.plan.launch_arguments })`.
    assert_eq!(
        wire::<Restart>(RestartArguments { arguments: Some(launch.clone()) }),
        today("restart", Some(json!({ "arguments": launch })))
    );
    // dap/client.rs `send_cancel` (before it was typed): `json!({ "requestId": request_id.get() })`.
    assert_eq!(
        wire::<Cancel>(CancelArguments { request_id: Some(7), progress_id: None }),
        today("cancel", Some(json!({ "requestId": 7 })))
    );
}

#[test]
fn breakpoint_requests_are_sent_as_today() {
    // session/breakpoints.rs `set_breakpoints_arguments`: the session's `SourceBreakpoint`
    // serialises `line`, then `column`, `condition`, `hitCondition`, `logMessage` when set.
    let plain = SourceBreakpoint { line: 3, ..Default::default() };
    let full = SourceBreakpoint {
        line: 7,
        column: Some(5),
        condition: Some("x > 0".into()),
        hit_condition: Some("2".into()),
        log_message: Some("x={x}".into()),
    };
    let args = SetBreakpointsArguments { source: Source::path("/p/a.py"), breakpoints: vec![plain.clone(), full] };
    let expected = json!({ "source": { "path": "/p/a.py" }, "breakpoints": [
        {"line": 3},
        {"line": 7, "column": 5, "condition": "x > 0", "hitCondition": "2", "logMessage": "x={x}"},
    ]});
    assert_eq!(wire::<SetBreakpoints>(args), today("setBreakpoints", Some(expected)));
    // An empty set clears the file: the list is still sent.
    let clear = SetBreakpointsArguments { source: Source::path("/p/a.py"), breakpoints: vec![] };
    assert_eq!(
        wire::<SetBreakpoints>(clear),
        today("setBreakpoints", Some(json!({ "source": { "path": "/p/a.py" }, "breakpoints": [] })))
    );
    // session/tools/flow.rs `run_to`: the temporary breakpoint is `json!({ "line": line })`.
    let with_temp = SetBreakpointsArguments { source: Source::path("/p/a.py"), breakpoints: vec![plain] };
    assert_eq!(
        wire::<SetBreakpoints>(with_temp),
        today("setBreakpoints", Some(json!({ "source": { "path": "/p/a.py" }, "breakpoints": [{ "line": 3 }] })))
    );
    // session/breakpoints.rs `function_arguments`: the agent's, then `{"name": entry}`.
    let agents = FunctionBreakpoint { name: "total".into(), condition: Some("n > 1".into()), hit_condition: None };
    let entry = FunctionBreakpoint { name: "main".into(), ..Default::default() };
    assert_eq!(
        wire::<SetFunctionBreakpoints>(SetFunctionBreakpointsArguments { breakpoints: vec![agents, entry] }),
        today(
            "setFunctionBreakpoints",
            Some(json!({ "breakpoints": [{ "name": "total", "condition": "n > 1" }, { "name": "main" }] }))
        )
    );
    // session/startup.rs and tools/breakpoints.rs: `json!({ "filters": filters })`, also when empty.
    for filters in [vec![], vec!["raised".to_owned(), "uncaught".to_owned()]] {
        assert_eq!(
            wire::<SetExceptionBreakpoints>(SetExceptionBreakpointsArguments {
                filters: filters.clone(),
                filter_options: None
            }),
            today("setExceptionBreakpoints", Some(json!({ "filters": filters })))
        );
    }
}

#[test]
fn execution_requests_are_sent_as_today() {
    // session/tools/run.rs, tools/flow.rs: `json!({ "threadId": thread })`.
    assert_eq!(
        wire::<Continue>(ContinueArguments { thread_id: 1, single_thread: None }),
        today("continue", Some(json!({ "threadId": 1 })))
    );
    // session/tools/control.rs `step`: `{"threadId": t}`, plus `granularity` when the agent gave one.
    let step = |g: Option<&str>| NextArguments { thread_id: 4, single_thread: None, granularity: g.map(Into::into) };
    assert_eq!(wire::<Next>(step(None)), today("next", Some(json!({ "threadId": 4 }))));
    assert_eq!(
        wire::<Next>(step(Some("instruction"))),
        today("next", Some(json!({ "threadId": 4, "granularity": "instruction" })))
    );
    assert_eq!(wire::<StepOut>(step(None)), today("stepOut", Some(json!({ "threadId": 4 }))));
    assert_eq!(
        wire::<StepBack>(step(Some("line"))),
        today("stepBack", Some(json!({ "threadId": 4, "granularity": "line" })))
    );
    let step_in = StepInArguments { thread_id: 4, granularity: Some("line".into()), ..Default::default() };
    assert_eq!(wire::<StepIn>(step_in), today("stepIn", Some(json!({ "threadId": 4, "granularity": "line" }))));
    // session/tools/control.rs `pause`: `json!({ "threadId": t })` (0 when no thread is known).
    assert_eq!(wire::<Pause>(PauseArguments { thread_id: 0 }), today("pause", Some(json!({ "threadId": 0 }))));
    // session/tools/flow.rs `goto`: `json!({ "source": source, "line": line })`, `source` being the
    // file's `setBreakpoints` source; then `json!({ "threadId": …, "targetId": target })`.
    assert_eq!(
        wire::<GotoTargets>(GotoTargetsArguments { source: Source::path("/p/a.py"), line: 12, column: None }),
        today("gotoTargets", Some(json!({ "source": { "path": "/p/a.py" }, "line": 12 })))
    );
    assert_eq!(
        wire::<Goto>(GotoArguments { thread_id: 1, target_id: 30 }),
        today("goto", Some(json!({ "threadId": 1, "targetId": 30 })))
    );
}

#[test]
fn inspection_requests_are_sent_as_today() {
    // session/events.rs, tools/inspect.rs: `self.send("threads", None, …)`.
    assert_eq!(wire::<Threads>(()), today("threads", None));
    // session/events.rs, tools/inspect.rs, tools/edit.rs: every stackTrace names all three.
    let st = StackTraceArguments { thread_id: 1, start_frame: Some(0), levels: Some(5) };
    assert_eq!(
        wire::<StackTrace>(st),
        today("stackTrace", Some(json!({ "threadId": 1, "startFrame": 0, "levels": 5 })))
    );
    assert_eq!(wire::<Scopes>(ScopesArguments { frame_id: 1004 }), today("scopes", Some(json!({ "frameId": 1004 }))));
    // session/tools/inspect.rs: a page is all children; a preview asks for `PREVIEW_FETCH` from 0.
    let all = VariablesArguments { variables_reference: 12, ..Default::default() };
    assert_eq!(wire::<Variables>(all), today("variables", Some(json!({ "variablesReference": 12 }))));
    let preview =
        VariablesArguments { variables_reference: 12, start: Some(0), count: Some(9), filter: None, format: None };
    assert_eq!(
        wire::<Variables>(preview),
        today("variables", Some(json!({ "variablesReference": 12, "start": 0, "count": 9 })))
    );
    let eval = EvaluateArguments {
        expression: "x + 1".into(),
        frame_id: Some(1004),
        context: Some("watch".into()),
        format: None,
    };
    assert_eq!(
        wire::<Evaluate>(eval),
        today("evaluate", Some(json!({ "expression": "x + 1", "frameId": 1004, "context": "watch" })))
    );
    assert_eq!(
        wire::<ExceptionInfo>(ExceptionInfoArguments { thread_id: 1 }),
        today("exceptionInfo", Some(json!({ "threadId": 1 })))
    );
    // session/tools/edit.rs.
    let set = SetVariableArguments { variables_reference: 12, name: "n".into(), value: "3".into() };
    assert_eq!(
        wire::<SetVariable>(set),
        today("setVariable", Some(json!({ "variablesReference": 12, "name": "n", "value": "3" })))
    );
    let set = SetExpressionArguments { expression: "d['k']".into(), value: "3".into(), frame_id: Some(1004) };
    assert_eq!(
        wire::<SetExpression>(set),
        today("setExpression", Some(json!({ "expression": "d['k']", "value": "3", "frameId": 1004 })))
    );
    // session/tools/source.rs `fetch_source`: `{"source": {"sourceReference": r, "path"?}, "sourceReference": r}`.
    for path in [None, Some("<frozen os>")] {
        let mut source = json!({ "sourceReference": 5 });
        if let Some(p) = path {
            source["path"] = p.into();
        }
        let typed = SourceArguments {
            source: Some(Source { path: path.map(Into::into), source_reference: Some(5), name: None }),
            source_reference: 5,
        };
        assert_eq!(
            wire::<SourceRequest>(typed),
            today("source", Some(json!({ "source": source, "sourceReference": 5 })))
        );
    }
}

#[test]
fn reverse_answers_are_sent_as_today() {
    // session/host.rs `on_terminal_spawned`: `{"processId": pid}`.
    let mut body = Map::new();
    body.insert("processId".into(), 4242.into());
    let typed = RunInTerminalResponse { process_id: Some(4242), shell_process_id: None };
    assert_eq!(ReverseAnswer::success::<RunInTerminal>(&typed), ReverseAnswer::Success { body: Some(body) });
    // session/children.rs: `ReverseAnswer::ok()`, no body.
    assert_eq!(ReverseAnswer::success::<StartDebugging>(&()), ReverseAnswer::ok());
    // The arguments read back as the adapter sent them.
    let args = json!({"request": "attach", "configuration": {"name": "child", "subProcessId": 7}});
    let typed = StartDebuggingArguments::deserialize(&args).expect("well-formed");
    assert_eq!((typed.request.as_str(), typed.configuration.get("subProcessId")), ("attach", Some(&json!(7))));
    let rit = json!({"kind": "integrated", "cwd": "/", "args": ["python3", "-m", "x"], "env": {"X": null}});
    let typed = RunInTerminalArguments::deserialize(&rit).expect("well-formed");
    assert_eq!((typed.args.len(), typed.env.and_then(|e| e.get("X").cloned())), (3, Some(Value::Null)));
}

#[derive(Debug, PartialEq)]
struct Tag;
impl Origin for Tag {}

#[test]
fn the_typed_send_writes_the_bytes_of_the_string_send() {
    let now = Instant::now();
    let client = || DapClient::<Tag>::new(ClientConfig { log_messages: false, ..ClientConfig::new("t") });
    let (mut typed, mut string) = (client(), client());
    let st = StackTraceArguments { thread_id: 1, start_frame: Some(0), levels: Some(1) };
    assert!(typed.send::<StackTrace>(st, Tag, now, None).is_ok());
    let args = json!({ "threadId": 1, "startFrame": 0, "levels": 1 });
    assert!(string.request("stackTrace", Some(args), Tag, now, None).is_ok());
    assert!(typed.send::<Threads>((), Tag, now, None).is_ok());
    assert!(string.request("threads", None, Tag, now, None).is_ok());
    let bytes = typed.take_outbound();
    assert_eq!(String::from_utf8_lossy(&bytes), String::from_utf8_lossy(&string.take_outbound()));
    let text = String::from_utf8_lossy(&bytes).into_owned();
    assert!(text.ends_with(r#"{"seq":2,"type":"request","command":"threads"}"#), "{text}");
}

mod bodies;
