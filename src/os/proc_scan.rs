//! The process table agentdap's walks of its own descendants read, kept from one walk to the next: `/proc` is listed every walk, but a process's `stat` file is read again only when it may have changed for the walk's purpose; never blocks, never signals.
//!
//! A full scan reads `/proc/<pid>/stat` of every process on the machine: ~1 ms with 100
//! processes, 15–30 ms with 2,000 (2-CPU VM), once a second while adapters run. The walk only
//! needs agentdap's own descendants, and a process can only become one by being new: the kernel
//! reparents an orphan to its nearest subreaper *ancestor*, so a process outside agentdap's tree
//! never moves into it. So a `stat` is read again only for
//!
//! - a pid not listed by the previous walk, or whose `/proc/<pid>` entry has another inode number
//!   (the pid was reused: procfs makes a new inode for a new process);
//! - a process that was in agentdap's tree (its state, parent and group change as it runs);
//! - a process whose recorded parent is gone or is another process now (it was reparented).
//!
//! Everything else keeps the `stat` read earlier. A walk then costs the listing (`getdents`)
//! and the reads of agentdap's own processes and the new ones.

use std::collections::{HashMap, HashSet, VecDeque};
use std::os::unix::fs::DirEntryExt;

use super::spawn::{proc_stat, Pid, ProcStat, PROC_SCAN_CAP};

/// What a walk learnt of one process.
#[derive(Clone, Copy, Debug)]
struct Seen {
    /// Inode number of its `/proc/<pid>` entry.
    ino: u64,
    stat: ProcStat,
    /// Reachable from the walk's root through parent links.
    ours: bool,
}

/// The table between walks. Memory: one small entry per process on the machine (at most
/// [`PROC_SCAN_CAP`]).
#[derive(Debug, Default)]
pub struct ProcScan {
    seen: HashMap<Pid, Seen>,
}

impl ProcScan {
    /// Every process now listed in `/proc` (at most [`PROC_SCAN_CAP`]), for
    /// [`super::spawn::descendants_in`] queries about `root` and its descendants: theirs are read
    /// fresh, every other process's as the rules of the module say.
    pub fn table(&mut self, root: Pid) -> Vec<ProcStat> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let listing: Vec<(Pid, u64)> = dir
            .take(PROC_SCAN_CAP)
            .flatten()
            .filter_map(|e| Some((e.file_name().to_str()?.parse::<Pid>().ok()?, e.ino())))
            .collect();
        self.update(&listing, root, |pid| proc_stat(pid).ok())
    }

    /// [`ProcScan::table`] over a given listing of `(pid, inode)` and `stat` reader (testable
    /// without `/proc`); `read` is called only where the module's rules ask for it.
    fn update(
        &mut self,
        listing: &[(Pid, u64)],
        root: Pid,
        mut read: impl FnMut(Pid) -> Option<ProcStat>,
    ) -> Vec<ProcStat> {
        let listed: HashMap<Pid, u64> = listing.iter().copied().collect();
        // The same process as at the last walk: listed, with the inode it had.
        let same =
            |seen: &HashMap<Pid, Seen>, pid: Pid| seen.get(&pid).is_some_and(|s| listed.get(&pid) == Some(&s.ino));
        let mut next = HashMap::with_capacity(listing.len());
        let mut table = Vec::with_capacity(listing.len());
        for &(pid, ino) in listing {
            let kept = self
                .seen
                .get(&pid)
                .filter(|s| s.ino == ino && !s.ours && (s.stat.ppid <= 0 || same(&self.seen, s.stat.ppid)));
            let Some(stat) = kept.map(|s| s.stat).or_else(|| read(pid)) else { continue };
            table.push(stat);
            next.insert(pid, Seen { ino, stat, ours: false });
        }
        for pid in below(&table, root) {
            if let Some(s) = next.get_mut(&pid) {
                s.ours = true;
            }
        }
        self.seen = next;
        table
    }
}

/// Every pid reachable from `root` through parent links in `table`, whatever its state
/// (zombies included: their children are still below `root`).
fn below(table: &[ProcStat], root: Pid) -> Vec<Pid> {
    let mut children: HashMap<Pid, Vec<Pid>> = HashMap::new();
    for st in table {
        children.entry(st.ppid).or_default().push(st.pid);
    }
    let mut seen: HashSet<Pid> = HashSet::from([root]);
    let mut queue = VecDeque::from([root]);
    let mut out = Vec::new();
    while let Some(parent) = queue.pop_front() {
        for &child in children.get(&parent).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(child) {
                queue.push_back(child);
                out.push(child);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::os::spawn::descendants_in;

    fn st(pid: Pid, ppid: Pid) -> ProcStat {
        ProcStat { pid, state: b'S', ppid, pgid: pid, start_time: 100 + pid as u64 }
    }

    /// A fake `/proc` holding init (pid 1) and `procs`, as `(inode, stat)`.
    fn fake(procs: &[(u64, ProcStat)]) -> FakeProc {
        let mut all = vec![(100, st(1, 0))];
        all.extend_from_slice(procs);
        FakeProc { procs: all, reads: RefCell::default() }
    }

    /// A fake `/proc`: pid → (inode, stat); `reads` counts the stat reads a walk made.
    struct FakeProc {
        procs: Vec<(u64, ProcStat)>,
        reads: RefCell<Vec<Pid>>,
    }

    impl FakeProc {
        fn walk(&self, scan: &mut ProcScan, root: Pid) -> (Vec<Pid>, Vec<Pid>) {
            self.reads.borrow_mut().clear();
            let listing: Vec<(Pid, u64)> = self.procs.iter().map(|(ino, s)| (s.pid, *ino)).collect();
            let table = scan.update(&listing, root, |pid| {
                self.reads.borrow_mut().push(pid);
                self.procs.iter().find(|(_, s)| s.pid == pid).map(|(_, s)| *s)
            });
            let mut ours: Vec<Pid> = descendants_in(&table, root, &[]).iter().map(|s| s.pid).collect();
            ours.sort_unstable();
            let mut reads = self.reads.borrow().clone();
            reads.sort_unstable();
            (ours, reads)
        }
    }

    #[test]
    fn a_second_walk_reads_only_agentdaps_own_processes() {
        // 10 is agentdap; 11 its adapter, 12 the debuggee; 30..=33 someone else's.
        let fake = fake(&[
            (1, st(10, 1)),
            (2, st(11, 10)),
            (3, st(12, 11)),
            (4, st(30, 1)),
            (5, st(31, 30)),
            (6, st(32, 30)),
            (7, st(33, 1)),
        ]);
        let mut scan = ProcScan::default();
        let (ours, reads) = fake.walk(&mut scan, 10);
        assert_eq!(ours, vec![11, 12]);
        assert_eq!(reads, vec![1, 10, 11, 12, 30, 31, 32, 33]);
        let (ours, reads) = fake.walk(&mut scan, 10);
        assert_eq!(ours, vec![11, 12]);
        assert_eq!(reads, vec![11, 12]);
    }

    #[test]
    fn a_new_process_below_agentdap_is_found() {
        let mut fake = fake(&[(1, st(10, 1)), (2, st(11, 10)), (4, st(30, 1))]);
        let mut scan = ProcScan::default();
        fake.walk(&mut scan, 10);
        // The debuggee forks a grandchild that daemonizes before the next walk: reparented to
        // agentdap (a subreaper) as a new pid.
        fake.procs.push((8, st(13, 10)));
        fake.procs.push((9, st(40, 30)));
        let (ours, reads) = fake.walk(&mut scan, 10);
        assert_eq!(ours, vec![11, 13]);
        assert_eq!(reads, vec![11, 13, 40]);
    }

    #[test]
    fn a_reused_pid_is_read_again() {
        let mut fake = fake(&[(1, st(10, 1)), (2, st(11, 10)), (4, st(30, 1))]);
        let mut scan = ProcScan::default();
        fake.walk(&mut scan, 10);
        // pid 30 ended and the pid went to a new child of the adapter: a new /proc inode.
        fake.procs[3] = (12, st(30, 11));
        let (ours, reads) = fake.walk(&mut scan, 10);
        assert_eq!(ours, vec![11, 30]);
        assert_eq!(reads, vec![11, 30]);
    }

    #[test]
    fn a_reparented_process_is_read_again() {
        // 31's parent 30 (not agentdap's) ends: 31 moves to init, its recorded parent is gone.
        let mut fake = fake(&[(1, st(10, 1)), (4, st(30, 1)), (5, st(31, 30))]);
        let mut scan = ProcScan::default();
        fake.walk(&mut scan, 10);
        fake.procs.retain(|(_, s)| s.pid != 30);
        fake.procs[2] = (5, st(31, 1));
        let (ours, reads) = fake.walk(&mut scan, 10);
        assert!(ours.is_empty());
        assert_eq!(reads, vec![31]);
    }

    #[test]
    fn a_zombie_below_agentdap_keeps_its_children_found() {
        let mut zombie = st(11, 10);
        zombie.state = b'Z';
        let fake = fake(&[(1, st(10, 1)), (2, zombie), (3, st(12, 11))]);
        let mut scan = ProcScan::default();
        fake.walk(&mut scan, 10);
        let (ours, reads) = fake.walk(&mut scan, 10);
        assert_eq!(ours, vec![12]);
        assert_eq!(reads, vec![11, 12]);
    }

    #[test]
    fn the_real_table_holds_this_process() {
        let me = std::process::id() as Pid;
        let mut scan = ProcScan::default();
        for _ in 0..2 {
            let table = scan.table(1);
            assert!(table.iter().any(|s| s.pid == me), "{} processes listed", table.len());
        }
    }
}
