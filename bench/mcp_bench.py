"""Warm MCP calls next to the same CLI commands as whole processes, in one run.

usage: mcp_bench.py BIN RUNS     (run with the Python of .tools/venv, which has `mcp`)
prints JSON: medians in ms for read (Chromium page, interactive; GTK3 and GTK4 widget
factories (the GTK 4 one started here), FeatherPad (Qt5), and the GTK 3 and GTK 4 forms of
tests/fixtures (started here), whole windows, each in front), click (GTK check box), and
the reads right after a click changed one element (the Chromium page's check box; a GTK 3
check box in the animated gtk3-widget-factory). The server reads through its
mirrors of the windows; a CLI process either reads from scratch (DESKTOP_CLI_DIRECT=1,
`cli_ms`) or has the desktop's keeper read through its own mirrors (`keeper_ms`). The whole
windows are also read by a second server spoken to by a minimal JSON-RPC client over the same
stdio (`lean_mcp_ms`): what a call costs without the Python SDK's own part.
"""
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from lean_mcp import Lean

BIN, RUNS = sys.argv[1], int(sys.argv[2])


DIRECT = dict(os.environ, DESKTOP_CLI_DIRECT="1")


def cli_ms(*args, keeper=False):
    t = time.perf_counter()
    r = subprocess.run([BIN, *args], capture_output=True, text=True, env=None if keeper else DIRECT)
    if r.returncode != 0:
        sys.exit(f"{args}: {r.stdout} {r.stderr}")
    return (time.perf_counter() - t) * 1000, json.loads(r.stdout)


async def main():
    # A keeper serves only its own build: another build's, left from an earlier run, would
    # have this build's `keeper_ms` reads made by the process itself.
    subprocess.run(["pkill", "-f", "cli keeper"])
    time.sleep(0.3)
    lean = Lean(BIN)
    async with stdio_client(StdioServerParameters(command=BIN, args=["mcp"], env=dict(os.environ))) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()

            async def mcp_ms(tool, args):
                t = time.perf_counter()
                res = await s.call_tool(tool, args)
                if res.is_error:
                    sys.exit(f"{tool}: {res.content[0].text}")
                return (time.perf_counter() - t) * 1000, res.structured_content

            await mcp_ms("read", {"app": "chromium"})  # warm the connection
            read_mcp, read_cli, read_keeper, click_mcp, click_cli = [], [], [], [], []
            # Each window is read in front, as an agent working in it has it: a covered
            # window's unseen drawing would tell nothing, so it is never answered again.
            cli_ms("focus", "--app", "chromium", keeper=True)
            page = ("read", "--app", "chromium", "-i", "--max-elements", "200")
            cli_ms(*page, keeper=True)
            for _ in range(RUNS):
                read_mcp.append((await mcp_ms("read", {"app": "chromium"}))[0])
                read_cli.append(cli_ms(*page)[0])
                read_keeper.append(cli_ms(*page, keeper=True)[0])
            # The page right after a click ticked or unticked its check box.
            page_changed = []
            for _ in range(RUNS):
                await mcp_ms("click", {"text": "I agree", "app": "chromium"})
                page_changed.append((await mcp_ms("read", {"app": "chromium"}))[0])
            whole = {}

            async def read_whole(app, key="app", label=None, settle=0.0):
                args = {key: int(app) if key == "pid" else app, "interactive": False, "max_elements": 500}
                cli_ms("focus", f"--{key}", app, keeper=True)
                await mcp_ms("read", args)  # fills the mirror
                lean.ms("read", args)
                line = ("read", f"--{key}", app, "--max-elements", "500")
                cli_ms(*line, keeper=True)
                # An animated window is read for a while first, as by an agent working in it:
                # where it draws without end what no element holds is learned by reading
                # it (`pixels::Restless`), and that is read in full until then.
                until = time.time() + settle
                while time.time() < until:
                    await mcp_ms("read", args)
                    lean.ms("read", args)
                    cli_ms(*line, keeper=True)
                    time.sleep(0.2)
                m, c, k, lm = [], [], [], []
                for _ in range(RUNS):
                    m.append((await mcp_ms("read", args))[0])
                    lm.append(lean.ms("read", args))
                    c.append(cli_ms(*line)[0])
                    k.append(cli_ms(*line, keeper=True)[0])
                whole[label or app] = {"mcp_ms": statistics.median(m), "cli_ms": statistics.median(c),
                                       "keeper_ms": statistics.median(k), "lean_mcp_ms": statistics.median(lm)}

            for app in ("gtk3-widget-factory", "featherpad"):
                await read_whole(app)
            # Forms that hold still (the widget factories animate, so they are never quiet).
            here = os.path.dirname(os.path.abspath(__file__))
            for script, title in (("form_gtk.py", "GTK Form"), ("form_gtk4.py", "GTK4 Form")):
                form = subprocess.Popen(["/usr/bin/python3", os.path.join(here, "..", "tests", "fixtures", script)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    deadline = time.time() + 30
                    while time.time() < deadline:
                        r = subprocess.run([BIN, "read", "--window", title, "--max-elements", "20"],
                                           capture_output=True, text=True)
                        if r.returncode == 0 and json.loads(r.stdout)["data"]["count"] > 3:
                            break
                        time.sleep(0.3)
                    # By the pid started here: another window of the same title may be open.
                    await read_whole(str(form.pid), key="pid", label=title)
                finally:
                    form.terminate()
                    form.wait(timeout=10)
            # GTK 4 only for this part: its animations keep a quarter of a core busy.
            gtk4 = subprocess.Popen(["gtk4-widget-factory"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                deadline = time.time() + 30
                while time.time() < deadline:
                    r = subprocess.run([BIN, "read", "--app", "gtk4-widget-factory", "--max-elements", "20"],
                                       capture_output=True, text=True)
                    if r.returncode == 0 and json.loads(r.stdout)["data"]["count"] > 5:
                        break
                    time.sleep(0.3)
                time.sleep(1.0)
                await read_whole("gtk4-widget-factory", settle=10.0)
            finally:
                gtk4.terminate()
                gtk4.wait(timeout=10)
            # The check box's id as the whole window's read numbers it: the reads after each
            # click are whole ones, and an id is the one the last read gave (by the ids of a
            # read of check boxes alone, the clicks after the first hit the Menu toggle).
            whole_gtk = {"app": "gtk3-widget-factory", "interactive": False, "max_elements": 500}
            # In front, as the whole reads above have it (drawing under another window is not
            # seen, so a covered window is read in full every time).
            cli_ms("focus", "--app", "gtk3-widget-factory", keeper=True)
            # GTK 3 redraws a window made active over 200 ms (a style transition across all
            # of it), which reads then rightly take for change: measured once that is over.
            time.sleep(0.5)
            _, data = await mcp_ms("read", whole_gtk)

            def flat(es):
                for e in es:
                    yield e
                    yield from flat(e.get("c", []))

            boxes = [e for e in flat(data["elements"]) if e.get("r") == "chk"]
            at = next(n for n, e in enumerate(boxes) if "e" not in e and e.get("k") != "mixed")
            box = boxes[at]
            changed = []
            for _ in range(RUNS):
                click_mcp.append((await mcp_ms("click", {"id": box["i"], "app": "gtk3-widget-factory"}))[0])
                # The window right after one element changed (the click is confirmed by then).
                changed.append((await mcp_ms("read", whole_gtk))[0])
            _, d = cli_ms("read", "--app", "gtk3-widget-factory", "--max-elements", "500")
            box = [e for e in flat(d["data"]["elements"]) if e.get("r") == "chk"][at]
            for _ in range(RUNS):
                click_cli.append(cli_ms("click", "--id", str(box["i"]), "--app", "gtk3-widget-factory")[0])
    lean.close()
    med = statistics.median
    print(json.dumps({
        "read_mcp_ms": med(read_mcp), "read_cli_ms": med(read_cli), "read_keeper_ms": med(read_keeper),
        "click_mcp_ms": med(click_mcp), "click_cli_ms": med(click_cli),
        "whole": whole,
        "read_after_change_mcp_ms": med(changed),
        "page_read_after_tick_mcp_ms": med(page_changed),
    }))


asyncio.run(main())
