//! Which switch each tool — or each mode of a tool — needs (README § Operator limits has the same
//! table for readers). A tool not named here reads state only and is always allowed.

use serde_json::{Map, Value};

use super::{Allow, Switch};

/// Tools that need one switch whatever their arguments.
pub const WHOLE: &[(&str, Switch)] = &[
    ("launch", Switch::Launch),
    // Deciding whether agentdap runs the adapter's command (`runInTerminal`) is part of starting a program.
    ("resolve_host_request", Switch::Launch),
    ("attach", Switch::Attach),
    // Completions evaluate the text before the cursor (debugpy calls `dir()` on it).
    ("completions", Switch::Evaluate),
    ("set_variable", Switch::Modify),
    ("goto", Switch::Modify),
    ("continue", Switch::Control),
    ("step", Switch::Control),
    ("pause", Switch::Control),
    ("run_to", Switch::Control),
    ("restart", Switch::Control),
    // Input changes what the program does next.
    ("send_input", Switch::Control),
    ("expose_session", Switch::Mirror),
    // Nothing can be exposed without `mirror`: the tool is of no use then.
    ("unexpose_session", Switch::Mirror),
    ("dap_request", Switch::Raw),
];

/// Tools of which only some modes need a switch: the tool stays listed.
pub const PARTIAL: &[(&str, &str, Switch)] = &[
    ("evaluate", "evaluate outside `hover`", Switch::Evaluate),
    ("watch", "`watch` add (watches are evaluated at every stop)", Switch::Evaluate),
    ("memory", "`memory` write", Switch::Modify),
    ("disconnect", "`disconnect` with terminate_debuggee", Switch::Control),
    ("set_breakpoints", "a breakpoint condition, hit condition or log message", Switch::Evaluate),
    ("set_exception_breakpoints", "an exception breakpoint condition", Switch::Evaluate),
];

/// What the dispatch does with one call.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// `evaluate` without the `evaluate` switch: only in `hover`, and only where the session's
    /// adapter evaluates hover without side effects ([`super::hover::verdict`]).
    HoverOnly,
    /// Refused, with the sentence naming the switch that would allow it.
    Refused(String),
}

/// The verdict on `tool` called with `args` under `allow`.
pub fn check(allow: Allow, tool: &str, args: &Map<String, Value>) -> Verdict {
    if let Some((_, switch)) = WHOLE.iter().find(|(t, _)| *t == tool) {
        return if allow.has(*switch) {
            Verdict::Allowed
        } else {
            Verdict::Refused(allow.refusal(&format!("`{tool}`"), *switch))
        };
    }
    let Some((_, what, switch)) = PARTIAL.iter().find(|(t, _, _)| *t == tool) else {
        return Verdict::Allowed;
    };
    if allow.has(*switch) || !mode_needs_switch(tool, args) {
        return Verdict::Allowed;
    }
    if tool == "evaluate" {
        return match args.get("context").and_then(Value::as_str) {
            None | Some("hover") => Verdict::HoverOnly,
            Some(other) => Verdict::Refused(allow.refusal(&format!("`evaluate` in context `{other}`"), *switch)),
        };
    }
    Verdict::Refused(allow.refusal(what, *switch))
}

/// Whether this call uses the mode of a [`PARTIAL`] tool that needs its switch.
fn mode_needs_switch(tool: &str, args: &Map<String, Value>) -> bool {
    let present = |k: &str| args.get(k).is_some_and(|v| !v.is_null());
    match tool {
        "evaluate" => true,
        "watch" => present("add"),
        "memory" => args.get("op").and_then(Value::as_str) == Some("write") || present("data"),
        "disconnect" => args.get("terminate_debuggee").and_then(Value::as_bool) == Some(true),
        "set_breakpoints" => args.get("breakpoints").and_then(Value::as_array).is_some_and(|list| {
            list.iter().any(|b| {
                ["condition", "hit_condition", "log_message"].iter().any(|k| b.get(k).is_some_and(|v| !v.is_null()))
            })
        }),
        "set_exception_breakpoints" => present("conditions"),
        _ => false,
    }
}

/// Whether some call of `tool` is allowed under `allow` (else `tools/list` omits it).
pub fn ever_allowed(allow: Allow, tool: &str) -> bool {
    WHOLE.iter().find(|(t, _)| *t == tool).map_or(true, |(_, s)| allow.has(*s))
}
