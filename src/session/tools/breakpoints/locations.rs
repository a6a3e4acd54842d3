//! `breakpoints {path, line, end_line}`: where in those lines a breakpoint can go, by DAP
//! `breakpointLocations` (Gate::BreakpointLocations), as `line:column` candidates. Must not:
//! change any breakpoint, or touch IO.

use std::time::Instant;

use serde_json::{json, Value};

use super::super::gates::Gate;
use super::super::{session, Answer, Started};
use super::Op;
use crate::dap::requests::{BreakpointLocations, BreakpointLocationsArguments, Request};
use crate::session::text::short;
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// Most candidates listed in the text (all are in `structuredContent`).
const SHOWN: usize = 200;

/// Which lines were asked about.
#[derive(Debug)]
pub struct Lines {
    pub path: String,
    pub line: u32,
    pub end_line: Option<u32>,
}

impl Sessions {
    /// `breakpoints {path, line, end_line}` on the live session `key`.
    pub fn breakpoint_locations(&mut self, key: SessionKey, lines: Lines, call: CallKey, now: Instant) -> Started {
        let s = session(&mut self.slab, key)?;
        if s.run.state.is_over() || !s.startup.configured {
            let msg = format!(
                "{} is {}; breakpoint locations come from a live adapter: launch first (the list of breakpoints needs no arguments).",
                s.id,
                s.run.state.as_str()
            );
            return Err(ToolResult::error(ErrorCode::NotStopped, msg));
        }
        s.require(Gate::BreakpointLocations)?;
        let args = BreakpointLocationsArguments {
            source: s.breakpoint_source(&lines.path),
            line: lines.line,
            end_line: lines.end_line,
        };
        s.request::<BreakpointLocations>(args, Origin::Breakpoints(Op::Locations { call, lines }), now);
        self.after(key, now);
        Ok(())
    }
}

impl Session {
    /// The answer to `breakpointLocations`.
    pub(super) fn locations_answered(&mut self, call: CallKey, lines: Lines, answer: Answer) {
        let out = match answer {
            Err((code, msg)) => ToolResult::error(code, msg),
            Ok(body) => locations_result(&lines, &body),
        };
        self.calls.done.push((call, out));
    }
}

fn locations_result(lines: &Lines, body: &Value) -> ToolResult {
    let found = BreakpointLocations::parse(Some(body)).unwrap_or_default().breakpoints;
    let range = match lines.end_line.filter(|e| *e != lines.line) {
        Some(end) => format!("lines {}-{end}", lines.line),
        None => format!("line {}", lines.line),
    };
    let candidates: Vec<Value> = found
        .iter()
        .filter_map(|l| {
            let mut m = serde_json::Map::new();
            m.insert("line".into(), l.line?.into());
            for (k, v) in [("column", l.column), ("end_line", l.end_line), ("end_column", l.end_column)] {
                if let Some(v) = v {
                    m.insert(k.into(), v.into());
                }
            }
            Some(Value::Object(m))
        })
        .collect();
    let text = if candidates.is_empty() {
        format!(
            "no breakpoint location in {} {range}: no code there (a blank or comment line), or the adapter does not know the file",
            short(&lines.path)
        )
    } else {
        let shown: Vec<String> = candidates
            .iter()
            .take(SHOWN)
            .map(|c| match c.get("column") {
                Some(col) => format!("{}:{col}", c["line"]),
                None => c["line"].to_string(),
            })
            .collect();
        let more = candidates.len().saturating_sub(SHOWN);
        let more = if more > 0 { format!(" … and {more} more") } else { String::new() };
        format!(
            "{} breakpoint location(s) in {} {range} (line:column): {}{more}",
            candidates.len(),
            short(&lines.path),
            shown.join(", ")
        )
    };
    ToolResult::ok(text, json!({"path": lines.path, "locations": candidates}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_read_as_line_column_candidates() {
        // lldb-dap 22.1.8 for lines 8-10 of a C file.
        let body =
            json!({"breakpoints": [{"column": 9, "line": 8}, {"column": 16, "line": 8}, {"line": 9}, {"column": "x"}]});
        let lines = Lines { path: "/p/w.c".into(), line: 8, end_line: Some(10) };
        let out = locations_result(&lines, &body);
        assert_eq!(out.text, "3 breakpoint location(s) in w.c lines 8-10 (line:column): 8:9, 8:16, 9");
        assert_eq!(
            out.structured["locations"],
            json!([{"line": 8, "column": 9}, {"line": 8, "column": 16}, {"line": 9}])
        );
        let none = locations_result(&Lines { end_line: None, ..lines }, &json!({"breakpoints": []}));
        assert!(none.text.starts_with("no breakpoint location in w.c line 8: no code there"), "{}", none.text);
    }
}
