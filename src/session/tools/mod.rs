//! The session side of the tools, one file per tool group, named like `mcp/tools/<group>.rs`:
//! each owns its operation type (carried in [`super::Origin`]), its entry points on
//! [`Sessions`] and what it does with the adapter's answers. Must not: parse MCP arguments (the
//! `mcp` handlers do), touch IO, or reach into another group's operation state.
//!
//! Entry points return `Err` for a refusal known at once ("not stopped", "unknown thread", a bad
//! argument): the MCP handler answers it without a round trip through the action queue. `Ok`
//! means the answer comes later as an [`super::Action::Complete`] (possibly already queued).

pub mod breakpoints;
pub mod control;
pub mod edit;
pub mod flow;
pub mod gates;
pub mod host;
pub mod inspect;
pub mod memory;
pub mod run;
pub mod source;

use std::time::Instant;

use serde_json::Value;
use slab::Slab;

use self::gates::Gate;
use super::handles::{HandleError, Kind};
use super::{Action, CallKey, ErrorCode, Session, SessionKey, Sessions, ToolResult};
use crate::dap::client::Outcome;

/// What an entry point did: started work whose answer comes later (`Ok`), or refused at once.
pub type Started = Result<(), ToolResult>;

/// A response as the tools use it: the body, or the failure's code and words.
pub(in crate::session) type Answer = Result<Value, (ErrorCode, String)>;

/// The response body of a success, else the failure's code and words.
pub(in crate::session) fn split(outcome: Outcome) -> Answer {
    match outcome {
        Outcome::Success(r) => Ok(r.body.unwrap_or(Value::Null)),
        other => Err((ErrorCode::of(&other).unwrap_or(ErrorCode::AdapterError), other.to_string())),
    }
}

/// A response as the start-up, stop and run bookkeeping read it: the failure's words (`None` on
/// success), the error code a failure maps to, and the body (`null` when there is none).
pub(in crate::session) struct Reply {
    pub failure: Option<String>,
    pub code: ErrorCode,
    pub body: Value,
}

impl Reply {
    pub(in crate::session) fn of(outcome: Outcome) -> Reply {
        let failure = match &outcome {
            Outcome::Success(_) => None,
            other => Some(other.to_string()),
        };
        let code = ErrorCode::of(&outcome).unwrap_or(ErrorCode::AdapterError);
        let body = match outcome {
            Outcome::Success(r) => r.body.unwrap_or(Value::Null),
            _ => Value::Null,
        };
        Reply { failure, code, body }
    }

    /// The body, or the failure's code and words.
    pub(in crate::session) fn answer(self) -> Answer {
        match self.failure {
            None => Ok(self.body),
            Some(msg) => Err((self.code, msg)),
        }
    }
}

/// Adds a line to a result's text, before its output section (which comes last).
pub(in crate::session) fn add_note(out: &mut ToolResult, note: &str) {
    let at = out.text.find("\noutput:\n").unwrap_or(out.text.len());
    out.text.insert_str(at, &format!("\n{note}"));
}

/// The refusal for a session key that no longer names a session.
pub(in crate::session) fn gone() -> ToolResult {
    ToolResult::error(ErrorCode::SessionNotFound, "the session is gone.")
}

/// The session `key` of `slab`, or the refusal saying it is gone. (A function of the slab, not a
/// method of [`Sessions`], so the caller can still queue actions while it holds the session.)
pub(in crate::session) fn session(slab: &mut Slab<Session>, key: SessionKey) -> Result<&mut Session, ToolResult> {
    slab.get_mut(key).ok_or_else(gone)
}

/// The session `key` of `slab` when it is stopped, else the refusal (`not_stopped`, or gone).
pub(in crate::session) fn stopped(slab: &mut Slab<Session>, key: SessionKey) -> Result<&mut Session, ToolResult> {
    let s = session(slab, key)?;
    s.require_stopped()?;
    Ok(s)
}

impl Sessions {
    /// Queues the answer of `call` (for answers that come after work started).
    pub(in crate::session) fn complete(&mut self, call: CallKey, output: ToolResult) {
        self.actions.push_back(Action::Complete { call, output });
    }

    /// The session `key` when it is stopped, else the refusal (`not_stopped`, or gone); for a
    /// check only (the session itself: [`stopped`]).
    pub(in crate::session) fn check_stopped(&self, key: SessionKey) -> Result<(), ToolResult> {
        self.slab.get(key).ok_or_else(gone)?.require_stopped()
    }

    /// Runs the session's turn after an entry point sent something: answers, events, actions.
    pub(in crate::session) fn after(&mut self, key: SessionKey, now: Instant) {
        if let Some(s) = self.slab.get_mut(key) {
            s.pump(now, &mut self.actions);
        }
    }

    /// Resolves a `frame` handle argument (`None`: none given).
    pub(in crate::session) fn frame_arg(&self, key: SessionKey, frame: Option<i64>) -> Result<Option<i64>, ToolResult> {
        let Some(f) = frame else { return Ok(None) };
        self.handle_arg(key, Kind::Frame, f).map(Some)
    }

    /// Resolves a handle for `key`; one minted by another session says which.
    pub(in crate::session) fn handle_arg(&self, key: SessionKey, kind: Kind, handle: i64) -> Result<i64, ToolResult> {
        let Some(s) = self.slab.get(key) else {
            return Err(gone());
        };
        s.resolve_handle(kind, handle).map_err(|e| {
            match self.slab.iter().find(|(k, other)| *k != key && other.view.handles.knows(handle)) {
                Some((_, owner)) => ToolResult::error(
                    ErrorCode::InvalidArgument,
                    format!(
                        "{} {handle} belongs to session {}; pass \"session\": \"{}\".",
                        kind.as_str(),
                        owner.id,
                        owner.id
                    ),
                ),
                None => e,
            }
        })
    }

    /// The thread a call applies to: `thread` when the agent was shown it, else the focus or
    /// stop thread; refused when no thread is known yet.
    pub(in crate::session) fn thread_arg(&self, key: SessionKey, thread: Option<i64>) -> Result<i64, ToolResult> {
        if let Some(Err(e)) = self.slab.get(key).map(|s| s.check_thread(thread)) {
            return Err(e);
        }
        let t = self.slab.get(key).and_then(|s| s.thread_for(thread));
        t.ok_or_else(|| {
            ToolResult::error(ErrorCode::InvalidArgument, "no thread known yet; pass `thread` (see `threads`).")
        })
    }
}

impl Session {
    /// Resolves a handle argument, or explains why it cannot be used (`target_invalidated`
    /// names the revision; nothing is sent to the adapter).
    pub(in crate::session) fn resolve_handle(&self, kind: Kind, handle: i64) -> Result<i64, ToolResult> {
        self.view.handles.resolve(kind, handle).map_err(|e| match e {
            HandleError::Stale => ToolResult::error(
                ErrorCode::TargetInvalidated,
                format!(
                    "{} {handle} is from an earlier stop, or from before a change that made the adapter's ids stale; {} is now at rev {}. Call `context` or `stack_trace` again for fresh ids.",
                    kind.as_str(),
                    self.id,
                    self.run.revision
                ),
            ),
            other => ToolResult::error(
                ErrorCode::InvalidArgument,
                format!("{} {handle} is not valid for {}: {other}. Use an id from a recent result.", kind.as_str(), self.id),
            ),
        })
    }
}

#[cfg(test)]
mod tests;

impl Session {
    /// `Ok` where the adapter advertises what `gate` needs, else the `unsupported` refusal
    /// naming the capability ([`gates`]), before anything is sent.
    pub(in crate::session) fn require(&self, gate: Gate) -> Result<(), ToolResult> {
        if self.link.client.capabilities().is_none() {
            return Err(self.not_initialized());
        }
        gate.check(&self.link.adapter, self.link.client.capabilities())
    }

    /// The refusal for a session whose adapter has not answered `initialize`: it failed to
    /// start (with the reason the start-up gave), or it is still starting.
    pub(in crate::session) fn not_initialized(&self) -> ToolResult {
        let msg = match &self.run.failure {
            Some(why) => {
                let first = why.lines().next().unwrap_or_default();
                format!("{} did not start, so its adapter's capabilities are unknown: {first}", self.id)
            }
            None => format!("{} has not answered initialize yet; try again after launch returns.", self.id),
        };
        ToolResult::error(ErrorCode::NotStopped, msg)
    }
}
