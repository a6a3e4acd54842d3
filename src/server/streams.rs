//! DAP over TCP as a loop source (token kind `AdapterStream`): the non-blocking connect driven by
//! [`tcp::Connector`] (WRITABLE, `take_error`, `peer_addr`, refused connects retried on the
//! loop's timers), then the connection's reads and writes. A stream either has an adapter
//! process of agentdap's behind it (Delve, a custom TCP adapter: the process lives in
//! `adapters.rs`, its stdout is scanned for the port) or none (a debug server already
//! listening). Decides nothing about sessions.

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use log::{debug, trace, warn};
use mio::event::Event;
use mio::net::TcpStream;
use mio::Interest;

use super::{Server, TimerEvent};
use crate::dap::tcp::{Connector, Step};
use crate::reply::ErrorCode;
use crate::session::SessionKey;
use crate::timer::TimerId;
use crate::token::{self, Kind};

/// How long an adapter has to announce its port and accept the connection (the adapter's
/// start, not the program's build: Delve builds inside `launch`, later).
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a connection to a server that is already meant to be listening (`attach
/// {connect}`, a child session's `connect`) may take: refused connects are retried only
/// briefly, so a wrong port fails fast instead of looking like a slow start.
pub(super) const LISTENING_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Bytes read from a stream per `read` call: one loop turn's budget.
const STREAM_CHUNK: usize = super::TURN_BUDGET;
/// Reads of one stream per loop turn ([`super::TURN_BUDGET`]); one left with data stays
/// `readable` and is read again next turn.
const READS_PER_TURN: usize = 1;

/// One DAP connection over TCP.
pub(super) struct StreamIo {
    session: SessionKey,
    connector: Connector,
    stream: Option<TcpStream>,
    connected: bool,
    /// The stream may hold more data (edge-triggered: cleared only by `WouldBlock`).
    readable: bool,
    writable: bool,
    /// The connector's pending deadline in the loop's timers.
    timer: Option<TimerId>,
    /// The adapter process behind the stream (key in `Server::adapters`), if agentdap spawned it.
    pub(super) process: Option<usize>,
}

impl StreamIo {
    pub(super) fn is_connected(&self) -> bool {
        self.connected
    }

    pub(super) fn session(&self) -> SessionKey {
        self.session
    }

    /// The adapter exited before the connection was made: the connector's verdict.
    pub(super) fn adapter_exited(&mut self, status: &str, stderr: &str) -> Option<Step> {
        (!self.connected).then(|| self.connector.adapter_exited(status, stderr))
    }

    /// The adapter's output ended the port scan without an announcement.
    pub(super) fn no_announcement(&mut self) -> Step {
        self.connector.no_announcement()
    }

    /// The adapter announced its port.
    pub(super) fn port_known(&mut self, addr: SocketAddr, now: Instant) -> Step {
        self.connector.port_known(addr, now)
    }

    /// The first step of a connector to a known address.
    pub(super) fn start(&mut self, now: Instant) -> Step {
        self.connector.start(now)
    }
}

impl Server {
    /// Opens the DAP transport of `session` over TCP: a stream entry driven by `connector`, with
    /// `process` (an adapter slab key) behind it or none. The session hears
    /// [`crate::session::Sessions::on_spawned`] once connected, or `on_spawn_failed`.
    pub(super) fn open_stream(&mut self, session: SessionKey, connector: Connector, process: Option<usize>) -> usize {
        let key = self.streams.insert(StreamIo {
            session,
            connector,
            stream: None,
            connected: false,
            readable: false,
            writable: false,
            timer: None,
            process,
        });
        self.stream_of.insert(session, key);
        self.arm_connect_timer(key);
        key
    }

    /// Carries out a connector step for stream `key`, and whatever steps follow from it.
    pub(super) fn drive_stream(&mut self, key: usize, step: Step, now: Instant) {
        let mut step = step;
        // Each step leads to at most one more (connect → started); the cap is a safety net.
        for _ in 0..8 {
            let Some(sio) = self.streams.get_mut(key) else { return };
            let session = sio.session;
            let next = match step {
                Step::Wait => None,
                Step::Connect(addr) => Some(self.start_connect(key, addr, now)),
                Step::Retry => {
                    if let Some(mut s) = sio.stream.take() {
                        let _ = self.poll.registry().deregister(&mut s);
                    }
                    None
                }
                Step::Connected(addr) => {
                    debug!("DAP connection to {addr} for session key {session} established");
                    sio.connected = true;
                    sio.readable = true;
                    sio.writable = true;
                    self.sessions.on_adapter_listening(session, addr);
                    self.sessions.on_spawned(session, now);
                    self.read_stream(key, now);
                    None
                }
                Step::Failed(error) => {
                    let msg = if sio.process.is_none() {
                        let addr = sio.connector.addr();
                        format!(
                            "nothing accepted a DAP connection at {} ({error}); start the program under a debug server first (e.g. `python -m debugpy --listen {} your_program.py`, or `rdbg --open --port {} --host {} -- your_program.rb`) or check the host and port",
                            addr.map_or_else(|| "the given address".to_owned(), |a| a.to_string()),
                            addr.map_or_else(|| "HOST:PORT".to_owned(), |a| a.to_string()),
                            addr.map_or_else(|| "PORT".to_owned(), |a| a.port().to_string()),
                            addr.map_or_else(|| "HOST".to_owned(), |a| a.ip().to_string()),
                        )
                    } else {
                        format!("cannot connect to the adapter: {error}")
                    };
                    warn!("{msg}");
                    self.close_stream(key, false, now);
                    self.sessions.on_spawn_failed(session, ErrorCode::AdapterError, msg);
                    self.stop_adapter(session, now);
                    None
                }
            };
            match next {
                Some(s) => step = s,
                None => break,
            }
        }
        self.arm_connect_timer(key);
    }

    fn start_connect(&mut self, key: usize, addr: SocketAddr, now: Instant) -> Step {
        let Some(sio) = self.streams.get_mut(key) else { return Step::Wait };
        match TcpStream::connect(addr) {
            Ok(mut stream) => {
                let token = token::encode(Kind::AdapterStream, key);
                let registered = match token {
                    Some(t) => self.poll.registry().register(&mut stream, t, Interest::READABLE | Interest::WRITABLE),
                    None => Err(io::Error::other("token space exhausted")),
                };
                match registered {
                    Ok(()) => {
                        sio.stream = Some(stream);
                        sio.connector.connect_started(now, Ok(()))
                    }
                    Err(e) => sio.connector.connect_started(now, Err(e)),
                }
            }
            Err(e) => sio.connector.connect_started(now, Err(e)),
        }
    }

    /// Keeps exactly one timer for the connector's next deadline.
    fn arm_connect_timer(&mut self, key: usize) {
        let Some(sio) = self.streams.get_mut(key) else { return };
        if let Some(old) = sio.timer.take() {
            self.timers.cancel(old);
        }
        if let Some(at) = sio.connector.next_deadline() {
            match self.timers.insert(at, TimerEvent::Connect { key }) {
                Ok(id) => sio.timer = Some(id),
                Err(e) => warn!("{e}; the connect to the adapter has no deadline"),
            }
        }
    }

    /// A connector deadline fired (a backoff ended, an attempt or the whole connect timed out).
    pub(super) fn on_connect_timer(&mut self, key: usize, id: TimerId, now: Instant) {
        let Some(sio) = self.streams.get_mut(key).filter(|s| s.timer == Some(id)) else { return };
        sio.timer = None;
        let step = sio.connector.on_timer(now);
        self.drive_stream(key, step, now);
    }

    /// Events on a stream: the connect's outcome, then DAP bytes.
    pub(super) fn on_adapter_stream(&mut self, key: usize, event: &Event, now: Instant) {
        let Some(sio) = self.streams.get_mut(key) else {
            trace!("event for vacant stream key {key} ignored");
            return;
        };
        if !sio.connected {
            let Some(stream) = sio.stream.as_ref() else { return };
            if !(event.is_writable() || event.is_error() || event.is_write_closed() || event.is_read_closed()) {
                return;
            }
            let step = sio.connector.on_writable(now, stream.take_error(), stream.peer_addr());
            self.drive_stream(key, step, now);
            return;
        }
        if event.is_writable() {
            sio.writable = true;
        }
        if event.is_readable() || event.is_read_closed() || event.is_error() {
            // Read in this turn's serving round (`read_ready_streams`), within its budget.
            sio.readable = true;
        }
        self.write_adapters(now);
    }

    /// Reads a connected stream until `WouldBlock`, EOF or [`READS_PER_TURN`] reads.
    pub(super) fn read_stream(&mut self, key: usize, now: Instant) {
        let mut buf = std::mem::take(&mut self.pipe_buf);
        buf.resize(STREAM_CHUNK, 0);
        for _ in 0..READS_PER_TURN {
            let Some(sio) = self.streams.get_mut(key) else { break };
            let session = sio.session;
            if !(sio.connected && sio.readable) {
                break;
            }
            let Some(stream) = sio.stream.as_mut() else { break };
            match stream.read(&mut buf) {
                Ok(0) => {
                    self.close_stream(key, true, now);
                    break;
                }
                Ok(n) => {
                    crate::os::net::quick_ack(stream);
                    if mentions_an_end(&buf[..n]) {
                        // The program's own output (Delve's, rdbg's debuggee writes to the
                        // adapter's pipes) was all written before the adapter saw it end: take it
                        // in before the end is reported, past the pipes' per-turn fairness budget.
                        // (The pipes are read into their own buffer; this chunk is kept apart.)
                        let chunk = buf[..n].to_vec();
                        self.drain_adapter_pipes_of(session, now);
                        self.sessions.on_adapter_bytes(session, &chunk, now);
                        continue;
                    }
                    self.sessions.on_adapter_bytes(session, &buf[..n], now)
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    sio.readable = false;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    debug!("reading the DAP stream failed: {e}");
                    self.close_stream(key, true, now);
                    break;
                }
            }
        }
        self.pipe_buf = buf;
    }

    /// Writes a session's pending DAP bytes to its stream. `false` when the session has none.
    pub(super) fn write_stream(&mut self, session: SessionKey, now: Instant) -> bool {
        let Some(&key) = self.stream_of.get(&session) else { return false };
        let Some(sio) = self.streams.get_mut(key) else { return true };
        if !(sio.connected && sio.writable) {
            return true;
        }
        let Some(stream) = sio.stream.as_mut() else { return true };
        let mut failed = false;
        loop {
            let bytes = self.sessions.outbound(session);
            if bytes.is_empty() {
                break;
            }
            match stream.write(bytes) {
                Ok(0) => break,
                Ok(n) => self.sessions.consume(session, n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    sio.writable = false;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    debug!("writing the DAP stream failed: {e}");
                    let pending = self.sessions.outbound(session).len();
                    self.sessions.consume(session, pending);
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            self.close_stream(key, true, now);
        }
        true
    }

    /// Closes and forgets a stream; `tell` informs the session that its DAP connection ended.
    pub(super) fn close_stream(&mut self, key: usize, tell: bool, now: Instant) {
        if !self.streams.contains(key) {
            return;
        }
        let mut sio = self.streams.remove(key);
        if let Some(id) = sio.timer.take() {
            self.timers.cancel(id);
        }
        if let Some(mut s) = sio.stream.take() {
            let _ = self.poll.registry().deregister(&mut s);
        }
        if self.stream_of.get(&sio.session) == Some(&key) {
            self.stream_of.remove(&sio.session);
        }
        // The key may soon name another session's stream: an adapter still exiting must not
        // reach it (its exit would fail that session's connect).
        self.forget_stream(key);
        if tell {
            self.sessions.on_adapter_closed(sio.session, now);
        }
    }

    /// Streams with data left after their per-wake cap.
    pub(super) fn streams_have_work(&self) -> bool {
        self.streams.iter().any(|(_, s)| s.connected && s.readable && s.stream.is_some())
    }

    pub(super) fn read_ready_streams(&mut self, now: Instant) {
        let keys: Vec<usize> = self
            .streams
            .iter()
            .filter(|(_, s)| s.connected && s.readable && s.stream.is_some())
            .map(|(k, _)| k)
            .collect();
        for k in keys {
            self.read_stream(k, now);
        }
    }
}

/// Whether a chunk of DAP bytes may carry an `exited` or `terminated` event (a cheap scan of the
/// raw bytes; a false positive only costs one drain of the adapter's pipes).
fn mentions_an_end(bytes: &[u8]) -> bool {
    const ENDS: [&[u8]; 2] = [b"\"exited\"", b"\"terminated\""];
    ENDS.iter().any(|end| bytes.windows(end.len()).any(|w| w == *end))
}

#[cfg(test)]
mod tests {
    use super::mentions_an_end;

    #[test]
    fn an_exit_or_termination_event_in_a_chunk_is_noticed() {
        assert!(mentions_an_end(
            br#"Content-Length: 60\r\n\r\n{"type":"event","event":"exited","body":{"exitCode":0}}"#
        ));
        assert!(mentions_an_end(br#"{"type": "event", "event": "terminated"}"#));
        assert!(!mentions_an_end(br#"{"type":"event","event":"stopped","body":{"reason":"step"}}"#));
    }
}
