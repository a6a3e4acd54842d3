//! `stacks` by a stack sampler (`StacksQuirks::sampler`: py-spy): `py-spy --version`
//! once per session, then `py-spy dump --pid <pid> --json`, both as jobs of the IO shell
//! (`session/jobs.rs`); the dump becomes the result, and a sampler that fails leaves the read to
//! a `pause` (with a session) or answers why (`stacks {pid}`). Must not: run anything itself,
//! or stop the program.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;

use super::render::{How, Report, ThreadOut};
use super::Mode;
use crate::dap::adapters::stack_sampler::{
    dump_command, parse_dump, parse_version, version_command, SampledThread, StackSampler,
};
use crate::session::jobs::JobResult;
use crate::session::snapshot::RunState;
use crate::session::tools::Started;
use crate::session::{CallKey, ErrorCode, Job, SessionKey, Sessions, ToolResult};

/// How long `py-spy --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one dump may take (py-spy 0.4.3 reads a 64-thread program in ~10 ms).
const DUMP_TIMEOUT: Duration = Duration::from_secs(20);
/// Characters of a failed sampler's stderr a result quotes.
const STDERR_SHOWN: usize = 600;

/// A sample under way; carried in [`Job::Stacks`].
#[derive(Clone, Debug)]
pub struct Sample {
    call: CallKey,
    /// The session whose program is sampled, and its id (`None`: `stacks {pid}`).
    owner: Option<(SessionKey, String)>,
    /// The serial of the session's read.
    serial: u64,
    sampler: StackSampler,
    path: PathBuf,
    pid: i64,
    /// The sampler's version (`None` until read, or when it could not be).
    version: Option<String>,
    /// The job under way is the dump (else the version).
    dumping: bool,
}

impl Sample {
    pub(super) fn new(
        call: CallKey,
        owner: Option<(SessionKey, String)>,
        serial: u64,
        sampler: StackSampler,
        path: PathBuf,
        pid: i64,
        version: Option<String>,
    ) -> Sample {
        let dumping = version.is_some();
        Sample { call, owner, serial, sampler, path, pid, version, dumping }
    }
}

impl Sessions {
    /// `stacks {pid}`: a Python process that no session debugs, sampled by py-spy. `Err`: no
    /// such process, or py-spy is not here (with the command that installs it).
    pub fn stacks_of_pid(&mut self, pid: i64, call: CallKey, now: Instant) -> Started {
        if pid <= 0 || !self.files().process_exists(pid) {
            let msg = format!("there is no process {pid}; pass the pid of a running Python program.");
            return Err(ToolResult::error(ErrorCode::InvalidArgument, msg));
        }
        let sampler = crate::dap::adapters::debugpy::runtime_quirks().stacks.sampler;
        let Some(sampler) = sampler else {
            return Err(ToolResult::error(ErrorCode::Unsupported, "no stack sampler is known for a process"));
        };
        let path = sampler.find(self.files().adapter_host()).map_err(|why| {
            let msg = format!(
                "{why}. Install it with `{}`; `stacks {{pid}}` reads a Python process with it. For a native process, `attach {{pid}}` with lldb and then `stacks`.",
                sampler.install_command()
            );
            ToolResult::error(ErrorCode::AdapterNotFound, msg)
        })?;
        self.start_sample(Sample::new(call, None, 0, sampler, path, pid, None), now);
        Ok(())
    }

    /// Runs the sample's job: the version when it is not known yet, else the dump.
    pub(super) fn start_sample(&mut self, sample: Sample, now: Instant) {
        let (command, timeout) = match sample.dumping {
            false => (version_command(&sample.path), VERSION_TIMEOUT),
            true => (dump_command(&sample.path, sample.pid), DUMP_TIMEOUT),
        };
        let kept = sample.clone();
        if self.start_job(Job::Stacks(sample), command, timeout).is_none() {
            let why = "agentdap is running as many helper commands as it runs at once".to_owned();
            self.sample_failed(kept, why, now);
        }
    }

    /// A job of a sample ended: the version (then the dump runs), or the dump.
    pub(in crate::session) fn stacks_sampled(&mut self, mut sample: Sample, result: JobResult, now: Instant) {
        if !sample.dumping {
            // A version that cannot be read leaves the dump to say what is wrong.
            sample.version = parse_version(&String::from_utf8_lossy(&result.stdout));
            if let Some((key, id)) = &sample.owner {
                if let Some(s) = self.slab.get_mut(*key).filter(|s| s.id == *id) {
                    s.stacks.sampler_version = sample.version.clone();
                }
            }
            sample.dumping = true;
            return self.start_sample(sample, now);
        }
        if !result.succeeded() {
            let mut why = result.ending();
            let stderr = result.stderr_tail(STDERR_SHOWN);
            if !stderr.is_empty() {
                why.push_str(&format!(": {}", crate::visible::escaped(&stderr)));
            }
            if stderr.contains("Permission denied") || stderr.contains("Operation not permitted") {
                why.push_str("; py-spy reads the program's memory, which needs ptrace rights over it (the same user and kernel.yama.ptrace_scope 0, or CAP_SYS_PTRACE)");
            }
            return self.sample_failed(sample, why, now);
        }
        match parse_dump(&result.stdout) {
            Ok(threads) => self.answer_sample(sample, threads, now),
            Err(why) => self.sample_failed(sample, why, now),
        }
    }

    /// The sampler could not read the stacks: a session's read pauses instead; `stacks {pid}`
    /// answers why.
    fn sample_failed(&mut self, sample: Sample, why: String, now: Instant) {
        let name = sample.sampler.name();
        let Some((key, id)) = sample.owner else {
            let msg = format!(
                "{name} could not read process {}: {why}. `stacks {{pid}}` reads Python processes; for a native one, `attach {{pid}}` with lldb, then `stacks`.",
                sample.pid
            );
            return self.complete(sample.call, ToolResult::error(ErrorCode::AdapterError, msg));
        };
        let reading = self.slab.get_mut(key).filter(|s| {
            s.id == id && s.stacks.read.as_ref().is_some_and(|r| r.serial == sample.serial && r.mode == Mode::Sampling)
        });
        match reading {
            Some(s) if s.run.state == RunState::Running => {
                let note = format!("{name} could not read the stacks ({why}); agentdap paused the program instead");
                s.pause_for_read(vec![note], now);
                self.after(key, now);
            }
            Some(s) => {
                s.stacks.read = None;
                let msg =
                    format!("{name} could not read the stacks of {id} ({why}); it is {} now.", s.run.state.as_str());
                self.complete(sample.call, ToolResult::error(ErrorCode::AdapterError, msg));
            }
            None => {
                let msg = format!("{id} ended while {name} read its stacks ({why}).");
                self.complete(sample.call, ToolResult::error(ErrorCode::Disconnected, msg));
            }
        }
    }

    fn answer_sample(&mut self, sample: Sample, sampled: Vec<SampledThread>, now: Instant) {
        let how = How::Sampled { tool: sample.sampler.name(), version: sample.version.clone() };
        let hidden = sampled.iter().filter(|t| sample.sampler.is_own_thread(&t.name)).count();
        let mut threads: Vec<ThreadOut> =
            sampled.into_iter().filter(|t| !sample.sampler.is_own_thread(&t.name)).map(thread_out).collect();
        let unread: Vec<(i64, String)> = match threads.len() > super::MAX_THREADS {
            true => threads.split_off(super::MAX_THREADS).into_iter().map(|t| (t.id.unwrap_or(0), t.name)).collect(),
            false => Vec::new(),
        };
        let pid_name = format!("pid {}", sample.pid);
        let (name, revision, state) = match &sample.owner {
            Some((key, id)) => match self.slab.get_mut(*key).filter(|s| s.id == *id) {
                Some(s) => {
                    // The read is over whatever it was (a second `stacks` may start now).
                    if s.stacks.read.as_ref().is_some_and(|r| r.serial == sample.serial) {
                        s.stacks.read = None;
                    }
                    (id.clone(), s.run.revision, s.run.state)
                }
                None => (id.clone(), 0, RunState::Terminated),
            },
            None => (pid_name, 0, RunState::Running),
        };
        let report = Report { session: &name, revision, state, how, threads, unread, hidden, notes: Vec::new() };
        let mut out = report.render();
        out.structured["pid"] = json!(sample.pid);
        self.complete(sample.call, out);
        if let Some((key, _)) = sample.owner {
            self.after(key, now);
        }
    }
}

/// A sampled thread as the result shows it: frames shaped like `stack_trace`'s, without ids
/// (the program was never stopped, so there are no frames to name).
fn thread_out(t: SampledThread) -> ThreadOut {
    let activity = match (t.active, t.owns_gil) {
        (_, true) => "active, holds the GIL",
        (true, false) => "active",
        (false, false) => "idle",
    };
    let frames = t
        .frames
        .into_iter()
        .map(|f| {
            let mut v = json!({"function": f.function, "path": f.path});
            if let Some(l) = f.line {
                v["line"] = l.into();
            }
            v
        })
        .collect::<Vec<_>>();
    let more = frames.len() > super::MAX_LEVELS as usize;
    ThreadOut { id: t.os_id, name: t.name, frames, more, error: None, activity: Some(activity) }
}
