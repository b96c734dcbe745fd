#!/usr/bin/env bash
# Installs what the container suite needs from Debian's packages when missing: podman, the runc
# runtime (crun, podman's default, fails on this machine's hybrid cgroups) and debootstrap (the
# suite builds its base image from Debian's packages: no image registry is reachable).
set -euo pipefail

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} from Debian's packages" >&2
  "$(dirname "$0")/apt-install.sh" "${missing[@]}"
fi
