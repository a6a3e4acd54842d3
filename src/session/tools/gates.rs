//! Which DAP capability each adapter-dependent tool or argument needs (DAP § Types ›
//! Capabilities), as one table: the checks that answer `unsupported` before anything is sent read
//! it, and so does the `capabilities` tool, so the two never disagree. Must not: send requests,
//! or decide anything about a session beyond "is this advertised".

use crate::dap::protocol::Capabilities;
use crate::session::{ErrorCode, ToolResult};

/// A tool or argument that works only where the adapter advertises a capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    StepBack,
    ReverseContinue,
    SetVariable,
    SetExpression,
    Goto,
    RestartFrame,
    Completions,
    Modules,
    LoadedSources,
    FunctionBreakpoints,
    DataBreakpoints,
    DataBreakpointBytes,
    InstructionBreakpoints,
    BreakpointLocations,
    ExceptionFilterOptions,
    ReadMemory,
    WriteMemory,
    Disassemble,
    ValueFormatting,
    ExceptionInfo,
    Terminate,
}

/// One row of [`GATES`].
pub struct GateRow {
    pub gate: Gate,
    /// The call as the agent writes it: a tool, or a tool with the argument that needs it.
    pub call: &'static str,
    /// The capability's name on the wire (DAP § Types › Capabilities).
    pub capability: &'static str,
    /// What to do instead, said after the refusal; empty when nothing comes close.
    pub instead: &'static str,
}

/// Every gate, in the order `capabilities` lists them.
pub const GATES: &[GateRow] = &[
    row(Gate::StepBack, "step {kind: back}", "supportsStepBack", ""),
    row(Gate::ReverseContinue, "continue {reverse}", "supportsStepBack", ""),
    row(Gate::SetVariable, "set_variable {ref, name}", "supportsSetVariable", "evaluate an assignment instead"),
    row(
        Gate::SetExpression,
        "set_variable {expression}",
        "supportsSetExpression",
        "use set_variable with the ref of the variable's container, or evaluate an assignment",
    ),
    row(Gate::Goto, "goto", "supportsGotoTargetsRequest", "use run_to to move forward"),
    row(Gate::RestartFrame, "restart {frame}", "supportsRestartFrame", "restart the whole program with restart {}"),
    row(Gate::Completions, "completions", "supportsCompletionsRequest", ""),
    row(Gate::Modules, "modules", "supportsModulesRequest", ""),
    row(Gate::LoadedSources, "modules {sources}", "supportsLoadedSourcesRequest", ""),
    row(Gate::FunctionBreakpoints, "set_breakpoints {kind: function}", "supportsFunctionBreakpoints", ""),
    row(Gate::DataBreakpoints, "set_breakpoints {kind: data}", "supportsDataBreakpoints", ""),
    row(
        Gate::DataBreakpointBytes,
        "set_breakpoints {kind: data, expression}",
        "supportsDataBreakpointBytes",
        "watch a variable by its container's ref and name",
    ),
    row(Gate::InstructionBreakpoints, "set_breakpoints {kind: instruction}", "supportsInstructionBreakpoints", ""),
    row(Gate::BreakpointLocations, "breakpoints {path, line}", "supportsBreakpointLocationsRequest", ""),
    row(Gate::ExceptionFilterOptions, "set_exception_breakpoints {conditions}", "supportsExceptionFilterOptions", ""),
    row(Gate::ReadMemory, "memory {op: read}", "supportsReadMemoryRequest", ""),
    row(Gate::WriteMemory, "memory {op: write}", "supportsWriteMemoryRequest", "set_variable or an assignment"),
    row(Gate::Disassemble, "memory {op: disassemble}", "supportsDisassembleRequest", ""),
    row(Gate::ValueFormatting, "hex", "supportsValueFormattingOptions", "evaluate a hex conversion in the language"),
    row(Gate::ExceptionInfo, "exception_info", "supportsExceptionInfoRequest", "context shows the stop's description"),
    row(Gate::Terminate, "disconnect {graceful}", "supportsTerminateRequest", "disconnect ends the program at once"),
];

const fn row(gate: Gate, call: &'static str, capability: &'static str, instead: &'static str) -> GateRow {
    GateRow { gate, call, capability, instead }
}

impl Gate {
    /// This gate's row of [`GATES`].
    pub fn row(self) -> &'static GateRow {
        // Every variant has a row (`every_gate_has_one_row`); the first row is only a fallback
        // that the test proves unreachable.
        GATES.iter().find(|r| r.gate == self).unwrap_or(&GATES[0])
    }

    /// Whether `caps` advertise this gate's capability (an absent set advertises nothing).
    pub fn open(self, caps: Option<&Capabilities>) -> bool {
        caps.is_some_and(|c| c.has(self.row().capability))
    }

    /// `Ok` where the adapter advertises the capability, else the `unsupported` refusal naming
    /// it, answered before anything is sent.
    pub fn check(self, adapter: &str, caps: Option<&Capabilities>) -> Result<(), ToolResult> {
        if self.open(caps) {
            return Ok(());
        }
        Err(self.refusal(adapter))
    }

    /// The `unsupported` refusal: the call, the adapter, the capability it does not advertise,
    /// and what to do instead.
    pub fn refusal(self, adapter: &str) -> ToolResult {
        let r = self.row();
        let instead = if r.instead.is_empty() { String::new() } else { format!("; {}", r.instead) };
        let msg = format!("{} is not available here: {adapter} does not advertise {}{instead}.", r.call, r.capability);
        ToolResult::error(ErrorCode::Unsupported, msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_gate_has_one_row() {
        let all = [
            Gate::StepBack,
            Gate::ReverseContinue,
            Gate::SetVariable,
            Gate::SetExpression,
            Gate::Goto,
            Gate::RestartFrame,
            Gate::Completions,
            Gate::Modules,
            Gate::LoadedSources,
            Gate::FunctionBreakpoints,
            Gate::DataBreakpoints,
            Gate::DataBreakpointBytes,
            Gate::InstructionBreakpoints,
            Gate::BreakpointLocations,
            Gate::ExceptionFilterOptions,
            Gate::ReadMemory,
            Gate::WriteMemory,
            Gate::Disassemble,
            Gate::ValueFormatting,
            Gate::ExceptionInfo,
            Gate::Terminate,
        ];
        assert_eq!(all.len(), GATES.len());
        for gate in all {
            assert_eq!(GATES.iter().filter(|r| r.gate == gate).count(), 1, "{gate:?}");
        }
    }

    #[test]
    fn a_gate_opens_on_the_advertised_capability_only() {
        let caps =
            Capabilities::from_body(Some(&json!({"supportsReadMemoryRequest": true, "supportsStepBack": false})));
        assert!(Gate::ReadMemory.open(Some(&caps)));
        assert!(!Gate::StepBack.open(Some(&caps)));
        assert!(!Gate::ReadMemory.open(None));
        let refused = Gate::WriteMemory.check("lldb", Some(&caps)).unwrap_err();
        assert_eq!(
            refused.text,
            "unsupported: memory {op: write} is not available here: lldb does not advertise supportsWriteMemoryRequest; set_variable or an assignment."
        );
        assert_eq!(
            Gate::StepBack.refusal("debugpy").text,
            "unsupported: step {kind: back} is not available here: debugpy does not advertise supportsStepBack."
        );
    }
}
