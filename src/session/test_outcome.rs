//! What a `launch {test}` result says of the test (README § Recipes › A test fails): the
//! runner that ran it ([`TestRun`], carried by the session) and its outcome — failed where it
//! stopped, failed without stopping, passed, matched nothing, or not known yet — read from the
//! stop, the exit status and the output, and rendered in one place (the result's text line and
//! `structuredContent.test`). Must not: choose the runner or build the launch
//! (`plan/test_id.rs`), send requests, or claim an outcome the run did not show.

use serde_json::{json, Value};

use super::snapshot::{ExceptionStop, Location, RunState, Stop};
use super::Session;
use crate::dap::requests::StackFrame;

/// Bytes of the output's end scanned for the runner's own words (pytest's `FAILED …` summary,
/// go test's `no tests to run`, unittest's `Ran 0 tests`).
const SCAN_BYTES: usize = 16 * 1024;

/// Which test runner runs the test. What each runner's exit statuses and words mean is data
/// here ([`Runner::exit_outcome`]); how it is launched is `plan/test_id.rs`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// `python -m pytest <node id>` under debugpy.
    Pytest,
    /// `python -m unittest <dotted id>` under debugpy.
    Unittest,
    /// A Go package's test binary under Delve (`mode: test`, `-test.run '^Name$'`).
    GoTest,
    /// A `node:test` file run by node itself under js-debug (`--test-name-pattern`).
    NodeTest,
    /// A Rust test binary that cargo built, under the native adapter (`test_rust.rs`), with a
    /// function breakpoint on `rust_panic`.
    RustTest,
}

impl Runner {
    /// The runner's name as results show it.
    pub fn name(self) -> &'static str {
        match self {
            Runner::Pytest => "pytest",
            Runner::Unittest => "unittest",
            Runner::GoTest => "go test",
            Runner::NodeTest => "node:test",
            Runner::RustTest => "cargo test",
        }
    }

    /// A function whose breakpoint marks the failure when a failing test raises nothing the
    /// adapter stops at: Go's `t.Errorf`/`t.Fatalf` call `(*common).Fail` (Go 1.19
    /// `src/testing/testing.go`) and never panic. `None`: the failure is an exception the
    /// exception filters stop at. [`Runner::failure_condition`] goes with it.
    pub fn failure_function(self) -> Option<&'static str> {
        match self {
            Runner::GoTest => Some(GO_FAIL),
            Runner::RustTest => Some(RUST_PANIC),
            Runner::Pytest | Runner::Unittest | Runner::NodeTest => None,
        }
    }

    /// The condition of [`Runner::failure_function`]'s breakpoint: Go 1.19's `Fail` first calls
    /// its parent's `Fail` (up to the root `common`, whose `parent` is nil), so one `t.Errorf`
    /// enters it once per level; only the root's entry stops, once per failure (measured on
    /// Delve 1.20.2: without it `continue` stopped again at the same `t.Errorf`).
    pub fn failure_condition(self) -> Option<&'static str> {
        match self {
            Runner::GoTest => Some("c.parent == nil"),
            Runner::Pytest | Runner::Unittest | Runner::NodeTest | Runner::RustTest => None,
        }
    }

    /// Whether `frame` is the runner's or the runtime's own, skipped to show the test's frame
    /// at a stop in [`Runner::failure_function`] or at an exception (Go: the `testing` and
    /// `runtime` packages, for `Fail` and a panic's `gopanic`/`fatalpanic`; node: Node's own
    /// modules, `<node_internals>/assert` where an assertion throws, js-debug 1.112's name for
    /// them). Pytest and unittest stop in the test's frame already (`userUnhandled`).
    fn is_own(self, frame: &StackFrame) -> bool {
        let name = frame.name.as_deref().unwrap_or("");
        let path = frame.source.as_ref().and_then(|s| s.path.typed().or(s.name.typed())).map_or("", String::as_str);
        match self {
            Runner::GoTest => name.starts_with("testing.") || name.starts_with("runtime."),
            Runner::NodeTest => path.starts_with("<node_internals>") || path.starts_with("node:"),
            // The standard library's frames between `rust_panic` and the test (`panic_fmt`,
            // `assert_failed`, …): their sources are the toolchain's (`/rustc/<hash>/library/…`
            // as rustc 1.95 records them), their names std's, core's, alloc's or libtest's.
            Runner::RustTest => {
                path.starts_with("/rustc/")
                    || ["std::", "core::", "alloc::", "test::", "__rustc::", "rust_panic"]
                        .iter()
                        .any(|p| name.starts_with(p))
            }
            Runner::Pytest | Runner::Unittest => false,
        }
    }

    /// Whether the runner's exception stops are every thrown exception, caught ones too
    /// (js-debug's `all`, which a runner that catches the assertion needs): such a stop is not
    /// yet a failure.
    fn stops_at_every_throw(self) -> bool {
        self == Runner::NodeTest
    }

    /// What the runner's exit says when the test never stopped where it failed. `output` is the
    /// end of the run's output.
    fn exit_outcome(self, code: i64, output: &str) -> Outcome {
        let has = |w: &str| output.contains(w);
        let failed_line = || summary_line(output, &["FAILED ", "ERROR ", "--- FAIL: ", "FAIL: "]);
        match (self, code) {
            // `python -m pytest` in an interpreter without pytest.
            (Runner::Pytest, _) if has("No module named pytest") => Outcome::RunnerError(
                "pytest is not installed in the debuggee's interpreter (README § Recipes › A test fails)".into(),
            ),
            // pytest 9.2: exit 0 all passed, 1 some failed, 2 interrupted, 3 internal error,
            // 4 usage error (a node id that is not found: "ERROR: not found: …"), 5 no tests
            // collected (`_pytest/config/__init__.py` `ExitCode`).
            (Runner::Pytest, 0) if !has(" passed") => Outcome::Unknown(NO_SUMMARY),
            (Runner::Pytest, 0) => Outcome::Passed,
            (Runner::Pytest, 5) => Outcome::NoMatch("pytest collected no test (exit status 5)".into()),
            (Runner::Pytest, 4) if has("not found") => {
                let why = summary_line(output, &["ERROR: "]).unwrap_or_else(|| "ERROR: not found".into());
                Outcome::NoMatch(format!("pytest: {why}"))
            }
            (Runner::Pytest, 1) => Outcome::FailedUnstopped(failed_line()),
            (Runner::Pytest, c) => Outcome::RunnerError(format!(
                "pytest exited with status {c} ({})",
                match c {
                    2 => "interrupted",
                    3 => "internal error",
                    4 => "usage error",
                    _ => "not one of pytest's statuses",
                }
            )),
            // Python 3.11's unittest: a name that is not found becomes a `_FailedTest` that errors
            // (exit 1); no test at all is `Ran 0 tests` (exit 0 before 3.12, 5 from 3.12).
            (Runner::Unittest, _) if has("unittest.loader._FailedTest") => {
                let why = summary_line(output, &["AttributeError: ", "ModuleNotFoundError: ", "ImportError: "]);
                Outcome::NoMatch(format!("unittest: {}", why.unwrap_or_else(|| "no such test".into())))
            }
            (Runner::Unittest, _) if has("\nRan 0 tests") || output.starts_with("Ran 0 tests") => {
                Outcome::NoMatch("unittest ran 0 tests".into())
            }
            // unittest's last line `OK` (or `OK (skipped=1)`), on stderr.
            (Runner::Unittest, 0) if summary_line(output, &["OK"]).is_none() => Outcome::Unknown(NO_SUMMARY),
            (Runner::Unittest, 0) => Outcome::Passed,
            (Runner::Unittest, _) => Outcome::FailedUnstopped(failed_line()),
            // Go 1.19's test binary: `testing: warning: no tests to run` and `PASS` with status
            // 0 when `-test.run` matches nothing; 1 and `FAIL` when a test failed.
            (Runner::GoTest, 0) if has("no tests to run") => Outcome::NoMatch("go test: no tests to run".into()),
            (Runner::GoTest, 0) if !has("--- PASS: ") => Outcome::Unknown(NO_SUMMARY),
            (Runner::GoTest, 0) => Outcome::Passed,
            (Runner::GoTest, _) => Outcome::FailedUnstopped(failed_line()),
            // Node 20.20's in-process `node:test` run: its TAP summary (`# pass 0`, `# fail 0`:
            // the name pattern skipped every test; exit status 0).
            (Runner::NodeTest, 0) if has("\n# pass 0\n") && has("\n# fail 0\n") => {
                Outcome::NoMatch("node:test ran no test: every test was skipped by the name pattern".into())
            }
            (Runner::NodeTest, 0) if !has("# pass ") => Outcome::Unknown(NO_SUMMARY),
            (Runner::NodeTest, 0) => Outcome::Passed,
            (Runner::NodeTest, _) => Outcome::FailedUnstopped(summary_line(output, &["not ok "])),
            // libtest (Rust 1.95): status 0 and `running 0 tests` when the name matched nothing
            // (agentdap picks the binary by its `--list`, so only a filter the list missed), 101
            // when a test failed (its panic is normally stopped at first).
            (Runner::RustTest, 0) if has("running 0 tests") => Outcome::NoMatch("libtest ran 0 tests".into()),
            (Runner::RustTest, 0) if !has("test result: ok.") => Outcome::Unknown(NO_SUMMARY),
            (Runner::RustTest, 0) => Outcome::Passed,
            (Runner::RustTest, _) => Outcome::FailedUnstopped(summary_line(output, &["test result: FAILED"])),
        }
    }
}

/// The function every Rust panic passes through before unwinding starts (std `panicking.rs`:
/// `rust_panic_with_hook` calls it after the panic hook printed the message; `#[inline(never)]`
/// and unmangled for debuggers' breakpoints).
pub const RUST_PANIC: &str = "rust_panic";

/// The message of the last panic the default panic hook printed in `output` (a test run with
/// `--nocapture` prints it to stderr before `rust_panic` is called): `panicked at src/lib.rs:17:9:
/// assertion … failed`, the message's lines after the location, up to the backtrace note.
pub fn rust_panic_message(output: &str) -> Option<String> {
    // std's default hook (library/std/src/panicking.rs, `default_hook`): `thread '<name>'
    // panicked at <location>:\n<message>\n`; since Rust 1.92 the thread's id follows its name.
    let start = output.rfind("thread '")?;
    let rest = &output[start..];
    let at = rest.find("panicked at ")?;
    let first = rest[at..].lines().next()?.trim_end_matches('\r');
    let mut text = first.trim_end_matches(':').to_owned();
    // At most 20 lines of message.
    for (i, line) in rest[at..].lines().skip(1).take(20).enumerate() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() || line.starts_with("note: ") || line.starts_with("stack backtrace:") {
            break;
        }
        text.push_str(if i == 0 { ": " } else { "\n" });
        text.push_str(line);
    }
    Some(text)
}

/// Whether libtest announced the running test as a `#[should_panic]` one (`test <name> - should
/// panic ... `, Rust 1.95's `test/src/formatters/pretty.rs`).
fn expects_panic(output: &str) -> bool {
    output.lines().rev().find(|l| l.starts_with("test ")).is_some_and(|l| l.contains(" - should panic ..."))
}

/// A status 0 without the runner's own report of a pass (pytest's `1 passed`, unittest's `OK`,
/// go test's `--- PASS:`, node's `# pass`, libtest's `test result: ok.`): the process ended
/// itself (`os._exit(0)`, `std::process::exit(0)` inside the test) before the runner said
/// anything, so a pass is not known.
const NO_SUMMARY: &str =
    "the runner exited with status 0 without reporting a result: the test may have ended the process itself";

/// Go 1.19's `testing.(*common).Fail`, as Delve 1.20.2 names it in a function breakpoint.
pub const GO_FAIL: &str = "testing.(*common).Fail";

/// A test run: the id as the agent gave it, and the runner chosen for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestRun {
    pub id: String,
    pub runner: Runner,
}

/// A session's test: the run, and what its current stop shows instead of the top frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSession {
    pub run: TestRun,
    /// At a stop in the runner's code: the frame shown instead of the top one.
    pub below: Option<Below>,
    /// The failure a stop showed (its revision and outcome): a run that agentdap ends afterwards
    /// (`disconnect` at the failure) still reads failed, never "unknown".
    pub failed: Option<(u64, Outcome)>,
}

/// The top frame of a stop that shows the test's frame instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Below {
    /// The stop's revision.
    pub revision: u64,
    /// `testing.go:816 in testing.(*common).Fail()`.
    pub top: String,
    /// The stack holds a panic under way (Go's `runtime.gopanic`): the runner marks the test
    /// failed from its deferred function, before the panic's own stop.
    pub panicking: bool,
}

/// The message of a failure marked while the test panics: the panic's value comes at its own stop.
const PANICKING: &str = "the test panicked; `continue` stops at the panic with its value";

/// Frames a stop's location read asks for at the runner's failure function, to find the test's
/// own frame below it (Go 1.19: `Fail` ← `Errorf` ← the test, or `Fail` ← `FailNow` ← `Fatalf`
/// ← the test; a helper adds one more).
const FAILURE_STACK_LEVELS: u64 = 16;

/// What the run has shown of the test so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Stopped where it fails: the location and the failure's message, when known.
    Failed {
        at: Option<String>,
        message: Option<String>,
    },
    /// An exception was thrown where the runner's filters stop at every throw: maybe caught.
    Thrown {
        at: Option<String>,
        message: String,
    },
    /// The runner says it failed, but it never stopped (a failure outside the code the
    /// debugger stops in: a fixture in a library); the runner's line for it, when found.
    FailedUnstopped(Option<String>),
    Passed,
    /// No test matched the id: the runner's words.
    NoMatch(String),
    /// The runner itself failed (usage, internal error): what its status means.
    RunnerError(String),
    /// Stopped elsewhere (a breakpoint, a step): not known yet.
    Undecided(&'static str),
    /// Still running (or starting) when the wait ended.
    Running,
    /// The run ended without a status agentdap could read (ended by agentdap, or killed).
    Unknown(&'static str),
}

impl Outcome {
    fn word(&self) -> &'static str {
        match self {
            Outcome::Failed { .. } | Outcome::FailedUnstopped(_) => "failed",
            Outcome::Thrown { .. } => "thrown",
            Outcome::Passed => "passed",
            Outcome::NoMatch(_) => "no_match",
            Outcome::RunnerError(_) => "runner_error",
            Outcome::Undecided(_) | Outcome::Unknown(_) | Outcome::Running => "unknown",
        }
    }
}

/// What a result knows of the run, gathered by [`Session::test_report`].
#[derive(Debug, Default)]
pub struct Facts<'a> {
    pub state: Option<RunState>,
    pub stop: Option<&'a Stop>,
    /// The stop is at the runner's failure function ([`Runner::failure_function`]).
    pub at_failure_function: bool,
    /// The stack holds a panic under way ([`Below::panicking`]).
    pub panicking: bool,
    pub exit_code: Option<i64>,
    pub ended_by_agentdap: bool,
    /// The end of the run's output.
    pub output: &'a str,
}

/// The outcome the facts show, never more.
pub fn outcome(run: &TestRun, facts: &Facts<'_>) -> Outcome {
    match facts.state {
        Some(RunState::Stopped) => {
            let Some(stop) = facts.stop else { return Outcome::Undecided("stopped") };
            let at = stop.location.as_ref().map(place);
            if facts.at_failure_function && run.runner == Runner::RustTest && expects_panic(facts.output) {
                // libtest announces a `#[should_panic]` test as `test <name> - should panic ...`:
                // its panic is what it expects, and the run's end tells the outcome.
                let message = rust_panic_message(facts.output).unwrap_or_else(|| "the test panicked".into());
                return Outcome::Thrown { at, message };
            }
            if facts.at_failure_function {
                let message = match run.runner {
                    _ if facts.panicking => Some(PANICKING.to_owned()),
                    Runner::RustTest => rust_panic_message(facts.output),
                    _ => go_message(facts.output),
                };
                return Outcome::Failed { at, message };
            }
            match &stop.exception {
                // A program asking to exit (debugpy's SystemExit stop) is no test failure.
                Some(e) if e.exit_code.is_none() && run.runner.stops_at_every_throw() => {
                    Outcome::Thrown { at, message: exception_text(e) }
                }
                Some(e) if e.exit_code.is_none() => Outcome::Failed { at, message: Some(exception_text(e)) },
                Some(_) => Outcome::Undecided("stopped at the runner's exit"),
                None if stop.reason == "exception" => Outcome::Failed { at, message: stop.description.clone() },
                None => Outcome::Undecided("stopped before the test's outcome is known"),
            }
        }
        Some(RunState::Exited | RunState::Terminated) if facts.ended_by_agentdap => {
            Outcome::Unknown("the run was ended by agentdap")
        }
        Some(RunState::Exited | RunState::Terminated) => match facts.exit_code {
            Some(code) => run.runner.exit_outcome(code, facts.output),
            None => Outcome::Unknown("the run ended with no exit status agentdap could read"),
        },
        Some(RunState::Running | RunState::Starting) | None => Outcome::Running,
    }
}

/// The result's line for `outcome`.
pub fn line(run: &TestRun, outcome: &Outcome) -> String {
    let id = crate::visible::escaped(&run.id);
    match outcome {
        Outcome::Failed { at, message } => {
            let mut s = format!("test {id} failed");
            if let Some(at) = at {
                s.push_str(&format!(" at {at}"));
            }
            match message {
                Some(m) => s.push_str(&format!(": {}", lines_escaped(m))),
                None => s.push_str(" (its message was not found in the output yet)"),
            }
            s
        }
        Outcome::Thrown { at, message } if run.runner == Runner::RustTest => {
            let at = at.as_deref().map(|a| format!(" at {a}")).unwrap_or_default();
            format!(
                "test {id}: {}{at}: a `should_panic` test, so the panic may be what it expects (`continue`: the run's end tells the outcome)",
                lines_escaped(message)
            )
        }
        Outcome::Thrown { at, message } => {
            let at = at.as_deref().map(|a| format!(" at {a}")).unwrap_or_default();
            format!(
                "test {id}: {} thrown{at} (stopped at every thrown exception, caught ones too: if the test catches it, `continue`; the run's end tells the outcome)",
                lines_escaped(message)
            )
        }
        Outcome::FailedUnstopped(l) => {
            let mut s = format!(
                "test {id} failed ({} says so), never stopped: the failure is outside the code the debugger stops in (e.g. a fixture in a library); the output below has the runner's report",
                run.runner.name()
            );
            if let Some(l) = l {
                s.push_str(&format!("\n{}", crate::visible::escaped(l)));
            }
            s
        }
        Outcome::Passed => format!("test {id} passed, never stopped"),
        Outcome::NoMatch(why) => format!("no test matched {id} ({})", crate::visible::escaped(why)),
        Outcome::RunnerError(why) => format!("test {id}: {why}; the output below says why"),
        Outcome::Undecided(why) => format!("test {id}: outcome not known yet ({why}); `continue` runs it on"),
        Outcome::Running => format!("test {id}: still running, outcome not known yet; `wait` for it"),
        Outcome::Unknown(why) => format!("test {id}: outcome unknown ({why})"),
    }
}

/// `structuredContent.test`: `{id, runner, outcome, message?, at?}`.
pub fn json(run: &TestRun, outcome: &Outcome) -> Value {
    let mut v = json!({"id": run.id, "runner": run.runner.name(), "outcome": outcome.word()});
    match outcome {
        Outcome::Failed { at, message } => {
            if let Some(at) = at {
                v["at"] = at.clone().into();
            }
            if let Some(m) = message {
                v["message"] = m.clone().into();
            }
            v["stopped"] = true.into();
        }
        Outcome::Thrown { at, message } => {
            if let Some(at) = at {
                v["at"] = at.clone().into();
            }
            v["message"] = message.clone().into();
        }
        Outcome::FailedUnstopped(l) => {
            if let Some(l) = l {
                v["message"] = l.clone().into();
            }
            v["stopped"] = false.into();
        }
        Outcome::NoMatch(why) | Outcome::RunnerError(why) => v["message"] = why.clone().into(),
        Outcome::Undecided(why) | Outcome::Unknown(why) => v["message"] = (*why).into(),
        Outcome::Running => v["message"] = "still running".into(),
        Outcome::Passed => {}
    }
    v
}

/// A stop's place as the test line shows it: `test_cart.py:12 in test_total_fails()`, without
/// debugpy 1.8.22's ` (Current frame)` suffix on a `userUnhandled` stop's frame name.
fn place(l: &Location) -> String {
    let function = l.function.as_deref().map(|f| f.trim_end_matches(" (Current frame)").to_owned());
    Location { function, ..l.clone() }.short()
}

/// An exception as the test line shows it: `AssertionError: assert 6 == 7`, without the note
/// debugpy 1.8.22 appends to the type of a `userUnhandled` stop ("AssertionError       (note:
/// full exception trace is shown but execution is paused at: test_total_fails)").
fn exception_text(e: &ExceptionStop) -> String {
    let type_name = e.type_name.as_deref().map(|t| t.split("  (note: ").next().unwrap_or(t).trim_end().to_owned());
    ExceptionStop { type_name, ..e.clone() }.summary()
}

/// `text` with each line escaped ([`crate::visible::escaped`]), continuation lines indented.
fn lines_escaped(text: &str) -> String {
    let lines: Vec<String> = text.trim_end().lines().map(crate::visible::escaped).collect();
    lines.join("\n  ")
}

/// The last line of `output` starting (after indentation) with one of `prefixes`.
fn summary_line(output: &str, prefixes: &[&str]) -> Option<String> {
    // A stderr line is labelled in the output's tail (`OutputRing::tail_since`).
    let unlabelled = |l: &str| l.strip_prefix("[stderr] ").unwrap_or(l).trim_start().to_owned();
    output.lines().rev().map(unlabelled).find(|l| prefixes.iter().any(|p| l.starts_with(p)))
}

/// What Go's `t.Errorf`/`t.Fatalf` logged, from `-test.v` output: the last line shaped
/// `    name_test.go:12: message` (`testing.(*common).decorate`, Go 1.19), as `message`.
fn go_message(output: &str) -> Option<String> {
    output.lines().rev().find_map(|l| {
        let l = l.trim_start();
        let (file, rest) = l.split_once(".go:")?;
        let (line, message) = rest.split_once(": ")?;
        (!file.contains(' ') && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
            .then(|| message.to_owned())
    })
}

impl Session {
    /// Whether the current stop is at the test runner's failure function's breakpoint.
    fn at_failure_function(&self) -> bool {
        let Some(name) = self.test.as_ref().and_then(|t| t.run.runner.failure_function()) else { return false };
        let stop = self.run.stop.as_ref().filter(|_| self.run.state == RunState::Stopped);
        stop.is_some_and(|s| {
            s.hit_breakpoints
                .iter()
                .any(|id| self.breaks.store.functions().iter().any(|f| f.id == *id && f.requested.name == name))
        })
    }

    /// How many frames a stop's location read asks for: enough to find the test's frame at the
    /// runner's failure function, else `None` (the stop's own choice).
    pub(super) fn test_stop_levels(&self) -> Option<u64> {
        let runner = self.test.as_ref()?.run.runner;
        let exception = self.run.stop.as_ref().is_some_and(|s| s.reason == "exception");
        let runners_code =
            self.at_failure_function() || (exception && runner != Runner::Pytest && runner != Runner::Unittest);
        runners_code.then_some(FAILURE_STACK_LEVELS)
    }

    /// Which of a stop's `frames` the result shows: at the runner's failure function, the
    /// first frame that is not the runner's own (the test's line that called `t.Errorf`), and
    /// the top frame it stands for is remembered for the test line; else the top frame.
    pub(super) fn test_shown_frame(&mut self, revision: u64, frames: &[StackFrame]) -> usize {
        if self.test_stop_levels().is_none() {
            return 0;
        }
        let Some(test) = self.test.as_mut() else { return 0 };
        let runner = test.run.runner;
        let name = |f: &StackFrame| f.name.clone().unwrap_or_default();
        let Some(i) = frames.iter().position(|f| !runner.is_own(f)) else { return 0 };
        if i > 0 {
            let top = frames.first().map(|f| place(&Location::from_stack_frame(f))).unwrap_or_default();
            let panicking = frames.iter().any(|f| name(f) == "runtime.gopanic");
            test.below = Some(Below { revision, top, panicking });
        }
        i
    }

    /// The test line and `structuredContent.test` of a test run's result, when this session
    /// runs one (`launch {test}`).
    pub(super) fn test_report(&mut self) -> Option<(String, Value)> {
        let revision = self.run.revision;
        let test = self.test.as_ref()?;
        let run = &test.run;
        let (output, _, _) = self.output.tail_since(self.output.first(), SCAN_BYTES);
        let stop = self.run.stop.as_ref().filter(|_| self.run.state == RunState::Stopped);
        let below = test.below.as_ref().filter(|b| stop.is_some() && b.revision == self.run.revision);
        let facts = Facts {
            state: Some(self.run.state),
            stop,
            at_failure_function: self.at_failure_function(),
            panicking: below.is_some_and(|b| b.panicking),
            exit_code: self.run.exit_code,
            ended_by_agentdap: self.run.ended_by_agentdap,
            output: &output,
        };
        let mut o = outcome(run, &facts);
        let seen = test.failed.clone();
        // A run that ends after the failure's stop: its status says "failed" too (or nothing, when
        // agentdap ended it); the stop is where it failed.
        let ended = matches!(o, Outcome::Unknown(_) | Outcome::Running | Outcome::FailedUnstopped(_));
        let mut noted = None;
        match (&o, seen) {
            (Outcome::Failed { .. } | Outcome::Thrown { .. }, _) => noted = Some((revision, o.clone())),
            (_, Some((at, failed @ Outcome::Failed { .. }))) if ended && self.run.state.is_over() => {
                o = failed;
                noted = Some((at, o.clone()));
            }
            // A throw or panic the test may have expected, then the runner says it failed: it
            // failed where it stopped (a `should_panic` whose message did not match, say).
            (Outcome::FailedUnstopped(runner_line), Some((at, Outcome::Thrown { at: place, message }))) => {
                let message = match runner_line {
                    Some(l) => format!("{message}\n{l}"),
                    None => message,
                };
                o = Outcome::Failed { at: place, message: Some(message) };
                noted = Some((at, o.clone()));
            }
            _ => {}
        }
        let ended_after = noted.as_ref().filter(|(at, _)| *at != revision).map(|(at, _)| *at);
        let mut text = line(run, &o);
        let mut v = json(run, &o);
        // It did stop, at a throw or panic the test expected: "never stopped" would be untrue.
        if let (Outcome::Passed, Some((at, Outcome::Thrown { .. }))) = (&o, &test.failed) {
            let id = crate::visible::escaped(&run.id);
            text = format!("test {id} passed: what it stopped at (rev {at}) was what it expects");
            v["seen_at_revision"] = (*at).into();
        }
        if let Some(at) = ended_after {
            text.push_str(&format!(" (seen at rev {at}; the run has ended since)"));
            v["seen_at_revision"] = at.into();
        }
        if let Some(b) = below {
            let what = match (&o, self.at_failure_function()) {
                (Outcome::Thrown { .. }, true) => "where every panic passes",
                (_, true) => "which marked the test failed",
                (_, false) => "the runtime's",
            };
            text.push_str(&format!(
                "\n(the test's frame is shown: the thread is stopped in {}, {what}; `step` and `next` act there, `continue` goes on)",
                b.top
            ));
            v["stopped_in"] = b.top.clone().into();
        }
        if let (Some(n), Some(t)) = (noted, self.test.as_mut()) {
            t.failed = Some(n);
        }
        Some((text, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(runner: Runner) -> TestRun {
        TestRun { id: "tests/test_cart.py::test_total[case-2]".into(), runner }
    }

    fn exited(code: i64, output: &str) -> Facts<'_> {
        Facts { state: Some(RunState::Exited), exit_code: Some(code), output, ..Facts::default() }
    }

    #[test]
    fn an_exception_stop_is_the_failure_with_its_message_and_place() {
        let stop = Stop {
            reason: "exception".into(),
            location: Some(Location {
                path: Some("/p/tests/test_cart.py".into()),
                line: Some(9),
                function: Some("test_total (Current frame)".into()),
                ..Location::default()
            }),
            exception: Some(ExceptionStop {
                type_name: Some(
                    "AssertionError       (note: full exception trace is shown but execution is paused at: test_total)"
                        .into(),
                ),
                message: Some("assert 6 == 7".into()),
                exit_code: None,
            }),
            ..Stop::default()
        };
        let facts = Facts { state: Some(RunState::Stopped), stop: Some(&stop), ..Facts::default() };
        let o = outcome(&run(Runner::Pytest), &facts);
        assert_eq!(
            line(&run(Runner::Pytest), &o),
            "test tests/test_cart.py::test_total[case-2] failed at test_cart.py:9 in test_total(): AssertionError: assert 6 == 7"
        );
        assert_eq!(
            json(&run(Runner::Pytest), &o),
            json!({"id": "tests/test_cart.py::test_total[case-2]", "runner": "pytest", "outcome": "failed",
                   "at": "test_cart.py:9 in test_total()", "message": "AssertionError: assert 6 == 7", "stopped": true})
        );
        // A breakpoint of the agent's: nothing is known yet.
        let bp = Stop { reason: "breakpoint".into(), ..Stop::default() };
        let facts = Facts { state: Some(RunState::Stopped), stop: Some(&bp), ..Facts::default() };
        assert_eq!(outcome(&run(Runner::Pytest), &facts).word(), "unknown");
        // debugpy's stop at `sys.exit(1)` is the runner leaving, not the test's failure.
        let exit = Stop {
            reason: "exception".into(),
            exception: Some(ExceptionStop { exit_code: Some(1), ..ExceptionStop::default() }),
            ..Stop::default()
        };
        let facts = Facts { state: Some(RunState::Stopped), stop: Some(&exit), ..Facts::default() };
        assert!(matches!(outcome(&run(Runner::Pytest), &facts), Outcome::Undecided(_)));
        // js-debug's `all` stops at every throw: a thrown exception is not yet a failure.
        let facts = Facts { state: Some(RunState::Stopped), stop: Some(&stop), ..Facts::default() };
        let thrown = outcome(&run(Runner::NodeTest), &facts);
        assert_eq!(thrown.word(), "thrown");
        assert!(line(&run(Runner::NodeTest), &thrown).contains("caught ones too"), "{thrown:?}");
    }

    #[test]
    fn exit_statuses_read_as_each_runner_means_them() {
        let cases: &[(Runner, i64, &str, &str)] = &[
            (Runner::Pytest, 0, "1 passed in 0.01s", "passed"),
            (Runner::Pytest, 5, "no tests ran in 0.01s", "no_match"),
            (Runner::Pytest, 4, "ERROR: not found: /p/t.py::nope\n(no match in any of [<Module t.py>])", "no_match"),
            (Runner::Pytest, 1, "FAILED t.py::test_a - AssertionError\n1 failed", "failed"),
            (Runner::Pytest, 3, "INTERNALERROR>", "runner_error"),
            (Runner::Unittest, 0, "Ran 1 test in 0.000s\n\nOK", "passed"),
            (Runner::Unittest, 1, "ERROR: nope (unittest.loader._FailedTest.nope)\nAttributeError: x", "no_match"),
            (Runner::Unittest, 0, "Ran 0 tests in 0.000s\n\nOK", "no_match"),
            (Runner::Unittest, 1, "FAIL: test_a (m.T.test_a)\nRan 1 test", "failed"),
            (Runner::GoTest, 0, "testing: warning: no tests to run\nPASS", "no_match"),
            (Runner::GoTest, 0, "=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS", "passed"),
            (Runner::GoTest, 1, "--- FAIL: TestA (0.00s)\nFAIL", "failed"),
            (Runner::NodeTest, 0, "1..2\n# tests 2\n# pass 0\n# fail 0\n# skipped 2\n", "no_match"),
            (Runner::NodeTest, 0, "1..2\n# tests 2\n# pass 1\n# fail 0\n# skipped 1\n", "passed"),
            (Runner::NodeTest, 1, "not ok 2 - total fails\n# pass 0\n# fail 1\n", "failed"),
            (Runner::RustTest, 0, "running 1 test\ntest t ... ok\n\ntest result: ok. 1 passed; 0 failed", "passed"),
            (Runner::RustTest, 0, "running 0 tests\n\ntest result: ok. 0 passed", "no_match"),
            (Runner::RustTest, 101, "test t ... FAILED\n\ntest result: FAILED. 0 passed; 1 failed", "failed"),
            // Status 0 and no report of a pass: the test ended the process itself (`os._exit(0)`).
            (Runner::Pytest, 0, "============ test session starts ====\ncollected 1 item\n\nt.py ", "unknown"),
            (Runner::Unittest, 0, "", "unknown"),
            (Runner::GoTest, 0, "=== RUN   TestA\n", "unknown"),
            (Runner::NodeTest, 0, "", "unknown"),
            (Runner::RustTest, 0, "running 1 test\ntest tests::exits ... ", "unknown"),
        ];
        for (runner, code, output, want) in cases {
            let got = outcome(&run(*runner), &exited(*code, output));
            assert_eq!(got.word(), *want, "{runner:?} {code} {output:?}: {got:?}");
        }
        let got = outcome(&run(Runner::Pytest), &exited(1, "x\nFAILED t.py::test_a - AssertionError: boom\n1 failed"));
        assert_eq!(got, Outcome::FailedUnstopped(Some("FAILED t.py::test_a - AssertionError: boom".into())));
        assert!(line(&run(Runner::Pytest), &got).contains("never stopped"));
        let no = outcome(&run(Runner::Pytest), &exited(5, ""));
        assert_eq!(
            line(&run(Runner::Pytest), &no),
            "no test matched tests/test_cart.py::test_total[case-2] (pytest collected no test (exit status 5))"
        );
        assert_eq!(
            line(&run(Runner::Pytest), &outcome(&run(Runner::Pytest), &exited(0, "1 passed in 0.01s"))),
            "test tests/test_cart.py::test_total[case-2] passed, never stopped"
        );
    }

    #[test]
    fn an_ending_without_a_status_is_never_a_pass() {
        let ended =
            Facts { state: Some(RunState::Exited), exit_code: Some(0), ended_by_agentdap: true, ..Facts::default() };
        assert_eq!(outcome(&run(Runner::GoTest), &ended).word(), "unknown");
        let gone = Facts { state: Some(RunState::Terminated), ..Facts::default() };
        assert_eq!(outcome(&run(Runner::GoTest), &gone).word(), "unknown");
    }

    #[test]
    fn the_panic_message_is_read_from_the_hooks_output() {
        let out = "running 1 test\ntest tests::total_adds_tax ... \nthread 'tests::total_adds_tax' (26462) panicked at src/lib.rs:17:9:\nassertion `left == right` failed: total of [10, 20, 30]\n  left: 66\n right: 65\nstack backtrace:\n   0: x\n";
        assert_eq!(
            rust_panic_message(out).as_deref(),
            Some("panicked at src/lib.rs:17:9: assertion `left == right` failed: total of [10, 20, 30]\n  left: 66\n right: 65")
        );
        // Older toolchains: no thread id, and the note instead of a backtrace; CRLF from a terminal.
        let out = "thread 'big_order' panicked at tests/totals.rs:7:9:\r\nbig order came to 3\r\nnote: run with `RUST_BACKTRACE=1`\r\n";
        assert_eq!(rust_panic_message(out).as_deref(), Some("panicked at tests/totals.rs:7:9: big order came to 3"));
        assert_eq!(rust_panic_message("test total ... ok\n"), None);
    }

    #[test]
    fn go_messages_are_read_from_the_decorated_log_line() {
        let out = "=== RUN   TestTotal\n    cart_test.go:12: total = 6, want 7\n";
        assert_eq!(go_message(out).as_deref(), Some("total = 6, want 7"));
        assert_eq!(go_message("PASS\nok  \tcart\t0.1s"), None);
        let at = Location { path: Some("/p/cart_test.go".into()), line: Some(12), ..Location::default() };
        let stop = Stop { reason: "function breakpoint".into(), location: Some(at), ..Stop::default() };
        let facts = Facts {
            state: Some(RunState::Stopped),
            stop: Some(&stop),
            at_failure_function: true,
            output: out,
            ..Facts::default()
        };
        let r = TestRun { id: "TestTotal".into(), runner: Runner::GoTest };
        assert_eq!(line(&r, &outcome(&r, &facts)), "test TestTotal failed at cart_test.go:12: total = 6, want 7");
    }
}
