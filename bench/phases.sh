#!/usr/bin/env bash
# What the request phases and the request log cost (bench/README.md, "Request phases and the
# request log"), against one nginx worker (bench/nginx.conf) pinned to core 0, loadtest pinned
# to core 1, in interleaved rounds (A B A B ...):
#   phases: -n N -c 10 -k on this tree, beside the same run on BASE (a commit before phases)
#   log:    -n M -c 10 -k with --log-file, beside the same run without it (this tree)
#   BASE=b0cba29 bash bench/phases.sh [rounds=5] [N=300000] [M=1000000]
#   BASE=ed4191f bash bench/phases.sh 5 300000 0   # this tree beside any commit, no log runs
# Prints each run's requests/s (from --json) and CPU µs per request (user + sys, /usr/bin/time),
# then per runtime the medians and the median of the pairs' ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
N=${2:-300000}
M=${3:-1000000}
BASE=${BASE:-b0cba29}
PORT=8089
URL="http://127.0.0.1:$PORT/"
export PATH="$PWD/node_modules/.bin:$PATH"
TMP=$(mktemp -d)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; git worktree remove --force "$TMP/base" 2>/dev/null || true; rm -rf "$TMP"' EXIT
git worktree add -f "$TMP/base" "$BASE" >/dev/null 2>&1
ln -s "$PWD/node_modules" "$TMP/base/node_modules"
. bench/lib.sh
start_nginx "$URL"

# run NAME TREE N [flags...]: one run on core 1; prints "NAME rps cpu-µs-per-request".
run() {
  local name=$1 tree=$2 n=$3
  shift 3
  local cmd
  case $RT in
    deno) cmd=(deno run -A "$tree/src/cli.js") ;;
    *) cmd=("$RT" "$tree/src/cli.js") ;;
  esac
  /usr/bin/time -f '%U %S' -o "$TMP/time" taskset -c 1 "${cmd[@]}" "$URL" -n "$n" -c 10 -k --quiet --json "$@" >"$TMP/out.json"
  local rps cpu
  rps=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).effectiveRps)' "$TMP/out.json")
  cpu=$(awk -v n="$n" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$TMP/time")
  echo "$RT $name $rps $cpu" | tee -a "$TMP/all"
}

for RT in node bun deno; do
  for r in $(seq "$ROUNDS"); do
    run base "$TMP/base" "$N"
    run phases "$PWD" "$N"
  done
  # M=0: the first comparison only (this tree beside BASE).
  [ "$M" = 0 ] && continue
  for r in $(seq "$ROUNDS"); do
    run nolog "$PWD" "$M"
    run log "$PWD" "$M" --log-file "$TMP/log.tsv"
  done
done

# Medians per runtime and name, and the median ratio of the interleaved pairs.
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" "));
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
for (const rt of ["node", "bun", "deno"]) {
  for (const [a, b] of [["phases", "base"], ["log", "nolog"]]) {
    const A = rows.filter((r) => r[0] === rt && r[1] === a), B = rows.filter((r) => r[0] === rt && r[1] === b);
    if (A.length === 0) continue;
    const ratio = median(A.map((r, i) => r[2] / B[i][2]));
    const cpuRatio = median(A.map((r, i) => r[3] / B[i][3]));
    console.log(`${rt.padEnd(5)} ${a.padEnd(7)} ${median(A.map((r) => +r[2]))} req/s, ${median(A.map((r) => +r[3]))} µs/req | ${b.padEnd(6)} ${median(B.map((r) => +r[2]))} req/s, ${median(B.map((r) => +r[3]))} µs/req | req/s ${ratio.toFixed(3)}x, cpu ${cpuRatio.toFixed(3)}x`);
  }
}' "$TMP/all"
