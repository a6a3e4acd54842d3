//! Byte buffers with caps, sans-IO: the stdio stream's newline-delimited line reader, and the
//! one pending-output buffer ([`OutBuf`]: agentdap's stdout, each DAP connection's outbound
//! frames, each mirror client's socket). They never touch a file descriptor; the event loop
//! moves bytes.

use std::io;

/// The MCP line cap: longer lines are rejected, never buffered whole.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// The output buffer's soft cap: above it the loop stops reading stdin until the client catches
/// up. Responses are never dropped, so the buffer may exceed this by the answers to one line (the
/// loop hands over the next line only while the buffer is under the cap).
pub const OUT_CAP: usize = 4 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One result of [`LineReader::next_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum LineEvent<'a> {
    /// A complete line: no `\n`, trailing `\r` stripped, a leading BOM on the first line
    /// stripped, never blank.
    Line(&'a [u8]),
    /// A line of this many bytes (before stripping, without its `\n`) exceeded the cap and was
    /// dropped; the stream continues with the next line.
    TooLong(usize),
}

/// Splits a byte stream into lines (MCP stdio transport), with a cap on the line length.
///
/// Feed bytes with [`feed`](Self::feed) only after [`next_line`](Self::next_line) has returned
/// `None`, so the buffer holds at most one partial line plus one fed chunk. An over-long line is
/// not kept: once it passes the cap the reader only counts bytes until the next `\n`.
#[derive(Debug)]
pub struct LineReader {
    cap: usize,
    buf: Vec<u8>,
    /// Start of unconsumed data in `buf`.
    start: usize,
    /// Bytes from `start` up to here hold no `\n` (so they are not scanned twice).
    scanned: usize,
    /// Length so far of an over-long line being skipped.
    discarding: Option<usize>,
    /// An over-long line that has ended, reported before anything after it.
    too_long: Option<usize>,
    /// Whether the next line is the stream's first (where a BOM is tolerated).
    first: bool,
    eof: bool,
}

impl Default for LineReader {
    fn default() -> Self {
        LineReader::new(MAX_LINE)
    }
}

impl LineReader {
    /// A reader that rejects lines longer than `cap` bytes (excluding the `\n`).
    pub fn new(cap: usize) -> LineReader {
        LineReader {
            cap,
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            discarding: None,
            too_long: None,
            first: true,
            eof: false,
        }
    }

    /// Appends bytes read from the stream.
    pub fn feed(&mut self, mut data: &[u8]) {
        if let Some(skipped) = self.discarding {
            match data.iter().position(|&b| b == b'\n') {
                None => {
                    self.discarding = Some(skipped.saturating_add(data.len()));
                    return;
                }
                Some(i) => {
                    self.discarding = None;
                    self.too_long = Some(skipped.saturating_add(i));
                    self.first = false;
                    data = &data[i + 1..];
                }
            }
        }
        if self.start > 0 {
            // Each byte is moved at most once: after this, `start` stays 0 until a line ends.
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// Marks the end of the stream: a final line without `\n` is then returned by `next_line`.
    pub fn finish(&mut self) {
        self.eof = true;
        if let Some(skipped) = self.discarding.take() {
            self.too_long = Some(skipped);
        }
    }

    /// Whether `finish` was called and every line has been returned.
    pub fn is_done(&self) -> bool {
        self.eof && self.too_long.is_none() && self.start == self.buf.len()
    }

    /// The next complete line, or `None` when more input is needed (or the stream is done).
    pub fn next_line(&mut self) -> Option<LineEvent<'_>> {
        if let Some(len) = self.too_long.take() {
            return Some(LineEvent::TooLong(len));
        }
        loop {
            let (line_start, line_end) = match self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let end = self.scanned + i;
                    let line = (self.start, end);
                    self.start = end + 1;
                    self.scanned = self.start;
                    line
                }
                None if self.buf.len() - self.start > self.cap => {
                    let len = self.buf.len() - self.start;
                    self.buf.clear();
                    self.start = 0;
                    self.scanned = 0;
                    self.first = false;
                    if self.eof {
                        return Some(LineEvent::TooLong(len));
                    }
                    self.discarding = Some(len);
                    return None;
                }
                None if self.eof && self.start < self.buf.len() => {
                    let line = (self.start, self.buf.len());
                    self.start = self.buf.len();
                    self.scanned = self.start;
                    line
                }
                None => {
                    self.scanned = self.buf.len();
                    return None;
                }
            };
            let first = std::mem::replace(&mut self.first, false);
            if line_end - line_start > self.cap {
                return Some(LineEvent::TooLong(line_end - line_start));
            }
            let (mut a, mut b) = (line_start, line_end);
            if first && self.buf[a..b].starts_with(BOM) {
                a += BOM.len();
            }
            if b > a && self.buf[b - 1] == b'\r' {
                b -= 1;
            }
            if self.buf[a..b].iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(LineEvent::Line(&self.buf[a..b]));
        }
    }
}

/// Pending output for a non-blocking stream: appended at the back, written from the front
/// ([`OutBuf::write_to`], or [`OutBuf::unwritten`] then [`OutBuf::consume`]).
///
/// Its cap is soft: the owner checks [`over_cap`](Self::over_cap) and stops producing (the loop
/// stops reading stdin; a DAP client refuses new requests; a mirror client is cut off); nothing
/// here refuses or drops bytes. Written bytes at the front are compacted away once they are
/// [`COMPACT_AT`] or more and at least half the buffer, so appending stays amortised O(1).
#[derive(Debug)]
pub struct OutBuf {
    buf: Vec<u8>,
    /// Bytes before this offset have been written.
    start: usize,
    /// Pending bytes above which [`OutBuf::over_cap`] holds.
    cap: usize,
}

/// Written bytes at the front of an [`OutBuf`] are compacted away from this many on (bytes).
pub const COMPACT_AT: usize = 64 * 1024;

impl Default for OutBuf {
    /// An empty buffer with the stdout cap, [`OUT_CAP`].
    fn default() -> OutBuf {
        OutBuf::with_cap(OUT_CAP)
    }
}

/// What [`OutBuf::write_to`] achieved.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Written {
    /// Bytes written by this call.
    pub bytes: usize,
    /// The writer said `WouldBlock` (wait for WRITABLE before writing again).
    pub blocked: bool,
}

impl OutBuf {
    /// An empty buffer with the stdout cap, [`OUT_CAP`].
    pub fn new() -> OutBuf {
        OutBuf::default()
    }

    /// An empty buffer whose soft cap is `cap` pending bytes.
    pub fn with_cap(cap: usize) -> OutBuf {
        OutBuf { buf: Vec::new(), start: 0, cap }
    }

    /// The vector to append to (what the MCP layer's `Context::out` is given). Bytes already
    /// in it before the unwritten part are an implementation detail: only append.
    pub fn tail(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Bytes not written yet.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Whether more than the cap is pending.
    pub fn over_cap(&self) -> bool {
        self.pending() > self.cap
    }

    /// The bytes not written yet.
    pub fn unwritten(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// Marks the first `n` bytes of [`OutBuf::unwritten`] as written (at most all of them).
    pub fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.buf.len());
        self.compact();
    }

    /// Takes every pending byte, leaving the buffer empty.
    pub fn take(&mut self) -> Vec<u8> {
        self.buf.drain(..self.start);
        self.start = 0;
        std::mem::take(&mut self.buf)
    }

    /// Drops everything pending (the reader has gone away).
    pub fn clear(&mut self) {
        self.buf.clear();
        self.start = 0;
    }

    /// Writes pending bytes until done or the writer reports `WouldBlock`; retries `Interrupted`.
    ///
    /// Errors: any other error of the writer (e.g. `BrokenPipe`); what was written before it is
    /// consumed.
    pub fn write_to(&mut self, w: &mut impl io::Write) -> io::Result<Written> {
        let mut written = Written { bytes: 0, blocked: false };
        let result = loop {
            if self.start == self.buf.len() {
                break Ok(());
            }
            match w.write(&self.buf[self.start..]) {
                Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => {
                    self.start += n;
                    written.bytes += n;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    written.blocked = true;
                    break Ok(());
                }
                Err(e) => break Err(e),
            }
        };
        self.compact();
        result.map(|()| written)
    }

    fn compact(&mut self) {
        if self.start == self.buf.len() {
            self.clear();
        } else if self.start >= COMPACT_AT && self.start * 2 >= self.buf.len() {
            // Moving the rest costs at most what was just written, so appending stays amortised O(1).
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }
}

#[cfg(test)]
mod tests;
