//! agentdap as a library: every sans-IO core (framing, JSON-RPC, MCP, DAP, sessions) plus the one
//! IO shell (`server`), and the first-run CLI subcommands (`cli`, never reached from the server). The binary in `src/main.rs` is a thin wrapper; integration tests and
//! benchmarks use these modules directly. See `ARCHITECTURE.md` for the code map and invariants.

pub mod allow;
pub mod cli;
pub mod config;
pub mod dap;
pub mod io_buf;
pub mod json;
pub mod jsonrpc;
#[cfg(test)]
mod layering;
pub mod ledger;
pub mod mcp;
pub mod mirror;
pub mod os;
pub mod reply;
pub mod server;
pub mod session;
pub mod timer;
pub mod token;
pub mod visible;
