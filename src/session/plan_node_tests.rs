//! `plan::launch` and `plan::attach` for the `node` adapter (js-debug) against a fake host: the inspector address for `connect` and `pid`, no ptrace, and `runInTerminal` whichever `console`.

use super::*;
use crate::dap::adapters::test_host::FakeHost;
use crate::session::files::{ProcessStat, ReadError};
use std::collections::{HashMap, HashSet};
use std::io;

/// A host with node and js-debug, the program `/w/app/main.js`, and process 77 running
/// `exe` with `cmdline`; Yama forbids ptrace (an attach to node needs none).
struct Node {
    host: FakeHost,
    exe: &'static str,
    cmdline: &'static [u8],
}

impl Files for Node {
    fn adapter_host(&self) -> &dyn adapters::Host {
        &self.host
    }
    fn exists(&self, p: &Path) -> bool {
        adapters::Host::is_file(&self.host, p) || adapters::Host::is_dir(&self.host, p)
    }
    fn is_dir(&self, p: &Path) -> bool {
        adapters::Host::is_dir(&self.host, p)
    }
    fn is_file(&self, p: &Path) -> io::Result<bool> {
        Ok(adapters::Host::is_file(&self.host, p))
    }
    fn count_lines(&self, _: &Path, _: u64) -> Option<u64> {
        None
    }
    fn canonicalize(&self, p: &Path) -> Option<PathBuf> {
        Some(p.to_owned())
    }
    fn read_bounded(&self, _: &Path, _: u64) -> Result<Vec<u8>, ReadError> {
        Err(ReadError::NotRegular)
    }
    fn process_exists(&self, pid: i64) -> bool {
        pid == 77
    }
    fn process_stat(&self, _: i64) -> Option<ProcessStat> {
        Some(ProcessStat { state: b'S', ppid: 1 })
    }
    fn process_cmdline(&self, _: i64, cap: usize) -> Option<Vec<u8>> {
        Some(self.cmdline[..cap.min(self.cmdline.len())].to_vec())
    }
    fn process_exe(&self, _: i64) -> Option<PathBuf> {
        Some(self.exe.into())
    }
    fn ptrace_scope(&self) -> Option<u8> {
        Some(3)
    }
    fn has_cap_sys_ptrace(&self) -> bool {
        false
    }
    fn make_scratch_dir(&self) -> io::Result<PathBuf> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

fn node(exe: &'static str, cmdline: &'static [u8]) -> Node {
    let host = FakeHost {
        vars: HashMap::from([("PATH", "/usr/bin"), ("HOME", "/h"), ("AGENTDAP_JS_DEBUG", "/opt/jsd/server.js")]),
        exes: HashSet::from(["/usr/bin/node"]),
        files: HashMap::from([("/opt/jsd/server.js", &b"//"[..]), ("/w/app/main.js", &b"1"[..])]),
        dirs: HashSet::from(["/w/app"]),
        ..FakeHost::default()
    };
    Node { host, exe, cmdline }
}

fn attach_node(args: AttachArgs, files: &Node) -> Result<AdapterPlan, String> {
    let args = AttachArgs { adapter: Some("node".into()), ..args };
    attach(&args, &Config::default(), files).map(|(plan, _)| plan).map_err(|e| e.text)
}

#[test]
fn node_attach_connect_spawns_js_debug_and_names_the_inspector() {
    let connect = Some(ConnectArg { host: None, port: 9230 });
    let plan = attach_node(AttachArgs { connect, ..AttachArgs::default() }, &node("/usr/bin/node", b"")).unwrap();
    assert_eq!(plan.connect, None, "the inspector is not a DAP server");
    assert_eq!(
        plan.command.args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
        ["/opt/jsd/server.js", "0", "127.0.0.1"]
    );
    assert_eq!(
        plan.launch_arguments,
        json!({"type": "pwa-node", "request": "attach", "sourceMaps": true, "skipFiles": ["<node_internals>/**"],
               "address": "127.0.0.1", "port": 9230})
    );
}

#[test]
fn node_attach_by_pid_goes_to_the_inspector_its_command_line_names_without_ptrace() {
    let by_pid = || AttachArgs { pid: Some(77), ..AttachArgs::default() };
    let plan = attach_node(by_pid(), &node("/usr/bin/node", b"node\0--inspect=0.0.0.0:9300\0app.js\0")).unwrap();
    assert_eq!(
        (&plan.launch_arguments["address"], &plan.launch_arguments["port"]),
        (&json!("127.0.0.1"), &json!(9300))
    );
    assert_eq!(plan.launch_arguments.get("processId"), None, "js-debug's server ignores it");
    let plan = attach_node(by_pid(), &node("/usr/bin/node", b"node\0app.js\0")).unwrap();
    assert_eq!(plan.launch_arguments["port"], 9229);
    let err = attach_node(by_pid(), &node("/usr/bin/sleep", b"sleep\0x\0")).err().unwrap_or_default();
    assert!(err.contains("pid 77 runs /usr/bin/sleep, not Node.js; attach by pid sends node SIGUSR1"), "{err}");
    // Another adapter on a node process names this one.
    let facts = ProcessFacts { pid: 77, exe: Some("/usr/bin/node".into()), ..ProcessFacts::default() };
    assert!(wrong_process(AdapterKind::Debugpy, &facts).is_some_and(|w| w.ends_with("for Node.js use adapter: node")));
    assert_eq!(wrong_process(AdapterKind::JsDebug, &facts), None);
}

#[test]
fn node_launch_runs_the_program_through_run_in_terminal_whichever_console() {
    let files = node("/usr/bin/node", b"");
    for console in [None, Some("internal"), Some("terminal")] {
        let args =
            LaunchArgs { program: "/w/app/main.js".into(), console: console.map(Into::into), ..LaunchArgs::default() };
        let plan = launch(&args, false, &Config::default(), &files).map_err(|e| e.text).unwrap();
        let a = &plan.launch_arguments;
        assert_eq!(
            (plan.kind, &a["type"], &a["console"]),
            (Some(AdapterKind::JsDebug), &json!("pwa-node"), &json!("integratedTerminal"))
        );
        assert_eq!(
            (&a["program"], &a["cwd"], &a["stopOnEntry"]),
            (&json!("/w/app/main.js"), &json!("/w/app"), &json!(true))
        );
        assert_eq!(
            plan.transport,
            Transport::Tcp {
                port: adapters::PortDiscovery::AnnouncedLine { prefix: adapters::jsdebug::LISTENING_PREFIX }
            }
        );
    }
}
