//! The project's own configurations: `launch {config}` and `launch {list_configs}` read
//! `.vscode/launch.json` in the call's `cwd` (through `Files`, at most [`LAUNCH_JSON_CAP`] bytes),
//! pick a configuration, replace its variables (`vars.rs`), and turn it into the `launch` or
//! `attach` arguments agentdap already takes (`fields.rs` says what each field becomes). Must
//! not: let the project choose the adapter's command or interpreter (SECURITY.md "The project's
//! launch.json"), start anything (the MCP handler hands the result to `plan::launch`/`attach`).

#[path = "launch_json/fields.rs"]
mod fields;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::jsonc;
use super::vars::{self, Facts};
use super::{resolve_path, AttachArgs};
use crate::session::files::{Files, ReadError};
use crate::session::{ErrorCode, LaunchArgs, ToolResult};

pub use fields::Converted;

/// The most bytes of `.vscode/launch.json` (and of an `envFile`) read; VS Code's own files are a
/// few KiB.
pub const LAUNCH_JSON_CAP: u64 = 1 << 20;

/// What a `launch` call with `config` or `list_configs` becomes.
#[derive(Debug)]
pub enum Project {
    /// `list_configs`: the answer, at once; nothing starts.
    Listing(ToolResult),
    /// A `request: launch` configuration, as the call's own arguments, and what was dropped.
    Launch { args: LaunchArgs, notes: Vec<String> },
    /// A `request: attach` configuration.
    Attach { args: AttachArgs, notes: Vec<String> },
}

/// Why a configuration cannot run as written: the field (or variable) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub field: String,
    pub why: String,
}

impl Refusal {
    pub fn new(field: impl Into<String>, why: impl Into<String>) -> Refusal {
        Refusal { field: field.into(), why: why.into() }
    }
}

/// The file as read: where it is, the folder holding `.vscode`, its configurations and the
/// names of its `compounds`.
struct LaunchJson {
    path: PathBuf,
    workspace: PathBuf,
    configurations: Vec<Value>,
    compounds: Vec<String>,
}

/// Reads the project's launch.json for `call` (`config` or `list_configs` set) and answers the
/// listing, or makes the named configuration the call's arguments, the call's own arguments
/// winning over the configuration's. Errors (as tool results): `invalid_argument` (no or
/// unreadable file, a parse error with its line and column, no such configuration),
/// `unsupported` (a field or variable agentdap cannot honour, named).
pub fn from_project(call: LaunchArgs, files: &dyn Files) -> Result<Project, ToolResult> {
    let file = read(call.cwd.as_deref(), files)?;
    let env = |name: &str| files.adapter_host().var(name).map(|v| v.to_string_lossy().into_owned());
    let program = (!call.program.is_empty()).then(|| resolve_path(&call.program, call.cwd.as_deref()));
    let facts =
        Facts { workspace: &file.workspace, cwd: files.adapter_host().cwd(), env: &env, file: program.as_deref() };
    // `list_configs` never starts anything, whatever else the call says.
    let name = match call.config.clone() {
        Some(name) if !call.list_configs => name,
        _ => return Ok(Project::Listing(listing(&file, &facts, files))),
    };
    let invalid = |msg: String| ToolResult::error(ErrorCode::InvalidArgument, msg);
    if file.compounds.contains(&name) {
        return Err(ToolResult::error(
            ErrorCode::Unsupported,
            format!(
                "`{name}` in {} is one of `compounds` (several sessions started together); agentdap launches one configuration at a time: launch each of its configurations by name.",
                file.path.display()
            ),
        ));
    }
    let found = file.configurations.iter().find(|c| c.get("name").and_then(Value::as_str) == Some(name.as_str()));
    let Some(conf) = found else {
        let names = names(&file);
        return Err(invalid(format!(
            "{} has no configuration named `{name}`; its configurations: {}.",
            file.path.display(),
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        )));
    };
    let Some(conf) = conf.as_object() else {
        return Err(invalid(format!("configuration `{name}` in {} is not an object.", file.path.display())));
    };
    let converted = fields::convert(conf, &facts, files).map_err(|r| refused(&name, &file.path, &r))?;
    let project = converted.into_call(call, &file.workspace);
    if let Project::Launch { args, .. } = &project {
        if args.program.is_empty() {
            let why = "is missing; agentdap launches a program file: give it in the configuration or the call";
            return Err(refused(&name, &file.path, &Refusal::new("program", why)));
        }
    }
    Ok(project)
}

/// `launch`'s error for a configuration of `type: lldb` (CodeLLDB's type in VS Code) when
/// CodeLLDB is not installed: `adapter_not_found` with its install command, and what else runs
/// the configuration. Any other error is returned as it is.
pub fn explain_not_found(mut e: ToolResult, args: &LaunchArgs) -> ToolResult {
    let codelldb = args.adapter.as_deref() == Some(crate::dap::adapters::AdapterKind::CodeLldb.name());
    if !codelldb || e.structured["error"]["code"] != "adapter_not_found" {
        return e;
    }
    let more = " launch.json's `type: lldb` is CodeLLDB's; to run this configuration under lldb-dap instead, pass `adapter: \"lldb\"` in the call.";
    e.text.push_str(more);
    if let Some(Value::String(m)) = e.structured.pointer_mut("/error/message") {
        m.push_str(more);
    }
    e
}

/// The refusal of configuration `name`, naming the field and what to do.
fn refused(name: &str, path: &Path, r: &Refusal) -> ToolResult {
    ToolResult::error(
        ErrorCode::Unsupported,
        format!("configuration `{name}` in {}: `{}` {}; nothing was started.", path.display(), r.field, r.why),
    )
}

fn names(file: &LaunchJson) -> Vec<String> {
    file.configurations.iter().filter_map(|c| c.get("name").and_then(Value::as_str)).map(|n| format!("`{n}`")).collect()
}

/// Reads and parses `<cwd>/.vscode/launch.json` (`cwd` taken against agentdap's working
/// directory; agentdap's own when absent).
fn read(cwd: Option<&str>, files: &dyn Files) -> Result<LaunchJson, ToolResult> {
    let workspace = match cwd {
        Some(dir) => resolve_path(dir, None),
        None => files.adapter_host().cwd().unwrap_or_else(|| PathBuf::from(".")),
    };
    let path = workspace.join(".vscode").join("launch.json");
    let invalid = |msg: String| ToolResult::error(ErrorCode::InvalidArgument, msg);
    let bytes = files.read_bounded(&path, LAUNCH_JSON_CAP).map_err(|e| {
        let why = match e {
            ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
                "does not exist; pass `cwd`: the folder that holds .vscode/launch.json".to_owned()
            }
            ReadError::Io(e) => format!("cannot be read ({e})"),
            ReadError::NotRegular => "is not a regular file".to_owned(),
            ReadError::TooLarge { len } => format!("is {len} bytes, over agentdap's {LAUNCH_JSON_CAP}-byte cap"),
            ReadError::OverCap => format!("grew past agentdap's {LAUNCH_JSON_CAP}-byte cap while read"),
        };
        invalid(format!("{} {why}.", path.display()))
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let doc = jsonc::parse(&text)
        .map_err(|e| invalid(format!("{} is not valid JSON with comments: {e}.", path.display())))?;
    let Some(configurations) = doc.get("configurations").and_then(Value::as_array).cloned() else {
        return Err(invalid(format!("{} has no `configurations` array.", path.display())));
    };
    let compounds = doc
        .get("compounds")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_owned)).collect())
        .unwrap_or_default();
    Ok(LaunchJson { path, workspace, configurations, compounds })
}

/// `list_configs`: each configuration's name, type, request, program (its variables replaced)
/// and whether agentdap can run it, or the field that stops it.
fn listing(file: &LaunchJson, facts: &Facts<'_>, files: &dyn Files) -> ToolResult {
    let mut lines = vec![format!("{} configurations in {}:", file.configurations.len(), file.path.display())];
    let mut entries = Vec::new();
    for conf in &file.configurations {
        let text = |key: &str| conf.get(key).and_then(Value::as_str).map(str::to_owned);
        let name = text("name").unwrap_or_default();
        let ty = text("type").unwrap_or_default();
        let request = text("request").unwrap_or_default();
        let workspace = file.workspace.to_string_lossy();
        let program = text("program").map(|p| {
            // A listing starts nothing: the project's file does not get to read agentdap's
            // environment into the agent's context (an API token in `${env:…}`); the program
            // keeps those variables as written.
            if p.contains("${env:") {
                return p;
            }
            let p = vars::substitute(&p, facts).unwrap_or(p);
            if p.contains("${") {
                return p;
            }
            resolve_path(&p, Some(&workspace)).to_string_lossy().into_owned()
        });
        let verdict = match conf.as_object() {
            Some(map) => fields::convert(map, facts, files).map(|c| c.adapter),
            None => Err(Refusal::new("(entry)", "is not an object")),
        };
        let mut entry = json!({"name": name, "type": ty, "request": request, "program": program});
        let shown = program.as_deref().map(|p| format!(": {p}")).unwrap_or_default();
        match verdict {
            Ok(adapter) => {
                entry["adapter"] = adapter.into();
                entry["runnable"] = true.into();
                lines.push(format!("- `{name}` ({ty} {request} → {adapter}){shown}"));
            }
            Err(r) => {
                entry["runnable"] = false.into();
                entry["field"] = r.field.clone().into();
                entry["why"] = r.why.clone().into();
                lines.push(format!("- `{name}` ({ty} {request}){shown} — cannot run: `{}` {}", r.field, r.why));
            }
        }
        entries.push(entry);
    }
    for c in &file.compounds {
        lines.push(format!("- compound `{c}`: launch its configurations one by one"));
    }
    lines.push("Start one with launch {config: \"<name>\", cwd}.".into());
    let structured = json!({
        "launch_json": file.path.to_string_lossy(),
        "configurations": entries,
        "compounds": file.compounds,
    });
    ToolResult::ok(lines.join("\n"), structured)
}

impl Converted {
    /// The call's arguments with this configuration under them: the call's own `program`,
    /// non-empty `args`, `adapter`, `stop_on_entry`, `console` win; `env` and `adapter_args`
    /// are merged with the call's keys winning; the call's `cwd` named where launch.json is, so
    /// the program's working directory is the configuration's `cwd`, else the workspace folder.
    fn into_call(self, mut call: LaunchArgs, workspace: &Path) -> Project {
        let mut adapter_args = self.adapter_args;
        adapter_args.extend(std::mem::take(&mut call.adapter_args));
        let adapter = call.adapter.take().unwrap_or_else(|| self.adapter.to_owned());
        let notes = self.notes;
        if let Some(attach) = self.attach {
            let args = AttachArgs {
                pid: attach.pid,
                connect: attach.connect,
                adapter: Some(adapter),
                adapter_args,
                breakpoints: call.breakpoints,
                exception_filters: call.exception_filters,
                wait_ms: call.wait_ms,
                core: None,
                program: None,
            };
            return Project::Attach { args, notes };
        }
        let mut env = self.env;
        env.extend(std::mem::take(&mut call.env));
        if call.program.is_empty() {
            call.program = self.program.unwrap_or_default();
        } else {
            // The call's `program` meant a path against the call's `cwd`, which changes below.
            call.program = resolve_path(&call.program, call.cwd.as_deref()).to_string_lossy().into_owned();
        }
        if call.args.is_empty() {
            call.args = self.args;
        }
        let cwd = self.cwd.unwrap_or_else(|| workspace.to_string_lossy().into_owned());
        call.cwd = Some(cwd);
        call.env = env;
        call.adapter = Some(adapter);
        call.adapter_args = adapter_args;
        call.stop_on_entry = call.stop_on_entry.or(self.stop_on_entry);
        call.console = call.console.or(self.console);
        call.config = None;
        Project::Launch { args: call, notes }
    }
}

#[cfg(test)]
#[path = "launch_json/tests.rs"]
mod tests;
