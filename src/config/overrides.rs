//! What a config entry means for the adapter run: a custom adapter's command and transport, and a
//! built-in recipe with the entry that overrides it merged in (README § Custom adapters); used by
//! the session's plans and by `doctor`. Must not: choose the adapter, or touch the recipe's
//! quirks, attach shape or selection.

use std::path::Path;

use serde_json::Value;

use super::CustomAdapter;
use crate::dap::adapters::{self, PortDiscovery, Recipe, Transport};
use crate::dap::command::AdapterCommand;

/// A custom adapter's command as configured (`config::parse` requires a `command` for one that
/// overrides no recipe).
pub fn custom_command(adapter: &CustomAdapter) -> AdapterCommand {
    let mut command = AdapterCommand::new(adapter.command.as_deref().unwrap_or_default());
    command.args = adapter.args.iter().flatten().map(Into::into).collect();
    command.env = adapter.env.iter().map(|(k, v)| (k.into(), Some(v.into()))).collect();
    command
}

/// A custom adapter's transport: TCP on a port agentdap chooses when `tcp` is true, else stdio.
pub fn custom_transport(adapter: &CustomAdapter) -> Transport {
    match adapter.tcp {
        Some(true) => Transport::Tcp { port: PortDiscovery::Chosen },
        _ => Transport::Stdio,
    }
}

/// The executable an override names, if it names one (handed to
/// [`adapters::recipe_with_command`]).
pub fn command_of(entry: Option<&CustomAdapter>) -> Option<&Path> {
    entry?.command.as_deref().map(Path::new)
}

/// Merges the config entry overriding `recipe` into it: `args` replace the recipe's when set;
/// `env` is set over the recipe's (the config's value wins for a variable both set);
/// `launch_defaults` are merged over the recipe's launch defaults (the config's keys win; attach
/// defaults are the recipe's); `tcp`, when set, makes the transport TCP on a port agentdap
/// chooses (`true`) or stdio (`false`). The command's program was already chosen by
/// [`adapters::recipe_with_command`].
pub fn apply(recipe: &mut Recipe, entry: &CustomAdapter) {
    if let Some(args) = &entry.args {
        recipe.command.args = args.iter().map(Into::into).collect();
    }
    for (k, v) in &entry.env {
        recipe.command.env.retain(|(name, _)| name.as_os_str() != k.as_str());
        recipe.command.env.push((k.into(), Some(v.into())));
    }
    if !entry.launch_defaults.is_empty() {
        let config = Value::Object(entry.launch_defaults.clone());
        recipe.launch_defaults = adapters::merge_arguments(&recipe.launch_defaults, Some(&config));
    }
    match entry.tcp {
        Some(true) => recipe.transport = Transport::Tcp { port: PortDiscovery::Chosen },
        Some(false) => recipe.transport = Transport::Stdio,
        None => {}
    }
    // Arguments that ask for agentdap's port get it, whatever the recipe's own way of learning
    // one (js-debug's recipe reads the port js-debug announces; an override that passes
    // `{port}` would have sent it the placeholder itself: a breaker's finding).
    let asks_port = recipe.command.args.iter().any(|a| a.to_str().is_some_and(|t| t.contains(super::PORT_PLACEHOLDER)));
    if asks_port && matches!(recipe.transport, Transport::Tcp { port: PortDiscovery::AnnouncedLine { .. } }) {
        recipe.transport = Transport::Tcp { port: PortDiscovery::Chosen };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::{lldb, test_host::FakeHost, AdapterKind, ResolveInput};
    use serde_json::json;
    use std::collections::HashMap;

    fn entry(text: &str) -> CustomAdapter {
        let config = super::super::parse(text).unwrap_or_else(|e| panic!("{e}"));
        config.override_of(AdapterKind::Lldb).cloned().unwrap_or_else(|| panic!("no lldb entry in {text}"))
    }

    fn lldb_host() -> FakeHost {
        FakeHost {
            vars: HashMap::from([("PATH", "/usr/bin")]),
            exes: ["/usr/bin/lldb-dap-22", "/opt/llvm-23/bin/lldb-dap"].into_iter().collect(),
            ..FakeHost::default()
        }
    }

    fn resolve(entry: &CustomAdapter, host: &FakeHost) -> Result<Recipe, String> {
        let mut recipe = adapters::recipe_with_command(
            AdapterKind::Lldb,
            None,
            ResolveInput::default(),
            command_of(Some(entry)),
            host,
        )
        .map_err(|e| e.to_string())?;
        apply(&mut recipe, entry);
        Ok(recipe)
    }

    #[test]
    fn an_override_with_only_a_command_keeps_everything_else_of_the_recipe() {
        let host = lldb_host();
        let plain =
            adapters::recipe(AdapterKind::Lldb, ResolveInput::default(), &host).unwrap_or_else(|e| panic!("{e}"));
        let r = resolve(&entry(r#"{"adapters": {"lldb": {"command": "/opt/llvm-23/bin/lldb-dap"}}}"#), &host);
        let r = r.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.command.program, "/opt/llvm-23/bin/lldb-dap");
        assert_eq!(
            Recipe { command: AdapterCommand { program: plain.command.program.clone(), ..r.command.clone() }, ..r },
            plain
        );
        // Not an executable: checked as the recipe checks its own variable, and named as the
        // config file's command (the variable was never set by the user).
        let missing = resolve(&entry(r#"{"adapters": {"lldb": {"command": "/nope/lldb-dap"}}}"#), &host);
        assert_eq!(
            missing.err().as_deref(),
            Some("lldb: the config file's command /nope/lldb-dap is not a file lldb can run; install it with: apt-get install lldb-22")
        );
    }

    #[test]
    fn an_override_merges_env_and_launch_defaults_over_the_recipes_and_replaces_args_and_transport() {
        let host = lldb_host();
        let text = r#"{"adapters": {"lldb": {"args": ["--repl-mode=variable"], "env": {"LLDB_LOG": "1"},
            "launch_defaults": {"runInTerminal": true, "initCommands": ["settings set x 1"]}, "tcp": false,
            "extensions": [".elf"]}}}"#;
        let r = resolve(&entry(text), &host).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.command.program, "/usr/bin/lldb-dap-22", "no command: the recipe's own search");
        assert_eq!(r.command.args, vec![std::ffi::OsString::from("--repl-mode=variable")]);
        assert_eq!(r.command.env, vec![("LLDB_LOG".into(), Some("1".into()))]);
        assert_eq!(
            r.launch_defaults,
            json!({"type": "lldb-dap", "request": "launch", "runInTerminal": true, "initCommands": ["settings set x 1"]})
        );
        assert_eq!(r.attach_defaults, lldb::attach_defaults(), "attach defaults stay the recipe's");
        assert_eq!(r.quirks, lldb::quirks());
        assert_eq!(r.transport, Transport::Stdio);
        let mut recipe = r.clone();
        recipe.command.env = vec![("LLDB_LOG".into(), Some("0".into())), ("KEEP".into(), None)];
        apply(&mut recipe, &entry(text));
        assert_eq!(recipe.command.env, vec![("KEEP".into(), None), ("LLDB_LOG".into(), Some("1".into()))]);
        let tcp = entry(r#"{"adapters": {"lldb": {"args": ["--port", "{port}"], "tcp": true}}}"#);
        let r = resolve(&tcp, &host).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.transport, Transport::Tcp { port: PortDiscovery::Chosen });
    }

    /// js-debug's recipe reads the port js-debug announces (it is started on port 0); an
    /// override whose `args` pass `{port}` gets a port agentdap chooses, not the placeholder.
    #[test]
    fn args_that_ask_for_the_port_get_a_chosen_one() {
        let host = lldb_host();
        let announced = Transport::Tcp { port: PortDiscovery::AnnouncedLine { prefix: "Debug server listening at " } };
        for (args, chosen) in
            [(r#"["/opt/server.js", "{port}", "127.0.0.1"]"#, true), (r#"["/opt/server.js", "0"]"#, false)]
        {
            let mut recipe =
                adapters::recipe(AdapterKind::Lldb, ResolveInput::default(), &host).unwrap_or_else(|e| panic!("{e}"));
            recipe.transport = announced.clone();
            apply(&mut recipe, &entry(&format!(r#"{{"adapters": {{"lldb": {{"args": {args}}}}}}}"#)));
            let expected = if chosen { Transport::Tcp { port: PortDiscovery::Chosen } } else { announced.clone() };
            assert_eq!(recipe.transport, expected, "{args}");
        }
    }
}
