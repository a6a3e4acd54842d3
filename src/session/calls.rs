//! The MCP calls a session holds: waits under way, calls answered inside a session method, and
//! what the next result must still say (warnings, carried-over breakpoints, the output cursor).
//! Sans-IO; it must not decide when a wait ends.

use super::waiters::Waiter;
use crate::reply::{CallKey, ToolResult};

/// Calls waiting on a session, and answers not yet handed to the action queue.
#[derive(Default)]
pub struct Calls {
    pub(crate) waiters: Vec<Waiter>,
    /// Calls answered inside a session method; `pump` moves them to the action queue.
    pub(crate) done: Vec<(CallKey, ToolResult)>,
    /// Notes for the next result (e.g. an exception filter the adapter does not have).
    pub(crate) warnings: Vec<String>,
    /// Breakpoints set before this session while no session was live (`path:line`,
    /// `name()`), said once in the launch or attach result.
    pub(crate) carried_over: Vec<String>,
    /// The output cursor when the last result was written.
    pub(crate) result_cursor: u64,
    /// `disconnect` calls answered when the adapter is gone.
    pub(crate) disconnect_calls: Vec<CallKey>,
    /// Whether the tool call being dispatched wants stop results with the top frame's locals
    /// (its `locals`, else `--stop-locals`; [`super::Sessions::set_call_locals`]): the waits it
    /// starts keep it.
    pub(crate) locals: bool,
}
