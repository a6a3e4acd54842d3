//! Debugging one Rust test (`launch {test}` in a Cargo project): build the test binaries with
//! `cargo test --no-run --message-format=json` (a job), take the executables from cargo's JSON
//! (`compiler-artifact` messages with `profile.test` and an `executable`), ask each one for its
//! tests (`<exe> --list`, a job each) until one has the test, then launch that executable under
//! the native adapter with `<name> --exact --nocapture --test-threads=1` and a function breakpoint
//! on `rust_panic`, where every panic passes (std's `panicking.rs`: `rust_panic_with_hook` calls
//! it after the panic hook printed the message). Must not: decide how the run's outcome reads
//! (`test_outcome.rs`: `Runner::RustTest`) or spawn anything itself (jobs do).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::jobs::JobResult;
use super::test_outcome::{Runner, TestRun, RUST_PANIC};
use super::{plan, Action, CallKey, ErrorCode, Job, LaunchArgs, Sessions, ToolResult};
use crate::dap::command::AdapterCommand;

/// How long the build may take (a first build of a project with dependencies takes minutes).
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// How long one test binary may take to list its tests.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(30);
/// Test binaries asked for their tests, at most (a workspace's unit, integration and example
/// targets).
const MAX_BINARIES: usize = 64;
/// Characters of cargo's error output shown when the build fails.
const BUILD_ERROR_CHARS: usize = 4_000;

/// A test binary cargo built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    /// The executable.
    pub exe: PathBuf,
    /// The directory of its package's `Cargo.toml`: `cargo test` runs a test binary there.
    pub package_dir: PathBuf,
    /// `<target name> (<kind>)`, as the result names it: `cart (lib)`, `totals (test)`.
    pub target: String,
}

/// The launch waiting for its jobs.
#[derive(Debug)]
pub struct Pending {
    call: CallKey,
    args: LaunchArgs,
    id: String,
}

/// Where a Rust test's start-up is.
#[derive(Debug)]
pub enum Step {
    /// `cargo test --no-run` is building.
    Build(Pending),
    /// `binaries[next]` is listing its tests; `found` holds the matches so far (binary index,
    /// test name), `unlisted` the binaries whose `--list` failed (index, how it ended).
    List {
        pending: Pending,
        binaries: Vec<Artifact>,
        next: usize,
        found: Vec<(usize, String)>,
        unlisted: Vec<(usize, String)>,
    },
}

impl Step {
    /// The `launch` call this start-up answers.
    pub fn call(&self) -> CallKey {
        match self {
            Step::Build(p) | Step::List { pending: p, .. } => p.call,
        }
    }
}

/// Whether `dir` is a Cargo project (`Cargo.toml` in it), read through `files`.
pub fn is_cargo_project(dir: &Path, files: &dyn super::Files) -> bool {
    files.is_file(&dir.join("Cargo.toml")).unwrap_or(false)
}

/// `cargo test --no-run --message-format=json` in `dir`, with the manifest named so a
/// workspace member's directory builds that member.
pub fn build_command(dir: &Path) -> AdapterCommand {
    let mut command = AdapterCommand::new("cargo");
    command.args = ["test", "--no-run", "--message-format=json", "--manifest-path"].map(Into::into).to_vec();
    command.args.push(dir.join("Cargo.toml").into_os_string());
    command.cwd = Some(dir.to_path_buf());
    command
}

/// The test executables in cargo's JSON messages (one per line; other lines are ignored), in
/// the order cargo reported them, without repeats.
pub fn artifacts(stdout: &[u8]) -> Vec<Artifact> {
    let mut out: Vec<Artifact> = Vec::new();
    for line in stdout.split(|&b| b == b'\n') {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else { continue };
        if msg["reason"] != "compiler-artifact" || msg["profile"]["test"] != true {
            continue;
        }
        let Some(exe) = msg["executable"].as_str() else { continue };
        let Some(manifest) = msg["manifest_path"].as_str() else { continue };
        let name = msg["target"]["name"].as_str().unwrap_or("?");
        let kind = msg["target"]["kind"][0].as_str().unwrap_or("?");
        let package_dir = Path::new(manifest).parent().map(Path::to_path_buf).unwrap_or_default();
        let artifact = Artifact { exe: PathBuf::from(exe), package_dir, target: format!("{name} ({kind})") };
        if !out.contains(&artifact) {
            out.push(artifact);
        }
    }
    out
}

/// cargo's compiler errors, rendered as rustc prints them (`compiler-message` lines of level
/// `error`), for the result of a build that failed.
pub fn build_errors(stdout: &[u8]) -> String {
    let mut text = String::new();
    for line in stdout.split(|&b| b == b'\n') {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else { continue };
        if msg["reason"] == "compiler-message" && msg["message"]["level"] == "error" {
            if let Some(rendered) = msg["message"]["rendered"].as_str() {
                text.push_str(rendered);
            }
        }
    }
    text
}

/// The tests a libtest binary's `--list` names (`path::to::name: test` lines; benchmarks are
/// left out).
pub fn listed_tests(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout).lines().filter_map(|l| l.strip_suffix(": test")).map(str::to_owned).collect()
}

/// Which listed test `id` names: the one spelled exactly so (the first binary's, when several
/// have it: `Chosen::others` counts the rest), else the only one whose path ends in `::id`.
/// `found` is (binary index, name) over every binary. Errors say what matched: several suffixes,
/// or names that only contain `id` (cargo's own filter is a substring; agentdap runs one test).
pub fn choose(id: &str, found: &[(usize, String)]) -> Result<Chosen, String> {
    let exact: Vec<&(usize, String)> = found.iter().filter(|(_, n)| n == id).collect();
    if let Some(first) = exact.first() {
        let others = exact[1..].iter().map(|(b, _)| *b).collect();
        return Ok(Chosen { binary: first.0, name: first.1.clone(), others });
    }
    let suffix = format!("::{id}");
    let ends: Vec<&(usize, String)> = found.iter().filter(|(_, n)| n.ends_with(&suffix)).collect();
    let listed = |l: &[&(usize, String)]| {
        let names: Vec<&str> = l.iter().take(8).map(|(_, n)| n.as_str()).collect();
        let more = if l.len() > 8 { format!(", and {} more", l.len() - 8) } else { String::new() };
        format!("{}{more}", names.join(", "))
    };
    match ends.as_slice() {
        [one] => Ok(Chosen { binary: one.0, name: one.1.clone(), others: Vec::new() }),
        [] => {
            let containing: Vec<&(usize, String)> = found.iter().filter(|(_, n)| n.contains(id)).collect();
            if containing.is_empty() {
                Err(format!("no test matched `{id}`"))
            } else {
                Err(format!(
                    "no test is named `{id}`; {} contain it ({}): pass one of them whole",
                    containing.len(),
                    listed(&containing)
                ))
            }
        }
        many => Err(format!("`{id}` names {} tests ({}); pass the whole path", many.len(), listed(many))),
    }
}

/// The test [`choose`] picked: its binary (an index into the binaries), its whole name, and the
/// other binaries that have a test of the same name.
#[derive(Debug, PartialEq, Eq)]
pub struct Chosen {
    pub binary: usize,
    pub name: String,
    pub others: Vec<usize>,
}

impl Sessions {
    /// Starts debugging the Rust test `id` of the Cargo project in `dir`: the build job first;
    /// the launch follows once the binary that has the test is known. The call is answered as a
    /// launch's, or with the build's or the lookup's error.
    pub fn launch_rust_test(
        &mut self,
        args: LaunchArgs,
        id: String,
        dir: PathBuf,
        call: CallKey,
    ) -> Result<(), ToolResult> {
        let command = build_command(&dir);
        let pending = Pending { call, args, id };
        match self.start_job(Job::RustTest(Box::new(Step::Build(pending))), command, BUILD_TIMEOUT) {
            Some(_) => Ok(()),
            None => Err(ToolResult::error(ErrorCode::Unsupported, super::jobs::too_many_jobs())),
        }
    }

    /// A job of a Rust test's start-up ended.
    pub(super) fn rust_test_step(&mut self, step: Step, result: JobResult, now: Instant) {
        match step {
            Step::Build(pending) => self.rust_test_built(pending, result),
            Step::List { pending, binaries, next, mut found, mut unlisted } => {
                if result.succeeded() {
                    found.extend(listed_tests(&result.stdout).into_iter().map(|n| (next, n)));
                } else {
                    log::debug!("{} --list: {}", binaries[next].exe.display(), result.ending());
                    unlisted.push((next, result.ending()));
                }
                // Every binary is asked (a few ms each): a name may be in more than one.
                if next + 1 == binaries.len() {
                    return self.rust_test_chosen(pending, binaries, found, unlisted, now);
                }
                self.rust_test_list(pending, binaries, next + 1, found, unlisted);
            }
        }
    }

    fn rust_test_built(&mut self, pending: Pending, result: JobResult) {
        if !result.succeeded() {
            let errors = build_errors(&result.stdout);
            // cargo names what failed first (`error: failed to run custom build command for …`)
            // and then quotes its output: the start and the end both say something.
            let words = match errors.is_empty() {
                true => super::jobs::head_and_tail(&result.stderr, BUILD_ERROR_CHARS / 4, BUILD_ERROR_CHARS),
                false => super::jobs::tail(errors.as_bytes(), BUILD_ERROR_CHARS),
            };
            let dropped = match result.dropped {
                0 => String::new(),
                n => format!("\n({n} bytes of cargo's output were not kept)"),
            };
            let msg = match (words.is_empty(), &result.spawn_error) {
                (true, Some(_)) => format!(
                    "`cargo test --no-run` {}; the test was not run (agentdap builds Rust tests with `cargo` from PATH).",
                    result.ending()
                ),
                (true, None) => {
                    format!("`cargo test --no-run` failed ({}) and printed nothing; the test was not run.", result.ending())
                }
                (false, _) => {
                    format!("`cargo test --no-run` failed ({}); the test was not run:\n{words}{dropped}", result.ending())
                }
            };
            return self.answer_job_call(pending.call, ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let mut binaries = artifacts(&result.stdout);
        binaries.truncate(MAX_BINARIES);
        if binaries.is_empty() {
            let msg = "`cargo test --no-run` built no test binary (a crate without lib, bin or test targets?).";
            return self.answer_job_call(pending.call, ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        self.rust_test_list(pending, binaries, 0, Vec::new(), Vec::new());
    }

    fn rust_test_list(
        &mut self,
        pending: Pending,
        binaries: Vec<Artifact>,
        next: usize,
        found: Vec<(usize, String)>,
        unlisted: Vec<(usize, String)>,
    ) {
        let mut command = AdapterCommand::new(binaries[next].exe.clone().into_os_string());
        command.args = vec!["--list".into()];
        command.cwd = Some(binaries[next].package_dir.clone());
        let call = pending.call;
        let step = Step::List { pending, binaries, next, found, unlisted };
        if self.start_job(Job::RustTest(Box::new(step)), command, LIST_TIMEOUT).is_none() {
            self.answer_job_call(call, ToolResult::error(ErrorCode::Unsupported, super::jobs::too_many_jobs()));
        }
    }

    fn rust_test_chosen(
        &mut self,
        pending: Pending,
        binaries: Vec<Artifact>,
        found: Vec<(usize, String)>,
        unlisted: Vec<(usize, String)>,
        now: Instant,
    ) {
        let Chosen { binary: index, name, others } = match choose(&pending.id, &found) {
            Ok(chosen) => chosen,
            Err(why) => {
                let searched: Vec<&str> = binaries
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !unlisted.iter().any(|(u, _)| u == i))
                    .map(|(_, b)| b.target.as_str())
                    .collect();
                let mut msg = format!(
                    "{why} in the test binaries of {} ({}); `cargo test -- --list` lists them.",
                    binaries[0].package_dir.display(),
                    searched.join(", ")
                );
                // A binary that could not list its tests was not searched: the id may be its.
                for (i, how) in &unlisted {
                    msg.push_str(&format!(" Not searched: {} (`--list`: {how}).", binaries[*i].target));
                }
                return self.answer_job_call(pending.call, ToolResult::error(ErrorCode::InvalidArgument, msg));
            }
        };
        let binary = &binaries[index];
        let Pending { call, mut args, id } = pending;
        let mut test_args: Vec<String> =
            [name.as_str(), "--exact", "--nocapture", "--test-threads=1"].map(str::to_owned).to_vec();
        test_args.append(&mut args.args);
        args.program = binary.exe.to_string_lossy().into_owned();
        args.args = test_args;
        args.cwd = Some(binary.package_dir.to_string_lossy().into_owned());
        // `cargo test` sets it for the binaries it runs; tests read their fixtures by it.
        args.env
            .entry("CARGO_MANIFEST_DIR".to_owned())
            .or_insert_with(|| Value::String(binary.package_dir.to_string_lossy().into_owned()));
        args.stop_on_entry = Some(args.stop_on_entry.unwrap_or(false));
        // The launch sets the runner's failure function (`rust_panic`) as a function breakpoint.
        args.test_run = Some(TestRun { id: id.clone(), runner: Runner::RustTest });
        let has_breakpoints = !self.pending_breakpoints.is_empty();
        let plan = match plan::launch(&args, has_breakpoints, &self.config, &*self.files) {
            Ok(mut plan) => {
                plan.notes.push(format!(
                    "test {name} of {} ({}); a function breakpoint on {RUST_PANIC} stops at its panic",
                    binary.target,
                    binary.exe.display()
                ));
                if name != id {
                    plan.notes.push(format!("`{id}` is the test {name}"));
                }
                if !others.is_empty() {
                    let targets: Vec<&str> = others.iter().map(|&b| binaries[b].target.as_str()).collect();
                    plan.notes.push(format!(
                        "{} also has a test named {name}; this run is {}'s",
                        targets.join(", "),
                        binary.target
                    ));
                }
                plan
            }
            Err(e) => return self.answer_job_call(call, e),
        };
        if let Err(e) = self.launch(args, plan, call, now) {
            self.answer_job_call(call, e);
        }
    }

    /// Answers a call whose launch never started.
    fn answer_job_call(&mut self, call: CallKey, output: ToolResult) {
        self.actions.push_back(Action::Complete { call, output });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARGO_JSON: &str = concat!(
        r#"{"reason":"compiler-artifact","package_id":"dep 1.0","manifest_path":"/p/dep/Cargo.toml","target":{"kind":["lib"],"name":"dep"},"profile":{"test":false},"executable":null}"#,
        "\n",
        r#"{"reason":"compiler-message","message":{"level":"warning","rendered":"warning: unused\n"}}"#,
        "\n",
        r#"{"reason":"compiler-artifact","manifest_path":"/p/cart/Cargo.toml","target":{"kind":["lib"],"name":"cart"},"profile":{"test":true},"executable":"/p/target/debug/deps/cart-1a2b"}"#,
        "\n",
        r#"{"reason":"compiler-artifact","manifest_path":"/p/cart/Cargo.toml","target":{"kind":["test"],"name":"totals"},"profile":{"test":true},"executable":"/p/target/debug/deps/totals-3c4d"}"#,
        "\n",
        "not json\n",
        r#"{"reason":"build-finished","success":true}"#,
        "\n"
    );

    fn answered(s: &mut Sessions) -> ToolResult {
        let now = Instant::now();
        while let Some(action) = s.next_action(now) {
            if let Action::Complete { output, .. } = action {
                return output;
            }
        }
        panic!("no answer");
    }

    /// The job the table asked for last: its id and command.
    fn job_asked(s: &mut Sessions) -> (super::super::jobs::JobId, AdapterCommand) {
        let now = Instant::now();
        while let Some(action) = s.next_action(now) {
            if let Action::RunJob { job, command, .. } = action {
                return (job, command);
            }
        }
        panic!("no job asked for");
    }

    fn started(dir: &str) -> (Sessions, super::super::jobs::JobId) {
        let mut s = Sessions::default();
        let args = LaunchArgs::default();
        s.launch_rust_test(args, "total".into(), dir.into(), CallKey::new(1)).expect("started");
        let (job, command) = job_asked(&mut s);
        assert_eq!(command.program, "cargo");
        let args: Vec<String> = command.args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(
            args,
            ["test", "--no-run", "--message-format=json", "--manifest-path", &format!("{dir}/Cargo.toml")]
        );
        (s, job)
    }

    #[test]
    fn a_build_that_fails_answers_with_rustcs_errors_and_runs_nothing() {
        let (mut s, job) = started("/p/cart");
        let stdout = br#"{"reason":"compiler-message","message":{"level":"error","rendered":"error[E0425]: cannot find value `x`\n"}}"#;
        let result = JobResult { code: Some(101), stdout: stdout.to_vec(), ..JobResult::default() };
        s.on_job_done(job, result, Instant::now());
        let r = answered(&mut s);
        assert!(r.is_error);
        assert!(r.text.contains("`cargo test --no-run` failed (exit code 101); the test was not run:"), "{}", r.text);
        assert!(r.text.contains("error[E0425]: cannot find value `x`"), "{}", r.text);
        assert!(s.jobs().is_empty());
        assert_eq!(s.iter().count(), 0, "no session was opened");
    }

    #[test]
    fn a_missing_cargo_is_named() {
        let (mut s, job) = started("/p/cart");
        let result = JobResult { spawn_error: Some("cargo: not found".into()), ..JobResult::default() };
        s.on_job_done(job, result, Instant::now());
        let r = answered(&mut s);
        assert!(r.text.contains("could not start: cargo: not found"), "{}", r.text);
    }

    #[test]
    fn every_binary_is_asked_and_an_id_that_names_no_test_says_so() {
        let (mut s, job) = started("/p/cart");
        let result = JobResult { code: Some(0), stdout: CARGO_JSON.as_bytes().to_vec(), ..JobResult::default() };
        s.on_job_done(job, result, Instant::now());
        let (job, command) = job_asked(&mut s);
        assert_eq!(command.program, "/p/target/debug/deps/cart-1a2b");
        assert_eq!(command.args, ["--list"]);
        assert_eq!(command.cwd.as_deref(), Some(Path::new("/p/cart")));
        let listed = JobResult {
            code: Some(0),
            stdout: b"tests::tax: test
"
            .to_vec(),
            ..JobResult::default()
        };
        s.on_job_done(job, listed, Instant::now());
        let (job, command) = job_asked(&mut s);
        assert_eq!(command.program, "/p/target/debug/deps/totals-3c4d");
        let listed = JobResult {
            code: Some(0),
            stdout: b"big_order: test
"
            .to_vec(),
            ..JobResult::default()
        };
        s.on_job_done(job, listed, Instant::now());
        let r = answered(&mut s);
        assert!(r.is_error);
        assert_eq!(
            r.text.lines().last().unwrap_or(""),
            "invalid_argument: no test matched `total` in the test binaries of /p/cart (cart (lib), totals (test)); `cargo test -- --list` lists them."
        );
    }

    #[test]
    fn a_cancelled_call_stops_its_build_and_starts_nothing() {
        let (mut s, job) = started("/p/cart");
        s.cancel(CallKey::new(1), Instant::now());
        let actions: Vec<Action> = std::iter::from_fn(|| s.next_action(Instant::now())).collect();
        assert!(matches!(actions.as_slice(), [Action::StopJob { job: j }] if *j == job), "{actions:?}");
        // The killed build's result comes later: dropped, nothing launched or answered.
        let result = JobResult { signal: Some(9), ..JobResult::default() };
        s.on_job_done(job, result, Instant::now());
        assert!(s.next_action(Instant::now()).is_none());
        assert_eq!(s.iter().count(), 0);
    }

    #[test]
    fn a_binary_whose_list_failed_is_named_as_not_searched() {
        let (mut s, job) = started("/p/cart");
        let result = JobResult { code: Some(0), stdout: CARGO_JSON.as_bytes().to_vec(), ..JobResult::default() };
        s.on_job_done(job, result, Instant::now());
        let (job, _) = job_asked(&mut s);
        let listed = JobResult { code: Some(0), stdout: b"tests::tax: test\n".to_vec(), ..JobResult::default() };
        s.on_job_done(job, listed, Instant::now());
        let (job, _) = job_asked(&mut s);
        let hung = JobResult { timed_out: true, elapsed: Duration::from_secs(30), ..JobResult::default() };
        s.on_job_done(job, hung, Instant::now());
        let r = answered(&mut s);
        assert!(r.text.contains("no test matched `total` in the test binaries of /p/cart (cart (lib));"), "{}", r.text);
        assert!(
            r.text.ends_with(" Not searched: totals (test) (`--list`: timed out after 30 s and was killed)."),
            "{}",
            r.text
        );
    }

    #[test]
    fn test_binaries_come_from_cargos_json() {
        let found = artifacts(CARGO_JSON.as_bytes());
        assert_eq!(
            found,
            vec![
                Artifact {
                    exe: "/p/target/debug/deps/cart-1a2b".into(),
                    package_dir: "/p/cart".into(),
                    target: "cart (lib)".into()
                },
                Artifact {
                    exe: "/p/target/debug/deps/totals-3c4d".into(),
                    package_dir: "/p/cart".into(),
                    target: "totals (test)".into()
                },
            ]
        );
    }

    #[test]
    fn a_failed_build_shows_rustcs_errors_only() {
        let json = concat!(
            r#"{"reason":"compiler-message","message":{"level":"warning","rendered":"warning: x\n"}}"#,
            "\n",
            r#"{"reason":"compiler-message","message":{"level":"error","rendered":"error[E0308]: mismatched types\n"}}"#,
            "\n"
        );
        assert_eq!(build_errors(json.as_bytes()), "error[E0308]: mismatched types\n");
    }

    #[test]
    fn listed_tests_leave_benchmarks_out() {
        let list = b"tests::total: test\ntests::tax: test\nbench_sum: benchmark\n\n2 tests, 1 benchmark\n";
        assert_eq!(listed_tests(list), ["tests::total", "tests::tax"]);
    }

    #[test]
    fn a_test_is_chosen_exactly_or_by_its_only_suffix() {
        let found = vec![(0, "tests::total".to_owned()), (1, "total".to_owned()), (1, "more::tax".to_owned())];
        let chosen = |binary, name: &str, others: Vec<usize>| Ok(Chosen { binary, name: name.into(), others });
        assert_eq!(choose("total", &found), chosen(1, "total", vec![]));
        assert_eq!(choose("tax", &found), chosen(1, "more::tax", vec![]));
        assert_eq!(choose("nope", &found), Err("no test matched `nope`".to_owned()));
        assert_eq!(
            choose("ta", &found),
            Err("no test is named `ta`; 3 contain it (tests::total, total, more::tax): pass one of them whole"
                .to_owned())
        );
        let twice = vec![(0, "adds".to_owned()), (2, "adds".to_owned())];
        assert_eq!(choose("adds", &twice), chosen(0, "adds", vec![2]));
        let two = vec![(0, "a::total".to_owned()), (1, "b::total".to_owned())];
        assert_eq!(
            choose("total", &two),
            Err("`total` names 2 tests (a::total, b::total); pass the whole path".to_owned())
        );
    }
}
