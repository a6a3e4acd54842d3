//! `agentdap install py-spy`: py-spy (PyPI `py-spy`, the stack sampler `stacks` runs for Python
//! programs) into agentdap's data directory, beside debugpy: `<data>/venv/bin/py-spy`, or
//! `<data>/pydeps/bin/py-spy` where python3 cannot make a venv. CLI only: runs pip and blocks.

use std::process::Command as Process;

use super::{install_debugpy, step, Source, PIP_QUIET};
use crate::dap::adapters::stack_sampler::{find_py_spy, parse_version, PY_SPY_ENV};
use crate::dap::adapters::RealHost;

/// The package pip installs.
const PACKAGE: &str = "py-spy";

/// 0 installed (or already there), 1 failed.
pub fn run() -> u8 {
    if let Ok(path) = find_py_spy(&RealHost) {
        let version = version_of(&path).map(|v| format!(" {v}")).unwrap_or_default();
        println!("py-spy{version} is already installed: {}", path.display()); // stdout-ok
        return 0;
    }
    let Some(data) = crate::cli::data_dir() else {
        eprintln!("agentdap: neither $XDG_DATA_HOME nor $HOME is set: no data directory to install into");
        return 1;
    };
    // py-spy goes where debugpy is: the same venv (made first if needed), or the same pydeps.
    let python = match install_debugpy(&data) {
        Ok(done) => done.python,
        Err(e) => {
            eprintln!("agentdap: installing py-spy needs agentdap's Python environment, which failed: {e}");
            return 1;
        }
    };
    eprintln!("agentdap: installing py-spy with {}", python.path.display());
    let mut pip = Process::new(&python.path);
    pip.args(["-m", "pip", "install"]).args(PIP_QUIET);
    if python.source == Source::DataPydeps {
        if let Some(dir) = &python.pythonpath {
            pip.arg("--upgrade").arg("--target").arg(dir);
        }
    }
    if let Err(e) = step(pip.arg(PACKAGE)) {
        eprintln!("agentdap: installing py-spy failed: {e}");
        return 1;
    }
    match find_py_spy(&RealHost) {
        Ok(path) => {
            let version = version_of(&path).map(|v| format!(" {v}")).unwrap_or_default();
            println!("py-spy{version} installed: {}", path.display()); // stdout-ok
            println!("agentdap finds it there; `stacks` reads a running Python program's threads with it."); // stdout-ok
            0
        }
        Err(why) => {
            eprintln!("agentdap: pip reported success but {why}; point ${PY_SPY_ENV} at it");
            1
        }
    }
}

/// `py-spy --version`'s version.
pub fn version_of(path: &std::path::Path) -> Option<String> {
    let ran = crate::cli::run_with_timeout(Process::new(path).arg("--version"), std::time::Duration::from_secs(15))?;
    parse_version(&ran.stdout)
}
