#!/usr/bin/python3
"""`view`'s CPU for a frame that changed a little: builds alternated, each serving `view` on
the current display while the Chromium fixture page's "Increment" button is clicked 40
times, 150 ms apart (xdotool at the button's centre, found once by `read`); each click
redraws the counter, and view makes one frame of the whole screen. Prints the view
process's CPU (user + system) per click, per build and round.

    python3 bench/view_clicks.py ROUNDS BIN [BIN...]   # in a sandbox showing tests/fixtures/page.html
"""

import json
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")
CLICKS = 40


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def button(bin_):
    out = subprocess.run([bin_, "read", "--app", "chromium", "-i"], capture_output=True, text=True)
    stack = list(json.loads(out.stdout)["data"]["elements"])
    while stack:
        el = stack.pop()
        if el.get("t") == "Increment":
            x, y, w, h = el["b"]
            return str(x + w // 2), str(y + h // 2)
        stack += el.get("c", [])
    sys.exit("no Increment button on the screen")


def main():
    rounds, bins = int(sys.argv[1]), sys.argv[2:]
    x, y = button(bins[0])
    res = {b: [] for b in bins}
    for _ in range(rounds):
        for b in bins:
            view = subprocess.Popen([b, "view"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            try:
                view.stdout.readline()
                time.sleep(1.5)
                before = cpu(view.pid)
                for _ in range(CLICKS):
                    subprocess.run(["xdotool", "mousemove", x, y, "click", "1"], check=True)
                    time.sleep(0.15)
                res[b].append(round((cpu(view.pid) - before) / CLICKS * 1000, 2))
            finally:
                view.terminate()
                view.wait()
            print(b, "CPU ms a click", res[b][-1], flush=True)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
