"""A minimal MCP client for the benchmarks: one `desktop-cli mcp` server of its own over
stdio, spoken to with blocking pipes and plain JSON-RPC lines, so a call's time is the
server's and not an SDK's."""
import json
import subprocess
import sys
import time


class Lean:
    """A server of its own, spoken to with blocking pipes and nothing else."""

    def __init__(self, bin_):
        self.p = subprocess.Popen([bin_, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "lean", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def call(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.n:
                return m

    def ms(self, tool, args):
        t = time.perf_counter()
        r = self.call("tools/call", {"name": tool, "arguments": args})
        if "error" in r or r["result"].get("isError"):
            sys.exit(f"{tool}: {r}")
        return (time.perf_counter() - t) * 1000

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)
