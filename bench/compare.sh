#!/usr/bin/env bash
# Side-by-side: loadtest (node, bun, deno) against wrk and autocannon on the same local nginx.
# nginx runs pinned to core 0, each tool pinned to core 1, in interleaved rounds (the machines
# are shared and noisy: compare within a round, quote medians of the ratios).
#
#   bash bench/compare.sh [seconds=5] [rounds=3] [connections=10] [tools|adapters]
#
# tools (default): wrk, loadtest on node/bun/deno with their default adapters, autocannon.
# adapters: loadtest on every runtime × socket adapter it can run (node:net everywhere,
# Bun.connect, Deno.connect), to choose each runtime's default: a `loadtest compare` run, with
# its medians and t-tests.
# cores: loadtest --cores 1 (on core 1) and --cores 2 (on cores 0 and 1) on each runtime.
#
# Needs wrk and nginx (apt-get install wrk nginx); autocannon is fetched with npx if missing.
# Prints one line per tool and round: requests/s and CPU µs per request (user+sys / requests).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${1:-5}
ROUNDS=${2:-3}
CONNS=${3:-10}
MODE=${4:-tools}
PORT=8089
URL="http://127.0.0.1:$PORT/"
BIN="$PWD/node_modules/.bin"
TMP=$(mktemp -d)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT

sed "s/listen 127.0.0.1:8089/listen 127.0.0.1:$PORT/" bench/nginx.conf > "$TMP/nginx.conf"
if [ "$MODE" = adapters ]; then
  # loadtest compare starts nginx (once, on core 0), interleaves the clients on core 1 and tests
  # each against node/node:net.
  node src/cli.js compare --server "nginx -c $TMP/nginx.conf -p $TMP/" --url "$URL" --server-cpus 0 \
    --client node,bun,deno --socket all --rounds "$ROUNDS" -t "$SECONDS_PER_RUN" -c "$CONNS" -k
  exit
fi
taskset -c 0 nginx -c "$TMP/nginx.conf" -p "$TMP/" 2>"$TMP/nginx.err" &
for _ in $(seq 50); do curl -fs "$URL" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "$URL" >/dev/null || { echo "nginx did not start:"; cat "$TMP/nginx.err"; exit 1; }

AUTOCANNON=${AUTOCANNON:-$(command -v autocannon || echo "npx --yes autocannon@9")}

# run NAME COMMAND... : runs pinned to core 1 and prints "NAME rps cpu_us_per_request"
run() {
  local name=$1; shift
  /usr/bin/time -f "%U %S" -o "$TMP/time" taskset -c "${PIN:-1}" "$@" > "$TMP/out" 2>&1 || true
  local requests
  case $name in
    wrk) requests=$(awk '/requests in/ {print $1}' "$TMP/out") ;;
    autocannon) requests=$(grep -o '"total":[0-9]*' "$TMP/out" | head -1 | cut -d: -f2) ;;
    *) requests=$(awk '/Completed requests:/ {print $3}' "$TMP/out") ;;  # loadtest
  esac
  awk -v n="$name" -v r="$requests" -v s="$SECONDS_PER_RUN" '{ cpu = $1 + $2; printf "%-16s %10.0f req/s %8.2f µs CPU/req\n", n, r / s, cpu * 1e6 / r }' <(tail -1 "$TMP/time")
}

LT=(src/cli.js "$URL" -k -c "$CONNS" -t "$SECONDS_PER_RUN" --quiet)
for round in $(seq "$ROUNDS"); do
  echo "round $round"
  if [ "$MODE" = cores ]; then
    # --cores 2 shares core 0 with nginx: the machine has two.
    for rt in node bun deno; do
      exe=("$BIN/$rt"); [ "$rt" = node ] && exe=(node); [ "$rt" = deno ] && exe=("$BIN/deno" run -A)
      run "$rt/cores-1" "${exe[@]}" "${LT[@]}" --cores 1
      PIN=0,1 run "$rt/cores-2" "${exe[@]}" "${LT[@]}" --cores 2
    done
    continue
  fi
  run wrk wrk -t1 -c"$CONNS" -d"${SECONDS_PER_RUN}s" "$URL"
  run loadtest-node node "${LT[@]}"
  run loadtest-bun "$BIN/bun" "${LT[@]}"
  run loadtest-deno "$BIN/deno" run -A "${LT[@]}"
  run autocannon $AUTOCANNON -c "$CONNS" -d "$SECONDS_PER_RUN" -j "$URL"
done
