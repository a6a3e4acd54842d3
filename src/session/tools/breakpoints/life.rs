//! What a session learns about its breakpoints' conditions from the adapter's output
//! (`RuntimeQuirks::condition_error_marks`), and the line a stop result shows when the stop is at
//! a breakpoint whose condition just failed to evaluate. Must not: send anything, or count hits
//! (`BreakpointStore::on_stop` does).

use crate::session::breakpoints::failed_condition;
use crate::session::snapshot::RunState;
use crate::session::text::short;
use crate::session::Session;

impl Session {
    /// Reads one `output` event's text for the adapter's reports of a condition that failed to
    /// evaluate, and marks the breakpoints with that condition.
    pub(in crate::session) fn note_condition_errors(&mut self, text: &str) {
        let marks = self.link.plan.runtime.condition_error_marks;
        if marks.is_empty() {
            return;
        }
        let revision = self.run.revision;
        for line in text.lines() {
            if let Some(condition) = failed_condition(line, marks) {
                let marked = self.breaks.store.on_condition_error(condition, revision);
                log::debug!("{}: condition {condition:?} failed to evaluate ({marked} breakpoint(s))", self.id);
            }
        }
    }

    /// At a stop credited to a breakpoint whose condition the adapter said failed to evaluate at
    /// this stop: the line naming it (lldb-dap 22.1.8 stops there, so the condition did not
    /// decide this stop).
    pub(in crate::session) fn condition_failed_at_stop(&self) -> Option<String> {
        let stop = self.run.stop.as_ref().filter(|_| self.run.state == RunState::Stopped)?;
        let now = Some(self.run.revision);
        let named: Vec<String> = self
            .breaks
            .store
            .files()
            .flat_map(|(p, set)| set.iter().map(move |e| (p, e)))
            .filter(|(_, e)| stop.hit_breakpoints.contains(&e.id) && e.hits.condition_error_revision == now)
            .map(|(p, e)| {
                format!("{}:{} `{}`", short(p), e.requested.line, e.requested.condition.as_deref().unwrap_or(""))
            })
            .collect();
        (!named.is_empty()).then(|| {
            format!(
                "condition failed to evaluate at this stop: {} (the adapter stopped anyway; its words are in output)",
                named.join(", ")
            )
        })
    }
}
