#!/usr/bin/env bash
# Installs Debian packages: scripts/apt-install.sh PACKAGE...
#
# Every suite of the test command starts at once, and several may find a package missing at the
# same moment; apt takes an exclusive lock on its lists and on dpkg, and a second apt-get fails at
# once ("Could not get lock") instead of waiting. So the installs of one machine queue on a lock
# file of their own, and a lock held by something else (unattended-upgrades, an image's first
# boot) is waited for: apt's own timeout covers dpkg's lock, a retry covers the lists' lock.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 PACKAGE..." >&2; exit 2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
lock=${TMPDIR:-/tmp}/arbiter-apt.lock
exec 9>>"$lock"
flock 9
log=$(mktemp)
trap 'rm -f "$log"' EXIT
attempt=1
until as_root apt-get -o DPkg::Lock::Timeout=300 update -qq 2>"$log" >&2 &&
  DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" 2>"$log" >&2; do
  cat "$log" >&2
  # Only a busy apt is worth another try; a missing package or a broken mirror is not.
  if ! grep -q "Could not get lock\|Unable to lock" "$log" || [ "$attempt" -ge 30 ]; then
    echo "apt-install: could not install $*" >&2
    exit 1
  fi
  echo "apt-install: apt is busy; trying again in 10 s (attempt $attempt)" >&2
  attempt=$((attempt + 1))
  sleep 10
done
cat "$log" >&2
