//! Session-table housekeeping the IO shell and the listing tools use: dropping a session,
//! shutdown, whether every adapter is gone, and the `sessions` listing. Must not: hold a tool's
//! logic (see `session/tools/`).

use super::*;
use serde_json::{Map, Value};
use std::time::Instant;

impl Sessions {
    /// Drops an ended session from the table.
    pub fn remove(&mut self, key: SessionKey) {
        if self.slab.contains(key) {
            let mut s = self.slab.remove(key);
            // A `stacks` read still under way is answered (every call is, exactly once).
            if let Some((call, output)) = s.stacks_end() {
                self.actions.push_back(Action::Complete { call, output });
            }
            self.note_removed(&s);
        }
        if self.latest == Some(key) {
            self.latest = None;
        }
    }

    /// Asks every live adapter to end (shutdown): launched debuggees terminated.
    pub fn shutdown(&mut self, now: Instant) {
        self.actions.push_back(Action::TrackProcesses);
        for (_, s) in self.slab.iter_mut() {
            if s.link.is_alive() && !s.link.is_closing() {
                s.link.ask_to_close();
                let terminate = s.family.owns_debuggee;
                s.send_disconnect(Some(terminate), Origin::Run(tools::run::Op::Disconnect { call: None }), now);
                s.pump(now, &mut self.actions);
            }
        }
    }

    /// True when no adapter is alive any more.
    pub fn all_closed(&self) -> bool {
        self.slab.iter().all(|(_, s)| !s.link.is_alive())
    }

    /// The JSON for `sessions` and `agentdap://sessions`: children right after their parent.
    pub fn list_json(&self) -> Value {
        let list: Vec<Value> = self.listed().into_iter().map(|(_, s)| s.summary_json()).collect();
        let mut m = Map::new();
        m.insert("sessions".into(), Value::Array(list));
        Value::Object(m)
    }
}
