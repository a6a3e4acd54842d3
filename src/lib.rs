//! dapmux as a library: every sans-IO core (framing, JSON-RPC, MCP, DAP) plus the one IO shell.
//!
//! The binary (`src/main.rs`) is a thin wrapper; integration tests and benchmarks use these
//! modules directly. See `ARCHITECTURE.md` for the code map and invariants.

pub mod dap;
