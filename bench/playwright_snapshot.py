"""What Playwright MCP shows a model of a page: the other side of our `read -i` token comparison.

usage: .tools/venv/bin/python bench/playwright_snapshot.py OUTDIR URL...

Starts Microsoft's Playwright MCP server (@playwright/mcp, pinned in bench/package.json; run
`npm install` in bench first) over stdio with Debian's Chromium, headless, in an in-memory
profile, with a 1200x780 viewport. For each URL it calls browser_navigate, then
browser_snapshot (then browser_close, so each page is a browser's first and its refs read e1,
e2... rather than f1e1...), and writes OUTDIR/<name>.playwright.yaml, <name> being the URL's
file name without its extension.

What is kept: only the page snapshot, the YAML inside the ```yaml fence under "### Snapshot" of
browser_snapshot's answer, fences excluded. What is dropped: Playwright's own framing around it
("### Page" with "- Page URL:" and "- Page Title:", and any "### Console messages", "### Modal
state" or similar sections): a fixed cost per call that does not grow with the page, about 30
tokens for a file:// page with no console output. The navigate answer (the Playwright code it
ran and a link to a snapshot file) is not counted either. Note that the snapshot shows input
values in clear, password fields' included.

Prints JSON {url: {"file", "refs" (count of [ref=eN], the handles a model can target; Playwright
gives one to nearly every node, paragraphs and generic containers included),
"tokens" (o200k, bench/tokens.mjs)}} plus "tools": the o200k tokens of the compact JSON of the
server's tools/list (saved as OUTDIR/playwright-tools.json), to set beside our MCP tool list.
"""
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
from urllib.parse import urlparse

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BENCH = os.path.dirname(os.path.abspath(__file__))
SERVER = [
    os.path.join(BENCH, "node_modules/@playwright/mcp/cli.js"),
    "--executable-path", "/usr/lib/chromium/chromium",  # the binary; /usr/bin/chromium is a script
    "--headless", "--isolated", "--viewport-size", "1200x780",
    "--no-sandbox",  # as root Chromium will not start without it
    "--allow-unrestricted-file-access",  # file:// URLs are refused without it
]
SNAPSHOT = re.compile(r"^### Snapshot\n```yaml\n(.*?)\n```$", re.S | re.M)


def tokens(*files):
    out = subprocess.run(["node", os.path.join(BENCH, "tokens.mjs"), *files],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


async def main(outdir, urls):
    os.makedirs(outdir, exist_ok=True)
    files = {}
    # The server drops snapshot files of navigations into its working directory: a scratch one.
    with tempfile.TemporaryDirectory() as cwd:
        async with stdio_client(StdioServerParameters(command="node", args=SERVER, cwd=cwd)) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                listed = await s.list_tools()
                assert listed.next_cursor is None, "tools/list is paged"
                tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
                tools_file = os.path.join(outdir, "playwright-tools.json")
                with open(tools_file, "w") as f:
                    json.dump(tools, f, separators=(",", ":"), ensure_ascii=False)

                async def call(tool, args):
                    res = await s.call_tool(tool, args)
                    text = "\n".join(c.text for c in res.content if c.type == "text")
                    if res.is_error:
                        sys.exit(f"{tool} {args}: {text}")
                    return text

                for url in urls:
                    await call("browser_navigate", {"url": url})
                    text = await call("browser_snapshot", {})
                    # A fresh browser for each page keeps its refs e1, e2...: after a navigation
                    # in the same tab they read f1e1, f1e2... (about 12% more tokens).
                    await call("browser_close", {})
                    m = SNAPSHOT.search(text)
                    if not m:
                        sys.exit(f"no snapshot for {url}:\n{text}")
                    name = os.path.splitext(os.path.basename(urlparse(url).path))[0]
                    files[url] = os.path.join(outdir, name + ".playwright.yaml")
                    with open(files[url], "w") as f:
                        f.write(m.group(1) + "\n")
    counts = tokens(tools_file, *files.values())
    report = {url: {"file": p, "refs": len(re.findall(r"\[ref=\w+\]", open(p).read())),
                    "tokens": counts[p]} for url, p in files.items()}
    report["tools"] = {"file": tools_file, "count": len(tools), "tokens": counts[tools_file]}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
