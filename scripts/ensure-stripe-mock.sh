#!/usr/bin/env bash
# The billing tests talk to Stripe's own stripe-mock (a Go program that serves Stripe's API
# from its OpenAPI description); install it into .tools/ when missing and print its path.
set -euo pipefail
VERSION=v0.203.0
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.tools/stripe-mock-$VERSION"
# shellcheck source=lib/go-install.sh
. "$root/scripts/lib/go-install.sh"
if [ ! -x "$dir/stripe-mock" ]; then
  go_install stripe-mock "$VERSION" github.com/stripe/stripe-mock "$dir"
fi
echo "$dir/stripe-mock"
