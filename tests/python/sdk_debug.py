"""A whole debugging scenario through the official MCP Python SDK (`mcp` package): an agent
finds the bug in `inspect_me.py` with launch → context → evaluate → step → continue → output.

Usage: python sdk_debug.py <agentdap binary> <fixture dir> <python with debugpy>.
Exits non-zero on any failed check; prints "all SDK debugging checks passed" at the end.
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from sdk_checks import call, check

binary, fixtures, python = sys.argv[1], sys.argv[2], sys.argv[3]
program = f"{fixtures}/py/inspect_me.py"


async def main():
    server = StdioServerParameters(command=binary, args=[], env={"AGENTDAP_PYTHON": python, "RUST_LOG": "warn"})
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            check({"launch", "context", "evaluate", "step", "continue", "output"} <= tools, "the debugging tools are listed")

            s, text = await call(session, "launch", program=program, breakpoints=[{"path": program, "line": 6}])
            check(s["state"] == "stopped" and s["stop"]["location"]["line"] == 6, "stopped in add() at line 6")
            s, text = await call(session, "context")
            names = [v["name"] for v in s["locals"]["variables"]]
            check(names[:2] == ["a", "b"], f"locals of add: {names}")
            check("→" in text, "the current line is marked in the source excerpt")
            s, text = await call(session, "evaluate", expression="a + b")
            check(s["value"] == "0", f"a + b = {s['value']}")
            s, text = await call(session, "step", kind="over")
            check(s["stop"]["location"]["line"] == 7, "stepped to line 7")
            s, text = await call(session, "evaluate", expression="c")
            check(s["value"] == "0", "c holds the sum")
            await call(session, "set_breakpoints", path=program, lines=[])
            s, text = await call(session, "continue")
            check(s["state"] == "exited" and s.get("exit_code") == 0, f"ran to the exit: {text.splitlines()[0]}")
            s, text = await call(session, "output")
            check(any(e["text"] == "result 3\n" for e in s["entries"]), "the program printed result 3")
            await call(session, "disconnect")
    print("all SDK debugging checks passed")


asyncio.run(main())
