//! Plumbing shared by the tools beside `continue` and `evaluate` — `run_to`, `goto`, `restart`,
//! `set_variable`, `set_expression`, `set_function_breakpoints`, `source` (DESIGN §4): their
//! per-session state, the DAP origin they share, where each answer goes, and which of them work
//! for a session (the `capabilities` tool). Sans-IO; each tool's logic lives in its own file.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::breakpoints::FunctionBreakpoint;
use super::{Action, CallKey, ErrorCode, Session, ToolResult};
use crate::dap::client::Outcome;
use crate::dap::protocol::Capabilities;

/// What one of these tools' DAP requests is doing; carried in [`super::Origin::Ctl`].
#[derive(Debug)]
pub enum Op {
    /// `run_to`'s temporary breakpoint going in, or coming out again.
    RunTo(super::run_to::Step),
    /// `goto`'s `gotoTargets`; the jump follows.
    GotoTargets(super::run_to::GotoJob),
    /// DAP `restart`: the adapter restarts the program itself.
    Restart { call: CallKey, wait: Duration },
    /// `set_variable` / `set_expression`, one request at a time.
    Edit(Box<super::edit::Job>),
    /// `setFunctionBreakpoints` with the agent's list `sent` (`call`: the tool call, if any).
    FunctionBreakpoints { call: Option<CallKey>, sent: Vec<FunctionBreakpoint> },
    /// DAP `source` for a source without a file (a `source_ref`).
    Source { call: CallKey, window: super::source::Window },
}

/// A session's state for these tools.
#[derive(Debug, Default)]
pub struct State {
    /// The last `run_to`: kept until its call is answered and its breakpoint is out again.
    pub(super) run_to: Option<super::run_to::RunTo>,
    /// A relaunch is under way: the old adapter is being stopped; the new one starts once it is
    /// gone ([`super::Sessions::on_adapter_replaced`]).
    pub(super) relaunch_pending: bool,
    /// The adapter refused DAP `restart`: relaunch instead, for this call (taken at the end of
    /// the current `pump`, outside the loop that delivered the refusal).
    pub(super) relaunch_due: Option<(CallKey, Duration)>,
    /// The `restart` call being answered and how it restarts (`adapter` or `relaunch`).
    pub(super) restart_call: Option<(CallKey, &'static str)>,
}

/// A response as the tools use it: the body, or the failure's code and words.
pub(super) type Answer = Result<Value, (ErrorCode, String)>;

fn split(outcome: Outcome) -> Answer {
    match outcome {
        Outcome::Success(r) => Ok(r.body.unwrap_or(Value::Null)),
        other => Err((ErrorCode::of(&other).unwrap_or(ErrorCode::AdapterError), other.to_string())),
    }
}

impl Session {
    /// The answer to one of these tools' requests.
    pub(super) fn ctl_completed(&mut self, op: Op, outcome: Outcome, now: Instant) {
        let answer = split(outcome);
        match op {
            Op::RunTo(step) => self.run_to_answered(step, answer, now),
            Op::GotoTargets(job) => self.goto_targets_answered(job, answer, now),
            Op::Restart { call, wait } => self.restart_answered(call, wait, answer),
            Op::Edit(job) => self.edit_answered(*job, answer, now),
            Op::FunctionBreakpoints { call, sent } => self.function_breakpoints_answered(call, &sent, answer),
            Op::Source { call, window } => self.source_answered(call, window, answer),
        }
    }

    /// A request that never went out (the connection is closed, or the adapter is not keeping
    /// up): its call is answered with why.
    pub(super) fn ctl_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        let call = match op {
            Op::RunTo(super::run_to::Step::Arm { call, .. }) => Some(call),
            Op::GotoTargets(job) => Some(job.call),
            Op::Restart { call, .. } => {
                self.calls.waiters.retain(|w| w.call != call);
                Some(call)
            }
            Op::Edit(job) => Some(job.call),
            Op::FunctionBreakpoints { call, .. } => call,
            Op::Source { call, .. } => Some(call),
            Op::RunTo(super::run_to::Step::Disarm { .. }) => None,
        };
        if let Some(call) = call {
            self.calls.done.push((call, ToolResult::error(code, msg)));
        }
    }

    /// After every turn of the session: a `run_to` whose stop came (or whose call ended) takes
    /// its temporary breakpoint out; a refused DAP `restart` becomes a relaunch.
    pub(super) fn ctl_settle(&mut self, now: Instant, actions: &mut VecDeque<Action>) {
        self.run_to_settle(now);
        if let Some((call, wait)) = self.ctl.relaunch_due.take() {
            self.begin_relaunch(call, wait, now, actions);
        }
    }

    /// Adds what `run_to` and `restart` have to say to the result of their call.
    pub(super) fn ctl_annotate(&mut self, call: CallKey, out: &mut ToolResult) {
        if let Some((c, how)) = self.ctl.restart_call {
            if c == call {
                self.ctl.restart_call = None;
                out.structured["restart"] = how.into();
                let note = match how {
                    "adapter" => "(restarted by the adapter)",
                    _ => "(relaunched: a new adapter and program; the old ones are gone)",
                };
                add_note(out, note);
            }
        }
        self.run_to_annotate(call, out);
    }

    /// Which of agentdap's adapter-dependent tools work for this session: the ones that do, and
    /// the others with what they would need.
    pub(super) fn tools_available(
        &self,
        caps: &Capabilities,
    ) -> (Vec<&'static str>, Vec<(&'static str, &'static str)>) {
        let restart = if self.family.parent.is_some() {
            Err("a child session: restart its parent")
        } else if caps.supports_restart_request {
            Ok("restart (by the adapter)")
        } else if self.link.plan.request == "launch" {
            Ok("restart (relaunch)")
        } else {
            Err("supportsRestartRequest (an attached program is not agentdap's to relaunch)")
        };
        let gated: [(&'static str, Result<&'static str, &'static str>); 8] = [
            ("run_to", Ok("run_to")),
            ("source", Ok("source")),
            ("restart", restart),
            ("goto", gate(caps.supports_goto_targets_request, "goto", "supportsGotoTargetsRequest")),
            ("set_variable", gate(caps.supports_set_variable, "set_variable", "supportsSetVariable")),
            ("set_expression", gate(caps.supports_set_expression, "set_expression", "supportsSetExpression")),
            (
                "set_function_breakpoints",
                gate(caps.supports_function_breakpoints, "set_function_breakpoints", "supportsFunctionBreakpoints"),
            ),
            ("step back", gate(caps.supports_step_back, "step back", "supportsStepBack")),
        ];
        let mut yes = Vec::new();
        let mut no = Vec::new();
        for (tool, verdict) in gated {
            match verdict {
                Ok(label) => yes.push(label),
                Err(needs) => no.push((tool, needs)),
            }
        }
        (yes, no)
    }
}

/// Adds a line to a result's text, before its output section (which comes last).
pub(super) fn add_note(out: &mut ToolResult, note: &str) {
    let at = out.text.find("\noutput:\n").unwrap_or(out.text.len());
    out.text.insert_str(at, &format!("\n{note}"));
}

fn gate(supported: bool, tool: &'static str, capability: &'static str) -> Result<&'static str, &'static str> {
    if supported {
        Ok(tool)
    } else {
        Err(capability)
    }
}
