//! Tool group "memory" (`mcp/tools/memory.rs`): `memory` reads (DAP `readMemory`, shown as a hex
//! dump), writes (DAP `writeMemory`, then read back and compared) and disassembles (DAP
//! `disassemble`, centred on the current instruction by default) the stopped program's memory.
//!
//! The address is a memory reference as the adapter gave it (`0x…`, shown as `mem 0x…` by
//! `variables`, `evaluate` and `context`), or an expression evaluated in the frame, whose
//! `memoryReference` is used (or, when it has none, its value when that is an address: lldb-dap
//! 22 gives `&x` no memory reference but the address as its value). Each call is gated on its
//! capability ([`Gate::ReadMemory`], [`Gate::WriteMemory`], [`Gate::Disassemble`]) and refused
//! before anything is sent. Results say only what the adapter answered: a write is "read back
//! equal" only when the read-back showed the same bytes. Must not: touch IO or another group's
//! state.

pub mod codec;
mod render;

use std::time::Instant;

use serde_json::{json, Value};

use super::gates::Gate;
use super::inspect::Target;
use super::{session, Answer, Started};
use crate::dap::requests::{
    Disassemble, DisassembleArguments, Evaluate, EvaluateArguments, ReadMemory, ReadMemoryArguments, Request,
    StackTrace, StackTraceArguments, WriteMemory, WriteMemoryArguments,
};
use crate::session::handles::Kind as HandleKind;
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};
use render::{address_text, hex_dump, parse_address};

/// Bytes a read shows by default, and the most one read shows: its dump of 2048 bytes is about
/// 11,400 characters, within one result's [`crate::reply::MAX_TEXT_CHARS`] (4096 were 22,588:
/// `a_read_of_the_most_bytes_fits_in_one_result` in `memory/tests.rs`).
pub const DEFAULT_READ: u64 = 64;
pub const MAX_READ: u64 = 2048;
/// The most bytes one write takes (its result names the differing bytes, not a dump).
pub const MAX_BYTES: u64 = 4096;
/// Instructions a disassembly shows by default, and the most.
pub const DEFAULT_INSTRUCTIONS: u64 = 16;
pub const MAX_INSTRUCTIONS: u64 = 200;
/// Frames fetched to find a `frame` the agent named for a disassembly (its current instruction).
const FRAME_SEARCH: u64 = 200;
/// Most differing bytes a write's read-back names.
const DIFFS_SHOWN: usize = 16;

/// What the call does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryOp {
    Read,
    /// The bytes to write (already decoded).
    Write(Vec<u8>),
    Disassemble,
}

/// The `memory` tool's arguments (decoded by the MCP handler).
#[derive(Debug, Clone)]
pub struct MemoryArgs {
    pub action: MemoryOp,
    pub address: Option<String>,
    pub offset: i64,
    pub count: Option<u64>,
    pub target: Target,
}

/// Which request of a job is in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// `stackTrace`: the frame to evaluate in, or the current instruction.
    Frame,
    /// `evaluate` of the address expression.
    Address,
    Read,
    Write,
    ReadBack,
    Disassemble,
}

/// A `memory` call in flight; carried in [`Origin::Memory`].
#[derive(Debug)]
pub struct Op {
    call: CallKey,
    phase: Phase,
    job: Box<Job>,
}

#[derive(Debug)]
struct Job {
    action: MemoryOp,
    /// How often the program had run when the job started ([`crate::session::handles::Handles::resumes`]).
    resumes: u64,
    /// The frames' epoch when the job started: it moves when the program runs, or the adapter
    /// invalidates its state (lldb-dap 22 does after a write).
    epoch: u64,
    thread: i64,
    /// The adapter's frame id: the agent's `frame`, or the top frame once fetched.
    frame: Option<i64>,
    /// The agent named `frame` (a disassembly looks for it in the stack).
    frame_named: bool,
    /// The address expression, until it was evaluated.
    expression: Option<String>,
    /// The memory reference used, once known.
    reference: Option<String>,
    /// How the reference was found, said in the result (`memoryReference of `x``).
    via: Option<String>,
    offset: i64,
    count: u64,
    /// The count asked for, when it was over the cap.
    capped_from: Option<u64>,
    /// The frame's `instructionPointerReference` (the instruction a disassembly marks).
    current: Option<String>,
    /// The `stackTrace` is still to be fetched.
    needs_stack: bool,
    /// A write's answer: the bytes the adapter says it wrote (`None`: it did not say).
    written: Option<Option<u64>>,
}

impl Sessions {
    /// `memory`: read, write or disassemble the stopped session `key`'s memory.
    pub fn memory(&mut self, key: SessionKey, args: MemoryArgs, call: CallKey, now: Instant) -> Started {
        let gate = match args.action {
            MemoryOp::Read => Gate::ReadMemory,
            MemoryOp::Write(_) => Gate::WriteMemory,
            MemoryOp::Disassemble => Gate::Disassemble,
        };
        {
            let s = session(&mut self.slab, key)?;
            if matches!(args.action, MemoryOp::Write(_)) {
                s.require_live("memory {write}")?;
            }
            s.require(gate)?;
            s.require_stopped()?;
        }
        let frame = self.frame_arg(key, args.target.frame)?;
        let thread = self.thread_arg(key, args.target.thread)?;
        let s = session(&mut self.slab, key)?;
        let invalid = |msg: String| Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        let (reference, expression) = match args.address.as_deref().map(str::trim) {
            Some("") => return invalid("`address` is empty.".into()),
            Some(a) if render::is_reference(a) => (Some(a.to_owned()), None),
            Some(a) => (None, Some(a.to_owned())),
            None if args.action == MemoryOp::Disassemble => (None, None),
            None => {
                return invalid(
                    "pass `address`: a memory reference (`mem 0x…` in variables or evaluate) or an expression (a variable: where it is stored)."
                        .into(),
                )
            }
        };
        let (default, cap) = match args.action {
            MemoryOp::Disassemble => (DEFAULT_INSTRUCTIONS, MAX_INSTRUCTIONS),
            MemoryOp::Read => (DEFAULT_READ, MAX_READ),
            MemoryOp::Write(_) => (MAX_BYTES, MAX_BYTES),
        };
        let asked = match &args.action {
            MemoryOp::Write(data) => data.len() as u64,
            _ => args.count.unwrap_or(default),
        };
        if asked == 0 {
            return invalid(match args.action {
                MemoryOp::Write(_) => "`data` is empty: nothing to write.".into(),
                _ => "`count` must be at least 1.".into(),
            });
        }
        if matches!(args.action, MemoryOp::Write(_)) && asked > MAX_BYTES {
            return invalid(format!("`data` is {asked} bytes; memory writes at most {MAX_BYTES} bytes at a time."));
        }
        let needs_stack = args.action == MemoryOp::Disassemble
            || (expression.is_some() && frame.or_else(|| s.known_top_frame(thread)).is_none());
        let job = Job {
            resumes: s.view.handles.resumes(),
            epoch: s.view.handles.epoch(HandleKind::Frame),
            thread,
            frame: frame.or_else(|| s.known_top_frame(thread).filter(|_| args.action != MemoryOp::Disassemble)),
            frame_named: frame.is_some(),
            expression,
            reference,
            via: None,
            offset: args.offset,
            count: asked.min(cap),
            capped_from: (asked > cap).then_some(asked),
            current: None,
            needs_stack,
            written: None,
            action: args.action,
        };
        s.memory_next(call, Box::new(job), now);
        self.after(key, now);
        Ok(())
    }
}

impl Session {
    /// Sends the job's next request, or answers when there is nothing left to ask.
    fn memory_next(&mut self, call: CallKey, job: Box<Job>, now: Instant) {
        if job.needs_stack {
            let levels = if job.frame_named { FRAME_SEARCH } else { 1 };
            let args = StackTraceArguments { thread_id: job.thread, start_frame: Some(0), levels: Some(levels) };
            return self.request::<StackTrace>(args, Origin::Memory(Op { call, phase: Phase::Frame, job }), now);
        }
        let Some(reference) = job.reference.clone() else {
            let Some(expression) = job.expression.clone() else {
                let msg = format!(
                    "{} gave no instructionPointerReference for the frame; pass `address` (a function's address, e.g. evaluate `&main`).",
                    self.link.adapter
                );
                return self.calls.done.push((call, ToolResult::error(ErrorCode::AdapterError, msg)));
            };
            let args = EvaluateArguments {
                expression,
                frame_id: job.frame,
                context: Some(self.link.plan.runtime.evaluate_context.into()),
                format: None,
            };
            return self.request::<Evaluate>(args, Origin::Memory(Op { call, phase: Phase::Address, job }), now);
        };
        let offset = job.offset;
        match &job.action {
            MemoryOp::Read => {
                let args = ReadMemoryArguments { memory_reference: reference, offset, count: job.count };
                self.request::<ReadMemory>(args, Origin::Memory(Op { call, phase: Phase::Read, job }), now)
            }
            MemoryOp::Write(data) if job.written.is_none() => {
                let args = WriteMemoryArguments {
                    memory_reference: reference,
                    offset,
                    allow_partial: false,
                    data: codec::base64_encode(data),
                };
                self.request::<WriteMemory>(args, Origin::Memory(Op { call, phase: Phase::Write, job }), now)
            }
            MemoryOp::Write(data) => {
                let args = ReadMemoryArguments { memory_reference: reference, offset, count: data.len() as u64 };
                self.request::<ReadMemory>(args, Origin::Memory(Op { call, phase: Phase::ReadBack, job }), now)
            }
            MemoryOp::Disassemble => {
                // Centred on the current instruction when the agent named no address.
                let centred = job.expression.is_none() && job.via.is_none() && job.current.as_ref() == Some(&reference);
                let instruction_offset = if centred { -((job.count / 2) as i64) } else { 0 };
                let args = DisassembleArguments {
                    memory_reference: reference,
                    offset,
                    instruction_offset,
                    instruction_count: job.count,
                    resolve_symbols: true,
                };
                self.request::<Disassemble>(args, Origin::Memory(Op { call, phase: Phase::Disassemble, job }), now)
            }
        }
    }

    /// The answer to one of a `memory` call's requests.
    pub(in crate::session) fn memory_answered(&mut self, op: Op, answer: Answer, now: Instant) {
        let Op { call, phase, mut job } = op;
        if self.view.handles.resumes() != job.resumes {
            let out = match phase {
                Phase::ReadBack => self.write_result(&job, None),
                _ => ToolResult::error(
                    ErrorCode::TargetInvalidated,
                    format!(
                        "{} ran while the memory request was in flight (now rev {}); ask again.",
                        self.id, self.run.revision
                    ),
                ),
            };
            return self.calls.done.push((call, out));
        }
        let body = match answer {
            Ok(body) => body,
            Err((code, msg)) => {
                let out = match phase {
                    Phase::ReadBack => self.write_result(&job, Some(Err(msg))),
                    Phase::Address => {
                        // The adapter's hint for its expression syntax, as `evaluate` gives it
                        // (`RuntimeQuirks::evaluate_error_hint`: CodeLLDB's `/nat`).
                        let hint = self.link.plan.runtime.evaluate_error_hint.filter(|(words, _)| msg.contains(words));
                        let hint = hint.map(|(_, h)| format!(" ({h})")).unwrap_or_default();
                        let expression = job.expression.as_deref().unwrap_or("");
                        ToolResult::error(
                            code,
                            format!("evaluating `{expression}` for its address failed: {msg}{hint}"),
                        )
                    }
                    _ => ToolResult::error(code, msg),
                };
                return self.calls.done.push((call, out));
            }
        };
        match phase {
            Phase::Frame => {
                job.needs_stack = false;
                let frames = body.get("stackFrames").and_then(Value::as_array).cloned().unwrap_or_default();
                let found = match job.frame.filter(|_| job.frame_named) {
                    Some(id) => frames.iter().find(|f| f.get("id").and_then(Value::as_i64) == Some(id)),
                    None => frames.first(),
                };
                let Some(frame) = found else {
                    let msg = match job.frame {
                        Some(_) if job.frame_named => format!(
                            "the frame is not among thread {}'s first {FRAME_SEARCH} frames; pass `thread` with it, or an `address`.",
                            job.thread
                        ),
                        _ => format!("thread {} has no frames", job.thread),
                    };
                    return self.calls.done.push((call, ToolResult::error(ErrorCode::AdapterError, msg)));
                };
                job.frame = frame.get("id").and_then(Value::as_i64);
                job.current = frame.get("instructionPointerReference").and_then(Value::as_str).map(str::to_owned);
                if job.action == MemoryOp::Disassemble && job.reference.is_none() && job.expression.is_none() {
                    job.reference = job.current.clone();
                }
                self.memory_next(call, job, now)
            }
            Phase::Address => {
                let expression = job.expression.take().unwrap_or_default();
                let reference = body.get("memoryReference").and_then(Value::as_str).filter(|r| !r.is_empty());
                let value = body.get("result").and_then(Value::as_str).unwrap_or("").trim();
                if let Some(r) = reference {
                    job.reference = Some(r.to_owned());
                    job.via = Some(format!("memoryReference of `{expression}`"));
                } else if let Some(address) = render::leading_reference(value) {
                    job.reference = Some(address.to_owned());
                    job.via = Some(format!("the value of `{expression}`"));
                } else {
                    let shown = crate::session::text::clip(value, 80).0;
                    let msg = format!(
                        "`{expression}` has no memory reference ({} gave none) and its value `{shown}` is not an address; pass a `mem 0x…` reference, an address (stack_trace shows each frame's `@ 0x…`), or, in C, C++ or Rust, a variable or `&x`.",
                        self.link.adapter
                    );
                    return self.calls.done.push((call, ToolResult::error(ErrorCode::InvalidArgument, msg)));
                }
                self.memory_next(call, job, now)
            }
            Phase::Read => {
                let out = self.read_result(&job, &body);
                self.calls.done.push((call, out));
            }
            Phase::Write => {
                let written = WriteMemory::parse(Some(&body)).unwrap_or_default();
                job.written = Some(written.bytes_written);
                // Whatever the adapter says it wrote, agentdap's pages of values are old now.
                self.values_changed();
                let at = job.reference.clone().or_else(|| job.expression.clone()).unwrap_or_default();
                self.note_own_change(crate::session::own_change::own_change("write_memory at", &at));
                if Gate::ReadMemory.open(self.link.client.capabilities()) {
                    return self.memory_next(call, job, now);
                }
                let out = self.write_result(
                    &job,
                    Some(Err(format!("{} does not advertise supportsReadMemoryRequest", self.link.adapter))),
                );
                self.calls.done.push((call, out));
            }
            Phase::ReadBack => {
                let read = ReadMemory::parse(Some(&body)).unwrap_or_default();
                let bytes = match read.data.as_deref().map(codec::base64_decode) {
                    Some(Ok(b)) => Ok(b),
                    Some(Err(e)) => Err(format!("the adapter's data is not base64: {e}")),
                    None => Ok(Vec::new()),
                };
                let out = self.write_result(&job, Some(bytes));
                self.calls.done.push((call, out));
            }
            Phase::Disassemble => {
                let out = self.disassemble_result(&job, &body);
                self.calls.done.push((call, out));
            }
        }
    }

    /// A `memory` request that never went out.
    pub(in crate::session) fn memory_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        self.calls.done.push((op.call, ToolResult::error(code, msg)));
    }

    /// Where a job's memory starts as text: `0x… (memoryReference of `x`)`, with the offset.
    fn memory_place(&self, job: &Job) -> String {
        let reference = job.reference.as_deref().unwrap_or("?");
        let mut s = reference.to_owned();
        if job.offset != 0 {
            s.push_str(&format!("{:+}", job.offset));
        }
        if let Some(via) = &job.via {
            s.push_str(&format!(" ({via})"));
        }
        s
    }

    /// The start address of a job's bytes, when its reference reads as an address.
    fn job_address(job: &Job) -> Option<u64> {
        job.reference.as_deref().and_then(parse_address).map(|a| a.wrapping_add_signed(job.offset))
    }

    fn read_result(&self, job: &Job, body: &Value) -> ToolResult {
        let read = ReadMemory::parse(Some(body)).unwrap_or_default();
        let mut bytes = match read.data.as_deref().map(codec::base64_decode) {
            Some(Ok(b)) => b,
            Some(Err(e)) => {
                let msg = format!("{}'s readMemory data is not base64 ({e}); nothing is shown.", self.link.adapter);
                return ToolResult::error(ErrorCode::AdapterError, msg);
            }
            None => Vec::new(),
        };
        let mut notes = Vec::new();
        // DAP § Requests › ReadMemory: `data` holds at most `count` bytes; what is past them was
        // not asked for.
        let sent = bytes.len() as u64;
        if sent > job.count {
            bytes.truncate(job.count as usize);
            notes.push(format!(
                "the adapter sent {sent} bytes, more than the {} asked; the first {} are shown",
                job.count, job.count
            ));
        }
        let asked_at = Self::job_address(job);
        let answered_at = read.address.as_deref().and_then(parse_address);
        let base = answered_at.or(asked_at);
        let mut structured = json!({
            "session": self.id,
            "revision": self.run.revision,
            "address": base.map(|b| address_text(b, true)),
            "memoryReference": job.reference,
            "data": codec::base64_encode(&bytes),
            "bytes": bytes.len(),
        });
        let mut text = format!(
            "{} memory at {} · {} bytes · rev {}",
            self.id,
            self.memory_place(job),
            bytes.len(),
            self.run.revision
        );
        if let Some(asked) = job.capped_from {
            text.push_str(&format!(" (count {asked} capped at {MAX_READ})"));
        }
        // DAP § Requests › ReadMemory: the answer's `address` is that of its first byte, so the
        // rows count from it; the header names what was asked.
        if let (Some(asked), Some(answered)) = (asked_at, answered_at) {
            if asked != answered {
                let (asked, answered) = (address_text(asked, true), address_text(answered, true));
                text.push_str(&format!(
                    "\nthe adapter answered from {answered}, not the {asked} asked; the rows show its address"
                ));
                structured["asked_address"] = json!(asked);
            }
        }
        if let Some(unread) = read.address.as_deref().filter(|_| answered_at.is_none()) {
            let shown = crate::visible::escaped(&crate::session::text::clip(unread, 40).0);
            text.push_str(&format!(
                "\nthe adapter answered with address {shown}, which is not an address; the rows count from the address asked"
            ));
        }
        text.push_str(&hex_dump(base, &bytes));
        let claimed = read.unreadable_bytes.unwrap_or(0);
        let room = job.count.saturating_sub(bytes.len() as u64);
        let unreadable = claimed.min(room);
        if unreadable > 0 {
            let after = base.map(|b| address_text(b.wrapping_add(bytes.len() as u64), true));
            let at = after.unwrap_or_else(|| format!("+{}", bytes.len()));
            text.push_str(&format!("\n{unreadable} bytes from {at} on are unreadable"));
        }
        let out_of_range = claimed > room;
        if out_of_range {
            text.push_str(&format!(
                "\nthe adapter claimed {claimed} unreadable bytes, more than the {room} left of the {} asked",
                job.count
            ));
            structured["unreadable_claimed"] = json!(claimed);
        }
        let short = (bytes.len() as u64) < job.count;
        if short && (bytes.len() as u64 + unreadable < job.count || out_of_range) {
            text.push_str(&format!("\nthe adapter answered {} of the {} bytes asked for", bytes.len(), job.count));
        }
        for note in notes {
            text.push('\n');
            text.push_str(&note);
        }
        structured["unreadable"] = json!(unreadable);
        ToolResult::ok(text, structured)
    }

    /// A write's result, from its read-back: `None` when the program ran before it, `Err` when
    /// it failed or could not be made.
    fn write_result(&self, job: &Job, read_back: Option<Result<Vec<u8>, String>>) -> ToolResult {
        let MemoryOp::Write(data) = &job.action else {
            return ToolResult::error(ErrorCode::AdapterError, "not a write");
        };
        let place = self.memory_place(job);
        let written = job.written.flatten();
        let mut text = match written {
            Some(n) if n < data.len() as u64 => {
                format!("{} wrote {n} of {} bytes at {place} (the adapter's count)", self.id, data.len())
            }
            _ => format!("{} wrote {} bytes at {place}", self.id, data.len()),
        };
        let mut structured = json!({
            "session": self.id,
            "revision": self.run.revision,
            "address": Self::job_address(job).map(|a| address_text(a, true)),
            "memoryReference": job.reference,
            "bytes": data.len(),
            "bytes_written": written,
        });
        match read_back {
            None => {
                text.push_str(", not read back: the program ran meanwhile");
                structured["verified"] = json!(false);
            }
            Some(Err(why)) => {
                text.push_str(&format!(", not read back: {why}"));
                structured["verified"] = json!(false);
            }
            Some(Ok(back)) => {
                let differing: Vec<usize> =
                    (0..data.len()).filter(|&i| back.get(i).is_none_or(|b| *b != data[i])).collect();
                structured["read_back"] = json!(codec::base64_encode(&back));
                structured["verified"] = json!(differing.is_empty());
                if differing.is_empty() {
                    text.push_str(", read back equal");
                } else {
                    let named: Vec<String> = differing
                        .iter()
                        .take(DIFFS_SHOWN)
                        .map(|&i| match back.get(i) {
                            Some(b) => format!("+{i}: wrote {:02x}, reads {b:02x}", data[i]),
                            None => format!("+{i}: wrote {:02x}, not read back", data[i]),
                        })
                        .collect();
                    let more = differing.len().saturating_sub(DIFFS_SHOWN);
                    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                    text.push_str(&format!(
                        "; the read-back differs in {} of {} bytes: {}{more}",
                        differing.len(),
                        data.len(),
                        named.join(", ")
                    ));
                    structured["differing"] = json!(differing);
                }
            }
        }
        if self.view.handles.epoch(HandleKind::Frame) != job.epoch {
            text.push_str(&format!(
                "\n({} invalidated its state after the write: frame and variable refs from before are stale; call context or stack_trace for fresh ones.)",
                self.link.adapter
            ));
        }
        ToolResult::ok(text, structured)
    }

    fn disassemble_result(&self, job: &Job, body: &Value) -> ToolResult {
        let instructions = Disassemble::parse(Some(body)).unwrap_or_default().instructions;
        let current = job.current.as_deref().and_then(parse_address);
        let centred = job.via.is_none() && job.current.is_some() && job.current == job.reference;
        // DAP § Requests › Disassemble: the answer holds `instructionCount` entries; of more,
        // the window asked for is kept.
        let (asked, extra) = render::asked_window(&instructions, job.count as usize, current.filter(|_| centred));
        let listing = render::disassembly(asked, current);
        let place = self.memory_place(job);
        let precedes = listing.lines.first().zip(current).is_some_and(|(first, c)| first.address < c);
        let what = match centred {
            true if precedes || listing.lines.is_empty() => format!("around {place} (the current instruction)"),
            true => format!("from {place} (the current instruction)"),
            false => format!("from {place}"),
        };
        // Lines of huge symbols end the listing early (its notes need the last ~1,000
        // characters); a note names the call that lists the rest.
        let mut used = 0;
        let shown = listing
            .lines
            .iter()
            .take_while(|l| {
                used += l.text.len() + 1;
                used <= crate::session::values::RESULT_CHARS - 1_000
            })
            .count()
            .max(listing.lines.len().min(1));
        let mut text = format!(
            "{} disassembly {what} · {} · rev {}",
            self.id,
            counted(shown, "instruction", "instructions"),
            self.run.revision
        );
        if let Some(asked) = job.capped_from {
            text.push_str(&format!(" (count {asked} capped at {MAX_INSTRUCTIONS})"));
        }
        for line in &listing.lines[..shown] {
            text.push('\n');
            text.push_str(&line.text);
        }
        let mut notes = Vec::new();
        if let Some(next) = listing.lines.get(shown) {
            let rest = listing.lines.len() - shown;
            notes.push(format!(
                "{} more not shown here: `memory {{\"op\": \"disassemble\", \"address\": \"{}\", \"count\": {rest}}}` lists them",
                counted(rest, "instruction", "instructions"),
                address_text(next.address, true)
            ));
        }
        let (mut invalid, mut no_address) = (listing.later.invalid, listing.later.no_address);
        match listing.lines.first() {
            Some(first) if centred && (listing.leading.invalid + listing.leading.no_address > 0 || !precedes) => {
                let why = if listing.leading.invalid + listing.leading.no_address > 0 {
                    ": it could not disassemble backwards from here"
                } else {
                    ""
                };
                notes.push(format!(
                    "the adapter gave no instructions before {}{why}",
                    address_text(first.address, true)
                ));
            }
            _ => {
                invalid += listing.leading.invalid;
                no_address += listing.leading.no_address;
            }
        }
        if invalid > 0 {
            notes.push(format!("{} the adapter marked invalid left out", counted(invalid, "entry", "entries")));
        }
        if no_address > 0 {
            notes.push(format!("{} without an address left out", counted(no_address, "entry", "entries")));
        }
        if listing.padding > 0 {
            let padding = counted(listing.padding, "padding entry", "padding entries");
            notes.push(format!("{padding} left out: no instruction there"));
        }
        if extra > 0 {
            let shown = if centred && listing.has_current {
                "the ones around the current instruction are shown"
            } else {
                "the first are shown"
            };
            notes.push(format!(
                "the adapter sent {} instructions, {extra} more than the {} asked; {shown}",
                instructions.len(),
                job.count
            ));
        }
        if listing.lines.is_empty() {
            notes.push("the adapter answered no instructions".into());
        }
        for note in notes {
            text.push_str(&format!("\n({note})"));
        }
        let structured = json!({
            "session": self.id,
            "revision": self.run.revision,
            "memoryReference": job.reference,
            "current": current.filter(|_| listing.has_current).map(|a| address_text(a, true)),
            "instructions": listing.lines[..shown].iter().map(|l| l.json.clone()).collect::<Vec<_>>(),
        });
        ToolResult::ok(text, structured)
    }
}

/// `1 entry`, `2 entries`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod answer_tests;
#[cfg(test)]
mod tests;
