#!/usr/bin/env bash
# Prints the tag of a local stand-in for the official node:20-bookworm-slim image, building it
# when missing: no image registry is reachable from the test machine, Debian's package mirror
# and the npm registry are. Debian bookworm (debootstrap --variant=minbase) plus this machine's
# Node 20 and npm where the official image has them (/usr/local/bin,
# /usr/local/lib/node_modules/npm), and this machine's CA bundle, named by NODE_EXTRA_CA_CERTS,
# so npm inside a build step reaches the registry as the machine does. The tag is a hash of
# those inputs and of this script: an unchanged machine reuses the image.
# Usage: bash scripts/container/base-image.sh   (podman and debootstrap installed; root)
set -euo pipefail
cd "$(dirname "$0")/../.."

node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$npm_dir/package.json" ] || { echo "base-image: npm not found beside $node_bin" >&2; exit 1; }
[ -f "$ca" ] || { echo "base-image: no CA bundle at $ca" >&2; exit 1; }

hash=$({
  sha256sum "$0" "$node_bin" "$ca" | cut -d' ' -f1
  node -p 'require(process.argv[1]).version' "$npm_dir/package.json"
} | sha256sum | cut -c1-16)
tag=localhost/arbiter-node-base:20-bookworm-$hash
if podman image exists "$tag"; then
  echo "$tag"
  exit 0
fi

echo "building the local base image $tag (debootstrap bookworm, this machine's Node and npm)" >&2
root=$(mktemp -d /tmp/arbiter-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root/fs" http://deb.debian.org/debian >"$root/debootstrap.log" 2>&1 ||
  { cat "$root/debootstrap.log" >&2; exit 1; }
fs=$root/fs
# What the official slim image leaves out: package lists and caches, documentation.
rm -rf "$fs"/var/lib/apt/lists/* "$fs"/var/cache/apt/*.bin "$fs"/var/cache/apt/archives/*.deb \
  "$fs"/usr/share/doc/* "$fs"/usr/share/man/* "$fs"/usr/share/info/*
install -D -m 0755 "$node_bin" "$fs/usr/local/bin/node"
mkdir -p "$fs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$fs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$fs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$fs/usr/local/bin/npx"
install -D -m 0644 "$ca" "$fs/etc/ssl/certs/ca-certificates.crt"
# podman import takes the tree as a tar stream; the settings the official image has, and the CA.
tar -C "$fs" --numeric-owner -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION='"$("$node_bin" --version | tr -d v)" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' \
  --quiet - "$tag" >/dev/null
echo "$tag"
