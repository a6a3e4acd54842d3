//! Sans-IO tests of post-mortem sessions (`session::postmortem`): the crash in the adapter's
//! own words with the signal they name (or that they name none), every call that would run the
//! program refused before anything is sent, and a `disconnect` that ends the adapter and
//! touches no process. The scripted adapters answer as lldb-dap 22.1.8 and Delve 1.20.2 did for
//! the cores of `tests/native/core_dump.rs`. Must not: read `Session`'s private fields.

use serde_json::{json, Value};

use super::scripted::{plan, Rig};
use super::snapshot::PostMortem;
use super::tools::control::StepKind;
use super::tools::inspect::Target;
use super::tools::memory::{MemoryArgs, MemoryOp};
use super::AttachStart;
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

const CORE: &str = "/src/core";
const PROGRAM: &str = "/src/crash";

/// An adapter that opens a core with `request` and stops once with `stop` (before the
/// `configurationDone` response, as lldb-dap 22.1.8 does), its frame at crash.c:5 with `n = 3`.
fn adapter(request: &str, stop: Value) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on(
        "initialize",
        Reply::ok(json!({"supportsConfigurationDoneRequest": true, "supportsSetVariable": true,
        "supportsGotoTargetsRequest": true, "supportsRestartFrame": true, "supportsWriteMemoryRequest": true,
        "supportsStepBack": true, "supportsRestartRequest": true, "supportTerminateDebuggee": true})),
    );
    a.on(request, Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on(
        "configurationDone",
        Reply::ok(Value::Null)
            .before(
                "process",
                json!({"name": PROGRAM, "systemProcessId": 24019,
        "startMethod": "attach"}),
            )
            .before("stopped", stop),
    );
    a.on("threads", Reply::ok(json!({"threads": [{"id": 24019, "name": "crash"}]})));
    let frame = json!({"id": 524288, "name": "deref", "line": 5, "column": 12,
        "source": {"name": "crash.c", "path": "/src/crash.c"}});
    a.on("stackTrace", Reply::ok(json!({"stackFrames": [frame], "totalFrames": 1})));
    a.on(
        "scopes",
        Reply::ok(json!({"scopes": [{"name": "Locals", "presentationHint": "locals", "variablesReference": 1}]})),
    );
    a.on(
        "variables",
        Reply::ok(json!({"variables": [{"name": "n", "value": "3", "type": "int", "variablesReference": 0}]})),
    );
    a.on("disconnect", Reply::ok(Value::Null));
    a
}

/// A post-mortem session of `kind` opened with `request`, answered at its stop `stop`.
fn opened(kind: AdapterKind, request: &'static str, stop: Value) -> (Rig, crate::reply::ToolResult) {
    let mut rig = Rig::new(adapter(request, stop));
    let arguments = json!({"request": request, "program": PROGRAM, "coreFile": CORE});
    let plan = super::AdapterPlan { request, ..plan(kind, arguments, None) };
    let core = Some(PostMortem { core: CORE.into(), program: PROGRAM.into(), below: None });
    let start = AttachStart { target: PROGRAM.into(), core, ..AttachStart::default() };
    let call = rig.attach(plan, start);
    let out = rig.answered(call);
    (rig, out)
}

fn lldb_core() -> (Rig, crate::reply::ToolResult) {
    let stop = json!({"reason": "entry", "threadId": 24019, "allThreadsStopped": true,
        "description": "SIGSEGV: address not mapped to object (fault address=0x0)"});
    opened(AdapterKind::Lldb, "attach", stop)
}

#[test]
fn a_core_answers_at_its_stop_with_the_signal_its_description_names_and_the_reason_as_given() {
    let (rig, out) = lldb_core();
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("s1 stopped (entry) at crash.c:5 in deref()"), "{}", out.text);
    assert!(out.text.contains("\npost-mortem: core /src/core of /src/crash (it cannot run)\n"), "{}", out.text);
    assert!(
        out.text.contains(
            "the crash, in lldb's stop words: description \"SIGSEGV: address not mapped to object (fault address=0x0)\"\n\
             signal: SIGSEGV (11), as the stop's description names it (lldb reports a core's stop as reason `entry`"
        ),
        "{}",
        out.text
    );
    assert!(out.text.contains("n = 3 (int)"), "{}", out.text);
    assert_eq!(out.structured["stop"]["reason"], "entry");
    assert_eq!(
        out.structured["post_mortem"],
        json!({"core": CORE, "program": PROGRAM, "signal": "SIGSEGV", "signal_number": 11, "signal_from": "stop description"})
    );
    // The `process` event's pid is the dead process's: never kept as a live one.
    let listed = rig.s.list_json();
    assert_eq!(listed["sessions"][0].get("pid"), None, "{listed}");
    assert_eq!(listed["sessions"][0]["post_mortem"]["core"], CORE);
    assert!(!rig.actions.iter().any(|a| matches!(a, super::Action::RecordDebuggee { .. })));
}

#[test]
fn a_core_whose_stop_names_no_signal_says_so() {
    let stop = json!({"reason": "exception", "threadId": 1, "description": "runtime error",
        "text": "can not continue execution of core process", "allThreadsStopped": true});
    let (_, out) = opened(AdapterKind::Delve, "launch", stop);
    assert!(
        out.text.contains(
            "the crash, in delve's stop words: description \"runtime error\", text \"can not continue execution of core process\"\n\
             signal: not named by delve's stop words"
        ),
        "{}",
        out.text
    );
    assert_eq!(out.structured["post_mortem"], json!({"core": CORE, "program": PROGRAM}));
}

#[test]
fn every_call_that_would_run_a_core_is_refused_before_anything_is_sent() {
    let (mut rig, out) = lldb_core();
    assert!(!out.is_error, "{}", out.text);
    let sent = rig.adapter.received().len();
    let write = MemoryArgs {
        action: MemoryOp::Write(vec![1]),
        address: Some("0x10".into()),
        offset: 0,
        count: None,
        target: Target::default(),
    };
    let calls: Vec<(&str, super::CallKey)> = vec![
        ("continue", rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now))),
        ("continue {reverse}", rig.call(|s, key, call, now| s.resume(key, None, true, None, call, now))),
        ("step", rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, None, call, now))),
        ("step", rig.call(|s, key, call, now| s.step(key, StepKind::Back, None, None, None, call, now))),
        ("pause", rig.call(|s, key, call, now| s.pause(key, None, None, call, now))),
        ("run_to", rig.call(|s, key, call, now| s.run_to(key, "/src/crash.c".into(), 12, None, call, now))),
        ("goto", rig.call(|s, key, call, now| s.goto(key, "/src/crash.c".into(), 4, None, None, call, now))),
        ("restart", rig.call(|s, key, call, now| s.restart(key, None, call, now))),
        ("restart {frame}", rig.call(|s, key, call, now| s.restart_frame(key, 1, None, call, now))),
        ("set_variable", rig.call(|s, key, call, now| s.set_variable(key, 1, "n".into(), "4".into(), call, now))),
        (
            "set_expression",
            rig.call(|s, key, call, now| s.set_expression(key, "n".into(), "4".into(), Target::default(), call, now)),
        ),
        ("memory {write}", rig.call(move |s, key, call, now| s.memory(key, write, call, now))),
    ];
    for (name, call) in calls {
        let out = rig.answered(call);
        assert!(out.is_error, "{name}: {}", out.text);
        let expected = format!("unsupported: a core file cannot run; `{name}` needs a live program (s1 reads the core");
        assert!(out.text.starts_with(&expected), "{name}: {}", out.text);
    }
    assert_eq!(rig.adapter.received().len(), sent, "sent: {:?}", rig.adapter.commands());
}

#[test]
fn a_core_is_closed_by_disconnect_graceful_or_not_and_no_process_is_touched() {
    for graceful in [false, true] {
        let (mut rig, _) = lldb_core();
        let call = rig.call(|s, key, call, now| match graceful {
            true => s.terminate(key, call, now),
            false => s.disconnect(key, Some(false), call, now),
        });
        let out = rig.answered(call);
        assert!(!out.is_error, "{}", out.text);
        assert!(out.text.starts_with("s1 terminated (the core file was closed; no process ran)"), "{}", out.text);
        // lldb-dap 22.1.8 refuses to detach from a core; ending it closes the file.
        let disconnect = rig.adapter.last("disconnect").map(|r| r["arguments"]["terminateDebuggee"].clone());
        assert_eq!(disconnect, Some(json!(true)));
        assert!(!rig.adapter.commands().iter().any(|c| c == "terminate"), "{:?}", rig.adapter.commands());
        let signalled = rig
            .actions
            .iter()
            .any(|a| matches!(a, super::Action::RecordDebuggee { .. } | super::Action::SignalDebuggee { .. }));
        assert!(!signalled, "{:?}", rig.actions);
    }
}

/// A host with lldb-dap and dlv on `PATH`, an ELF core at `/c/core` (little-endian, `e_type`
/// 4), an ELF program at `/c/crash` (`e_type` 3) and a zstd-compressed core at `/c/core.zst`.
struct Host(crate::dap::adapters::test_host::FakeHost);

const CORE_HEADER: &[u8] = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x04\0\x3e\0";
const PROGRAM_HEADER: &[u8] = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0\x3e\0";

fn host() -> Host {
    use std::collections::{HashMap, HashSet};
    Host(crate::dap::adapters::test_host::FakeHost {
        vars: HashMap::from([("PATH", "/usr/bin"), ("HOME", "/h")]),
        exes: HashSet::from(["/usr/bin/lldb-dap-22", "/usr/bin/dlv"]),
        files: HashMap::from([
            ("/c/core", CORE_HEADER),
            ("/c/crash", PROGRAM_HEADER),
            ("/c/core.zst", &[0x28, 0xb5, 0x2f, 0xfd, 0, 0][..]),
            ("/c/mini.dmp", &b"MDMP\x93\xa7\0\0"[..]),
        ]),
        ..Default::default()
    })
}

impl super::Files for Host {
    fn adapter_host(&self) -> &dyn crate::dap::adapters::Host {
        &self.0
    }
    fn exists(&self, p: &std::path::Path) -> bool {
        crate::dap::adapters::Host::is_file(&self.0, p)
    }
    fn is_dir(&self, _: &std::path::Path) -> bool {
        false
    }
    fn is_file(&self, p: &std::path::Path) -> std::io::Result<bool> {
        match crate::dap::adapters::Host::is_file(&self.0, p) {
            true => Ok(true),
            false => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        }
    }
    fn count_lines(&self, _: &std::path::Path, _: u64) -> Option<u64> {
        None
    }
    fn canonicalize(&self, p: &std::path::Path) -> Option<std::path::PathBuf> {
        Some(p.to_owned())
    }
    fn read_bounded(&self, _: &std::path::Path, _: u64) -> Result<Vec<u8>, super::files::ReadError> {
        Err(super::files::ReadError::NotRegular)
    }
    fn process_exists(&self, _: i64) -> bool {
        false
    }
    fn process_stat(&self, _: i64) -> Option<super::files::ProcessStat> {
        None
    }
    fn process_cmdline(&self, _: i64, _: usize) -> Option<Vec<u8>> {
        None
    }
    fn process_exe(&self, _: i64) -> Option<std::path::PathBuf> {
        None
    }
    fn ptrace_scope(&self) -> Option<u8> {
        None
    }
    fn has_cap_sys_ptrace(&self) -> bool {
        false
    }
    fn make_scratch_dir(&self) -> std::io::Result<std::path::PathBuf> {
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

fn planned(args: Value) -> Result<(super::AdapterPlan, AttachStart), String> {
    let args: super::plan::AttachArgs = serde_json::from_value(args).map_err(|e| e.to_string())?;
    super::postmortem::plan(&args, &crate::config::Config::default(), &host()).map_err(|e| e.text)
}

#[test]
fn a_core_is_opened_with_the_request_and_keys_of_the_adapter_the_program_picks() {
    let (plan, start) = match planned(json!({"core": "/c/core", "program": "/c/crash"})) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!((plan.name.as_str(), plan.request), ("lldb", "attach"));
    assert_eq!(
        plan.launch_arguments,
        json!({"type": "lldb-dap", "request": "attach", "program": "/c/crash", "coreFile": "/c/core"})
    );
    assert_eq!((start.target.as_str(), start.core.map(|c| c.core)), ("/c/crash", Some("/c/core".to_owned())));
    // A minidump (what LLDB's `process save-core` writes on Linux) opens the same way in lldb-dap.
    let minidump = planned(json!({"core": "/c/mini.dmp", "program": "/c/crash"})).map(|(p, _)| p.launch_arguments);
    assert_eq!(minidump.ok().map(|a| a["coreFile"].clone()), Some(json!("/c/mini.dmp")));
    let args = json!({"core": "/c/core", "program": "/c/crash", "adapter": "delve", "adapter_args": {"dlvFlags": []}});
    let (plan, _) = match planned(args) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!((plan.name.as_str(), plan.request), ("delve", "launch"));
    assert_eq!(
        plan.launch_arguments,
        json!({"type": "go", "request": "launch", "mode": "core", "program": "/c/crash", "coreFilePath": "/c/core", "dlvFlags": []})
    );
}

#[test]
fn wrong_files_and_arguments_are_refused_naming_what_to_pass() {
    let refused = |args: Value| match planned(args) {
        Ok(_) => panic!("planned"),
        Err(e) => e,
    };
    let cases = [
        (json!({"core": "/c/nope", "program": "/c/crash"}), "invalid_argument: core /c/nope does not exist;"),
        (json!({"core": "/c/core", "program": "/c/nope"}), "invalid_argument: program /c/nope does not exist;"),
        (
            json!({"core": "/c/crash", "program": "/c/crash"}),
            "invalid_argument: core /c/crash is an ELF program, not a core file",
        ),
        (json!({"core": "/c/core", "program": "/c/core"}), "invalid_argument: program /c/core is a core file"),
        (
            json!({"core": "/c/core.zst", "program": "/c/crash"}),
            "invalid_argument: core /c/core.zst is compressed with zstd",
        ),
        (
            json!({"core": "/c/core", "program": "/c/crash", "pid": 4}),
            "invalid_argument: a core file is read, not attached to",
        ),
        (
            json!({"core": "/c/core", "program": "/c/crash", "breakpoints": [{"path": "/c/x.c", "line": 1}]}),
            "invalid_argument: a core file does not run, so breakpoints never hit",
        ),
        (
            json!({"core": "/c/core", "program": "/c/crash", "adapter": "gdb"}),
            "unsupported: gdb cannot open a core file",
        ),
        (
            json!({"core": "/c/mini.dmp", "program": "/c/crash", "adapter": "delve"}),
            "unsupported: core /c/mini.dmp is a minidump, which delve does not read",
        ),
        (json!({"core": "/c/core", "program": "/c/mini.dmp"}), "invalid_argument: program /c/mini.dmp is a core file"),
    ];
    for (args, expected) in cases {
        let text = refused(args.clone());
        assert!(text.starts_with(expected), "{args}: {text}");
    }
}
