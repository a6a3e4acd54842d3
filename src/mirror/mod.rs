//! The IDE mirror (read-only, or with control when the agent grants it; SECURITY.md), sans-IO:
//! the request policy per [`Mode`], the masked capabilities, tokens, the VS Code snippet, and the
//! per-client state machine ([`client`]).
//! Must not: touch sockets or the clock (the server owns the listener and client fds, in its
//! slabs), or send anything to an adapter itself (forwarding goes through the session's DAP
//! connection, see `session::mirror`).

pub mod client;

use std::fmt;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::dap::adapters::ExpressionOnly;
use crate::reply::ToolResult;

/// Most attached clients one exposed session serves at once; a fifth is refused
/// at its `initialize`/`attach`. Connections still in the handshake do not count.
pub const MAX_CLIENTS: usize = 4;
/// Connections of one listener that have not attached yet (handshake, or closing after a refusal).
/// A new connection at this cap evicts the oldest of them, so idle connections cannot keep an IDE
/// that connects and attaches promptly out.
pub const MAX_HANDSHAKING: usize = 8;
/// Time a client has to `attach` with the right token.
pub const AUTH_TIMEOUT: Duration = Duration::from_secs(30);
/// Environment variable that shortens [`AUTH_TIMEOUT`], in milliseconds. For tests.
pub const AUTH_TIMEOUT_ENV: &str = "AGENTDAP_MIRROR_AUTH_TIMEOUT_MS";
/// Environment variable (and `--mirror-bind`) naming the IP address listeners bind to.
pub const BIND_ENV: &str = "AGENTDAP_MIRROR_BIND";
/// A client that attached but never sent `configurationDone` gets its late-join `stopped` after
/// this long.
pub const LATE_JOIN_FALLBACK: Duration = Duration::from_secs(1);
/// Bytes waiting to be written to one client; past it the client is disconnected (it is not
/// reading its socket) instead of growing memory.
pub const CLIENT_OUT_CAP: usize = 8 << 20;
/// Largest request body a client may send (bytes); larger frames are skipped.
pub const CLIENT_MAX_BODY: usize = 1 << 20;
/// Requests of one client the adapter holds at once, counting ones that timed out for the
/// client until the adapter really answers them. An adapter answers in order on one connection
/// (debugpy evaluates on the stopped thread, lldb-dap and Delve on one request loop), and queued
/// mirror requests are held back while the agent has a request at the adapter, so an agent's
/// request waits behind at most this many of each attached client's ([`MAX_CLIENTS`]). 2: at a
/// stop VS Code asks `threads`, then `stackTrace`, then `scopes`, each needing the previous
/// answer, and only then `variables` and the watch expressions side by side, so two at a time
/// keeps its view filling while the agent waits behind at most two slow `evaluate`s.
pub const MAX_ADAPTER_IN_FLIGHT: usize = 2;
/// Forwarded requests of one client not answered yet: at the adapter
/// ([`MAX_ADAPTER_IN_FLIGHT`]) or queued in the mirror behind them (sent in order as earlier ones
/// are answered). Beyond it a request is answered with an error at once.
pub const MAX_IN_FLIGHT: usize = 64;
/// Largest forwarded answer (encoded bytes) passed on to a client; a larger one becomes an error
/// response instead (it would not fit [`CLIENT_OUT_CAP`] with room for events).
pub const MAX_RESPONSE: usize = CLIENT_OUT_CAP / 2;
/// Timeout of a request forwarded for a client (the agent's own requests have 30 s): an IDE is
/// told sooner that the adapter did not answer.
pub const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes queued to the adapter above which mirror requests are refused (an error response to the
/// IDE), so mirror traffic can never fill the session's outbound buffer
/// (`dap::client::OUTBOUND_HIGH_WATER`, 16 MiB) and make the agent's requests fail. One request
/// body is at most [`CLIENT_MAX_BODY`], so the mirror's share stays under 5 MiB.
pub const FORWARD_OUTBOUND_BUDGET: usize = 4 << 20;
/// Random bytes in a token; shown as 48 hex digits.
pub const TOKEN_BYTES: usize = 24;

/// A mirror token. Its `Debug` and `Display` never show the secret, so it cannot reach a log by
/// accident; [`Token::reveal`] is for the `expose_session` result only.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// A fresh token: [`TOKEN_BYTES`] bytes from the OS (`getrandom`), hex-encoded.
    ///
    /// Errors: the OS random source failed (the caller reports it; no weaker fallback).
    pub fn generate() -> Result<Token, getrandom::Error> {
        let mut bytes = [0u8; TOKEN_BYTES];
        getrandom::getrandom(&mut bytes)?;
        Ok(Token(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// A token with known text (tests).
    pub fn from_text(text: &str) -> Token {
        Token(text.to_owned())
    }

    /// The secret, for the one place that hands it out (the `expose_session` result).
    pub fn reveal(&self) -> &str {
        &self.0
    }

    /// Whether `given` is this token, in time that does not depend on where they differ.
    pub fn matches(&self, given: &str) -> bool {
        constant_time_eq::constant_time_eq(self.0.as_bytes(), given.as_bytes())
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token([redacted])")
    }
}

/// Where an exposed session listens, and its token.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    pub token: Token,
}

/// What the agent lets the IDE do: read (the default), or also run the program
/// (`expose_session {control: true}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    ReadOnly,
    Control,
}

impl Mode {
    pub fn from_control(control: bool) -> Mode {
        if control {
            Mode::Control
        } else {
            Mode::ReadOnly
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::Control => "with control",
        }
    }
}

/// Whether the operator lets a mirror have control: only where the agent itself may control
/// the program (`--allow` with `control`; a mirror client gets at most what the agent may, since
/// the agent holds the token). `expose_session {control: true}` asks it. Errors: the refusal for
/// the agent.
pub fn control_allowed(allow: crate::allow::Allow) -> Result<(), String> {
    if allow.mirror_may(crate::allow::Switch::Control) {
        Ok(())
    } else {
        Err(allow.refusal("`expose_session {control: true}`", crate::allow::Switch::Control) + ".")
    }
}

/// What the mirror does with a client's request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Answered by the mirror itself (handshake, soft-succeeded configuration, `disconnect`,
    /// `cancel`).
    Local,
    /// Sent to the adapter through the session's connection, ids translated through handles.
    Forward,
    /// Refused quietly (`showUser: false`): execution control in [`Mode::ReadOnly`], writes,
    /// anything unlisted.
    Reject,
}

/// Requests that run or stop the program, forwarded in [`Mode::Control`] only; the session
/// resumes for them as for the agent's own (`session::mirror`). `stepInTargets` only reads, but
/// serves `stepIn` alone.
pub const CONTROL: &[&str] =
    &["continue", "next", "stepIn", "stepOut", "stepBack", "reverseContinue", "pause", "stepInTargets"];

/// Of [`CONTROL`], the requests that resume the program.
pub const RESUMES: &[&str] = &["continue", "next", "stepIn", "stepOut", "stepBack", "reverseContinue"];

/// Requests that only read state: forwarded to the adapter. (`evaluate` can run code in the
/// debuggee: forwarded all the same, but only as an expression, see
/// [`as_expression`]; SECURITY.md explains the consequence.)
pub const FORWARDED: &[&str] = &[
    "threads",
    "stackTrace",
    "scopes",
    "variables",
    "source",
    "evaluate",
    "exceptionInfo",
    "loadedSources",
    "modules",
    "completions",
    "readMemory",
    "disassemble",
];

/// Requests the mirror answers itself.
pub const LOCAL: &[&str] = &[
    "initialize",
    "attach",
    "launch",
    "configurationDone",
    "setBreakpoints",
    "setFunctionBreakpoints",
    "setDataBreakpoints",
    "setInstructionBreakpoints",
    "setExceptionBreakpoints",
    "disconnect",
    "cancel",
];

/// The policy for a request `command` in `mode` (default deny). Breakpoint requests stay
/// [`Policy::Local`] in both modes: answered as unverified, never sent.
pub fn policy(command: &str, mode: Mode) -> Policy {
    if LOCAL.contains(&command) {
        Policy::Local
    } else if FORWARDED.contains(&command) || (mode == Mode::Control && CONTROL.contains(&command)) {
        Policy::Forward
    } else {
        Policy::Reject
    }
}

/// Forwarded requests the adapter must advertise before one reaches it: an adapter that lacks the
/// capability may never answer (debugpy's pydevd drops `readMemory`, and its adapter then
/// blocks every later request), so these are refused locally instead.
const NEEDS_CAPABILITY: &[(&str, &str)] = &[
    ("loadedSources", "supportsLoadedSourcesRequest"),
    ("modules", "supportsModulesRequest"),
    ("readMemory", "supportsReadMemoryRequest"),
    ("disassemble", "supportsDisassembleRequest"),
    ("completions", "supportsCompletionsRequest"),
    ("exceptionInfo", "supportsExceptionInfoRequest"),
    ("stepBack", "supportsStepBack"),
    ("reverseContinue", "supportsStepBack"),
    ("stepInTargets", "supportsStepInTargetsRequest"),
];

/// Argument fields holding ids (handles or the adapter's thread and source ids): integers only,
/// so none can slip past handle translation as `2.0` or `"1000"`.
const ID_FIELDS: &[&str] = &["frameId", "variablesReference", "threadId", "sourceReference"];

/// Why a request the policy forwards must not reach this adapter (`caps`: its raw
/// capabilities), as a message for the IDE; `None` when it may be sent. Refused: arguments that
/// are not an object, a non-integer id field ([`ID_FIELDS`], also `source.sourceReference`), a
/// command whose capability the adapter does not advertise ([`NEEDS_CAPABILITY`]), and `source`
/// without a `sourceReference` > 0 (DAP § Requests Source: the client reads a path itself).
pub fn forward_refusal(command: &str, arguments: Option<&Value>, caps: &Map<String, Value>) -> Option<String> {
    let args = match arguments {
        None => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return Some(format!("agentdap mirror: the arguments of `{command}` must be an object")),
    };
    let nested = args.and_then(|a| a.get("source")).and_then(|s| s.get("sourceReference"));
    let fields = ID_FIELDS.iter().filter_map(|f| args.and_then(|a| a.get(*f)).map(|v| (*f, v)));
    for (field, value) in fields.chain(nested.map(|v| ("source.sourceReference", v))) {
        if value.as_i64().is_none() {
            return Some(format!("agentdap mirror: `{field}` must be an integer, not {value}"));
        }
    }
    if let Some((_, flag)) = NEEDS_CAPABILITY.iter().find(|(c, _)| *c == command) {
        if caps.get(*flag) != Some(&Value::Bool(true)) {
            return Some(format!("the adapter does not support `{command}` (no {flag})"));
        }
    }
    if command == "source" {
        let reference = args.and_then(|a| a.get("sourceReference")).or(nested).and_then(Value::as_i64);
        if !reference.is_some_and(|r| r > 0) {
            return Some(
                "agentdap mirror forwards `source` only for a `sourceReference` > 0; open the path itself".into(),
            );
        }
    }
    None
}

/// Makes a mirror client's `evaluate` arguments an expression for the adapter described by
/// `rule` (the mirror reads and evaluates, never controls): a context outside
/// `rule.contexts` (`repl`, none, an unknown one) becomes `rule.contexts[0]`; an expression that
/// starts with one of the adapter's command words or prefixes is refused, as is one without a
/// string `expression` or an integer `frameId` (debugpy executes a frameless `evaluate` as a
/// statement in every context; a frame handle also pins the evaluation to the stop the client
/// saw). Errors: the message for the IDE.
pub fn as_expression(arguments: &mut Option<Value>, rule: &ExpressionOnly) -> Result<(), String> {
    let Some(Value::Object(args)) = arguments.as_mut() else {
        return Err("agentdap mirror: `evaluate` needs arguments with an `expression`".into());
    };
    let Some(expression) = args.get("expression").and_then(Value::as_str) else {
        return Err("agentdap mirror: `evaluate` needs a string `expression`".into());
    };
    let text = expression.trim_start();
    let word = rule.command_words.iter().find(|w| {
        text.strip_prefix(**w).is_some_and(|rest| rest.starts_with(char::is_whitespace) && !rest.trim().is_empty())
    });
    let prefix = rule.command_prefixes.iter().find(|p| text.starts_with(**p));
    let inside = rule.refused_anywhere.iter().find(|r| text.contains(**r));
    if let Some(command) = word.or(prefix).or(inside) {
        return Err(format!(
            "agentdap mirror evaluates expressions only: `{command}` would make the adapter run a debugger command"
        ));
    }
    if !args.get("frameId").is_some_and(Value::is_i64) {
        return Err(
            "agentdap mirror evaluates only in a stopped frame: give the `frameId` of a frame from `stackTrace`".into(),
        );
    }
    let given = args.get("context").and_then(Value::as_str);
    if !given.is_some_and(|c| rule.contexts.contains(&c)) {
        let Some(context) = rule.contexts.first() else {
            return Err("agentdap mirror: this adapter has no context that evaluates expressions only".into());
        };
        args.insert("context".into(), Value::String((*context).to_owned()));
    }
    Ok(())
}

/// Capabilities passed through to the IDE as the adapter reported them: they only describe
/// reading. Every other boolean is forced false; every other non-boolean key is dropped.
const READ_ONLY_CAPABILITIES: &[&str] = &[
    "supportsEvaluateForHovers",
    "supportsCompletionsRequest",
    "completionTriggerCharacters",
    "supportsModulesRequest",
    "additionalModuleColumns",
    "supportsLoadedSourcesRequest",
    "supportsExceptionInfoRequest",
    "supportsReadMemoryRequest",
    "supportsDisassembleRequest",
    "supportsDelayedStackTraceLoading",
    "supportsValueFormattingOptions",
    "supportsClipboardContext",
    "supportedChecksumAlgorithms",
    "supportsANSIStyling",
];

/// Capabilities passed through as well in [`Mode::Control`]: the ones about the requests of
/// [`CONTROL`], and about the breakpoints a control client sets (kept as the person's beside the
/// agent's, `session/mirror_breakpoints.rs`).
const CONTROL_CAPABILITIES: &[&str] = &[
    "supportsStepBack",
    "supportsSteppingGranularity",
    "supportsStepInTargetsRequest",
    "supportsSingleThreadExecutionRequests",
    "supportsConditionalBreakpoints",
    "supportsHitConditionalBreakpoints",
    "supportsLogPoints",
    "supportsExceptionFilterOptions",
];

/// The `initialize` response body (and a `capabilities` event's `capabilities`, DAP § Events ›
/// Capabilities) for a mirror client in `mode`: the adapter's capabilities with every feature
/// that mode does not allow off (always: restart, set variable/expression, goto, terminate,
/// function, data and instruction breakpoints, cancel…; in [`Mode::ReadOnly`] also step back,
/// granularity, step-in targets and conditions on breakpoints), `exceptionBreakpointFilters: []`
/// in [`Mode::ReadOnly`] (the adapter's in [`Mode::Control`]), and
/// `supportsConfigurationDoneRequest: true` (the mirror answers it).
pub fn masked_capabilities(raw: &Map<String, Value>, mode: Mode) -> Value {
    let mut out = Map::new();
    for (key, value) in raw {
        let control = mode == Mode::Control && CONTROL_CAPABILITIES.contains(&key.as_str());
        if control || READ_ONLY_CAPABILITIES.contains(&key.as_str()) {
            out.insert(key.clone(), value.clone());
        } else if value.is_boolean() {
            out.insert(key.clone(), Value::Bool(false));
        }
    }
    out.insert("supportsConfigurationDoneRequest".into(), Value::Bool(true));
    let filters = raw.get("exceptionBreakpointFilters").filter(|_| mode == Mode::Control);
    out.insert("exceptionBreakpointFilters".into(), filters.cloned().unwrap_or_else(|| json!([])));
    Value::Object(out)
}

/// The VS Code `launch.json` entry that attaches to `endpoint` (`debug_type` is the adapter's
/// VS Code debug type: `debugpy`, `lldb-dap`, `go`, …).
pub fn vscode_snippet(session: &str, debug_type: &str, endpoint: &Endpoint) -> Value {
    json!({
        "name": format!("agentdap {session} (mirror)"),
        "type": debug_type,
        "request": "attach",
        "debugServer": endpoint.port,
        "mirrorToken": endpoint.token.reveal(),
    })
}

/// The `expose_session` result: the endpoint and token, and the snippet ready to paste.
pub fn expose_result(session: &str, debug_type: &str, endpoint: &Endpoint, mode: Mode) -> ToolResult {
    let snippet = vscode_snippet(session, debug_type, endpoint);
    let pretty = serde_json::to_string_pretty(&snippet).unwrap_or_default();
    let can = match mode {
        Mode::ReadOnly => "read state and evaluate code",
        Mode::Control => "also continue, step and pause the program; `control: false` takes it back",
    };
    let text = format!(
        "{session} mirrored {} on {}:{} (token: anyone with it can {can}).\n\
         VS Code launch.json configuration (debug type `{debug_type}`: VS Code needs the extension that provides it):\n{pretty}",
        mode.words(),
        endpoint.host,
        endpoint.port
    );
    let structured = json!({
        "session": session,
        "control": mode == Mode::Control,
        "host": endpoint.host,
        "port": endpoint.port,
        "token": endpoint.token.reveal(),
        "launch_json": snippet,
    });
    ToolResult::ok(text, structured)
}

/// The auth timeout: [`AUTH_TIMEOUT`], or [`AUTH_TIMEOUT_ENV`] milliseconds when set (tests).
pub fn auth_timeout() -> Duration {
    std::env::var(AUTH_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(AUTH_TIMEOUT, Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_48_hex_digits_unique_and_never_printed() {
        let (a, b) = (Token::generate().unwrap(), Token::generate().unwrap());
        assert_eq!(a.reveal().len(), 2 * TOKEN_BYTES);
        assert!(a.reveal().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(a.matches(a.reveal()) && !a.matches(b.reveal()) && !a.matches(""));
        assert!(!format!("{a:?}").contains(a.reveal()));
        let e = Endpoint { host: "127.0.0.1".into(), port: 1, token: a.clone() };
        assert!(!format!("{e:?}").contains(a.reveal()));
    }

    #[test]
    fn policy_forwards_reads_answers_handshake_and_denies_the_rest_per_mode() {
        for mode in [Mode::ReadOnly, Mode::Control] {
            for c in ["threads", "stackTrace", "scopes", "variables", "evaluate", "source", "modules"] {
                assert_eq!(policy(c, mode), Policy::Forward, "{c} {mode:?}");
            }
            let local = ["initialize", "attach", "configurationDone", "disconnect", "cancel"];
            let breakpoints = ["setBreakpoints", "setFunctionBreakpoints", "setExceptionBreakpoints"];
            for c in local.into_iter().chain(breakpoints) {
                assert_eq!(policy(c, mode), Policy::Local, "{c} {mode:?}");
            }
            for c in ["setVariable", "setExpression", "restart", "goto", "terminate", "restartFrame", "x"] {
                assert_eq!(policy(c, mode), Policy::Reject, "{c} {mode:?}");
            }
        }
        for c in ["continue", "next", "stepIn", "stepOut", "pause", "stepBack", "reverseContinue", "stepInTargets"] {
            assert_eq!(policy(c, Mode::ReadOnly), Policy::Reject, "{c}");
            assert_eq!(policy(c, Mode::Control), Policy::Forward, "{c}");
        }
        assert!(RESUMES.iter().all(|r| CONTROL.contains(r)) && !RESUMES.contains(&"pause"));
        let caps = Map::new();
        for c in ["stepBack", "reverseContinue", "stepInTargets"] {
            assert!(forward_refusal(c, None, &caps).is_some_and(|w| w.contains("does not support")), "{c}");
        }
        assert_eq!(control_allowed(crate::allow::Allow::all()), Ok(()));
        let inspect = crate::allow::Allow::parse("inspect").expect("a preset");
        let why = control_allowed(inspect).expect_err("inspect has no control");
        assert!(why.contains("--allow control allows it"), "{why}");
    }

    #[test]
    fn unsupported_commands_and_non_integer_ids_are_refused_before_forwarding() {
        let debugpy = json!({"supportsLoadedSourcesRequest": false, "supportsModulesRequest": true,
            "supportsExceptionInfoRequest": true, "supportsCompletionsRequest": true});
        let caps = debugpy.as_object().unwrap();
        let check = |command: &str, args: Value| forward_refusal(command, Some(&args), caps);
        for command in ["loadedSources", "readMemory", "disassemble"] {
            let why = check(command, json!({})).unwrap_or_else(|| panic!("{command} must be refused"));
            assert!(why.contains("does not support"), "{why}");
        }
        assert!(forward_refusal("readMemory", None, &Map::new()).is_some());
        for (command, args) in [
            ("modules", json!({})),
            ("exceptionInfo", json!({"threadId": 1})),
            ("completions", json!({"frameId": 1000, "text": "x", "column": 1})),
            ("variables", json!({"variablesReference": 1001})),
            ("evaluate", json!({"expression": "1"})),
            ("source", json!({"sourceReference": 3})),
            ("source", json!({"source": {"sourceReference": 3}})),
        ] {
            assert_eq!(check(command, args.clone()), None, "{command} {args}");
        }
        assert_eq!(forward_refusal("threads", None, caps), None);
        for (command, args) in [
            ("variables", json!({"variablesReference": 2.0})),
            ("scopes", json!({"frameId": "1000"})),
            ("evaluate", json!({"expression": "s", "frameId": 1.5})),
            ("stackTrace", json!({"threadId": null})),
            ("variables", json!({"variablesReference": 18446744073709551615u64})),
            ("source", json!({"source": {"sourceReference": "3"}})),
            ("source", json!({"source": {"path": "/x.py"}})),
            ("source", json!({"sourceReference": 0})),
            ("threads", json!([1])),
        ] {
            assert!(check(command, args.clone()).is_some(), "{command} {args} must be refused");
        }
    }

    /// One `as_expression` case: the client's arguments, then the context sent, or the refusal's
    /// key words.
    fn check_expression(rule: &ExpressionOnly, args: Value, expected: Result<&str, &str>) {
        let mut arguments = Some(args.clone());
        match (as_expression(&mut arguments, rule), expected) {
            (Ok(()), Ok(context)) => {
                let sent = arguments.unwrap_or_default();
                assert_eq!(sent["context"], json!(context), "{args}");
                assert_eq!(sent["expression"], args["expression"], "the text is never changed: {args}");
            }
            (Err(why), Err(words)) => assert!(why.contains(words), "{args}: {why}"),
            (got, want) => panic!("{args}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn a_gdb_mirror_evaluate_goes_as_hover_and_shell_is_refused_anywhere() {
        let gdb = &crate::dap::adapters::gdb::MIRROR_EVALUATE;
        let e = |expression: &str, context: &str| json!({"expression": expression, "frameId": 0, "context": context});
        for (args, expected) in [
            (e("x + 1", "repl"), Ok("hover")),
            (e("x = 5", "watch"), Ok("hover")),
            (e("info frame", "repl"), Ok("hover")),
            (e("p.x", "hover"), Ok("hover")),
            (e("$_shell(\"id\")", "hover"), Err("debugger command")),
            (e("1 + $_shell(\"touch f\")", "watch"), Err("`$_shell`")),
        ] {
            check_expression(gdb, args, expected);
        }
    }

    #[test]
    fn a_mirror_evaluate_goes_out_in_an_expression_context_and_commands_are_refused() {
        use crate::dap::adapters::{debugpy, delve, lldb};
        let e = |expression: &str, context: Option<&str>| {
            let mut v = json!({"expression": expression, "frameId": 1000});
            if let Some(c) = context {
                v["context"] = json!(c);
            }
            v
        };
        let lldb = &lldb::MIRROR_EVALUATE;
        for (args, expected) in [
            (e("x + 1", Some("repl")), Ok("watch")),
            (e("thread step-over", Some("repl")), Ok("watch")),
            (e("process kill", None), Ok("watch")),
            (e("platform shell touch f", Some("somethingNew")), Ok("watch")),
            (e("p.x", Some("hover")), Ok("hover")),
            (e("p", Some("clipboard")), Ok("clipboard")),
            (e("p", Some("variables")), Ok("variables")),
            (e("x", Some("watch")), Ok("watch")),
            (e("`process kill", Some("repl")), Err("debugger command")),
            (e("  `breakpoint delete", Some("watch")), Err("debugger command")),
            (json!({"expression": "x", "context": "watch"}), Err("frameId")),
            (json!({"expression": "x", "frameId": "1000"}), Err("frameId")),
            (json!({"frameId": 1000}), Err("expression")),
        ] {
            check_expression(lldb, args, expected);
        }
        let delve = &delve::MIRROR_EVALUATE;
        for (args, expected) in [
            (e("dlv help", Some("repl")), Err("`dlv`")),
            (e("  dlv\tconfig -list", Some("watch")), Err("`dlv`")),
            (e("call f()", Some("hover")), Err("`call`")),
            (e("call x = 5", None), Err("`call`")),
            (e("dlv", Some("repl")), Ok("watch")),
            (e("dlvx + callx", Some("repl")), Ok("watch")),
            (e("x + 1", Some("repl")), Ok("watch")),
        ] {
            check_expression(delve, args, expected);
        }
        for (args, expected) in [
            (e("x = 5", Some("repl")), Ok("watch")),
            (e("import os", None), Ok("watch")),
            (e("x", Some("hover")), Ok("hover")),
            (json!({"expression": "import os", "context": "watch"}), Err("frameId")),
        ] {
            check_expression(&debugpy::MIRROR_EVALUATE, args, expected);
        }
        check_expression(&ExpressionOnly::STANDARD, e("info frame", Some("repl")), Ok("watch"));
        assert!(as_expression(&mut Some(json!([1])), lldb).is_err());
        assert!(as_expression(&mut None, lldb).is_err());
    }

    #[test]
    fn masked_capabilities_turn_every_control_feature_off() {
        let raw = json!({
            "supportsConfigurationDoneRequest": true, "supportsSetVariable": true, "supportsStepBack": true,
            "supportsRestartRequest": true, "supportsGotoTargetsRequest": true, "supportsSetExpression": true,
            "supportsTerminateRequest": true, "supportsEvaluateForHovers": true, "supportsCancelRequest": true,
            "supportsExceptionInfoRequest": true, "supportsSomethingNew": true,
            "exceptionBreakpointFilters": [{"filter": "raised", "label": "Raised"}],
            "breakpointModes": [{"mode": "hw"}],
        });
        let masked = masked_capabilities(raw.as_object().unwrap(), Mode::ReadOnly);
        for off in [
            "supportsSetVariable",
            "supportsStepBack",
            "supportsRestartRequest",
            "supportsGotoTargetsRequest",
            "supportsSetExpression",
            "supportsTerminateRequest",
            "supportsCancelRequest",
            "supportsSomethingNew",
        ] {
            assert_eq!(masked[off], json!(false), "{off}");
        }
        assert_eq!(masked["supportsEvaluateForHovers"], json!(true));
        assert_eq!(masked["supportsExceptionInfoRequest"], json!(true));
        assert_eq!(masked["supportsConfigurationDoneRequest"], json!(true));
        assert_eq!(masked["exceptionBreakpointFilters"], json!([]));
        assert!(masked.get("breakpointModes").is_none());
    }

    #[test]
    fn masked_capabilities_with_control_add_exactly_stepping_and_breakpoint_conditions() {
        let raw = json!({
            "supportsStepBack": true, "supportsSteppingGranularity": true, "supportsStepInTargetsRequest": true,
            "supportsSingleThreadExecutionRequests": true, "supportsSetVariable": true, "supportsGotoTargetsRequest": true,
            "supportsRestartRequest": true, "supportsTerminateRequest": true, "supportsEvaluateForHovers": true,
            "supportsFunctionBreakpoints": true, "supportsConditionalBreakpoints": true,
            "supportsHitConditionalBreakpoints": true, "supportsLogPoints": true,
            "supportsDataBreakpoints": true,
            "exceptionBreakpointFilters": [{"filter": "raised", "label": "Raised"}],
        });
        let raw = raw.as_object().unwrap();
        let (read, control) = (masked_capabilities(raw, Mode::ReadOnly), masked_capabilities(raw, Mode::Control));
        let added = [
            "supportsStepBack",
            "supportsSteppingGranularity",
            "supportsStepInTargetsRequest",
            "supportsSingleThreadExecutionRequests",
            "supportsConditionalBreakpoints",
            "supportsHitConditionalBreakpoints",
            "supportsLogPoints",
        ];
        for key in added {
            assert_eq!((read[key].clone(), control[key].clone()), (json!(false), json!(true)), "{key}");
        }
        for off in [
            "supportsSetVariable",
            "supportsGotoTargetsRequest",
            "supportsRestartRequest",
            "supportsTerminateRequest",
            "supportsFunctionBreakpoints",
            "supportsDataBreakpoints",
        ] {
            assert_eq!(control[off], json!(false), "{off} stays off with control");
        }
        assert_eq!(read["exceptionBreakpointFilters"], json!([]));
        assert_eq!(control["exceptionBreakpointFilters"], raw["exceptionBreakpointFilters"]);
        let differ: Vec<&String> =
            control.as_object().unwrap().iter().filter(|(k, v)| read[k.as_str()] != **v).map(|(k, _)| k).collect();
        assert_eq!(differ.len(), added.len() + 1, "{differ:?}");
        // An adapter without them: control adds nothing it lacks.
        let none = masked_capabilities(&Map::new(), Mode::Control);
        assert!(none.get("supportsStepBack").is_none());
        assert_eq!(none["exceptionBreakpointFilters"], json!([]));
    }

    #[test]
    fn the_snippet_is_a_vscode_attach_configuration() {
        let e = Endpoint { host: "127.0.0.1".into(), port: 4711, token: Token::from_text("abc") };
        let s = vscode_snippet("s1", "debugpy", &e);
        assert_eq!(s["request"], "attach");
        assert_eq!(s["debugServer"], 4711);
        assert_eq!(s["mirrorToken"], "abc");
        assert_eq!(s["type"], "debugpy");
    }
}
