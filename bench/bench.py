#!/usr/bin/python3
"""Benchmark body, run inside a fresh sandbox by bench/run.sh.

Read speed: `desktop-cli read` (whole process, and in-process from its --timing line) against
a pyatspi walk of the same window (in-process walk, and a whole python process walking with
extents), on GTK3, Chromium and Qt5, interleaved run by run so drift hits both alike.
Agent: a turn's overhead besides the model against a pyatspi-based agent's turn.
Tokens: o200k counts of the elements of seed 000's compact JSON (every element: `--full
--actions`), our default read, `read -i` as JSON and as text.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target/release/desktop-cli")
PY = "/usr/bin/python3"
WALK = os.path.join(ROOT, "bench/pyatspi_walk.py")
RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 20

APPS = {
    "gtk3": {"cmd": ["gtk3-widget-factory"], "app": "gtk3-widget-factory"},
    "chromium": {
        "cmd": ["chromium", "--no-sandbox", "--force-renderer-accessibility", "--test-type", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-features=Translate", "--window-position=0,0",
                "--window-size=1200,780", "--user-data-dir=/tmp/desktop-cli-bench-chromium",
                "file://" + os.path.join(ROOT, "tests/fixtures/page.html")],
        "app": "chromium",
        "ready": "Fixture Page",
    },
    "qt5": {"cmd": ["featherpad"], "app": "featherpad"},
}


def cli(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def wait_ready(name, spec):
    deadline = time.time() + 40
    while time.time() < deadline:
        r = cli("read", "--app", spec["app"], "--text", spec.get("ready", ""), "--max-elements", "1") if spec.get("ready") \
            else cli("list", "--app", spec["app"])
        if r.returncode == 0:
            data = json.loads(r.stdout)["data"]
            if data.get("count", 0) > 0 or any(w.get("title") for w in data.get("windows", [])):
                time.sleep(1.0)  # let the app settle after its first paint
                return
        time.sleep(0.2)
    sys.exit(f"{name} did not come up")


def stop(procs):
    """Terminates the apps a benchmark started (killed after 5 s)."""
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()


# A read by the process itself, from scratch (without it, the desktop's keeper answers
# command lines' reads through its mirrors).
DIRECT = dict(os.environ, DESKTOP_CLI_DIRECT="1")


def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    ms = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        sys.exit(f"{cmd} failed: {r.stdout} {r.stderr}")
    return ms, r


def timing_parts(stderr):
    m = re.search(r"timing: (.*)", stderr)
    parts = {}
    for kv in m.group(1).split():
        k, v = kv.split("=")
        parts[k] = float(v.removesuffix("ms"))
    return parts


def med(xs):
    return statistics.median(xs)


def bench_speed(name, spec):
    app = spec["app"]
    ours = {"default": [], "full": []}
    ours_in = {"default": [], "full": []}
    split = []
    py_proc = []
    kept = []
    counts = {}
    timed([BIN, "read", "--app", app])  # the keeper's mirror filled
    for _ in range(RUNS):
        kept.append(timed([BIN, "read", "--app", app])[0])
        for variant, extra in (("default", []), ("full", ["--visible-only=false", "--full"])):
            ms, r = timed([BIN, "read", "--app", app, "--timing", *extra], env=DIRECT)
            ours[variant].append(ms)
            parts = timing_parts(r.stderr)
            ours_in[variant].append(parts["total"])
            counts[variant] = json.loads(r.stdout)["data"]["count"]
            if variant == "default":
                split.append(parts)
        ms, r = timed([PY, WALK, app, "--extents"])
        py_proc.append(ms)
        py_nodes = json.loads(r.stdout)["nodes"]
    _, r = timed([PY, WALK, app, "--repeat", str(RUNS)])
    walk = json.loads(r.stdout)
    _, r = timed([PY, WALK, app, "--extents", "--repeat", str(RUNS)])
    walk_ext = json.loads(r.stdout)
    keys = ["connect", "resolve", "peer", "cache", "walk", "hydrate", "output"]
    return {
        "app": name,
        "pyatspi_nodes": py_nodes,
        "elements_default": counts["default"],
        "elements_full": counts["full"],
        "cache_items": split[-1].get("cache_items", 0),
        "walked": split[-1].get("walked", 0),
        "ours_process_ms": {k: med(v) for k, v in ours.items()},
        "ours_keeper_ms": med(kept),
        "ours_inprocess_ms": {k: med(v) for k, v in ours_in.items()},
        "split_ms": {k: med([p.get(k, 0) for p in split]) for k in keys},
        "pyatspi_walk_ms": med(walk["ms"]),
        "pyatspi_walk_extents_ms": med(walk_ext["ms"]),
        "pyatspi_process_extents_ms": med(py_proc),
    }


def tokens(files):
    r = subprocess.run(["node", os.path.join(ROOT, "bench/tokens.mjs"), *files], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("token count failed (run `npm install` in bench/): " + r.stderr)
    return json.loads(r.stdout)


INTERACTIVE = {"btn", "toggle", "lnk", "input", "pwd", "chk", "radio", "combo", "spin", "slider", "switch",
               "menuitem", "tab", "item", "treeitem", "scrollbar", "cell", "hdr"}


def flatten(elements):
    out = []
    for e in elements:
        out.append(e)
        out.extend(flatten(e.get("c", [])))
    return out


def bench_tokens(name, spec):
    app = spec["app"]
    out = os.path.join(ROOT, "bench/out")
    os.makedirs(out, exist_ok=True)
    files = {}
    for key, args in (("seed000", ["--full", "--actions"]), ("default", []), ("interactive", ["-i"])):
        data = json.loads(cli("read", "--app", app, *args).stdout)["data"]
        path = os.path.join(out, f"{name}-{key}.json")
        with open(path, "w") as f:
            json.dump(data["elements"], f, separators=(",", ":"), ensure_ascii=False)
        files[key] = path
        if key == "interactive":
            n_inter = sum(1 for e in flatten(data["elements"]) if e["r"] in INTERACTIVE)
            n_all = len(flatten(data["elements"]))
    text = cli("read", "--app", app, "-i", "--format", "text").stdout.split("\n", 1)[1]
    files["interactive_text"] = os.path.join(out, f"{name}-interactive.txt")
    with open(files["interactive_text"], "w") as f:
        f.write(text)
    # The CSV table as printed, less its window row (the text form's window line is left
    # out above too; the header row is the format's own cost and stays).
    rows = cli("read", "--app", app, "-i", "--format", "csv").stdout.split("\r\n")
    files["interactive_csv"] = os.path.join(out, f"{name}-interactive.csv")
    with open(files["interactive_csv"], "w") as f:
        f.write("\r\n".join(rows[:1] + rows[2:]))
    t = tokens(list(files.values()))
    counts = {k: t[v] for k, v in files.items()}
    return {
        "app": name,
        "tokens": counts,
        "default_vs_seed000": counts["default"] / counts["seed000"],
        "interactive_elements": n_inter,
        "interactive_listed": n_all,
        "json_i_per_interactive": counts["interactive"] / n_inter,
        "text_i_per_interactive": counts["interactive_text"] / n_inter,
        "csv_i_per_interactive": counts["interactive_csv"] / n_inter,
    }


def bench_actions():
    """Whole-process `click --id` and `type --id N hello` next to xdotool's coordinate click
    and typing, on gtk3-widget-factory's check box and entry, interleaved. Ours include
    delivery (the field holds the focus before the first key) and settling (the app has
    the input and shows it); `--timing` reports the settling part separately."""
    app = "gtk3-widget-factory"
    data = json.loads(cli("read", "--app", app, "--roles", "chk,input").stdout)["data"]
    els = flatten(data["elements"])
    chk = next(e for e in els if e["r"] == "chk" and "e" not in e)
    entry = next(e for e in els if e["r"] == "input" and "e" not in e and e.get("v") == "entry")
    x, y = chk["b"][0] + chk["b"][2] // 2, chk["b"][1] + chk["b"][3] // 2
    ours_click, settle_click, xdo_click = [], [], []
    ours_type, settle_type, blind_type, xdo_type = [], [], [], []
    cli("focus", "--app", app)
    for _ in range(RUNS):
        ms, r = timed([BIN, "click", "--id", str(chk["i"]), "--app", app, "--timing"])
        ours_click.append(ms)
        settle_click.append(timing_parts(r.stderr)["settle"])
        ms, _ = timed(["xdotool", "mousemove", str(x), str(y), "click", "--delay", "0", "1"])
        xdo_click.append(ms)
        # xdotool returns before the app has taken its click in: untimed, it is given time
        # to, or it lands during our next click, which then sees the box as it was (two
        # toggles) and rightly reports no change.
        time.sleep(0.1)
    for _ in range(RUNS):
        cli("set-value", "--id", str(entry["i"]), "--app", app, "--value", "entry")
        ms, r = timed([BIN, "type", "--id", str(entry["i"]), "--app", app, "hello", "--timing"])
        ours_type.append(ms)
        settle_type.append(timing_parts(r.stderr)["settle"])
        ms, _ = timed(["xdotool", "type", "--delay", "0", "hello"])
        xdo_type.append(ms)
        time.sleep(0.1)  # as after its click: its keys in before ours start
        ms, _ = timed([BIN, "type", "hello"])
        blind_type.append(ms)
    cli("set-value", "--id", str(entry["i"]), "--app", app, "--value", "entry")
    return {
        "click_id_ms": med(ours_click),
        "click_settle_ms": med(settle_click),
        "xdotool_click_ms": med(xdo_click),
        "type_id_hello_ms": med(ours_type),
        "type_id_settle_ms": med(settle_type),
        "type_focused_hello_ms": med(blind_type),
        "xdotool_type_ms": med(xdo_type),
    }


FORMS = {
    "gtk3": {"cmd": [PY, os.path.join(ROOT, "tests/fixtures/form_gtk.py")], "window": "GTK Form"},
    "qt5": {"cmd": [PY, os.path.join(ROOT, "tests/fixtures/form_qt.py")], "window": "Qt Form"},
    "chromium": {
        "cmd": APPS["chromium"]["cmd"][:-2] + ["--user-data-dir=/tmp/desktop-cli-bench-forms",
                                               "file://" + os.path.join(ROOT, "tests/fixtures/forms.html")],
        "window": "Forms Page",
    },
}


def bench_reliability(rounds=20):
    """Agent tempo: per round `type --id <Full name> A` then at once `type --id <Email> B`
    (11 characters each), no pause, on each form; libatspi reads both fields after every
    round. Characters missing from their field are lost; characters of one field's text
    found in the other are misdirected."""
    reader = subprocess.Popen([PY, os.path.join(ROOT, "tests/support/atspi_fields.py")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out = []
    for name, spec in FORMS.items():
        proc = subprocess.Popen(spec["cmd"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 40
            while time.time() < deadline:
                r = cli("read", "--window", spec["window"], "-i")
                if r.returncode == 0 and "Full name" in r.stdout and "Email" in r.stdout:
                    break
                time.sleep(0.2)
            data = json.loads(r.stdout)["data"]
            ids = {e.get("t"): str(e["i"]) for e in flatten(data["elements"])}
            w = ["--window", spec["window"]]
            lost = misdirected = failed = 0
            for i in range(rounds):
                for field in ("Full name", "Email"):
                    cli("set-value", "--id", ids[field], "--value", "", *w)
                want = {"Full name": f"n{i:02d}-abcdefg", "Email": f"m{i:02d}-ijklmno"}
                for field, text in want.items():
                    if cli("type", "--id", ids[field], text, *w).returncode != 0:
                        failed += 1
                reader.stdin.write(spec["window"] + "\n")
                reader.stdin.flush()
                fields = json.loads(reader.stdout.readline())["fields"]
                for field, text in want.items():
                    got = fields.get(field, {}).get("text", "")
                    kept = sum(1 for _ in zip(got, text) if _[0] == _[1])
                    lost += len(text) - kept
                    misdirected += max(0, len(got) - kept)
            out.append({"app": name, "rounds": rounds, "chars": rounds * 22, "lost": lost,
                        "misdirected": misdirected, "failed_commands": failed})
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
    reader.stdin.close()
    reader.wait()
    return out


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def bench_see():
    """Screenshots next to ImageMagick `import`, and observe: idle CPU and change-to-event delay."""
    out = os.path.join(ROOT, "bench/out")
    png, jpg, imp = [], [], []
    for _ in range(RUNS):
        ms, _ = timed([BIN, "screenshot", "--scale", "1", "--output", os.path.join(out, "shot.png")])
        png.append(ms)
        ms, _ = timed([BIN, "screenshot", "--scale", "1", "--format", "jpg", "--output", os.path.join(out, "shot.jpg")])
        jpg.append(ms)
        ms, _ = timed(["import", "-window", "root", os.path.join(out, "import.png")])
        imp.append(ms)
    # observe on the idle Chromium page: CPU over 10 s. A thread stamps each line as it arrives.
    import queue
    import threading
    cli("hover", "--x", "1250", "--y", "790")  # a hovered tab keeps renaming itself
    proc = subprocess.Popen([BIN, "observe", "--app", "chromium", "--visible-only=false", "--ignore-bounds", "--ignore-focus"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put((time.perf_counter(), json.loads(line)))

    threading.Thread(target=pump, daemon=True).start()
    lines.get(timeout=20)  # snapshot
    time.sleep(1.0)
    hz = os.sysconf(os.sysconf_names["SC_CLK_TCK"])
    t0, c0 = time.perf_counter(), cpu_ticks(proc.pid)
    time.sleep(10)
    idle_cpu = (cpu_ticks(proc.pid) - c0) / hz / (time.perf_counter() - t0) * 100
    # Change to event: each click inserts a button; time from the click's return to its event.
    from observe_delay import change_to_event
    delays = change_to_event(BIN, lines, 10)
    proc.send_signal(2)
    proc.wait(timeout=5)
    return {
        "screenshot_png_ms": med(png),
        "screenshot_jpg_ms": med(jpg),
        "import_png_ms": med(imp),
        "observe_idle_cpu_percent": idle_cpu,
        "observe_change_to_event_ms": med(delays) if delays else None,
        "observe_events_seen": len(delays),
    }


def bench_mcp():
    """Warm MCP read/click against the CLI processes (bench/mcp_bench.py, with `mcp` from .tools)."""
    py = os.path.join(ROOT, ".tools/venv/bin/python")
    if not os.path.exists(py):
        return None
    r = subprocess.run([py, os.path.join(ROOT, "bench/mcp_bench.py"), BIN, str(RUNS)], capture_output=True, text=True)
    if r.returncode != 0:
        print("mcp bench failed:", r.stdout, r.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(r.stdout)


def bench_mcp_http():
    """One MCP client over streamable HTTP reading the Chromium page back to back (bench/mcp_http.py)."""
    r = subprocess.run([PY, os.path.join(ROOT, "bench/mcp_http.py"), BIN, "10"], capture_output=True, text=True)
    if r.returncode != 0:
        print("mcp http bench failed:", r.stdout, r.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(r.stdout)


def bench_agent():
    """Agent turn overhead against a pyatspi-based agent's turn (bench/agent_bench.py)."""
    if not os.path.exists(os.path.join(ROOT, ".tools/venv/bin/python")):
        return None
    r = subprocess.run([PY, os.path.join(ROOT, "bench/agent_bench.py"), BIN, str(max(RUNS // 2, 5))], capture_output=True, text=True)
    if r.returncode != 0:
        print("agent bench failed:", r.stdout, r.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(r.stdout)


def bench_click():
    """A click that changes the window (bench/click_bench.py): ours against xdotool's click
    plus the time until the change is readable, on Chromium, GTK 3 and Qt 5."""
    r = subprocess.run([PY, os.path.join(ROOT, "bench/click_bench.py"), BIN, str(RUNS)], capture_output=True, text=True)
    if r.returncode != 0:
        print("click bench failed:", r.stdout, r.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(r.stdout)


def print_click(c):
    print("\na click that changes the window, whole process, median (ms)\n")
    print("| app | `click --id` | of which settling | xdotool click | xdotool click + until readable | ratio |")
    print("|---|---|---|---|---|---|")
    for app, v in c.items():
        settle = "" if v["settle_ms"] is None else f"{v['settle_ms']:.1f}"
        print(f"| {app} | {v['click_id_ms']:.1f} | {settle} | {v['xdotool_ms']:.1f} | {v['xdotool_until_readable_ms']:.1f} "
              f"| {v['click_id_ms'] / v['xdotool_until_readable_ms']:.2f}x |")


def main():
    procs = []
    try:
        for name, spec in APPS.items():
            procs.append(subprocess.Popen(spec["cmd"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_ready(name, spec)
        speed = [bench_speed(n, s) for n, s in APPS.items()]
        toks = [bench_tokens(n, s) for n, s in APPS.items() if n != "qt5"]
        acts = bench_actions()
        click = bench_click()
        reliability = bench_reliability()
        see = bench_see()
        mcp = bench_mcp()
        mcp_http = bench_mcp_http()
        agent = bench_agent()
    finally:
        stop(procs)
    results = {"runs": RUNS, "speed": speed, "tokens": toks, "actions": acts, "reliability": reliability,
               "see": see, "mcp": mcp, "agent": agent, "click": click, "mcp_http": mcp_http}
    with open(os.path.join(ROOT, "bench/out/results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"read speed, median of {RUNS} runs (ms)\n")
    print("| app | pyatspi nodes | our elements (default / full tree) | pyatspi walk in-process | ours in-process, full tree | ratio | pyatspi process with extents | ours process, default / full | ratio (default / full) | ms per node, ours full in-process | ours process, default, answered by the keeper |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in speed:
        ours_full_in = s["ours_inprocess_ms"]["full"]
        print(f"| {s['app']} | {s['pyatspi_nodes']} | {s['elements_default']} / {s['elements_full']} | {s['pyatspi_walk_ms']:.1f} | {ours_full_in:.1f} "
              f"| {s['pyatspi_walk_ms'] / ours_full_in:.1f}x | {s['pyatspi_process_extents_ms']:.1f} "
              f"| {s['ours_process_ms']['default']:.1f} / {s['ours_process_ms']['full']:.1f} "
              f"| {s['pyatspi_process_extents_ms'] / s['ours_process_ms']['default']:.1f}x / {s['pyatspi_process_extents_ms'] / s['ours_process_ms']['full']:.1f}x "
              f"| {ours_full_in / s['pyatspi_nodes']:.3f} | {s['ours_keeper_ms']:.1f} |")
    print("\nwhere the time of a default read goes, in-process (ms): " )
    print("| app | connect | resolve | peer | cache | walk | hydrate | output | cache items | walked |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for s in speed:
        p = s["split_ms"]
        print(f"| {s['app']} | " + " | ".join(f"{p[k]:.1f}" for k in ["connect", "resolve", "peer", "cache", "walk", "hydrate", "output"])
              + f" | {s['cache_items']:.0f} | {s['walked']:.0f} |")
    print("\ntokens (o200k)\n")
    print("| app | seed 000 compact JSON (every element) | default read | ratio | read -i JSON | read -i text | read -i csv | interactive elements | per interactive: JSON / text / csv |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in toks:
        c = t["tokens"]
        print(f"| {t['app']} | {c['seed000']} | {c['default']} | {t['default_vs_seed000']:.0%} | {c['interactive']} | {c['interactive_text']} "
              f"| {c['interactive_csv']} | {t['interactive_elements']} | {t['json_i_per_interactive']:.1f} / {t['text_i_per_interactive']:.1f} / {t['csv_i_per_interactive']:.1f} |")
    print_actions(acts)
    if click:
        print_click(click)
    print_reliability(reliability)
    print_see(see)
    if mcp:
        print("\nMCP (warm server, stdio, Python SDK client) against the CLI as a process, median (ms)\n")
        print("| | MCP | CLI process reading by itself | ratio | CLI process answered by the keeper |")
        print("|---|---|---|---|---|")
        print(f"| read Chromium page (interactive, capped at 200) | {mcp['read_mcp_ms']:.1f} | {mcp['read_cli_ms']:.1f} | {mcp['read_cli_ms'] / mcp['read_mcp_ms']:.1f}x | {mcp['read_keeper_ms']:.1f} |")
        print(f"| click --id (GTK3 check box) | {mcp['click_mcp_ms']:.1f} | {mcp['click_cli_ms']:.1f} | {mcp['click_cli_ms'] / mcp['click_mcp_ms']:.1f}x | |")
        for app, w in mcp.get("whole", {}).items():
            print(f"| read {app}, whole window | {w['mcp_ms']:.1f} | {w['cli_ms']:.1f} | {w['cli_ms'] / w['mcp_ms']:.1f}x | {w['keeper_ms']:.1f} |")
        if "read_after_change_mcp_ms" in mcp and "gtk3-widget-factory" in mcp.get("whole", {}):
            c, cli_ms = mcp["read_after_change_mcp_ms"], mcp["whole"]["gtk3-widget-factory"]["cli_ms"]
            print(f"| read gtk3-widget-factory right after a click changed a check box | {c:.1f} | {cli_ms:.1f} | {cli_ms / c:.1f}x |")
    if mcp_http:
        print(f"\nMCP over HTTP, one client reading the Chromium page back to back: {mcp_http['calls_per_s']:.0f} calls/s "
              f"({mcp_http['ms_per_call']:.1f} ms a call)")
    if agent:
        o, p = agent["ours"], agent["peer"]
        print(f"\nagent turn without the model, Chromium page, {o['turns']} turns (ms)\n")
        print("| ours: observe (tree + marked JPEG) + act + transcript | pyatspi agent: walk with extents + import + xdotool click | ratio |")
        print("|---|---|---|")
        print(f"| {o['overhead_per_turn_ms']:.1f} | {p['per_turn_ms']:.1f} ({p['walk_ms']:.1f} + {p['screenshot_ms']:.1f} + {p['click_ms']:.1f}) | {p['per_turn_ms'] / o['overhead_per_turn_ms']:.1f}x |")
        own = agent.get("ours_own_reads")
        if own:
            print(f"\nthe first observation {o['first_observation_ms']} ms, a later turn {o['later_turn_median_ms']} ms; "
                  f"with the agent reading by itself (DESKTOP_CLI_DIRECT=1): {own['overhead_per_turn_ms']:.1f} ms a turn, "
                  f"first observation {own['first_observation_ms']} ms, a later turn {own['later_turn_median_ms']} ms")
        print(f"\nper request: screen text {o['screen_text_tokens']} tokens (o200k), screenshot {o['screenshot_bytes'] // 1024} KB, request {o['request_bytes'] // 1024} KB")


def print_see(s):
    print("\nscreenshots, whole process, full screen 1280x800 to a file, median (ms)\n")
    print("| desktop-cli PNG | desktop-cli JPEG | ImageMagick import PNG | ratio PNG / JPEG |")
    print("|---|---|---|---|")
    print(f"| {s['screenshot_png_ms']:.1f} | {s['screenshot_jpg_ms']:.1f} | {s['import_png_ms']:.1f} "
          f"| {s['import_png_ms'] / s['screenshot_png_ms']:.1f}x / {s['import_png_ms'] / s['screenshot_jpg_ms']:.1f}x |")
    c2e = s['observe_change_to_event_ms']
    print(f"\nobserve on the idle Chromium page: {s['observe_idle_cpu_percent']:.2f}% of a core over 10 s; "
          f"change to event: {c2e if c2e is None else round(c2e, 1)} ms median ({s['observe_events_seen']} changes)")


def print_actions(a):
    print("\nactions, whole process, median (ms)\n")
    print("| | desktop-cli | of which settling | xdotool | ratio |")
    print("|---|---|---|---|---|")
    print(f"| click (ours: --id on a check box, accessibility route, state read back; xdotool: at its center) "
          f"| {a['click_id_ms']:.1f} | {a['click_settle_ms']:.1f} | {a['xdotool_click_ms']:.1f} | {a['click_id_ms'] / a['xdotool_click_ms']:.1f}x |")
    print(f"| type hello (ours: --id N, focus held, caret at the end, text read back; xdotool: into the focused entry) "
          f"| {a['type_id_hello_ms']:.1f} | {a['type_id_settle_ms']:.1f} | {a['xdotool_type_ms']:.1f} | {a['type_id_hello_ms'] / a['xdotool_type_ms']:.1f}x |")
    print(f"| type hello (ours: no id, where the focus is, named and read back) "
          f"| {a['type_focused_hello_ms']:.1f} | | {a['xdotool_type_ms']:.1f} | {a['type_focused_hello_ms'] / a['xdotool_type_ms']:.1f}x |")


def print_reliability(rows):
    print("\nreliability at agent tempo: type A into one field then at once type B into the next, read back with libatspi\n")
    print("| app | rounds | characters typed | lost | misdirected | failed commands |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['app']} | {r['rounds']} | {r['chars']} | {r['lost']} | {r['misdirected']} | {r['failed_commands']} |")


if __name__ == "__main__":
    main()

