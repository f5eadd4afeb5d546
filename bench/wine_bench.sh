#!/usr/bin/env bash
# The Windows build under Wine 8: `list` and `read` of notepad as whole processes (median of
# N, the wine loader included), and the cold start of the .exe (the prefix's first wine
# process, wineserver starting). Needs the release .exe:
#   cargo build --release -p desktop-cli --target x86_64-pc-windows-gnu
# usage: bench/wine_bench.sh [N]        (run from the repository root; starts and stops its own
#                                        sandbox and Wine prefix)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20}
BIN=target/release/desktop-cli
EXE=target/x86_64-pc-windows-gnu/release/desktop-cli.exe
[ -x "$BIN" ] && [ -f "$EXE" ] || { echo "build the Linux binary and the release .exe first" >&2; exit 1; }
work=$(mktemp -d /tmp/desktop-cli-wine-bench.XXXX)
sb=$("$BIN" sandbox up)
display=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["display"])' <<<"$sb")
eval "$(python3 -c 'import json,sys; e=json.load(sys.stdin)["data"]["env"]; [print(f"export {k}={v!r}") for k,v in e.items()]' <<<"$sb")"
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
cleanup() { wineserver -k 2>/dev/null || true; "$BIN" sandbox down --display "${display#:}" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/bin"; cp "$EXE" "$work/bin/"
x86_64-w64-mingw32-gcc -shared -O2 -s -o "$work/bin/bcryptprimitives.dll" crates/desktop-windows/wine/bcryptprimitives.c -ladvapi32 -Wl,--kill-at
t0=$(date +%s.%N); wineboot -i >/dev/null 2>&1; wineserver -w; t1=$(date +%s.%N)
wine reg add 'HKCU\Software\Wine\Explorer' /v Desktop /d Default /f >/dev/null 2>&1
wine reg add 'HKCU\Software\Wine\Explorer\Desktops' /v Default /d 1280x800 /f >/dev/null 2>&1
wineserver -k; wineserver -w
exe="$work/bin/desktop-cli.exe"
ms() { python3 -c "import time,subprocess,sys; t=time.perf_counter(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print((time.perf_counter()-t)*1000)" "$@"; }
cold=$(ms wine "$exe" --version)
(wine notepad >/dev/null 2>&1 &)
for _ in $(seq 100); do wine "$exe" list 2>/dev/null | grep -q Notepad && break; sleep 0.1; done
warm=$(ms wine "$exe" --version)
lists=(); reads=()
for _ in $(seq "$N"); do
  lists+=("$(ms wine "$exe" list)")
  reads+=("$(ms wine "$exe" read --app notepad)")
done
python3 - "$t0" "$t1" "$cold" "$warm" "${lists[*]}" "${reads[*]}" <<'PY'
import statistics, sys
t0, t1, cold, warm, lists, reads = sys.argv[1:]
l = [float(x) for x in lists.split()]; r = [float(x) for x in reads.split()]
print(f"wineboot -i (cold prefix): {float(t1) - float(t0):.1f} s")
print(f"desktop-cli.exe --version, first wine process (wineserver starting): {float(cold):.0f} ms")
print(f"desktop-cli.exe --version, wineserver up: {float(warm):.0f} ms")
print(f"list, whole process, median of {len(l)}: {statistics.median(l):.0f} ms")
print(f"read --app notepad, whole process, median of {len(r)}: {statistics.median(r):.0f} ms")
PY
