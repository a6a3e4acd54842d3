//! The round-trip benchmark's MCP client: raw JSON-RPC over the built agentdap's stdio
//! ([`Mcp`]), and its sessions: launch → breakpoint and the table's tools at a breakpoint
//! ([`measure_mcp`]), a run to the program's exit through `continue` (`to_exit`), and
//! [`MANY`] sessions at once for the RSS figure.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value};

use super::{rounds, Env, Peer, Samples, DEBUGGEE_LOOPS, EXIT_LOOPS, MANY, OPS};

pub struct Mcp {
    pub peer: Peer,
    id: i64,
    pub tools: Vec<String>,
}

impl Mcp {
    pub fn start(env: &Env, fast: bool, s: &mut Samples) -> Result<Mcp, String> {
        let mut cmd = Command::new(&env.agentdap);
        cmd.env("AGENTDAP_PYTHON", &env.python).env("AGENTDAP_LOG", "warn");
        if let Some(server) = &env.js_debug {
            cmd.env("AGENTDAP_JS_DEBUG", server);
        }
        // agentdap finds rdbg and dlv itself, as `roundtrip/rdbg.rs` and `roundtrip/delve.rs`
        // do; CodeLLDB's vendored test copy is not where agentdap looks, so it is named.
        if let Some(codelldb) = &env.codelldb {
            cmd.env("AGENTDAP_CODELLDB", codelldb);
        }
        if !fast {
            cmd.arg("--no-debugpy-fastpath");
        }
        let t0 = Instant::now();
        let mut mcp = Mcp { peer: Peer::start(cmd, false)?, id: 0, tools: Vec::new() };
        mcp.rpc(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agentdap-bench", "version": "0"}}),
        )?;
        s.add("spawn→initialize", t0);
        mcp.peer.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        let list = mcp.rpc("tools/list", json!({}))?;
        let names = list["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
        mcp.tools = names.iter().filter_map(|t| t["name"].as_str().map(str::to_string)).collect();
        Ok(mcp)
    }

    pub fn send(&mut self, method: &str, params: Value) -> Result<i64, String> {
        self.id += 1;
        let line = json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}).to_string();
        self.peer.write(format!("{line}\n").as_bytes())?;
        Ok(self.id)
    }

    pub fn answer(&mut self, id: i64) -> Result<Value, String> {
        let r = self.peer.wait("MCP answer", |m| m["id"] == id && m.get("method").is_none())?;
        if let Some(e) = r.get("error") {
            return Err(format!("JSON-RPC error {e}"));
        }
        Ok(r["result"].clone())
    }

    fn rpc(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.send(method, params)?;
        self.answer(id)
    }

    fn has(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }

    pub fn call(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let r = self.rpc("tools/call", json!({"name": tool, "arguments": args}))?;
        if r["isError"] == true {
            return Err(format!("{tool}: {}", r["content"][0]["text"]));
        }
        Ok(r)
    }

    pub fn peak_rss_kib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.peer.child.as_ref()?.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
}

/// The program and the source holding its `BREAK` line for agentdap's adapter name.
fn target_of(env: &Env, adapter: &str) -> (PathBuf, PathBuf) {
    match adapter {
        "debugpy" => (env.py_target.clone(), env.py_target.clone()),
        "node" => (env.js_target.clone(), env.js_target.clone()),
        "rdbg" => (env.rb_target.clone(), env.rb_target.clone()),
        "delve" => (env.go_binary.clone(), env.go_target.clone()),
        _ => (env.c_binary.clone(), env.c_target.clone()),
    }
}

pub fn launch_args(env: &Env, adapter: &str) -> Value {
    let (program, source) = target_of(env, adapter);
    json!({
        "program": program, "args": [DEBUGGEE_LOOPS], "adapter": adapter,
        "breakpoints": [{"path": source, "line": env.break_line(&source)}],
    })
}

/// The first integer under a key that looks like a variables reference, anywhere in `v`.
fn find_ref(v: &Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            for key in ["ref", "variables_reference", "variablesReference"] {
                if let Some(r) = m.get(key).filter(|r| r.as_i64().is_some_and(|n| n > 0)) {
                    return Some(r.clone());
                }
            }
            m.values().find_map(find_ref)
        }
        Value::Array(a) => a.iter().find_map(find_ref),
        _ => None,
    }
}

fn mcp_session(
    env: &Env,
    adapter: &str,
    fast: bool,
    s: &mut Samples,
    rss: &mut Vec<(String, f64)>,
) -> Result<Vec<String>, String> {
    let mut mcp = Mcp::start(env, fast, s)?;
    let t = Instant::now();
    mcp.call("launch", launch_args(env, adapter))?;
    s.add("launch→breakpoint", t);
    for _ in 0..rounds() {
        // agentdap's side of the ABAB turns (`Turns` in `roundtrip/peer.rs`).
        let _turn = super::peer::TURNS.take(1);
        for op in OPS.iter().filter(|o| o.name != "launch→breakpoint") {
            let Some(tool) = op.tool.filter(|t| mcp.has(t)) else { continue };
            let mut args = (op.args)();
            if tool == "variables" {
                // A reference from `scopes` (or `context`) if those tools exist.
                let from = ["scopes", "context"].into_iter().find(|t| mcp.has(t));
                let Some(from) = from else { continue };
                let got = mcp.call(from, json!({}))?;
                let Some(r) = find_ref(&got["structuredContent"]) else { continue };
                args["ref"] = r;
            }
            let t = Instant::now();
            mcp.call(tool, args)?;
            s.add(op.name, t);
        }
    }
    if let Some(kib) = mcp.peak_rss_kib() {
        rss.push((format!("{adapter}:1"), kib));
    }
    let _ = mcp.call("disconnect", json!({}));
    let tools = mcp.tools.clone();
    mcp.peer.finish();
    Ok(tools)
}

/// One fresh agentdap launching a program given [`EXIT_LOOPS`]: at its breakpoint's one hit
/// the breakpoint is removed (`set_breakpoints` with none), and `continue → exited` is the
/// `continue` call until its answer, which must say the program exited with code 0
/// (agentdap waits for the exit, and for Delve for the status it reads after `disconnect`).
pub fn to_exit(env: &Env, adapter: &str, fast: bool, s: &mut Samples) -> Result<(), String> {
    let mut mcp = Mcp::start(env, fast, &mut Samples::default())?;
    let (_, source) = target_of(env, adapter);
    let mut args = launch_args(env, adapter);
    args["args"] = json!([EXIT_LOOPS]);
    let launched = mcp.call("launch", args)?;
    if launched["structuredContent"]["state"] != "stopped" {
        return Err(format!("launch did not stop at the breakpoint: {}", launched["content"][0]["text"]));
    }
    mcp.call("set_breakpoints", json!({"path": source, "breakpoints": []}))?;
    let t = Instant::now();
    let r = mcp.call("continue", json!({}))?;
    let sc = &r["structuredContent"];
    if sc["state"] != "exited" || sc["exit_code"] != 0 {
        return Err(format!("continue did not report the exit with code 0: {}", r["content"][0]["text"]));
    }
    s.add("continue→exited", t);
    let _ = mcp.call("disconnect", json!({}));
    mcp.peer.finish();
    Ok(())
}

/// agentdap's round trips (the one session that makes them, with the one-session RSS): the
/// tools `tools/list` offers.
pub fn measure_round_trips(
    env: &Env,
    adapter: &str,
    fast: bool,
    s: &mut Samples,
    rss: &mut Vec<(String, f64)>,
) -> Result<Vec<String>, String> {
    mcp_session(env, adapter, fast, s, rss)
}

/// One fresh start through agentdap: spawn → initialize and launch → breakpoint.
pub fn measure_start(env: &Env, adapter: &str, fast: bool, s: &mut Samples) -> Result<(), String> {
    let mut mcp = Mcp::start(env, fast, s)?;
    let t = Instant::now();
    mcp.call("launch", launch_args(env, adapter))?;
    s.add("launch→breakpoint", t);
    let _ = mcp.call("disconnect", json!({}));
    mcp.peer.finish();
    Ok(())
}

/// agentdap's peak RSS with [`MANY`] sessions stopped at a breakpoint at once.
pub fn many_sessions(env: &Env) -> Result<f64, String> {
    let mut scratch = Samples::default();
    let mut mcp = Mcp::start(env, true, &mut scratch)?;
    let ids: Vec<i64> = (0..MANY)
        .map(|_| mcp.send("tools/call", json!({"name": "launch", "arguments": launch_args(env, "debugpy")})))
        .collect::<Result<_, _>>()?;
    for id in ids {
        let r = mcp.answer(id)?;
        if r["isError"] == true {
            return Err(format!("launch: {}", r["content"][0]["text"]));
        }
    }
    mcp.call("sessions", json!({}))?;
    let kib = mcp.peak_rss_kib().ok_or("no /proc status")?;
    mcp.peer.finish();
    Ok(kib)
}
