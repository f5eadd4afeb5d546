#!/usr/bin/python3
"""Independent reader for the action tests: libatspi (not our code) reads the named
elements of one window, fresh on every request (libatspi's cache of the window cleared).

Runs as a server: each line on stdin is a window title substring; each answer is one JSON
line mapping element names to {"role", "text" (never of a password field), "count" (its
length), "checked", "focused", "selected"}; text elements and labels are listed under their text.
A line `cell:ADDRESS:TITLE` answers {"found", "text"} for one cell of the window's sheet
(LibreOffice Calc), asked of the sheet's Table interface; `attrs:WORD:TITLE` answers
{"found", "attrs"}: the text attributes at WORD in the first text holding it (a
document's paragraph: its font weight, say); `ping:TITLE` answers
{"found", "ms"}: how long the window took to say its name and child count. Containers
with more than 500 children are not walked into (a sheet has 2^31 cells, each built on
request).
"""
import json
import sys
import time
import warnings

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

S = Atspi.StateType
warnings.filterwarnings("ignore", category=DeprecationWarning)
# Where a label and the control it names share a name, the control wins.
PASSIVE = {"label", "static", "filler", "panel", "section", "paragraph"}


def describe(acc):
    role = acc.get_role()
    st = acc.get_state_set()
    out = {
        "role": acc.get_role_name(),
        "checked": st.contains(S.CHECKED),
        "focused": st.contains(S.FOCUSED),
        "selected": st.contains(S.SELECTED),
    }
    try:
        t = acc.get_text_iface()
    except Exception:
        t = None
    if t is not None:
        out["count"] = t.get_character_count()
        secure = role == Atspi.Role.PASSWORD_TEXT
        if not secure:
            out["text"] = whole_text(t, out["count"])
    return out


def whole_text(t, count):
    # GTK 4.8 answers get_text(0, -1) with nothing: ask up to the count then. Called through
    # Atspi.Text: libatspi 2.56 objects are Accessibles whose own get_text takes no range.
    text = Atspi.Text.get_text(t, 0, -1)
    if not text and count > 0:
        text = Atspi.Text.get_text(t, 0, count)
    return text


def too_big(acc):
    return acc.get_child_count() > 500


def walk(acc, out, depth=0):
    if depth > 60:
        return
    try:
        name = (acc.get_name() or "").strip()
        d = describe(acc)
        key = name or (d.get("text") or "").strip()
        if key and (key not in out or (out[key]["role"] in PASSIVE and d["role"] not in PASSIVE)):
            out[key] = d
        if too_big(acc):
            return
        for i in range(acc.get_child_count()):
            c = acc.get_child_at_index(i)
            if c is not None:
                walk(c, out, depth + 1)
    except Exception:
        return


def find_window(title):
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is None:
            continue
        for j in range(app.get_child_count()):
            win = app.get_child_at_index(j)
            if win is not None and title in (win.get_name() or "").lower():
                # Not set_cache_mask: on an application it stalls later calls to others.
                win.clear_cache()
                return win
    return None


def find_sheet(acc, depth=0):
    if depth > 40:
        return None
    if acc.get_role() == Atspi.Role.TABLE and acc.get_state_set().contains(S.MANAGES_DESCENDANTS):
        return acc
    if too_big(acc):
        return None
    for i in range(acc.get_child_count()):
        c = acc.get_child_at_index(i)
        found = find_sheet(c, depth + 1) if c is not None else None
        if found is not None:
            return found
    return None


def cell(win, address):
    letters = "".join(ch for ch in address if ch.isalpha())
    col = 0
    for ch in letters.upper():
        col = col * 26 + ord(ch) - ord("A") + 1
    row = int(address[len(letters):]) - 1
    sheet = find_sheet(win)
    if sheet is None:
        return {"found": False}
    c = sheet.get_table_iface().get_accessible_at(row, col - 1)
    t = c.get_text_iface()
    return {"found": True, "text": whole_text(t, t.get_character_count())}


def holding(acc, word, depth=0):
    if depth > 60:
        return None
    try:
        t = acc.get_text_iface()
        if t is not None:
            text = whole_text(t, t.get_character_count())
            if word in text:
                return t, text.index(word)
        if too_big(acc):
            return None
        for i in range(acc.get_child_count()):
            c = acc.get_child_at_index(i)
            found = holding(c, word, depth + 1) if c is not None else None
            if found is not None:
                return found
    except Exception:
        return None
    return None


def attrs(win, word):
    found = holding(win, word)
    if found is None:
        return {"found": False}
    t, at = found
    # Inside the word, past its first character (attribute runs start at a boundary).
    return {"found": True, "attrs": dict(t.get_attribute_run(at + 1, False)[0])}


def ping(win):
    start = time.monotonic()
    win.get_name()
    win.get_child_count()
    return {"found": True, "ms": (time.monotonic() - start) * 1000}


def main():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("cell:"):
            _, address, title = line.split(":", 2)
            win = find_window(title.lower())
            answer = cell(win, address) if win is not None else {"found": False}
        elif line.startswith("attrs:"):
            _, word, title = line.split(":", 2)
            win = find_window(title.lower())
            answer = attrs(win, word) if win is not None else {"found": False}
        elif line.startswith("ping:"):
            win = find_window(line[5:].lower())
            answer = ping(win) if win is not None else {"found": False}
        else:
            win = find_window(line.strip().lower())
            out = {}
            if win is not None:
                walk(win, out)
            answer = {"found": win is not None, "fields": out}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
