"""Drives `desktop-cli mcp` with the official Python MCP SDK (PyPI `mcp`) against the apps in
the test sandbox and checks what a host relies on. Run by the Rust test `mcp::*`.

usage: client_check.py BIN stdio|stdio-2026|toolsets|http URL [TOKEN]
Exits non-zero with the failed check on stderr.
"""
import asyncio
import json
import os
import struct
import subprocess
import sys
import base64

from mcp import ClientSession, StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client

ROOT = __file__.rsplit("/tests/", 1)[0]


# The SDK passes a server only a few safe variables (HOME, PATH, ...); the server must see
# this test's sandbox, not whichever sandbox it would adopt by itself.
SANDBOX_ENV = dict(os.environ)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def atspi(app):
    out = subprocess.run(["/usr/bin/python3", f"{ROOT}/tests/support/atspi_dump.py", app], capture_output=True, text=True)
    return json.loads(out.stdout)


def structured(res):
    return res.structured_content


def text_of(res):
    return "".join(c.text for c in res.content if c.type == "text")


def error_of(res):
    """A tool error's object (code, message, suggestion), sent as JSON text."""
    check(res.is_error, f"expected a tool error: {text_of(res)}")
    check(res.structured_content is None, "errors carry no structuredContent")
    return json.loads(text_of(res))


# The protocol's defaults for a hint the server leaves out.
HINT_DEFAULTS = {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": False, "open_world_hint": True}


def hint(tool, name):
    a = tool.annotations
    v = getattr(a, name, None) if a is not None else None
    return HINT_DEFAULTS[name] if v is None else v


async def exercise(call, list_tools, progress_call=None):
    tools = {t.name: t for t in (await list_tools()).tools}
    expected = {"list_windows", "list_apps", "read", "find", "click", "type", "press", "focus", "scroll", "drag",
                "set_value", "toggle", "action", "launch", "screenshot", "clipboard_get", "clipboard_set", "wait", "observe",
                "window", "close_window", "close_app", "list_displays", "menu", "file_dialog"}
    check(expected <= set(tools), f"tools missing: {expected - set(tools)}")
    # Closing a window or an app may lose data; moving one cannot.
    for name in ["close_window", "close_app"]:
        check(hint(tools[name], "destructive_hint") and not hint(tools[name], "read_only_hint"),
              f"{name} annotated destructive: {tools[name].annotations}")
    check(not hint(tools["window"], "destructive_hint"), "window (move, resize...) cannot lose data")
    for name in ["list_windows", "read", "find", "screenshot", "wait", "clipboard_get", "observe"]:
        t = tools[name]
        check(hint(t, "read_only_hint") and not hint(t, "open_world_hint"), f"{name} annotated read-only: {t.annotations}")
    for name in ["click", "type", "set_value"]:
        t = tools[name]
        check(not hint(t, "read_only_hint") and hint(t, "destructive_hint"), f"{name} annotations: {t.annotations}")
    check(not hint(tools["focus"], "destructive_hint"), "focus cannot lose data")
    check(hint(tools["set_value"], "idempotent_hint") and not hint(tools["click"], "idempotent_hint"), "idempotence")
    check("app" in tools["read"].input_schema["properties"], "read takes app")
    # Output schemas are opt-in (--output-schemas, checked with the tool sets).
    check(tools["read"].output_schema is None, "no output schemas by default")

    res = await call("list_windows", {})
    check(not res.is_error, f"list_windows: {text_of(res)}")
    apps = {w["app"] for w in structured(res)["windows"]}
    check({"Chromium", "gtk3-widget-factory"} <= apps, f"windows: {apps}")

    res = await call("read", {"app": "chromium"})
    check(not res.is_error, text_of(res))
    data = structured(res)
    check(data["count"] <= 200, "read is capped by default")
    flat = []
    def walk(es):
        for e in es:
            flat.append(e)
            walk(e.get("c", []))
    walk(data["elements"])
    check(any(e["r"] == "btn" and e.get("t") == "Increment" for e in flat), "read finds the Increment button")
    check(not any(e["r"] == "txt" for e in flat), "interactive-only by default")
    check('btn "Increment"' in text_of(res), "the text form is the readable tree")
    # A browser reads as its page: the document first, its address as its value, no toolbar;
    # headings stay; no boxes unless asked.
    page = data["elements"][0]
    check(data.get("page") is True and page["r"] == "web", f"the page only: {page.get('r')}")
    check(page.get("v", "").startswith("file://") and page["v"].endswith("page.html"), f"address: {page.get('v')}")
    check(not any(e.get("t") == "Reload" for e in flat), "no browser toolbar in a page read")
    check(any(e["r"] == "h" and e.get("t") == "Sign in" for e in flat), "headings kept")
    check(not any("b" in e for e in flat) and "189," not in text_of(res), "no boxes by default")
    res = await call("read", {"app": "chromium", "page": False, "bounds": True})
    whole = []
    def walk2(es):
        for e in es:
            whole.append(e)
            walk2(e.get("c", []))
    walk2(structured(res)["elements"])
    check(any(e.get("t") == "Reload" for e in whole), "page=false reads the browser's toolbar too")
    check(all("b" in e for e in whole if e["r"] == "btn"), "bounds=true gives boxes")

    # Click a GTK check box by id; read it back with pyatspi.
    res = await call("read", {"app": "gtk3-widget-factory", "roles": "chk", "bounds": True})
    boxes = structured(res)["elements"]
    target = next(e for e in boxes if "e" not in e and e.get("k") != "mixed")
    before = target.get("k") is True
    res = await call("click", {"id": target["i"], "app": "gtk3-widget-factory"})
    check(not res.is_error, text_of(res))
    check(structured(res)["post_state"]["k"] is (not before), f"post_state: {structured(res)}")
    seen = next(e for e in atspi("gtk3-widget-factory") if e["b"] == target["b"])
    check(("checked" in seen["states"]) is (not before), f"pyatspi sees the new state: {seen}")
    await call("toggle", {"id": target["i"], "app": "gtk3-widget-factory"})
    seen = next(e for e in atspi("gtk3-widget-factory") if e["b"] == target["b"])
    check(("checked" in seen["states"]) is before, "and back again")

    res = await call("screenshot", {"app": "chromium", "annotate": True})
    check(not res.is_error, text_of(res))
    img = next(c for c in res.content if c.type == "image")
    raw = base64.b64decode(img.data)
    check(raw[1:4] == b"PNG", "a PNG")
    w, h = struct.unpack(">II", raw[16:24])
    meta = structured(res)
    check((w, h) == (meta["width"], meta["height"]), f"decodes at the reported size {w}x{h} vs {meta}")
    check(max(w, h) <= 1568, "long edge within 1568")
    check(len(raw) < 1_000_000, "under 1 MB")
    check(meta["marks"] > 10, "annotated")

    res = await call("screenshot", {"max_edge": 800, "format": "jpeg"})
    check(not res.is_error, text_of(res))
    meta = structured(res)
    check(max(meta["width"], meta["height"]) == 800 and meta["format"] == "jpg", f"max_edge: {meta}")

    err = error_of(await call("click", {"id": 99999}))
    check(err["code"] == "ELEMENT_NOT_FOUND", err)
    check(err.get("suggestion"), "with a suggestion")
    check(error_of(await call("click", {"idd": 3}))["code"] == "INVALID_ARGS", "unknown argument")
    check(error_of(await call("press", {"keys": "ctrl++"}))["code"] == "INVALID_KEY", "bad combo")
    check(error_of(await call("read", {"app": "no-such-app"}))["code"] == "APP_NOT_FOUND", "unknown app")
    check(error_of(await call("scroll", {"amount": "lots"}))["code"] == "INVALID_ARGS", "wrong type")

    res = await call("find", {"app": "chromium", "text": "Sign In"})
    check(not res.is_error and structured(res)["count"] >= 1, f"find: {text_of(res)}")
    err = error_of(await call("find", {"app": "chromium", "text": "never on the page"}))
    check(err["code"] == "TIMEOUT" and err.get("message"), f"find of nothing: {err}")
    res = await call("wait", {"app": "chromium", "for_text": "Fixture Page", "timeout_ms": 2000})
    check(not res.is_error and structured(res)["matched"], "wait")
    if progress_call is not None:
        # A long wait reports progress when asked (hosts extend their timeout on it).
        seen = []

        async def on_progress(progress, total, message):
            seen.append((progress, total))

        res = await progress_call("wait", {"app": "chromium", "for_text": "never there", "timeout_ms": 2500}, on_progress)
        check(error_of(res)["code"] == "TIMEOUT", "wait times out")
        check(len(seen) >= 2 and seen[0][1] == 2500, f"progress notifications: {seen}")
    res = await call("observe", {"app": "chromium", "duration_s": 1})
    check(not res.is_error, text_of(res))
    events = structured(res)["events"]
    check(events[0]["type"] == "snapshot" and events[-1]["type"] == "done", f"observe events: {events}")
    res = await call("clipboard_set", {"text": "from mcp"})
    check(not res.is_error, text_of(res))
    res = await call("clipboard_get", {})
    check(structured(res)["text"] == "from mcp", "clipboard round trip")
    return len(tools)


READERS = {"list_windows", "list_apps", "read", "find", "screenshot", "clipboard_get", "wait", "observe", "list_displays"}


async def served(binary, args):
    """The tools a server started with these options lists, and a session to call them."""
    params = StdioServerParameters(command=binary, args=["mcp", *args], env=SANDBOX_ENV)
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            names = {t.name for t in (await s.list_tools()).tools}
            if "click" not in names:
                # Not served is not callable either.
                res = await s.call_tool("click", {"text": "I agree", "app": "chromium"})
                check(error_of(res)["code"] == "INVALID_ARGS", f"click served anyway: {text_of(res)}")
            if "read" in names:
                res = await s.call_tool("read", {"app": "chromium"})
                check(not res.is_error and structured(res)["count"] > 0, f"read: {text_of(res)}")
            return names


async def toolsets(binary):
    names = await served(binary, ["--read-only"])
    check(names == READERS, f"--read-only serves {sorted(names)}")
    names = await served(binary, ["--tools", "read,list_windows,screenshot"])
    check(names == {"read", "list_windows", "screenshot"}, f"--tools serves {sorted(names)}")
    every = await served(binary, [])
    names = await served(binary, ["--exclude-tools", "launch", "--exclude-tools", "clipboard_set,click"])
    check(names == every - {"launch", "clipboard_set", "click"}, f"--exclude-tools serves {sorted(names)}")
    names = await served(binary, ["--read-only", "--exclude-tools", "observe"])
    check(names == READERS - {"observe"}, f"--read-only less observe serves {sorted(names)}")
    # Output schemas on request, and what the server then returns conforms to them (the SDK
    # validates structuredContent against a tool's output schema).
    params = StdioServerParameters(command=binary, args=["mcp", "--output-schemas"], env=SANDBOX_ENV)
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            check(tools["read"].output_schema is not None and tools["click"].output_schema is not None,
                  "--output-schemas")
            res = await s.call_tool("read", {"app": "chromium"})
            check(not res.is_error and structured(res)["count"] > 0, f"read with schemas: {text_of(res)}")
            res = await s.call_tool("list_windows", {})
            check(not res.is_error, f"list_windows with schemas: {text_of(res)}")
    return 5


async def main():
    binary, mode = sys.argv[1], sys.argv[2]
    if mode == "toolsets":
        n = await toolsets(binary)
    elif mode == "stdio":
        params = StdioServerParameters(command=binary, args=["mcp"], env=SANDBOX_ENV)
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as s:
                init = await s.initialize()
                check(init.server_info.name == "desktop-cli", "server name")
                progress = lambda name, args, cb: s.call_tool(name, args, progress_callback=cb)
                n = await exercise(s.call_tool, s.list_tools, progress)
    elif mode == "stdio-2026":
        async with Client(StdioServerParameters(command=binary, args=["mcp"], env=SANDBOX_ENV), mode="2026-07-28") as c:
            n = await exercise(c.call_tool, c.list_tools)
    else:
        url = sys.argv[3]
        token = sys.argv[4] if len(sys.argv) > 4 else None
        from mcp.client.streamable_http import streamable_http_client
        import httpx2
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                r, w = streams[0], streams[1]
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    n = await exercise(s.call_tool, s.list_tools)
    print(json.dumps({"ok": True, "tools": n}))


asyncio.run(main())
