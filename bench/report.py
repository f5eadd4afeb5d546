#!/usr/bin/python3
"""The report of a 20-step agent run: a transcript folder made of 20 real 1280x800
screenshots of a Chromium page scrolled between them (JPEG, as the agent saves them), each
followed by a click on an element; `agent report DIR` timed (whole process, median of RUNS)
and the sizes of report.html and run.gif.

    bench/report.py
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target/release/desktop-cli")
RUNS = int(os.environ.get("RUNS", "5"))
STEPS = 20


def cli(env, *args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"{args} failed: {r.stdout} {r.stderr}")
    return r.stdout


def main():
    out = subprocess.run([BIN, "sandbox", "up", "--size", "1280x800"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)["data"]
    env = dict(os.environ)
    env.update(data["env"])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            page = "file://" + os.path.join(ROOT, "tests/fixtures/page.html")
            cli(env, "launch", "--", "chromium", "--test-type", "--no-first-run", "--disable-gpu",
                "--window-position=0,0", "--window-size=1280,800", f"--user-data-dir={tmp}/profile", page)
            run = os.path.join(tmp, "run")
            os.mkdir(run, 0o700)
            events = [{"ev": "start", "goal": "Press every button", "model": "bench", "protocol": "Anthropic",
                       "max_steps": STEPS, "confirm": "Risky"}]
            for n in range(1, STEPS + 1):
                shot = f"turn-{n:03}.jpg"
                cli(env, "screenshot", "--scale", "1", "--format", "jpg", "--output", os.path.join(run, shot))
                events.append({"ev": "observe", "turn": n, "screenshot": shot,
                               "frame": {"origin": [0, 0], "scale": 1.0, "width": 1280, "height": 800}})
                events.append({"ev": "reply", "turn": n, "text": f"Step {n}: the next button.",
                               "input_tokens": 2400, "output_tokens": 60, "latency_ms": 900})
                b = [200 + 20 * n, 150 + 10 * n, 90, 24]
                events.append({"ev": "action", "step": n, "tool": "click", "args": {"id": n}, "ok": True,
                               "executed": True, "result": {"effect": "confirmed",
                               "element": {"r": "btn", "t": f"Button {n}", "b": b}},
                               "points": {"click": [b[0] + 45, b[1] + 12]}})
                cli(env, "scroll", "--app", "chromium", "--direction", "down", "--amount", "2")
            events.append({"ev": "end", "success": True, "stop": "done", "message": "all pressed",
                           "tokens": {"input": 48000, "output": 1200}})
            with open(os.path.join(run, "transcript.jsonl"), "w") as f:
                for e in events:
                    f.write(json.dumps(e) + "\n")
            times = []
            for _ in range(RUNS):
                t = time.perf_counter()
                cli(env, "agent", "report", run)
                times.append((time.perf_counter() - t) * 1000)
            if os.environ.get("KEEP"):
                subprocess.run(["cp", "-r", run, os.environ["KEEP"]], check=True)
            print(json.dumps({
                "steps": STEPS,
                "report_ms_median": round(statistics.median(times)),
                "report_html_bytes": os.path.getsize(os.path.join(run, "report.html")),
                "run_gif_bytes": os.path.getsize(os.path.join(run, "run.gif")),
            }, indent=1))
    finally:
        subprocess.run([BIN, "sandbox", "down", "--display", data["display"]], capture_output=True)


if __name__ == "__main__":
    main()
