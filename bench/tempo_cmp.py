#!/usr/bin/python3
"""Two builds at an agent's tempo: a read and a click every few seconds, as an agent that
thinks between its turns does.

On Chromium showing `tests/fixtures/page.html` (already running, as `bench/run.sh` starts
it), each build in turn runs blocks of ROUNDS rounds with its own keeper (a keeper serves
only its own build): `read --app chromium -i --timing` through the keeper, then
`click --text Increment`, then GAP seconds of pause. The first round of a block (the
keeper's first, cold read) is left out. Whole processes; the keeper's own time and how many
elements its walk asked one by one (`walked`, from `--timing`) are noted per read: a read
that asked at least half of what the block's first, cold reads did went from scratch; one
whose timing says `again=` gave the window's last answer again (`quiet`).

Then the same through one `desktop-cli mcp` server per block (stdio, spoken to with plain
JSON-RPC lines): the `read` tool (interactive, the page only) and a `click` on Increment,
GAP seconds apart; the server reads by itself, through mirrors of its own.

usage: tempo_cmp.py OLD_BIN NEW_BIN BLOCKS [ROUNDS] [GAP]   (inside a sandbox: eval "$(desktop-cli sandbox env)")
"""
import json
import re
import statistics
import subprocess
import sys
import time

from lean_mcp import Lean


def run(bin_, *args):
    t = time.perf_counter()
    r = subprocess.run([bin_, *args], capture_output=True, text=True)
    return (time.perf_counter() - t) * 1000, r


def timing(stderr, key):
    m = re.search(rf"\b{key}=([0-9.]+)", stderr)
    return float(m.group(1)) if m else None


def block(bin_, rounds, gap, out):
    subprocess.run(["pkill", "-f", "cli keeper"])
    time.sleep(0.3)
    _, first = run(bin_, "read", "--app", "chromium", "-i", "--timing")  # starts this build's keeper
    _, cold = run(bin_, "read", "--app", "chromium", "-i", "--timing")
    # What a walk from scratch asks one by one: the first reads (the process's own, the
    # keeper's cold one).
    scratch = max(timing(first.stderr, "walked") or 0.0, timing(cold.stderr, "walked") or 0.0, 1.0)
    time.sleep(gap)
    for _ in range(rounds):
        ms, r = run(bin_, "read", "--app", "chromium", "-i", "--timing")
        out["read"].append(ms)
        keeper = re.search(r"keeper total=([0-9.]+)", r.stderr)
        if keeper:
            out["keeper"].append(float(keeper.group(1)))
        walked = timing(r.stderr, "walked")
        if walked is not None and walked >= scratch / 2:
            out["from_scratch"] += 1
        if " again=" in r.stderr:
            out["again"] += 1
        ms, _ = run(bin_, "click", "--app", "chromium", "--text", "Increment", "--exact")
        out["click"].append(ms)
        time.sleep(gap)


def mcp_block(bin_, rounds, gap, out):
    server = Lean(bin_)
    read = {"app": "chromium", "interactive": True}
    server.ms("read", read)  # the server's first, cold read
    time.sleep(gap)
    for _ in range(rounds):
        out["mcp_read"].append(server.ms("read", read))
        out["mcp_click"].append(server.ms("click", {"app": "chromium", "text": "Increment", "exact": True}))
        time.sleep(gap)
    server.close()


def summary(xs):
    return {"median": round(statistics.median(xs), 1), "mean": round(statistics.mean(xs), 1),
            "max": round(max(xs), 1), "n": len(xs)}


def main():
    old, new, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 14
    gap = float(sys.argv[5]) if len(sys.argv) > 5 else 5.0
    results = {b: {"read": [], "keeper": [], "click": [], "from_scratch": 0, "again": 0, "mcp_read": [],
                   "mcp_click": []}
               for b in ("old", "new")}
    for _ in range(blocks):
        for name, bin_ in (("old", old), ("new", new)):
            block(bin_, rounds, gap, results[name])
    for _ in range(blocks):
        for name, bin_ in (("old", old), ("new", new)):
            mcp_block(bin_, rounds, gap, results[name])
    subprocess.run(["pkill", "-f", "cli keeper"])
    print(json.dumps({name: {"read": summary(r["read"]), "keeper_read": summary(r["keeper"]),
                             "click": summary(r["click"]), "reads_from_scratch": r["from_scratch"],
                             "reads_answered_again": r["again"],
                             "mcp_read": summary(r["mcp_read"]), "mcp_click": summary(r["mcp_click"])}
                      for name, r in results.items()}, indent=1))


if __name__ == "__main__":
    main()
