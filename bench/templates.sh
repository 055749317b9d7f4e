#!/usr/bin/env bash
# What a templated request costs (bench/README.md, "Templated requests"), against one nginx
# worker (bench/nginx.conf) pinned to core 0, loadtest pinned to core 1, in interleaved rounds:
#   fixed:     -n N -c 10 -k http://127.0.0.1:8089/items/id1
#   templated: the same with --feed (1000 ids) and http://127.0.0.1:8089/items/{{id}}
#   ndjson:    the same with the ids as an NDJSON feed
#   bash bench/templates.sh [rounds=5] [N=300000]
# CLI=path/to/other/src/cli.js runs another checkout (before and after).
# Prints each run's requests/s (from --json) and CPU µs per request (user + sys, /usr/bin/time),
# then per runtime the medians and the median of the pairs' ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
N=${2:-300000}
PORT=8089
URL="http://127.0.0.1:$PORT"
export PATH="$PWD/node_modules/.bin:$PATH"
TMP=$(mktemp -d)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
start_nginx "$URL/"
{ echo id; seq -f 'id%g' 1 1000; } >"$TMP/ids.csv"
seq -f '{"id":"id%g"}' 1 1000 >"$TMP/ids.ndjson"
CLI=${CLI:-src/cli.js}

# run NAME URL [flags...]: one run on core 1; prints "RUNTIME NAME rps cpu-µs-per-request".
run() {
  local name=$1 url=$2
  shift 2
  local cmd
  case $RT in
    deno) cmd=(deno run -A "$CLI") ;;
    *) cmd=("$RT" "$CLI") ;;
  esac
  /usr/bin/time -f '%U %S' -o "$TMP/time" taskset -c 1 "${cmd[@]}" "$url" -n "$N" -c 10 -k --quiet --json "$@" >"$TMP/out.json"
  local rps cpu
  rps=$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1])); if (r.totalErrors) throw new Error("errors"); console.log(r.effectiveRps)' "$TMP/out.json")
  cpu=$(awk -v n="$N" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$TMP/time")
  echo "$RT $name $rps $cpu" | tee -a "$TMP/all"
}

for RT in node bun deno; do
  for r in $(seq "$ROUNDS"); do
    run fixed "$URL/items/id1"
    run templated "$URL/items/{{id}}" --feed "$TMP/ids.csv"
    run ndjson "$URL/items/{{id}}" --feed "$TMP/ids.ndjson"
  done
done

node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" "));
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
for (const rt of ["node", "bun", "deno"]) {
  const B = rows.filter((r) => r[0] === rt && r[1] === "fixed");
  for (const name of ["templated", "ndjson"]) {
    const A = rows.filter((r) => r[0] === rt && r[1] === name);
    const ratio = median(A.map((r, i) => r[2] / B[i][2]));
    const cpuRatio = median(A.map((r, i) => r[3] / B[i][3]));
    console.log(`${rt.padEnd(5)} ${name.padEnd(9)} ${median(A.map((r) => +r[2]))} req/s, ${median(A.map((r) => +r[3]))} µs/req | fixed ${median(B.map((r) => +r[2]))} req/s, ${median(B.map((r) => +r[3]))} µs/req | req/s ${ratio.toFixed(3)}x, cpu ${cpuRatio.toFixed(3)}x`);
  }
}' "$TMP/all"
