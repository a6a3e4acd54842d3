//! Idle reaping and the session cap, sans-IO: fake time, adapter events as DAP bytes.

use std::time::{Duration, Instant};

use serde_json::json;

use super::super::{Action, LaunchArgs, Sessions, MAX_SESSIONS};
use crate::dap::framing::Encoder;
use crate::ledger::Kind;
use crate::reply::{CallKey, ToolResult};

fn launch(s: &mut Sessions, n: u64, now: Instant) -> Vec<Action> {
    let (started, actions) = try_launch(s, n, now);
    started.expect("started");
    actions
}

/// A launch, what it answered at once, and the actions it queued.
fn try_launch(s: &mut Sessions, n: u64, now: Instant) -> (Result<(), ToolResult>, Vec<Action>) {
    let plan = crate::session::tests::lldb_plan();
    let args = LaunchArgs { program: "/p".into(), ..LaunchArgs::default() };
    let started = s.launch(args, plan, CallKey::new(n), now);
    let mut actions: Vec<Action> = std::iter::from_fn(|| s.next_action(now)).collect();
    let spawned: Vec<usize> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Spawn { session, .. } => Some(*session),
            _ => None,
        })
        .collect();
    for key in spawned {
        s.on_spawned(key, now);
        actions.extend(std::iter::from_fn(|| s.next_action(now)));
    }
    (started, actions)
}

fn event(s: &mut Sessions, key: usize, seq: i64, name: &str, body: serde_json::Value, now: Instant) -> Vec<Action> {
    let bytes =
        Encoder::new().encode(&json!({"seq": seq, "type": "event", "event": name, "body": body})).unwrap_or_default();
    s.on_adapter_bytes(key, &bytes, now);
    std::iter::from_fn(|| s.next_action(now)).collect()
}

fn end(s: &mut Sessions, key: usize, now: Instant) -> Vec<Action> {
    let mut actions = event(s, key, 1, "exited", json!({"exitCode": 0}), now);
    actions.extend(event(s, key, 2, "terminated", json!({}), now));
    actions
}

fn stop_adapter_or_release(actions: &[Action]) -> Vec<usize> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::StopAdapter { session } | Action::Release { session } => Some(*session),
            _ => None,
        })
        .collect()
}

#[test]
fn an_ended_session_is_reaped_after_its_idle_time_and_a_stopped_one_never() {
    let t0 = Instant::now();
    let mut s = Sessions::default();
    s.set_idle_reap(Some(Duration::from_secs(1)));
    launch(&mut s, 1, t0);
    launch(&mut s, 2, t0);
    let ended = end(&mut s, 0, t0);
    let end_records: Vec<_> = ended
        .iter()
        .filter_map(|a| match a {
            Action::Ledger(r) if r.kind == Kind::SessionEnd => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(end_records.len(), 1, "{ended:?}");
    assert_eq!((end_records[0].session.as_str(), &end_records[0].facts["how"]), ("s1", &json!("exited")));
    event(&mut s, 1, 1, "stopped", json!({"reason": "breakpoint", "threadId": 1}), t0);
    assert_eq!(s.next_reap(), Some(t0 + Duration::from_secs(1)), "only the ended session has a reap deadline");
    assert!(s.next_deadline().is_some_and(|d| d <= t0 + Duration::from_secs(1)));

    let later = t0 + Duration::from_millis(1500);
    s.on_timer(later);
    let actions: Vec<Action> = std::iter::from_fn(|| s.next_action(later)).collect();
    assert_eq!(stop_adapter_or_release(&actions), [0], "its adapter still runs: stopped first; {actions:?}");
    assert_eq!(s.next_reap(), None, "on its way out, no second deadline");
    s.on_adapter_closed(0, later);
    let actions: Vec<Action> = std::iter::from_fn(|| s.next_action(later)).collect();
    assert!(actions.iter().any(|a| matches!(a, Action::Release { session: 0 })), "{actions:?}");
    s.remove(0);
    assert_eq!(s.get(1).map(|x| x.run.state.as_str()), Some("stopped"));

    // Reaping off: an ended session stays.
    s.set_idle_reap(None);
    end(&mut s, 1, later);
    assert_eq!(s.next_reap(), None);
}

#[test]
fn a_full_table_releases_the_ended_session_that_ended_first_and_refuses_when_all_are_live() {
    let t0 = Instant::now();
    let mut s = Sessions::default();
    for n in 0..MAX_SESSIONS as u64 {
        launch(&mut s, n, t0);
    }
    end(&mut s, 5, t0);
    end(&mut s, 3, t0 + Duration::from_secs(1));
    let t2 = t0 + Duration::from_secs(2);

    let actions = launch(&mut s, 100, t2);
    assert_eq!(stop_adapter_or_release(&actions), [5], "the one that ended first makes room; {actions:?}");
    assert!(!actions.iter().any(|a| matches!(a, Action::Complete { .. })), "{actions:?}");
    let actions = launch(&mut s, 101, t2);
    assert_eq!(stop_adapter_or_release(&actions), [3], "{actions:?}");

    let (started, actions) = try_launch(&mut s, 102, t2);
    // Refused at once: the call is answered without going through the action queue.
    assert!(!actions.iter().any(|a| matches!(a, Action::Complete { .. })), "{actions:?}");
    let refusal = started.expect_err("the 33rd live session is refused");
    assert!(
        refusal.is_error && refusal.text.starts_with("invalid_argument: 32 sessions exist (32 live)"),
        "{}",
        refusal.text
    );
    assert!(refusal.text.contains("`disconnect` one"), "{}", refusal.text);
    assert!(!actions.iter().any(|a| matches!(a, Action::Spawn { .. })), "{actions:?}");
}
