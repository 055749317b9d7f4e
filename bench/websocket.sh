#!/usr/bin/env bash
# WebSocket echo, messages per second: the node:http test server on core 0, each client on
# core 1 for S seconds with 10 connections: loadtest on node, bun and deno, loadtest 8 (node,
# the `websocket` package), and a bare closed loop on that package (bench/websocket-reference.js).
#   bash bench/websocket.sh [seconds=5]     (WS_MODULE=.../ws/wrapper.mjs adds the ws package)
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-5}
BIN="$PWD/node_modules/.bin"
taskset -c 0 node src/commands/testserver.js --quiet --host 127.0.0.1 8093 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
sleep 1
URL=ws://127.0.0.1:8093/
for rt in node bun deno; do
  exe=("$BIN/$rt"); [ "$rt" = node ] && exe=(node); [ "$rt" = deno ] && exe=("$BIN/deno" run -A)
  rps=$(taskset -c 1 "${exe[@]}" src/cli.js "$URL" -t "$S" -c 10 --quiet | awk '/Effective rps:/ {print $3}')
  echo "loadtest on $rt: $rps messages/s"
done
rps=$(taskset -c 1 node node_modules/loadtest8/bin/loadtest.js "$URL" -t "$S" -c 10 --quiet 2>/dev/null | awk '/Effective rps:/ {print $3}')
echo "loadtest 8 (node): $rps messages/s"
echo "websocket package, bare loop (node): $(taskset -c 1 node bench/websocket-reference.js "$URL" 10 "$S" | awk '{print $2}') messages/s"
# The ws package, when WS_MODULE points at it (it is not a dependency: npm i ws in another folder).
if [ -n "${WS_MODULE:-}" ]; then
  echo "ws package, bare loop (node): $(WS_MODULE=$WS_MODULE taskset -c 1 node bench/websocket-reference.js "$URL" 10 "$S" | awk '{print $2}') messages/s"
fi
