//! `completions`: what the adapter offers to complete a piece of text typed in a frame (DAP §
//! Requests › Completions, when `supportsCompletionsRequest`). The request always names a frame
//! (debugpy 1.8 fails without one: "Thread to get completions seems to have resumed already"),
//! the top frame's when the agent gave none. Must not: touch IO.

use std::time::Instant;

use serde_json::{json, Value};

use super::{top_frame_id, Op, Target};
use crate::dap::requests::{StackTrace, StackTraceArguments};
use crate::session::text::clip;
use crate::session::tools::gates::Gate;
use crate::session::tools::{stopped, Started};
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// Most candidates the text lists (the structured result has up to [`MAX_TARGETS`]).
const SHOWN: usize = 40;
/// Most candidates in `structuredContent`.
const MAX_TARGETS: usize = 200;
/// Most characters of the text to complete.
pub const MAX_TEXT: usize = 4096;

/// A `completions` call: the frame (`None` until the top frame is fetched), the text and the
/// 1-based column (in UTF-16 code units, DAP's default) the cursor is at.
#[derive(Debug)]
pub struct CompletionsJob {
    thread: i64,
    frame: Option<i64>,
    text: String,
    column: u64,
}

impl Sessions {
    /// `completions`: candidates for `text` with the cursor at `column` (default: its end).
    pub fn completions(
        &mut self,
        key: SessionKey,
        text: String,
        column: Option<u64>,
        target: Target,
        call: CallKey,
        now: Instant,
    ) -> Started {
        stopped(&mut self.slab, key)?.require(Gate::Completions)?;
        let end = text.encode_utf16().count() as u64 + 1;
        if text.chars().count() > MAX_TEXT {
            let msg = format!("text is longer than {MAX_TEXT} characters.");
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let column = column.unwrap_or(end);
        if column == 0 || column > end {
            let msg = format!("column is 1-based and at most {end} for this text (one past its end), not {column}.");
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let frame = self.frame_arg(key, target.frame)?;
        let thread = self.thread_arg(key, target.thread)?;
        let frame = frame.or_else(|| self.slab.get(key).and_then(|s| s.known_top_frame(thread)));
        self.inspect(key, call, Op::Completions(CompletionsJob { thread, frame, text, column }), now)
    }
}

impl Session {
    pub(super) fn completions_next(&mut self, call: CallKey, job: CompletionsJob, now: Instant) {
        let revision = self.run.revision;
        match job.frame {
            None => {
                let args = StackTraceArguments { thread_id: job.thread, start_frame: Some(0), levels: Some(1) };
                self.request::<StackTrace>(args, Origin::Inspect { call, op: Op::Completions(job), revision }, now)
            }
            Some(f) => {
                let args = json!({"text": job.text, "column": job.column, "frameId": f});
                self.send("completions", Some(args), Origin::Inspect { call, op: Op::Completions(job), revision }, now)
            }
        }
    }

    pub(super) fn completions_answered(
        &mut self,
        call: CallKey,
        mut job: CompletionsJob,
        result: Result<Value, (ErrorCode, String)>,
        now: Instant,
    ) {
        let body = match result {
            Ok(b) => b,
            Err((code, msg)) => return self.calls.done.push((call, ToolResult::error(code, msg))),
        };
        if job.frame.is_none() {
            let f = match top_frame_id(&body) {
                Ok(f) => f,
                Err(why) => {
                    let msg = format!("thread {} {why}", job.thread);
                    return self.calls.done.push((call, ToolResult::error(ErrorCode::AdapterError, msg)));
                }
            };
            job.frame = Some(f);
            return self.completions_next(call, job, now);
        }
        let out = completions_result(&self.id, self.run.revision, &job.text, &body);
        self.calls.done.push((call, out));
    }
}

/// The result: one line per candidate (`label (type)`), at most [`SHOWN`], then how many more.
fn completions_result(session: &str, revision: u64, text: &str, body: &Value) -> ToolResult {
    let targets: Vec<&Value> = body
        .get("targets")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter(|v| v.is_object()).collect())
        .unwrap_or_default();
    let label = |t: &Value| t.get("label").and_then(Value::as_str).unwrap_or("?").to_owned();
    let mut lines = vec![match targets.len() {
        0 => format!("no completions for {:?}", clip(text, 80).0),
        n => format!("{n} completions for {:?}:", clip(text, 80).0),
    }];
    for t in targets.iter().take(SHOWN) {
        let mut line = format!("  {}", clip(&label(t), 120).0);
        if let Some(kind) = t.get("type").and_then(Value::as_str) {
            line.push_str(&format!(" ({kind})"));
        }
        lines.push(line);
    }
    if targets.len() > SHOWN {
        lines.push(format!("  … {} more (in structuredContent up to {MAX_TARGETS})", targets.len() - SHOWN));
    }
    let list: Vec<Value> = targets.iter().take(MAX_TARGETS).map(|t| (*t).clone()).collect();
    let structured = json!({"session": session, "revision": revision, "total": targets.len(), "targets": list});
    ToolResult::ok(lines.join("\n"), structured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_listed_with_their_type_and_capped() {
        let body = json!({"targets": [{"label": "total", "type": "variable"}, {"label": "tally"}]});
        let out = completions_result("s1", 3, "t", &body);
        assert_eq!(out.text, "2 completions for \"t\":\n  total (variable)\n  tally");
        assert_eq!(out.structured["total"], 2);
        let many: Vec<Value> = (0..45).map(|i| json!({"label": format!("v{i}")})).collect();
        let out = completions_result("s1", 3, "v", &json!({ "targets": many }));
        assert!(out.text.ends_with("  … 5 more (in structuredContent up to 200)"), "{}", out.text);
        assert_eq!(completions_result("s1", 3, "zz", &json!({})).text, "no completions for \"zz\"");
    }
}
