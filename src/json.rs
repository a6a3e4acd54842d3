//! JSON text and `serde_json::Value`, both ways, byte for byte as `serde_json` reads and writes
//! them but cheaper per byte under the release profile's `opt-level = "z"`: every DAP message
//! and MCP line is read once and every answer written once, so these two loops are most of what
//! agentdap's own CPU time per round trip is made of.
//!
//! Owns: [`read::value`] (the common case of a parse, `None` for the rest: the caller asks
//! `serde_json`) and [`write::write`] (compact text). Must not: decide what is valid JSON
//! (`serde_json` does), or know anything of DAP or MCP.

#[cfg(test)]
mod arbitrary;
pub mod read;
pub mod write;

/// `text` parsed: [`read::value`] when it knows, else `serde_json::from_slice` (its error too).
pub fn parse(text: &[u8]) -> Result<serde_json::Value, serde_json::Error> {
    match read::value(text) {
        Some(v) => Ok(v),
        None => serde_json::from_slice(text),
    }
}
