#!/usr/bin/python3
"""How close desktop_core::tokens's estimate comes to o200k's exact count, on reads of real
windows: gtk3-widget-factory, gtk4-widget-factory, Chromium on tests/fixtures/forms.html and
widgets.html. Each window is read in six ways (whole, -i, --no-bounds, -i --no-bounds,
--visible-only=false, --full), as JSON and as text, with `--max-tokens 1000000 --timing`
(a budget nothing reaches: the read is left whole and --timing says `tokens=`, the
estimate); the answer is counted exactly by bench/tokens.mjs (gpt-tokenizer, o200k).
Prints the estimate / exact ratio per form (min, median, max) and writes
bench/out/tokens_est.json.

usage: bench/run.sh --tokens-est
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import BIN, ROOT, tokens  # noqa: E402

PAGES = {"Forms Page": "tests/fixtures/forms.html", "Widgets Page": "tests/fixtures/widgets.html"}
WAYS = [[], ["-i"], ["--no-bounds"], ["-i", "--no-bounds"], ["--visible-only=false"], ["--full"]]


def read(args):
    return subprocess.run([BIN, "read", *args], capture_output=True, text=True)


def wait(target, text):
    deadline = time.time() + 40
    while time.time() < deadline:
        r = read([*target, "--text", text])
        if r.returncode == 0 and json.loads(r.stdout)["data"]["count"] > 0:
            return
        time.sleep(0.3)
    sys.exit(f"{target} never showed {text!r}")


def main():
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for cmd in (["gtk3-widget-factory"], ["gtk4-widget-factory"])]
    profiles = []
    for page in PAGES.values():
        profile = tempfile.mkdtemp(prefix="desktop-cli-tokens-est-")
        profiles.append(profile)
        procs.append(subprocess.Popen(
            ["chromium", "--no-sandbox", "--force-renderer-accessibility", "--test-type", "--disable-gpu",
             "--no-first-run", "--window-size=1200,780", f"--user-data-dir={profile}",
             "file://" + os.path.join(ROOT, page)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    targets = {"gtk3": ["--app", "gtk3-widget-factory"], "gtk4": ["--app", "gtk4-widget-factory"],
               **{title: ["--window", title] for title in PAGES}}
    out_dir = tempfile.mkdtemp(prefix="desktop-cli-tokens-est-out-")
    try:
        wait(targets["gtk3"], "checkbutton")
        wait(targets["gtk4"], "Button")
        for title in PAGES:
            wait(targets[title], title)
        rows = []
        for name, target in targets.items():
            for way in WAYS:
                for fmt in ("json", "text"):
                    r = read([*target, *way, "--format", fmt, "--max-tokens", "1000000", "--timing"])
                    m = re.search(r"\btokens=([0-9.]+)", r.stderr)
                    if r.returncode != 0 or not m:
                        continue
                    path = os.path.join(out_dir, f"{len(rows)}.{fmt}")
                    with open(path, "w") as f:
                        f.write(r.stdout)
                    rows.append({"window": name, "way": " ".join(way) or "(whole)", "format": fmt,
                                 "estimate": float(m.group(1)), "file": path})
        exact = tokens([row["file"] for row in rows])
        for row in rows:
            row["exact"] = exact[row.pop("file")]
            row["ratio"] = row["estimate"] / row["exact"]
    finally:
        for p in procs:
            p.terminate()
            p.wait()
        subprocess.run(["rm", "-rf", out_dir, *profiles])
    summary = {}
    for fmt in ("json", "text"):
        ratios = [r["ratio"] for r in rows if r["format"] == fmt]
        summary[fmt] = {"reads": len(ratios), "min": min(ratios), "median": statistics.median(ratios),
                        "max": max(ratios)}
    os.makedirs(os.path.join(ROOT, "bench/out"), exist_ok=True)
    with open(os.path.join(ROOT, "bench/out/tokens_est.json"), "w") as f:
        json.dump({"summary": summary, "reads": rows}, f, indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
