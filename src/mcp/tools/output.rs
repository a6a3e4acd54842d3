//! Tool group "output": read a session's captured program and adapter output by cursor.

use serde_json::{json, Map, Value};

use super::{parse_args, session_key, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::session::output::Category;

/// Most entries one `output` call returns.
const MAX_LIMIT: usize = 1000;
/// Most text one `output` result carries (bytes); past it the read stops early.
/// Room is left under `reply::MAX_TEXT_CHARS` for the result's header and closing line.
const MAX_TEXT: usize = 19_000;

pub const TOOLS: &[Tool] = &[Tool {
    name: "output",
    description: "The program's output from a cursor, also after it exited.",
    input_schema: schema,
    annotations: Annotations::READ_ONLY,
    handler: output,
}];

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "since": {"type": "integer", "description": "Cursor (default 0)."},
            "category": {"type": "string", "enum": ["stdout", "stderr", "console", "adapter", "logpoint"]},
            "limit": {"type": "integer", "description": "Default 200, max 1000."}
        }
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    session: Option<String>,
    since: Option<u64>,
    category: Option<String>,
    limit: Option<usize>,
}

fn output(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: Args = parse_args(args)?;
    let category = match a.category.as_deref().map(Category::parse) {
        None => None,
        Some(Some(c)) => Some(c),
        Some(None) => {
            return Err(ToolResult::error(
                ErrorCode::InvalidArgument,
                "category must be one of stdout, stderr, console, adapter, logpoint.",
            ))
        }
    };
    let key = session_key(cx, a.session.as_deref())?;
    cx.sessions.flush_output(key);
    let Some(s) = cx.sessions.get(key) else {
        return Err(ToolResult::error(ErrorCode::SessionNotFound, "the session is gone."));
    };
    let limit = a.limit.unwrap_or(200).min(MAX_LIMIT);
    let read = s.output.read(a.since.unwrap_or(0), category, limit);
    let mut size = 0;
    // Why the read stopped before the newest entry, when it did.
    let mut stopped_by = read.more.then(|| match a.limit {
        Some(asked) if asked > MAX_LIMIT => format!("at most {MAX_LIMIT} entries per call"),
        _ => format!("limit {limit} reached"),
    });
    let mut taken = Vec::new();
    let mut next = read.next_cursor;
    let mut more = read.more;
    for e in &read.entries {
        if size + e.text.len() > MAX_TEXT && !taken.is_empty() {
            next = e.index;
            more = true;
            stopped_by = Some(format!("at most {MAX_TEXT} bytes of text per call"));
            break;
        }
        size += e.text.len();
        taken.push(*e);
    }
    // One entry alone over the cap (one line of megabytes) is cut, and the result says so.
    let oversized = taken.first().filter(|e| taken.len() == 1 && e.text.len() > MAX_TEXT).map(|e| {
        let mut end = MAX_TEXT;
        while !e.text.is_char_boundary(end) {
            end -= 1;
        }
        (e.index, e.text.len(), &e.text[..end])
    });
    // One category reads as printed; all of them are labelled per line (`output::join`).
    let text = match oversized {
        Some((_, _, cut)) => format!("{cut}…"),
        None => crate::session::output::join(taken.iter().copied(), category.is_none()),
    };
    let entries: Vec<Value> = taken
        .iter()
        .map(|e| {
            let text = oversized.filter(|(i, ..)| *i == e.index).map_or(e.text.as_str(), |(_, _, cut)| cut);
            json!({"index": e.index, "category": e.category.as_str(), "text": text})
        })
        .collect();
    let mut head = format!("{} output: {} entries, next cursor {next}", s.id, entries.len());
    if let Some((index, bytes, _)) = oversized {
        head.push_str(&format!(
            "; entry {index} is {bytes} bytes, cut to its first {MAX_TEXT} (the rest cannot be read through `output`)"
        ));
    }
    let (evicted, evicted_bytes) = s.output.evicted();
    if read.dropped > 0 {
        head.push_str(&format!(
            "; {} entries before cursor {} were dropped and cannot be read ({evicted_bytes} bytes dropped in all: the ring keeps the last {} KiB)",
            read.dropped,
            s.output.first(),
            s.output.cap() / 1024
        ));
    }
    if more {
        let why = stopped_by.unwrap_or_default();
        head.push_str(&format!(" (more: {why}; call output with since={next})"));
    }
    let mut structured = json!({"session": s.id, "entries": entries, "next_cursor": next});
    if read.dropped > 0 {
        structured["dropped"] = read.dropped.into();
    }
    if evicted > 0 {
        // What the ring still holds starts here; before it, `dropped_bytes` of text are gone.
        structured["first_cursor"] = s.output.first().into();
        structured["dropped_bytes"] = evicted_bytes.into();
    }
    if more {
        structured["more"] = true.into();
    }
    Ok(Outcome::Done(ToolResult::ok(format!("{head}\n{text}").trim_end_matches('\n').to_owned(), structured)))
}
