//! Helper commands the session layer needs run and read back — a build before a test can be
//! debugged (`cargo test --no-run`), a stack sampler (`py-spy dump`) — as *jobs*: the session layer
//! asks with [`Action::RunJob`], the IO shell (`server/jobs.rs`) runs the command on pipes in its
//! own process group, captures what it writes (capped) and answers with [`Sessions::on_job_done`],
//! which hands the result to the owner the [`Job`] names. Owns the job table and the result's
//! shape; must not spawn anything or decide what a result means (the owners do).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::{Action, Job, Sessions};
use crate::dap::command::AdapterCommand;

/// Bytes of stdout and of stderr a job keeps (each: the first and the last half of it; what is
/// between is counted, not kept). A `cargo test --no-run --message-format=json` of a mid-sized
/// workspace writes a few MiB of JSON lines, the test binaries' last; `py-spy dump` of 64
/// threads a few KiB.
pub const JOB_OUTPUT_CAP: usize = 8 << 20;

/// One output stream of a job as kept: its start and its end, each up to half of `cap`, and the
/// count of bytes between them that were not kept.
#[derive(Debug)]
pub struct Capped {
    cap: usize,
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: u64,
}

impl Capped {
    /// An empty stream keeping at most `cap` bytes.
    pub fn new(cap: usize) -> Capped {
        Capped { cap, head: Vec::new(), tail: std::collections::VecDeque::new(), dropped: 0 }
    }

    /// Takes `bytes` written next.
    pub fn push(&mut self, bytes: &[u8]) {
        let half = self.cap / 2;
        let room = half.saturating_sub(self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..room]);
        let rest = &bytes[room..];
        let keep = rest.len().min(self.cap - half);
        self.dropped += (rest.len() - keep) as u64;
        let over = (self.tail.len() + keep).saturating_sub(self.cap - half);
        self.dropped += over as u64;
        self.tail.drain(..over);
        self.tail.extend(&rest[rest.len() - keep..]);
    }

    /// Bytes written but not kept.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// What was kept: the start, then (when bytes were dropped between) a newline, so a line cut
    /// there never joins the end's first line, then the end.
    pub fn into_bytes(self) -> Vec<u8> {
        let mut out = self.head;
        if self.dropped > 0 {
            out.push(b'\n');
        }
        out.extend(self.tail);
        out
    }
}

/// Jobs running at once (the table refuses more: [`Sessions::start_job`] answers `None`).
pub const MAX_JOBS: usize = 16;

/// The refusal when [`MAX_JOBS`] are running.
pub fn too_many_jobs() -> String {
    format!(
        "{MAX_JOBS} helper commands (builds, test lists, stack samplers) are running already, the most at once; try again when one has ended."
    )
}

/// A job's id, unique for the process's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobId(pub u64);

/// How a job ended, as the IO shell saw it.
#[derive(Debug, Default)]
pub struct JobResult {
    /// Its exit code, when it exited.
    pub code: Option<i64>,
    /// The signal that ended it, when one did.
    pub signal: Option<i64>,
    /// What it wrote to stdout: its first and last [`JOB_OUTPUT_CAP`]` / 2` bytes ([`Capped`]).
    pub stdout: Vec<u8>,
    /// What it wrote to stderr, kept the same way.
    pub stderr: Vec<u8>,
    /// Bytes written between the start and the end kept, on either stream, not kept.
    pub dropped: u64,
    /// It was killed at its deadline.
    pub timed_out: bool,
    /// It could not be started (the words say why: not found, permission, bad cwd).
    pub spawn_error: Option<String>,
    /// From start to the end of its output.
    pub elapsed: Duration,
}

impl JobResult {
    /// Whether it ran and exited with code 0.
    pub fn succeeded(&self) -> bool {
        self.spawn_error.is_none() && !self.timed_out && self.code == Some(0)
    }

    /// One line saying how it ended: `exit code 101`, `killed by signal 9`, `timed out after
    /// 600 s`, or why it could not start.
    pub fn ending(&self) -> String {
        if let Some(e) = &self.spawn_error {
            return format!("could not start: {e}");
        }
        if self.timed_out {
            return format!("timed out after {} s and was killed", self.elapsed.as_secs());
        }
        match (self.code, self.signal) {
            (Some(c), _) => format!("exit code {c}"),
            (None, Some(s)) => format!("killed by signal {s}"),
            (None, None) => "ended".to_owned(),
        }
    }

    /// The last `max` characters of its stderr (cut at a line start where one is near), for an
    /// error the agent reads.
    pub fn stderr_tail(&self, max: usize) -> String {
        tail(&self.stderr, max)
    }
}

/// The first `head` and the last `tail` bytes of `bytes` as text (cut at lines where one is
/// near), with `…` between when something is left out; all of it when it is short enough.
pub fn head_and_tail(bytes: &[u8], head: usize, tail_len: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.len() <= head + tail_len {
        return text.to_owned();
    }
    let mut cut = head;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let start = &text[..cut];
    let start = match start.rfind('\n') {
        Some(i) if i > cut / 2 => &start[..i],
        _ => start,
    };
    format!("{start}\n{}", tail(&text.as_bytes()[cut..], tail_len))
}

/// The last `max` bytes of `bytes` as text, starting after a newline when one is in the first
/// half of that window.
pub fn tail(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.len() <= max {
        return text.to_owned();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let window = &text[start..];
    match window.find('\n') {
        Some(i) if i < window.len() / 2 => format!("…{}", &window[i..]),
        _ => format!("…{window}"),
    }
}

/// The jobs running now.
#[derive(Debug, Default)]
pub struct JobTable {
    next: u64,
    running: HashMap<JobId, Job>,
}

#[cfg(test)]
impl JobTable {
    /// Whether none is running.
    pub fn is_empty(&self) -> bool {
        self.running.is_empty()
    }
}

impl Sessions {
    /// Asks the IO shell to run `command` (stdin closed, stdout and stderr captured, its own
    /// process group, killed after `timeout` and at shutdown), and to give the result to `job`.
    /// `None` when [`MAX_JOBS`] are already running.
    pub(crate) fn start_job(&mut self, job: Job, command: AdapterCommand, timeout: Duration) -> Option<JobId> {
        if self.jobs.running.len() >= MAX_JOBS {
            return None;
        }
        self.jobs.next += 1;
        let id = JobId(self.jobs.next);
        self.jobs.running.insert(id, job);
        self.actions.push_back(Action::RunJob { job: id, command, timeout });
        Some(id)
    }

    /// A job ended (or could not start): its owner continues. A job not in the table (ended
    /// twice, or never started) is ignored.
    pub fn on_job_done(&mut self, id: JobId, result: JobResult, now: Instant) {
        let Some(job) = self.jobs.running.remove(&id) else {
            log::debug!("result of unknown job {id:?} dropped");
            return;
        };
        log::debug!("job {id:?} ended: {} in {:?}", result.ending(), result.elapsed);
        match job {
            Job::RustTest(step) => self.rust_test_step(*step, result, now),
            Job::Stacks(sample) => self.stacks_sampled(sample, result, now),
        }
    }

    /// A cancelled call's jobs stop (MCP `notifications/cancelled`): a Rust test's build or
    /// lookup is killed, and nothing starts after it.
    pub(super) fn cancel_jobs(&mut self, call: super::CallKey) {
        let ids: Vec<JobId> = self
            .jobs
            .running
            .iter()
            .filter(|(_, j)| matches!(j, Job::RustTest(step) if step.call() == call))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.jobs.running.remove(&id);
            self.actions.push_back(Action::StopJob { job: id });
        }
    }

    /// The jobs running now (tests).
    #[cfg(test)]
    pub fn jobs(&self) -> &JobTable {
        &self.jobs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_starts_at_a_line_when_one_is_near() {
        assert_eq!(tail(b"short\n", 100), "short");
        let long = b"aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc\n";
        assert_eq!(tail(long, 15), "…\ncccccccccc");
        assert_eq!(tail(b"0123456789abcdef", 4), "…cdef");
        // A cut inside a multi-byte character moves to the next boundary.
        assert_eq!(tail("ééééé".as_bytes(), 3), "…é");
    }

    #[test]
    fn a_stream_keeps_its_start_and_its_end() {
        let mut c = Capped::new(8);
        c.push(b"ab");
        c.push(b"cdefghij");
        c.push(b"kl");
        assert_eq!(c.dropped(), 4);
        assert_eq!(c.into_bytes(), b"abcd\nijkl");
        let mut c = Capped::new(8);
        c.push(b"abcdefgh");
        assert_eq!(c.dropped(), 0);
        assert_eq!(c.into_bytes(), b"abcdefgh");
        // One write far past the cap.
        let mut c = Capped::new(4);
        c.push(&[b'x'; 1000]);
        c.push(b"yz");
        assert_eq!((c.dropped(), c.into_bytes()), (998, b"xx\nyz".to_vec()));
    }

    #[test]
    fn head_and_tail_keep_both_ends() {
        assert_eq!(head_and_tail(b"short", 4, 4), "short");
        let text = b"error: failed to run custom build command\nSPAM\nSPAM\nSPAM\nSPAM\nlast words\n";
        assert_eq!(head_and_tail(text, 45, 12), "error: failed to run custom build command\n…\nlast words");
    }

    #[test]
    fn a_result_says_how_the_job_ended() {
        let mut r = JobResult { code: Some(101), ..JobResult::default() };
        assert_eq!(r.ending(), "exit code 101");
        assert!(!r.succeeded());
        r.code = Some(0);
        assert!(r.succeeded());
        r.timed_out = true;
        r.elapsed = Duration::from_secs(600);
        assert_eq!(r.ending(), "timed out after 600 s and was killed");
        assert!(!r.succeeded());
        let r = JobResult { spawn_error: Some("cargo: not found".into()), ..JobResult::default() };
        assert_eq!(r.ending(), "could not start: cargo: not found");
        let r = JobResult { signal: Some(9), ..JobResult::default() };
        assert_eq!(r.ending(), "killed by signal 9");
    }
}
