//! Unit tests of the rdbg recipe (`rdbg.rs`): discovery against a fake host, the command, the
//! quirks' values; no process is run.

use super::*;
use crate::dap::adapters::test_host::FakeHost;
use std::collections::{HashMap, HashSet};

/// Debian 12 with `apt-get install ruby`: the gem's rdbg is not on `PATH`.
fn debian() -> FakeHost {
    FakeHost {
        vars: HashMap::from([("PATH", "/usr/local/bin:/usr/bin"), ("HOME", "/h")]),
        exes: HashSet::from(["/usr/bin/ruby", "/usr/lib/ruby/gems/3.1.0/gems/debug-1.4.0/exe/rdbg"]),
        files: HashMap::from([("/usr/lib/ruby/gems/3.1.0/gems/irb-1.4.1/exe/irb", &b"#!"[..])]),
        ..FakeHost::default()
    }
}

fn args(r: &Recipe) -> Vec<String> {
    r.command.args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
}

#[test]
fn debians_bundled_gem_is_found_and_run_with_ruby() {
    let h = debian();
    let got = find(&h);
    let rdbg = "/usr/lib/ruby/gems/3.1.0/gems/debug-1.4.0/exe/rdbg";
    let expected = Found {
        rdbg: rdbg.into(),
        ruby: Some("/usr/bin/ruby".into()),
        rule: Rule::GemDir,
        version: Some("1.4.0".into()),
    };
    assert_eq!(got, Ok(expected));
    let Ok(r) = recipe(None, ResolveInput::default(), &h) else { panic!() };
    assert_eq!(r.command.program, OsString::from("/usr/bin/ruby"));
    assert_eq!(args(&r), [rdbg, "--open", "--port", "{port}", "--host", "127.0.0.1", "--"]);
    assert_eq!(r.transport, Transport::Tcp { port: PortDiscovery::ChosenAfterLine { line: READY_LINE } });
    assert_eq!(r.launch_defaults, json!({"type": "rdbg", "request": "launch"}));
}

#[test]
fn the_newest_debug_gem_wins_and_a_user_install_counts() {
    let mut h = debian();
    h.exes.insert("/h/.gem/ruby/3.1.0/gems/debug-1.10.0/exe/rdbg");
    h.exes.insert("/var/lib/gems/3.1.0/gems/debug-1.9.2/exe/rdbg");
    let Ok(found) = find(&h) else { panic!() };
    assert_eq!(found.rdbg, PathBuf::from("/h/.gem/ruby/3.1.0/gems/debug-1.10.0/exe/rdbg"));
    assert_eq!((found.version.as_deref(), found.ruby), (Some("1.10.0"), Some(PathBuf::from("/usr/bin/ruby"))));
    // An rbenv ruby runs its own gems.
    let mut rbenv = FakeHost { vars: HashMap::from([("PATH", "/usr/bin"), ("HOME", "/h")]), ..FakeHost::default() };
    rbenv.exes.insert("/h/.rbenv/versions/3.3.0/bin/ruby");
    rbenv.exes.insert("/h/.rbenv/versions/3.3.0/lib/ruby/gems/3.3.0/gems/debug-1.9.1/exe/rdbg");
    let Ok(found) = find(&rbenv) else { panic!() };
    assert_eq!(found.ruby, Some(PathBuf::from("/h/.rbenv/versions/3.3.0/bin/ruby")));
}

#[test]
fn the_override_and_path_come_first() {
    let mut h = debian();
    h.exes.insert("/usr/local/bin/rdbg");
    let Ok(found) = find(&h) else { panic!() };
    assert_eq!((found.rule, found.rdbg.as_path(), found.version), (Rule::Path, Path::new("/usr/local/bin/rdbg"), None));
    h.vars.insert("AGENTDAP_RDBG", "/opt/debug-1.9.2/exe/rdbg");
    h.files.insert("/opt/debug-1.9.2/exe/rdbg", b"#!/usr/bin/env ruby");
    let Ok(found) = find(&h) else { panic!() };
    assert_eq!((found.rule, found.ruby.is_some(), found.version.as_deref()), (Rule::Env, true, Some("1.9.2")));
    h.vars.insert("AGENTDAP_RDBG", "/opt/nothing");
    let Err(e) = find(&h) else { panic!() };
    assert_eq!(e.to_string(), "rdbg: AGENTDAP_RDBG = \"/opt/nothing\" is not a file; install it with: apt-get install ruby (or: gem install debug)");
}

#[test]
fn no_ruby_or_no_gem_is_an_install_hint() {
    let mut h = debian();
    h.exes.remove("/usr/bin/ruby");
    let Err(e) = find(&h) else { panic!() };
    assert!(e.to_string().contains("but no `ruby` on PATH to run it"), "{e}");
    let empty = FakeHost { vars: HashMap::from([("PATH", "/usr/bin")]), ..FakeHost::default() };
    let Err(e) = find(&empty) else { panic!() };
    assert_eq!(e.code(), "adapter_not_found");
    assert!(e.to_string().ends_with("install it with: apt-get install ruby (or: gem install debug)"), "{e}");
}

#[test]
fn a_ruby_program_selects_rdbg() {
    use crate::dap::adapters::{select, AdapterKind};
    assert_eq!(select(None, Some("/src/app.rb")), Ok(AdapterKind::Rdbg));
    for name in ["rdbg", "ruby", "RB", "debug"] {
        assert_eq!(select(Some(name), None), Ok(AdapterKind::Rdbg));
    }
    assert_eq!(AdapterKind::Rdbg.vscode_type(), "rdbg");
    assert_eq!(version_in_path(Path::new("/g/gems/debug-1.4.0/exe/rdbg")).as_deref(), Some("1.4.0"));
    assert_eq!(version_in_path(Path::new("/g/debug-tools/rdbg")), None);
}
