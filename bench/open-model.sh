#!/usr/bin/env bash
# The open model, measured:
# 1. rate accuracy: loadtest --rps R -t S on node, bun and deno against nginx (core 0; the
#    tool on core 1), for R = 100, 1000, 10000: requests sent against R × S.
# 2. coordinated omission: a server that stalls 300 ms of every second (bench/stall-server.js),
#    loadtest --rps 200 next to autocannon -R 200 (with and without its own correction) and
#    wrk (closed model). An honest p90 is about 200 ms.
#   bash bench/open-model.sh [seconds=5]
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-5}
BIN="$PWD/node_modules/.bin"
TMP=$(mktemp -d)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) $STALL 2>/dev/null || true; rm -rf "$TMP"' EXIT
AUTOCANNON=${AUTOCANNON:-$(command -v autocannon || echo "npx --yes autocannon@9")}

sed "s/listen 127.0.0.1:8089/listen 127.0.0.1:8091/" bench/nginx.conf > "$TMP/nginx.conf"
taskset -c 0 nginx -c "$TMP/nginx.conf" -p "$TMP/" 2>"$TMP/nginx.err" &
taskset -c 0 node bench/stall-server.js 8092 > /dev/null &
STALL=$!
sleep 1

echo "rate accuracy: target = R x $S s"
for rt in node bun deno; do
  exe=("$BIN/$rt"); [ "$rt" = node ] && exe=(node); [ "$rt" = deno ] && exe=("$BIN/deno" run -A)
  for rate in 100 1000 10000; do
    taskset -c 1 "${exe[@]}" src/cli.js http://127.0.0.1:8091/ --rps "$rate" -t "$S" -c 50 -k --quiet > "$TMP/out" || true
    completed=$(awk '/Completed requests:/ {print $3}' "$TMP/out")
    inflight=$(awk '/In flight at stop:/ {print $5}' "$TMP/out"); inflight=${inflight:-0}
    achieved=$(awk '/Achieved rps:/ {print $3}' "$TMP/out")
    awk -v rt="$rt" -v r="$rate" -v s="$S" -v c="$completed" -v f="$inflight" -v a="$achieved" \
      'BEGIN { sent = c + f; printf "%-5s --rps %-6d sent %7d of %7d  error %+6.2f %%  achieved %s rps\n", rt, r, sent, r * s, (sent - r * s) * 100 / (r * s), a }'
  done
done

echo
echo "stalling server (300 ms of every second), 200 requests/s, 10 connections, $S s"
pct() { awk -v k="$1" '$1 == k"%" {print $2}' "$TMP/out"; }
for rt in node bun deno; do
  exe=("$BIN/$rt"); [ "$rt" = node ] && exe=(node); [ "$rt" = deno ] && exe=("$BIN/deno" run -A)
  taskset -c 1 "${exe[@]}" src/cli.js http://127.0.0.1:8092/ --rps 200 -t "$S" -c 10 -k --quiet > "$TMP/out" || true
  echo "loadtest ($rt) --rps 200:          p50 $(pct 50) ms  p90 $(pct 90) ms  p99 $(pct 99) ms"
done
taskset -c 1 $AUTOCANNON -R 200 -c 10 -d "$S" -j http://127.0.0.1:8092/ > "$TMP/ac.json" 2>/dev/null || true
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1])); console.log(`autocannon -R 200 (corrected):     p50 ${r.latency.p50} ms  p90 ${r.latency.p90} ms  p99 ${r.latency.p99} ms`)' "$TMP/ac.json"
taskset -c 1 $AUTOCANNON -R 200 -c 10 -d "$S" -j --ignoreCoordinatedOmission http://127.0.0.1:8092/ > "$TMP/ac.json" 2>/dev/null || true
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1])); console.log(`autocannon -R 200 (uncorrected):   p50 ${r.latency.p50} ms  p90 ${r.latency.p90} ms  p99 ${r.latency.p99} ms`)' "$TMP/ac.json"
taskset -c 1 wrk -t1 -c10 -d"${S}s" --latency http://127.0.0.1:8092/ > "$TMP/wrk" 2>&1 || true
echo "wrk -c 10 (closed, as fast as it can): p50 $(awk '$1 == "50%" {print $2}' "$TMP/wrk")  p90 $(awk '$1 == "90%" {print $2}' "$TMP/wrk")  p99 $(awk '$1 == "99%" {print $2}' "$TMP/wrk")"
