#!/usr/bin/env bash
# The browser tests drive Debian's Chromium through playwright-core; install it when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "installing chromium from Debian's packages" >&2
if [ "$(id -u)" = 0 ]; then
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
else
  sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
fi
