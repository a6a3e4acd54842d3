//! Spawned adapters through `/proc`: own process group, non-blocking pipes, the whole tree gone after `kill_group`, and PR_SET_PDEATHSIG killing a child whose parent is SIGKILLed.

use crate::spawn_util;

use std::io::{self, Read, Write};

use agentdap::os::spawn::{self, spawn_adapter, AdapterCommand, Pid, SpawnedAdapter, StderrTail};
use spawn_util::{group_members, park, role, running, start_helper, wait_until, DEADLINE};

fn sh(script: &str) -> AdapterCommand {
    let mut cmd = AdapterCommand::new("sh");
    cmd.args = vec!["-c".into(), script.into()];
    cmd
}

/// Reaps one specific child of this test process (never `waitpid(-1)`: tests share the process).
fn reap(pid: Pid) {
    let mut status = 0;
    // SAFETY: waitpid on our own child with a valid status pointer.
    unsafe { libc::waitpid(pid, &mut status, 0) };
}

/// Reads everything `r` has until EOF, polling its non-blocking fd.
fn read_to_eof(r: &mut impl Read) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let done = wait_until(DEADLINE, || match r.read(&mut buf) {
        Ok(0) => true,
        Ok(n) => {
            out.extend_from_slice(&buf[..n]);
            false
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
        Err(e) => panic!("read: {e}"),
    });
    assert!(done, "no EOF before the deadline");
    out
}

#[test]
fn kill_group_removes_the_whole_tree() {
    let SpawnedAdapter { pid, pgid, .. } = spawn_adapter(&sh("sleep 100 & sleep 100 & wait")).expect("spawn");
    assert_eq!(pid, pgid);
    // SAFETY: getpgrp takes no arguments.
    assert_ne!(pgid, unsafe { libc::getpgrp() }, "the adapter must not share agentdap's group");
    assert!(wait_until(DEADLINE, || group_members(pgid).len() == 3), "sh + 2 sleeps: {:?}", group_members(pgid));
    assert_eq!(spawn::kill_group(pgid).ok(), Some(true));
    assert!(wait_until(DEADLINE, || group_members(pgid).is_empty()), "left: {:?}", group_members(pgid));
    reap(pid);
    assert!(wait_until(DEADLINE, || !spawn::group_exists(pgid)));
    assert_eq!(spawn::kill_group(pgid).ok(), Some(false), "a gone group is not an error");
}

#[test]
fn pipes_are_nonblocking_and_carry_stdio() {
    let mut cat = spawn_adapter(&AdapterCommand::new("cat")).expect("spawn cat");
    let mut buf = [0u8; 64];
    let err = cat.stdout.read(&mut buf).map(|_| ()).map_err(|e| e.kind());
    assert_eq!(err, Err(io::ErrorKind::WouldBlock), "stdout must be O_NONBLOCK");
    cat.stdin.write_all(b"Content-Length: 2\r\n\r\n{}").expect("write");
    drop(cat.stdin);
    assert_eq!(read_to_eof(&mut cat.stdout), b"Content-Length: 2\r\n\r\n{}");
    reap(cat.pid);

    let mut cmd = sh("echo \"$GREETING from $(pwd)\" >&2; exit 4");
    cmd.env = vec![("GREETING".into(), Some("hello".into())), ("HOME".into(), None)];
    cmd.cwd = Some("/".into());
    let mut noisy = spawn_adapter(&cmd).expect("spawn sh");
    let mut tail = StderrTail::new(8);
    tail.push(&read_to_eof(&mut noisy.stderr));
    assert_eq!((tail.text().as_str(), tail.dropped()), (" from /\n", 5));
    reap(noisy.pid);
}

/// Helper role: spawns `sleep` through `spawn_adapter`, reports its pid, waits to be killed.
#[test]
fn pdeathsig_helper_entry() {
    if role().as_deref() != Some("pdeathsig") {
        return;
    }
    let child = spawn_adapter(&AdapterCommand { args: vec!["100".into()], ..AdapterCommand::new("sleep") });
    let Ok(child) = child else { std::process::exit(2) };
    println!("CHILD {}", child.pid);
    io::stdout().flush().ok();
    park();
}

#[test]
fn child_dies_when_its_parent_is_sigkilled() {
    let (mut helper, pids) = start_helper("spawn_process::pdeathsig_helper_entry", "pdeathsig", &["CHILD"]);
    let child = pids[0];
    let st = spawn::proc_stat(child).expect("child stat");
    assert_eq!((st.ppid, st.pgid), (helper.id() as Pid, child), "child of the helper, leading its own group");
    helper.kill().expect("SIGKILL helper");
    helper.wait().expect("reap helper");
    assert!(wait_until(DEADLINE, || !running(child)), "child {child} outlived its SIGKILLed parent");
}
