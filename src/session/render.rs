//! How a session reads to the agent: the result of an execution tool (headline, warnings,
//! breakpoint notes, output tail), the snapshot JSON, the `sessions` entry and the DAP log text.

use serde_json::{Map, Value};

use super::output::Category;
use super::snapshot::{put, RunState, Stop, STEP_REFUSED};
use super::text::short;
use super::{Session, ToolResult, SNAPSHOT_TAIL};

impl Session {
    pub(super) fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.link.stderr_tail).trim_end().to_owned()
    }

    /// The result of an execution tool: the one line that matters, then output since the last
    /// result; `structuredContent` carries the snapshot (README § Tools). Advances the output
    /// cursor.
    pub(super) fn result(&mut self, verb: &str, timed_out: bool, locals: bool) -> ToolResult {
        let mut text = self.headline();
        let child_stops = std::mem::take(&mut self.family.child_stops);
        if !child_stops.is_empty() {
            // The line that matters is the child's stop: it leads, the parent's state follows.
            let lines: Vec<&str> = child_stops.iter().map(|c| c.headline.as_str()).collect();
            text = format!(
                "{}\n(child session of {}: pass its `session` id to inspect or resume it)\n{text}",
                lines.join("\n"),
                self.id
            );
        }
        if verb == "attached" && self.run.state == RunState::Running {
            text.push_str(" (attached; call `wait` for a breakpoint, or `pause`)");
        }
        if timed_out && self.run.state == RunState::Running {
            text.push_str(&format!(" ({verb}; still running when the wait ended: call `wait` or `pause`)"));
            if self.run.resume_unacked {
                text.push_str("\nnote: the adapter has not acknowledged the resume yet; it may be busy or hung");
            }
            if verb == "paused" {
                let pid = self.family.debuggee_pid.map(|p| format!(" (the program's pid: {p})")).unwrap_or_default();
                let why =
                    self.link.plan.runtime.pause_unanswered.unwrap_or("the adapter reported no stop after `pause`");
                text.push_str(&format!("\nnote: {why}{pid}"));
            }
            // Said once: the first running result is where an agent decides how to go on.
            if self.host.accepts_input() && !self.host.input_hint_given {
                self.host.input_hint_given = true;
                text.push_str("\nnote: if the program waits for input, give it with `send_input`");
            } else if !self.host.accepts_input() && self.output.has_partial() && !self.host.input_hint_given {
                // A prompt without its line's end, and no stdin agentdap can write (a fresh user's
                // C program blocked in `fgets` under lldb-dap's default console).
                self.host.input_hint_given = true;
                text.push_str(
                    "\nnote: the output ends in an unfinished line; if the program waits for input, nothing can give \
                     it here: launch with `console: \"terminal\"` and answer with `send_input`",
                );
            }
        }
        if timed_out && self.run.state == RunState::Starting {
            let step = if !self.startup.launch_sent {
                "the adapter has not answered `initialize`"
            } else if !self.startup.configured {
                "the adapter has not sent `initialized` yet (it may be building or starting the program)"
            } else if self.awaits_target() && self.startup.launch_result.is_some() {
                "the program has not connected to the adapter yet (it may be starting)"
            } else {
                if self.link.plan.request == "attach" {
                    "the adapter has not answered `attach` yet"
                } else {
                    "the adapter has not answered `launch` yet"
                }
            };
            text.push_str(&format!(" (still starting when the wait ended: {step}; call `wait` to keep waiting)"));
        }
        if let Some(line) = self.post_mortem_line() {
            text.push_str(&format!("\n{line}"));
        }
        let mut snap = self.snapshot_json();
        if self.run.state == RunState::Stopped && self.run.stop_ready() {
            let frame = self.stop_frame_lines(locals, &mut snap);
            text.push_str(&frame);
        }
        if let Some((line, test)) = self.test_report() {
            text.push_str(&format!("\n{line}"));
            snap["test"] = test;
        }
        if let Some(hit) = self.watches_hit() {
            text.push_str(&format!("\n{hit}"));
        }
        if let Some(failed) = self.condition_failed_at_stop() {
            text.push_str(&format!("\n{failed}"));
            snap["condition_failed"] = true.into();
        }
        if !child_stops.is_empty() {
            let list: Vec<Value> = child_stops.into_iter().map(|c| c.snapshot).collect();
            snap["child_stops"] = Value::Array(list);
        }
        let notes = self.mirror_notes();
        if !notes.is_empty() {
            for note in &notes {
                text.push_str(&format!("\nnote: {note}"));
            }
            snap["mirror_notes"] = notes.into();
        }
        if !self.calls.warnings.is_empty() {
            let warnings = std::mem::take(&mut self.calls.warnings);
            for w in &warnings {
                text.push_str(&format!("\nwarning: {w}"));
            }
            snap["warnings"] = warnings.into();
        }
        if !self.calls.carried_over.is_empty() {
            // Set before this session, with no session live: the agent may have forgotten them.
            let carried = std::mem::take(&mut self.calls.carried_over);
            text.push_str(&format!(
                "\n{} breakpoint(s) carried over from before this {}: {} (`set_breakpoints` with an empty list removes a file's)",
                carried.len(),
                self.link.plan.request,
                carried.join(", ")
            ));
            snap["carried_over_breakpoints"] = carried.into();
        }
        if matches!(verb, "launched" | "restarted") && !self.run.state.is_over() {
            // Breakpoints the adapter already refused: say so now, not only when the run ends.
            let refused: Vec<String> = self
                .breaks
                .store
                .files()
                .flat_map(|(p, set)| set.iter().map(move |e| (p, e)))
                .filter(|(_, e)| e.bound.as_ref().is_some_and(|b| !b.verified))
                .map(|(p, e)| {
                    let why = e.bound.as_ref().map_or("no reason given by the adapter", |b| b.why_not());
                    format!("{}:{} ({why})", short(p), e.requested.line)
                })
                .collect();
            if !refused.is_empty() {
                text.push_str(&format!("\n{} breakpoint(s) not verified: {}", refused.len(), refused.join(", ")));
                snap["unverified_breakpoints"] = refused.into();
            }
            let moved: Vec<String> = self
                .breaks
                .store
                .files()
                .flat_map(|(p, set)| set.iter().map(move |e| (p, e)))
                .filter(|(_, e)| e.moved())
                .map(|(p, e)| {
                    let to = e.bound.as_ref().and_then(|b| b.line).unwrap_or(e.requested.line);
                    format!("{}:{} → line {to}", short(p), e.requested.line)
                })
                .collect();
            if !moved.is_empty() {
                text.push_str(&format!("\n{} breakpoint(s) moved by the adapter: {}", moved.len(), moved.join(", ")));
                snap["moved_breakpoints"] = moved.into();
            }
        }
        if self.run.state == RunState::Exited
            && self.run.exit_code.is_some_and(|c| c != 0)
            && !self.run.ended_by_agentdap
        {
            if let Some(last) = self.output.failure_line(Category::Stderr, self.link.plan.runtime.failure_shapes) {
                text.push_str(&format!("\nlast stderr line: {last}"));
                snap["last_stderr_line"] = last.into();
            }
        }
        if self.run.state.is_over() {
            // `launch {test}`'s own function breakpoint (`test_outcome::Runner::failure_function`).
            let own = self.test.as_ref().and_then(|t| t.run.runner.failure_function());
            // Never answered (no adapter ran, or its `setBreakpoints` answer left them out) is not
            // the adapter refusing them: said apart.
            let (never, unanswered): (Vec<_>, Vec<_>) =
                self.breaks.store.never_verified().into_iter().partition(|(_, e)| e.bound.is_some());
            if !unanswered.is_empty() {
                let list: Vec<String> =
                    unanswered.iter().map(|(p, e)| format!("{}:{}", short(p), e.requested.line)).collect();
                let why = "no `setBreakpoints` answer named them";
                text.push_str(&format!("\n{} breakpoint(s) never set ({why}): {}", list.len(), list.join(", ")));
                snap["unset_breakpoints"] = list.into();
            }
            let functions = self.breaks.store.functions_never_verified();
            if !never.is_empty() || !functions.is_empty() {
                let mut list: Vec<String> =
                    never.iter().map(|(p, e)| format!("{}:{}", short(p), e.requested.line)).collect();
                list.extend(functions.iter().map(|e| match own {
                    Some(f) if e.requested.name == f => {
                        format!("{f}() (launch {{test}}'s own, where a failure stops: this run could not stop there)")
                    }
                    _ => format!("{}()", e.requested.name),
                }));
                text.push_str(&format!("\n{} breakpoint(s) never verified: {}", list.len(), list.join(", ")));
                snap["unverified_breakpoints"] = list.into();
            }
            // The test runner's failure function is never hit by a test that passes: not news.
            let mut never_hit = self.breaks.store.never_hit();
            never_hit.retain(|b| !matches!(own, Some(f) if *b == format!("{f}()")));
            if let Some(line) = crate::session::breakpoints::never_hit_line(&never_hit) {
                text.push_str(&format!("\n{line}"));
                snap["never_hit_breakpoints"] = never_hit.into();
            }
            if let Some(f) = &self.run.failure {
                text.push_str(&format!("\n{f}"));
            }
        }
        self.output.flush();
        let (tail, truncated, dropped) = self.output.tail_since(self.calls.result_cursor, SNAPSHOT_TAIL);
        let cursor = self.output.cursor();
        // At a stop, whether everything printed before it is in cannot be known here.
        let may_follow = self.run.state == RunState::Stopped
            && self.link.plan.quirks.launch_output_apart_from_stops
            && self.link.plan.request == "launch"
            && self.family.core.is_none()
            && !self.host.terminal_console;
        if may_follow {
            text.push_str(&format!(
                "\nnote: output printed just before this stop may still be arriving (output since={cursor})"
            ));
        }
        if !tail.is_empty() || dropped > 0 || may_follow {
            if !tail.is_empty() || dropped > 0 {
                text.push_str("\noutput:\n");
            }
            if dropped > 0 {
                // Gone for good: `output` cannot give them back, so the note must not say it can.
                text.push_str(&format!(
                    "(… {dropped} earlier entries were dropped: the output ring keeps the last {} KiB; {})\n",
                    self.output.cap() / 1024,
                    match truncated {
                        0 => "the rest is below".to_owned(),
                        t => format!(
                            "{t} more bytes not shown here: `output` with since={} has them",
                            self.output.first()
                        ),
                    }
                ));
            } else if truncated > 0 {
                text.push_str(&format!(
                    "(… {truncated} earlier bytes not shown here: `output` with since={} has them)\n",
                    self.calls.result_cursor
                ));
            }
            text.push_str(&tail);
            let mut o = Map::new();
            o.insert("text".into(), tail.into());
            o.insert("cursor".into(), cursor.into());
            if truncated > 0 {
                o.insert("truncated_bytes".into(), truncated.into());
            }
            if dropped > 0 {
                o.insert("dropped".into(), dropped.into());
            }
            if may_follow {
                o.insert("may_follow".into(), true.into());
            }
            snap["output"] = Value::Object(o);
        }
        self.calls.result_cursor = cursor;
        ToolResult::ok(text.trim_end_matches('\n').to_owned(), snap)
    }

    /// `s1 stopped (breakpoint) at app.py:12 in total() · thread 1 · rev 4`
    pub fn headline(&self) -> String {
        let mut s = match self.run.killed_by {
            Some((name, number)) if self.run.state.is_over() => {
                format!("{} killed by signal {name} ({number})", self.id)
            }
            _ => format!("{} {}", self.id, self.run.state.as_str()),
        };
        match self.run.state {
            RunState::Stopped => {
                if let Some(stop) = &self.run.stop {
                    s.push_str(&format!(" ({})", stop.reason));
                    match stop.by_person.as_deref() {
                        Some(c) if matches!(stop.reason.as_str(), "step" | "pause") => {
                            s.push_str(&format!(" by the person in the IDE (`{c}`)"))
                        }
                        Some(c) => s.push_str(&format!(" after the person in the IDE's `{c}`")),
                        None => {}
                    }
                    if let Some(loc) = stop.location.as_ref().map(|l| l.short()).filter(|l| !l.is_empty()) {
                        s.push_str(&format!(" at {loc}"));
                    }
                    if let Some(owner) = stop.owner {
                        s.push_str(owner.headline_text());
                    }
                    if let Some(t) = stop.thread {
                        s.push_str(&format!(" · thread {t}"));
                    }
                    if let Some(at) = stop.paused_in.as_ref().map(|l| l.short()) {
                        s.push_str(&format!(
                            " · paused at {at}: the frames above it are the exception's traceback, already left"
                        ));
                    }
                    if let Some((index, top)) = &stop.runtime_above {
                        s.push_str(&format!(
                            " · the program's frame #{index} is shown: the exception's top frame is {}, in the runtime (`stack_trace` lists the frames between)",
                            top.short()
                        ));
                    }
                    if let Some((kind, t)) = stop.interrupted_step {
                        s.push_str(&format!(
                            " · not the end of thread {t}'s step {kind}: this stop is another thread's"
                        ));
                    }
                    if let Some((kind, revision)) = stop.finished_step {
                        s.push_str(&format!(
                            " · the end of the step {kind} that rev {revision}'s stop interrupted: the adapter kept it pending, so the program stopped here, not at a breakpoint"
                        ));
                    }
                    if stop.requested_pause {
                        // The adapter's words, which a reader takes as agentdap's (crate::visible).
                        let words = stop.description.as_deref().or(stop.text.as_deref()).unwrap_or("");
                        match words {
                            "" => s.push_str(" · the pause you asked for"),
                            w => s.push_str(&format!(" · the pause you asked for ({})", crate::visible::escaped(w))),
                        }
                    } else if let Some(e) = &stop.exception {
                        let raised =
                            self.breaks.exception_filters.as_ref().is_some_and(|f| f.iter().any(|f| f == "raised"));
                        s.push_str(&format!(" · {}", e.summary_stopping_again(raised)));
                    } else if let (STEP_REFUSED, Some(refused)) =
                        (stop.reason.as_str(), self.link.plan.runtime.refused_step)
                    {
                        s.push_str(&format!(" · nothing ran: {} refused the step; {}", self.link.adapter, refused.why));
                    }
                }
            }
            RunState::Exited => {
                if self.run.ended_by_agentdap {
                    // The code is the signal agentdap's own ending left (debugpy 247, lldb 9): not
                    // the program's answer, so it is not shown as one.
                    s.push_str(" (ended by agentdap: disconnect/terminate)");
                } else if let Some((name, number)) = self.run.killed_by {
                    s.push_str(&format!(
                        " (the program was resumed from its {name} stop; {} reports this death as exit status \
                         {number}, in the same words as exit({number}))",
                        self.link.adapter
                    ));
                } else if let Some(code) = self.run.exit_code {
                    s.push_str(&format!(" with code {code}"));
                }
            }
            // Only when agentdap's `disconnect` ended the session: a `terminated` of the adapter's own
            // says nothing of the kind (an attached program that ran to its end).
            RunState::Terminated if self.link.is_closing() && self.link.disconnected && self.run.failure.is_none() => {
                match self.run.disconnect_terminates {
                    // The program agentdap runs for the adapter ends with the session whatever the
                    // flag (`session::launcher`): the disconnect's warning says so.
                    Some(false) if self.family.stands_in && self.family.owns_debuggee => {}
                    Some(false) => match self.link.plan.quirks.detached_program_fate {
                        Some(fate) => s.push_str(&format!(" (detached; {fate})")),
                        None => s.push_str(" (detached; the program keeps running)"),
                    },
                    // A core file has no process to end (`session::postmortem`).
                    Some(true) if self.family.core.is_some() => {
                        s.push_str(" (the core file was closed; no process ran)")
                    }
                    Some(true) if !self.family.owns_debuggee => {
                        s.push_str(" (terminate_debuggee: the adapter was asked to end the attached program)")
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        s.push_str(&format!(" · rev {}", self.run.revision));
        s
    }

    /// The snapshot without the output part.
    pub fn snapshot_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("session".into(), self.id.clone().into());
        m.insert("adapter".into(), self.link.adapter.clone().into());
        m.insert("state".into(), self.run.state.as_str().into());
        m.insert("revision".into(), self.run.revision.into());
        put(&mut m, "stop", self.run.stop.as_ref().filter(|_| self.run.state == RunState::Stopped).map(Stop::to_json));
        if self.run.ended_by_agentdap {
            m.insert("ended_by_agentdap".into(), true.into());
            put(&mut m, "reported_exit_code", self.run.exit_code.map(Value::from));
        } else if let Some((name, number)) = self.run.killed_by {
            m.insert("signal".into(), name.into());
            m.insert("signal_number".into(), number.into());
            put(&mut m, "reported_exit_code", self.run.exit_code.map(Value::from));
        } else {
            put(&mut m, "exit_code", self.run.exit_code.map(Value::from));
        }
        put(&mut m, "host_requests", self.host.pending_json());
        put(&mut m, "post_mortem", self.post_mortem_json());
        Value::Object(m)
    }

    /// The DAP log as NDJSON: `{"ms": <since session start>, "dir": "to_adapter"|"from_adapter",
    /// "message": {…}}` per line, oldest first (README § What happened).
    pub fn dap_log_ndjson(&self) -> String {
        self.dap_log_lines_after(self.evidence.dap_log_total.saturating_sub(self.evidence.dap_log.len() as u64))
    }

    /// The DAP log's lines after the first `n` messages the session ever logged (for
    /// `--dap-log` files), led by a note when some of them already left the ring. The bounds hold
    /// for the text shown, which redaction may make longer than the bytes that crossed: a
    /// message's text over `DAP_LOG_ENTRY_MAX` shows as its size and head ([`log_head`]), and
    /// the newest messages are shown up to `DAP_LOG_BYTES` of text.
    pub fn dap_log_lines_after(&self, n: u64) -> String {
        use super::{DAP_LOG_BYTES, DAP_LOG_ENTRY_MAX};
        let first_kept = self.evidence.dap_log_total.saturating_sub(self.evidence.dap_log.len() as u64);
        let skip = n.saturating_sub(first_kept) as usize;
        let mut lines = Vec::new();
        let mut bytes = 0;
        for e in self.evidence.dap_log.iter().skip(skip).rev() {
            let mut text = e.text();
            if text.len() > DAP_LOG_ENTRY_MAX {
                text = log_head(&text);
            }
            if bytes + text.len() > DAP_LOG_BYTES && !lines.is_empty() {
                break;
            }
            bytes += text.len();
            let ms = e.at.saturating_duration_since(self.evidence.started).as_secs_f64() * 1000.0;
            let dir = match e.direction {
                crate::dap::client::Direction::ToAdapter => "to_adapter",
                crate::dap::client::Direction::FromAdapter => "from_adapter",
            };
            lines.push(format!("{{\"ms\":{ms:.3},\"dir\":\"{dir}\",\"message\":{text}}}\n"));
        }
        let shown_from = self.evidence.dap_log_total - lines.len() as u64;
        let mut out = String::new();
        if n < shown_from {
            out.push_str(&format!(
                "{{\"agentdap\":\"{} messages were dropped before they were written\"}}\n",
                shown_from - n
            ));
        }
        out.extend(lines.into_iter().rev());
        out
    }

    /// The DAP request that started the session: `launch` or `attach`.
    pub fn plan_request(&self) -> &'static str {
        self.link.plan.request
    }

    /// The launch `cwd`, when the launch gave one.
    pub fn cwd(&self) -> Option<String> {
        self.link.plan.launch_arguments.get("cwd").and_then(Value::as_str).map(str::to_owned)
    }

    /// Entries and bytes of output the ring has dropped so far, when it has (`sessions`).
    pub fn output_dropped(&self) -> Option<(u64, u64)> {
        Some(self.output.evicted()).filter(|(entries, _)| *entries > 0)
    }

    /// One entry of `sessions`.
    pub fn summary_json(&self) -> Value {
        let mut v = self.snapshot_json();
        v["program"] = self.program.clone().into();
        v["request"] = self.link.plan.request.into();
        if let Some((_, parent)) = self.family.parent.as_ref().filter(|_| !self.family.stands_in) {
            v["parent"] = parent.clone().into();
        }
        if let Some(pid) = self.family.debuggee_pid {
            v["pid"] = pid.into();
        }
        if let Some(f) = &self.run.failure {
            v["failure"] = f.clone().into();
        }
        if let Some((entries, bytes)) = self.output_dropped() {
            v["output_dropped"] = serde_json::json!({"entries": entries, "bytes": bytes});
        }
        if let Some(e) = &self.mirror.endpoint {
            // Never the token (SECURITY.md § The IDE mirror).
            let mut m = Map::new();
            m.insert("host".into(), e.host.clone().into());
            m.insert("port".into(), e.port.into());
            m.insert("control".into(), (self.mirror.mode == crate::mirror::Mode::Control).into());
            if let Some(asked) = self.mirror.control_asked() {
                m.insert("control_asked".into(), asked.into());
            }
            v["mirror"] = Value::Object(m);
        }
        v
    }
}

/// A DAP log entry too big to keep or show, as it is logged instead: its size and its first bytes.
/// The fields are in key order, so the line reads as the JSON object it always was.
#[derive(serde::Serialize)]
struct TruncatedLogEntry<'a> {
    agentdap_truncated: bool,
    bytes: usize,
    head: &'a str,
}

/// A log text too long to show (a message's redacted text, `LogEntry::text`), as its size and
/// first KiB: a JSON object.
pub(super) fn log_head(text: &str) -> String {
    let mut cut = 1024.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let entry = TruncatedLogEntry { agentdap_truncated: true, bytes: text.len(), head: &text[..cut] };
    // A struct of a bool, a number and a string always serialises.
    serde_json::to_string(&entry).unwrap_or_default()
}
