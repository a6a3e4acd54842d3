//! Reading a stop's locals ahead of its top frame, where the adapter allows it
//! (`RuntimeQuirks::pipelined_stop_reads`): the stop's `stackTrace`, `scopes` and `variables`
//! go out together, the last two for the ids the previous stop on that thread read its locals
//! with, and their answers stand in for the stop's own reads only when the `stackTrace` answer
//! names the same top frame id and the `scopes` answer the same locals reference. Otherwise
//! they are dropped and the reads are made as usual (`stop_frame.rs`), so what a stop shows is
//! the same either way; what changes is two round trips fewer (a lone `threads` round trip
//! costs lldb-dap 22 ~0.3 ms on 2 cores: the roundtrip bench's `step` and `continue`).
//! Sound only on an adapter that handles requests one at a time in arrival order, each on the
//! state the one before left: the `variables` then reads the scope that this `scopes` just
//! made. The three are queued in one go, so no other client's request (the mirror's) falls
//! between them. The tests are `ahead_tests.rs` and `tests/native/stop_frame_lldb.rs`.

use std::time::Instant;

use serde_json::Value;

use super::{Session, STOP_DETAIL_TIMEOUT};
use crate::dap::requests::{Request, Scopes, ScopesArguments, Variables, VariablesArguments};
use crate::session::events::StopDetail;
use crate::session::Origin;

/// The ids a stop's locals were read with: what the next stop on that thread asks for ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session) struct Guess {
    pub thread: i64,
    pub frame: i64,
    pub reference: i64,
}

/// Where the reads sent ahead at a stop stand. Any answer that comes out of this order (an
/// adapter that answers out of turn) drops them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::session) enum Ahead {
    /// None sent, or none usable: their answers are dropped as they come.
    #[default]
    None,
    /// Sent at the stop of `revision`; its top frame is not known yet.
    Sent { revision: u64, guess: Guess },
    /// The top frame has the guessed id: the `scopes` answer is the stop's own. `locals_lost`:
    /// the `variables` answer came first, so the scope's variables are asked for again.
    Frame { revision: u64, guess: Guess, locals_lost: bool },
    /// The `scopes` answer named the guessed reference: the `variables` answer is the locals.
    Locals { revision: u64 },
}

impl Session {
    /// Sends the reads ahead for the stop of `revision` on `thread`, right after its
    /// `stackTrace`, when the adapter allows it and an earlier stop on the thread left a guess.
    pub(in crate::session) fn send_reads_ahead(&mut self, thread: i64, revision: u64, now: Instant) {
        self.stops.ahead = Ahead::None;
        let Some(guess) = self.stops.guess.filter(|g| g.thread == thread) else { return };
        self.stops.ahead = Ahead::Sent { revision, guess };
        let scopes = Scopes::arguments(&ScopesArguments { frame_id: guess.frame }).unwrap_or(None);
        let locals = VariablesArguments { variables_reference: guess.reference, ..VariablesArguments::default() };
        let locals = Variables::arguments(&locals).unwrap_or(None);
        for (command, arguments, detail) in [
            (Scopes::COMMAND, scopes, StopDetail::AheadScopes { revision }),
            (Variables::COMMAND, locals, StopDetail::AheadLocals { revision }),
        ] {
            self.run.details_await_one_more();
            self.send_with_timeout(command, arguments, Origin::Stop(detail), now, Some(STOP_DETAIL_TIMEOUT));
        }
    }

    /// The stop's top frame `frame` is known and its locals are wanted: true when the reads
    /// sent ahead were for it, so its own `scopes` is not sent.
    pub(in crate::session) fn reads_ahead_fit(&mut self, revision: u64, frame: i64) -> bool {
        match std::mem::take(&mut self.stops.ahead) {
            Ahead::Sent { revision: r, guess } if r == revision && guess.frame == frame => {
                self.stops.ahead = Ahead::Frame { revision, guess, locals_lost: false };
                true
            }
            _ => false,
        }
    }

    /// The answer to the `scopes` sent ahead at the current stop `revision`.
    pub(in crate::session) fn ahead_scopes_answered(
        &mut self,
        revision: u64,
        failure: Option<String>,
        body: &Value,
        now: Instant,
    ) {
        let Ahead::Frame { revision: r, guess, locals_lost } = std::mem::take(&mut self.stops.ahead) else {
            return;
        };
        if r != revision {
            return;
        }
        let Some(reference) = self.choose_stop_scope(failure, body) else { return };
        if reference == guess.reference && !locals_lost {
            self.stops.ahead = Ahead::Locals { revision };
        } else {
            self.ask_stop_locals(reference, now);
        }
    }

    /// The answer to the `variables` sent ahead at the current stop `revision`.
    pub(in crate::session) fn ahead_locals_answered(
        &mut self,
        revision: u64,
        failure: Option<String>,
        body: &mut Value,
        now: Instant,
    ) {
        match std::mem::take(&mut self.stops.ahead) {
            Ahead::Locals { revision: r } if r == revision => self.stop_locals_answered(failure, body, now),
            // Before its `scopes` answer: out of turn, so that answer asks for them again.
            Ahead::Frame { revision: r, guess, .. } if r == revision => {
                self.stops.ahead = Ahead::Frame { revision, guess, locals_lost: true };
            }
            _ => {}
        }
    }
}
