#!/usr/bin/python3
"""`view` measured against the issue's targets, on a fresh 1280x800 and 3840x2160 sandbox:
CPU of the view process while the screen is idle (10 s), the time from a screen change
(`xsetroot -solid`, a root-window repaint, timed from when it returns) to the `frame` event
on /events (RUNS changes, median and worst), and CPU and frames per second while the screen
changes every 50 ms for 5 s.

    bench/view.py
    RUNS=40 bench/view.py
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target/release/desktop-cli")
RUNS = int(os.environ.get("RUNS", "20"))
SIZES = ["1280x800", "3840x2160"]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Events:
    """The /events stream, read line by line from a raw socket."""

    def __init__(self, addr, token):
        host, port = addr.split(":")
        self.s = socket.create_connection((host, int(port)))
        self.s.sendall(f"GET /events?token={token} HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode())
        self.buf = b""

    def frame(self, timeout):
        """Seconds until the next `event: frame` line, or None."""
        end = time.perf_counter() + timeout
        while True:
            if b"event: frame" in self.buf:
                self.buf = self.buf.split(b"event: frame", 1)[1]
                return time.perf_counter()
            left = end - time.perf_counter()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                chunk = self.s.recv(65536)
            except socket.timeout:
                return None
            self.buf += chunk

    def drain(self, quiet):
        while self.frame(quiet) is not None:
            pass


def run(size):
    out = subprocess.run([BIN, "sandbox", "up", "--size", size], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)["data"]
    env = dict(os.environ)
    env.update(data["env"])
    view = subprocess.Popen([BIN, "view"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = json.loads(view.stdout.readline())["data"]["url"]
        addr, token = url.removeprefix("http://").split("/?token=")
        ev = Events(addr, token)
        ev.drain(1.0)
        c0 = cpu_seconds(view.pid)
        time.sleep(10)
        idle = (cpu_seconds(view.pid) - c0) / 10 * 100
        lat = []
        for i in range(RUNS):
            ev.drain(0.3)
            subprocess.run(["xsetroot", "-solid", ["#203040", "#405060"][i % 2]], env=env, check=True)
            t0 = time.perf_counter()
            t = ev.frame(5)
            if t is None:
                sys.exit("no frame after a change")
            lat.append((t - t0) * 1000)
        ev.drain(0.3)
        c0 = cpu_seconds(view.pid)
        frames = 0
        end = time.perf_counter() + 5
        i = 0
        while time.perf_counter() < end:
            subprocess.run(["xsetroot", "-solid", ["#203040", "#405060"][i % 2]], env=env, check=True)
            i += 1
            time.sleep(0.05)
            while ev.frame(0.002) is not None:
                frames += 1
        busy = (cpu_seconds(view.pid) - c0) / 5 * 100
        return {
            "size": size,
            "idle_cpu_percent": round(idle, 2),
            "change_to_frame_ms_median": round(statistics.median(lat), 1),
            "change_to_frame_ms_max": round(max(lat), 1),
            "busy_cpu_percent": round(busy, 1),
            "busy_frames_per_s": round(frames / 5, 1),
        }
    finally:
        view.terminate()
        view.wait()
        subprocess.run([BIN, "sandbox", "down", "--display", data["display"]], capture_output=True)


if __name__ == "__main__":
    print(json.dumps([run(s) for s in SIZES], indent=1))
