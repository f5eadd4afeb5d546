#!/usr/bin/python3
"""observe's change to event, alone: the second half of bench.py's bench_see.

In the sandbox in use, with Chromium showing tests/fixtures/page.html: starts `observe --app
chromium --visible-only=false --ignore-bounds --ignore-focus`, then N times clicks "Insert
Above" and times from the click's return to the `added` line (each click grows the page).

usage: observe_delay.py BIN [N]      prints JSON (median and every delay, ms)
"""
import json
import queue
import statistics
import subprocess
import sys
import threading
import time


def change_to_event(bin_, lines, n):
    """Clicks "Insert Above" `n` times; each delay (ms) from the click's return to the `added`
    line in `lines` (a queue of (arrival time, event) from the running observe)."""
    while not lines.empty():
        lines.get()
    delays = []
    for _ in range(n):
        r = subprocess.run([bin_, "click", "--text", "Insert Above", "--app", "chromium"], capture_output=True,
                           text=True)
        t = time.perf_counter()
        if r.returncode != 0:
            continue
        try:
            while True:
                at, ev = lines.get(timeout=3.0)
                if ev.get("type") == "added":
                    delays.append((at - t) * 1000)
                    break
        except queue.Empty:
            pass
        time.sleep(0.3)
    return delays


def main():
    bin_ = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    proc = subprocess.Popen([bin_, "observe", "--app", "chromium", "--visible-only=false", "--ignore-bounds",
                             "--ignore-focus"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put((time.perf_counter(), json.loads(line)))

    threading.Thread(target=pump, daemon=True).start()
    lines.get(timeout=20)  # the snapshot
    time.sleep(1.0)
    delays = change_to_event(bin_, lines, n)
    proc.send_signal(2)
    proc.wait(timeout=5)
    print(json.dumps({"median_ms": round(statistics.median(delays), 1) if delays else None,
                      "delays_ms": [round(d, 1) for d in delays]}))


if __name__ == "__main__":
    main()
