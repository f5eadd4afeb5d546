#!/usr/bin/python3
"""Screenshots at real screen sizes: desktop-cli against ImageMagick's `import` of the same
screen, PNG and JPEG, at scale 1 and at the default (the agents') size, on a 1280x800 and a
3840x2160 sandbox showing a Chromium page across the whole screen. Whole process, median of
RUNS, ours and import interleaved in the same run.

    bench/shots.py            # both sizes, 10 runs each
    RUNS=20 bench/shots.py
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
RUNS = int(os.environ.get("RUNS", "10"))
SIZES = ["1280x800", "3840x2160"]


def timed(cmd, env):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    ms = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        sys.exit(f"{cmd} failed: {r.stdout} {r.stderr}")
    return ms


def sandbox(size):
    out = subprocess.run([BIN, "sandbox", "up", "--size", size], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)["data"]
    env = dict(os.environ)
    env.update(data["env"])
    return data["display"], env


def bench(size, out):
    display, env = sandbox(size)
    w, h = size.split("x")
    page = os.path.join(ROOT, "tests/fixtures/widgets.html")
    profile = tempfile.mkdtemp(prefix="shots-chromium-")
    chromium = subprocess.Popen(
        ["chromium", "--no-sandbox", "--force-renderer-accessibility", "--test-type", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={profile}", "--window-position=0,0", f"--window-size={w},{h}",
         f"file://{page}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        subprocess.run([BIN, "wait", "--app", "chromium", "--for-text", "Widgets", "--timeout", "20000"],
                       capture_output=True, env=env, check=True)
        time.sleep(1)
        cases = {
            "png, scale 1": ([BIN, "screenshot", "--scale", "1", "--output", f"{out}/a.png"],
                             ["import", "-window", "root", f"{out}/i.png"]),
            "jpg, scale 1": ([BIN, "screenshot", "--scale", "1", "--format", "jpg", "--output", f"{out}/a.jpg"],
                             ["import", "-window", "root", f"{out}/i.jpg"]),
            "png, default": ([BIN, "screenshot", "--output", f"{out}/d.png"],
                             None),
            "jpg, default": ([BIN, "screenshot", "--format", "jpg", "--output", f"{out}/d.jpg"],
                             None),
            "jpg, 1568 px edge": ([BIN, "screenshot", "--max-edge", "1568", "--format", "jpg", "--output", f"{out}/e.jpg"],
                                  None),
        }
        rows = []
        for name, (ours, theirs) in cases.items():
            a, b = [], []
            for _ in range(RUNS):
                a.append(timed(ours, env))
                if theirs:
                    b.append(timed(theirs, env))
            # ImageMagick's import scaled to the same size, where ours scales.
            if not theirs:
                info = json.loads(subprocess.run(ours, capture_output=True, text=True, env=env).stdout)["data"]
                ext = "png" if name.startswith("png") else "jpg"
                scaled = ["import", "-window", "root", "-resize", f"{info['width']}x{info['height']}", f"{out}/s.{ext}"]
                for _ in range(RUNS):
                    b.append(timed(scaled, env))
            rows.append((name, statistics.median(a), statistics.median(b)))
        return rows
    finally:
        chromium.terminate()
        chromium.wait()
        subprocess.run([BIN, "sandbox", "down", "--display", display], capture_output=True)
        subprocess.run(["rm", "-rf", profile])


def main():
    out = tempfile.mkdtemp(prefix="shots-")
    print(f"screenshots, whole process, median of {RUNS} (ms), a Chromium page across the screen\n")
    print("| screen | image | desktop-cli | ImageMagick import | ratio |")
    print("|---|---|---|---|---|")
    for size in SIZES:
        for name, ours, theirs in bench(size, out):
            print(f"| {size} | {name} | {ours:.1f} | {theirs:.1f} | {theirs / ours:.1f}x |")
    subprocess.run(["rm", "-rf", out])


if __name__ == "__main__":
    main()
