//! MCP resources: the fixed list, the URI templates, and reading (MCP 2025-11-25 § Server ›
//! Resources). Must not: hold subscriptions (those live in `Mcp`) or change sessions.

use serde_json::{json, Value};

use crate::session::Sessions;

/// The session list (`application/json`, `{"sessions": [...]}`).
pub const SESSIONS_URI: &str = "agentdap://sessions";
/// The ledger's recent records (`application/x-ndjson`).
pub const LEDGER_URI: &str = "agentdap://ledger";

/// `resources/list` result body: `{"resources": [Resource…]}`.
pub fn list() -> Value {
    json!({"resources": [{
        "uri": SESSIONS_URI,
        "name": "sessions",
        "title": "Debug sessions",
        "description": "Every debug session with its state, program and adapter.",
        "mimeType": "application/json",
    }, {
        "uri": LEDGER_URI,
        "name": "ledger",
        "title": "Ledger",
        "description": "Recent ledger records (session starts, breakpoints, stops, ends), one JSON object per line.",
        "mimeType": "application/x-ndjson",
    }]})
}

/// `resources/templates/list` result body: `{"resourceTemplates": [ResourceTemplate…]}`.
pub fn templates() -> Value {
    json!({"resourceTemplates": [
        {
            "uriTemplate": "agentdap://session/{id}/state",
            "name": "session-state",
            "title": "Session state",
            "description": "Snapshot of one session (state, revision, stop, exit code); subscribe to follow stops.",
            "mimeType": "application/json",
        },
        {
            "uriTemplate": "agentdap://session/{id}/output",
            "name": "session-output",
            "title": "Program output",
            "description": "The session's captured program and adapter output.",
            "mimeType": "text/plain",
        },
        {
            "uriTemplate": "agentdap://session/{id}/dap-log",
            "name": "session-dap-log",
            "title": "DAP message log",
            "description": "Every DAP message of the session, one JSON object per line, secrets redacted.",
            "mimeType": "application/x-ndjson",
        },
    ]})
}

/// `resources/read` result body `{"contents": [{"uri", "mimeType", "text"}]}`, or `None` when
/// the URI names nothing (the caller answers "Resource not found").
pub fn read(uri: &str, sessions: &Sessions) -> Option<Value> {
    if uri == SESSIONS_URI {
        let text = sessions.list_json().to_string();
        return Some(content(uri, "application/json", text));
    }
    if uri == LEDGER_URI {
        return Some(content(uri, "application/x-ndjson", sessions.ledger.ndjson()));
    }
    let rest = uri.strip_prefix("agentdap://session/")?;
    let (id, what) = rest.split_once('/')?;
    let key = sessions.resolve(Some(id)).ok()?;
    let s = sessions.get(key)?;
    match what {
        "state" => Some(content(uri, "application/json", s.summary_json().to_string())),
        "output" => {
            let read = s.output.read(0, None, usize::MAX);
            let mut text = crate::session::output::join(read.entries.iter().copied(), true);
            if read.dropped > 0 {
                // What the ring let go is said, never silently missing from the top.
                let (_, bytes) = s.output.evicted();
                text.insert_str(
                    0,
                    &format!(
                        "(… {} earlier entries, {bytes} bytes, were dropped: the output ring keeps the last {} KiB)\n",
                        read.dropped,
                        s.output.cap() / 1024
                    ),
                );
            }
            Some(content(uri, "text/plain", text))
        }
        "dap-log" => Some(content(uri, "application/x-ndjson", s.dap_log_ndjson())),
        _ => None,
    }
}

fn content(uri: &str, mime: &str, text: String) -> Value {
    json!({"contents": [{"uri": uri, "mimeType": mime, "text": text}]})
}
