//! `mio::Token` encoding: reserved tokens for the fixed sources, (kind, slab key) for the rest.
//! Pure arithmetic; it owns no sources and never touches mio's registry.
//!
//! A token is one `usize`. Its top [`KIND_BITS`] bits name the source kind, the remaining bits
//! hold the slab key. Kind 0 is reserved for the fixed sources (stdin, stdout, signals), whose
//! "key" is a fixed small number. Decoding is total: every `usize` decodes to a [`Source`] or to
//! `None`, so an event for a token nobody issued is simply ignored.

use mio::Token;

/// Bits of a token that name the source kind.
pub const KIND_BITS: u32 = 8;
const KEY_BITS: u32 = usize::BITS - KIND_BITS;
const KEY_MASK: usize = (1usize << KEY_BITS) - 1;

/// The largest slab key a token can carry (2^56 − 1 on 64-bit targets).
pub const MAX_KEY: usize = KEY_MASK;

/// The MCP stdin stream (reserved).
pub const STDIN: Token = Token(0);
/// The MCP stdout stream (reserved; registered WRITABLE only while output is pending).
pub const STDOUT: Token = Token(1);
/// The signal source (a `signalfd` for SIGTERM, SIGINT, SIGHUP and SIGCHLD; reserved).
pub const SIGNALS: Token = Token(2);

/// Kinds of dynamically created sources, each with its own slab in the server.
///
/// Adding a kind: add a variant here with a new, never reused tag, add it to [`Kind::from_tag`],
/// and give the server a slab and a branch in its dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A pipe to or from an adapter process (its stdin, stdout or stderr).
    AdapterPipe,
    /// A TCP stream to an adapter (or a debug server already listening).
    AdapterStream,
    /// A mirror listener on 127.0.0.1 (IDE attach).
    MirrorListener,
    /// A connected mirror client (an IDE speaking DAP).
    MirrorClient,
    /// A pipe to or from a process agentdap runs for an adapter (`runInTerminal`).
    TerminalPipe,
    /// A pipe from a helper command agentdap runs for the session layer (a job).
    JobPipe,
}

impl Kind {
    const fn tag(self) -> usize {
        match self {
            Kind::AdapterPipe => 1,
            Kind::AdapterStream => 2,
            Kind::MirrorListener => 3,
            Kind::MirrorClient => 4,
            Kind::TerminalPipe => 5,
            Kind::JobPipe => 6,
        }
    }

    fn from_tag(tag: usize) -> Option<Kind> {
        match tag {
            1 => Some(Kind::AdapterPipe),
            2 => Some(Kind::AdapterStream),
            3 => Some(Kind::MirrorListener),
            4 => Some(Kind::MirrorClient),
            5 => Some(Kind::TerminalPipe),
            6 => Some(Kind::JobPipe),
            _ => None,
        }
    }
}

/// What a token refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// [`STDIN`].
    Stdin,
    /// [`STDOUT`].
    Stdout,
    /// [`SIGNALS`].
    Signals,
    /// A dynamic source: its kind and its key in that kind's slab (which may be vacant by now).
    Dynamic(Kind, usize),
}

/// The token for slab entry `key` of `kind`, or `None` when `key` exceeds [`MAX_KEY`].
pub fn encode(kind: Kind, key: usize) -> Option<Token> {
    if key > MAX_KEY {
        return None;
    }
    Some(Token((kind.tag() << KEY_BITS) | key))
}

/// What `token` refers to, or `None` for a token no source of this process is ever given.
pub fn decode(token: Token) -> Option<Source> {
    let tag = token.0 >> KEY_BITS;
    let key = token.0 & KEY_MASK;
    if tag == 0 {
        return match token {
            STDIN => Some(Source::Stdin),
            STDOUT => Some(Source::Stdout),
            SIGNALS => Some(Source::Signals),
            _ => None,
        };
    }
    Kind::from_tag(tag).map(|kind| Source::Dynamic(kind, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [Kind; 6] = [
        Kind::AdapterPipe,
        Kind::AdapterStream,
        Kind::MirrorListener,
        Kind::MirrorClient,
        Kind::TerminalPipe,
        Kind::JobPipe,
    ];

    #[test]
    fn reserved_tokens_decode_to_fixed_sources() {
        assert_eq!(decode(STDIN), Some(Source::Stdin));
        assert_eq!(decode(STDOUT), Some(Source::Stdout));
        assert_eq!(decode(SIGNALS), Some(Source::Signals));
        assert_eq!(decode(Token(3)), None);
        assert_eq!(decode(Token(KEY_MASK)), None);
    }

    #[test]
    fn dynamic_tokens_round_trip_and_never_collide_with_reserved_ones() {
        for kind in KINDS {
            for key in [0, 1, 2, 3, 4096, MAX_KEY] {
                let token = encode(kind, key).unwrap();
                assert_eq!(decode(token), Some(Source::Dynamic(kind, key)));
                assert!(![STDIN, STDOUT, SIGNALS].contains(&token));
            }
            assert_eq!(encode(kind, MAX_KEY + 1), None);
        }
    }

    #[test]
    fn unknown_kind_tags_are_ignored() {
        assert_eq!(decode(Token(7 << KEY_BITS)), None);
        assert_eq!(decode(Token(usize::MAX)), None);
    }
}
