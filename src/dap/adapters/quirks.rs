//! The quirks of an adapter as data: its deviations from plain DAP start-up and behaviour
//! ([`Quirks`]) and from a debuggee's plain life (entry, exit, output, processes:
//! [`RuntimeQuirks`]), with the small pure functions that read them. Each recipe (`debugpy.rs`,
//! `lldb.rs`, `delve.rs`, `jsdebug.rs`, `codelldb.rs`) fills them in (what `attach` reaches and how
//! its helper fails: `attach.rs`); must not: hold one adapter's values (beyond the spec-following
//! `STANDARD`s) or do any IO.

use super::attach::{AttachEndpoint, AttachHelperFailure};

/// How an adapter opens child sessions (subprocesses, workers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildSessions {
    /// The adapter has none.
    None,
    /// `startDebugging` whose configuration has `connect {host, port}`: agentdap opens a TCP
    /// connection there, even when the parent runs over stdio.
    StartDebuggingConnect,
    /// `startDebugging` answered by a new connection to the same TCP server.
    StartDebuggingSameServer,
}

/// How an adapter words a step it refused as a stop ([`RuntimeQuirks::refused_step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefusedStep {
    /// The `description` of the `exception` stop that stands for the refusal.
    pub description: &'static str,
    /// Why the adapter refuses, and what to do instead, in agentdap's words.
    pub why: &'static str,
}

/// Known deviations of an adapter from the plain DAP start-up and behaviour, as data.
/// [`Quirks::STANDARD`] is what an adapter following the spec to the letter would need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quirks {
    /// `initialized` is sent only after the `launch`/`attach` request arrives.
    pub initialized_after_launch: bool,
    /// The `launch`/`attach` response comes only after `configurationDone`.
    pub launch_response_after_configuration_done: bool,
    /// Filter ids the adapter accepts in `setExceptionBreakpoints` (empty: trust capabilities).
    pub exception_filters: &'static [&'static str],
    /// Filter names agents use mapped to the adapter's ids (`("all", "raised")`).
    pub exception_filter_aliases: &'static [(&'static str, &'static str)],
    /// Filters marked `default: true` stay off until the client sends them.
    pub default_filters_off_until_sent: bool,
    /// With the `uncaught` filter on, a non-zero `sys.exit` stops as an exception.
    pub exit_stops_as_exception: bool,
    /// `variables` honours `start`/`count` (when false agentdap pages itself).
    pub variable_paging: bool,
    /// Breakpoints on unbindable lines are moved and still reported `verified`.
    pub moves_unbindable_breakpoints: bool,
    /// How child sessions arrive.
    pub child_sessions: ChildSessions,
    /// The capability name for `disconnect { terminateDebuggee }` support.
    pub terminate_debuggee_capability: &'static str,
    /// `output` event categories dropped before they reach the session ring.
    pub dropped_output_categories: &'static [&'static str],
    /// Custom events dropped silently.
    pub dropped_events: &'static [&'static str],
    /// `console` output lines starting with these are the adapter's greeting, not the
    /// program's or the session's news: dropped (line by line; the event's other lines are
    /// kept) before they reach the output ring.
    pub console_banner: &'static [&'static str],
    /// A `pause` is reported as an `exception` stop whose words name this signal (it interrupts
    /// the process with it); agentdap reports it as the `pause` it is.
    pub pause_signal: Option<&'static str>,
    /// The launch argument meaning "stop at entry".
    pub stop_on_entry_key: &'static str,
    /// The `attach` argument naming the process to attach to by pid.
    pub attach_pid_key: &'static str,
    /// A `variablesReference` holds the values loaded when it was made: after a change (a
    /// `setVariable`, a function call) `variables` on it answers the old values, so agentdap
    /// reads a change back by evaluating the variable's `evaluateName` and refuses refs from
    /// before it.
    pub variables_are_snapshots: bool,
    /// `evaluate` expressions starting with these run code that may change values (with
    /// [`Quirks::variables_are_snapshots`], refs from before such an evaluation are refused).
    pub mutating_evaluate_prefixes: &'static [&'static str],
    /// A value with members (`variablesReference` > 0) is the object's own `repr`, which its
    /// class's author wrote and which may leave state out (debugpy: a `__repr__` returning
    /// `"Cfg()"` stays the same while `cfg.level` changes): unless its `type` is one of these,
    /// whose repr shows every item, such a value whose members were not read is not shown
    /// whole, and a stop never calls it unchanged. `None`: values are the adapter's own rendering.
    pub repr_whole_types: Option<&'static [&'static str]>,
    /// At an exception stop the stack may be the exception's whole traceback, its frames above
    /// the one execution is paused in already left: that frame's name ends with this marker,
    /// and the exception's name carries the note that starts with the second text. agentdap
    /// shows the frame names and the exception without them, and says where the program is
    /// paused when that is not the top frame.
    pub paused_frame_marker: Option<(&'static str, &'static str)>,
    /// The language calls methods without parentheses (Ruby: `arr.pop`, `h.delete :k`): an
    /// `evaluate` holding a method's name counts as a possible change by the agent
    /// (`session::own_change::may_change_values_in`).
    pub calls_without_parentheses: bool,
    /// The adapter's breakpoint stops carry no `hitBreakpointIds` but name the breakpoint's
    /// place in their `description`, `<prefix><path>:<line><suffix…>` (rdbg 1.4.0:
    /// `" BP - Line  /w/app.rb:7 (line)"`): the stop is credited by that place
    /// (`BreakpointStore::on_stop_at`).
    pub breakpoint_in_stop_description: Option<(&'static str, &'static str)>,
    /// The adapter keeps one breakpoint per line of a file, the last of a `setBreakpoints` list
    /// (debugpy 1.8.22: pydevd keys a file's breakpoints by line): a person's breakpoint on a
    /// line of the agent's is not sent (`BreakpointStore::union`).
    pub one_breakpoint_per_line: bool,
    /// A child with an empty `name` (a pointer's target) is shown under its `evaluateName`
    /// without the outer parentheses (`(*p)` → `*p`); `set_variable` takes that name.
    pub unnamed_child_from_evaluate_name: bool,
    /// A launched program's output (internal console) reaches agentdap on another path than
    /// its stops, with no order between them: a stop's result may come before the output
    /// printed just before the stop, so it says that more may follow.
    pub launch_output_apart_from_stops: bool,
    /// `setExpression` on a bare name assigns it in a copy of the frame's locals: a name that is
    /// not a local of the frame (a `global`, a module name read from a function, a builtin, a
    /// new name) gets a shadow entry there that the program never reads, and the adapter's
    /// evaluations read that shadow too. agentdap sets such a name through the frame's
    /// `Globals` scope (`setVariable`) when it is there, and refuses it otherwise.
    pub set_expression_shadows_nonlocals: bool,
    /// `output` events that carry this key are the adapter's own messages (log points), not
    /// the program's prints: they are labelled `logpoint`.
    pub logpoint_output_key: Option<&'static str>,
    /// What `attach {connect}` and `attach {pid}` reach.
    pub attach_endpoint: AttachEndpoint,
    /// How the adapter's helper for `attach {pid}` says it failed while the `attach` stays
    /// unanswered: the start-up fails at once with its words. `None`: no such helper.
    pub attach_helper_failure: Option<AttachHelperFailure>,
    /// Scopes `context` shows after the first cheap one, by the start of their names (js-debug:
    /// a closure's variables are in `Closure (<function>)`). Empty: the first one only.
    pub context_scopes: &'static [&'static str],
    /// `exceptionInfo`'s `exceptionId` is `<Type>: <message>`, with no `description` or
    /// `details.message` (js-debug 1.112.0).
    pub exception_id_has_message: bool,
    /// The DAP request sent in place of `launch` (with the same arguments) when the agent asks to
    /// stop on entry: the adapter ignores [`Quirks::stop_on_entry_key`], and this request leaves
    /// the program stopped where it waited for the client (rdbg 1.4.0: `attach` answers
    /// `configurationDone` with `stopped {reason: "pause"}` on the script's first line, where
    /// `launch` continues). `None`: `launch` with the key.
    pub stop_on_entry_request: Option<&'static str>,
    /// The only requests the adapter implements, when a request outside them ends the program
    /// (rdbg 1.4.0 raises `Unknown request` in its reader thread, closes the connection and the
    /// program dies): `dap_request` refuses the others before anything is sent. Empty: any
    /// request may be tried (an adapter answers an unknown one with an error).
    pub only_requests: &'static [&'static str],
    /// What becomes of a program after agentdap's `disconnect` lets go of it, when it does not
    /// simply run on (rdbg 1.4.0 dies at its next debugger event, writing to the closed
    /// connection: ruby/debug#622, #630): shown in place of "the program keeps running".
    pub detached_program_fate: Option<&'static str>,
    /// `setBreakpoints` only adds: a line the adapter was given keeps stopping after a request
    /// that leaves it out, and a line given again keeps its first condition (rdbg 1.4.0's
    /// `server_dap.rb` calls `add_line_breakpoint` for each and deletes none; a second one on a
    /// line is a disabled duplicate). agentdap says so where a set drops or changes a line, and
    /// refuses `run_to` (its temporary breakpoint would stay).
    pub breakpoints_only_added: bool,
    /// Requests the adapter never answers, with why: a `dap_request` of one is refused before
    /// anything is sent, since every later request would wait behind it (debugpy 1.8.22: a
    /// `loadedSources` gets no response at all — it does not advertise
    /// `supportsLoadedSourcesRequest` — and the session's next requests time out).
    pub unanswered_requests: &'static [(&'static str, &'static str)],
    /// The adapter has no `loadedSources`, but its modules are its source files (debugpy 1.8.22:
    /// each module's `path` is the `.py` file of a module whose code it has shown in a stack):
    /// `modules {sources}` reads them from `modules` and says so.
    pub loaded_sources_from_modules: bool,
    /// The words with which the adapter refuses a data breakpoint for want of hardware
    /// watchpoint resources (lldb-dap 22.1.8 on x86-64, with 4 debug registers, answers the 5th
    /// and 6th of six `Setting one of the watchpoint resources failed`; measured by
    /// `tests/native/breakpoint_kinds.rs`). `None`: such a refusal is shown in the adapter's
    /// words only.
    pub watchpoint_limit_message: Option<&'static str>,
    /// Breakpoint settings (`condition`, `hit_condition`, `log_message`: the names of
    /// `set_breakpoints`) the adapter honours without advertising the capability for them
    /// (Delve 1.20.2 does not set `supportsHitConditionalBreakpoints`, yet its `setBreakpoints`,
    /// `setFunctionBreakpoints` and `setInstructionBreakpoints` share one handler that applies
    /// `hitCondition`: service/dap/server.go; measured by `tests/native/breakpoint_truth.rs`).
    /// Not named as ignored, and listed as honoured by `capabilities`.
    pub unadvertised_settings: &'static [&'static str],
    /// The adapter's `dataId` ends with `<separator><bytes>`: the size it watches, which may
    /// differ from the `bytes` asked; with how it chooses the size, said where it differs
    /// (lldb-dap 22.1.8 makes `<address>/<size>` and sizes an address watch by the type the
    /// expression points to, ignoring `bytes`: `(char*)p` watches 1 byte, a bare number 0,
    /// which it then refuses without a word). `None`: the size is not known.
    pub watch_size_in_data_id: Option<(char, &'static str)>,
    /// A `read` watch also stops on writes (lldb-dap 22.1.8 on x86-64: the debug registers have
    /// no read-only mode, so LLDB watches reads and writes; its `dataBreakpointInfo` offers
    /// `read` all the same). Said on the set result and at such a stop.
    pub read_watch_stops_on_writes: bool,
    /// A `write` watch stops only when the value changes: a write of the same value does not
    /// stop (LLDB 18+ sets write watchpoints as `modify`; measured on lldb-dap 22.1.8: writing 0
    /// over 0 never stopped). Said on the set result.
    pub write_watch_on_change_only: bool,
    /// An expression watch is on the memory at the address the expression evaluates to, not on
    /// the expression's own storage; these are the words with which the adapter refuses one whose
    /// value is no address (lldb-dap 22.1.8: `acct.balance` = 100 is refused as "memory region
    /// for address 64 has no read or write permissions"). Such a refusal of an expression
    /// without `&` gets the hint to pass `&<expression>`. `None`: no hint.
    pub watch_address_refusal: Option<&'static str>,
    /// The words with which the adapter refuses an expression watch it looked up as a variable's
    /// name (lldb-dap 22.1.8: `s.sum` is "variable not found: s.sum", though `s.sum` evaluates):
    /// such a refusal gets the hint to pass the parent's `ref` and the member's `name`, or the
    /// address with `bytes`. `None`: no hint.
    pub watch_name_refusal: Option<&'static str>,
}

impl Quirks {
    /// A spec-following adapter.
    pub const STANDARD: Quirks = Quirks {
        initialized_after_launch: false,
        launch_response_after_configuration_done: false,
        exception_filters: &[],
        exception_filter_aliases: &[],
        default_filters_off_until_sent: false,
        exit_stops_as_exception: false,
        variable_paging: true,
        moves_unbindable_breakpoints: false,
        child_sessions: ChildSessions::None,
        terminate_debuggee_capability: "supportTerminateDebuggee",
        dropped_output_categories: &["telemetry"],
        dropped_events: &[],
        console_banner: &[],
        pause_signal: None,
        stop_on_entry_key: "stopOnEntry",
        attach_pid_key: "processId",
        variables_are_snapshots: false,
        mutating_evaluate_prefixes: &[],
        repr_whole_types: None,
        paused_frame_marker: None,
        calls_without_parentheses: false,
        breakpoint_in_stop_description: None,
        one_breakpoint_per_line: false,
        unnamed_child_from_evaluate_name: false,
        launch_output_apart_from_stops: false,
        set_expression_shadows_nonlocals: false,
        logpoint_output_key: None,
        attach_endpoint: AttachEndpoint::DapServer,
        attach_helper_failure: None,
        context_scopes: &[],
        exception_id_has_message: false,
        stop_on_entry_request: None,
        only_requests: &[],
        detached_program_fate: None,
        breakpoints_only_added: false,
        unanswered_requests: &[],
        loaded_sources_from_modules: false,
        watchpoint_limit_message: None,
        unadvertised_settings: &[],
        watch_size_in_data_id: None,
        read_watch_stops_on_writes: false,
        write_watch_on_change_only: false,
        watch_address_refusal: None,
        watch_name_refusal: None,
    };

    /// Why `command` must not be sent to this adapter ([`Quirks::only_requests`]), if it must not.
    /// Also refuses [`Quirks::unanswered_requests`].
    pub fn unknown_request(&self, adapter: &str, command: &str) -> Option<String> {
        if let Some((c, why)) = self.unanswered_requests.iter().find(|(c, _)| *c == command) {
            return Some(format!("{adapter} does not answer `{c}`, so agentdap did not send it: {why}"));
        }
        if self.only_requests.is_empty() || self.only_requests.contains(&command) {
            return None;
        }
        Some(format!(
            "{adapter} does not implement `{command}`, and a request it does not know ends the program, so agentdap did not send it (it implements: {})",
            self.only_requests.join(", ")
        ))
    }

    /// Maps an agent's exception filter name to the adapter's id (`all` → `raised` for
    /// debugpy); unknown names pass through unchanged for the caller to validate against
    /// [`Quirks::exception_filters`].
    pub fn map_exception_filter<'a>(&self, name: &'a str) -> &'a str {
        self.exception_filter_aliases.iter().find(|(from, _)| *from == name).map_or(name, |(_, to)| to)
    }
}

/// How a finished debuggee's exit code becomes known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitReport {
    /// A DAP `exited` event with `exitCode` (before `terminated`).
    ExitedEvent,
    /// No `exited` event: after `terminated` agentdap sends `disconnect`, and the adapter prints
    /// the status in a console `output` event containing `marker` followed by the decimal code
    /// (Delve: `Process 1234 has exited with status 7`). Parse with [`parse_exit_report`].
    ConsoleAfterDisconnect {
        /// The text right before the code.
        marker: &'static str,
    },
    /// No `exited` or `terminated` event: the adapter's process *is* the program (rdbg runs the
    /// DAP server inside the debuggee), its DAP connection closes when the program ends, and the
    /// process's exit status, as the IO shell reaps it, is the program's (a signal's death
    /// included). The run ends once both the close and the status are in.
    AdapterExitStatus,
}

/// Where the debuggee's stdout/stderr arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebuggeeOutput {
    /// As DAP `output` events (categories `stdout`/`stderr`).
    OutputEvents,
    /// As DAP `output` events, but from a pseudo-terminal: one `stdout` stream with stderr
    /// merged into it and `\r\n` line ends (strip the `\r` when assembling lines).
    OutputEventsFromPty,
    /// On the adapter's own stdout and stderr pipes, not as `output` events: the session reads
    /// them as categories `stdout`/`stderr` (after the port announcement, for TCP adapters).
    AdapterPipes,
}

/// Quirks about a debuggee's life (entry, exit, output, processes), as data for the session
/// layer. Kept apart from [`Quirks`] so that existing recipes build unchanged; one value per
/// [`AdapterKind`](super::AdapterKind) from
/// [`AdapterKind::runtime_quirks`](super::AdapterKind::runtime_quirks).
/// [`RuntimeQuirks::STANDARD`] is a spec-following adapter (debugpy fits it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeQuirks {
    /// "Stop on entry" means: launch with the adapter's stop-on-entry off, set a temporary
    /// function breakpoint on this function during the configuration phase, and remove it at
    /// the first stop (`launch`'s `stop_on_entry`). `None`: the adapter's own stop-on-entry is used.
    pub entry_function: Option<&'static str>,
    /// Reasons the adapter's *own* entry stop may carry (they are passed through unchanged;
    /// agentdap never synthesises `entry`; llvm/llvm-project#195352 shows why).
    pub adapter_entry_reasons: &'static [&'static str],
    /// The name of a placeholder thread the adapter reports at its own entry stop, on which
    /// `stackTrace` fails: not a real thread to focus.
    pub placeholder_thread: Option<&'static str>,
    /// A `stopped` may arrive before the response to the request that caused it (the request
    /// still succeeds; the stop wins).
    pub stop_before_response: bool,
    /// Where the debuggee's output arrives.
    pub debuggee_output: DebuggeeOutput,
    /// How the exit code is learned.
    pub exit_report: ExitReport,
    /// The adapter exits by itself after answering `disconnect`.
    pub exits_after_disconnect: bool,
    /// The adapter serves a single DAP connection for its whole life.
    pub single_client: bool,
    /// Frame ids and `variablesReference`s repeat at every stop (so agentdap always mints its
    /// own handles).
    pub reuses_ids_across_stops: bool,
    /// The adapter puts the debuggee (and helpers, [`RuntimeQuirks::helper_processes`]) in
    /// process groups of their own: killing the adapter's group does not reach them, so their
    /// pids must be recorded with the watchdog.
    pub debuggee_own_process_group: bool,
    /// Names (`/proc/<pid>/stat` comm, 15 bytes max) of helper processes the adapter starts.
    pub helper_processes: &'static [&'static str],
    /// Text that starts a crash report of the adapter itself; from the first line containing
    /// one, the rest of the adapter's output (events or stderr) is one diagnostic, not program
    /// output.
    pub crash_markers: &'static [&'static str],
    /// `launch` may compile the program first (seconds to minutes): its response deserves a
    /// longer timeout than other requests ([`BUILD_LAUNCH_TIMEOUT`]), and a failure carries the
    /// compiler's words.
    pub launch_builds: bool,
    /// The launch argument naming where a build puts the binary, and the file name agentdap gives
    /// it inside a temporary directory it owns (Delve: `output`, `__debug_bin`; by default it
    /// lands in the user's tree, and stays there when dlv is killed).
    pub build_output: Option<(&'static str, &'static str)>,
    /// The `evaluate` context used when the agent names none (lldb-dap treats `repl` input as
    /// a debugger command and answers `(int) $0 = 7`; `watch` gives the value itself).
    pub evaluate_context: &'static str,
    /// How a mirror client's `evaluate` must reach this adapter so that it is only ever an
    /// expression, never a debugger command or a statement (`mirror::as_expression`; SECURITY.md).
    /// The agent's own `evaluate` does not use it.
    pub mirror_evaluate: ExpressionOnly,
    /// Why a `pause` may end with the program still running, and what the agent can do then
    /// (shown when a `pause` wait ends without a stop). `None`: nothing known.
    pub pause_unanswered: Option<&'static str>,
    /// What an empty `result` of `evaluate` in the context given means for this adapter (shown
    /// in place of the empty value). `None`: nothing known, agentdap says the adapter showed none.
    pub empty_evaluate: Option<(&'static str, &'static str)>,
    /// A process killed by signal N is reported as `exitCode` N, word for word like `exit(N)`:
    /// after a stop at signal N that the agent resumed, such an exit is the signal.
    pub signal_exit_as_status: bool,
    /// How the debuggee's language says on stderr what ended it: a program that failed shows
    /// the line found by the first of these that matches as its "last stderr line", rather than
    /// the last line (a stack frame, a hint about backtraces). Empty: the last line.
    pub failure_shapes: &'static [FailureShape],
    /// Lines the debuggee's runtime prints on its own stderr because a debugger attached
    /// (Node: `Debugger attached.`), matched at the start of a line: the runtime's news, not the
    /// program's output. Empty: none.
    pub inspector_notices: &'static [&'static str],
    /// The adapter's own stop on entry is a breakpoint it never removes: every later pass over
    /// that location stops again, with the same reason (`entry`). Only the first such stop is
    /// the entry.
    pub entry_stop_repeats: bool,
    /// The start of the line a TCP adapter prints on its stdout once it listens on the port
    /// agentdap chose (js-debug: `Debug server listening at 127.0.0.1:<port>`): not shown.
    pub listening_line: Option<&'static str>,
    /// The adapter's own entry stop is at the file's first breakable position, which can be
    /// inside a function declared before the first statement (js-debug 1.112.0 on Node 20: a
    /// file starting with `function add() {…}` stops in `add` at its first call).
    pub entry_is_first_breakable: bool,
    /// The recipe has the adapter ask agentdap to run the program (`runInTerminal`) though the
    /// agent asked for no terminal (js-debug: the only way to learn the exit status): agentdap
    /// runs it on pipes, so its stdout and stderr stay apart. `console: terminal` still gets a
    /// pseudo-terminal.
    pub program_on_pipes: bool,
    /// A `pause` may stop with reason `step`: js-debug 1.112.0 carries a pause that lands in
    /// skipped code (`skipFiles`, Node's internals) on by stepping until the program's own code,
    /// then reports that stop as a step (the fresh-user report: ~70 steps, 3 s).
    pub pause_stops_as_step: bool,
    /// A step the adapter refuses is reported as a `stopped {reason: exception}` with this
    /// `description`, though nothing ran: agentdap reports it as a `step refused` stop at the
    /// same place, with why the adapter refuses it and what to do instead.
    pub refused_step: Option<RefusedStep>,
    /// Lines the adapter makes the program print on its own stderr (js-debug 1.112.0 evaluates a
    /// breakpoint's condition in the program and reports its error there): shown as `console`,
    /// the adapter's words, not the program's.
    pub adapter_stderr_prefixes: &'static [&'static str],
    /// Lines of the adapter's own logger on the stderr it shares with the program: an RFC 3339
    /// timestamp, a space, then one of these (Delve 1.20.2: `2026-12-03T18:28:39Z error
    /// layer=dap runtime error: next while nexting`): shown as `console`, the adapter's words.
    pub adapter_log_after_timestamp: &'static [&'static str],
    /// An `output` event of category `stderr` is the adapter's own message, shown as `console`
    /// (CodeLLDB 1.11.8 reports its errors and `Stop reason: signal SIGSTOP` that way, while the
    /// program's stderr comes as `stdout` from its pseudo-terminal).
    pub stderr_events_are_adapters: bool,
    /// The adapter runs the program itself, named on its command line (rdbg: `rdbg --open … --
    /// <program> <args>`): agentdap appends the program and its arguments to the adapter's
    /// command, runs it in the launch `cwd` with the launch `env`, and the process's stderr lines
    /// starting with one of [`RuntimeQuirks::adapter_stderr_prefixes`] are the adapter's output.
    pub program_on_command_line: bool,
    /// Results of `evaluate` that are the adapter's refusal, not a value (rdbg 1.4.0 answers
    /// `Error: Can not evaluate on this frame`, as a `String`, in a frame with no Ruby binding: a
    /// C method's, `[C] Kernel#sleep`): shown as an error.
    pub evaluate_refusals: &'static [&'static str],
    /// An exception the expression raised is answered as its value (rdbg 1.4.0:
    /// `#<NameError: undefined local variable …>` of type `NameError`), so a value that reads like
    /// an exception is marked as most likely the expression's failure.
    pub evaluate_raises_as_value: bool,
    /// An `evaluate` error containing the first text is given the second as a hint (CodeLLDB
    /// 1.11.8 answers `Syntax error` for C syntax its default "simple" expressions lack, which
    /// its `/nat` prefix evaluates).
    pub evaluate_error_hint: Option<(&'static str, &'static str)>,
    /// Paths of the adapter's own code in the Python traceback an `evaluate` error quotes: those
    /// frames are left out, counted (debugpy 1.8.22 quotes six frames of pydevd's evaluator
    /// above a syntax error: `session/traceback.rs`).
    pub evaluate_own_frames: &'static [&'static str],
    /// Values asked for in hex (`format: {hex: true}`) come as bare hex digits, without `0x`
    /// (js-debug 1.112.0: `20` is `"14"`, `255` is `"ff"`): agentdap adds the prefix, so no hex
    /// value reads as a decimal one.
    pub hex_without_prefix: bool,
    /// An exception stop whose top frames' names start with this is in the language runtime's
    /// own code (Delve 1.20: a panic stops in `runtime.fatalpanic`, under `runtime.gopanic` and
    /// `runtime.goPanicIndex`): the stop shows the first frame that is not, the program's, and
    /// says which frame the exception's top is (a fresh user saw only the runtime's locals).
    pub exception_runtime_frames: Option<&'static str>,
    /// Output lines that report a breakpoint's condition failing to evaluate: the text before the
    /// condition, and whether the condition follows in double quotes (then it is what lies
    /// between the line's first and last `"`). debugpy 1.8.x: `pydevd: Error while evaluating
    /// expression in conditional breakpoint: 1/0 == 1` then a traceback, and it does not stop;
    /// lldb-dap 22.1.8: `error: stopped due to an error evaluating condition of breakpoint 1.1:
    /// "nosuch > 0"`, after the `stopped` it makes there (`tests/native` `life_lldb`).
    pub condition_error_marks: &'static [(&'static str, bool)],
    /// A `stackTrace` answer's `totalFrames` is the stack's depth even when the page is cut
    /// (debugpy 1.8: `levels: 1` of a 3-deep stack answers 3). Where it is not said true, only a
    /// page that ends before `levels` gives the depth: lldb-dap 22 answers `start + levels + 20`
    /// while frames follow (21 at every depth of a recursion). A stop result compares locals only
    /// with a frame whose depth was known to be the same (`session/stop_frame.rs`).
    pub total_frames_exact: bool,
    /// A `next` or `stepOut` ends in the call it left or in one of its callers, never in a new
    /// call of that call's function under the same caller — LLDB's step plans, which step over
    /// calls and stop on return (a self tail call reuses the frame, which a page reads the same
    /// way). Where it holds, a stop after such a step in the same function and caller takes
    /// the stop before's depth instead of paging the stack (`session/stop_frame.rs`,
    /// `may_tell_depth`). Not for Delve 1.20: a `next` over `panic()` stops in a new deferred
    /// call, under `runtime.gopanic` as the older one was (`tests/native/stop_frame_delve.rs`).
    pub step_stays_in_call: bool,
    /// The adapter handles requests one at a time in arrival order, each on the state the one
    /// before left, and a thread's top frame and its locals scope keep their ids from stop to
    /// stop: a stop that reads the locals sends `scopes` and `variables` for the previous
    /// stop's ids together with its `stackTrace`, and uses their answers only where the
    /// `stackTrace` and `scopes` answers show the ids were the same
    /// (`session/stop_frame/ahead.rs`).
    pub pipelined_stop_reads: bool,
    /// Thread ids come and go between stops (Delve 1.20: goroutines end), so a stop that asks
    /// for no thread list knows only its own thread: an id shown at an earlier stop is checked
    /// again with `threads` before a call may name it (`session/threads.rs`).
    pub thread_ids_churn: bool,
    /// How the adapter opens a core file (`attach {core, program}`); `None`: it cannot here.
    pub core_file: Option<super::CoreOpen>,
    /// What `stacks` must know of the adapter (a sampler, a stale `threads`: `stack_sampler.rs`).
    pub stacks: super::stack_sampler::StacksQuirks,
}

/// A known shape of a runtime's report of what ended a program on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureShape {
    /// Go (1.x runtime): `panic: <value>` or `fatal error: <message>` at the start of a line,
    /// then goroutine stacks.
    GoPanic,
    /// CPython: `Traceback (most recent call last):`, indented frame lines, then the exception
    /// (`KeyError: 'x'`) on the first line not indented.
    PythonTraceback,
    /// Rust std: `thread 'main' panicked at src/main.rs:4:5:` with the message on the next line
    /// (Rust 1.73 on; 1.90 adds the thread id: `thread 'main' (1909) panicked at`), or the
    /// message in the same line (`panicked at 'msg', src/main.rs:4:5`, earlier versions).
    RustPanic,
    /// Node.js (checked on v20): an uncaught error prints the source line and a caret, then
    /// `TypeError: bad thing` (or `Error [ERR_MODULE_NOT_FOUND]: …`) followed by indented
    /// `    at …` frames, then `Node.js v20.20.2`; a thrown non-error prints its value followed by
    /// the hint `(Use node --trace-uncaught ... to show where the exception was thrown)` (the
    /// command in backticks).
    NodeUncaught,
    /// Ruby (checked on 3.1): an uncaught exception prints `<file>:<line>:in `<where>': <message>
    /// (<Class>)` (Ruby 3.4 quotes `'<where>'`), then its backtrace as tab-indented `from` lines.
    RubyUncaught,
}

/// Most characters of a failure line shown (a panic value can be a whole data structure).
const FAILURE_LINE_CHARS: usize = 300;

impl FailureShape {
    /// The line of `lines` (stderr, oldest first) that says what happened, in this shape's
    /// last report there, if any.
    pub fn find(self, lines: &[&str]) -> Option<String> {
        let found = match self {
            FailureShape::GoPanic => lines
                .iter()
                .rposition(|l| l.starts_with("panic: ") || l.starts_with("fatal error: "))
                .map(|i| lines[i].to_owned()),
            FailureShape::PythonTraceback => {
                let header = lines.iter().rposition(|l| l.trim_end() == "Traceback (most recent call last):")?;
                lines[header + 1..]
                    .iter()
                    .find(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
                    .map(|l| (*l).to_owned())
            }
            FailureShape::RustPanic => {
                let at = lines.iter().rposition(|l| l.starts_with("thread '") && l.contains(" panicked at "))?;
                let line = lines[at].trim_end();
                match (line.ends_with(':'), lines.get(at + 1)) {
                    (true, Some(message)) => Some(format!("{line} {}", message.trim())),
                    _ => Some(line.to_owned()),
                }
            }
            FailureShape::NodeUncaught => {
                let frame = |l: &&str| l.starts_with("    at ");
                let hint = |l: &&str| l.starts_with("(Use `node --trace-uncaught");
                let next = lines.iter().rposition(|l| frame(l) || hint(l))?;
                let first = lines[..=next].iter().rposition(|l| !frame(l) && !hint(l))?;
                let line = lines[first].trim_end();
                (!line.is_empty() && !line.starts_with(char::is_whitespace)).then(|| line.to_owned())
            }
            FailureShape::RubyUncaught => lines
                .iter()
                .rposition(|l| {
                    !l.starts_with(char::is_whitespace)
                        && (l.contains(":in `") || l.contains(":in '"))
                        && l.trim_end().ends_with(')')
                })
                .map(|i| lines[i].trim_end().to_owned()),
        }?;
        Some(found.chars().take(FAILURE_LINE_CHARS).collect())
    }
}

/// The shape of an `evaluate` an adapter evaluates as an expression only: the contexts in which
/// it never runs the text as a debugger command (`repl` input often is one: LLDB commands in
/// lldb-dap, gdb commands in gdb's DAP, statements in debugpy) and the words or prefixes that
/// make it run one in any context. The mirror also requires a `frameId`: debugpy executes a
/// frameless `evaluate` as a statement whatever the context (see `debugpy::MIRROR_EVALUATE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpressionOnly {
    /// Contexts passed through as the client named them; any other context (`repl`, none, an
    /// unknown one) is replaced by the first.
    pub contexts: &'static [&'static str],
    /// Words that turn the text into a command in every context when it starts with one of them
    /// followed by whitespace (leading whitespace ignored): refused.
    pub command_words: &'static [&'static str],
    /// Prefixes that escape to a command: an expression starting with one (leading whitespace
    /// ignored) is refused.
    pub command_prefixes: &'static [&'static str],
    /// Text that runs a command from anywhere inside an expression (gdb's `$_shell(…)`): an
    /// expression containing one is refused.
    pub refused_anywhere: &'static [&'static str],
}

impl ExpressionOnly {
    /// DAP's own meaning (DAP § Requests Evaluate: `watch`, `hover`, `clipboard`, `variables`
    /// evaluate an expression for a view; `repl` is the debug console, which adapters may treat
    /// as commands). Nothing refused beyond that: an unknown adapter's command syntax is unknown.
    pub const STANDARD: ExpressionOnly = ExpressionOnly {
        contexts: &["watch", "hover"],
        command_words: &[],
        command_prefixes: &[],
        refused_anywhere: &[],
    };
}

/// The `launch` request's timeout for adapters whose `launch` builds the program
/// ([`RuntimeQuirks::launch_builds`]): a cold `go build` takes 10+ s, a big module minutes.
pub const BUILD_LAUNCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

impl RuntimeQuirks {
    /// A spec-following adapter.
    pub const STANDARD: RuntimeQuirks = RuntimeQuirks {
        entry_function: None,
        adapter_entry_reasons: &["entry"],
        placeholder_thread: None,
        stop_before_response: false,
        debuggee_output: DebuggeeOutput::OutputEvents,
        exit_report: ExitReport::ExitedEvent,
        exits_after_disconnect: true,
        single_client: false,
        reuses_ids_across_stops: false,
        debuggee_own_process_group: false,
        helper_processes: &[],
        crash_markers: &[],
        launch_builds: false,
        build_output: None,
        evaluate_context: "repl",
        mirror_evaluate: ExpressionOnly::STANDARD,
        pause_unanswered: None,
        empty_evaluate: None,
        signal_exit_as_status: false,
        failure_shapes: &[],
        inspector_notices: &[],
        entry_stop_repeats: false,
        listening_line: None,
        entry_is_first_breakable: false,
        program_on_pipes: false,
        pause_stops_as_step: false,
        refused_step: None,
        adapter_stderr_prefixes: &[],
        adapter_log_after_timestamp: &[],
        stderr_events_are_adapters: false,
        program_on_command_line: false,
        evaluate_refusals: &[],
        evaluate_raises_as_value: false,
        evaluate_error_hint: None,
        evaluate_own_frames: &[],
        hex_without_prefix: false,
        exception_runtime_frames: None,
        condition_error_marks: &[],
        total_frames_exact: false,
        step_stays_in_call: false,
        pipelined_stop_reads: false,
        thread_ids_churn: false,
        core_file: None,
        stacks: super::stack_sampler::StacksQuirks::STANDARD,
    };

    /// Whether `line` (one stderr line of the debuggee) is one of the runtime's
    /// [`RuntimeQuirks::inspector_notices`].
    pub fn is_inspector_notice(&self, line: &str) -> bool {
        self.inspector_notices.iter().any(|n| line.starts_with(n))
    }

    /// Whether `text` (one output line or a stderr chunk) starts the adapter's crash report.
    pub fn is_crash_report(&self, text: &str) -> bool {
        self.crash_markers.iter().any(|m| text.contains(m))
    }

    /// The timeout of the `launch` request: [`BUILD_LAUNCH_TIMEOUT`] when it builds, else the
    /// client's default (`None`).
    pub fn launch_timeout(&self) -> Option<std::time::Duration> {
        self.launch_builds.then_some(BUILD_LAUNCH_TIMEOUT)
    }
}

/// The exit code in an [`ExitReport::ConsoleAfterDisconnect`] line: the decimal number right
/// after `marker` (a leading `-` allowed). `None` when the line is something else.
pub fn parse_exit_report(marker: &str, line: &str) -> Option<i64> {
    let rest = &line[line.find(marker)? + marker.len()..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(rest.len(), |(i, _)| i);
    rest[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::adapters::debugpy;

    /// Stderr as the runtimes print it (Go 1.19 `go run`, Rust 1.90 with RUST_BACKTRACE=1,
    /// CPython 3.11 with a chained exception), paths shortened.
    #[test]
    fn a_failure_shape_finds_the_line_that_says_what_happened() {
        let go = "transfer 2 of 200: err=insufficient funds\npanic: assignment to entry in nil map\n\n\
                  goroutine 1 [running]:\nmain.main()\n\t/src/gobank/main.go:44 +0x3e5\nexit status 2\n";
        let rust = "thread 'main' (1909) panicked at p.rs:1:54:\nindex out of bounds: the len is 0 but the index is 3\n\
                    stack backtrace:\n   0: __rustc::rust_begin_unwind\n             at /rustc/library/std/src/panicking.rs:689:5\n\
                    note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n";
        let rust_old = "thread 'main' panicked at 'boom', src/main.rs:2:5\nnote: run with `RUST_BACKTRACE=1`\n";
        let python = "Traceback (most recent call last):\n  File \"/src/t.py\", line 4, in <module>\n    f()\n\
                      KeyError: 'x'\n\nThe above exception was the direct cause of the following exception:\n\n\
                      Traceback (most recent call last):\n  File \"/src/t.py\", line 6, in <module>\n    \
                      raise ValueError(\"bad\\nsecond line\") from e\n    ^^^^^^^^^^\nValueError: bad\nsecond line\ncleanup done\n";
        let check = |shape: FailureShape, text: &str| shape.find(&text.lines().collect::<Vec<_>>());
        assert_eq!(check(FailureShape::GoPanic, go).as_deref(), Some("panic: assignment to entry in nil map"));
        let fatal = "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\n";
        assert_eq!(
            check(FailureShape::GoPanic, fatal).as_deref(),
            Some("fatal error: all goroutines are asleep - deadlock!")
        );
        assert_eq!(
            check(FailureShape::RustPanic, rust).as_deref(),
            Some("thread 'main' (1909) panicked at p.rs:1:54: index out of bounds: the len is 0 but the index is 3")
        );
        assert_eq!(
            check(FailureShape::RustPanic, rust_old).as_deref(),
            Some("thread 'main' panicked at 'boom', src/main.rs:2:5")
        );
        assert_eq!(check(FailureShape::PythonTraceback, python).as_deref(), Some("ValueError: bad"));
        // Not this shape: nothing found, and the caller shows the last line.
        assert_eq!(check(FailureShape::GoPanic, python), None);
        assert_eq!(check(FailureShape::PythonTraceback, go), None);
        assert_eq!(check(FailureShape::RustPanic, "error: file not found\n"), None);
        let long = format!("panic: {}\n", "x".repeat(1000));
        assert_eq!(check(FailureShape::GoPanic, &long).map(|l| l.chars().count()), Some(FAILURE_LINE_CHARS));
    }

    /// Node v20.20.2's stderr for an uncaught TypeError (with js-debug's notice after it), a
    /// module that is not there, and a thrown string.
    #[test]
    fn nodes_failure_line_is_the_error_above_its_frames() {
        let check = |text: &str| FailureShape::NodeUncaught.find(&text.lines().collect::<Vec<_>>());
        let thrown =
            "Debugger attached.\n/src/t.js:1\nfunction f(){ throw new TypeError(\"bad thing\"); }\n              ^\n\n\
                      TypeError: bad thing\n    at f (/src/t.js:1:21)\n    at Object.<anonymous> (/src/t.js:2:1)\n\n\
                      Node.js v20.20.2\nWaiting for the debugger to disconnect...\n";
        assert_eq!(check(thrown).as_deref(), Some("TypeError: bad thing"));
        let module = "node:internal/modules/esm/resolve:283\n    throw new ERR_MODULE_NOT_FOUND(\n          ^\n\n\
                      Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/src/nope.js' imported from /src/m.mjs\n\
                      \x20   at finalizeResolution (node:internal/modules/esm/resolve:283:11)\n\
                      \x20   at ModuleJob._link (node:internal/modules/esm/module_job:168:49) {\n  code: 'ERR_MODULE_NOT_FOUND',\n}\n\n\
                      Node.js v20.20.2\n";
        assert_eq!(
            check(module).as_deref(),
            Some("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/src/nope.js' imported from /src/m.mjs")
        );
        let string = "\n/src/s.js:1\nthrow \"a string\";\n^\na string\n\
                      (Use `node --trace-uncaught ...` to show where the exception was thrown)\n\nNode.js v20.20.2\n";
        assert_eq!(check(string).as_deref(), Some("a string"));
        assert_eq!(check("all good\nNode.js v20.20.2\n"), None);
    }

    /// Ruby 3.1.2's stderr for an uncaught ZeroDivisionError two calls deep, with rdbg 1.4.0's
    /// own line after it.
    #[test]
    fn rubys_failure_line_is_the_exception_above_its_backtrace() {
        let check = |text: &str| FailureShape::RubyUncaught.find(&text.lines().collect::<Vec<_>>());
        let raised = "/src/boom.rb:2:in `/': divided by 0 (ZeroDivisionError)\n\tfrom /src/boom.rb:2:in `divide'\n\
                      \tfrom /src/boom.rb:6:in `<main>'\nDEBUGGER: Disconnected.\n";
        assert_eq!(check(raised).as_deref(), Some("/src/boom.rb:2:in `/': divided by 0 (ZeroDivisionError)"));
        let newer = "/src/boom.rb:6:in '<main>': boom (RuntimeError)\n";
        assert_eq!(check(newer).as_deref(), Some("/src/boom.rb:6:in '<main>': boom (RuntimeError)"));
        assert_eq!(check("warning: something\n\tfrom nowhere\n"), None);
    }

    #[test]
    fn maps_exception_filter_aliases() {
        let q = debugpy::quirks();
        assert_eq!(q.map_exception_filter("all"), "raised");
        assert_eq!(q.map_exception_filter("uncaught"), "uncaught");
        assert_eq!(Quirks::STANDARD.map_exception_filter("all"), "all");
    }
}
