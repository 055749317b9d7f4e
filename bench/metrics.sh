#!/usr/bin/env bash
# What --metrics costs (bench/README.md, "Metrics while a run goes"), against one nginx worker
# (bench/nginx.conf) pinned to core 0, loadtest pinned to core 1, in interleaved rounds: -n N -c 10
# -k with --metrics and a scraper fetching /metrics once a second, beside the same run without.
#   bash bench/metrics.sh [rounds=5] [N=1000000]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
N=${2:-1000000}
URL="http://127.0.0.1:8089/"
MPORT=9469
export PATH="$PWD/node_modules/.bin:$PATH"
TMP=$(mktemp -d)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
start_nginx "$URL"

run() {
  local name=$1
  shift
  local cmd
  case $RT in
    deno) cmd=(deno run -A src/cli.js) ;;
    *) cmd=("$RT" src/cli.js) ;;
  esac
  local scraper=
  if [ "$name" = metrics ]; then
    # The scraper: a Prometheus' 1 s interval, on the server's core.
    (while sleep 1; do taskset -c 0 curl -s "http://127.0.0.1:$MPORT/metrics" >/dev/null 2>&1 || true; done) &
    scraper=$!
  fi
  /usr/bin/time -f '%U %S' -o "$TMP/time" taskset -c 1 "${cmd[@]}" "$URL" -n "$N" -c 10 -k --quiet --json "$@" >"$TMP/out.json" 2>/dev/null
  [ -n "$scraper" ] && kill "$scraper" 2>/dev/null && wait "$scraper" 2>/dev/null || true
  local rps cpu
  rps=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).effectiveRps)' "$TMP/out.json")
  cpu=$(awk -v n="$N" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$TMP/time")
  echo "$RT $name $rps $cpu" | tee -a "$TMP/all"
}

for RT in node bun deno; do
  for r in $(seq "$ROUNDS"); do
    run plain
    run metrics --metrics "127.0.0.1:$MPORT"
  done
done

node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" "));
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
for (const rt of ["node", "bun", "deno"]) {
  const A = rows.filter((r) => r[0] === rt && r[1] === "metrics"), B = rows.filter((r) => r[0] === rt && r[1] === "plain");
  console.log(`${rt.padEnd(5)} metrics ${median(A.map((r) => +r[2]))} req/s, ${median(A.map((r) => +r[3]))} µs/req | plain ${median(B.map((r) => +r[2]))} req/s, ${median(B.map((r) => +r[3]))} µs/req | req/s ${median(A.map((r, i) => r[2] / B[i][2])).toFixed(3)}x, cpu ${median(A.map((r, i) => r[3] / B[i][3])).toFixed(3)}x`);
}' "$TMP/all"
