#!/usr/bin/env bash
# The systemd unit's test checks it with systemd-analyze; install Debian's systemd when missing.
set -euo pipefail
if command -v systemd-analyze >/dev/null 2>&1; then exit 0; fi
echo "installing systemd (for systemd-analyze) from Debian's packages" >&2
"$(dirname "$0")/apt-install.sh" systemd
