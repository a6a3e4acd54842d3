//! Shared control through the mirror (issue 22) on real debugpy and real lldb-dap, with
//! Microsoft's `DebugClient` as the IDE (`tests/node/mirror_ide.js`, through `mirror.rs`'s `Ide`):
//! a read-only IDE's `next` is refused quietly and the agent hears it asked for control (once);
//! `expose_session {control: true}` sends the IDE a `capabilities` event with what a new client
//! would be told; the IDE's `next` moves the session and the agent's `wait` returns that stop as
//! the person's, with the agent's old handles stale; the IDE's `continue` runs to the agent's
//! breakpoint; `control: false` takes control back and the IDE's next `next` is refused quietly;
//! an IDE `disconnect {terminateDebuggee: true}` leaves the agent's session alive and stopped.

use crate::agent;
use crate::mirror::*;

use std::process::Command;

use agent::{fixture, Agent};
use serde_json::{json, Value};

/// Where one program stops: its source, the launch breakpoint, the line a `next` from there
/// reaches (`None`: whatever the adapter reports, checked against the IDE's own stack), and the
/// agent's later breakpoint the IDE's `continue` must reach.
struct Program {
    source: String,
    program: String,
    first: u64,
    after_next: Option<u64>,
    agent_bp: u64,
}

/// The IDE's top frame line on `thread`.
fn ide_line(ide: &mut Ide, c: u64, thread: i64) -> Value {
    let st = ide.ok(c, "stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 1}));
    st["stackFrames"][0]["line"].clone()
}

/// A refused-quietly answer: `success: false`, `showUser: false`.
fn assert_quiet_refusal(r: &Value, words: &str) {
    assert_eq!(r["ok"], json!(false), "{r}");
    assert!(r["message"].as_str().is_some_and(|m| m.contains(words)), "{r}");
    assert_eq!(r["body"]["error"]["showUser"], json!(false), "{r}");
}

/// `text` written as `name.c` in a scratch directory and built with `gcc -g -O0`: (source, program).
fn build_c(scratch: &str, name: &str, text: &str) -> (String, String) {
    let dir = agent::scratch(scratch);
    let source = dir.join(format!("{name}.c"));
    std::fs::write(&source, text).expect("write C");
    let program = dir.join(name);
    let built = Command::new("gcc").args(["-g", "-O0", "-o"]).arg(&program).arg(&source).status();
    assert!(built.is_ok_and(|s| s.success()), "gcc (test dependency) failed");
    (source.to_string_lossy().into_owned(), program.to_string_lossy().into_owned())
}

/// An agent that launched `program` to its breakpoint at `source:line` and exposed the session
/// read-only: (agent, session id, port, token).
fn launch_and_expose(program: &str, source: &str, line: u64) -> (Agent, String, u64, String) {
    let mut a = Agent::start();
    let args = json!({"program": program, "breakpoints": [{"path": source, "line": line}], "wait_ms": 30_000});
    let r = a.ok("launch", args);
    assert_eq!(stopped_line(&r), json!(line), "{}", r.text);
    let id = r.s["session"].as_str().expect("id").to_owned();
    let (port, token) = expose(&mut a, &id);
    (a, id, port, token)
}

/// The whole scenario on one adapter (see the module docs).
fn person_and_agent_share_one_session(p: &Program) {
    let (mut a, id, port, token) = launch_and_expose(&p.program, &p.source, p.first);
    assert_eq!(a.session(&id)["mirror"]["control"], json!(false));
    let mut ide = Ide::start();
    let (c, read_caps) = ide.attach(port, &token);
    let thread = ide.event(c, "stopped")["body"]["threadId"].as_i64().expect("threadId");

    // Read-only: `next` is refused quietly and counts as asking for control.
    let r = ide.request(c, "next", json!({"threadId": thread}));
    assert_quiet_refusal(&r, "read-only");
    let listed = a.session(&id);
    assert_eq!(listed["mirror"]["control_asked"], json!("next"), "{listed}");
    let w = a.ok("wait", json!({}));
    let asked = "the person in the IDE asked for control (tried `next`); `expose_session {control: true}` gives it";
    assert!(w.text.contains(asked), "{}", w.text);
    let w = a.ok("wait", json!({}));
    assert!(!w.text.contains("asked for control"), "said once: {}", w.text);
    assert_eq!(stopped_line(&w), json!(p.first), "nothing moved: {}", w.text);

    // A handle the agent holds from this stop.
    let scopes = a.ok("scopes", json!({}));
    let agent_ref = scopes.s["scopes"][0]["ref"].clone();
    assert!(agent_ref.is_i64(), "{}", scopes.s);
    a.ok("variables", json!({"ref": agent_ref}));
    a.ok("set_breakpoints", json!({"path": p.source, "lines": [p.agent_bp]}));

    // Granted: the IDE hears `capabilities`, exactly what a client attaching now is told.
    let g = a.ok("expose_session", json!({"control": true}));
    assert!(g.text.starts_with("control granted"), "{}", g.text);
    assert_eq!((g.s["port"].as_u64(), g.s["token"].as_str()), (Some(port), Some(token.as_str())), "same endpoint");
    assert_eq!(g.s["control"], json!(true));
    let event = ide.event(c, "capabilities");
    let (late, control_caps) = ide.attach(port, &token);
    assert_eq!(event["body"]["capabilities"], control_caps, "{event}");
    assert_ne!(control_caps, read_caps, "control shows the stepping features this adapter has");
    for off in
        ["supportsSetVariable", "supportsGotoTargetsRequest", "supportsRestartRequest", "supportsTerminateRequest"]
    {
        assert_ne!(control_caps[off], json!(true), "{off} stays masked with control: {control_caps}");
    }
    assert!(a.session(&id)["mirror"].get("control_asked").is_none(), "the ask is answered");
    ide.event(late, "stopped");

    // A step the adapter refuses (no such thread) moved nothing: the agent is not told it did.
    let r = ide.request(c, "next", json!({"threadId": 987_654}));
    assert_eq!(r["ok"], json!(false), "{r}");
    let w = a.ok("wait", json!({}));
    assert!(!w.text.contains("resumed the program"), "{}", w.text);
    assert!(w.text.contains("tried to resume the program"), "{}", w.text);
    assert_eq!(stopped_line(&w), json!(p.first), "{}", w.text);

    // The person steps: the session moves, the agent's wait returns the person's stop.
    ide.ok(c, "next", json!({"threadId": thread}));
    let stop = ide.event(c, "stopped");
    let thread = stop["body"]["threadId"].as_i64().unwrap_or(thread);
    let line = ide_line(&mut ide, c, thread);
    if let Some(expected) = p.after_next {
        assert_eq!(line, json!(expected), "the IDE's view after its `next`");
    }
    assert_ne!(line, json!(p.first), "the step moved");
    let w = a.ok("wait", json!({}));
    assert_eq!(stopped_line(&w), line, "{}", w.text);
    assert!(w.text.contains("stopped (step) by the person in the IDE (`next`) at"), "{}", w.text);
    assert_eq!(w.s["stop"]["by_person"], json!("next"), "{}", w.s);
    assert!(w.text.contains("the person in the IDE resumed the program (`next`); it is stopped at "), "{}", w.text);
    assert!(w.text.contains(&format!(":{line} now (rev ")), "where it is now: {}", w.text);
    let stale = a.call("variables", json!({"ref": agent_ref}));
    assert!(
        stale.is_error && stale.text.contains("from an earlier stop"),
        "the agent's handle went stale: {}",
        stale.text
    );
    ide.event(late, "continued");

    // The person continues to the agent's breakpoint; the agent is told.
    ide.ok(c, "continue", json!({"threadId": thread}));
    ide.event(c, "stopped");
    assert_eq!(ide_line(&mut ide, c, thread), json!(p.agent_bp));
    let w = a.ok("wait", json!({}));
    assert_eq!(stopped_line(&w), json!(p.agent_bp), "{}", w.text);
    assert!(w.text.contains("stopped (breakpoint) after the person in the IDE's `continue` at"), "{}", w.text);

    // The agent takes control back: the IDE hears it, and its next `next` is refused quietly.
    let back = a.ok("expose_session", json!({"control": false}));
    assert!(back.text.starts_with("control taken back"), "{}", back.text);
    let event = ide.event(c, "capabilities");
    assert_eq!(event["body"]["capabilities"], read_caps, "{event}");
    let r = ide.request(c, "next", json!({"threadId": thread}));
    assert_quiet_refusal(&r, "read-only");
    let s = a.session(&id);
    assert_eq!((s["state"].clone(), s["stop"]["location"]["line"].clone()), (json!("stopped"), json!(p.agent_bp)));

    // With control again, the IDE leaves asking to end the program: the agent's session lives on.
    a.ok("expose_session", json!({"control": true}));
    ide.event(c, "capabilities");
    ide.ok(c, "disconnect", json!({"terminateDebuggee": true}));
    assert!(ide.closed(c), "the IDE's socket closes after its disconnect");
    let s = a.session(&id);
    assert_eq!((s["state"].clone(), s["stop"]["location"]["line"].clone()), (json!("stopped"), json!(p.agent_bp)));
    // The agent's own step still works, and the other IDE follows it.
    let r = a.ok("step", json!({}));
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert!(!r.text.contains("by the person"), "the agent's own step: {}", r.text);
    ide.event(late, "stopped");
    a.ok("disconnect", json!({}));
    ide.event(late, "terminated");
}

#[test]
fn a_person_with_control_steps_and_continues_a_debugpy_session_the_agent_follows() {
    let source = fixture("py/mirror_me.py");
    let p = Program { source: source.clone(), program: source, first: 3, after_next: Some(4), agent_bp: 5 };
    person_and_agent_share_one_session(&p);
}

#[test]
fn a_person_with_control_steps_and_continues_an_lldb_dap_session_the_agent_follows() {
    let text = "int step(int i) { return i * 2; }\nint main(void) {\n    int x = 41;\n    int total = 0;\n    for (int i = 0; i < 3; i++)\n        total += step(i);\n    return total + x - 47;\n}\n";
    let (source, program) = build_c("mirror-control-lldb", "loop", text);
    let p = Program { source, program, first: 3, after_next: Some(4), agent_bp: 7 };
    person_and_agent_share_one_session(&p);
}

/// A loop whose body has two lines: `person` (hit first each turn) and `agent`, three turns.
struct Loop {
    source: String,
    program: String,
    person: u64,
    agent: u64,
}

/// `owner` of each breakpoint `breakpoints` lists for `path`, by line.
fn owners(a: &mut Agent, path: &str) -> Vec<(u64, String)> {
    let r = a.ok("breakpoints", json!({}));
    let files = r.s["files"].as_array().cloned().unwrap_or_default();
    let file = files.iter().find(|f| f["path"] == json!(path)).cloned().unwrap_or_default();
    let mut out: Vec<(u64, String)> = file["breakpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| (b["line"].as_u64().unwrap_or(0), b["owner"].as_str().unwrap_or("?").to_owned()))
        .collect();
    out.sort();
    out
}

/// The person's breakpoints beside the agent's in one file (DAP replaces per file: the adapter
/// holds the union): both hit and each is listed with its owner; the agent clearing the file
/// keeps the person's; taking control back removes them from the adapter.
fn person_and_agent_breakpoints_share_one_file(p: &Loop) {
    let (mut a, _, port, token) = launch_and_expose(&p.program, &p.source, p.agent);
    a.ok("expose_session", json!({"control": true}));
    let mut ide = Ide::start();
    let (c, caps) = ide.attach(port, &token);
    assert_eq!(caps["supportsConditionalBreakpoints"], json!(true), "a control IDE may set conditions: {caps}");
    ide.event(c, "stopped");

    // The person sets the agent's line and one of their own: two answers, in the IDE's order.
    let set = json!({"source": {"path": p.source}, "breakpoints": [{"line": p.person}, {"line": p.agent}]});
    let body = ide.ok(c, "setBreakpoints", set);
    let answered: Vec<(Value, Value)> = body["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .map(|b| (b["line"].clone(), b["verified"].clone()))
        .collect();
    assert_eq!(answered, vec![(json!(p.person), json!(true)), (json!(p.agent), json!(true))], "{body}");
    let expected = vec![(p.person, "person".to_owned()), (p.agent, "agent and person".to_owned())];
    assert_eq!(owners(&mut a, &p.source), expected);

    // The agent's continue stops at the person's line, and says whose breakpoint it is.
    let r = a.ok("continue", json!({}));
    assert_eq!(stopped_line(&r), json!(p.person), "{}", r.text);
    assert!(r.text.contains("the person's breakpoint"), "{}", r.text);
    ide.event(c, "stopped");

    // The agent clears the file: the person's stay, at the adapter too.
    let r = a.ok("set_breakpoints", json!({"path": p.source, "lines": []}));
    assert!(r.text.contains("(+2 of the person's, kept)"), "{}", r.text);
    let expected = vec![(p.person, "person".to_owned()), (p.agent, "person".to_owned())];
    assert_eq!(owners(&mut a, &p.source), expected);
    let r = a.ok("continue", json!({}));
    assert_eq!(stopped_line(&r), json!(p.agent), "the person's breakpoint is still at the adapter: {}", r.text);
    assert!(r.text.contains("the person's breakpoint"), "{}", r.text);

    // Control taken back: the person's breakpoints leave the adapter; the program runs to its end.
    let back = a.ok("expose_session", json!({"control": false}));
    assert!(back.text.contains("its breakpoints removed"), "{}", back.text);
    assert_eq!(owners(&mut a, &p.source), vec![]);
    let r = a.ok("continue", json!({"wait_ms": 30_000}));
    assert_eq!(r.s["state"], json!("exited"), "no breakpoint is left: {}", r.text);
    a.ok("disconnect", json!({}));
}

#[test]
fn the_persons_and_the_agents_breakpoints_share_a_file_on_debugpy() {
    let dir = agent::scratch("mirror-bp-py");
    let source = dir.join("turns.py");
    let text = "total = 0\nfor i in range(3):\n    total += i\n    total *= 1\nprint(total)\n";
    std::fs::write(&source, text).expect("write Python");
    let source = source.to_string_lossy().into_owned();
    person_and_agent_breakpoints_share_one_file(&Loop { source: source.clone(), program: source, person: 3, agent: 4 });
}

#[test]
fn the_persons_and_the_agents_breakpoints_share_a_file_on_lldb_dap() {
    let text = "int main(void) {\n    int total = 0;\n    for (int i = 0; i < 3; i++) {\n        total += i;\n        total += 2 * i;\n    }\n    return total - 9;\n}\n";
    let (source, program) = build_c("mirror-bp-lldb", "turns", text);
    person_and_agent_breakpoints_share_one_file(&Loop { source, program, person: 4, agent: 5 });
}

/// breaker3: the person's conditional breakpoint on the agent's line silently replaces the
/// agent's. The union sends both entries for the line, and debugpy keeps one breakpoint per line
/// (the last: pydevd's `consolidate_breakpoints` keys them by line), so the agent's plain
/// breakpoint at `turns.py:3`, listed as verified, stopped only when the person's `False` held:
/// never. The agent's `continue` ran the loop's two remaining turns through line 3 to the exit
/// and `breakpoints` still said `verified · hit 1×`, as if line 3 never ran again.
#[test]
fn a_persons_conditional_breakpoint_on_the_agents_line_does_not_disable_the_agents_on_debugpy() {
    let dir = agent::scratch("mirror-bp-same-line");
    let source = dir.join("turns.py");
    std::fs::write(&source, "total = 0\nfor i in range(3):\n    total += i\nprint(total)\n").expect("write Python");
    let source = source.to_string_lossy().into_owned();
    let (mut a, _, port, token) = launch_and_expose(&source, &source, 3);
    a.ok("expose_session", json!({"control": true}));
    let mut ide = Ide::start();
    let (c, _) = ide.attach(port, &token);
    ide.event(c, "stopped");
    let set = json!({"source": {"path": source}, "breakpoints": [{"line": 3, "condition": "False"}]});
    ide.ok(c, "setBreakpoints", set);

    // The loop's next turn runs line 3 again: the agent's own breakpoint there stops it.
    let r = a.ok("continue", json!({"wait_ms": 30_000}));
    assert_eq!(r.s["state"], json!("stopped"), "the agent's breakpoint at line 3 no longer stops: {}", r.text);
    assert_eq!(stopped_line(&r), json!(3), "{}", r.text);
    a.ok("disconnect", json!({}));
}
