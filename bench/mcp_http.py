#!/usr/bin/python3
"""MCP over streamable HTTP: calls a second for one client reading the Chromium page.

Starts `desktop-cli mcp --http 127.0.0.1:PORT --no-token` in the sandbox in use, opens one
session over one kept-alive connection (the Python standard library only, so the client
costs little), brings the page's window to the front, warms it with a few reads, then calls `read` on the Chromium fixture page
back to back for SECONDS and counts the answers.

usage: mcp_http.py BIN [SECONDS]      prints JSON
"""
import http.client
import json
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Session:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.sid = None
        self.n = 0

    def post(self, body):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-06-18"}
        if self.sid:
            headers["Mcp-Session-Id"] = self.sid
        self.conn.request("POST", "/mcp", json.dumps(body), headers)
        r = self.conn.getresponse()
        raw = r.read().decode()
        self.sid = r.getheader("Mcp-Session-Id") or self.sid
        if r.status >= 400:
            sys.exit(f"HTTP {r.status}: {raw[:500]}")
        if not raw.strip():
            return None
        if r.getheader("Content-Type", "").startswith("text/event-stream"):
            datas = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
            raw = next((d for d in reversed(datas) if d), "null")
        return json.loads(raw)

    def call(self, method, params):
        self.n += 1
        return self.post({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})

    def notify(self, method):
        self.post({"jsonrpc": "2.0", "method": method})


def main():
    bin_ = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10
    port = free_port()
    server = subprocess.Popen([bin_, "mcp", "--http", f"127.0.0.1:{port}", "--no-token"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    sys.exit("the server did not start")
                time.sleep(0.05)
        s = Session(port)
        s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1"}})
        s.notify("notifications/initialized")
        # In front, as the window an agent works in is: a covered window is never answered
        # again (drawing under another window is not seen).
        s.call("tools/call", {"name": "focus", "arguments": {"app": "chromium"}})
        args = {"name": "read", "arguments": {"app": "chromium"}}
        for _ in range(5):
            r = s.call("tools/call", args)
            if r is None or r.get("result", {}).get("isError"):
                sys.exit(f"read failed: {r}")
        count, t = 0, time.perf_counter()
        while time.perf_counter() - t < seconds:
            r = s.call("tools/call", args)
            if r is None or "result" not in r or r["result"].get("isError"):
                sys.exit(f"read failed: {r}")
            count += 1
        elapsed = time.perf_counter() - t
        print(json.dumps({"calls": count, "seconds": elapsed, "calls_per_s": count / elapsed,
                          "ms_per_call": elapsed * 1000 / count}))
    finally:
        server.terminate()
        server.wait(timeout=5)


if __name__ == "__main__":
    main()
