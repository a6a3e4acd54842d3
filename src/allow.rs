//! Operator limits (`--allow`, `$AGENTDAP_ALLOW`): which kinds of action the agent — and every
//! mirror client, which gets at most what the agent may — is allowed. Sans-IO: parsing, the set,
//! and the sentence a refusal says. Which tool (and which mode of it) needs which switch is
//! [`membership`]; which adapter evaluates `hover` without side effects is [`hover`].
//! SECURITY.md § Operator limits states the model and what it cannot guard.

pub mod hover;
pub mod membership;

use std::fmt;

/// The environment variable (and `--allow` flag, which wins) holding the comma-separated list.
pub const ENV: &str = "AGENTDAP_ALLOW";

/// One kind of action an operator can allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Switch {
    /// Start a program (`launch`, and deciding the adapter's `runInTerminal`).
    Launch,
    /// Attach to a running program or debug server (`attach`).
    Attach,
    /// Run code in the program: `evaluate` outside a side-effect-free context, watches,
    /// completions, breakpoint conditions and log messages.
    Evaluate,
    /// Change the program's state: `set_variable`, `memory` write, `goto`.
    Modify,
    /// Make the program run or stop: continue, step, pause, run_to, restart, input, terminating it.
    Control,
    /// Expose a session to an IDE (`expose_session`).
    Mirror,
    /// Send any DAP request (`dap_request`).
    Raw,
}

/// Every switch, in the order `--help` and errors name them.
pub const SWITCHES: [Switch; 7] =
    [Switch::Launch, Switch::Attach, Switch::Evaluate, Switch::Modify, Switch::Control, Switch::Mirror, Switch::Raw];

/// The read-only preset's name.
pub const INSPECT: &str = "inspect";

impl Switch {
    pub fn name(self) -> &'static str {
        match self {
            Switch::Launch => "launch",
            Switch::Attach => "attach",
            Switch::Evaluate => "evaluate",
            Switch::Modify => "modify",
            Switch::Control => "control",
            Switch::Mirror => "mirror",
            Switch::Raw => "raw",
        }
    }

    /// What a call needing this switch does, for the refusal ("`goto` changes the program").
    pub fn verb(self) -> &'static str {
        match self {
            Switch::Launch => "starts a program",
            Switch::Attach => "attaches to a program",
            Switch::Evaluate => "runs code in the program",
            Switch::Modify => "changes the program",
            Switch::Control => "makes the program run or stop",
            Switch::Mirror => "exposes the session to an IDE",
            Switch::Raw => "sends a raw DAP request",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of allowed switches. `inspect` is the set with only `attach` (and `evaluate` limited
/// to side-effect-free contexts, [`Allow::hover_only`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allow {
    bits: u8,
    /// The list as given (`inspect`, `launch,control`), for messages; `None` = everything.
    spelled: Option<&'static str>,
}

impl Default for Allow {
    fn default() -> Allow {
        Allow::all()
    }
}

impl Allow {
    /// Everything (the default when neither the flag nor the variable is set).
    pub fn all() -> Allow {
        Allow { bits: SWITCHES.iter().fold(0, |b, s| b | s.bit()), spelled: None }
    }

    /// Parses a comma-separated list of switches and/or `inspect`; blanks around names are
    /// ignored. Errors name the bad entry and the valid ones.
    pub fn parse(list: &str) -> Result<Allow, String> {
        let mut bits = 0;
        let mut any = false;
        for word in list.split(',').map(str::trim) {
            if word.is_empty() {
                continue;
            }
            any = true;
            if word == INSPECT {
                bits |= Switch::Attach.bit();
                continue;
            }
            match SWITCHES.iter().find(|s| s.name() == word) {
                Some(s) => bits |= s.bit(),
                None => return Err(format!("--allow: unknown switch `{word}`; valid: {}", valid_names())),
            }
        }
        if !any {
            return Err(format!("--allow needs at least one of: {}", valid_names()));
        }
        let spelled: &'static str = Box::leak(list.trim().to_owned().into_boxed_str());
        Ok(Allow { bits, spelled: Some(spelled) })
    }

    /// `$AGENTDAP_ALLOW` as the server reads it (validated by `main`): unset or blank → all.
    pub fn from_env_value(value: Option<&str>) -> Allow {
        value.filter(|v| !v.trim().is_empty()).and_then(|v| Allow::parse(v).ok()).unwrap_or_else(Allow::all)
    }

    pub fn has(self, switch: Switch) -> bool {
        self.bits & switch.bit() != 0
    }

    /// Everything is allowed: no limit to mention anywhere.
    pub fn is_all(self) -> bool {
        self == Allow::all() || SWITCHES.iter().all(|s| self.has(*s))
    }

    /// Without `evaluate`, an expression may still be read in a context the adapter evaluates
    /// without side effects (`hover`, where [`hover::verdict`] says it is safe).
    pub fn hover_only(self) -> bool {
        !self.has(Switch::Evaluate)
    }

    /// How the set was given (`inspect`, `launch,control`), or `all`.
    pub fn spelled(self) -> &'static str {
        self.spelled.unwrap_or("all")
    }

    /// The refusal of `what` (a tool, or a tool's mode such as "`memory` write") that needs
    /// `switch`: "`set_variable` changes the program; agentdap runs with --allow inspect;
    /// --allow modify allows it".
    pub fn refusal(self, what: &str, switch: Switch) -> String {
        format!(
            "{what} {}; agentdap runs with --allow {}; --allow {} allows it",
            switch.verb(),
            self.spelled(),
            switch.name()
        )
    }

    /// How an agent gets a session under this set, for "there is no session" answers.
    pub fn how_to_start(self) -> String {
        match (self.has(Switch::Launch), self.has(Switch::Attach)) {
            (true, _) => "call `launch` to start one".into(),
            (false, true) => {
                "call `attach` to attach to a running program (the operator's limits leave out `launch`)".into()
            }
            (false, false) => {
                "the operator's limits leave out both `launch` and `attach`, so none can be started".into()
            }
        }
    }

    /// May a mirror client (an IDE on an exposed session) do what `switch` guards? A mirror
    /// client gets at most what the agent is allowed: the mirror layer asks this for every
    /// request it would forward (evaluate: [`Allow::hover_only`] and [`hover::verdict`]).
    pub fn mirror_may(self, switch: Switch) -> bool {
        self.has(switch)
    }

    /// The allowed and the refused switches, for `capabilities`.
    pub fn summary(self) -> String {
        if self.is_all() {
            return "Allowed: everything (no --allow limit).".to_owned();
        }
        let (yes, no): (Vec<Switch>, Vec<Switch>) = SWITCHES.iter().partition(|s| self.has(**s));
        let names = |v: &[Switch]| v.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ");
        let mut text = format!(
            "Allowed (--allow {}): {}; not allowed: {}.",
            self.spelled(),
            if yes.is_empty() { "reading state only".to_owned() } else { names(&yes) },
            names(&no)
        );
        if self.hover_only() {
            text.push_str(
                " evaluate: only in `hover` context where the adapter evaluates it without side effects, else refused.",
            );
        }
        text
    }
}

fn valid_names() -> String {
    let mut names: Vec<&str> = SWITCHES.iter().map(|s| s.name()).collect();
    names.push(INSPECT);
    names.join(", ")
}

impl fmt::Display for Allow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelled())
    }
}

#[cfg(test)]
mod tests;
