#!/usr/bin/python3
"""Wayland against X11, in one run: a fresh X11 sandbox and a fresh Wayland (sway) sandbox,
each with the GTK 3 form (tests/fixtures/form_gtk.py), and whole-process medians of
`read -i`, `click --id` on its check box, `type --id --replace` into its name field, and a
PNG screenshot of the screen at scale 1; on Wayland also `grim` (screencopy as a process)
writing the same PNG. Ratios are taken within the run (the machine is noisy).

    bench/wayland.py            (RUNS=N for more runs; default 15)
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
RUNS = int(os.environ.get("RUNS", "15"))
FORM = os.path.join(ROOT, "tests/fixtures/form_gtk.py")


def cli(env, *args):
    out = subprocess.run([BIN, *args], env=env, capture_output=True, text=True)
    doc = json.loads(out.stdout)
    if not doc["ok"]:
        sys.exit(f"{args}: {doc['error']}")
    return doc["data"]


def timed(env, argv):
    t = time.perf_counter()
    out = subprocess.run(argv, env=env, capture_output=True)
    took = (time.perf_counter() - t) * 1000
    if out.returncode != 0:
        sys.exit(f"{argv}: {out.stdout[:300]} {out.stderr[:300]}")
    return took


def median(env, argv):
    return statistics.median(timed(env, argv) for _ in range(RUNS))


def desk(wayland):
    base = {k: v for k, v in os.environ.items()
            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "DESKTOP_CLI_SANDBOX", "AT_SPI_BUS_ADDRESS")}
    up = [BIN, "sandbox", "up"] + (["--wayland"] if wayland else [])
    data = json.loads(subprocess.run(up, env=base, capture_output=True, text=True).stdout)["data"]
    env = dict(base, **data["env"])
    for k in ("DISPLAY", "XAUTHORITY") if wayland else ():
        env.pop(k, None)
    cli(env, "launch", "--", "/usr/bin/python3", FORM)
    return env, data["display"]


def ids(env):
    els = cli(env, "read", "-i", "--window", "GTK Form")["elements"]
    find = lambda r, t: next(str(e["i"]) for e in els if e["r"] == r and e["t"] == t)
    return find("chk", "Accept terms"), find("input", "Full name")


def measure(env, shot):
    chk, name = ids(env)
    return {
        "read": median(env, [BIN, "read", "-i", "--window", "GTK Form"]),
        "click": median(env, [BIN, "click", "--id", chk, "--window", "GTK Form"]),
        "type": median(env, [BIN, "type", "--id", name, "--replace", "Ada Lovelace",
                             "--window", "GTK Form"]),
        "screenshot": median(env, [BIN, "screenshot", "--scale", "1", "--output", shot]),
    }


def main():
    tmp = tempfile.mkdtemp(prefix="desktop-cli-bench-wl-")
    shot = os.path.join(tmp, "shot.png")
    x11, xd = desk(False)
    wl, wd = desk(True)
    try:
        rx = measure(x11, shot)
        rw = measure(wl, shot)
        rw["grim"] = median(wl, ["grim", "-t", "png", shot])
    finally:
        subprocess.run([BIN, "sandbox", "down", "--display", xd.lstrip(":")], env=x11,
                       capture_output=True)
        subprocess.run([BIN, "sandbox", "down", "--display", wd.lstrip(":")], env=wl,
                       capture_output=True)
    print(f"{'whole process, median of ' + str(RUNS):<34} {'X11':>8} {'Wayland':>8} {'ratio':>6}")
    for k in ("read", "click", "type", "screenshot"):
        print(f"{k:<34} {rx[k]:>8.1f} {rw[k]:>8.1f} {rw[k] / rx[k]:>6.2f}")
    print(f"{'grim (screencopy, PNG)':<34} {'':>8} {rw['grim']:>8.1f} "
          f"{rw['grim'] / rw['screenshot']:>6.2f}x ours")
    json.dump({"x11": rx, "wayland": rw, "runs": RUNS}, sys.stderr)


if __name__ == "__main__":
    main()
