#!/bin/bash
# One command's run against an nginx worker already up (its stub_status at $STATUS_URL, default
# http://127.0.0.1:8089/nginx_status, as bench/nginx.conf serves it), the command pinned to core
# 1: its rate, its CPU a request (user+sys from /usr/bin/time), and nginx's own CPU a request and
# sleeps (voluntary context switches) a thousand requests, from /proc and stub_status's count. A
# slower client makes nginx sleep and be woken more often; this tells that apart from the
# client's own cost. Run it by turns for each tool:
#   bash bench/nginx-cost.sh wrk wrk -t1 -c10000 -d10s http://127.0.0.1:8089/
#   bash bench/nginx-cost.sh ours node src/cli.js http://127.0.0.1:8089/ -c 10000 -k -t 10 --quiet
set -eu
name=$1
shift
STATUS_URL=${STATUS_URL:-http://127.0.0.1:8089/nginx_status}
worker=$(pgrep -f "nginx: worker" | head -1)
out=$(mktemp -d /tmp/loadtest-nginx-cost.XXXXXX)
trap 'rm -rf "$out"' EXIT
cpu() { awk '{print $14 + $15}' "/proc/$worker/stat"; } # clock ticks (1/100 s)
sleeps() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$worker/status"; }
count() { curl -s "$STATUS_URL" | awk 'NR == 3 {print $3}'; }
c0=$(cpu) s0=$(sleeps) r0=$(count) t0=$(date +%s.%N)
/usr/bin/time -f '%U %S %M' -o "$out/time" taskset -c 1 "$@" > "$out/stdout" 2>&1
c1=$(cpu) s1=$(sleeps) r1=$(count) t1=$(date +%s.%N)
read -r user sys rss < "$out/time"
# The status requests themselves (one before the run's) are not the command's.
awk -v n="$name" -v c=$((c1 - c0)) -v s=$((s1 - s0)) -v r=$((r1 - r0 - 1)) -v u="$user" -v y="$sys" -v m="$rss" -v t0="$t0" -v t1="$t1" 'BEGIN {
  printf "%-10s %8d requests %7.0f/s  client %5.2f µs/req (sys %5.2f)  nginx %5.2f µs/req, %5.1f sleeps/1000 req  RSS %d MB\n",
    n, r, r / (t1 - t0), (u + y) * 1e6 / r, y * 1e6 / r, c * 1e4 / r, s * 1000 / r, m / 1024 }'
