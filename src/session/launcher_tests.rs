//! Sans-IO tests of `launcher.rs`: an adapter whose targets are child connections to its own
//! server (js-debug 1.112.0, `ChildSessions::StartDebuggingSameServer`) is one session to the
//! agent. DAP bytes in, actions and tool results out.

use std::net::SocketAddr;
use std::time::Instant;

use serde_json::{json, Value};

use super::output::Category;
use super::{Action, AdapterPlan, LaunchArgs, SessionKey, Sessions};
use crate::dap::adapters::{ChildSessions, PortDiscovery, Quirks, RuntimeQuirks, Transport};
use crate::dap::command::AdapterCommand;
use crate::dap::framing::Encoder;
use crate::reply::{CallKey, ToolResult};

const SERVER: &str = "127.0.0.1:4711";

fn frame(msg: &Value) -> Vec<u8> {
    Encoder::new().encode(msg).unwrap_or_default()
}

/// A plan like js-debug's: TCP to a port agentdap chose, targets as child connections to it.
fn plan() -> AdapterPlan {
    AdapterPlan {
        name: "node".into(),
        kind: None,
        quirks: Quirks {
            exception_filters: &["all", "uncaught"],
            child_sessions: ChildSessions::StartDebuggingSameServer,
            ..Quirks::STANDARD
        },
        runtime: RuntimeQuirks {
            inspector_notices: &["Debugger attached."],
            program_on_pipes: true,
            ..RuntimeQuirks::STANDARD
        },
        transport: Transport::Tcp { port: PortDiscovery::Chosen },
        entry_function: None,
        scratch_dir: None,
        command: AdapterCommand::new("node"),
        request: "launch",
        launch_arguments: json!({"type": "pwa-node", "program": "/p/app.js", "console": "integratedTerminal"}),
        connect: None,
        notes: vec!["a note from the plan".into()],
    }
}

/// Every action until the table is quiet, `Complete`s apart.
fn drain(s: &mut Sessions, now: Instant) -> (Vec<Action>, Vec<(CallKey, ToolResult)>) {
    let (mut actions, mut done) = (Vec::new(), Vec::new());
    while let Some(a) = s.next_action(now) {
        match a {
            Action::Complete { call, output } => done.push((call, output)),
            other => actions.push(other),
        }
    }
    (actions, done)
}

fn start_debugging(seq: i64, pending: &str) -> Vec<u8> {
    frame(&json!({"seq": seq, "type": "request", "command": "startDebugging", "arguments": {
        "request": "launch",
        "configuration": {"type": "pwa-node", "name": "app.js [42]", "__pendingTargetId": pending}}}))
}

fn event(seq: i64, event: &str, body: Value) -> Vec<u8> {
    frame(&json!({"seq": seq, "type": "event", "event": event, "body": body}))
}

/// A launch of [`plan`] whose server listens at [`SERVER`], its parent connection up.
fn listening(now: Instant) -> Sessions {
    let mut s = Sessions::default();
    let args = LaunchArgs { program: "/p/app.js".into(), ..LaunchArgs::default() };
    s.launch(args, plan(), CallKey::new(1), now).expect("started");
    s.on_adapter_listening(0, SERVER.parse().expect("addr"));
    s.on_spawned(0, now);
    s
}

/// A launched session whose server listens at [`SERVER`], after its first target arrived:
/// (table, launcher key, stand-in key).
fn promoted(now: Instant) -> (Sessions, SessionKey, SessionKey) {
    let mut s = listening(now);
    drain(&mut s, now);
    s.on_adapter_bytes(0, &start_debugging(1, "abc"), now);
    let (actions, _) = drain(&mut s, now);
    let connect: Vec<(SessionKey, SocketAddr)> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Connect { session, addr } => Some((*session, *addr)),
            _ => None,
        })
        .collect();
    assert_eq!(connect.len(), 1, "{actions:?}");
    assert_eq!(connect[0].1, SERVER.parse::<SocketAddr>().expect("addr"), "the same server, not a `connect` key");
    let stand_in = connect[0].0;
    s.on_spawned(stand_in, now);
    answer_everything(&mut s, stand_in, now);
    let (_, done) = drain(&mut s, now);
    assert!(done.is_empty(), "{done:?}");
    (s, 0, stand_in)
}

/// A launch of `plan` whose first target (key 1) started and stopped with reason `entry` in
/// `global.add` (see [`answer_everything`]).
fn stopped_at_entry(plan: AdapterPlan, now: Instant) -> Sessions {
    let mut s = Sessions::default();
    let args = LaunchArgs { program: "/p/app.js".into(), ..LaunchArgs::default() };
    s.launch(args, plan, CallKey::new(1), now).expect("started");
    s.on_adapter_listening(0, SERVER.parse().expect("addr"));
    s.on_spawned(0, now);
    drain(&mut s, now);
    s.on_adapter_bytes(0, &start_debugging(1, "abc"), now);
    drain(&mut s, now);
    s.on_spawned(1, now);
    answer_everything(&mut s, 1, now);
    s.on_adapter_bytes(1, &event(1, "stopped", json!({"reason": "entry", "threadId": 0})), now);
    answer_everything(&mut s, 1, now);
    s
}

/// Answers every request `key` sent, with `initialized` after `initialize`, until it sends no
/// more: a target that starts and runs.
fn answer_everything(s: &mut Sessions, key: SessionKey, now: Instant) {
    let mut seq = 100;
    for _ in 0..10 {
        let sent = s.outbound(key).to_vec();
        s.consume(key, sent.len());
        let text = String::from_utf8_lossy(&sent).into_owned();
        let requests: Vec<Value> = text
            .split("Content-Length")
            .filter_map(|chunk| chunk.find('{').and_then(|at| serde_json::from_str(&chunk[at..]).ok()))
            .collect();
        if requests.is_empty() {
            return;
        }
        for r in requests {
            let command = r["command"].as_str().unwrap_or("");
            let body = match command {
                "setBreakpoints" => json!({"breakpoints": []}),
                "stackTrace" => json!({"stackFrames": [
                    {"id": 0, "name": "global.add", "line": 2, "column": 13, "source": {"path": "/p/app.js"}}]}),
                "threads" => json!({"threads": [{"id": 0, "name": "main"}]}),
                _ => json!({}),
            };
            seq += 1;
            let reply = json!({"seq": seq, "type": "response", "request_seq": r["seq"], "success": true, "command": command, "body": body});
            s.on_adapter_bytes(key, &frame(&reply), now);
            if command == "initialize" {
                seq += 1;
                s.on_adapter_bytes(key, &event(seq, "initialized", json!({})), now);
            }
        }
    }
}

/// The first target's connection takes the agent-facing id, the waiting launch call and the
/// plan's notes; the parent is hidden from `sessions` and from every lookup by id.
#[test]
fn the_first_target_stands_in_for_its_launcher() {
    let now = Instant::now();
    let (s, launcher, stand_in) = promoted(now);
    let c = s.get(stand_in).expect("stand-in");
    assert_eq!(c.id, "s1");
    assert!(c.family.stands_in);
    assert_eq!(c.calls.waiters.len(), 1, "the launch call waits on the stand-in");
    assert_eq!(c.calls.warnings, ["a note from the plan"]);
    assert_eq!(c.program, "/p/app.js", "the launched program, not js-debug's target name");
    // The child was sent the configuration verbatim.
    assert_eq!(c.link.plan.launch_arguments["__pendingTargetId"], "abc");
    let l = s.get(launcher).expect("launcher");
    assert_eq!(l.id, "s1-launcher");
    assert!(l.calls.waiters.is_empty());
    assert_eq!(s.resolve(Some("s1")).ok(), Some(stand_in));
    let hidden = s.resolve(Some("s1-launcher")).expect_err("the launcher is not the agent's");
    assert!(hidden.text.contains("known sessions: [s1]"), "{}", hidden.text);
    assert_eq!(s.resolve(None).ok(), Some(stand_in));
    let listed: Vec<&str> = s.listed().iter().map(|(_, s)| s.id.as_str()).collect();
    assert_eq!(listed, ["s1"]);
    assert!(s.list_json()[0].get("parent").is_none(), "{}", s.list_json());
}

/// A target the stand-in reports (a worker thread) is a child session of `s1`, connecting to the
/// same server; so is a second target the launcher reports.
#[test]
fn later_targets_are_children_of_the_stand_in() {
    let now = Instant::now();
    let (mut s, launcher, stand_in) = promoted(now);
    s.on_adapter_bytes(stand_in, &start_debugging(1, "abc-1"), now);
    s.on_adapter_bytes(launcher, &start_debugging(2, "def"), now);
    let (actions, _) = drain(&mut s, now);
    let opened: Vec<SessionKey> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Connect { session, addr } if *addr == SERVER.parse::<SocketAddr>().expect("addr") => Some(*session),
            _ => None,
        })
        .collect();
    assert_eq!(opened.len(), 2, "{actions:?}");
    for key in opened {
        let c = s.get(key).expect("child");
        assert_eq!(c.family.parent.as_ref().map(|p| p.1.as_str()), Some("s1"), "{}", c.id);
        assert!(!c.family.stands_in);
    }
    let listed: Vec<(usize, &str)> = s.listed().iter().map(|(d, s)| (*d, s.id.as_str())).collect();
    assert_eq!(listed, [(0, "s1"), (1, "s2"), (1, "s3")]);
}

/// js-debug reports no exit status (`terminated {}` only); the program agentdap ran for the
/// launcher has it. The launch call ends with that status, not with "terminated", and the
/// program's output (node's own "Debugger attached." aside) is the stand-in's.
#[test]
fn the_stand_in_ends_with_the_exit_status_of_the_program_agentdap_ran() {
    let now = Instant::now();
    let (mut s, launcher, stand_in) = promoted(now);
    s.on_terminal_output(launcher, true, b"Debugger attached.\n");
    // The program's own line, on its stdout, is output whatever it says.
    s.on_terminal_output(launcher, false, b"Debugger attached.\nhello\n");
    s.on_adapter_bytes(stand_in, &event(1, "terminated", json!({})), now);
    let (_, done) = drain(&mut s, now);
    assert!(done.is_empty(), "the wait goes on until the exit status is known: {done:?}");
    assert!(!s.get(stand_in).expect("stand-in").run.state.is_over());
    s.on_terminal_exited(launcher, "exit status: 3", Some(3), None);
    let (actions, done) = drain(&mut s, now);
    assert_eq!(done.len(), 1, "{done:?} {actions:?}");
    assert!(done[0].1.text.starts_with("s1 exited with code 3"), "{}", done[0].1.text);
    let out = s.get(stand_in).expect("stand-in").output.read(0, None, 100);
    let texts: Vec<(Category, &str)> = out.entries.iter().map(|e| (e.category, e.text.as_str())).collect();
    assert_eq!(texts, [(Category::Stdout, "Debugger attached.\nhello\n")]);
    // Once the launcher ends too, it is disconnected and js-debug's server (which serves on)
    // stopped.
    assert!(!actions.iter().any(|a| matches!(a, Action::StopAdapter { .. })), "{actions:?}");
    s.on_adapter_bytes(launcher, &event(1, "terminated", json!({"restart": false})), now);
    let (actions, _) = drain(&mut s, now);
    assert!(
        actions.iter().any(|a| matches!(a, Action::StopAdapter { session } if *session == launcher)),
        "{actions:?}"
    );
    let launcher_out = String::from_utf8_lossy(s.outbound(launcher)).into_owned();
    assert!(launcher_out.contains(r#""command":"disconnect""#), "{launcher_out}");
}

/// A stand-in whose connection closes without `terminated` (js-debug closes a target's socket
/// when the program dies) is not a failed session: it ends with the program's status too.
#[test]
fn a_closed_target_connection_waits_for_the_status_instead_of_failing() {
    let now = Instant::now();
    let (mut s, launcher, stand_in) = promoted(now);
    s.on_adapter_closed(stand_in, now);
    let (_, done) = drain(&mut s, now);
    assert!(done.is_empty(), "{done:?}");
    s.on_terminal_exited(launcher, "signal: 9 (SIGKILL)", None, Some(9));
    let (_, done) = drain(&mut s, now);
    assert_eq!(done.len(), 1);
    let text = &done[0].1.text;
    assert!(!text.contains("unexpectedly"), "{text}");
    let c = s.get(stand_in).expect("stand-in");
    assert_eq!((c.run.exit_code, c.run.killed_by), (None, Some(("SIGKILL", 9))));
}

/// `disconnect` of `s1` ends the hidden launcher too: it is sent `disconnect` (terminating the
/// program agentdap launched) and js-debug's server process is stopped.
#[test]
fn disconnecting_the_stand_in_ends_the_launcher_and_its_server() {
    let now = Instant::now();
    let (mut s, launcher, stand_in) = promoted(now);
    s.consume(launcher, s.outbound(launcher).len());
    s.disconnect(stand_in, None, CallKey::new(2), now).expect("disconnect");
    let (actions, _) = drain(&mut s, now);
    let launcher_out = String::from_utf8_lossy(s.outbound(launcher)).into_owned();
    assert!(
        launcher_out.contains(r#""command":"disconnect""#) && launcher_out.contains(r#""terminateDebuggee":true"#),
        "{launcher_out}"
    );
    assert!(
        actions.iter().any(|a| matches!(a, Action::StopAdapter { session } if *session == launcher)),
        "{actions:?}"
    );
    assert!(s.get(launcher).expect("launcher").link.disconnected, "it leaves the table once its server is gone");
}

/// js-debug prints `Debug server listening at 127.0.0.1:<port>` once it listens on the port
/// agentdap chose: that says nothing the agent needs, and is not shown; other adapter output is.
#[test]
fn the_listening_line_of_a_server_on_a_chosen_port_is_not_output() {
    let now = Instant::now();
    let mut s = Sessions::default();
    let mut plan = plan();
    plan.runtime.listening_line = Some("Debug server listening at ");
    let args = LaunchArgs { program: "/p/app.js".into(), ..LaunchArgs::default() };
    s.launch(args, plan, CallKey::new(1), now).expect("started");
    s.on_adapter_stdout(0, b"Debug server listening at 127.0.0.1:4711\n");
    s.on_adapter_stdout(0, b"something else\n");
    let out = s.get(0).expect("session").output.read(0, None, 100);
    let texts: Vec<(Category, &str)> = out.entries.iter().map(|e| (e.category, e.text.as_str())).collect();
    assert_eq!(texts, [(Category::Adapter, "something else\n")]);
}

/// js-debug's entry stop on a file that begins with a function declaration lands inside that
/// function at its first call (`RuntimeQuirks::entry_is_first_breakable`): the result says so
/// instead of letting "entry" read as "nothing ran yet".
#[test]
fn an_entry_stop_inside_a_function_says_the_program_ran_until_then() {
    let now = Instant::now();
    let mut plan = plan();
    plan.runtime.entry_is_first_breakable = true;
    let mut s = stopped_at_entry(plan, now);
    let (_, done) = drain(&mut s, now);
    assert_eq!(done.len(), 1, "{done:?}");
    let text = &done[0].1.text;
    assert!(text.starts_with("s1 stopped (entry) at app.js:2 in global.add()"), "{text}");
    assert!(text.contains("inside `global.add`: the program ran until its first call of it"), "{text}");
}

/// js-debug 1.112.0 never removes its entry breakpoint (`RuntimeQuirks::entry_stop_repeats`): the
/// first `entry` stop is the program's entry, a later one is passed over with a `continue` and
/// reported to nobody.
#[test]
fn a_repeated_entry_stop_is_passed_over() {
    let now = Instant::now();
    let mut plan = plan();
    plan.runtime.entry_stop_repeats = true;
    let mut s = stopped_at_entry(plan, now);
    let (_, done) = drain(&mut s, now);
    assert_eq!(done.len(), 1, "the first entry stop answers the launch: {done:?}");
    let revision = s.get(1).expect("stand-in").run.revision;
    s.resume(1, None, false, Some(1000), CallKey::new(2), now).expect("continue");
    s.consume(1, s.outbound(1).len());
    s.on_adapter_bytes(1, &event(2, "stopped", json!({"reason": "entry", "threadId": 0})), now);
    let sent = String::from_utf8_lossy(s.outbound(1)).into_owned();
    assert!(sent.contains(r#""command":"continue""#) && sent.contains(r#""threadId":0"#), "{sent}");
    let (_, done) = drain(&mut s, now);
    assert!(done.is_empty(), "the continue call still waits: {done:?}");
    let c = s.get(1).expect("stand-in");
    assert_eq!((c.run.revision, c.run.state.as_str()), (revision + 1, "running"), "no stop was recorded");
}

/// The program js-debug asks agentdap to run runs on pipes (stdout and stderr apart) when the
/// agent asked for no terminal (`RuntimeQuirks::program_on_pipes`), and on a pseudo-terminal
/// when it did (`console: terminal`).
#[test]
fn the_program_runs_on_pipes_unless_the_agent_asked_for_a_terminal() {
    let now = Instant::now();
    for (console, pty) in [(None, false), (Some("terminal"), true)] {
        let mut s = Sessions::default();
        let mut plan = plan();
        plan.runtime.program_on_pipes = true;
        let args =
            LaunchArgs { program: "/p/app.js".into(), console: console.map(Into::into), ..LaunchArgs::default() };
        s.launch(args, plan, CallKey::new(1), now).expect("started");
        s.on_spawned(0, now);
        drain(&mut s, now);
        let request = frame(&json!({"seq": 1, "type": "request", "command": "runInTerminal", "arguments": {
            "kind": "integrated", "cwd": "/p", "args": ["/usr/bin/node", "./app.js"]}}));
        s.on_adapter_bytes(0, &request, now);
        let (actions, _) = drain(&mut s, now);
        let asked: Vec<bool> = actions
            .iter()
            .filter_map(|a| match a {
                Action::RunInTerminal { pty, .. } => Some(*pty),
                _ => None,
            })
            .collect();
        assert_eq!(asked, [pty], "console {console:?}: {actions:?}");
    }
}

/// Until js-debug's first target arrives, the session is `starting`: its parent connection
/// answered `launch`, but a tool sent now would reach that hidden launcher, not the program
/// (the breaker's `pause` 1 s after a launch waited 10 s for a stop that could not come).
#[test]
fn the_session_is_starting_until_its_target_arrives() {
    let now = Instant::now();
    let mut s = listening(now);
    answer_everything(&mut s, 0, now);
    drain(&mut s, now);
    assert_eq!(s.get(0).expect("launcher").run.state.as_str(), "starting");
    let refused = s.pause(0, None, None, CallKey::new(2), now).expect_err("nothing to pause yet");
    assert!(refused.text.contains("starting"), "{}", refused.text);
    s.on_adapter_bytes(0, &start_debugging(9, "abc"), now);
    drain(&mut s, now);
    s.on_spawned(1, now);
    answer_everything(&mut s, 1, now);
    drain(&mut s, now);
    assert_eq!(s.get(1).expect("stand-in").run.state.as_str(), "running", "the target's session runs");
}

/// Finished worker threads are child sessions of a program that runs on: when the table is full,
/// the one that ended longest ago makes room (before: only ended top-level sessions did, so a
/// program with many workers left no room for its next worker or any launch).
#[test]
fn ended_children_make_room_in_a_full_table() {
    let now = Instant::now();
    let (mut s, _launcher, stand_in) = promoted(now);
    for i in 0..(super::MAX_SESSIONS - 2) {
        s.on_adapter_bytes(stand_in, &start_debugging(100 + i as i64, &format!("abc-{i}")), now);
        let (actions, _) = drain(&mut s, now);
        let child = actions
            .iter()
            .find_map(|a| match a {
                Action::Connect { session, .. } => Some(*session),
                _ => None,
            })
            .expect("a worker session");
        s.on_spawned(child, now);
        s.on_adapter_bytes(child, &event(1, "terminated", json!({})), now);
        s.on_adapter_closed(child, now);
        drain(&mut s, now);
    }
    assert_eq!(s.iter().count(), super::MAX_SESSIONS, "full: launcher, s1 and 30 ended workers");
    let args = LaunchArgs { program: "/p/other.js".into(), ..LaunchArgs::default() };
    s.launch(args, plan(), CallKey::new(3), now).expect("an ended worker makes room");
}

/// `disconnect {terminate_debuggee: false}` cannot keep a program agentdap runs for js-debug (it
/// ends with the session): the result says so rather than promising a detach.
#[test]
fn keeping_a_launched_node_program_is_refused_in_words() {
    let now = Instant::now();
    let (mut s, _launcher, stand_in) = promoted(now);
    // The launch is answered first (at a stop), as an agent's would be.
    s.on_adapter_bytes(stand_in, &event(1, "stopped", json!({"reason": "breakpoint", "threadId": 0})), now);
    answer_everything(&mut s, stand_in, now);
    let (_, launched) = drain(&mut s, now);
    assert_eq!(launched.len(), 1, "{launched:?}");
    s.disconnect(stand_in, Some(false), CallKey::new(2), now).expect("disconnect");
    s.on_adapter_closed(stand_in, now);
    let (_, done) = drain(&mut s, now);
    let answer = done.iter().find(|(c, _)| *c == CallKey::new(2)).map(|(_, r)| r.text.clone()).unwrap_or_default();
    assert!(answer.contains("terminate_debuggee: false cannot keep this program running"), "{answer}");
}

/// A target js-debug announces while the launch's session is ending (`disconnect` during the
/// start) is the program agentdap started, and it goes with the session's process group: the
/// warning says that, not that it "waits for a debugger and will not run" (a fresh user's
/// finding; nothing was left running).
#[test]
fn a_target_announced_as_the_launch_ends_is_said_to_end_with_it() {
    let now = Instant::now();
    let mut s = listening(now);
    drain(&mut s, now);
    s.disconnect(0, None, CallKey::new(2), now).expect("disconnecting");
    drain(&mut s, now);
    s.on_adapter_bytes(0, &start_debugging(1, "abc"), now);
    let (actions, _) = drain(&mut s, now);
    assert!(!actions.iter().any(|a| matches!(a, Action::Connect { .. })), "{actions:?}");
    let warnings = s.get(0).map(|p| p.calls.warnings.clone()).unwrap_or_default();
    assert_eq!(
        warnings.last().map(String::as_str),
        Some("app.js [42] had started as s1 ended; it ended with the session")
    );
}
