#!/usr/bin/python3
"""Agent loop overhead: what a turn costs besides the model, and what it sends.

Ours: `desktop-cli agent` against the scripted model server (tests/agent/fake_model.py),
N turns each clicking Chromium's Increment by id, then done. A turn's overhead is the run's
time minus the model replies' latency, over the turns: observation (tree read, marked JPEG
screenshot), request building, the action, the transcript. `process_per_turn_ms` is the
same for the whole process, its start and the report and animation written after the run
included (`outside_run_ms`).

The agent's reads are made by the desktop's keeper, from the mirrors it keeps for every
process (warm for a window any command read in the last 30 s); `ours_own_reads` is the same
run with DESKTOP_CLI_DIRECT=1, where the agent reads every window itself, starting cold.

Peer: the turn of a pyatspi-based agent (the way dogtail/pyatspi tools observe and act):
a pyatspi walk of the same window with extents (in-process, warm), a full-screen screenshot
with ImageMagick `import`, and an xdotool click at the button's center. Interleaved.

usage: agent_bench.py BIN TURNS      prints JSON
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PY = os.path.join(ROOT, ".tools/venv/bin/python")
KEY = "sk-bench"


def fake_server(script, tmp):
    with open(os.path.join(tmp, "script.json"), "w") as f:
        json.dump(script, f)
    port_file = os.path.join(tmp, "port")
    proc = subprocess.Popen([VENV_PY, os.path.join(ROOT, "tests/agent/fake_model.py"), os.path.join(tmp, "script.json"),
                             os.path.join(tmp, "record.jsonl"), port_file, "--api-key", KEY],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while not os.path.exists(port_file):
        if time.time() > deadline:
            sys.exit("fake model server did not start")
        time.sleep(0.05)
    return proc, int(open(port_file).read())


def ours(bin_, turns, own_reads=False):
    tmp = tempfile.mkdtemp(prefix="desktop-cli-agent-bench-")
    click = {"calls": [{"name": "click", "args": {"id": "$id:btn \"Increment\"", "x": None, "y": None, "space": None,
                                                  "button": None, "double": None, "why": "count"}}]}
    script = [click] * turns + [{"calls": [{"name": "done", "args": {"success": True, "summary": "counted"}}]}]
    proc, port = fake_server(script, tmp)
    try:
        env = dict(os.environ, ANTHROPIC_API_KEY=KEY, XDG_CONFIG_HOME=tmp)
        if own_reads:
            env["DESKTOP_CLI_DIRECT"] = "1"
        began = time.perf_counter()
        r = subprocess.run([bin_, "agent", "press Increment", "--app", "chromium", "--base-url", f"http://127.0.0.1:{port}",
                            "--max-steps", str(turns + 1), "--transcript", os.path.join(tmp, "run")],
                           capture_output=True, text=True, env=env, timeout=600)
        process_ms = (time.perf_counter() - began) * 1000
        data = json.loads(r.stdout)["data"]
        model_ms = sum(u["latency_ms"] for u in data["usage"])
        per_turn = (data["time_ms"] - model_ms) / data["iterations"]
        # A turn after the first, from the transcript: one action's event to the next, less
        # the model's reply in between (the first turn also carries the first, cold read).
        events = []
        run_dir = os.path.join(tmp, "run")
        for name in sorted(os.listdir(run_dir)):
            if name.endswith(".jsonl"):
                events += [json.loads(line) for line in open(os.path.join(run_dir, name))]
        acted = [e["ms"] for e in events if e.get("ev") == "action"]
        asked = [e["ms"] for e in events if e.get("ev") == "request"]
        answered = [e["ms"] for e in events if e.get("ev") == "reply"]
        later = []
        for a, b in zip(acted, acted[1:]):
            model = [r - q for q, r in zip(asked, answered) if a < q < b]
            later.append(b - a - sum(model))
        first_observation = next((e["ms"] for e in events if e.get("ev") == "observe"), None)
        reqs = [json.loads(line) for line in open(os.path.join(tmp, "record.jsonl"))]
        # The last request of the run: its newest screen text and screenshot.
        body = reqs[-1]["body"]
        last = body["messages"][-1]["content"]
        screen = next(b["text"] for b in last if b.get("type") == "text" and "<screen_data" in b.get("text", ""))
        image = next(b["source"]["data"] for b in last if b.get("type") == "image")
        with open(os.path.join(tmp, "screen.txt"), "w") as f:
            f.write(screen)
        toks = subprocess.run(["node", os.path.join(ROOT, "bench/tokens.mjs"), os.path.join(tmp, "screen.txt")],
                              capture_output=True, text=True)
        screen_tokens = list(json.loads(toks.stdout).values())[0] if toks.returncode == 0 else None
        return {
            "success": data["success"],
            "turns": data["iterations"],
            "time_ms": data["time_ms"],
            "model_ms": model_ms,
            "overhead_per_turn_ms": per_turn,
            # The whole process, less the model, over the turns: also its start and what it
            # writes once the run ended (report.html, run.gif).
            "process_per_turn_ms": (process_ms - model_ms) / data["iterations"],
            "outside_run_ms": process_ms - data["time_ms"],
            "later_turn_median_ms": statistics.median(later) if later else None,
            "first_observation_ms": first_observation,
            "screen_text_tokens": screen_tokens,
            "screenshot_bytes": len(image) * 3 // 4,
            "request_bytes": len(json.dumps(body)),
        }
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def peer(bin_, turns):
    data = json.loads(subprocess.run([bin_, "read", "--app", "chromium", "--text", "Increment"],
                                     capture_output=True, text=True).stdout)["data"]

    def find(es):
        for e in es:
            if e.get("t") == "Increment":
                return e
            hit = find(e.get("c", []))
            if hit:
                return hit

    b = find(data["elements"])["b"]
    x, y = b[0] + b[2] // 2, b[1] + b[3] // 2
    walk = json.loads(subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench/pyatspi_walk.py"), "chromium",
                                      "--extents", "--repeat", str(turns)], capture_output=True, text=True).stdout)
    shots, clicks = [], []
    out = tempfile.mktemp(suffix=".png")
    for _ in range(turns):
        t = time.perf_counter()
        subprocess.run(["import", "-window", "root", out], check=True)
        shots.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "--delay", "0", "1"], check=True)
        clicks.append((time.perf_counter() - t) * 1000)
    os.unlink(out)
    med = statistics.median
    return {
        "walk_ms": med(walk["ms"]),
        "nodes": walk["nodes"],
        "screenshot_ms": med(shots),
        "click_ms": med(clicks),
        "per_turn_ms": med(walk["ms"]) + med(shots) + med(clicks),
    }


def main():
    bin_, turns = sys.argv[1], int(sys.argv[2])
    print(json.dumps({"ours": ours(bin_, turns), "ours_own_reads": ours(bin_, turns, own_reads=True),
                      "peer": peer(bin_, turns)}))


if __name__ == "__main__":
    main()
