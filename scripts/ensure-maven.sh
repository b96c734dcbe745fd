#!/usr/bin/env bash
# The Java client's build and tests, and `npm run pack`'s jar, need Maven: install Debian's when
# missing.
set -euo pipefail
if command -v mvn >/dev/null 2>&1; then exit 0; fi
echo "installing maven from Debian's packages" >&2
"$(dirname "$0")/apt-install.sh" maven
