#!/usr/bin/python3
"""Independent reader for the action tests: libatspi (not our code) reads the named
elements of one window, fresh on every request (libatspi's cache of the window cleared).

Runs as a server: each line on stdin is a window title substring; each answer is one JSON
line mapping element names to {"role", "text" (never of a password field), "count" (its
length), "checked", "focused"}; text elements and labels are listed under their text.
"""
import json
import sys
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
    }
    try:
        t = acc.get_text_iface()
    except Exception:
        t = None
    if t is not None:
        out["count"] = t.get_character_count()
        secure = role == Atspi.Role.PASSWORD_TEXT
        if not secure:
            out["text"] = t.get_text(0, -1)
    return out


def walk(acc, out, depth=0):
    if depth > 60:
        return
    try:
        name = (acc.get_name() or "").strip()
        d = describe(acc)
        key = name or (d.get("text") or "").strip()
        if key and (key not in out or (out[key]["role"] in PASSIVE and d["role"] not in PASSIVE)):
            out[key] = d
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


def main():
    for line in sys.stdin:
        title = line.strip().lower()
        win = find_window(title)
        out = {}
        if win is not None:
            walk(win, out)
        sys.stdout.write(json.dumps({"found": win is not None, "fields": out}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
