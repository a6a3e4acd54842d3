//! Request dispatch: method name and era → handler → one answer (or a pending tool call).
//! Must not: write to the output itself (it returns bytes; `Mcp` places them, alone or in a batch).

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::eras::{self, Cache, Era, CACHE_LIVE, CACHE_STATIC};
use super::tools::{Outcome, ToolCx};
use super::{
    error_bytes, resources, subscription_notification, Context, Listener, Mcp, PendingCall, Reply, RpcError,
    INSTRUCTIONS, MAX_LISTENERS, MAX_PENDING_CALLS, MAX_SUBSCRIPTIONS,
};
use crate::jsonrpc::{self, Id, Span, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND};

/// What a method handler answers.
enum Answer {
    /// A result body, dressed for the era (with caching hints when `Some`).
    Result(Value, Option<Cache>),
    /// A tool call that will be completed later.
    Pending(super::CallKey),
    /// An open `subscriptions/listen`: no answer now.
    Open,
}

/// The request being served.
struct Req<'a> {
    id: &'a Id,
    era: Era,
    progress_token: Option<Id>,
}

impl Mcp {
    pub(super) fn request(
        &mut self,
        text: &str,
        span: Span,
        id: Id,
        method: &str,
        params: Option<Value>,
        cx: &mut Context<'_>,
    ) -> Reply {
        if self.id_in_flight(&id) {
            let err = RpcError::new(
                INVALID_REQUEST,
                format!("Invalid Request: id {id} is already used by a request in flight"),
            );
            return Reply::Now(error_bytes(Some(&id), &err));
        }
        let era = match eras::detect(method, params.as_ref()) {
            Ok(era) => era,
            Err(err) => return Reply::Now(error_bytes(Some(&id), &err)),
        };
        let progress_token = jsonrpc::path_span(text, span, &["params", "_meta", "progressToken"])
            .and_then(|s| Id::from_raw(s.of(text)));
        let req = Req { id: &id, era, progress_token };
        let answer = match era {
            Era::Legacy => self.legacy(&req, method, params, cx),
            Era::Modern => self.modern(&req, method, params, cx),
        };
        match answer {
            Ok(Answer::Result(result, cache)) => {
                let result = eras::dress(era, result, cache);
                let mut bytes = Vec::new();
                jsonrpc::write_result(&mut bytes, &id, &result);
                Reply::Now(bytes)
            }
            Ok(Answer::Pending(call)) => Reply::Pending(call),
            Ok(Answer::Open) => Reply::None,
            Err(err) => Reply::Now(error_bytes(Some(&id), &err)),
        }
    }

    /// Legacy era (MCP 2024-11-05 … 2025-11-25).
    fn legacy(
        &mut self,
        req: &Req<'_>,
        method: &str,
        params: Option<Value>,
        cx: &mut Context<'_>,
    ) -> Result<Answer, RpcError> {
        let params = object(params)?;
        match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(Answer::Result(json!({}), None)),
            "logging/setLevel" => self.set_level(&params),
            "resources/subscribe" => {
                let uri = uri_param(&params)?;
                if self.subscribed.len() >= MAX_SUBSCRIPTIONS && !self.subscribed.contains(uri) {
                    return Err(RpcError::new(
                        INVALID_PARAMS,
                        format!("Invalid params: at most {MAX_SUBSCRIPTIONS} subscriptions"),
                    ));
                }
                self.subscribed.insert(uri.to_owned());
                Ok(Answer::Result(json!({}), None))
            }
            "resources/unsubscribe" => {
                self.subscribed.remove(uri_param(&params)?);
                Ok(Answer::Result(json!({}), None))
            }
            _ if eras::modern_only(method) => Err(not_found(method, "is not part of the legacy protocol versions")),
            _ => self.common(req, method, &params, cx),
        }
    }

    /// Modern era (MCP 2026-07-28), stateless.
    fn modern(
        &mut self,
        req: &Req<'_>,
        method: &str,
        params: Option<Value>,
        cx: &mut Context<'_>,
    ) -> Result<Answer, RpcError> {
        let params = object(params)?;
        match method {
            "server/discover" => Ok(Answer::Result(
                json!({
                    "supportedVersions": eras::SUPPORTED,
                    "capabilities": {"resources": {"subscribe": true}, "tools": {}},
                    "instructions": INSTRUCTIONS,
                }),
                Some(CACHE_STATIC),
            )),
            "subscriptions/listen" => self.listen(req, &params, cx),
            _ if eras::legacy_only(method) => {
                Err(not_found(method, &format!("is not part of protocol version {}", eras::MODERN)))
            }
            _ => self.common(req, method, &params, cx),
        }
    }

    /// Methods both eras share (only the dressing and a few error codes differ).
    fn common(
        &mut self,
        req: &Req<'_>,
        method: &str,
        params: &Map<String, Value>,
        cx: &mut Context<'_>,
    ) -> Result<Answer, RpcError> {
        match method {
            "tools/list" => Ok(Answer::Result(self.listing.clone(), Some(CACHE_STATIC))),
            "tools/call" => self.call_tool(req, params, cx),
            "resources/list" => Ok(Answer::Result(resources::list(), Some(CACHE_LIVE))),
            "resources/templates/list" => Ok(Answer::Result(resources::templates(), Some(CACHE_STATIC))),
            "resources/read" => {
                let uri = uri_param(params)?;
                match resources::read(uri, cx.sessions) {
                    Some(body) => Ok(Answer::Result(body, Some(CACHE_LIVE))),
                    None => {
                        // MCP 2025-11-25 § Resources › Error Handling: -32002;
                        // MCP 2026-07-28 replaced it with -32602.
                        let code = if req.era == Era::Modern { INVALID_PARAMS } else { -32002 };
                        Err(RpcError { code, message: "Resource not found".into(), data: Some(json!({ "uri": uri })) })
                    }
                }
            }
            _ => Err(not_found(method, "is not a method agentdap serves")),
        }
    }

    /// `initialize` (MCP 2025-11-25 § Lifecycle): echo a known legacy version, else answer the
    /// latest legacy one. A repeated `initialize` negotiates again.
    fn initialize(&mut self, params: &Map<String, Value>) -> Answer {
        let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        let version = eras::LEGACY.iter().copied().find(|v| *v == requested).unwrap_or(eras::LATEST_LEGACY);
        let client = params.get("clientInfo").and_then(|c| c.get("name")).and_then(Value::as_str).unwrap_or("?");
        log::info!("initialize from {client}: requested {requested:?}, answering {version}");
        self.negotiated = Some(version);
        Answer::Result(
            json!({
                "protocolVersion": version,
                "capabilities": {"logging": {}, "resources": {"subscribe": true}, "tools": {}},
                "serverInfo": eras::server_info(),
                "instructions": INSTRUCTIONS,
            }),
            None,
        )
    }

    /// `logging/setLevel` (MCP 2025-11-25 § Utilities › Logging).
    fn set_level(&mut self, params: &Map<String, Value>) -> Result<Answer, RpcError> {
        const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
        match params.get("level").and_then(Value::as_str) {
            Some(level) if LEVELS.contains(&level) => {
                self.log_level = Some(level.to_owned());
                Ok(Answer::Result(json!({}), None))
            }
            _ => Err(RpcError::new(
                INVALID_PARAMS,
                format!("Invalid params: \"level\" must be one of {}", LEVELS.join(", ")),
            )),
        }
    }

    /// `tools/call` (MCP 2025-11-25 § Tools › Calling Tools): unknown tool or malformed params →
    /// `-32602`; everything else is the handler's tool result.
    fn call_tool(
        &mut self,
        req: &Req<'_>,
        params: &Map<String, Value>,
        cx: &mut Context<'_>,
    ) -> Result<Answer, RpcError> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(RpcError::new(INVALID_PARAMS, "Invalid params: tools/call needs a string \"name\""));
        };
        let Some(tool) = self.tools.iter().copied().find(|t| t.name == name) else {
            if !crate::allow::membership::ever_allowed(self.allow, name) {
                let verdict = crate::allow::membership::check(self.allow, name, &Map::new());
                if let crate::allow::membership::Verdict::Refused(why) = verdict {
                    return Ok(Answer::Result(not_allowed(why).into_value(), None));
                }
            }
            // A tool the full set has but this server's `--tools core` hides: say so.
            if crate::mcp::tools::registry().iter().any(|t| t.name == name) {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    format!("Unknown tool: {name} (agentdap runs with --tools core; {name} needs --tools full)"),
                ));
            }
            return Err(RpcError::new(INVALID_PARAMS, format!("Unknown tool: {name}")));
        };
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(args)) => args,
            Some(_) => return Err(RpcError::new(INVALID_PARAMS, "Invalid params: \"arguments\" must be an object")),
        };
        if self.pending.len() >= MAX_PENDING_CALLS {
            return Err(RpcError::new(
                INTERNAL_ERROR,
                format!("Internal error: {MAX_PENDING_CALLS} tool calls are already in flight"),
            ));
        }
        // Operator limits, before anything reaches a session.
        let mut stripped;
        let mut args = args;
        match crate::allow::membership::check(self.allow, name, args) {
            crate::allow::membership::Verdict::Allowed => {}
            crate::allow::membership::Verdict::Refused(why) => {
                return Ok(Answer::Result(not_allowed(why).into_value(), None))
            }
            crate::allow::membership::Verdict::HoverOnly => {
                if let Err(why) = hover_allowed(self.allow, args, cx.sessions) {
                    return Ok(Answer::Result(not_allowed(why).into_value(), None));
                }
                stripped = args.clone();
                stripped.insert("context".into(), Value::String("hover".into()));
                args = &stripped;
            }
        }
        // `locals` of a tool that reports stops is the session layer's, not the handler's.
        let mut locals = None;
        if crate::mcp::STOP_TOOLS.contains(&tool.name) {
            if let Some(v) = args.get("locals") {
                let Some(on) = v.as_bool() else {
                    return Ok(Answer::Result(
                        crate::reply::ToolResult::error(
                            crate::reply::ErrorCode::InvalidArgument,
                            "locals must be true or false.",
                        )
                        .into_value(),
                        None,
                    ));
                };
                locals = Some(on);
                stripped = args.clone();
                stripped.remove("locals");
                args = &stripped;
            }
        }
        cx.sessions.set_call_locals(locals);
        let call = self.new_call_key();
        let mut tcx = ToolCx {
            call,
            now: cx.now,
            progress_token: req.progress_token.as_ref(),
            sessions: &mut *cx.sessions,
            note: std::cell::RefCell::default(),
        };
        let outcome = (tool.handler)(&mut tcx, args).unwrap_or_else(Outcome::Done);
        let mut note = tcx.note.take();
        if tool.name == "capabilities" && !self.allow.is_all() {
            // What the operator allows, whatever the adapter supports.
            let limits = self.allow.summary();
            note = Some(note.map_or(limits.clone(), |n| format!("{n}\n{limits}")));
        }
        match outcome {
            Outcome::Done(result) => Ok(Answer::Result(with_note(result, note.as_deref()).into_value(), None)),
            Outcome::Pending => {
                let pending = PendingCall {
                    note,
                    id: req.id.clone(),
                    era: req.era,
                    progress_token: req.progress_token.clone(),
                    last_progress: None,
                    batch: None,
                };
                self.pending.insert(call, pending);
                Ok(Answer::Pending(call))
            }
        }
    }

    /// `subscriptions/listen` (MCP 2026-07-28 § Subscriptions): acknowledge the part of the
    /// filter agentdap honours and keep the request open.
    fn listen(&mut self, req: &Req<'_>, params: &Map<String, Value>, cx: &mut Context<'_>) -> Result<Answer, RpcError> {
        let Some(filter) = params.get("notifications").and_then(Value::as_object) else {
            return Err(RpcError::new(
                INVALID_PARAMS,
                "Invalid params: subscriptions/listen needs a \"notifications\" object",
            ));
        };
        let mut uris = BTreeSet::new();
        match filter.get("resourceSubscriptions") {
            None => {}
            Some(Value::Array(list)) => {
                for uri in list {
                    let Some(uri) = uri.as_str() else {
                        return Err(RpcError::new(
                            INVALID_PARAMS,
                            "Invalid params: \"resourceSubscriptions\" must list URI strings",
                        ));
                    };
                    uris.insert(uri.to_owned());
                }
            }
            Some(_) => {
                return Err(RpcError::new(INVALID_PARAMS, "Invalid params: \"resourceSubscriptions\" must be an array"))
            }
        }
        if uris.len() > MAX_SUBSCRIPTIONS {
            return Err(RpcError::new(
                INVALID_PARAMS,
                format!("Invalid params: at most {MAX_SUBSCRIPTIONS} resource subscriptions"),
            ));
        }
        if self.listeners.len() >= MAX_LISTENERS {
            return Err(RpcError::new(
                INTERNAL_ERROR,
                format!("Internal error: at most {MAX_LISTENERS} open subscriptions"),
            ));
        }
        // tools/prompts/resources list-changed notifications do not exist in agentdap: omitted.
        let mut acked = Map::new();
        if filter.contains_key("resourceSubscriptions") {
            acked.insert("resourceSubscriptions".into(), json!(uris));
        }
        let mut rest = Map::new();
        rest.insert("notifications".into(), Value::Object(acked));
        let ack = subscription_notification("notifications/subscriptions/acknowledged", req.id, &rest);
        super::emit(cx, ack);
        self.listeners.push(Listener { id: req.id.clone(), uris });
        Ok(Answer::Open)
    }
}

/// `params` as an object (absent → empty); anything else → `-32602`.
fn object(params: Option<Value>) -> Result<Map<String, Value>, RpcError> {
    jsonrpc::params_object(params)
        .ok_or_else(|| RpcError::new(INVALID_PARAMS, "Invalid params: \"params\" must be an object"))
}

fn uri_param(params: &Map<String, Value>) -> Result<&str, RpcError> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::new(INVALID_PARAMS, "Invalid params: \"uri\" must be a string"))
}

fn not_found(method: &str, why: &str) -> RpcError {
    RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method} {why}"))
}

/// `result` with `note` (which session a call with no `session` went to) as its last line.
pub(super) fn with_note(mut result: crate::reply::ToolResult, note: Option<&str>) -> crate::reply::ToolResult {
    if let Some(note) = note {
        result.text.push('\n');
        result.text.push_str(note);
    }
    result
}

/// A call the operator's `--allow` set refuses.
fn not_allowed(why: String) -> crate::reply::ToolResult {
    crate::reply::ToolResult::error(crate::reply::ErrorCode::NotAllowed, why)
}

/// `evaluate` without the `evaluate` switch: allowed in `hover` only when the session's adapter
/// advertises `supportsEvaluateForHovers` (DAP § Types › Capabilities) and evaluates hover
/// without side effects (`crate::allow::hover`); else the refusal.
fn hover_allowed(
    allow: crate::allow::Allow,
    args: &Map<String, Value>,
    sessions: &crate::session::Sessions,
) -> Result<(), String> {
    let refuse = |why: &str| Err(format!("{} ({why})", allow.refusal("`evaluate`", crate::allow::Switch::Evaluate)));
    let id = args.get("session").and_then(Value::as_str);
    // No session: the handler says so; nothing can run.
    let Ok(key) = sessions.resolve(id) else { return Ok(()) };
    let Some(s) = sessions.get(key) else { return Ok(()) };
    let adapter = s.link.plan.kind.map(|k| k.name()).unwrap_or("");
    let hover = crate::allow::hover::verdict(adapter);
    if !hover.side_effect_free {
        return refuse(&format!("no side-effect-free context: {}", hover.evidence));
    }
    let list = args.get("expressions").and_then(Value::as_array);
    let texts = args.get("expression").into_iter().chain(list.into_iter().flatten()).filter_map(Value::as_str);
    for text in texts {
        if let Some(p) = hover.command_prefixes.iter().find(|p| text.trim_start().starts_with(**p)) {
            return refuse(&format!("`{p}` makes {} run a debugger command", s.link.adapter));
        }
    }
    let advertised = s
        .link
        .client
        .capabilities()
        .is_some_and(|c| c.raw.get("supportsEvaluateForHovers").and_then(Value::as_bool) == Some(true));
    if !advertised {
        return refuse(&format!("{} does not advertise supportsEvaluateForHovers", s.link.adapter));
    }
    Ok(())
}
