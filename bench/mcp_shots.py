"""Screenshots where they are taken again and again: one MCP server's `screenshot` calls
(warm: its connection and capture memory kept), the command line answered by the desktop's
keeper, and the command line taking it by itself (DESKTOP_CLI_DIRECT=1), interleaved, on a
1280x800 and a 3840x2160 sandbox showing a Chromium page across the screen. Median of RUNS, ms.

    .tools/venv/bin/python bench/mcp_shots.py [BIN]      # RUNS=10 by default
"""
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/desktop-cli")
RUNS = int(os.environ.get("RUNS", "10"))


def cli_ms(args, env):
    t = time.perf_counter()
    r = subprocess.run([BIN, *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"{args}: {r.stdout} {r.stderr}")
    return (time.perf_counter() - t) * 1000


async def bench(size):
    up = subprocess.run([BIN, "sandbox", "up", "--size", size], capture_output=True, text=True, check=True)
    data = json.loads(up.stdout)["data"]
    env = dict(os.environ, **data["env"])
    direct = dict(env, DESKTOP_CLI_DIRECT="1")
    w, h = size.split("x")
    profile = tempfile.mkdtemp(prefix="mcp-shots-chromium-")
    out = tempfile.mkdtemp(prefix="mcp-shots-")
    chromium = subprocess.Popen(
        ["chromium", "--no-sandbox", "--force-renderer-accessibility", "--test-type", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={profile}", "--window-position=0,0", f"--window-size={w},{h}",
         f"file://{ROOT}/tests/fixtures/widgets.html"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    rows = []
    try:
        subprocess.run([BIN, "wait", "--app", "chromium", "--for-text", "Widgets", "--timeout", "30000"],
                       capture_output=True, env=env, check=True)
        time.sleep(1)
        params = StdioServerParameters(command=BIN, args=["mcp"], env=env)
        async with stdio_client(params) as (r, wr):
            async with ClientSession(r, wr) as s:
                await s.initialize()
                for name, args, cli in [
                    ("jpg, scale 1", {"format": "jpeg", "scale": 1, "max_edge": 4000},
                     ["--format", "jpg", "--scale", "1"]),
                    ("jpg, default", {"format": "jpeg"}, ["--format", "jpg"]),
                ]:
                    await s.call_tool("screenshot", args)  # the first fills the kept memory
                    m, k, d = [], [], []
                    for _ in range(RUNS):
                        t = time.perf_counter()
                        res = await s.call_tool("screenshot", args)
                        if res.is_error:
                            sys.exit(res.content[0].text)
                        m.append((time.perf_counter() - t) * 1000)
                        shot = ["screenshot", *cli, "--output", f"{out}/a.jpg"]
                        k.append(cli_ms(shot, env))
                        d.append(cli_ms(shot, direct))
                    rows.append((size, name, *(statistics.median(v) for v in (m, k, d))))
    finally:
        chromium.terminate()
        chromium.wait()
        subprocess.run([BIN, "sandbox", "down", "--display", data["display"]], capture_output=True)
        subprocess.run(["rm", "-rf", profile, out])
    return rows


async def main():
    print(f"screenshots taken again and again, median of {RUNS} (ms)\n")
    print("| screen | image | MCP, warm | CLI, keeper | CLI, by itself |")
    print("|---|---|---|---|---|")
    for size in ["1280x800", "3840x2160"]:
        for row in await bench(size):
            print("| {} | {} | {:.1f} | {:.1f} | {:.1f} |".format(*row), flush=True)


asyncio.run(main())
