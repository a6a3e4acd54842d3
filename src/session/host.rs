//! Host requests (DAP § Reverse Requests › RunInTerminal), sans-IO: an adapter's `runInTerminal`
//! under the `--host-requests` policy (allow, deny, ask), the requests waiting for
//! `resolve_host_request`, and the stdin of a program agentdap runs itself (`send_input`). The IO
//! shell spawns the command ([`Action::RunInTerminal`]), feeds its output back, and drains the
//! stdin buffer.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::output::Category;
use super::snapshot::RunState;
use super::text::utf8_text;
use super::{Action, ErrorCode, Session, SessionKey, Sessions, ToolResult};
use crate::dap::client::{ReverseAnswer, ReverseId};
use crate::dap::command::AdapterCommand;
use crate::dap::requests::{RunInTerminal, RunInTerminalResponse};
use crate::visible;

/// The environment variable (and `--host-requests` flag) choosing the policy.
pub const POLICY_ENV: &str = "AGENTDAP_HOST_REQUESTS";
/// Bytes of input queued for a program's stdin and not yet read by it (every buffer is
/// capped). Input past it is refused whole.
pub const STDIN_CAP: usize = 1 << 20;
/// Host requests waiting for a decision per session; more are denied at once.
const MAX_PENDING: usize = 8;
/// Characters of a request's summary in a text (the agent's, the log's); past it the text says
/// how many more there are, and `host_requests[]` in `structuredContent` holds the request whole
/// (bounded by the DAP frame cap, `dap::framing`).
const SUMMARY_CHARS: usize = 4000;
/// Characters of one string of a request (an argument, the cwd, an environment name or value)
/// in its summary; past it that string alone is cut, saying how many characters the cut hides,
/// so one long argument cannot push the rest out of [`SUMMARY_CHARS`].
const STRING_CHARS: usize = 500;
/// Most arguments, and environment entries, a `runInTerminal` may carry.
const MAX_ARGS: usize = 4096;
const MAX_ENV: usize = 4096;

/// How the program agentdap ran for an adapter ended: its exit code, or the signal that
/// killed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramExit {
    pub code: Option<i64>,
    pub signal: Option<i64>,
}

/// What agentdap does when an adapter asks it to run a command (`runInTerminal`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HostPolicy {
    /// Run it: piped stdio, own process group, recorded with the watchdog.
    #[default]
    Allow,
    /// Answer `success: false`; a session still starting ends with the reason.
    Deny,
    /// Keep it pending until `resolve_host_request` decides.
    Ask,
}

impl HostPolicy {
    /// `allow`, `deny` or `ask`.
    pub fn parse(s: &str) -> Option<HostPolicy> {
        match s.trim() {
            "allow" => Some(HostPolicy::Allow),
            "deny" => Some(HostPolicy::Deny),
            "ask" => Some(HostPolicy::Ask),
            _ => None,
        }
    }
}

/// Table-wide host-request settings: the policy and the id counter (`h1`, `h2`, …, unique
/// across sessions so `resolve_host_request` finds one without a `session`).
#[derive(Debug, Default)]
pub struct HostTable {
    pub policy: HostPolicy,
    next_id: u32,
}

/// A host request waiting for `resolve_host_request`.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) id: String,
    pub(super) reverse: ReverseId,
    pub(super) summary: String,
    pub(super) run: AdapterCommand,
}

/// One session's host requests and program stdin.
#[derive(Debug, Default)]
pub struct HostState {
    /// Launched with `console: terminal`: the program's stdin is agentdap's to feed.
    pub terminal_console: bool,
    /// The program is the adapter's own process (`RuntimeQuirks::program_on_command_line`,
    /// rdbg): its stdin is the adapter's stdin pipe, which the IO shell feeds with
    /// `send_input`'s bytes (`Sessions::feeds_adapter_stdin`).
    pub stdin_is_adapters: bool,
    /// The recipe runs the program through `runInTerminal` on its own, not because the agent
    /// asked for a terminal (`RuntimeQuirks::program_on_pipes`): it runs on pipes.
    pub program_on_pipes: bool,
    pub(super) pending: Vec<Pending>,
    /// A `runInTerminal` was allowed: its process is being started or runs (one at a time per
    /// session; a restarted program brings the next).
    pub(super) terminal_started: bool,
    /// The pid of that process, once spawned.
    pub terminal_pid: Option<i64>,
    /// Input not yet written to the program's stdin (≤ [`STDIN_CAP`]).
    pub(super) stdin: Vec<u8>,
    /// Close stdin once `stdin` is written (`send_input {eof: true}`).
    pub(super) eof_requested: bool,
    /// Why stdin takes no more input (closed after `eof`, or the process is gone).
    pub(super) stdin_closed: Option<String>,
    /// An unfinished UTF-8 sequence at the end of the last stdout / stderr read (≤ 3 bytes).
    carry: [Vec<u8>; 2],
    /// How that process ended, once it did.
    pub(super) program_exit: Option<ProgramExit>,
    /// A result said that the program's input is `send_input`'s.
    pub(super) input_hint_given: bool,
}

impl HostState {
    /// A relaunch: the old run's terminal process is being stopped with its adapter
    /// (`Action::Replace`); the new adapter's `runInTerminal` starts a new one.
    pub fn forget_terminal(&mut self) {
        self.terminal_started = false;
        self.terminal_pid = None;
        self.stdin.clear();
        self.eof_requested = false;
    }

    /// The program's stdin still takes input (a terminal console, not closed).
    pub fn accepts_input(&self) -> bool {
        (self.terminal_console || self.stdin_is_adapters) && self.stdin_closed.is_none()
    }

    /// Whether a host request waits for `resolve_host_request`.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Ids of the pending host requests.
    pub fn pending_ids(&self) -> Vec<&str> {
        self.pending.iter().map(|p| p.id.as_str()).collect()
    }

    /// The snapshot's `host_requests`: `[{id, command, summary, argv, cwd, env}]` (`argv`, `cwd`
    /// and `env` exactly as the adapter sent them; `env` values `null` unset), `None` when none
    /// waits.
    pub fn pending_json(&self) -> Option<Value> {
        if self.pending.is_empty() {
            return None;
        }
        let list: Vec<PendingJson> = self
            .pending
            .iter()
            .map(|p| PendingJson {
                id: &p.id,
                command: "runInTerminal",
                summary: &p.summary,
                argv: argv(&p.run),
                cwd: p.run.cwd.as_ref().map(|c| c.to_string_lossy().into_owned()),
                env: p.run.env.iter().map(|(k, v)| (lossy(k), v.as_ref().map(|v| lossy(v)))).collect(),
            })
            .collect();
        // Strings, and maps with string keys: serialising them cannot fail.
        Some(serde_json::to_value(list).unwrap_or_default())
    }
}

/// One entry of `host_requests`.
#[derive(Serialize)]
struct PendingJson<'a> {
    id: &'a str,
    command: &'static str,
    summary: &'a str,
    argv: Vec<String>,
    /// `null` when the adapter gave none (or an empty one).
    cwd: Option<String>,
    /// Each value as given, `null` to unset it.
    env: BTreeMap<String, Option<String>>,
}

impl Sessions {
    /// An adapter's `runInTerminal` (from [`Sessions::next_action`]): checked, then run, refused
    /// or kept pending by the policy. Every path answers the reverse request (now or later).
    pub(super) fn host_request(&mut self, key: SessionKey, reverse: ReverseId, arguments: Value, now: Instant) {
        let policy = self.host.policy;
        let Some(s) = self.slab.get_mut(key) else { return };
        let run = match terminal_command(&arguments) {
            Ok(run) => run,
            Err(why) => {
                s.answer_host(reverse, ReverseAnswer::Failure { message: format!("runInTerminal: {why}") }, now);
                return s.pump(now, &mut self.actions);
            }
        };
        let summary = summarize(&run);
        if s.host.terminal_started || s.host.pending.len() >= MAX_PENDING {
            let message = "agentdap runs one runInTerminal command at a time per session".to_owned();
            s.answer_host(reverse, ReverseAnswer::Failure { message }, now);
            return s.pump(now, &mut self.actions);
        }
        match policy {
            HostPolicy::Allow => s.start_terminal(reverse, run, &mut self.actions),
            HostPolicy::Deny => {
                let why = format!(
                    "{} asked agentdap to run {summary} (runInTerminal) and the host-request policy is `deny`; \
                     launch with console `internal`, or start agentdap with --host-requests allow (or ask)",
                    s.link.adapter
                );
                s.deny_host(reverse, why, now, &mut self.actions);
            }
            HostPolicy::Ask => {
                self.host.next_id += 1;
                let id = format!("h{}", self.host.next_id);
                log::info!("{}: host request {id} pending: runInTerminal {summary}", s.id);
                s.host.pending.push(Pending { id, reverse, summary, run });
                // Every wait on the session ends now, naming the request.
                s.complete_waiters();
                self.actions.push_back(Action::StateChanged { session: s.id.clone() });
            }
        }
        s.pump(now, &mut self.actions);
    }

    /// The IO shell started (`Ok(pid)`) or could not start the `runInTerminal` command.
    pub fn on_terminal_spawned(
        &mut self,
        key: SessionKey,
        reverse: ReverseId,
        result: Result<i64, String>,
        now: Instant,
    ) {
        let Some(s) = self.slab.get_mut(key) else { return };
        match result {
            Ok(pid) => {
                s.host.terminal_pid = Some(pid);
                if s.link.plan.runtime.program_on_pipes {
                    // The process is the program itself (js-debug's), not a launcher of it.
                    s.family.debuggee_pid = Some(pid);
                }
                let body = RunInTerminalResponse { process_id: Some(pid), shell_process_id: None };
                s.answer_host(reverse, ReverseAnswer::success::<RunInTerminal>(&body), now);
            }
            Err(e) => {
                s.host.terminal_started = false;
                s.host.stdin_closed = Some(format!("the program could not be started ({e})"));
                s.answer_host(reverse, ReverseAnswer::Failure { message: e.clone() }, now);
                if s.run.state == RunState::Starting && !s.link.is_closing() {
                    let msg = format!("{}: could not run the adapter's runInTerminal command: {e}", s.id);
                    s.fail_start(ErrorCode::AdapterError, msg, &mut self.actions);
                }
            }
        }
        s.pump(now, &mut self.actions);
    }

    /// Whether `key`'s queued input goes to its adapter's stdin (the program is the adapter's
    /// own process: [`HostState::stdin_is_adapters`]).
    pub fn feeds_adapter_stdin(&self, key: SessionKey) -> bool {
        self.slab.get(key).is_some_and(|s| s.host.stdin_is_adapters)
    }

    /// Input waiting for `key`'s program stdin, and whether stdin is to be closed once it is
    /// written.
    pub fn terminal_input(&self, key: SessionKey) -> (&[u8], bool) {
        match self.slab.get(key) {
            Some(s) => (&s.host.stdin, s.host.eof_requested),
            None => (&[], false),
        }
    }

    /// `n` bytes of the input were written.
    pub fn consume_terminal_input(&mut self, key: SessionKey, n: usize) {
        if let Some(s) = self.slab.get_mut(key) {
            let n = n.min(s.host.stdin.len());
            s.host.stdin.drain(..n);
        }
    }

    /// The program's stdin is closed (`why`): what was not written is dropped.
    pub fn on_terminal_stdin_closed(&mut self, key: SessionKey, why: &str) {
        if let Some(s) = self.slab.get_mut(key) {
            s.host.stdin.clear();
            s.host.eof_requested = false;
            s.host.stdin_closed.get_or_insert_with(|| why.to_owned());
        }
    }

    /// Output of the program agentdap runs (its stdout, or stderr when `stderr`).
    pub fn on_terminal_output(&mut self, key: SessionKey, stderr: bool, bytes: &[u8]) {
        let Some(s) = self.slab.get_mut(key) else { return };
        let carry = &mut s.host.carry[usize::from(stderr)];
        let text = utf8_text(carry, bytes);
        // On pipes the runtime's notices are on stderr only; on a terminal, stderr is stdout.
        let runtime = &s.link.plan.runtime;
        let text = if stderr || !s.host.program_on_pipes { without_notices(&text, runtime) } else { text };
        let pieces = if stderr { adapter_lines(&text, runtime) } else { vec![(false, text)] };
        let category = if stderr { Category::Stderr } else { Category::Stdout };
        let on_pipes = s.host.program_on_pipes;
        // A launcher's program is its stand-in's (`launcher.rs`).
        let target = self.stand_in_of(key).unwrap_or(key);
        let mut any = false;
        if let Some(t) = self.slab.get_mut(target) {
            for (adapters, piece) in pieces.iter().filter(|(_, p)| !p.is_empty()) {
                let c = if *adapters { Category::Console } else { category };
                // A terminal's line discipline writes `\r\n`; pipes carry the program's bytes.
                match on_pipes {
                    true => t.output.push(c, piece),
                    false => t.output.push_terminal(c, piece),
                }
                any = true;
            }
        }
        if any {
            self.output_arrived(target);
        }
    }

    /// The process agentdap ran for the adapter exited (`status` as text; its exit code, or the
    /// signal that killed it).
    pub fn on_terminal_exited(&mut self, key: SessionKey, status: &str, code: Option<i64>, signal: Option<i64>) {
        if let Some(s) = self.slab.get_mut(key) {
            // A launcher's stand-in learns from it how the program ended (`launcher.rs`).
            s.host.program_exit = Some(ProgramExit { code, signal });
            s.host.terminal_started = false;
            s.host.terminal_pid = None;
            s.host.stdin.clear();
            s.host.eof_requested = false;
            // The first reason stays: input closed after `eof` is not the exit's doing (the
            // exit that follows may be agentdap's own stop of the terminal, a SIGTERM).
            s.host.stdin_closed.get_or_insert_with(|| format!("the program's process exited ({status})"));
        }
    }
}

impl Session {
    /// Queues the command for the IO shell; the reverse request is answered once it ran.
    pub(super) fn start_terminal(
        &mut self,
        reverse: ReverseId,
        run: AdapterCommand,
        actions: &mut std::collections::VecDeque<Action>,
    ) {
        self.host.terminal_started = true;
        // A new process, a new stdin (a restart's program after an earlier one ended).
        self.host.stdin_closed = None;
        let pty = !self.host.program_on_pipes;
        actions.push_back(Action::RunInTerminal { session: self.key, reverse, command: run, pty });
    }

    /// Refuses a host request; a session still starting cannot go on without it and ends with
    /// `why` (adapters wait for the process otherwise: debugpy for 60 s).
    pub(super) fn deny_host(
        &mut self,
        reverse: ReverseId,
        why: String,
        now: Instant,
        actions: &mut std::collections::VecDeque<Action>,
    ) {
        log::info!("{}: {why}", self.id);
        let message = "runInTerminal was refused by agentdap's host-request policy".to_owned();
        self.answer_host(reverse, ReverseAnswer::Failure { message }, now);
        if self.run.state == RunState::Starting && !self.link.is_closing() {
            self.fail_start(ErrorCode::Unsupported, format!("{}: {why}.", self.id), actions);
        } else {
            self.calls.warnings.push(why);
        }
    }

    fn answer_host(&mut self, reverse: ReverseId, answer: ReverseAnswer, now: Instant) {
        if let Err(e) = self.link.client.respond(reverse, answer, now) {
            log::debug!("{}: cannot answer runInTerminal: {e}", self.id);
        }
    }

    /// `host_request_pending` for waits while a host request waits for a decision.
    pub(super) fn host_pending_result(&self) -> Option<ToolResult> {
        if self.run.state.is_over() {
            return None;
        }
        let p = self.host.pending.first()?;
        let message = format!(
            "{} waits for host request {}: {} asks agentdap to run {} (runInTerminal). Call `resolve_host_request` with id \"{}\" and decision \"allow\" to run it (or \"deny\"); decide soon, adapters stop waiting after some seconds.",
            self.id, p.id, self.link.adapter, p.summary, p.id
        );
        let mut out = ToolResult::error(ErrorCode::HostRequestPending, message);
        out.structured["error"]["host_requests"] = self.host.pending_json().unwrap_or(Value::Null);
        out.structured["error"]["session"] = self.id.clone().into();
        Some(out)
    }

    /// A session that is ending answers its pending host requests (every reverse request gets
    /// an answer: DAP § Base Protocol › Request).
    pub(super) fn drop_pending_host_requests(&mut self, now: Instant) {
        if self.host.pending.is_empty() || !(self.link.is_closing() || self.run.state.is_over()) {
            return;
        }
        for p in std::mem::take(&mut self.host.pending) {
            let message = "the debug session ended before the request was decided".to_owned();
            self.answer_host(p.reverse, ReverseAnswer::Failure { message }, now);
        }
    }
}

/// `text` without the whole lines that are one of `notices` (what the runtime prints on stderr
/// because a debugger attached, not the program). A notice after other text on its line stays:
/// the runtime's `Waiting for the debugger to disconnect...` after a line the program left
/// unfinished cannot be told from a program's line that ends so (breakers' `Status: Debugger
/// attached.` and `Status: Waiting for …`, cut, read back glued to the next line).
fn without_notices(text: &str, runtime: &crate::dap::adapters::RuntimeQuirks) -> String {
    if runtime.inspector_notices.is_empty() {
        return text.to_owned();
    }
    text.split_inclusive('\n').filter(|line| !runtime.is_inspector_notice(line)).collect()
}

/// `text` from the program's stderr cut, in order, into runs of the lines the adapter put there
/// itself (`true`: `RuntimeQuirks::adapter_stderr_prefixes`, js-debug's `Breakpoint condition
/// error: …`) and of the program's own (`false`).
pub(super) fn adapter_lines(text: &str, runtime: &crate::dap::adapters::RuntimeQuirks) -> Vec<(bool, String)> {
    if runtime.adapter_stderr_prefixes.is_empty() && runtime.adapter_log_after_timestamp.is_empty() {
        return vec![(false, text.to_owned())];
    }
    let mut out: Vec<(bool, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        let logged = after_timestamp(line)
            .is_some_and(|rest| runtime.adapter_log_after_timestamp.iter().any(|p| rest.starts_with(p)));
        let c = logged || runtime.adapter_stderr_prefixes.iter().any(|p| line.starts_with(p));
        match out.last_mut() {
            Some((last, acc)) if *last == c => acc.push_str(line),
            _ => out.push((c, line.to_owned())),
        }
    }
    out
}

/// What follows a leading RFC 3339 timestamp and one space (`2026-12-03T18:28:39Z `,
/// `2026-12-03T18:28:39.123+01:00 `): `None` when `line` does not start with one.
fn after_timestamp(line: &str) -> Option<&str> {
    let (stamp, rest) = line.split_once(' ')?;
    let b = stamp.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let punct = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    let date_time = digits(0..4)
        && digits(5..7)
        && digits(8..10)
        && digits(11..13)
        && digits(14..16)
        && digits(17..19)
        && punct.iter().all(|&(i, c)| b.get(i) == Some(&c));
    if !date_time {
        return None;
    }
    let zone = stamp[19..].trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let offset = |z: &str| {
        let z = z.as_bytes();
        z.len() == 6
            && (z[0] == b'+' || z[0] == b'-')
            && z[3] == b':'
            && [1, 2, 4, 5].iter().all(|&i| z[i].is_ascii_digit())
    };
    (zone == "Z" || offset(zone)).then_some(rest)
}

fn terminal_command(arguments: &Value) -> Result<AdapterCommand, String> {
    let args = arguments.get("args").and_then(Value::as_array).ok_or("`args` is missing")?;
    if args.is_empty() || args.len() > MAX_ARGS {
        return Err(format!("`args` must hold 1 to {MAX_ARGS} strings"));
    }
    let mut words = Vec::with_capacity(args.len());
    for a in args {
        words.push(a.as_str().ok_or("`args` must be strings")?.to_owned());
    }
    let mut cmd = AdapterCommand::new(&words[0]);
    cmd.args = words[1..].iter().map(Into::into).collect();
    cmd.cwd = arguments.get("cwd").and_then(Value::as_str).filter(|c| !c.is_empty()).map(Into::into);
    if let Some(env) = arguments.get("env") {
        let env = env.as_object().ok_or("`env` must be an object")?;
        if env.len() > MAX_ENV {
            return Err(format!("`env` holds more than {MAX_ENV} entries"));
        }
        for (k, v) in env {
            let value = match v {
                Value::Null => None,
                Value::String(s) => Some(s.into()),
                _ => return Err(format!("`env.{k}` must be a string or null")),
            };
            cmd.env.push((k.into(), value));
        }
    }
    Ok(cmd)
}

/// The request as the agent reads it before deciding: the cwd and every environment entry it
/// sets first (short, and they change what runs as much as the program does), then the exact argv,
/// each string quoted with control, bidirectional, invisible and combining characters escaped
/// ([`visible::quoted`]) and cut past [`STRING_CHARS`] saying how many characters the cut hides:
/// `in cwd "/src", env {"A": "1", "B": null (unset)}, argv ["python3", "launcher", "--", "app.py"]`.
/// Past [`SUMMARY_CHARS`] in all (thousands of entries) it is cut and says how many characters
/// are not shown.
fn summarize(cmd: &AdapterCommand) -> String {
    let shown = |s: &str| visible::quoted_cut(s, STRING_CHARS);
    let mut text = match &cmd.cwd {
        Some(cwd) => format!("in cwd {}", shown(&cwd.to_string_lossy())),
        None => "in agentdap's own cwd (none given)".to_owned(),
    };
    if cmd.env.is_empty() {
        text.push_str(", env unchanged");
    } else {
        let entries: Vec<String> = cmd
            .env
            .iter()
            .map(|(k, v)| match v {
                Some(v) => format!("{}: {}", shown(&lossy(k)), shown(&lossy(v))),
                None => format!("{}: null (unset)", shown(&lossy(k))),
            })
            .collect();
        text.push_str(&format!(", env {{{}}}", entries.join(", ")));
    }
    let words: Vec<String> = argv(cmd).iter().map(|a| shown(a)).collect();
    text.push_str(&format!(", argv [{}]", words.join(", ")));
    let total = text.chars().count();
    if total > SUMMARY_CHARS {
        text = text.chars().take(SUMMARY_CHARS).collect::<String>();
        text.push_str(&format!(
            "… [{} more characters not shown; host_requests in structuredContent holds argv, cwd and env whole]",
            total - SUMMARY_CHARS
        ));
    }
    text
}

/// The command's argv: the program, then its arguments.
fn argv(cmd: &AdapterCommand) -> Vec<String> {
    std::iter::once(&cmd.program).chain(&cmd.args).map(|a| lossy(a)).collect()
}

fn lossy(s: &std::ffi::OsStr) -> String {
    s.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map};

    use super::*;

    use crate::dap::adapters::{debugpy, AdapterKind, RuntimeQuirks, Transport};
    use crate::dap::framing::Encoder;
    use crate::session::{AdapterPlan, CallKey, LaunchArgs};

    /// A debugpy session launched with `console: terminal` under `policy`, past `initialize`,
    /// whose adapter just sent `runInTerminal` (seq 7).
    fn asked(policy: HostPolicy, now: Instant) -> Sessions {
        let arguments = json!({"kind": "integrated", "args": ["python3", "launcher", "--", "/p.py"], "cwd": "/", "env": {"X": null}});
        asked_with(policy, arguments, now)
    }

    /// As [`asked`], with the `runInTerminal` arguments given.
    fn asked_with(policy: HostPolicy, arguments: Value, now: Instant) -> Sessions {
        let mut sessions = Sessions::default();
        sessions.host.policy = policy;
        let plan = AdapterPlan {
            name: "debugpy".into(),
            kind: Some(AdapterKind::Debugpy),
            quirks: debugpy::quirks(),
            runtime: RuntimeQuirks::STANDARD,
            transport: Transport::Stdio,
            entry_function: None,
            scratch_dir: None,
            command: AdapterCommand::new("python3"),
            request: "launch",
            launch_arguments: json!({"program": "/p.py"}),
            connect: None,
            notes: Vec::new(),
        };
        let args = LaunchArgs { program: "/p.py".into(), console: Some("terminal".into()), ..LaunchArgs::default() };
        sessions.launch(args, plan, CallKey::new(1), now).expect("started");
        sessions.on_spawned(0, now);
        while sessions.next_action(now).is_some() {}
        let n = sessions.outbound(0).len();
        sessions.consume(0, n);
        let request = json!({"seq": 7, "type": "request", "command": "runInTerminal", "arguments": arguments});
        sessions.on_adapter_bytes(0, &Encoder::new().encode(&request).unwrap_or_default(), now);
        sessions
    }

    fn drain(sessions: &mut Sessions, now: Instant) -> Vec<Action> {
        std::iter::from_fn(|| sessions.next_action(now)).collect()
    }

    fn sent(sessions: &mut Sessions) -> String {
        let text = String::from_utf8_lossy(sessions.outbound(0)).into_owned();
        let n = sessions.outbound(0).len();
        sessions.consume(0, n);
        text
    }

    #[test]
    fn allow_runs_the_command_and_answers_with_its_pid() {
        let now = Instant::now();
        let mut s = asked(HostPolicy::Allow, now);
        let actions = drain(&mut s, now);
        let Some(Action::RunInTerminal { reverse, command, .. }) =
            actions.into_iter().find(|a| matches!(a, Action::RunInTerminal { .. }))
        else {
            panic!("no RunInTerminal action")
        };
        assert_eq!(command.args, vec!["launcher", "--", "/p.py"]);
        assert_eq!(command.env, vec![("X".into(), None)]);
        assert!(sent(&mut s).is_empty(), "answered only once the process runs");
        s.on_terminal_spawned(0, reverse, Ok(4242), now);
        let answer = sent(&mut s);
        assert!(
            answer.ends_with(r#""request_seq":7,"success":true,"command":"runInTerminal","body":{"processId":4242}}"#),
            "{answer}"
        );
        assert!(s.send_input(0, "hi\n", true).is_ok());
        assert_eq!(s.terminal_input(0), (&b"hi\n"[..], true));
        s.consume_terminal_input(0, 3);
        s.on_terminal_stdin_closed(0, "closed after eof");
        assert!(s.send_input(0, "more", false).unwrap_or_else(|e| e).text.contains("closed after eof"));
        s.on_terminal_exited(0, "signal: 15 (SIGTERM)", None, Some(15));
        let after_exit = s.send_input(0, "more", false).unwrap_or_else(|e| e).text;
        assert!(after_exit.contains("closed after eof") && !after_exit.contains("SIGTERM"), "{after_exit}");
    }

    #[test]
    fn deny_answers_false_and_ends_a_starting_session() {
        let now = Instant::now();
        let mut s = asked(HostPolicy::Deny, now);
        let actions = drain(&mut s, now);
        assert!(sent(&mut s).contains(r#""request_seq":7,"success":false,"command":"runInTerminal""#));
        let launch = actions.iter().find_map(|a| match a {
            Action::Complete { output, .. } => Some(output.clone()),
            _ => None,
        });
        let launch = launch.expect("the launch is answered");
        assert!(
            launch.is_error
                && launch
                    .text
                    .starts_with(r#"unsupported: s1: debugpy asked agentdap to run in cwd "/", env {"X": null (unset)}, argv ["python3", "launcher", "--", "/p.py"] (runInTerminal)"#),
            "{}",
            launch.text
        );
        assert!(actions.iter().any(|a| matches!(a, Action::StopAdapter { .. })));
        assert!(!actions.iter().any(|a| matches!(a, Action::RunInTerminal { .. })));
    }

    #[test]
    fn ask_holds_the_request_and_answers_it_when_the_session_ends() {
        let now = Instant::now();
        let mut s = asked(HostPolicy::Ask, now);
        let actions = drain(&mut s, now);
        let launch = actions.iter().find_map(|a| match a {
            Action::Complete { output, .. } => Some(output.clone()),
            _ => None,
        });
        let launch = launch.expect("the launch is answered at once");
        assert_eq!(launch.structured["error"]["code"], "host_request_pending");
        assert_eq!(launch.structured["error"]["host_requests"][0]["id"], "h1");
        assert_eq!(s.get(0).map(|x| x.snapshot_json()["host_requests"][0]["id"].clone()), Some(json!("h1")));
        assert!(sent(&mut s).is_empty(), "nothing is answered before the decision");
        // An unknown id changes nothing.
        let refused = s.resolve_host_request(None, "h2", true, None, CallKey::new(2), now);
        assert!(refused.is_err_and(|output| output.text.contains("h1 (s1)")));
        assert!(s.disconnect(0, None, CallKey::new(3), now).is_ok());
        drain(&mut s, now);
        let out = sent(&mut s);
        assert!(
            out.contains(
                r#""request_seq":7,"success":false,"command":"runInTerminal","message":"the debug session ended"#
            ),
            "{out}"
        );
        assert_eq!(s.get(0).map(|x| x.snapshot_json().get("host_requests").is_none()), Some(true));
    }

    #[test]
    fn a_pending_request_reads_as_exactly_what_would_run() {
        let now = Instant::now();
        let hidden = format!("echo harmless{}; touch ~/owned", " ".repeat(300));
        let arguments = json!({
            "kind": "integrated",
            "args": ["/bin/sh", "-c", hidden, "\u{1b}[2K\rok", "abc\u{202e}txt.exe", "a\"b\\"],
            "cwd": "/src",
            "env": {"PYTHONPATH": "/planted", "LD_PRELOAD": null}
        });
        let mut s = asked_with(HostPolicy::Ask, arguments, now);
        let launch = drain(&mut s, now).into_iter().find_map(|a| match a {
            Action::Complete { output, .. } => Some(output),
            _ => None,
        });
        let launch = launch.expect("the launch is answered at once");
        let shown = format!(
            r#"in cwd "/src", env {{"LD_PRELOAD": null (unset), "PYTHONPATH": "/planted"}}, argv ["/bin/sh", "-c", "echo harmless{}; touch ~/owned", "\u001b[2K\rok", "abc\u202etxt.exe", "a\"b\\"]"#,
            " ".repeat(300)
        );
        assert!(launch.text.contains(&format!("asks agentdap to run {shown} (runInTerminal)")), "{}", launch.text);
        let pending = &launch.structured["error"]["host_requests"][0];
        assert_eq!(pending["summary"], json!(shown));
        assert_eq!(pending["argv"][2], json!(format!("echo harmless{}; touch ~/owned", " ".repeat(300))));
        assert_eq!(pending["cwd"], "/src");
        assert_eq!(pending["env"], json!({"PYTHONPATH": "/planted", "LD_PRELOAD": null}));
        // Nothing the adapter sent reaches the text raw.
        for raw in ['\u{1b}', '\r', '\u{202e}'] {
            assert!(!launch.text.contains(raw), "{:?} in {}", raw, launch.text);
        }
    }

    #[test]
    fn long_arguments_are_cut_one_by_one_after_the_cwd_and_env() {
        let long: Vec<String> = (0..5).map(|i| format!("{i}").repeat(1000)).collect();
        let mut args = vec![json!("/bin/echo")];
        args.extend(long.iter().map(|a| json!(a)));
        let cmd =
            terminal_command(&json!({"args": args, "cwd": "/srv", "env": {"LD_PRELOAD": "/srv/evil.so"}})).unwrap();
        let text = summarize(&cmd);
        let cut: Vec<String> =
            (0..5).map(|i| format!("\"{}…\" (500 more characters not shown)", format!("{i}").repeat(500))).collect();
        assert_eq!(
            text,
            format!(r#"in cwd "/srv", env {{"LD_PRELOAD": "/srv/evil.so"}}, argv ["/bin/echo", {}]"#, cut.join(", "))
        );
        assert!(text.chars().count() <= SUMMARY_CHARS, "{}", text.chars().count());
    }

    #[test]
    fn a_long_request_says_how_much_is_not_shown() {
        let env: Map<String, Value> = (0..100).map(|i| (format!("V{i:03}"), json!("v".repeat(40)))).collect();
        let cmd = terminal_command(&json!({"args": ["/bin/sh"], "env": env})).unwrap();
        let text = summarize(&cmd);
        // 100 entries of 50 characters joined by ", " (5198), inside `in agentdap's own cwd (none
        // given), env {` (41) and `}, argv ["/bin/sh"]` (19): 5258 in all, 4000 shown.
        assert!(
            text.ends_with(
                "… [1258 more characters not shown; host_requests in structuredContent holds argv, cwd and env whole]"
            ),
            "{text}"
        );
        assert!(text.starts_with(r#"in agentdap's own cwd (none given), env {"V000": "vvvv"#), "{text}");
    }

    #[test]
    fn invisible_characters_in_a_request_are_escaped() {
        let arguments = json!({
            "kind": "integrated",
            "args": ["/bin/echo", "safe\u{206a}\u{206f}arg", "x\u{fff9}hidden\u{fffa}y\u{fffb}", "\u{3164}\u{115f}\u{1160}\u{ffa0}",
                     "vs\u{fe0f}\u{e0100}", "stri\u{336}ke", "cgj\u{34f}", "\u{2800}braille", "mus\u{1d173}\u{1d17a}", "é 日本 😀"],
            "cwd": "/srv"
        });
        let now = Instant::now();
        let mut s = asked_with(HostPolicy::Ask, arguments, now);
        let launch = drain(&mut s, now).into_iter().find_map(|a| match a {
            Action::Complete { output, .. } => Some(output),
            _ => None,
        });
        let launch = launch.expect("the launch is answered at once");
        let shown = r#"argv ["/bin/echo", "safe\u206a\u206farg", "x\ufff9hidden\ufffay\ufffb", "\u3164\u115f\u1160\uffa0", "vs\ufe0f\udb40\udd00", "stri\u0336ke", "cgj\u034f", "\u2800braille", "mus\ud834\udd73\ud834\udd7a", "é 日本 😀"]"#;
        assert!(launch.text.contains(shown), "{}", launch.text);
        for c in launch.text.chars() {
            assert!(c.is_ascii() || !visible::hides_text(c), "U+{:04X} raw in {}", c as u32, launch.text);
        }
    }

    #[test]
    fn input_past_the_cap_is_refused_whole() {
        let now = Instant::now();
        let mut s = asked(HostPolicy::Allow, now);
        drain(&mut s, now);
        let big = "x".repeat(STDIN_CAP - 10);
        assert!(s.send_input(0, &big, false).is_ok());
        let r = s.send_input(0, "01234567890", false).unwrap_or_else(|e| e);
        assert!(r.is_error && r.text.contains("nothing was sent"), "{}", r.text);
        assert_eq!(s.terminal_input(0).0.len(), STDIN_CAP - 10);
    }

    #[test]
    fn run_in_terminal_arguments_become_a_command() {
        let cmd = terminal_command(&json!({
            "args": ["/usr/bin/python3", "launcher", "--", "app.py"],
            "cwd": "/src",
            "env": {"A": "1", "B": null},
            "kind": "integrated"
        }))
        .unwrap();
        assert_eq!(cmd.program, "/usr/bin/python3");
        assert_eq!(cmd.args, vec!["launcher", "--", "app.py"]);
        assert_eq!(cmd.cwd.as_deref(), Some(std::path::Path::new("/src")));
        assert_eq!(cmd.env, vec![("A".into(), Some("1".into())), ("B".into(), None)]);
        assert_eq!(
            summarize(&cmd),
            r#"in cwd "/src", env {"A": "1", "B": null (unset)}, argv ["/usr/bin/python3", "launcher", "--", "app.py"]"#
        );
        let empty_cwd = terminal_command(&json!({"args": ["x"], "cwd": ""})).unwrap();
        assert_eq!(empty_cwd.cwd, None);
        for bad in [json!({}), json!({"args": []}), json!({"args": [1]}), json!({"args": ["x"], "env": {"A": 1}})] {
            assert!(terminal_command(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn node_notices_and_js_debug_lines_are_told_from_the_programs_output() {
        let node = crate::dap::adapters::AdapterKind::JsDebug.runtime_quirks();
        // A whole notice line goes; one after other text on its line stays (it could be the
        // program's own).
        let text = "partial lineWaiting for the debugger to disconnect...\nDebugger attached.\nok\n";
        assert_eq!(super::without_notices(text, &node), "partial lineWaiting for the debugger to disconnect...\nok\n");
        let mixed = "Breakpoint condition error: x is not defined\nboom\n";
        let pieces = super::adapter_lines(mixed, &node);
        assert_eq!(
            pieces,
            [(true, "Breakpoint condition error: x is not defined\n".to_owned()), (false, "boom\n".to_owned())]
        );
    }

    #[test]
    fn policies_parse() {
        assert_eq!(HostPolicy::parse("ask"), Some(HostPolicy::Ask));
        assert_eq!(HostPolicy::parse(" deny "), Some(HostPolicy::Deny));
        assert_eq!(HostPolicy::parse("allow"), Some(HostPolicy::Allow));
        assert_eq!(HostPolicy::parse("yes"), None);
    }

    /// rdbg 1.4.0 marks its own stderr lines `DEBUGGER: ` and, in a forked child,
    /// `DEBUGGER[<program>#<pid>]: `: both are the adapter's, the rest the program's.
    #[test]
    fn rdbgs_own_lines_are_told_from_the_programs_also_in_a_forked_child() {
        let runtime = crate::dap::adapters::AdapterKind::Rdbg.runtime_quirks();
        let text = "DEBUGGER: Connected.\nboom\nDEBUGGER[fork.rb#4242]: Connected.\n";
        assert_eq!(
            adapter_lines(text, &runtime),
            vec![
                (true, "DEBUGGER: Connected.\n".to_owned()),
                (false, "boom\n".to_owned()),
                (true, "DEBUGGER[fork.rb#4242]: Connected.\n".to_owned())
            ]
        );
    }

    /// Delve 1.20.2's logger shares the program's stderr: its lines (a timestamp, a level, a
    /// layer) are the adapter's; a program's line that only looks alike is the program's.
    #[test]
    fn delves_log_lines_are_told_from_the_programs_stderr() {
        let runtime = crate::dap::adapters::AdapterKind::Delve.runtime_quirks();
        let text = "2026-12-03T18:28:39Z error layer=dap runtime error: next while nexting\n\
                    panic: boom\n\
                    2026-12-03T18:28:39.512+01:00 warning layer=debugger x\n\
                    2026-12-03T18:28:39Z my own error layer=x\n\
                    2026-12-03 error layer=dap not a timestamp\n";
        assert_eq!(
            adapter_lines(text, &runtime),
            vec![
                (true, "2026-12-03T18:28:39Z error layer=dap runtime error: next while nexting\n".to_owned()),
                (false, "panic: boom\n".to_owned()),
                (true, "2026-12-03T18:28:39.512+01:00 warning layer=debugger x\n".to_owned()),
                (
                    false,
                    "2026-12-03T18:28:39Z my own error layer=x\n2026-12-03 error layer=dap not a timestamp\n"
                        .to_owned()
                ),
            ]
        );
        assert_eq!(after_timestamp("2026-12-03T18:28:39-07:00 x"), Some("x"));
        assert_eq!(after_timestamp("2026-12-03T18:28:39+0700 x"), None);
        assert_eq!(after_timestamp("é"), None);
    }
}
