//! Child sessions (DESIGN §5): opening one for a `startDebugging` reverse request, routing a
//! child's stops to its parent's waits, ending children with their parent, and listing them
//! under it. Sans-IO; the table is the parent module's.

use std::time::Instant;

use serde_json::Value;

use super::snapshot::RunState;
use super::{client, plan, Action, Origin, Session, SessionKey, Sessions, Start, MAX_SESSIONS};

/// A child session's stop, reported in its parent's next result.
#[derive(Clone, Debug)]
pub(super) struct ChildStop {
    pub(super) key: SessionKey,
    pub(super) revision: u64,
    pub(super) headline: String,
    pub(super) snapshot: Value,
}

impl Sessions {
    /// A `startDebugging` from `parent`'s adapter (DESIGN §5): answered at once (CASES C07),
    /// then a child session connects to the configuration's `connect` address and attaches
    /// with the configuration verbatim; the parent's breakpoints and exception filters are
    /// replayed in its configuration phase. Declined (with a warning for the agent) when the
    /// configuration has no usable address or the table is full.
    pub(super) fn open_child(
        &mut self,
        parent: SessionKey,
        id: client::ReverseId,
        request: String,
        configuration: Value,
        now: Instant,
    ) {
        let full = self.room().is_err();
        let Some(p) = self.slab.get_mut(parent) else { return };
        let verdict = if full {
            Err(format!("{MAX_SESSIONS} sessions exist"))
        } else if p.closing || p.state.is_over() {
            Err(format!("{} is ending", p.id))
        } else {
            plan::child_address(&configuration, p.attach_target.as_deref())
        };
        let addr = match verdict {
            Ok(addr) => addr,
            Err(why) => {
                let name = configuration.get("name").and_then(Value::as_str).unwrap_or("a child process");
                let name = crate::visible::escaped(name);
                let answer = client::ReverseAnswer::Failure { message: format!("agentdap cannot debug it: {why}") };
                let _ = p.client.respond(id, answer, now);
                p.warnings.push(format!(
                    "the program started {name}, which agentdap cannot debug ({why}); its breakpoints will not hit"
                ));
                p.pump(now, &mut self.actions);
                return;
            }
        };
        let _ = p.client.respond(id, client::ReverseAnswer::ok(), now);
        let breakpoints = p.breakpoints.requested_only();
        let mut plan = p.plan.clone();
        plan.request = if request == "launch" { "launch" } else { "attach" };
        plan.launch_arguments = configuration;
        plan.connect = Some(addr);
        plan.entry_function = None;
        plan.scratch_dir = None;
        let pid = plan.launch_arguments.get("subProcessId").and_then(Value::as_i64);
        // The debuggee's command line or the adapter's `name`: shown in `sessions` as the
        // program, so nothing in it may hide text (crate::visible).
        let program = crate::visible::escaped(&child_program(&plan.launch_arguments, pid));
        let start = Start { program, breakpoints, exception_filters: p.exception_filters.clone() };
        let (owns, target, parent_id) = (p.owns_debuggee, p.attach_target.clone(), p.id.clone());
        p.pump(now, &mut self.actions);
        let key = self.open(start, plan, None, Some((parent, parent_id)), owns, now);
        if let Some(c) = self.slab.get_mut(key) {
            c.debuggee_pid = pid;
            c.attach_target = target;
            log::info!("{}: child session of {} for {}", c.id, c.parent.as_ref().map_or("", |p| p.1.as_str()), addr);
        }
    }

    /// Whether `child`'s parent is still in the table (the same session, not a reused key).
    pub(super) fn parent_of(&self, child: &Session) -> Option<SessionKey> {
        let (key, id) = child.parent.as_ref()?;
        self.slab.get(*key).filter(|p| p.id == *id).map(|_| *key)
    }

    /// Parent/child bookkeeping after every turn: a child's new stop goes to its parent's
    /// waits (and becomes the default session); a child whose parent ends, is disconnected or
    /// left the table is disconnected too, and leaves the table with its parent.
    pub(super) fn sweep_children(&mut self, now: Instant) {
        let children: Vec<SessionKey> = self.slab.iter().filter(|(_, s)| s.parent.is_some()).map(|(k, _)| k).collect();
        for key in children {
            let Some(c) = self.slab.get(key) else { continue };
            let parent = self.parent_of(c);
            let stopped_new = c.state == RunState::Stopped && c.stop_ready && c.revision > c.stop_told_parent;
            let stop = stopped_new.then(|| (c.revision, c.headline(), c.snapshot_json()));
            let (alive, closing, child_id) = (c.adapter_alive, c.closing, c.id.clone());
            let parent_ending = match parent.and_then(|p| self.slab.get(p)) {
                None => true,
                Some(p) => p.closing || p.state.is_over(),
            };
            let parent_disconnected = parent.and_then(|p| self.slab.get(p)).map_or(true, |p| p.disconnected);
            if let (Some((revision, headline, snapshot)), Some(pkey)) = (stop, parent) {
                if let Some(c) = self.slab.get_mut(key) {
                    c.stop_told_parent = revision;
                }
                self.latest = Some(key);
                if let Some(p) = self.slab.get_mut(pkey) {
                    p.child_stops.retain(|s| s.key != key);
                    p.child_stops.push(ChildStop { key, revision, headline, snapshot });
                    p.complete_waiters();
                    p.pump(now, &mut self.actions);
                }
            }
            if parent_ending && alive && !closing {
                let terminate = self.slab.get(key).is_some_and(|c| c.owns_debuggee);
                log::debug!("{child_id}: its parent ended; disconnecting it");
                self.end_child(key, terminate, now);
            }
            if let Some(c) = self.slab.get_mut(key) {
                // It leaves the table with its parent: now if its connection is gone, else once
                // it is (`on_adapter_closed`).
                if parent_disconnected && !c.disconnected {
                    c.disconnected = true;
                    if !c.adapter_alive {
                        self.actions.push_back(Action::Release { session: key });
                    }
                }
            }
        }
        // A parent forgets stops of children that ran on meanwhile.
        let stopped: Vec<(SessionKey, u64)> =
            self.slab.iter().filter(|(_, s)| s.state == RunState::Stopped).map(|(k, s)| (k, s.revision)).collect();
        for (_, s) in self.slab.iter_mut() {
            s.child_stops.retain(|c| stopped.contains(&(c.key, c.revision)));
        }
    }

    /// Disconnects a child session without a call (its parent is going): its debuggee is
    /// terminated when it is agentdap's (`terminate`).
    pub(super) fn end_child(&mut self, key: SessionKey, terminate: bool, now: Instant) {
        let Some(c) = self.slab.get_mut(key) else { return };
        if c.closing || !c.adapter_alive {
            return;
        }
        c.closing = true;
        c.ended_by_agentdap = true;
        c.send_disconnect(Some(terminate), Origin::Disconnect { call: None }, now);
        c.pump(now, &mut self.actions);
    }

    /// Live child sessions of `key`.
    pub(super) fn children_of(&self, key: SessionKey) -> Vec<SessionKey> {
        let Some(id) = self.slab.get(key).map(|s| s.id.clone()) else { return Vec::new() };
        self.slab
            .iter()
            .filter(|(_, c)| c.parent.as_ref().is_some_and(|(k, i)| *k == key && *i == id))
            .map(|(k, _)| k)
            .collect()
    }

    /// Sessions for listing, each followed by its children (depth, session).
    pub fn listed(&self) -> Vec<(usize, &Session)> {
        let mut out = Vec::new();
        let roots = self.slab.iter().filter(|(_, s)| self.parent_of(s).is_none());
        let mut stack: Vec<(usize, SessionKey)> = roots.map(|(k, _)| (0, k)).collect();
        stack.reverse();
        // Bounded by the table's size: each session is pushed once, by its one parent.
        while let Some((depth, key)) = stack.pop() {
            let Some(s) = self.slab.get(key) else { continue };
            out.push((depth, s));
            let mut kids = self.children_of(key);
            kids.reverse();
            stack.extend(kids.into_iter().map(|k| (depth + 1, k)));
        }
        out
    }
}

/// Most bytes of a child's command line read, and most characters of `-c` code shown.
const CMDLINE_BYTES: u64 = 4096;
const CODE_CHARS: usize = 40;

/// What a child session runs, for `sessions`: its process's command line when agentdap can
/// read it (`python -c <code…>`, or the script), else the configuration's `name` (debugpy
/// 1.8.22 copies the parent's `program` into a subprocess's configuration, so that field says
/// nothing about the child).
fn child_program(configuration: &Value, pid: Option<i64>) -> String {
    let argv = pid.and_then(|pid| {
        use std::io::Read;
        let file = std::fs::File::open(format!("/proc/{pid}/cmdline")).ok()?;
        let mut bytes = Vec::new();
        file.take(CMDLINE_BYTES).read_to_end(&mut bytes).ok()?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Some(text.split('\0').filter(|a| !a.is_empty()).map(str::to_owned).collect::<Vec<_>>())
    });
    if let Some(argv) = argv.filter(|a| a.len() > 1) {
        let interpreter = argv[0].rsplit('/').next().unwrap_or(&argv[0]).to_owned();
        // The first argument that is not an interpreter flag: `-c`, `-m`, or the script.
        let mut rest = argv[1..].iter().skip_while(|a| a.starts_with('-') && !matches!(a.as_str(), "-c" | "-m"));
        match (rest.next().map(String::as_str), rest.next()) {
            (Some(flag @ ("-c" | "-m")), Some(what)) => {
                let (start, end) = crate::dap::adapters::debugpy::SUBPROCESS_C_CODE_AFTER;
                let what = match what.find(start) {
                    // Only the program's own code: the start-up code before it holds a token.
                    Some(at) => match what[at..].find(end) {
                        Some(e) => &what[at + e + end.len()..],
                        None => {
                            return configuration
                                .get("name")
                                .and_then(Value::as_str)
                                .unwrap_or("a child process")
                                .to_owned()
                        }
                    },
                    None => what.as_str(),
                };
                let one_line = what.split_whitespace().collect::<Vec<_>>().join(" ");
                let (shown, _) = super::inspect::clip(&one_line, CODE_CHARS);
                return format!("{interpreter} {flag} {shown}");
            }
            (Some(script), _) => return script.to_owned(),
            _ => {}
        }
    }
    configuration.get("name").and_then(Value::as_str).unwrap_or("a child process").to_owned()
}
