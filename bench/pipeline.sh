#!/usr/bin/env bash
# What pipelining buys against one nginx worker (bench/nginx.conf) pinned to core 0, each tool
# pinned to core 1, for S seconds with C connections, in interleaved rounds:
#   loadtest --pipeline 1, 4, 16 on node, bun and deno (default adapters);
#   wrk with 1, 4, 16 requests per write (bench/wrk-pipeline.lua);
#   autocannon -p 1, 4, 16 when node_modules/.bin/autocannon or an autocannon on PATH exists.
#   bash bench/pipeline.sh [seconds=5] [rounds=2] [connections=10]
# Prints one line per tool, depth and round: requests/s, then CPU µs per request (user+sys) of
# the tool and of the nginx worker. On a shared machine req/s swings with whatever else runs on
# the two cores; CPU per request, the tool's and the server's, is what pipelining changes and
# holds much steadier.
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-5}
ROUNDS=${2:-2}
C=${3:-10}
PORT=8089
URL="http://127.0.0.1:$PORT/"
BIN="$PWD/node_modules/.bin"
TMP=$(mktemp -d)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
start_nginx "$URL"

# The nginx worker (the master only waits): its CPU ticks, utime + stime, from /proc.
WORKER=$(pgrep -P "$(cat "$TMP/nginx.pid")" | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$WORKER/stat"; }
HZ=$(getconf CLK_TCK)

AUTOCANNON=""
if [ -x "$BIN/autocannon" ]; then AUTOCANNON="$BIN/autocannon"; elif command -v autocannon >/dev/null; then AUTOCANNON=$(command -v autocannon); fi
[ -n "$AUTOCANNON" ] || echo "autocannon: not installed here (node_modules/.bin or PATH), skipped"

# Runs "$@" on core 1; prints "<rps> · <cpu µs per request>" from the tool's own count.
measure() {
  local parse=$1; shift
  local out before after
  before=$(ticks)
  out=$( { /usr/bin/time -f 'CPU %U %S' taskset -c 1 "$@" 2>&1; } 2>&1 )
  after=$(ticks)
  local rps cpu
  rps=$(echo "$out" | eval "$parse")
  cpu=$(echo "$out" | awk '/^CPU / {print $2 + $3}')
  awk -v r="$rps" -v c="$cpu" -v s="$S" -v n=$((after - before)) -v hz="$HZ" \
    'BEGIN { t = r * s; printf "%8.0f req/s · tool %5.2f µs · nginx %5.2f µs\n", r, (t > 0 ? c * 1e6 / t : 0), (t > 0 ? n / hz * 1e6 / t : 0) }'
}

LT_RPS="awk '/Effective rps:/ {print \$3}'"
WRK_RPS="awk '/Requests\\/sec:/ {print \$2}'"
AC_RPS="awk '/requests in/ {gsub(\"k\",\"000\",\$1); print \$1 / $S}'"
for round in $(seq "$ROUNDS"); do
  for depth in 1 4 16; do
    for rt in node bun deno; do
      exe=(node); [ "$rt" = bun ] && exe=("$BIN/bun"); [ "$rt" = deno ] && exe=("$BIN/deno" run -A)
      printf 'round %s  loadtest %-4s --pipeline %-2s  ' "$round" "$rt" "$depth"
      measure "$LT_RPS" "${exe[@]}" src/cli.js "$URL" -k -t "$S" -c "$C" --pipeline "$depth" --quiet
    done
    printf 'round %s  wrk -t1, %-2s per write        ' "$round" "$depth"
    measure "$WRK_RPS" wrk -t1 -c "$C" -d "${S}s" -s bench/wrk-pipeline.lua "$URL" -- "$depth"
    if [ -n "$AUTOCANNON" ]; then
      printf 'round %s  autocannon -p %-2s            ' "$round" "$depth"
      measure "$AC_RPS" node "$AUTOCANNON" -c "$C" -d "$S" -p "$depth" "$URL"
    fi
  done
done
