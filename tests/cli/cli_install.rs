//! The fallbacks of `agentdap install debugpy` (README § Set up the adapters), on the built binary, with a `python3`
//! that behaves like a distribution's split packages: a wrapper script first on `PATH` that
//! refuses `-m venv` (no `ensurepip`) and optionally `-m pip`, and runs the real interpreter for
//! everything else.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use common::bin;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// A fresh directory holding the fake `python3` (in `bin/`) and the data dir, removed on drop.
use common::TempDir as Scratch;

impl Scratch {
    /// Writes `bin/python3`, refusing the modules in `refused` like a missing package would.
    fn fake_python3(&self, refused: &[&str]) {
        let real = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("test dependency missing: python3 on PATH");
        let real = text(&real.stdout).trim().to_string();
        assert!(Path::new(&real).is_absolute(), "python3 did not name its executable: {real:?}");
        let mut script = String::from("#!/bin/sh\n");
        for module in refused {
            script.push_str(&format!(
                "if [ \"$1\" = -m ] && [ \"$2\" = {module} ]; then echo 'No module named {module} (ensurepip is not available)' >&2; exit 1; fi\n"
            ));
        }
        script.push_str(&format!("exec '{real}' \"$@\"\n"));
        std::fs::create_dir_all(self.0.join("bin")).expect("create bin/");
        let path = self.0.join("bin/python3");
        std::fs::write(&path, script).expect("write fake python3");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// `agentdap <args>` with the fake `python3` first on `PATH` and the scratch data dir.
    fn agentdap(&self, args: &[&str]) -> Output {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.0.join("bin")];
        dirs.extend(std::env::split_paths(&path));
        Command::new(bin())
            .args(args)
            .env("PATH", std::env::join_paths(dirs).expect("PATH"))
            .env("XDG_DATA_HOME", &self.0)
            .env("AGENTDAP_DEMO_FORCE_INSTALL", "1")
            .env_remove("AGENTDAP_PYTHON")
            .env_remove("VIRTUAL_ENV")
            .env_remove("PYTHONPATH")
            .output()
            .expect("run agentdap")
    }
}

#[test]
fn without_ensurepip_debugpy_goes_to_pip_target_and_the_demo_runs_on_it() {
    let scratch = Scratch::new("pydeps");
    scratch.fake_python3(&["venv"]);
    let demo = scratch.agentdap(&["demo"]);
    let (stdout, stderr) = (text(&demo.stdout), text(&demo.stderr));
    assert!(demo.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", demo.status);
    assert!(stderr.contains("installing with pip --target"), "{stderr}");
    let data = scratch.0.join("agentdap");
    assert!(data.join("pydeps/debugpy").is_dir(), "{stderr}");
    assert!(!data.join("venv").exists(), "the half-made venv was left behind");
    // The server found debugpy only through the PYTHONPATH the demo gave it.
    assert!(stdout.contains("diagnosis: the 10% discount is applied twice"), "{stdout}");

    let install = scratch.agentdap(&["install", "debugpy"]);
    let out = text(&install.stdout);
    assert!(install.status.success(), "{out}{}", text(&install.stderr));
    assert!(out.contains("already installed"), "{out}");
    assert!(out.contains(&format!("\"PYTHONPATH\": \"{}\"", data.join("pydeps").display())), "{out}");
}

#[test]
fn without_venv_and_pip_install_prints_the_package_command() {
    let scratch = Scratch::new("nopip");
    scratch.fake_python3(&["venv", "pip"]);
    let install = scratch.agentdap(&["install", "debugpy"]);
    let stderr = text(&install.stderr);
    assert_eq!(install.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("neither `venv` (ensurepip) nor `pip`"), "{stderr}");
    assert!(stderr.contains("install python3-pip"), "{stderr}");
    let data = scratch.0.join("agentdap");
    assert!(!data.join("venv").exists() && !data.join("pydeps").exists(), "{stderr}");

    // The demo says the same and fails rather than pretending.
    let demo = scratch.agentdap(&["demo"]);
    assert_eq!(demo.status.code(), Some(1));
    assert!(text(&demo.stderr).contains("install python3-pip"), "{}", text(&demo.stderr));
    assert!(text(&demo.stdout).is_empty(), "{}", text(&demo.stdout));
}
