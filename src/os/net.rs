//! Socket options agentdap sets on its DAP connections to adapters; no policy, no protocol.

use std::os::fd::AsRawFd;

/// Asks the kernel to acknowledge what `socket` receives at once rather than after the delayed-ACK
/// timer (Linux `tcp(7)`, `TCP_QUICKACK`). An adapter that writes a response and then an event as
/// two small segments without `TCP_NODELAY` holds the second until the first is acknowledged
/// (Nagle's algorithm), so with a delayed ACK every `next` → `stopped` costs about 40 ms: rdbg
/// 1.4.0's `step` and `continue` measured 44 ms through a raw client that left the option off and
/// about 1 ms with it (benches/roundtrip/rdbg.rs). The kernel clears the option as it sees fit, so
/// it is set again after every read. Errors are ignored: without it only time is lost.
pub fn quick_ack(socket: &impl AsRawFd) {
    let one: libc::c_int = 1;
    // SAFETY: `setsockopt` reads `size_of::<c_int>()` bytes from a pointer to a live `c_int`;
    // the descriptor is the caller's open socket for the duration of the call.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_QUICKACK,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        log::trace!("TCP_QUICKACK: {}", std::io::Error::last_os_error());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn quick_ack_is_set_on_a_connected_socket() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let stream = std::net::TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        quick_ack(&stream);
        let mut value: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: `getsockopt` writes at most `len` bytes into the live `c_int`.
        let rc = unsafe {
            libc::getsockopt(
                stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_QUICKACK,
                (&mut value as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        assert_eq!((rc, value), (0, 1));
    }
}
