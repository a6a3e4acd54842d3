//! The `capabilities` tool of the "inspect" group ([`super`]): what the adapter said it
//! supports (DAP § Types › Capabilities) and which of agentdap's adapter-dependent tools work.
//! Answered at once; must not send requests.

use super::results::{to_json, CapabilitiesResult, Filter, Tools, Unavailable};
use super::session;
use crate::dap::protocol::Capabilities;
use crate::session::{ErrorCode, Session, SessionKey, Sessions, ToolResult};

impl Sessions {
    /// `capabilities`: what the adapter said it supports, and which agentdap tools work.
    pub fn capabilities(&mut self, key: SessionKey) -> Result<ToolResult, ToolResult> {
        let s = session(&mut self.slab, key)?;
        let Some(caps) = s.link.client.capabilities() else {
            let msg = format!("{} has not answered initialize yet; try again after launch returns.", s.id);
            return Err(ToolResult::error(ErrorCode::NotStopped, msg));
        };
        let gated = [
            ("step back", caps.supports_step_back),
            ("set_variable", caps.supports_set_variable),
            ("set_expression", caps.supports_set_expression),
            ("goto", caps.supports_goto_targets_request),
            ("restart_frame", caps.supports_restart_frame),
            ("exception_info", caps.supports_exception_info_request),
            ("completions", caps.supports_completions_request),
            ("modules", caps.supports_modules_request),
            ("loaded_sources", caps.supports_loaded_sources_request),
            ("set_function_breakpoints", caps.supports_function_breakpoints),
            ("set_data_breakpoints", caps.supports_data_breakpoints),
            ("set_instruction_breakpoints", caps.supports_instruction_breakpoints),
            ("read_memory", caps.supports_read_memory_request),
            ("disassemble", caps.supports_disassemble_request),
            ("terminate (graceful)", caps.supports_terminate_request),
            ("conditional breakpoints", caps.supports_conditional_breakpoints),
            ("hit conditions", caps.supports_hit_conditional_breakpoints),
            ("log points", caps.supports_log_points),
        ];
        let yes: Vec<&str> = gated.iter().filter(|g| g.1).map(|g| g.0).collect();
        let no: Vec<&str> = gated.iter().filter(|g| !g.1).map(|g| g.0).collect();
        let filters: Vec<Filter<'_>> = caps
            .exception_breakpoint_filters
            .iter()
            .map(|f| Filter { filter: &f.filter, label: &f.label, default: f.default })
            .collect();
        let names: Vec<&str> = caps.exception_breakpoint_filters.iter().map(|f| f.filter.as_str()).collect();
        let text = format!(
            "{} ({}) DAP capabilities\nthe adapter supports: {}\nit does not support: {}\nexception filters: [{}]",
            s.id,
            s.link.adapter,
            yes.join(", "),
            no.join(", "),
            names.join(", ")
        );
        let (tools, missing) = s.tools_available(caps);
        let mut text = format!("{text}\nagentdap tools that work here: {}", tools.join(", "));
        if !missing.is_empty() {
            let why: Vec<String> = missing.iter().map(|(tool, needs)| format!("{tool} (needs {needs})")).collect();
            text.push_str(&format!("\nnot here: {}", why.join(", ")));
        }
        let unavailable = missing.iter().map(|&(tool, needs)| Unavailable { tool, needs }).collect();
        let structured = to_json(CapabilitiesResult {
            session: &s.id,
            adapter: &s.link.adapter,
            supported: yes,
            unsupported: no,
            tools: Tools { available: tools, unavailable },
            exception_filters: filters,
            raw: &caps.raw,
        });
        Ok(ToolResult::ok(text, structured))
    }
}

impl Session {
    /// Which of agentdap's adapter-dependent tools work for this session: the ones that do, and
    /// the others with what they would need (the `capabilities` result).
    fn tools_available(&self, caps: &Capabilities) -> (Vec<&'static str>, Vec<(&'static str, &'static str)>) {
        let restart = if self.family.stands_in {
            Err("a program in a child connection (js-debug): disconnect and launch again")
        } else if self.family.parent.is_some() {
            Err("a child session: restart its parent")
        } else if caps.supports_restart_request {
            Ok("restart (by the adapter)")
        } else if self.link.plan.request == "launch" {
            Ok("restart (relaunch)")
        } else {
            Err("supportsRestartRequest (an attached program is not agentdap's to relaunch)")
        };
        let gated: [(&'static str, Result<&'static str, &'static str>); 8] = [
            ("run_to", Ok("run_to")),
            ("source", Ok("source")),
            ("restart", restart),
            ("goto", gate(caps.supports_goto_targets_request, "goto", "supportsGotoTargetsRequest")),
            ("set_variable", gate(caps.supports_set_variable, "set_variable", "supportsSetVariable")),
            ("set_expression", gate(caps.supports_set_expression, "set_expression", "supportsSetExpression")),
            (
                "set_function_breakpoints",
                gate(caps.supports_function_breakpoints, "set_function_breakpoints", "supportsFunctionBreakpoints"),
            ),
            ("step back", gate(caps.supports_step_back, "step back", "supportsStepBack")),
        ];
        let mut yes = Vec::new();
        let mut no = Vec::new();
        for (tool, verdict) in gated {
            match verdict {
                Ok(label) => yes.push(label),
                Err(needs) => no.push((tool, needs)),
            }
        }
        (yes, no)
    }
}

fn gate(supported: bool, tool: &'static str, capability: &'static str) -> Result<&'static str, &'static str> {
    if supported {
        Ok(tool)
    } else {
        Err(capability)
    }
}
