#!/bin/sh
# Scripted WebSocket sessions beside k6: VUS VUs (5000) each holding a socket open and sending a
# message a second for DURATION (30s) against the test server's echo, the server on core 0, the
# client on core 1: peak RSS of the client and messages received a second, k6 then loadtest on
# node, bun and deno.
#   sh bench/scripts-websocket.sh [VUS] [DURATION] [K6]
set -eu
cd "$(dirname "$0")/.."
VUS=${1:-5000}
DURATION=${2:-30s}
K6=${3:-/tmp/k6v2/k6}
ulimit -n 20000 2>/dev/null || true
taskset -c 0 node src/commands/testserver.js --quiet --host 127.0.0.1 8094 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
sleep 1
BIN=$PWD/node_modules/.bin
run() {
  name=$1; shift
  out=$(/usr/bin/time -f 'RSS %M' taskset -c 1 "$@" -q -e URL=ws://127.0.0.1:8094/ -e VUS="$VUS" -e DURATION="$DURATION" bench/scripts/websocket.js 2>&1 || true)
  rss=$(echo "$out" | awk '/^RSS/ {print int($2/1024)}')
  rate=$(echo "$out" | awk '/ws_msgs_received/ {for (i=1;i<=NF;i++) if ($i ~ /\/s$/) print $i}')
  sessions=$(echo "$out" | awk '/ws_sessions/ {print $2}')
  echo "$name: peak RSS ${rss} MB, ws_msgs_received ${rate}, ws_sessions ${sessions}"
}
[ -x "$K6" ] && run "k6 $("$K6" version | awk '{print $2}')" "$K6" run
run "loadtest (node)" node src/cli.js run
run "loadtest (bun)" "$BIN/bun" src/cli.js run
run "loadtest (deno)" "$BIN/deno" run -A src/cli.js run
