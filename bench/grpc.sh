#!/usr/bin/env bash
# gRPC unary calls on one core (doc/grpc.md, "Speed"): loadtest --grpc beside h2load posting the
# same framed message (content-type: application/grpc), against our Go server
# (bench/grpc-go-server, built offline by its build.sh) or the grpc-js test server
# (test/grpc-server.js, SERVER=grpc-js; the default when go cannot build). Server on core 0,
# client on core 1, rounds interleaved.
#
#   bash bench/grpc.sh                 # 3 rounds of 300 000 calls, -c 10, 10 streams a connection
#   (against the Go server 100 000 calls last about 2 s: the start would weigh on the CPU a call)
#   ROUNDS=5 CALLS=100000 RUNTIMES='node bun deno' SERVER=go bash bench/grpc.sh
#
# Per run: calls/s (the client's own count), CPU µs per call (the client's user + system time
# over its calls, from /usr/bin/time) and the client's peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
CALLS=${CALLS:-300000}
CONNS=${CONNS:-10}
STREAMS=${STREAMS:-10}
RUNTIMES=${RUNTIMES:-node}
export PATH="$PWD/node_modules/.bin:$PATH"
missing=()
command -v h2load >/dev/null || missing+=(nghttp2-client)
command -v taskset >/dev/null || missing+=(util-linux)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (apt-get)"
  apt-get install -y "${missing[@]}" >/dev/null || { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; }
fi
# shellcheck source=bench/lib.sh
. bench/lib.sh
grpc_bench_setup
DATA='{"name":"joe"}'
CALL=loadtest.test.Echo.Say
PROTO=(--proto test/grpc/echo.proto --import-path test/grpc/include)

# Runs "$@" on core 1 under /usr/bin/time; prints "cpu_seconds max_rss_kib" from its report.
timed() {
  taskset -c 1 /usr/bin/time -f '%U %S %M' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; exit 1; }
  awk '{ printf "%s %s", $1 + $2, $3 }' "$TMP/time"
}

row() { # name rps cpu rss
  awk -v n="$1" -v rps="$2" -v cpu="$3" -v rss="$4" -v calls="$CALLS" \
    'BEGIN { printf "| %-16s | %8d | %6.2f | %6.1f |\n", n, rps, cpu * 1e6 / calls, rss / 1024 }'
}

command_for() {
  case "$1" in
    node) echo node src/cli.js ;;
    bun) echo bun src/cli.js ;;
    deno) echo deno run -A src/cli.js ;;
  esac
}

echo "$SERVER_NAME on core 0; clients on core 1; $CALLS calls, -c $CONNS, $STREAMS streams a connection"
echo
echo "| client           | calls/s  | CPU µs/call | RSS MiB |"
echo "| ---------------- | -------- | ------ | ------ |"
for round in $(seq "$ROUNDS"); do
  read -r cpu rss < <(timed h2load -n "$CALLS" -c "$CONNS" -m "$STREAMS" -d "$TMP/hello.bin" \
    -H 'content-type: application/grpc' -H 'te: trailers' "http://127.0.0.1:$PORT/loadtest.test.Echo/Say"; echo)
  rps=$(grep -o 'finished in [^,]*, [0-9.]* req/s' "$TMP/out" | awk '{ print int($4) }')
  grep -q "$CALLS succeeded" "$TMP/out" || { echo "h2load: not every call succeeded"; cat "$TMP/out"; exit 1; }
  row "h2load" "$rps" "$cpu" "$rss"
  for runtime in $RUNTIMES; do
    # shellcheck disable=SC2046
    read -r cpu rss < <(timed $(command_for "$runtime") -n "$CALLS" -c "$CONNS" --streams "$STREAMS" --call "$CALL" "${PROTO[@]}" \
      --data "$DATA" --json --quiet "grpc://127.0.0.1:$PORT"; echo)
    rps=$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (r.grpcStatuses.OK !== r.totalRequests) { console.error(JSON.stringify(r.grpcStatuses)); process.exit(1); } console.log(r.effectiveRps)' "$TMP/out")
    row "loadtest $runtime" "$rps" "$cpu" "$rss"
  done
done
