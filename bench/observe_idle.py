#!/usr/bin/python3
"""`observe` on an idle window: builds alternated, each observing the Chromium fixture page
as `bench/bench.py`'s `bench_see` does (`--visible-only=false --ignore-bounds
--ignore-focus`), its own keeper started first; the observe process's CPU (user + system)
over 20 s after the snapshot and a second, in % of a core.

    python3 bench/observe_idle.py ROUNDS BIN [BIN...]   # in a sandbox showing tests/fixtures/page.html
"""

import os
import subprocess
import sys
import time


def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main():
    rounds, bins = int(sys.argv[1]), sys.argv[2:]
    for _ in range(rounds):
        for b in bins:
            subprocess.run(["pkill", "-f", "cli keeper"])
            time.sleep(0.3)
            subprocess.run([b, "read", "--app", "chromium"], capture_output=True)
            p = subprocess.Popen([b, "observe", "--app", "chromium", "--visible-only=false", "--ignore-bounds",
                                  "--ignore-focus"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            try:
                p.stdout.readline()
                time.sleep(1.0)
                before = ticks(p.pid)
                time.sleep(20)
                hz = os.sysconf("SC_CLK_TCK")
                print(b, "idle CPU %.2f %% of a core" % ((ticks(p.pid) - before) / hz / 20 * 100), flush=True)
            finally:
                p.terminate()
                p.wait()


if __name__ == "__main__":
    main()
