//! The debugpy fast path, end to end with the built binary and real debugpy: it is active on
//! the adapter's sockets (checked with `getsockopt` on the adapter's own socket fds), it is off
//! with `--no-debugpy-fastpath` / `AGENTDAP_DEBUGPY_FASTPATH=0`, and the user's program behaves the
//! same either way (its sockets keep Nagle, its `sitecustomize` runs, same output and exit code).
//! The bootstrap's own decisions (standing aside, `__main__`/argv semantics) run against small
//! fake `debugpy` packages.

use crate::common;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentdap::dap::adapters::debugpy::fastpath;
use common::{venv_python, Agentdap};
use serde_json::{json, Value};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fastpath").join(name)
}

/// How the fast path is chosen for one agentdap.
#[derive(Clone, Copy, Debug)]
enum Mode {
    Default,
    Flag,
    Env,
}

fn start(mode: Mode) -> Agentdap {
    let python = venv_python();
    let mut d = Agentdap::spawn_with(|cmd| {
        cmd.env("AGENTDAP_PYTHON", &python).env_remove(fastpath::ENV);
        match mode {
            Mode::Default => {}
            Mode::Flag => {
                cmd.arg("--no-debugpy-fastpath");
            }
            Mode::Env => {
                cmd.env(fastpath::ENV, "0");
            }
        }
    });
    d.initialize("2025-06-18");
    d
}

/// Calls `tool` and returns its result (fails the test on a JSON-RPC error).
fn call(d: &mut Agentdap, id: i64, tool: &str, args: Value) -> Value {
    let answer = d.request(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}}),
    );
    assert_eq!(answer["id"], id, "{answer}");
    answer["result"].clone()
}

/// Runs `program args` to its end under agentdap; returns (exit code, stdout text, stderr text).
fn run_to_exit(mode: Mode, program: &Path, args: &[&str], env: Value) -> (Value, String, String) {
    let mut d = start(mode);
    let result = call(
        &mut d,
        2,
        "launch",
        json!({"program": program, "args": args, "env": env, "stop_on_entry": false, "exception_filters": [], "wait_ms": 30000}),
    );
    assert_eq!(result["structuredContent"]["state"], "exited", "{result}\nstderr:\n{}", d.stderr());
    let exit = result["structuredContent"]["exit_code"].clone();
    let mut text = (String::new(), String::new());
    let mut since = json!(0);
    for page in 3.. {
        let out = call(&mut d, page, "output", json!({"since": since, "limit": 1000}));
        for e in out["structuredContent"]["entries"].as_array().cloned().unwrap_or_default() {
            match e["category"].as_str() {
                Some("stdout") => text.0.push_str(e["text"].as_str().unwrap_or_default()),
                Some("stderr") => text.1.push_str(e["text"].as_str().unwrap_or_default()),
                _ => {}
            }
        }
        if out["structuredContent"]["more"] != true {
            break;
        }
        since = out["structuredContent"]["next_cursor"].clone();
    }
    d.close_stdin();
    d.assert_clean_exit(Duration::from_secs(10));
    (exit, text.0, text.1)
}

#[test]
fn output_exit_codes_and_exceptions_are_the_same_with_the_fast_path_on_and_off() {
    let program = fixture("behaviour.py");
    for (arg, code) in [("ok", 0), ("exit", 3), ("raise", 1)] {
        let on = run_to_exit(Mode::Default, &program, &[arg], json!({}));
        let off = run_to_exit(Mode::Flag, &program, &[arg], json!({}));
        assert_eq!(on.0, json!(code), "{arg}: {on:?}");
        assert_eq!(on, off, "{arg}");
        assert!(on.1.starts_with("to stdout 1\n"), "{arg}: {on:?}");
        assert!(on.2.starts_with("to stderr 2\n"), "{arg}: {on:?}");
    }
    let raised = run_to_exit(Mode::Default, &program, &["raise"], json!({})).2;
    assert!(raised.contains("ValueError: boom from the debuggee"), "{raised}");
}

#[test]
fn the_programs_end_is_the_same_with_the_fast_path_on_and_off() {
    // The fast path half-closes pydevd's connection once no thread of the program lives
    // (`_fast_exit` in debugpy_bootstrap.py); everything the program does on its way out must
    // still happen, in the same order, with the same exit code.
    let program = fixture("ending.py");
    for (how, code) in [("plain", 0), ("exit", 7), ("raise", 1), ("worker", 0), ("worker-exit", 7), ("daemon", 0)] {
        let on = run_to_exit(Mode::Default, &program, &[how], json!({}));
        let off = run_to_exit(Mode::Flag, &program, &[how], json!({}));
        assert_eq!(on.0, json!(code), "{how}: {}", on.2);
        assert_eq!(on.0, off.0, "{how}");
        for (stream, a, b) in [("stdout", &on.1, &off.1), ("stderr", &on.2, &off.2)] {
            let first = a.lines().zip(b.lines()).position(|(x, y)| x != y);
            let around =
                |t: &str, at: usize| t.lines().skip(at.saturating_sub(2)).take(5).collect::<Vec<_>>().join("|");
            if let Some(at) = first {
                panic!("{how}: {stream} differs at line {at}: on {:?} / off {:?}", around(a, at), around(b, at));
            }
            assert_eq!(a.lines().count(), b.lines().count(), "{how}: {stream}: on {a:?}\noff {b:?}");
        }
        let lines: Vec<&str> = on.1.lines().collect();
        let bursts = lines.iter().filter(|l| l.starts_with("burst ")).count();
        assert_eq!(bursts, 2000, "{how}: the output's end is complete");
        // atexit handlers run last-registered first, after everything else the program printed.
        assert_eq!(lines[lines.len() - 2..], ["atexit 2", "atexit 1"], "{how}: {:?}", &lines[lines.len() - 4..]);
        assert!(on.2.ends_with("atexit on stderr 2\natexit on stderr 1\n"), "{how}: {}", on.2);
        if how.starts_with("worker") {
            assert!(lines.contains(&"worker ends after main"), "{how}");
        }
    }
}

#[test]
fn a_thread_that_outlives_main_still_stops_at_its_breakpoint_with_the_fast_path() {
    // The fast exit waits for pydevd to say no thread is alive: the main thread's end alone must
    // not end the debug session while a worker still runs toward a breakpoint.
    let program = fixture("ending.py");
    for mode in [Mode::Default, Mode::Flag] {
        let mut d = start(mode);
        let bp = json!([{"path": program, "line": 23}]);
        let r = call(
            &mut d,
            2,
            "launch",
            json!({"program": program, "args": ["worker-exit"], "breakpoints": bp, "exception_filters": [], "wait_ms": 30000}),
        );
        let stop = &r["structuredContent"];
        assert_eq!(stop["state"], "stopped", "{mode:?}: {r}\nstderr:\n{}", d.stderr());
        assert_eq!(stop["stop"]["location"]["line"], 23, "{mode:?}: {r}");
        let r = call(&mut d, 3, "continue", json!({"wait_ms": 30000}));
        assert_eq!(r["structuredContent"]["state"], "exited", "{mode:?}: {r}");
        assert_eq!(r["structuredContent"]["exit_code"], 7, "{mode:?}: {r}");
        d.close_stdin();
        d.assert_clean_exit(Duration::from_secs(10));
    }
}

#[test]
fn the_fast_exit_half_closes_pydevds_connection_only_with_the_fast_path() {
    // debugpy's own adapter log (DEBUGPY_LOG_DIR) records the bootstrap's one line when it acts.
    let program = fixture("ending.py");
    for (mode, acts) in [(Mode::Default, true), (Mode::Flag, false)] {
        let logs = common::TempDir::new("fast-exit-logs");
        let python = venv_python();
        let mut d = Agentdap::spawn_with(|cmd| {
            cmd.env("AGENTDAP_PYTHON", &python).env_remove(fastpath::ENV).env("DEBUGPY_LOG_DIR", &logs.0);
            if let Mode::Flag = mode {
                cmd.arg("--no-debugpy-fastpath");
            }
        });
        d.initialize("2025-06-18");
        let r = call(
            &mut d,
            2,
            "launch",
            json!({"program": program, "args": ["plain"], "stop_on_entry": false, "exception_filters": [], "wait_ms": 30000}),
        );
        assert_eq!(r["structuredContent"]["state"], "exited", "{mode:?}: {r}");
        d.close_stdin();
        d.assert_clean_exit(Duration::from_secs(10));
        let adapter_log = std::fs::read_dir(&logs.0)
            .map(|dir| dir.flatten().map(|e| e.path()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("debugpy.adapter")))
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .collect::<String>();
        assert!(
            adapter_log.contains("debugpy.adapter startup environment"),
            "{mode:?}: no adapter log in {:?}",
            logs.0
        );
        assert_eq!(adapter_log.contains("agentdap fast path: no thread of"), acts, "{mode:?}");
    }
}

#[test]
fn the_program_sees_the_same_arguments_path_cwd_and_environment_with_the_fast_path_on_and_off() {
    // The fast path starts debugpy's launcher (the debuggee's parent) through a bootstrap too;
    // nothing the program can observe of its start may change.
    let program = fixture("surroundings.py");
    let seen = |mode| {
        let (exit, stdout, stderr) =
            run_to_exit(mode, &program, &["two words", "--", "-c"], json!({"AGENTDAP_FIXTURE": "x y"}));
        assert_eq!(exit, json!(0), "{mode:?}: {stderr}");
        let line = stdout.lines().next().unwrap_or_default().to_string();
        let mut seen: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{mode:?}: {e}: {stdout}"));
        // `--no-debugpy-fastpath` reaches the adapter as this variable; it is not the program's.
        let switch = format!("{}=0", fastpath::ENV);
        seen["environ"].as_object_mut().map(|e| e.remove(fastpath::ENV));
        if let Some(e) = seen["parent_environ"].as_array_mut() {
            e.retain(|v| v != switch.as_str());
        }
        seen
    };
    let on = seen(Mode::Default);
    let off = seen(Mode::Flag);
    assert_eq!((&on["parent_runs_bootstrap"], &off["parent_runs_bootstrap"]), (&json!(true), &json!(false)));
    assert_eq!(on["argv"], json!([program, "two words", "--", "-c"]), "{on}");
    assert_eq!(on["environ"]["AGENTDAP_FIXTURE"], "x y", "{on}");
    assert!(on["parent_environ"].is_array(), "{on}");
    for key in ["argv", "path", "cwd", "executable", "flags", "environ", "parent_environ", "main_file"] {
        assert_eq!(on[key], off[key], "{key} differs with the fast path on");
    }
}

#[test]
fn debugpy_log_files_still_describe_the_environment() {
    // The fast path builds debugpy's environment report only when a log file records it.
    let logs = common::TempDir::new("fastpath-logs");
    let python = venv_python();
    let mut d = Agentdap::spawn_with(|cmd| {
        cmd.env("AGENTDAP_PYTHON", &python).env_remove(fastpath::ENV).env("DEBUGPY_LOG_DIR", &logs.0);
    });
    d.initialize("2025-06-18");
    let result = call(
        &mut d,
        2,
        "launch",
        json!({"program": fixture("behaviour.py"), "args": ["ok"], "stop_on_entry": false, "wait_ms": 30000}),
    );
    assert_eq!(result["structuredContent"]["state"], "exited", "{result}");
    d.close_stdin();
    d.assert_clean_exit(Duration::from_secs(10));
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&logs.0).expect("log dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for (prefix, header) in [
            ("debugpy.adapter-", "debugpy.adapter startup environment:"),
            ("debugpy.launcher-", "debugpy.launcher startup environment:"),
        ] {
            if name.starts_with(prefix) {
                // The package list comes from importlib.metadata, which the fast path loads lazily.
                let listed = text.contains("Installed packages:") && text.contains("debugpy==");
                assert!(
                    text.contains(header) && listed && !text.contains("Error while enumerating"),
                    "{name}:\n{text}"
                );
                found.push(prefix);
            }
        }
    }
    found.sort();
    assert_eq!(found, ["debugpy.adapter-", "debugpy.launcher-"]);
}

#[test]
fn the_programs_own_tcp_sockets_keep_nagle() {
    let expected = "client TCP_NODELAY=0\nserver TCP_NODELAY=0\n";
    for mode in [Mode::Default, Mode::Env] {
        let (exit, stdout, stderr) = run_to_exit(mode, &fixture("own_socket.py"), &[], json!({}));
        assert_eq!(exit, json!(0), "{mode:?}: {stderr}");
        assert_eq!(stdout, expected, "{mode:?}");
    }
}

#[test]
fn the_users_sitecustomize_still_runs() {
    let site = fixture("site");
    let env = json!({"PYTHONPATH": site});
    let expected = "sitecustomize ran: yes\nsitecustomize file: sitecustomize.py\n";
    for mode in [Mode::Default, Mode::Flag] {
        let (exit, stdout, stderr) = run_to_exit(mode, &fixture("show_site.py"), &[], env.clone());
        assert_eq!(exit, json!(0), "{mode:?}: {stderr}");
        assert_eq!(stdout, expected, "{mode:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// The mechanism, observed on the adapter's own sockets.

/// Children of `pid` (all its threads).
fn children(pid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        out.extend(text.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
    }
    out
}

fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// The `TCP_NODELAY` value of every connected TCP socket of process `pid`, read by duplicating
/// each socket fd into this process (`pidfd_getfd`: the adapter is our grandchild).
fn connected_tcp_nodelay(pid: i32) -> Vec<i32> {
    // SAFETY: plain syscalls; every fd returned is owned by an OwnedFd below.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    assert!(pidfd >= 0, "pidfd_open({pid}): {}", std::io::Error::last_os_error());
    // SAFETY: pidfd is a fresh fd we own.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let mut values = Vec::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd")).expect("fd dir").flatten() {
        let target = std::fs::read_link(entry.path()).unwrap_or_default();
        if !target.to_string_lossy().starts_with("socket:") {
            continue;
        }
        let Ok(target_fd) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        // SAFETY: as above.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), target_fd, 0) } as i32;
        assert!(fd >= 0, "pidfd_getfd: {}", std::io::Error::last_os_error());
        // SAFETY: a fresh fd we own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let get = |level, name| {
            let mut v: libc::c_int = -1;
            let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: v and len are valid for writing an int.
            let rc =
                unsafe { libc::getsockopt(fd.as_raw_fd(), level, name, (&mut v as *mut libc::c_int).cast(), &mut len) };
            (rc == 0).then_some(v)
        };
        let tcp = get(libc::SOL_SOCKET, libc::SO_TYPE) == Some(libc::SOCK_STREAM)
            && matches!(get(libc::SOL_SOCKET, libc::SO_DOMAIN), Some(libc::AF_INET | libc::AF_INET6));
        // SAFETY: storage is large enough for any address; len says how much.
        let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        // SAFETY: as above.
        let connected = unsafe {
            libc::getpeername(fd.as_raw_fd(), (&mut storage as *mut libc::sockaddr_storage).cast(), &mut len)
        } == 0;
        if tcp && connected {
            values.extend(get(libc::IPPROTO_TCP, libc::TCP_NODELAY));
        }
    }
    values
}

/// Launches the bench target to its breakpoint and returns the adapter's connected TCP
/// sockets' `TCP_NODELAY` values (one per connection: debuggee, launcher).
fn adapter_nodelay(mode: Mode) -> Vec<i32> {
    let mut d = start(mode);
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/roundtrip_target.py");
    let result = call(
        &mut d,
        2,
        "launch",
        json!({"program": program, "args": ["50"], "breakpoints": [{"path": program, "line": 6}]}),
    );
    assert_eq!(result["structuredContent"]["state"], "stopped", "{result}\nstderr:\n{}", d.stderr());
    let adapter = children(d.pid()).into_iter().find(|p| cmdline(*p).contains("debugpy")).unwrap_or_else(|| {
        panic!("no adapter child among {:?}", children(d.pid()));
    });
    let values = connected_tcp_nodelay(adapter);
    let out = call(&mut d, 3, "output", json!({"category": "adapter"}));
    assert!(!out.to_string().contains(fastpath::MARKER), "the bootstrap stood aside: {out}");
    call(&mut d, 4, "disconnect", json!({}));
    d.close_stdin();
    d.assert_clean_exit(Duration::from_secs(10));
    values
}

#[test]
fn the_fast_path_sets_tcp_nodelay_on_the_adapters_dap_sockets_and_the_flag_turns_it_off() {
    let on = adapter_nodelay(Mode::Default);
    assert!(on.len() >= 2, "expected the debuggee and launcher connections, got {on:?}");
    assert!(on.iter().all(|v| *v != 0), "fast path on: {on:?}");
    for mode in [Mode::Flag, Mode::Env] {
        let off = adapter_nodelay(mode);
        assert!(off.len() >= 2, "{mode:?}: {off:?}");
        assert!(off.iter().all(|v| *v == 0), "{mode:?}: {off:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// The bootstrap against fake debugpy packages.

/// Writes a fake `debugpy` package into a fresh directory: `__version__`, an optional
/// `common/messaging.py`, and an `adapter/__main__.py` that reports how it was run.
fn fake_debugpy(version: &str, messaging: Option<&str>, pydevd_fixed: bool) -> PathBuf {
    let tag = format!("{}-{version}-{}-{pydevd_fixed}", std::process::id(), messaging.is_some());
    let root = std::env::temp_dir().join(format!("agentdap-fastpath-{tag}"));
    let pkg = root.join("debugpy");
    std::fs::create_dir_all(pkg.join("adapter")).expect("mkdir");
    std::fs::create_dir_all(pkg.join("common")).expect("mkdir");
    std::fs::write(pkg.join("__init__.py"), format!("__version__ = {version:?}\n")).expect("write");
    std::fs::write(pkg.join("common/__init__.py"), "").expect("write");
    std::fs::write(pkg.join("adapter/__init__.py"), "").expect("write");
    if let Some(m) = messaging {
        std::fs::write(pkg.join("common/messaging.py"), m).expect("write");
    }
    if pydevd_fixed {
        // What the upstream fix (microsoft/debugpy#2054) looks like: start_client sets it.
        let dir = pkg.join("_vendored/pydevd/_pydevd_bundle");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let text = "\ndef start_client(host, port):\n    s.setsockopt(IPPROTO_TCP, TCP_NODELAY, 1)\n\ndef other():\n    pass\n";
        std::fs::write(dir.join("pydevd_comm.py"), text).expect("write");
    }
    let main = r#"
import os, socket, sys
print("name", __name__)
print("argv", os.path.basename(sys.argv[0]), sys.argv[1:])
print("path0", sys.path[0] == os.getcwd())
try:
    from debugpy.common import messaging
except ImportError:
    sys.exit(0)
listener = socket.create_server(("127.0.0.1", 0))
a = socket.create_connection(listener.getsockname())
b, _ = listener.accept()
messaging.JsonIOStream.from_socket(a)
print("nodelay", a.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY), b.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
b.sendall(b"x")
print("read", a.recv(1))
"#;
    std::fs::write(pkg.join("adapter/__main__.py"), main).expect("write");
    root
}

const MESSAGING: &str =
    "class JsonIOStream:\n    @classmethod\n    def from_socket(cls, sock, name=None):\n        return cls()\n";

/// A `from_socket` that is not a classmethod: a shape the bootstrap does not know how to wrap.
const STATIC_MESSAGING: &str =
    "class JsonIOStream:\n    @staticmethod\n    def from_socket(sock, name=None):\n        return JsonIOStream()\n";

/// Runs the bootstrap as agentdap does, with `root` first on PYTHONPATH; (stdout, stderr, code).
fn run_bootstrap(root: &Path) -> (String, String, Option<i32>) {
    let out = Command::new(venv_python())
        .args(fastpath::adapter_args(true))
        .args(["--port", "0"])
        .env("PYTHONPATH", root)
        .current_dir(root)
        .output()
        .expect("run python");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn the_bootstrap_runs_the_adapter_as_main_with_its_arguments_and_tunes_its_streams() {
    let root = fake_debugpy("1.8.22", Some(MESSAGING), false);
    let (stdout, stderr, code) = run_bootstrap(&root);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "", "silent when on");
    assert_eq!(stdout, "name __main__\nargv __main__.py ['--port', '0']\npath0 True\nnodelay 1 0\nread b'x'\n");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn the_bootstrap_stands_aside_for_old_debugpy_or_a_missing_patch_point() {
    for (version, messaging, fixed, why) in [
        ("0.9.1", Some(MESSAGING), false, "off: debugpy 0.9.1 is older than 1.0"),
        ("1.8.22", None, false, "off: patch point missing in debugpy 1.8.22"),
        ("1.8.22", Some(STATIC_MESSAGING), false, "off: patch point missing in debugpy 1.8.22"),
        ("1.9.0", Some(MESSAGING), true, "off: debugpy 1.9.0 already sets TCP_NODELAY in pydevd"),
    ] {
        let root = fake_debugpy(version, messaging, fixed);
        let (stdout, stderr, code) = run_bootstrap(&root);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(fastpath::verdict(&stderr), Some(fastpath::Verdict::Off(why.trim_start_matches("off: ").into())));
        assert!(stdout.starts_with("name __main__\nargv __main__.py ['--port', '0']\n"), "{stdout}");
        if messaging.is_some() {
            assert!(stdout.contains("nodelay 0 0\n"), "untouched: {stdout}");
        }
        let _ = std::fs::remove_dir_all(root);
    }
}

#[test]
fn without_debugpy_the_bootstrap_says_what_python_m_would() {
    // `-I -S`: no site-packages, so no debugpy, in the same interpreter.
    let python = venv_python();
    let out = Command::new(&python).args(["-I", "-S"]).args(fastpath::adapter_args(true)).output().expect("python");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(fastpath::verdict(&stderr), None, "{stderr}");
    let missing = agentdap::dap::adapters::debugpy::missing_debugpy(&python, &stderr, None);
    assert_eq!(missing.map(|e| e.code()), Some("adapter_not_found"), "{stderr}");
}
