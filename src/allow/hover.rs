//! Which adapters evaluate DAP `evaluate` with `context: "hover"` without side effects (quirk
//! data: adapter, version read, evidence). Without the `evaluate` switch an expression is read
//! only through an adapter listed safe here that also advertises `supportsEvaluateForHovers`;
//! every other adapter's evaluate is refused.

/// One adapter's hover behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hover {
    /// agentdap's adapter name (`AdapterKind::name`).
    pub adapter: &'static str,
    /// `hover` never runs code in the program.
    pub side_effect_free: bool,
    /// The version read and what it does, for refusals and SECURITY.md.
    pub evidence: &'static str,
    /// Expression prefixes that make the adapter run a debugger command instead (refused).
    pub command_prefixes: &'static [&'static str],
}

pub const ADAPTERS: &[Hover] = &[
    Hover {
        adapter: "debugpy",
        side_effect_free: false,
        // debugpy/_vendored/pydevd/_pydevd_bundle/pydevd_comm.py `internal_evaluate_expression_json`:
        // every context evaluates with `is_exec=False`; only `repl` falls back to exec.
        evidence: "debugpy 1.8.22 evaluates `hover` as a Python expression (no statements), which still calls functions and `:=` assigns",
        command_prefixes: &[],
    },
    Hover {
        adapter: "lldb",
        side_effect_free: true,
        // llvm-project lldb/tools/lldb-dap/Handler/EvaluateRequestHandler.cpp: for `hover` only
        // `SBFrame::GetValueForVariablePath`, never the expression parser.
        // `GetValueForVariablePath(…, eDynamicDontRunTarget)`; older lldb-vscode ran a
        // backtick-prefixed expression as an LLDB command in any context.
        evidence: "lldb-dap (LLVM 22 source; lldb-dap-22 here, not yet checked on the wire) reads `hover` as a variable path only (`eDynamicDontRunTarget`), never through the expression parser",
        command_prefixes: &["`"],
    },
    Hover {
        adapter: "delve",
        side_effect_free: false,
        // Delve service/dap/server.go `onEvaluateRequest`: every context evaluates the expression;
        // function calls need `call` (repl only), but hover has not been checked to be read-only.
        evidence: "Delve's `hover` has not been shown to be side-effect free",
        command_prefixes: &[],
    },
];

/// The hover data of `adapter`; an adapter not listed is treated as unsafe.
pub fn verdict(adapter: &str) -> Hover {
    ADAPTERS.iter().copied().find(|h| h.adapter == adapter).unwrap_or(Hover {
        adapter: "",
        side_effect_free: false,
        evidence: "agentdap has no evidence that this adapter evaluates `hover` without side effects",
        command_prefixes: &[],
    })
}

/// A mirror client's `evaluate` arguments under a set without `evaluate`: `context` made
/// `hover` when `adapter` evaluates hover without side effects, else the refusal.
pub fn hover_only(arguments: &mut Option<serde_json::Value>, adapter: &str, allow: super::Allow) -> Result<(), String> {
    let hover = verdict(adapter);
    let refusal = allow.refusal("agentdap mirror: `evaluate`", super::Switch::Evaluate);
    if !hover.side_effect_free {
        return Err(format!("{refusal} (no side-effect-free context: {})", hover.evidence));
    }
    let Some(serde_json::Value::Object(args)) = arguments.as_mut() else {
        return Err(format!("{refusal} (no arguments)"));
    };
    let text = args.get("expression").and_then(serde_json::Value::as_str).unwrap_or("").trim_start();
    if let Some(p) = hover.command_prefixes.iter().find(|p| text.starts_with(**p)) {
        return Err(format!("{refusal} (`{p}` runs a debugger command)"));
    }
    args.insert("context".into(), serde_json::Value::String("hover".into()));
    Ok(())
}
