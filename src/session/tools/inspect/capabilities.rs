//! The `capabilities` tool of the "inspect" group ([`super`]): what the adapter said it
//! supports (DAP § Types › Capabilities) and, from the one table of [`gates`], which of
//! agentdap's adapter-dependent calls work for this session and what the others need. Answered at
//! once; must not send requests.

use super::results::{to_json, CapabilitiesResult, Filter, Tools, Unavailable};
use super::session;
use crate::dap::protocol::Capabilities;
use crate::session::tools::gates::{self, Gate, GATES};
use crate::session::{Session, SessionKey, Sessions, ToolResult};

/// Breakpoint settings by the capability that makes an adapter honour them (else they are named
/// as ignored when set, unless the adapter honours them unadvertised:
/// `Quirks::unadvertised_settings`).
const SETTINGS: [(&str, &str); 3] = [
    ("condition", "supportsConditionalBreakpoints"),
    ("hit_condition", "supportsHitConditionalBreakpoints"),
    ("log_message", "supportsLogPoints"),
];

impl Sessions {
    /// `capabilities`: what the adapter said it supports, and which agentdap calls work.
    pub fn capabilities(&mut self, key: SessionKey) -> Result<ToolResult, ToolResult> {
        let s = session(&mut self.slab, key)?;
        let Some(caps) = s.link.client.capabilities() else {
            return Err(s.not_initialized());
        };
        let (mut tools, missing) = s.tools_available(caps);
        // What the adapter supports but the operator's `--allow` never lets the agent call is not
        // "works here" (the limits are the result's last line).
        let allow = self.allow;
        tools.retain(|t| {
            let name = t.split([' ', '{']).next().unwrap_or(t);
            crate::allow::membership::ever_allowed(allow, name)
        });
        let filters: Vec<Filter<'_>> = caps
            .exception_breakpoint_filters
            .iter()
            .map(|f| Filter { filter: &f.filter, label: &f.label, default: f.default, condition: f.supports_condition })
            .collect();
        let names: Vec<String> = caps
            .exception_breakpoint_filters
            .iter()
            .map(|f| if f.supports_condition { format!("{} (condition)", f.filter) } else { f.filter.clone() })
            .collect();
        let (settings, ignored): (Vec<_>, Vec<_>) =
            SETTINGS.iter().partition(|(name, cap)| s.honours(name, caps.has(cap)));
        let settings: Vec<&str> = settings.iter().map(|(name, _)| *name).collect();
        let ignored: Vec<&str> = ignored.iter().map(|(name, _)| *name).collect();
        let mut text = format!("{} ({}) capabilities\nworks here: {}", s.id, s.link.adapter, tools.join(", "));
        if !missing.is_empty() {
            let why: Vec<String> = missing.iter().map(|(call, needs)| format!("{call} (needs {needs})")).collect();
            text.push_str(&format!("\nnot here: {}", why.join(", ")));
        }
        text.push_str(&format!("\nbreakpoint settings honoured: {}", or_none(&settings)));
        if !ignored.is_empty() {
            text.push_str(&format!(" (ignored: {})", ignored.join(", ")));
        }
        text.push_str(&format!("\nexception filters: [{}]", names.join(", ")));
        let unavailable = missing.iter().map(|&(tool, needs)| Unavailable { tool, needs }).collect();
        let structured = to_json(CapabilitiesResult {
            session: &s.id,
            adapter: &s.link.adapter,
            tools: Tools { available: tools, unavailable },
            breakpoint_settings: settings,
            exception_filters: filters,
            raw: &caps.raw,
        });
        Ok(ToolResult::ok(text, structured))
    }
}

fn or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

impl Session {
    /// Which of agentdap's adapter-dependent calls work for this session: the ones that do, and
    /// the others with the capability (or the reason) they would need. Every row of
    /// [`gates::GATES`] is here, so `capabilities` and the refusals never disagree
    /// (`capabilities_list_every_gate`).
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
        let mut yes = vec!["run_to", "source"];
        let mut no = Vec::new();
        match restart {
            Ok(label) => yes.push(label),
            Err(needs) => no.push(("restart", needs)),
        }
        for row in GATES {
            if gates::Gate::open(row.gate, Some(caps)) {
                yes.push(row.call);
            } else if row.gate == Gate::LoadedSources && self.sources_from_modules() {
                // `modules {sources}` reads them from `modules` (`inspect/modules.rs`).
                yes.push("modules {sources} (from modules)");
            } else {
                no.push((row.call, row.capability));
            }
        }
        (yes, no)
    }
}
