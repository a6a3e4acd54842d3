//! The sans-IO test rig (test builds only): one session of a [`Sessions`] table wired to a
//! [`ScriptedAdapter`] — the DAP bytes agentdap writes (`Sessions::outbound`/`consume`) go to
//! the adapter, the adapter's go to `Sessions::on_adapter_bytes` — pumped until quiescent, with
//! a fake clock (`Rig::advance` moves it and calls `Sessions::on_timer`). Must not: do IO, read
//! the real clock past its start, or read private fields of `Session`: tests assert on what
//! leaves the session layer (DAP requests, `Action`s, tool results).

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Action, AdapterPlan, LaunchArgs, SessionKey, Sessions};
use crate::dap::adapters::{delve, AdapterKind, PortDiscovery, Quirks, RuntimeQuirks, Transport};
use crate::dap::command::AdapterCommand;
use crate::dap::scripted::ScriptedAdapter;
use crate::reply::{CallKey, ToolResult};

/// Most pump rounds before the rig calls it a livelock (a session and an adapter answering
/// each other forever).
const MAX_ROUNDS: usize = 10_000;

/// A tool entry point's immediate answer, whatever shape it has: none (the answer comes later
/// as `Action::Complete`), or a refusal known at once.
pub(super) trait Answered {
    fn answered(self) -> Option<ToolResult>;
}

impl Answered for () {
    fn answered(self) -> Option<ToolResult> {
        None
    }
}

impl Answered for ToolResult {
    fn answered(self) -> Option<ToolResult> {
        Some(self)
    }
}

impl Answered for Result<ToolResult, ToolResult> {
    fn answered(self) -> Option<ToolResult> {
        Some(self.unwrap_or_else(|e| e))
    }
}

impl Answered for Result<(), ToolResult> {
    fn answered(self) -> Option<ToolResult> {
        self.err()
    }
}

/// One session against one scripted adapter.
pub(super) struct Rig {
    pub s: Sessions,
    pub adapter: ScriptedAdapter,
    /// The fake clock.
    pub now: Instant,
    /// The session's slab key (set by [`Rig::launch`]/[`Rig::attach`]).
    pub key: SessionKey,
    /// Every action handed out other than `Complete`, oldest first.
    pub actions: Vec<Action>,
    /// Tool results not yet taken, oldest first.
    results: Vec<(CallKey, ToolResult)>,
    next_call: u64,
    transport: Transport,
    /// The adapter was stopped (`Action::StopAdapter`): it sends nothing more and its stream
    /// closes.
    stopped: bool,
}

impl Rig {
    pub fn new(adapter: ScriptedAdapter) -> Rig {
        Rig {
            s: Sessions::default(),
            adapter,
            now: Instant::now(),
            key: 0,
            actions: Vec::new(),
            results: Vec::new(),
            next_call: 1,
            transport: Transport::Stdio,
            stopped: false,
        }
    }

    /// As [`Rig::new`], with the session table reading files and `/proc` only through `files`.
    pub fn with_files(adapter: ScriptedAdapter, files: std::rc::Rc<dyn super::Files>) -> Rig {
        let s = Sessions::with_files(crate::dap::client::DEFAULT_REQUEST_TIMEOUT, Default::default(), files);
        Rig { s, ..Rig::new(adapter) }
    }

    fn call_key(&mut self) -> CallKey {
        let call = CallKey::new(self.next_call);
        self.next_call += 1;
        call
    }

    /// `Sessions::launch` (what the `launch` tool's handler calls once it has a plan), then
    /// pumped until quiescent. Returns the launch call's key.
    pub fn launch(&mut self, plan: AdapterPlan, args: LaunchArgs) -> CallKey {
        let call = self.call_key();
        self.transport = plan.transport.clone();
        if let Some(out) = self.s.launch(args, plan, call, self.now).answered() {
            self.results.push((call, out));
        }
        self.pump();
        call
    }

    /// `Sessions::attach` (what the `attach` tool's handler calls once it has a plan), then
    /// pumped until quiescent. Returns the attach call's key.
    pub fn attach(&mut self, plan: AdapterPlan, start: super::AttachStart) -> CallKey {
        let call = self.call_key();
        self.transport = plan.transport.clone();
        if let Some(out) = self.s.attach(start, plan, call, self.now).answered() {
            self.results.push((call, out));
        }
        self.pump();
        call
    }

    /// Launches `program` under `kind`'s recipe without stopping on entry (the launch most tests
    /// start from); its answer comes at the first stop or the exit.
    pub fn launch_program(&mut self, kind: AdapterKind, program: &str) -> CallKey {
        let plan = plan(kind, serde_json::json!({ "program": program }), None);
        self.launch(plan, args(serde_json::json!({"program": program, "stop_on_entry": false})))
    }

    /// Calls a tool entry point `f(sessions, key, call, now)`, then pumps. An immediate answer
    /// is kept like a later one, so [`Rig::result`] finds either.
    pub fn call<R: Answered>(&mut self, f: impl FnOnce(&mut Sessions, SessionKey, CallKey, Instant) -> R) -> CallKey {
        let call = self.call_key();
        if let Some(out) = f(&mut self.s, self.key, call, self.now).answered() {
            self.results.push((call, out));
        }
        self.pump();
        call
    }

    /// The adapter sends `event` now; pumped until quiescent.
    pub fn event(&mut self, event: &str, body: Value) {
        self.adapter.event(event, body, self.now);
        self.pump();
    }

    /// Moves bytes both ways and hands out actions until nothing moves.
    pub fn pump(&mut self) {
        for _ in 0..MAX_ROUNDS {
            let mut moved = false;
            let written = self.s.outbound(self.key).to_vec();
            if !written.is_empty() {
                self.s.consume(self.key, written.len());
                if !self.stopped {
                    self.adapter.receive(&written, self.now);
                }
                moved = true;
            }
            let answer = self.adapter.take(self.now);
            if !answer.is_empty() && !self.stopped {
                self.s.on_adapter_bytes(self.key, &answer, self.now);
                moved = true;
            }
            while let Some(action) = self.s.next_action(self.now) {
                moved = true;
                self.handle(action);
            }
            if !moved {
                return;
            }
        }
        panic!("the session and the scripted adapter never went quiet");
    }

    fn handle(&mut self, action: Action) {
        match action {
            Action::Complete { call, output } => self.results.push((call, output)),
            Action::Spawn { session, .. } | Action::Connect { session, .. } => {
                self.key = session;
                if matches!(self.transport, Transport::Tcp { .. }) {
                    // The shell reports the announced port before the connection opens.
                    self.s.on_adapter_listening(session, std::net::SocketAddr::from(([127, 0, 0, 1], 4711)));
                }
                self.s.on_spawned(session, self.now);
                self.actions.push(action);
            }
            Action::StopAdapter { session } if !self.stopped => {
                // The adapter goes: its stream closes (the shell reaps it and reports that).
                self.stopped = true;
                self.actions.push(action);
                self.s.on_adapter_closed(session, self.now);
            }
            other => self.actions.push(other),
        }
    }

    /// Moves the fake clock `by` forward, firing every deadline on the way (the adapter's
    /// delayed messages, request timeouts, waits) at its own instant.
    pub fn advance(&mut self, by: Duration) {
        let end = self.now + by;
        for _ in 0..MAX_ROUNDS {
            let next =
                [self.adapter.next_due(), self.s.next_deadline()].into_iter().flatten().filter(|t| *t <= end).min();
            self.now = next.unwrap_or(end).max(self.now);
            self.s.on_timer(self.now);
            self.pump();
            if next.is_none() {
                return;
            }
        }
        panic!("deadlines kept firing without the clock reaching its end");
    }

    /// The result of `call`, once it has one (taken: a second look finds none).
    pub fn result(&mut self, call: CallKey) -> Option<ToolResult> {
        let at = self.results.iter().position(|(c, _)| *c == call)?;
        Some(self.results.remove(at).1)
    }

    /// The result of `call`; the test fails naming the requests sent when there is none.
    pub fn answered(&mut self, call: CallKey) -> ToolResult {
        match self.result(call) {
            Some(out) => out,
            None => panic!("no result for {call:?}; requests sent: {:?}", self.adapter.commands()),
        }
    }

    /// The ledger records queued so far: kind (`session_start`, …) and facts, oldest first.
    pub fn ledger(&self) -> Vec<(&'static str, serde_json::Map<String, Value>)> {
        self.actions
            .iter()
            .filter_map(|a| match a {
                Action::Ledger(r) => Some((r.kind.as_str(), r.facts.clone())),
                _ => None,
            })
            .collect()
    }
}

/// The plan of a `launch` of `program` with a built-in recipe's quirks, as `plan::launch`
/// makes it minus what needs the machine (finding the adapter, a build directory): `arguments`
/// are the complete DAP `launch` arguments; `entry_function` is set when stopping on entry
/// through a function breakpoint (`RuntimeQuirks::entry_function`).
pub(super) fn plan(kind: AdapterKind, arguments: Value, entry_function: Option<&'static str>) -> AdapterPlan {
    let transport = match kind {
        AdapterKind::Delve => Transport::Tcp { port: PortDiscovery::AnnouncedLine { prefix: delve::LISTENING_PREFIX } },
        AdapterKind::Debugpy | AdapterKind::Lldb | AdapterKind::Gdb | AdapterKind::Netcoredbg => Transport::Stdio,
        AdapterKind::JsDebug | AdapterKind::CodeLldb | AdapterKind::Rdbg => {
            Transport::Tcp { port: PortDiscovery::Chosen }
        }
    };
    AdapterPlan {
        name: kind.name().into(),
        kind: Some(kind),
        quirks: kind.quirks(),
        runtime: kind.runtime_quirks(),
        transport,
        entry_function,
        scratch_dir: None,
        command: AdapterCommand::new(kind.name()),
        request: "launch",
        launch_arguments: arguments,
        connect: None,
        notes: Vec::new(),
    }
}

/// The plan of a custom adapter (`spec`, from the config file): plain DAP, no quirks
/// ([`Quirks::STANDARD`], [`RuntimeQuirks::STANDARD`]), over stdio.
pub(super) fn standard_plan(arguments: Value) -> AdapterPlan {
    AdapterPlan {
        name: "spec".into(),
        kind: None,
        quirks: Quirks::STANDARD,
        runtime: RuntimeQuirks::STANDARD,
        transport: Transport::Stdio,
        entry_function: None,
        scratch_dir: None,
        command: AdapterCommand::new("spec-adapter"),
        request: "launch",
        launch_arguments: arguments,
        connect: None,
        notes: Vec::new(),
    }
}

/// The `launch` tool's arguments as its handler parses them (`{"program": …, "breakpoints":
/// […], …}`). Programs and breakpoint files in these tests do not exist, so no other spelling
/// of them is found on disk.
pub(super) fn args(json: Value) -> LaunchArgs {
    match serde_json::from_value(json) {
        Ok(args) => args,
        Err(e) => panic!("launch arguments of a test: {e}"),
    }
}
