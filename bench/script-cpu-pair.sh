#!/bin/bash
# A scripted request's CPU beside a declared one's, both runs at once on core 1 (taskset), so that
# a busy or throttled machine slows both alike; each run's CPU (user + sys) from its own rusage.
# The start (modules, the script's transform, the JIT's first seconds) is taken out: each pair
# runs for S1 and then S2 seconds, and a request's CPU is (CPU at S2 - CPU at S1) / (requests at
# S2 - requests at S1). The declared run: -c 10 -k; the scripted: bench/scripts/rate.js (10 VUs
# looping http.get). Against a server already up (one nginx worker on core 0).
#   RT=node|bun|deno URL=http://127.0.0.1:8089/ ROUNDS=3 S1=4 S2=12 bash bench/script-cpu-pair.sh
set -eu
RT=${RT:-node}; S1=${S1:-4}; S2=${S2:-12}; ROUNDS=${ROUNDS:-3}; URL=${URL:-http://127.0.0.1:8089/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/node_modules/.bin
case $RT in node) R="node";; bun) R="$BIN/bun";; deno) R="$BIN/deno run -A";; *) echo "RT: node, bun or deno" >&2; exit 2;; esac
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cd "$ROOT"
# kind seconds -> "cpu_seconds requests" in $TMP/r-kind-seconds
one() {
  local kind=$1 s=$2 out=$TMP/o-$1-$2
  if [ "$kind" = declared ]; then
    /usr/bin/time -o "$TMP/t-$kind-$s" -f "%U %S" taskset -c 1 $R src/cli.js "$URL" -c 10 -k -t "$s" --json > "$out" 2>/dev/null
    n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).totalRequests)' "$out")
  else
    /usr/bin/time -o "$TMP/t-$kind-$s" -f "%U %S" taskset -c 1 $R src/cli.js run -q -d "${s}s" -e "URL=$URL" --summary-export "$out" bench/scripts/rate.js > /dev/null 2>&1
    n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).metrics.http_reqs.count)' "$out")
  fi
  echo "$(awk '{print $1 + $2}' "$TMP/t-$kind-$s") $n" > "$TMP/r-$kind-$s"
}
for i in $(seq "$ROUNDS"); do
  for s in "$S1" "$S2"; do
    one declared "$s" & one script "$s" & wait
  done
  read -r dc1 dn1 < "$TMP/r-declared-$S1"; read -r dc2 dn2 < "$TMP/r-declared-$S2"
  read -r sc1 sn1 < "$TMP/r-script-$S1"; read -r sc2 sn2 < "$TMP/r-script-$S2"
  awk -v a="$dc1" -v b="$dn1" -v c="$dc2" -v d="$dn2" -v e="$sc1" -v f="$sn1" -v g="$sc2" -v h="$sn2" -v i="$i" -v rt="$RT" 'BEGIN {
    dd = (c - a) * 1e6 / (d - b); ss = (g - e) * 1e6 / (h - f)
    printf "round %d %s: declared %.2f µs/req (%d req), script %.2f µs/req (%d req), script/declared %.3f\n", i, rt, dd, d, ss, h, ss / dd }'
done
