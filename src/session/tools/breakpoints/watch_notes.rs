//! What agentdap says about a data breakpoint beyond the adapter's answer, from the adapter's
//! quirks ([`crate::dap::adapters::Quirks`]): the size it really watches
//! (`watch_size_in_data_id`), a read watch that also stops on writes
//! (`read_watch_stops_on_writes`), a write watch that stops only on a change
//! (`write_watch_on_change_only`), and the `&` an expression watch needs
//! (`watch_address_refusal`). Must not: send requests or change breakpoint state.

use super::data::Watched;
use crate::session::breakpoints::{DataBreakpoint, Listed};
use crate::session::Session;

impl Session {
    /// The bytes the adapter watches for `d`, read from its `dataId` where the adapter puts the
    /// size there (`Quirks::watch_size_in_data_id`); `None` when unknown.
    pub(in crate::session) fn watched_bytes(&self, d: &DataBreakpoint) -> Option<u64> {
        let (separator, _) = self.link.plan.quirks.watch_size_in_data_id?;
        d.data_id.rsplit_once(separator)?.1.parse().ok()
    }

    /// A watch's state when the adapter's own words leave out why: an unverified watch of 0
    /// bytes with no message was refused for its size.
    pub(in crate::session) fn watch_refusal(&self, e: &Listed<DataBreakpoint>) -> Option<String> {
        e.bound.as_ref().filter(|b| !b.verified && b.message.is_none())?;
        (self.watched_bytes(&e.requested) == Some(0)).then(|| {
            let asked = e.requested.bytes_asked.map(|n| format!(", asked {n}")).unwrap_or_default();
            format!("NOT verified ({} made it a watch of 0 bytes{asked}; {})", self.link.adapter, self.watch_sizing())
        })
    }

    /// ` — asked 4 bytes, lldb watches 1` where the adapter watches another size than asked.
    pub(in crate::session) fn watch_size_note(&self, d: &DataBreakpoint) -> Option<String> {
        let asked = d.bytes_asked?;
        let watched = self.watched_bytes(d).filter(|w| *w != asked && *w != 0)?;
        Some(format!(" — asked {asked} bytes, {} watches {watched}; {}", self.link.adapter, self.watch_sizing()))
    }

    /// A watch's state as the results show it: the adapter's verification, the size refusal it
    /// left unsaid, and the size it watches where that is not the size asked.
    pub fn data_state_text(&self, e: &Listed<DataBreakpoint>) -> String {
        let state = self.watch_refusal(e).unwrap_or_else(|| crate::session::breakpoints::list_state_text(e));
        format!("{state}{}", self.watch_size_note(&e.requested).unwrap_or_default())
    }

    /// How the adapter sizes a watch (`Quirks::watch_size_in_data_id`).
    fn watch_sizing(&self) -> &'static str {
        self.link.plan.quirks.watch_size_in_data_id.map_or("", |(_, how)| how)
    }

    /// The notes on a set of watches that the adapter's behaviour makes true of them.
    pub(in crate::session) fn watch_notes(&self, set: &[Listed<DataBreakpoint>]) -> Vec<String> {
        let q = &self.link.plan.quirks;
        let with = |access: &str| -> Vec<String> {
            set.iter()
                .filter(|e| e.requested.access.as_deref() == Some(access))
                .map(|e| format!("`{}`", e.requested.what))
                .collect()
        };
        let mut notes = Vec::new();
        let read = with("read");
        if q.read_watch_stops_on_writes && !read.is_empty() {
            notes.push(format!(
                "{} also stops a read watch on writes here (the hardware has no read-only watchpoints): {}",
                self.link.adapter,
                read.join(", ")
            ));
        }
        let write = with("write");
        if q.write_watch_on_change_only && !write.is_empty() {
            notes.push(format!(
                "{} stops a write watch only when the value changes (a write of the same value does not stop): {}",
                self.link.adapter,
                write.join(", ")
            ));
        }
        notes
    }

    /// At a stop credited to `e`: that a read watch may have stopped for a write.
    pub(in crate::session) fn watch_hit_note(&self, e: &Listed<DataBreakpoint>) -> &'static str {
        let read = e.requested.access.as_deref() == Some("read");
        if read && self.link.plan.quirks.read_watch_stops_on_writes {
            " (it stops on writes too here: this may be a write)"
        } else {
            ""
        }
    }

    /// The hint after the adapter refused to watch `watched` in `words`: an expression without
    /// `&`, refused in the words of `Quirks::watch_address_refusal`.
    pub(in crate::session) fn refused_watch_hint(&self, watched: &Watched, words: &str) -> String {
        let Watched::Expression { expression, bytes: None } = watched else { return String::new() };
        let member = ['.', '['].iter().any(|c| expression.contains(*c)) || expression.contains("->");
        if member && self.link.plan.quirks.watch_name_refusal.is_some_and(|r| words.contains(r)) {
            return format!(
                "; {} looks such an expression up as a variable's name: for a member, pass its parent's `ref` \
                 and the member's `name`, or its address with its size (`expression: \"&{}\", bytes: 4`, for a \
                 4-byte member)",
                self.link.adapter,
                expression.trim().trim_start_matches('&')
            );
        }
        let Some(refusal) = self.link.plan.quirks.watch_address_refusal else { return String::new() };
        if !words.contains(refusal) || expression.trim_start().starts_with('&') {
            return String::new();
        }
        format!("; pass `&{}` ({} watches the address the expression gives)", expression.trim(), self.link.adapter)
    }
}
