#!/usr/bin/env bash
# The billing tests talk to Stripe's own stripe-mock (a Go program that serves Stripe's API
# from its OpenAPI description); install it into .tools/ when missing and print its path.
set -euo pipefail
VERSION=v0.203.0
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.tools/stripe-mock-$VERSION"
if [ ! -x "$dir/stripe-mock" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "stripe-mock is installed with go install: installing golang-go from Debian's packages" >&2
    "$root/scripts/apt-install.sh" golang-go
  fi
  echo "installing stripe-mock $VERSION with go install" >&2
  mkdir -p "$dir"
  GOBIN="$dir" GOFLAGS=-mod=mod go install "github.com/stripe/stripe-mock@$VERSION" >&2
fi
echo "$dir/stripe-mock"
