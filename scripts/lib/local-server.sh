# Shared by the scripts that start local servers for tests and trials (kafka-cluster.sh,
# s3-server.sh); sourced, not run.

# dispatch 'COMMAND COUNT FUNCTION'... -- "$@": when $1 is a COMMAND followed by exactly COUNT
# arguments, runs its FUNCTION with those arguments; anything else is the caller's `usage`.
dispatch() {
  local specs=() spec name count fn
  while [ "$1" != -- ]; do
    specs+=("$1")
    shift
  done
  shift
  for spec in "${specs[@]}"; do
    read -r name count fn <<<"$spec"
    if [ "${1:-}" = "$name" ]; then
      [ $(($# - 1)) -eq "$count" ] || usage
      shift
      "$fn" "$@"
      return
    fi
  done
  usage
}

# N distinct free loopback ports, one per line (the kernel's choice, released at once).
free_ports() {
  node -e '
    const net = require("node:net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
    Promise.all(servers.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", () => r(s.address().port)))))
      .then((ports) => { console.log(ports.join("\n")); servers.forEach((s) => s.close()); });
  ' "$1"
}

# running PID: the process exists and is not a zombie (a zombie answers kill -0 until its
# parent reaps it, but it holds no port and runs nothing).
running() {
  kill -0 "$1" 2>/dev/null || return 1
  [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# stop_process PID_FILE LOOKS: TERM, then up to LOOKS quarter-seconds for the process to end,
# then KILL and wait until it is gone (a JVM with many threads takes a moment to die, and a
# caller that checks at once must not see it); the pid file is removed.
stop_process() {
  local pidfile=$1 looks=$2 pid attempt
  [ -e "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  for ((attempt = 0; attempt < looks && $(running "$pid" && echo 1 || echo 0); attempt++)); do
    sleep 0.25
  done
  kill -KILL "$pid" 2>/dev/null || true
  for ((attempt = 0; attempt < 400 && $(running "$pid" && echo 1 || echo 0); attempt++)); do
    sleep 0.05
  done
  rm -f "$pidfile"
}
