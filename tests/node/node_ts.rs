//! TypeScript on real js-debug through the built binary: `greet.ts` compiled by `tsc --sourceMap`
//! (in the test, into its scratch project) and run through tsx, with no `outFiles` or
//! `resolveSourceMapLocations` given: the breakpoint set on the `.ts` line is the one reported
//! verified and hit, and the stop's path and line are the `.ts` ones (the compiled line differs:
//! the interface at the top leaves no code).

use std::process::Command;

use crate::agent::{self, lines_of};
use serde_json::{json, Value};

use crate::node_util::{npm_bin, Node, START};

/// `greet.ts` line 8: `const line = …` inside `greet(p)`; `years` is 37 there. In the compiled
/// `greet.js` it is line 4.
const TS_LINE: u64 = 8;

/// The one breakpoint `session` lists: (path, line, verified); it is also marked hit.
fn only_breakpoint(n: &mut Node, session: &str) -> (Value, Value, Value) {
    let b = n.a.ok("breakpoints", json!({"session": session}));
    assert!(b.text.contains(":8 verified · hit 1× (last rev "), "{}", b.text);
    let files = b.s["files"].as_array().cloned().unwrap_or_default();
    assert_eq!(files.len(), 1, "one file with breakpoints: {}", b.text);
    let bps = files[0]["breakpoints"].as_array().cloned().unwrap_or_default();
    assert_eq!(bps.len(), 1, "{}", b.text);
    (files[0]["path"].clone(), bps[0]["line"].clone(), bps[0]["verified"].clone())
}

#[test]
fn tsc_source_maps_bind_the_ts_line_and_stop_there() {
    let mut n = Node::start("tsc");
    let ts = n.copy("greet.ts");
    let out = n.dir.join("out");
    let mut tsc = Command::new(npm_bin("tsc"));
    tsc.arg("--sourceMap").arg("--outDir").arg(&out).arg(&ts);
    agent::build(&mut tsc, "typescript (scripts/install-test-deps)");
    let js = out.join("greet.js");
    let compiled = std::fs::read_to_string(&js).expect("tsc wrote greet.js");
    assert!(compiled.contains("sourceMappingURL=greet.js.map"), "{compiled}");
    assert!(!compiled.lines().nth(TS_LINE as usize - 1).unwrap_or("").contains("const line"), "the lines differ");

    let args = json!({"program": js, "breakpoints": [{"path": ts, "line": TS_LINE}], "wait_ms": START});
    let r = n.a.ok("launch", args);
    assert_eq!((r.s["session"].clone(), r.s["state"].clone()), (json!("s1"), json!("stopped")), "{}", r.text);
    assert_eq!(r.s["stop"]["reason"], json!("breakpoint"), "{}", r.text);
    let loc = &r.s["stop"]["location"];
    assert_eq!((loc["path"].clone(), loc["line"].clone()), (json!(ts), json!(TS_LINE)), "{}", r.text);
    assert!(r.text.starts_with("s1 stopped (breakpoint) at greet.ts:8"), "{}", r.text);
    assert_eq!(only_breakpoint(&mut n, "s1"), (json!(ts), json!(TS_LINE), json!(true)));
    assert_eq!(n.a.ok("evaluate", json!({"expression": "years"})).s["value"], json!("37"));

    let r = n.a.ok("continue", json!({"wait_ms": START}));
    assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{}", r.text);
    assert_eq!(lines_of(&n.a.ok("output", json!({})), "stdout"), ["hello ada, next year 37"]);
    n.finish();
}

/// The stop a result leads with: its own, or the first child session's (`child_stops`), as
/// (session, stop).
fn leading_stop(r: &Value) -> (Value, Value) {
    if r["state"] == json!("stopped") {
        return (r["session"].clone(), r["stop"].clone());
    }
    let first = &r["child_stops"][0];
    (first["session"].clone(), first["stop"].clone())
}

/// Every session's parent chain reaches `s1`.
fn under_s1(n: &mut Node, id: &str) -> bool {
    let mut at = id.to_owned();
    for _ in 0..8 {
        if at == "s1" {
            return true;
        }
        match n.a.session(&at)["parent"].as_str() {
            Some(p) => at = p.to_owned(),
            None => return false,
        }
    }
    false
}

/// tsx as the runtime (`runtimeExecutable`, the usual launch.json for tsx): tsx's CLI is a node
/// process that starts node again with its loader, so the program is a child session of s1
/// (nested children appear as child sessions, as debugpy's subprocesses do); with tsx's loader
/// given to node itself (`runtimeArgs: ["--import", …]`) the program is s1. Either way the
/// breakpoint on the `.ts` line is the one verified and hit.
#[test]
fn tsx_runs_the_ts_file_and_stops_on_the_ts_line() {
    let loader = crate::common::node_package("tsx").join("dist/loader.mjs");
    assert!(loader.exists(), "tsx's loader moved: {}", loader.display());
    let runtimes = [
        ("tsx-exe", json!({"runtimeExecutable": npm_bin("tsx")})),
        ("tsx-import", json!({"runtimeArgs": ["--import", loader]})),
    ];
    for (tag, adapter_args) in runtimes {
        let mut n = Node::start(tag);
        let ts = n.copy("greet.ts");
        let args = json!({"program": ts, "adapter_args": adapter_args,
                          "breakpoints": [{"path": ts, "line": TS_LINE}], "wait_ms": START});
        // No `adapter`: a `.ts` program goes to js-debug too.
        let r = n.a.ok("launch", args);
        let (session, stop) = leading_stop(&r.s);
        assert_eq!(stop["reason"], json!("breakpoint"), "{tag}: {}", r.text);
        let loc = &stop["location"];
        assert_eq!((loc["path"].clone(), loc["line"].clone()), (json!(ts), json!(TS_LINE)), "{tag}: {}", r.text);
        assert_eq!(loc["function"].as_str().map(|f| f.ends_with("greet")), Some(true), "{tag}: {}", r.text);
        let session = session.as_str().unwrap_or_default().to_owned();
        if tag == "tsx-import" {
            assert_eq!(session, "s1", "{tag}: {}", r.text);
        }
        assert!(
            under_s1(&mut n, &session),
            "{tag}: {session} is s1 or below it: {}",
            n.a.ok("sessions", json!({})).text
        );
        assert!(r.text.contains(&format!("{session} stopped (breakpoint) at greet.ts:8")), "{tag}: {}", r.text);
        assert_eq!(only_breakpoint(&mut n, &session), (json!(ts), json!(TS_LINE), json!(true)), "{tag}");
        let e = n.a.ok("evaluate", json!({"session": session, "expression": "years"}));
        assert_eq!(e.s["value"], json!("37"), "{tag}: {}", e.text);

        n.a.ok("continue", json!({"session": session, "wait_ms": START}));
        let r = n.a.ok("wait", json!({"session": "s1", "for": "exit", "wait_ms": START}));
        assert_eq!((r.s["state"].clone(), r.s["exit_code"].clone()), (json!("exited"), json!(0)), "{tag}: {}", r.text);
        let out = n.a.ok("output", json!({"session": "s1"}));
        assert_eq!(lines_of(&out, "stdout"), ["hello ada, next year 37"], "{tag}: {}", out.text);
        n.finish();
    }
}
