#!/usr/bin/env bash
# Installs the system packages desktop-cli needs to build, run its sandbox and run its tests.
# Debian/Ubuntu (apt). Safe to re-run: packages already present are skipped.
#   install-deps.sh                  everything (tests, benchmarks, Windows checks)
#   install-deps.sh --demo           what scripts/demo.sh needs: the runtime, one app, a build
#   install-deps.sh --runtime-only   what the installed binary needs to run its sandbox
#   install-deps.sh --bed            what the real-app suites need inside the Debian 13 bed
#                                    (scripts/bed.sh): no toolchain, no Wine, no clients
# A name `a|b|c` takes the first the release has (Debian 12 has OpenJDK 17, Debian 13 21).
set -euo pipefail

# Runtime: a headless X server, a session bus, the AT-SPI bus and registry, the window
# manager `sandbox up --wm` starts (openbox), and the compositor `sandbox up --wayland`
# starts (sway; passwd's useradd makes the user it runs as when we are root).
RUNTIME=(xvfb dbus dbus-x11 at-spi2-core x11-utils x11-xserver-utils openbox sway passwd)
# Real apps the tests and the demo drive: GTK3, Qt5, Chromium; the GTK3 and Qt5 form
# fixtures (tests/fixtures/form_*.py) run on Debian's Python bindings of both toolkits.
# The web widget fixtures load jQuery and jQuery UI from Debian (libjs-jquery-ui).
APPS=(gtk-3-examples featherpad chromium fonts-liberation gir1.2-gtk-3.0 python3-pyqt5 libjs-jquery-ui)
# Qt's Wayland platform plugin: Qt apps in `sandbox up --wayland` (QT_QPA_PLATFORM=wayland,
# no Xwayland) abort without it.
APPS+=(qtwayland5)
# The desktop portal and its GTK backend, for the file-dialog test of a portal's chooser.
APPS+=(xdg-desktop-portal xdg-desktop-portal-gtk)
# Apps nobody here wrote (tests/toolkits): LibreOffice Calc and Writer with their GTK3
# plug-in, GTK 4 (gtk4-widget-factory and a PyGObject form), Qt 6 (PyQt6), GTK 2 through
# GObject introspection with its accessibility modules, and Swing with the ATK wrapper.
APPS+=(libreoffice-calc libreoffice-writer libreoffice-gtk3 gtk-4-examples gir1.2-gtk-4.0
  python3-pyqt6 gir1.2-gtk-2.0 libgail-common libatk-adaptor
  "openjdk-17-jdk-headless|openjdk-21-jdk-headless|openjdk-25-jdk-headless"
  "openjdk-17-jre|openjdk-21-jre|openjdk-25-jre" libatk-wrapper-java libatk-wrapper-java-jni)
# Peers the benchmark compares against (pyatspi, xdotool, ImageMagick; x11vnc for `view`)
# and test helpers (python3-yaml reads deploy/kubernetes.yaml).
PEERS=(python3-pyatspi gir1.2-atspi-2.0 python3-gi xdotool imagemagick xclip python3-yaml x11vnc)
# Wayland witnesses and peers: grim (screencopy), wl-clipboard (wl-copy, wl-paste).
PEERS+=(grim wl-clipboard)
# The MCP clients the tests use come from PyPI and npm (scripts/install-test-tools.sh);
# npm only from apt when no Node.js is installed already (another nodejs would conflict).
CLIENTS=(python3-venv)
command -v npm >/dev/null 2>&1 || CLIENTS+=(npm)
# Building: a C toolchain for crates with build scripts, curl for rustup; MinGW's C compiler
# to check the Windows build (the TLS crate compiles C for its target).
BUILD=(build-essential pkg-config ca-certificates curl gcc-mingw-w64-x86-64)
# Wine, to run the Windows build for real (scripts/wine-tests.sh): 64-bit only.
WINE=(wine wine64 libwine)

want=("${RUNTIME[@]}" "${APPS[@]}" "${PEERS[@]}" "${CLIENTS[@]}" "${BUILD[@]}" "${WINE[@]}")
case "${1:-}" in
  --runtime-only) want=("${RUNTIME[@]}") ;;
  --demo) want=("${RUNTIME[@]}" gtk-3-examples "${BUILD[@]}") ;;
  --bed) want=("${RUNTIME[@]}" "${APPS[@]}" "${PEERS[@]}") ;;
esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}
has_candidate() {
  apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]'
}

missing=()
choices=()
for p in "${want[@]}"; do
  if [[ "$p" == *"|"* ]]; then
    IFS='|' read -r -a alts <<<"$p"
    done_already=""
    for a in "${alts[@]}"; do installed "$a" && done_already=1 && break; done
    [ -n "$done_already" ] || choices+=("$p")
  else
    installed "$p" || missing+=("$p")
  fi
done

updated=""
if [ ${#missing[@]} -gt 0 ] || [ ${#choices[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  updated=1
fi
for p in "${choices[@]}"; do
  IFS='|' read -r -a alts <<<"$p"
  pick=""
  for a in "${alts[@]}"; do has_candidate "$a" && pick="$a" && break; done
  if [ -z "$pick" ]; then
    echo "none of $p is in this release's archive" >&2
    exit 1
  fi
  missing+=("$pick")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  [ -n "$updated" ] || $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "system packages: all present" >&2
fi

if [ "${1:-}" != "--bed" ] && ! command -v cargo >/dev/null 2>&1; then
  echo "installing the Rust toolchain (rustup)" >&2
  curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >&2
fi
