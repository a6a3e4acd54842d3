//! The thread ids a session knows: what `threads` answers say, the focus thread moved off an
//! adapter's placeholder thread, and the check that refuses a thread id the agent was never shown.

use serde_json::Value;

use super::{ErrorCode, Session, ToolResult};
use crate::dap::requests::{Request, Thread, Threads};

impl Session {
    /// The thread inspection applies to: the one given, else the focus thread, else the stop's.
    pub(super) fn thread_for(&self, thread: Option<i64>) -> Option<i64> {
        thread.or(self.view.focus_thread).or_else(|| self.run.stop.as_ref().and_then(|s| s.thread))
    }

    /// The adapter id of `thread`'s top frame at this stop, when the stop already fetched it.
    pub(super) fn known_top_frame(&self, thread: i64) -> Option<i64> {
        self.run.top_frame.filter(|(rev, t, _)| *rev == self.run.revision && *t == thread).map(|(_, _, f)| f)
    }

    /// Remembers the thread ids of a `threads` response. A placeholder thread
    /// ([`crate::dap::adapters::RuntimeQuirks::placeholder_thread`], Delve's "Dummy") never
    /// stays the focus while a real thread exists.
    pub(super) fn note_threads(&mut self, body: &Value) {
        let Some(list) = Threads::parse(Some(body)).unwrap_or_default().threads else { return };
        self.view.known_threads = list.iter().filter_map(|t| t.id).collect();
        let placeholder = self.link.plan.runtime.placeholder_thread;
        let is_placeholder = |t: &Thread| placeholder.is_some() && t.name.as_deref() == placeholder;
        let focus_is_placeholder = list.iter().any(|t| is_placeholder(t) && t.id == self.view.focus_thread);
        if focus_is_placeholder {
            if let Some(real) = list.iter().find(|t| !is_placeholder(t)).and_then(|t| t.id) {
                self.view.focus_thread = Some(real);
            }
        }
    }

    /// The first thread of a `threads` response that is not a placeholder (else the first).
    pub(super) fn first_real_thread(&self, body: &Value) -> Option<i64> {
        let list = Threads::parse(Some(body)).unwrap_or_default().threads?;
        let placeholder = self.link.plan.runtime.placeholder_thread;
        list.iter()
            .find(|t| placeholder.is_none() || t.name.as_deref() != placeholder)
            .or_else(|| list.first())
            .and_then(|t| t.id)
    }

    /// `Err` naming the threads when `thread` is given and is not one of the session's.
    pub(super) fn check_thread(&self, thread: Option<i64>) -> Result<(), ToolResult> {
        match thread {
            Some(t) if !self.view.known_threads.is_empty() && !self.view.known_threads.contains(&t) => {
                let known: Vec<String> = self.view.known_threads.iter().map(i64::to_string).collect();
                Err(ToolResult::error(
                    ErrorCode::InvalidArgument,
                    format!(
                        "{} has no thread {t} that agentdap has shown: known threads are [{}]; call `threads` for the current list.",
                        self.id,
                        known.join(", ")
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}
