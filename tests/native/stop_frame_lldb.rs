//! What a stop result shows of its frame on real lldb-dap (issue 19): a C frame's locals at a
//! stop in a new frame, exactly the one local a step changed, and a struct read through its
//! members so a change inside it is seen.

use crate::agent::{require, scratch, var_names, var_value, Agent};
use crate::native_util::{dap_traffic, gcc};
use serde_json::{json, Value};

const PROG_C: &str = "#include <stdio.h>\n\
struct point { int x; int y; };\n\
int scale(int v, int factor) {\n\
    int out = v * factor;\n\
    return out;\n\
}\n\
int main(void) {\n\
    int count = 1;\n\
    struct point p = { 3, 4 };\n\
    count = count + 1;\n\
    p.y = 40;\n\
    int r = scale(count, 3);\n\
    printf(\"%d %d %d\\n\", count, p.y, r);\n\
    return 0;\n\
}\n";

fn names(r: &crate::agent::Res) -> Vec<String> {
    var_names(&r.s["locals"]["variables"])
}

fn value_of(r: &crate::agent::Res, name: &str) -> Value {
    var_value(&r.s["locals"]["variables"], name).into()
}

/// `source` built as `<name>` in a scratch directory: (the C file, the binary).
fn built(name: &str, source: &str) -> (String, String) {
    require("lldb-dap-22", "lldb-22");
    let (c, bin) = gcc(&scratch(&format!("stop-frame-{name}")), name, source);
    (c.to_string_lossy().into_owned(), bin.to_string_lossy().into_owned())
}

#[test]
fn a_c_step_reports_the_one_local_it_changed_and_a_call_shows_the_new_frames_locals() {
    let (c, bin) = built("prog", PROG_C);
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": bin, "breakpoints": [{"path": c, "line": 10}], "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(10), "{}", r.text);
    assert!(r.text.contains("\n→   10  count = count + 1;"), "{}", r.text);
    assert_eq!(names(&r), ["count", "p", "r"], "{}", r.s);
    assert_eq!(value_of(&r, "count"), json!("1"), "{}", r.s);
    // lldb-dap shows a struct's value as its type; the stop reads its members for a preview.
    assert_eq!(value_of(&r, "p"), json!("{x = 3, y = 4}"), "{}", r.s);

    let r = a.ok("step", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(11), "{}", r.text);
    let c = &r.s["changes"];
    assert_eq!(c["changed"], json!([{"name": "count", "before": "1", "now": "2"}]), "{}", r.s);
    assert_eq!((c["new"].clone(), c["gone"].clone(), c["maybe_changed"].clone()), (json!([]), json!([]), json!([])));
    assert!(r.text.contains(": count: 1 → 2"), "{}", r.text);

    // A member written: the struct's preview changed, and says so.
    let r = a.ok("step", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(12), "{}", r.text);
    let changed = &r.s["changes"]["changed"];
    assert_eq!(changed, &json!([{"name": "p", "before": "{x = 3, y = 4}", "now": "{x = 3, y = 40}"}]), "{}", r.s);

    let r = a.ok("step", json!({"kind": "in", "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("scale"), "{}", r.text);
    assert_eq!(names(&r), ["v", "factor", "out"], "{}", r.s);
    assert_eq!((value_of(&r, "v"), value_of(&r, "factor")), (json!("2"), json!("3")), "{}", r.s);
    a.ok("disconnect", json!({}));
}

const REC_C: &str = "#include <stdio.h>\n\
int fact(int n) {\n\
    int r = 1;\n\
    if (n > 1)\n\
        r = n * fact(n - 1);\n\
    return r;\n\
}\n\
int main(void) {\n\
    printf(\"%d\\n\", fact(4));\n\
    return 0;\n\
}\n";

/// lldb-dap 22 answers `totalFrames` as a guess (21 at every depth): the depth comes from a page
/// that ends, so each call of a recursion is a new frame, never "n: 4 → 3".
#[test]
fn recursion_is_a_new_frame_at_every_depth() {
    each_stop_a_new_call("rec", REC_C, 3, &["4", "3", "2"]);
}

/// Launches `source` with a breakpoint at `line`, continues from stop to stop, and checks that
/// each stop is a new call (no "changes") whose `n` is the next of `ns`.
fn each_stop_a_new_call(name: &str, source: &str, line: u32, ns: &[&str]) {
    let (c, bin) = built(name, source);
    let mut a = Agent::start_plain(|_| {});
    let r = a.ok("launch", json!({"program": bin, "breakpoints": [{"path": c, "line": line}], "wait_ms": 30000}));
    assert_eq!(value_of(&r, "n"), json!(ns[0]), "{}", r.s);
    for n in &ns[1..] {
        let r = a.ok("continue", json!({"wait_ms": 30000}));
        assert!(r.s.get("changes").is_none(), "another call is another frame: {}", r.text);
        assert_eq!(value_of(&r, "n"), json!(n), "{}", r.s);
    }
    a.ok("disconnect", json!({}));
}

const FIB_C: &str = "#include <stdio.h>\n\
int fib(int n) {\n\
    int a = 0, b = 0;\n\
    if (n < 2)\n\
        return n;\n\
    a = fib(n - 1);\n\
    b = fib(n - 2);\n\
    return a + b;\n\
}\n\
int main(void) {\n\
    printf(\"%d\\n\", fib(3));\n\
    return 0;\n\
}\n";

/// Sibling calls (`fib(n - 1)`, then `fib(n - 2)` from the same frame) run at one depth with
/// their locals at the same addresses; their call lines differ, so the second is a new frame,
/// never "n: 1 → 0" (a fresh user's finding).
#[test]
fn a_recursions_sibling_call_is_a_new_frame_not_a_change() {
    // fib(3) → fib(2) → fib(1) (line 6 of fib(2)), fib(0) (line 7 of fib(2)), fib(1) (line 7 of fib(3)).
    each_stop_a_new_call("fib", FIB_C, 4, &["3", "2", "1", "0", "1"]);
}

/// The `(startFrame, levels)` of every `stackTrace` in the `--dap-log` files under `dir`.
fn stack_pages(dir: &std::path::Path) -> Vec<(u64, u64)> {
    let page = |v: &Value| {
        let m = &v["message"];
        let a = &m["arguments"];
        let sent = v["dir"] == "to_adapter" && m["command"] == "stackTrace";
        sent.then(|| (a["startFrame"].as_u64().unwrap_or(0), a["levels"].as_u64().unwrap_or(0)))
    };
    crate::native_util::dap_log(dir).iter().filter_map(page).collect()
}

/// lldb-dap's `totalFrames` is a guess, so a stop's depth comes from a page holding the whole
/// stack (~0.3 ms of lldb-dap's after a stop) — except after a `next` or `stepOut` from a stop
/// whose function is alone on its stack: a step that ends in that function and caller is that
/// call, so the top two frames do. A step in reads a page; the step back out reads the rest of
/// the stack below the top two, and `main` compares with its own last stop.
#[test]
fn steps_in_one_call_read_two_frames_and_a_step_out_compares_with_the_callers_last_stop() {
    let (c, bin) = built("told", PROG_C);
    let logs = scratch("told-dap-log");
    let mut a = Agent::start_plain(|cmd| {
        cmd.env("AGENTDAP_DAP_LOG", &logs);
    });
    let r = a.ok("launch", json!({"program": bin, "breakpoints": [{"path": c, "line": 10}], "wait_ms": 30000}));
    assert_eq!(value_of(&r, "count"), json!("1"), "{}", r.s);
    let r = a.ok("step", json!({"wait_ms": 30000}));
    assert_eq!(r.s["changes"]["changed"], json!([{"name": "count", "before": "1", "now": "2"}]), "{}", r.s);
    let r = a.ok("step", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["line"], json!(12), "{}", r.text);
    let before_call = r.s["revision"].clone();
    let r = a.ok("step", json!({"kind": "in", "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("scale"), "{}", r.text);
    assert!(r.s.get("changes").is_none(), "a new call: {}", r.text);
    let r = a.ok("step", json!({"kind": "out", "wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("main"), "{}", r.text);
    assert_eq!(r.s["changes"]["since_revision"], before_call, "main compared with its own last stop: {}", r.s);
    a.ok("disconnect", json!({}));
    drop(a);
    assert_eq!(stack_pages(&logs), [(0, 20), (0, 2), (0, 2), (0, 20), (0, 2), (2, 18)]);
}

const LOOP_C: &str = "#include <stdio.h>\n\
static long work(long i, long acc) {\n\
    long total = acc + i * i;\n\
    return total;\n\
}\n\
int main(void) {\n\
    long acc = 0;\n\
    for (long i = 0; i < 5; i++)\n\
        acc = work(i, acc);\n\
    printf(\"%ld\\n\", acc);\n\
    return 0;\n\
}\n";

/// lldb-dap handles requests one at a time in order, with the same top frame id and Locals
/// reference at every stop (`RuntimeQuirks::pipelined_stop_reads`): a stop after the first
/// sends its `scopes` and `variables` with its `stackTrace`, before that answers, and what the
/// stop shows is the program's own values, compared with the previous stop's.
#[test]
fn a_stop_reads_its_locals_ahead_of_its_stack_and_shows_the_programs_values() {
    let (c, bin) = built("ahead", LOOP_C);
    let logs = scratch("ahead-dap-log");
    let mut a = Agent::start_plain(|cmd| {
        cmd.env("AGENTDAP_DAP_LOG", &logs);
    });
    let r = a.ok("launch", json!({"program": bin, "breakpoints": [{"path": c, "line": 3}], "wait_ms": 30000}));
    assert_eq!((value_of(&r, "i"), value_of(&r, "acc")), (json!("0"), json!("0")), "{}", r.s);
    // i = 1, acc = 0, then i = 2, acc = 1: a loop's calls at one depth compare (README); the
    // not yet set `total` holds what the last call left, so it is not asserted.
    let of_args = |r: &crate::agent::Res| -> Vec<Value> {
        let changed = r.s["changes"]["changed"].as_array().cloned().unwrap_or_default();
        changed.into_iter().filter(|c| c["name"] != "total").collect()
    };
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(of_args(&r), [json!({"name": "i", "before": "0", "now": "1"})], "{}", r.s);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    let changed = [json!({"name": "i", "before": "1", "now": "2"}), json!({"name": "acc", "before": "0", "now": "1"})];
    assert_eq!(of_args(&r), changed, "{}", r.s);
    // What the program holds, read on its own after the stop.
    let v = a.ok("evaluate", json!({"expression": "i * 10 + acc"}));
    assert!(v.text.contains("21"), "{}", v.text);
    a.ok("disconnect", json!({}));
    drop(a);
    crate::native_util::assert_reads_ahead(&dap_traffic(&logs), 2);
}

/// `F` ends in an indirect tail call (`return fp(t)`, gcc -O2: `jmp *fp`), so a `next` over
/// that line lands in a new call of `G` that takes `F`'s place on the stack, with `F`'s caller
/// `R` (line 8) as its caller. The stack `G R G R main` then has an older `G` called from the
/// same line of `R`, two frames down: telling the depth as a return into that `G` is wrong (no
/// frame returned; lldb-dap shows no artificial frame for an indirect tail call).
const TAIL_C: &str = "#include <stdio.h>\n\
volatile int sink;\n\
__attribute__((noinline)) int G(int n);\n\
int (*volatile fp)(int) = G;\n\
__attribute__((noinline)) int F(int n);\n\
__attribute__((noinline)) int R(int n) {\n\
    sink = n;\n\
    return (n > 5 ? F(n) : G(n + 5)) + 1;\n\
}\n\
__attribute__((noinline)) int F(int n) {\n\
    int t = n * 3;\n\
    sink = t;\n\
    return fp(t);\n\
}\n\
__attribute__((noinline)) int G(int n) {\n\
    int g = n + 1;\n\
    sink = g;\n\
    if (n > 10) return g;\n\
    return R(n) + 1;\n\
}\n\
int main(void) {\n\
    printf(\"%d\\n\", R(1));\n\
    return 0;\n\
}\n";

/// A `next` over a tail call ends in a new call of another function, not in a caller: when an
/// older call of that function with the same caller line is on the stack, the stop is still a
/// new frame (as the 20-frame page says: `n = 18`), never `since rev 1: n: 6 → 18`.
#[test]
fn a_next_over_a_tail_call_is_a_new_frame_not_a_return_to_an_older_call() {
    require("lldb-dap-22", "lldb-22");
    let dir = scratch("stop-frame-tail");
    let c = dir.join("tail.c");
    std::fs::write(&c, TAIL_C).expect("write C");
    let bin = dir.join("tail");
    let built = std::process::Command::new("gcc").args(["-g", "-O2", "-o"]).arg(&bin).arg(&c).status();
    assert!(built.is_ok_and(|s| s.success()), "gcc -O2");
    let (c, bin) = (c.to_string_lossy().into_owned(), bin.to_string_lossy().into_owned());
    let mut a = Agent::start_plain(|_| {});
    // G(6) (called from R(1) at line 8), then F(6) (from R(6) at line 8), then G(18) by F's tail call.
    let bps = [json!({"path": c, "line": 16, "condition": "n == 6"}), json!({"path": c, "line": 11})];
    let r = a.ok("launch", json!({"program": bin, "breakpoints": bps, "wait_ms": 30000}));
    assert_eq!((r.s["stop"]["location"]["function"].clone(), value_of(&r, "n")), (json!("G"), json!("6")), "{}", r.s);
    let r = a.ok("continue", json!({"wait_ms": 30000}));
    assert_eq!(r.s["stop"]["location"]["function"], json!("F"), "{}", r.text);
    let mut r = a.ok("step", json!({"wait_ms": 30000}));
    while r.s["stop"]["location"]["function"] == json!("F") {
        r = a.ok("step", json!({"wait_ms": 30000}));
    }
    assert_eq!(r.s["stop"]["location"]["function"], json!("G"), "{}", r.text);
    assert!(r.s.get("changes").is_none(), "G(18) is a new call, not G(6) again: {}", r.text);
    assert_eq!(value_of(&r, "n"), json!("18"), "{}", r.s);
    a.ok("disconnect", json!({}));
}
