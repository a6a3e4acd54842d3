//! One DAP connection, sans-IO: seq, the pending table, routing, timeouts, reverse requests.
//! Bytes and `now: Instant` in; frames (in an outbound buffer) and [`Output`]s out. It never
//! touches a socket, a clock or a process, and it never implements a session's choreography.
//!
//! # Contract with the IO shell
//!
//! - Bytes read from the adapter go to [`DapClient::receive`]; afterwards drain
//!   [`DapClient::poll_output`] until `None` (also after [`DapClient::request`],
//!   [`DapClient::respond`], [`DapClient::on_timer`] and [`DapClient::on_closed`]).
//! - While [`DapClient::outbound`] is non-empty, write it and [`DapClient::consume`] what was
//!   written (or [`DapClient::take_outbound`] it whole).
//! - The poll timeout includes [`DapClient::next_deadline`]; when it passes, call
//!   [`DapClient::on_timer`].
//! - On EOF/error of the adapter's stream, call [`DapClient::on_closed`] with the adapter's
//!   stderr tail: every pending request completes with [`Outcome::Disconnected`].
//! - A frame claiming a body over the cap ends the connection's trust: the client closes itself
//!   in that [`DapClient::receive`] (every pending request completes with
//!   [`Outcome::Disconnected`] naming the claim) and [`DapClient::untrusted`] says why; the IO
//!   shell then stops the adapter.
//!
//! # Driving the start-up choreography (DAP § Overview › Initialization) on top of it
//!
//! The session layer owns the choreography; the client only correlates. A sketch, with the
//! session's own origin type (`Step` names the start-up step a timeout will report):
//!
//! ```text
//! client.send::<Initialize>(InitializeArguments::agentdap("debugpy", false), Origin::Startup(Initialize), now, None)?;
//! // ... for every Output after receive():
//! match out {
//!     // 1. initialize answered: send launch/attach at once and do NOT wait for its response.
//!     Output::Completed { origin: Origin::Startup(Initialize), outcome: Outcome::Success(_), .. } => {
//!         client.send::<Launch>(launch_args, Origin::Startup(Launch), now, None)?;
//!         if client.initialized() { configure(&mut client, now) } // it came early (netcoredbg, Samsung/netcoredbg#161)
//!     }
//!     // 2. `initialized` (whenever it arrives; also before the initialize response, as
//!     //    netcoredbg does, Samsung/netcoredbg#161, or only after launch, as debugpy does,
//!     //    microsoft/debugpy#117): once launch is sent, configure exactly once.
//!     Output::Event(e) if e.event == "initialized" => if launch_sent { configure(&mut client, now) },
//!     // configure = setBreakpoints…, setExceptionBreakpoints, then configurationDone when
//!     // client.capabilities().map_or(false, |c| c.supports_configuration_done_request).
//!     // A failed setBreakpoints does not stop configurationDone (debugpy, microsoft/debugpy#439).
//!     // 3. The launch response may come before or after configurationDone (debugpy,
//!     //    microsoft/debugpy#439; gdb, go-delve/mcp-dap-server#22); an error ends every
//!     //    wait at once with the adapter's words (go-delve/mcp-dap-server#22).
//!     Output::Completed { origin: Origin::Startup(Launch), outcome: Outcome::Error { message, .. }, .. } => fail_start(message),
//!     Output::Completed { outcome: Outcome::Timeout { command, step, .. }, .. } => report_stall(command, step),
//!     Output::StartDebugging { id, request, configuration } => { open_child(request, configuration); client.respond(id, ReverseAnswer::ok(), now)?; }
//!     _ => {}
//! }
//! ```
//!
//! The DAP spec forbids other requests before the initialize *response*, hence step 1.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::io_buf::OutBuf;

use super::framing::{self, Decoder, Encoder};
use super::protocol::{Capabilities, Event, Message, Nonconformances, Request, Response, Seq};
use super::requests::{self, Request as _};

/// Default per-request timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Most requests in flight on one connection (agentdap's own, including `cancel`s). An agent
/// drives one session with a handful at a time; more means a bug or a flood.
pub const MAX_PENDING: usize = 1024;
/// Most abandoned (timed-out or given-up) seqs remembered to recognise late replies; the oldest
/// is forgotten first (its late reply is then reported as already answered — still dropped).
pub const MAX_ABANDONED: usize = 1024;
/// Most reverse requests (`startDebugging`, surfaced `runInTerminal`) waiting for the caller's
/// answer; beyond it a new one is declined at once.
pub const MAX_REVERSE_PENDING: usize = 64;
/// Outbound buffer high-water mark (bytes): above it [`DapClient::request`] refuses new
/// requests. Answers to reverse requests and `cancel`s are still written (small, must not be lost).
pub const OUTBOUND_HIGH_WATER: usize = 16 << 20;

mod types;
pub use types::*;

/// Who waits for a pending request's answer.
enum Owner<O> {
    Caller(O),
    /// agentdap's own `cancel` for an abandoned request: its answer is only logged.
    Cancel,
}

struct Pending<O> {
    command: String,
    owner: Owner<O>,
    /// `None` when `now + timeout` overflows (effectively no timeout).
    deadline: Option<Instant>,
    timeout: Duration,
}

/// One DAP connection's client state machine (DAP § Base Protocol). `O` is the caller's
/// [`Origin`]. See the module documentation for how the IO shell and the session drive it.
pub struct DapClient<O> {
    config: ClientConfig,
    decoder: Decoder,
    encoder: Encoder,
    /// Encoded frames not yet written. Cap: [`OUTBOUND_HIGH_WATER`] (soft: over it, new
    /// requests are refused).
    out: OutBuf,
    /// The last seq agentdap used (0 before the first request).
    last_seq: i64,
    /// Cap: [`MAX_PENDING`].
    pending: BTreeMap<Seq, Pending<O>>,
    /// Oldest first. Cap: [`MAX_ABANDONED`].
    abandoned: VecDeque<Seq>,
    /// Reverse requests surfaced and not yet answered: adapter seq → command.
    /// Cap: [`MAX_REVERSE_PENDING`].
    awaiting: BTreeMap<Seq, String>,
    /// Drained by the caller after every call; grows at most by what one call produced.
    outputs: VecDeque<Output<O>>,
    capabilities: Option<Capabilities>,
    initialized: bool,
    closed: bool,
    /// Set when a frame's claimed length ended trust ([`framing::Diagnostic::ends_trust`]); the
    /// client closed itself then.
    untrusted: Option<framing::Diagnostic>,
    reported: Nonconformances,
    warnings: LogBudget,
}

/// Stream diagnostics logged at `warn` per connection before the rest are summarised.
pub const WARN_FIRST: u32 = 10;
/// After [`WARN_FIRST`], one `warn` summary per this many further diagnostics (each still at `debug`).
pub const WARN_SUMMARY_EVERY: u64 = 10_000;

/// What to do with one diagnostic's log line ([`LogBudget::admit`]).
#[derive(Debug, PartialEq, Eq)]
pub enum LogVerdict {
    /// Log it at `warn`.
    Warn,
    /// Log it at `debug`, and a `warn` summary: this many were held back since the last `warn`.
    Summary(u64),
    /// Log it at `debug` only.
    Quiet,
}

/// Rate limit for one connection's stream diagnostics: a peer sending 300k garbage frames must not
/// write 300k `warn` lines. The first [`WARN_FIRST`] are shown, then one summary per
/// [`WARN_SUMMARY_EVERY`], and one for the remainder when the connection closes.
#[derive(Debug, Default)]
pub struct LogBudget {
    warned: u32,
    held: u64,
}

impl LogBudget {
    pub fn admit(&mut self) -> LogVerdict {
        if self.warned < WARN_FIRST {
            self.warned += 1;
            return LogVerdict::Warn;
        }
        self.held += 1;
        if self.held >= WARN_SUMMARY_EVERY {
            return LogVerdict::Summary(std::mem::take(&mut self.held));
        }
        LogVerdict::Quiet
    }

    /// Diagnostics held back since the last `warn` line (taken: reported once).
    pub fn take_held(&mut self) -> u64 {
        std::mem::take(&mut self.held)
    }
}

impl<O: Origin> DapClient<O> {
    pub fn new(config: ClientConfig) -> DapClient<O> {
        DapClient {
            config,
            decoder: Decoder::new(),
            encoder: Encoder::new(),
            out: OutBuf::with_cap(OUTBOUND_HIGH_WATER),
            last_seq: 0,
            pending: BTreeMap::new(),
            abandoned: VecDeque::new(),
            awaiting: BTreeMap::new(),
            outputs: VecDeque::new(),
            capabilities: None,
            initialized: false,
            closed: false,
            untrusted: None,
            reported: Nonconformances::default(),
            warnings: LogBudget::default(),
        }
    }

    /// Sends a request (DAP § Base Protocol `Request`): appends its frame to the outbound buffer
    /// and records `origin` in the pending table under the returned seq. Its answer comes back as
    /// [`Output::Completed`] with `origin`, after the response, `timeout` (`None`: the configured
    /// default, 30 s), or the connection's end — never twice, never not at all.
    ///
    /// Errors: [`Refused`] (closed, [`MAX_PENDING`], [`OUTBOUND_HIGH_WATER`]) hands `origin` back.
    pub fn request(
        &mut self,
        command: &str,
        arguments: Option<Value>,
        origin: O,
        now: Instant,
        timeout: Option<Duration>,
    ) -> Result<Seq, Refused<O>> {
        let error = if self.closed {
            Some(RequestError::Closed)
        } else if self.pending.len() >= MAX_PENDING {
            Some(RequestError::TooManyPending)
        } else if self.out.over_cap() {
            Some(RequestError::OutboundFull)
        } else {
            None
        };
        if let Some(error) = error {
            return Err(Refused { error, origin });
        }
        let timeout = timeout.unwrap_or(self.config.request_timeout);
        match self.send_request(command, arguments, now) {
            Some(seq) => {
                self.track(seq, command, Owner::Caller(origin), now, timeout);
                Ok(seq)
            }
            None => Err(Refused { error: RequestError::Encode, origin }),
        }
    }

    /// Sends the typed request `R` ([`requests::Request`]): the same frame as
    /// [`DapClient::request`] with `R::COMMAND` and `arguments` serialised (optional fields that
    /// are `None` left out; `()` sends no `arguments` key). Read the answer's body with
    /// `R::parse`.
    ///
    /// Errors: as [`DapClient::request`]; [`RequestError::Encode`] when the arguments do not
    /// serialise.
    pub fn send<R: requests::Request>(
        &mut self,
        arguments: R::Arguments,
        origin: O,
        now: Instant,
        timeout: Option<Duration>,
    ) -> Result<Seq, Refused<O>> {
        match R::arguments(&arguments) {
            Ok(arguments) => self.request(R::COMMAND, arguments, origin, now, timeout),
            Err(e) => {
                log::error!("{}: could not encode `{}` arguments: {e}", self.config.name, R::COMMAND);
                Err(Refused { error: RequestError::Encode, origin })
            }
        }
    }

    /// Gives up on a pending request (e.g. the MCP call was cancelled): no [`Output::Completed`]
    /// will follow, a late reply is dropped, and DAP `cancel` is sent when the adapter supports
    /// it. Returns the origin, or `None` when `seq` is not pending.
    pub fn abandon(&mut self, seq: Seq, now: Instant) -> Option<O> {
        let p = self.pending.remove(&seq)?;
        self.remember_abandoned(seq);
        self.send_cancel(seq, now);
        match p.owner {
            Owner::Caller(o) => Some(o),
            Owner::Cancel => None,
        }
    }

    /// Feeds bytes read from the adapter. Every complete message becomes outputs in wire order;
    /// malformed frames become [`Output::Diagnostic`] and decoding goes on. Ignored once closed.
    pub fn receive(&mut self, bytes: &[u8], now: Instant) {
        if self.closed {
            log::debug!("{}: ignoring {} bytes after close", self.config.name, bytes.len());
            return;
        }
        // Taken out so the callback may borrow `self`; Decoder::default holds no allocation.
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.feed(bytes, |frame| match frame {
            Ok(body) => self.on_frame(body, now),
            Err(d) => {
                if d.ends_trust() {
                    self.untrusted = Some(d);
                }
                self.diagnostic(ClientDiagnostic::Framing(d))
            }
        });
        self.decoder = decoder;
        if let Some(d) = self.untrusted.filter(|_| !self.closed) {
            // Nothing later on this stream can be told apart from the claimed body: no frame is
            // decoded any more (the decoder is finished), so nothing pending can be answered.
            self.close(Some(format!("the adapter {d}")), "");
        }
    }

    /// Why agentdap stopped trusting this connection: a frame claimed a body over the cap
    /// ([`framing::Diagnostic::BodyTooLarge`]) or one a later header showed to be a lie
    /// ([`framing::Diagnostic::HeaderInBody`]). `None` while it is trusted.
    pub fn untrusted(&self) -> Option<framing::Diagnostic> {
        self.untrusted
    }

    /// The next output, in wire order. Drain until `None` after every call that takes `now`.
    pub fn poll_output(&mut self) -> Option<Output<O>> {
        self.outputs.pop_front()
    }

    /// Answers a surfaced reverse request ([`Output::StartDebugging`], [`Output::RunInTerminal`]).
    ///
    /// Errors: [`RespondError::Unknown`] when `id` is not waiting, [`RespondError::Closed`].
    pub fn respond(&mut self, id: ReverseId, answer: ReverseAnswer, now: Instant) -> Result<(), RespondError> {
        if self.closed {
            return Err(RespondError::Closed);
        }
        let command = self.awaiting.remove(&id.0).ok_or(RespondError::Unknown)?;
        let (success, message, body) = match answer {
            ReverseAnswer::Success { body } => (true, None, body.map(Value::Object)),
            ReverseAnswer::Failure { message } => (false, Some(message), None),
        };
        self.send_response(id.0, command, success, message, body, now);
        Ok(())
    }

    /// The earliest pending request's deadline, for the poll timeout.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.pending.values().filter_map(|p| p.deadline).min()
    }

    /// Times out every request whose deadline is at or before `now`: each completes with
    /// [`Outcome::Timeout`] (in seq order), is remembered as abandoned, and gets a DAP `cancel`
    /// when the adapter advertised `supportsCancelRequest`.
    pub fn on_timer(&mut self, now: Instant) {
        let expired: Vec<Seq> =
            self.pending.iter().filter(|(_, p)| p.deadline.is_some_and(|d| d <= now)).map(|(s, _)| *s).collect();
        for seq in expired {
            let Some(p) = self.pending.remove(&seq) else { continue };
            self.remember_abandoned(seq);
            let Owner::Caller(origin) = p.owner else {
                log::debug!("{}: `cancel` (seq {seq}) got no response", self.config.name);
                continue;
            };
            let cancel_sent = self.send_cancel(seq, now);
            let step = origin.step();
            log::warn!(
                "{}: `{}` (seq {seq}) timed out after {} ms{}",
                self.config.name,
                p.command,
                p.timeout.as_millis(),
                if cancel_sent { "; sent cancel" } else { "" }
            );
            let outcome = Outcome::Timeout { command: p.command, step, after: p.timeout, cancel_sent, busy: None };
            self.outputs.push_back(Output::Completed { seq, origin, outcome });
        }
    }

    /// The adapter's stream ended (EOF, error, process exit). Every pending request completes
    /// with [`Outcome::Disconnected`] carrying `stderr_tail` (in seq order); unanswered reverse
    /// requests are forgotten; later calls are refused or ignored. Idempotent.
    pub fn on_closed(&mut self, stderr_tail: &str) {
        self.close(None, stderr_tail);
    }

    /// Closes the connection: by the adapter (`cause` is `None`) or by agentdap, for `cause`.
    fn close(&mut self, cause: Option<String>, stderr_tail: &str) {
        if self.closed {
            return;
        }
        self.closed = true;
        let held = self.warnings.take_held();
        if held > 0 {
            log::warn!("{}: {held} more stream diagnostics like the ones above (logged at debug)", self.config.name);
        }
        if !self.decoder.is_idle() && !self.decoder.is_finished() {
            self.diagnostic(ClientDiagnostic::TruncatedAtClose { buffered: self.decoder.buffered() });
        }
        self.awaiting.clear();
        for (seq, p) in std::mem::take(&mut self.pending) {
            if let Owner::Caller(origin) = p.owner {
                let outcome = Outcome::Disconnected {
                    command: p.command,
                    stderr_tail: stderr_tail.to_owned(),
                    cause: cause.clone(),
                };
                self.outputs.push_back(Output::Completed { seq, origin, outcome });
            }
        }
    }

    /// Encoded bytes waiting to be written to the adapter.
    pub fn outbound(&self) -> &[u8] {
        self.out.unwritten()
    }

    /// Marks the first `n` bytes of [`DapClient::outbound`] as written.
    pub fn consume(&mut self, n: usize) {
        self.out.consume(n);
    }

    /// Takes every pending outbound byte.
    pub fn take_outbound(&mut self) -> Vec<u8> {
        self.out.take()
    }

    /// The adapter's capabilities: from a successful `initialize` response, updated by
    /// `capabilities` events. `None` before the response.
    pub fn capabilities(&self) -> Option<&Capabilities> {
        self.capabilities.as_ref()
    }

    /// True once an `initialized` event arrived — at any time, even before the `initialize`
    /// response (netcoredbg does so: Samsung/netcoredbg#161).
    pub fn initialized(&self) -> bool {
        self.initialized
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Requests in flight (including agentdap's own `cancel`s).
    /// Whether a request whose origin satisfies `f` is pending (sent, not answered or timed out).
    pub fn any_pending(&self, f: impl Fn(&O) -> bool) -> bool {
        self.pending.values().any(|p| matches!(&p.owner, Owner::Caller(o) if f(o)))
    }

    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    fn next_seq(&mut self) -> Seq {
        self.last_seq += 1;
        Seq::new(self.last_seq)
    }

    /// Encodes a request with the next seq; `None` when it could not be encoded.
    fn send_request(&mut self, command: &str, arguments: Option<Value>, now: Instant) -> Option<Seq> {
        let seq = self.next_seq();
        let msg = Request { seq, command: command.to_owned(), arguments };
        self.write(&Message::Request(msg), now).then_some(seq)
    }

    /// Records a sent request in the pending table.
    fn track(&mut self, seq: Seq, command: &str, owner: Owner<O>, now: Instant, timeout: Duration) {
        let deadline = now.checked_add(timeout);
        self.pending.insert(seq, Pending { command: command.to_owned(), owner, deadline, timeout });
    }

    /// Sends DAP `cancel {requestId}` for an abandoned request when the adapter supports it and
    /// the pending table has room. Returns whether it was sent.
    fn send_cancel(&mut self, request_id: Seq, now: Instant) -> bool {
        let supported = self.capabilities.as_ref().is_some_and(|c| c.supports_cancel_request);
        if !supported || self.pending.len() >= MAX_PENDING {
            return false;
        }
        let args = requests::CancelArguments { request_id: Some(request_id.get()), progress_id: None };
        let Ok(args) = requests::Cancel::arguments(&args) else { return false };
        let command = requests::Cancel::COMMAND;
        let Some(seq) = self.send_request(command, args, now) else { return false };
        self.track(seq, command, Owner::Cancel, now, self.config.request_timeout);
        true
    }

    /// Answers a reverse request. Always written, whatever the high-water mark: every reverse
    /// request gets an answer.
    fn send_response(
        &mut self,
        request_seq: Seq,
        command: String,
        success: bool,
        message: Option<String>,
        body: Option<Value>,
        now: Instant,
    ) {
        let seq = self.next_seq();
        let msg = Response { seq, request_seq, success, command, message, body };
        self.write(&Message::Response(msg), now);
    }

    /// Appends one frame to the outbound buffer (and the log). False when it could not be encoded.
    fn write(&mut self, msg: &Message, now: Instant) -> bool {
        // Only appended to: what is already pending stays as it is.
        let out = self.out.tail();
        let start = out.len();
        if let Err(e) = self.encoder.encode_into(msg, out) {
            log::error!("{}: could not encode a message: {e}", self.config.name);
            out.truncate(start);
            return false;
        }
        if self.config.log_messages {
            let frame = &self.out.tail()[start..];
            let body = frame.windows(4).position(|w| w == b"\r\n\r\n").map_or(frame, |i| &frame[i + 4..]);
            let entry = LogEntry { at: now, direction: Direction::ToAdapter, body: body.to_vec() };
            self.outputs.push_back(Output::Log(entry));
        }
        true
    }

    fn remember_abandoned(&mut self, seq: Seq) {
        if self.abandoned.len() >= MAX_ABANDONED {
            self.abandoned.pop_front();
        }
        self.abandoned.push_back(seq);
    }

    fn diagnostic(&mut self, d: ClientDiagnostic) {
        let ends_trust = matches!(d, ClientDiagnostic::Framing(f) if f.ends_trust());
        let verdict = if ends_trust { LogVerdict::Warn } else { self.warnings.admit() };
        match verdict {
            LogVerdict::Warn => log::warn!("{}: {d}", self.config.name),
            LogVerdict::Summary(n) => {
                log::debug!("{}: {d}", self.config.name);
                log::warn!("{}: {n} more stream diagnostics like the ones above (latest: {d})", self.config.name);
            }
            LogVerdict::Quiet => log::debug!("{}: {d}", self.config.name),
        }
        self.outputs.push_back(Output::Diagnostic(d));
    }

    fn on_frame(&mut self, body: &[u8], now: Instant) {
        let value = match framing::parse_body(body) {
            Ok(v) => v,
            Err(d) => {
                // An answer that cannot be read fails its request now, in those words, rather
                // than at its timeout as if the adapter had said nothing.
                if let Some(seq) = framing::unreadable_response_seq(body).map(Seq::new) {
                    if let Some(p) = self.pending.get(&seq).filter(|p| matches!(p.owner, Owner::Caller(_))) {
                        let command = p.command.clone();
                        if let Some(Pending { owner: Owner::Caller(origin), .. }) = self.pending.remove(&seq) {
                            let message = format!("the adapter's answer could not be read: {d}");
                            let response = Response {
                                seq: Seq::new(0),
                                request_seq: seq,
                                success: false,
                                command,
                                message: Some(message.clone()),
                                body: None,
                            };
                            self.outputs.push_back(Output::Completed {
                                seq,
                                origin,
                                outcome: Outcome::Error { message, response },
                            });
                        }
                    }
                }
                if self.config.log_messages {
                    // Logged as what it was: its size and the head of its text (none when it may
                    // hold a token: SECURITY.md), as one JSON object.
                    let head = match mentions_token_or_escape(body) {
                        true => "[it mentions a token: not shown]".to_owned(),
                        false => String::from_utf8_lossy(&body[..body.len().min(1024)]).into_owned(),
                    };
                    let what =
                        serde_json::json!({"agentdap_unreadable": d.to_string(), "bytes": body.len(), "head": head});
                    let entry =
                        LogEntry { at: now, direction: Direction::FromAdapter, body: what.to_string().into_bytes() };
                    self.outputs.push_back(Output::Log(entry));
                }
                return self.diagnostic(ClientDiagnostic::Framing(d));
            }
        };
        if self.config.log_messages {
            let entry = LogEntry { at: now, direction: Direction::FromAdapter, body: body.to_vec() };
            self.outputs.push_back(Output::Log(entry));
        }
        let parsed = match Message::from_value(value) {
            Ok(p) => p,
            Err(e) => return self.diagnostic(ClientDiagnostic::NotDap(e)),
        };
        let fresh = parsed.nonconformances.difference(self.reported);
        self.reported = self.reported.union(fresh);
        for n in fresh.iter() {
            self.diagnostic(ClientDiagnostic::Nonconformant(n));
        }
        match parsed.message {
            Message::Response(r) => self.on_response(r),
            Message::Event(e) => self.on_event(e),
            Message::Request(r) => self.on_reverse_request(r, now),
        }
    }

    fn on_response(&mut self, mut r: Response) {
        let why = match self.pending.get(&r.request_seq) {
            Some(p) if p.command == r.command => None,
            // CodeLLDB 1.11.8 sends every error response with `command: ""` (its
            // `ResponseResult::Error` in `src/codelldb/src/debug_session.rs`): the pending request
            // it answers is the one named by `request_seq`.
            Some(p) if !r.success && r.command.is_empty() => {
                r.command = p.command.clone();
                None
            }
            Some(p) => Some(Unexpected::CommandMismatch { expected: p.command.clone() }),
            None => Some(if let Some(i) = self.abandoned.iter().position(|s| *s == r.request_seq) {
                self.abandoned.remove(i);
                Unexpected::Late
            } else if r.request_seq.get() >= 1 && r.request_seq.get() <= self.last_seq {
                Unexpected::AlreadyAnswered
            } else {
                Unexpected::NeverSent
            }),
        };
        if let Some(why) = why {
            let d = ClientDiagnostic::UnexpectedResponse { request_seq: r.request_seq, command: r.command, why };
            return self.diagnostic(d);
        }
        let Some(p) = self.pending.remove(&r.request_seq) else { return };
        if r.command == "initialize" && r.success {
            let mut caps = Capabilities::from_body(r.body.as_ref());
            // A `capabilities` event that came first is an update on top of the response.
            if let Some(early) = self.capabilities.take() {
                caps.merge(&early.raw);
            }
            self.capabilities = Some(caps);
        }
        let seq = r.request_seq;
        let origin = match p.owner {
            Owner::Caller(o) => o,
            Owner::Cancel => {
                log::debug!("{}: `cancel` (seq {seq}) answered success={}", self.config.name, r.success);
                return;
            }
        };
        let outcome = if r.success {
            Outcome::Success(r)
        } else {
            let message = r.error_text();
            log::debug!("{}: `{}` (seq {seq}) failed: {message}", self.config.name, r.command);
            Outcome::Error { message, response: r }
        };
        self.outputs.push_back(Output::Completed { seq, origin, outcome });
    }

    fn on_event(&mut self, e: Event) {
        match e.event.as_str() {
            "initialized" => self.initialized = true,
            "capabilities" => {
                if let Some(update) = e.body.as_ref().and_then(|b| b.get("capabilities")).and_then(Value::as_object) {
                    self.capabilities.get_or_insert_with(Capabilities::default).merge(update);
                }
            }
            _ => {}
        }
        self.outputs.push_back(Output::Event(e));
    }

    /// Every reverse request is answered: here at once, or by the caller via `respond`.
    fn on_reverse_request(&mut self, r: Request, now: Instant) {
        let Request { seq, command, arguments } = r;
        let id = ReverseId(seq);
        let refusal = if self.awaiting.len() >= MAX_REVERSE_PENDING {
            Some(format!("too many unanswered reverse requests ({MAX_REVERSE_PENDING})"))
        } else {
            match command.as_str() {
                "runInTerminal" if self.config.run_in_terminal == RunInTerminalPolicy::Decline => {
                    Some("runInTerminal is not supported by this client".to_owned())
                }
                "runInTerminal" => {
                    let arguments = arguments.unwrap_or_else(|| Value::Object(Map::new()));
                    self.outputs.push_back(Output::RunInTerminal { id, arguments });
                    None
                }
                "startDebugging" => match start_debugging_arguments(arguments) {
                    Some((request, configuration)) => {
                        self.outputs.push_back(Output::StartDebugging { id, request, configuration });
                        None
                    }
                    None => Some(
                        "startDebugging needs arguments.request (launch or attach) and an object arguments.configuration"
                            .to_owned(),
                    ),
                },
                other => Some(format!("{other} is not supported by this client")),
            }
        };
        match refusal {
            Some(message) => {
                log::info!("{}: declined reverse request `{command}`: {message}", self.config.name);
                self.send_response(seq, command, false, Some(message), None, now);
            }
            None => {
                self.awaiting.insert(seq, command);
            }
        }
    }
}

/// Splits `startDebugging` arguments into (`request`, `configuration`) when well-formed.
fn start_debugging_arguments(arguments: Option<Value>) -> Option<(String, Value)> {
    let Some(Value::Object(mut args)) = arguments else { return None };
    let configuration = args.remove("configuration").filter(Value::is_object)?;
    match args.remove("request") {
        Some(Value::String(request)) => Some((request, configuration)),
        _ => None,
    }
}

/// The DAP log's text for one message body, with the value (of any type) of every `mirrorToken`
/// or `token` key (at any depth, any case, compared after JSON unescaping) replaced by
/// `"[redacted]"` (a mirror token is an execution capability: SECURITY.md). The only place DAP log
/// text is made; the mirror's own trace lines use it too. Bodies without such a key are returned
/// as they are, byte for byte; one that may hold one but is not JSON is replaced whole.
pub fn log_text(body: &[u8]) -> String {
    // A key can spell `token` with JSON escapes (`mirror\u0054oken`): any escape means parsing.
    let mentions = mentions_token_or_escape(body);
    if !mentions {
        return as_text(body);
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(mut v) => {
            if !redact(&mut v, 0) {
                // Nothing was redacted: the bytes as they came (escapes and all).
                return as_text(body);
            }
            serde_json::to_string(&v).unwrap_or_else(|_| REDACTED_MESSAGE.to_owned())
        }
        // Not JSON: it cannot be shown safely.
        Err(_) => REDACTED_MESSAGE.to_owned(),
    }
}

/// `body` as text on one line: valid UTF-8 (every message a conforming adapter sends) copied
/// through `str::from_utf8`'s word-at-a-time check, anything else lossily; a line break, which in
/// JSON can only be whitespace between tokens (an adapter that pretty-prints), becomes a space,
/// so each message is one line of the NDJSON log.
fn as_text(body: &[u8]) -> String {
    let text = match std::str::from_utf8(body) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    };
    if text.bytes().any(|b| b == b'\n' || b == b'\r') {
        return text.replace(['\n', '\r'], " ");
    }
    text
}

/// Whether `body` holds `token` (ASCII case ignored) or a `\u` escape: one pass over the bytes,
/// which every DAP message logged takes (an output flood is mostly this). It stops only at `\`
/// and `k`/`K`, far rarer in DAP messages than the `t` that starts `token`.
fn mentions_token_or_escape(body: &[u8]) -> bool {
    let mut from = 0;
    while let Some(i) = body[from..].iter().position(|&b| b == b'\\' || b | 0x20 == b'k') {
        let at = from + i;
        let hit = if body[at] == b'\\' {
            body.get(at + 1) == Some(&b'u')
        } else {
            at >= 2 && body.get(at - 2..at + 3).is_some_and(|word| word.eq_ignore_ascii_case(b"token"))
        };
        if hit {
            return true;
        }
        from = at + 1;
    }
    false
}

/// Redacts `value` in place as [`log_text`] does: the value of every `token`/`mirrorToken` key
/// (any depth, ASCII case ignored) becomes `"[redacted]"`. True when anything was replaced. The
/// ledger's records go through it too (SECURITY.md, § The ledger and DAP log files).
pub fn redact_value(value: &mut Value) -> bool {
    redact(value, 0)
}

/// What stands for a message that mentions a token but cannot be parsed.
const REDACTED_MESSAGE: &str = "\"[unparsable message that mentions a token: redacted]\"";
/// Nesting followed by [`redact`]; deeper values are cut (JSON from serde is capped at 128).
const REDACT_DEPTH: usize = 128;

/// Replaces every value (of any type) under a `token`/`mirrorToken` key (compared after JSON
/// unescaping, ASCII case-insensitive) by `[redacted]`; true when anything was replaced.
fn redact(v: &mut Value, depth: usize) -> bool {
    if depth > REDACT_DEPTH {
        *v = Value::String("[redacted: too deep]".into());
        return true;
    }
    let mut any = false;
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k.eq_ignore_ascii_case("token") || k.eq_ignore_ascii_case("mirrorToken") {
                    *child = Value::String("[redacted]".into());
                    any = true;
                } else {
                    any |= redact(child, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for c in items {
                any |= redact(c, depth + 1);
            }
        }
        _ => {}
    }
    any
}

#[cfg(test)]
mod tests;
