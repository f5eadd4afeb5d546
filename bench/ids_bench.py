#!/usr/bin/python3
"""Ids that name elements across reads: what the identity step costs a warm read, and what
ids with gaps cost in tokens after a long session on a page that changes; two builds (the
one before ids were kept across reads, and this one) in the same run.

Time: gtk3-widget-factory and Chromium on tests/fixtures/ids.html, each build in turn with
its own keeper (killed between blocks), two blocks each, alternating: ROUNDS reads
`read -i --timing` (a quiet window: its answer may be given again, `answered_again` counts
those) and ROUNDS `read -i --visible-only=false --timing` (walked through the keeper's
mirror), after two unmeasured ones. Whole processes, the keeper's own time, and the step
that records ids (`ids=` of --timing: the old build's `remember`, this build's numbering)
and its share of the keeper's time.

Tokens: a fresh Chromium on ids.html; `read -i --page --no-bounds --format text` (less its
window line) before anything happened; then a session of 200 actions an agent makes —
Insert, Replace and Recreate pressed, check boxes toggled and a field typed into by ids
from reads with several filters, a read every fourth action —; then the same read by both
builds (the old one numbers from 1 again, this one keeps the ids it gave, with gaps), and
Playwright MCP's browser_snapshot of the page as it loads (bench/playwright_snapshot.py).
o200k tokens by bench/tokens.mjs.

usage: ids_bench.py OLD_BIN NEW_BIN [ROUNDS]   (run by `bench/run.sh --ids OLD_BIN`)
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
from bench import ROOT, tokens  # noqa: E402

PAGE = "file://" + os.path.join(ROOT, "tests/fixtures/ids.html")
VENV_PY = os.path.join(ROOT, ".tools/venv/bin/python")
TARGETS = {"gtk3": ["--app", "gtk3-widget-factory"], "chromium": ["--window", "Ids Page"]}


def run(bin_, *args):
    t = time.perf_counter()
    r = subprocess.run([bin_, *args], capture_output=True, text=True)
    return (time.perf_counter() - t) * 1000, r


def timing(stderr, key):
    m = re.search(rf"\b{key}=([0-9.]+)", stderr)
    return float(m.group(1)) if m else None


def chromium(profile):
    return subprocess.Popen(
        ["chromium", "--no-sandbox", "--force-renderer-accessibility", "--test-type", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-features=Translate", "--window-position=0,0", "--window-size=1200,780",
         f"--user-data-dir={profile}", PAGE],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(bin_, args, what, secs=40):
    deadline = time.time() + secs
    while time.time() < deadline:
        _, r = run(bin_, "read", *args, "--text", what)
        if r.returncode == 0 and json.loads(r.stdout)["data"]["count"] > 0:
            return
        time.sleep(0.3)
    sys.exit(f"{what} never showed")


def speed(builds, rounds):
    """Per target and kind of read, each build in two blocks, alternating (old, new, old,
    new): medians over both blocks."""
    out = {}
    for name, target in TARGETS.items():
        for kind, extra in (("quiet", []), ("walked", ["--visible-only=false"])):
            samples = {label: {"procs": [], "keeper": [], "ids": [], "again": 0} for label, _ in builds}
            for _ in range(2):
                for label, bin_ in builds:
                    subprocess.run(["pkill", "-f", "cli keeper"])
                    time.sleep(0.3)
                    args = ["read", *target, "-i", *extra, "--timing"]
                    for _ in range(2):
                        run(bin_, *args)
                    got = samples[label]
                    for _ in range(rounds):
                        ms, r = run(bin_, *args)
                        got["procs"].append(ms)
                        k = re.search(r"keeper total=([0-9.]+)", r.stderr)
                        if k:
                            got["keeper"].append(float(k.group(1)))
                        i = timing(r.stderr, "ids")
                        if i is not None:
                            got["ids"].append(i)
                        got["again"] += " again=" in r.stderr
            row = {}
            for label, got in samples.items():
                row[label] = {"process_ms": statistics.median(got["procs"]),
                              "keeper_ms": statistics.median(got["keeper"]) if got["keeper"] else None,
                              "ids_ms": statistics.median(got["ids"]) if got["ids"] else None,
                              "answered_again": got["again"], "reads": len(got["procs"])}
            new = row["new"]
            if new["ids_ms"] is not None and new["keeper_ms"]:
                new["ids_share"] = new["ids_ms"] / new["keeper_ms"]
            row["ratio_process"] = row["new"]["process_ms"] / row["old"]["process_ms"]
            if row["old"]["keeper_ms"] and new["keeper_ms"]:
                row["ratio_keeper"] = new["keeper_ms"] / row["old"]["keeper_ms"]
            out[f"{name}/{kind}"] = row
    return out


def ids_of(text):
    return [int(m.group(1)) for m in re.finditer(r"^\s*(\d+) ", text, re.M)]


def session(bin_, n=200):
    """n actions an agent makes on the ids page, reading every fourth, by ids from its reads."""
    target = TARGETS["chromium"]
    filters = [["-i"], ["--roles", "chk"], ["--visible-only=false", "-i"], ["--page"]]
    checks, field, done = [], None, 0
    while done < n:
        if done % 4 == 0:
            _, r = run(bin_, "read", *target, *filters[(done // 4) % len(filters)])
            data = json.loads(r.stdout)["data"]

            def walk(es):
                for e in es:
                    yield e
                    yield from walk(e.get("c", []))
            els = list(walk(data["elements"]))
            checks = [e["i"] for e in els if e["r"] == "chk"] or checks
            field = next((e["i"] for e in els if e.get("t") == "Field One"), field)
        step = done % 6
        if step == 0:
            run(bin_, "click", *target, "--text", "Insert", "--role", "btn", "--exact")
        elif step == 1:
            run(bin_, "click", *target, "--text", "Recreate", "--role", "btn", "--exact")
        elif step == 2 and field:
            run(bin_, "type", "--id", str(field), "x")
        elif step == 3:
            run(bin_, "click", *target, "--text", "Replace", "--role", "btn", "--exact")
        elif checks:
            run(bin_, "toggle", "--id", str(checks[done % len(checks)]))
        done += 1


def compact_read(bin_, path, whole=False):
    """`read -i --page --no-bounds --format text` (with `--visible-only=false`: the whole
    page, as Playwright's snapshot covers it), less its window line."""
    extra = ["--visible-only=false"] if whole else []
    _, r = run(bin_, "read", *TARGETS["chromium"], "-i", "--page", "--no-bounds", "--format", "text", *extra)
    text = r.stdout.split("\n", 1)[1] if "\n" in r.stdout else r.stdout
    with open(path, "w") as f:
        f.write(text)
    return text


def token_session(builds, out_dir):
    old, new = dict(builds)["old"], dict(builds)["new"]
    profile = tempfile.mkdtemp(prefix="desktop-cli-ids-bench-")
    subprocess.run(["pkill", "-f", "cli keeper"])
    browser = chromium(profile)
    try:
        wait_for(new, TARGETS["chromium"], "Opt Lagoon")
        before = compact_read(new, os.path.join(out_dir, "before.txt"))
        compact_read(new, os.path.join(out_dir, "before-whole.txt"), whole=True)
        session(new)
        after_new = compact_read(new, os.path.join(out_dir, "after-new.txt"))
        compact_read(new, os.path.join(out_dir, "after-new-whole.txt"), whole=True)
        subprocess.run(["pkill", "-f", "cli keeper"])
        after_old = compact_read(old, os.path.join(out_dir, "after-old.txt"))
        compact_read(old, os.path.join(out_dir, "after-old-whole.txt"), whole=True)
    finally:
        browser.terminate()
        browser.wait()
        subprocess.run(["rm", "-rf", profile])
    pw = subprocess.run([VENV_PY, os.path.join(ROOT, "bench/playwright_snapshot.py"), os.path.join(out_dir, "playwright"), PAGE],
                        capture_output=True, text=True)
    names = ("before.txt", "after-new.txt", "after-old.txt", "before-whole.txt", "after-new-whole.txt",
             "after-old-whole.txt")
    files = [os.path.join(out_dir, f) for f in names]
    pw_file = None
    if pw.returncode == 0:
        pw_file = json.loads(pw.stdout).get(PAGE, {}).get("file")
        if pw_file:
            files.append(pw_file)
    counts = tokens(files)
    res = {"before": counts[files[0]], "after_new": counts[files[1]], "after_old": counts[files[2]],
           "whole_before": counts[files[3]], "whole_after_new": counts[files[4]],
           "whole_after_old": counts[files[5]],
           "before_max_id": max(ids_of(before), default=0), "after_max_id": max(ids_of(after_new), default=0),
           "elements_after": len(ids_of(after_new)), "elements_before": len(ids_of(before)),
           "ids_after_old_max": max(ids_of(after_old), default=0)}
    if pw_file:
        res["playwright"] = counts[pw_file]
    else:
        res["playwright_error"] = pw.stderr[-300:]
    return res


def main():
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    builds = [("old", old), ("new", new)]
    out_dir = os.path.join(ROOT, "bench/out/ids")
    os.makedirs(out_dir, exist_ok=True)
    # The token session first, on a window the sandbox never had: its ids start at 1.
    res = {"tokens": token_session(builds, out_dir)}
    gtk = subprocess.Popen(["gtk3-widget-factory"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="desktop-cli-ids-speed-")
    browser = chromium(profile)
    try:
        wait_for(new, TARGETS["gtk3"], "checkbutton")
        wait_for(new, TARGETS["chromium"], "Opt Lagoon")
        res["speed"] = speed(builds, rounds)
    finally:
        browser.terminate()
        gtk.terminate()
        browser.wait()
        gtk.wait()
        subprocess.run(["rm", "-rf", profile])
    subprocess.run(["pkill", "-f", "cli keeper"])
    with open(os.path.join(ROOT, "bench/out/ids.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
