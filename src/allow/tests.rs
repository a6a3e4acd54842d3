//! The permission model: parsing, the membership table, the sentences.

use serde_json::{json, Map, Value};

use super::membership::{check, ever_allowed, Verdict, PARTIAL, WHOLE};
use super::{hover, Allow, Switch, SWITCHES};

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[test]
fn parsing_lists_presets_and_errors() {
    assert!(Allow::default().is_all());
    let a = Allow::parse(" launch , control ").unwrap();
    assert!(a.has(Switch::Launch) && a.has(Switch::Control));
    assert!(!a.has(Switch::Evaluate) && !a.has(Switch::Attach) && !a.has(Switch::Raw));
    let inspect = Allow::parse("inspect").unwrap();
    assert_eq!(SWITCHES.iter().filter(|s| inspect.has(**s)).collect::<Vec<_>>(), vec![&Switch::Attach]);
    assert!(inspect.hover_only());
    let err = Allow::parse("launch,spawn").unwrap_err();
    assert_eq!(
        err,
        "--allow: unknown switch `spawn`; valid: launch, attach, evaluate, modify, control, mirror, raw, inspect"
    );
    assert!(Allow::parse(" , ").unwrap_err().starts_with("--allow needs at least one of: launch"));
    assert!(Allow::parse(&SWITCHES.map(|s| s.name()).join(",")).unwrap().is_all());
    assert!(Allow::from_env_value(None).is_all());
    assert!(Allow::from_env_value(Some("  ")).is_all());
    assert!(!Allow::from_env_value(Some("inspect")).is_all());
}

#[test]
fn refusal_names_the_set_and_the_switch() {
    let inspect = Allow::parse("inspect").unwrap();
    assert_eq!(
        check(inspect, "set_variable", &args(json!({"name": "x", "value": "1"}))),
        Verdict::Refused(
            "`set_variable` changes the program; agentdap runs with --allow inspect; --allow modify allows it".into()
        )
    );
}

/// Every tool of the registry, and its verdict under `inspect` for a plain call and for its
/// guarded mode: the table README § Operator limits shows.
#[test]
fn membership_of_every_tool() {
    let inspect = Allow::parse("inspect").unwrap();
    let all = Allow::all();
    let names: Vec<&str> = crate::mcp::tools::registry().iter().map(|t| t.name).collect();
    assert_eq!(names.len(), 36);
    for name in &names {
        let whole = WHOLE.iter().find(|(t, _)| t == name).map(|(_, s)| *s);
        let partial = PARTIAL.iter().find(|(t, _, _)| t == name);
        assert!(!(whole.is_some() && partial.is_some()), "{name} is in both tables");
        assert_eq!(check(all, name, &Map::new()), Verdict::Allowed, "{name} under all");
        match whole {
            Some(Switch::Attach) => assert!(ever_allowed(inspect, name)),
            Some(s) => {
                assert!(!ever_allowed(inspect, name), "{name}");
                let Verdict::Refused(why) = check(inspect, name, &Map::new()) else { panic!("{name} allowed") };
                assert!(why.ends_with(&format!("--allow {} allows it", s.name())), "{why}");
            }
            None => assert!(ever_allowed(inspect, name), "{name} must stay listed"),
        }
    }
    for (tool, _, _) in PARTIAL {
        assert!(names.contains(tool), "{tool} is no tool");
    }
    for (tool, _) in WHOLE {
        assert!(names.contains(tool), "{tool} is no tool");
    }
}

#[test]
fn modes_of_partial_tools() {
    let inspect = Allow::parse("inspect").unwrap();
    let refused = |tool: &str, a: Value| matches!(check(inspect, tool, &args(a)), Verdict::Refused(_));
    assert!(!refused("memory", json!({"address": "0x10", "count": 4})));
    assert!(refused("memory", json!({"op": "write", "address": "0x10", "data": "AA=="})));
    assert!(!refused("watch", json!({"remove": ["x"]})));
    assert!(refused("watch", json!({"add": ["x"]})));
    assert!(!refused("disconnect", json!({})));
    assert!(refused("disconnect", json!({"terminate_debuggee": true})));
    assert!(!refused("set_breakpoints", json!({"path": "a.py", "breakpoints": [{"line": 3}]})));
    assert!(refused("set_breakpoints", json!({"path": "a.py", "breakpoints": [{"line": 3, "condition": "f()"}]})));
    assert!(refused("set_breakpoints", json!({"path": "a.py", "breakpoints": [{"line": 3, "log_message": "{f()}"}]})));
    // The DAP spellings the breakpoint types accept as aliases, and a data breakpoint's expression.
    for key in ["hitCondition", "logMessage", "hit_condition", "expression"] {
        let bp = json!({"path": "a.py", "breakpoints": [{"line": 3, key: "f()"}]});
        assert!(refused("set_breakpoints", bp), "{key}");
    }
    // Arguments that run commands or code although the tool itself is allowed.
    assert!(refused("attach", json!({"pid": 1, "adapter_args": {"python": "/tmp/x.sh"}})));
    assert!(refused("attach", json!({"pid": 1, "adapter_args": {"initCommands": ["platform shell id"]}})));
    assert!(!refused("attach", json!({"pid": 1, "adapter_args": {}})));
    assert!(refused("memory", json!({"address": "(char*)(bump(5))", "count": 4})));
    assert!(refused("memory", json!({"op": "disassemble", "address": "f()"})));
    assert!(!refused("memory", json!({"address": " 0x7fff0010 ", "count": 4})));
    assert!(!refused("memory", json!({"address": "4096", "count": 4})));
    assert!(refused("disconnect", json!({"graceful": true})));
    // Each rule that applies is checked: an allowed one does not let a later one through.
    let evaluate = Allow::parse("attach,evaluate").unwrap();
    let both = json!({"pid": 1, "adapter_args": {"python": "p"}, "breakpoints": [{"path": "a.py", "line": 3, "condition": "f()"}]});
    assert!(matches!(check(evaluate, "attach", &args(both)), Verdict::Refused(why) if why.contains("--allow launch")));
    let launch = Allow::parse("launch,attach").unwrap();
    assert_eq!(check(launch, "attach", &args(json!({"pid": 1, "adapter_args": {"python": "p"}}))), Verdict::Allowed);
    // `attach` (allowed by inspect) takes the first breakpoints: their code needs `evaluate` too.
    assert!(!refused("attach", json!({"connect": "127.0.0.1:1", "breakpoints": [{"path": "a.py", "line": 3}]})));
    let coded = json!({"connect": "127.0.0.1:1", "breakpoints": [{"path": "a.py", "line": 3, "condition": "f()"}]});
    assert!(refused("attach", coded));
    assert!(refused("set_exception_breakpoints", json!({"filters": ["raised"], "conditions": {"raised": "f()"}})));
    assert!(!refused("set_exception_breakpoints", json!({"filters": ["raised"]})));
    assert_eq!(check(inspect, "evaluate", &args(json!({"expression": "x"}))), Verdict::HoverOnly);
    assert_eq!(check(inspect, "evaluate", &args(json!({"expression": "x", "context": "hover"}))), Verdict::HoverOnly);
    assert_eq!(
        check(inspect, "evaluate", &args(json!({"expression": "x", "context": "repl"}))),
        Verdict::Refused(
            "`evaluate` in context `repl` runs code in the program; agentdap runs with --allow inspect; --allow evaluate allows it".into()
        )
    );
    let with_eval = Allow::parse("attach,evaluate").unwrap();
    assert_eq!(check(with_eval, "evaluate", &args(json!({"expression": "x", "context": "repl"}))), Verdict::Allowed);
    assert!(matches!(check(with_eval, "set_variable", &Map::new()), Verdict::Refused(_)));
}

#[test]
fn mirror_gets_at_most_the_agents_switches() {
    let a = Allow::parse("attach,control").unwrap();
    assert!(a.mirror_may(Switch::Control));
    assert!(!a.mirror_may(Switch::Modify) && !a.mirror_may(Switch::Evaluate));
    assert!(SWITCHES.iter().all(|s| Allow::all().mirror_may(*s)));
}

#[test]
fn hover_data_per_adapter() {
    assert!(!hover::verdict("debugpy").side_effect_free);
    assert!(hover::verdict("debugpy").evidence.contains("1.8.22"));
    assert!(!hover::verdict("delve").side_effect_free);
    assert!(!hover::verdict("mydbg").side_effect_free);
}

#[test]
fn summary_says_what_is_allowed() {
    assert_eq!(Allow::all().summary(), "Allowed: everything (no --allow limit).");
    let s = Allow::parse("inspect").unwrap().summary();
    assert!(
        s.starts_with(
            "Allowed (--allow inspect): attach; not allowed: launch, evaluate, modify, control, mirror, raw."
        ),
        "{s}"
    );
    assert!(s.contains("only in `hover`"));
}

#[test]
fn a_mirror_evaluate_without_the_switch_is_hover_on_a_safe_adapter_only() {
    let inspect = Allow::parse("attach,mirror").unwrap();
    let mut args = Some(json!({"expression": "x", "frameId": 1, "context": "repl"}));
    assert!(hover::hover_only(&mut args, "lldb", inspect).is_ok());
    assert_eq!(args.unwrap()["context"], json!("hover"));
    let mut args = Some(json!({"expression": "`platform shell id", "frameId": 1}));
    assert!(hover::hover_only(&mut args, "lldb", inspect).unwrap_err().contains("debugger command"));
    let mut args = Some(json!({"expression": "x", "frameId": 1}));
    let err = hover::hover_only(&mut args, "debugpy", inspect).unwrap_err();
    assert!(err.starts_with("agentdap mirror: `evaluate` runs code in the program; agentdap runs with --allow attach,mirror; --allow evaluate allows it"), "{err}");
}
