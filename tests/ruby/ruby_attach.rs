//! Attach to an `rdbg --open --port P --host 127.0.0.1` the test started (`attach {adapter:
//! "rdbg", connect: {host, port}}`): rdbg 1.4.0 pauses the program on `attach`, a breakpoint in
//! `tick` is hit, and `disconnect` detaches (`terminateDebuggee: false`). 1.4.0 cannot outlive
//! its client: it dies of a `NoMethodError` in `server_dap.rb` — `@sock.write` on nil when the
//! next debugger event is written to the closed connection (`send_event`), or `@q_msg.pop` on nil
//! when its session thread reads the next command first (`readline`); which of its threads gets
//! there first is rdbg's race. Pinned here, so a fixed rdbg shows up as this test's failure.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::agent::{free_port, Reap};
use agentdap::os::spawn::Pid;
use serde_json::json;

use crate::ruby_util::{stop_at, Ruby, GONE, MARK_VAR, START};

/// The debug gem's rdbg as agentdap would find it on this machine (`$AGENTDAP_RDBG`, else
/// Debian's bundled gem).
fn rdbg() -> String {
    std::env::var("AGENTDAP_RDBG").unwrap_or_else(|_| {
        let dir = std::path::Path::new("/usr/lib/ruby/gems");
        let mut found: Vec<_> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|abi| std::fs::read_dir(abi.path().join("gems")).into_iter().flatten().flatten())
            .map(|g| g.path().join("exe/rdbg"))
            .filter(|p| p.to_string_lossy().contains("/debug-") && p.is_file())
            .collect();
        found.sort();
        let last = found.pop().expect("test dependency missing: the debug gem (apt-get install ruby)");
        last.to_string_lossy().into_owned()
    })
}

/// `ticker.rb`: `tick` (lines 3–5) runs every 20 ms; line 4 is `$ticks += 1`.
#[test]
fn attach_to_rdbg_open_stops_at_a_breakpoint_and_detach_leaves_it_to_rdbg() {
    let mut n = Ruby::start("attach");
    let p = n.copy("ticker.rb");
    let port = free_port();
    let mut cmd = Command::new("ruby");
    cmd.arg(rdbg()).args(["--open", "--port", &port.to_string(), "--host", "127.0.0.1", "--"]).arg(&p);
    cmd.env(MARK_VAR, &n.mark).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut target = Reap(cmd.spawn().expect("start rdbg --open"));
    let target_pid = target.0.id() as Pid;
    let stderr = target.0.stderr.take().expect("piped");
    let mut lines = BufReader::new(stderr).lines();
    // 1.4.0 fails a client that connects before its session exists: wait until it says it
    // waits for one (what agentdap's own launch waits for, `rdbg::READY_LINE`).
    let ready =
        lines.by_ref().take(5).map_while(Result::ok).any(|l| l.starts_with("DEBUGGER: wait for debugger connection"));
    assert!(ready, "rdbg --open did not say it waits for a client");
    let rest = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<String>>());

    let args = json!({"adapter": "rdbg", "connect": {"host": "127.0.0.1", "port": port},
                      "breakpoints": [{"path": p, "line": 4}], "wait_ms": START});
    let r = n.a.ok("attach", args);
    assert_eq!((r.s["session"].clone(), r.s["adapter"].clone()), (json!("s1"), json!("rdbg")), "{}", r.text);
    // rdbg 1.4.0's `attach` pauses the program (`stopped {reason: pause}`): the attach answers
    // with that stop, not `running` a moment before it; the breakpoint is the next stop.
    assert_eq!(r.s["state"], json!("stopped"), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("pause"), "{}", r.text);
    let r = n.a.ok("continue", json!({}));
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    assert_eq!(stop_at(&r.s), (json!(p), json!(4), json!("Object#tick")), "{}", r.text);
    let ticks = n.a.ok("evaluate", json!({"expression": "$ticks"}));
    assert!(ticks.s["value"].as_str().is_some_and(|v| v.parse::<u64>().is_ok()), "{}", ticks.text);

    let r = n.a.ok("disconnect", json!({}));
    // The result says what becomes of the program (`Quirks::detached_program_fate`), never that
    // it keeps running.
    assert!(r.text.contains("(detached; debug 1.4.0 does not survive a client leaving"), "{}", r.text);
    assert!(!r.text.contains("keeps running"), "{}", r.text);
    n.assert_no_leftovers(&[target_pid], GONE, "after detaching");
    n.finish_except(&[target_pid]);
    // rdbg 1.4.0's own end, not agentdap's doing (agentdap has exited; it never signalled it).
    let status = target.0.wait().expect("wait for the attached program");
    let stderr = rest.join().unwrap_or_default().join("\n");
    assert_eq!(status.code(), Some(1), "{stderr}");
    let died_of_its_closed_connection = ["`write' for nil:NilClass", "`pop' for nil:NilClass"]
        .iter()
        .any(|m| stderr.contains(&format!("undefined method {m} (NoMethodError)")));
    assert!(died_of_its_closed_connection && stderr.contains("server_dap.rb"), "{stderr}");
}
