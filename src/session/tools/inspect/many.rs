//! `evaluate {expressions}` — several expressions evaluated one after another in one frame, each
//! answered on its own line (an error in one is that one's, the call still succeeds) — and the
//! hex (`format: {hex: true}`, DAP § Types › ValueFormat) forms of `evaluate` and `variables`,
//! which bypass the values cache so hex and plain values never mix. Also routes the group's newer
//! operations (`Op::Many`, `Op::Completions`, `Op::Modules`) to their files. Must not: touch IO,
//! or cache a hex value.

use std::collections::VecDeque;
use std::time::Instant;

use serde_json::{json, Value};

use super::{top_frame_id, Op, Target, VarQuery};
use crate::dap::requests::{Evaluate, EvaluateArguments, StackTraceArguments, ValueFormat};
use crate::session::tools::Started;
use crate::session::values::variable_line;
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// Most expressions one `evaluate` call takes.
pub const MAX_EXPRESSIONS: usize = 20;

/// An `evaluate {expressions}` under way: the frame (`None` until the top frame is fetched), the
/// expressions still to send (the first is in flight), and what the sent ones answered.
#[derive(Debug)]
pub struct EvalMany {
    thread: i64,
    frame: Option<i64>,
    context: String,
    hex: bool,
    pending: VecDeque<String>,
    /// One `{expression, value, type, ref, …}` or `{expression, error}` per expression sent.
    results: Vec<Value>,
    lines: Vec<String>,
    /// One expression ran out of time: the rest would too, one timeout each, so they are skipped.
    timed_out: bool,
}

impl Sessions {
    /// `evaluate {expressions}`: each expression in the same frame, in order (at most
    /// [`MAX_EXPRESSIONS`]); answered once all are.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate_many(
        &mut self,
        key: SessionKey,
        expressions: Vec<String>,
        target: Target,
        context: Option<String>,
        hex: bool,
        call: CallKey,
        now: Instant,
    ) -> Started {
        self.check_stopped(key)?;
        if expressions.is_empty() || expressions.len() > MAX_EXPRESSIONS {
            let msg = format!("expressions takes 1 to {MAX_EXPRESSIONS} expressions, not {}.", expressions.len());
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        if let Some(i) = expressions.iter().position(|e| e.trim().is_empty()) {
            let msg = format!("expressions[{i}] is empty.");
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let (thread, frame, context) = self.evaluate_in(key, target, context, hex)?;
        let job = EvalMany {
            thread,
            frame,
            context,
            hex,
            pending: expressions.into(),
            results: Vec::new(),
            lines: Vec::new(),
            timed_out: false,
        };
        self.inspect(key, call, Op::Many(Box::new(job)), now)
    }
}

impl Op {
    /// The expression an `evaluate` request of this operation evaluates, when it is one (its
    /// success may have changed the program's values: `events.rs` drops the caches).
    pub(in crate::session) fn evaluated(&self) -> Option<&str> {
        match self {
            Op::Evaluate { expression, .. } => Some(expression),
            Op::Many(job) if job.frame.is_some() => job.pending.front().map(String::as_str),
            _ => None,
        }
    }
}

impl Session {
    /// Sends the first (or next) request of `Op::Many`, `Op::Completions` or `Op::Modules`.
    pub(super) fn start_more(&mut self, call: CallKey, op: Op, now: Instant) {
        let revision = self.run.revision;
        match op {
            Op::Many(job) => match (job.frame, job.pending.front()) {
                (None, _) => {
                    let args = StackTraceArguments { thread_id: job.thread, start_frame: Some(0), levels: Some(1) };
                    self.request::<crate::dap::requests::StackTrace>(
                        args,
                        Origin::Inspect { call, op: Op::Many(job), revision },
                        now,
                    )
                }
                (Some(f), Some(expression)) => {
                    let args = EvaluateArguments {
                        expression: expression.clone(),
                        frame_id: Some(f),
                        context: Some(job.context.clone()),
                        format: ValueFormat::hex(job.hex),
                    };
                    self.request::<Evaluate>(args, Origin::Inspect { call, op: Op::Many(job), revision }, now)
                }
                (Some(_), None) => self.many_done(call, *job),
            },
            Op::Completions(job) => self.completions_next(call, job, now),
            Op::Modules(job) => self.modules_next(call, job, now),
            other => self.start_op(call, other, now),
        }
    }

    /// The answer to a request of `Op::Many`, `Op::Completions` or `Op::Modules` (the
    /// revision was checked already).
    pub(super) fn more_answered(
        &mut self,
        call: CallKey,
        op: Op,
        result: Result<Value, (ErrorCode, String)>,
        now: Instant,
    ) {
        match op {
            Op::Many(job) => self.many_answered(call, job, result, now),
            Op::Completions(job) => self.completions_answered(call, job, result, now),
            Op::Modules(job) => self.modules_answered(call, job, result),
            _ => {}
        }
    }

    fn many_answered(
        &mut self,
        call: CallKey,
        mut job: Box<EvalMany>,
        result: Result<Value, (ErrorCode, String)>,
        now: Instant,
    ) {
        if job.frame.is_none() {
            let frame = match result {
                Ok(body) => top_frame_id(&body),
                Err((code, msg)) => return self.calls.done.push((call, ToolResult::error(code, msg))),
            };
            let f = match frame {
                Ok(f) => f,
                Err(why) => {
                    let msg = format!("thread {} {why}", job.thread);
                    return self.calls.done.push((call, ToolResult::error(ErrorCode::AdapterError, msg)));
                }
            };
            job.frame = Some(f);
            return self.start_more(call, Op::Many(job), now);
        }
        let Some(expression) = job.pending.pop_front() else { return self.many_done(call, *job) };
        match result {
            Err((code, msg)) => {
                // The line says `error:` already; the adapter's words follow it alone.
                let msg = msg.strip_prefix("`evaluate` failed: ").map_or(msg.clone(), str::to_owned);
                let hint = self.link.plan.runtime.evaluate_error_hint.filter(|(words, _)| msg.contains(words));
                let msg = match hint {
                    Some((_, hint)) => format!("{msg} ({hint})"),
                    None => msg,
                };
                let own = self.link.plan.runtime.evaluate_own_frames;
                let msg = crate::session::traceback::without_own_frames(&msg, own, &self.link.plan.name);
                job.timed_out |= code == ErrorCode::Timeout;
                job.push_error(expression, &msg);
            }
            Ok(body) => {
                if let (Some(f), Some(r)) = (job.frame, body.get("variablesReference").and_then(Value::as_i64)) {
                    self.note_frame_of([r], f);
                }
                if !job.hex {
                    let missing = self.missing_previews(std::iter::once(&body));
                    if !missing.is_empty() {
                        // Answered again, with this body, once the previews are in.
                        job.pending.push_front(expression);
                        return self.start_previews(call, missing, Op::Many(job), body, now);
                    }
                }
                let context = job.context.clone();
                let out = if job.hex {
                    let body = self.hex_answer(body, "result");
                    self.without_previews(|s| s.evaluate_result(&expression, &context, &body))
                } else {
                    self.evaluate_result(&expression, &context, &body)
                };
                job.push_result(expression, out);
            }
        }
        if job.timed_out {
            while let Some(e) = job.pending.pop_front() {
                job.push_error(e, "skipped: an earlier expression of this call timed out");
            }
        }
        self.start_more(call, Op::Many(job), now)
    }

    fn many_done(&mut self, call: CallKey, job: EvalMany) {
        let structured = json!({"session": self.id, "revision": self.run.revision, "results": job.results});
        self.calls.done.push((call, ToolResult::ok(job.lines.join("\n"), structured)));
    }

    /// Runs `f` with no cached children in sight, so values rendered in hex get no preview
    /// made of plain values (the caches are put back untouched).
    pub(super) fn without_previews<T>(&mut self, f: impl FnOnce(&mut Session) -> T) -> T {
        let pages = std::mem::take(&mut self.view.var_cache);
        let previews = std::mem::take(&mut self.view.preview_cache);
        let out = f(self);
        self.view.var_cache = pages;
        self.view.preview_cache = previews;
        out
    }

    /// A `variables {hex}` page, read from its own answer (never cached: the cache holds the
    /// adapter's plain values).
    pub(super) fn hex_page(&mut self, q: &VarQuery, body: &Value) -> ToolResult {
        let mut vars = body.get("variables").and_then(Value::as_array).cloned().unwrap_or_default();
        if self.link.plan.runtime.hex_without_prefix {
            vars.iter_mut().for_each(|v| prefix_hex(v, "value"));
        }
        self.note_children_frame(q.reference, &vars);
        let mut out = self.without_previews(|s| s.variables_page(q, &vars));
        out.structured["hex"] = true.into();
        out
    }
}

impl Session {
    /// An `evaluate` answer in hex as agentdap shows it: with the `0x` the adapter left out
    /// (`RuntimeQuirks::hex_without_prefix`).
    pub(super) fn hex_answer(&self, mut body: Value, key: &str) -> Value {
        if self.link.plan.runtime.hex_without_prefix {
            prefix_hex(&mut body, key);
        }
        body
    }
}

/// `0x` before a number's value at `key` that is bare hex digits (after an optional `-`, with
/// at most one `.`: js-debug 1.112 writes 3.5 as `3.8`). Only a value of type `number` or
/// `bigint` is a number: a string's hex form (`'hi'` is `6869`) stays as the adapter sent it.
fn prefix_hex(v: &mut Value, key: &str) {
    let number = matches!(v.get("type").and_then(Value::as_str), Some("number" | "bigint"));
    let Some(text) = v.get(key).and_then(Value::as_str).filter(|_| number) else { return };
    let (sign, digits) = text.strip_prefix('-').map_or(("", text), |d| ("-", d));
    let hex = digits.chars().all(|c| c.is_ascii_hexdigit() || c == '.') && digits.matches('.').count() <= 1;
    if hex && digits.chars().any(|c| c.is_ascii_hexdigit()) {
        v[key] = format!("{sign}0x{digits}").into();
    }
}

impl EvalMany {
    /// The error on one line of the text (its lines joined with ` ↵ `: lldb-dap 22's words
    /// quote the expression with a caret under it); `structuredContent` has them as sent.
    fn push_error(&mut self, expression: String, msg: &str) {
        let one: Vec<&str> = msg.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        self.lines.push(format!("{expression}: error: {}", one.join(" ↵ ")));
        self.results.push(json!({"expression": expression, "error": msg}));
    }

    /// One expression's `evaluate_result`: its value line, or its error (a refusal the result
    /// reading found, like rdbg's `Can not evaluate on this frame`).
    fn push_result(&mut self, expression: String, out: ToolResult) {
        if out.is_error {
            let msg = out.structured["error"]["message"].as_str().unwrap_or(&out.text).to_owned();
            return self.push_error(expression, &msg);
        }
        let mut entry = out.structured;
        if let Some(m) = entry.as_object_mut() {
            m.remove("session");
            m.remove("revision");
        }
        let mut shown = entry.clone();
        shown["name"] = expression.into();
        let mut line = variable_line(&shown);
        // `evaluate_result` adds a note line when a value is most likely the expression's failure.
        if let Some(note) = out.text.split_once("\n(note: ").map(|(_, n)| n.trim_end_matches(')')) {
            line.push_str(&format!(" (note: {note})"));
        }
        self.lines.push(line);
        self.results.push(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_numbers_bare_hex_digits_get_the_prefix() {
        let shown = |value: &str, ty: &str| {
            let mut v = json!({"result": value, "type": ty});
            prefix_hex(&mut v, "result");
            v["result"].as_str().unwrap_or_default().to_owned()
        };
        assert_eq!(shown("14", "number"), "0x14");
        assert_eq!(shown("-ff", "number"), "-0xff");
        assert_eq!(shown("3.8", "number"), "0x3.8");
        assert_eq!(shown("a", "bigint"), "0xa");
        assert_eq!(shown("0x14", "number"), "0x14");
        assert_eq!(shown("68656c6c6f", "string"), "68656c6c6f");
        assert_eq!(shown("NaN", "number"), "NaN");
        assert_eq!(shown("Infinity", "number"), "Infinity");
    }

    /// breaker3: js-debug 1.112.0 answers `2 ** 200` (and `2n ** 200n`) in hex as `1` and 50
    /// zeros; past 40 digits the prefix was left out, so `evaluate {hex: true}` showed
    /// `big = 100000000000000000000000000000000000000000000000000  (number)`, which reads as
    /// the decimal 10^50 (the value is about 1.6e60): a hex value read as a decimal one.
    #[test]
    fn a_long_hex_number_still_gets_the_prefix() {
        let shown = |value: &str, ty: &str| {
            let mut v = json!({"result": value, "type": ty});
            prefix_hex(&mut v, "result");
            v["result"].as_str().unwrap_or_default().to_owned()
        };
        let two_to_200 = format!("1{}", "0".repeat(50));
        assert_eq!(shown(&two_to_200, "number"), format!("0x{two_to_200}"));
        assert_eq!(shown(&two_to_200, "bigint"), format!("0x{two_to_200}"));
        let minus = format!("-{two_to_200}");
        assert_eq!(shown(&minus, "bigint"), format!("-0x{two_to_200}"));
    }

    fn job() -> EvalMany {
        EvalMany {
            thread: 1,
            frame: Some(7),
            context: "repl".into(),
            hex: false,
            pending: VecDeque::new(),
            results: Vec::new(),
            lines: Vec::new(),
            timed_out: false,
        }
    }

    #[test]
    fn each_expression_gets_its_own_line_and_entry() {
        let mut j = job();
        let ok = ToolResult::ok(
            "x = 42  (int)",
            json!({"expression": "x", "value": "42", "type": "int", "session": "s1", "revision": 2}),
        );
        j.push_result("x".into(), ok);
        j.push_result("nope".into(), ToolResult::error(ErrorCode::AdapterError, "name 'nope' is not defined"));
        j.push_error("y".into(), "error: undeclared 'y'\n    1 | y\n      | ^\n");
        assert_eq!(
            j.lines,
            [
                "x = 42 (int)",
                "nope: error: name 'nope' is not defined",
                "y: error: error: undeclared 'y' ↵ 1 | y ↵ | ^"
            ]
        );
        j.results.pop();
        assert_eq!(
            Value::from(j.results),
            json!([{"expression": "x", "value": "42", "type": "int"},
                   {"expression": "nope", "error": "name 'nope' is not defined"}])
        );
    }
}
