//! Which Python a launch and `doctor` run when the directory holds a project's `.venv`, on the
//! built binary with real debugpy (SECURITY.md "Project interpreters"): the project's
//! `.venv/bin/python` runs only for a program inside that project, the launch result names it,
//! and `doctor` never executes a project file. The planted interpreter is a script that leaves a
//! mark, then runs the test venv's Python (debugpy installed).

use crate::agent;
use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent::{debugpy_python, scratch, Agent};
use serde_json::json;

/// A project directory with a `.venv/bin/python` that touches `<project>/ran` before it runs
/// the real interpreter, and a data dir whose private venv (`agentdap install debugpy`'s place)
/// is the real interpreter.
struct Setup {
    project: PathBuf,
    data: PathBuf,
    mark: PathBuf,
}

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn setup(name: &str) -> Setup {
    let root = scratch(name);
    let python = debugpy_python();
    let project = root.join("project");
    let mark = project.join("ran");
    let planted = format!("#!/bin/sh\ntouch '{}'\nexec '{}' \"$@\"\n", mark.display(), python.display());
    executable(&project.join(".venv/bin/python"), &planted);
    // `python -c` in the project would import this instead of debugpy.
    std::fs::write(project.join("debugpy.py"), format!("open('{}', 'w').close()\n", mark.display())).expect("write");
    std::fs::write(project.join("app.py"), "x = 1\nprint('inside', x)\n").expect("write");
    let data = root.join("data");
    executable(&data.join("agentdap/venv/bin/python"), &format!("#!/bin/sh\nexec '{}' \"$@\"\n", python.display()));
    Setup { project, data, mark }
}

/// agentdap started in the project directory with no interpreter chosen by the environment.
fn agent_in(s: &Setup) -> Agent {
    Agent::start_plain(|cmd| {
        cmd.current_dir(&s.project).env_remove("AGENTDAP_PYTHON").env("XDG_DATA_HOME", &s.data);
    })
}

#[test]
fn a_program_outside_the_project_does_not_run_the_projects_python() {
    let s = setup("project-python-outside");
    let outside = s.project.parent().expect("root").join("tool.py");
    std::fs::write(&outside, "print('outside')\n").expect("write");
    let mut a = agent_in(&s);
    let r = a.ok("launch", json!({"program": outside, "stop_on_entry": false}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    assert!(!s.mark.exists(), "the project's .venv/bin/python ran for a program outside it:\n{}", r.text);
    let used = s.data.join("agentdap/venv/bin/python");
    let note = format!(
        "python: {} (agentdap's private venv (agentdap install debugpy)); {} was not used because {} is not inside {}",
        used.display(),
        s.project.join(".venv/bin/python").display(),
        outside.display(),
        s.project.display()
    );
    assert!(r.text.contains(&note), "{}", r.text);
}

#[test]
fn a_program_inside_the_project_runs_its_venv_and_says_so() {
    let s = setup("project-python-inside");
    let program = s.project.join("app.py");
    let mut a = agent_in(&s);
    let r = a.ok("launch", json!({"program": program, "stop_on_entry": false}));
    assert_eq!(r.s["state"], json!("exited"), "{}", r.text);
    assert!(s.mark.exists(), "the project's .venv/bin/python did not run:\n{}", r.text);
    let note = format!(
        "python: {} (the project's .venv, because {} is inside {})",
        s.project.join(".venv/bin/python").display(),
        program.display(),
        s.project.display()
    );
    assert!(r.text.contains(&note), "{}", r.text);
}

#[test]
fn doctor_names_a_projects_venv_without_running_it() {
    let s = setup("project-python-doctor");
    let out = Command::new(common::bin())
        .arg("doctor")
        .current_dir(&s.project)
        .env_remove("AGENTDAP_PYTHON")
        .env_remove("VIRTUAL_ENV")
        .env("XDG_DATA_HOME", &s.data)
        .output()
        .expect("run agentdap doctor");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert!(!s.mark.exists(), "doctor executed a project file:\n{report}");
    let line = format!(
        "{} is used only for programs inside {} (not run by doctor)",
        s.project.join(".venv/bin/python").display(),
        s.project.display()
    );
    assert!(report.contains(&line), "{report}");
    assert!(report.contains("debugpy 1.8"), "the data venv's debugpy is still found:\n{report}");
}
