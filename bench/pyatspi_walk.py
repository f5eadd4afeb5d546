#!/usr/bin/python3
"""The peer the benchmark compares with: a pyatspi walk of one app's showing window, the way
pyatspi-based tools read a tree (role, name, children; with --extents, screen extents too).

usage: pyatspi_walk.py APP_SUBSTRING [--extents] [--repeat N] [--cap N] [--window TITLE]
prints {"nodes": N, "ms": [walk times in ms]} (times exclude interpreter start-up)
--cap N: a container with more than N children is walked into its first N only (without a
bound a LibreOffice Calc sheet, 2^31 cells built on request, is never walked to the end).
--window: the window whose title holds TITLE (any app).
"""
import json
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402


def walk(acc, extents, cap):
    n = 1
    acc.get_role()
    acc.get_name()
    if extents:
        try:
            acc.get_extents(Atspi.CoordType.SCREEN)
        except gi.repository.GLib.GError:
            pass  # no Component (GTK 4's stack pages)
    count = acc.get_child_count()
    for i in range(min(count, cap) if cap else count):
        c = acc.get_child_at_index(i)
        if c is not None:
            n += walk(c, extents, cap)
    return n


def find_window(sub, title=None):
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is None or (title is None and sub not in (app.get_name() or "").lower()):
            continue
        for j in range(app.get_child_count()):
            win = app.get_child_at_index(j)
            if win is None or not win.get_state_set().contains(Atspi.StateType.SHOWING):
                continue
            if title is None or title in (win.get_name() or "").lower():
                return win
    return None


def main():
    sub = sys.argv[1].lower()
    extents = "--extents" in sys.argv
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
    cap = int(sys.argv[sys.argv.index("--cap") + 1]) if "--cap" in sys.argv else 0
    title = sys.argv[sys.argv.index("--window") + 1].lower() if "--window" in sys.argv else None
    # libatspi would answer repeated walks from its own cache: turn it off, as every
    # fresh pyatspi process effectively has it.
    times = []
    nodes = 0
    for _ in range(repeat):
        t = time.perf_counter()
        win = find_window(sub, title)
        if win is None:
            print(json.dumps({"error": "no window"}))
            return 1
        win.get_application().set_cache_mask(Atspi.Cache.NONE)
        nodes = walk(win, extents, cap)
        times.append((time.perf_counter() - t) * 1000)
        Atspi.Accessible.clear_cache(win)
    print(json.dumps({"nodes": nodes, "ms": times}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
