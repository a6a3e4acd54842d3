//! Tool group "ledger": reading back the ledger's recent records (README § What happened) from
//! memory. Must not: read the ledger file (it may be large and shared with other agentdap
//! processes).

use serde_json::{json, Map, Value};

use super::{parse_args, session_prop, Annotations, ErrorCode, Outcome, Tool, ToolCx, ToolResult};
use crate::ledger::{Kind, Query};

/// Records one call returns by default, and at most.
const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 200;
/// Most text one result carries; past it the page is cut.
/// Room is left under `reply::MAX_TEXT_CHARS` for the result's header and closing line.
const MAX_TEXT: usize = 19_000;

pub const TOOLS: &[Tool] = &[Tool {
    name: "ledger",
    description: "What happened in every session (starts, ends, breakpoints, stops, exceptions, errors, mirror use), newest last.",
    input_schema: schema,
    annotations: Annotations::READ_ONLY,
    handler: ledger,
}];

fn schema() -> Value {
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "session": session_prop(),
            "kinds": {"type": "array", "items": {"type": "string", "enum": kinds}},
            "since": {"type": "integer", "description": "Cursor from an earlier result: records after it, oldest first. Default: the newest."},
            "limit": {"type": "integer", "description": "Default 50, max 200."}
        }
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    session: Option<String>,
    #[serde(default)]
    kinds: Vec<String>,
    since: Option<u64>,
    limit: Option<usize>,
}

fn ledger(cx: &mut ToolCx<'_>, args: &Map<String, Value>) -> Result<Outcome, ToolResult> {
    let a: Args = parse_args(args)?;
    let mut kinds = Vec::new();
    for name in &a.kinds {
        match Kind::parse(name) {
            Some(k) => kinds.push(k),
            None => {
                let all: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
                let msg = format!("unknown kind `{name}`; kinds are: {}.", all.join(", "));
                return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
            }
        }
    }
    let limit = a.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let query = Query { session: a.session.as_deref(), kinds: &kinds, since: a.since, limit };
    let mut page = cx.sessions.ledger.query(&query);
    // Keep the text under its cap: a forward read cuts the end, a newest-first read the start.
    let mut lines: Vec<String> = page.records.iter().map(line).collect();
    while lines.iter().map(|l| l.len() + 1).sum::<usize>() > MAX_TEXT && lines.len() > 1 {
        if a.since.is_some() {
            lines.pop();
            page.records.pop();
            page.more = true;
            page.cursor = page.records.last().and_then(|r| r["cursor"].as_u64()).unwrap_or(page.cursor);
        } else {
            lines.remove(0);
            page.records.remove(0);
            page.older += 1;
        }
    }
    let mut head = match page.records.len() {
        0 => "ledger: no records match".to_owned(),
        n => format!("ledger: {n} record(s)"),
    };
    head.push_str(&format!(", cursor {}", page.cursor));
    if page.older > 0 {
        head.push_str(&format!(" ({} older not shown: pass since=0 to read from the oldest kept)", page.older));
    }
    if page.more {
        head.push_str(&format!(" (more: call ledger with since={})", page.cursor));
    }
    if page.gap {
        head.push_str(" (records after `since` left memory already; the ledger file has them)");
    }
    let mut structured = json!({"records": page.records, "cursor": page.cursor});
    if page.more {
        structured["more"] = true.into();
    }
    if page.older > 0 {
        structured["older"] = page.older.into();
    }
    if page.gap {
        structured["gap"] = true.into();
    }
    let text = std::iter::once(head).chain(lines).collect::<Vec<_>>().join("\n");
    Ok(Outcome::Done(ToolResult::ok(text, structured)))
}

/// `#7 09:05:07.042 s1 breakpoint_hit {"location":{…},…}`
fn line(record: &Value) -> String {
    let field = |k: &str| record.get(k).and_then(Value::as_str).unwrap_or("");
    let time = field("ts").get(11..23).unwrap_or("");
    let mut facts = record.as_object().cloned().unwrap_or_default();
    for k in ["ts", "session", "kind", "cursor"] {
        facts.remove(k);
    }
    format!(
        "#{} {time} {} {} {}",
        record.get("cursor").and_then(Value::as_u64).unwrap_or(0),
        field("session"),
        field("kind"),
        Value::Object(facts)
    )
}
