//! Wire-level tests of the MCP layer: exact input lines in, exact output lines out.

use std::time::Instant;

use serde_json::{Map, Value};

use super::tools::{Annotations, Outcome, Tool, ToolCx, ToolResult};
use super::{CallKey, Context, Mcp, ToolSet, INSTRUCTIONS};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const SERVER_META: &str = r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"agentdap","version":"$V"}}"#;

/// Expands the placeholders of expected lines: `$V` (crate version), `$INSTR` (the instructions
/// as a JSON string), `$META` (modern request `_meta` member), `$SMETA` (modern result `_meta`).
fn expand(s: &str) -> String {
    s.replace("$META", META)
        .replace("$SMETA", SERVER_META)
        .replace("$V", env!("CARGO_PKG_VERSION"))
        .replace("$INSTR", &Value::from(INSTRUCTIONS).to_string())
}

/// Runs one line through `mcp` and returns what it wrote, one string per output line. Asserts
/// the framing: every message is valid compact JSON followed by exactly one `\n`.
fn feed(mcp: &mut Mcp, line: &str) -> Vec<String> {
    feed_raw(mcp, &expand(line))
}

/// Like [`feed`], without placeholder expansion.
fn feed_raw(mcp: &mut Mcp, line: &str) -> Vec<String> {
    let mut out = Vec::new();
    mcp.handle_line(
        line.as_bytes(),
        &mut Context { out: &mut out, now: Instant::now(), sessions: &mut crate::session::Sessions::default() },
    );
    lines(out)
}

fn lines(out: Vec<u8>) -> Vec<String> {
    let text = String::from_utf8(out).expect("output is UTF-8");
    assert!(text.is_empty() || text.ends_with('\n'), "output ends with a newline: {text:?}");
    text.lines()
        .map(|l| {
            assert!(!l.is_empty(), "no blank lines");
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
            assert!(v.is_object() || v.is_array());
            l.to_owned()
        })
        .collect()
}

/// Feeds `input` lines to a fresh server and compares everything it wrote with `expected`.
fn check(input: &[&str], expected: &[&str]) {
    check_with(&mut Mcp::new(), input, expected);
}

fn check_with(mcp: &mut Mcp, input: &[&str], expected: &[&str]) {
    let got: Vec<String> = input.iter().flat_map(|l| feed(mcp, l)).collect();
    let expected: Vec<String> = expected.iter().map(|l| expand(l)).collect();
    assert_eq!(got, expected, "\ninput: {input:#?}");
}

fn init(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

fn init_answer(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"result":{{"capabilities":{{"logging":{{}},"resources":{{"subscribe":true}},"tools":{{}}}},"instructions":$INSTR,"protocolVersion":"{version}","serverInfo":{{"name":"agentdap","version":"$V"}}}}}}"#
    )
}

// ---- legacy era ----

#[test]
fn initialize_echoes_every_legacy_version() {
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        check(&[&init(v)], &[&init_answer(v)]);
    }
}

#[test]
fn initialize_with_an_unknown_version_answers_2025_11_25() {
    check(&[&init("2099-01-01")], &[&init_answer("2025-11-25")]);
    check(&[r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#], &[&init_answer("2025-11-25")]);
}

#[test]
fn requests_are_served_before_and_after_initialized() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            &init("2025-11-25"),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            &init_answer("2025-11-25"),
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        ],
    );
}

#[test]
fn ids_are_echoed_exactly() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":-9007199254740993,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"ping"}"#,
            r#" { "method" : "ping" , "id" : 7 , "jsonrpc" : "2.0" } "#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"1","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":-9007199254740993,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b\u00e9","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
        ],
    );
}

#[test]
fn notifications_are_never_answered() {
    check(
        &[
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"}}"#,
            r#"{"jsonrpc":"2.0","method":"no/such/method","params":[1]}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
            r#"{"jsonrpc":"1.0","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":5}"#,
            r#"{"jsonrpc":"2.0","method":"server/discover","params":{$META}}"#,
        ],
        &[],
    );
}

#[test]
fn responses_from_the_client_are_ignored() {
    check(
        &[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#],
        &[],
    );
}

#[test]
fn malformed_json_is_a_parse_error_and_the_next_line_is_served() {
    check(
        &[r#"{"jsonrpc":"2.0","id":1,"method":"ping""#, "not json", r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#],
        &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON (EOF while parsing an object at line 1 column 39)"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON (expected ident at line 1 column 2)"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        ],
    );
    let mut mcp = Mcp::new();
    let mut out = Vec::new();
    mcp.handle_line(
        b"{\"id\":\xff}",
        &mut Context { out: &mut out, now: Instant::now(), sessions: &mut crate::session::Sessions::default() },
    );
    assert_eq!(
        lines(out),
        [
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid UTF-8 (at byte 6)"}}"#
        ]
    );
}

#[test]
fn invalid_requests_are_32600() {
    check(
        &[
            "1",
            r#""ping""#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
            r#"{"id":3,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":["ping"]}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: neither \"method\" nor \"result\"/\"error\""}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or a number"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or a number"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or a number"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string"}}"#,
        ],
    );
}

#[test]
fn unknown_methods_are_32601() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: prompts/list is not a method agentdap serves"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: server/discover is not part of the legacy protocol versions"}}"#,
        ],
    );
}

#[test]
fn invalid_params_are_32602() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sessions","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"loud"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: \"params\" must be an object"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: nope"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: \"arguments\" must be an object"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: tools/call needs a string \"name\""}}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: \"params\" must be an object"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: \"level\" must be one of debug, info, notice, warning, error, critical, alert, emergency"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: \"uri\" must be a string"}}"#,
        ],
    );
}

#[test]
fn batches_are_answered_as_one_array_under_2025_03_26() {
    check(
        &[
            &init("2025-03-26"),
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"sessions"}},{"jsonrpc":"2.0","id":3,"method":"nope"},7]"#,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]"#,
            "[]",
        ],
        &[
            &init_answer("2025-03-26"),
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","result":{"content":[{"text":"No debug sessions. Start one with launch.","type":"text"}],"structuredContent":{"sessions":[]}}},{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: nope is not a method agentdap serves"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}]"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: empty batch"}}"#,
        ],
    );
}

#[test]
fn batches_are_rejected_under_other_versions() {
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    check(
        &[batch],
        &[
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are accepted only under protocol version 2025-03-26 (negotiated: none)"}}"#,
        ],
    );
    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let rejected = format!(
            r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32600,"message":"Invalid Request: JSON-RPC batches are accepted only under protocol version 2025-03-26 (negotiated: {v})"}}}}"#
        );
        check(&[&init(v), batch], &[&init_answer(v), &rejected]);
    }
}

/// The golden `tools/list`: the exact JSON agents receive, pinned in `tests/golden/`.
#[test]
fn tools_list_matches_the_golden_file() {
    let golden: Value =
        serde_json::from_str(include_str!("../../tests/golden/tools_list.json")).expect("golden is JSON");
    let tools = serde_json::to_string(&golden).expect("serializes");
    check(
        &[r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#],
        &[&format!(r#"{{"jsonrpc":"2.0","id":1,"result":{tools}}}"#)],
    );
    assert!(tools.len() <= 16 * 1024, "tools/list is {} bytes", tools.len());
}

/// Every schema is flat and self-contained, in the words clients accept everywhere: `type`,
/// `properties`, `required`, `description`, `enum`, `items` (no `$ref`, no
/// `additionalProperties`; a free-form object is `{"type": "object", "properties": {}}`).
#[test]
fn tool_schemas_use_only_the_plain_keywords() {
    fn check(tool: &str, at: &str, schema: &Value) {
        let Some(map) = schema.as_object() else { return };
        for (key, value) in map {
            assert!(
                ["type", "properties", "required", "description", "enum", "items"].contains(&key.as_str()),
                "{tool}: `{key}` at {at}"
            );
            match key.as_str() {
                "properties" => {
                    for (name, prop) in value.as_object().into_iter().flatten() {
                        check(tool, &format!("{at}.{name}"), prop);
                    }
                }
                "items" => check(tool, &format!("{at}[]"), value),
                _ => {}
            }
        }
    }
    for tool in super::tools::registry() {
        check(tool.name, "inputSchema", &(tool.input_schema)());
    }
}

/// The budgets of the listing (Cursor offers an agent about 40 tools in all, and every byte of
/// `tools/list` is paid for in every conversation): at most 40 tools and 16 KiB for the full
/// set, at most 6 KiB for `--tools core` (`--host-requests ask` adds `resolve_host_request` to
/// it, ~0.4 KiB more, for the servers that hold host requests).
#[test]
fn tools_list_keeps_its_budgets() {
    let bytes = |mcp: &Mcp| serde_json::to_string(&mcp.listing).map(|t| t.len()).unwrap_or(usize::MAX);
    let full = Mcp::new();
    let core = Mcp::with_tool_set(ToolSet::Core, &[]);
    let (full_tools, full_bytes) = (full.tools.len(), bytes(&full));
    let (core_tools, core_bytes) = (core.tools.len(), bytes(&core));
    assert!(full_tools <= 40, "{full_tools} tools");
    assert!(full_bytes <= 16 * 1024, "tools/list is {full_bytes} bytes");
    assert!(core_bytes <= 6 * 1024, "core tools/list is {core_bytes} bytes");
    assert!(core_tools < full_tools);
}

#[test]
fn tools_call_sessions_returns_text_and_structured_content() {
    check(
        &[r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sessions","arguments":{}}}"#],
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"No debug sessions. Start one with launch.","type":"text"}],"structuredContent":{"sessions":[]}}}"#,
        ],
    );
}

#[test]
fn resources_are_listed_read_and_subscribed() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/templates/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"agentdap://sessions"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"agentdap://session/s9/state"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"agentdap://session/s1/state"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"resources/unsubscribe","params":{"uri":"agentdap://session/s1/state"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"warning"}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"agentdap://ledger"}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"resources":[{"description":"Every debug session with its state, program and adapter.","mimeType":"application/json","name":"sessions","title":"Debug sessions","uri":"agentdap://sessions"},{"description":"Recent ledger records (session starts, breakpoints, stops, ends), one JSON object per line.","mimeType":"application/x-ndjson","name":"ledger","title":"Ledger","uri":"agentdap://ledger"}]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"description":"Snapshot of one session (state, revision, stop, exit code); subscribe to follow stops.","mimeType":"application/json","name":"session-state","title":"Session state","uriTemplate":"agentdap://session/{id}/state"},{"description":"The session's captured program and adapter output.","mimeType":"text/plain","name":"session-output","title":"Program output","uriTemplate":"agentdap://session/{id}/output"},{"description":"Every DAP message of the session, one JSON object per line, secrets redacted.","mimeType":"application/x-ndjson","name":"session-dap-log","title":"DAP message log","uriTemplate":"agentdap://session/{id}/dap-log"}]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"contents":[{"mimeType":"application/json","text":"{\"sessions\":[]}","uri":"agentdap://sessions"}]}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"agentdap://session/s9/state"}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":6,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":8,"result":{"contents":[{"mimeType":"application/x-ndjson","text":"","uri":"agentdap://ledger"}]}}"#,
        ],
    );
}

#[test]
fn resource_updates_reach_legacy_subscribers() {
    let mut mcp = Mcp::new();
    check_with(
        &mut mcp,
        &[r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"agentdap://session/s1/state"}}"#],
        &[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#],
    );
    let mut out = Vec::new();
    let mut cx = Context { out: &mut out, now: Instant::now(), sessions: &mut crate::session::Sessions::default() };
    mcp.resource_updated("agentdap://session/s1/state", &mut cx);
    mcp.resource_updated("agentdap://session/s2/state", &mut cx);
    assert_eq!(
        lines(out),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"agentdap://session/s1/state"}}"#
        ]
    );
    assert_eq!(mcp.log_level(), None);
}

#[test]
fn line_too_long_is_an_error_with_a_null_id() {
    let mut out = Vec::new();
    Mcp::new().line_too_long(
        20_000_000,
        &mut Context { out: &mut out, now: Instant::now(), sessions: &mut crate::session::Sessions::default() },
    );
    assert_eq!(
        lines(out),
        [
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message of 20000000 bytes exceeds the 16777216-byte line limit","data":{"bytes":20000000,"limit":16777216}}}"#
        ]
    );
}

// ---- modern era (2026-07-28) ----

#[test]
fn modern_discover() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":"d","result":{$SMETA,"cacheScope":"public","capabilities":{"resources":{"subscribe":true},"tools":{}},"instructions":$INSTR,"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"ttlMs":3600000}}"#,
        ],
    );
}

#[test]
fn modern_tools_list_and_call() {
    let golden: Value =
        serde_json::from_str(include_str!("../../tests/golden/tools_list.json")).expect("golden is JSON");
    let tools = serde_json::to_string(&golden["tools"]).expect("serializes");
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{$META,"name":"sessions"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{$META,"name":"nope"}}"#,
        ],
        &[
            &format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{$SMETA,"cacheScope":"public","resultType":"complete","tools":{tools},"ttlMs":3600000}}}}"#
            ),
            r#"{"jsonrpc":"2.0","id":2,"result":{$SMETA,"content":[{"text":"No debug sessions. Start one with launch.","type":"text"}],"resultType":"complete","structuredContent":{"sessions":[]}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: nope"}}"#,
        ],
    );
}

#[test]
fn modern_resources() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{$META}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{$META,"uri":"agentdap://sessions"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{$META,"uri":"agentdap://nothing"}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{$SMETA,"cacheScope":"private","resources":[{"description":"Every debug session with its state, program and adapter.","mimeType":"application/json","name":"sessions","title":"Debug sessions","uri":"agentdap://sessions"},{"description":"Recent ledger records (session starts, breakpoints, stops, ends), one JSON object per line.","mimeType":"application/x-ndjson","name":"ledger","title":"Ledger","uri":"agentdap://ledger"}],"resultType":"complete","ttlMs":0}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{$SMETA,"cacheScope":"private","contents":[{"mimeType":"application/json","text":"{\"sessions\":[]}","uri":"agentdap://sessions"}],"resultType":"complete","ttlMs":0}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"agentdap://nothing"}}}"#,
        ],
    );
}

#[test]
fn modern_unsupported_version_is_32022() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"1900-01-01","supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]}}}"#,
        ],
    );
}

#[test]
fn modern_missing_meta_is_32602() {
    check(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"server/discover"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: missing required _meta key \"io.modelcontextprotocol/clientCapabilities\""}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: missing required _meta key \"io.modelcontextprotocol/protocolVersion\""}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: missing required _meta key \"io.modelcontextprotocol/protocolVersion\""}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: _meta \"io.modelcontextprotocol/protocolVersion\" must be a string"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: _meta \"io.modelcontextprotocol/clientCapabilities\" must be an object"}}"#,
        ],
    );
}

#[test]
fn modern_requests_reject_legacy_only_methods() {
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for (i, m) in
        ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"].iter().enumerate()
    {
        input.push(format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"{m}","params":{{$META}}}}"#));
        expected.push(format!(r#"{{"jsonrpc":"2.0","id":{i},"error":{{"code":-32601,"message":"Method not found: {m} is not part of protocol version 2026-07-28"}}}}"#));
    }
    let input: Vec<&str> = input.iter().map(String::as_str).collect();
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    check(&input, &expected);
}

#[test]
fn modern_requests_do_not_need_or_change_legacy_state() {
    let mut mcp = Mcp::new();
    check_with(
        &mut mcp,
        &[r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{$META,"name":"sessions"}}"#],
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{$SMETA,"content":[{"text":"No debug sessions. Start one with launch.","type":"text"}],"resultType":"complete","structuredContent":{"sessions":[]}}}"#,
        ],
    );
    assert_eq!(mcp.negotiated_version(), None);
}

#[test]
fn subscriptions_listen_is_acknowledged_notified_and_closed() {
    let mut mcp = Mcp::new();
    check_with(
        &mut mcp,
        &[
            r#"{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{$META,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["agentdap://session/s1/state"]}}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{$META,"notifications":{"promptsListChanged":true}}}"#,
            r#"{"jsonrpc":"2.0","id":"L","method":"ping"}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"notifications":{"resourceSubscriptions":["agentdap://session/s1/state"]}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9},"notifications":{}}}"#,
            r#"{"jsonrpc":"2.0","id":"L","error":{"code":-32600,"message":"Invalid Request: id \"L\" is already used by a request in flight"}}"#,
        ],
    );
    let mut out = Vec::new();
    mcp.resource_updated(
        "agentdap://session/s1/state",
        &mut Context { out: &mut out, now: Instant::now(), sessions: &mut crate::session::Sessions::default() },
    );
    assert_eq!(
        lines(out),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"uri":"agentdap://session/s1/state"}}"#
        ]
    );
    // The client closes "L": no answer, ever. The server closes 9 at shutdown.
    check_with(&mut mcp, &[r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}"#], &[]);
    let mut out = Vec::new();
    mcp.close_subscriptions(&mut Context {
        out: &mut out,
        now: Instant::now(),
        sessions: &mut crate::session::Sessions::default(),
    });
    assert_eq!(
        lines(out),
        [expand(
            r#"{"jsonrpc":"2.0","id":9,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"agentdap","version":"$V"},"io.modelcontextprotocol/subscriptionId":9},"resultType":"complete"}}"#
        )]
    );
}

// ---- pending tool calls: later answers, progress, cancellation ----

fn pending_handler(_cx: &mut ToolCx<'_>, _args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    Ok(Outcome::Pending)
}

static WAIT: Tool = Tool {
    name: "wait_test",
    description: "Answers later.",
    input_schema: super::tools::no_arguments,
    annotations: Annotations::READ_ONLY,
    handler: pending_handler,
};

fn with_wait() -> Mcp {
    Mcp::with_extra_tools(&[&WAIT])
}

fn run(mcp: &mut Mcp, f: impl FnOnce(&mut Mcp, &mut Context<'_>)) -> Vec<String> {
    let mut out = Vec::new();
    f(mcp, &mut Context { out: &mut out, now: Instant::now(), sessions: &mut crate::session::Sessions::default() });
    lines(out)
}

#[test]
fn pending_calls_are_answered_later_with_progress() {
    let mut mcp = with_wait();
    check_with(
        &mut mcp,
        &[
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait_test","_meta":{"progressToken":123456789012345678901234567890}}}"#,
        ],
        &[],
    );
    let [call] = mcp.pending_calls()[..] else { panic!("one pending call") };
    assert_eq!(mcp.progress_token(call).map(|t| t.raw()), Some("123456789012345678901234567890"));
    let got = run(&mut mcp, |m, cx| {
        m.progress(call, 1.0, None, Some("running"), cx);
        m.progress(call, 1.0, None, None, cx); // not increasing: dropped
        m.progress(call, 2.5, Some(10.0), None, cx);
        assert!(m.complete(
            call,
            ToolResult::error(super::ErrorCode::Timeout, "no stop within 10000 ms; call wait."),
            cx
        ));
        assert!(!m.complete(call, ToolResult::ok("again", Value::Null), cx));
    });
    assert_eq!(
        got,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":123456789012345678901234567890,"progress":1.0,"message":"running"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":123456789012345678901234567890,"progress":2.5,"total":10.0}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"timeout: no stop within 10000 ms; call wait.","type":"text"}],"isError":true,"structuredContent":{"error":{"code":"timeout","message":"no stop within 10000 ms; call wait."}}}}"#,
        ]
    );
    assert!(mcp.pending_calls().is_empty());
}

#[test]
fn modern_pending_calls_are_dressed_when_completed() {
    let mut mcp = with_wait();
    check_with(
        &mut mcp,
        &[r#"{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{$META,"name":"wait_test"}}"#],
        &[],
    );
    let [call] = mcp.pending_calls()[..] else { panic!("one pending call") };
    assert_eq!(mcp.progress_token(call), None);
    let got = run(&mut mcp, |m, cx| {
        m.progress(call, 1.0, None, None, cx); // no token: nothing
        m.complete(call, ToolResult::ok("stopped", serde_json::json!({"state": "stopped"})), cx);
    });
    assert_eq!(
        got,
        [expand(
            r#"{"jsonrpc":"2.0","id":"m","result":{$SMETA,"content":[{"text":"stopped","type":"text"}],"resultType":"complete","structuredContent":{"state":"stopped"}}}"#
        )]
    );
}

#[test]
fn cancelled_calls_are_never_answered_and_reported_to_the_owner() {
    let mut mcp = with_wait();
    check_with(
        &mut mcp,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_test"}}"#,
            r#"{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"wait_test"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: id 1 is already used by a request in flight"}}"#,
        ],
    );
    let cancelled = mcp.take_cancelled();
    assert_eq!(cancelled, [CallKey::new(0)]);
    assert!(mcp.take_cancelled().is_empty());
    let got = run(&mut mcp, |m, cx| {
        assert!(!m.complete(CallKey::new(0), ToolResult::ok("late", Value::Null), cx));
        assert!(m.complete(CallKey::new(1), ToolResult::ok("done", Value::Null), cx));
    });
    assert_eq!(
        got,
        [r#"{"jsonrpc":"2.0","id":"1","result":{"content":[{"text":"done","type":"text"}],"structuredContent":null}}"#]
    );
}

#[test]
fn a_batch_waits_for_its_pending_entries() {
    let mut mcp = with_wait();
    check_with(
        &mut mcp,
        &[
            &init("2025-03-26"),
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_test"}},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_test"}}]"#,
        ],
        &[&init_answer("2025-03-26")],
    );
    let [a, b] = mcp.pending_calls()[..] else { panic!("two pending calls") };
    assert!(run(&mut mcp, |m, cx| assert!(m.complete(b, ToolResult::ok("b", Value::Null), cx))).is_empty());
    check_with(
        &mut mcp,
        &[r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#],
        &[
            r#"[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"b","type":"text"}],"structuredContent":null}}]"#,
        ],
    );
    assert_eq!(mcp.take_cancelled(), [a]);
}

#[test]
fn a_cancellation_inside_the_same_batch_drops_the_entry() {
    let mut mcp = with_wait();
    check_with(
        &mut mcp,
        &[
            &init("2025-03-26"),
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_test"}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            r#"[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_test"}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}]"#,
        ],
        &[&init_answer("2025-03-26"), r#"[{"jsonrpc":"2.0","id":2,"result":{}}]"#],
    );
    assert_eq!(mcp.take_cancelled().len(), 2);
    assert!(mcp.pending_calls().is_empty());
}

// ---- properties: no input panics, every answer is one valid JSON line ----

/// Pieces that make near-JSON-RPC lines when glued in random order.
const PIECES: [&str; 24] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"jsonrpc\"",
    "\"2.0\"",
    "\"id\"",
    "1",
    "\"x\"",
    "\"method\"",
    "\"ping\"",
    "\"tools/call\"",
    "\"params\"",
    "\"_meta\"",
    "\"io.modelcontextprotocol/protocolVersion\"",
    "\"2026-07-28\"",
    "\"name\"",
    "\"sessions\"",
    "null",
    "\"requestId\"",
    "\"notifications/cancelled\"",
    "\\",
];

fn answers_are_valid_lines(mcp: &mut Mcp, line: &[u8]) -> bool {
    if line.iter().all(u8::is_ascii_whitespace) {
        return true; // the reader never passes blank lines
    }
    let mut out = Vec::new();
    mcp.handle_line(
        line,
        &mut Context { out: &mut out, now: Instant::now(), sessions: &mut crate::session::Sessions::default() },
    );
    let Ok(text) = String::from_utf8(out) else { return false };
    (text.is_empty() || text.ends_with('\n'))
        && text.lines().all(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v.is_object() || v.is_array()))
}

#[test]
fn arbitrary_bytes_never_panic() {
    fn prop(bytes: Vec<u8>) -> bool {
        answers_are_valid_lines(&mut Mcp::new(), &bytes)
    }
    quickcheck::quickcheck(prop as fn(Vec<u8>) -> bool);
}

#[test]
fn near_json_rpc_lines_never_panic() {
    fn prop(picks: Vec<u8>) -> bool {
        let line: String = picks.iter().map(|p| PIECES[usize::from(*p) % PIECES.len()]).collect();
        let mut mcp = Mcp::new();
        answers_are_valid_lines(&mut mcp, init("2025-03-26").as_bytes())
            && answers_are_valid_lines(&mut mcp, line.as_bytes())
    }
    quickcheck::QuickCheck::new().tests(2000).quickcheck(prop as fn(Vec<u8>) -> bool);
}

#[test]
fn every_request_gets_exactly_one_answer_with_its_id() {
    const METHODS: [&str; 10] = [
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "logging/setLevel",
        "server/discover",
        "no/such",
    ];
    fn prop(id: i64, string_id: bool, method: u8, modern: bool, text: String) -> bool {
        let raw_id = if string_id { Value::from(text.clone()).to_string() } else { id.to_string() };
        let method = METHODS[usize::from(method) % METHODS.len()];
        let meta = if modern { META.replace("\"_meta\":", "") } else { "{}".into() };
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{raw_id},"method":"{method}","params":{{"_meta":{meta},"name":"sessions","uri":{},"level":{}}}}}"#,
            Value::from(text.clone()),
            Value::from(text)
        );
        let got = feed_raw(&mut Mcp::new(), &line);
        let [answer] = &got[..] else { return false };
        answer.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{raw_id},"#))
    }
    quickcheck::quickcheck(prop as fn(i64, bool, u8, bool, String) -> bool);
}
