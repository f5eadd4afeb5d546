#!/usr/bin/python3
"""A click on a button that changes the window, as a whole process, against the peer's
bare click plus the time until the change is readable.

Ours: `desktop-cli click --id N` on an Increment button (the command answers once the app
has taken the click and its tree shows the reaction). Peer: `xdotool mousemove X Y click 1`
at the button's center, then libatspi (in this process, connected and warm, its cache off)
asked for the counter's text until it changed: the least a client that must see the effect
pays. Interleaved, medians.

By text as well: `desktop-cli click --text Increment --exact --window TITLE` (whole process,
answered by the keeper) against the dogtail way, libatspi looking for the button by its name
from the window down (in this process, warm), then the same bare click and wait. Apps: Chromium on tests/fixtures/page.html (already running, as
in bench/run.sh), and the GTK 3 and Qt 5 forms of tests/fixtures (started here).

usage: click_bench.py BIN RUNS      prints JSON
"""
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests/fixtures")
warnings.simplefilter("ignore", DeprecationWarning)  # get_text_iface: the one call that works on every version


def cli(bin_, *args):
    r = subprocess.run([bin_, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{args}: {r.stdout} {r.stderr}")
    return json.loads(r.stdout)["data"]


def find(acc, pred, depth=0):
    """The first node under `acc` (depth first) that `pred` accepts."""
    if acc is None or depth > 40:
        return None
    if pred(acc):
        return acc
    for i in range(acc.get_child_count()):
        hit = find(acc.get_child_at_index(i), pred, depth + 1)
        if hit:
            return hit
    return None


def window_of(title):
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        for j in range(app.get_child_count() if app else 0):
            w = app.get_child_at_index(j)
            if w is not None and title in (w.get_name() or ""):
                return w
    return None


def increment(bin_, title):
    """The Increment button as a read shows it (its id and box)."""
    data = cli(bin_, "read", "--window", title, "--text", "Increment", "--roles", "btn")

    def walk(es):
        for e in es:
            if e.get("t") == "Increment":
                return e
            hit = walk(e.get("c", []))
            if hit:
                return hit

    return walk(data["elements"])


def text_of(acc):
    """What the counter says: a label's name, or a paragraph's text with its children's
    (Chromium: the number is an inline element, replaced on each change)."""
    t = acc.get_text_iface()
    if t is None:
        return acc.get_name()
    kids = [acc.get_child_at_index(i) for i in range(acc.get_child_count())]
    return t.get_text(0, -1) + "|".join(text_of(k) for k in kids if k is not None)


def one_app(bin_, runs, title, counter):
    """Interleaved rounds on the window titled `title`; `counter` tells the counter node."""
    win = None
    deadline = time.time() + 30
    while win is None and time.time() < deadline:
        win = window_of(title)
        time.sleep(0.2)
    if win is None:
        sys.exit(f"no window {title}")
    node = find(win, counter)
    b = increment(bin_, title)["b"]
    x, y = b[0] + b[2] // 2, b[1] + b[3] // 2
    ours, settle, peer, bare, by_text, peer_text = [], [], [], [], [], []
    for _ in range(runs):
        # By text: the command finds the button in the window as it is now.
        t = time.perf_counter()
        subprocess.run([bin_, "click", "--text", "Increment", "--exact", "--window", title],
                       capture_output=True, text=True, check=True)
        by_text.append((time.perf_counter() - t) * 1000)
        time.sleep(0.3)
        before = text_of(node)
        t = time.perf_counter()
        button = find(win, lambda a: a.get_name() == "Increment")
        ext = button.get_extents(Atspi.CoordType.SCREEN)
        cx, cy = ext.x + ext.width // 2, ext.y + ext.height // 2
        subprocess.run(["xdotool", "mousemove", str(cx), str(cy), "click", "--delay", "0", "1"], check=True)
        while text_of(node) == before:
            if time.perf_counter() - t > 3:
                sys.exit(f"{title}: the peer's click by name changed nothing")
        peer_text.append((time.perf_counter() - t) * 1000)
        time.sleep(0.3)
        # Ours: the id from a read, as an agent has it; the click answers when settled.
        el = increment(bin_, title)
        t = time.perf_counter()
        r = subprocess.run([bin_, "click", "--id", str(el["i"]), "--timing"], capture_output=True, text=True)
        ours.append((time.perf_counter() - t) * 1000)
        for part in r.stderr.split():
            if part.startswith("settle="):
                settle.append(float(part[7:]))
        time.sleep(0.3)
        # The peer: a bare click, then the counter asked until it changed.
        before = text_of(node)
        t = time.perf_counter()
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "--delay", "0", "1"], check=True)
        bare.append((time.perf_counter() - t) * 1000)
        while text_of(node) == before:
            if time.perf_counter() - t > 3:
                sys.exit(f"{title}: the peer's click changed nothing")
        peer.append((time.perf_counter() - t) * 1000)
        time.sleep(0.3)
    med = statistics.median
    return {"click_id_ms": med(ours), "settle_ms": med(settle) if settle else None,
            "xdotool_ms": med(bare), "xdotool_until_readable_ms": med(peer),
            "click_text_ms": med(by_text), "peer_find_click_until_readable_ms": med(peer_text)}


def named(prefix):
    return lambda a: (a.get_name() or "").startswith(prefix)


def paragraph_with(word):
    def pred(a):
        if a.get_role() != Atspi.Role.PARAGRAPH:
            return False
        t = a.get_text_iface()
        return t is not None and word in t.get_text(0, -1)
    return pred


def main():
    bin_, runs = sys.argv[1], int(sys.argv[2])
    Atspi.set_timeout(3000, 3000)
    out = {"chromium": one_app(bin_, runs, "Fixture Page", paragraph_with("Counter"))}
    for name, script in [("gtk3", "form_gtk.py"), ("qt5", "form_qt.py")]:
        proc = subprocess.Popen(["/usr/bin/python3", os.path.join(FIXTURES, script)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            out[name] = one_app(bin_, runs, "Form", named("Count "))
        finally:
            proc.terminate()
            proc.wait(timeout=5)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
