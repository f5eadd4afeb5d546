#!/usr/bin/python3
"""`view` against a VNC server on the same display (x11vnc, XDAMAGE on, one client speaking
RFB 3.8 with raw encoding and an update request always outstanding), in the same run, on a
fresh 1280x800 and 3840x2160 sandbox: CPU of the server process while the screen is idle
(10 s), the time from a screen change (`xsetroot -solid`, a root-window repaint, timed from
when it returns) to the `frame` event on /events, or to the start of the VNC framebuffer
update (RUNS changes, median and worst), and CPU and updates per second while the screen
changes every 50 ms for 5 s.

    bench/view.py
    RUNS=40 bench/view.py
"""

import json
import struct
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


class Rfb:
    """A VNC viewer that only counts updates: RFB 3.8, no auth, raw encoding."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.recvn(12)
        self.s.sendall(b"RFB 003.008\n")
        n = self.recvn(1)[0]
        if 1 not in self.recvn(n):
            sys.exit("x11vnc asks for a password")
        self.s.sendall(b"\x01")
        self.recvn(4)
        self.s.sendall(b"\x01")
        self.w, self.h = struct.unpack(">HH", self.recvn(4))
        self.bpp = self.recvn(16)[0] // 8
        self.recvn(struct.unpack(">I", self.recvn(4))[0])
        self.s.sendall(struct.pack(">BxHi", 2, 1, 0))
        self.ask(0)

    def recvn(self, n):
        b = b""
        while len(b) < n:
            chunk = self.s.recv(n - len(b))
            if not chunk:
                sys.exit("x11vnc closed the connection")
            b += chunk
        return b

    def ask(self, incremental):
        self.s.sendall(struct.pack(">BBHHHH", 3, incremental, 0, 0, self.w, self.h))

    def update(self, timeout):
        """The time the next framebuffer update began to arrive, or None; asks for the next."""
        while True:
            self.s.settimeout(timeout)
            try:
                kind = self.s.recv(1)
            except socket.timeout:
                return None
            t = time.perf_counter()
            self.s.settimeout(None)
            if kind == b"\x00":
                self.recvn(1)
                for _ in range(struct.unpack(">H", self.recvn(2))[0]):
                    _, _, w, h, enc = struct.unpack(">HHHHi", self.recvn(12))
                    if enc == 0:
                        self.recvn(w * h * self.bpp)
                self.ask(1)
                return t
            if kind == b"\x02":
                continue
            if kind == b"\x03":
                self.recvn(3)
                self.recvn(struct.unpack(">I", self.recvn(4))[0])
                continue
            sys.exit(f"unexpected RFB message {kind!r}")

    def drain(self, quiet):
        while self.update(quiet) is not None:
            pass

    frame = update


COLORS = ["#203040", "#405060", "#604020"]
SHOWN = [0]


def change(env):
    """Paints the root a colour other than the one it has (a VNC server sends nothing for a
    repaint that changes no pixel)."""
    SHOWN[0] += 1
    subprocess.run(["xsetroot", "-solid", COLORS[SHOWN[0] % 3]], env=env, check=True)


def measure(pid, ev, env):
    ev.drain(1.0)
    c0 = cpu_seconds(pid)
    time.sleep(10)
    idle = (cpu_seconds(pid) - c0) / 10 * 100
    lat = []
    for i in range(RUNS):
        ev.drain(0.3)
        change(env)
        t0 = time.perf_counter()
        t = ev.frame(5)
        if t is None:
            sys.exit("no frame after a change")
        lat.append((t - t0) * 1000)
    ev.drain(0.3)
    c0 = cpu_seconds(pid)
    frames = 0
    end = time.perf_counter() + 5
    i = 0
    while time.perf_counter() < end:
        change(env)
        time.sleep(0.05)
        while ev.frame(0.002) is not None:
            frames += 1
    busy = (cpu_seconds(pid) - c0) / 5 * 100
    return {
        "idle_cpu_percent": round(idle, 2),
        "change_to_frame_ms_median": round(statistics.median(lat), 1),
        "change_to_frame_ms_max": round(max(lat), 1),
        "busy_cpu_percent": round(busy, 1),
        "busy_frames_per_s": round(frames / 5, 1),
    }


def run(size):
    out = subprocess.run([BIN, "sandbox", "up", "--size", size], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)["data"]
    env = dict(os.environ)
    env.update(data["env"])
    view = subprocess.Popen([BIN, "view"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = json.loads(view.stdout.readline())["data"]["url"]
        addr, token = url.removeprefix("http://").split("/?token=")
        ours = measure(view.pid, Events(addr, token), env)
    finally:
        view.terminate()
        view.wait()
    port = 5990 + int(data["display"].lstrip(":"))
    vnc = subprocess.Popen(
        ["x11vnc", "-display", data["display"], "-auth", env["XAUTHORITY"], "-rfbport", str(port),
         "-localhost", "-nopw", "-forever", "-shared", "-quiet"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                client = Rfb(port)
                break
            except (ConnectionRefusedError, OSError):
                time.sleep(0.1)
        else:
            sys.exit("x11vnc did not start")
        peer = measure(vnc.pid, client, env)
        return {"size": size, "view": ours, "x11vnc": peer}
    finally:
        vnc.terminate()
        vnc.wait()
        subprocess.run([BIN, "sandbox", "down", "--display", data["display"]], capture_output=True)


if __name__ == "__main__":
    print(json.dumps([run(s) for s in SIZES], indent=1))
