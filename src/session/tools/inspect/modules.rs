//! `modules`: the program's modules (DAP § Requests › Modules, `supportsModulesRequest`), or
//! with `sources` its loaded source files (§ Requests › LoadedSources,
//! `supportsLoadedSourcesRequest`), paged with the total and the next start. Where the adapter
//! has no `loadedSources` but its modules are its source files
//! (`Quirks::loaded_sources_from_modules`, debugpy 1.8), the sources are read from `modules`
//! and the result says so. Must not: touch IO.
//!
//! Paging: `modules` is asked for `startModule: 0, moduleCount: start + count` and agentdap
//! drops the first `start` itself, so an adapter that ignores the paging arguments (debugpy
//! 1.8.22's `on_modules_request` sends every module it tracks) is paged just as correctly. A
//! `filter` is a substring matched by agentdap over every module or source the adapter sent.

use std::time::Instant;

use serde_json::{json, Value};

use super::Op;
use crate::session::text::clip;
use crate::session::tools::gates::Gate;
use crate::session::tools::{stopped, Started};
use crate::session::{CallKey, ErrorCode, Origin, Session, SessionKey, Sessions, ToolResult};

/// Entries one page shows by default, and at most.
pub const DEFAULT_COUNT: usize = 50;
pub const MAX_COUNT: usize = 200;

/// A `modules` call.
#[derive(Debug)]
pub struct ModulesJob {
    sources: bool,
    /// The sources are read from `modules` (`Quirks::loaded_sources_from_modules`).
    from_modules: bool,
    /// The adapter lists only the modules whose code it has shown in a stack
    /// (`Quirks::loaded_sources_from_modules`, debugpy): the result says the list is partial.
    partial: bool,
    start: usize,
    count: usize,
    filter: Option<String>,
}

impl Sessions {
    /// `modules {sources, start, count, filter}` on the stopped session `key`.
    #[allow(clippy::too_many_arguments)]
    pub fn modules(
        &mut self,
        key: SessionKey,
        sources: bool,
        start: Option<usize>,
        count: Option<usize>,
        filter: Option<String>,
        call: CallKey,
        now: Instant,
    ) -> Started {
        let s = stopped(&mut self.slab, key)?;
        let from_modules = sources && s.sources_from_modules();
        // `loadedSources` needs only its own capability (js-debug has it without `modules`).
        s.require(if sources && !from_modules { Gate::LoadedSources } else { Gate::Modules })?;
        let partial = s.link.plan.quirks.loaded_sources_from_modules && !from_modules && !sources;
        let count = count.unwrap_or(DEFAULT_COUNT).clamp(1, MAX_COUNT);
        let filter = filter.filter(|f| !f.is_empty());
        let job = ModulesJob { sources, from_modules, partial, start: start.unwrap_or(0), count, filter };
        self.inspect(key, call, Op::Modules(job), now)
    }
}

impl Session {
    /// Whether `modules {sources}` reads the sources from `modules` here: the adapter has no
    /// `loadedSources` but its modules are its source files (`Quirks::loaded_sources_from_modules`).
    /// `capabilities` reads it too, so it lists the call as working exactly where it works.
    pub(in crate::session) fn sources_from_modules(&self) -> bool {
        let caps = self.link.client.capabilities();
        self.link.plan.quirks.loaded_sources_from_modules && !Gate::LoadedSources.open(caps) && Gate::Modules.open(caps)
    }

    pub(super) fn modules_next(&mut self, call: CallKey, job: ModulesJob, now: Instant) {
        let revision = self.run.revision;
        let (command, args) = if job.sources && !job.from_modules {
            ("loadedSources", json!({}))
        } else if job.filter.is_some() || job.from_modules {
            // Every module: the filter (or the files) are read from all of them.
            ("modules", json!({}))
        } else {
            ("modules", json!({"startModule": 0, "moduleCount": job.start + job.count}))
        };
        self.send(command, Some(args), Origin::Inspect { call, op: Op::Modules(job), revision }, now)
    }

    pub(super) fn modules_answered(
        &mut self,
        call: CallKey,
        job: ModulesJob,
        result: Result<Value, (ErrorCode, String)>,
    ) {
        let out = match result {
            Ok(body) => modules_result(&self.id, self.run.revision, &self.link.adapter, &job, &body),
            Err((code, msg)) => ToolResult::error(code, msg),
        };
        self.calls.done.push((call, out));
    }
}

/// One entry as a line: a module's name, path and symbol status; a source's path (or name) and
/// `source_ref`.
fn entry_line(v: &Value, sources: bool) -> String {
    let text = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    let name = text("name").unwrap_or("?");
    let mut line = match (sources, text("path")) {
        (true, Some(path)) => clip(path, 240).0,
        (true, None) => clip(name, 240).0,
        (false, Some(path)) if path != name => format!("{} {}", clip(name, 120).0, clip(path, 240).0),
        (false, _) => clip(name, 120).0,
    };
    if let Some(status) = text("symbolStatus").filter(|_| !sources) {
        line.push_str(&format!(" ({})", clip(status, 60).0));
    }
    if let Some(r) = v.get("sourceReference").and_then(Value::as_i64).filter(|&r| r > 0 && sources) {
        line.push_str(&format!(" [source_ref {r}]"));
    }
    line
}

/// The page of the answer: entries `start..start+count` of what the adapter sent (after the
/// filter), with the total and the next start.
fn modules_result(session: &str, revision: u64, adapter: &str, job: &ModulesJob, body: &Value) -> ToolResult {
    let key = if job.sources && !job.from_modules { "sources" } else { "modules" };
    let sent: Vec<&Value> = body
        .get(key)
        .and_then(Value::as_array)
        .map(|l| l.iter().filter(|v| v.is_object()).collect())
        .unwrap_or_default();
    // Modules without a file have no source to list.
    let mut all: Vec<&Value> = if job.from_modules {
        sent.into_iter().filter(|m| m.get("path").and_then(Value::as_str).is_some_and(|p| !p.is_empty())).collect()
    } else {
        sent
    };
    let fetched = all.len();
    if let Some(f) = &job.filter {
        let needle = f.to_lowercase();
        let hit =
            |v: &Value, k: &str| v.get(k).and_then(Value::as_str).is_some_and(|s| s.to_lowercase().contains(&needle));
        all.retain(|v| hit(v, "name") || hit(v, "path"));
    }
    let paged_here = job.filter.is_some() || job.from_modules || job.sources;
    // `totalModules` counts every module; it is the total only when no filter cut the list.
    let total = match body.get("totalModules").and_then(Value::as_u64) {
        Some(t) if !paged_here && key == "modules" => Some(t as usize),
        // Fewer than asked for: the adapter has no more; more than asked for: it ignored the
        // paging arguments and sent them all.
        _ if paged_here || all.len() != job.start + job.count => Some(all.len()),
        _ => None,
    };
    let page: Vec<&Value> = all.iter().skip(job.start).take(job.count).copied().collect();
    let end = job.start + page.len();
    let next_start = match total {
        Some(t) => (end < t).then_some(end),
        None => (!page.is_empty()).then_some(end),
    };
    let what = match (job.sources, job.from_modules) {
        (false, _) => "modules",
        (true, false) => "loaded sources",
        (true, true) => "loaded sources (from modules)",
    };
    let of = total.map_or_else(|| "more may follow".to_owned(), |t| format!("of {t}"));
    let mut head = format!("{session} {what} · {}–{end} {of} · rev {revision}", job.start.min(end));
    if let Some(f) = &job.filter {
        head.push_str(&format!(
            " · filter {:?} matched {} of the {fetched} the adapter sent (matched by agentdap)",
            f,
            all.len()
        ));
    }
    let mut lines = vec![head];
    if job.from_modules {
        lines.push(format!(
            "  ({adapter} has no loadedSources request: these are the files of the modules it reported, which are the modules whose code it has shown in a stack so far, not every file the program imported)"
        ));
    }
    if job.partial {
        lines.push(format!(
            "  ({adapter} reports only the modules whose code it has shown in a stack so far, not every module the program imported)"
        ));
    }
    if page.is_empty() && job.start > 0 && total.is_some_and(|t| job.start >= t) {
        lines.push(format!("  start={} is past the end: call modules with start=0", job.start));
    }
    lines.extend(page.iter().map(|v| format!("  {}", entry_line(v, job.sources))));
    if let Some(n) = next_start {
        lines.push(format!("  … more: call modules with start={n}"));
    }
    let list: Vec<Value> = page.iter().map(|v| (*v).clone()).collect();
    let mut structured = json!({"session": session, "revision": revision, "start": job.start, "total": total});
    structured[if job.sources { "sources" } else { "modules" }] = list.into();
    if let Some(n) = next_start {
        structured["next_start"] = n.into();
    }
    if job.from_modules {
        structured["from"] = "modules".into();
    }
    if job.partial {
        structured["partial"] = true.into();
    }
    if let Some(f) = &job.filter {
        structured["filter"] = json!({"text": f, "matched": all.len(), "fetched": fetched, "by": "agentdap"});
    }
    ToolResult::ok(lines.join("\n"), structured)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(start: usize, count: usize, filter: Option<&str>) -> ModulesJob {
        ModulesJob {
            sources: false,
            from_modules: false,
            partial: false,
            start,
            count,
            filter: filter.map(str::to_owned),
        }
    }

    #[test]
    fn a_page_is_cut_by_agentdap_whether_or_not_the_adapter_paged() {
        let mods: Vec<Value> =
            (0..5).map(|i| json!({"id": i, "name": format!("m{i}"), "path": format!("/l/m{i}.so")})).collect();
        let body = json!({ "modules": mods });
        // The adapter sent all five (it ignored moduleCount 3): entries 1 and 2 are the page.
        let out = modules_result("s1", 2, "a", &job(1, 2, None), &body);
        assert_eq!(
            out.text,
            "s1 modules · 1–3 of 5 · rev 2\n  m1 /l/m1.so\n  m2 /l/m2.so\n  … more: call modules with start=3"
        );
        // Exactly as many as asked for (an adapter that pages): more may follow.
        let three = json!({"modules": mods[..3]});
        let out = modules_result("s1", 2, "a", &job(1, 2, None), &three);
        assert!(out.text.starts_with("s1 modules · 1–3 more may follow · rev 2"), "{}", out.text);
        let out = modules_result("s1", 2, "a", &job(3, 5, None), &body);
        assert_eq!(out.structured["total"], 5);
        assert_eq!(out.structured.get("next_start"), None);
        let out = modules_result("s1", 2, "a", &job(0, 5, Some("M3")), &body);
        assert!(
            out.text.contains("filter \"M3\" matched 1 of the 5 the adapter sent (matched by agentdap)"),
            "{}",
            out.text
        );
        assert_eq!(out.structured["modules"][0]["name"], "m3");
    }

    #[test]
    fn a_partial_module_list_says_so_and_a_start_past_the_end_says_where_to_go() {
        let body = json!({"modules": [{"id": 1, "name": "__main__", "path": "/w/app.py"}]});
        let j = ModulesJob { partial: true, ..job(0, 50, None) };
        let out = modules_result("s1", 1, "debugpy", &j, &body);
        assert!(
            out.text.contains("(debugpy reports only the modules whose code it has shown in a stack so far"),
            "{}",
            out.text
        );
        assert_eq!(out.structured["partial"], true);
        let out = modules_result("s1", 1, "debugpy", &job(5000, 50, None), &body);
        assert!(out.text.ends_with("start=5000 is past the end: call modules with start=0"), "{}", out.text);
    }

    #[test]
    fn sources_read_from_modules_say_so_and_skip_modules_without_a_file() {
        let body =
            json!({"modules": [{"id": 1, "name": "__main__", "path": "/w/app.py"}, {"id": 2, "name": "builtins"}]});
        let j = ModulesJob { sources: true, from_modules: true, partial: false, start: 0, count: 50, filter: None };
        let out = modules_result("s1", 1, "debugpy", &j, &body);
        assert!(
            out.text.starts_with(
                "s1 loaded sources (from modules) · 0–1 of 1 · rev 1\n  (debugpy has no loadedSources request"
            ),
            "{}",
            out.text
        );
        assert!(out.text.ends_with("\n  /w/app.py"), "{}", out.text);
        assert_eq!(out.structured["from"], "modules");
    }
}
