//! Reaping under PR_SET_CHILD_SUBREAPER: the orphaned grandchild is reparented to us and reaped by `reap_exited`; SIGTERM-then-SIGKILL of a group that ignores SIGTERM. One test only: `waitpid(-1)` would steal other tests' children.

mod spawn_util;

use std::collections::HashMap;
use std::io::{self, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use agentdap::os::spawn::{self, spawn_adapter, AdapterCommand, Pid};
use spawn_util::{group_members, wait_until, DEADLINE};

fn sh(script: &str) -> AdapterCommand {
    let mut cmd = AdapterCommand::new("sh");
    cmd.args = vec!["-c".into(), script.into()];
    cmd
}

#[test]
fn subreaper_reaps_orphans_and_groups_die_on_sigkill() {
    spawn::become_subreaper().expect("PR_SET_CHILD_SUBREAPER");
    let me = std::process::id() as Pid;
    let mut reaped: HashMap<Pid, ExitStatus> = HashMap::new();

    // sh prints its background child's pid and exits 3; the child is orphaned to us.
    let mut adapter = spawn_adapter(&sh("sleep 1 & echo $!; exit 3")).expect("spawn");
    let mut out = Vec::new();
    let mut buf = [0u8; 64];
    let got_line = wait_until(DEADLINE, || {
        match adapter.stdout.read(&mut buf) {
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("read: {e}"),
        }
        out.ends_with(b"\n")
    });
    assert!(got_line, "no pid line");
    let orphan: Pid = String::from_utf8_lossy(&out).trim().parse().expect("orphan pid");

    let saw_reparent = wait_until(DEADLINE, || {
        reaped.extend(spawn::reap_exited());
        spawn::proc_stat(orphan).map_or(true, |st| st.ppid == me)
    });
    assert!(saw_reparent, "orphan {orphan} was not reparented to the subreaper");
    assert!(wait_until(DEADLINE, || {
        reaped.extend(spawn::reap_exited());
        reaped.contains_key(&orphan) && reaped.contains_key(&adapter.pid)
    }));
    assert_eq!(reaped[&adapter.pid].code(), Some(3));
    assert_eq!(reaped[&orphan].code(), Some(0));

    // A group that ignores SIGTERM (the ignore is inherited by sleep) needs the SIGKILL step.
    let stubborn = spawn_adapter(&sh("trap '' TERM; sleep 100 & wait")).expect("spawn");
    assert!(wait_until(DEADLINE, || group_members(stubborn.pgid).len() == 2));
    assert_eq!(spawn::terminate_group(stubborn.pgid).ok(), Some(true));
    assert_eq!(spawn::kill_group(stubborn.pgid).ok(), Some(true));
    assert!(wait_until(DEADLINE, || {
        reaped.extend(spawn::reap_exited());
        group_members(stubborn.pgid).is_empty() && reaped.contains_key(&stubborn.pid)
    }));
    assert_eq!(reaped[&stubborn.pid].signal(), Some(libc::SIGKILL));
    // The sleep was orphaned to us too, so it is reaped here rather than left a zombie.
    assert!(wait_until(DEADLINE, || {
        reaped.extend(spawn::reap_exited());
        !spawn::group_exists(stubborn.pgid)
    }));
    assert!(spawn::reap_exited().is_empty());
}
