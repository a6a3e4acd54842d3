//! netcoredbg (.NET) through the built binary, where neither netcoredbg nor .NET can be had: the
//! built-in `netcoredbg` recipe overridden in a config file by the scripted adapter's
//! `netcoredbg` scenario (`tests/fixtures/fake_adapter.py`: `initialized` before the initialize
//! response and string `seq`s, Samsung/netcoredbg#161, #197; `stopAtEntry`), and a machine
//! without netcoredbg, where `doctor` and `launch` name the release download.

use crate::agent;
use crate::common;

use std::process::Command;

use agent::{assert_all_gone, debugpy_python, fixture, sent_commands, Agent, HYGIENE};
use common::{bin, TempDir};
use serde_json::{json, Value};

#[test]
fn a_dll_runs_under_the_netcoredbg_recipe_with_an_early_initialized_string_seqs_and_stop_at_entry() {
    let dir = TempDir::new("netcoredbg-fake");
    let config = dir.0.join("config.json");
    let entry = json!({"command": debugpy_python(), "args": [fixture("fake_adapter.py"), "netcoredbg"]});
    std::fs::write(&config, json!({"adapters": {"netcoredbg": entry}}).to_string()).expect("write config");
    let program = dir.0.join("App.dll");
    std::fs::write(&program, "MZ").expect("write the assembly");
    let mut a = Agent::start_with(|cmd| {
        cmd.arg("--config").arg(&config);
    });
    let before = a.descendants();
    let r = a.ok("launch", json!({"program": program}));
    assert_eq!(
        (r.s["adapter"].clone(), r.s["stop"]["reason"].clone()),
        (json!("netcoredbg"), json!("entry")),
        "{}",
        r.text
    );

    let log = a.dap_log("s1");
    let from = |what: &str| {
        log.iter()
            .position(|e| {
                e["dir"] == "from_adapter"
                    && (e["message"]["event"] == json!(what) || e["message"]["command"] == json!(what))
            })
            .unwrap_or_else(|| panic!("no {what} from the adapter in the log"))
    };
    assert!(from("initialized") < from("initialize"), "netcoredbg's order is kept");
    assert!(log[from("initialize")]["message"]["seq"].is_string(), "string seqs accepted");
    assert_eq!(sent_commands(&log)[..4], ["initialize", "launch", "setExceptionBreakpoints", "configurationDone"]);
    let launch: &Value =
        &log.iter().find(|e| e["message"]["command"] == "launch").expect("launch")["message"]["arguments"];
    assert_eq!((launch["type"].clone(), launch["stopAtEntry"].clone()), (json!("coreclr"), json!(true)), "{launch}");
    assert_eq!(launch.get("stopOnEntry"), None, "{launch}");

    let r = a.ok("continue", json!({}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    assert!(r.text.contains("hello from fake"), "{}", r.text);
    a.ok("disconnect", json!({}));
    let started: Vec<i32> = a.descendants().into_iter().filter(|p| !before.contains(p)).collect();
    assert_all_gone(&started, HYGIENE, "the scripted netcoredbg");
}

#[test]
fn without_netcoredbg_doctor_and_launch_name_the_release_download() {
    let dir = TempDir::new("netcoredbg-missing");
    let empty = dir.0.join("no-bin");
    let hint = format!(
        "mkdir -p {data} && curl -fsSL https://github.com/Samsung/netcoredbg/releases/download/3.2.0-1092/netcoredbg-linux-{arch}.tar.gz | tar -xz -C {data}",
        data = dir.0.join("agentdap").display(),
        arch = if cfg!(target_arch = "aarch64") { "arm64" } else { "amd64" },
    );
    let doctor = Command::new(bin())
        .arg("doctor")
        .env("PATH", &empty)
        .env("HOME", &dir.0)
        .env("XDG_DATA_HOME", &dir.0)
        .env("XDG_CONFIG_HOME", &dir.0)
        .env_remove("AGENTDAP_NETCOREDBG")
        .env_remove("AGENTDAP_CONFIG")
        .output()
        .expect("run agentdap doctor");
    let report = String::from_utf8_lossy(&doctor.stdout).into_owned();
    let row: Vec<&str> = report.lines().skip_while(|l| !l.starts_with("  netcoredbg ")).take(2).collect();
    assert!(row.len() == 2 && row[0].contains(" missing ") && row[0].contains("no netcoredbg found"), "{report}");
    assert_eq!(row[1].trim(), format!("install: {hint}"), "{report}");

    let program = dir.0.join("App.dll");
    std::fs::write(&program, "MZ").expect("write the assembly");
    let mut a = Agent::start_plain(|cmd| {
        cmd.env("PATH", &empty).env("HOME", &dir.0).env("XDG_DATA_HOME", &dir.0).env_remove("AGENTDAP_NETCOREDBG");
    });
    let r = a.call("launch", json!({"program": program}));
    assert!(r.is_error && r.code() == "adapter_not_found", "{}", r.text);
    assert!(r.text.contains("netcoredbg: no netcoredbg found") && r.text.contains(&hint), "{}", r.text);
}
