//! Helper commands the session layer asked for (`Action::RunJob`: a build, a stack sampler) as
//! loop sources: spawn on pipes ([`spawn::spawn_adapter`]: own process group,
//! `PR_SET_PDEATHSIG`, recorded with the watchdog) with stdin closed at once, stdout and stderr
//! captured, their start and end up to [`JOB_OUTPUT_CAP`] each ([`Capped`]), SIGKILL to the group at the deadline and at shutdown,
//! and the result handed back with [`crate::session::Sessions::on_job_done`] once the process is
//! reaped and both pipes are closed (or a child of it still holds them: the result goes all the
//! same). Decides nothing about what the result means.

use std::process::ExitStatus;
use std::time::{Duration, Instant};

use log::{debug, info, trace, warn};

use super::{Server, TimerEvent};
use crate::os::child::{Child, PipeKind, ReadOutcome};
use crate::os::spawn::{self, AdapterCommand, Pid};
use crate::session::jobs::{Capped, JobId, JobResult, JOB_OUTPUT_CAP};
use crate::token::{self, Kind};

/// Bytes read from a job's pipe per `read` call.
const PIPE_CHUNK: usize = 64 * 1024;
/// Reads of one pipe per event or loop turn; a pipe left with data stays ready for the next turn.
const READS_PER_TURN: usize = 4;
/// Reads of a job's pipes at its reaping (what it wrote before exiting).
const READS_AT_EXIT: usize = 256;

fn pipe_token(key: usize, which: PipeKind) -> Option<mio::Token> {
    token::encode(Kind::JobPipe, key << 2 | which as usize)
}

/// One helper command running.
pub(super) struct JobIo {
    job: JobId,
    child: Child,
    started: Instant,
    stdout: Capped,
    stderr: Capped,
    timed_out: bool,
}

impl Server {
    /// Runs `command` for `job`, or tells the session layer at once why it could not start.
    pub(super) fn spawn_job(&mut self, job: JobId, command: AdapterCommand, timeout: Duration, now: Instant) {
        let failed = |why: String| JobResult { spawn_error: Some(why), ..JobResult::default() };
        if self.shutdown.is_some() {
            return self.sessions.on_job_done(job, failed("agentdap is shutting down".into()), now);
        }
        let child = match spawn::spawn_adapter(&command) {
            Ok(s) => Child::from(s),
            Err(e) => {
                warn!("job: cannot run {}: {e}", command.program.to_string_lossy());
                return self.sessions.on_job_done(job, failed(e.to_string()), now);
            }
        };
        let entry = self.jobs.vacant_entry();
        let key = entry.key();
        let (stdout, stderr) = (Capped::new(JOB_OUTPUT_CAP), Capped::new(JOB_OUTPUT_CAP));
        let mut io = JobIo { job, child, started: now, stdout, stderr, timed_out: false };
        // Nothing is written to a job: its stdin ends at once.
        io.child.close(PipeKind::Stdin, self.poll.registry());
        let registered = io.child.register(self.poll.registry(), |w| pipe_token(key, w));
        let pid = io.child.pid;
        info!("job {job:?}: pid {pid} runs {}", command.program.to_string_lossy());
        entry.insert(io);
        if let Some(w) = self.watchdog.as_mut() {
            if let Err(e) = w.record(pid) {
                debug!("watchdog: cannot record pid {pid}: {e}");
            }
        }
        if let Err(e) = registered {
            warn!("cannot watch the pipes of job pid {pid}: {e}");
            self.kill_job(key, pid, false);
            return;
        }
        if let Err(e) = self.timers.insert(now + timeout, TimerEvent::JobDeadline { key, pid }) {
            warn!("{e}; job pid {pid} runs without a deadline");
        }
    }

    /// Events on a job's pipe: read what is there, within this turn's budget.
    pub(super) fn on_job_pipe(&mut self, key: usize, now: Instant) {
        let (jkey, which) = (key >> 2, PipeKind::from_bits(key));
        let Some(io) = self.jobs.get_mut(jkey) else {
            trace!("event for vacant job key {jkey} ignored");
            return;
        };
        io.child.mark_ready(which);
        self.read_job(jkey, READS_PER_TURN, now);
    }

    /// True when a job's pipe still holds data after its per-turn budget.
    pub(super) fn jobs_have_work(&self) -> bool {
        self.jobs.iter().any(|(_, j)| j.child.has_output())
    }

    /// This turn's serving round for jobs' pipes.
    pub(super) fn read_ready_jobs(&mut self, now: Instant) {
        let keys: Vec<usize> = self.jobs.iter().filter(|(_, j)| j.child.has_output()).map(|(k, _)| k).collect();
        for k in keys {
            self.read_job(k, READS_PER_TURN, now);
        }
    }

    fn read_job(&mut self, jkey: usize, reads: usize, now: Instant) {
        let mut buf = vec![0u8; PIPE_CHUNK];
        for which in [PipeKind::Stdout, PipeKind::Stderr] {
            for _ in 0..reads {
                let Some(io) = self.jobs.get_mut(jkey) else { return };
                match io.child.output(which).read(&mut buf) {
                    ReadOutcome::Data(n) => {
                        let sink = if which == PipeKind::Stdout { &mut io.stdout } else { &mut io.stderr };
                        sink.push(&buf[..n]);
                    }
                    ReadOutcome::End | ReadOutcome::Failed(_) => {
                        io.child.close(which, self.poll.registry());
                        break;
                    }
                    ReadOutcome::Empty => break,
                    ReadOutcome::Interrupted => {}
                }
            }
        }
        self.finish_job_if_done(jkey, now);
    }

    /// A reaped child that is a job: what it wrote is read, and its result goes once its pipes
    /// are closed (a child of it may hold them open: they are closed now). False when `pid` is
    /// no job's.
    pub(super) fn job_reaped(&mut self, pid: Pid, status: ExitStatus, now: Instant) -> bool {
        let Some(jkey) = self.jobs.iter().find(|(_, j)| j.child.pid == pid).map(|(k, _)| k) else { return false };
        debug!("job pid {pid} exited: {status}");
        if let Some(io) = self.jobs.get_mut(jkey) {
            io.child.reaped(status);
        }
        self.read_job(jkey, READS_AT_EXIT, now);
        if let Some(io) = self.jobs.get_mut(jkey) {
            io.child.close(PipeKind::Stdout, self.poll.registry());
            io.child.close(PipeKind::Stderr, self.poll.registry());
        }
        self.finish_job_if_done(jkey, now);
        true
    }

    /// Hands the result back once the job was reaped and its pipes are closed; whatever is left
    /// of its process group is killed.
    fn finish_job_if_done(&mut self, jkey: usize, now: Instant) {
        let Some(io) = self.jobs.get(jkey) else { return };
        let Some(status) = io.child.exit else { return };
        if io.child.stdout.is_open() || io.child.stderr.is_open() {
            return;
        }
        let io = self.jobs.remove(jkey);
        io.child.kill();
        use std::os::unix::process::ExitStatusExt;
        let result = JobResult {
            code: status.code().map(i64::from),
            signal: status.signal().map(i64::from),
            dropped: io.stdout.dropped() + io.stderr.dropped(),
            stdout: io.stdout.into_bytes(),
            stderr: io.stderr.into_bytes(),
            timed_out: io.timed_out,
            spawn_error: None,
            elapsed: now.saturating_duration_since(io.started),
        };
        self.sessions.on_job_done(io.job, result, now);
    }

    /// The deadline passed (`timed_out`) or the job cannot be watched: SIGKILL to its group; the
    /// reaping gives the result.
    pub(super) fn kill_job(&mut self, jkey: usize, pid: Pid, timed_out: bool) {
        let Some(io) = self.jobs.get_mut(jkey).filter(|j| j.child.pid == pid) else { return };
        if timed_out {
            warn!("job pid {pid} passed its deadline; SIGKILL");
            io.timed_out = true;
        }
        io.child.kill();
    }

    /// The pids of the jobs running (their trees are no adapter's: the walk leaves them out).
    pub(super) fn job_pids(&self) -> Vec<Pid> {
        self.jobs.iter().map(|(_, j)| j.child.pid).collect()
    }

    /// Kills the group of the job `job` (its call was cancelled); the reaping ends it.
    pub(super) fn stop_job(&mut self, job: JobId) {
        if let Some((_, io)) = self.jobs.iter().find(|(_, j)| j.job == job) {
            debug!("job {job:?}: its call was cancelled; SIGKILL to pid {}'s group", io.child.pid);
            io.child.kill();
        }
    }

    /// SIGKILLs every job's group (shutdown).
    pub(super) fn kill_all_jobs(&mut self) {
        for (_, io) in self.jobs.iter() {
            io.child.kill();
        }
    }
}
