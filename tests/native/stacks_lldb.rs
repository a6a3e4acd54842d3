//! `stacks` on real lldb-dap 22 through the built binary: a C program with two threads (one
//! spinning, one sleeping) read while it runs — paused, read and resumed in one call, every
//! thread's function listed — and afterwards it runs on: a later breakpoint still hits, and the
//! pause was never reported as a stop. The same on Delve 1.20.2: a Go program's two goroutines
//! deadlocked on two mutexes, each at its `Lock()` line.

use crate::agent;
use crate::native_util::gcc;

use agent::{require, scratch, Agent};
use serde_json::json;

const SOURCE: &str = r#"#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
volatile unsigned long spins;
volatile int ticks;
void *spinner(void *arg) {
    for (;;) spins++;
    return arg;
}
void *napper(void *arg) {
    for (;;) usleep(1000);
    return arg;
}
int tick(int n) {
    ticks = n;
    return n + 1;
}
int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, spinner, 0);
    pthread_create(&b, 0, napper, 0);
    printf("started\n");
    fflush(stdout);
    for (int i = 0;; i++) {
        usleep(50000);
        tick(i);
    }
}
"#;

#[test]
fn a_running_programs_threads_are_read_in_one_call_and_it_runs_on_to_a_later_breakpoint() {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("stacks_lldb");
    let (_, bin) = gcc(&dir, "threads", SOURCE);
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": bin.to_string_lossy(), "stop_on_entry": false, "wait_ms": 1500}));
    assert_eq!(r.s["state"], "running", "{}", r.text);
    // Both threads run once `main` says so (a loaded machine takes a while to get there).
    let mut out = r;
    for _ in 0..10 {
        if out.s["output"]["text"].as_str().unwrap_or_default().contains("started") {
            break;
        }
        out = a.ok("wait", json!({"for": "output", "wait_ms": 2000}));
    }
    assert!(out.s["output"]["text"].as_str().unwrap_or_default().contains("started"), "{}", out.text);
    let r = a.ok("stacks", json!({}));
    assert_eq!(r.s["how"], "paused_resumed", "{}", r.text);
    assert!(r.text.contains(" · paused to read, resumed: the program runs again"), "{}", r.text);
    assert_eq!(r.s["state"], "running", "{}", r.text);
    let threads = r.s["threads"].as_array().expect("threads");
    assert_eq!(threads.len(), 3, "{}", r.text);
    let functions: Vec<String> = threads
        .iter()
        .flat_map(|t| t["frames"].as_array().into_iter().flatten())
        .filter_map(|f| f["function"].as_str().map(str::to_owned))
        .collect();
    for f in ["main", "spinner", "napper"] {
        assert!(functions.iter().any(|g| g.starts_with(f)), "{f} missing: {}", r.text);
    }
    // Frame ids of a moment that has passed are not handed out.
    assert!(threads
        .iter()
        .flat_map(|t| t["frames"].as_array().into_iter().flatten())
        .all(|f| f.get("frame").is_none()));
    assert_eq!(a.session("s1")["state"], "running");
    // No stop was reported: a wait for one runs out while the program runs.
    let w = a.ok("wait", json!({"for": "stop", "wait_ms": 300}));
    assert_eq!(w.s["satisfied"], false, "{}", w.text);
    // It runs on: a breakpoint set now is hit by the loop.
    a.ok("set_breakpoints", json!({"kind": "function", "breakpoints": [{"name": "tick"}]}));
    let w = a.ok("wait", json!({"for": "stop", "wait_ms": 5000}));
    assert_eq!(w.s["state"], "stopped", "{}", w.text);
    assert_eq!(w.s["stop"]["reason"], "breakpoint", "{}", w.text);
    assert!(w.text.contains("tick"), "{}", w.text);
    // Stopped now: the read keeps the program stopped and its frame ids work.
    let r = a.ok("stacks", json!({}));
    assert_eq!(r.s["how"], "read_while_stopped", "{}", r.text);
    let main = r.s["threads"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["frames"][0]["function"].as_str().is_some_and(|f| f.starts_with("tick"))))
        .cloned()
        .unwrap_or_else(|| panic!("no thread in tick: {}", r.text));
    let frame = main["frames"][0]["frame"].as_i64().expect("a frame id");
    let e = a.ok("evaluate", json!({"expression": "n", "frame": frame}));
    assert!(e.text.starts_with("n = "), "{}", e.text);
    assert_eq!(a.session("s1")["state"], "stopped");
    a.ok("disconnect", json!({}));
}

const GO_SOURCE: &str = r#"package main

import (
	"fmt"
	"sync"
	"time"
)

func holder(a, b *sync.Mutex, ready *sync.WaitGroup) {
	a.Lock()
	ready.Done()
	ready.Wait()
	b.Lock()
}

func main() {
	var a, b sync.Mutex
	var ready sync.WaitGroup
	ready.Add(2)
	go holder(&a, &b, &ready)
	go holder(&b, &a, &ready)
	fmt.Println("started")
	for {
		time.Sleep(50 * time.Millisecond)
	}
}
"#;

/// Delve (Go): two goroutines deadlocked on two mutexes, read by a pause in one call and the
/// program resumed (Delve lists goroutines as threads).
#[test]
fn a_go_programs_deadlocked_goroutines_are_read_by_a_pause_and_it_runs_on() {
    require("dlv", "delve golang-go");
    let dir = scratch("stacks_delve");
    crate::native_util::go_package(&dir, "stacks", GO_SOURCE);
    let bin = crate::native_util::go_build(&dir, "stacks");
    let mut a = Agent::start_plain(|cmd| {
        crate::common::go_env(cmd);
    });
    let mut r = a.ok("launch", json!({"program": bin.to_string_lossy(), "stop_on_entry": false, "wait_ms": 3000}));
    for _ in 0..10 {
        if r.s["output"]["text"].as_str().unwrap_or_default().contains("started") {
            break;
        }
        r = a.ok("wait", json!({"for": "output", "wait_ms": 3000}));
    }
    // Both goroutines wait at their second `Lock()` soon after the print.
    let mut r = a.ok("stacks", json!({}));
    for _ in 0..10 {
        if r.text.matches("main.holder at main.go:13").count() == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        r = a.ok("stacks", json!({}));
    }
    assert_eq!(r.s["how"], "paused_resumed", "{}", r.text);
    let holders = r.s["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .filter(|t| {
            t["frames"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|f| f["function"].as_str().is_some_and(|n| n.ends_with("holder")))
        })
        .count();
    assert_eq!(holders, 2, "{}", r.text);
    assert_eq!(r.text.matches("main.holder at main.go:13").count(), 2, "{}", r.text);
    assert_eq!(a.session("s1")["state"], "running");
    let w = a.ok("wait", json!({"for": "stop", "wait_ms": 300}));
    assert_eq!(w.s["satisfied"], false, "{}", w.text);
    a.ok("disconnect", json!({}));
}
