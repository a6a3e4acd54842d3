"""A JavaScript debugging scenario through the official MCP Python SDK (`mcp` package) on
js-debug: launch `closure.js` with a breakpoint in a closure, context, evaluate, step, continue to
the exit code, exact output.

Usage: python sdk_node.py <agentdap binary> <closure.js> <js-debug server> <marker variable> <marker>.
Exits non-zero on any failed check; prints "all SDK node checks passed" at the end.
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from sdk_checks import call, check

binary, program, js_debug, mark_var, mark = sys.argv[1:6]


async def main():
    env = {"AGENTDAP_JS_DEBUG": js_debug, mark_var: mark, "RUST_LOG": "warn",
           "XDG_CONFIG_HOME": "/nonexistent-agentdap-config"}
    server = StdioServerParameters(command=binary, args=[], env=env)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            s, text = await call(session, "launch", program=program, breakpoints=[{"path": program, "line": 7}],
                                 wait_ms=30000)
            check(s["session"] == "s1" and s["state"] == "stopped", f"one session, stopped: {text.splitlines()[0]}")
            check(s["stop"]["location"]["line"] == 7 and s["stop"]["location"]["function"] == "bump",
                  "stopped in bump() at line 7")
            s, text = await call(session, "context")
            names = [v["name"] for v in s["locals"]["variables"]]
            check({"step", "before"} <= set(names), f"locals of bump: {names}")
            check("count = 10" in text, "the closure's count is shown")
            s, text = await call(session, "evaluate", expression="before + step")
            check(s["value"] == "11", f"before + step = {s['value']}")
            s, text = await call(session, "step", kind="over")
            check(s["stop"]["location"]["line"] == 8, "stepped to line 8")
            s, text = await call(session, "evaluate", expression="count")
            check(s["value"] == "11", "count holds the sum")
            await call(session, "set_breakpoints", path=program, lines=[])
            s, text = await call(session, "continue", wait_ms=30000)
            check(s["state"] == "exited" and s.get("exit_code") == 3, f"ran to the exit: {text.splitlines()[0]}")
            s, text = await call(session, "output", category="stdout")
            printed = "".join(e["text"] for e in s["entries"])
            check(printed == "bumped 11 13\nraw stdout\nresult=14\n", f"stdout exactly: {printed!r}")
    print("all SDK node checks passed")


asyncio.run(main())
