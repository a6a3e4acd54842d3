//! One test per leniency of the session layer's `body.get(…)` reads: each reads the same body
//! the typed way and today's way (the expression copied from the file named) and compares.

use super::super::*;
use serde_json::json;

fn parse<R: Request>(body: Value) -> R::Response {
    R::parse(Some(&body)).expect("an object body always parses")
}

#[test]
fn a_missing_or_null_body_reads_as_empty_and_a_non_object_names_the_command() {
    // session/tools/mod.rs `Reply::of`: `r.body.unwrap_or(Value::Null)`, then `.get(…)` is None.
    assert_eq!(StackTrace::parse(None), Ok(StackTraceResponse::default()));
    assert_eq!(Threads::parse(Some(&Value::Null)), Ok(ThreadsResponse::default()));
    let err = StackTrace::parse(Some(&json!("frames"))).expect_err("not an object");
    assert_eq!(err.command, "stackTrace");
    assert!(err.to_string().starts_with("the adapter's `stackTrace` response body could not be read: "), "{err}");
    // Today such a body reads as empty: `unwrap_or_default()` keeps that.
    assert_eq!(StackTrace::parse(Some(&json!([1]))).unwrap_or_default(), StackTraceResponse::default());
    // A body agentdap does not read may be anything; unknown fields are ignored everywhere.
    assert_eq!(Launch::parse(Some(&json!("ok"))), Ok(NoBody));
    assert_eq!(parse::<SourceRequest>(json!({"content": "x", "extra": [1]})).content.as_deref(), Some("x"));
}

#[test]
fn a_breakpoint_entry_reads_field_by_field() {
    // session/breakpoints.rs `bound_from`.
    let today = |bp: &Value| {
        (
            bp.get("id").and_then(Value::as_i64),
            bp.get("verified").and_then(Value::as_bool).unwrap_or(false),
            bp.get("line").and_then(Value::as_u64).and_then(|l| u32::try_from(l).ok()),
            bp.get("message").and_then(Value::as_str).map(str::to_owned),
        )
    };
    let entries = json!([
        {"id": 1, "verified": true, "line": 12},
        {"id": "1", "verified": "yes", "line": 12.0, "message": 5},
        {"verified": false, "line": -3, "message": "no code"},
        {"line": 5_000_000_000u64},
        null,
        7,
    ]);
    let body = json!({ "breakpoints": entries });
    let typed = parse::<SetBreakpoints>(body.clone()).breakpoints;
    let old: Vec<_> = entries.as_array().into_iter().flatten().map(today).collect();
    // Every entry keeps its place (answers match requests by index), a non-object as an
    // unverified breakpoint with nothing known.
    assert_eq!(typed.len(), old.len());
    for (t, o) in typed.iter().zip(&old) {
        assert_eq!((t.id, t.verified, t.line, t.message.clone()), o.clone());
    }
}

#[test]
fn a_breakpoints_list_that_is_missing_or_not_a_list_is_empty() {
    // session/breakpoints.rs `on_response`: `.and_then(Value::as_array).map_or(&[][..], …)`.
    for body in [json!({}), json!({"breakpoints": {"0": {}}}), json!({"breakpoints": null})] {
        assert_eq!(parse::<SetFunctionBreakpoints>(body).breakpoints, vec![]);
    }
}

#[test]
fn threads_not_a_list_differ_from_an_empty_list() {
    // session/threads.rs `note_threads`: not a list returns early (the known threads stay);
    // session/tools/inspect.rs `threads_result`: `unwrap_or_default()` (they are cleared).
    assert_eq!(parse::<Threads>(json!({"threads": "main"})).threads, None);
    assert_eq!(parse::<Threads>(json!({})).threads, None);
    assert_eq!(parse::<Threads>(json!({"threads": []})).threads, Some(vec![]));
}

#[test]
fn a_thread_without_an_integer_id_keeps_its_place() {
    // session/threads.rs `first_real_thread`: `.find(…).or_else(|| list.first()).and_then(id)`
    // — a first entry without an id gives no thread, even when a later one has one.
    let body = json!({"threads": [{"id": "1", "name": "Dummy"}, {"id": 2, "name": "main"}, 3]});
    let typed = parse::<Threads>(body.clone()).threads.unwrap_or_default();
    let ids: Vec<Option<i64>> = typed.iter().map(|t| t.id).collect();
    assert_eq!(ids, [None, Some(2), None]);
    let old = body["threads"][0].get("id").and_then(Value::as_i64);
    assert_eq!(typed.first().and_then(|t| t.id), old);
    assert_eq!(typed[0].name.as_deref(), Some("Dummy"));
}

#[test]
fn a_stack_trace_reads_frames_and_total_leniently() {
    // session/tools/inspect.rs `stack_result`: `stackFrames` not a list is empty; `totalFrames` only
    // as an unsigned integer.
    let r = parse::<StackTrace>(json!({"stackFrames": {"id": 1}, "totalFrames": "25"}));
    assert_eq!((r.stack_frames.len(), r.total_frames), (0, None));
    let r = parse::<StackTrace>(json!({"stackFrames": [], "totalFrames": -1}));
    assert_eq!(r.total_frames, None);
    assert_eq!(parse::<StackTrace>(json!({"totalFrames": 25})).total_frames, Some(25));
}

#[test]
fn a_frame_line_given_as_a_string_is_passed_on_and_not_read() {
    // session/snapshot.rs `Location::from_frame`: `line` as a u64 above 0, else none;
    // session/tools/inspect.rs `frames_json`: `f.get("line").cloned()`, whatever it is.
    let frames = json!([
        {"id": 1, "name": "f", "line": "12", "column": 0},
        {"id": 2, "name": "g"},
        {"id": 3, "line": null, "column": 4},
    ]);
    let typed = parse::<StackTrace>(json!({ "stackFrames": frames })).stack_frames;
    for (t, f) in typed.iter().zip(frames.as_array().into_iter().flatten()) {
        let line = f.get("line").and_then(Value::as_u64).filter(|&l| l > 0);
        assert_eq!(t.line.typed().copied().filter(|&l| l > 0), line);
        assert_eq!(t.line.raw(), f.get("line").cloned());
        assert_eq!(t.column.raw(), f.get("column").cloned());
        assert_eq!(
            t.column.typed().copied().filter(|&c| c > 0),
            f.get("column").and_then(Value::as_u64).filter(|&c| c > 0)
        );
    }
    // A missing line is absent, a `null` one present (it is passed on as `null`).
    assert_eq!((typed[1].line.is_present(), typed[2].line.is_present()), (false, true));
}

#[test]
fn a_frame_source_falls_back_to_its_name_as_today() {
    // session/snapshot.rs `from_frame`: the path, else the name, each only as a string;
    // session/tools/inspect.rs `frames_json`: `src.get("path").or_else(|| src.get("name")).cloned()` —
    // a present `path` (even `null`) wins there.
    let frames = json!([
        {"source": {"path": "/w/app.py", "name": "app.py", "sourceReference": 0}},
        {"source": {"name": "<string>", "sourceReference": 7}},
        {"source": {"path": null, "name": "n"}},
        {"source": "app.py"},
        {},
    ]);
    let typed = parse::<StackTrace>(json!({ "stackFrames": frames })).stack_frames;
    for (t, f) in typed.iter().zip(frames.as_array().into_iter().flatten()) {
        let src = &f["source"];
        let old_path = src
            .get("path")
            .and_then(Value::as_str)
            .or_else(|| src.get("name").and_then(Value::as_str))
            .map(str::to_owned);
        let s = t.source.clone().unwrap_or_default();
        let new_path = s.path.typed().or(s.name.typed()).cloned();
        assert_eq!(new_path, old_path);
        let old_raw = src.get("path").or_else(|| src.get("name")).cloned();
        let new_raw = if s.path.is_present() { s.path.raw() } else { s.name.raw() };
        assert_eq!(new_raw, old_raw);
        let old_ref = src.get("sourceReference").and_then(Value::as_i64).filter(|&r| r > 0);
        assert_eq!(s.source_reference.filter(|&r| r > 0), old_ref);
    }
}

#[test]
fn frame_ids_compare_as_sent() {
    // session/tools/inspect/context.rs `context_result`: `f.get("id") == top.get("id")` on the raw values.
    let frames = json!([{"id": "a"}, {}, {"id": 5}, {"id": "a"}, {"id": null}]);
    let typed = parse::<StackTrace>(json!({ "stackFrames": frames })).stack_frames;
    let raw: Vec<&Value> = frames.as_array().into_iter().flatten().collect();
    for i in 0..raw.len() {
        for j in 0..raw.len() {
            assert_eq!(typed[i].id == typed[j].id, raw[i].get("id") == raw[j].get("id"), "{i} {j}");
        }
    }
    // session/tools/inspect.rs `top_frame_id`: the first frame's id as an i64.
    assert_eq!(typed[2].id.typed(), Some(&5));
    assert_eq!(typed[0].id.typed(), None);
}

#[test]
fn a_scope_reads_name_reference_and_expensive_leniently() {
    // session/tools/inspect.rs `scopes_result` and `context_step`, session/tools/edit.rs `Phase::Scopes`.
    let scopes = json!([
        {"name": "Locals", "variablesReference": 3, "expensive": false, "namedVariables": 4},
        {"name": 1, "variablesReference": "3", "expensive": "yes", "indexedVariables": "many"},
        {"expensive": true},
        [],
    ]);
    let typed = parse::<Scopes>(json!({ "scopes": scopes })).scopes;
    for (t, s) in typed.iter().zip(scopes.as_array().into_iter().flatten()) {
        assert_eq!(t.name.as_deref(), s.get("name").and_then(Value::as_str));
        assert_eq!(t.variables_reference, s.get("variablesReference").and_then(Value::as_i64));
        assert_eq!(t.expensive, s.get("expensive").and_then(Value::as_bool).unwrap_or(false));
        assert_eq!(t.named_variables.raw(), s.get("namedVariables").cloned());
        assert_eq!(t.indexed_variables.raw(), s.get("indexedVariables").cloned());
    }
}

#[test]
fn a_variable_value_that_is_present_wins_over_result() {
    // session/values.rs `variable_json`, session/preview.rs `wants_preview`:
    // `v.get("value").or_else(|| v.get("result")).and_then(Value::as_str).unwrap_or("")`.
    let vars = json!([
        {"name": "a", "value": "3", "type": "int", "variablesReference": 0},
        {"name": "b", "value": 3, "type": 5, "variablesReference": "7", "evaluateName": 9},
        {"name": "c", "namedVariables": 2, "indexedVariables": -1},
        "x",
    ]);
    let typed = parse::<Variables>(json!({ "variables": vars })).variables;
    assert_eq!(typed.len(), 4);
    for (t, v) in typed.iter().zip(vars.as_array().into_iter().flatten()) {
        let shown = |t: &Variable| if t.value.is_present() { t.value.typed().cloned() } else { None };
        assert_eq!(shown(t).unwrap_or_default(), v.get("value").and_then(Value::as_str).unwrap_or(""));
        assert_eq!(t.value.is_present(), v.get("value").is_some());
        assert_eq!(t.type_.as_deref(), v.get("type").and_then(Value::as_str));
        assert_eq!(t.variables_reference, v.get("variablesReference").and_then(Value::as_i64));
        assert_eq!(t.evaluate_name.raw(), v.get("evaluateName").cloned());
        assert_eq!(
            t.named_variables.typed().copied().unwrap_or(0),
            v.get("namedVariables").and_then(Value::as_u64).unwrap_or(0)
        );
        assert_eq!(t.indexed_variables.raw(), v.get("indexedVariables").cloned());
    }
    // session/tools/inspect/context.rs `context_step`: a watch's value is `result` as a string, else "".
    let r = parse::<Evaluate>(json!({"result": 4, "variablesReference": 0}));
    assert_eq!((r.result.typed().cloned().unwrap_or_default(), r.result.is_present()), (String::new(), true));
}

#[test]
fn exception_info_reads_details_only_from_an_object() {
    // session/snapshot.rs `ExceptionStop::from_info`: `body["details"]["typeName"]` etc.
    let bodies = [
        json!({"exceptionId": "ZeroDivisionError", "description": "division by zero",
               "details": {"typeName": "builtins.ZeroDivisionError", "message": "division by zero"}}),
        json!({"exceptionId": 7, "details": "none", "breakMode": "always"}),
        json!({"details": {"typeName": 5, "stackTrace": "  File …"}}),
    ];
    for b in bodies {
        let t = parse::<ExceptionInfo>(b.clone());
        let d = t.details.clone().unwrap_or_default();
        assert_eq!(d.type_name.as_deref(), b["details"]["typeName"].as_str());
        assert_eq!(d.message.as_deref(), b["details"]["message"].as_str());
        assert_eq!(
            d.stack_trace.as_deref(),
            b.get("details").and_then(|d| d.get("stackTrace")).and_then(Value::as_str)
        );
        assert_eq!(t.exception_id.as_deref(), b["exceptionId"].as_str());
        assert_eq!(t.description.as_deref(), b["description"].as_str());
    }
}

#[test]
fn a_goto_target_line_given_as_a_string_does_not_match() {
    // session/tools/flow.rs `goto_targets_answered`: the target on the line asked for, else the first.
    let targets = json!([{"id": 1, "line": "12"}, {"id": 2, "line": 12}, {"label": "x"}, null]);
    let typed = parse::<GotoTargets>(json!({ "targets": targets })).targets;
    let chosen = typed.iter().find(|t| t.line == Some(12)).or_else(|| typed.first()).and_then(|t| t.id);
    assert_eq!(chosen, Some(2));
    assert_eq!(typed.len(), 4);
    assert_eq!(parse::<GotoTargets>(json!({"targets": 3})).targets, vec![]);
}

#[test]
fn source_content_is_read_only_as_a_string() {
    // session/tools/source.rs `source_answered`: `body.get("content").and_then(Value::as_str)`.
    assert_eq!(parse::<SourceRequest>(json!({"content": ["a"]})).content, None);
    assert_eq!(parse::<SourceRequest>(json!({"content": "x = 1\n"})).content.as_deref(), Some("x = 1\n"));
}

#[test]
fn a_set_value_answer_reads_value_and_reference() {
    // session/tools/edit.rs `edit_result`: `ack.get("value").and_then(Value::as_str)`.
    let r = parse::<SetVariable>(json!({"value": "3", "type": "int", "variablesReference": 0}));
    assert_eq!(
        (r.value.typed().map(String::as_str), r.type_.as_deref(), r.variables_reference),
        (Some("3"), Some("int"), Some(0))
    );
    let r = parse::<SetExpression>(json!({"value": null}));
    assert_eq!((r.value.typed(), r.value.is_present()), (None, true));
}

#[test]
fn capabilities_are_the_initialize_body() {
    // dap/client.rs `on_response`: `Capabilities::from_body(r.body.as_ref())`.
    let body = json!({"supportsConfigurationDoneRequest": true, "exceptionBreakpointFilters": [{"filter": "raised"}]});
    let typed = parse::<Initialize>(body.clone());
    assert_eq!(typed, crate::dap::protocol::Capabilities::from_body(Some(&body)));
    assert!(typed.supports_configuration_done_request);
    assert_eq!(Initialize::parse(Some(&json!("x"))), Ok(Default::default()));
}

/// Every kind of JSON a field can hold, with the edges of the integer types.
fn every_kind() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(7),
        json!(-1),
        json!(u32::MAX),
        json!(u64::from(u32::MAX) + 1),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(2.5),
        json!(3.0),
        json!(""),
        json!("x"),
        json!([]),
        json!(["a", "b"]),
        json!(["a", 1]),
        json!([null]),
        json!({}),
        json!({"name": "n", "path": "/p", "sourceReference": 3}),
        json!({"path": 5, "sourceReference": "3"}),
    ]
}

/// `lenient::value`'s visitor reads `field` as `T::deserialize(&field)` does, with the
/// default for a field of another type (the reading `lenient` had before it was a visitor).
fn reads_like_serde<T>()
where
    T: lenient::Lenient + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    #[derive(serde::Deserialize)]
    struct Holder<T: lenient::Lenient> {
        #[serde(default, deserialize_with = "lenient::value")]
        f: T,
    }
    for v in every_kind() {
        let got: Holder<T> = serde_json::from_value(json!({"f": v.clone()})).expect("lenient never fails");
        let from_text: Holder<T> = serde_json::from_str(&json!({"f": v.clone()}).to_string()).expect("from text");
        let want = T::deserialize(&v).unwrap_or_default();
        assert_eq!(got.f, want, "{} read from a Value", v);
        assert_eq!(from_text.f, want, "{} read from text", v);
    }
}

#[test]
fn a_lenient_field_reads_as_its_type_would_or_as_the_default() {
    reads_like_serde::<Option<String>>();
    reads_like_serde::<Option<i64>>();
    reads_like_serde::<Option<u64>>();
    reads_like_serde::<Option<u32>>();
    reads_like_serde::<bool>();
    reads_like_serde::<Option<bool>>();
    reads_like_serde::<Option<Vec<String>>>();
}

#[test]
fn a_loose_field_is_typed_exactly_when_its_type_reads_it_and_else_kept_verbatim() {
    fn check<T>()
    where
        T: lenient::Exact + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        for v in every_kind() {
            let got: Loose<T> = Loose::deserialize(&v).expect("never fails");
            let want = match T::deserialize(&v) {
                Ok(t) => Loose::Typed(t),
                Err(_) => Loose::Other(v.clone()),
            };
            assert_eq!(got, want, "{v}");
        }
    }
    check::<String>();
    check::<i64>();
    check::<u64>();
}

#[test]
fn a_record_field_or_list_entry_that_is_not_an_object_reads_as_absent() {
    for v in every_kind() {
        let frame = parse::<StackTrace>(json!({"stackFrames": [{"id": 1, "source": v.clone()}, v.clone()]}));
        let source = frame.stack_frames[0].source.clone();
        if v.is_object() {
            let s = source.expect("an object is a source");
            assert_eq!(s.path.typed().cloned(), v.get("path").and_then(Value::as_str).map(str::to_owned), "{v}");
            assert_eq!(s.source_reference, v.get("sourceReference").and_then(Value::as_i64), "{v}");
        } else {
            assert_eq!(source, None, "{v}");
        }
        assert_eq!(frame.stack_frames.len(), 2, "every entry keeps its place: {v}");
        if !v.is_object() {
            assert_eq!(frame.stack_frames[1], StackFrame::default(), "{v}");
        }
    }
}

/// `Request::parse` says a struct body that is not an object fails (and reads as empty through
/// `unwrap_or_default()`), as a nested record that is not an object reads as absent
/// (`lenient::record`). An array body is not read positionally as the struct's fields.
#[test]
fn an_array_body_is_not_read_positionally() {
    let body = json!([[{"id": 1, "name": "positional", "line": 3}], 1]);
    let read = StackTrace::parse(Some(&body)).unwrap_or_default();
    assert_eq!(read, StackTraceResponse::default(), "an array body read as fields: {read:?}");
    let read = Evaluate::parse(Some(&json!(["positional", "int", 5]))).unwrap_or_default();
    assert_eq!(read, EvaluateResponse::default(), "an array body read as fields: {read:?}");
}
