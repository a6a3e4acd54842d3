//! Read and write buffers with caps: the MCP line reader and the stdout buffer.
