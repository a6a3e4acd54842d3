//! From a `launch` call to an [`AdapterPlan`]: pick the adapter recipe, resolve it on this host,
//! and build the complete DAP `launch` arguments (recipe defaults < dapmux's < `adapter_args`).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::{AdapterPlan, ErrorCode, LaunchArgs, ToolResult};
use crate::dap::adapters::{self, AdapterError, AdapterKind, RealHost, ResolveInput};

/// Keys of `adapter_args` that configure dapmux's choice of adapter, not the DAP arguments.
const RECIPE_KEYS: &[&str] = &["python"];

/// Builds the plan for `args`. `has_breakpoints` counts breakpoints already waiting for this
/// launch, which turn the `stop_on_entry` default off (DESIGN §4).
///
/// Errors (as tool results): `invalid_argument` (no such program, unknown adapter, adapter not
/// inferable), `adapter_not_found` (with the install command).
pub fn launch(args: &LaunchArgs, has_breakpoints: bool) -> Result<AdapterPlan, ToolResult> {
    let cwd = args.cwd.as_deref().map(absolute);
    let program = match &cwd {
        Some(dir) if Path::new(&args.program).is_relative() => dir.join(&args.program),
        _ => absolute(&args.program),
    };
    if !program.exists() {
        return Err(ToolResult::error(
            ErrorCode::InvalidArgument,
            format!(
                "program {} does not exist; pass an existing path (relative paths are taken against cwd).",
                program.display()
            ),
        ));
    }
    if let Some(dir) = &cwd {
        if !dir.is_dir() {
            return Err(ToolResult::error(
                ErrorCode::InvalidArgument,
                format!("cwd {} is not a directory.", dir.display()),
            ));
        }
    }
    let program_str = program.to_string_lossy().into_owned();
    let kind = adapters::select(args.adapter.as_deref(), Some(&program_str)).map_err(tool_error)?;
    let adapter_args = Value::Object(args.adapter_args.clone());
    let input = ResolveInput { adapter_args: Some(&adapter_args), cwd: cwd.as_deref() };
    let recipe = adapters::recipe(kind, input, &RealHost).map_err(tool_error)?;

    let stop_on_entry = args.stop_on_entry.unwrap_or(!has_breakpoints && args.breakpoints.is_empty());
    let mut ours = Map::new();
    ours.insert("request".into(), "launch".into());
    ours.insert("program".into(), program_str.into());
    ours.insert("args".into(), json!(args.args));
    ours.insert(recipe.quirks.stop_on_entry_key.into(), stop_on_entry.into());
    if args.no_debug {
        ours.insert("noDebug".into(), true.into());
    }
    if let Some(dir) = &cwd {
        ours.insert("cwd".into(), dir.to_string_lossy().into_owned().into());
    }
    if !args.env.is_empty() {
        ours.insert("env".into(), Value::Object(args.env.clone()));
    }
    let mut launch = adapters::merge_arguments(&recipe.launch_defaults, Some(&Value::Object(ours)));
    let extra: Map<String, Value> = args
        .adapter_args
        .iter()
        .filter(|(k, _)| !RECIPE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    launch = adapters::merge_arguments(&launch, Some(&Value::Object(extra)));

    Ok(AdapterPlan { name: recipe.name.to_owned(), kind, command: recipe.command, launch_arguments: launch })
}

/// Explains an adapter that exited during start-up, from its stderr tail, when the recipe knows
/// the failure (debugpy not installed → `adapter_not_found` with the install command).
pub fn explain_early_exit(plan: &AdapterPlan, stderr_tail: &str) -> Option<String> {
    match plan.kind {
        AdapterKind::Debugpy => adapters::debugpy::missing_debugpy(Path::new(&plan.command.program), stderr_tail, None)
            .map(|e| e.to_string()),
        AdapterKind::Lldb | AdapterKind::Delve => None,
    }
}

fn tool_error(e: AdapterError) -> ToolResult {
    let code = match e {
        AdapterError::NotFound { .. } => ErrorCode::AdapterNotFound,
        _ => ErrorCode::InvalidArgument,
    };
    ToolResult::error(code, format!("{e}."))
}

fn absolute(path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
}
