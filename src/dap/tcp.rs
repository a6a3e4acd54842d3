//! The TCP transport's sans-IO parts: finding an adapter's port in its output ([`PortScanner`]), choosing one ([`choose_port`]), and the non-blocking connect state machine ([`Connector`]) that the event loop drives with readiness, timers and `now`; no sleeping, no blocking.
//!
//! How the IO shell (`src/server/streams.rs`) drives a [`Connector`]:
//!
//! 1. Spawn the adapter (`spawn_adapter`), register its stdout/stderr READABLE, create the
//!    connector with [`Connector::awaiting_port`] (announced port) or [`Connector::new`]
//!    (a port agentdap chose), and put [`Connector::next_deadline`] in the timer queue.
//! 2. Feed the adapter's stdout and stderr to one [`PortScanner`] each; on a match call
//!    [`Connector::port_known`]. Bytes after the announcing line are adapter output as usual.
//! 3. Whenever a call returns [`Step::Connect`]: `mio::net::TcpStream::connect(addr)`, register
//!    it WRITABLE, and report the outcome with [`Connector::connect_started`] (an immediate
//!    error such as `ECONNREFUSED` is reported there, the stream dropped).
//! 4. On WRITABLE for that stream: call [`Connector::on_writable`] with `stream.take_error()` and
//!    `stream.peer_addr()`. [`Step::Connected`]: switch the stream to DAP (READABLE, WRITABLE
//!    while output is pending). [`Step::Retry`]: deregister and drop the stream; a refused
//!    connect is retried after a backoff. A spurious wake-up (`peer_addr` → `NotConnected`, no
//!    error) returns [`Step::Wait`].
//! 5. On the timer: [`Connector::on_timer`] (a backoff elapsed → [`Step::Connect`]; the deadline
//!    passed → [`Step::Failed`]).
//! 6. On the adapter's exit (SIGCHLD reaping) before [`Step::Connected`]:
//!    [`Connector::adapter_exited`] with its status and stderr tail → [`Step::Failed`].

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

/// Longest line a [`PortScanner`] holds; the rest of a longer line is skipped (bytes).
pub const LINE_CAP: usize = 4096;

/// Most lines a [`PortScanner`] examines before giving up (an adapter that floods its output
/// without announcing a port is not waited for by parsing forever).
pub const SCAN_LINE_CAP: usize = 10_000;

/// Finds `<prefix><host>:<port>` in an adapter's output, line by line, across chunk
/// boundaries, holding at most [`LINE_CAP`] bytes. `host` is an IPv4 literal, a bracketed IPv6
/// literal or `localhost` (never resolved: no DNS on the loop).
#[derive(Clone, Debug)]
pub struct PortScanner {
    prefix: &'static str,
    line: Vec<u8>,
    /// The current line overflowed: skip to its end.
    skipping: bool,
    lines: usize,
}

/// What [`PortScanner::feed`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// Not yet; everything fed was consumed.
    Pending,
    /// The announcement: the address, and how many bytes of *this* chunk belong to the lines
    /// up to and including the announcing line (the rest is ordinary output).
    Found {
        /// The announced address.
        addr: SocketAddr,
        /// Bytes of the chunk consumed.
        consumed: usize,
    },
    /// [`SCAN_LINE_CAP`] lines passed without an announcement.
    GaveUp,
}

impl PortScanner {
    /// A scanner for lines containing `prefix` (Delve: `DAP server listening at: `).
    pub fn new(prefix: &'static str) -> PortScanner {
        PortScanner { prefix, line: Vec::new(), skipping: false, lines: 0 }
    }

    /// Feeds one chunk as read from the pipe. Once it returned [`Scan::Found`] or
    /// [`Scan::GaveUp`], stop feeding it.
    pub fn feed(&mut self, chunk: &[u8]) -> Scan {
        let mut start = 0;
        while start < chunk.len() {
            let newline = chunk[start..].iter().position(|&b| b == b'\n');
            let end = newline.map_or(chunk.len(), |i| start + i);
            if !self.skipping {
                let room = LINE_CAP - self.line.len();
                let piece = &chunk[start..end];
                if piece.len() > room {
                    self.skipping = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(piece);
                }
            }
            let Some(_) = newline else { return Scan::Pending };
            start = end + 1;
            let line = std::mem::take(&mut self.line);
            let overflowed = std::mem::replace(&mut self.skipping, false);
            if !overflowed {
                if let Some(addr) = parse_announcement(self.prefix, &line) {
                    return Scan::Found { addr, consumed: start };
                }
            }
            self.lines += 1;
            if self.lines >= SCAN_LINE_CAP {
                return Scan::GaveUp;
            }
        }
        Scan::Pending
    }
}

/// `<anything><prefix><host>:<port><anything>` in one line (a trailing `\r` is fine). `None`
/// when the prefix is absent or the address does not parse; port 0 is refused.
pub fn parse_announcement(prefix: &str, line: &[u8]) -> Option<SocketAddr> {
    let text = std::str::from_utf8(line).ok()?;
    let rest = &text[text.find(prefix)? + prefix.len()..];
    let token = rest.split(|c: char| c.is_whitespace()).next()?;
    parse_host_port(token)
}

/// `127.0.0.1:4711`, `[::1]:4711`, `localhost:4711` → an address (`localhost` is 127.0.0.1).
pub fn parse_host_port(token: &str) -> Option<SocketAddr> {
    let (host, port) = token.rsplit_once(':')?;
    if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let port: u16 = port.parse().ok().filter(|&p| p != 0)?;
    let ip: IpAddr = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        IpAddr::V6(v6.parse().ok()?)
    } else {
        IpAddr::V4(host.parse().ok()?)
    };
    Some(SocketAddr::new(ip, port))
}

/// Picks a free port on 127.0.0.1 for an adapter that takes `--port` (codelldb ≥ 1.7.0 takes `--port` and no longer
/// announces one it picked, simrat39/rust-tools.nvim#157):
/// binds `127.0.0.1:0`, reads the port the kernel gave, closes the socket.
///
/// The race: between this close and the adapter's own bind, another local process could take
/// the port. It is accepted because the window is one fork/exec long, Linux hands out
/// ephemeral ports in sequence rather than reusing the one just freed, and losing the race is
/// loud, not silent: the adapter fails to bind and exits (reported with its stderr through
/// [`Connector::adapter_exited`]) or the connect reaches a stranger that does not answer
/// `initialize` (a request timeout). Adapters that can connect out instead (`dlv dap
/// --client-addr`, `codelldb --connect`) avoid the race entirely; that mode is future work.
///
/// Errors: the `bind`/`local_addr` error.
pub fn choose_port() -> io::Result<u16> {
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

/// First retry delay after a refused connect (doubles up to [`MAX_BACKOFF`]).
pub const FIRST_BACKOFF: Duration = Duration::from_millis(10);

/// Longest retry delay. Short: a refused connect to loopback costs microseconds, and every
/// millisecond past the moment the server listens is the launch's (js-debug's node starts in
/// ~300 ms; with 250 ms the roundtrip bench's js-debug launch came ~450 ms after the raw client's).
pub const MAX_BACKOFF: Duration = Duration::from_millis(20);

/// Longest a single connect attempt may stay in progress before it is abandoned and retried
/// (a listener with a full backlog leaves a SYN unanswered).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);

/// Why a connect gave up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectError {
    /// The deadline passed. `port_known` says whether the port was ever announced.
    TimedOut {
        /// Whether the announcement was seen.
        port_known: bool,
        /// Connect attempts made.
        attempts: u32,
        /// The last connect error, if any (`Connection refused`).
        last_error: Option<String>,
    },
    /// The adapter exited before a connection was made.
    AdapterExited {
        /// Its exit, as the loop describes it (`exit status 1`, `signal 9`).
        status: String,
        /// The tail of its stderr (the reason, usually).
        stderr: String,
    },
    /// A connect error that retrying cannot fix (`EACCES`, `ENETUNREACH`, …).
    Fatal {
        /// The OS error text.
        message: String,
    },
    /// The adapter's output ended its announcement scan without a port ([`Scan::GaveUp`]).
    NoAnnouncement,
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::TimedOut { port_known: false, .. } => {
                write!(f, "the adapter did not announce its port in time")
            }
            ConnectError::TimedOut { attempts, last_error, .. } => {
                write!(f, "could not connect to the adapter after {attempts} attempts")?;
                match last_error {
                    Some(e) => write!(f, " (last error: {e})"),
                    None => Ok(()),
                }
            }
            ConnectError::AdapterExited { status, stderr } if stderr.trim().is_empty() => {
                write!(f, "the adapter exited ({status}) before accepting a connection")
            }
            ConnectError::AdapterExited { status, stderr } => {
                write!(f, "the adapter exited ({status}) before accepting a connection: {}", stderr.trim())
            }
            ConnectError::Fatal { message } => write!(f, "cannot connect to the adapter: {message}"),
            ConnectError::NoAnnouncement => write!(f, "the adapter's output never announced a port"),
        }
    }
}

impl std::error::Error for ConnectError {}

/// What the IO shell must do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing now: wait for WRITABLE, output, the adapter's exit, or
    /// [`Connector::next_deadline`].
    Wait,
    /// Start a non-blocking connect to this address and report it with
    /// [`Connector::connect_started`].
    Connect(SocketAddr),
    /// Drop (deregister) the current stream; a new [`Step::Connect`] comes from
    /// [`Connector::on_timer`] after the backoff.
    Retry,
    /// The stream is connected: hand it to the DAP connection.
    Connected(SocketAddr),
    /// Give up (drop any stream); the session reports this error.
    Failed(ConnectError),
}

/// The connector's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectState {
    /// Waiting for the adapter to announce its port.
    AwaitingPort,
    /// Between attempts, until `until`.
    Backoff {
        /// When to connect again.
        until: Instant,
    },
    /// A connect is in progress (the shell holds a stream registered WRITABLE).
    Connecting {
        /// When this attempt is abandoned.
        attempt_deadline: Instant,
    },
    /// Done: connected.
    Connected,
    /// Done: failed.
    Failed,
}

/// The non-blocking connect to a TCP adapter, retried on a timer until a deadline. Sans-IO:
/// every input carries `now`; the shell performs the [`Step`]s.
#[derive(Clone, Debug)]
pub struct Connector {
    addr: Option<SocketAddr>,
    deadline: Instant,
    state: ConnectState,
    attempts: u32,
    backoff: Duration,
    last_error: Option<String>,
}

impl Connector {
    /// The address being connected to, once known.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.addr
    }

    /// A connector for a known address (a port agentdap chose): the first step is
    /// [`Step::Connect`] from [`Connector::start`]. Gives up at `now + timeout`.
    pub fn new(addr: SocketAddr, now: Instant, timeout: Duration) -> Connector {
        Connector {
            addr: Some(addr),
            deadline: now + timeout,
            state: ConnectState::Backoff { until: now },
            attempts: 0,
            backoff: FIRST_BACKOFF,
            last_error: None,
        }
    }

    /// A connector waiting for [`Connector::port_known`]; the deadline covers the
    /// announcement and the connect together.
    pub fn awaiting_port(now: Instant, timeout: Duration) -> Connector {
        Connector {
            addr: None,
            deadline: now + timeout,
            state: ConnectState::AwaitingPort,
            attempts: 0,
            backoff: FIRST_BACKOFF,
            last_error: None,
        }
    }

    /// The current state.
    pub fn state(&self) -> &ConnectState {
        &self.state
    }

    /// Connect attempts started so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The first step for a connector made with [`Connector::new`] (the same as
    /// [`Connector::on_timer`] at `now`).
    pub fn start(&mut self, now: Instant) -> Step {
        self.on_timer(now)
    }

    /// When [`Connector::on_timer`] must be called next: the backoff's end, the attempt's
    /// deadline or the overall deadline, whichever is first. `None` once finished.
    pub fn next_deadline(&self) -> Option<Instant> {
        match self.state {
            ConnectState::AwaitingPort => Some(self.deadline),
            ConnectState::Backoff { until } => Some(until.min(self.deadline)),
            ConnectState::Connecting { attempt_deadline } => Some(attempt_deadline.min(self.deadline)),
            ConnectState::Connected | ConnectState::Failed => None,
        }
    }

    /// The port was announced: connect now.
    pub fn port_known(&mut self, addr: SocketAddr, now: Instant) -> Step {
        if self.state != ConnectState::AwaitingPort {
            return Step::Wait;
        }
        self.addr = Some(addr);
        self.state = ConnectState::Backoff { until: now };
        self.on_timer(now)
    }

    /// The announcement scan gave up ([`Scan::GaveUp`]).
    pub fn no_announcement(&mut self) -> Step {
        if self.state != ConnectState::AwaitingPort {
            return Step::Wait;
        }
        self.fail(ConnectError::NoAnnouncement)
    }

    /// A timer fired (or any time: it is idempotent before a deadline).
    pub fn on_timer(&mut self, now: Instant) -> Step {
        match self.state.clone() {
            ConnectState::Connected | ConnectState::Failed => Step::Wait,
            _ if now >= self.deadline => {
                let port_known = self.addr.is_some();
                let (attempts, last_error) = (self.attempts, self.last_error.clone());
                self.fail(ConnectError::TimedOut { port_known, attempts, last_error })
            }
            ConnectState::AwaitingPort => Step::Wait,
            ConnectState::Backoff { until } if now >= until => match self.addr {
                Some(addr) => {
                    self.attempts += 1;
                    self.state = ConnectState::Connecting { attempt_deadline: now + ATTEMPT_TIMEOUT };
                    Step::Connect(addr)
                }
                None => Step::Wait,
            },
            ConnectState::Backoff { .. } => Step::Wait,
            ConnectState::Connecting { attempt_deadline } if now >= attempt_deadline => {
                self.last_error = Some("connect timed out".to_string());
                self.back_off(now)
            }
            ConnectState::Connecting { .. } => Step::Wait,
        }
    }

    /// The result of `TcpStream::connect` (mio returns `Ok` while the connect is in progress).
    pub fn connect_started(&mut self, now: Instant, result: io::Result<()>) -> Step {
        if !matches!(self.state, ConnectState::Connecting { .. }) {
            return Step::Wait;
        }
        match result {
            Ok(()) => Step::Wait,
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => Step::Wait,
            Err(e) => self.on_error(now, &e),
        }
    }

    /// The stream became WRITABLE: `take_error` is `stream.take_error()`, `peer` is
    /// `stream.peer_addr()` (call both, in that order).
    pub fn on_writable(
        &mut self,
        now: Instant,
        take_error: io::Result<Option<io::Error>>,
        peer: io::Result<SocketAddr>,
    ) -> Step {
        if !matches!(self.state, ConnectState::Connecting { .. }) {
            return Step::Wait;
        }
        match take_error {
            Ok(Some(e)) | Err(e) => return self.on_error(now, &e),
            Ok(None) => {}
        }
        match peer {
            Ok(addr) => {
                self.state = ConnectState::Connected;
                Step::Connected(addr)
            }
            // Not connected yet and no error: a spurious wake-up.
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Step::Wait,
            Err(e) => self.on_error(now, &e),
        }
    }

    /// The adapter exited before a connection was made; `status` describes the exit and
    /// `stderr` is its stderr tail. After [`Step::Connected`] this is the DAP layer's concern
    /// and returns [`Step::Wait`].
    pub fn adapter_exited(&mut self, status: &str, stderr: &str) -> Step {
        match self.state {
            ConnectState::Connected | ConnectState::Failed => Step::Wait,
            _ => self.fail(ConnectError::AdapterExited { status: status.to_string(), stderr: stderr.to_string() }),
        }
    }

    fn on_error(&mut self, now: Instant, e: &io::Error) -> Step {
        self.last_error = Some(e.to_string());
        let retryable = matches!(
            e.raw_os_error(),
            Some(libc::ECONNREFUSED | libc::ECONNRESET | libc::ECONNABORTED | libc::ETIMEDOUT | libc::EAGAIN)
        ) || e.kind() == io::ErrorKind::Interrupted;
        if retryable {
            self.back_off(now)
        } else {
            self.fail(ConnectError::Fatal { message: e.to_string() })
        }
    }

    fn back_off(&mut self, now: Instant) -> Step {
        self.state = ConnectState::Backoff { until: now + self.backoff };
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
        Step::Retry
    }

    fn fail(&mut self, error: ConnectError) -> Step {
        self.state = ConnectState::Failed;
        Step::Failed(error)
    }
}

#[cfg(test)]
mod tests;
