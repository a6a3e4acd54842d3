//! MCP over stdio, sans-IO: both protocol eras, dispatch, the tools registry, resources.

use std::time::Instant;

/// What the MCP layer needs from its caller for one input.
pub struct Context<'a> {
    /// Outgoing messages: each is compact JSON followed by exactly one `\n`.
    pub out: &'a mut Vec<u8>,
    pub now: Instant,
}

/// The MCP server state machine (placeholder until the MCP layer lands).
#[derive(Default)]
pub struct Mcp {}

impl Mcp {
    pub fn new() -> Mcp {
        Mcp {}
    }

    /// Handles one complete input line: no `\n`, trailing `\r` and a leading BOM already stripped,
    /// never blank.
    pub fn handle_line(&mut self, _line: &[u8], _cx: &mut Context<'_>) {}

    /// The line reader dropped a line of `len` bytes over the 16 MiB cap.
    pub fn line_too_long(&mut self, _len: usize, _cx: &mut Context<'_>) {}
}
