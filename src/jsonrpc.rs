//! JSON-RPC 2.0 message types (newline-delimited, MCP transport); ids echoed exactly.
