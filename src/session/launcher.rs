//! One session for an adapter whose debuggee lives in a child connection (js-debug: DAP §
//! Reverse Requests › StartDebugging, `ChildSessions::StartDebuggingSameServer`). The parent
//! connection only launches: it starts the program (through `runInTerminal`, so agentdap runs
//! it) and asks for a child session per target. The first target of a top-level session becomes
//! that session to the agent — its *stand-in* takes the agent-facing id (`s1`), the waiting
//! calls, the warnings and the output so far — and the parent becomes a hidden *launcher*: not
//! listed, not addressable, still holding the adapter's process and the program's process, whose
//! output and exit status go to the stand-in. Ending either one ends the other. Later targets
//! (worker threads, forked processes) are child sessions of the stand-in. Sans-IO; the table is
//! the parent module's.

use std::time::Instant;

use super::host::ProgramExit;
use super::output::Category;
use super::{tools, Action, Origin, SessionKey, Sessions};

/// The hidden launcher's id: the agent-facing id with this suffix (logs and the DAP log show it).
const LAUNCHER_SUFFIX: &str = "-launcher";

/// The id a launcher takes when its stand-in takes `id`.
pub(super) fn launcher_id(id: &str) -> String {
    format!("{id}{LAUNCHER_SUFFIX}")
}

impl Sessions {
    /// `stand_in` (just opened, already holding the agent-facing id) takes over from `launcher`:
    /// the calls waiting on the launch, its warnings, its output so far and the default session.
    pub(super) fn promote(&mut self, launcher: SessionKey, stand_in: SessionKey) {
        let Some(l) = self.slab.get_mut(launcher) else { return };
        l.family.stand_in = Some(stand_in);
        let waiters = std::mem::take(&mut l.calls.waiters);
        let warnings = std::mem::take(&mut l.calls.warnings);
        let carried_over = std::mem::take(&mut l.calls.carried_over);
        let output = std::mem::take(&mut l.output);
        let result_cursor = l.calls.result_cursor;
        let terminal_console = l.host.terminal_console;
        let opened = l.evidence.opened;
        // The program is the process agentdap ran for the launcher (or the one it attached to).
        let pid = l.host.terminal_pid.or(l.family.debuggee_pid);
        let Some(c) = self.slab.get_mut(stand_in) else { return };
        c.family.stands_in = true;
        // It is the session the agent opened: it sorts where the launch did.
        c.evidence.opened = opened;
        // The stand-in's revisions start at 0, as the launcher's did: every wait is for its first stop.
        c.calls.waiters.extend(waiters.into_iter().map(|mut w| {
            w.since = 0;
            w
        }));
        let own = std::mem::replace(&mut c.calls.warnings, warnings);
        c.calls.warnings.extend(own);
        c.calls.carried_over = carried_over;
        c.calls.result_cursor = result_cursor;
        c.output = output;
        c.host.terminal_console = terminal_console;
        c.family.debuggee_pid = pid;
        self.latest = Some(stand_in);
        log::info!("{}: the debuggee's own session; its launcher is hidden", c.id);
    }

    /// The stand-in of `key` when `key` is a launcher whose stand-in is still in the table.
    pub(super) fn stand_in_of(&self, key: SessionKey) -> Option<SessionKey> {
        let l = self.slab.get(key)?;
        let c = l.family.stand_in?;
        self.slab.get(c).filter(|c| c.family.stands_in && c.family.parent.as_ref().is_some_and(|p| p.0 == key))?;
        Some(c)
    }

    /// The launcher of `key` when `key` is a stand-in whose launcher is still in the table.
    pub(super) fn launcher_of(&self, key: SessionKey) -> Option<SessionKey> {
        let c = self.slab.get(key)?;
        if !c.family.stands_in {
            return None;
        }
        self.parent_of(c).filter(|l| self.slab.get(*l).is_some_and(|l| l.family.stand_in == Some(key)))
    }

    /// Whether `key` is a launcher with a stand-in (hidden from the agent).
    pub(super) fn is_hidden(&self, key: SessionKey) -> bool {
        self.slab.get(key).is_some_and(|s| s.family.stand_in.is_some())
    }

    /// Launcher/stand-in bookkeeping after every turn: the launcher's output goes to the stand-in;
    /// a stand-in whose `terminated` came before the program's exit status ends once the status
    /// (or the launcher's end) is known; a stand-in disconnected or gone takes its launcher with
    /// it; and once both have ended, the adapter's process is stopped (js-debug's server serves
    /// on after its sessions end).
    pub(super) fn sweep_launchers(&mut self, now: Instant) {
        let launchers: Vec<SessionKey> =
            self.slab.iter().filter(|(_, s)| s.family.stand_in.is_some()).map(|(k, _)| k).collect();
        for lkey in launchers {
            let stand_in = self.stand_in_of(lkey);
            let Some(l) = self.slab.get_mut(lkey) else { continue };
            let forward = std::mem::take(&mut l.family.forward);
            let exit = l.host.program_exit;
            // The program's exit status is known, or cannot come: the server is gone, or the
            // launcher ended and no program of agentdap's runs for it.
            let status_known =
                exit.is_some() || !l.link.is_alive() || (l.run.state.is_over() && !l.host.terminal_started);
            let launcher_over = l.run.state.is_over() || !l.link.is_alive();
            let failure = l.run.failure.clone();
            let Some(ckey) = stand_in else {
                // The stand-in left the table: the launcher goes too.
                self.end_launcher(lkey, now);
                continue;
            };
            if let Some(c) = self.slab.get_mut(ckey) {
                for (category, text) in &forward {
                    c.output.push(*category, text);
                }
                if c.run.awaiting_exit_report && status_known {
                    c.run.awaiting_exit_report = false;
                    if exit.is_none() && c.run.failure.is_none() {
                        // The adapter died: why is the launcher's to say.
                        c.run.failure = failure;
                    }
                    c.finish_run(exit, now);
                    c.pump(now, &mut self.actions);
                }
            }
            if !forward.is_empty() {
                self.output_arrived(ckey);
            }
            let Some(c) = self.slab.get(ckey) else { continue };
            let stand_in_done = c.link.disconnected || (c.run.state.is_over() && !c.run.awaiting_exit_report);
            if c.link.disconnected || (stand_in_done && launcher_over) {
                self.end_launcher(lkey, now);
            }
        }
    }

    /// Lets a launcher go: disconnected (the program terminated when it is agentdap's), released
    /// once its connection is gone, its adapter's process stopped.
    fn end_launcher(&mut self, lkey: SessionKey, now: Instant) {
        let Some(l) = self.slab.get_mut(lkey) else { return };
        let first = !l.link.disconnected;
        l.link.disconnected = true;
        if l.link.is_alive() && !l.link.is_closing() {
            l.link.ask_to_close();
            l.run.ended_by_agentdap |= !l.run.state.is_over();
            let terminate = l.family.owns_debuggee;
            l.send_disconnect(Some(terminate), Origin::Run(tools::run::Op::Disconnect { call: None }), now);
            l.pump(now, &mut self.actions);
        }
        if first {
            // js-debug's server serves on after a disconnect: its process is stopped (and with
            // it the program agentdap ran for it, if still running).
            let action = if l.link.is_alive() {
                Action::StopAdapter { session: lkey }
            } else {
                Action::Release { session: lkey }
            };
            self.actions.push_back(action);
        }
    }
}

impl super::Session {
    /// A top-level session of an adapter whose program is a child connection, before that child
    /// came: it stays `starting` (its tools would reach the launcher, not the program), and its
    /// waits move to the child (`Sessions::promote`).
    pub(super) fn awaits_target(&self) -> bool {
        self.link.plan.quirks.child_sessions == crate::dap::adapters::ChildSessions::StartDebuggingSameServer
            && self.family.parent.is_none()
            && self.family.stand_in.is_none()
    }

    /// The run is over (a stand-in's `terminated`, once the program's exit status is known or
    /// cannot be): the exit code or signal when known, the waits answered, and the adapter let go.
    pub(super) fn finish_run(&mut self, exit: Option<ProgramExit>, now: Instant) {
        log::debug!("{}: the run is over ({exit:?}); {} waiting call(s)", self.id, self.calls.waiters.len());
        if let Some(exit) = exit {
            self.run.exit_code = self.run.exit_code.or(exit.code);
            if self.run.exit_code.is_none() && !self.run.ended_by_agentdap {
                self.run.killed_by = exit.signal.and_then(signal_name).map(|n| (n, exit.signal.unwrap_or(0)));
            }
        }
        self.end_run(now);
    }
}

/// Output a launcher received once it has a stand-in, on its way there.
pub(super) type Forwarded = (Category, String);

/// The names of the signals a program is commonly killed by (Linux numbering, signal(7)).
const SIGNALS: &[(&str, i64)] = &[
    ("SIGHUP", 1),
    ("SIGINT", 2),
    ("SIGQUIT", 3),
    ("SIGILL", 4),
    ("SIGTRAP", 5),
    ("SIGABRT", 6),
    ("SIGBUS", 7),
    ("SIGFPE", 8),
    ("SIGKILL", 9),
    ("SIGUSR1", 10),
    ("SIGSEGV", 11),
    ("SIGUSR2", 12),
    ("SIGPIPE", 13),
    ("SIGALRM", 14),
    ("SIGTERM", 15),
];

fn signal_name(number: i64) -> Option<&'static str> {
    SIGNALS.iter().find(|(_, n)| *n == number).map(|(name, _)| *name)
}
