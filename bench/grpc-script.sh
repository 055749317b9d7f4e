#!/usr/bin/env bash
# Scripted gRPC calls beside k6 (doc/grpc.md, "Speed"): bench/scripts/grpc.js (10 VUs looping
# client.invoke of loadtest.test.Echo/Say, connected once a VU) and grpc-check.js (the same with
# a check of the status), run by k6 v1.3.0 and by `loadtest run` on node, bun and deno for a
# fixed duration, against the Go server (bench/grpc-go-server; SERVER=grpc-js for
# test/grpc-server.js) on core 0, the client on core 1, rounds interleaved. Beside them, the
# ceiling of that load: h2load with the same 10 connections and one call out on each (-c 10
# -m 1) posting the same framed message, unscripted.
#
#   bash bench/grpc-script.sh                        # 3 rounds of 5 s, k6 at /tmp/k6v13/k6
#   ROUNDS=5 DURATION=10s TOOLS='k6 node' SCRIPTS=grpc K6=/path/to/k6 bash bench/grpc-script.sh
#   VUS=30 bash bench/grpc-script.sh                 # 30 VUs (and h2load -c 30): the client's
#                                                    # core busy, not waiting on the server
#
# Per run: calls/s (iterations over the duration: one call an iteration), CPU µs per call (the
# client's user + system time over its calls, from /usr/bin/time, start included), the same less
# the tool's start (the CPU of a run of 10 calls, measured once a tool: the runtime, the modules,
# the .proto files) and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
TOOLS=${TOOLS:-h2load k6 node bun deno}
SCRIPTS=${SCRIPTS:-grpc grpc-check}
K6=${K6:-/tmp/k6v13/k6}
VUS=${VUS:-10}
export PATH="$PWD/node_modules/.bin:$PATH"
command -v h2load >/dev/null || [[ " $TOOLS " != *" h2load "* ]] || { echo "no h2load (apt-get install nghttp2-client), or TOOLS without it"; exit 1; }
[[ " $TOOLS " != *" k6 "* ]] || [ -x "$K6" ] || { echo "no k6 at $K6: build k6 v1.3.0 from its source (TAG=v1.3.0 ../shared/k6-build.sh MIRROR_GIT_DIR OUT_DIR)"; exit 1; }
# shellcheck source=bench/lib.sh
. bench/lib.sh
grpc_bench_setup

command_for() {
  case "$1" in
    h2load) echo h2load ;;
    k6) echo "$K6 run -q" ;;
    node) echo node src/cli.js run ;;
    bun) echo bun src/cli.js run ;;
    deno) echo deno run -A src/cli.js run ;;
  esac
}

# One run of bench/scripts/$2.js by $1 on core 1: appends "calls seconds cpu_s rss_kib" to
# $TMP/$2.$1, and prints its row.
one() {
  local tool=$1 script=$2 calls secs
  secs=$(awk -v d="$DURATION" 'BEGIN { print d + 0 }')
  if [ "$tool" = h2load ]; then
    taskset -c 1 /usr/bin/time -f '%U %S %M' -o "$TMP/time" h2load -D "$secs" -c "$VUS" -m 1 -d "$TMP/hello.bin" \
      -H 'content-type: application/grpc' -H 'te: trailers' "http://127.0.0.1:$PORT/loadtest.test.Echo/Say" >"$TMP/out" 2>"$TMP/err" ||
      { echo "h2load failed:"; cat "$TMP/out" "$TMP/err"; exit 1; }
    calls=$(grep -o '[0-9]* succeeded' "$TMP/out" | awk '{ print $1 }')
    awk -v c="$calls" -v s="$secs" '{ print c, s, $1 + $2, $3 }' "$TMP/time" | tee -a "$TMP/$script.$tool" |
      awk -v n="$tool" -v sc="$script" '{ printf "| %-10s | %-6s | %8d | %7.1f | %6.1f |\n", sc, n, $1 / $2, $3 * 1e6 / $1, $4 / 1024 }'
    return
  fi
  # shellcheck disable=SC2046
  taskset -c 1 /usr/bin/time -f '%U %S %M' -o "$TMP/time" $(command_for "$tool") --duration "$DURATION" --vus "$VUS" \
    -e ADDR="127.0.0.1:$PORT" -e PROTOS="$PWD/test/grpc" "bench/scripts/$script.js" >"$TMP/out" 2>"$TMP/err" ||
    { echo "$tool $script failed:"; cat "$TMP/err"; exit 1; }
  calls=$(grep -o ' iterations\.*: [0-9]*' "$TMP/out" | grep -o '[0-9]*$' || true)
  [ -n "$calls" ] || { echo "$tool $script: no iterations in its summary:"; cat "$TMP/out" "$TMP/err"; exit 1; }
  if [ "$script" = grpc-check ] && ! grep -q 'checks_failed\.*: 0\.00%' "$TMP/out"; then
    echo "$tool $script: a check failed:"; cat "$TMP/out"; exit 1
  fi
  awk -v c="$calls" -v s="$secs" '{ print c, s, $1 + $2, $3 }' "$TMP/time" | tee -a "$TMP/$script.$tool" |
    awk -v n="$tool" -v sc="$script" '{ printf "| %-10s | %-6s | %8d | %7.1f | %6.1f |\n", sc, n, $1 / $2, $3 * 1e6 / $1, $4 / 1024 }'
}
# The CPU seconds of a tool's start: a run of 10 calls, one a VU.
start_cpu() {
  [ "$1" = h2load ] && { echo 0; return; }
  # shellcheck disable=SC2046
  taskset -c 1 /usr/bin/time -f '%U %S' -o "$TMP/time" $(command_for "$1") --iterations 10 --vus 10 \
    -e ADDR="127.0.0.1:$PORT" -e PROTOS="$PWD/test/grpc" bench/scripts/grpc.js >"$TMP/out" 2>"$TMP/err" ||
    { echo "$1 (10 calls) failed:"; cat "$TMP/err"; exit 1; }
  awk '{ print $1 + $2 }' "$TMP/time"
}

echo "$SERVER_NAME on core 0; clients on core 1; $VUS VUs for $DURATION; $ROUNDS rounds interleaved"
echo
declare -A START
for tool in $TOOLS; do START[$tool]=$(start_cpu "$tool"); done
echo "| script     | client | calls/s  | CPU µs/call | RSS MiB |"
echo "| ---------- | ------ | -------- | ------- | ------ |"
for _ in $(seq "$ROUNDS"); do
  for script in $SCRIPTS; do
    for tool in $TOOLS; do one "$tool" "$script"; done
  done
done
echo
echo "Medians; x k6: calls/s over k6's in the same rounds (each round's ratio, then the median);"
echo "start: $(for t in $TOOLS; do printf '%s %.2f s  ' "$t" "${START[$t]}"; done)"
echo
echo "| script     | client | calls/s  | x k6 | CPU µs/call | less start | RSS MiB |"
echo "| ---------- | ------ | -------- | ---- | ------- | ------- | ------ |"
for script in $SCRIPTS; do
  for tool in $TOOLS; do
    f="$TMP/$script.$tool"
    rate=$(awk '{ print $1 / $2 }' "$f" | median)
    cpu=$(awk '{ print $3 * 1e6 / $1 }' "$f" | median)
    steady=$(awk -v s="${START[$tool]}" '{ print ($3 - s) * 1e6 / $1 }' "$f" | median)
    rss=$(awk '{ print $4 / 1024 }' "$f" | median)
    x=-
    if [ -f "$TMP/$script.k6" ]; then
      x=$(paste -d' ' "$f" "$TMP/$script.k6" | awk '{ print ($1 / $2) / ($5 / $6) }' | median)
      x=$(printf '%.2f' "$x")
    fi
    printf '| %-10s | %-6s | %8.0f | %4s | %7.1f | %7.1f | %6.1f |\n' "$script" "$tool" "$rate" "$x" "$cpu" "$steady" "$rss"
  done
done
