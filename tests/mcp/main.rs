//! Integration tests of the MCP server as a client sees it, one test binary for all of them: the
//! stdio transport, real MCP SDK clients, a scripted adapter, the ledger and evidence files, the IDE
//! mirror, `console: terminal`.

#[path = "../agent/mod.rs"]
mod agent;
mod allow;
#[path = "../common/mod.rs"]
mod common;

mod evidence_files;
mod fake_adapter;
mod ledger;
mod mirror;
mod mirror_control;
mod mirror_policy;
mod netcoredbg;
mod sdk_clients;
mod stdio;
mod terminal;
