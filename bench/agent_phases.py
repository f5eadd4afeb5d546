#!/usr/bin/python3
"""Where an agent's later turns go: builds alternated, each running the agent on the Chromium
fixture page with `agent_bench.py`'s scripted model (TURNS clicks on "Increment", then
done); from each run's transcript, the median time from an action to the next observation
(the read, the screenshot) and from the model's reply to the action, and the keeper's part
of the read. `BIN@VAR` runs BIN with the environment variable VAR set to 1 (to compare a
switch inside one build).

    ROUNDS=4 .tools/venv/bin/python bench/agent_phases.py 12 BIN [BIN...]   # in a sandbox showing the page
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agent_bench as ab  # noqa: E402


def run(bin_, turns):
    subprocess.run(["pkill", "-f", "cli keeper"])
    time.sleep(0.5)
    tmp = tempfile.mkdtemp(prefix="phases-")
    click = {"calls": [{"name": "click", "args": {"id": "$id:btn \"Increment\"", "x": None, "y": None, "space": None,
                                                  "button": None, "double": None, "why": "count"}}]}
    script = [click] * turns + [{"calls": [{"name": "done", "args": {"success": True, "summary": "counted"}}]}]
    proc, port = ab.fake_server(script, tmp)
    try:
        env = dict(os.environ, ANTHROPIC_API_KEY=ab.KEY, XDG_CONFIG_HOME=tmp)
        if "@" in bin_:
            bin_, var = bin_.split("@")
            env[var] = "1"
        subprocess.run([bin_, "agent", "press Increment", "--app", "chromium", "--base-url", f"http://127.0.0.1:{port}",
                        "--max-steps", str(turns + 1), "--transcript", os.path.join(tmp, "run")],
                       capture_output=True, text=True, env=env, timeout=600)
        events = []
        for name in sorted(os.listdir(os.path.join(tmp, "run"))):
            if name.endswith(".jsonl"):
                with open(os.path.join(tmp, "run", name)) as f:
                    events += [json.loads(line) for line in f]
        observe, act, keeper = [], [], []
        last_action = last_reply = None
        for e in events:
            kind = e.get("ev")
            if kind == "action":
                if last_reply is not None:
                    act.append(e["ms"] - last_reply)
                last_action = e["ms"]
            elif kind == "observe" and last_action is not None:
                observe.append(e["ms"] - last_action)
                keeper.append(e.get("read", {}).get("keeper", 0))
            elif kind == "reply":
                last_reply = e["ms"]
        return statistics.median(observe), statistics.median(act), statistics.median(keeper)
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    turns, bins = int(sys.argv[1]), sys.argv[2:]
    res = {b: [] for b in bins}
    for _ in range(int(os.environ.get("ROUNDS", "3"))):
        for b in bins:
            o = run(b, turns)
            res[b].append(o)
            print(b, "observe %.1f action %.1f keeper %.1f" % o, flush=True)
    for b in bins:
        print(b, "median observe", statistics.median(x[0] for x in res[b]),
              "action", statistics.median(x[1] for x in res[b]))


if __name__ == "__main__":
    main()
