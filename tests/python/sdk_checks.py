"""What the SDK scenarios (`sdk_debug.py`, `sdk_node.py`) share: a check that exits on failure,
and a tool call through the official MCP Python SDK that must succeed."""

import asyncio


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


async def call(session, tool, **arguments):
    result = await asyncio.wait_for(session.call_tool(tool, arguments), 60)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    check(not result.is_error, f"{tool} succeeded: {text.splitlines()[0] if text else ''}")
    return result.structured_content, text
