#!/usr/bin/python3
"""Two builds on a page that redraws on every click: what a click and the read after it cost,
and how often that read missed a click.

On `tests/fixtures/forms.html` in Chromium (started here, closed after), each build in turn
runs a block of 15 rounds with its own keeper (a keeper serves only its own build): a double
click on Redraw by text, a read of the page's generation counter, a single click, a read of
the controls, the counter again. Each read of the counter is checked against the clicks so
far. Whole processes, medians over all blocks.

usage: redraw_cmp.py OLD_BIN NEW_BIN BLOCKS      (inside a sandbox: eval "$(desktop-cli sandbox env)")
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WINDOW = "Forms Page"


def run(bin_, *args):
    t = time.perf_counter()
    r = subprocess.run([bin_, *args], capture_output=True, text=True)
    return (time.perf_counter() - t) * 1000, r


def generation(bin_):
    ms, r = run(bin_, "read", "--window", WINDOW, "--text", "Generation")
    m = re.search(r"Generation (\d+)", r.stdout)
    return ms, int(m.group(1)) if m else None


def block(bin_, out):
    subprocess.run(["pkill", "-f", "cli keeper"])
    time.sleep(0.3)
    run(bin_, "read", "--window", WINDOW)  # starts this build's keeper
    _, want = generation(bin_)
    for _ in range(15):
        ms, _ = run(bin_, "click", "--text", "Redraw", "--exact", "--double", "--window", WINDOW)
        out["click --double"].append(ms)
        want += 2
        ms, seen = generation(bin_)
        out["read --text"].append(ms)
        out["reads"] += 1
        if seen != want:
            out["missed"] += 1
            want = seen if seen is not None else want
        ms, _ = run(bin_, "click", "--text", "Redraw", "--exact", "--window", WINDOW)
        out["click"].append(ms)
        want += 1
        ms, _ = run(bin_, "read", "--window", WINDOW, "-i")
        out["read -i"].append(ms)
        _, seen = generation(bin_)
        out["reads"] += 1
        if seen != want:
            out["missed"] += 1
            want = seen if seen is not None else want


def main():
    old, new, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    profile = tempfile.mkdtemp(prefix="desktop-cli-bench-chromium-")
    page = "file://" + os.path.join(ROOT, "tests/fixtures/forms.html")
    launched = run(new, "launch", "--", "chromium", "--no-sandbox", "--force-renderer-accessibility",
                   "--test-type", "--disable-gpu", "--no-first-run", "--window-position=0,0",
                   "--window-size=1200,780", f"--user-data-dir={profile}", page)[1]
    pid = re.search(r'"pid":(\d+)', launched.stdout)
    try:
        for _ in range(50):
            if generation(new)[1] is not None:
                break
            time.sleep(0.2)
        res = {}
        for _ in range(blocks):
            for name, bin_ in (("before", old), ("now", new)):
                out = res.setdefault(name, {"click --double": [], "read --text": [], "click": [],
                                            "read -i": [], "missed": 0, "reads": 0})
                block(bin_, out)
        for name, out in res.items():
            print(name, {k: round(statistics.median(v), 1) if isinstance(v, list) else v for k, v in out.items()})
    finally:
        if pid:
            subprocess.run(["kill", pid.group(1)])
            time.sleep(1)
        shutil.rmtree(profile, ignore_errors=True)


main()
