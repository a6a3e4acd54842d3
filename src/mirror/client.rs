//! One mirror client (an IDE speaking DAP to agentdap), sans-IO: decodes its requests, applies the
//! policy ([`super::policy`]), answers the handshake itself, hands read-only requests to its
//! [`Host`] (the session) — at most [`MAX_ADAPTER_IN_FLIGHT`] at a time, the rest queued in
//! order — and encodes responses and events into a capped write buffer.
//! Must not: touch its socket, read the clock, or know how forwarding works.
//!
//! States: `Handshake` (until a good `attach`/`launch`) → `Ready` → closing (after `disconnect`,
//! a bad token, `terminated`, or the auth deadline). When [`MAX_CLIENTS`] others are attached, an
//! `initialize` or `attach` is answered with the reason, then the client closes. A client that
//! half-closes its socket still gets the answers to what it asked, then closes.

use std::collections::VecDeque;
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::{
    forward_refusal, policy, Mode, Policy, Token, CLIENT_MAX_BODY, CLIENT_OUT_CAP, CONTROL, LATE_JOIN_FALLBACK,
    MAX_ADAPTER_IN_FLIGHT, MAX_CLIENTS, MAX_IN_FLIGHT, MAX_RESPONSE,
};
use crate::dap::client::log_text;
use crate::dap::framing::{self, Decoder, Encoder};
use crate::dap::protocol::{Event, Message, Request, Response, Seq};
use crate::io_buf::OutBuf;

/// What a client needs from the session it mirrors.
pub trait Host {
    /// The adapter's capabilities as it reported them (`None` before its `initialize` answer).
    fn capabilities(&self) -> Option<Map<String, Value>>;
    /// Sends a read-only request to the adapter on the client's behalf; the answer comes back
    /// later through [`ClientCore::complete`] with `request_seq`.
    fn forward(&mut self, request_seq: i64, command: &str, arguments: Option<Value>);
    /// The body of a `stopped` event mirroring the session's last stop, when it is stopped now.
    fn late_join_stop(&self) -> Option<Value>;
    /// How many other clients of the same mirror are attached (against [`MAX_CLIENTS`]).
    fn other_attached_clients(&self) -> usize;
    /// The agent has a request at the adapter: queued requests wait (the agent goes first).
    fn agent_waiting(&self) -> bool;
    /// What the agent lets the clients do now.
    fn mode(&self) -> Mode;
    /// A client tried `command` (execution control) on a read-only mirror: the agent hears it.
    fn asked_control(&mut self, command: &str);
    /// A control client's `setBreakpoints`, `setExceptionBreakpoints` or `setFunctionBreakpoints`:
    /// kept as the person's beside the agent's (`Sessions::mirror_set_breakpoints`); the answer
    /// comes back later through [`ClientCore::answer`] with `request_seq`.
    fn set_breakpoints(&mut self, request_seq: i64, command: &str, arguments: Option<Value>);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Handshake,
    /// Attached. `late_join` is true until the client was shown where the session stands.
    Ready {
        late_join: bool,
    },
}

/// One client's protocol state. See the module documentation.
pub struct ClientCore {
    /// For log lines, e.g. `s1 mirror client 2`.
    name: String,
    token: Token,
    state: State,
    decoder: Decoder,
    encoder: Encoder,
    /// Encoded frames not yet written. Cap: [`CLIENT_OUT_CAP`] (soft: over it the client is
    /// cut off, [`ClientCore::check_overflow`]).
    out: OutBuf,
    seq: i64,
    auth_deadline: Option<Instant>,
    late_join_at: Option<Instant>,
    /// Requests handed to the host that the adapter has not answered yet, including ones the
    /// client was already told timed out (the adapter may still be busy with them). Cap:
    /// [`MAX_ADAPTER_IN_FLIGHT`].
    in_flight: usize,
    /// Forwarded requests waiting for one of those to be answered, oldest first. Cap:
    /// [`MAX_IN_FLIGHT`] minus `in_flight`.
    queued: VecDeque<Queued>,
    closing: bool,
    /// The client half-closed its socket: nothing more is read; it closes once the answers to
    /// its forwarded requests are written.
    read_eof: bool,
    overflowed: bool,
    terminated_sent: bool,
}

impl ClientCore {
    /// A client accepted at `now`, which must attach with `token` before `auth_deadline`.
    pub fn new(name: String, token: Token, auth_deadline: Instant) -> ClientCore {
        ClientCore {
            name,
            token,
            state: State::Handshake,
            decoder: Decoder::with_max_body(CLIENT_MAX_BODY),
            encoder: Encoder::new(),
            out: OutBuf::with_cap(CLIENT_OUT_CAP),
            seq: 0,
            auth_deadline: Some(auth_deadline),
            late_join_at: None,
            in_flight: 0,
            queued: VecDeque::new(),
            closing: false,
            read_eof: false,
            overflowed: false,
            terminated_sent: false,
        }
    }

    /// Bytes read from the client's socket.
    pub fn receive(&mut self, bytes: &[u8], now: Instant, host: &mut dyn Host) {
        if self.closing {
            return;
        }
        let mut requests = Vec::new();
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.feed(bytes, |frame| match frame {
            Ok(body) => {
                log::trace!("{}: <- {}", self.name, log_text(body));
                requests.push(classify(body));
            }
            // Garbage: the decoder resynchronises; no seq is known to answer.
            Err(d) => log::info!("{}: skipped bytes: {}", self.name, d.without_preview()),
        });
        if decoder.is_finished() {
            // A frame over the size cap (or one whose claimed length a later header showed to be a
            // lie): nothing later can be told apart from its claimed body, so the client is closed
            // at once, before anything it sent is acted on. The diagnostic was logged above.
            log::info!("{}: its framing is no longer trusted (limit {CLIENT_MAX_BODY} bytes); closing", self.name);
            self.decoder = decoder;
            self.abort();
            return;
        }
        self.decoder = decoder;
        for r in requests {
            if self.closing {
                break;
            }
            match r {
                Incoming::Request(r) => self.on_request(r, now, host),
                Incoming::Other => {}
                Incoming::Malformed { seq: Some((seq, command)), why } => {
                    log::info!("{}: malformed request {seq}: {why}", self.name);
                    let msg = format!("agentdap mirror: malformed request: {why}");
                    self.error(seq, &command, &msg, false);
                }
                Incoming::Malformed { seq: None, why } => {
                    log::info!("{}: skipped a message that is not a DAP request: {why}", self.name)
                }
            }
        }
    }

    /// The client half-closed its socket (read EOF): nothing more comes; it closes once the
    /// answers to its forwarded requests are written.
    pub fn finish_reading(&mut self) {
        self.read_eof = true;
    }

    fn on_request(&mut self, r: Request, now: Instant, host: &mut dyn Host) {
        let seq = r.seq.get();
        let command = r.command.as_str();
        let joining = matches!((command, self.state), ("initialize" | "attach" | "launch", State::Handshake));
        if joining && host.other_attached_clients() >= MAX_CLIENTS {
            log::info!("{}: refused, the mirror already serves {MAX_CLIENTS} clients", self.name);
            let msg = format!("this session's mirror already serves {MAX_CLIENTS} clients; close one and try again");
            self.error(seq, command, &msg, true);
            self.closing = true;
            return;
        }
        match (command, self.state) {
            ("initialize", _) => {
                let caps = host.capabilities().unwrap_or_default();
                self.respond(seq, command, Some(super::masked_capabilities(&caps, host.mode())));
            }
            ("attach" | "launch", State::Handshake) => {
                let given = r.arguments.as_ref().and_then(|a| a.get("mirrorToken")).and_then(Value::as_str);
                match given {
                    Some(t) if self.token.matches(t) => {
                        log::info!("{}: attached", self.name);
                        self.respond(seq, command, None);
                        self.state = State::Ready { late_join: true };
                        self.auth_deadline = None;
                        self.late_join_at = Some(now + LATE_JOIN_FALLBACK);
                        self.event("initialized", None);
                    }
                    other => {
                        let why = if other.is_some() { "wrong" } else { "missing" };
                        log::info!("{}: {command} refused: {why} mirrorToken", self.name);
                        let msg = format!(
                            "agentdap mirror: {why} `mirrorToken` in the {command} configuration; use the token `expose_session` returned"
                        );
                        self.error(seq, command, &msg, true);
                        self.closing = true;
                    }
                }
            }
            ("attach" | "launch", _) => self.respond(seq, command, None),
            ("disconnect", _) => {
                self.respond(seq, command, None);
                self.closing = true;
            }
            ("cancel", _) => self.respond(seq, command, None),
            (_, State::Handshake) => {
                let msg = "agentdap mirror: attach with the `mirrorToken` first";
                self.error(seq, command, msg, true);
            }
            ("configurationDone", _) => {
                self.respond(seq, command, None);
                self.late_join(host);
            }
            ("setBreakpoints" | "setExceptionBreakpoints" | "setFunctionBreakpoints", _)
                if host.mode() == Mode::Control =>
            {
                // Answered like a forwarded request: it holds a place until the session answers.
                self.in_flight += 1;
                host.set_breakpoints(seq, command, r.arguments);
            }
            ("setBreakpoints" | "setFunctionBreakpoints" | "setDataBreakpoints" | "setInstructionBreakpoints", _) => {
                let args = r.arguments.as_ref();
                let n = args
                    .and_then(|a| a.get("breakpoints").and_then(Value::as_array).map(Vec::len))
                    .or_else(|| args.and_then(|a| a.get("lines")).and_then(Value::as_array).map(Vec::len))
                    .unwrap_or(0);
                let message = match host.mode() {
                    Mode::ReadOnly => "agentdap mirror is read-only: breakpoints belong to the agent's session",
                    Mode::Control => "agentdap mirror does not share data or instruction breakpoints with the agent",
                };
                let one = json!({ "verified": false, "message": message });
                self.respond(seq, command, Some(json!({ "breakpoints": vec![one; n] })));
            }
            ("setExceptionBreakpoints", _) => self.respond(seq, command, None),
            _ => match policy(command, host.mode()) {
                Policy::Forward if self.in_flight + self.queued.len() >= MAX_IN_FLIGHT => {
                    let msg = format!("agentdap mirror: {MAX_IN_FLIGHT} requests already in flight");
                    self.error(seq, command, &msg, false);
                }
                Policy::Forward => {
                    let caps = host.capabilities().unwrap_or_default();
                    if let Some(msg) = forward_refusal(command, r.arguments.as_ref(), &caps) {
                        self.error(seq, command, &msg, false);
                        return;
                    }
                    self.queued.push_back(Queued { seq, command: r.command, arguments: r.arguments });
                    self.send_queued(host);
                }
                Policy::Local | Policy::Reject if CONTROL.contains(&command) => {
                    host.asked_control(command);
                    let msg = format!(
                        "agentdap mirror is read-only: `{command}` is refused (the agent has control; it is told you asked for it)"
                    );
                    self.error(seq, command, &msg, false);
                }
                Policy::Local | Policy::Reject => {
                    let msg = match host.mode() {
                        Mode::ReadOnly => {
                            format!("agentdap mirror is read-only: `{command}` is refused (the agent has control)")
                        }
                        Mode::Control => format!(
                            "agentdap mirror: `{command}` is refused (it would modify the program or the session)"
                        ),
                    };
                    self.error(seq, command, &msg, false);
                }
            },
        }
    }

    /// Sends the late-join `stopped` once, when the session is stopped.
    fn late_join(&mut self, host: &mut dyn Host) {
        self.late_join_at = None;
        if let State::Ready { late_join: true } = self.state {
            self.state = State::Ready { late_join: false };
            if let Some(body) = host.late_join_stop() {
                self.event("stopped", Some(body));
            }
        }
    }

    /// Hands queued requests to the host while fewer than [`MAX_ADAPTER_IN_FLIGHT`] are out and
    /// the agent has nothing at the adapter. The IO shell calls it every loop turn, so what was
    /// held back for the agent goes once the agent's requests are answered.
    pub fn send_queued(&mut self, host: &mut dyn Host) {
        if self.closing || host.agent_waiting() {
            return;
        }
        while self.in_flight < MAX_ADAPTER_IN_FLIGHT {
            let Some(q) = self.queued.pop_front() else { return };
            self.in_flight += 1;
            host.forward(q.seq, &q.command, q.arguments);
        }
    }

    /// Whether requests wait in the mirror for their turn at the adapter.
    pub fn has_queued(&self) -> bool {
        !self.queued.is_empty()
    }

    /// A forwarded request was answered (ids already translated by the session); the next queued
    /// one goes to the host.
    pub fn complete(&mut self, request_seq: i64, response: Response, host: &mut dyn Host) {
        self.answer(request_seq, response, false, host);
    }

    /// A forwarded request was answered, with `held` when it timed out while the adapter still
    /// works on it: then its place stays taken until [`ClientCore::release`].
    pub fn answer(&mut self, request_seq: i64, response: Response, held: bool, host: &mut dyn Host) {
        if !held {
            self.in_flight = self.in_flight.saturating_sub(1);
        }
        self.reply(request_seq, response, host);
    }

    /// The adapter answered (late) a request that had timed out: its place is free.
    pub fn release(&mut self, host: &mut dyn Host) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.closing {
            self.queued.clear();
            return;
        }
        self.send_queued(host);
    }

    fn reply(&mut self, request_seq: i64, response: Response, host: &mut dyn Host) {
        if self.closing {
            // Nobody will read the answers: what is queued is never sent.
            self.queued.clear();
            return;
        }
        self.send_queued(host);
        let command = response.command.clone();
        let r = Response { seq: self.next_seq(), request_seq: Seq::new(request_seq), ..response };
        if self.overflowed {
            return;
        }
        let start = self.out.tail().len();
        self.encode(&Message::Response(r));
        let size = self.out.tail().len().saturating_sub(start);
        if size > MAX_RESPONSE {
            // Too large to pass on: the IDE hears why instead of being disconnected.
            self.out.tail().truncate(start);
            log::info!("{}: answer to {request_seq} is {size} bytes; refused", self.name);
            let msg = format!(
                "value too large for the mirror ({size} bytes, at most {MAX_RESPONSE}); ask for a smaller part of it"
            );
            self.error(request_seq, &command, &msg, false);
            return;
        }
        self.check_overflow();
    }

    /// An event of the session, fanned out (only to attached clients). After `terminated` the
    /// client closes.
    pub fn event(&mut self, event: &str, body: Option<Value>) {
        if self.closing || self.terminated_sent {
            return;
        }
        if event != "initialized" && !matches!(self.state, State::Ready { .. }) {
            return;
        }
        if matches!(event, "stopped" | "continued") {
            // The client sees the session's real state from here on.
            self.late_join_at = None;
            self.state = State::Ready { late_join: false };
        }
        let e = Event { seq: self.next_seq(), event: event.to_owned(), body };
        self.push(&Message::Event(e));
        if event == "terminated" {
            self.terminated_sent = true;
            self.closing = true;
        }
    }

    /// The mirror closes (unexpose, session end): `terminated` once to an attached client, then
    /// the socket closes after its buffer is written.
    pub fn terminate(&mut self) {
        if matches!(self.state, State::Ready { .. }) && !self.terminated_sent {
            self.event("terminated", None);
        }
        self.closing = true;
    }

    /// The socket is gone: nothing more is written; the client is to be dropped.
    pub fn abort(&mut self) {
        self.closing = true;
        self.queued.clear();
        self.out.clear();
    }

    /// The earliest deadline (auth timeout, late-join fallback).
    pub fn next_deadline(&self) -> Option<Instant> {
        match (self.auth_deadline, self.late_join_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Fires the deadlines at or before `now`.
    pub fn on_timer(&mut self, now: Instant, host: &mut dyn Host) {
        if self.auth_deadline.is_some_and(|d| d <= now) {
            self.auth_deadline = None;
            log::info!("{}: no attach in time; closing", self.name);
            self.closing = true;
        }
        if self.late_join_at.is_some_and(|d| d <= now) {
            self.late_join(host);
        }
    }

    /// Bytes to write to the socket.
    pub fn outbound(&self) -> &[u8] {
        self.out.unwritten()
    }

    /// Marks `n` bytes of [`ClientCore::outbound`] as written.
    pub fn consume(&mut self, n: usize) {
        self.out.consume(n);
    }

    /// True once the client should be closed when its buffer is written.
    pub fn closing(&self) -> bool {
        self.closing || (self.read_eof && self.in_flight == 0 && self.queued.is_empty())
    }

    /// True when the client half-closed and waits for answers.
    pub fn reading_done(&self) -> bool {
        self.read_eof
    }

    /// True when the client stopped reading and its buffer went over [`CLIENT_OUT_CAP`].
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    pub fn is_attached(&self) -> bool {
        matches!(self.state, State::Ready { .. })
    }

    fn next_seq(&mut self) -> Seq {
        self.seq += 1;
        Seq::new(self.seq)
    }

    fn respond(&mut self, request_seq: i64, command: &str, body: Option<Value>) {
        let r = Response {
            seq: self.next_seq(),
            request_seq: Seq::new(request_seq),
            success: true,
            command: command.to_owned(),
            message: None,
            body,
        };
        self.push(&Message::Response(r));
    }

    /// An error response; `show_user` says whether the IDE should show it (DAP `Message.showUser`).
    fn error(&mut self, request_seq: i64, command: &str, message: &str, show_user: bool) {
        let r = Response {
            seq: self.next_seq(),
            request_seq: Seq::new(request_seq),
            success: false,
            command: command.to_owned(),
            message: Some(message.to_owned()),
            body: Some(json!({ "error": { "id": 1, "format": message, "showUser": show_user } })),
        };
        self.push(&Message::Response(r));
    }

    fn push(&mut self, msg: &Message) {
        if self.overflowed {
            return;
        }
        self.encode(msg);
        self.check_overflow();
    }

    /// Appends `msg`'s frame to the write buffer (no cap check: see [`ClientCore::check_overflow`]).
    fn encode(&mut self, msg: &Message) {
        // Only appended to: what is already pending stays as it is.
        let out = self.out.tail();
        let start = out.len();
        if let Err(e) = self.encoder.encode_into(msg, out) {
            log::warn!("{}: could not encode a message: {e}", self.name);
            out.truncate(start);
            return;
        }
        log::trace!("{}: -> {}", self.name, log_text(frame_body(&out[start..])));
    }

    /// Past [`CLIENT_OUT_CAP`] pending bytes the client is not reading: it is cut off.
    fn check_overflow(&mut self) {
        if self.out.over_cap() {
            log::info!(
                "{}: not reading its socket ({} bytes pending); disconnecting",
                self.name,
                self.outbound().len()
            );
            self.overflowed = true;
            self.closing = true;
        }
    }
}

/// A forwarded request waiting in the mirror for its turn at the adapter.
struct Queued {
    seq: i64,
    command: String,
    arguments: Option<Value>,
}

/// A decoded frame, sorted.
enum Incoming {
    Request(Request),
    /// A response or event from the client: nothing to do.
    Other,
    /// Not a usable request; `seq` (and the command, when given) when one can be answered.
    Malformed {
        seq: Option<(i64, String)>,
        why: String,
    },
}

fn classify(body: &[u8]) -> Incoming {
    let value = match framing::parse_body(body) {
        Ok(v) => v,
        Err(e) => return Incoming::Malformed { seq: None, why: format!("invalid JSON: {e}") },
    };
    let seq = value.get("seq").and_then(Value::as_i64);
    let command = value.get("command").and_then(Value::as_str).unwrap_or("").to_owned();
    let is_request = value.get("type").and_then(Value::as_str) == Some("request");
    match Message::from_value(value) {
        Ok(parsed) => match parsed.message {
            Message::Request(r) => Incoming::Request(r),
            _ => Incoming::Other,
        },
        Err(e) => Incoming::Malformed { seq: seq.filter(|_| is_request).map(|s| (s, command)), why: e.to_string() },
    }
}

fn frame_body(frame: &[u8]) -> &[u8] {
    frame.windows(4).position(|w| w == b"\r\n\r\n").map_or(frame, |i| &frame[i + 4..])
}

#[cfg(test)]
mod tests;
