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
    /// Whether the adapter is there and whether agentdap asked it to go.
    life: Life,
    /// `disconnect` was called: the session leaves the table once its adapter is gone.
    pub(crate) disconnected: bool,
    /// The adapter's output started a crash report: the rest is kept in the stderr tail only.
    pub(crate) crashed: bool,
    /// The adapter's own stdout/stderr now carry the debuggee's output
    /// ([`crate::dap::adapters::DebuggeeOutput::AdapterPipes`], after the port announcement).
    pub(crate) pipes_are_program_output: bool,
    /// The unfinished UTF-8 sequence at the end of the last read of the adapter's stdout and of
    /// its stderr (`text::utf8_text`): a character cut between two reads is kept whole.
    pub(crate) pipe_carry: [Vec<u8>; 2],
    /// The adapter's descendants were recorded at the first stop.
    pub(crate) descendants_recorded: bool,
    /// Where the adapter's DAP connection went (a TCP adapter, once connected).
    pub(crate) server_addr: Option<std::net::SocketAddr>,
    /// The table's file system and `/proc` (a clone of `Sessions::files`): the one way this
    /// session's tools read a file or resolve a path.
    pub(crate) files: Rc<dyn Files>,
}

/// Where the adapter is in its life, as agentdap sees it: whether DAP can flow, and whether
/// agentdap asked it to go (a `disconnect` sent, or the adapter stopped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Life {
    /// Not started yet, or gone without agentdap asking.
    Down,
    /// DAP can flow.
    Up,
    /// Asked to go and still there.
    Closing,
    /// Gone after agentdap asked it to go.
    Closed,
}

impl Link {
    /// A link to an adapter not started yet.
    pub(crate) fn new(client: DapClient<Origin>, plan: AdapterPlan, files: Rc<dyn Files>) -> Link {
        Link {
            adapter: plan.name.clone(),
            client,
            plan,
            stderr_tail: Vec::new(),
            life: Life::Down,
            disconnected: false,
            crashed: false,
            pipes_are_program_output: false,
            pipe_carry: [Vec::new(), Vec::new()],
            descendants_recorded: false,
            server_addr: None,
            files,
        }
    }

    /// The adapter is there (DAP can flow), whether or not it was asked to go.
    pub(crate) fn is_alive(&self) -> bool {
        self.life.is_alive()
    }

    /// agentdap asked the adapter to go (it may still be there).
    pub(crate) fn is_closing(&self) -> bool {
        self.life.is_closing()
    }

    /// DAP can flow now ([`super::Sessions::on_spawned`]).
    pub(crate) fn spawned(&mut self) {
        self.life = self.life.spawned();
    }

    /// The adapter is gone ([`super::Sessions::on_adapter_closed`]).
    pub(crate) fn gone(&mut self) {
        self.life = self.life.gone();
    }

    /// agentdap asks the adapter to go (or records that it did).
    pub(crate) fn ask_to_close(&mut self) {
        self.life = self.life.ask_to_close();
    }

    /// A relaunch: a new adapter, not started yet and not asked anything; what the old one's
    /// output and process tree showed is forgotten (`disconnected` stays: a disconnected session
    /// is not relaunched).
    pub(crate) fn relaunched(&mut self) {
        self.life = Life::Down;
        self.crashed = false;
        self.pipes_are_program_output = false;
        self.pipe_carry = [Vec::new(), Vec::new()];
        self.descendants_recorded = false;
        self.stderr_tail.clear();
    }
}

impl Life {
    pub fn is_alive(self) -> bool {
        matches!(self, Life::Up | Life::Closing)
    }

    pub fn is_closing(self) -> bool {
        matches!(self, Life::Closing | Life::Closed)
    }

    /// DAP can flow: asked to go stays asked.
    pub fn spawned(self) -> Life {
        if self.is_closing() {
            Life::Closing
        } else {
            Life::Up
        }
    }

    /// The adapter went: asked to go stays asked.
    pub fn gone(self) -> Life {
        if self.is_closing() {
            Life::Closed
        } else {
            Life::Down
        }
    }

    /// agentdap asks it to go, whether or not it is there.
    pub fn ask_to_close(self) -> Life {
        if self.is_alive() {
            Life::Closing
        } else {
            Life::Closed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Life::{self, Closed, Closing, Down, Up};
    use super::Link;
    use crate::dap::adapters::AdapterKind;
    use crate::dap::client::{ClientConfig, DapClient};
    use crate::session::scripted::plan;

    fn link() -> Link {
        let plan = plan(AdapterKind::Debugpy, serde_json::json!({}), None);
        Link::new(DapClient::new(ClientConfig::new("s1 debugpy")), plan, std::rc::Rc::new(crate::os::files::OsFiles))
    }

    #[test]
    fn a_relaunched_link_is_a_new_one_but_for_disconnected() {
        let mut l = link();
        l.spawned();
        l.ask_to_close();
        l.disconnected = true;
        l.crashed = true;
        l.pipes_are_program_output = true;
        l.descendants_recorded = true;
        l.stderr_tail.extend_from_slice(b"Traceback");
        l.relaunched();
        assert_eq!(l.life, Down);
        assert!(!l.crashed && !l.pipes_are_program_output && !l.descendants_recorded);
        assert!(l.stderr_tail.is_empty());
        assert!(l.disconnected, "a disconnected session is not relaunched; the flag is left as it was");
    }

    fn check(step: fn(Life) -> Life, expected: [Life; 4]) {
        let got = [Down, Up, Closing, Closed].map(step);
        assert_eq!(got, expected);
    }

    #[test]
    fn each_life_is_one_pair_of_the_old_flags() {
        let flags = [Down, Up, Closing, Closed].map(|l| (l.is_alive(), l.is_closing()));
        assert_eq!(flags, [(false, false), (true, false), (true, true), (false, true)]);
    }

    #[test]
    fn spawning_keeps_a_request_to_close() {
        check(Life::spawned, [Up, Up, Closing, Closing]);
    }

    #[test]
    fn going_keeps_a_request_to_close() {
        check(Life::gone, [Down, Down, Closed, Closed]);
    }

    #[test]
    fn asking_to_close_keeps_whether_it_is_there() {
        check(Life::ask_to_close, [Closed, Closing, Closing, Closed]);
    }
}
