#!/usr/bin/env bash
# The browser tests drive Debian's Chromium through playwright-core; install it when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "installing chromium from Debian's packages" >&2
"$(dirname "$0")/apt-install.sh" chromium
