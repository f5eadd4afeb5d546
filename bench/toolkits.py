#!/usr/bin/python3
"""Benchmark body for apps nobody here wrote, run inside a fresh sandbox by
`bench/run.sh --toolkits`: `desktop-cli read -i` of a LibreOffice Calc window and of
gtk4-widget-factory as whole processes, beside pyatspi walks of the same windows with
extents in the same run (interleaved, so drift hits both alike). The Calc walk reads at
most 500 children of a container, the bound our reader keeps; without one it never ends.
Also Calc's memory and answer time after the reads.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import BIN, PY, WALK, cli, med, stop, timed  # noqa: E402

RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 20
CALC = "LibreOffice Calc"
FACTORY = "GTK Widget Factory"


def wait_window(title):
    deadline = time.time() + 60
    while time.time() < deadline:
        r = cli("read", "--window", title, "-i", "--max-elements", "1")
        if r.returncode == 0:
            time.sleep(1.0)  # let the app settle after its first paint
            return
        time.sleep(0.3)
    sys.exit(f"{title} did not come up")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def compare(title, walk_args):
    ours, peer = [], []
    count = nodes = 0
    for _ in range(RUNS):
        ms, r = timed([BIN, "read", "--window", title, "-i"])
        ours.append(ms)
        count = json.loads(r.stdout)["data"]["count"]
        ms, r = timed([PY, WALK, "", "--window", title, "--extents", *walk_args])
        peer.append(ms)
        nodes = json.loads(r.stdout)["nodes"]
    return {"window": title, "ours_ms": med(ours), "peer_ms": med(peer), "elements": count, "peer_nodes": nodes}


def main():
    profile = tempfile.mkdtemp(prefix="desktop-cli-bench-office-")
    procs = [
        subprocess.Popen(["soffice", "--norestore", "--nologo", "--calc", f"-env:UserInstallation=file://{profile}"]),
        subprocess.Popen(["gtk4-widget-factory"]),
    ]
    try:
        wait_window(CALC)
        wait_window(FACTORY)
        # Something in the sheet, as an agent would leave it.
        for cell, value in (("A1", "5"), ("A2", "7"), ("A3", "3"), ("A4", "=SUM(A1:A3)")):
            data = json.loads(cli("read", "--window", CALC, "--roles", "cell", "--text", cell).stdout)["data"]
            stack = list(data["elements"])
            cid = None
            while stack:
                e = stack.pop()
                if e.get("t") == cell:
                    cid = e["i"]
                stack.extend(e.get("c", []))
            cli("set-value", "--id", str(cid), "--value", value)
        # Our reads alone first: what they cost the app's memory.
        pid = json.loads(cli("list", "--app", CALC).stdout)["data"]["windows"][0]["pid"]
        before = rss_kb(pid)
        for _ in range(RUNS):
            cli("read", "--window", CALC, "-i")
        growth = rss_kb(pid) - before
        calc = compare(CALC, ["--cap", "500"])
        calc["rss_growth_kb"] = growth
        gtk4 = compare(FACTORY, [])
    finally:
        stop(procs)
        shutil.rmtree(profile, ignore_errors=True)
    print(f"\nread -i of apps nobody here wrote, whole process, median of {RUNS} (ms)\n")
    print("| window | desktop-cli read -i | elements | pyatspi walk with extents | nodes walked | ratio |")
    print("|---|---|---|---|---|---|")
    for r in (calc, gtk4):
        print(f"| {r['window']} | {r['ours_ms']:.1f} | {r['elements']} | {r['peer_ms']:.1f} | {r['peer_nodes']} | {r['peer_ms'] / r['ours_ms']:.1f}x |")
    print(f"\nCalc grew {calc['rss_growth_kb'] / 1024:.1f} MB over {RUNS} of our reads (LibreOffice keeps about 5 KB of every cell object it builds)")
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "toolkits.json"), "w") as f:
        json.dump({"calc": calc, "gtk4": gtk4}, f, indent=1)


if __name__ == "__main__":
    main()
