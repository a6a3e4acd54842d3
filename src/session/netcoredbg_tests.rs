//! Sans-IO tests of netcoredbg's recipe (`src/dap/adapters/netcoredbg.rs`) through
//! [`super::scripted::Rig`] and `plan::launch`: `initialized` before the `initialize` response
//! (Samsung/netcoredbg#161), `stopAtEntry` as the stop-on-entry key, a `.csproj` launched as its
//! built assembly. Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::plan;
use super::scripted::{args, plan as rig_plan, Rig};
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

#[test]
fn an_initialized_before_the_initialize_response_is_kept_and_the_entry_stop_reported() {
    let mut a = ScriptedAdapter::new();
    a.on(
        "initialize",
        Reply::ok(json!({"supportsConfigurationDoneRequest": true}))
            .before("capabilities", json!({"capabilities": {"supportsExceptionInfoRequest": true}}))
            .before("initialized", Value::Null),
    );
    a.on("launch", Reply::ok(Value::Null));
    a.on("configurationDone", Reply::ok(Value::Null).then("stopped", json!({"reason": "entry", "threadId": 1})));
    a.on(
        "stackTrace",
        Reply::ok(json!({"stackFrames": [{"id": 1, "name": "Program.Main()", "line": 3, "source": {"path": "/w/Program.cs"}}]})),
    );
    let mut rig = Rig::new(a);
    let launch = rig.launch(
        rig_plan(AdapterKind::Netcoredbg, json!({"program": "/w/app.dll", "stopAtEntry": true}), None),
        args(json!({"program": "/w/app.dll"})),
    );
    // Then the top frame's scopes, for the stop result's locals (`stop_frame.rs`).
    assert_eq!(rig.adapter.commands(), ["initialize", "launch", "configurationDone", "stackTrace", "scopes"]);
    let out = rig.answered(launch);
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("s1 stopped (entry) at Program.cs:3 in Program.Main()"), "{}", out.text);
}

/// A file under the system's temporary directory, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("agentdap-netcoredbg-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin/Debug/net8.0")).unwrap_or_else(|e| panic!("{e}"));
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn stop_on_entry_is_stop_at_entry_and_a_csproj_launches_its_built_dll_or_says_to_build_it() {
    let config = crate::config::parse(r#"{"adapters": {"netcoredbg": {"command": "/bin/sh"}}}"#).unwrap_or_default();
    let dir = Scratch::new("plan");
    let project = dir.0.join("App.csproj");
    let xml = "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>";
    std::fs::write(&project, xml).unwrap_or_else(|e| panic!("{e}"));
    let launch = |program: &std::path::Path| {
        let a: super::LaunchArgs = args(json!({"program": program, "stop_on_entry": true}));
        plan::launch(&a, false, &config, &crate::os::files::OsFiles)
    };
    let unbuilt = launch(&project).err().map(|e| e.text).unwrap_or_default();
    assert_eq!(
        unbuilt,
        format!(
            "invalid_argument: netcoredbg: {} is not built: {} does not exist; run `dotnet build {}` first (or pass the built .dll as `program`).",
            project.display(),
            dir.0.join("bin/Debug/net8.0/App.dll").display(),
            project.display()
        )
    );
    let dll = dir.0.join("bin/Debug/net8.0/App.dll");
    std::fs::write(&dll, "MZ").unwrap_or_else(|e| panic!("{e}"));
    let p = launch(&project).unwrap_or_else(|e| panic!("{}", e.text));
    assert_eq!(p.kind, Some(AdapterKind::Netcoredbg));
    assert_eq!(p.launch_arguments["program"], json!(dll.to_string_lossy()));
    assert!(p.notes.iter().any(|n| n.contains("built from")), "{:?}", p.notes);
    assert_eq!(p.launch_arguments["stopAtEntry"], json!(true));
    assert_eq!(p.launch_arguments.get("stopOnEntry"), None);
    assert_eq!((p.launch_arguments["type"].clone(), p.entry_function), (json!("coreclr"), None));
    let p = launch(&dll).unwrap_or_else(|e| panic!("{}", e.text));
    assert_eq!(
        (p.kind, p.launch_arguments["program"].clone()),
        (Some(AdapterKind::Netcoredbg), json!(dll.to_string_lossy()))
    );
}
