//! What the frame decoder reports besides frames: why bytes were skipped ([`Problem`]), the
//! recoverable faults and the two that end trust in a peer's framing ([`Diagnostic`]), an
//! over-cap length claim ([`Claim`]) and the first skipped bytes ([`Preview`]), each with a
//! `Display` that reads as a log line. Small `Copy` values; must not: decode or allocate.

use std::fmt;

/// Why bytes were skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A line that is not `name: value` inside (or instead of) a header block.
    NotAHeader,
    /// The header block grew past [`MAX_HEADER_BLOCK`](super::MAX_HEADER_BLOCK).
    HeaderTooLong,
    /// A `Content-Length` value that is empty or not decimal.
    BadContentLength,
    /// Two `Content-Length` headers in one block that disagree.
    ConflictingContentLength,
    /// A header block that ended without any `Content-Length`.
    MissingContentLength,
}

/// A recoverable fault in the byte stream. Small and `Copy`; `Display` reads as a log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diagnostic {
    /// `bytes` were dropped because of `problem`; decoding resumed at the next `Content-Length`
    /// (or, during a long run of garbage, is still looking). `preview` holds the first dropped
    /// bytes (empty for [`Problem::MissingContentLength`], whose header lines were already taken).
    Skipped { problem: Problem, bytes: usize, preview: Preview },
    /// A frame claimed a body of `declared` bytes, over the cap `max`. The peer's framing can no
    /// longer be trusted: the decoder is finished
    /// ([`Decoder::is_finished`](super::Decoder::is_finished)), drops every later byte and never
    /// yields another frame, and the caller ends the connection.
    BodyTooLarge { declared: Claim, max: usize },
    /// A frame claimed a body of `declared` bytes (within the cap), but a line starting
    /// `Content-Length:` began `at` bytes into that body, which valid JSON never holds: the claim
    /// was a lie and later frames would be swallowed into it. Trust ends exactly as for
    /// [`Diagnostic::BodyTooLarge`] (the decoder is finished).
    HeaderInBody { declared: usize, at: usize },
    /// A complete body of `len` bytes that is not JSON (see [`parse_body`](super::parse_body));
    /// error at `line`:`column`.
    NotJson { len: usize, line: usize, column: usize },
}

/// The body length a `Content-Length` header claimed, when it is over the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The claimed number of bytes.
    Bytes(u64),
    /// A claim too long for a number: how many significant digits it had.
    Digits(usize),
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Claim::Bytes(n) => write!(f, "{n} bytes"),
            Claim::Digits(d) => write!(f, "a {d}-digit number of bytes"),
        }
    }
}

/// Up to 32 bytes of skipped input, for diagnostics. Printed with non-printable bytes escaped.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Preview {
    bytes: [u8; 32],
    len: u8,
}

impl Preview {
    pub(super) fn push(&mut self, data: &[u8]) {
        let at = self.len as usize;
        let n = data.len().min(self.bytes.len() - at);
        self.bytes[at..at + n].copy_from_slice(&data[..n]);
        self.len += n as u8;
    }

    pub(super) fn is_full(&self) -> bool {
        self.len as usize == self.bytes.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The captured bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

impl fmt::Debug for Preview {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self)
    }
}

impl fmt::Display for Preview {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in self.as_bytes() {
            write!(f, "{}", std::ascii::escape_default(b))?;
        }
        Ok(())
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Problem::NotAHeader => "a line that is not a header",
            Problem::HeaderTooLong => "a header block over 16 KiB",
            Problem::BadContentLength => "an invalid Content-Length value",
            Problem::ConflictingContentLength => "two different Content-Length values",
            Problem::MissingContentLength => "a header block without Content-Length",
        })
    }
}

impl Diagnostic {
    /// The same diagnostic without the skipped bytes' first 32 (a mirror client's garbage may be
    /// the rest of a frame that held its `mirrorToken`, which is never logged: SECURITY.md).
    pub fn without_preview(&self) -> Diagnostic {
        match self {
            Diagnostic::Skipped { problem, bytes, .. } => {
                Diagnostic::Skipped { problem: *problem, bytes: *bytes, preview: Preview::default() }
            }
            other => *other,
        }
    }

    /// True for the diagnostics after which the peer's framing is no longer trusted and the decoder
    /// is finished ([`Decoder::is_finished`](super::Decoder::is_finished)): the caller ends the
    /// connection.
    pub fn ends_trust(&self) -> bool {
        matches!(self, Diagnostic::BodyTooLarge { .. } | Diagnostic::HeaderInBody { .. })
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnostic::Skipped { problem, bytes, preview } if preview.len == 0 => {
                write!(f, "skipped {bytes} bytes after {problem}; resynchronising at the next Content-Length")
            }
            Diagnostic::Skipped { problem, bytes, preview } => write!(
                f,
                "skipped {bytes} bytes after {problem} (starting \"{preview}\"); resynchronising at the next Content-Length"
            ),
            Diagnostic::BodyTooLarge { declared, max } => write!(
                f,
                "sent a frame claiming {declared}, over the {max}-byte limit; its framing is no longer trusted"
            ),
            Diagnostic::HeaderInBody { declared, at } => write!(
                f,
                "sent a frame claiming {declared} bytes, but a Content-Length header began {at} bytes into that body; its framing is no longer trusted"
            ),
            Diagnostic::NotJson { len, line, column } => write!(
                f,
                "skipped a {len}-byte message that is not JSON (error at line {line}, column {column})"
            ),
        }
    }
}
