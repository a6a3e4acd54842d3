//! MCP resources: the fixed list, the URI templates, and reading (MCP 2025-11-25 § Server ›
//! Resources). Must not: hold subscriptions (those live in `Mcp`) or touch sessions directly.

use serde_json::{json, Value};

/// The session list (`application/json`, `{"sessions": [...]}`).
pub const SESSIONS_URI: &str = "dapmux://sessions";

/// `resources/list` result body: `{"resources": [Resource…]}`.
pub fn list() -> Value {
    json!({"resources": [{
        "uri": SESSIONS_URI,
        "name": "sessions",
        "title": "Debug sessions",
        "description": "Every debug session with its state, program and adapter.",
        "mimeType": "application/json",
    }]})
}

/// `resources/templates/list` result body: `{"resourceTemplates": [ResourceTemplate…]}`.
pub fn templates() -> Value {
    json!({"resourceTemplates": [
        {
            "uriTemplate": "dapmux://session/{id}/state",
            "name": "session-state",
            "title": "Session state",
            "description": "Snapshot of one session (state, revision, stop, exit code); subscribe to follow stops.",
            "mimeType": "application/json",
        },
        {
            "uriTemplate": "dapmux://session/{id}/output",
            "name": "session-output",
            "title": "Program output",
            "description": "The session's captured program and adapter output.",
            "mimeType": "text/plain",
        },
        {
            "uriTemplate": "dapmux://session/{id}/dap-log",
            "name": "session-dap-log",
            "title": "DAP message log",
            "description": "Every DAP message of the session, one JSON object per line, secrets redacted.",
            "mimeType": "application/x-ndjson",
        },
    ]})
}

/// `resources/read` result body `{"contents": [{"uri", "mimeType", "text"}]}`, or `None` when
/// the URI names nothing (the caller answers "Resource not found"). Session resources resolve
/// once sessions exist; until then every `dapmux://session/{id}/…` is not found.
pub fn read(uri: &str) -> Option<Value> {
    if uri != SESSIONS_URI {
        return None;
    }
    let text = json!({"sessions": []}).to_string();
    Some(json!({"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}))
}
