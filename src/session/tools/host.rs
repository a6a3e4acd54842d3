//! Tool group "host" (`mcp/tools/host.rs`): `send_input` (the stdin of a program agentdap runs
//! itself), `resolve_host_request` (a `runInTerminal` held by the `ask` policy), and the
//! `dap_request` escape hatch — any DAP request, sent as given, answered with the adapter's raw
//! response body (capped). Requests agentdap's own bookkeeping depends on (start-up, run state,
//! breakpoint sets, the end of the session) are refused, naming the tool to use instead. Must
//! not: decide the host-request policy (`session/host.rs` does).

use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::{session, Started};
use crate::dap::client::Outcome;
use crate::session::host::STDIN_CAP;
use crate::session::snapshot::RunState;
use crate::session::values::RESULT_CHARS;
use crate::session::waiters::{wait_duration, Until, Waiter};
use crate::session::{Action, CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// What a host-group request is doing; carried in [`Origin::Host`].
#[derive(Debug)]
pub enum Op {
    /// A `dap_request` call: the raw response body goes back to it.
    DapRequest { call: CallKey },
}

/// Commands `dap_request` refuses, and what to use instead. Compared case-insensitively.
const REFUSED: &[(&str, &str)] = &[
    ("initialize", "agentdap sends it when a session starts (`launch`, `attach`)"),
    ("launch", "use the `launch` tool"),
    ("attach", "use the `attach` tool"),
    ("configurationDone", "agentdap sends it when a session starts"),
    ("disconnect", "use the `disconnect` tool"),
    ("terminate", "use `disconnect {graceful: true}`"),
    ("continue", "use the `continue` tool"),
    ("next", "use the `step` tool (kind over)"),
    ("stepIn", "use the `step` tool (kind in)"),
    ("stepOut", "use the `step` tool (kind out)"),
    ("stepBack", "use the `step` tool (kind back)"),
    ("pause", "use the `pause` tool"),
    ("reverseContinue", "use `continue {reverse: true}`"),
    ("goto", "use the `goto` tool"),
    ("restartFrame", "use `restart {frame}`"),
    ("restart", "use the `restart` tool"),
    ("setBreakpoints", "use the `set_breakpoints` tool (agentdap keeps each file's set)"),
    ("setExceptionBreakpoints", "use the `set_exception_breakpoints` tool"),
    ("setFunctionBreakpoints", "use `set_breakpoints {kind: function}` (agentdap keeps the list)"),
    ("setDataBreakpoints", "use `set_breakpoints {kind: data}` (agentdap keeps the list)"),
    ("setInstructionBreakpoints", "use `set_breakpoints {kind: instruction}` (agentdap keeps the list)"),
    ("setVariable", "use the `set_variable` tool (it reads the value back)"),
    ("setExpression", "use `set_variable {expression}` (it reads the value back)"),
    ("writeMemory", "use `memory {op: write}` (it reads the bytes back)"),
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

/// Requests that are no read but set up the session, not the program's values (breakpoints,
/// a cancel, the targets a step or a goto could take): a later stop's changes are not said to
/// include them.
const KEEPS_VALUES: &[&str] = &[
    "setBreakpoints",
    "setFunctionBreakpoints",
    "setExceptionBreakpoints",
    "setDataBreakpoints",
    "setInstructionBreakpoints",
    "dataBreakpointInfo",
    "cancel",
    "gotoTargets",
    "stepInTargets",
];

/// True when `command`, though not a read, leaves the program's values as they were.
pub fn keeps_values(command: &str) -> bool {
    KEEPS_VALUES.iter().any(|c| c.eq_ignore_ascii_case(command))
}

/// Why `command` may not go through `dap_request`, if it may not.
pub fn refusal(command: &str) -> Option<String> {
    REFUSED.iter().find(|(c, _)| c.eq_ignore_ascii_case(command)).map(|(c, instead)| {
        format!("`{c}` is not sent through dap_request: agentdap tracks what it changes; {instead}.")
    })
}
impl Sessions {
    /// `resolve_host_request`: runs (`allow`) or refuses the pending request `id` of `key`
    /// (any session when `None`). `allow` waits like `launch` (first stop, exit, `wait_ms`).
    #[allow(clippy::too_many_arguments)]
    pub fn resolve_host_request(
        &mut self,
        key: Option<SessionKey>,
        id: &str,
        allow: bool,
        wait_ms: Option<u64>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let found = self
            .slab
            .iter()
            .filter(|(k, _)| key.map_or(true, |want| want == *k))
            .find_map(|(k, s)| s.host.pending.iter().position(|p| p.id == id).map(|i| (k, i)));
        let Some((key, index)) = found else {
            let pending: Vec<String> = self
                .slab
                .iter()
                .flat_map(|(_, s)| s.host.pending.iter().map(move |p| format!("{} ({})", p.id, s.id)))
                .collect();
            let msg = if pending.is_empty() {
                format!("no host request `{id}` is pending (none is).")
            } else {
                format!("no host request `{id}` is pending here; pending: {}.", pending.join(", "))
            };
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        };
        let s = session(&mut self.slab, key)?;
        let p = s.host.pending.remove(index);
        if s.run.state.is_over() || s.link.is_closing() {
            let msg = format!("{} has ended; its host request {} is void.", s.id, p.id);
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        if allow {
            log::info!("{}: host request {} allowed", s.id, p.id);
            s.start_terminal(p.reverse, p.run, &mut self.actions);
            let verb = if s.run.state == RunState::Starting { "launched" } else { "resolved" };
            let mut w = Waiter::new(call, now, wait_duration(wait_ms), verb, Until::Stop, s.run.revision);
            w.locals = s.calls.locals;
            w.output_cursor = Some(s.output.cursor());
            if s.satisfies(&w) {
                let out = s.wait_result(&w, true);
                self.actions.push_back(Action::Complete { call, output: out });
            } else {
                s.calls.waiters.push(w);
            }
        } else {
            let why = format!(
                "{} asked agentdap to run {} (runInTerminal) and it was denied ({})",
                s.link.adapter, p.summary, p.id
            );
            s.deny_host(p.reverse, why, now, &mut self.actions);
            let mut out = s.result("denied", false, s.calls.locals);
            out.text = format!("{} denied.\n{}", p.id, out.text);
            self.actions.push_back(Action::Complete { call, output: out });
        }
        self.actions.push_back(Action::StateChanged { session: s.id.clone() });
        s.pump(now, &mut self.actions);
        Ok(())
    }

    /// `send_input`: queues `text` for the program's stdin (then its end when `eof`). Whole or
    /// not at all: past [`STDIN_CAP`] unread bytes it is refused.
    pub fn send_input(&mut self, key: SessionKey, text: &str, eof: bool) -> Result<ToolResult, ToolResult> {
        // A stand-in's program is its launcher's to feed (`launcher.rs`); the agent hears of the
        // session it named.
        let (id, over) = match self.slab.get(key) {
            Some(s) => (s.id.clone(), s.run.state.is_over()),
            None => (String::new(), false),
        };
        let key = self.launcher_of(key).unwrap_or(key);
        let s = session(&mut self.slab, key)?;
        if let Some(why) = &s.host.stdin_closed {
            return Err(ToolResult::error(ErrorCode::InvalidArgument, format!("{}'s stdin is closed: {why}.", id)));
        }
        if !s.host.terminal_console && !s.host.terminal_started && !s.host.stdin_is_adapters {
            return Err(ToolResult::error(
                ErrorCode::Unsupported,
                format!(
                    "{} runs with console `internal`: its stdin belongs to the adapter, not to agentdap; launch again with console `terminal` to give it input.",
                    id
                ),
            ));
        }
        if s.host.eof_requested {
            return Err(ToolResult::error(
                ErrorCode::InvalidArgument,
                format!("{}'s stdin is being closed (eof was sent).", id),
            ));
        }
        if over || s.run.state.is_over() {
            let msg = format!("{} has {}; its program reads no more input.", id, s.run.state.as_str());
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let buffered = s.host.stdin.len();
        if buffered + text.len() > STDIN_CAP {
            return Err(ToolResult::error(
                ErrorCode::InvalidArgument,
                format!(
                    "{} bytes already wait for {} to read them; {} more would pass the {} KiB stdin buffer, so nothing was sent. Let the program run (`continue`) to read, then send again.",
                    buffered,
                    id,
                    text.len(),
                    STDIN_CAP >> 10
                ),
            ));
        }
        s.host.stdin.extend_from_slice(text.as_bytes());
        s.host.eof_requested = eof;
        let mut line = format!("{id}: {} bytes to stdin", text.len());
        if eof {
            line.push_str(", then end of input");
        }
        if s.host.terminal_pid.is_none() && !s.host.stdin_is_adapters {
            line.push_str(" (queued: the program is not started yet)");
        }
        line.push_str(". Call `wait` or `continue` to see what it does.");
        let sent = InputSent { session: &id, bytes: text.len(), eof, buffered: buffered + text.len() };
        Ok(ToolResult::ok(line, structured(&sent)))
    }

    /// `dap_request`: sends `command` with `arguments` on `key`'s connection (the default
    /// request timeout applies) and answers with the raw response body.
    pub fn dap_request(
        &mut self,
        key: SessionKey,
        command: &str,
        arguments: Option<Value>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let s = session(&mut self.slab, key)?;
        let refused = if let Some(why) = refusal(command) {
            Some(ToolResult::error(ErrorCode::InvalidArgument, why))
        } else if s.run.state.is_over() || s.link.is_closing() || !s.link.is_alive() || s.link.client.is_closed() {
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
            return Err(output);
        }
        s.send(command, arguments, Origin::Host(Op::DapRequest { call }), now);
        s.pump(now, &mut self.actions);
        Ok(())
    }
}

impl Session {
    /// A host-group request that never went out.
    pub(in crate::session) fn host_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        let Op::DapRequest { call } = op;
        self.calls.done.push((call, ToolResult::error(code, msg)));
    }

    /// The answer to a `dap_request`: the body as compact JSON, cut at the result cap.
    /// The answer to a host-group request.
    pub(in crate::session) fn host_answered(&mut self, op: Op, outcome: Outcome) {
        let Op::DapRequest { call } = op;
        let out = match outcome {
            Outcome::Success(r) => {
                let body = r.body.unwrap_or(Value::Null);
                let text = body.to_string();
                if text.len() <= RESULT_CHARS {
                    let answered = structured(&Answered { command: &r.command, body: &body });
                    ToolResult::ok(format!("`{}` answered: {text}", r.command), answered)
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
                        structured(&Truncated { command: &r.command, truncated: true, bytes: text.len() }),
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

/// `send_input`'s `structuredContent`.
#[derive(Serialize)]
struct InputSent<'a> {
    session: &'a str,
    bytes: usize,
    eof: bool,
    /// Bytes waiting for the program to read them, these included.
    buffered: usize,
}

/// `dap_request`'s `structuredContent`: the adapter's body verbatim.
#[derive(Serialize)]
struct Answered<'a> {
    command: &'a str,
    body: &'a Value,
}

/// `dap_request`'s `structuredContent` when the body is past the result cap.
#[derive(Serialize)]
struct Truncated<'a> {
    command: &'a str,
    truncated: bool,
    bytes: usize,
}

/// A result struct as `structuredContent`. Structs of strings, numbers, booleans and `Value`s
/// always serialise, so the `Null` fallback is never taken.
fn structured(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or_default()
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
