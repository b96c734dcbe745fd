#!/usr/bin/env bash
# Prints a Python interpreter that has the statistics oracles (scipy, statsmodels) installed,
# creating a virtual environment in .venv the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
req=packages/stats/oracle/requirements.txt
venv=.venv
if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -m venv "$venv" >&2 2>/dev/null; then
    echo "installing python3-venv from Debian's packages" >&2
    if [ "$(id -u)" = 0 ]; then apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2;
    else sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2; fi
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
  fi
fi
stamp="$venv/.requirements.sha"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  echo "installing Python packages from $req" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" > "$stamp"
fi
echo "$PWD/$venv/bin/python"
