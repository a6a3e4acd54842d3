//! The round-trip benchmark's raw DAP client: requests, responses and events on a [`Peer`],
//! what differs between adapters once connected ([`RawTarget`]), and one raw session from
//! `initialize` to its end ([`raw_drive`]): a start, the round-trip operations at a breakpoint,
//! or a run to the program's exit. It must not speak DAP through agentdap's own code: it is the
//! baseline agentdap is measured against.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value};

use super::{rounds, Env, Peer, Samples, EXIT_LOOPS};

pub struct Dap {
    pub peer: Peer,
    pub seq: i64,
}

impl Dap {
    pub fn send(&mut self, command: &str, arguments: Value) -> Result<i64, String> {
        self.seq += 1;
        let body = json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        self.peer.write(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())?;
        Ok(self.seq)
    }

    pub fn response(&mut self, seq: i64) -> Result<Value, String> {
        let r = self.peer.wait("response", |m| m["type"] == "response" && m["request_seq"] == seq)?;
        if r["success"] == true {
            Ok(r)
        } else {
            Err(format!("{} failed: {}", r["command"], r["message"]))
        }
    }

    pub fn request(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        let seq = self.send(command, arguments)?;
        self.response(seq)
    }

    pub fn event(&mut self, name: &str) -> Result<Value, String> {
        self.peer.wait(name, |m| m["type"] == "event" && m["event"] == name)
    }
}

/// How the adapter makes the program's exit known (the recipe's `RuntimeQuirks::exit_report`).
#[derive(Clone, Copy)]
pub enum RawExit {
    /// An `exited` event with `exitCode`, and `terminated`.
    Event,
    /// `terminated` alone; after the client's `disconnect` a console `output` event holds
    /// `marker` and the code (Delve 1.20.2: `Process <pid> has exited with status 0`).
    ConsoleAfterDisconnect { marker: &'static str },
}

/// What differs between adapters for the raw client once it is connected.
pub struct RawTarget {
    pub adapter: &'static str,
    /// The `launch` arguments agentdap's recipe sends (its launch defaults and the session's keys).
    pub launch: fn(&Env) -> Value,
    pub source: fn(&Env) -> PathBuf,
    /// The `evaluate` context agentdap sends when the agent names none
    /// (`RuntimeQuirks::evaluate_context` of the recipe).
    pub context: &'static str,
    /// The `setExceptionBreakpoints` filters agentdap sends before `configurationDone` (the
    /// adapter's defaults); `None`: the raw client sends no `setExceptionBreakpoints`.
    pub exception_filters: Option<&'static [&'static str]>,
    /// How the exit is known; `None`: the block times no exit (its `Run::ToExit` is an error).
    pub exit: Option<RawExit>,
}

/// What one session measures.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// spawn → initialize and launch → breakpoint, then `disconnect`.
    Start,
    /// A start, then [`rounds`] of the round-trip operations at the breakpoint.
    RoundTrips,
    /// A program given [`EXIT_LOOPS`]: at its breakpoint's one hit the breakpoint is removed,
    /// and `continue → exited` is timed (no start samples).
    ToExit,
}

/// A raw session with an adapter on stdio started by `command`.
pub fn raw_session(env: &Env, command: Command, target: &RawTarget, s: &mut Samples, run: Run) -> Result<(), String> {
    let t0 = Instant::now();
    let mut dap = Dap { peer: Peer::start(command, true)?, seq: 0 };
    let driven = raw_drive(&mut dap, env, target, t0, s, run);
    dap.peer.finish();
    driven
}

/// A raw session on a connected client, from `initialize` (spawn → initialize counts from
/// `t0`) to its end: the `disconnect` request, or for [`Run::ToExit`] the program's exit.
pub fn raw_drive(
    dap: &mut Dap,
    env: &Env,
    target: &RawTarget,
    t0: Instant,
    s: &mut Samples,
    run: Run,
) -> Result<(), String> {
    let starts = run != Run::ToExit;
    dap.request(
        "initialize",
        json!({"clientID": "agentdap-bench", "adapterID": target.adapter, "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"}),
    )?;
    if starts {
        s.add("spawn→initialize", t0);
    }
    let mut arguments = (target.launch)(env);
    if run == Run::ToExit {
        arguments["args"] = json!([EXIT_LOOPS]);
    }
    let launch = dap.send("launch", arguments)?;
    dap.event("initialized")?;
    let source = (target.source)(env);
    dap.request(
        "setBreakpoints",
        json!({"source": {"path": source}, "breakpoints": [{"line": env.break_line(&source)}]}),
    )?;
    if let Some(filters) = target.exception_filters {
        dap.request("setExceptionBreakpoints", json!({"filters": filters}))?;
    }
    dap.request("configurationDone", json!({}))?;
    let stopped = dap.event("stopped")?;
    dap.response(launch)?;
    let thread = stopped["body"]["threadId"].clone();
    if starts {
        // agentdap's `launch` answers with the stop's line and the top frame's locals, so the
        // raw client reads them too, as its `step` rows do.
        top_frame_locals(dap, &thread)?;
        s.add("launch→breakpoint", t0);
    }
    match run {
        Run::Start => {}
        Run::RoundTrips => {
            for _ in 0..rounds() {
                round_trip(dap, &thread, target.context, s)?;
            }
        }
        Run::ToExit => {
            dap.request("setBreakpoints", json!({"source": {"path": source}, "breakpoints": []}))?;
            let exit = target.exit.ok_or_else(|| format!("no exit rows for {}", target.adapter))?;
            return to_exit(dap, &thread, exit, s);
        }
    }
    let _ = dap.request("disconnect", json!({"terminateDebuggee": true}));
    Ok(())
}

/// `continue` with no breakpoint left: `continue→exited` once the exit code is known (the
/// `exited` event, or Delve's console line after `disconnect`, which is what agentdap waits
/// for), `continue→terminated` when `terminated` comes. A code other than 0 (the program's
/// own) is an error, so a row never times a wrong answer.
fn to_exit(dap: &mut Dap, thread: &Value, exit: RawExit, s: &mut Samples) -> Result<(), String> {
    let t = Instant::now();
    dap.send("continue", json!({"threadId": thread}))?;
    match exit {
        RawExit::Event => {
            let (mut exited, mut terminated) = (false, false);
            while !(exited && terminated) {
                let m = dap.peer.wait("exited and terminated", |m| {
                    m["type"] == "event" && (m["event"] == "exited" || m["event"] == "terminated")
                })?;
                if m["event"] == "exited" && !exited {
                    s.add("continue→exited", t);
                    exited = true;
                    if m["body"]["exitCode"] != 0 {
                        return Err(format!("the program exited with {}, not 0", m["body"]["exitCode"]));
                    }
                } else if m["event"] == "terminated" && !terminated {
                    s.add("continue→terminated", t);
                    terminated = true;
                }
            }
            let _ = dap.request("disconnect", json!({}));
        }
        RawExit::ConsoleAfterDisconnect { marker } => {
            dap.event("terminated")?;
            s.add("continue→terminated", t);
            // agentdap's `disconnect` after such a `terminated` (`send_disconnect`).
            let seq = dap.send("disconnect", json!({"restart": false}))?;
            let line = dap.peer.wait("the exit status", |m| {
                m["event"] == "output" && m["body"]["output"].as_str().is_some_and(|o| o.contains(marker))
            })?;
            s.add("continue→exited", t);
            let text = line["body"]["output"].as_str().unwrap_or_default();
            let code = text.split(marker).nth(1).map(str::trim);
            if code != Some("0") {
                return Err(format!("the program's exit: {text:?}, not status 0"));
            }
            dap.response(seq)?;
        }
    }
    Ok(())
}

/// One round of the measured operations at a breakpoint, on the connection that owns `thread`;
/// `evaluate` in `context`.
pub fn round_trip(dap: &mut Dap, thread: &Value, context: &str, s: &mut Samples) -> Result<(), String> {
    // The raw client's side of the ABAB turns (`Turns` in `roundtrip/peer.rs`).
    let _turn = super::peer::TURNS.take(0);
    let t = Instant::now();
    let st = dap.request("stackTrace", json!({"threadId": thread, "levels": 20}))?;
    s.add("stack_trace", t);
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let t = Instant::now();
    dap.request("evaluate", json!({"expression": "acc", "frameId": frame, "context": context}))?;
    s.add("evaluate", t);
    let t = Instant::now();
    for _ in 0..3 {
        dap.request("evaluate", json!({"expression": "acc", "frameId": frame, "context": context}))?;
    }
    s.add("evaluate ×3", t);
    let scopes = dap.request("scopes", json!({"frameId": frame}))?;
    let vref = scopes["body"]["scopes"][0]["variablesReference"].clone();
    let t = Instant::now();
    dap.request("variables", json!({"variablesReference": vref}))?;
    s.add("variables", t);
    // `context` through agentdap is one call doing these three (its DAP log: `levels: 5`).
    let t = Instant::now();
    let st = dap.request("stackTrace", json!({"threadId": thread, "levels": 5}))?;
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let scopes = dap.request("scopes", json!({"frameId": frame}))?;
    let vref = scopes["body"]["scopes"][0]["variablesReference"].clone();
    dap.request("variables", json!({"variablesReference": vref}))?;
    s.add("context", t);
    // `step` and `continue` through agentdap answer with where the program stopped and the top
    // frame's locals, so the raw client asks for them too; `· location` the top frame alone
    // (what any client needs to know the line).
    for (command, with_locals, name) in [
        ("next", true, "step"),
        ("next", true, "step · again"),
        ("next", false, "step · location"),
        ("continue", true, "continue"),
        ("continue", false, "continue · location"),
    ] {
        let t = Instant::now();
        dap.request(command, json!({"threadId": thread}))?;
        dap.event("stopped")?;
        if with_locals {
            top_frame_locals(dap, thread)?;
        } else {
            dap.request("stackTrace", json!({"threadId": thread, "levels": 1}))?;
        }
        s.add(name, t);
    }
    Ok(())
}

/// What a stop result of agentdap's carries: the top frame (`levels: 1`) and its first scope's
/// variables.
fn top_frame_locals(dap: &mut Dap, thread: &Value) -> Result<(), String> {
    let st = dap.request("stackTrace", json!({"threadId": thread, "levels": 1}))?;
    let frame = st["body"]["stackFrames"][0]["id"].clone();
    let scopes = dap.request("scopes", json!({"frameId": frame}))?;
    let vref = scopes["body"]["scopes"][0]["variablesReference"].clone();
    dap.request("variables", json!({"variablesReference": vref}))?;
    Ok(())
}

/// debugpy on stdio: the fast path's bootstrap or stock debugpy
/// (`agentdap::dap::adapters::debugpy::fastpath::adapter_args`).
pub fn debugpy_command(env: &Env, fast: bool) -> Command {
    let mut c = Command::new(&env.python);
    c.args(agentdap::dap::adapters::debugpy::fastpath::adapter_args(fast));
    c.env("PYDEVD_DISABLE_FILE_VALIDATION", "1");
    c
}

pub fn lldb_command(env: &Env, _fast: bool) -> Command {
    Command::new(env.lldb_dap.clone().unwrap_or_default())
}

pub const DEBUGPY: RawTarget = RawTarget {
    adapter: "debugpy",
    // agentdap's recipe defaults (`showReturnValue`, `subProcess`, `redirectOutput`, …: what its
    // stop results and output show) with the session's keys, as its DAP log shows them sent.
    launch: |env| {
        let mut launch = agentdap::dap::adapters::debugpy::launch_defaults();
        launch["program"] = json!(env.py_target);
        launch["args"] = json!([super::DEBUGGEE_LOOPS]);
        launch["stopOnEntry"] = json!(false);
        launch
    },
    source: |env| env.py_target.clone(),
    context: "repl",
    // debugpy 1.8.22: `uncaught` is its default filter, on only once sent (the recipe's
    // `default_filters_off_until_sent`); agentdap sends it, so an uncaught exception stops.
    exception_filters: Some(&["uncaught"]),
    exit: Some(RawExit::Event),
};

pub const LLDB: RawTarget = RawTarget {
    adapter: "lldb-dap",
    launch: |env| json!({"program": env.c_binary, "args": [super::DEBUGGEE_LOOPS], "stopOnEntry": false}),
    source: |env| env.c_target.clone(),
    // The lldb recipe's `evaluate_context` (`src/dap/adapters/lldb.rs`).
    context: "watch",
    exception_filters: None,
    exit: Some(RawExit::Event),
};
