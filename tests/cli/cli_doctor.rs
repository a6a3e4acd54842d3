//! `agentdap doctor`, `agentdap install` for packaged adapters, and `--help`, on the built binary.

use crate::common;

use std::process::{Command, Output};

use common::bin;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

use common::TempDir as Scratch;

/// `agentdap <args>` where no adapter can be found by PATH or override variables: an empty `PATH`
/// directory, an empty home, no `AGENTDAP_*`, Go or venv variables.
fn bare(scratch: &Scratch, args: &[&str]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args).env("PATH", scratch.0.join("no-bin")).env("HOME", &scratch.0).env("XDG_DATA_HOME", &scratch.0);
    for var in [
        "AGENTDAP_PYTHON",
        "VIRTUAL_ENV",
        "AGENTDAP_LLDB_DAP",
        "AGENTDAP_DLV",
        "GOBIN",
        "GOPATH",
        "AGENTDAP_JS_DEBUG",
        "AGENTDAP_CODELLDB",
        "AGENTDAP_RDBG",
        "AGENTDAP_GDB",
        "AGENTDAP_NETCOREDBG",
        "AGENTDAP_PY_SPY",
        "AGENTDAP_CONFIG",
        "XDG_CONFIG_HOME",
    ] {
        cmd.env_remove(var);
    }
    cmd.current_dir(&scratch.0).output().expect("run agentdap")
}

/// The report's row for `name` and the lines under it.
fn row<'a>(report: &'a str, name: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = report.lines().collect();
    let Some(start) = lines.iter().position(|l| l.starts_with(&format!("  {name} "))) else {
        panic!("no {name} row in:\n{report}")
    };
    let rest = lines[start + 1..].iter().take_while(|l| l.starts_with("           "));
    std::iter::once(lines[start]).chain(rest.copied()).collect()
}

#[test]
fn doctor_lists_every_adapter_with_a_path_or_an_install_command() {
    // As the machine is: each adapter is either found at a path or comes with an install command.
    let out = Command::new(bin()).arg("doctor").output().expect("run agentdap");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    assert!(report.starts_with(&format!("agentdap {} (", env!("CARGO_PKG_VERSION"))), "{report}");
    for name in ["debugpy", "lldb", "delve", "node", "rdbg", "codelldb", "gdb", "netcoredbg"] {
        let lines = row(&report, name).join("\n");
        let found = lines.contains(" ok ") && lines.contains(" at /");
        let missing = lines.contains(" missing ") && lines.contains("install");
        assert!(found || missing, "{name}:\n{lines}\n\nfull report:\n{report}");
    }

    // Where nothing can be found, every row names the missing piece and the install command,
    // and doctor still exits 0: it is a report.
    let scratch = Scratch::new("doctor");
    let out = bare(&scratch, &["doctor"]);
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}");
    let debugpy = row(&report, "debugpy").join("\n");
    assert!(debugpy.contains("missing") && debugpy.contains("no Python interpreter found"), "{report}");
    assert!(debugpy.contains("pip install debugpy"), "{report}");
    let delve = row(&report, "delve").join("\n");
    assert!(delve.contains("missing") && delve.contains("install: apt-get install delve"), "{report}");
    let node = row(&report, "node").join("\n");
    assert!(node.contains("missing") && node.contains("no js-debug found"), "{report}");
    let data = scratch.0.join("agentdap");
    assert!(node.contains(&format!("install: mkdir -p {}", data.display())), "{report}");
    assert!(node.contains("/releases/download/v1.112.0/js-debug-dap-v1.112.0.tar.gz | tar -xz -C"), "{report}");
}

/// `--config` before the subcommand is the file `doctor` reads, as the server would: a CodeLLDB
/// entry's command is what it runs (no `$AGENTDAP_CODELLDB`, nothing on `PATH`), and a file that
/// is not there is named.
#[test]
fn doctor_reads_the_config_file_the_flag_names() {
    let scratch = Scratch::new("doctor-config");
    let codelldb = scratch.0.join("bin/codelldb");
    std::fs::create_dir_all(scratch.0.join("bin")).expect("mkdir");
    std::fs::write(&codelldb, "#!/bin/sh\nexit 0\n").expect("write");
    std::fs::set_permissions(&codelldb, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let config = scratch.0.join("config.json");
    let entry =
        serde_json::json!({"adapters": {"codelldb": {"command": codelldb}, "rdbg": {"command": "/nonexistent/rdbg"}}});
    std::fs::write(&config, entry.to_string()).expect("write config");
    let out = bare(&scratch, &["--config", &config.to_string_lossy(), "doctor"]);
    let report = text(&out.stdout);
    assert!(report.contains(&format!("  config    {}\n", config.display())), "{report}");
    let row = row(&report, "codelldb").join("\n");
    assert!(
        row.contains(" ok ") && row.contains(&format!("at {} (from the config file)", codelldb.display())),
        "{report}"
    );
    assert!(row.contains("overridden by the config file"), "{report}");
    // What `launch` would answer for it, not the search a recipe does without the entry.
    let rdbg = self::row(&report, "rdbg").join("\n");
    assert!(
        rdbg.contains(" missing ")
            && rdbg.contains("the config file's command /nonexistent/rdbg is not a file rdbg can run"),
        "{report}"
    );
    let out = bare(&scratch, &["--config", "/nonexistent/agentdap.json", "doctor"]);
    let report = text(&out.stdout);
    assert!(report.contains("cannot read config file /nonexistent/agentdap.json"), "{report}");
}

#[test]
fn install_js_debug_says_it_comes_from_no_registry_and_prints_the_download() {
    let scratch = Scratch::new("install-js");
    let missing = bare(&scratch, &["install", "js-debug"]);
    let out = text(&missing.stdout);
    assert_eq!(missing.status.code(), Some(1), "{out}");
    assert!(out.contains("js-debug is not published in any package registry under its own name"), "{out}");
    assert!(out.contains(&format!("  mkdir -p {}/agentdap\n", scratch.0.display())), "{out}");
    assert!(
        out.contains("  curl -fsSL https://github.com/microsoft/vscode-js-debug/releases/download/v1.112.0/js-debug-dap-v1.112.0.tar.gz | tar -xz -C"),
        "{out}"
    );
    assert!(out.contains("js-debug also needs Node.js, which is not on PATH"), "{out}");

    // Found through the variable: said so, with the version a vendoring manifest gives; node
    // is still missing from this PATH.
    let dir = scratch.0.join("vendor");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("vsDebugServer.cjs"), "//").expect("write");
    std::fs::write(dir.join("manifest.json"), r#"{"version": "v1.112.0"}"#).expect("write");
    let mut cmd = Command::new(bin());
    cmd.args(["install", "node"]).env("PATH", scratch.0.join("no-bin")).env("HOME", &scratch.0);
    let found = cmd.env("AGENTDAP_JS_DEBUG", dir.join("vsDebugServer.cjs")).output().expect("run agentdap");
    let out = text(&found.stdout);
    assert_eq!(found.status.code(), Some(1), "{out}");
    assert!(out.starts_with("js-debug 1.112.0 is already installed: "), "{out}");
    assert!(out.contains("(from $AGENTDAP_JS_DEBUG)\nIt runs on Node.js, which is not on PATH"), "{out}");
}

#[test]
fn install_prints_package_commands_and_rejects_unknown_adapters() {
    let scratch = Scratch::new("install");
    let delve = bare(&scratch, &["install", "delve"]);
    assert_eq!(delve.status.code(), Some(1));
    assert!(text(&delve.stdout).contains("  apt-get install delve golang-go"), "{}", text(&delve.stdout));

    let unknown = bare(&scratch, &["install", "gdbx"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("known adapters: debugpy, lldb, delve"), "{}", text(&unknown.stderr));

    let help = bare(&scratch, &["--help"]);
    let usage = text(&help.stdout);
    for sub in ["demo [--no-install]", "doctor", "install <adapter>"] {
        assert!(usage.contains(sub), "{usage}");
    }
}

/// py-spy (the stack sampler `stacks` runs) has its row under `tools`: missing with the install
/// command, or found where `$AGENTDAP_PY_SPY` points, with its version; `install py-spy` then
/// says it is there (nothing is downloaded).
#[test]
fn doctor_and_install_name_py_spy() {
    let scratch = Scratch::new("doctor-py-spy");
    let out = bare(&scratch, &["doctor"]);
    let report = text(&out.stdout);
    assert!(report.contains("\ntools\n"), "{report}");
    let missing = row(&report, "py-spy").join("\n");
    assert!(missing.contains(" missing ") && missing.contains("install: agentdap install py-spy"), "{report}");

    let py_spy = common::venv_python().parent().expect("the venv's bin").join("py-spy");
    assert!(py_spy.exists(), "test dependency missing: py-spy in {} (run scripts/install-test-deps)", py_spy.display());
    let with = |args: &[&str]| {
        let mut cmd = Command::new(bin());
        cmd.args(args).env("AGENTDAP_PY_SPY", &py_spy).env("HOME", &scratch.0).env("XDG_DATA_HOME", &scratch.0);
        cmd.current_dir(&scratch.0).output().expect("run agentdap")
    };
    let report = text(&with(&["doctor"]).stdout);
    let found = row(&report, "py-spy").join("\n");
    assert!(
        found.contains(" ok ") && found.contains("0.4.3 at ") && found.contains("(from $AGENTDAP_PY_SPY)"),
        "{report}"
    );
    let install = with(&["install", "py-spy"]);
    assert_eq!(install.status.code(), Some(0), "{}", text(&install.stderr));
    assert!(text(&install.stdout).starts_with("py-spy 0.4.3 is already installed: "), "{}", text(&install.stdout));
}

/// A reader that closes its end early (`agentdap doctor | head -c0`) ends the printing commands
/// as SIGPIPE ends any filter: no panic message, no abort (it was exit 134 and "failed printing
/// to stdout: Broken pipe").
#[test]
fn a_closed_stdout_ends_doctor_and_help_quietly_by_sigpipe() {
    use std::os::unix::process::ExitStatusExt;
    for args in [&["doctor"][..], &["--help"], &["doctor", "--help"]] {
        let mut child = Command::new(bin())
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run agentdap");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // It may also have printed everything before the pipe closed (a short text fits the
        // pipe's buffer) and exit 0; what it must not do is abort (SIGABRT).
        assert_ne!(out.status.signal(), Some(libc::SIGABRT), "{args:?}: {:?} {stderr}", out.status);
        assert!(out.status.success() || out.status.signal() == Some(libc::SIGPIPE), "{args:?}: {:?}", out.status);
    }
}
