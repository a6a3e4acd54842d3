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
    let whole = WHOLE.iter().find(|(t, _)| *t == tool);
    if let Some((_, switch)) = whole.filter(|(_, s)| !allow.has(*s)) {
        return Verdict::Refused(allow.refusal(&format!("`{tool}`"), *switch));
    }
    // Every rule that applies must be allowed, not only the first.
    let rules = ARGUMENT_RULES.iter().filter_map(|rule| rule(tool, args));
    if let Some((what, switch)) = rules.into_iter().find(|(_, s)| !allow.has(*s)) {
        return Verdict::Refused(allow.refusal(&what, switch));
    }
    if whole.is_some() {
        return Verdict::Allowed;
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
        "set_breakpoints" => breakpoints_run_code(args),
        "set_exception_breakpoints" => present("conditions"),
        _ => false,
    }
}

/// Arguments that need a switch of their own, whatever the tool needs: each rule names what the
/// call does and the switch (found by breaker tests: code reached the program or the host through
/// these while the tool itself was allowed).
type ArgumentRule = fn(&str, &Map<String, Value>) -> Option<(String, Switch)>;
const ARGUMENT_RULES: &[ArgumentRule] = &[
    // `launch` and `attach` take the first breakpoints: their conditions are code.
    |tool, args| {
        (matches!(tool, "launch" | "attach") && breakpoints_run_code(args))
            .then(|| (format!("`{tool}` with a breakpoint condition, hit condition or log message"), Switch::Evaluate))
    },
    // `adapter_args` go to the adapter verbatim and can name the interpreter it runs (debugpy's
    // `python`) or debugger commands (lldb-dap's `initCommands`, `attachCommands`…): starting
    // commands is what `launch` guards.
    |tool, args| {
        let given = args.get("adapter_args").is_some_and(|v| v.as_object().map_or(!v.is_null(), |m| !m.is_empty()));
        (tool == "attach" && given)
            .then(|| ("`attach` with adapter_args (they can make the adapter run commands)".to_owned(), Switch::Launch))
    },
    // A memory `address` that is not a plain number is an expression the adapter evaluates.
    |tool, args| {
        let address = args.get("address").and_then(Value::as_str).map(str::trim);
        let literal = |a: &str| {
            let hex = a.strip_prefix("0x").or_else(|| a.strip_prefix("0X"));
            hex.map_or(!a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()), |h| {
                !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit())
            })
        };
        (tool == "memory" && address.is_some_and(|a| !literal(a)))
            .then(|| ("a `memory` address that is an expression, not a number".to_owned(), Switch::Evaluate))
    },
    // A graceful disconnect asks the adapter to end the program.
    |tool, args| {
        (tool == "disconnect" && args.get("graceful").and_then(Value::as_bool) == Some(true)).then(|| {
            ("`disconnect` with graceful (it asks the adapter to end the program)".to_owned(), Switch::Control)
        })
    },
];

/// Keys of a breakpoint whose text the adapter evaluates in the program: conditions, hit
/// conditions, log messages (each also under its DAP spelling, which the breakpoint types accept
/// as aliases), and a data breakpoint's `expression`.
const CODE_KEYS: &[&str] = &["condition", "hit_condition", "hitCondition", "log_message", "logMessage", "expression"];

/// Whether a call's `breakpoints` carry code for the adapter to run ([`CODE_KEYS`]).
fn breakpoints_run_code(args: &Map<String, Value>) -> bool {
    args.get("breakpoints")
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(|b| CODE_KEYS.iter().any(|k| b.get(k).is_some_and(|v| !v.is_null()))))
}

/// Whether some call of `tool` is allowed under `allow` (else `tools/list` omits it).
pub fn ever_allowed(allow: Allow, tool: &str) -> bool {
    WHOLE.iter().find(|(t, _)| *t == tool).map_or(true, |(_, s)| allow.has(*s))
}
