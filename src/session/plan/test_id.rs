//! `launch {test: "<id>"}` (README § Recipes › A test fails): which runner runs the test
//! ([`choose`], from `adapter`, `program`, the id's shape and the project's markers in `cwd`)
//! and the launch that runs it under the runner's adapter — pytest or unittest as a module
//! under debugpy, a Go package's tests under Delve's `mode: test` — built on [`super::launch`].
//! Must not: spawn, read more than directory facts through `Files`, or judge the outcome
//! (`session/test_outcome.rs`).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::super::files::Files;
use super::super::test_outcome::{Runner, TestRun};
use super::super::{AdapterPlan, ErrorCode, LaunchArgs, ToolResult};
use super::resolve_path;
use crate::config::Config;
use crate::dap::adapters::{delve, AdapterKind};

/// The default `wait_ms` of a test run (a Go test's cold build took ~11 s, README § Recipes ›
/// A test fails).
const TEST_WAIT_MS: u64 = 30_000;

/// The files node runs as a `node:test` file (js-debug's TypeScript through the project's tsx
/// or source maps, as for `launch`).
const JS_EXTENSIONS: &[&str] = &[".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"];

/// Most bytes of a test id (a pytest node id with long parameters fits).
const ID_CAP: usize = 4096;

/// What the runner choice looks at besides the id and `adapter`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Markers {
    /// `program` is a `.py` file.
    pub program_py: bool,
    /// `program` is a Go package directory or a `_test.go`/`.go` file.
    pub program_go: bool,
    /// `program` is a JavaScript or TypeScript file.
    pub program_js: bool,
    /// `program` was given and is none of these.
    pub program_other: bool,
    pub cwd_go_mod: bool,
    pub cwd_cargo_toml: bool,
    pub cwd_package_json: bool,
}

/// The runner for `id`: `adapter` if given; else `program`'s kind; else the id's shape (`::`
/// or a `.py` path: pytest); else the markers in `cwd` (`go.mod`: Go; a dotted id: unittest).
/// Errors name what was looked at and what to pass.
pub fn choose(id: &str, adapter: Option<&str>, m: Markers) -> Result<Runner, ToolResult> {
    let unsupported = |what: &str| {
        ToolResult::error(
            ErrorCode::Unsupported,
            format!("test {id}: {what}; agentdap runs pytest and unittest tests (debugpy), Go tests (delve), node:test files (node) and Rust tests (a crate's directory as cwd: cargo, then lldb-dap)"),
        )
    };
    let pytest_shaped = pytest_shaped(id);
    let dotted = !id.is_empty()
        && id.split('.').count() > 1
        && id.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
    if let Some(name) = adapter {
        return match AdapterKind::from_name(name) {
            Some(AdapterKind::Debugpy) if dotted && !pytest_shaped => Ok(Runner::Unittest),
            Some(AdapterKind::Debugpy) => Ok(Runner::Pytest),
            Some(AdapterKind::Delve) => Ok(Runner::GoTest),
            Some(AdapterKind::JsDebug) => Ok(Runner::NodeTest),
            _ => Err(unsupported(&format!("no test runner is known for adapter `{name}`"))),
        };
    }
    if m.program_py {
        return Ok(Runner::Pytest);
    }
    if m.program_go {
        return Ok(Runner::GoTest);
    }
    if m.program_js {
        return Ok(Runner::NodeTest);
    }
    if m.program_other {
        return Err(unsupported("`program` is neither a .py, .js or .ts file nor a Go package or _test.go file"));
    }
    if pytest_shaped {
        return Ok(Runner::Pytest);
    }
    if m.cwd_go_mod {
        return Ok(Runner::GoTest);
    }
    if m.cwd_cargo_toml {
        return Err(unsupported("cwd holds a Cargo.toml (a Rust test)"));
    }
    if m.cwd_package_json {
        return Err(ToolResult::error(
            ErrorCode::InvalidArgument,
            format!("test {id}: cwd holds a package.json: pass `program`, the node:test file that holds the test"),
        ));
    }
    if dotted {
        return Ok(Runner::Unittest);
    }
    Err(ToolResult::error(
        ErrorCode::InvalidArgument,
        format!(
            "cannot tell which runner runs test {id}: pass a pytest node id (tests/test_x.py::test_y), a dotted unittest id (pkg.test_mod.TestX.test_y), a Go test name with cwd a Go module (go.mod), or `adapter`"
        ),
    ))
}

/// A pytest node id's shape: a `.py` file, alone or before `::` (a Rust test path's `::`, as in
/// `tests::adds`, has no file before it).
fn pytest_shaped(id: &str) -> bool {
    id.split("::").next().is_some_and(|f| f.ends_with(".py"))
}

/// The agent's exception filters (else the adapter's `uncaught`) with the runner's `filter`
/// added: the one that stops where the runner catches a failure.
fn filters_with(args: &LaunchArgs, filter: &str) -> Vec<String> {
    let mut filters = args.exception_filters.clone().unwrap_or_else(|| vec!["uncaught".into()]);
    if !filters.iter().any(|f| f == filter) {
        filters.push(filter.into());
    }
    filters
}

/// Whether `args` name a runner of this module though a Cargo project is there (the MCP handler
/// sends other test runs in a Cargo project to `session::test_rust`): `adapter` debugpy, delve
/// or node, a `.py`, `.go` or JavaScript `program`, or a pytest node id.
pub fn names_another_runner(args: &LaunchArgs) -> bool {
    let kind = args.adapter.as_deref().and_then(AdapterKind::from_name);
    let by_adapter = matches!(kind, Some(AdapterKind::Debugpy | AdapterKind::Delve | AdapterKind::JsDebug));
    let by_program = [".py", ".go"].iter().chain(JS_EXTENSIONS).any(|e| args.program.ends_with(e));
    by_adapter || by_program || args.test.as_deref().is_some_and(pytest_shaped)
}

/// Builds the launch of test `args.test`: the arguments the session starts from (the runner's
/// program, filters and [`TestRun`] in `test_run`) and the plan. `has_breakpoints`
/// as for [`super::launch`]. Errors as [`super::launch`]'s, and `invalid_argument` for an id
/// that is empty, too long or holds a control character, or names a test file that does not
/// exist.
pub fn launch(
    args: &LaunchArgs,
    has_breakpoints: bool,
    config: &Config,
    files: &dyn Files,
) -> Result<(LaunchArgs, AdapterPlan), ToolResult> {
    let invalid = |msg: String| ToolResult::error(ErrorCode::InvalidArgument, msg);
    let id = args.test.clone().unwrap_or_default();
    if id.trim().is_empty() || id.len() > ID_CAP || id.chars().any(char::is_control) {
        return Err(invalid(format!(
            "test must be a test id of at most {ID_CAP} bytes without control characters, not {}",
            crate::visible::quoted_cut(&id, 80)
        )));
    }
    let cwd = resolve_path(args.cwd.as_deref().unwrap_or("."), None);
    if !files.is_dir(&cwd) {
        return Err(invalid(format!("cwd {} is not a directory.", cwd.display())));
    }
    let cwd_str = cwd.to_string_lossy().into_owned();
    let program = (!args.program.is_empty()).then(|| resolve_path(&args.program, Some(&cwd_str)));
    if let Some(p) = program.as_ref().filter(|p| !files.exists(p)) {
        return Err(invalid(format!(
            "program {} does not exist; pass the test file or package directory.",
            p.display()
        )));
    }
    let host = files.adapter_host();
    let name = |p: &Path| p.to_string_lossy().into_owned();
    let markers = Markers {
        program_py: program.as_ref().is_some_and(|p| name(p).ends_with(".py")),
        program_go: program.as_ref().is_some_and(|p| name(p).ends_with(".go") || delve::is_package_dir(p, host)),
        program_other: program.is_some(),
        program_js: program.as_ref().is_some_and(|p| JS_EXTENSIONS.iter().any(|e| name(p).ends_with(e))),
        cwd_go_mod: files.exists(&cwd.join("go.mod")),
        cwd_cargo_toml: files.exists(&cwd.join("Cargo.toml")),
        cwd_package_json: files.exists(&cwd.join("package.json")),
    };
    let known = markers.program_py || markers.program_go || markers.program_js;
    let markers = Markers { program_other: markers.program_other && !known, ..markers };
    let runner = choose(&id, args.adapter.as_deref(), markers)?;
    let mut run_args = LaunchArgs {
        test: None,
        stop_on_entry: Some(args.stop_on_entry.unwrap_or(false)),
        // The first answer is the outcome, after a collection or a build that may take a while.
        wait_ms: Some(args.wait_ms.unwrap_or(TEST_WAIT_MS)),
        ..args.clone()
    };
    let plan = match runner {
        Runner::Pytest | Runner::Unittest => {
            let module = if runner == Runner::Pytest { "pytest" } else { "unittest" };
            // A `.py` program and a bare test name: the name inside that file.
            let node_id = match (&program, runner) {
                (Some(p), Runner::Pytest) if markers.program_py && !id.contains("::") && !id.ends_with(".py") => {
                    format!("{}::{id}", name(p))
                }
                _ => id.clone(),
            };
            // The file the id names is the program debugpy's interpreter is chosen for (its
            // project's `.venv`, `debugpy::project_venv`); a dotted id names none: `cwd`.
            let file =
                node_id.split("::").next().filter(|f| f.ends_with(".py")).map(|f| resolve_path(f, Some(&cwd_str)));
            if let Some(f) = file.as_ref().filter(|f| !files.exists(f)) {
                return Err(invalid(format!(
                    "test {id}: {} does not exist (a node id's file is taken against cwd {cwd_str}).",
                    f.display()
                )));
            }
            run_args.program = name(&file.or(program.clone()).unwrap_or_else(|| cwd.clone()));
            run_args.adapter = Some("debugpy".into());
            run_args.cwd = Some(cwd_str.clone());
            // Stop where the test fails: an exception that leaves the user's code into the
            // runner's, which catches it (debugpy 1.8.22 `userUnhandled`), besides the agent's
            // filters or debugpy's default (`uncaught`).
            run_args.exception_filters = Some(filters_with(args, "userUnhandled"));
            let mut plan = super::launch(&run_args, has_breakpoints, config, files)?;
            if let Some(m) = plan.launch_arguments.as_object_mut() {
                if !args.adapter_args.contains_key("module") {
                    m.remove("program");
                    m.insert("module".into(), module.into());
                }
                let mut argv = vec![Value::from(node_id)];
                argv.extend(args.args.iter().map(|a| Value::from(a.as_str())));
                m.insert("args".into(), Value::Array(argv));
            }
            plan
        }
        // `choose` never picks it: a Rust test is built first (`session::test_rust`, by the MCP
        // handler).
        Runner::RustTest => {
            let msg = format!("test {id}: a Rust test is built by cargo first; pass the crate's directory as cwd");
            return Err(invalid(msg));
        }
        Runner::NodeTest => {
            let Some(file) = program.clone() else {
                return Err(invalid(format!("test {id}: a node:test run needs `program`, the test file")));
            };
            run_args.program = name(&file);
            run_args.adapter = Some("node".into());
            run_args.cwd = Some(cwd_str.clone());
            // The runner catches a failed assertion, so `uncaught` never sees it: `all` stops at
            // the throw (js-debug 1.112), in `<node_internals>/assert`, which the default
            // `skipFiles` (every internal module) would pass over; only Node's `internal/`
            // modules, which throw and catch among themselves, stay skipped.
            run_args.exception_filters = Some(filters_with(args, "all"));
            let mut plan = super::launch(&run_args, has_breakpoints, config, files)?;
            if let Some(m) = plan.launch_arguments.as_object_mut() {
                let mut runtime: Vec<Value> =
                    m.get("runtimeArgs").and_then(Value::as_array).cloned().unwrap_or_default();
                runtime.push(format!("--test-name-pattern={}", anchored(&id)).into());
                m.insert("runtimeArgs".into(), Value::Array(runtime));
                if !args.adapter_args.contains_key("skipFiles") {
                    m.insert("skipFiles".into(), json!(["<node_internals>/internal/**"]));
                }
            }
            plan
        }
        Runner::GoTest => {
            // The package: `program` (a directory, or a `.go` file's), else cwd.
            let package: PathBuf = match &program {
                Some(p) if files.is_dir(p) => p.clone(),
                Some(p) => p.parent().map(Path::to_path_buf).unwrap_or_else(|| cwd.clone()),
                None => cwd.clone(),
            };
            run_args.program = name(&package);
            run_args.adapter = Some("delve".into());
            // `go test` runs a package's tests in the package's directory, and Delve builds there.
            run_args.cwd = Some(name(&package));
            run_args.adapter_args.entry("mode").or_insert_with(|| json!("test"));
            let mut argv = vec!["-test.run".to_owned(), go_run_pattern(&id), "-test.v".to_owned()];
            argv.extend(args.args.iter().cloned());
            run_args.args = argv;
            super::launch(&run_args, has_breakpoints, config, files)?
        }
    };
    run_args.test_run = Some(TestRun { id, runner });
    Ok((run_args, plan))
}

/// `-test.run`'s pattern for a test name: each `/`-separated part (a subtest) anchored and
/// matched literally (`TestA/case_1` → `^TestA$/^case_1$`).
pub fn go_run_pattern(id: &str) -> String {
    id.split('/').map(anchored).collect::<Vec<_>>().join("/")
}

/// `^name$` with every regular-expression character of `name` escaped (Go's RE2 and
/// JavaScript's syntax agree on these escapes).
fn anchored(name: &str) -> String {
    let mut s = String::from("^");
    for c in name.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('$');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(id: &str, adapter: Option<&str>, m: Markers) -> Result<&'static str, String> {
        choose(id, adapter, m).map(Runner::name).map_err(|e| e.text)
    }

    #[test]
    fn the_runner_follows_adapter_then_program_then_the_id_then_the_project() {
        let none = Markers::default();
        assert_eq!(pick("tests/test_cart.py::test_total[case-2]", None, none), Ok("pytest"));
        assert_eq!(pick("tests/test_cart.py", None, none), Ok("pytest"));
        assert_eq!(pick("pkg.test_mod.TestX.test_y", None, none), Ok("unittest"));
        assert_eq!(pick("pkg.test_mod", Some("debugpy"), none), Ok("unittest"));
        assert_eq!(pick("tests", Some("python"), none), Ok("pytest"));
        assert_eq!(pick("TestTotal", Some("go"), none), Ok("go test"));
        let go = Markers { cwd_go_mod: true, ..none };
        assert_eq!(pick("TestTotal", None, go), Ok("go test"));
        // A `.py` program wins over the Go module around it.
        assert_eq!(pick("test_total", None, Markers { program_py: true, ..go }), Ok("pytest"));
        assert_eq!(pick("TestTotal", None, Markers { program_go: true, ..none }), Ok("go test"));
        // `::` alone is no pytest id: a Rust test path has it too.
        let rust = pick("tests::adds", None, Markers { cwd_cargo_toml: true, ..none }).unwrap_err();
        assert!(rust.contains("Cargo.toml"), "{rust}");
        assert_eq!(pick("TestA/case_1", None, Markers { cwd_go_mod: true, ..none }), Ok("go test"));
        let args = |test: &str, program: &str, adapter: Option<&str>| LaunchArgs {
            test: Some(test.into()),
            program: program.into(),
            adapter: adapter.map(str::to_owned),
            ..LaunchArgs::default()
        };
        assert!(names_another_runner(&args("tests/test_x.py::test_y", "", None)));
        assert!(names_another_runner(&args("total", "t.test.js", None)));
        assert!(names_another_runner(&args("test_y", "", Some("debugpy"))));
        assert!(!names_another_runner(&args("tests::adds", "", None)));
        assert!(!names_another_runner(&args("tests::adds", "", Some("lldb"))));
        let rust = pick("adds_up", None, Markers { cwd_cargo_toml: true, ..none }).unwrap_err();
        assert!(rust.starts_with("unsupported") && rust.contains("Cargo.toml"), "{rust}");
        let js = pick("adds", None, Markers { cwd_package_json: true, ..none }).unwrap_err();
        assert!(js.contains("package.json") && js.contains("pass `program`"), "{js}");
        let js_file = Markers { program_js: true, cwd_package_json: true, ..none };
        assert_eq!(pick("total fails", None, js_file), Ok("node:test"));
        assert_eq!(pick("total fails", Some("node"), none), Ok("node:test"));
        let other = pick("x", None, Markers { program_other: true, ..none }).unwrap_err();
        assert!(other.contains("neither a .py, .js or .ts file"), "{other}");
        let lost = pick("test_total", None, none).unwrap_err();
        assert!(lost.starts_with("invalid_argument") && lost.contains("pytest node id"), "{lost}");
        let ruby = pick("x", Some("rdbg"), none).unwrap_err();
        assert!(ruby.contains("adapter `rdbg`"), "{ruby}");
    }

    #[test]
    fn go_names_are_anchored_per_subtest_and_literal() {
        assert_eq!(go_run_pattern("TestTotal"), "^TestTotal$");
        assert_eq!(go_run_pattern("TestA/case_1"), "^TestA$/^case_1$");
        assert_eq!(go_run_pattern("TestA/x.y(1)"), "^TestA$/^x\\.y\\(1\\)$");
        assert_eq!(anchored("total fails (2)"), "^total fails \\(2\\)$");
    }
}
