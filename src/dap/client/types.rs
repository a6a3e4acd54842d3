//! The DAP client's vocabulary: what callers implement ([`Origin`]), configure
//! ([`ClientConfig`]), and get back ([`Output`], [`Outcome`], diagnostics, errors). No logic
//! beyond formatting lives here.

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::{DEFAULT_REQUEST_TIMEOUT, MAX_PENDING, OUTBOUND_HIGH_WATER};
use crate::dap::framing;
use crate::dap::protocol::{Event, MessageError, Nonconformance, Response, Seq};
use crate::dap::requests;

/// What a pending request's answer goes back to; defined by the caller (an MCP tool call, a
/// start-up step, a mirror client, internal bookkeeping).
pub trait Origin {
    /// The start-up step this request is, for naming a stall in [`Outcome::Timeout`].
    fn step(&self) -> Option<&'static str> {
        None
    }
}

/// What the client does with a `runInTerminal` reverse request (DAP § Reverse Requests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunInTerminalPolicy {
    /// Answer `success: false`, "runInTerminal is not supported by this client" (codelldb sends it even
    /// when told it is unsupported, vadimcn/codelldb#722).
    Decline,
    /// Surface it as [`Output::RunInTerminal`]; the caller answers with [`DapClient::respond`].
    Surface,
}

/// Per-connection settings.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Prefix for log lines, e.g. `"s1 debugpy"`.
    pub name: String,
    /// Timeout for requests sent with `timeout: None`.
    pub request_timeout: Duration,
    pub run_in_terminal: RunInTerminalPolicy,
    /// Emit [`Output::Log`] for every message in both directions (the DAP log, `--dap-log`).
    pub log_messages: bool,
}

impl ClientConfig {
    /// Defaults: 30 s timeout, runInTerminal declined, message log on.
    pub fn new(name: impl Into<String>) -> ClientConfig {
        ClientConfig {
            name: name.into(),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            run_in_terminal: RunInTerminalPolicy::Decline,
            log_messages: true,
        }
    }
}

/// Identifies a reverse request waiting for the caller's answer: the adapter's `seq`, kept apart
/// from agentdap's own [`Seq`]s so the two cannot be mixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReverseId(pub(super) Seq);

impl ReverseId {
    /// The adapter's `seq` of the reverse request (the `request_seq` of agentdap's answer).
    pub fn seq(self) -> Seq {
        self.0
    }
}

/// The caller's answer to a surfaced reverse request.
#[derive(Clone, Debug, PartialEq)]
pub enum ReverseAnswer {
    /// `success: true`, with `body` when given (an object, as the spec requires).
    Success { body: Option<Map<String, Value>> },
    /// `success: false` with `message`.
    Failure { message: String },
}

impl ReverseAnswer {
    /// `success: true` without a body (what `startDebugging` expects: DAP § Reverse Requests ›
    /// StartDebugging has no response body).
    pub fn ok() -> ReverseAnswer {
        ReverseAnswer::Success { body: None }
    }

    /// `success: true` with `R`'s typed response body ([`requests::ReverseRequest`]): no body
    /// when it serialises to nothing (`()`, what `startDebugging` answers), else the object
    /// (`{"processId": …}` for `runInTerminal`).
    pub fn success<R: requests::ReverseRequest>(body: &R::Response) -> ReverseAnswer {
        match serde_json::to_value(body) {
            Ok(Value::Object(map)) => ReverseAnswer::Success { body: Some(map) },
            // `()` is `null`; the response types here are structs, which serialise to objects.
            Ok(_) | Err(_) => ReverseAnswer::ok(),
        }
    }
}

/// How one of agentdap's requests ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `success: true`; the body is in the response.
    Success(Response),
    /// `success: false`; `message` is the adapter's own words ([`Response::error_text`]).
    Error { message: String, response: Response },
    /// No response within `after`; the request is abandoned (a late reply is dropped).
    /// `cancel_sent` says whether DAP `cancel` went out (only when the adapter supports it).
    /// `busy` is set by the session when it knows what else held the adapter (a mirror client's
    /// request sent earlier and still unanswered); the client itself leaves it `None`.
    Timeout { command: String, step: Option<&'static str>, after: Duration, cancel_sent: bool, busy: Option<String> },
    /// The connection closed first; `stderr_tail` is what the adapter last wrote to stderr.
    ///
    /// `cause` is set when agentdap closed the connection itself (a frame over the size cap),
    /// naming why; `None` when the adapter's stream ended.
    Disconnected { command: String, stderr_tail: String, cause: Option<String> },
}

impl Outcome {
    /// The tool result's error code for a failure (`reply::ErrorCode`) (`adapter_error`, `timeout`, `disconnected`).
    pub fn error_code(&self) -> Option<&'static str> {
        match self {
            Outcome::Success(_) => None,
            Outcome::Error { .. } => Some("adapter_error"),
            Outcome::Timeout { .. } => Some("timeout"),
            Outcome::Disconnected { .. } => Some("disconnected"),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Success(r) => write!(f, "`{}` succeeded", r.command),
            Outcome::Error { message, response } => write!(f, "`{}` failed: {message}", response.command),
            Outcome::Timeout { command, step, after, cancel_sent, busy } => {
                write!(f, "`{command}` got no response within {} ms", after.as_millis())?;
                if let Some(step) = step {
                    write!(f, " (start-up step: {step})")?;
                }
                if let Some(busy) = busy {
                    write!(f, "; {busy}")?;
                }
                if *cancel_sent {
                    f.write_str("; sent cancel")?;
                }
                Ok(())
            }
            Outcome::Disconnected { command, cause: Some(cause), .. } => {
                write!(f, "agentdap closed the connection while `{command}` was pending: {cause}")
            }
            Outcome::Disconnected { command, stderr_tail, cause: None } if stderr_tail.is_empty() => {
                write!(f, "the adapter closed the connection while `{command}` was pending")
            }
            Outcome::Disconnected { command, stderr_tail, cause: None } => write!(
                f,
                "the adapter closed the connection while `{command}` was pending; its stderr ended with: {stderr_tail}"
            ),
        }
    }
}

/// Why a response matched nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unexpected {
    /// A reply to a request agentdap abandoned (timeout, cancel).
    Late,
    /// A second reply to a request already answered.
    AlreadyAnswered,
    /// A `request_seq` agentdap never sent.
    NeverSent,
    /// The `request_seq` is pending but for another command; the pending entry keeps waiting.
    CommandMismatch { expected: String },
}

/// Something wrong in what the adapter sent; the connection carries on.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientDiagnostic {
    /// Bytes the framing layer skipped, a body over the cap, or a body that is not JSON.
    Framing(framing::Diagnostic),
    /// JSON that is not a DAP message.
    NotDap(MessageError),
    /// A tolerated deviation; reported once per kind per connection.
    Nonconformant(Nonconformance),
    /// A response that was dropped.
    UnexpectedResponse { request_seq: Seq, command: String, why: Unexpected },
    /// The stream ended in the middle of a frame (`buffered` bytes lost).
    TruncatedAtClose { buffered: usize },
}

impl fmt::Display for ClientDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientDiagnostic::Framing(d) => d.fmt(f),
            ClientDiagnostic::NotDap(e) => write!(f, "skipped {e}"),
            ClientDiagnostic::Nonconformant(n) => write!(f, "non-conformant adapter: {n}"),
            ClientDiagnostic::UnexpectedResponse { request_seq, command, why } => {
                write!(f, "dropped a response to `{command}` (request_seq {request_seq}): ")?;
                match why {
                    Unexpected::Late => f.write_str("it came after the request was abandoned"),
                    Unexpected::AlreadyAnswered => f.write_str("that request was already answered"),
                    Unexpected::NeverSent => f.write_str("no request with that seq was sent"),
                    Unexpected::CommandMismatch { expected } => {
                        write!(f, "that seq is a pending `{expected}` request")
                    }
                }
            }
            ClientDiagnostic::TruncatedAtClose { buffered } => {
                write!(f, "the stream ended inside a message ({buffered} bytes lost)")
            }
        }
    }
}

/// Direction of a logged message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    ToAdapter,
    FromAdapter,
}

/// One DAP message for the DAP log (`--dap-log`, the `dap_log` of `sessions`): when, which way, and
/// its bytes as they crossed. They become log text ([`LogEntry::text`]: the mirror token
/// redacted) only when the log is read or written, after the turn's answers went out, so a
/// round trip does not pay for it (`scripts/callgrind-roundtrip`). Its `Debug` form shows that
/// text too, never the bytes (which may hold a mirror token: SECURITY.md).
#[derive(Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub at: Instant,
    pub direction: Direction,
    pub body: Vec<u8>,
}

impl LogEntry {
    /// The message as the DAP log shows it ([`super::log_text`]).
    pub fn text(&self) -> String {
        super::log_text(&self.body)
    }
}

impl std::fmt::Debug for LogEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogEntry")
            .field("at", &self.at)
            .field("direction", &self.direction)
            .field("text", &self.text())
            .finish()
    }
}

/// What the client hands back, in wire order.
#[derive(Debug)]
pub enum Output<O> {
    /// A DAP event. `initialized` also sets [`DapClient::initialized`]; `capabilities` also
    /// updates [`DapClient::capabilities`].
    Event(Event),
    /// One of agentdap's requests ended; `origin` is what it was sent with.
    Completed { seq: Seq, origin: O, outcome: Outcome },
    /// The adapter asks for a child session (DAP § Reverse Requests StartDebugging);
    /// `request` is `launch` or `attach`. Answer with [`DapClient::respond`].
    StartDebugging { id: ReverseId, request: String, configuration: Value },
    /// `runInTerminal` under [`RunInTerminalPolicy::Surface`]; `arguments` untouched. Answer
    /// with [`DapClient::respond`] (`body: {"processId": …}` on success).
    RunInTerminal { id: ReverseId, arguments: Value },
    /// Something the adapter sent was wrong and dropped; also logged.
    Diagnostic(ClientDiagnostic),
    /// A message in either direction (only with [`ClientConfig::log_messages`]).
    Log(LogEntry),
}

/// Why [`DapClient::request`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestError {
    /// The connection is closed.
    Closed,
    /// [`MAX_PENDING`] requests are already in flight.
    TooManyPending,
    /// The outbound buffer is over [`OUTBOUND_HIGH_WATER`]: the adapter is not reading.
    OutboundFull,
    /// The arguments could not be serialised.
    Encode,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Closed => f.write_str("the adapter connection is closed"),
            RequestError::TooManyPending => write!(f, "{MAX_PENDING} requests are already waiting for the adapter"),
            RequestError::OutboundFull => {
                write!(f, "the adapter is not reading its input ({OUTBOUND_HIGH_WATER} bytes queued)")
            }
            RequestError::Encode => f.write_str("the request could not be encoded"),
        }
    }
}

/// A refused request, with its origin handed back.
#[derive(Debug)]
pub struct Refused<O> {
    pub error: RequestError,
    pub origin: O,
}

/// Why [`DapClient::respond`] failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RespondError {
    /// No reverse request with that id is waiting (already answered, or never surfaced).
    Unknown,
    /// The connection is closed.
    Closed,
}

impl fmt::Display for RespondError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RespondError::Unknown => "no such reverse request is waiting for an answer",
            RespondError::Closed => "the adapter connection is closed",
        })
    }
}
