//! The round-trip benchmark's table: one [`Block`] of samples per adapter (and fast-path
//! setting), printed as one row per operation of [`OPS`], then the exit rows of [`EXIT_ROWS`]
//! for the blocks that time the exit, then agentdap's peak RSS.

use super::{Samples, OPS};

/// The samples of one adapter (and fast-path setting): the raw DAP client's and agentdap's,
/// each an error instead when that side failed.
pub struct Block {
    pub adapter: &'static str,
    pub fastpath: &'static str,
    pub raw: Result<Samples, String>,
    pub mcp: Result<Samples, String>,
    pub tools: Vec<String>,
    /// The runs to the exit (raw, agentdap), for the blocks that time it.
    pub exits: Option<(Result<Samples, String>, Result<Samples, String>)>,
}

/// A row of a run to the exit: its name, the samples it summarises, and whether it shows their
/// 90th percentile rather than their median.
struct ExitRow {
    name: &'static str,
    sample: &'static str,
    p90: bool,
    note: &'static str,
}

/// debugpy's exit time is bimodal (usually one figure, sometimes ~400 ms more), so the p90
/// stands beside the median. agentdap answers once the exit code is known, so it has no
/// `terminated` row.
const EXIT_ROWS: &[ExitRow] = &[
    ExitRow { name: "continue→exited", sample: "continue→exited", p90: false, note: "" },
    ExitRow { name: "continue→exited p90", sample: "continue→exited", p90: true, note: "" },
    ExitRow {
        name: "continue→terminated", sample: "continue→terminated", p90: false, note: "raw: `terminated` event"
    },
];

fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"))
}

/// The note for a row: each side's error, else `extra`.
fn note_of(raw: &Result<Samples, String>, mcp: &Result<Samples, String>, extra: String) -> String {
    let mut note = String::new();
    if let Err(e) = raw {
        note = format!("raw: {e}");
    }
    if let Err(e) = mcp {
        note = format!("{note} agentdap: {e}");
    } else {
        note = format!("{note} {extra}");
    }
    note.trim().to_string()
}

fn print_row(b: &Block, op: &str, raw: Option<(f64, usize)>, mcp: Option<(f64, usize)>, note: &str) {
    let overhead = match (raw, mcp) {
        (Some((r, _)), Some((m, _))) => Some(m - r),
        _ => None,
    };
    let n = mcp.or(raw).map_or(0, |(_, n)| n);
    println!(
        "{:<9} {:<8} {:<20} {:<4} {:>10} {:>10} {:>11} {:>4}  {}",
        b.adapter,
        b.fastpath,
        op,
        "ms",
        fmt(raw.map(|r| r.0)),
        fmt(mcp.map(|m| m.0)),
        fmt(overhead),
        n,
        note
    );
}

pub fn print_table(blocks: &[Block], rss: &[(String, f64)]) {
    println!(
        "{:<9} {:<8} {:<20} {:<4} {:>10} {:>10} {:>11} {:>4}  note",
        "adapter", "fastpath", "operation", "unit", "raw_dap", "agentdap", "overhead", "n"
    );
    for b in blocks {
        for op in OPS {
            let raw = b.raw.as_ref().ok().and_then(|s| s.median(op.name)).filter(|_| op.raw);
            let mcp = b.mcp.as_ref().ok().and_then(|s| s.median(op.name));
            let missing = op.tool.filter(|t| *t != "launch" && b.mcp.is_ok() && !b.tools.iter().any(|x| x == t));
            // The p90s beside the medians (ABAB-interleaved round trips: `block` in `roundtrip.rs`).
            let p90 = |s: &Result<Samples, String>| s.as_ref().ok().and_then(|s| s.p90(op.name)).map(|p| p.0);
            let p90s = match (p90(&b.raw).filter(|_| op.raw), p90(&b.mcp)) {
                (Some(r), Some(m)) => format!("p90 {r:.2}/{m:.2} (+{:.2})", m - r),
                (None, Some(m)) => format!("p90 {m:.2}"),
                _ => String::new(),
            };
            let extra = missing.map_or_else(|| p90s, |t| format!("no `{t}` tool yet"));
            print_row(b, op.name, raw, mcp, &note_of(&b.raw, &b.mcp, extra));
        }
        let Some((raw_exits, mcp_exits)) = &b.exits else { continue };
        for row in EXIT_ROWS {
            let stat = |s: &Samples| if row.p90 { s.p90(row.sample) } else { s.median(row.sample) };
            let raw = raw_exits.as_ref().ok().and_then(stat);
            let mcp = mcp_exits.as_ref().ok().and_then(stat);
            print_row(b, row.name, raw, mcp, &note_of(raw_exits, mcp_exits, row.note.to_string()));
        }
    }
    for (what, kib) in rss {
        println!(
            "{:<9} {:<8} {:<20} {:<4} {:>10} {:>10} {:>11} {:>4}  VmHWM of agentdap alone (adapters excluded)",
            "debugpy",
            "on",
            what,
            "KiB",
            "—",
            format!("{kib:.0}"),
            "—",
            1,
        );
    }
}
