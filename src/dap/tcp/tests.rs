//! Tests of the TCP transport: the announcement scanner, the host:port parser, the connect state machine under fake time, and real connects through mio.

use super::*;
use std::net::TcpListener;

const DELVE: &str = "DAP server listening at: ";

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn refused() -> io::Error {
    io::Error::from_raw_os_error(libc::ECONNREFUSED)
}

#[test]
fn host_port_forms() {
    let cases: &[(&str, Option<&str>)] = &[
        ("127.0.0.1:38697", Some("127.0.0.1:38697")),
        ("localhost:4711", Some("127.0.0.1:4711")),
        ("[::1]:4711", Some("[::1]:4711")),
        ("127.0.0.1:0", None),
        ("127.0.0.1:65536", None),
        ("127.0.0.1:", None),
        ("127.0.0.1", None),
        ("example.com:80", None),
        ("::1:4711", None),
        ("127.0.0.1:12a", None),
    ];
    for (input, expected) in cases {
        assert_eq!(parse_host_port(input), expected.map(addr), "{input}");
    }
}

#[test]
fn announcement_lines_as_delve_and_others_print_them() {
    assert_eq!(parse_announcement(DELVE, b"DAP server listening at: 127.0.0.1:33589"), Some(addr("127.0.0.1:33589")));
    assert_eq!(parse_announcement(DELVE, b"DAP server listening at: 127.0.0.1:33589\r"), Some(addr("127.0.0.1:33589")));
    // A prefix in the middle of a log line, text after the address.
    let line = b"2026-01-01T00:00:00Z info DAP server listening at: [::1]:9 (pid 4)";
    assert_eq!(parse_announcement(DELVE, line), Some(addr("[::1]:9")));
    assert_eq!(parse_announcement(DELVE, b"API server listening at: 127.0.0.1:1"), None);
    assert_eq!(parse_announcement("Listening on port ", b"Listening on port 4711"), None, "no host: not this parser");
    assert_eq!(parse_announcement(DELVE, b"DAP server listening at: \xff:1"), None);
}

#[test]
fn scanner_finds_the_line_across_chunks_and_reports_what_follows() {
    let text = b"banner\nDAP server listening at: 127.0.0.1:40001\nprogram output\n";
    for split in 0..text.len() {
        let mut s = PortScanner::new(DELVE);
        let (a, b) = text.split_at(split);
        let (found, rest) = match s.feed(a) {
            Scan::Found { addr, consumed } => (addr, [&a[consumed..], b].concat()),
            Scan::Pending => match s.feed(b) {
                Scan::Found { addr, consumed } => (addr, b[consumed..].to_vec()),
                other => panic!("split {split}: {other:?}"),
            },
            Scan::GaveUp => panic!("gave up"),
        };
        assert_eq!(found, addr("127.0.0.1:40001"), "split {split}");
        assert_eq!(rest, b"program output\n", "split {split}");
    }
}

#[test]
fn scanner_is_bounded() {
    let mut s = PortScanner::new(DELVE);
    // An overlong line is skipped whole, even if the prefix shows up past the cap.
    let mut long = vec![b'x'; LINE_CAP + 10];
    long.extend_from_slice(b"DAP server listening at: 127.0.0.1:1\n");
    assert_eq!(s.feed(&long), Scan::Pending);
    assert!(s.line.capacity() <= 2 * LINE_CAP, "held {}", s.line.capacity());
    assert_eq!(
        s.feed(b"DAP server listening at: 127.0.0.1:2\n"),
        Scan::Found { addr: addr("127.0.0.1:2"), consumed: 37 }
    );
    let mut s = PortScanner::new(DELVE);
    let flood = b"noise\n".repeat(SCAN_LINE_CAP);
    assert_eq!(s.feed(&flood), Scan::GaveUp);
}

/// A fake clock: `t(ms)` is a fixed origin plus `ms`.
struct Clock(Instant);

impl Clock {
    fn t(&self, ms: u64) -> Instant {
        self.0 + Duration::from_millis(ms)
    }
}

#[test]
fn refused_connects_back_off_then_connect() {
    let c = Clock(Instant::now());
    let target = addr("127.0.0.1:4711");
    let mut k = Connector::new(target, c.t(0), Duration::from_secs(5));
    assert_eq!(k.start(c.t(0)), Step::Connect(target));
    assert_eq!(k.connect_started(c.t(0), Err(io::Error::from_raw_os_error(libc::EINPROGRESS))), Step::Wait);
    // Refused, seen on WRITABLE through take_error.
    assert_eq!(k.on_writable(c.t(1), Ok(Some(refused())), Err(refused())), Step::Retry);
    assert_eq!(k.next_deadline(), Some(c.t(11)));
    assert_eq!(k.on_timer(c.t(5)), Step::Wait, "early timer");
    assert_eq!(k.on_timer(c.t(11)), Step::Connect(target));
    // Refused synchronously this time: backoff doubles.
    assert_eq!(k.connect_started(c.t(11), Err(refused())), Step::Retry);
    assert_eq!(k.next_deadline(), Some(c.t(31)));
    assert_eq!(k.on_timer(c.t(31)), Step::Connect(target));
    assert_eq!(k.connect_started(c.t(31), Ok(())), Step::Wait);
    // A spurious wake-up, then the real one.
    let not_yet = io::Error::from(io::ErrorKind::NotConnected);
    assert_eq!(k.on_writable(c.t(32), Ok(None), Err(not_yet)), Step::Wait);
    assert_eq!(k.on_writable(c.t(33), Ok(None), Ok(target)), Step::Connected(target));
    assert_eq!((k.state(), k.attempts(), k.next_deadline()), (&ConnectState::Connected, 3, None));
    assert_eq!(k.adapter_exited("exit status 0", ""), Step::Wait, "after connecting, exits are the DAP layer's");
}

#[test]
fn backoff_is_capped_and_the_deadline_wins() {
    let c = Clock(Instant::now());
    let target = addr("127.0.0.1:4711");
    let mut k = Connector::new(target, c.t(0), Duration::from_millis(1000));
    let mut now = 0;
    let mut delays = Vec::new();
    loop {
        match k.on_timer(c.t(now)) {
            Step::Connect(_) => {
                assert_eq!(k.connect_started(c.t(now), Err(refused())), Step::Retry);
                let next = k.next_deadline().expect("deadline");
                delays.push((next - c.t(now)).as_millis() as u64);
                now = (next - c.t(0)).as_millis() as u64;
            }
            Step::Failed(e) => {
                let last = Some(refused().to_string());
                assert_eq!(e, ConnectError::TimedOut { port_known: true, attempts: k.attempts(), last_error: last });
                break;
            }
            other => panic!("{other:?}"),
        }
    }
    // Doubling from 10 ms, capped at 20 ms, the last wait clipped to the deadline.
    let mut expected = vec![10];
    expected.extend(std::iter::repeat(20).take(49));
    expected.push(10);
    assert_eq!(delays, expected);
    assert_eq!(now, 1000, "failed exactly at the deadline");
    assert_eq!(k.on_timer(c.t(5000)), Step::Wait);
}

#[test]
fn a_hung_attempt_is_abandoned_and_retried() {
    let c = Clock(Instant::now());
    let target = addr("127.0.0.1:4711");
    let mut k = Connector::new(target, c.t(0), Duration::from_secs(30));
    assert_eq!(k.start(c.t(0)), Step::Connect(target));
    assert_eq!(k.connect_started(c.t(0), Ok(())), Step::Wait);
    assert_eq!(k.next_deadline(), Some(c.t(2000)));
    assert_eq!(k.on_timer(c.t(2000)), Step::Retry);
    assert_eq!(k.on_timer(c.t(2010)), Step::Connect(target));
}

#[test]
fn waits_for_the_announcement_within_the_same_deadline() {
    let c = Clock(Instant::now());
    let mut k = Connector::awaiting_port(c.t(0), Duration::from_secs(10));
    assert_eq!((k.on_timer(c.t(100)), k.next_deadline()), (Step::Wait, Some(c.t(10_000))));
    let target = addr("127.0.0.1:40001");
    assert_eq!(k.port_known(target, c.t(300)), Step::Connect(target));
    assert_eq!(k.port_known(target, c.t(301)), Step::Wait, "announced twice: ignored");
    let mut silent = Connector::awaiting_port(c.t(0), Duration::from_secs(10));
    let timed_out = ConnectError::TimedOut { port_known: false, attempts: 0, last_error: None };
    assert_eq!(silent.on_timer(c.t(10_000)), Step::Failed(timed_out.clone()));
    assert_eq!(timed_out.to_string(), "the adapter did not announce its port in time");
    let mut flood = Connector::awaiting_port(c.t(0), Duration::from_secs(10));
    assert_eq!(flood.no_announcement(), Step::Failed(ConnectError::NoAnnouncement));
}

#[test]
fn adapter_exit_before_listening_fails_with_its_stderr() {
    let c = Clock(Instant::now());
    let mut k = Connector::awaiting_port(c.t(0), Duration::from_secs(10));
    let step = k.adapter_exited("exit status 1", "Error: unknown flag: --listen\n");
    let Step::Failed(e) = step else { panic!("{step:?}") };
    assert_eq!(
        e.to_string(),
        "the adapter exited (exit status 1) before accepting a connection: Error: unknown flag: --listen"
    );
    assert_eq!(k.on_timer(c.t(20_000)), Step::Wait, "finished machines stay quiet");
    // While backing off, too.
    let mut k = Connector::new(addr("127.0.0.1:1"), c.t(0), Duration::from_secs(10));
    assert!(matches!(k.start(c.t(0)), Step::Connect(_)));
    assert_eq!(k.connect_started(c.t(0), Err(refused())), Step::Retry);
    assert!(matches!(k.adapter_exited("signal 9", ""), Step::Failed(ConnectError::AdapterExited { .. })));
}

#[test]
fn unreachable_is_fatal_at_once() {
    let c = Clock(Instant::now());
    let mut k = Connector::new(addr("127.0.0.1:1"), c.t(0), Duration::from_secs(10));
    k.start(c.t(0));
    let step = k.connect_started(c.t(0), Err(io::Error::from_raw_os_error(libc::ENETUNREACH)));
    assert!(matches!(step, Step::Failed(ConnectError::Fatal { .. })), "{step:?}");
}

/// Drives `k` with a real mio stream until it connects or fails: the IO shell in miniature
/// (the test polls with the machine's own deadline as the timeout). `before_connect` runs
/// before each connect with the attempt number.
fn drive(
    k: &mut Connector,
    mut step: Step,
    before_connect: &mut dyn FnMut(u32),
) -> (Step, Option<mio::net::TcpStream>) {
    use mio::{Events, Interest, Poll, Token};
    let mut poll = Poll::new().expect("poll");
    let mut events = Events::with_capacity(4);
    let mut stream: Option<mio::net::TcpStream> = None;
    loop {
        match step {
            Step::Connect(addr) => {
                before_connect(k.attempts());
                match mio::net::TcpStream::connect(addr) {
                    Ok(mut s) => {
                        poll.registry().register(&mut s, Token(0), Interest::WRITABLE).expect("register");
                        stream = Some(s);
                        step = k.connect_started(Instant::now(), Ok(()));
                    }
                    Err(e) => step = k.connect_started(Instant::now(), Err(e)),
                }
            }
            Step::Retry => {
                if let Some(mut s) = stream.take() {
                    poll.registry().deregister(&mut s).expect("deregister");
                }
                step = Step::Wait;
            }
            Step::Connected(_) | Step::Failed(_) => return (step, stream),
            Step::Wait => {
                let timeout = k.next_deadline().map(|d| d.saturating_duration_since(Instant::now()));
                poll.poll(&mut events, timeout).expect("poll");
                step = Step::Wait;
                for event in events.iter() {
                    if let (Some(s), true) = (stream.as_ref(), event.is_writable()) {
                        step = k.on_writable(Instant::now(), s.take_error(), s.peer_addr());
                    }
                }
                if step == Step::Wait {
                    step = k.on_timer(Instant::now());
                }
            }
        }
    }
}

#[test]
fn connects_through_mio_to_a_real_listener() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let target = listener.local_addr().expect("addr");
    let mut k = Connector::new(target, Instant::now(), Duration::from_secs(20));
    let first = k.start(Instant::now());
    let (step, stream) = drive(&mut k, first, &mut |_| {});
    assert_eq!(step, Step::Connected(target));
    let (_accepted, peer) = listener.accept().expect("accept");
    assert_eq!(stream.and_then(|s| s.local_addr().ok()), Some(peer));
    assert_eq!(k.attempts(), 1);
}

#[test]
fn retries_refused_connects_until_the_adapter_listens() {
    // A port nobody listens on yet: refused until the listener appears before attempt 3.
    let port = choose_port().expect("port");
    let target = SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port);
    let mut listener = None;
    let mut k = Connector::new(target, Instant::now(), Duration::from_secs(20));
    let first = k.start(Instant::now());
    let (step, _stream) = drive(&mut k, first, &mut |attempt| {
        if attempt == 3 && listener.is_none() {
            listener = Some(TcpListener::bind(target).expect("bind the chosen port"));
        }
    });
    assert_eq!(step, Step::Connected(target));
    assert_eq!(k.attempts(), 3);
    assert!(listener.is_some_and(|l| l.accept().is_ok()));
}

#[test]
fn nobody_listening_times_out_with_the_refusal() {
    let port = choose_port().expect("port");
    let target = SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port);
    let mut k = Connector::new(target, Instant::now(), Duration::from_millis(300));
    let first = k.start(Instant::now());
    let (step, _) = drive(&mut k, first, &mut |_| {});
    let Step::Failed(ConnectError::TimedOut { port_known: true, attempts, last_error: Some(e) }) = step else {
        panic!("{step:?}")
    };
    assert!(attempts >= 2, "attempts {attempts}");
    assert_eq!(e, refused().to_string());
}
