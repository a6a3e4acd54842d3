"""Replays a short agent session against dapmux over stdio (plain JSON-RPC, standard library
only) and prints each tool result as the agent would read it."""
import json
import os
import subprocess
import sys
import time

binary, program = sys.argv[1], os.path.abspath(sys.argv[2])
proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
next_id = 0


def request(method, params):
    global next_id
    next_id += 1
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}) + "\n").encode())
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            sys.exit("dapmux closed its stdout")
        msg = json.loads(line)
        if msg.get("id") == next_id:
            return msg


def tool(name, arguments):
    started = time.monotonic()
    msg = request("tools/call", {"name": name, "arguments": arguments})
    ms = (time.monotonic() - started) * 1000
    print(f"\n→ {name} {json.dumps(arguments)}   ({ms:.0f} ms)")
    result = msg.get("result") or {}
    print("  " + "\n  ".join(result.get("content", [{}])[0].get("text", json.dumps(msg)).splitlines()))
    return result


init = request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "try", "version": "1"}})
print(f"connected to {init['result']['serverInfo']['name']} {init['result']['serverInfo']['version']}")
tool("launch", {"program": program, "breakpoints": [{"path": program, "line": 7}]})
tool("continue", {})
tool("set_breakpoints", {"path": program, "lines": []})
tool("set_exception_breakpoints", {"filters": []})
tool("continue", {})
tool("output", {})
tool("disconnect", {})
proc.stdin.close()
sys.exit(proc.wait())
