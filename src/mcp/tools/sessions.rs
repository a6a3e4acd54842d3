//! Tool group "sessions": listing debug sessions. Must not: start or stop sessions.

use serde_json::{json, Map, Value};

use super::{no_arguments, Annotations, Outcome, Tool, ToolCx, ToolResult};

pub const TOOLS: &[Tool] = &[Tool {
    name: "sessions",
    title: "List debug sessions",
    description: "List all debug sessions, including exited and child sessions, with state, program and adapter.",
    input_schema: no_arguments,
    annotations: Annotations::READ_ONLY,
    handler: sessions,
}];

/// `sessions` → text plus `structuredContent: {"sessions": [...]}`. The session manager does not
/// exist yet, so the list is empty.
fn sessions(_cx: &mut ToolCx<'_>, _args: &Map<String, Value>) -> Outcome {
    Outcome::Done(ToolResult::ok("No debug sessions. Start one with launch or attach.", json!({"sessions": []})))
}
