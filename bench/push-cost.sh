#!/bin/sh
# What each push output costs a scripted run: CPU µs a request of bench/scripts/rate.js (10 VUs
# looping http.get at full speed) without an output and with --out influxdb,
# experimental-prometheus-rw, opentelemetry over gRPC and over HTTP/protobuf; the client and its
# output thread on core 1, one nginx worker and the databases on core 0, rounds interleaved; each
# runtime's median, the ratio to the run without, and peak RSS. K6=path/to/k6 adds k6's own runs.
#   sh bench/push-cost.sh [ROUNDS] [RUNTIMES] [OUTPUTS]
#   e.g. K6=/tmp/k6v2/k6 sh bench/push-cost.sh 3 "node bun deno" "influxdb prometheus otlp-grpc otlp-http"
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
RUNTIMES=${2:-node bun deno}
OUTPUTS=${3:-influxdb prometheus otlp-grpc otlp-http}
SECS=${SECS:-5}
K6=${K6:-}
TMP=$(mktemp -d /tmp/loadtest-push-cost.XXXXXX)
mkfifo "$TMP/hold"
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; exec 3>&-; wait; rm -rf "$TMP"' EXIT
. bench/lib.sh
URL=http://127.0.0.1:8089/
start_nginx "$URL"
taskset -c 0 node bench/push-serve.js < "$TMP/hold" > "$TMP/dbs" &
exec 3> "$TMP/hold"
for _ in $(seq 200); do [ -s "$TMP/dbs" ] && break; sleep 0.2; done
[ -s "$TMP/dbs" ] || { echo "the databases did not start"; exit 1; }
field() { node -e "process.stdout.write(JSON.parse(require('fs').readFileSync('$TMP/dbs', 'utf8'))['$1'])"; }
INFLUX=$(field influx) PROM=$(field prometheus) OTLP_GRPC=$(field otlpGrpc) OTLP_HTTP=$(field otlpHttp)
# An output's flag and variables (as env's arguments).
out_args() {
  case $1 in
    plain) echo "" ;;
    influxdb) echo "--out influxdb=$INFLUX/cost" ;;
    prometheus) echo "--out experimental-prometheus-rw" ;;
    otlp-grpc|otlp-http) echo "--out opentelemetry" ;;
  esac
}
out_env() {
  case $1 in
    prometheus) echo "K6_PROMETHEUS_RW_SERVER_URL=$PROM/api/v1/write" ;;
    otlp-grpc) echo "K6_OTEL_GRPC_EXPORTER_INSECURE=true K6_OTEL_GRPC_EXPORTER_ENDPOINT=$OTLP_GRPC" ;;
    otlp-http) echo "K6_OTEL_EXPORTER_PROTOCOL=http/protobuf K6_OTEL_HTTP_EXPORTER_INSECURE=true K6_OTEL_HTTP_EXPORTER_ENDPOINT=$OTLP_HTTP" ;;
    *) echo "NOTHING=" ;;
  esac
}
measure() {
  key=$1; shift
  # shellcheck disable=SC2046
  env $(out_env "${key#*.}") /usr/bin/time -f "%U %S %M" -o "$TMP/time" taskset -c 1 "$@" > "$TMP/out" 2> "$TMP/err" || { echo "failed: $*"; cat "$TMP/err"; exit 1; }
  reqs=$(grep -o 'http_reqs\.*: [0-9]*' "$TMP/out" | grep -o '[0-9]*$')
  read -r user sys rss < "$TMP/time"
  echo "$reqs $(echo "$user + $sys" | bc) $rss" >> "$TMP/$key"
  if [ -s "$TMP/err" ]; then echo "$key: $(cat "$TMP/err")"; fi
}
TOOLS=$RUNTIMES
[ -n "$K6" ] && TOOLS="$TOOLS k6"
for _ in $(seq "$ROUNDS"); do
  for t in $TOOLS; do
    for o in plain $OUTPUTS; do
      # shellcheck disable=SC2046
      if [ "$t" = k6 ]; then measure "$t.$o" "$K6" run -q -d "${SECS}s" -e URL="$URL" $(out_args "$o") bench/scripts/rate.js
      else measure "$t.$o" $(cli_of "$t") run -q -d "${SECS}s" -e URL="$URL" $(out_args "$o") bench/scripts/rate.js; fi
    done
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "tool | output | req/s | µs/req | ratio to none | RSS MB"
for t in $TOOLS; do
  p=$(awk '{print $2 * 1e6 / $1}' "$TMP/$t.plain" | median)
  for o in plain $OUTPUTS; do
    u=$(awk '{print $2 * 1e6 / $1}' "$TMP/$t.$o" | median)
    r=$(awk -v s="$SECS" '{print $1 / s}' "$TMP/$t.$o" | median)
    m=$(awk '{print $3 / 1024}' "$TMP/$t.$o" | median)
    printf "%s | %s | %.0f | %.1f | %.2f | %.0f\n" "$t" "$o" "$r" "$u" "$(echo "$u / $p" | bc -l)" "$m"
  done
done
