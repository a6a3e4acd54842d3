//! A session's side of the IDE mirror (SECURITY.md § The IDE mirror), sans-IO: what the mirror
//! clients are told (events in order, a `continued` synthesized when a resume succeeded without
//! one, the last stop for late joiners, a `capabilities` event when the mode changes), and
//! forwarding their requests through the session's DAP connection with frame ids and variable
//! references translated through the session's handles (§5). In [`Mode::Control`] a client's
//! resume moves the session exactly as the agent's would (run state, revision, stale handles);
//! the stop it leads to says so, and the agent's next result says the person resumed.
//! Must not: touch sockets, or let a read-only client change the session.
//!
//! The IO shell (`server/mirror.rs`) drains [`Tap::take_notes`] every loop turn and delivers them
//! to the clients; it also carries out expose/unexpose requests the tools queue here.

use std::collections::VecDeque;
use std::time::Instant;

use serde::Serialize;
use serde_json::{Map, Value};

use super::handles::Kind;
use super::snapshot::RunState;
use super::{CallKey, Origin, Session, SessionKey, Sessions};
use crate::dap::adapters::AdapterKind;
use crate::dap::client::Outcome;
use crate::dap::protocol::{Event, Response, Seq};
use crate::mirror::{Endpoint, Mode, CONTROL, FORWARD_OUTBOUND_BUDGET, FORWARD_TIMEOUT, RESUMES};

/// Notes waiting for the IO shell; it drains them every loop turn, so this only bounds one
/// turn's worth (an event flood from the adapter). Past it, events are dropped and counted;
/// responses are always kept.
pub const MAX_NOTES: usize = 16_384;

/// Identifies a mirror client across slab-key reuse: its slab key and a serial never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientRef {
    pub key: usize,
    pub serial: u64,
}

/// A mirror client's request in flight to the adapter (the DAP origin of a forwarded request).
#[derive(Debug)]
pub struct Forwarded {
    pub client: ClientRef,
    /// The client's own `seq` (its `request_seq` on the way back).
    pub request_seq: i64,
    pub command: String,
    /// The session's revision when it was sent: ids in a reply from an older one are not minted.
    pub revision: u64,
}

/// Something for the mirror clients of a session.
#[derive(Debug)]
pub enum Note {
    /// An event for every attached client, in order.
    Event { event: String, body: Option<Value> },
    /// An event for one client only: a `breakpoint` event about a breakpoint it set, with its id.
    ClientEvent { client: ClientRef, event: String, body: Value },
    /// The answer to one client's forwarded request (`seq`/`request_seq` are set by the client).
    /// `held`: the request timed out and the adapter is still working on it, so it keeps its
    /// place in the client's in-flight cap until a [`Note::Released`] for it.
    Response { client: ClientRef, request_seq: i64, response: Response, held: bool },
    /// The adapter finally answered a request of `client` that had timed out (or the session's
    /// connection ended): its place in the client's in-flight cap is free.
    Released { client: ClientRef },
}

/// A mirror client's request the adapter has not answered, timed out or not.
#[derive(Debug)]
struct AtAdapter {
    seq: Seq,
    client: ClientRef,
    command: String,
    sent_at: Instant,
    /// The client was answered with a timeout; the adapter's late reply only frees the place.
    timed_out: bool,
}

/// What the agent asked of the mirror, for the IO shell.
#[derive(Debug)]
pub enum Request {
    /// Open a listener and answer `call` with the endpoint.
    Expose { call: CallKey },
    /// Close the listener (clients get `terminated`).
    Unexpose,
}

/// A session's mirror state.
#[derive(Debug, Default)]
pub struct Tap {
    /// Set by the IO shell once the listener is bound.
    pub endpoint: Option<Endpoint>,
    requests: Vec<Request>,
    notes: VecDeque<Note>,
    dropped: u64,
    /// The last `stopped` body and the revision it came at; `None` while running.
    last_stop: Option<(u64, Value)>,
    /// The clients were told `continued` since the last `stopped` (one `continued` per resume,
    /// whether the adapter sent it, agentdap synthesized it, or both happened).
    told_running: bool,
    /// Mirror requests sent to the adapter and not answered by it, oldest first. Cap: each
    /// client holds at most [`crate::mirror::MAX_ADAPTER_IN_FLIGHT`] places, timed-out ones
    /// included, and a mirror has at most [`crate::mirror::MAX_CLIENTS`] clients.
    at_adapter: Vec<AtAdapter>,
    /// What the agent lets the clients do (`expose_session {control}`).
    pub mode: Mode,
    /// The execution-control request a read-only client tried first (it asked for control),
    /// and whether the agent was told in a result already (told once per mode).
    asked: Option<(String, bool)>,
    /// The operator allows control mirrors (`--allow` with `control`), as the ask found it.
    grantable: bool,
    /// The person's resume or pause the next stop comes from; cleared by the agent's.
    pub(super) person_cause: Option<String>,
    /// The person's resumes since the agent's last result (count, last command).
    person_resumes: Option<(u32, String)>,
}

/// How the agent hears that the person asked for control; `grantable`: whether the operator's
/// `--allow` lets the agent give it ([`crate::mirror::control_allowed`]).
pub fn asked_words(command: &str, grantable: bool) -> String {
    let how = if grantable {
        "`expose_session {control: true}` gives it"
    } else {
        "agentdap runs without --allow control, so it cannot be given"
    };
    format!("the person in the IDE asked for control (tried `{command}`); {how}")
}

impl Tap {
    /// The request a read-only client tried, when one asked for control.
    pub fn control_asked(&self) -> Option<&str> {
        self.asked.as_ref().map(|(c, _)| c.as_str())
    }

    /// Whether control could be given when a client asked for it (`--allow` with `control`).
    pub fn control_grantable(&self) -> bool {
        self.grantable
    }

    /// Notes for the clients, oldest first.
    pub fn take_notes(&mut self) -> VecDeque<Note> {
        if self.dropped > 0 {
            log::warn!("mirror: dropped {} events in one turn (flood)", self.dropped);
            self.dropped = 0;
        }
        std::mem::take(&mut self.notes)
    }

    /// Whether notes wait for the IO shell.
    pub fn has_notes(&self) -> bool {
        !self.notes.is_empty()
    }

    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    /// The endpoint to hand out: none while an unexpose is queued (it is about to close).
    pub fn open_endpoint(&self) -> Option<&Endpoint> {
        let closing = self.requests.iter().any(|r| matches!(r, Request::Unexpose));
        self.endpoint.as_ref().filter(|_| !closing)
    }

    /// Whether a listener is open or asked for.
    pub fn exposed_or_pending(&self) -> bool {
        self.endpoint.is_some() || self.requests.iter().any(|r| matches!(r, Request::Expose { .. }))
    }

    fn note_event(&mut self, event: &str, body: Option<Value>) {
        if self.endpoint.is_none() {
            return;
        }
        if self.notes.len() >= MAX_NOTES {
            self.dropped += 1;
            return;
        }
        match event {
            "continued" => self.told_running = true,
            "stopped" => self.told_running = false,
            _ => {}
        }
        self.notes.push_back(Note::Event { event: event.to_owned(), body });
    }

    pub(super) fn note_response(&mut self, client: ClientRef, request_seq: i64, response: Response) {
        self.notes.push_back(Note::Response { client, request_seq, response, held: false });
    }

    /// The adapter answered `seq` (a late reply, or none will come: `seq` is `None` when the
    /// connection ended): a timed-out mirror request's place is released.
    pub(super) fn adapter_answered(&mut self, seq: Option<Seq>) {
        let (gone, kept): (Vec<AtAdapter>, Vec<AtAdapter>) =
            std::mem::take(&mut self.at_adapter).into_iter().partition(|a| seq.map_or(true, |s| s == a.seq));
        self.at_adapter = kept;
        for a in gone.into_iter().filter(|a| a.timed_out) {
            self.notes.push_back(Note::Released { client: a.client });
        }
    }

    /// What held the adapter when an agent's request sent at `sent_at` got no answer: the
    /// oldest mirror request sent before it that the adapter had not answered.
    pub(super) fn busy_note(&self, sent_at: Instant) -> Option<String> {
        let a = self.at_adapter.iter().filter(|a| a.sent_at <= sent_at).min_by_key(|a| a.sent_at)?;
        let earlier = sent_at.saturating_duration_since(a.sent_at).as_secs_f64();
        Some(format!(
            "the adapter was still busy with a mirror client's `{}` sent {earlier:.1} s earlier{}",
            a.command,
            if a.timed_out { " (it had timed out for the client; the adapter never answered it)" } else { "" }
        ))
    }
}

/// Events the clients see (besides the ones agentdap synthesizes).
const FANNED_OUT: &[&str] =
    &["stopped", "continued", "output", "thread", "exited", "terminated", "module", "loadedSource", "invalidated"];

/// Requests whose replies carry frame ids or variable references.
const MINTS_IDS: &[&str] = &["stackTrace", "scopes", "variables", "evaluate"];

impl Session {
    /// The session's VS Code debug type (`debugpy`, `lldb-dap`, `go`; a custom adapter's name).
    pub fn vscode_type(&self) -> String {
        match self.link.plan.kind {
            Some(AdapterKind::Debugpy) => "debugpy".into(),
            Some(AdapterKind::Lldb) => "lldb-dap".into(),
            Some(AdapterKind::Delve) => "go".into(),
            Some(AdapterKind::JsDebug) => "pwa-node".into(),
            Some(AdapterKind::CodeLldb) => "lldb".into(),
            Some(AdapterKind::Rdbg) => "rdbg".into(),
            Some(kind @ (AdapterKind::Gdb | AdapterKind::Netcoredbg)) => kind.vscode_type().into(),
            None => self.link.plan.name.clone(),
        }
    }

    /// The adapter's capabilities as it reported them.
    pub fn raw_capabilities(&self) -> Option<serde_json::Map<String, Value>> {
        self.link.client.capabilities().map(|c| c.raw.clone())
    }

    /// Called for every adapter event, after the session reacted to it.
    pub(super) fn mirror_event(&mut self, e: &Event) {
        match e.event.as_str() {
            "stopped" => {
                let mut body = e.body.clone().unwrap_or_else(|| Value::Object(Map::new()));
                // The IDE never set these breakpoints: their ids mean nothing to it.
                if let Some(m) = body.as_object_mut() {
                    m.remove("hitBreakpointIds");
                }
                if let Some((rev, _)) = &self.mirror.last_stop {
                    // The program ran since the clients saw the last stop, and nobody said so.
                    if self.run.revision > rev + 1 && !self.mirror.told_running {
                        let thread = body.get("threadId").cloned();
                        self.mirror.note_event("continued", Some(continued_body(thread)));
                    }
                }
                self.mirror.last_stop = Some((self.run.revision, body.clone()));
                self.mirror.note_event("stopped", Some(body));
            }
            // agentdap already synthesized it for this resume (the adapter answered the step first).
            "continued" if self.mirror.told_running => self.mirror.last_stop = None,
            "continued" | "exited" | "terminated" => {
                self.mirror.last_stop = None;
                self.mirror.note_event(&e.event, e.body.clone());
            }
            // Only the person's breakpoints mean anything to a client, each under its own id.
            "breakpoint" if self.mirror.endpoint.is_some() => {
                let body = e.body.clone().unwrap_or_default();
                for (client, body) in self.mirror_breakpoint_events(&body) {
                    let event = "breakpoint".to_owned();
                    self.mirror.notes.push_back(Note::ClientEvent { client, event, body });
                }
            }
            "output"
                if e.body.as_ref().and_then(|b| b.get("category")).and_then(Value::as_str) == Some("telemetry") => {}
            name if FANNED_OUT.contains(&name) => self.mirror.note_event(name, e.body.clone()),
            _ => {}
        }
    }

    /// The agent's resume (`continue`, a step) succeeded: clients that last saw a stop hear
    /// `continued`, unless the adapter said so already or the program stopped again first.
    pub(super) fn mirror_resumed(&mut self) {
        if self.run.state != RunState::Running {
            return;
        }
        if let Some((_, body)) = self.mirror.last_stop.take() {
            if !self.mirror.told_running {
                self.mirror.note_event("continued", Some(continued_body(body.get("threadId").cloned())));
            }
        }
    }

    /// `expose_session {control}` on an exposed (or pending) mirror: a changed mode resets the
    /// ask for control, and attached clients get the new masked capabilities (DAP § Events ›
    /// Capabilities) so the IDE shows what the mode allows. True when the mode changed.
    pub fn set_mirror_mode(&mut self, mode: Mode) -> bool {
        if self.mirror.mode == mode {
            return false;
        }
        self.mirror.mode = mode;
        self.mirror.asked = None;
        if let Some(raw) = self.raw_capabilities() {
            let capabilities = crate::mirror::masked_capabilities(&raw, mode);
            self.mirror.note_event("capabilities", Some(serde_json::json!({ "capabilities": capabilities })));
        }
        true
    }

    /// A read-only client tried `command`: the agent's next result (and `sessions`) say so.
    pub fn mirror_asked_control(&mut self, command: &str, grantable: bool) {
        if self.mirror.mode == Mode::ReadOnly && self.mirror.asked.is_none() {
            self.mirror.grantable = grantable;
            log::info!("{}: a mirror client asked for control (`{command}`)", self.id);
            self.mirror.asked = Some((command.to_owned(), false));
        }
    }

    /// What the agent's result must say of the mirror: the person's resumes since the last
    /// result, and (once) that the person asked for control.
    pub(super) fn mirror_notes(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some((n, last)) = self.mirror.person_resumes.take() {
            let times = if n == 1 { String::new() } else { format!(" {n} times (last: `{last}`)") };
            let how = if n == 1 { format!(" (`{last}`)") } else { times };
            // Where it is now, so an agent whose next call acts on the current stop knows which.
            let now = match (&self.run.state, self.run.stop.as_ref().and_then(|s| s.location.as_ref())) {
                (RunState::Stopped, Some(l)) => match (&l.path, l.line) {
                    (Some(p), Some(line)) => {
                        let name =
                            std::path::Path::new(p).file_name().map_or(p.clone(), |n| n.to_string_lossy().into());
                        format!("; it is stopped at {name}:{line} now (rev {})", self.run.revision)
                    }
                    _ => String::new(),
                },
                (RunState::Running, _) => "; it is running now".to_owned(),
                _ => String::new(),
            };
            notes.push(format!("the person in the IDE resumed the program{how}{now}; handles from before are stale"));
        }
        if let Some((command, told)) = self.mirror.asked.as_mut().filter(|(_, told)| !*told) {
            *told = true;
            notes.push(asked_words(command, self.mirror.grantable));
        }
        notes
    }

    /// A control client's `command` (one of [`CONTROL`]) before it goes to the adapter: a resume
    /// makes the session run as the agent's would (`Session::resume`'s bookkeeping), a `pause`
    /// needs it running. Errors: why not, for the client.
    fn mirror_control(&mut self, command: &str) -> Result<(), String> {
        if self.mirror.mode != Mode::Control {
            return Err(format!("agentdap mirror: the agent took control back; `{command}` is refused"));
        }
        let resumes = RESUMES.contains(&command);
        match self.run.state {
            RunState::Stopped if resumes => {}
            RunState::Running if command == "pause" => {}
            _ if !resumes && command != "pause" => return Ok(()),
            state => return Err(format!("agentdap mirror: the session is {}; `{command}` is refused", state.as_str())),
        }
        self.mirror.person_cause = Some(command.to_owned());
        if resumes {
            log::info!("{}: the person in the IDE resumed the program (`{command}`)", self.id);
            self.run.stop_before_resume = self.run.stop.clone();
            self.mark_running();
            self.run.resume_unacked = true;
            let n = self.mirror.person_resumes.as_ref().map_or(0, |(n, _)| *n);
            self.mirror.person_resumes = Some((n + 1, command.to_owned()));
        }
        Ok(())
    }

    /// The adapter answered a control client's resume: as `Session::control_answered` does for
    /// the agent's (refused: back at the stop, in a new revision; unanswered: unknown, running).
    fn mirror_resume_answered(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Success(_) => {
                self.run.resume_unacked = false;
                self.mirror_resumed();
            }
            Outcome::Timeout { .. } => self.calls.warnings.push(format!(
                "the person's resume got no answer from {}: whether the program resumed is unknown",
                self.link.adapter
            )),
            _ => self.mirror_resume_refused(),
        }
    }

    /// A control client's resume was refused or never sent: the session is still at its stop.
    fn mirror_resume_refused(&mut self) {
        let before = self.run.stop_before_resume.take();
        self.mirror.person_cause = None;
        // It did not resume: the agent is not told it did (the count is of real resumes).
        if let Some((n, _)) = self.mirror.person_resumes.as_mut() {
            *n -= 1;
        }
        if self.mirror.person_resumes.as_ref().is_some_and(|(n, _)| *n == 0) {
            self.mirror.person_resumes = None;
            self.calls.warnings.push(format!(
                "the person in the IDE tried to resume the program and {} refused: it is still at its stop, in a new revision (handles from before are stale)",
                self.link.adapter
            ));
        }
        if self.run.state == RunState::Running {
            self.run.state = RunState::Stopped;
            self.run.stop = before;
            // A stop of its own revision: the last one's reads are not this one's.
            self.run.stop_revision = self.run.revision;
            self.run.details_ready();
        }
    }

    /// The `stopped` body a client attaching now should see, when the session is stopped.
    pub fn mirror_late_join_stop(&self) -> Option<Value> {
        if self.run.state != RunState::Stopped {
            return None;
        }
        if let Some((_, body)) = &self.mirror.last_stop {
            return Some(body.clone());
        }
        let stop = self.run.stop.as_ref()?;
        let body = StoppedBody { reason: &stop.reason, all_threads_stopped: true, thread_id: stop.thread };
        // A struct of a string, a bool and a number always serialises.
        serde_json::to_value(body).ok()
    }

    /// A forwarded request was answered: ids in the reply become handles, then the client hears it.
    pub(super) fn mirror_completed(&mut self, seq: Seq, f: Forwarded, outcome: Outcome) {
        let Forwarded { client, request_seq, command, revision } = f;
        let timed_out = matches!(outcome, Outcome::Timeout { .. });
        if timed_out {
            // The adapter is still working on it: it keeps its place until it really answers.
            if let Some(a) = self.mirror.at_adapter.iter_mut().find(|a| a.seq == seq) {
                a.timed_out = true;
            }
        } else {
            self.mirror.at_adapter.retain(|a| a.seq != seq);
        }
        let held = timed_out && self.mirror.at_adapter.iter().any(|a| a.seq == seq);
        if RESUMES.contains(&command.as_str()) {
            self.mirror_resume_answered(&outcome);
        }
        let response = match outcome {
            Outcome::Success(mut r) if revision == self.run.revision || !MINTS_IDS.contains(&command.as_str()) => {
                if let Some(body) = r.body.as_mut() {
                    self.mint_reply_ids(&command, body);
                }
                r
            }
            Outcome::Success(_) => failure(
                &command,
                format!("the program ran while `{command}` was in flight (now rev {}); ask again", self.run.revision),
            ),
            Outcome::Error { message, response } => Response { body: response.body, ..failure(&command, message) },
            other => failure(&command, other.to_string()),
        };
        self.mirror.notes.push_back(Note::Response { client, request_seq, response, held });
    }

    /// Whether the agent (or `agentdap ctl`) has a request at the adapter: queued mirror
    /// requests wait until it has none, so the agent is never behind more than what each
    /// client already had in flight.
    pub fn agent_waiting(&self) -> bool {
        self.link.client.any_pending(|o| !matches!(o, Origin::Mirror(_)))
    }

    /// Replaces the adapter's frame ids and variable references in a reply by handles.
    fn mint_reply_ids(&mut self, command: &str, body: &mut Value) {
        let (list, kind, field) = match command {
            "stackTrace" => ("stackFrames", Kind::Frame, "id"),
            "scopes" => ("scopes", Kind::Variables, "variablesReference"),
            "variables" => ("variables", Kind::Variables, "variablesReference"),
            "evaluate" => return self.mint_field(body, Kind::Variables, "variablesReference"),
            _ => return,
        };
        if let Some(items) = body.get_mut(list).and_then(Value::as_array_mut) {
            for item in items {
                self.mint_field(item, kind, field);
            }
        }
    }

    fn mint_field(&mut self, item: &mut Value, kind: Kind, field: &str) {
        let Some(id) = item.get(field).and_then(Value::as_i64) else { return };
        if kind == Kind::Variables && id <= 0 {
            return;
        }
        let handle = self.view.handles.mint(kind, id).map_or(0, i64::from);
        item[field] = handle.into();
    }

    /// Translates the handles in a client's arguments into the adapter's ids (§5: a stale one is
    /// refused before anything is sent). Errors carry the handle for [`Sessions::mirror_forward`]
    /// to say which session it belongs to.
    fn unmint_arguments(&self, command: &str, arguments: &mut Option<Value>) -> Result<(), UnmintError> {
        let (kind, field) = match command {
            "scopes" | "evaluate" | "completions" => (Kind::Frame, "frameId"),
            "variables" => (Kind::Variables, "variablesReference"),
            _ => return Ok(()),
        };
        let Some(args) = arguments.as_mut() else { return Ok(()) };
        let Some(raw) = args.get(field) else { return Ok(()) };
        // The client core refuses these already; never send an id that was not translated.
        let Some(handle) = raw.as_i64() else {
            return Err(UnmintError { handle: None, message: format!("`{field}` must be an integer, not {raw}") });
        };
        match self.view.handles.resolve(kind, handle) {
            Ok(id) => {
                args[field] = id.into();
                Ok(())
            }
            Err(e) => Err(UnmintError {
                handle: Some((kind, handle)),
                message: format!("{} {handle}: {e}; ask again for fresh ids", kind.as_str()),
            }),
        }
    }
}

/// Why a client's arguments could not be translated.
struct UnmintError {
    /// The handle that did not resolve, when it was one.
    handle: Option<(Kind, i64)>,
    message: String,
}

/// DAP § Events › Stopped, as agentdap makes it up for a client that joins a stopped session.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoppedBody<'a> {
    reason: &'a str,
    all_threads_stopped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread_id: Option<i64>,
}

/// DAP § Events › Continued, as agentdap makes it up: the thread as the `stopped` event gave
/// it (whatever its type), left out when it gave none.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContinuedBody {
    all_threads_continued: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread_id: Option<Value>,
}

fn continued_body(thread: Option<Value>) -> Value {
    let body = ContinuedBody { all_threads_continued: true, thread_id: thread };
    // A bool and a `Value` always serialise.
    serde_json::to_value(body).unwrap_or_default()
}

/// DAP § Base Protocol › ErrorResponse body: `error` is a `Message`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorMessage<'a>,
}

/// DAP § Types › Message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorMessage<'a> {
    id: i64,
    format: &'a str,
    show_user: bool,
}

/// A failed response for a client (seq fields are set by the client).
fn failure(command: &str, message: String) -> Response {
    Response {
        seq: Seq::new(0),
        request_seq: Seq::new(0),
        success: false,
        command: command.to_owned(),
        // A struct of numbers, a string and a bool always serialises.
        body: serde_json::to_value(ErrorBody { error: ErrorMessage { id: 2, format: &message, show_user: false } })
            .ok(),
        message: Some(message),
    }
}

impl Sessions {
    /// Queues an expose (the IO shell binds the listener and answers `call`).
    pub fn request_expose(&mut self, key: SessionKey, call: CallKey) {
        if let Some(s) = self.slab.get_mut(key) {
            s.mirror.requests.push(Request::Expose { call });
        }
    }

    /// Queues an unexpose; true when there was something to close.
    pub fn request_unexpose(&mut self, key: SessionKey) -> bool {
        let Some(s) = self.slab.get_mut(key) else { return false };
        let open = s.mirror.exposed_or_pending();
        if open {
            s.mirror.requests.push(Request::Unexpose);
            // The next expose starts read-only again, with no ask for control pending.
            s.mirror.mode = Mode::ReadOnly;
            s.mirror.asked = None;
        }
        open
    }

    /// Every session's mirror state, for the IO shell.
    pub fn taps(&mut self) -> impl Iterator<Item = (SessionKey, &mut Session)> {
        self.slab.iter_mut()
    }

    pub fn get_mut(&mut self, key: SessionKey) -> Option<&mut Session> {
        self.slab.get_mut(key)
    }

    /// A mirror client's read-only request for session `key`: an `evaluate` made an expression
    /// for this adapter ([`crate::mirror::as_expression`]), ids translated, then sent through
    /// the session's DAP connection. Failures are answered to the client through the notes.
    pub fn mirror_forward(
        &mut self,
        key: SessionKey,
        client: ClientRef,
        request_seq: i64,
        command: &str,
        mut arguments: Option<Value>,
        now: Instant,
    ) {
        let Some(s) = self.slab.get_mut(key) else { return };
        // The agent's `completions` needs `evaluate` (debugpy evaluates the text): a client's too.
        if command == "completions" && !self.allow.mirror_may(crate::allow::Switch::Evaluate) {
            let msg = self.allow.refusal("`completions`", crate::allow::Switch::Evaluate);
            s.mirror.note_response(client, request_seq, failure(command, msg));
            return;
        }
        if command == "evaluate" {
            // An expression, never a debugger command or a statement (the adapter's data says how).
            if let Err(msg) = crate::mirror::as_expression(&mut arguments, &s.link.plan.runtime.mirror_evaluate) {
                s.mirror.note_response(client, request_seq, failure(command, msg));
                return;
            }
            // Under `--allow` without `evaluate`: what the agent could evaluate, no more.
            if self.allow.hover_only() {
                let adapter = s.link.plan.kind.map(|k| k.name()).unwrap_or("");
                if let Err(msg) = crate::allow::hover::hover_only(&mut arguments, adapter, self.allow) {
                    s.mirror.note_response(client, request_seq, failure(command, msg));
                    return;
                }
            }
        }
        let Some(s) = self.slab.get(key) else { return };
        if let Err(e) = s.unmint_arguments(command, &mut arguments) {
            let owner = e.handle.and_then(|(_, handle)| {
                self.slab
                    .iter()
                    .find(|(k, other)| *k != key && other.view.handles.knows(handle))
                    .map(|(_, o)| o.id.clone())
            });
            let msg = match (owner, e.handle) {
                (Some(owner), Some((kind, handle))) => format!(
                    "{} {handle} belongs to session {owner}, not this one: it came from another session's mirror",
                    kind.as_str()
                ),
                _ => e.message,
            };
            if let Some(s) = self.slab.get_mut(key) {
                s.mirror.note_response(client, request_seq, failure(command, msg));
            }
            return;
        }
        let Some(s) = self.slab.get_mut(key) else { return };
        if let Some(why) = s.link.plan.quirks.unknown_request(&s.link.adapter, command) {
            s.mirror.note_response(client, request_seq, failure(command, why));
            return;
        }
        let queued = s.link.client.outbound().len();
        if queued > FORWARD_OUTBOUND_BUDGET {
            // The agent's requests must always get through: the mirror has its own budget.
            let msg = format!(
                "the adapter is busy ({queued} bytes waiting for it); agentdap mirror refused `{command}`, try again shortly"
            );
            s.mirror.note_response(client, request_seq, failure(command, msg));
            return;
        }
        if CONTROL.contains(&command) {
            if let Err(why) = s.mirror_control(command) {
                s.mirror.note_response(client, request_seq, failure(command, why));
                return;
            }
        }
        // A mirror client's expression that may write: a later stop's changes may be its own. An
        // IDE evaluates watches and hovers at every stop, so only one that assigns counts.
        if command == "evaluate" {
            s.note_evaluate(arguments.as_ref(), false, "a mirror client's evaluate");
        }
        let origin =
            Origin::Mirror(Forwarded { client, request_seq, command: command.to_owned(), revision: s.run.revision });
        s.run.note_request(command, arguments.as_ref());
        match s.link.client.request(command, arguments, origin, now, Some(FORWARD_TIMEOUT)) {
            Ok(seq) => s.mirror.at_adapter.push(AtAdapter {
                seq,
                client,
                command: command.to_owned(),
                sent_at: now,
                timed_out: false,
            }),
            Err(refused) => {
                if RESUMES.contains(&command) {
                    // Never sent: the session is where it was, as after a refusal.
                    s.mirror_resume_refused();
                }
                let msg = format!("agentdap could not send `{command}`: {}", refused.error);
                s.mirror.note_response(client, request_seq, failure(command, msg));
            }
        }
        s.pump(now, &mut self.actions);
    }
}
