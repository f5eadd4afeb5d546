#!/usr/bin/python3
"""Our most compact agent read against Playwright MCP's browser_snapshot, on the same pages
(issue 36). Run inside a fresh sandbox by `bench/run.sh --snapshots`.

Pages: tests/fixtures/page.html, forms.html, widgets.html (jQuery UI) and bench/pages/list.html,
as file:// URLs.

Playwright side: bench/playwright_snapshot.py (its own headless Chromium from Debian's binary,
1200x780 viewport), the page YAML only.

Our side: Debian's Chromium started in the sandbox as bench.py starts it (same flags, one fresh
--user-data-dir under /tmp, window 1200x780), once per page, read when the page's title is
found plus 1 s; every form is saved less its first line (the window line; Playwright's page
header is dropped likewise):
  a  `read -i --page --no-bounds --format text --visible-only=false`: the compact agent form,
     the whole page (Playwright covers the whole page too)
  b  the same, visible only (the default: what is on screen)
  c  `read --page --no-bounds --format text --visible-only=false`: every element, not only -i
  d  `read -i --format text`: the older form, the whole window (toolbar included), boxes,
     visible only
o200k tokens by bench/tokens.mjs; ratios ours / Playwright for a, b, c.

Addressability: every actionable element in the Playwright YAML (a role below with a
[ref=eN]) by (role, name); it is found when some element of form (a) has a name equal to or
containing Playwright's (case-insensitive, spaces collapsed; roles are not compared, they are
named differently). Element by element too: for each (role, name), how many of Playwright's
elements have an element of (a) with an equal name (60 "Archive" buttons need 60). Unnamed ones (no quoted name) are counted apart, as are actionable roles
Playwright gives no ref (the options of a <select>). Misses are printed with both sides.

GTK3 (gtk3-widget-factory) and Qt5 (FeatherPad), no Playwright there: `read -i --no-bounds
--format text` against `read -i --format text`, both less the first line.

Prints tables and writes bench/out/snapshots.json (the files under bench/out/snapshots/).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import APPS, BIN, ROOT, cli, stop, tokens, wait_ready  # noqa: E402

OUT = os.path.join(ROOT, "bench/out/snapshots")
VENV_PY = os.path.join(ROOT, ".tools/venv/bin/python")
PAGES = [  # (name, path, title)
    ("page", "tests/fixtures/page.html", "Fixture Page"),
    ("forms", "tests/fixtures/forms.html", "Forms Page"),
    ("widgets", "tests/fixtures/widgets.html", "Widgets Page"),
    ("list", "bench/pages/list.html", "Inbox - Mail"),
]
FORMS = {
    "a": ["-i", "--page", "--no-bounds", "--format", "text", "--visible-only=false"],
    "b": ["-i", "--page", "--no-bounds", "--format", "text"],
    "c": ["--page", "--no-bounds", "--format", "text", "--visible-only=false"],
    "d": ["-i", "--format", "text"],
}
ACTIONABLE = {"button", "link", "textbox", "checkbox", "radio", "combobox", "spinbutton", "slider", "tab",
              "menuitem", "switch", "option", "searchbox"}
# What our roles for each Playwright role are expected to be: only to flag a found element
# whose role looks off, never to decide found or missed.
OUR_ROLES = {
    "button": {"btn", "toggle", "menubtn"}, "link": {"lnk"}, "textbox": {"input", "pwd", "combo", "text"},
    "searchbox": {"input", "combo"}, "checkbox": {"chk"}, "radio": {"radio"}, "combobox": {"combo", "input"},
    "spinbutton": {"spin"}, "slider": {"slider"}, "tab": {"tab"}, "menuitem": {"menuitem"},
    "switch": {"switch", "toggle", "chk"}, "option": {"item", "menuitem", "option"},
}

# `  - button "Name" [pressed] [ref=e12] [cursor=pointer]: text`; Playwright wraps the whole key
# in single quotes (doubling inner ones) when YAML needs it.
PW_LINE = re.compile(r'^(?P<role>[a-z]+)(?: (?P<name>"(?:[^"\\]|\\.)*"))?(?P<attrs>(?: \[[^\]]*\])*)(?::.*)?$')
# `  12 btn "Name" hint:"..." = "value" states -- "description"` (JSON-quoted strings).
QS = r'"(?:[^"\\]|\\.)*"'
OUR_LINE = re.compile(rf'^(?P<indent> *)(?P<id>\d+) (?P<role>\S+)(?: (?P<name>{QS}))?(?: hint:(?P<hint>{QS}))?'
                      rf'(?: = (?P<value>{QS}|\(hidden\)))?')


def norm(s):
    return " ".join(s.split()).casefold()


def parse_playwright(path):
    """Actionable elements of a Playwright YAML: [(role, name or None, has_ref, line)]."""
    out = []
    for raw in open(path, encoding="utf-8"):
        line = raw.strip()
        if not line.startswith("- "):
            continue
        key = line[2:]
        if key.startswith("'"):
            end = key.rfind("'")
            key = key[1:end].replace("''", "'") + key[end + 1:]
        m = PW_LINE.match(key)
        if not m or m["role"] not in ACTIONABLE:
            continue
        name = json.loads(m["name"]) if m["name"] else None
        out.append((m["role"], name, "[ref=" in m["attrs"], raw.rstrip("\n")))
    return out


def parse_ours(text):
    """Our text form's elements: [{role, name, hint, value, line}]."""
    out = []
    for line in text.splitlines():
        m = OUR_LINE.match(line)
        if not m:
            continue
        out.append({"role": m["role"], "name": json.loads(m["name"]) if m["name"] else "",
                    "hint": json.loads(m["hint"]) if m["hint"] else "",
                    "value": json.loads(m["value"]) if m["value"] and m["value"].startswith('"') else "",
                    "line": line.strip()})
    return out


def addressable(pw_yaml, ours_a, ours_c):
    els = parse_playwright(pw_yaml)
    ours = parse_ours(ours_a)
    pairs = {}
    unnamed, refless = [], []
    for role, name, has_ref, line in els:
        if not has_ref:
            refless.append({"role": role, "name": name, "line": line.strip()})
        elif name is None or not name.strip():
            unnamed.append({"role": role, "line": line.strip()})
        else:
            pairs.setdefault((role, name), []).append(line.strip())
    found, misses, role_off, fewer = [], [], [], []
    covered = 0  # instances: per (role, name), at most Playwright's count of equal-named elements of ours
    for (role, name), lines in pairs.items():
        n = norm(name)
        hits = [o for o in ours if n in norm(o["name"])]
        if hits:
            found.append((role, name))
            if not any(o["role"] in OUR_ROLES.get(role, set()) for o in hits):
                role_off.append({"role": role, "name": name, "ours": [o["line"] for o in hits[:3]]})
            exact = sum(1 for o in ours if norm(o["name"]) == n)
            covered += min(exact, len(lines))
            if exact < len(lines):
                fewer.append({"role": role, "name": name, "playwright": len(lines), "ours_equal_name": exact})
            continue
        # Missed: where (if anywhere) the name shows in our forms, for the report.
        in_a_other = [o["line"] for o in ours if n in norm(o["hint"]) or n in norm(o["value"])]
        in_c = [ln.strip() for ln in ours_c.splitlines() if n in norm(ln)]
        misses.append({"role": role, "name": name, "playwright": lines[0], "count": len(lines),
                       "ours_a_hint_or_value": in_a_other[:5], "ours_c_lines": in_c[:5]})
    unnamed_refless = sum(1 for r in refless if r["name"] is None)
    refless_found = sum(1 for r in refless if r["name"] and any(norm(r["name"]) in norm(o["name"]) for o in ours))
    return {
        "total": len(pairs), "found": len(found), "instances": sum(len(v) for v in pairs.values()),
        "instances_equal_named": covered,
        "misses": misses, "role_differs": role_off, "fewer_than_playwright": fewer,
        "unnamed": len(unnamed), "unnamed_lines": [u["line"] for u in unnamed],
        "refless": len(refless), "refless_named_found": refless_found,
        "refless_named": len(refless) - unnamed_refless,
    }


def run_playwright(urls):
    r = subprocess.run([VENV_PY, os.path.join(ROOT, "bench/playwright_snapshot.py"), os.path.join(OUT, "playwright"), *urls],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"playwright_snapshot.py failed:\n{r.stdout}\n{r.stderr}")
    return json.loads(r.stdout)


def our_tools():
    """o200k tokens of our MCP server's tools/list (compact JSON of the tools, as Playwright's is
    counted), as served by default and with --output-schemas."""
    out = {}
    for key, extra in (("default", []), ("output_schemas", ["--output-schemas"])):
        p = subprocess.Popen([BIN, "mcp", *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def ask(msg, answer):
            p.stdin.write(json.dumps(msg) + "\n")
            p.stdin.flush()
            return json.loads(p.stdout.readline()) if answer else None

        ask({"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}, True)
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"}, False)
        reply = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, True)
        p.stdin.close()
        p.wait()
        path = os.path.join(OUT, f"ours-tools-{key}.json")
        with open(path, "w") as f:
            json.dump(reply["result"]["tools"], f, separators=(",", ":"), ensure_ascii=False)
        out[key] = {"tools": len(reply["result"]["tools"]), "tokens": tokens([path])[path]}
    return out


def chromium_cmd(profile, url):
    cmd = []
    for arg in APPS["chromium"]["cmd"]:
        if arg.startswith("--user-data-dir="):
            arg = "--user-data-dir=" + profile
        elif arg.startswith("file://"):
            arg = url
        cmd.append(arg)
    assert url in cmd and "--user-data-dir=" + profile in cmd and "--window-size=1200,780" in cmd
    return cmd


def save_read(path, app, args):
    r = cli("read", "--app", app, *args)
    if r.returncode != 0:
        sys.exit(f"read --app {app} {' '.join(args)} failed: {r.stdout} {r.stderr}")
    first, _, rest = r.stdout.partition("\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(rest)
    return first, rest


def read_pages():
    profile = tempfile.mkdtemp(prefix="desktop-cli-snapshots-chromium-", dir="/tmp")
    pages = {}
    try:
        for name, rel, title in PAGES:
            url = "file://" + os.path.join(ROOT, rel)
            proc = subprocess.Popen(chromium_cmd(profile, url), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait_ready(name, {"app": "chromium", "ready": title})
                files, window = {}, None
                for form, args in FORMS.items():
                    files[form] = os.path.join(OUT, f"{name}.{form}.txt")
                    first, text = save_read(files[form], "chromium", args)
                    window = window or first
                    if any(ln.startswith("... ") for ln in text.splitlines()):
                        print(f"warning: {name} ({form}) was cut: "
                              + " | ".join(ln for ln in text.splitlines() if ln.startswith("... ")), file=sys.stderr)
                if title not in window:
                    sys.exit(f"{name}: read the wrong window: {window}")
            finally:
                stop([proc])
            pages[name] = {"url": url, "window": window, "files": files}
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return pages


def read_toolkits():
    out = {}
    for key in ("gtk3", "qt5"):
        spec = APPS[key]
        proc = subprocess.Popen(spec["cmd"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_ready(key, spec)
            files = {}
            for form, args in (("no_bounds", ["-i", "--no-bounds", "--format", "text"]),
                               ("bounds", ["-i", "--format", "text"])):
                files[form] = os.path.join(OUT, f"{key}.{form}.txt")
                save_read(files[form], spec["app"], args)
        finally:
            stop([proc])
        out[key] = {"app": spec["app"], "files": files}
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    pages = read_pages()
    pw = run_playwright([p["url"] for p in pages.values()])
    kits = read_toolkits()
    counts = tokens([f for p in pages.values() for f in p["files"].values()]
                    + [f for k in kits.values() for f in k["files"].values()])
    results = {"pages": {}, "toolkits": {}, "playwright_tools_tokens": pw["tools"]["tokens"], "our_tools": our_tools()}
    for name, p in pages.items():
        pwp = pw[p["url"]]
        t = {form: counts[f] for form, f in p["files"].items()}
        text = {form: open(f, encoding="utf-8").read() for form, f in p["files"].items()}
        results["pages"][name] = {
            "url": p["url"], "playwright_tokens": pwp["tokens"], "playwright_refs": pwp["refs"],
            "playwright_file": pwp["file"], "ours_tokens": t,
            "ours_lines": {form: len(s.splitlines()) for form, s in text.items()},
            "ratio": {form: t[form] / pwp["tokens"] for form in "abc"},
            "addressable": addressable(pwp["file"], text["a"], text["c"]),
            "files": p["files"],
        }
    for key, k in kits.items():
        t = {form: counts[f] for form, f in k["files"].items()}
        results["toolkits"][key] = {"app": k["app"], "tokens": t, "ratio": t["no_bounds"] / t["bounds"],
                                    "lines": len(open(k["files"]["bounds"]).read().splitlines()), "files": k["files"]}
    with open(os.path.join(ROOT, "bench/out/snapshots.json"), "w") as f:
        json.dump(results, f, indent=1, ensure_ascii=False)
    report(results)


def report(results):
    print("o200k tokens per page: Playwright MCP browser_snapshot (page YAML) against our read\n"
          "(a: -i --page --no-bounds, whole page; b: the same, visible only; c: --page --no-bounds, every\n"
          " element, whole page; d: -i --format text, window with toolbar and boxes, visible only)\n")
    print("| page | Playwright (refs) | ours a (elements) | b | c | d | a / PW | b / PW | c / PW | addressable in a: names (elements) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, r in results["pages"].items():
        t, q, ad = r["ours_tokens"], r["ratio"], r["addressable"]
        extra = []
        if ad["unnamed"]:
            extra.append(f"{ad['unnamed']} unnamed")
        if ad["refless"]:
            extra.append(f"{ad['refless']} without ref, {ad['refless_named_found']}/{ad['refless_named']} named found")
        print(f"| {name} | {r['playwright_tokens']} ({r['playwright_refs']}) | {t['a']} ({r['ours_lines']['a']}) | {t['b']} | {t['c']} | {t['d']} "
              f"| {q['a']:.2f} | {q['b']:.2f} | {q['c']:.2f} | {ad['found']}/{ad['total']} ({ad['instances_equal_named']}/{ad['instances']})"
              + (f" ({'; '.join(extra)})" if extra else "") + " |")
    print("\nGTK3 and Qt5 (read -i --format text, less the window line)\n")
    print("| app | lines | with boxes | --no-bounds | ratio |")
    print("|---|---|---|---|---|")
    for key, r in results["toolkits"].items():
        print(f"| {key} ({r['app']}) | {r['lines']} | {r['tokens']['bounds']} | {r['tokens']['no_bounds']} | {r['ratio']:.2f} |")
    ot = results["our_tools"]
    print(f"\nMCP tools/list, o200k tokens: Playwright {results['playwright_tools_tokens']}; ours {ot['default']['tokens']} "
          f"({ot['default']['tools']} tools), {ot['output_schemas']['tokens']} with --output-schemas")
    for name, r in results["pages"].items():
        ad = r["addressable"]
        if ad["misses"]:
            print(f"\n{name}: {len(ad['misses'])} Playwright element(s) not found by name in (a):")
            for m in ad["misses"]:
                print(f"  {m['role']} {json.dumps(m['name'], ensure_ascii=False)} x{m['count']}")
                print(f"    Playwright: {m['playwright']}")
                for ln in m["ours_a_hint_or_value"]:
                    print(f"    ours (a), in hint or value: {ln}")
                for ln in m["ours_c_lines"]:
                    print(f"    ours (c): {ln}")
                if not m["ours_a_hint_or_value"] and not m["ours_c_lines"]:
                    print("    ours: nowhere in (a) or (c)")
        if ad["fewer_than_playwright"]:
            print(f"\n{name}: names with fewer equal-named elements in (a) than Playwright has:")
            for f in ad["fewer_than_playwright"]:
                print(f"  {f['role']} {json.dumps(f['name'], ensure_ascii=False)}: Playwright {f['playwright']}, ours {f['ours_equal_name']}")
        if ad["role_differs"]:
            print(f"\n{name}: found by name but under another role:")
            for f in ad["role_differs"]:
                print(f"  {f['role']} {json.dumps(f['name'], ensure_ascii=False)}: {' | '.join(f['ours'])}")
        if ad["unnamed_lines"]:
            print(f"\n{name}: unnamed actionable elements in Playwright's snapshot: " + "; ".join(ad["unnamed_lines"]))


if __name__ == "__main__":
    main()
