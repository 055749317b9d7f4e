#!/bin/sh
# What --out influxdb costs a scripted run: CPU µs a request of bench/scripts/rate.js (10 VUs
# looping http.get at full speed) with and without it, the client and its output thread on core
# 1, one nginx worker and the InfluxDB on core 0, rounds interleaved; each runtime's median and
# the ratio, and the points the database stored beside the requests made.
#   sh bench/influxdb-cost.sh [ROUNDS] [RUNTIMES]     e.g. sh bench/influxdb-cost.sh 3 "node bun deno"
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
RUNTIMES=${2:-node bun deno}
SECS=${SECS:-5}
TMP=$(mktemp -d /tmp/loadtest-influx-cost.XXXXXX)
mkfifo "$TMP/hold"
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; exec 3>&-; wait; rm -rf "$TMP"' EXIT
. bench/lib.sh
URL=http://127.0.0.1:8089/
start_nginx "$URL"
taskset -c 0 node bench/influxdb-serve.js < "$TMP/hold" > "$TMP/influx" &
exec 3> "$TMP/hold"
for _ in $(seq 100); do [ -s "$TMP/influx" ] && break; sleep 0.2; done
DB=$(head -1 "$TMP/influx")
[ -n "$DB" ] || { echo "influxd did not start"; exit 1; }
measure() {
  out=$1; shift
  /usr/bin/time -f "%U %S %M" -o "$TMP/time" taskset -c 1 "$@" > "$TMP/out" 2> "$TMP/err" || { echo "failed: $*"; cat "$TMP/err"; exit 1; }
  reqs=$(grep -o 'http_reqs\.*: [0-9]*' "$TMP/out" | grep -o '[0-9]*$')
  read -r user sys rss < "$TMP/time"
  echo "$reqs $(echo "$user + $sys" | bc) $rss" >> "$TMP/$out"
}
n=0
for r in $(seq "$ROUNDS"); do
  for t in $RUNTIMES; do
    c=$(cli_of "$t")
    measure "$t.plain" $c run -q -d "${SECS}s" -e URL="$URL" bench/scripts/rate.js
    n=$((n + 1))
    measure "$t.influx" $c run -q -d "${SECS}s" -e URL="$URL" --out "influxdb=$DB/cost$n" bench/scripts/rate.js
    if [ -s "$TMP/err" ]; then cat "$TMP/err"; fi
    stored=$(curl -s "$DB/query?db=cost$n" --data-urlencode 'q=SELECT count(value) FROM http_reqs' | grep -o '"values":\[\["[^"]*",[0-9]*' | grep -o '[0-9]*$')
    echo "$(tail -1 "$TMP/$t.influx" | cut -d' ' -f1) $stored" >> "$TMP/$t.stored"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "runtime | plain µs/req | --out influxdb µs/req | ratio | req/s plain, influx | RSS MB plain, influx | http_reqs made / stored (each round)"
for t in $RUNTIMES; do
  p=$(awk '{print $2 * 1e6 / $1}' "$TMP/$t.plain" | median)
  i=$(awk '{print $2 * 1e6 / $1}' "$TMP/$t.influx" | median)
  pr=$(awk -v s="$SECS" '{print $1 / s}' "$TMP/$t.plain" | median)
  ir=$(awk -v s="$SECS" '{print $1 / s}' "$TMP/$t.influx" | median)
  pm=$(awk '{print $3 / 1024}' "$TMP/$t.plain" | median)
  im=$(awk '{print $3 / 1024}' "$TMP/$t.influx" | median)
  printf "%s | %.1f | %.1f | %.2f | %.0f, %.0f | %.0f, %.0f | %s\n" "$t" "$p" "$i" "$(echo "$i / $p" | bc -l)" "$pr" "$ir" "$pm" "$im" "$(tr ' ' / < "$TMP/$t.stored" | tr '\n' ' ')"
done
