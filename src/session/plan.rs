//! From a `launch` call to an [`AdapterPlan`]: pick the adapter (a custom one from the config
//! file, else a built-in recipe), resolve it on this host, and build the complete DAP `launch`
//! arguments (recipe or config defaults < dapmux's < `adapter_args`).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::{AdapterPlan, ErrorCode, LaunchArgs, ToolResult};
use crate::config::{Config, CustomAdapter};
use crate::dap::adapters::{self, AdapterError, AdapterKind, Quirks, RealHost, ResolveInput, RuntimeQuirks, Transport};
use crate::dap::spawn::AdapterCommand;

/// Keys of `adapter_args` that configure dapmux's choice of adapter, not the DAP arguments.
const RECIPE_KEYS: &[&str] = &["python"];

/// Builds the plan for `args`. `has_breakpoints` counts breakpoints already waiting for this
/// launch, which turn the `stop_on_entry` default off (DESIGN §4).
///
/// Custom adapters in `config` are chosen by name first, then by their declared extensions
/// (which win over the built-in inference); otherwise the built-in recipes apply.
///
/// Errors (as tool results): `invalid_argument` (no such program, unknown adapter, adapter not
/// inferable), `adapter_not_found` (with the install command).
pub fn launch(args: &LaunchArgs, has_breakpoints: bool, config: &Config) -> Result<AdapterPlan, ToolResult> {
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
    let custom = match args.adapter.as_deref() {
        Some(name) => config.by_name(name),
        None => config.by_program(&program_str),
    };
    let stop_on_entry = args.stop_on_entry.unwrap_or(!has_breakpoints && args.breakpoints.is_empty());
    if let Some((name, adapter)) = custom {
        return Ok(custom_plan(name, adapter, args, &program_str, cwd.as_deref(), stop_on_entry));
    }
    let kind = adapters::select(args.adapter.as_deref(), Some(&program_str)).map_err(|e| tool_error(e, config))?;
    let adapter_args = Value::Object(args.adapter_args.clone());
    let input = ResolveInput { adapter_args: Some(&adapter_args), cwd: cwd.as_deref() };
    let recipe =
        adapters::recipe_for_program(kind, Some(&program), input, &RealHost).map_err(|e| tool_error(e, config))?;
    let runtime = kind.runtime_quirks();
    // "Entry" of a native or Go program is its `main` (DESIGN §4): a temporary function
    // breakpoint set in the configuration phase, not the adapter's stop in the loader.
    let entry_function = runtime.entry_function.filter(|_| stop_on_entry && !args.no_debug);
    let adapter_stop_on_entry = stop_on_entry && entry_function.is_none();
    let ours =
        our_arguments(args, &program_str, cwd.as_deref(), recipe.quirks.stop_on_entry_key, adapter_stop_on_entry);
    let mut launch = adapters::merge_arguments(&recipe.launch_defaults, Some(&Value::Object(ours)));
    let mut scratch_dir = None;
    if let Some((key, file)) = runtime.build_output.filter(|(key, _)| !args.adapter_args.contains_key(*key)) {
        // The built binary goes into a directory dapmux owns and removes with the session,
        // never into the user's tree (where a killed adapter would leave it).
        let dir = make_scratch_dir().map_err(|e| {
            ToolResult::error(
                ErrorCode::AdapterError,
                format!("cannot create a temporary directory for the build: {e}"),
            )
        })?;
        launch[key] = dir.join(file).to_string_lossy().into_owned().into();
        scratch_dir = Some(dir);
    }
    let extra: Map<String, Value> = args
        .adapter_args
        .iter()
        .filter(|(k, _)| !RECIPE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    launch = adapters::merge_arguments(&launch, Some(&Value::Object(extra)));

    Ok(AdapterPlan {
        name: recipe.name.to_owned(),
        kind: Some(kind),
        quirks: recipe.quirks,
        runtime,
        transport: recipe.transport,
        entry_function,
        scratch_dir,
        command: recipe.command,
        launch_arguments: launch,
    })
}

/// A fresh private directory under the system's temporary directory (mode 0700).
fn make_scratch_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    let mut last = None;
    for _ in 0..8 {
        let mut bytes = [0u8; 6];
        getrandom::getrandom(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        let tag: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = base.join(format!("dapmux-build-{}-{tag}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no name left"))) // infallible: the loop ran
}

/// The DAP `launch` arguments dapmux itself sets from the tool's arguments.
fn our_arguments(
    args: &LaunchArgs,
    program: &str,
    cwd: Option<&Path>,
    stop_on_entry_key: &str,
    stop_on_entry: bool,
) -> Map<String, Value> {
    let mut ours = Map::new();
    ours.insert("request".into(), "launch".into());
    ours.insert("program".into(), program.into());
    ours.insert("args".into(), json!(args.args));
    ours.insert(stop_on_entry_key.into(), stop_on_entry.into());
    if args.no_debug {
        ours.insert("noDebug".into(), true.into());
    }
    if let Some(dir) = cwd {
        ours.insert("cwd".into(), dir.to_string_lossy().into_owned().into());
    }
    if !args.env.is_empty() {
        ours.insert("env".into(), Value::Object(args.env.clone()));
    }
    ours
}

/// A plan for a custom adapter: its command as configured, plain-DAP quirks, its
/// `launch_defaults` under dapmux's arguments, `adapter_args` over both.
fn custom_plan(
    name: &str,
    adapter: &CustomAdapter,
    args: &LaunchArgs,
    program: &str,
    cwd: Option<&Path>,
    stop_on_entry: bool,
) -> AdapterPlan {
    let quirks = Quirks::STANDARD;
    let mut command = AdapterCommand::new(&adapter.command);
    command.args = adapter.args.iter().map(Into::into).collect();
    let transport = match adapter.tcp {
        Some(true) => Transport::Tcp { port: adapters::PortDiscovery::Chosen },
        _ => Transport::Stdio,
    };
    command.env = adapter.env.iter().map(|(k, v)| (k.into(), Some(v.into()))).collect();
    let ours = our_arguments(args, program, cwd, quirks.stop_on_entry_key, stop_on_entry);
    let defaults = Value::Object(adapter.launch_defaults.clone());
    let mut launch = adapters::merge_arguments(&defaults, Some(&Value::Object(ours)));
    launch = adapters::merge_arguments(&launch, Some(&Value::Object(args.adapter_args.clone())));
    AdapterPlan {
        name: name.to_owned(),
        kind: None,
        quirks,
        runtime: RuntimeQuirks::STANDARD,
        transport,
        entry_function: None,
        scratch_dir: None,
        command,
        launch_arguments: launch,
    }
}

/// Explains an adapter that exited during start-up, from its stderr tail, when the recipe knows
/// the failure (debugpy not installed → `adapter_not_found` with the install command).
pub fn explain_early_exit(plan: &AdapterPlan, stderr_tail: &str) -> Option<String> {
    if plan.kind != Some(AdapterKind::Debugpy) {
        return None;
    }
    adapters::debugpy::missing_debugpy(Path::new(&plan.command.program), stderr_tail, None).map(|e| e.to_string())
}

fn tool_error(e: AdapterError, config: &Config) -> ToolResult {
    let code = match e {
        AdapterError::NotFound { .. } => ErrorCode::AdapterNotFound,
        _ => ErrorCode::InvalidArgument,
    };
    let mut msg = format!("{e}");
    let custom = config.names();
    if !custom.is_empty() && matches!(e, AdapterError::Unknown { .. } | AdapterError::NotInferred { .. }) {
        msg.push_str(&format!("; custom adapters from the config file: {}", custom.join(", ")));
    }
    ToolResult::error(code, format!("{msg}."))
}

fn absolute(path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
}
