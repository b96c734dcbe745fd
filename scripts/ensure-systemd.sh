#!/usr/bin/env bash
# The systemd unit's test checks it with systemd-analyze; install Debian's systemd when missing.
set -euo pipefail
if command -v systemd-analyze >/dev/null 2>&1; then exit 0; fi
echo "installing systemd (for systemd-analyze) from Debian's packages" >&2
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >&2
else
  sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >&2
fi
