//! What a stop result shows of the frame the program stopped in (README § What a stop shows):
//! the current source line, and the top frame's locals on a stop in a new frame, or only what
//! changed in them since that frame's last read (`x: 1 → 2`, `new: tmp = 10`, `gone: y`).
//! Fetched as stop details after the top frame (`events.rs`): `scopes`, the locals' `variables`,
//! and the children of the few locals whose value says nothing without them (`preview.rs`),
//! pipelined, all within one [`STOP_DETAIL_TIMEOUT`] per stop. Large collections are summarized,
//! never expanded. Must not: answer a tool (the results that report stops call
//! [`Session::stop_frame_lines`]).

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

mod ahead;
mod compare;

pub(super) use ahead::{Ahead, Guess};

use compare::CHANGES_SHOWN;
pub use compare::{changes_text, compare, local_of, Changes, Local};

use super::events::StopDetail;
use super::handles::Kind;
use super::text::clip;
use super::{preview, Origin, Session};
use crate::dap::requests::{Request, Scopes, ScopesArguments, Variables, VariablesArguments};

/// The longest the reads of a stop's frame may take together (from the top frame's answer):
/// past it the stop is reported without what is missing, saying why (a `__repr__` that never
/// returns, or an adapter slow at every answer, must not hold a `step` for long).
pub const STOP_DETAIL_TIMEOUT: Duration = Duration::from_millis(1500);
/// Locals listed at a stop in a new frame; `context` and `variables` have the rest.
const LOCALS_SHOWN: usize = 10;
/// Locals whose children are fetched at a stop for a preview (each is one more round trip).
const STOP_PREVIEWS: usize = 4;
/// Most characters of a local's name, type or scope name in a stop's text.
pub(super) const NAME_CHARS: usize = 120;
/// Locals a stop compares and keeps; past them they are counted, not compared (an adapter may
/// send 100,000).
const COMPARED: usize = 200;

/// Which frame a stop is in, as far as can be told across stops: adapters renumber frames at
/// every stop (debugpy's ids grow), so a frame is its thread, function, source, caller and
/// depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameKey {
    pub thread: i64,
    pub function: Option<String>,
    pub path: Option<String>,
    /// The stack's depth, when known (`RuntimeQuirks::total_frames_exact`).
    pub depth: Option<u64>,
    /// The caller's function and line, where the stop's page has a caller: a frame's caller
    /// stays at its call while the frame lives, and sibling calls (`fib(n - 1)` then
    /// `fib(n - 2)`, at one depth and at the same addresses) are made from different lines.
    pub caller: Option<(Option<String>, Option<u64>)>,
}

impl FrameKey {
    /// The same frame as `other`, as far as can be told: an unknown depth is never the same (a
    /// recursion's calls share everything else).
    pub fn same_as(&self, other: &FrameKey) -> bool {
        self.depth.is_some() && self == other
    }
}

/// How far the current stop's locals have come.
#[derive(Clone, Debug, Default)]
pub enum LocalsRead {
    /// Not asked for (`locals: false`, no frame id, or the stop is not the newest).
    #[default]
    NotAsked,
    /// Asked for; answers outstanding.
    Pending,
    /// The locals scope's name and adapter reference, and its variables in the adapter's order.
    Read { scope: String, reference: i64, variables: std::rc::Rc<Vec<Value>> },
    /// The frame has no cheap locals scope (`scopes` named none).
    NoScope,
    /// A request failed or ran out of time: why.
    Failed(String),
}

/// The last stop whose locals were read: what the next stop in the same frame compares with.
#[derive(Clone, Debug)]
struct Baseline {
    key: FrameKey,
    locals: Vec<Local>,
    revision: u64,
    /// Its place among the session's stops ([`StopFrames::stops`]).
    stop: u64,
    /// What was done to the program's values since this read, by the agent or a mirror client
    /// ([`Session::note_own_change`]), at most [`OWN_CHANGES`].
    yours: Vec<String>,
}

/// Changes of the agent's own a baseline lists; past them, "and more".
const OWN_CHANGES: usize = 3;

/// The current stop's frame view.
#[derive(Clone, Debug, Default)]
pub struct StopFrame {
    /// The stop this view belongs to.
    pub revision: u64,
    pub key: Option<FrameKey>,
    /// The adapter's frame id of the top frame.
    frame_id: Option<i64>,
    /// The current line: its number, as `context` marks it (`→   12  text`), and its text.
    pub line: Option<(u64, String, String)>,
    pub locals: LocalsRead,
    /// Computed when the stop became ready: the locals as compared and shown.
    pub shown: Vec<Local>,
    /// Preview fetches this stop may still send.
    previews_left: usize,
    /// When the frame's reads must be in by ([`STOP_DETAIL_TIMEOUT`] after they began).
    deadline: Option<Instant>,
    /// `Some` when the stop is in the frame of the baseline: what changed since (and its
    /// revision, and whether it was the previous stop).
    pub changes: Option<(Changes, u64, bool)>,
    /// The stop this view is of ([`crate::session::snapshot::Run::stops_seen`] then).
    seen: u64,
    /// When the depth is known: the frames below the top, callers first, as (function, line)
    /// (a caller's line stays at its call while the frames above it live), all of them where
    /// the whole stack was read: which calls a stop shows have ended (`forget_ended_calls`),
    /// and whether the top frame is alone on it ([`StopFrame::alone`]).
    below: std::rc::Rc<Vec<FrameAt>>,
}

impl StopFrame {
    /// The key's depth is known, the whole stack below was read, and no other frame on it runs
    /// the top frame's function: a `next` or `stepOut` from here that ends in this function
    /// with the same caller is still this call, at this depth ([`Session::told_depth`]).
    fn alone(&self) -> bool {
        let Some(key) = self.key.as_ref() else { return false };
        let whole = key.depth.is_some_and(|d| self.below.len() as u64 + 1 == d);
        whole && key.function.is_some() && self.below.iter().all(|f| f.0.is_some() && f.0 != key.function)
    }
}

/// What a stop's stack read tells of its top frame's place: the depth when known, and
/// [`StopFrame::below`].
#[derive(Clone, Debug, Default)]
pub(super) struct Place {
    pub depth: Option<u64>,
    pub below: std::rc::Rc<Vec<FrameAt>>,
}

/// A frame as a stop's key sees it: its function and its line (above 0), as the adapter said.
pub(super) type FrameAt = (Option<String>, Option<u64>);

/// `frame` as a [`FrameAt`].
pub(super) fn frame_at(frame: &crate::dap::requests::StackFrame) -> FrameAt {
    (frame.name.clone(), frame.line.typed().copied().filter(|l| *l > 0))
}

/// Frames whose last read locals are kept for comparing (a caller returned to compares with its
/// own last stop).
const BASELINES: usize = 8;

/// The frame views of a session: the current stop's and the last read locals of recent frames.
#[derive(Debug)]
pub struct StopFrames {
    pub current: StopFrame,
    /// Most recent first, at most [`BASELINES`], one per frame.
    baselines: Vec<Baseline>,
    /// A function (and its source) whose locals did not come within [`STOP_DETAIL_TIMEOUT`]:
    /// its stops read them no more (the adapter may still be computing the last read).
    timed_out: Option<(Option<String>, Option<String>)>,
    /// Stops seen (a counter, to tell whether the baseline is the previous stop).
    stops: u64,
    /// Whether a stop with no call waiting reads its locals (`--stop-locals`).
    pub default_locals: bool,
    /// The ids the last stop's locals were read with, and the reads sent ahead for the current
    /// stop with them (`ahead.rs`).
    guess: Option<Guess>,
    ahead: Ahead,
}

impl StopFrames {
    pub fn new(default_locals: bool) -> StopFrames {
        StopFrames {
            current: StopFrame::default(),
            baselines: Vec::new(),
            timed_out: None,
            stops: 0,
            default_locals,
            guess: None,
            ahead: Ahead::None,
        }
    }

    /// Whether a stop may read its locals ahead (`ahead.rs`): not once a read timed out (a
    /// slow `__repr__` keeps the adapter busy; that function's stops read no locals).
    pub(super) fn may_read_ahead(&self) -> bool {
        self.timed_out.is_none()
    }

    /// The program starts over (`restart`, a relaunch): nothing compares with before.
    pub fn forget(&mut self) {
        self.baselines.clear();
        self.timed_out = None;
        self.current = StopFrame::default();
        self.guess = None;
        self.ahead = Ahead::None;
    }
}

impl Session {
    /// Whether this stop reads the top frame's locals: when calls wait for it, as any of them
    /// asks (`locals`, default on); with none waiting, as `--stop-locals` says.
    pub(super) fn stop_wants_locals(&self) -> bool {
        if self.calls.waiters.is_empty() {
            return self.stops.default_locals;
        }
        self.calls.waiters.iter().any(|w| w.locals)
    }

    /// The key of the stop's top `frame` (with its `caller` from the page, when it had one).
    fn frame_key(
        &self,
        frame: &crate::dap::requests::StackFrame,
        caller: Option<&crate::dap::requests::StackFrame>,
        depth: Option<u64>,
    ) -> FrameKey {
        let location_path = self.run.stop.as_ref().and_then(|s| s.location.as_ref()).and_then(|l| l.path.clone());
        let thread = self.run.stop.as_ref().and_then(|s| s.thread).unwrap_or(0);
        let path = frame.source.as_ref().and_then(|s| s.path.typed().cloned()).or(location_path);
        FrameKey { thread, function: frame.name.clone(), path, depth, caller: caller.map(frame_at) }
    }

    /// Whether this stop's depth may be told from the previous stop's instead of read from a
    /// page of the whole stack: the program got here by one `next` or `stepOut` from the stop
    /// just before, on the same thread, whose depth was known with its function alone on the
    /// stack, on an adapter whose steps stay in the call (`RuntimeQuirks::step_stays_in_call`).
    /// Such a step ends in that call or in a caller (none of which runs that function), so a
    /// stop there in the same function and caller is that call ([`Session::told_depth`]).
    pub(super) fn may_tell_depth(&self) -> bool {
        let Some(stop) = self.run.stop.as_ref().filter(|_| self.link.plan.runtime.step_stays_in_call) else {
            return false;
        };
        let before = &self.stops.current;
        let same_thread = before.key.as_ref().is_some_and(|k| k.depth.is_some() && Some(k.thread) == stop.thread);
        stop.reason == "step"
            && stop.stepped_over_or_out
            && before.alone()
            && same_thread
            && before.seen + 1 == self.run.stops_seen
    }

    /// What the stop's first page tells of its depth (`shown`: the frame shown; `levels` asked
    /// for; `tell`: [`Session::may_tell_depth`] allowed it): the depth when known, and the
    /// frames below. A page shorter than `levels` is the whole stack. `None`: the rest of the
    /// stack must be read to know.
    pub(super) fn stop_depth(
        &self,
        trace: &crate::dap::requests::StackTraceResponse,
        shown: usize,
        levels: u64,
        tell: bool,
    ) -> Option<Place> {
        let frames = &trace.stack_frames;
        let got = frames.len() as u64;
        if shown > 0 {
            return Some(Place::default());
        }
        if got < levels {
            let below: Vec<FrameAt> = frames.get(1..).unwrap_or_default().iter().map(frame_at).collect();
            return Some(Place { depth: Some(got), below: std::rc::Rc::new(below) });
        }
        if tell {
            return self.told_depth(frames.first()?, frames.get(1));
        }
        let exact = self.link.plan.runtime.total_frames_exact;
        Some(Place { depth: trace.total_frames.filter(|_| exact), ..Place::default() })
    }

    /// The depth of a stop [`Session::may_tell_depth`] allowed: the previous stop's, when the top
    /// frame is in the same function, source and caller (that call); `None` when it is not (then
    /// a page of the rest of the stack tells it, `events.rs`). A step that ends in a caller is
    /// not told from the callers read before: a tail call or Go's deferred calls put a new call
    /// where an older one's caller was (the breaker's `tests/native/stop_frame_lldb.rs`
    /// `a_next_over_a_tail_call_is_a_new_frame_not_a_return_to_an_older_call`).
    pub(super) fn told_depth(
        &self,
        frame: &crate::dap::requests::StackFrame,
        caller: Option<&crate::dap::requests::StackFrame>,
    ) -> Option<Place> {
        let before = &self.stops.current;
        let key = before.key.as_ref()?;
        let now = self.frame_key(frame, caller, key.depth);
        (&now == key).then(|| Place { depth: key.depth, below: std::rc::Rc::clone(&before.below) })
    }

    /// The rest of a stack read after its top two frames (`events.rs`): the depth and the frames
    /// below the top. A page that ends before `levels` is the whole rest.
    pub(super) fn rest_of_stack_read(&mut self, revision: u64, rest: &[crate::dap::requests::StackFrame], levels: u64) {
        let current = &mut self.stops.current;
        if current.revision != revision || (rest.len() as u64) >= levels {
            return;
        }
        let Some(key) = current.key.as_mut() else { return };
        let Some(caller) = key.caller.clone() else { return };
        key.depth = Some(2 + rest.len() as u64);
        current.below = std::rc::Rc::new(std::iter::once(caller).chain(rest.iter().map(frame_at)).collect());
    }

    /// Something that may have changed the program's values was done at a stop (`what`, as the
    /// agent would name it: `set_variable total = 1000`, `evaluate items.pop()`): every frame
    /// read before keeps it, and a later stop's changes from that read say that some may be
    /// the agent's own, not the program's (a fresh user's finding: a step "changed" `total`
    /// from 3 to the 1000 they had just set).
    pub(super) fn note_own_change(&mut self, what: String) {
        for b in &mut self.stops.baselines {
            match b.yours.len() {
                n if n < OWN_CHANGES => b.yours.push(what.clone()),
                n if n == OWN_CHANGES => b.yours.push("and more".to_owned()),
                _ => {}
            }
        }
    }

    /// The agent's `set_variable` of `name` in the container `reference` (the adapter's) read
    /// back `value` (the read-back variable, as `variables` gives one): when that container is
    /// the current stop's locals, the frame's baseline takes the new value, so the next stop
    /// compares with what the agent was last told. A fresh user's Delve stop after `amt = 50
    /// (was 100)` said "unchanged" while Delve read `amt` as 100 again: the comparison was with
    /// the read before the set.
    pub(super) fn note_set_local(&mut self, reference: i64, name: &str, value: &Value) {
        let current = &self.stops.current;
        let LocalsRead::Read { reference: locals, .. } = &current.locals else { return };
        if *locals != reference {
            return;
        }
        let (stop, Some(key)) = (self.stops.stops, current.key.as_ref()) else { return };
        let Some(base) = self.stops.baselines.iter_mut().find(|b| b.stop == stop && b.key == *key) else { return };
        if let Some(local) = base.locals.iter_mut().find(|l| l.name == name) {
            *local = local_of(name.to_owned(), value, None);
        }
    }

    /// An `evaluate` with `arguments` is being sent, by the agent (`who`: `evaluate`, `the
    /// watch`) or a mirror client: noted when its expression may write. `calls` counts a call
    /// as a write; a watch or an IDE's hover is evaluated again and again, so for those only an
    /// assignment, a `del`, an increment or a debugger command does (`own_change::may_assign`).
    pub(super) fn note_evaluate(&mut self, arguments: Option<&Value>, calls: bool, who: &str) {
        let Some(e) = arguments.and_then(|a| a.get("expression")).and_then(Value::as_str) else { return };
        let without_parentheses = self.link.plan.quirks.calls_without_parentheses;
        let writes = match calls {
            true => super::own_change::may_change_values_in(e, without_parentheses),
            false => super::own_change::may_assign(e),
        };
        if writes {
            let what = super::own_change::own_change(who, e);
            self.note_own_change(what);
        }
    }

    /// A read of `thread`'s stack from its top at the current stop, by a tool (`stack_trace`,
    /// `context`; `levels` asked for): where it holds the whole stack and the stop's depth is
    /// not known yet (its own page was cut, or only the top frame was read), the stop takes the
    /// depth from it, and so does the baseline the stop's locals left. The program has not run
    /// since, so this is the page the stop would have read. Then the next `next` may be told
    /// its depth ([`Session::may_tell_depth`]) instead of paging the stack again.
    pub(super) fn stack_read_at_stop(&mut self, thread: i64, frames: &[crate::dap::requests::StackFrame], levels: u64) {
        let at_stop = self.run.state == super::snapshot::RunState::Stopped
            && self.stops.current.revision == self.run.stop_revision;
        let Some(top) = frames.first().filter(|_| at_stop && (frames.len() as u64) < levels) else { return };
        let current = &self.stops.current;
        let Some(key) = current.key.as_ref().filter(|k| k.depth.is_none() && k.thread == thread) else { return };
        // The same top frame the stop showed (not a frame below it, as a test's stop shows).
        let caller = frames.get(1).map(frame_at);
        let same_top = current.frame_id.is_some() && top.id.typed().copied() == current.frame_id;
        if !same_top || top.name != key.function || key.caller.as_ref().is_some_and(|c| Some(c) != caller.as_ref()) {
            return;
        }
        let old = key.clone();
        let key = FrameKey { depth: Some(frames.len() as u64), caller, ..old.clone() };
        let stop = self.stops.stops;
        for b in self.stops.baselines.iter_mut().filter(|b| b.stop == stop && b.key == old) {
            b.key = key.clone();
        }
        let current = &mut self.stops.current;
        current.key = Some(key);
        current.below = std::rc::Rc::new(frames[1..].iter().map(frame_at).collect());
        self.forget_ended_calls();
    }

    /// The stop's top frame is known: remembers it and, when wanted, asks for its scopes. Called
    /// before that detail is counted done, so the stop waits for what this sends.
    pub(super) fn ask_stop_frame(
        &mut self,
        revision: u64,
        frame: &crate::dap::requests::StackFrame,
        caller: Option<&crate::dap::requests::StackFrame>,
        place: Place,
        now: Instant,
    ) {
        let Place { depth, below } = place;
        self.stops.stops += 1;
        let location = self.run.stop.as_ref().and_then(|s| s.location.clone()).unwrap_or_default();
        let raw_path = frame.source.as_ref().and_then(|s| s.path.typed().cloned());
        let key = self.frame_key(frame, caller, depth);
        let files = &*self.link.files;
        let line = raw_path
            .zip(location.line)
            .and_then(|(p, n)| super::tools::inspect::current_line(files, &p, n).map(|(m, t)| (n, m, t)));
        let frame_id = frame.id.typed().copied();
        let deadline = now.checked_add(STOP_DETAIL_TIMEOUT);
        let seen = self.run.stops_seen;
        self.stops.current =
            StopFrame { revision, key: Some(key), frame_id, line, deadline, seen, below, ..StopFrame::default() };
        let Some(id) = frame_id.filter(|_| self.stop_wants_locals()) else { return };
        let function = self.stops.current.key.as_ref().map(|k| (k.function.clone(), k.path.clone()));
        if function.is_some() && function == self.stops.timed_out {
            let why = "reading them timed out at an earlier stop in this function (a slow `__repr__`?), and the adapter may still be busy with it: `locals: false` keeps stops quick, `context` or `variables` reads them when wanted";
            self.stops.current.locals = LocalsRead::Failed(why.to_owned());
            return;
        }
        self.stops.current.locals = LocalsRead::Pending;
        if self.reads_ahead_fit(revision, id) {
            return;
        }
        let args = ScopesArguments { frame_id: id };
        self.stop_request::<Scopes>(args, StopDetail::Scopes { revision }, now);
    }

    /// Sends a read of the stop's frame with what is left of its deadline, counted as a detail
    /// the stop waits for; false, with nothing sent, once the deadline has passed (the locals
    /// are then said to be missing).
    pub(super) fn stop_request<R: Request>(
        &mut self,
        arguments: R::Arguments,
        detail: StopDetail,
        now: Instant,
    ) -> bool {
        let left = self.stops.current.deadline.map_or(STOP_DETAIL_TIMEOUT, |d| d.saturating_duration_since(now));
        if left.is_zero() {
            if matches!(detail, StopDetail::Scopes { .. } | StopDetail::Locals { .. }) {
                let why = format!("the frame's reads took more than {} ms", STOP_DETAIL_TIMEOUT.as_millis());
                self.stops.current.locals = LocalsRead::Failed(why);
                self.note_stop_timeout();
            }
            return false;
        }
        self.run.details_await_one_more();
        let arguments = R::arguments(&arguments).unwrap_or(None);
        self.send_with_timeout(R::COMMAND, arguments, Origin::Stop(detail), now, Some(left));
        true
    }

    /// A read of this stop's frame ran out of time: its function's later stops skip the read.
    pub(super) fn note_stop_timeout(&mut self) {
        self.stops.timed_out = self.stops.current.key.as_ref().map(|k| (k.function.clone(), k.path.clone()));
    }

    /// The answer to `scopes` at a stop: asks for the first cheap scope's variables.
    pub(super) fn stop_scopes_answered(&mut self, failure: Option<String>, body: &Value, now: Instant) {
        if let Some(reference) = self.choose_stop_scope(failure, body) {
            self.ask_stop_locals(reference, now);
        }
    }

    /// Takes the locals scope from a stop's `scopes` answer: its reference when there is one
    /// (and the ids it was read with are the guess of the next stop's reads ahead, `ahead.rs`).
    fn choose_stop_scope(&mut self, failure: Option<String>, body: &Value) -> Option<i64> {
        if let Some(why) = failure {
            self.stops.current.locals = LocalsRead::Failed(why);
            return None;
        }
        if !body.is_null() && body.get("scopes").and_then(Value::as_array).is_none() {
            let why = "the adapter's `scopes` answer has no list of scopes".to_owned();
            self.stops.current.locals = LocalsRead::Failed(why);
            return None;
        }
        let scopes = Scopes::parse(Some(body)).unwrap_or_default().scopes;
        // The first scope that is not expensive and has variables (debugpy, lldb-dap and Delve
        // call it "Locals"); one without a name or a reference is passed over.
        let named = scopes
            .into_iter()
            .filter(|s| !s.expensive)
            .find_map(|s| Some((s.name?, s.variables_reference.filter(|r| *r > 0)?)));
        let Some((scope, reference)) = named else {
            self.stops.current.locals = LocalsRead::NoScope;
            return None;
        };
        if let Some(frame) = self.stops.current.frame_id {
            self.note_frame_of([reference], frame);
            let thread = self.run.stop.as_ref().and_then(|s| s.thread);
            self.stops.guess = thread.map(|thread| Guess { thread, frame, reference });
        }
        self.stops.current.locals = LocalsRead::Read { scope, reference, variables: std::rc::Rc::default() };
        Some(reference)
    }

    /// Asks for the variables of the stop's locals scope `reference`.
    fn ask_stop_locals(&mut self, reference: i64, now: Instant) {
        let args = VariablesArguments { variables_reference: reference, ..VariablesArguments::default() };
        let revision = self.run.stop_revision;
        self.stop_request::<Variables>(args, StopDetail::Locals { revision }, now);
    }

    /// The locals' answer: cached for the revision like a `variables` page, then the previews
    /// the shown ones need are asked for together.
    pub(super) fn stop_locals_answered(&mut self, failure: Option<String>, body: &mut Value, now: Instant) {
        if let Some(why) = failure {
            self.stops.current.locals = LocalsRead::Failed(why);
            return;
        }
        let LocalsRead::Read { reference, .. } = self.stops.current.locals else { return };
        // Taken from the answer, which nothing reads after this.
        let Some(list) = body.get_mut("variables").and_then(Value::as_array_mut) else {
            let why = "the adapter's `variables` answer has no list of variables".to_owned();
            self.stops.current.locals = LocalsRead::Failed(why);
            return;
        };
        let vars = std::rc::Rc::new(std::mem::take(list));
        self.note_children_frame(reference, &vars);
        // Cached only while nothing said the values changed since the stop (`invalidated`).
        if self.run.revision == self.run.stop_revision {
            self.view.var_cache.insert(reference, (self.run.revision, std::rc::Rc::clone(&vars)));
        }
        if let LocalsRead::Read { variables, .. } = &mut self.stops.current.locals {
            *variables = std::rc::Rc::clone(&vars);
        }
        let shown =
            vars.iter().filter(|v| !super::tools::inspect::is_noise(v)).take(LOCALS_SHOWN.max(CHANGES_SHOWN) * 2);
        let refs = self.missing_previews(shown);
        self.stops.current.previews_left = 2 * STOP_PREVIEWS;
        self.ask_previews(refs, true, now);
    }

    /// Asks for the children of `refs` for previews, within the stop's budget; `outer`: locals
    /// themselves, whose members that say nothing either are then read one level down (as
    /// `context` does, so its previews are the same from what this caches).
    fn ask_previews(&mut self, refs: Vec<i64>, outer: bool, now: Instant) {
        let revision = self.run.stop_revision;
        let cap = if outer { STOP_PREVIEWS } else { usize::MAX };
        for fetching in refs.into_iter().take(cap) {
            if self.stops.current.previews_left == 0 {
                return;
            }
            self.stops.current.previews_left -= 1;
            let args = preview::fetch_arguments(fetching);
            if !self.stop_request::<Variables>(args, StopDetail::Preview { revision, fetching, outer }, now) {
                return;
            }
        }
    }

    /// A preview's children (a failed fetch caches none: the value shows as the adapter gave it).
    pub(super) fn stop_preview_answered(
        &mut self,
        fetching: i64,
        outer: bool,
        failure: Option<String>,
        body: &Value,
        now: Instant,
    ) {
        if failure.is_some() {
            return;
        }
        let children = std::rc::Rc::new(body.get("variables").and_then(Value::as_array).cloned().unwrap_or_default());
        self.note_children_frame(fetching, &children);
        let inner = if outer { self.missing_previews(children.iter()) } else { Vec::new() };
        if self.run.revision != self.run.stop_revision {
            // The adapter said its values changed since the stop: nothing of this is cached.
        } else if children.len() < preview::PREVIEW_FETCH {
            self.view.var_cache.insert(fetching, (self.run.revision, children));
        } else {
            self.view.preview_cache.insert(fetching, children);
        }
        self.ask_previews(inner, false, now);
    }

    /// Every detail of the stop is in: the locals as shown, compared with the baseline when the
    /// frame is the same, and kept as the next baseline.
    pub(super) fn finish_stop_frame(&mut self) {
        self.forget_ended_calls();
        let LocalsRead::Read { variables, .. } = &self.stops.current.locals else { return };
        let variables = std::rc::Rc::clone(variables);
        let locals: Vec<Local> = variables
            .iter()
            .filter(|v| v.is_object() && !super::tools::inspect::is_noise(v))
            .take(COMPARED)
            .map(|v| {
                let name = self.shown_name(v).map(|n| n.into_owned()).unwrap_or_default();
                let preview = preview::wants_preview(v)
                    .and_then(|r| self.cached_children(r))
                    .filter(|c| !c.is_empty())
                    .map(|c| preview::render(&c, &|r| self.cached_children(r)));
                let mut local = local_of(name, v, preview);
                // A class's own repr may leave its state out (`Quirks::repr_whole_types`).
                if let Some(whole) = self.link.plan.quirks.repr_whole_types {
                    if compare::repr_may_hide(v, whole, &|r| self.cached_children(r)) {
                        local.exact = false;
                    }
                }
                local
            })
            .collect();
        let key = self.stops.current.key.clone();
        let stop = self.stops.stops;
        if let Some(key) = key {
            if let Some(i) = self.stops.baselines.iter().position(|b| b.key.same_as(&key)) {
                let base = self.stops.baselines.remove(i);
                let mut changes = compare(&base.locals, &locals);
                changes.yours = base.yours;
                self.stops.current.changes = Some((changes, base.revision, base.stop + 1 == stop));
            }
            let revision = self.stops.current.revision;
            self.stops.baselines.insert(0, Baseline { key, locals: locals.clone(), revision, stop, yours: Vec::new() });
            self.stops.baselines.truncate(BASELINES);
        }
        self.stops.current.shown = locals;
    }

    /// Drops the baselines of calls this stop shows have ended: on its thread, with its depth
    /// `d` known, a frame deeper than `d` is gone, one at `d` that is not this frame (another
    /// function, or another caller where the page named one) was replaced, and one above it that is not the frame there now (where the stack below was
    /// read) returned. A later call of the same function then shows its locals as new, never
    /// as changes from a call that ended (a fresh user's finding: `k: 0 → 1 · gone: t` at a
    /// second call).
    fn forget_ended_calls(&mut self) {
        let current = &self.stops.current;
        let Some(key) = current.key.as_ref() else { return };
        let Some(d) = key.depth else { return };
        let below = &current.below;
        // Where the stack below was read: the frame at depth `p` (< `d`) and its caller.
        let at = |p: u64| -> Option<(&FrameAt, Option<&FrameAt>)> {
            let i = usize::try_from(d.checked_sub(p + 1)?).ok()?;
            Some((below.get(i)?, below.get(i + 1)))
        };
        let read = below.len() as u64 + 1 == d;
        self.stops.baselines.retain(|b| {
            let Some(bd) = b.key.depth.filter(|_| b.key.thread == key.thread) else { return true };
            match bd.cmp(&d) {
                std::cmp::Ordering::Greater => false,
                // A page of the top frame alone (`locals: false`) names no caller to tell by.
                std::cmp::Ordering::Equal if key.caller.is_none() => {
                    b.key.function == key.function && b.key.path == key.path
                }
                std::cmp::Ordering::Equal => b.key == *key,
                std::cmp::Ordering::Less if read => {
                    at(bd).is_some_and(|(frame, caller)| frame.0 == b.key.function && caller.cloned() == b.key.caller)
                }
                std::cmp::Ordering::Less => true,
            }
        });
    }

    /// The lines a stop result shows of the frame (none when the stop is not the current one or
    /// `locals` is off: then the location alone), and the same facts for `structuredContent`.
    pub(super) fn stop_frame_lines(&mut self, locals: bool, snap: &mut Value) -> String {
        let current = self.run.is_current_stop(self.stops.current.revision);
        if !current || self.stops.current.key.is_none() {
            return String::new();
        }
        // Taken while its lines mint handles (`&mut self`), then put back.
        let view = std::mem::take(&mut self.stops.current);
        let text = self.frame_text(&view, locals, snap);
        self.stops.current = view;
        text
    }

    fn frame_text(&mut self, view: &StopFrame, locals: bool, snap: &mut Value) -> String {
        let mut text = String::new();
        if let Some((n, marked, line)) = &view.line {
            text.push('\n');
            text.push_str(marked);
            snap["source_line"] = json!({"line": n, "text": line});
        }
        if !locals {
            return text;
        }
        if self.run.revision != view.revision && !matches!(view.locals, LocalsRead::NotAsked) {
            // An `invalidated` came after the stop: what was read may be from before it.
            let why = "the adapter said its values changed (`invalidated`) after the stop";
            text.push_str(&format!("\nlocals not shown: {why} (`context` reads them now)"));
            snap["locals_error"] = why.into();
            return text;
        }
        match &view.locals {
            LocalsRead::Pending => {}
            // The stop came while no call asked for them (`--stop-locals off`).
            LocalsRead::NotAsked => {
                text.push_str("\nlocals not read at this stop (none was asked for when it came): `context` reads them")
            }
            // The frame has no cheap scope with variables (or the answer had no body): nothing
            // to show, and nothing that was not read.
            LocalsRead::NoScope => {}
            LocalsRead::Failed(why) => {
                text.push_str(&format!("\nlocals not read: {why} (`context` asks again)"));
                snap["locals_error"] = why.clone().into();
            }
            LocalsRead::Read { scope, reference, .. } => {
                let handle = self.view.handles.mint(Kind::Variables, *reference);
                let heading = match handle {
                    Some(r) => format!("{} [ref {r}]", super::tools::inspect::lowercase_first(scope)),
                    None => super::tools::inspect::lowercase_first(scope),
                };
                let heading = clip(&heading, NAME_CHARS + 12).0;
                match &view.changes {
                    None => self.new_frame_lines(&heading, handle, &view.shown, &mut text, snap),
                    Some((changes, since, previous)) => {
                        let since_text = if *previous { String::new() } else { format!(" since rev {since}") };
                        text.push_str(&format!("\n{heading}{since_text}: {}", changes_text(changes)));
                        let mut m = Map::new();
                        m.insert("since_revision".into(), (*since).into());
                        put_handle(&mut m, handle);
                        let changed: Vec<Value> =
                            changes.changed.iter().map(|(n, b, a)| json!({"name": n, "before": b, "now": a})).collect();
                        m.insert("changed".into(), changed.into());
                        let new: Vec<Value> = changes.new.iter().map(|l| self.local_json(l)).collect();
                        m.insert("new".into(), new.into());
                        m.insert("gone".into(), changes.gone.clone().into());
                        m.insert("maybe_changed".into(), changes.unsure.clone().into());
                        m.insert("unchanged".into(), changes.unchanged.into());
                        if !changes.yours.is_empty() {
                            m.insert("yours".into(), changes.yours.clone().into());
                        }
                        snap["changes"] = Value::Object(m);
                    }
                }
            }
        }
        text
    }

    fn new_frame_lines(
        &mut self,
        heading: &str,
        handle: Option<u32>,
        shown: &[Local],
        text: &mut String,
        snap: &mut Value,
    ) {
        if shown.is_empty() {
            text.push_str(&format!("\n{heading}: none"));
        } else {
            text.push_str(&format!("\n{heading}:"));
        }
        let list: Vec<Value> = shown.iter().take(LOCALS_SHOWN).map(|l| self.local_json(l)).collect();
        for l in &list {
            text.push_str(&format!("\n  {}", super::values::variable_line(l)));
        }
        if shown.len() > LOCALS_SHOWN {
            let more = shown.len() - LOCALS_SHOWN;
            text.push_str(&format!("\n  … {more} more (`context`, or `variables` with the locals' ref)"));
        }
        let mut m = Map::new();
        put_handle(&mut m, handle);
        m.insert("total".into(), shown.len().into());
        m.insert("variables".into(), list.into());
        snap["locals"] = Value::Object(m);
    }

    /// One local for a result: name, shown value, type, and its `ref` when it has children.
    fn local_json(&mut self, l: &Local) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), l.name.clone().into());
        m.insert("value".into(), l.shown.clone().into());
        if let Some(t) = &l.ty {
            m.insert("type".into(), t.clone().into());
        }
        if l.reference > 0 {
            if let Some(r) = self.view.handles.mint(Kind::Variables, l.reference) {
                m.insert("ref".into(), r.into());
            }
        }
        Value::Object(m)
    }
}

fn put_handle(m: &mut Map<String, Value>, handle: Option<u32>) {
    if let Some(r) = handle {
        m.insert("ref".into(), r.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fact`'s frame in `/r.c` at `depth`, called from `fact` at `line`.
    fn key(depth: Option<u64>, line: u64) -> FrameKey {
        FrameKey {
            thread: 1,
            function: Some("fact".into()),
            path: Some("/r.c".into()),
            depth,
            caller: Some((Some("fact".into()), Some(line))),
        }
    }

    #[test]
    fn a_frame_of_unknown_depth_is_never_the_same() {
        assert!(key(Some(3), 4).same_as(&key(Some(3), 4)));
        assert!(!key(Some(3), 4).same_as(&key(Some(4), 4)), "a recursion's next call");
        assert!(!key(None, 4).same_as(&key(None, 4)), "lldb-dap's totalFrames is a guess: depth unknown");
    }

    #[test]
    fn a_recursions_sibling_call_is_another_frame() {
        assert!(
            !key(Some(4), 7).same_as(&key(Some(4), 8)),
            "fib(n - 2) after fib(n - 1): same depth, another call line"
        );
    }
}
