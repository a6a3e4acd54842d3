//! Attach by pid against a scripted adapter and a fake `/proc`: what a refused or unanswered
//! attach says of the process (gone, traced by another, Yama), and debugpy's injector failing
//! while its `attach` stays unanswered (`Quirks::attach_helper_failure`).

use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use serde_json::json;

use super::files::{ProcessStat, ReadError};
use super::scripted::{plan, Rig};
use super::{AdapterPlan, AttachStart, Files};
use crate::dap::adapters::{self, test_host::FakeHost, AdapterKind};
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// One process, 4242, as `/proc` shows it: its state (`None`: gone), its `TracerPid`, and Yama.
struct Proc {
    host: FakeHost,
    state: Option<u8>,
    tracer: i64,
    scope: Option<u8>,
}

fn process(state: Option<u8>, tracer: i64, scope: Option<u8>) -> Rc<Proc> {
    Rc::new(Proc { host: FakeHost::default(), state, tracer, scope })
}

impl Files for Proc {
    fn adapter_host(&self) -> &dyn adapters::Host {
        &self.host
    }
    fn exists(&self, _: &Path) -> bool {
        false
    }
    fn is_dir(&self, _: &Path) -> bool {
        false
    }
    fn is_file(&self, _: &Path) -> io::Result<bool> {
        Err(io::Error::from(io::ErrorKind::NotFound))
    }
    fn count_lines(&self, _: &Path, _: u64) -> Option<u64> {
        None
    }
    fn canonicalize(&self, p: &Path) -> Option<PathBuf> {
        Some(p.to_owned())
    }
    fn read_bounded(&self, path: &Path, _: u64) -> Result<Vec<u8>, ReadError> {
        match (path == Path::new("/proc/4242/status"), self.state) {
            (true, Some(_)) => {
                Ok(format!("Name:\tpython3\nState:\tS (sleeping)\nTracerPid:\t{}\n", self.tracer).into())
            }
            _ => Err(ReadError::Io(io::Error::from(io::ErrorKind::NotFound))),
        }
    }
    fn process_exists(&self, pid: i64) -> bool {
        pid == 4242 && self.state.is_some()
    }
    fn process_stat(&self, pid: i64) -> Option<ProcessStat> {
        self.state.filter(|_| pid == 4242).map(|state| ProcessStat { state, ppid: 1 })
    }
    fn process_cmdline(&self, _: i64, _: usize) -> Option<Vec<u8>> {
        None
    }
    fn process_exe(&self, _: i64) -> Option<PathBuf> {
        None
    }
    fn ptrace_scope(&self) -> Option<u8> {
        self.scope
    }
    fn has_cap_sys_ptrace(&self) -> bool {
        false
    }
    fn make_scratch_dir(&self) -> io::Result<PathBuf> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

fn attach_plan(kind: AdapterKind) -> AdapterPlan {
    let key = kind.quirks().attach_pid_key;
    AdapterPlan { request: "attach", ..plan(kind, json!({ key: 4242 }), None) }
}

fn start() -> AttachStart {
    AttachStart { target: "pid 4242".into(), pid: Some(4242), ..AttachStart::default() }
}

/// A tool called after a refused attach says to `attach` again, not to `launch` (a fresh
/// user's finding).
#[test]
fn after_a_refused_attach_a_tool_says_to_attach_again() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on("attach", Reply::error("Operation not permitted"));
    let mut rig = Rig::with_files(a, process(Some(b'S'), 0, Some(0)));
    let call = rig.attach(attach_plan(AdapterKind::Lldb), start());
    assert!(rig.answered(call).is_error);
    let call = rig.call(|s, key, call, now| s.threads(key, call, now));
    let out = rig.answered(call);
    assert!(out.text.ends_with("; `attach` again once that is fixed."), "{}", out.text);
}

#[test]
fn a_refused_attach_by_pid_says_what_the_kernel_shows_of_the_process() {
    // lldb-dap 22.1.8 names the process `pid` (`Quirks::attach_pid_key`): a refused attach with
    // that key is an attach by pid, and the result says what `/proc` shows of the process.
    let refused = |files: Rc<Proc>| {
        let mut a = ScriptedAdapter::new();
        a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
        a.on("attach", Reply::error("Operation not permitted"));
        let mut rig = Rig::with_files(a, files);
        let call = rig.attach(attach_plan(AdapterKind::Lldb), start());
        rig.answered(call).text
    };
    let head = "adapter_error: `attach` failed: Operation not permitted";
    assert_eq!(
        refused(process(Some(b'S'), 0, Some(2))),
        format!(
            "{head} (the kernel does not let agentdap's debugger ptrace a process it did not start \
             (/proc/sys/kernel/yama/ptrace_scope is 2); {})",
            super::plan::PTRACE_HINT
        )
    );
    assert_eq!(
        refused(process(Some(b'S'), 0, Some(0))),
        format!("{head} (ptrace is permitted here (Yama and CAP_SYS_PTRACE allow it); process 4242 still runs)")
    );
    assert_eq!(
        refused(process(Some(b'S'), 777, None)),
        format!("{head} (process 4242 is traced by process 777 (only one tracer at a time))")
    );
    for gone in [None, Some(b'Z')] {
        assert_eq!(
            refused(process(gone, 0, None)),
            format!("{head} (process 4242 is no longer running: it ended during the attach)")
        );
    }
}

/// debugpy 1.8.22's adapter once its injector (gdb 13.1) failed: the marker, then the injector's
/// output, both `stderr`, and no `attach` answer (`dap::adapters::debugpy::INJECTOR_FAILURE`).
fn failing_injector() -> ScriptedAdapter {
    let report = "--- Starting attach to pid: 4242 ---\n[Thread debugging using libthread_db enabled]\n\
                  Couldn't write extended state status: Bad address.\nNo symbol \"DoAttach\" in current context.\n\
                  [Inferior 1 (process 4242) detached]\nE+00001.217: Code injection into PID=4242 failed:\n\
                  \x20            Traceback (most recent call last):\n\
                  \x20              File \"cli.py\", line 528, in attach_to_pid\n\
                  \x20            subprocess.CalledProcessError: Command 'gdb' returned non-zero exit status 1.\n";
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on(
        "attach",
        Reply::never()
            .before("output", json!({"category": "stdout", "output": "Attaching to PID: 4242 (elapsed: 1.00s).\n"}))
            .before("output", json!({"category": "stderr", "output": "Attach to PID failed.\n\n"}))
            .before("output", json!({"category": "stderr", "output": report})),
    );
    a
}

#[test]
fn debugpys_failed_injection_ends_the_attach_at_once_in_gdbs_and_debugpys_words() {
    let words = "debugpy could not attach to process 4242: its injector (gdb, run by `python -m debugpy --pid`) \
                 failed. The injector's output: \"Couldn't write extended state status: Bad address.\"; \
                 \"No symbol \\\"DoAttach\\\" in current context.\". debugpy said: \
                 \"Code injection into PID=4242 failed:\"; \
                 \"subprocess.CalledProcessError: Command 'gdb' returned non-zero exit status 1.\"";
    for (files, fate) in [
        (
            process(None, 0, Some(0)),
            "Process 4242 is gone: the failed attach may have ended it (the injector (gdb, or lldb with \
             `linuxAttachPreferLldb`) stops the process and calls functions in it)",
        ),
        (
            process(Some(b'S'), 0, Some(0)),
            "Process 4242 still runs; the failed attach may have harmed it (the injector (gdb, or lldb with \
             `linuxAttachPreferLldb`) stops the process and calls functions in it)",
        ),
    ] {
        let mut rig = Rig::with_files(failing_injector(), files);
        let call = rig.attach(attach_plan(AdapterKind::Debugpy), start());
        // Answered with no time passing: not the request timeout's 30 s later.
        let out = rig.answered(call);
        assert_eq!(
            out.text,
            format!("adapter_error: {words}. {fate}. The whole report: `output {{session: \"s1\"}}`.")
        );
        assert!(rig.actions.iter().any(|a| matches!(a, super::Action::StopAdapter { .. })));
        // The report and the progress line are the adapter's output, not the program's.
        let read: Vec<(&str, String)> = rig.s.get(rig.key).map_or_else(Vec::new, |s| {
            s.output.read(0, None, 100).entries.iter().map(|e| (e.category.as_str(), e.text.to_string())).collect()
        });
        assert!(read.iter().any(|(c, t)| *c == "adapter" && t.starts_with("Attach to PID failed.")), "{read:?}");
        assert!(read.iter().any(|(c, t)| *c == "adapter" && t.contains("Bad address.")), "{read:?}");
        assert!(read.iter().any(|(c, t)| *c == "adapter" && t.starts_with("Attaching to PID: 4242")), "{read:?}");
        assert!(!read.iter().any(|(c, _)| *c == "stderr" || *c == "stdout"), "{read:?}");
    }
}

#[test]
fn an_injector_that_said_it_failed_and_sent_nothing_more_is_named_at_the_timeout() {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    a.on(
        "attach",
        Reply::never().before("output", json!({"category": "stderr", "output": "Attach to PID failed.\n\n"})),
    );
    let mut rig = Rig::with_files(a, process(Some(b'S'), 0, Some(0)));
    let call = rig.attach(attach_plan(AdapterKind::Debugpy), AttachStart { wait_ms: Some(40_000), ..start() });
    assert!(rig.result(call).is_none(), "the marker alone ends nothing: its report may follow");
    rig.advance(Duration::from_secs(31));
    let out = rig.answered(call);
    assert!(out.text.starts_with("timeout: `attach` got no response"), "{}", out.text);
    assert!(
        out.text.contains(
            "(debugpy said \"Attach to PID failed.\"; its injector (gdb, run by `python -m debugpy --pid`); \
             ptrace is permitted here (Yama and CAP_SYS_PTRACE allow it); process 4242 still runs)"
        ),
        "{}",
        out.text
    );
}

#[test]
fn an_attach_whose_process_ended_fails_soon_not_at_the_timeout() {
    // debugpy 1.8.22 with `linuxAttachPreferLldb`: the lldb injector kills the process and exits
    // 0, so the adapter says nothing and waits 60 s. Its report, when it has one, comes up to a
    // second after the process died: debugpy gets 5 s for it, lldb-dap none.
    for (kind, waited, within) in [(AdapterKind::Debugpy, Some(4_500), 7_000), (AdapterKind::Lldb, None, 1_000)] {
        let mut a = ScriptedAdapter::new();
        a.on("attach", Reply::never());
        let mut rig = Rig::with_files(a, process(None, 0, Some(0)));
        let call = rig.attach(attach_plan(kind), AttachStart { wait_ms: Some(40_000), ..start() });
        if let Some(waited) = waited {
            rig.advance(Duration::from_millis(waited));
            assert!(rig.result(call).is_none(), "{kind:?} answered before {waited} ms");
        }
        rig.advance(Duration::from_millis(within - waited.unwrap_or(0)));
        assert!(rig.result(call).is_some(), "{kind:?} not answered within {within} ms");
    }
    for (kind, words) in [
        (
            AdapterKind::Debugpy,
            "process 4242 ended while debugpy was attaching to it; the attach may have ended it (the injector \
             (gdb, or lldb with `linuxAttachPreferLldb`) stops the process and calls functions in it)",
        ),
        (AdapterKind::Lldb, "process 4242 ended while lldb was attaching to it"),
    ] {
        let mut a = ScriptedAdapter::new();
        a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
        a.on("attach", Reply::never());
        let mut rig = Rig::with_files(a, process(None, 0, Some(0)));
        let call = rig.attach(attach_plan(kind), AttachStart { wait_ms: Some(40_000), ..start() });
        rig.advance(Duration::from_secs(7));
        assert_eq!(rig.answered(call).text, format!("adapter_error: {words}"));
        assert!(rig.actions.iter().any(|a| matches!(a, super::Action::StopAdapter { .. })));
    }
    // debugpy's report coming after the process was seen gone still says what happened.
    let mut a = ScriptedAdapter::new();
    a.on("attach", Reply::never());
    let mut rig = Rig::with_files(a, process(None, 0, Some(0)));
    let call = rig.attach(attach_plan(AdapterKind::Debugpy), AttachStart { wait_ms: Some(40_000), ..start() });
    rig.advance(Duration::from_millis(2_500));
    rig.event("output", json!({"category": "stderr", "output": "Attach to PID failed.\n\n"}));
    rig.advance(Duration::from_secs(10));
    assert!(rig.result(call).is_none(), "the marker holds the check off: the report is due");
    rig.event(
        "output",
        json!({"category": "stderr", "output": "Couldn't write extended state status: Bad address.\n"}),
    );
    let out = rig.answered(call);
    assert!(out.text.contains("The injector's output: \"Couldn't write extended state status"), "{}", out.text);
    assert!(out.text.contains("Process 4242 is gone"), "{}", out.text);
    // A process that still runs is waited for: the request's timeout decides.
    let mut a = ScriptedAdapter::new();
    a.on("attach", Reply::never());
    let mut rig = Rig::with_files(a, process(Some(b'S'), 0, Some(0)));
    let call = rig.attach(attach_plan(AdapterKind::Lldb), AttachStart { wait_ms: Some(40_000), ..start() });
    rig.advance(Duration::from_secs(20));
    assert!(rig.result(call).is_none());
}

#[test]
fn after_initialized_an_attached_programs_stderr_is_its_own() {
    // debugpy 1.8.22 sends `initialized` once the injected debug server connected: the helper is
    // done, and a `stderr` event while the start-up still runs (even one that reads like the
    // marker) is the program's.
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
    let stderr = json!({"category": "stderr", "output": "Attach to PID failed.\n"});
    a.on(
        "attach",
        Reply::ok(serde_json::Value::Null)
            .before("initialized", serde_json::Value::Null)
            .before("output", stderr.clone())
            .before("output", stderr)
            .after_configuration_done(),
    );
    let mut rig = Rig::with_files(a, process(Some(b'S'), 0, Some(0)));
    let call = rig.attach(attach_plan(AdapterKind::Debugpy), start());
    assert!(!rig.answered(call).is_error);
    let categories: Vec<&str> = rig
        .s
        .get(rig.key)
        .map_or_else(Vec::new, |s| s.output.read(0, None, 100).entries.iter().map(|e| e.category.as_str()).collect());
    assert_eq!(categories, ["stderr", "stderr"]);
}
