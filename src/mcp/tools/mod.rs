//! The tools registry: each tool is data (name, description, flat input schema, annotations,
//! handler), declared once per tool group in `tools/<group>.rs`.
//!
//! Must not: know about JSON-RPC, eras or ids; a handler sees only its arguments and a
//! [`ToolCx`], and answers with an [`Outcome`] (MCP 2025-11-25 § Server › Tools).

mod breakpoints;
mod control;
mod edit;
mod flow;
mod host;
mod inspect;
mod ledger;
mod memory;
mod mirror;
mod output;
mod run;
mod sessions;
mod source;

use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::jsonrpc::Id;
pub use crate::reply::{CallKey, ErrorCode, ToolResult};

/// What a handler can reach while it runs.
///
/// Later issues add the session manager here (a `&mut` borrowed from the event loop's
/// [`super::Context`]); handlers that start DAP work remember `call` in their pending table and
/// finish through [`super::Mcp::complete`].
pub struct ToolCx<'a> {
    /// The key under which a [`Outcome::Pending`] answer is delivered later.
    pub call: CallKey,
    /// The loop's clock reading (deadlines for waits are computed from it).
    pub now: Instant,
    /// `params._meta.progressToken` of the call, if the client asked for progress.
    pub progress_token: Option<&'a Id>,
    /// The session manager.
    pub sessions: &'a mut crate::session::Sessions,
    /// Said after the result: which session a call with no `session` went to, when that was not
    /// the only one it could mean ([`session_key`]).
    pub note: std::cell::RefCell<Option<String>>,
}

/// A tool handler: `arguments` is the call's `arguments` object (empty when absent). `Err` is a
/// refusal known at once (a bad argument, a session that is not stopped), answered like
/// [`Outcome::Done`].
pub type Handler = fn(&mut ToolCx<'_>, &Map<String, Value>) -> Result<Outcome, ToolResult>;

/// What a handler answers.
#[derive(Debug)]
pub enum Outcome {
    /// The result, sent at once.
    Done(ToolResult),
    /// Work was started; the owner calls `Mcp::complete(cx.call, result, …)` later, and drains
    /// `Mcp::take_cancelled` to learn which calls to stop waiting for.
    Pending,
}

/// Behaviour hints for clients (MCP 2025-11-25 § Tools › ToolAnnotations). `openWorldHint` is
/// left at its default (true): a debuggee may do anything, including talk to the world.
#[derive(Clone, Copy, Debug)]
pub struct Annotations {
    pub read_only: bool,
    /// Meaningful only when not `read_only`.
    pub destructive: bool,
    /// Meaningful only when not `read_only`.
    pub idempotent: bool,
}

impl Annotations {
    pub const READ_ONLY: Annotations = Annotations { read_only: true, destructive: false, idempotent: true };

    /// Only the hints that differ from the spec's defaults (`readOnlyHint` false,
    /// `destructiveHint` true, `idempotentHint` false, `openWorldHint` true): agents pay for
    /// every byte of `tools/list`.
    fn to_value(self) -> Value {
        let mut v = json!({});
        if self.read_only {
            crate::jsonrpc::insert(&mut v, "readOnlyHint", Value::Bool(true));
        } else {
            if !self.destructive {
                crate::jsonrpc::insert(&mut v, "destructiveHint", Value::Bool(false));
            }
            if self.idempotent {
                crate::jsonrpc::insert(&mut v, "idempotentHint", Value::Bool(true));
            }
        }
        v
    }
}

/// One tool, as data. `name` matches `[a-z0-9_]{1,64}`; `description` is one or two sentences;
/// `input_schema` is flat and self-contained (`type`, `properties`, `required`, `description`,
/// `enum`, `items`; no `$ref`, no `additionalProperties`). No tool declares an `outputSchema`.
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
    pub annotations: Annotations,
    pub handler: Handler,
}

impl Tool {
    /// The `Tool` object of `tools/list`:
    /// `{"name","description","inputSchema","annotations"}`. No `title`: clients show the name
    /// when it is absent, and its ~900 bytes over the whole list were paid in every conversation
    /// (MCP 2025-11-25 § Tools › Tool: `title` is optional).
    pub fn to_value(&self) -> Value {
        let mut schema = (self.input_schema)();
        // One argument of every tool that reports a stop, read before its handler
        // (`Sessions::set_call_locals`); what it does is said once, in the instructions.
        if crate::mcp::STOP_TOOLS.contains(&self.name) {
            if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert("locals".into(), json!({"type": "boolean"}));
            }
        }
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": schema,
            "annotations": self.annotations.to_value(),
        })
    }
}

impl Tool {
    /// The `Tool` object of `tools/list` under `--tools core`: the arguments in `hidden` left
    /// out of the schema (the handler still accepts them). A plain entry `arg` hides `arg` of
    /// every tool, at the top and in the items of array arguments; `tool.arg` hides `arg` of that
    /// tool only; `tool.list.field` hides a field of the items of that tool's array argument
    /// `list`.
    pub fn to_core_value(&self, hidden: &[&str]) -> Value {
        let mut v = self.to_value();
        let Some(props) = v.pointer_mut("/inputSchema/properties").and_then(Value::as_object_mut) else {
            return v;
        };
        let everywhere: Vec<&str> = hidden.iter().copied().filter(|h| !h.contains('.')).collect();
        props.retain(|name, _| !everywhere.contains(&name.as_str()));
        for (name, prop) in props.iter_mut() {
            if let Some(items) = prop.pointer_mut("/items/properties").and_then(Value::as_object_mut) {
                items.retain(|field, _| {
                    let scoped = format!("{}.{name}.{field}", self.name);
                    !everywhere.contains(&field.as_str()) && !hidden.contains(&scoped.as_str())
                });
            }
        }
        for entry in hidden {
            let Some(rest) = entry.strip_prefix(self.name).and_then(|r| r.strip_prefix('.')) else { continue };
            if !rest.contains('.') {
                props.remove(rest);
            }
        }
        v
    }
}

/// The schema of a tool without arguments.
pub fn no_arguments() -> Value {
    json!({"type": "object", "properties": {}})
}

/// Every tool, in the deterministic order `tools/list` shows them.
pub fn registry() -> Vec<&'static Tool> {
    let groups: [&'static [Tool]; 12] = [
        run::TOOLS,
        control::TOOLS,
        inspect::TOOLS,
        breakpoints::TOOLS,
        output::TOOLS,
        sessions::TOOLS,
        mirror::TOOLS,
        flow::TOOLS,
        edit::TOOLS,
        source::TOOLS,
        memory::TOOLS,
        host::TOOLS,
    ];
    groups.iter().flat_map(|g| g.iter()).chain(ledger::TOOLS).collect()
}

/// Parses a call's `arguments` into `T`; a mismatch is an `invalid_argument` result naming the
/// field, as serde reports it.
pub fn parse_args<T: serde::de::DeserializeOwned>(args: &Map<String, Value>) -> Result<T, ToolResult> {
    serde_json::from_value(Value::Object(args.clone())).map_err(|e| {
        let text = e.to_string();
        // serde names a missing field itself, not the one whose value has the wrong shape.
        let culprit = if text.starts_with("missing field") { None } else { culprit::<T>(args, &text) };
        let text = match culprit {
            Some(name) => format!("`{name}`: {text}; see the tool's input schema."),
            None => format!("{text}; see the tool's input schema."),
        };
        ToolResult::error(ErrorCode::InvalidArgument, text)
    })
}

/// The argument whose value fails to parse: the one whose removal makes `error` go away (the
/// call then parses, or only misses that argument). Tried on the error path only, at most
/// [`CULPRIT_KEYS`] arguments.
fn culprit<T: serde::de::DeserializeOwned>(args: &Map<String, Value>, error: &str) -> Option<String> {
    const CULPRIT_KEYS: usize = 32;
    args.keys().take(CULPRIT_KEYS).find_map(|key| {
        let mut without = args.clone();
        without.remove(key);
        match serde_json::from_value::<T>(Value::Object(without)) {
            Ok(_) => Some(key.clone()),
            Err(e) => {
                let other = e.to_string();
                (other != error && other.starts_with(&format!("missing field `{key}`"))).then(|| key.clone())
            }
        }
    })
}

/// Resolves the optional `session` argument (default: the most recent live session).
pub fn session_key(cx: &ToolCx<'_>, id: Option<&str>) -> Result<crate::session::SessionKey, ToolResult> {
    let key = cx.sessions.resolve(id)?;
    if id.is_none() {
        *cx.note.borrow_mut() = cx.sessions.default_note(key);
    }
    Ok(key)
}

/// The `session` argument every session tool takes (default: the most recent live one,
/// said once in the server's instructions rather than in every schema).
pub fn session_prop() -> Value {
    json!({"type": "string"})
}

/// The `wait_ms` argument of waiting tools (default 10 000, cap 50 000: MCP clients give up on a
/// request after ~60 s), said once in the server's instructions rather than in every schema.
pub fn wait_prop() -> Value {
    json!({"type": "integer"})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Args {
        program: String,
        #[serde(default)]
        args: Vec<String>,
        wait_ms: Option<u64>,
    }

    fn error_of(args: Value) -> String {
        let Value::Object(map) = args else { unreachable!("test input is an object") };
        match parse_args::<Args>(&map) {
            Ok(a) => format!("parsed {a:?}"),
            Err(r) => r.text,
        }
    }

    #[test]
    fn a_value_of_the_wrong_shape_names_its_argument() {
        assert_eq!(
            error_of(json!({"program": "p", "args": "one"})),
            "invalid_argument: `args`: invalid type: string \"one\", expected a sequence; see the tool's input schema."
        );
        assert!(error_of(json!({"program": 5})).starts_with("invalid_argument: `program`: invalid type: integer"));
        assert!(error_of(json!({"program": "p", "wait_ms": -1})).starts_with("invalid_argument: `wait_ms`: "));
        // serde already names a missing field.
        assert_eq!(
            error_of(json!({"args": []})),
            "invalid_argument: missing field `program`; see the tool's input schema."
        );
    }
}
