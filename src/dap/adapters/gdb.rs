//! The gdb recipe (stdio, `gdb --interpreter=dap`, gdb ≥ 14): finding gdb, its launch defaults, what its early exit means, and gdb's quirks as data; reads nothing but `stat`s, never runs gdb (doctor runs `gdb --version`).
//!
//! Not observed on a real gdb with DAP: this machine's gdb is Debian 12's 13.1, whose
//! `gdb --interpreter=dap` exits 1 at once saying ``Interpreter `dap' unrecognized`` on stderr
//! (DAP came in gdb 14). What the quirks say comes from gdb's manual ("Debugger Adapter
//! Protocol", gdb 14–16), gdb's sources and the reports cited next to each field; the scripted
//! fakes (`src/session/gdb_quirk_tests.rs`, `tests/fixtures/fake_gdb.py`) reproduce that order
//! through agentdap's real session code, and `tests/native/gdb.rs` runs the real gdb wherever
//! `gdb --version` says 14 or newer.
//!
//! - Start-up: `initialize` is answered and `initialized` follows it. Since gdb 15 ("Fix DAP
//!   launch and configurationDone requests", gdb-patches 2024-01-24, after
//!   microsoft/debug-adapter-protocol#452) `launch` and `attach` do nothing and answer nothing
//!   until `configurationDone`; a launch error arrives then (go-delve/mcp-dap-server#22).
//! - Frame ids are indices into the frames gdb handed out since the last resume: the top frame
//!   of the first stop is frame 0 (go-delve/mcp-dap-server#12), and ids repeat at every stop.
//! - `stopAtBeginningOfMainSubprogram` stops at `main` the way `start` does; `stopOnEntry`
//!   (gdb 15) stops at the program's first instruction, like `starti`.
//! - `evaluate` in the `repl` context runs the text as a gdb command; `watch` evaluates an
//!   expression; `hover` evaluates with memory and register writes and inferior calls off.
//! - `attach` takes `pid` (or `target`, for `target remote`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{
    find_on_path, AdapterError, ExpressionOnly, FailureShape, Host, Quirks, Recipe, ResolveInput, RuntimeQuirks,
    Transport,
};
use crate::dap::command::AdapterCommand;

/// agentdap's name for the adapter.
pub const NAME: &str = "gdb";

/// The `type` editors give gdb's built-in adapter (nvim-dap's documented configuration; gdb
/// ships no VS Code extension of its own).
pub const VSCODE_TYPE: &str = "gdb";

/// The first gdb release with a DAP interpreter (gdb 14.1, NEWS "Debugger Adapter Protocol").
pub const DAP_SINCE: u32 = 14;

/// The install command shown when no gdb is found, or the one found has no DAP: Debian 13 and
/// Ubuntu 24.04 ship gdb 16 and 15.
pub const INSTALL: &str = "apt-get install gdb";

/// Overrides discovery: the gdb executable to run.
pub const ENV_OVERRIDE: &str = "AGENTDAP_GDB";

/// What gdb below 14 prints on stderr for `--interpreter=dap` (checked on 13.1).
const NO_DAP: &str = "Interpreter `dap' unrecognized";

/// gdb's quirks in the shape every recipe shares (see the module comment).
pub fn quirks() -> Quirks {
    Quirks {
        // gdb 14–16 send `initialized` right after the initialize response.
        initialized_after_launch: false,
        // gdb ≥ 15: launch/attach are answered only after configurationDone (gdb 14 answered
        // at once; the choreography accepts both). go-delve/mcp-dap-server#22.
        launch_response_after_configuration_done: true,
        // gdb offers Ada and C++ catchpoints (`exception`, `assert`, `throw`, `rethrow`, `catch`,
        // by version): trust the capabilities.
        exception_filters: &[],
        // Not verified: agentdap pages `variables` itself.
        variable_paging: false,
        // gdb puts a breakpoint on a line without code at the next line with code.
        moves_unbindable_breakpoints: true,
        // gdb manual, "Debugger Adapter Protocol": `stopOnEntry` stops at the first
        // instruction (the loader's), `stopAtBeginningOfMainSubprogram` at `main` like `start`.
        stop_on_entry_key: "stopAtBeginningOfMainSubprogram",
        // gdb manual: `attach {pid}` (or `target`).
        attach_pid_key: "pid",
        ..Quirks::STANDARD
    }
}

/// gdb's quirks about entry, exit, output and processes.
pub fn runtime_quirks() -> RuntimeQuirks {
    RuntimeQuirks {
        // gdb's own entry stop is already at `main` (`stopAtBeginningOfMainSubprogram`), so no
        // temporary function breakpoint of agentdap's.
        entry_function: None,
        // `start`'s temporary breakpoint; which reason gdb gives it is not verified here, and
        // reasons pass through unchanged either way.
        adapter_entry_reasons: &["breakpoint", "entry"],
        single_client: true,
        // Frame ids restart at 0 after every resume (go-delve/mcp-dap-server#12).
        reuses_ids_across_stops: true,
        // `repl` runs gdb commands (`print x` works, `x + 1` is not a command).
        evaluate_context: "watch",
        mirror_evaluate: MIRROR_EVALUATE,
        failure_shapes: &[FailureShape::RustPanic],
        ..RuntimeQuirks::STANDARD
    }
}

/// How a mirror client's `evaluate` stays an expression (gdb's `dap/evaluate.py`, gdb 14–16):
/// `repl` runs gdb commands, `watch` evaluates an expression (which may assign or call a
/// function of the program), `hover` evaluates one with `may-write-memory`,
/// `may-write-registers` and `may-call-functions` off. So every mirror `evaluate` goes as
/// `hover`. The convenience function `$_shell` (gdb 14) runs a shell command from inside any
/// expression: refused wherever it appears.
pub const MIRROR_EVALUATE: ExpressionOnly =
    ExpressionOnly { contexts: &["hover"], command_words: &[], command_prefixes: &[], refused_anywhere: &["$_shell"] };

/// DAP `launch` arguments agentdap sends unless the agent's `adapter_args` override them.
/// `program`, `args`, `cwd`, `env` and `stopAtBeginningOfMainSubprogram` are set by the session.
pub fn launch_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "launch"})
}

/// DAP `attach` arguments agentdap sends unless the agent's `adapter_args` override them.
pub fn attach_defaults() -> Value {
    json!({"type": VSCODE_TYPE, "request": "attach"})
}

/// Finds gdb: `$AGENTDAP_GDB`, else `gdb` on `$PATH`. Only `stat`s. Errors:
/// [`AdapterError::NotFound`] with [`INSTALL`].
pub fn find_adapter(host: &dyn Host) -> Result<PathBuf, AdapterError> {
    if let Some(explicit) = host.var(ENV_OVERRIDE).filter(|v| !v.is_empty()) {
        let name = explicit.to_string_lossy().into_owned();
        return find_on_path(&name, host).ok_or_else(|| AdapterError::NotFound {
            adapter: NAME,
            detail: format!("{ENV_OVERRIDE} = {name:?} is not an executable"),
            install: INSTALL.to_string(),
        });
    }
    find_on_path("gdb", host).ok_or_else(|| AdapterError::NotFound {
        adapter: NAME,
        detail: format!("no gdb found on PATH (its DAP interpreter needs gdb {DAP_SINCE} or newer)"),
        install: INSTALL.to_string(),
    })
}

/// The full recipe: `gdb -q --interpreter=dap` over stdio. Errors: [`AdapterError::NotFound`].
/// A gdb below 14 is found all the same: it says so when it exits ([`no_dap`]), and `doctor`
/// reads its version.
pub fn recipe(_program: Option<&Path>, _input: ResolveInput<'_>, host: &dyn Host) -> Result<Recipe, AdapterError> {
    let gdb = find_adapter(host)?;
    let command = AdapterCommand {
        program: gdb.into_os_string(),
        args: vec![OsString::from("-q"), OsString::from("--interpreter=dap")],
        cwd: None,
        env: Vec::new(),
    };
    Ok(Recipe {
        name: NAME,
        vscode_type: VSCODE_TYPE,
        command,
        transport: Transport::Stdio,
        launch_defaults: launch_defaults(),
        attach_defaults: attach_defaults(),
        quirks: quirks(),
        install_command: INSTALL.to_string(),
        notes: Vec::new(),
    })
}

/// What a gdb that exited at start-up with `stderr_tail` lacked, when it is the DAP interpreter
/// (gdb below 14): `adapter_not_found` naming the binary. The version is not known here (finding
/// it means running gdb, which the session layer never does); `doctor` reads it.
pub fn no_dap(gdb: &Path, stderr_tail: &str) -> Option<AdapterError> {
    stderr_tail.contains(NO_DAP).then(|| AdapterError::NotFound {
        adapter: NAME,
        detail: format!(
            "gdb at {} has no DAP interpreter (it came in gdb {DAP_SINCE}; `agentdap doctor` shows which version this is); install gdb {DAP_SINCE} or newer, or use lldb-dap (adapter: lldb)",
            gdb.display()
        ),
        install: INSTALL.to_string(),
    })
}

/// The version in `gdb --version`'s first line (`GNU gdb (Debian 13.1-3) 13.1`,
/// `GNU gdb (GDB) 15.0.50.20240403-git`): the last word, as (major, minor).
pub fn parse_version(text: &str) -> Option<(u32, u32)> {
    let word = text.lines().next()?.split_whitespace().last()?;
    let mut parts = word.split('.').map(|p| p.chars().take_while(char::is_ascii_digit).collect::<String>());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::test_host::FakeHost;
    use std::collections::HashMap;

    #[test]
    fn gdb_is_found_on_path_or_by_its_variable_and_runs_the_dap_interpreter() {
        let mut h = FakeHost {
            vars: HashMap::from([("PATH", "/usr/bin")]),
            exes: ["/usr/bin/gdb", "/opt/gdb-15/bin/gdb"].into_iter().collect(),
            ..FakeHost::default()
        };
        let r = recipe(None, ResolveInput::default(), &h).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.command.program, "/usr/bin/gdb");
        assert_eq!(r.command.args, vec![OsString::from("-q"), OsString::from("--interpreter=dap")]);
        assert_eq!(r.transport, Transport::Stdio);
        assert_eq!(r.quirks.stop_on_entry_key, "stopAtBeginningOfMainSubprogram");
        h.vars.insert(ENV_OVERRIDE, "/opt/gdb-15/bin/gdb");
        assert_eq!(find_adapter(&h), Ok(PathBuf::from("/opt/gdb-15/bin/gdb")));
        let missing = find_adapter(&FakeHost::default()).map_err(|e| e.to_string());
        assert_eq!(
            missing,
            Err("gdb: no gdb found on PATH (its DAP interpreter needs gdb 14 or newer); install it with: apt-get install gdb"
                .into())
        );
    }

    #[test]
    fn an_early_exit_without_the_dap_interpreter_says_it_came_in_gdb_14() {
        let why = no_dap(Path::new("/usr/bin/gdb"), "Interpreter `dap' unrecognized\n").map(|e| e.to_string());
        assert_eq!(
            why.as_deref(),
            Some(
                "gdb: gdb at /usr/bin/gdb has no DAP interpreter (it came in gdb 14; `agentdap doctor` shows which version \
                 this is); install gdb 14 or newer, or use lldb-dap (adapter: lldb); install it with: apt-get install gdb"
            )
        );
        assert_eq!(no_dap(Path::new("/usr/bin/gdb"), "Segmentation fault\n"), None);
    }

    #[test]
    fn versions_are_read_from_the_first_line() {
        assert_eq!(parse_version("GNU gdb (Debian 13.1-3) 13.1\nCopyright (C) 2023"), Some((13, 1)));
        assert_eq!(parse_version("GNU gdb (GDB) 15.0.50.20240403-git\n"), Some((15, 0)));
        assert_eq!(parse_version("GNU gdb (Ubuntu 15.0.50.20240403-0ubuntu1) 15.0.50.20240403-git"), Some((15, 0)));
        assert_eq!(parse_version("GNU gdb (GDB) 16.3"), Some((16, 3)));
        assert_eq!(parse_version(""), None);
        assert_eq!(parse_version("gdb: not found"), None);
    }
}
