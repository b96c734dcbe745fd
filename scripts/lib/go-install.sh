# Shared by the scripts that build a Go program into .tools/ (ensure-stripe-mock.sh,
# s3-server.sh); sourced, not run.

# go_install NAME VERSION MODULE DIR: `go install MODULE@VERSION` with DIR as its GOBIN, Go from
# Debian's packages when missing. Its progress goes to stderr; stdout stays the caller's.
go_install() {
  local name=$1 version=$2 module=$3 dir=$4
  if ! command -v go >/dev/null 2>&1; then
    echo "$name is installed with go install: installing golang-go from Debian's packages" >&2
    "$(dirname "${BASH_SOURCE[0]}")/../apt-install.sh" golang-go
  fi
  echo "installing $name $version with go install (once)" >&2
  mkdir -p "$dir"
  GOBIN="$dir" GOFLAGS=-mod=mod go install "$module@$version" >&2
}
