//! `agentdap demo` and `agentdap install debugpy` end to end, on the built binary: debugpy absent
//! from a fresh data directory (so the pip install really runs — it needs PyPI), the demo run to
//! its end through the real MCP surface, then `doctor` and `install` seeing what was installed.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::bin;

use common::TempDir as Scratch;

/// Runs `agentdap <args>` with only agentdap's data dir able to supply debugpy.
fn agentdap(xdg: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("XDG_DATA_HOME", xdg)
        .env_remove("AGENTDAP_PYTHON")
        .env_remove("VIRTUAL_ENV")
        .env_remove("PYTHONPATH")
        // The machine's python3 may have debugpy; the install path must run regardless.
        .env("AGENTDAP_DEMO_FORCE_INSTALL", "1")
        .output()
        .expect("run agentdap")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Processes whose command line mentions `needle` (the demo's temporary program).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(needle))
        .collect()
}

#[test]
fn demo_without_debugpy_installs_it_debugs_the_program_and_names_the_bug() {
    let scratch = Scratch::new("demo");
    let data = scratch.0.join("agentdap");

    // --no-install: the command, a failure exit, and nothing installed.
    let refused = agentdap(&scratch.0, &["demo", "--no-install"]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("agentdap install debugpy"), "{stderr}");
    assert!(stderr.contains("-m pip install debugpy"), "{stderr}");
    assert!(text(&refused.stdout).is_empty(), "{}", text(&refused.stdout));
    assert!(!data.join("venv").exists());

    // The real thing: installs debugpy into the data dir, then the whole session.
    let demo = agentdap(&scratch.0, &["demo"]);
    let (stdout, stderr) = (text(&demo.stdout), text(&demo.stderr));
    assert!(demo.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", demo.status);
    assert!(stderr.contains("installing it into agentdap's data dir"), "{stderr}");
    assert!(data.join("venv/bin/python").exists(), "{stderr}");
    for step in ["→ launch", "→ context", "→ evaluate", "→ step", "→ continue", "→ output"] {
        assert!(stdout.contains(step), "missing {step}:\n{stdout}");
    }
    assert!(stdout.contains("stopped (breakpoint) at checkout.py:23 in order_total()"), "{stdout}");
    assert!(stdout.contains("total = 69.3"), "{stdout}");
    assert!(stdout.contains("apply_discount(total, discount_percent) = 62.37"), "{stdout}");
    assert!(stdout.contains("(return) order_total = 62.37"), "{stdout}");
    assert!(stdout.contains("exited with code 0"), "{stdout}");
    assert!(stdout.contains("total with 10% off: 62.37"), "{stdout}");
    assert!(stdout.contains("diagnosis: the 10% discount is applied twice"), "{stdout}");

    // Cleaned up: the temporary program is gone and nothing runs it any more.
    let program = stdout.lines().find_map(|l| l.strip_prefix("program: ")).expect("program line").to_string();
    assert!(!Path::new(&program).exists(), "{program} left behind");
    let tmp = Path::new(&program).parent().expect("temp dir").to_string_lossy().into_owned();
    assert_eq!(processes_mentioning(&tmp), Vec::<String>::new());

    // doctor finds what the install left; install is idempotent and says what to configure.
    let doctor = agentdap(&scratch.0, &["doctor"]);
    let report = text(&doctor.stdout);
    assert!(doctor.status.success(), "{report}");
    let row = report.lines().find(|l| l.trim_start().starts_with("debugpy ")).expect("debugpy row");
    assert!(row.contains(" ok "), "{report}");
    assert!(report.contains(&data.join("venv/bin/python").display().to_string()), "{report}");

    let again = agentdap(&scratch.0, &["install", "debugpy"]);
    let out = text(&again.stdout);
    assert!(again.status.success(), "{out}{}", text(&again.stderr));
    assert!(out.contains("already installed"), "{out}");
    let expected = format!("\"AGENTDAP_PYTHON\": \"{}\"", data.join("venv/bin/python").display());
    assert!(out.contains(&expected), "{out}");
}
