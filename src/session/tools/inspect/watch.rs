//! The inspect group's `watch` list (answered at once) and the `exception_info` result's text,
//! moved here from `inspect.rs` to keep that file under its size cap. Must not: send requests.

use serde_json::Value;

use super::results::{to_json, WatchEntry, WatchList};
use super::session;
use crate::dap::requests::{ExceptionInfo, ExceptionInfoResponse, Request};
use crate::session::text::clip;
use crate::session::{ErrorCode, SessionKey, Sessions, ToolResult};

/// Most watch expressions per session.
const MAX_WATCHES: usize = 32;

impl Sessions {
    /// `watch`: adds and removes watch expressions (answered at once).
    pub fn watch(&mut self, key: SessionKey, add: Vec<String>, remove: &[u32]) -> Result<ToolResult, ToolResult> {
        let s = session(&mut self.slab, key)?;
        let unknown: Vec<String> =
            remove.iter().filter(|id| !s.view.watches.iter().any(|w| w.0 == **id)).map(u32::to_string).collect();
        if !unknown.is_empty() {
            let known: Vec<String> = s.view.watches.iter().map(|(id, e)| format!("{id}: {e}")).collect();
            let msg = format!(
                "{} has no watch with id {}; its watches are [{}].",
                s.id,
                unknown.join(", "),
                known.join(", ")
            );
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        s.view.watches.retain(|w| !remove.contains(&w.0));
        for expr in add.into_iter().filter(|e| !e.trim().is_empty()) {
            if s.view.watches.len() >= MAX_WATCHES {
                let msg = format!("at most {MAX_WATCHES} watches per session.");
                return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
            }
            let id = s.view.watches.iter().map(|w| w.0).max().unwrap_or(0) + 1;
            s.view.watches.push((id, expr));
        }
        let list = s.view.watches.iter().map(|(id, e)| WatchEntry { id: *id, expression: e }).collect();
        let structured = to_json(WatchList { session: &s.id, watches: list });
        let mut text = format!("{} watches:", s.id);
        for (id, e) in &s.view.watches {
            text.push_str(&format!("\n  {id}: {e}"));
        }
        if s.view.watches.is_empty() {
            text = format!("{} has no watches", s.id);
        }
        Ok(ToolResult::ok(text, structured))
    }
}

/// The `exception_info` result: its text read from the body, the body itself passed on as the
/// structured result, untouched.
pub(super) fn exception_result(body: &Value) -> ToolResult {
    let info: ExceptionInfoResponse = ExceptionInfo::parse(Some(body)).unwrap_or_default();
    let id = info.exception_id.as_deref().unwrap_or("?");
    let mut text = match info.description.as_deref().filter(|d| !d.is_empty()) {
        Some(desc) => format!("{id}: {desc}"),
        // js-debug 1.112.0 puts type and message in the id (`Error: bad n 2`) and no description.
        None => id.to_owned(),
    };
    if let Some(st) = info.details.as_ref().and_then(|d| d.stack_trace.as_deref()) {
        text.push('\n');
        text.push_str(&clip(st, 4000).0);
    }
    ToolResult::ok(text, body.clone())
}
