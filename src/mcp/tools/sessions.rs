//! Tool group "sessions": listing debug sessions. Must not: start or stop sessions.

use serde_json::{Map, Value};

use super::{no_arguments, Annotations, Outcome, Tool, ToolCx, ToolResult};

pub const TOOLS: &[Tool] = &[Tool {
    name: "sessions",
    description: "All sessions with state, program and adapter.",
    input_schema: no_arguments,
    annotations: Annotations::READ_ONLY,
    handler: sessions,
}];

/// `sessions` → one line per session plus `structuredContent: {"sessions": [...]}`.
fn sessions(cx: &mut ToolCx<'_>, _args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let mut text = String::new();
    for (depth, s) in cx.sessions.listed() {
        let indent = "  ".repeat(depth);
        let request = match &s.family.core {
            Some(pm) => format!(" · post-mortem: core {}", pm.core),
            None if s.plan_request() == "attach" => " · attached".to_owned(),
            None => String::new(),
        };
        // A stand-in's parent is its hidden launcher (`session::launcher`): not the agent's business.
        let parent = s
            .family
            .parent
            .as_ref()
            .filter(|_| !s.family.stands_in)
            .map(|(_, p)| format!(" · child of {p}"))
            .unwrap_or_default();
        // The endpoint only, never the token (SECURITY.md § The IDE mirror).
        let mirror = s.mirror.endpoint.as_ref().map(|e| format!(" · mirror {}:{}", e.host, e.port)).unwrap_or_default();
        let mirror = match (s.mirror.endpoint.is_some(), s.mirror.control_asked()) {
            (false, _) => mirror,
            (true, Some(c)) => format!(
                "{mirror} (read-only; {})",
                crate::session::mirror::asked_words(c, s.mirror.control_grantable())
            ),
            (true, None) => format!("{mirror} ({})", s.mirror.mode.words()),
        };
        let host = match s.host.pending_ids() {
            ids if ids.is_empty() || s.run.state.is_over() => String::new(),
            ids => format!(" · host request {} pending (resolve_host_request)", ids.join(", ")),
        };
        // A session that failed says why (the first line), not only in `structuredContent`.
        let failure = s
            .run
            .failure
            .as_deref()
            .and_then(|f| f.lines().next())
            .map(|f| format!(" · failed: {}", crate::session::clip_text(f, 200)))
            .unwrap_or_default();
        // Output the ring let go is said here too, not only by `output` (README § Output).
        let dropped = s
            .output_dropped()
            .map(|(entries, bytes)| {
                format!(
                    " · output: {entries} entries dropped ({bytes} bytes; the ring keeps the last {} KiB)",
                    s.output.cap() / 1024
                )
            })
            .unwrap_or_default();
        text.push_str(&format!(
            "{indent}{} · {} · {}{request}{parent}{mirror}{host}{dropped}{failure}\n",
            s.headline(),
            s.link.adapter,
            s.program
        ));
    }
    if text.is_empty() {
        text = if cx.sessions.allow.has(crate::allow::Switch::Launch) {
            "No debug sessions. Start one with launch.".into()
        } else {
            format!("No debug sessions; {}.", cx.sessions.allow.how_to_start())
        };
    }
    Ok(Outcome::Done(ToolResult::ok(text.trim_end().to_owned(), cx.sessions.list_json())))
}
