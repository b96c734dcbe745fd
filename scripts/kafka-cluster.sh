#!/usr/bin/env bash
# A local Kafka cluster for the scale-out tests and for trying Arbiter's Kafka log by hand:
# N KRaft nodes (each broker and controller at once, a static quorum of all N) on free
# loopback ports, from Kafka's own jars on Maven Central (scripts/kafka/pom.xml), on Java 17.
#
#   bash scripts/kafka-cluster.sh start N DIR   prints the bootstrap list as its last line
#   bash scripts/kafka-cluster.sh stop DIR      stops every node started in DIR
#   bash scripts/kafka-cluster.sh restart DIR   starts DIR's stopped or killed nodes again, on
#                                               their ports and data; prints the bootstrap list
#   bash scripts/kafka-cluster.sh install       only fetches what `start` needs
#
# Everything a node keeps is under DIR: broker-<i>/ (its properties and data), broker-<i>.log,
# broker-<i>.pid (what a fault test kills), and bootstrap (the list printed). The jars are
# fetched once into .tools/kafka-<version>/ (Maven and a JDK are installed when missing).
# Replication follows the cluster's size: factor min(3, N), min.insync.replicas min(2, N), so
# a three-node cluster keeps taking acks=all writes with one node down.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pom="$root/scripts/kafka/pom.xml"
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")
lib="$root/.tools/kafka-$version/lib"
# shellcheck source=lib/local-server.sh
. "$root/scripts/lib/local-server.sh"

usage() {
  echo "usage: $0 start N DIR | stop DIR | restart DIR | install" >&2
  exit 2
}

ensure_jars() {
  if [ -f "$lib/.complete" ]; then return; fi
  if ! command -v java >/dev/null 2>&1; then
    echo "Kafka needs Java 17: installing openjdk-17-jre-headless from Debian's packages" >&2
    "$root/scripts/apt-install.sh" openjdk-17-jre-headless
  fi
  bash "$root/scripts/ensure-maven.sh"
  echo "fetching Kafka $version's jars from Maven Central into $lib" >&2
  rm -rf "$lib"
  mkdir -p "$lib"
  mvn -q -B -f "$pom" dependency:copy-dependencies -DoutputDirectory="$lib" >&2
  touch "$lib/.complete"
}

# Kafka's cluster id: 16 random bytes, base64url without padding.
# Never starting with "-": the storage tool would read such an id as an option and fail (one
# run in 64), as Kafka's own Uuid.randomUuid() avoids too.
cluster_id() {
  node -e 'const c = require("node:crypto"); let id; do id = c.randomBytes(16).toString("base64url"); while (id.startsWith("-")); console.log(id)'
}

# One of Kafka's main classes on the fetched jars, with DIR's logging settings.
java_node() {
  local dir=$1 main=$2
  shift 2
  exec java -Xms128m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$dir/log4j2.properties" \
    -cp "$lib/*" "$main" "$@"
}

start() {
  local n=$1 dir=$2
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || usage
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if compgen -G "$dir/broker-*.pid" >/dev/null; then
    echo "$dir already holds a running cluster; stop it first: $0 stop $dir" >&2
    exit 1
  fi
  ensure_jars
  local ports
  mapfile -t ports < <(free_ports $((2 * n)))
  local replicas=$((n < 3 ? n : 3)) in_sync=$((n < 2 ? n : 2))
  local voters="" bootstrap="" i
  for ((i = 1; i <= n; i++)); do
    voters+="${voters:+,}$i@127.0.0.1:${ports[$((n + i - 1))]}"
    bootstrap+="${bootstrap:+,}127.0.0.1:${ports[$((i - 1))]}"
  done
  cat >"$dir/log4j2.properties" <<'EOF'
# Warnings and errors, plus the line that says a node has started (what `start` waits for).
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.out.ref = OUT
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = INFO
EOF
  local id
  id=$(cluster_id)
  for ((i = 1; i <= n; i++)); do
    local node="$dir/broker-$i"
    mkdir -p "$node/data"
    cat >"$node/server.properties" <<EOF
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:${ports[$((i - 1))]},CONTROLLER://127.0.0.1:${ports[$((n + i - 1))]}
advertised.listeners=PLAINTEXT://127.0.0.1:${ports[$((i - 1))]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$node/data
default.replication.factor=$replicas
min.insync.replicas=$in_sync
offsets.topic.replication.factor=$replicas
transaction.state.log.replication.factor=$replicas
transaction.state.log.min.isr=$in_sync
share.coordinator.state.topic.replication.factor=$replicas
share.coordinator.state.topic.min.isr=$in_sync
group.initial.rebalance.delay.ms=0
EOF
    if ! (java_node "$dir" kafka.tools.StorageTool format -t "$id" -c "$node/server.properties") \
      >"$dir/broker-$i.log" 2>&1; then
      # Said here: under set -e the failure would otherwise end the script without a word.
      echo "formatting Kafka node $i's storage failed; its log ($dir/broker-$i.log) ends:" >&2
      tail -20 "$dir/broker-$i.log" >&2
      exit 1
    fi
  done
  local nodes="" seen=""
  for ((i = 1; i <= n; i++)); do
    launch_node "$dir" "$i"
    nodes+="$i "
    seen+="0 "
  done
  await_nodes "$dir" "$nodes" "$seen"
  echo "$bootstrap" >"$dir/bootstrap"
  echo "$bootstrap"
}

# Node I of DIR as a background JVM on its kept properties and data.
launch_node() {
  local dir=$1 i=$2
  # In a subshell that becomes the JVM, so the pid file names the node itself.
  (trap '' HUP && java_node "$dir" kafka.Kafka "$dir/broker-$i/server.properties") \
    >>"$dir/broker-$i.log" 2>&1 </dev/null &
  echo $! >"$dir/broker-$i.pid"
}

# Started lines in node I's log: a node started again appends to the same log.
started_lines() {
  grep -c 'Kafka Server started' "$1/broker-$2.log" 2>/dev/null || true
}

# await_nodes DIR "I..." "SEEN...": waits until each listed node logs one more started line
# than SEEN said it had. A bounded number of looks (the machine may be loaded), not a time:
# every node says it has started, or one has exited and its log says why (and all are stopped).
await_nodes() {
  local dir=$1 attempt i k
  local -a nodes seen
  read -ra nodes <<<"$2"
  read -ra seen <<<"$3"
  for ((attempt = 0; attempt < 1200; attempt++)); do
    local up=0
    for ((k = 0; k < ${#nodes[@]}; k++)); do
      i=${nodes[$k]}
      if ! kill -0 "$(cat "$dir/broker-$i.pid")" 2>/dev/null; then
        echo "Kafka node $i exited during start; its log ($dir/broker-$i.log) ends:" >&2
        tail -20 "$dir/broker-$i.log" >&2
        stop "$dir" >/dev/null 2>&1 || true
        exit 1
      fi
      if [ "$(started_lines "$dir" "$i")" -gt "${seen[$k]}" ]; then up=$((up + 1)); fi
    done
    if [ "$up" -eq "${#nodes[@]}" ]; then return; fi
    sleep 0.25
  done
  echo "the Kafka nodes in $dir did not all start; see $dir/broker-*.log" >&2
  stop "$dir" >/dev/null 2>&1 || true
  exit 1
}

# Starts again every node of DIR that is not running (all of them after `stop`, or one a fault
# test killed), on its kept ports, properties and data: the cluster keeps its id, its topics
# and every acknowledged message. Prints the bootstrap list as its last line.
restart() {
  local dir=$1 i
  if [ ! -f "$dir/bootstrap" ]; then
    echo "$dir holds no cluster started by '$0 start'" >&2
    exit 1
  fi
  dir="$(cd "$dir" && pwd)"
  ensure_jars
  local nodes="" seen=""
  for ((i = 1; i <= $(compgen -G "$dir/broker-*/server.properties" | wc -l); i++)); do
    if [ -e "$dir/broker-$i.pid" ] && running "$(cat "$dir/broker-$i.pid")"; then continue; fi
    seen+="$(started_lines "$dir" "$i") "
    nodes+="$i "
    launch_node "$dir" "$i"
  done
  if [ -n "$nodes" ]; then await_nodes "$dir" "$nodes" "$seen"; fi
  cat "$dir/bootstrap"
}

stop() {
  local dir=$1 pidfile
  [ -d "$dir" ] || return 0
  # Every node is told at once; a controlled shutdown takes a few seconds, past about 30 each
  # node is killed.
  for pidfile in "$dir"/broker-*.pid; do
    [ -e "$pidfile" ] && kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
  done
  for pidfile in "$dir"/broker-*.pid; do
    stop_process "$pidfile" 120
  done
}

dispatch 'install 0 ensure_jars' 'start 2 start' 'stop 1 stop' 'restart 1 restart' -- "$@"
