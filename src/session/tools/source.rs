//! Tool group "source" (`mcp/tools/source.rs`): numbered lines of a file, or of a source that
//! has no file through DAP `source` (a `source_ref` from a frame), around a line or in a range; by
//! default around the current stop, its line marked `→`.
//!
//! Reading a file happens on the loop's thread (a local file read has no pollable handle), through
//! the IO shell's [`Files::read_bounded`], so it is bounded: only a regular file, opened
//! non-blocking (a FIFO or device named by mistake answers at once instead of hanging the loop),
//! at most [`MAX_FILE`] bytes, checked before and while reading. Must not: open a file itself.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::{session, stopped, Answer, Started};
use crate::dap::requests::{Request, Source, SourceArguments, SourceRequest};
use crate::session::files::{Files, ReadError};
use crate::session::snapshot::RunState;
use crate::session::text::clip;
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// A DAP `source` request in flight: the call and what to show of the answer; carried in
/// [`Origin::Source`].
#[derive(Debug)]
pub struct Op {
    call: CallKey,
    window: Window,
}

/// Largest file `source` reads (bytes).
pub const MAX_FILE: u64 = 4 << 20;
/// Lines each side of the line shown by default, and the cap.
pub const DEFAULT_AROUND: usize = 5;
const MAX_AROUND: usize = 200;
/// Most lines one result shows.
const MAX_LINES: usize = 400;
/// Most characters of one line shown.
const LINE_CHARS: usize = 300;

/// The `source` tool's arguments (paths already absolute).
#[derive(Debug, Clone, Default)]
pub struct SourceArgs {
    pub path: Option<String>,
    pub source_ref: Option<i64>,
    pub line: Option<u32>,
    pub around: Option<usize>,
    pub start_line: Option<usize>,
    pub end_line: Option<usize>,
}

/// What to show of a source: which lines, which one to mark, and how to name it.
#[derive(Debug, Clone)]
pub struct Window {
    path: Option<String>,
    source_ref: Option<i64>,
    /// The line to center on (and mark).
    line: Option<usize>,
    around: usize,
    start: Option<usize>,
    end: Option<usize>,
}

impl Window {
    fn new(args: &SourceArgs, path: Option<String>, source_ref: Option<i64>, line: Option<usize>) -> Window {
        Window {
            path,
            source_ref,
            line,
            around: args.around.unwrap_or(DEFAULT_AROUND).min(MAX_AROUND),
            start: args.start_line,
            end: args.end_line,
        }
    }

    /// The result for the source's whole `text`.
    pub fn render(&self, text: &str) -> ToolResult {
        let lines: Vec<&str> = text.lines().collect();
        let total = lines.len();
        let (first, last) = match (self.start, self.end) {
            (None, None) => {
                let center = self.line.unwrap_or(1);
                (center.saturating_sub(self.around).max(1), center.saturating_add(self.around))
            }
            (start, end) => {
                let first = start.unwrap_or(1).max(1);
                (first, end.unwrap_or(first.saturating_add(2 * DEFAULT_AROUND)))
            }
        };
        let last = last.min(total).min(first.saturating_add(MAX_LINES - 1));
        let name = match (&self.path, self.source_ref) {
            (Some(p), _) => p.clone(),
            (None, Some(r)) => format!("source_ref {r}"),
            (None, None) => "source".into(),
        };
        if first > total {
            let msg = format!("{name} has {total} lines; line {first} is past its end.");
            return ToolResult::error(ErrorCode::InvalidArgument, msg);
        }
        let mut out = format!("{} lines {first}–{last} of {total}", short_name(&name));
        let mut list = Vec::new();
        for (i, l) in lines.iter().enumerate().take(last).skip(first - 1) {
            let n = i + 1;
            let mark = if Some(n) == self.line { "→" } else { " " };
            let l = clip(l, LINE_CHARS).0;
            out.push_str(&format!("\n{mark}{n:>5}  {l}"));
            list.push(Line { line: n, text: l });
        }
        let structured = Lines {
            start_line: first,
            end_line: last,
            total_lines: total,
            lines: list,
            path: self.path.as_deref(),
            // A file is named by its path alone.
            source_ref: self.source_ref.filter(|_| self.path.is_none()),
            line: self.line,
        };
        // A struct of numbers and strings: serialising it cannot fail.
        ToolResult::ok(out, serde_json::to_value(structured).unwrap_or_default())
    }
}

/// The result's `structuredContent`: the lines shown and which source they are of.
#[derive(Serialize)]
struct Lines<'a> {
    start_line: usize,
    end_line: usize,
    total_lines: usize,
    lines: Vec<Line>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_ref: Option<i64>,
    /// The marked line.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

/// One numbered line (cut to [`LINE_CHARS`]).
#[derive(Serialize)]
struct Line {
    line: usize,
    text: String,
}

fn short_name(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// Reads a source file within [`MAX_FILE`] through [`Files::read_bounded`]; `Err` is one
/// sentence for the agent.
pub fn read_file(files: &dyn Files, path: &str) -> Result<String, String> {
    match files.read_bounded(Path::new(path), MAX_FILE) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(ReadError::Io(e)) => Err(format!("cannot read {path}: {e}.")),
        Err(ReadError::NotRegular) => Err(format!("{path} is not a regular file.")),
        Err(ReadError::TooLarge { len }) => {
            Err(format!("{path} is {len} bytes; source reads files up to {MAX_FILE} bytes (pass a smaller file)."))
        }
        Err(ReadError::OverCap) => Err(format!("{path} is over {MAX_FILE} bytes; source reads files up to that size.")),
    }
}

impl Sessions {
    /// `source`: a file (`path`, no session needed), a `source_ref` (DAP `source` on the live
    /// session `key`), or, with neither, the current stop's source.
    pub fn source(&mut self, key: Option<SessionKey>, args: SourceArgs, call: CallKey, now: Instant) -> Started {
        let session = key.and_then(|k| self.slab.get(k));
        let stop_loc = session
            .filter(|s| s.run.state == RunState::Stopped)
            .and_then(|s| s.run.stop.as_ref())
            .and_then(|st| st.location.clone());
        if let Some(path) = args.path.clone() {
            // Mark the stop's line when it is in this file.
            let stop_line = stop_loc.filter(|l| l.path.as_deref() == Some(path.as_str())).and_then(|l| l.line);
            let line = args.line.map(|l| l as usize).or(stop_line.map(|l| l as usize));
            let window = Window::new(&args, Some(path.clone()), None, line);
            let out = match read_file(&*self.files, &path) {
                Ok(text) => window.render(&text),
                Err(msg) => ToolResult::error(ErrorCode::InvalidArgument, msg),
            };
            self.complete(call, out);
            return Ok(());
        }
        let Some(key) = key else {
            let msg = "there is no session; pass `path` to read a file, or `launch` first.";
            return Err(ToolResult::error(ErrorCode::SessionNotFound, msg));
        };
        if let Some(r) = args.source_ref {
            let line = args.line.map(|l| l as usize);
            return self.fetch_source(key, Window::new(&args, None, Some(r), line), call, now);
        }
        let s = stopped(&mut self.slab, key)?;
        let Some(loc) = stop_loc else {
            let msg = format!("{} has no known stop location; pass `path` (or `source_ref`).", s.id);
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        };
        let line = args.line.map(|l| l as usize).or(loc.line.map(|l| l as usize));
        match (loc.source_ref, loc.path) {
            (Some(r), path) => self.fetch_source(key, Window::new(&args, path, Some(r), line), call, now),
            (None, Some(path)) => {
                let window = Window::new(&args, Some(path.clone()), None, line);
                let out = match read_file(&*self.files, &path) {
                    Ok(text) => window.render(&text),
                    Err(msg) => ToolResult::error(ErrorCode::InvalidArgument, msg),
                };
                self.complete(call, out);
                Ok(())
            }
            (None, None) => {
                let msg = "the stop has no source; pass `path`, or look at another frame (`stack_trace`).";
                Err(ToolResult::error(ErrorCode::InvalidArgument, msg))
            }
        }
    }

    /// DAP `source` for a source the adapter holds (the live session `key`).
    fn fetch_source(&mut self, key: SessionKey, window: Window, call: CallKey, now: Instant) -> Started {
        let s = session(&mut self.slab, key)?;
        if s.run.state.is_over() || !s.link.is_alive() || s.run.state == RunState::Starting {
            let msg = format!("{} is {}; a source_ref is read from its live adapter.", s.id, s.run.state.as_str());
            return Err(ToolResult::error(ErrorCode::NotStopped, msg));
        }
        let r = window.source_ref.unwrap_or(0);
        let source = Source { name: None, path: window.path.clone(), source_reference: Some(r) };
        let args = SourceArguments { source: Some(source), source_reference: r };
        s.request::<SourceRequest>(args, Origin::Source(Op { call, window }), now);
        self.after(key, now);
        Ok(())
    }
}

impl Session {
    /// The answer to DAP `source`.
    pub(in crate::session) fn source_answered(&mut self, op: Op, answer: Answer) {
        let Op { call, window } = op;
        let out = match answer {
            Ok(body) => match SourceRequest::parse(Some(&body)).unwrap_or_default().content.as_deref() {
                Some(text) if text.len() as u64 <= MAX_FILE => window.render(text),
                Some(text) => ToolResult::error(
                    ErrorCode::InvalidArgument,
                    format!("the source is {} bytes; source shows sources up to {MAX_FILE} bytes.", text.len()),
                ),
                None => ToolResult::error(ErrorCode::AdapterError, "the adapter's `source` answer has no content."),
            },
            Err((code, msg)) => ToolResult::error(code, msg),
        };
        self.calls.done.push((call, out));
    }

    /// A `source` request that never went out.
    pub(in crate::session) fn source_failed(&mut self, op: Op, code: ErrorCode, msg: String) {
        self.calls.done.push((op.call, ToolResult::error(code, msg)));
    }
}
