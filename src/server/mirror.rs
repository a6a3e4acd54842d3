//! The IDE mirror's sockets as sources of the loop (SECURITY.md, README § Let a person look): one
//! listener per exposed session and its clients, each in a slab under token kinds
//! `MirrorListener`/`MirrorClient`. Binds, accepts, reads and writes; the protocol is
//! `mirror::client::ClientCore` and the session's side is `session::mirror`. Must not: decide
//! policy or touch a session's DAP state itself.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use log::{debug, info, trace, warn};
use mio::event::Event;
use mio::net::{TcpListener, TcpStream};
use mio::Interest;
use serde_json::{Map, Value};
use slab::Slab;

use super::{Server, TimerEvent};
use crate::ledger::{Kind as LedgerKind, Record};
use crate::mcp::Context;
use crate::mirror::client::{ClientCore, Host};
use crate::mirror::{self, Endpoint, Token, FORWARD_TIMEOUT, MAX_HANDSHAKING};
use crate::reply::{CallKey, ErrorCode, ToolResult};
use crate::session::mirror::{ClientRef, Note, Request};
use crate::session::{SessionKey, Sessions};
use crate::timer::TimerId;
use crate::token::{self, Kind};

/// Bytes read from a client per `read` call: the same budget as every other source's.
const READ_CHUNK: usize = super::TURN_BUDGET;
/// Reads of one client per wake-up (one [`super::TURN_BUDGET`]);
/// edge-triggered, so a client left with data is read again on the next turn through `readable`.
const READS_PER_WAKE: usize = 1;
/// Connections accepted per listener per loop turn. The listener is edge-triggered: one left with
/// connections queued keeps its `ready` flag and is accepted from again next turn
/// ([`Server::mirrors_have_work`] makes that turn come at once).
const ACCEPTS_PER_WAKE: usize = 16;
/// How long a closing client (its last words queued) may take to read them.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// Rounds of note delivery per loop turn (an answer can free a slot whose queued request is
/// answered at once, and so on); each round hands at most one request per answered one.
const DELIVERY_ROUNDS: usize = 8;

/// An exposed session's listener.
pub(super) struct Listener {
    session: SessionKey,
    /// The session's agent-facing id: a slab key reused by a later session is not this one.
    session_id: String,
    socket: TcpListener,
    token: Token,
    /// Client slab keys, oldest first.
    clients: Vec<usize>,
    /// Connections may be waiting: accept until `WouldBlock`.
    ready: bool,
}

/// A connected client.
pub(super) struct Client {
    listener: usize,
    session: SessionKey,
    serial: u64,
    stream: TcpStream,
    core: ClientCore,
    readable: bool,
    writable: bool,
    timer: Option<TimerId>,
    /// Set once the client is closing: it is dropped at this time even if it never read.
    close_by: Option<Instant>,
    /// The session id, once the client attached (its ledger `mirror_client` record was made).
    attached_to: Option<String>,
}

/// The mirror's sources (owned by the server).
pub(super) struct MirrorIo {
    listeners: Slab<Listener>,
    clients: Slab<Client>,
    next_serial: u64,
    bind: IpAddr,
    auth_timeout: Duration,
    buf: Vec<u8>,
    /// Notes were left undelivered by [`DELIVERY_ROUNDS`]: the next turn comes at once.
    notes_left: bool,
}

impl MirrorIo {
    /// Reads `AGENTDAP_MIRROR_BIND` (set by `--mirror-bind`; default 127.0.0.1) and the auth timeout.
    pub(super) fn new() -> MirrorIo {
        let bind = match std::env::var(mirror::BIND_ENV) {
            Ok(v) if !v.trim().is_empty() => match v.trim().parse::<IpAddr>() {
                Ok(ip) => {
                    if !ip.is_loopback() {
                        info!(
                            "mirror listeners will bind to {ip}, not loopback: anyone who can reach it and holds a token can read and evaluate code in exposed sessions"
                        );
                    }
                    ip
                }
                Err(_) => {
                    warn!("{} is not an IP address; mirrors stay on 127.0.0.1", mirror::BIND_ENV);
                    IpAddr::V4(Ipv4Addr::LOCALHOST)
                }
            },
            _ => IpAddr::V4(Ipv4Addr::LOCALHOST),
        };
        MirrorIo {
            listeners: Slab::new(),
            clients: Slab::new(),
            next_serial: 1,
            bind,
            auth_timeout: mirror::auth_timeout(),
            buf: vec![0; READ_CHUNK],
            notes_left: false,
        }
    }
}

/// The session as a client's [`Host`].
struct SessionHost<'a> {
    sessions: &'a mut Sessions,
    session: SessionKey,
    client: ClientRef,
    now: Instant,
    /// Other clients of the same listener that are attached.
    others_attached: usize,
    /// A request was handed to the session through this host.
    forwarded: bool,
}

impl Host for SessionHost<'_> {
    fn capabilities(&self) -> Option<Map<String, Value>> {
        self.sessions.get(self.session).and_then(|s| s.raw_capabilities())
    }

    fn forward(&mut self, request_seq: i64, command: &str, arguments: Option<Value>) {
        self.forwarded = true;
        self.sessions.mirror_forward(self.session, self.client, request_seq, command, arguments, self.now);
    }

    fn late_join_stop(&self) -> Option<Value> {
        self.sessions.get(self.session).and_then(|s| s.mirror_late_join_stop())
    }

    fn other_attached_clients(&self) -> usize {
        self.others_attached
    }

    fn agent_waiting(&self) -> bool {
        self.sessions.get(self.session).is_some_and(|s| s.agent_waiting())
    }

    fn mode(&self) -> mirror::Mode {
        self.sessions.get(self.session).map(|s| s.mirror.mode).unwrap_or_default()
    }

    fn asked_control(&mut self, command: &str) {
        let grantable = mirror::control_allowed(self.sessions.allow).is_ok();
        if let Some(s) = self.sessions.get_mut(self.session) {
            s.mirror_asked_control(command, grantable);
        }
    }

    fn set_breakpoints(&mut self, request_seq: i64, command: &str, arguments: Option<Value>) {
        self.forwarded = true;
        self.sessions.mirror_set_breakpoints(self.session, self.client, request_seq, command, arguments, self.now);
    }
}

/// Attached clients of `listener` other than `ckey`.
fn others_attached(clients: &Slab<Client>, listener: usize, ckey: usize) -> usize {
    clients.iter().filter(|(k, c)| *k != ckey && c.listener == listener && c.core.is_attached()).count()
}

impl Server {
    /// Once per loop turn: carries out expose/unexpose requests, delivers session notes to the
    /// clients, closes mirrors whose session ended, and writes what clients have pending.
    pub(super) fn pump_mirrors(&mut self, now: Instant) {
        self.read_ready_mirrors(now);
        let mut work: Vec<(SessionKey, Vec<Request>)> = Vec::new();
        let mut notes = Vec::new();
        let mut ended = Vec::new();
        for (key, s) in self.sessions.taps() {
            let requests = s.mirror.take_requests();
            if !requests.is_empty() {
                work.push((key, requests));
            }
            if s.mirror.endpoint.is_some() {
                notes.push((key, s.mirror.take_notes()));
                let restarted = s.run.state == crate::session::snapshot::RunState::Starting;
                if s.run.state.is_over() || restarted || self.shutdown.is_some() {
                    ended.push(key);
                }
            }
        }
        for (key, requests) in work {
            for r in requests {
                match r {
                    Request::Expose { call } => self.expose(key, call, now),
                    Request::Unexpose => self.close_listener_of(key, now),
                }
            }
        }
        self.deliver_notes(notes, now);
        if self.send_held_back(now) {
            self.process_actions(now);
            self.write_adapters(now);
        }
        for key in ended {
            self.close_listener_of(key, now);
        }
        // Listeners whose session left the table.
        let orphans: Vec<usize> = self
            .mirror
            .listeners
            .iter()
            .filter(|(_, l)| self.sessions.get(l.session).map_or(true, |s| s.id != l.session_id))
            .map(|(k, _)| k)
            .collect();
        for l in orphans {
            self.close_listener(l, now);
        }
        let keys: Vec<usize> = self.mirror.clients.iter().map(|(k, _)| k).collect();
        for k in keys {
            self.settle_client(k, now);
        }
    }

    fn listener_of(&self, session: SessionKey) -> Option<usize> {
        let id = &self.sessions.get(session)?.id;
        self.mirror.listeners.iter().find(|(_, l)| l.session == session && &l.session_id == id).map(|(k, _)| k)
    }

    /// Binds a listener for `session` and answers `call` with the endpoint.
    fn expose(&mut self, session: SessionKey, call: CallKey, now: Instant) {
        let result = self.bind_listener(session);
        let output = match result {
            Ok(()) => match self.sessions.get(session) {
                Some(s) => match &s.mirror.endpoint {
                    Some(e) => mirror::expose_result(&s.id, &s.vscode_type(), e, s.mirror.mode),
                    None => ToolResult::error(ErrorCode::Disconnected, "the mirror closed at once"),
                },
                None => ToolResult::error(ErrorCode::SessionNotFound, "the session ended before its mirror opened"),
            },
            Err(msg) => ToolResult::error(ErrorCode::AdapterError, msg),
        };
        let cx = &mut Context { out: self.out.tail(), now, sessions: &mut self.sessions };
        if !self.mcp.complete(call, output, cx) {
            debug!("expose_session answer dropped: the call was cancelled");
        }
    }

    fn bind_listener(&mut self, session: SessionKey) -> Result<(), String> {
        let Some(s) = self.sessions.get(session) else { return Err("the session ended".into()) };
        if s.mirror.endpoint.is_some() {
            return Ok(()); // A second expose in the same turn: idempotent.
        }
        let session_id = s.id.clone();
        let token = Token::generate().map_err(|e| format!("no random token from the OS: {e}"))?;
        let mut socket = TcpListener::bind(SocketAddr::new(self.mirror.bind, 0))
            .map_err(|e| format!("cannot listen on {}: {e}", self.mirror.bind))?;
        let port = socket.local_addr().map_err(|e| format!("cannot read the listener's port: {e}"))?.port();
        let entry = self.mirror.listeners.vacant_entry();
        let key = entry.key();
        let tok = token::encode(Kind::MirrorListener, key).ok_or("token space exhausted")?;
        self.poll
            .registry()
            .register(&mut socket, tok, Interest::READABLE)
            .map_err(|e| format!("cannot watch the listener: {e}"))?;
        entry.insert(Listener {
            session,
            session_id: session_id.clone(),
            socket,
            token: token.clone(),
            clients: Vec::new(),
            ready: false,
        });
        info!("{session_id}: mirror listening on {}:{port}", self.mirror.bind);
        if let Some(s) = self.sessions.get_mut(session) {
            s.mirror.endpoint = Some(Endpoint { host: self.mirror.bind.to_string(), port, token });
        }
        // The endpoint only: the token never reaches the ledger (`assert_no_token` in the mirror tests).
        let host = self.mirror.bind.to_string();
        self.record(Record::new(session_id, LedgerKind::MirrorExposed).with("host", host).with("port", port));
        Ok(())
    }

    /// Closes `session`'s listener, if any: the port refuses connections from now on, clients
    /// get `terminated` and close once it is written.
    fn close_listener_of(&mut self, session: SessionKey, now: Instant) {
        if let Some(s) = self.sessions.get_mut(session) {
            s.mirror.endpoint = None;
            let _ = s.mirror.take_notes();
        }
        let keys: Vec<usize> =
            self.mirror.listeners.iter().filter(|(_, l)| l.session == session).map(|(k, _)| k).collect();
        for k in keys {
            self.close_listener(k, now);
        }
    }

    fn close_listener(&mut self, lkey: usize, now: Instant) {
        if !self.mirror.listeners.contains(lkey) {
            return;
        }
        let mut l = self.mirror.listeners.remove(lkey);
        let _ = self.poll.registry().deregister(&mut l.socket);
        info!("{}: mirror closed", l.session_id);
        for c in l.clients {
            if let Some(client) = self.mirror.clients.get_mut(c) {
                client.core.terminate();
                client.close_by.get_or_insert(now + CLOSE_GRACE);
            }
            self.settle_client(c, now);
        }
    }

    /// Delivers the sessions' notes. An answer lets its client send a queued request, whose
    /// own answer may be a note at once (a stale handle, a refusal): those are delivered too,
    /// for up to [`DELIVERY_ROUNDS`] rounds; what is left waits for the next turn, which
    /// [`Server::mirrors_have_work`] makes come at once.
    fn deliver_notes(&mut self, mut notes: Vec<(SessionKey, VecDeque<Note>)>, now: Instant) {
        let mut forwarded = false;
        for round in 1..=DELIVERY_ROUNDS {
            for (key, list) in std::mem::take(&mut notes) {
                let Some(lkey) = self.listener_of(key) else { continue };
                for note in list {
                    forwarded |= self.deliver(lkey, note, now);
                }
            }
            if round == DELIVERY_ROUNDS {
                break;
            }
            notes = self.pending_notes();
            if notes.is_empty() {
                break;
            }
        }
        if forwarded {
            // Queued requests just handed to sessions: what they did, and out to the adapters,
            // in this turn.
            self.process_actions(now);
            self.write_adapters(now);
        }
        self.mirror.notes_left = self.sessions.taps().any(|(_, s)| s.mirror.endpoint.is_some() && s.mirror.has_notes());
    }

    /// Notes of exposed sessions not delivered yet.
    fn pending_notes(&mut self) -> Vec<(SessionKey, VecDeque<Note>)> {
        let mut notes = Vec::new();
        for (key, s) in self.sessions.taps() {
            if s.mirror.endpoint.is_some() && s.mirror.has_notes() {
                notes.push((key, s.mirror.take_notes()));
            }
        }
        notes
    }

    /// Delivers one note; true when its client handed a queued request to the session.
    fn deliver(&mut self, lkey: usize, note: Note, now: Instant) -> bool {
        let Some(l) = self.mirror.listeners.get(lkey) else { return false };
        match note {
            Note::Event { event, body } => {
                for &c in &l.clients {
                    if let Some(client) = self.mirror.clients.get_mut(c) {
                        client.core.event(&event, body.clone());
                    }
                }
            }
            Note::ClientEvent { client, event, body } => {
                let c = self.mirror.clients.get_mut(client.key).filter(|c| c.serial == client.serial);
                if let Some(c) = c.filter(|c| c.listener == lkey) {
                    c.core.event(&event, Some(body));
                }
            }
            Note::Response { client, request_seq, response, held } => {
                let act =
                    |core: &mut ClientCore, host: &mut SessionHost<'_>| core.answer(request_seq, response, held, host);
                return self.with_client_host(client, now, act).unwrap_or_else(|| {
                    trace!("mirror: answer for a client that left");
                    false
                });
            }
            Note::Released { client } => {
                return self.with_client_host(client, now, |core, host| core.release(host)).unwrap_or(false);
            }
        }
        false
    }

    /// Hands on what clients queued behind the agent's requests once the agent has none at
    /// the adapter; true when something was forwarded.
    fn send_held_back(&mut self, now: Instant) -> bool {
        let waiting: Vec<ClientRef> = self
            .mirror
            .clients
            .iter()
            .filter(|(_, c)| c.core.has_queued())
            .map(|(key, c)| ClientRef { key, serial: c.serial })
            .collect();
        let mut forwarded = false;
        for client in waiting {
            forwarded |= self.with_client_host(client, now, |core, host| core.send_queued(host)).unwrap_or(false);
        }
        forwarded
    }

    /// Runs `act` on `client`'s state machine with its session as the [`Host`]. `None` when the
    /// client left (a reused slab key with another serial is someone else); else whether `act`
    /// handed a request to the session.
    fn with_client_host(
        &mut self,
        client: ClientRef,
        now: Instant,
        act: impl FnOnce(&mut ClientCore, &mut SessionHost<'_>),
    ) -> Option<bool> {
        let listener = self.mirror.clients.get(client.key).filter(|c| c.serial == client.serial)?.listener;
        let others = others_attached(&self.mirror.clients, listener, client.key);
        let c = self.mirror.clients.get_mut(client.key)?;
        let mut host = SessionHost {
            sessions: &mut self.sessions,
            session: c.session,
            client,
            now,
            others_attached: others,
            forwarded: false,
        };
        act(&mut c.core, &mut host);
        Some(host.forwarded)
    }

    /// Events on a listener: accept pending connections (up to [`ACCEPTS_PER_WAKE`] this turn;
    /// the rest next turn, see `ready`).
    pub(super) fn on_mirror_listener(&mut self, lkey: usize, now: Instant) {
        if let Some(l) = self.mirror.listeners.get_mut(lkey) {
            l.ready = true;
        }
        self.accept_clients(lkey, now);
        self.write_adapters(now);
    }

    fn accept_clients(&mut self, lkey: usize, now: Instant) {
        for _ in 0..ACCEPTS_PER_WAKE {
            let Some(l) = self.mirror.listeners.get_mut(lkey) else { return };
            let (mut stream, peer) = match l.socket.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    l.ready = false;
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // E.g. EMFILE: the connection stays queued; try again next turn.
                    debug!("mirror accept failed: {e}");
                    return;
                }
            };
            let (session, token) = (l.session, l.token.clone());
            let name_prefix = l.session_id.clone();
            // Connections that have not attached have their own cap: the oldest goes, so idle
            // connections cannot keep out an IDE that attaches promptly.
            let waiting: Vec<usize> = l
                .clients
                .iter()
                .copied()
                .filter(|&k| self.mirror.clients.get(k).is_some_and(|c| !c.core.is_attached()))
                .collect();
            if waiting.len() >= MAX_HANDSHAKING {
                let oldest = waiting[0];
                if let Some(c) = self.mirror.clients.get_mut(oldest) {
                    info!("{name_prefix} mirror client {}: evicted, not attached and a new connection came", c.serial);
                    c.core.abort();
                }
                self.drop_client(oldest, now);
            }
            let _ = stream.set_nodelay(true);
            let serial = self.mirror.next_serial;
            self.mirror.next_serial += 1;
            let name = format!("{name_prefix} mirror client {serial}");
            info!("{name}: connected from {peer}");
            let core = ClientCore::new(name, token, now + self.mirror.auth_timeout);
            let entry = self.mirror.clients.vacant_entry();
            let ckey = entry.key();
            let Some(tok) = token::encode(Kind::MirrorClient, ckey) else { return };
            if let Err(e) = self.poll.registry().register(&mut stream, tok, Interest::READABLE | Interest::WRITABLE) {
                warn!("cannot watch a mirror client: {e}");
                continue;
            }
            entry.insert(Client {
                listener: lkey,
                session,
                serial,
                stream,
                core,
                readable: true,
                writable: true,
                timer: None,
                close_by: None,
                attached_to: None,
            });
            if let Some(l) = self.mirror.listeners.get_mut(lkey) {
                l.clients.push(ckey);
            }
            self.read_client(ckey, now);
            self.settle_client(ckey, now);
        }
    }

    /// Whether a listener or a client was left with work by a per-turn cap (the loop then polls
    /// without waiting).
    pub(super) fn mirrors_have_work(&self) -> bool {
        self.mirror.notes_left
            || self.mirror.listeners.iter().any(|(_, l)| l.ready)
            || self.mirror.clients.iter().any(|(_, c)| c.readable && !c.core.closing() && !c.core.reading_done())
    }

    /// Comes back to listeners and clients left with work by the per-turn caps.
    fn read_ready_mirrors(&mut self, now: Instant) {
        let listeners: Vec<usize> = self.mirror.listeners.iter().filter(|(_, l)| l.ready).map(|(k, _)| k).collect();
        for &l in &listeners {
            self.accept_clients(l, now);
        }
        let clients: Vec<usize> = self
            .mirror
            .clients
            .iter()
            .filter(|(_, c)| c.readable && !c.core.closing() && !c.core.reading_done())
            .map(|(k, _)| k)
            .collect();
        let any = !listeners.is_empty() || !clients.is_empty();
        for k in clients {
            self.read_client(k, now);
            self.settle_client(k, now);
        }
        if any {
            self.write_adapters(now);
        }
    }

    /// Events on a client socket.
    pub(super) fn on_mirror_client(&mut self, ckey: usize, event: &Event, now: Instant) {
        let Some(c) = self.mirror.clients.get_mut(ckey) else {
            trace!("event for vacant mirror client {ckey} ignored");
            return;
        };
        if event.is_readable() || event.is_read_closed() || event.is_error() {
            c.readable = true;
        }
        if event.is_writable() {
            c.writable = true;
        }
        self.read_client(ckey, now);
        self.settle_client(ckey, now);
        self.write_adapters(now);
    }

    fn read_client(&mut self, ckey: usize, now: Instant) {
        let MirrorIo { clients, buf, .. } = &mut self.mirror;
        let Some(listener) = clients.get(ckey).map(|c| c.listener) else { return };
        let others = others_attached(clients, listener, ckey);
        let Some(c) = clients.get_mut(ckey) else { return };
        let client = ClientRef { key: ckey, serial: c.serial };
        for _ in 0..READS_PER_WAKE {
            if !c.readable || c.core.closing() || c.core.reading_done() {
                return;
            }
            match c.stream.read(buf) {
                Ok(0) => {
                    // Half-closed: what it asked is still answered, then it closes.
                    debug!("mirror client {} closed its socket for writing", c.serial);
                    c.readable = false;
                    c.core.finish_reading();
                    c.close_by.get_or_insert(now + FORWARD_TIMEOUT + CLOSE_GRACE);
                    return;
                }
                Ok(n) => {
                    let mut host = SessionHost {
                        sessions: &mut self.sessions,
                        session: c.session,
                        client,
                        now,
                        others_attached: others,
                        forwarded: false,
                    };
                    c.core.receive(&buf[..n], now, &mut host);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => c.readable = false,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    debug!("reading mirror client {} failed: {e}", c.serial);
                    c.core.abort();
                    c.close_by = Some(now);
                    return;
                }
            }
        }
    }

    /// Writes a client's pending bytes, re-arms its timer, and drops it when it is done.
    fn settle_client(&mut self, ckey: usize, now: Instant) {
        self.note_attached(ckey);
        let Some(c) = self.mirror.clients.get_mut(ckey) else { return };
        while c.writable && !c.core.outbound().is_empty() {
            match c.stream.write(c.core.outbound()) {
                Ok(0) => break,
                Ok(n) => c.core.consume(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => c.writable = false,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    debug!("writing mirror client {} failed: {e}", c.serial);
                    c.core.abort();
                    c.close_by = Some(now);
                    break;
                }
            }
        }
        if c.core.closing() {
            c.close_by.get_or_insert(now + CLOSE_GRACE);
        }
        let drained = c.core.outbound().is_empty();
        let done = c.core.overflowed() || (c.core.closing() && drained) || c.close_by.is_some_and(|t| t <= now);
        if done {
            self.drop_client(ckey, now);
            return;
        }
        let want = match (c.core.next_deadline(), c.close_by) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if c.timer.map(TimerId::deadline) != want {
            if let Some(old) = c.timer.take() {
                self.timers.cancel(old);
            }
            if let Some(at) = want {
                let event = TimerEvent::MirrorClient { key: ckey, serial: c.serial };
                c.timer = self.timers.insert(at, event).ok();
            }
        }
    }

    /// A client's deadline passed (auth timeout, late-join fallback, close grace).
    pub(super) fn on_mirror_timer(&mut self, ckey: usize, serial: u64, now: Instant) {
        let MirrorIo { clients, .. } = &mut self.mirror;
        let Some(listener) = clients.get(ckey).filter(|c| c.serial == serial).map(|c| c.listener) else { return };
        let others = others_attached(clients, listener, ckey);
        let Some(c) = clients.get_mut(ckey) else { return };
        c.timer = None;
        let client = ClientRef { key: ckey, serial };
        let mut host = SessionHost {
            sessions: &mut self.sessions,
            session: c.session,
            client,
            now,
            others_attached: others,
            forwarded: false,
        };
        c.core.on_timer(now, &mut host);
        self.settle_client(ckey, now);
    }

    /// Removes a client; the person's breakpoints it set leave with it (the files it touched are
    /// sent again with what remains).
    fn drop_client(&mut self, ckey: usize, now: Instant) {
        if !self.mirror.clients.contains(ckey) {
            return;
        }
        let mut c = self.mirror.clients.remove(ckey);
        let _ = self.poll.registry().deregister(&mut c.stream);
        if let Some(t) = c.timer.take() {
            self.timers.cancel(t);
        }
        if let Some(l) = self.mirror.listeners.get_mut(c.listener) {
            l.clients.retain(|&k| k != ckey);
        }
        debug!("mirror client {} closed", c.serial);
        if c.attached_to.is_some() {
            self.sessions.mirror_forget_client(c.session, ClientRef { key: ckey, serial: c.serial }, now);
            // The files it touched go out again in this turn (the loop wrote the adapters already).
            self.process_actions(now);
            self.write_adapters(now);
        }
        if let Some(id) = c.attached_to {
            self.record(Record::new(id, LedgerKind::MirrorClient).with("event", "left").with("client", c.serial));
        }
    }

    /// A client that attached since the last look gets its ledger record.
    fn note_attached(&mut self, ckey: usize) {
        let Some(c) = self.mirror.clients.get_mut(ckey) else { return };
        if c.attached_to.is_some() || !c.core.is_attached() {
            return;
        }
        let Some(id) = self.mirror.listeners.get(c.listener).map(|l| l.session_id.clone()) else { return };
        c.attached_to = Some(id.clone());
        let serial = c.serial;
        self.record(Record::new(id, LedgerKind::MirrorClient).with("event", "attached").with("client", serial));
    }
}
