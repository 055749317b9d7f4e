#!/bin/sh
# Scripted tests beside k6: the same k6 script run by k6 (built from source:
# ../shared/k6-build.sh) and by `loadtest run` on node, bun and deno, against one nginx worker
# pinned to core 0, the client pinned to core 1, rounds interleaved; medians.
#   rate:   bench/scripts/rate.js, 10 VUs looping http.get for 5 s: req/s, CPU µs per request, RSS;
#           beside it our own declarative run of the same load (-t 5 -c 10 -k): the script's cost;
#           and the same script with --out json=F: its rate beside the same tool's without it
#   memory: bench/scripts/memory.js, 5000 VUs doing http.get + check + sleep(1) for 15 s: peak
#           RSS (the client is one process) and requests made
#   arrival: bench/scripts/arrival.js, constant-arrival-rate at RATE (5000/s) for 10 s on 100
#           preallocated VUs (400 at most): the rate reached, p99 and dropped iterations
#   sh bench/scripts.sh [ROUNDS] [K6]      e.g. sh bench/scripts.sh 3 /tmp/k6v13/k6 (k6 v1.3.0, the reference)
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
K6=${2:-/tmp/k6v13/k6}
[ -x "$K6" ] || { echo "no k6 at $K6: build k6 v1.3.0 from its source (TAG=v1.3.0 ../shared/k6-build.sh MIRROR_GIT_DIR OUT_DIR)"; exit 1; }
TMP=$(mktemp -d /tmp/loadtest-scripts.XXXXXX)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
# 5000 VUs keep 5000 connections open: more than bench/nginx.conf's 1024.
start_nginx_with() {
  sed -e "s/worker_connections 1024/worker_connections 16384/" -e "s/^events/worker_rlimit_nofile 20000;\nevents/" bench/nginx.conf > "$TMP/nginx.conf"
  taskset -c 0 nginx -c "$TMP/nginx.conf" -p "$TMP/" 2>"$TMP/nginx.err" &
  for _ in $(seq 50); do curl -fs "$1" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fs "$1" >/dev/null || { echo "nginx did not start:"; cat "$TMP/nginx.err"; exit 1; }
}
ulimit -n 20000 2>/dev/null || true
URL=http://127.0.0.1:8089/
start_nginx_with "$URL"
BIN=$PWD/node_modules/.bin
cmd() {
  case $1 in
    k6) echo "$K6 run -q" ;;
    node) echo "node src/cli.js run" ;;
    bun) echo "$BIN/bun src/cli.js run" ;;
    deno) echo "$BIN/deno run -A src/cli.js run" ;;
  esac
}
# One run: prints "requests seconds cpu_s rss_kb"; more flags after the script's name.
one() {
  tool=$1; script=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" taskset -c 1 $(cmd "$tool") "$@" -e URL="$URL" "$script" > "$TMP/out" 2>"$TMP/err" || { echo "$tool failed:"; cat "$TMP/err"; exit 1; }
  reqs=$(grep -o 'http_reqs\.*: [0-9]*' "$TMP/out" | grep -o '[0-9]*$' || true)
  [ -n "$reqs" ] || { echo "$tool $script: no http_reqs in its summary:" >&2; cat "$TMP/out" "$TMP/err" >&2; exit 1; }
  read -r wall user sys rss < "$TMP/time"
  echo "$reqs $wall $(echo "$user + $sys" | bc) $rss"
}
# Our declarative run of the same load: prints "requests seconds cpu_s rss_kb".
declarative() {
  case $1 in
    node) c="node src/cli.js" ;;
    bun) c="$BIN/bun src/cli.js" ;;
    deno) c="$BIN/deno run -A src/cli.js" ;;
  esac
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" taskset -c 1 $c -t 5 -c 10 -k "$URL" > "$TMP/out" 2>"$TMP/err" || { echo "$1 -c 10 -k failed:"; cat "$TMP/err"; exit 1; }
  reqs=$(grep -o 'Completed requests: *[0-9]*' "$TMP/out" | grep -o '[0-9]*$')
  read -r wall user sys rss < "$TMP/time"
  echo "$reqs $wall $(echo "$user + $sys" | bc) $rss"
}
TOOLS="k6 node bun deno"
for r in $(seq "$ROUNDS"); do
  for t in $TOOLS; do one "$t" bench/scripts/rate.js >> "$TMP/rate.$t"; done
  for t in node bun deno; do declarative "$t" >> "$TMP/rate.$t-c10k"; done
  # The same with every sample written as k6's JSON lines (13 a request), then the file removed.
  for t in $TOOLS; do one "$t" bench/scripts/rate.js --out json="$TMP/samples.json" >> "$TMP/json.$t"; rm -f "$TMP/samples.json"; done
done
for t in $TOOLS; do one "$t" bench/scripts/memory.js >> "$TMP/memory.$t"; done
# The arrival rate: "iterations rate p99_ms dropped" from the summary (p(99) in ms or µs).
arrival() {
  tool=$1
  taskset -c 1 $(cmd "$tool") -e URL="$URL" -e RATE="${RATE:-5000}" bench/scripts/arrival.js > "$TMP/out" 2>"$TMP/err" || { echo "$tool failed:"; cat "$TMP/err"; exit 1; }
  iters=$(grep -o ' iterations\.*: [0-9]*' "$TMP/out" | grep -o '[0-9]*$')
  dropped=$(grep -o 'dropped_iterations\.*: [0-9]*' "$TMP/out" | grep -o '[0-9]*$' || true)
  p99=$(grep 'http_req_duration\.' "$TMP/out" | grep -o 'p(99)=[0-9.]*[µm]*s' | sed 's/p(99)=//')
  case $p99 in *µs) p99=$(echo "${p99%µs} / 1000" | bc -l) ;; *ms) p99=${p99%ms} ;; *s) p99=$(echo "${p99%s} * 1000" | bc -l) ;; esac
  echo "$iters $(echo "$iters / 10" | bc -l) $p99 ${dropped:-0}"
}
for t in $TOOLS; do arrival "$t" >> "$TMP/arrival.$t"; done
k6rate=$(awk '{ print $1 / 5 }' "$TMP/rate.k6" | median)
k6rss=$(awk '{ print $4 }' "$TMP/memory.k6" | median)
echo "rate: 10 VUs looping http.get for 5 s, $ROUNDS rounds interleaved, medians (nginx on core 0, the client on core 1)"
printf '%-9s %10s %8s %12s %9s\n' tool req/s 'x k6' 'CPU us/req' 'RSS MB'
for t in $TOOLS node-c10k bun-c10k deno-c10k; do
  rps=$(awk '{ print $1 / 5 }' "$TMP/rate.$t" | median)
  cpu=$(awk '{ print $3 * 1e6 / $1 }' "$TMP/rate.$t" | median)
  rss=$(awk '{ print $4 / 1024 }' "$TMP/rate.$t" | median)
  printf '%-9s %10.0f %8.2f %12.1f %9.0f\n' "$t" "$rps" "$(echo "$rps / $k6rate" | bc -l)" "$cpu" "$rss"
done
echo "(node-c10k, bun-c10k, deno-c10k: loadtest -t 5 -c 10 -k, the same load declared, not scripted)"
echo
echo "--out json: the rate script writing every sample as a JSON line; x own: of the same tool's rate without it"
printf '%-6s %10s %8s %8s %12s\n' tool req/s 'x own' 'x k6' 'CPU us/req'
for t in $TOOLS; do
  own=$(awk '{ print $1 / 5 }' "$TMP/rate.$t" | median)
  rps=$(awk '{ print $1 / 5 }' "$TMP/json.$t" | median)
  cpu=$(awk '{ print $3 * 1e6 / $1 }' "$TMP/json.$t" | median)
  printf '%-6s %10.0f %8.2f %8.2f %12.1f\n' "$t" "$rps" "$(echo "$rps / $own" | bc -l)" "$(echo "$rps / $k6rate" | bc -l)" "$cpu"
done
echo
echo "memory: 5000 VUs, http.get + check + sleep(1) for 15 s: peak RSS, requests made (ideal 75000)"
printf '%-6s %10s %8s %10s\n' tool 'RSS MB' 'x k6' requests
for t in $TOOLS; do
  read -r reqs wall cpu rss < "$TMP/memory.$t"
  printf '%-6s %10.0f %8.2f %10s\n' "$t" "$(echo "$rss / 1024" | bc -l)" "$(echo "$rss / $k6rss" | bc -l)" "$reqs"
done
echo
echo "arrival: constant-arrival-rate ${RATE:-5000}/s for 10 s, 100 preallocated VUs (400 at most): rate reached, p99, dropped"
printf '%-6s %10s %10s %10s\n' tool 'iter/s' 'p99 ms' dropped
for t in $TOOLS; do
  read -r iters rate p99 dropped < "$TMP/arrival.$t"
  printf '%-6s %10.0f %10.2f %10s\n' "$t" "$rate" "$p99" "$dropped"
done
