#!/usr/bin/env bash
# Prints a Python interpreter with every Python suite's packages installed (the statistics
# oracles, and whatever scripts/python-requirements.txt lists for the other suites), creating a
# virtual environment in .venv the first time and reinstalling when a requirements file changes.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
# One list of requirement files; a suite that needs Python packages adds its file here.
reqs=()
while read -r line; do
  case "$line" in '#'* | '') continue ;; esac
  reqs+=("$line")
done < scripts/python-requirements.txt
if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -m venv "$venv" >&2 2>/dev/null; then
    echo "installing python3-venv from Debian's packages" >&2
    scripts/apt-install.sh python3-venv
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
  fi
fi
stamp="$venv/.requirements.sha"
want=$(cat "${reqs[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  echo "installing Python packages from ${reqs[*]}" >&2
  args=()
  for r in "${reqs[@]}"; do args+=(-r "$r"); done
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${args[@]}" >&2
  echo "$want" > "$stamp"
fi
echo "$PWD/$venv/bin/python"
