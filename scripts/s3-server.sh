#!/usr/bin/env bash
# A real S3-compatible server process for the scale-out tests and for trying Arbiter's object
# storage by hand: versitygw (Versity's S3 gateway, Apache 2.0) over a plain directory, built
# once with `go install` into .tools/ (Go from Debian's packages when missing).
#
#   bash scripts/s3-server.sh start DIR   prints the endpoint URL as its last line
#   bash scripts/s3-server.sh stop DIR    stops it
#   bash scripts/s3-server.sh install     only builds what `start` needs
#
# Credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY from the environment, defaulting to
# `arbiter` and `arbiter-secret`. It creates no bucket (Arbiter creates its own when missing).
# Under DIR: data/ (the buckets, one directory each), s3.log, s3.pid and endpoint.
set -euo pipefail
VERSION=v1.8.0
root="$(cd "$(dirname "$0")/.." && pwd)"
bin_dir="$root/.tools/versitygw-$VERSION"
bin="$bin_dir/versitygw"
# shellcheck source=lib/local-server.sh
. "$root/scripts/lib/local-server.sh"
# shellcheck source=lib/go-install.sh
. "$root/scripts/lib/go-install.sh"

usage() {
  echo "usage: $0 start DIR | stop DIR | install" >&2
  exit 2
}

ensure_binary() {
  if [ -x "$bin" ]; then return; fi
  go_install versitygw "$VERSION" github.com/versity/versitygw/cmd/versitygw "$bin_dir"
}

start() {
  local dir=$1
  mkdir -p "$dir/data"
  dir="$(cd "$dir" && pwd)"
  if [ -e "$dir/s3.pid" ] && kill -0 "$(cat "$dir/s3.pid")" 2>/dev/null; then
    echo "$dir already holds a running S3 server; stop it first: $0 stop $dir" >&2
    exit 1
  fi
  ensure_binary
  local port endpoint
  port=$(free_ports 1)
  endpoint="http://127.0.0.1:$port"
  # The keys go through the environment (ROOT_ACCESS_KEY and ROOT_SECRET_KEY are versitygw's
  # own variables), never the command line, where `ps` would show them.
  (
    trap '' HUP
    export ROOT_ACCESS_KEY="${AWS_ACCESS_KEY_ID:-arbiter}"
    export ROOT_SECRET_KEY="${AWS_SECRET_ACCESS_KEY:-arbiter-secret}"
    exec "$bin" --port "127.0.0.1:$port" posix "$dir/data"
  ) >"$dir/s3.log" 2>&1 </dev/null &
  echo $! >"$dir/s3.pid"
  # A bounded number of looks, not a time: the port answers HTTP, or the process has exited.
  for ((attempt = 0; attempt < 400; attempt++)); do
    if ! kill -0 "$(cat "$dir/s3.pid")" 2>/dev/null; then
      echo "the S3 server exited during start; its log ($dir/s3.log) ends:" >&2
      tail -20 "$dir/s3.log" >&2
      rm -f "$dir/s3.pid"
      exit 1
    fi
    if curl -s -o /dev/null "$endpoint/"; then
      echo "$endpoint" >"$dir/endpoint"
      echo "$endpoint"
      return
    fi
    sleep 0.25
  done
  echo "the S3 server in $dir did not answer; see $dir/s3.log" >&2
  stop "$dir"
  exit 1
}

stop() {
  stop_process "$1/s3.pid" 40
}

dispatch 'install 0 ensure_binary' 'start 1 start' 'stop 1 stop' -- "$@"
