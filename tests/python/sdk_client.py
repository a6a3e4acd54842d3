"""Drives agentdap with the official MCP Python SDK (the `mcp` package): ClientSession over stdio
(initialize, tools/list, tools/call `sessions`), then the high-level Client in mode="auto", which
probes `server/discover` first and uses the modern protocol when the server offers it.

Usage: python sdk_client.py <path to the agentdap binary>. Exits non-zero on any failed check.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client import Client
from mcp.client.stdio import stdio_client

HANDSHAKE_VERSIONS = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
TIMEOUT_S = 30


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def params(binary):
    return StdioServerParameters(command=binary, args=[], env={"RUST_LOG": "warn"})


def sessions_payload(result):
    """The `sessions` tool result as (is_error, structured content, text)."""
    text = " ".join(getattr(c, "text", "") for c in result.content)
    return result.is_error, result.structured_content, text


async def legacy_session(binary):
    async with stdio_client(params(binary)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.protocol_version in HANDSHAKE_VERSIONS, f"initialize negotiated {init.protocol_version}")
            check(init.server_info.name == "agentdap", "serverInfo.name is agentdap")
            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            check("sessions" in names, f"tools/list has sessions ({len(names)} tools)")
            is_error, structured, text = sessions_payload(await session.call_tool("sessions", {}))
            check(not is_error, f"tools/call sessions succeeded: {text!r}")
            check(isinstance(structured, dict), f"sessions has structuredContent {json.dumps(structured)}")


async def auto_client(binary):
    async with Client(params(binary), mode="auto") as client:
        check(client.session.discover_result is not None, "mode=auto connected through server/discover")
        check(client.protocol_version == "2026-07-28", f"mode=auto negotiated {client.protocol_version}")
        tools = await client.list_tools()
        check(any(t.name == "sessions" for t in tools.tools), "modern tools/list has sessions")
        is_error, structured, text = sessions_payload(await client.call_tool("sessions", {}))
        check(not is_error, f"modern tools/call sessions succeeded: {text!r}")


async def main(binary):
    await asyncio.wait_for(legacy_session(binary), TIMEOUT_S)
    await asyncio.wait_for(auto_client(binary), TIMEOUT_S)
    print("all MCP SDK checks passed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
