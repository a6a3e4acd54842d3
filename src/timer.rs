//! The deadline queue, sans-IO: deadlines and payloads in, expired payloads out, given a `now`.
//! It never reads the clock itself; the event loop turns [`Timers::timeout`] into the poll timeout.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

/// At most this many pending deadlines (far above any real need: a few per session).
pub const MAX_TIMERS: usize = 1 << 16;

/// Identifies one scheduled deadline, for [`Timers::cancel`]. Never reused within one queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId {
    at: Instant,
    seq: u64,
}

impl TimerId {
    /// When this timer fires.
    pub fn deadline(self) -> Instant {
        self.at
    }
}

/// [`Timers::insert`] refused a deadline because [`MAX_TIMERS`] are already pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimersFull;

impl fmt::Display for TimersFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "too many pending timers (cap {MAX_TIMERS})")
    }
}

impl std::error::Error for TimersFull {}

/// A queue of deadlines, each carrying a payload `T` (what to do when it fires).
///
/// Timers with equal deadlines fire in insertion order. Insert, cancel and pop are O(log n).
#[derive(Debug)]
pub struct Timers<T> {
    queue: BTreeMap<TimerId, T>,
    next_seq: u64,
}

impl<T> Default for Timers<T> {
    fn default() -> Self {
        Timers::new()
    }
}

impl<T> Timers<T> {
    /// An empty queue.
    pub fn new() -> Timers<T> {
        Timers { queue: BTreeMap::new(), next_seq: 0 }
    }

    /// Schedules `payload` to fire at `at`.
    ///
    /// Errors: [`TimersFull`] when [`MAX_TIMERS`] deadlines are pending.
    pub fn insert(&mut self, at: Instant, payload: T) -> Result<TimerId, TimersFull> {
        if self.queue.len() >= MAX_TIMERS {
            return Err(TimersFull);
        }
        let id = TimerId { at, seq: self.next_seq };
        self.next_seq += 1;
        self.queue.insert(id, payload);
        Ok(id)
    }

    /// Removes a pending timer and returns its payload; `None` if it already fired or was
    /// cancelled.
    pub fn cancel(&mut self, id: TimerId) -> Option<T> {
        self.queue.remove(&id)
    }

    /// The earliest pending deadline.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.queue.keys().next().map(|id| id.at)
    }

    /// How long the event loop may sleep: `None` (forever) when nothing is pending, zero when a
    /// deadline has passed. Rounded up to whole milliseconds, since epoll's resolution is 1 ms and
    /// rounding down would wake the loop just before the deadline and make it spin.
    pub fn timeout(&self, now: Instant) -> Option<Duration> {
        let left = self.next_deadline()?.saturating_duration_since(now);
        let ms = left.as_nanos().div_ceil(1_000_000);
        Some(Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX)))
    }

    /// Removes and returns the earliest timer whose deadline is at or before `now`.
    /// Call repeatedly until `None` to fire everything that is due.
    pub fn pop_expired(&mut self, now: Instant) -> Option<(TimerId, T)> {
        let first = self.queue.first_key_value()?.0;
        if first.at > now {
            return None;
        }
        self.queue.pop_first()
    }

    /// Number of pending timers.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn fire_all(timers: &mut Timers<&'static str>, now: Instant) -> Vec<&'static str> {
        std::iter::from_fn(|| timers.pop_expired(now).map(|(_, p)| p)).collect()
    }

    #[test]
    fn empty_queue_sleeps_forever() {
        let timers: Timers<()> = Timers::new();
        assert_eq!(timers.timeout(Instant::now()), None);
        assert_eq!(timers.next_deadline(), None);
        assert!(timers.is_empty());
    }

    #[test]
    fn fires_in_deadline_order_then_insertion_order() {
        let t0 = Instant::now();
        let mut timers = Timers::new();
        timers.insert(t0 + ms(30), "c").unwrap();
        timers.insert(t0 + ms(10), "a").unwrap();
        timers.insert(t0 + ms(10), "b").unwrap();
        timers.insert(t0 + ms(50), "d").unwrap();
        assert_eq!(fire_all(&mut timers, t0 + ms(9)), Vec::<&str>::new());
        assert_eq!(fire_all(&mut timers, t0 + ms(30)), vec!["a", "b", "c"]);
        assert_eq!(timers.len(), 1);
        assert_eq!(timers.next_deadline(), Some(t0 + ms(50)));
    }

    #[test]
    fn timeout_is_the_earliest_deadline_rounded_up_to_a_millisecond() {
        let t0 = Instant::now();
        let mut timers = Timers::new();
        timers.insert(t0 + ms(250), "late").unwrap();
        timers.insert(t0 + Duration::from_micros(1500), "soon").unwrap();
        assert_eq!(timers.timeout(t0), Some(ms(2)));
        assert_eq!(timers.timeout(t0 + ms(1)), Some(ms(1)));
        assert_eq!(timers.timeout(t0 + ms(5)), Some(Duration::ZERO));
    }

    #[test]
    fn cancelled_timers_never_fire_and_cancel_is_idempotent() {
        let t0 = Instant::now();
        let mut timers = Timers::new();
        let a = timers.insert(t0 + ms(10), "a").unwrap();
        timers.insert(t0 + ms(20), "b").unwrap();
        assert_eq!(a.deadline(), t0 + ms(10));
        assert_eq!(timers.cancel(a), Some("a"));
        assert_eq!(timers.cancel(a), None);
        assert_eq!(timers.timeout(t0), Some(ms(20)));
        assert_eq!(fire_all(&mut timers, t0 + ms(100)), vec!["b"]);
    }

    #[test]
    fn a_fired_timer_cannot_be_cancelled() {
        let t0 = Instant::now();
        let mut timers = Timers::new();
        let a = timers.insert(t0, "a").unwrap();
        assert_eq!(timers.pop_expired(t0), Some((a, "a")));
        assert_eq!(timers.cancel(a), None);
    }

    #[test]
    fn insert_is_capped() {
        let t0 = Instant::now();
        let mut timers = Timers::new();
        for _ in 0..MAX_TIMERS {
            timers.insert(t0, ()).unwrap();
        }
        assert_eq!(timers.insert(t0, ()), Err(TimersFull));
        timers.pop_expired(t0).unwrap();
        assert!(timers.insert(t0, ()).is_ok());
    }
}
