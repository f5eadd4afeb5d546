#!/usr/bin/python3
"""Whole-process `screenshot` of the whole screen at a sweep of scales, the scales
interleaved call by call: where a scaled screenshot costs more than the unscaled one.

    python3 bench/scales.py BIN [SCALES] [RUNS] [FORMAT]   # on the current display
    python3 bench/scales.py target/release/desktop-cli 1.0,0.95,0.9,0.8,0.7,0.6,0.5 21 jpg
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    bin_ = sys.argv[1]
    scales = (sys.argv[2] if len(sys.argv) > 2 else "1.0,0.9,0.8,0.7,0.6,0.5").split(",")
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 21
    fmt = sys.argv[4] if len(sys.argv) > 4 else "jpg"
    out = os.path.join(tempfile.mkdtemp(prefix="scales-"), f"shot.{fmt}")
    ms = {s: [] for s in scales}
    for _ in range(runs):
        for s in scales:
            t = time.perf_counter()
            r = subprocess.run([bin_, "screenshot", "--format", fmt, "--scale", s, "--output", out],
                               capture_output=True, text=True)
            ms[s].append((time.perf_counter() - t) * 1000)
            if r.returncode != 0:
                sys.exit(f"scale {s}: {r.stdout} {r.stderr}")
    os.remove(out)
    os.rmdir(os.path.dirname(out))
    print(json.dumps({s: round(statistics.median(v), 2) for s, v in ms.items()}))


if __name__ == "__main__":
    main()
