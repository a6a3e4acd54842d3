//! Child sessions (DAP § Reverse Requests › StartDebugging): opening one for a `startDebugging`
//! reverse request, routing a child's stops to its parent's waits, ending children with their
//! parent, and listing them under it. Sans-IO; the table is the parent module's.

use std::time::Instant;

use serde_json::Value;

use super::files::Files;
use super::snapshot::RunState;
use super::{client, plan, Action, Origin, Session, SessionKey, Sessions, Start, MAX_SESSIONS};
use crate::dap::adapters::ChildSessions;

/// A child session's stop, reported in its parent's next result.
#[derive(Clone, Debug)]
pub(super) struct ChildStop {
    pub(super) key: SessionKey,
    pub(super) revision: u64,
    pub(super) headline: String,
    pub(super) snapshot: Value,
}

impl Sessions {
    /// A `startDebugging` from `parent`'s adapter: answered at once (microsoft/debugpy#1269),
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
        let same_server = p.link.plan.quirks.child_sessions == ChildSessions::StartDebuggingSameServer;
        let ending = p.link.is_closing() || p.run.state.is_over();
        let verdict = if full {
            Err(format!("{MAX_SESSIONS} sessions exist"))
        } else if ending {
            Err(format!("{} is ending", p.id))
        } else if same_server {
            // js-debug: every target is one more connection to the server the parent talks to.
            p.link
                .plan
                .connect
                .or(p.link.server_addr)
                .ok_or_else(|| "agentdap does not know where the adapter listens".to_owned())
        } else {
            plan::child_address(&configuration, p.family.attach_target.as_deref())
        };
        let addr = match verdict {
            Ok(addr) => addr,
            Err(why) => {
                let name = configuration.get("name").and_then(Value::as_str).unwrap_or("a child process");
                let name = crate::visible::escaped(name);
                let answer = client::ReverseAnswer::Failure { message: format!("agentdap cannot debug it: {why}") };
                let _ = p.link.client.respond(id, answer, now);
                // A program agentdap started goes with its session (its process group is
                // stopped): a target announced as the session ends is that program, not one left
                // waiting (a fresh user's `disconnect` while a js-debug launch was starting).
                let warning = if ending && p.family.owns_debuggee {
                    format!("{name} had started as {} ended; it ended with the session", p.id)
                } else {
                    // js-debug holds a target until a debugger takes it: refused, it does not run.
                    let consequence = if same_server {
                        "it waits for a debugger and will not run"
                    } else {
                        "its breakpoints will not hit"
                    };
                    format!("the program started {name}, which agentdap cannot debug ({why}); {consequence}")
                };
                p.calls.warnings.push(warning);
                p.pump(now, &mut self.actions);
                return;
            }
        };
        let _ = p.link.client.respond(id, client::ReverseAnswer::ok(), now);
        let breakpoints = p.breaks.store.requested_only();
        let mut plan = p.link.plan.clone();
        plan.request = if request == "launch" { "launch" } else { "attach" };
        plan.launch_arguments = configuration;
        plan.connect = Some(addr);
        plan.entry_function = None;
        plan.scratch_dir = None;
        // How the adapter was chosen was said in the parent's first result.
        plan.notes = Vec::new();
        let pid = plan.launch_arguments.get("subProcessId").and_then(Value::as_i64);
        // The first target of a top-level js-debug session is that session to the agent (its
        // stand-in, `launcher.rs`); later ones are children of the stand-in.
        let promote = same_server && p.family.parent.is_none() && p.family.stand_in.is_none();
        let stand_in = p.family.stand_in;
        // The debuggee's command line or the adapter's `name`: shown in `sessions` as the
        // program, so nothing in it may hide text (crate::visible).
        let program = if promote {
            p.program.clone()
        } else {
            crate::visible::escaped(&child_program(&*self.files, &plan.launch_arguments, pid, &p.program))
        };
        let agent_id = promote.then(|| p.id.clone());
        if promote {
            p.id = super::launcher::launcher_id(&p.id);
        }
        let mut start =
            Start { program, breakpoints, exception_filters: p.breaks.exception_filters.clone(), id: agent_id };
        let (owns, target) = (p.family.owns_debuggee, p.family.attach_target.clone());
        // The test runs in the child (js-debug's debuggee session): its results report it.
        let test = p.test.clone().map(|t| super::test_outcome::TestSession { below: None, failed: None, ..t });
        let mut parent_of_child = (parent, p.id.clone());
        p.pump(now, &mut self.actions);
        if let Some(c) = stand_in.and_then(|k| self.slab.get(k).map(|c| (k, c))) {
            // A second top-level target (js-debug): listed under the stand-in, with its breakpoints.
            parent_of_child = (c.0, c.1.id.clone());
            start.breakpoints = c.1.breaks.store.requested_only();
            start.exception_filters = c.1.breaks.exception_filters.clone();
        }
        let key = self.open(start, plan, None, Some(parent_of_child), owns, now);
        if promote {
            self.promote(parent, key);
        }
        if let Some(c) = self.slab.get_mut(key) {
            c.family.debuggee_pid = pid.or(c.family.debuggee_pid);
            c.family.attach_target = target;
            c.test = test;
            log::info!(
                "{}: child session of {} for {}",
                c.id,
                c.family.parent.as_ref().map_or("", |p| p.1.as_str()),
                addr
            );
        }
    }

    /// Whether `child`'s parent is still in the table (the same session, not a reused key).
    pub(super) fn parent_of(&self, child: &Session) -> Option<SessionKey> {
        let (key, id) = child.family.parent.as_ref()?;
        self.slab.get(*key).filter(|p| p.id == *id).map(|_| *key)
    }

    /// Parent/child bookkeeping after every turn: a child's new stop goes to its parent's
    /// waits (and becomes the default session); a child whose parent ends, is disconnected or
    /// left the table is disconnected too, and leaves the table with its parent.
    pub(super) fn sweep_children(&mut self, now: Instant) {
        // A stand-in and its launcher end together by their own rules (`sweep_launchers`).
        let children: Vec<SessionKey> = self
            .slab
            .iter()
            .filter(|(_, s)| s.family.parent.is_some() && !s.family.stands_in)
            .map(|(k, _)| k)
            .collect();
        for key in children {
            let Some(c) = self.slab.get(key) else { continue };
            let parent = self.parent_of(c);
            let stopped_new =
                c.run.state == RunState::Stopped && c.run.stop_ready() && c.run.revision > c.family.stop_told_parent;
            let stop = stopped_new.then(|| (c.run.revision, c.headline(), c.snapshot_json()));
            let (alive, closing, child_id) = (c.link.is_alive(), c.link.is_closing(), c.id.clone());
            let parent_ending = match parent.and_then(|p| self.slab.get(p)) {
                None => true,
                Some(p) => p.link.is_closing() || p.run.state.is_over(),
            };
            let parent_disconnected = parent.and_then(|p| self.slab.get(p)).map_or(true, |p| p.link.disconnected);
            // What the child's process bound is bound: the parent's listing says so too. This
            // runs every turn, so only when either side's breakpoints changed since.
            let now_seen = (self.breakpoint_changes(Some(key)), self.breakpoint_changes(parent));
            if self.slab.get(key).is_some_and(|c| c.family.breakpoints_told != now_seen) {
                let proven = self.slab.get(key).map(|c| c.breaks.store.verified_requests()).unwrap_or_default();
                if let Some(p) = parent.filter(|_| !proven.is_empty()).and_then(|p| self.slab.get_mut(p)) {
                    p.breaks.store.learn_verified(&proven);
                }
                let told = (self.breakpoint_changes(Some(key)), self.breakpoint_changes(parent));
                if let Some(c) = self.slab.get_mut(key) {
                    c.family.breakpoints_told = told;
                }
            }
            if let (Some((revision, headline, snapshot)), Some(pkey)) = (stop, parent) {
                if let Some(c) = self.slab.get_mut(key) {
                    c.family.stop_told_parent = revision;
                }
                self.latest = Some(key);
                if let Some(p) = self.slab.get_mut(pkey) {
                    p.family.child_stops.retain(|s| s.key != key);
                    p.family.child_stops.push(ChildStop { key, revision, headline, snapshot });
                    p.complete_waiters();
                    p.pump(now, &mut self.actions);
                }
            }
            if parent_ending && alive && !closing {
                let terminate = self.slab.get(key).is_some_and(|c| c.family.owns_debuggee);
                log::debug!("{child_id}: its parent ended; disconnecting it");
                self.end_child(key, terminate, now);
            }
            if let Some(c) = self.slab.get_mut(key) {
                // It leaves the table with its parent: now if its connection is gone, else once
                // it is (`on_adapter_closed`).
                if parent_disconnected && !c.link.disconnected {
                    c.link.disconnected = true;
                    if !c.link.is_alive() {
                        self.actions.push_back(Action::Release { session: key });
                    }
                }
            }
        }
        // A parent forgets stops of children that ran on meanwhile.
        let stopped: Vec<(SessionKey, u64)> = self
            .slab
            .iter()
            .filter(|(_, s)| s.run.state == RunState::Stopped)
            .map(|(k, s)| (k, s.run.revision))
            .collect();
        for (_, s) in self.slab.iter_mut() {
            s.family.child_stops.retain(|c| stopped.contains(&(c.key, c.revision)));
        }
    }

    /// `BreakpointStore::changes` of session `key` (0 when there is none).
    fn breakpoint_changes(&self, key: Option<SessionKey>) -> u64 {
        key.and_then(|k| self.slab.get(k)).map_or(0, |s| s.breaks.store.changes())
    }

    /// Disconnects a child session without a call (its parent is going): its debuggee is
    /// terminated when it is agentdap's (`terminate`).
    pub(super) fn end_child(&mut self, key: SessionKey, terminate: bool, now: Instant) {
        let Some(c) = self.slab.get_mut(key) else { return };
        if c.link.is_closing() || !c.link.is_alive() {
            return;
        }
        c.link.ask_to_close();
        c.run.ended_by_agentdap = true;
        c.send_disconnect(Some(terminate), Origin::Run(super::tools::run::Op::Disconnect { call: None }), now);
        c.pump(now, &mut self.actions);
    }

    /// The top-level session `key` belongs to: itself, or its parent's (a stand-in is top-level:
    /// its parent is its hidden launcher). Bounded by the table's size.
    pub fn top_level(&self, mut key: SessionKey) -> SessionKey {
        for _ in 0..MAX_SESSIONS {
            match self.slab.get(key).filter(|s| !s.family.stands_in).and_then(|s| self.parent_of(s)) {
                Some(parent) => key = parent,
                None => break,
            }
        }
        key
    }

    /// Live child sessions of `key`.
    pub(super) fn children_of(&self, key: SessionKey) -> Vec<SessionKey> {
        let Some(id) = self.slab.get(key).map(|s| s.id.clone()) else { return Vec::new() };
        self.slab
            .iter()
            .filter(|(_, c)| c.family.parent.as_ref().is_some_and(|(k, i)| *k == key && *i == id))
            .map(|(k, _)| k)
            .collect()
    }

    /// Sessions for listing, each followed by its children (depth, session).
    pub fn listed(&self) -> Vec<(usize, &Session)> {
        let mut out = Vec::new();
        // A launcher is hidden; its stand-in is listed in its place.
        let roots = self
            .slab
            .iter()
            .filter(|(k, s)| !self.is_hidden(*k) && (s.family.stands_in || self.parent_of(s).is_none()));
        // Oldest first, whatever slab slot each took.
        let mut roots: Vec<(SessionKey, u64)> = roots.map(|(k, s)| (k, s.evidence.opened)).collect();
        roots.sort_by_key(|(_, opened)| *opened);
        let mut stack: Vec<(usize, SessionKey)> = roots.into_iter().map(|(k, _)| (0, k)).collect();
        stack.reverse();
        // Bounded by the table's size: each session is pushed once, by its one parent.
        while let Some((depth, key)) = stack.pop() {
            let Some(s) = self.slab.get(key) else { continue };
            out.push((depth, s));
            let mut kids = self.children_of(key);
            kids.sort_by_key(|k| self.slab.get(*k).map_or(0, |c| c.evidence.opened));
            kids.reverse();
            stack.extend(kids.into_iter().map(|k| (depth + 1, k)));
        }
        out
    }
}

/// Most bytes of a child's command line read, and most characters of `-c` code (or of a
/// script's arguments) shown.
const CMDLINE_BYTES: usize = 4096;
const CODE_CHARS: usize = 40;

const MULTIPROCESSING_WORKER: &str = "multiprocessing worker";
const FORK_SERVER_OF: &str = "multiprocessing fork server of ";

/// The command line of process `pid` (`/proc/<pid>/cmdline`, at most [`CMDLINE_BYTES`]).
fn read_cmdline(files: &dyn Files, pid: i64) -> Option<Vec<String>> {
    let bytes = files.process_cmdline(pid, CMDLINE_BYTES)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Some(text.split('\0').filter(|a| !a.is_empty()).map(str::to_owned).collect())
}

/// The parent process of `pid` (`/proc/<pid>/stat`'s fourth field).
fn parent_pid(files: &dyn Files, pid: i64) -> Option<i64> {
    files.process_stat(pid).map(|st| st.ppid)
}

/// What a child session runs, for `sessions`: what its process's command line runs when
/// agentdap can read it (see [`describe`]), else the configuration's `name` (debugpy 1.8.22
/// copies the parent's `program` into a subprocess's configuration, so that field says nothing
/// about the child). A process whose command line is its parent process's is a fork of the
/// parent program (`multiprocessing`'s default `fork` start method on Linux).
fn child_program(files: &dyn Files, configuration: &Value, pid: Option<i64>, parent_program: &str) -> String {
    let fallback = || configuration.get("name").and_then(Value::as_str).unwrap_or("a child process").to_owned();
    let Some(pid) = pid else { return fallback() };
    let Some(argv) = read_cmdline(files, pid).filter(|a| a.len() > 1) else { return fallback() };
    if parent_pid(files, pid).and_then(|parent| read_cmdline(files, parent)).is_some_and(|p| p == argv) {
        // What a fork server forks is a worker.
        return match parent_program.strip_prefix(FORK_SERVER_OF) {
            Some(program) => format!("{MULTIPROCESSING_WORKER} of {program}"),
            None => format!("fork of {parent_program}"),
        };
    }
    describe(&argv, parent_program).unwrap_or_else(fallback)
}

/// What a Python command line runs.
#[derive(Debug, PartialEq, Eq)]
enum PythonTarget {
    Script { path: String, args: Vec<String> },
    Module { name: String, args: Vec<String> },
    Code { code: String, args: Vec<String> },
}

/// The name shown for a child running `argv`: `multiprocessing worker of <parent_program>`
/// (or its fork server, or resource tracker),
/// `python -c <code…>` (the program's own code only), `python -m <module> <args…>`, or
/// `<script> <args…>`. `None` when `argv` does not read as a Python command line.
fn describe(argv: &[String], parent_program: &str) -> Option<String> {
    use crate::dap::adapters::debugpy::cmdline::{MULTIPROCESSING_CODE, MULTIPROCESSING_FORK_ARG};
    let interpreter = argv.first()?.rsplit('/').next().unwrap_or(&argv[0]).to_owned();
    let target = python_target(argv)?;
    let with_args = |head: String, args: &[String]| {
        let (shown, _) = super::text::clip(&args.join(" "), CODE_CHARS);
        if args.is_empty() {
            head
        } else {
            format!("{head} {shown}")
        }
    };
    Some(match target {
        PythonTarget::Code { code, args } => {
            if let Some((_, what)) = MULTIPROCESSING_CODE.iter().find(|(m, _)| code.contains(m)) {
                return Some(format!("{what} of {parent_program}"));
            }
            if args.iter().any(|a| a == MULTIPROCESSING_FORK_ARG) {
                return Some(format!("{MULTIPROCESSING_WORKER} of {parent_program}"));
            }
            let (start, end) = crate::dap::adapters::debugpy::SUBPROCESS_C_CODE_AFTER;
            let own = match code.find(start) {
                // Only the program's own code: the start-up code before it holds a token.
                Some(at) => &code[at + code[at..].find(end)? + end.len()..],
                None => code.as_str(),
            };
            let one_line = own.split_whitespace().collect::<Vec<_>>().join(" ");
            let (shown, _) = super::text::clip(&one_line, CODE_CHARS);
            format!("{interpreter} -c {shown}")
        }
        PythonTarget::Module { name, args } => with_args(format!("{interpreter} -m {name}"), &args),
        PythonTarget::Script { path, args } => with_args(path, &args),
    })
}

/// What `argv` (the interpreter first) runs, read as CPython reads its options, then through
/// debugpy's and pydevd's launchers to the program they start.
fn python_target(argv: &[String]) -> Option<PythonTarget> {
    use crate::dap::adapters::debugpy::cmdline::{DEBUGPY_PACKAGE, PYDEVD_SCRIPT};
    let mut target = interpreter_target(argv.get(1..)?)?;
    // Bounded: debugpy's launcher, then pydevd's, each seen through at most once.
    for _ in 0..2 {
        let PythonTarget::Script { path, args } = &target else { break };
        let name = path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
        target = if name == PYDEVD_SCRIPT {
            pydevd_target(args)?
        } else if name == DEBUGPY_PACKAGE {
            debugpy_target(args)?
        } else {
            break;
        };
    }
    Some(target)
}

/// The program of CPython's own arguments (`argv` without the interpreter): options (combined
/// one-letter flags, `-X opt`/`-Xopt`, `-W arg`, long ones), then `-c <code>`, `-m <module>`,
/// `--` or the script. `None` for the REPL, stdin (`-`) and unreadable lines.
fn interpreter_target(args: &[String]) -> Option<PythonTarget> {
    use crate::dap::adapters::debugpy::cmdline::{PYTHON_LETTERS_WITH_VALUE, PYTHON_LONG_WITH_VALUE};
    let rest = |from: usize| args.get(from..).unwrap_or_default().to_vec();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" {
            return Some(PythonTarget::Script { path: args.get(i)?.clone(), args: rest(i + 1) });
        }
        if a == "-" {
            return None;
        }
        if a.starts_with("--") {
            if PYTHON_LONG_WITH_VALUE.contains(&a.as_str()) {
                i += 1;
            }
            continue;
        }
        let Some(letters) = a.strip_prefix('-') else {
            return Some(PythonTarget::Script { path: a.clone(), args: rest(i) });
        };
        for (at, c) in letters.char_indices() {
            let attached = &letters[at + c.len_utf8()..];
            if c == 'c' || c == 'm' {
                let (value, after) =
                    if attached.is_empty() { (args.get(i)?.clone(), i + 1) } else { (attached.to_owned(), i) };
                return Some(if c == 'c' {
                    PythonTarget::Code { code: value, args: rest(after) }
                } else {
                    PythonTarget::Module { name: value, args: rest(after) }
                });
            }
            if PYTHON_LETTERS_WITH_VALUE.contains(c) {
                if attached.is_empty() {
                    i += 1;
                }
                break;
            }
        }
    }
    None
}

/// The program debugpy's command line starts (`<…>/debugpy --connect <addr> … <script>`).
fn debugpy_target(args: &[String]) -> Option<PythonTarget> {
    use crate::dap::adapters::debugpy::cmdline::{DEBUGPY_CONFIGURE_PREFIX, DEBUGPY_WITH_VALUE};
    let rest = |from: usize| args.get(from..).unwrap_or_default().to_vec();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-m" => return Some(PythonTarget::Module { name: args.get(i + 1)?.clone(), args: rest(i + 2) }),
            "-c" => return Some(PythonTarget::Code { code: args.get(i + 1)?.clone(), args: rest(i + 2) }),
            "--pid" => return None,
            o if DEBUGPY_WITH_VALUE.contains(&o) || o.starts_with(DEBUGPY_CONFIGURE_PREFIX) => i += 2,
            o if o.starts_with('-') => i += 1,
            _ => return Some(PythonTarget::Script { path: a.clone(), args: rest(i + 1) }),
        }
    }
    None
}

/// The program pydevd's launcher starts (`<…>/pydevd.py --port N … --file <script> <args…>`;
/// with `--module`, `--file` names a module).
fn pydevd_target(args: &[String]) -> Option<PythonTarget> {
    use crate::dap::adapters::debugpy::cmdline::PYDEVD_WITH_VALUE;
    let (mut i, mut module) = (0, false);
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "--file" => {
                let what = args.get(i + 1)?.clone();
                let rest = args.get(i + 2..).unwrap_or_default().to_vec();
                return Some(if module {
                    PythonTarget::Module { name: what, args: rest }
                } else {
                    PythonTarget::Script { path: what, args: rest }
                });
            }
            "--module" => (module, i) = (true, i + 1),
            o if PYDEVD_WITH_VALUE.contains(&o) => i += 2,
            o if o.starts_with("--") => i += 1,
            // pydevd refuses anything else before `--file`.
            _ => return None,
        }
    }
    None
}

/// The debuggee a session is attached to and the sessions around it: its parent, whether the
/// debuggee is agentdap's to end, and child stops not yet told.
#[derive(Default)]
pub struct Family {
    /// The session that opened this one through `startDebugging`: (slab key, id). The id
    /// guards against a reused slab key once the parent is gone.
    pub(crate) parent: Option<(SessionKey, String)>,
    /// The debuggee is agentdap's to end: a `launch` and its child sessions. False for `attach`
    /// (and its children): the attached process is the user's, never killed or recorded.
    pub(crate) owns_debuggee: bool,
    /// Where an `attach {connect}` went, as the agent named it (children may follow a
    /// `connect` back to the same host).
    pub(crate) attach_target: Option<String>,
    pub(crate) debuggee_pid: Option<i64>,
    /// Child stops not yet shown in a result of this session.
    pub(super) child_stops: Vec<ChildStop>,
    /// The revision of this session's last stop announced to its parent.
    pub(crate) stop_told_parent: u64,
    /// This session is a hidden launcher (`launcher.rs`): the agent-facing session is this one.
    pub(crate) stand_in: Option<SessionKey>,
    /// This session stands in for its parent, a hidden launcher (`launcher.rs`).
    pub(crate) stands_in: bool,
    /// The (child's, parent's) `BreakpointStore::changes` when the parent last learnt what this
    /// child verified (`sweep_children`).
    pub(super) breakpoints_told: (u64, u64),
    /// Output a launcher received for its stand-in, moved there after this turn.
    pub(super) forward: Vec<super::launcher::Forwarded>,
    /// The core file this session reads (`attach {core, program}`): it cannot run.
    pub(crate) core: Option<super::snapshot::PostMortem>,
}

#[cfg(test)]
mod tests {
    use super::{describe, python_target, PythonTarget};

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    /// Command lines read from /proc while debugpy 1.8.22 children ran under agentdap
    /// (CPython 3.11; the venv's path shortened, tokens replaced).
    #[test]
    fn a_python_command_line_names_the_program_it_runs() {
        let py = "/venv/bin/python";
        // `subprocess.run([sys.executable, "child.py", "7"])`, rewritten by pydevd.
        let subprocess = argv(&[
            py,
            "/venv/lib/python3.11/site-packages/debugpy/_vendored/pydevd/pydevd.py",
            "--port",
            "54755",
            "--ppid",
            "17143",
            "--client",
            "127.0.0.1",
            "--client-access-token",
            "0123abcd",
            "--debug-mode",
            "debugpy-dap",
            "--preimport",
            "/venv/lib/python3.11/site-packages/debugpy/..;debugpy._vendored.force_pydevd",
            "--multiprocess",
            "--skip-notify-stdin",
            "--json-dap-http",
            "--file",
            "/src/child.py",
            "7",
        ]);
        assert_eq!(describe(&subprocess, "/src/workers.py").as_deref(), Some("/src/child.py 7"));
        // A launched program (and a process forked from it, which has the same command line).
        let launched = argv(&[
            py,
            "-X",
            "frozen_modules=off",
            "/venv/lib/python3.11/site-packages/debugpy/launcher/../../debugpy",
            "--connect",
            "127.0.0.1:54755",
            "--configure-qt",
            "none",
            "--adapter-access-token",
            "0123abcd",
            "/src/workers.py",
        ]);
        assert_eq!(describe(&launched, "-").as_deref(), Some("/src/workers.py"));
        // multiprocessing's `spawn` start method, its `-c` code prefixed by pydevd's start-up.
        let setup = "import sys; import pydevd; pydevd.settrace(host='127.0.0.1', port=34131, \
                     client_access_token='0123abcd', __setup_holder__={'client': '127.0.0.1', 'ppid': 14268}); ";
        let spawn =
            format!("{setup}from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7)");
        let spawned = argv(&[py, "-X", "frozen_modules=off", "-c", &spawn, "--multiprocessing-fork"]);
        assert_eq!(describe(&spawned, "/src/mp.py").as_deref(), Some("multiprocessing worker of /src/mp.py"));
        let forkserver =
            format!("{setup}from multiprocessing.forkserver import main; main(7, 8, ['__main__'], **{{}})");
        let server = argv(&[py, "-X", "frozen_modules=off", "-c", &forkserver]);
        assert_eq!(describe(&server, "/src/mp.py").as_deref(), Some("multiprocessing fork server of /src/mp.py"));
        let tracker = format!("{setup}from multiprocessing.resource_tracker import main;main(6)");
        let tracker = argv(&[py, "-X", "frozen_modules=off", "-c", &tracker]);
        assert_eq!(describe(&tracker, "/src/mp.py").as_deref(), Some("multiprocessing resource tracker of /src/mp.py"));
        // The program's own `-c` code, never pydevd's start-up code before it.
        let code = format!("{setup}print('hi')");
        let c = describe(&argv(&[py, "-c", &code]), "-");
        assert_eq!(c.as_deref(), Some("python -c print('hi')"));
    }

    #[test]
    fn interpreter_options_are_skipped_as_cpython_reads_them() {
        let target = |args: &[&str]| python_target(&argv(args));
        let script = |path: &str, args: &[&str]| Some(PythonTarget::Script { path: path.into(), args: argv(args) });
        assert_eq!(target(&["python", "-Esu", "app.py", "-v"]), script("app.py", &["-v"]));
        assert_eq!(target(&["python", "-X", "dev", "-W", "ignore", "app.py"]), script("app.py", &[]));
        assert_eq!(target(&["python", "-Xdev", "-Werror", "-b", "app.py"]), script("app.py", &[]));
        assert_eq!(target(&["python", "--check-hash-based-pycs", "always", "app.py"]), script("app.py", &[]));
        assert_eq!(target(&["python", "-I", "--", "-weird.py", "x"]), script("-weird.py", &["x"]));
        let module = |name: &str, args: &[&str]| Some(PythonTarget::Module { name: name.into(), args: argv(args) });
        assert_eq!(target(&["python", "-u", "-m", "http.server", "8000"]), module("http.server", &["8000"]));
        assert_eq!(target(&["python", "-qmhttp.server"]), module("http.server", &[]));
        let code = |c: &str, args: &[&str]| Some(PythonTarget::Code { code: c.into(), args: argv(args) });
        assert_eq!(target(&["python", "-Sc", "print(1)", "a"]), code("print(1)", &["a"]));
        assert_eq!(target(&["python", "-cprint(1)"]), code("print(1)", &[]));
        // The REPL and stdin run no named program; a `-c` without its code is no command line.
        assert_eq!(target(&["python", "-i"]), None);
        assert_eq!(target(&["python", "-"]), None);
        assert_eq!(target(&["python", "-c"]), None);
        // pydevd with `--module`, and debugpy's own `-m`.
        let pydevd =
            ["python", "/x/pydevd.py", "--module", "--port", "1", "--qt-support=auto", "--file", "pkg.cli", "a"];
        assert_eq!(target(&pydevd), module("pkg.cli", &["a"]));
        assert_eq!(
            target(&["python", "/x/debugpy", "--connect", "1", "--wait-for-client", "-m", "pkg"]),
            module("pkg", &[])
        );
        assert_eq!(target(&["python", "/x/debugpy", "--listen", "1", "--pid", "42"]), None);
    }
}
