#!/usr/bin/python3
"""Two builds reading a page that scrolled once, at an agent's tempo.

On Chromium showing `tests/fixtures/page.html` (already running, as `bench/run.sh` starts
it), each build in turn, with its own keeper (a keeper serves only its own build): the page
in front and read, scrolled down three notches and read, scrolled back and read; then READS
reads (`read --app chromium -i --timing`, whole processes) GAP seconds apart, the page
untouched. A scroll is drawing no element's box explains, so the window's pixels are kept
with its answers (which then last 3 s, not 10); the figure is how many of the later reads
the keeper answered again (`again=` in the timing) and what they cost.

usage: scrolled_cmp.py OLD_BIN NEW_BIN BLOCKS [READS] [GAP]   (inside a sandbox: eval "$(desktop-cli sandbox env)")
prints JSON: per build, every read's ms, the median, and how many were answered again
"""
import json
import statistics
import subprocess
import sys
import time


def run(bin_, *args):
    t = time.perf_counter()
    r = subprocess.run([bin_, *args], capture_output=True, text=True)
    return (time.perf_counter() - t) * 1000, r


def block(bin_, reads, gap, out):
    subprocess.run(["pkill", "-f", "cli keeper"])
    time.sleep(1)
    run(bin_, "focus", "--app", "chromium")
    for step in ([], ["down"], ["up"]):
        if step:
            run(bin_, "scroll", "--app", "chromium", "--direction", step[0], "--amount", "3")
        run(bin_, "read", "--app", "chromium", "-i")
    for _ in range(reads):
        time.sleep(gap)
        ms, r = run(bin_, "read", "--app", "chromium", "-i", "--timing")
        if r.returncode != 0:
            sys.exit(f"{bin_} read: {r.stdout} {r.stderr}")
        out["ms"].append(round(ms, 1))
        out["again"] += int(" again=" in r.stderr)


def main():
    old, new, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    reads = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    gap = float(sys.argv[5]) if len(sys.argv) > 5 else 5.0
    res = {name: {"ms": [], "again": 0} for name in ("old", "new")}
    for _ in range(blocks):
        for name, bin_ in (("old", old), ("new", new)):
            block(bin_, reads, gap, res[name])
    for r in res.values():
        r["median_ms"] = round(statistics.median(r["ms"]), 1)
        r["reads"] = len(r["ms"])
    print(json.dumps(res, indent=1))


main()
