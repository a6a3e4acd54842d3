//! Session state as the agent sees it: run state, the last stop, and the snapshot every execution
//! or inspection result carries (README § Tools), as one text line plus the same facts as JSON.

use serde_json::{Map, Value};

use crate::dap::requests::{ExceptionInfoResponse, StackFrame};

/// What a post-mortem session reads instead of a live program (`attach {core, program}`,
/// `session::postmortem`; kept in `Family::core`).
#[derive(Clone, Debug)]
pub struct PostMortem {
    /// The core file, absolute.
    pub core: String,
    /// The binary that dumped it, absolute.
    pub program: String,
    /// The crash's top frame (`runtime.raise` at `sys_linux_amd64.s:159`) when the program's
    /// frame below the runtime's is the one shown (`CoreOpen::runtime_frames`).
    pub below: Option<String>,
}

/// Where a session is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// The adapter is starting, or the start-up choreography is under way.
    Starting,
    Running,
    Stopped,
    /// The debuggee exited (`exited` event seen; the exit code is known).
    Exited,
    /// The session ended without an exit code (`terminated`, adapter gone, disconnected).
    Terminated,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Starting => "starting",
            RunState::Running => "running",
            RunState::Stopped => "stopped",
            RunState::Exited => "exited",
            RunState::Terminated => "terminated",
        }
    }

    /// True once the session can no longer run (exited or terminated).
    pub fn is_over(self) -> bool {
        matches!(self, RunState::Exited | RunState::Terminated)
    }
}

/// A source location (1-based line and column, DAP `linesStartAt1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    pub path: Option<String>,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub function: Option<String>,
    /// The source's `sourceReference` when its text comes from the adapter (DAP `source`),
    /// not from a file.
    pub source_ref: Option<i64>,
}

impl Location {
    /// The location of a DAP `StackFrame` given as JSON (read as [`StackFrame`]; not an
    /// object: nothing known).
    pub fn from_frame(frame: &Value) -> Location {
        use serde::Deserialize;
        Location::from_stack_frame(&StackFrame::deserialize(frame).unwrap_or_default())
    }

    /// The location of a DAP `StackFrame` (DAP § Types › StackFrame): the source's path, else
    /// its name; the line and column above 0; the function's readable name.
    pub fn from_stack_frame(frame: &StackFrame) -> Location {
        let source = frame.source.as_ref();
        Location {
            path: source
                .and_then(|s| s.path.typed().or(s.name.typed()))
                .map(|p| super::text::clip(p, super::text::FRAME_PATH_CHARS).0),
            line: frame.line.typed().copied().filter(|&l| l > 0),
            column: frame.column.typed().copied().filter(|&c| c > 0),
            function: frame
                .name
                .as_deref()
                .map(|n| super::text::clip(&super::names::readable_frame_name(n), super::text::FRAME_NAME_CHARS).0),
            source_ref: source.and_then(|s| s.source_reference).filter(|&r| r > 0),
        }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        put(&mut m, "path", self.path.as_deref().map(Value::from));
        put(&mut m, "line", self.line.map(Value::from));
        put(&mut m, "column", self.column.map(Value::from));
        put(&mut m, "function", self.function.as_deref().map(Value::from));
        put(&mut m, "source_ref", self.source_ref.map(Value::from));
        Value::Object(m)
    }

    /// `app.py:12 in total()` — the file name only, for the text line.
    pub fn short(&self) -> String {
        let mut s = String::new();
        if let Some(p) = &self.path {
            s.push_str(p.rsplit('/').next().unwrap_or(p));
            if let Some(l) = self.line {
                s.push_str(&format!(":{l}"));
            }
        }
        if let Some(f) = &self.function {
            if !s.is_empty() {
                s.push_str(" in ");
            }
            s.push_str(f);
            if !f.ends_with(')') {
                s.push_str("()");
            }
        }
        s
    }
}

/// Who owns the breakpoints a stop was credited to, as the stop's result says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Only the person's.
    Person,
    /// The agent's and the person's (an identical line both set, or two breakpoints hit at once).
    Both,
}

impl Owner {
    /// ` — the person's breakpoint`, for the headline after the place.
    pub fn headline_text(self) -> &'static str {
        match self {
            Owner::Person => " — the person's breakpoint",
            Owner::Both => " — your breakpoint and the person's",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Owner::Person => "person",
            Owner::Both => "agent and person",
        }
    }
}

/// The last stop, from the DAP `stopped` event plus the top frame agentdap fetched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stop {
    pub reason: String,
    pub description: Option<String>,
    pub text: Option<String>,
    pub thread: Option<i64>,
    pub all_threads_stopped: bool,
    /// agentdap's ids of the breakpoints hit (see [`crate::session::breakpoints::Entry::id`]).
    pub hit_breakpoints: Vec<i64>,
    /// The adapter's own ids from the event, for matching its answers (`run_to`).
    pub adapter_hits: Vec<i64>,
    /// Set when `hitBreakpointIds` named a breakpoint of the person's (an attached IDE's).
    pub owner: Option<Owner>,
    pub location: Option<Location>,
    /// For `reason: exception`: what was raised (from `exceptionInfo`, else the event's text).
    pub exception: Option<ExceptionStop>,
    /// The adapter reports the agent's `pause` as an exception stop naming its interrupt signal
    /// (`Quirks::pause_signal`): nothing was raised by the program.
    pub requested_pause: bool,
    /// The person in the IDE resumed or paused the program into this stop (a mirror with
    /// control, `session::mirror`): the request they sent.
    pub by_person: Option<String>,
    /// The one resume since the previous stop was a `next` or `stepOut` (by anyone), with no
    /// `pause` sent and no breakpoint named. Where the adapter's steps stay in their call
    /// (`RuntimeQuirks::step_stays_in_call`: LLDB's do, Delve's over a `panic()` do not), such a
    /// step ends in the call it began in or in a caller, and `stop_frame.rs` tells the stop's
    /// depth from the stop before (`Session::may_tell_depth`).
    pub stepped_over_or_out: bool,
    /// A step of another thread was under way, and this stop is not its end (a breakpoint of
    /// this stop's thread came first): the step's kind and thread.
    pub interrupted_step: Option<(&'static str, i64)>,
    /// This stop says `step` although the resume that led here was no step: it ends the step
    /// (its kind) that the stop at the revision given interrupted, which the adapter kept pending
    /// (LLDB's step plans and rdbg 1.4.0 do: a fresh user's `continue` ended as `(step)`).
    pub finished_step: Option<(&'static str, u64)>,
    /// Where execution is paused when that is not the frame shown: the stack is the exception's
    /// traceback, and the frames above this one already left (`Quirks::paused_frame_marker`).
    pub paused_in: Option<Location>,
    /// The frame shown is the program's, not the exception's top one
    /// (`RuntimeQuirks::exception_runtime_frames`): its index on the stack, and the top frame.
    pub runtime_above: Option<(usize, Location)>,
}

/// The reason of a stop that stands for a step the adapter refused (`RuntimeQuirks::refused_step`):
/// the program did not move.
pub const STEP_REFUSED: &str = "step refused";

/// `text` cut before `note` (and the spaces before it): `AssertionError       (note: …)` →
/// `AssertionError`.
pub fn without_note(text: &str, note: &str) -> String {
    match text.find(note) {
        Some(i) => text[..i].trim_end().to_owned(),
        None => text.to_owned(),
    }
}

/// The exception a stop is about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExceptionStop {
    /// The exception's type name, e.g. `ZeroDivisionError`.
    pub type_name: Option<String>,
    /// Its message, e.g. `division by zero`.
    pub message: Option<String>,
    /// Set when the exception is the program asking to exit (debugpy stops a non-zero
    /// `sys.exit` as a `SystemExit` exception): the code it will exit with on `continue`.
    pub exit_code: Option<i64>,
}

impl ExceptionStop {
    /// From a DAP `exceptionInfo` response body (DAP § Requests: ExceptionInfo): the type from
    /// `details.typeName`, else `exceptionId`; the message from `details.message`, else
    /// `description`.
    /// `type` holds `<Name>: <message>` and no message came apart
    /// (`Quirks::exception_id_has_message`, js-debug's `exceptionId: "TypeError: x is not a
    /// function"`): the name before the first `: ` is the type when it reads as one (letters,
    /// digits, `_`, `$`, `.`), the rest the message.
    pub fn split_message_from_type(&mut self) {
        if self.message.is_some() {
            return;
        }
        let Some((name, message)) = self.type_name.as_deref().and_then(|t| t.split_once(": ")) else { return };
        let is_name = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || "_$.".contains(c));
        if is_name && !message.is_empty() {
            (self.type_name, self.message) = (Some(name.to_owned()), Some(message.to_owned()));
        }
    }

    pub fn from_info(info: &ExceptionInfoResponse) -> ExceptionStop {
        let text = |v: Option<&String>| v.filter(|s| !s.is_empty()).cloned();
        let details = info.details.as_ref();
        ExceptionStop {
            type_name: text(details.and_then(|d| d.type_name.as_ref())).or_else(|| text(info.exception_id.as_ref())),
            message: text(details.and_then(|d| d.message.as_ref())).or_else(|| text(info.description.as_ref())),
            exit_code: None,
        }
    }

    /// From the `stopped` event alone, for adapters without `exceptionInfo`: debugpy puts the
    /// type in `text` and the message in `description`; others put `Type: message` in either,
    /// or Ruby's inspection of the exception (rdbg 1.4.0: `#<ZeroDivisionError: divided by 0> is
    /// raised.`).
    pub fn from_event(text: Option<&str>, description: Option<&str>) -> Option<ExceptionStop> {
        let inspected = |s: &str| {
            let inner = s.strip_prefix("#<")?;
            let inner = inner.strip_suffix("> is raised.").or_else(|| inner.strip_suffix('>'))?;
            let (t, m) = inner.split_once(": ")?;
            let is_name = !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':');
            is_name.then(|| ExceptionStop {
                type_name: Some(t.to_owned()),
                message: Some(m.to_owned()),
                exit_code: None,
            })
        };
        if let Some(found) = text.or(description).and_then(inspected) {
            return Some(found);
        }
        match (text, description) {
            (Some(t), Some(d)) if t != d => {
                Some(ExceptionStop { type_name: Some(t.to_owned()), message: Some(d.to_owned()), exit_code: None })
            }
            (Some(one), _) | (None, Some(one)) => Some(match one.split_once(": ") {
                Some((t, m)) if !t.contains(' ') => {
                    ExceptionStop { type_name: Some(t.to_owned()), message: Some(m.to_owned()), exit_code: None }
                }
                _ => ExceptionStop { type_name: None, message: Some(one.to_owned()), exit_code: None },
            }),
            (None, None) => None,
        }
    }

    /// The type name without an adapter's note from `note` on (`Quirks::paused_frame_marker`).
    pub fn without_note(&mut self, note: &str) {
        self.type_name = self.type_name.as_deref().map(|t| without_note(t, note));
    }

    /// Marks a `SystemExit` as the program's exit request and reads its code the way Python
    /// does: `None`/empty → 0, an integer → itself, anything else (a message) → 1.
    pub fn note_system_exit(&mut self) {
        if self.type_name.as_deref() != Some("SystemExit") {
            return;
        }
        let m = self.message.as_deref().map(str::trim).unwrap_or("");
        self.exit_code = Some(match m {
            "" | "None" => 0,
            other => other.parse().unwrap_or(1),
        });
    }

    /// `ZeroDivisionError: division by zero`, or for a `SystemExit` what `continue` will do.
    pub fn summary(&self) -> String {
        self.summary_stopping_again(false)
    }

    /// [`ExceptionStop::summary`]; `again`: every raised exception stops (debugpy's `raised`
    /// filter), so the exit stops again in each frame it leaves before the program ends (a fresh
    /// user's `continue` from a `SystemExit` stop stopped once more, at the module's call).
    pub fn summary_stopping_again(&self, again: bool) -> String {
        let mut s = match (&self.type_name, &self.message) {
            (Some(t), Some(m)) => format!("{t}: {m}"),
            (Some(one), None) | (None, Some(one)) => one.clone(),
            (None, None) => "an exception".to_owned(),
        };
        if let Some(code) = self.exit_code {
            let message = self.message.as_deref().unwrap_or("");
            s = match again {
                false => format!(
                    "SystemExit({message}): the program called sys.exit; `continue` lets the program exit with code {code}"
                ),
                true => format!(
                    "SystemExit({message}): the program called sys.exit; it exits with code {code}, though with the \
                     `raised` filter `continue` stops again in each frame the exit leaves"
                ),
            };
        }
        s
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        put(&mut m, "type", self.type_name.as_deref().map(Value::from));
        put(&mut m, "message", self.message.as_deref().map(Value::from));
        Value::Object(m)
    }
}

impl Stop {
    /// Reads a DAP `stopped` event body (DAP § Events: Stopped).
    pub fn from_event(body: &Value) -> Stop {
        let hits: Vec<i64> = body
            .get("hitBreakpointIds")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default();
        Stop {
            reason: body.get("reason").and_then(Value::as_str).unwrap_or("unknown").to_owned(),
            description: body.get("description").and_then(Value::as_str).map(str::to_owned),
            text: body.get("text").and_then(Value::as_str).map(str::to_owned),
            thread: body.get("threadId").and_then(Value::as_i64),
            all_threads_stopped: body.get("allThreadsStopped").and_then(Value::as_bool).unwrap_or(false),
            // Until the session translates them (`BreakpointStore::stable_ids`), the adapter's.
            hit_breakpoints: hits.clone(),
            adapter_hits: hits,
            owner: None,
            location: None,
            exception: None,
            requested_pause: false,
            by_person: None,
            stepped_over_or_out: false,
            interrupted_step: None,
            finished_step: None,
            paused_in: None,
            runtime_above: None,
        }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("reason".into(), self.reason.clone().into());
        put(&mut m, "description", self.description.as_deref().map(Value::from));
        put(&mut m, "text", self.text.as_deref().map(Value::from));
        put(&mut m, "thread", self.thread.map(Value::from));
        if self.all_threads_stopped {
            m.insert("all_threads_stopped".into(), true.into());
        }
        if !self.hit_breakpoints.is_empty() {
            m.insert("hit_breakpoints".into(), self.hit_breakpoints.clone().into());
        }
        put(&mut m, "breakpoint_owner", self.owner.map(|o| o.as_str().into()));
        put(&mut m, "location", self.location.as_ref().map(Location::to_json));
        put(&mut m, "by_person", self.by_person.as_deref().map(Value::from));
        put(&mut m, "paused_in", self.paused_in.as_ref().map(Location::to_json));
        if let Some((index, top)) = &self.runtime_above {
            m.insert("shown_frame".into(), serde_json::json!({"index": index, "exception_top": top.to_json()}));
        }
        if let Some((kind, thread)) = self.interrupted_step {
            m.insert("interrupted_step".into(), serde_json::json!({"kind": kind, "thread": thread}));
        }
        if let Some((kind, revision)) = self.finished_step {
            m.insert("finished_step".into(), serde_json::json!({"kind": kind, "interrupted_at_revision": revision}));
        }
        if self.requested_pause {
            m.insert("requested_pause".into(), true.into());
        } else if let Some(e) = &self.exception {
            m.insert("exception".into(), e.to_json());
            put(&mut m, "exit_code", e.exit_code.map(Value::from));
        }
        Value::Object(m)
    }
}

/// Inserts `value` under `key` unless it is `None` (results omit empty fields).
pub fn put(m: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        m.insert(key.to_owned(), v);
    }
}

/// A session's run state and its stop: where the debuggee is, the revision, what is known about
/// the current stop, and how the run ended.
#[derive(Debug)]
pub struct Run {
    pub(crate) state: RunState,
    /// Bumped on every stopped↔running transition.
    pub(crate) revision: u64,
    pub(crate) stop: Option<Stop>,
    /// The revision the current stop began at: its details answer for it even when an
    /// `invalidated` event moved the revision on meanwhile.
    pub(crate) stop_revision: u64,
    /// How far the current stop's details have come.
    details: StopDetails,
    /// The fatal signal (name, number) the last stop was at, while no other stop followed.
    pub(crate) stop_signal: Option<(&'static str, i64)>,
    /// (revision, thread, adapter frame id) of the top frame fetched at the last stop.
    pub(crate) top_frame: Option<(u64, i64, i64)>,
    /// The index on the stack of the frame that stop shows, `top_frame`'s: 0 but for a test's
    /// frame below its runner's, a core's or a panic's below the runtime's (`events.rs`).
    pub(crate) shown_frame: usize,
    /// A resume was sent and neither its response nor a `continued`/`stopped` came yet.
    pub(crate) resume_unacked: bool,
    /// A `pause` was sent and no stop has come since.
    pub(crate) pause_sent: bool,
    /// Resumes sent since the last stop (saturating), and whether the last was `next` or
    /// `stepOut` ([`Stop::stepped_over_or_out`]).
    pub(crate) resumes_since_stop: u8,
    pub(crate) last_resume_over_or_out: bool,
    /// The last resume, when it was a step: which (`over`, `in`, `out`, `back`) and its thread.
    pub(crate) last_step: Option<(&'static str, i64)>,
    /// A step a stop of another reason interrupted: its kind, its thread and that stop's
    /// revision, until its thread's stop ends it ([`Stop::finished_step`]) or another step
    /// replaces it.
    pub(crate) unfinished_step: Option<(&'static str, i64, u64)>,
    /// `stopped` events seen, to tell the stop right before this one.
    pub(crate) stops_seen: u64,
    /// The (state, revision) last announced to resource subscribers.
    pub(crate) last_announced: Option<(RunState, u64)>,
    pub(crate) exit_code: Option<i64>,
    /// The program died of this signal (name, number): the adapter reported its number as the
    /// exit code after the agent resumed it from that signal's stop
    /// (`RuntimeQuirks::signal_exit_as_status`).
    pub(crate) killed_by: Option<(&'static str, i64)>,
    /// `terminated` came from an adapter that reports the exit only after `disconnect`
    /// ([`crate::dap::adapters::ExitReport::ConsoleAfterDisconnect`]): the waits end when the
    /// disconnect is answered, with the exit code read meanwhile.
    pub(crate) awaiting_exit_report: bool,
    /// The program ended because agentdap ended it (`disconnect`, `terminate`, shutdown): its exit
    /// code is the kill's, not the program's own.
    pub(crate) ended_by_agentdap: bool,
    /// The adapter's own entry stop came (`RuntimeQuirks::entry_stop_repeats`: a later one is
    /// passed over).
    pub(crate) entry_seen: bool,
    /// Why the session ended early (launch refused, adapter died), for `sessions` and results.
    pub(crate) failure: Option<String>,
    /// The `terminateDebuggee` of the `disconnect` agentdap sent: `Some(false)` let go of the
    /// program, `Some(true)` asked the adapter to end it; `None` while none was sent with a
    /// choice (the adapter's own default applies).
    pub(crate) disconnect_terminates: Option<bool>,
    /// The stop a resume left, kept until the adapter accepts the resume: a refused one (rdbg
    /// 1.4.0's `stepBack` without recording answers `cancelled`) leaves the program there.
    pub(crate) stop_before_resume: Option<Stop>,
}

/// How far a stop's details (top frame, exception info, thread list) have come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopDetails {
    /// This many answers are still awaited (0: none asked for yet, or the run moved on).
    Awaiting(u8),
    /// Every answer is in (or could not be had): results may be written.
    Ready,
}

impl Run {
    /// A request is going to the adapter (from agentdap or a mirror client): counts it when it
    /// resumes the program (`goto`, `restartFrame` and `restart` too).
    pub(crate) fn note_request(&mut self, command: &str, arguments: Option<&serde_json::Value>) {
        let resumes =
            crate::mirror::RESUMES.contains(&command) || ["goto", "restartFrame", "restart"].contains(&command);
        if resumes {
            self.resumes_since_stop = self.resumes_since_stop.saturating_add(1);
            self.last_resume_over_or_out = command == "next" || command == "stepOut";
            let kind = match command {
                "next" => Some("over"),
                "stepIn" => Some("in"),
                "stepOut" => Some("out"),
                "stepBack" => Some("back"),
                _ => None,
            };
            let thread = arguments.and_then(|a| a.get("threadId")).and_then(serde_json::Value::as_i64);
            self.last_step = kind.zip(thread);
        }
    }

    /// The step that led to this stop, when one step alone did (read before [`Run::note_stopped`]).
    pub(crate) fn step_to_this_stop(&self) -> Option<(&'static str, i64)> {
        self.last_step.filter(|_| self.resumes_since_stop == 1)
    }

    /// A `stopped` event: whether the program got here by one `next` or `stepOut` alone, and
    /// the count starts over.
    pub(crate) fn note_stopped(&mut self) -> bool {
        let stepped = self.resumes_since_stop == 1 && self.last_resume_over_or_out;
        self.resumes_since_stop = 0;
        self.last_resume_over_or_out = false;
        self.stops_seen += 1;
        stepped
    }

    /// Whether a stop detail asked for at the stop of `revision` belongs to the stop the session
    /// is at now.
    pub(crate) fn is_current_stop(&self, revision: u64) -> bool {
        self.state == RunState::Stopped && revision == self.stop_revision
    }

    /// True once the stop's location is known (or could not be): results may be written.
    pub(crate) fn stop_ready(&self) -> bool {
        self.details == StopDetails::Ready
    }

    /// A new stop (or a relaunch): nothing asked for yet.
    pub(crate) fn details_reset(&mut self) {
        self.details = StopDetails::Awaiting(0);
    }

    /// `n` answers are now awaited for the current stop.
    pub(crate) fn details_await(&mut self, n: u8) {
        self.details = StopDetails::Awaiting(n);
    }

    /// One more answer is awaited.
    pub(crate) fn details_await_one_more(&mut self) {
        self.details = match self.details {
            StopDetails::Awaiting(n) => StopDetails::Awaiting(n.saturating_add(1)),
            StopDetails::Ready => StopDetails::Awaiting(1),
        };
    }

    /// One answer is in; true when none is awaited any more (the stop is then ready).
    pub(crate) fn details_one_done(&mut self) -> bool {
        self.details = match self.details {
            StopDetails::Awaiting(n) if n > 1 => StopDetails::Awaiting(n - 1),
            _ => StopDetails::Ready,
        };
        self.stop_ready()
    }

    /// The stop may be written as it is (a resume refused: the session is where it was).
    pub(crate) fn details_ready(&mut self) {
        self.details = StopDetails::Ready;
    }

    /// The run moved on: the stop is no longer ready (answers still awaited stay counted; they
    /// belong to an older revision and are dropped when they come).
    pub(crate) fn details_unready(&mut self) {
        if self.details == StopDetails::Ready {
            self.details = StopDetails::Awaiting(0);
        }
    }
}

impl Default for Run {
    fn default() -> Run {
        Run {
            state: RunState::Starting,
            revision: 0,
            stop: None,
            stop_revision: 0,
            details: StopDetails::Awaiting(0),
            stop_signal: None,
            top_frame: None,
            shown_frame: 0,
            resume_unacked: false,
            pause_sent: false,
            resumes_since_stop: 0,
            last_resume_over_or_out: false,
            last_step: None,
            unfinished_step: None,
            stops_seen: 0,
            last_announced: None,
            exit_code: None,
            killed_by: None,
            awaiting_exit_report: false,
            ended_by_agentdap: false,
            entry_seen: false,
            failure: None,
            disconnect_terminates: None,
            stop_before_resume: None,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stop_is_ready_once_its_last_detail_is_in() {
        let mut run = Run::default();
        assert!(!run.stop_ready());
        run.details_await(1);
        run.details_await_one_more();
        assert_eq!(run.details, StopDetails::Awaiting(2));
        assert!(!run.details_one_done());
        assert!(run.details_one_done());
        assert!(run.stop_ready());
        // A late answer finds the stop ready and leaves it so.
        assert!(run.details_one_done());
    }

    #[test]
    fn a_stop_with_nothing_asked_is_ready_at_the_first_answer() {
        let mut run = Run::default();
        run.details_reset();
        assert!(run.details_one_done());
    }

    #[test]
    fn running_again_unreadies_the_stop_but_keeps_what_is_awaited() {
        let mut run = Run::default();
        run.details_ready();
        run.details_unready();
        assert_eq!(run.details, StopDetails::Awaiting(0));
        run.details_await(2);
        run.details_unready();
        assert_eq!(run.details, StopDetails::Awaiting(2));
    }

    use super::*;
    use crate::dap::requests::{ExceptionInfo, Request};
    use serde_json::json;

    /// An `exceptionInfo` body as the session reads it.
    fn info(body: &Value) -> ExceptionInfoResponse {
        ExceptionInfo::parse(Some(body)).unwrap_or_default()
    }

    #[test]
    fn stop_reads_the_event_and_omits_what_is_absent() {
        let mut stop = Stop::from_event(&json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [3]}));
        stop.location = Some(Location::from_frame(
            &json!({"id": 7, "name": "total", "line": 12, "column": 1, "source": {"path": "/w/app.py"}}),
        ));
        assert_eq!(
            stop.to_json(),
            json!({"reason": "breakpoint", "thread": 1, "hit_breakpoints": [3],
                   "location": {"path": "/w/app.py", "line": 12, "column": 1, "function": "total"}})
        );
        assert_eq!(stop.location.map(|l| l.short()).as_deref(), Some("app.py:12 in total()"));
    }

    #[test]
    fn exception_text_from_info_or_event_and_system_exit_codes() {
        let info_body = json!({"exceptionId": "ZeroDivisionError", "description": "division by zero",
                          "details": {"typeName": "ZeroDivisionError", "message": "division by zero"}});
        assert_eq!(ExceptionStop::from_info(&info(&info_body)).summary(), "ZeroDivisionError: division by zero");
        let debugpy_event = ExceptionStop::from_event(Some("ValueError"), Some("bad"));
        assert_eq!(debugpy_event.map(|e| e.summary()).as_deref(), Some("ValueError: bad"));
        let joined = ExceptionStop::from_event(None, Some("KeyError: 'k'"));
        assert_eq!(joined.map(|e| e.to_json()), Some(json!({"type": "KeyError", "message": "'k'"})));
        assert_eq!(ExceptionStop::from_event(None, None), None);
        // rdbg 1.4.0 puts Ruby's inspection of the exception in the stop's text.
        let ruby = ExceptionStop::from_event(Some("#<ZeroDivisionError: divided by 0> is raised."), None);
        assert_eq!(ruby.map(|e| e.to_json()), Some(json!({"type": "ZeroDivisionError", "message": "divided by 0"})));
        let nested =
            ExceptionStop::from_event(None, Some("#<Net::ReadTimeout: Net::ReadTimeout with #<TCPSocket:(closed)>>"));
        assert_eq!(
            nested.map(|e| e.to_json()),
            Some(json!({"type": "Net::ReadTimeout", "message": "Net::ReadTimeout with #<TCPSocket:(closed)>"}))
        );
        for (message, code) in [("3", 3), ("", 0), ("None", 0), ("fatal", 1)] {
            let mut e = ExceptionStop::from_info(&info(&json!({"exceptionId": "SystemExit", "description": message})));
            e.note_system_exit();
            assert_eq!(e.exit_code, Some(code), "{message:?}");
        }
        let mut js = ExceptionStop::from_info(&info(&json!({"exceptionId": "TypeError: g.values is undefined"})));
        js.split_message_from_type();
        assert_eq!(
            (js.type_name.as_deref(), js.message.as_deref()),
            (Some("TypeError"), Some("g.values is undefined"))
        );
        let mut odd = ExceptionStop::from_info(&info(&json!({"exceptionId": "a thing: happened"})));
        odd.split_message_from_type();
        assert_eq!((odd.type_name.as_deref(), odd.message), (Some("a thing: happened"), None), "not a type name");
        let mut e = ExceptionStop::from_info(&info(&json!({"exceptionId": "SystemExit", "description": "3"})));
        e.note_system_exit();
        assert_eq!(
            e.summary(),
            "SystemExit(3): the program called sys.exit; `continue` lets the program exit with code 3"
        );
        assert_eq!(
            e.summary_stopping_again(true),
            "SystemExit(3): the program called sys.exit; it exits with code 3, though with the `raised` filter \
             `continue` stops again in each frame the exit leaves"
        );
    }
}
