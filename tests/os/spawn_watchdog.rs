//! The watchdog through `/proc`: it kills recorded pids when its pipe closes (handle dropped, or owner SIGKILLed) and spares unrecorded, forgotten and recycled-pid processes; then it removes recorded temporary directories agentdap would make, and nothing else.

use crate::spawn_util;

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

use agentdap::os::spawn::{self, Pid};
use agentdap::os::watchdog::{watchdog_main, Watchdog};
use spawn_util::{park, role, running, sigkill, start_helper, wait_until, DEADLINE, ROLE_VAR};

/// Helper role: be the watchdog.
#[test]
fn watchdog_entry() {
    if role().as_deref() == Some("watchdog") {
        std::process::exit(watchdog_main(&[]));
    }
}

/// A watchdog made of this test binary in the `watchdog` role.
fn start_watchdog() -> Watchdog {
    let exe = std::env::current_exe().expect("test binary path");
    let args: Vec<OsString> = ["--exact", "spawn_watchdog::watchdog_entry", "--nocapture", "--test-threads=1", "-q"]
        .iter()
        .map(OsString::from)
        .collect();
    Watchdog::start_with(&exe, &args, &[(ROLE_VAR.into(), "watchdog".into())]).expect("start watchdog")
}

/// A `sleep 100` in its own process group and without PR_SET_PDEATHSIG (a debuggee the way an
/// adapter launches it: nothing but the watchdog would kill it).
fn debuggee() -> Child {
    Command::new("sleep").arg("100").process_group(0).spawn().expect("spawn sleep")
}

fn start_time(pid: Pid) -> u64 {
    spawn::proc_stat(pid).expect("stat").start_time
}

#[test]
fn dropped_handle_kills_recorded_and_spares_the_rest() {
    let mut wd = start_watchdog();
    let wd_pid = wd.pid();
    let st = spawn::proc_stat(wd_pid).expect("watchdog stat");
    assert_eq!(st.pgid, wd_pid, "the watchdog leads its own group (setsid)");
    let stdout = std::fs::read_link(format!("/proc/{wd_pid}/fd/1")).expect("watchdog fd 1");
    assert_eq!(stdout.to_str(), Some("/dev/null"));

    let (mut victim, mut bystander, mut forgotten, mut recycled) = (debuggee(), debuggee(), debuggee(), debuggee());
    // The victim's group gets a second member, which must die with it.
    let sibling = Command::new("sleep").arg("100").process_group(victim.id() as i32).spawn();
    let mut sibling = sibling.expect("spawn sibling");
    wd.record(victim.id() as Pid).expect("record victim");
    wd.record(forgotten.id() as Pid).expect("record forgotten");
    wd.forget(forgotten.id() as Pid).expect("forget");
    // A recorded pid whose start time no longer matches stands for a recycled pid.
    let recycled_pid = recycled.id() as Pid;
    wd.record_with_start_time(recycled_pid, start_time(recycled_pid) + 1).expect("record recycled");
    assert_eq!(wd.pending(), 0);
    drop(wd);

    assert!(wait_until(DEADLINE, || !running(victim.id() as Pid)), "recorded pid survived");
    assert!(wait_until(DEADLINE, || !running(sibling.id() as Pid)), "recorded pid's group survived");
    assert!(wait_until(DEADLINE, || !running(wd_pid)), "watchdog did not exit");
    for child in [&bystander, &forgotten, &recycled] {
        assert!(running(child.id() as Pid), "pid {} was not recorded but died", child.id());
    }
    for child in [&mut victim, &mut sibling, &mut bystander, &mut forgotten, &mut recycled] {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Helper role: start a watchdog, record a debuggee, report pids, wait to be SIGKILLed.
#[test]
fn owner_entry() {
    if role().as_deref() != Some("owner") {
        return;
    }
    let mut wd = start_watchdog();
    let (victim, bystander) = (debuggee(), debuggee());
    wd.record(victim.id() as Pid).expect("record");
    println!("WATCHDOG {}", wd.pid());
    println!("VICTIM {}", victim.id());
    println!("BYSTANDER {}", bystander.id());
    std::io::stdout().flush().ok();
    park();
}

#[test]
fn sigkilled_owner_leaves_no_recorded_debuggee() {
    let (mut owner, pids) = start_helper("spawn_watchdog::owner_entry", "owner", &["WATCHDOG", "VICTIM", "BYSTANDER"]);
    let (wd_pid, victim, bystander) = (pids[0], pids[1], pids[2]);
    assert!(running(victim) && running(bystander));
    owner.kill().expect("SIGKILL owner");
    owner.wait().expect("reap owner");
    assert!(wait_until(DEADLINE, || !running(victim)), "recorded debuggee {victim} outlived its owner");
    assert!(wait_until(DEADLINE, || !running(wd_pid)), "watchdog did not exit");
    assert!(running(bystander), "unrecorded process was killed");
    sigkill(bystander);
}

/// Recorded directories go when the pipe closes, after the recorded process was killed; a
/// recorded symlink, a forgotten directory, one outside the temporary directory and one named
/// for another server stay.
#[test]
fn closed_pipe_removes_only_recorded_directories_agentdap_would_make() {
    let tmp = std::env::temp_dir().join(format!("agentdap-wd-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).expect("mkdir tmp");
    let exe = std::env::current_exe().expect("test binary path");
    let args: Vec<OsString> = ["--exact", "spawn_watchdog::watchdog_entry", "--nocapture", "--test-threads=1", "-q"]
        .iter()
        .map(OsString::from)
        .collect();
    let env = [(ROLE_VAR.into(), "watchdog".into()), ("TMPDIR".into(), tmp.clone().into())];
    let mut wd = Watchdog::start_with(&exe, &args, &env).expect("start watchdog");
    let me = std::process::id();
    let name = |tag: &str| tmp.join(format!("agentdap-build-{me}-{tag}"));
    let (ours, link, forgotten, other_server) =
        (name("ours"), name("link"), name("forgotten"), tmp.join("agentdap-build-1-x"));
    let elsewhere = tmp.join("sub").join(format!("agentdap-build-{me}-deep"));
    for dir in [&ours, &forgotten, &other_server, &elsewhere] {
        std::fs::create_dir_all(dir).expect("mkdir");
        std::fs::write(dir.join("f"), "x").expect("write");
    }
    std::os::unix::fs::symlink(&forgotten, &link).expect("symlink");
    std::os::unix::fs::symlink(&forgotten, ours.join("inside")).expect("symlink inside");
    let mut victim = debuggee();
    wd.record(victim.id() as Pid).expect("record victim");
    for dir in [&ours, &link, &forgotten, &other_server, &elsewhere] {
        wd.record_dir(dir).expect("record dir");
    }
    wd.forget_dir(&forgotten).expect("forget dir");
    let wd_pid = wd.pid();
    drop(wd);
    assert!(wait_until(DEADLINE, || !running(wd_pid)), "watchdog did not exit");
    assert!(!running(victim.id() as Pid), "the recorded process is gone before the watchdog exits");
    assert!(!ours.exists(), "the recorded directory is removed");
    assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()), "a recorded symlink stays");
    for dir in [&forgotten, &other_server, &elsewhere] {
        assert!(dir.join("f").is_file(), "{} stays", dir.display());
    }
    let _ = victim.kill();
    let _ = victim.wait();
    let _ = std::fs::remove_dir_all(&tmp);
}
