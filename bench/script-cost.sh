#!/bin/sh
# What a scripted request costs beside a declared one, on real sockets: one nginx worker on core 0,
# the client on core 1, rounds interleaved, medians of CPU µs per request (user + sys over the
# requests made). Per runtime: the declared run (`-t 5 -c 10 -k`), the scripted http.get loop
# (bench/scripts/rate.js), the loop of http.get to a template-literal URL + check
# (bench/scripts/rate-check.js) and rate.js with --out json; each scripted one's ratio to the
# declared run of the same runtime, and k6 v1.3's rate beside them.
# AT_RATE=N adds the declared run and both loops each held to N requests a second (--rps N,
# k6's rps option for the script), N below what every runtime reaches: at a client's own top
# speed the server idles between requests more often the slower the client is, and each write
# that wakes it costs the client's system time more (a loopback write runs the receiver's side),
# so the slower client's µs per request grows beyond what its own code costs; at one rate for
# both the kernel's share is the same.
# Each figure is also given less the tool's start (the CPU of a run of 10 requests, measured each
# round; for --out json, of 10 requests with it, whose thread starts too): a 5 s run at 15 000 a
# second spreads a scripted run's start (the runtime, the modules, the script's transform: 0.3
# to 0.8 s) over its requests as 4 to 10 µs each, which is no request's cost. And, "beyond 1 s",
# the CPU a request costs once the run is started and its code optimized: of the 4 s a 5 s run
# has beyond a 1 s run of the same round, (cpu5 - cpu1) / (requests5 - requests1). A scripted
# run has more code for V8 to optimize than a declared one, on the same core in these runs: some
# 0.3 s of compiling (perf: 1.4 µs a request of node's check loop in 5 s, 0.5 in 15 s).
# SECS=N makes every run but the 1 s ones N seconds long (5 by default): the longer the run, the
# less its start and warm-up weigh in its whole CPU, and the nearer the medians come to "beyond 1 s".
#   sh bench/script-cost.sh [ROUNDS] [K6] [RUNTIMES]   e.g. sh bench/script-cost.sh 3 /tmp/k6v13/k6
#   AT_RATE=15000 sh bench/script-cost.sh 3
#   SECS=20 sh bench/script-cost.sh 3 /tmp/k6v13/k6
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
K6=${2:-/tmp/k6v13/k6}
RUNTIMES=${3:-node bun deno}
SECS=${SECS:-5}
TMP=$(mktemp -d /tmp/loadtest-cost.XXXXXX)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
URL=http://127.0.0.1:8089/
start_nginx "$URL"
# One measure: "requests cpu_s rss_kb" of a command run on core 1.
measure() {
  out=$1; shift
  /usr/bin/time -f "%U %S %M" -o "$TMP/time" taskset -c 1 "$@" > "$TMP/out" 2> "$TMP/err" || { echo "failed: $*"; cat "$TMP/err"; exit 1; }
  reqs=$(grep -o 'http_reqs\.*: [0-9]*' "$TMP/out" | grep -o '[0-9]*$' || grep -o 'Completed requests: *[0-9]*' "$TMP/out" | grep -o '[0-9]*$')
  read -r user sys rss < "$TMP/time"
  echo "$reqs $(echo "$user + $sys" | bc) $rss" >> "$TMP/$out"
}
for r in $(seq "$ROUNDS"); do
  [ -x "$K6" ] && measure k6.rate "$K6" run -q -d "${SECS}s" -e URL="$URL" bench/scripts/rate.js
  [ -x "$K6" ] && measure k6.check "$K6" run -q -d "${SECS}s" -e URL="$URL" bench/scripts/rate-check.js
  for t in $RUNTIMES; do
    c=$(cli_of "$t")
    measure "$t.declared_start" $c -n 10 -c 10 -k "$URL"
    measure "$t.rate_start" $c run -q --iterations 10 --vus 10 -e URL="$URL" bench/scripts/rate.js
    measure "$t.check_start" $c run -q --iterations 10 --vus 10 -e URL="$URL" bench/scripts/rate-check.js
    measure "$t.json_start" $c run -q --iterations 10 --vus 10 -e URL="$URL" --out json="$TMP/samples.json" bench/scripts/rate.js
    rm -f "$TMP/samples.json"
    measure "$t.declared_1s" $c -t 1 -c 10 -k "$URL"
    measure "$t.declared" $c -t "$SECS" -c 10 -k "$URL"
    measure "$t.rate_1s" $c run -q -d 1s -e URL="$URL" bench/scripts/rate.js
    measure "$t.rate" $c run -q -d "${SECS}s" -e URL="$URL" bench/scripts/rate.js
    measure "$t.check_1s" $c run -q -d 1s -e URL="$URL" bench/scripts/rate-check.js
    measure "$t.check" $c run -q -d "${SECS}s" -e URL="$URL" bench/scripts/rate-check.js
    measure "$t.json_1s" $c run -q -d 1s -e URL="$URL" --out json="$TMP/samples.json" bench/scripts/rate.js
    rm -f "$TMP/samples.json"
    measure "$t.json" $c run -q -d "${SECS}s" -e URL="$URL" --out json="$TMP/samples.json" bench/scripts/rate.js
    rm -f "$TMP/samples.json"
    if [ -n "${AT_RATE:-}" ]; then
      measure "$t.declared_at" $c -t "$SECS" -c 10 -k --rps "$AT_RATE" "$URL"
      measure "$t.rate_at" $c run -q -d "${SECS}s" --rps "$AT_RATE" -e URL="$URL" bench/scripts/rate.js
      measure "$t.check_at" $c run -q -d "${SECS}s" --rps "$AT_RATE" -e URL="$URL" bench/scripts/rate-check.js
    fi
  done
done
us() { awk '{ print $2 * 1e6 / $1 }' "$TMP/$1" | median; }
# µs per request less the median start of $2 (declared, rate or check) of runtime $3.
less() { s=$(awk '{ print $2 }' "$TMP/$3.$2_start" | median); awk -v s="$s" '{ print ($2 - s) * 1e6 / $1 }' "$TMP/$1" | median; }
rps() { awk -v s="$SECS" '{ print $1 / s }' "$TMP/$1" | median; }
# The ratio of $1's µs per request to $2's, round by round (the two ran a minute apart at most):
# all the rounds' and their median. A host whose load changes by the minute moves both alike.
paired() { paste -d ' ' "$TMP/$1" "$TMP/$2" | awk '{ printf "%.2f\n", ($2 / $1) / ($5 / $4) }' > "$TMP/paired"; echo "$(median < "$TMP/paired") ($(tr '\n' ' ' < "$TMP/paired" | sed 's/ $//'))"; }
# µs per request of the time a run has beyond its round's 1 s run: neither start nor warm-up.
beyond() { paste -d ' ' "$TMP/$1" "$TMP/$1_1s" | awk '{ print ($2 - $5) * 1e6 / ($1 - $4) }' | median; }
echo "CPU µs per request, $ROUNDS rounds interleaved, medians (nginx on core 0, the client on core 1, 10 VUs or connections, $SECS s)"
printf '%-6s %9s %9s %9s %9s %9s %9s %9s\n' tool declared rate 'x decl' check 'x decl' 'out json' 'x rate'
if [ -x "$K6" ]; then
  printf '%-6s %9s %9.1f %9s %9.1f %9s %9s %9s\n' k6 - "$(us k6.rate)" - "$(us k6.check)" - - -
fi
for t in $RUNTIMES; do
  d=$(us "$t.declared"); a=$(us "$t.rate"); c=$(us "$t.check"); j=$(us "$t.json")
  printf '%-6s %9.1f %9.1f %9.2f %9.1f %9.2f %9.1f %9.2f\n' "$t" "$d" "$a" "$(echo "$a / $d" | bc -l)" "$c" "$(echo "$c / $d" | bc -l)" "$j" "$(echo "$j / $a" | bc -l)"
done
echo
echo "the same ratios round by round (each round's ratio, their median first)"
for t in $RUNTIMES; do
  printf '%-6s rate x decl %s, check x decl %s, out json x rate %s\n' "$t" "$(paired "$t.rate" "$t.declared")" "$(paired "$t.check" "$t.declared")" "$(paired "$t.json" "$t.rate")"
done
echo
echo "requests per second (medians)"
printf '%-6s %9s %9s %9s %9s\n' tool declared rate check 'x k6 chk'
k6c=1
[ -x "$K6" ] && { k6c=$(rps k6.check); printf '%-6s %9s %9.0f %9.0f %9s\n' k6 - "$(rps k6.rate)" "$k6c" 1.00; }
for t in $RUNTIMES; do
  printf '%-6s %9.0f %9.0f %9.0f %9.2f\n' "$t" "$(rps "$t.declared")" "$(rps "$t.rate")" "$(rps "$t.check")" "$(echo "$(rps "$t.check") / $k6c" | bc -l)"
done
if [ -n "${AT_RATE:-}" ]; then
  echo
  echo "at $AT_RATE requests a second each (--rps): CPU µs per request (medians)"
  printf '%-6s %9s %9s %9s %9s %9s %9s %9s %9s\n' tool declared rps rate rps 'x decl' check rps 'x decl'
  for t in $RUNTIMES; do
    d=$(us "$t.declared_at"); a=$(us "$t.rate_at"); c=$(us "$t.check_at")
    printf '%-6s %9.1f %9.0f %9.1f %9.0f %9.2f %9.1f %9.0f %9.2f\n' "$t" "$d" "$(rps "$t.declared_at")" "$a" "$(rps "$t.rate_at")" "$(echo "$a / $d" | bc -l)" "$c" "$(rps "$t.check_at")" "$(echo "$c / $d" | bc -l)"
  done
fi
echo
echo "less each run's start (the CPU of 10 requests; medians): CPU µs per request"
printf '%-6s %9s %9s %9s %9s\n' tool start_d start_r start_c start_j
for t in $RUNTIMES; do
  sd=$(awk '{ print $2 }' "$TMP/$t.declared_start" | median); sr=$(awk '{ print $2 }' "$TMP/$t.rate_start" | median); sc=$(awk '{ print $2 }' "$TMP/$t.check_start" | median); sj=$(awk '{ print $2 }' "$TMP/$t.json_start" | median)
  d=$(less "$t.declared" declared "$t"); a=$(less "$t.rate" rate "$t"); c=$(less "$t.check" check "$t"); j=$(less "$t.json" json "$t")
  printf '%-6s %8.2fs %8.2fs %8.2fs %8.2fs   full speed: declared %.1f, rate %.1f (x %.2f), check %.1f (x %.2f), out json %.1f (x rate %.2f)\n' "$t" "$sd" "$sr" "$sc" "$sj" "$d" "$a" "$(echo "$a / $d" | bc -l)" "$c" "$(echo "$c / $d" | bc -l)" "$j" "$(echo "$j / $a" | bc -l)"
  d=$(beyond "$t.declared"); a=$(beyond "$t.rate"); c=$(beyond "$t.check"); j=$(beyond "$t.json")
  printf '%-6s %9s %9s %9s %9s   beyond 1 s:  declared %.1f, rate %.1f (x %.2f), check %.1f (x %.2f), out json %.1f (x rate %.2f)\n' "$t" '' '' '' '' "$d" "$a" "$(echo "$a / $d" | bc -l)" "$c" "$(echo "$c / $d" | bc -l)" "$j" "$(echo "$j / $a" | bc -l)"
  if [ -n "${AT_RATE:-}" ]; then
    d=$(less "$t.declared_at" declared "$t"); a=$(less "$t.rate_at" rate "$t"); c=$(less "$t.check_at" check "$t")
    printf '%-6s %9s %9s %9s   at %s/s:    declared %.1f, rate %.1f (x %.2f), check %.1f (x %.2f)\n' "$t" '' '' '' "$AT_RATE" "$d" "$a" "$(echo "$a / $d" | bc -l)" "$c" "$(echo "$c / $d" | bc -l)"
  fi
done
