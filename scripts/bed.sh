#!/usr/bin/env bash
# The Debian 13 test bed: a Debian 13 (trixie) userland made with debootstrap beside this
# machine's own, holding the apps and desktops of today (GTK 4.18, Qt 6.8, LibreOffice 25/26,
# mutter 48, KWin 6, labwc) that the real-app suites also run against. Needs root.
#   bed.sh build    make the bed unless the cached one is current; prints its root
#   bed.sh path     prints the cached bed's root (fails when there is none)
#   bed.sh test ARGS...   runs `cargo test ARGS` with the suites' apps taken from the bed
#   bed.sh clean    removes every cached bed
# The bed is cached in $DESKTOP_CLI_BED_CACHE (default /var/cache/desktop-cli) under a key of
# the month and the package lists, so it is rebuilt once a month (point releases move) or
# when the lists change, and reused otherwise. The packages come from the Debian archive this
# machine's apt sources name ($DESKTOP_CLI_DEBIAN_MIRROR overrides it). The test kit
# (crates/desktop-testkit/src/bed.rs) mounts it, runs the sandbox and apps inside it, ends
# every process that lives there, and unmounts it.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${DESKTOP_CLI_BED_CACHE:-/var/cache/desktop-cli}"
SUITE=trixie
# Beyond the suites' packages (install-deps.sh --bed): the desktops of today on Wayland.
# mutter (GNOME's compositor) with its remote-desktop and screen-cast services, KWin with its
# EIS plug-in (kwin-common), labwc (sized with wlr-randr), libei, PipeWire and the portals,
# and a libadwaita app.
BED_EXTRA=(mutter kwin-wayland kwin-common labwc libei1 libeis1 pipewire wireplumber
  xdg-desktop-portal-gnome xdg-desktop-portal-kde libadwaita-1-examples wayland-utils wlr-randr
  python3 procps)

key() {
  # The month and a digest of what goes into the bed.
  local digest
  digest="$({ declare -p BED_EXTRA; cat scripts/install-deps.sh; } | sha256sum | cut -c1-12)"
  echo "debian13-$(date -u +%Y-%m)-$digest"
}

# The Debian archive this machine's apt already uses: the first `…/debian` URI of its sources.
mirror() {
  if [ -n "${DESKTOP_CLI_DEBIAN_MIRROR:-}" ]; then
    echo "$DESKTOP_CLI_DEBIAN_MIRROR"
    return
  fi
  local uri
  uri="$(
    {
      grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{for (i=2;i<=NF;i++) print $i}'
      grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
        awk '{for (i=2;i<=NF;i++) if ($i ~ /:\/\//) {print $i; break}}'
    } | grep -E '/debian/?$' | head -n1
  )"
  if [ -z "$uri" ]; then
    echo "bed.sh: this machine's apt sources name no Debian archive (a URI ending in /debian);" \
      "set DESKTOP_CLI_DEBIAN_MIRROR to one" >&2
    exit 1
  fi
  echo "${uri%/}"
}

mounted_under() {
  # Mount points at or below $1, deepest first.
  awk -v r="$1" '$5 == r || index($5, r "/") == 1 {print $5}' /proc/self/mountinfo | sort -r
}

unmount_all() {
  local m
  for m in $(mounted_under "$1"); do umount -l "$m" 2>/dev/null || true; done
}

build() {
  local root="$1" tmp="$1.tmp" mirror security
  mirror="$(mirror)"
  # The security archive sits beside the main one (…/debian-security) on Debian's mirrors.
  security="${DESKTOP_CLI_DEBIAN_SECURITY_MIRROR:-${mirror}-security}"
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
  }
  unmount_all "$tmp"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  trap 'unmount_all "'"$tmp"'"' EXIT
  echo "bed.sh: debootstrap $SUITE from $mirror" >&2
  debootstrap --variant=minbase "$SUITE" "$tmp" "$mirror" >&2
  cat >"$tmp/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -f "$tmp/etc/apt/sources.list"
  # Packages start no services inside the bed.
  printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
  chmod +x "$tmp/usr/sbin/policy-rc.d"
  cp -L /etc/resolv.conf "$tmp/etc/resolv.conf"
  mount -t proc proc "$tmp/proc"
  mount --rbind /dev "$tmp/dev"
  mount -t sysfs sys "$tmp/sys"
  install -D -m 755 scripts/install-deps.sh "$tmp/opt/desktop-cli-bed/install-deps.sh"
  chroot "$tmp" /opt/desktop-cli-bed/install-deps.sh --bed >&2
  chroot "$tmp" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${BED_EXTRA[@]}" >&2
  chroot "$tmp" apt-get clean
  # What the bed holds, recorded with it (point releases move).
  chroot "$tmp" dpkg-query -W >"$tmp/opt/desktop-cli-bed/versions.txt"
  unmount_all "$tmp"
  trap - EXIT
  rm -rf "$root"
  mv "$tmp" "$root"
}

cmd="${1:-build}"
[ $# -gt 0 ] && shift
case "$cmd" in
  build)
    [ "$(id -u)" -eq 0 ] || { echo "bed.sh: building the bed needs root" >&2; exit 1; }
    root="$CACHE/$(key)"
    if [ ! -f "$root/opt/desktop-cli-bed/versions.txt" ]; then
      mkdir -p "$CACHE"
      start=$(date +%s)
      build "$root"
      echo "bed.sh: built $root in $(($(date +%s) - start)) s" \
        "($(du -sh "$root" | cut -f1))" >&2
      # Beds of other keys are out of date.
      for old in "$CACHE"/debian13-*; do
        [ "$old" = "$root" ] || { unmount_all "$old"; rm -rf "$old"; }
      done
    fi
    echo "$root"
    ;;
  path)
    root="$CACHE/$(key)"
    [ -f "$root/opt/desktop-cli-bed/versions.txt" ] || {
      echo "bed.sh: no current bed; run scripts/bed.sh build" >&2
      exit 1
    }
    echo "$root"
    ;;
  test)
    root="$("$0" build)"
    DESKTOP_CLI_TEST_ROOT="$root" exec cargo test "$@"
    ;;
  clean)
    for old in "$CACHE"/debian13-*; do
      [ -e "$old" ] || continue
      unmount_all "$old"
      rm -rf "$old"
    done
    ;;
  *)
    echo "usage: bed.sh build|path|test CARGO-TEST-ARGS...|clean" >&2
    exit 2
    ;;
esac
