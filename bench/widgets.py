#!/usr/bin/python3
"""Everyday controls benchmark, run inside a fresh sandbox by `bench/run.sh --widgets`.

The scripted tasks of `cargo test --test widgets` on the jQuery UI page in Chromium
(tests/fixtures/widgets.html) and the GTK3 and Qt5 windows (widgets_gtk.py, widgets_qt.py),
played as an agent plays them: for each task, rounds solved (the effect read back from the
app's status text), desktop-cli calls per round and milliseconds per round, whole process.
Beside them, in the same run, the way an agent had to do the key tasks before key sequences
(one `press` process per key), and the tokens (o200k) of `read -i` of the page, whose feed
has 20 icon-only buttons, next to its whole tree.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import PY, ROOT, APPS, cli, flatten, med, stop, tokens  # noqa: E402

import subprocess  # noqa: E402

ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 10
WEB, GTK, QT = "Widgets Page", "GTK Widgets", "Qt Widgets"


class Agent:
    """Runs desktop-cli commands and counts them and their time (checks are not counted)."""

    def __init__(self):
        self.calls = 0
        self.ms = 0.0

    def run(self, *args, ok=True):
        t = time.perf_counter()
        r = cli(*args)
        self.ms += (time.perf_counter() - t) * 1000
        self.calls += 1
        if ok and r.returncode != 0:
            raise RuntimeError(f"{args}: {r.stdout} {r.stderr}")
        return json.loads(r.stdout).get("data", {})


def status(window, prefix):
    """The value after `prefix` in the window's status text (`;` or a line ends it)."""
    data = json.loads(cli("read", "--window", window, "--text", prefix).stdout)["data"]
    for e in flatten(data["elements"]):
        t = e.get("t", "")
        for line in t.splitlines():
            if prefix in line:
                return line.split(prefix, 1)[1].split(";")[0].strip()
    return None


def settled(window, prefix, check):
    """Whether the status comes to pass `check` within 3 s."""
    deadline = time.time() + 3
    while time.time() < deadline:
        v = status(window, prefix)
        if v is not None and check(v):
            return True
        time.sleep(0.05)
    return False


def ids(data, role=None, name=None, hint=None):
    return [e["i"] for e in flatten(data["elements"])
            if (role is None or e["r"] == role) and (name is None or e.get("t") == name)
            and (hint is None or e.get("h") == hint)]


def task_like(a, n):
    """Like post n by its icon: read -i, click the n-th `like` by id."""
    # Checks read too (and so renumber): only before the agent's read, never between.
    before = status(WEB, "liked:") or ""
    data = a.run("read", "--window", WEB, "-i")
    a.run("click", "--window", WEB, "--id", str(ids(data, hint="like")[n % 5]))
    post = f"post{n % 5 + 1}"
    return settled(WEB, "liked:", lambda v: (post in v.split(",")) != (post in before.split(",")))


def ctrl_select(window):
    def task(a, n):
        chosen = [["Red", "Yellow", "Blue"], ["Orange", "Green", "Violet"]][n % 2]
        data = a.run("read", "--window", window, "--roles", "item")
        first = next(e for e in flatten(data["elements"]) if e.get("t") == chosen[0])
        b = first["b"]
        a.run("click", "--window", window, "--x", str(b[0] + b[2] // 2), "--y", str(b[1] + b[3] // 2))
        for name in chosen[1:]:
            a.run("click", "--window", window, "--id", str(ids(data, "item", name)[0]), "--modifiers", "ctrl")
        return settled(window, "colors:", lambda v: v == ",".join(chosen))
    return task


def task_slider(a, n):
    """The slider handle by hint; Home, then Right 30-40 times in one press."""
    steps = 40 - (n % 3) * 5
    handle = str(ids(a.run("read", "--window", WEB, "-i"), hint="ui-slider-handle")[0])
    a.run("press", "--window", WEB, "--id", handle, "home")
    a.run("press", "--window", WEB, "--id", handle, "right", "--repeat", str(steps))
    return settled(WEB, "volume:", lambda v: v == str(steps))


def task_slider_one_key_per_call(a, n):
    """The same slider the way it took before key sequences: a process per key."""
    steps = 40 - (n % 3) * 5
    handle = str(ids(a.run("read", "--window", WEB, "-i"), hint="ui-slider-handle")[0])
    a.run("press", "--window", WEB, "--id", handle, "home")
    for _ in range(steps):
        a.run("press", "--window", WEB, "--id", handle, "right")
    return settled(WEB, "volume:", lambda v: v == str(steps))


def combo(window, label):
    def task(a, n):
        want = ["Cherry", "Damson plum", "Apple", "Banana"][n % 4]
        if label:
            a.run("set-value", "--window", window, "--text", label, "--value", want)
        else:
            data = a.run("read", "--window", window, "--roles", "combo")
            a.run("set-value", "--window", window, "--id", str(ids(data, "combo")[0]), "--value", want)
        return settled(window, "fruit:", lambda v: v == want)
    return task


def far_item(window):
    def task(a, n):
        name = f"Message {30 + (n * 7) % 21}"
        a.run("click", "--window", window, "--text", name, "--exact")
        return settled(window, "clicked:", lambda v: v == name)
    return task


def task_sortable(a, n):
    data = a.run("read", "--window", WEB, "-i")
    items = sorted((e for e in flatten(data["elements"]) if e["r"] == "item"
                    and e.get("t") in ("Alpha", "Bravo", "Charlie", "Delta")), key=lambda e: e["b"][1])
    frm, to = (3, 0) if n % 2 == 0 else (0, 2)
    a.run("drag", "--window", WEB, "--from-id", str(items[frm]["i"]), "--to-id", str(items[to]["i"]))
    order = [e["t"] for e in items]
    order.insert(to, order.pop(frm))
    return settled(WEB, "order:", lambda v: v == ",".join(order))


def task_autocomplete(a, n):
    typed, pick = [("Ber", "Bern"), ("Lo", "London"), ("Li", "Lisbon"), ("Am", "Amsterdam")][n % 4]
    data = a.run("read", "--window", WEB, "--roles", "input")
    a.run("type", "--window", WEB, "--id", str(ids(data, "input", "City")[0]), "--replace", typed)
    a.run("wait", "--window", WEB, "--for-text", pick, "--timeout", "5000")
    a.run("click", "--window", WEB, "--text", pick, "--exact")
    return settled(WEB, "city:", lambda v: v == pick)


def task_dialog(a, n):
    answer, state = [("Delete", "deleted"), ("Cancel", "kept")][n % 2]
    a.run("click", "--window", WEB, "--text", "Open dialog", "--exact")
    a.run("wait", "--window", WEB, "--for-role", "dialog", "--timeout", "5000")
    a.run("click", "--window", WEB, "--text", answer, "--exact")
    ok = settled(WEB, "dialog:", lambda v: v == state)
    cli("wait", "--window", WEB, "--for-role", "dialog", "--gone", "--timeout", "5000")
    return ok


def task_date(a, n):
    day = 3 + (n * 2) % 24
    a.run("click", "--window", WEB, "--text", "Date", "--exact")
    a.run("wait", "--window", WEB, "--for-text", "Next", "--timeout", "5000")
    a.run("click", "--window", WEB, "--text", str(day), "--exact")
    ok = settled(WEB, "date:", lambda v: v.endswith(f"-{day:02}"))
    cli("wait", "--window", WEB, "--for-text", "Next", "--gone", "--timeout", "5000")
    return ok


def icons(window):
    def task(a, n):
        tip = ["Search", "Save", "Delete"][n % 3]
        before = status(window, "pressed:") or ""
        a.run("click", "--window", window, "--text", tip, "--exact")
        return settled(window, "pressed:", lambda v: v.count(tip) == before.count(tip) + 1)
    return task


TASKS = [
    ("web: like a post by its icon (hint)", task_like),
    ("web: three colors ctrl-selected", ctrl_select(WEB)),
    ("web: slider moved 30-40 steps, one press", task_slider),
    ("web: the same, a process per key (before)", task_slider_one_key_per_call),
    ("web: select set by option text", combo(WEB, "Fruit")),
    ("web: message 30-50 rows down clicked", far_item(WEB)),
    ("web: sortable item dragged into place", task_sortable),
    ("web: autocomplete suggestion chosen", task_autocomplete),
    ("web: modal dialog answered", task_dialog),
    ("web: date picked", task_date),
    ("gtk3: icon tool button by tooltip", icons(GTK)),
    ("gtk3: three rows ctrl-selected", ctrl_select(GTK)),
    ("gtk3: combo set by option text", combo(GTK, None)),
    ("gtk3: message 30-50 rows down clicked", far_item(GTK)),
    ("qt5: icon tool button by tooltip", icons(QT)),
    ("qt5: three items ctrl-selected", ctrl_select(QT)),
    ("qt5: combo set by option text", combo(QT, None)),
    ("qt5: message 30-50 rows down clicked", far_item(QT)),
]


def bench_tasks():
    rows = []
    for name, task in TASKS:
        solved, calls, ms = 0, [], []
        for n in range(ROUNDS):
            a = Agent()
            try:
                ok = task(a, n)
            except (RuntimeError, StopIteration, IndexError, KeyError) as e:
                print(f"{name}, round {n}: {e}", file=sys.stderr)
                ok = False
            solved += ok
            calls.append(a.calls)
            ms.append(a.ms)
        rows.append({"task": name, "solved": solved, "rounds": ROUNDS, "calls": med(calls), "ms": med(ms)})
    return rows


def bench_page_tokens():
    out = os.path.join(ROOT, "bench/out")
    os.makedirs(out, exist_ok=True)
    files = {}
    for key, args in (("full", ["--full"]), ("interactive", ["-i"])):
        data = json.loads(cli("read", "--window", WEB, *args).stdout)["data"]
        web = next(e for e in flatten(data["elements"]) if e["r"] == "web")
        path = os.path.join(out, f"widgets-{key}.json")
        with open(path, "w") as f:
            json.dump(web, f, separators=(",", ":"), ensure_ascii=False)
        files[key] = path
        if key == "interactive":
            hinted = sum(1 for e in flatten([web]) if e.get("h") in ("reply", "retweet", "like", "more"))
        else:
            unnamed_icons = sum(1 for e in flatten([web]) if e["r"] in ("img", "group") and not e.get("t")
                                and e.get("b", [0, 0, 0, 0])[2] == 18)
    text = cli("read", "--window", WEB, "-i", "--format", "text").stdout
    page = "\n".join(l for l in text.splitlines()[1:] if l.startswith("  "))
    files["interactive_text"] = os.path.join(out, "widgets-interactive.txt")
    with open(files["interactive_text"], "w") as f:
        f.write(page)
    t = tokens(list(files.values()))
    return {"tokens": {k: t[v] for k, v in files.items()}, "icons_with_hints": hinted,
            "icons_unnamed_in_full_tree": unnamed_icons}


def wait_window(title):
    deadline = time.time() + 40
    while time.time() < deadline:
        r = cli("read", "--window", title, "--max-elements", "1")
        if r.returncode == 0:
            return
        time.sleep(0.2)
    sys.exit(f"{title} did not come up")


def main():
    chromium = APPS["chromium"]["cmd"][:-2] + ["--user-data-dir=/tmp/desktop-cli-bench-widgets",
                                               "file://" + os.path.join(ROOT, "tests/fixtures/widgets.html")]
    procs = []
    try:
        for cmd, title in ((chromium, WEB), ([PY, os.path.join(ROOT, "tests/fixtures/widgets_gtk.py")], GTK),
                           ([PY, os.path.join(ROOT, "tests/fixtures/widgets_qt.py")], QT)):
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_window(title)
        deadline = time.time() + 20
        while status(WEB, "liked:") is None and time.time() < deadline:
            time.sleep(0.2)
        rows = bench_tasks()
        toks = bench_page_tokens()
    finally:
        stop(procs)
    with open(os.path.join(ROOT, "bench/out/widgets.json"), "w") as f:
        json.dump({"rounds": ROUNDS, "tasks": rows, "page": toks}, f, indent=1)
    print(f"everyday controls, {ROUNDS} rounds per task, whole process (median per round)\n")
    print("| task | solved | desktop-cli calls | ms |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {r['solved']}/{r['rounds']} | {r['calls']:.0f} | {r['ms']:.0f} |")
    t = toks["tokens"]
    print(f"\nwidgets page (20 icon-only buttons in its feed), tokens (o200k): whole tree {t['full']}, "
          f"read -i JSON {t['interactive']}, read -i text {t['interactive_text']}; icons with a hint in "
          f"read -i: {toks['icons_with_hints']}; unnamed 18-px icons in the whole tree: "
          f"{toks['icons_unnamed_in_full_tree']}")


if __name__ == "__main__":
    main()
