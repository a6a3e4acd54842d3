//! A session's link to its debug adapter: the adapter's name and plan, the DAP connection, the
//! adapter's stderr tail, and whether it is alive, being closed or disconnected. Sans-IO; it
//! must not decide what a session's tools do.

use std::rc::Rc;

use super::{AdapterPlan, Files, Origin};
use crate::dap::client::DapClient;

/// The adapter behind a session and the DAP connection to it.
pub struct Link {
    /// The recipe's name, e.g. `debugpy` (the plan's name, shown in listings).
    pub(crate) adapter: String,
    pub(crate) client: DapClient<Origin>,
    pub(crate) plan: AdapterPlan,
    pub(crate) stderr_tail: Vec<u8>,
    pub(crate) adapter_alive: bool,
    /// Set when agentdap asked the adapter to go (disconnect sent or adapter stopped).
    pub(crate) closing: bool,
    /// `disconnect` was called: the session leaves the table once its adapter is gone.
    pub(crate) disconnected: bool,
    /// The adapter's output started a crash report: the rest is kept in the stderr tail only.
    pub(crate) crashed: bool,
    /// The adapter's own stdout/stderr now carry the debuggee's output
    /// ([`crate::dap::adapters::DebuggeeOutput::AdapterPipes`], after the port announcement).
    pub(crate) pipes_are_program_output: bool,
    /// The adapter's descendants were recorded at the first stop.
    pub(crate) descendants_recorded: bool,
    /// The table's file system and `/proc` (a clone of `Sessions::files`): the one way this
    /// session's tools read a file or resolve a path.
    pub(crate) files: Rc<dyn Files>,
}

impl Link {
    /// A link to an adapter not started yet.
    pub(crate) fn new(client: DapClient<Origin>, plan: AdapterPlan, files: Rc<dyn Files>) -> Link {
        Link {
            adapter: plan.name.clone(),
            client,
            plan,
            stderr_tail: Vec::new(),
            adapter_alive: false,
            closing: false,
            disconnected: false,
            crashed: false,
            pipes_are_program_output: false,
            descendants_recorded: false,
            files,
        }
    }
}
