#!/usr/bin/python3
"""Independent reader for the tests: walks one app's window with pyatspi (libatspi, not our
code) and prints every showing element as JSON: role, name, states, screen extents, value.

usage: atspi_dump.py APP_SUBSTRING [WINDOW_SUBSTRING]
"""
import json
import sys

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402


def value_of(acc):
    try:
        v = acc.get_value_iface()
        if v is not None:
            return str(v.get_current_value())
    except Exception:
        pass
    try:
        if acc.get_role() == Atspi.Role.PASSWORD_TEXT:
            return None
        t = acc.get_text_iface()
        if t is not None and acc.get_state_set().contains(Atspi.StateType.EDITABLE):
            return Atspi.Text.get_text(t, 0, -1)
    except Exception:
        pass
    return None


def walk(acc, out, depth):
    try:
        st = acc.get_state_set()
        if not (st.contains(Atspi.StateType.SHOWING) and st.contains(Atspi.StateType.VISIBLE)) and depth > 0:
            return
        ext = acc.get_extents(Atspi.CoordType.SCREEN)
        out.append({
            "role": acc.get_role_name(),
            "name": acc.get_name() or "",
            "states": [s.value_nick for s in st.get_states()],
            "b": [ext.x, ext.y, ext.width, ext.height],
            "v": value_of(acc),
            "depth": depth,
        })
        for i in range(acc.get_child_count()):
            c = acc.get_child_at_index(i)
            if c is not None:
                walk(c, out, depth + 1)
    except Exception:
        return


def main():
    app_sub = sys.argv[1].lower()
    win_sub = sys.argv[2].lower() if len(sys.argv) > 2 else ""
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is None or app_sub not in (app.get_name() or "").lower():
            continue
        for j in range(app.get_child_count()):
            win = app.get_child_at_index(j)
            if win is None or not win.get_state_set().contains(Atspi.StateType.SHOWING):
                continue
            if win_sub and win_sub not in (win.get_name() or "").lower():
                continue
            out = []
            walk(win, out, 0)
            print(json.dumps(out))
            return 0
    print("[]")
    return 1


if __name__ == "__main__":
    sys.exit(main())
