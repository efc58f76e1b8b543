#!/usr/bin/env bash
# A real Apache Kafka (KRaft, combined broker+controller nodes) on loopback, for tests, CI and
# laptops without Docker. Resolves the broker pinned in pom.xml through Maven (cached in ~/.m2),
# formats storage, starts the node(s), waits until every broker serves metadata and prints
# `KAFKA_BROKERS=host:port,...` as its last line; stops the nodes on SIGTERM/SIGINT.
#
#   scripts/kafka/run.sh [--brokers 1|3] [--dir DIR]
#
# --dir keeps data and ports in DIR: running again with the same DIR restarts the same cluster
# on the same ports (a broker-restart test). Without it a temporary directory is removed on exit.
# DIR/node-N/pid holds node N's JVM pid (node N is broker id N), DIR/node-N/broker.log its log.
# KAFKA_HEAP (default -Xmx512m) sets each JVM's heap.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
brokers=1
dir=""
while (($#)); do
  case "$1" in
    --brokers) brokers="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    *) echo "usage: $0 [--brokers 1|3] [--dir DIR]" >&2; exit 2 ;;
  esac
done
[[ "$brokers" == 1 || "$brokers" == 3 ]] || { echo "--brokers must be 1 or 3" >&2; exit 2; }

classpath="$("$here/classpath.sh")"

own_dir=false
if [[ -z "$dir" ]]; then dir="$(mktemp -d "${TMPDIR:-/tmp}/kafka-XXXXXX")"; own_dir=true; fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

# Ports and cluster id are chosen once per DIR, so a restart comes back where clients expect it.
if [[ ! -f "$dir/cluster" ]]; then
  [[ -z "$(ls -A "$dir")" ]] || { echo "$dir is neither empty nor a cluster made by run.sh" >&2; exit 2; }
  ports="$(node -e '
    const net = require("node:net");
    const n = Number(process.argv[1]) * 2;
    const servers = Array.from({ length: n }, () => net.createServer().listen(0, "127.0.0.1"));
    Promise.all(servers.map((s) => new Promise((r) => s.on("listening", r)))).then(() => {
      console.log(servers.map((s) => s.address().port).join(" "));
      servers.forEach((s) => s.close());
    });' "$brokers")"
  # Kafka's own Uuid.randomUuid() never yields an id starting with '-': kafka-storage's argument
  # parser would read it as an option (`--cluster-id -x…` → "expected one argument").
  id="-"
  while [[ "$id" == -* ]]; do id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"; done
  printf 'brokers=%s\nid=%s\nports=%s\n' "$brokers" "$id" "$ports" > "$dir/cluster.tmp"
  mv "$dir/cluster.tmp" "$dir/cluster"
fi
brokers="$(sed -n 's/^brokers=//p' "$dir/cluster")"
cluster_id="$(sed -n 's/^id=//p' "$dir/cluster")"
read -r -a ports <<<"$(sed -n 's/^ports=//p' "$dir/cluster")"

voters=""
bootstrap=""
for ((n = 1; n <= brokers; n++)); do
  voters+="${voters:+,}$n@127.0.0.1:${ports[2 * n - 1]}"
  bootstrap+="${bootstrap:+,}127.0.0.1:${ports[2 * n - 2]}"
done
min_isr=$((brokers > 1 ? 2 : 1))

java_opts=(${KAFKA_HEAP:--Xmx512m} -Xms64m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=$here/log4j2.properties" -cp "$classpath")

pids=()
stop() {
  trap - TERM INT EXIT
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 100); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if $own_dir; then rm -rf "$dir"; fi
}
trap 'stop; exit 0' TERM INT
trap stop EXIT

for ((n = 1; n <= brokers; n++)); do
  node_dir="$dir/node-$n"
  mkdir -p "$node_dir"
  cat > "$node_dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:${ports[2 * n - 2]},CONTROLLER://127.0.0.1:${ports[2 * n - 1]}
advertised.listeners=PLAINTEXT://127.0.0.1:${ports[2 * n - 2]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$node_dir/data
# As in production: topics are created by the services (KAFKA_CREATE_TOPICS), never on first use.
auto.create.topics.enable=false
num.partitions=6
default.replication.factor=$brokers
min.insync.replicas=$min_isr
offsets.topic.replication.factor=$brokers
transaction.state.log.replication.factor=$brokers
transaction.state.log.min.isr=$min_isr
share.coordinator.state.topic.replication.factor=$brokers
share.coordinator.state.topic.min.isr=$min_isr
# Small internal topics and threads: a laptop or a 2-core CI machine, not a production host.
offsets.topic.num.partitions=6
transaction.state.log.num.partitions=6
num.network.threads=2
num.io.threads=2
background.threads=2
# Tests join and leave groups all the time; production keeps the 3 s default.
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
PROPS
  if [[ ! -f "$node_dir/data/meta.properties" ]]; then
    java "${java_opts[@]}" kafka.tools.StorageTool format --cluster-id "$cluster_id" \
      --config "$node_dir/server.properties" --ignore-formatted >"$node_dir/format.log" 2>&1 \
      || { cat "$node_dir/format.log" >&2; exit 1; }
  fi
  java "${java_opts[@]}" kafka.Kafka "$node_dir/server.properties" >"$node_dir/broker.log" 2>&1 &
  pids+=($!)
  echo "$!" > "$node_dir/pid"
done

if ! (cd "$root" && node --import tsx "$here/wait-ready.ts" "$bootstrap" "$brokers"); then
  for ((n = 1; n <= brokers; n++)); do echo "--- node $n" >&2; tail -n 30 "$dir/node-$n/broker.log" >&2; done
  exit 1
fi
echo "KAFKA_BROKERS=$bootstrap" > "$dir/brokers"
echo "kafka: $brokers node(s) in $dir"
echo "KAFKA_BROKERS=$bootstrap"

# Stay up while any node is: a test may SIGKILL single nodes and expects the rest to run on.
while :; do
  alive=0
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
  ((alive)) || { echo "kafka: every node exited" >&2; exit 1; }
  sleep 1 &
  wait $! || true
done
