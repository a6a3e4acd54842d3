//! The `dap_request` escape hatch: any DAP request, sent as given, answered with the adapter's
//! raw response body (capped). Requests agentdap's own bookkeeping depends on (start-up, run
//! state, breakpoint sets, the end of the session) are refused, naming the tool to use instead.

use std::time::Instant;

use serde_json::{json, Value};

use super::inspect::RESULT_CHARS;
use super::{Action, CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};
use crate::dap::client::Outcome;

/// Commands `dap_request` refuses, and what to use instead. Compared case-insensitively.
const REFUSED: &[(&str, &str)] = &[
    ("initialize", "agentdap sends it when a session starts (`launch`, `attach`)"),
    ("launch", "use the `launch` tool"),
    ("attach", "use the `attach` tool"),
    ("configurationDone", "agentdap sends it when a session starts"),
    ("disconnect", "use the `disconnect` tool"),
    ("terminate", "use the `terminate` tool"),
    ("continue", "use the `continue` tool"),
    ("next", "use the `step` tool (kind over)"),
    ("stepIn", "use the `step` tool (kind in)"),
    ("stepOut", "use the `step` tool (kind out)"),
    ("stepBack", "use the `step` tool (kind back)"),
    ("pause", "use the `pause` tool"),
    ("reverseContinue", "it resumes the program behind agentdap's back; agentdap has no tool for it yet"),
    ("goto", "use the `goto` tool"),
    ("restartFrame", "it resumes the program behind agentdap's back; agentdap has no tool for it yet"),
    ("restart", "use the `restart` tool"),
    ("setBreakpoints", "use the `set_breakpoints` tool (agentdap keeps each file's set)"),
    ("setExceptionBreakpoints", "use the `set_exception_breakpoints` tool"),
    ("setFunctionBreakpoints", "use the `set_function_breakpoints` tool (agentdap keeps the list)"),
    ("setVariable", "use the `set_variable` tool (it reads the value back)"),
    ("setExpression", "use the `set_expression` tool (it reads the value back)"),
];

/// DAP requests that only read the program's state (DAP § Requests): their answers change no
/// value another answer showed. Anything else a `dap_request` sends counts as a change.
const READS: &[&str] = &[
    "threads",
    "stackTrace",
    "scopes",
    "variables",
    "source",
    "modules",
    "loadedSources",
    "exceptionInfo",
    "completions",
    "disassemble",
    "readMemory",
    "breakpointLocations",
    "dataBreakpointInfo",
    "gotoTargets",
    "stepInTargets",
    "locations",
];

/// True when `command` only reads (see [`READS`]).
pub fn only_reads(command: &str) -> bool {
    READS.iter().any(|c| c.eq_ignore_ascii_case(command))
}

/// Why `command` may not go through `dap_request`, if it may not.
pub fn refusal(command: &str) -> Option<String> {
    REFUSED.iter().find(|(c, _)| c.eq_ignore_ascii_case(command)).map(|(c, instead)| {
        format!("`{c}` is not sent through dap_request: agentdap tracks what it changes; {instead}.")
    })
}

impl Sessions {
    /// `dap_request`: sends `command` with `arguments` on `key`'s connection (the default
    /// request timeout applies) and answers with the raw response body.
    pub fn dap_request(
        &mut self,
        key: SessionKey,
        command: &str,
        arguments: Option<Value>,
        call: CallKey,
        now: Instant,
    ) {
        let Some(s) = self.slab.get_mut(key) else { return };
        let refused = if let Some(why) = refusal(command) {
            Some(ToolResult::error(ErrorCode::InvalidArgument, why))
        } else if s.run.state.is_over() || s.link.closing || !s.link.adapter_alive || s.link.client.is_closed() {
            let msg = format!("{} has {}; its adapter takes no more requests.", s.id, s.run.state.as_str());
            Some(ToolResult::error(ErrorCode::Disconnected, msg))
        } else if !s.startup.launch_sent {
            let msg =
                format!("{} is still starting (its adapter has not answered `initialize`); call `wait` first.", s.id);
            Some(ToolResult::error(ErrorCode::NotStopped, msg))
        } else {
            None
        };
        if let Some(output) = refused {
            return self.actions.push_back(Action::Complete { call, output });
        }
        s.send(command, arguments, Origin::Raw { call }, now);
        s.pump(now, &mut self.actions);
    }
}

impl Session {
    /// The answer to a `dap_request`: the body as compact JSON, cut at the result cap.
    pub(super) fn raw_completed(&mut self, call: CallKey, outcome: Outcome) {
        let out = match outcome {
            Outcome::Success(r) => {
                let body = r.body.unwrap_or(Value::Null);
                let text = body.to_string();
                if text.len() <= RESULT_CHARS {
                    ToolResult::ok(
                        format!("`{}` answered: {text}", r.command),
                        json!({ "command": r.command, "body": body }),
                    )
                } else {
                    let mut cut = RESULT_CHARS;
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    ToolResult::ok(
                        format!(
                            "`{}` answered with {} bytes; the first {cut}:\n{}\n(… cut; ask for less, e.g. with paging arguments)",
                            r.command,
                            text.len(),
                            &text[..cut]
                        ),
                        json!({ "command": r.command, "truncated": true, "bytes": text.len() }),
                    )
                }
            }
            Outcome::Error { message, response } => {
                let mut out =
                    ToolResult::error(ErrorCode::AdapterError, format!("`{}` failed: {message}", response.command));
                if let Some(body) = response.body.filter(|b| b.to_string().len() <= RESULT_CHARS) {
                    out.structured["error"]["body"] = body;
                }
                out
            }
            other @ Outcome::Timeout { .. } => ToolResult::error(ErrorCode::Timeout, other.to_string()),
            other @ Outcome::Disconnected { .. } => ToolResult::error(ErrorCode::Disconnected, other.to_string()),
        };
        self.calls.done.push((call, out));
    }
}

#[cfg(test)]
mod tests {
    use super::refusal;

    #[test]
    fn bookkeeping_commands_are_refused_naming_the_tool() {
        let why = refusal("continue").unwrap_or_default();
        assert!(why.contains("`continue` tool"), "{why}");
        assert!(refusal("stepIn").unwrap_or_default().contains("`step` tool (kind in)"));
        assert!(refusal("NEXT").is_some());
        assert!(refusal("setBreakpoints").unwrap_or_default().contains("set_breakpoints"));
        for ok in ["threads", "evaluate", "modules", "loadedSources", "cancel", "custom/thing"] {
            assert_eq!(refusal(ok), None, "{ok}");
        }
    }
}
