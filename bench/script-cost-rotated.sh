#!/bin/sh
# What a scripted request costs beside a declared one, with the host's drift taken out: the runs
# compared run together, taking turns on core 1 (bench/rotate.js: 1 s each in turn, the others
# stopped), one nginx worker on core 0. bench/script-cost.sh runs them one after the other, and
# on a shared machine whose speed moves by the minute its round-by-round ratios went from 0.85 to
# 1.77 on the same code; here each round's commands meet the same host.
# Per runtime and round, one rotation of eight runs of WALL seconds (WALL/8 s of CPU each, in turns):
# the declared run (`-t WALL -c 10 -k`), the scripted http.get loop (bench/scripts/rate.js), the
# loop of http.get to a template-literal URL + check (bench/scripts/rate-check.js), rate.js and
# rate-check.js with --out json (one URL's tag set; a hundred's), rate-check.js with --out
# json=/dev/null (ours without the file's page cache), and k6 v1.3's check loop, without and
# with --out json (the file's cost to k6, the reference). CPU µs a request (user + sys over the requests made), the
# ratios of each round's own runs and their median over the rounds; and the same less each
# command's start (the CPU of a run of 10 requests, rotated too, its median over the rounds).
# A rotation's runs each get a share of the wall time: their requests a second mean nothing, and
# "× k6" is k6's CPU a request over ours, which on one saturated core is the ratio of the rates.
# nginx's worker is watched in each run's turns (bench/rotate.js WATCH): how often it slept a
# request, each sleep a wake-up the client's next write pays for in system time. A client faster
# than nginx (bun's declared run) never lets it sleep; one slower (every scripted loop) does.
#   sh bench/script-cost-rotated.sh [ROUNDS] [K6] [RUNTIMES]   e.g. sh bench/script-cost-rotated.sh 5 /tmp/k6v13/k6
#   WALL=60 SLICE=2000 sh bench/script-cost-rotated.sh 3
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
K6=${2:-/tmp/k6v13/k6}
RUNTIMES=${3:-node bun deno}
WALL=${WALL:-48}
WARM=${WARM:-2}
SLICE=${SLICE:-1000}
TMP=$(mktemp -d /tmp/loadtest-rotated.XXXXXX)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
URL=http://127.0.0.1:8089/
start_nginx "$URL"
NGINX_WORKER=$(pgrep -P "$(cat "$TMP/nginx.pid")" | head -n 1)
[ -x "$K6" ] || { echo "no k6 at $K6: build it (../shared/k6-build.sh)"; exit 1; }

# The shell command of run $1 (its output and times in $TMP/$1.*), the rest its command line.
cmd() { name=$1; shift; echo "exec /usr/bin/time -f '%U %S %M' -o $TMP/$name.time taskset -c 1 $* > $TMP/$name.out 2> $TMP/$name.err"; }
# Once it has run: "requests cpu_s rss_kb" added to $TMP/$1.
record() {
  reqs=$(grep -o 'http_reqs\.*: [0-9]*' "$TMP/$1.out" | grep -o '[0-9]*$' || grep -o 'Completed requests: *[0-9]*' "$TMP/$1.out" | grep -o '[0-9]*$') || { echo "no count from $1:"; cat "$TMP/$1.out" "$TMP/$1.err"; exit 1; }
  read -r user sys rss < "$TMP/$1.time"
  echo "$reqs $(echo "$user + $sys" | bc) $rss" >> "$TMP/$1"
}
# nginx's worker is watched (bench/rotate.js): its sleeps and CPU in each run's turns, in $TMP/watch.
rotate() { COUNT_URL=${URL}nginx_status TURNS_OUT=$TMP/turns WATCH=$NGINX_WORKER WATCH_OUT=$TMP/watch taskset -c 0 node bench/rotate.js "$SLICE" "$@" || { echo "a run failed:"; tail -n 3 "$TMP"/*.err; exit 1; }; }
# Once the rotation of runs $@ (in its order) has run: "requests sleeps ticks" added to $TMP/NAME.server.
record_server() {
  i=1
  for n in "$@"; do
    reqs=$(awk 'END { print $1 }' "$TMP/$n")
    echo "$reqs $(sed -n "${i}p" "$TMP/watch")" >> "$TMP/$n.server"
    i=$((i + 1))
  done
}
# Once the rotation of runs $@ (in its order) has run: their steady state, "requests cpu_s 0" (as record's lines),
# added to $TMP/NAME.steady (the turns after the first WARM s of the run's CPU, before its last).
record_steady() {
  i=0
  for n in "$@"; do
    awk -v i="$i" -v warm="$WARM" '$1 == i { cpu[++k] = $2; req[k] = $3 }
      END { for (t = 1; t < k; t++) { if (done >= warm * 1e9 && cpu[t] >= 0) { c += cpu[t]; r += req[t] } done += cpu[t] }
        if (r == 0) { print "no steady turn: a longer WALL" > "/dev/stderr"; exit 1 } print r, c / 1e9, 0 }' "$TMP/turns" >> "$TMP/$n.steady" || exit 1
    i=$((i + 1))
  done
}
script() { echo "$1 run -q $2 -e URL=$URL bench/scripts/$3"; }

for r in $(seq "$ROUNDS"); do
  # The starts: every command's, 10 requests each, in one rotation.
  set -- "$(cmd k6.check_start "$K6" run -q --iterations 10 --vus 10 -e URL="$URL" bench/scripts/rate-check.js)"
  names=k6.check_start
  for t in $RUNTIMES; do
    c=$(cli_of "$t")
    set -- "$@" "$(cmd "$t.declared_start" "$c" -n 10 -c 10 -k "$URL")" \
      "$(cmd "$t.rate_start" "$(script "$c" '--iterations 10 --vus 10' rate.js)")" \
      "$(cmd "$t.check_start" "$(script "$c" '--iterations 10 --vus 10' rate-check.js)")" \
      "$(cmd "$t.json_start" "$(script "$c" "--iterations 10 --vus 10 --out json=$TMP/samples-start-$t.json" rate.js)")" \
      "$(cmd "$t.checkjson_start" "$(script "$c" "--iterations 10 --vus 10 --out json=$TMP/samples-start-check-$t.json" rate-check.js)")"
    names="$names $t.declared_start $t.rate_start $t.check_start $t.json_start $t.checkjson_start"
  done
  rotate "$@"
  for n in $names; do record "$n"; done
  rm -f "$TMP"/samples-*.json
  for t in $RUNTIMES; do
    c=$(cli_of "$t")
    rotate "$(cmd "$t.k6" "$K6" run -q -d "${WALL}s" -e URL="$URL" bench/scripts/rate-check.js)" \
      "$(cmd "$t.declared" "$c" -t "$WALL" -c 10 -k "$URL")" \
      "$(cmd "$t.rate" "$(script "$c" "-d ${WALL}s" rate.js)")" \
      "$(cmd "$t.check" "$(script "$c" "-d ${WALL}s" rate-check.js)")" \
      "$(cmd "$t.json" "$(script "$c" "-d ${WALL}s --out json=$TMP/samples-$t.json" rate.js)")" \
      "$(cmd "$t.checkjson" "$(script "$c" "-d ${WALL}s --out json=$TMP/samples-check-$t.json" rate-check.js)")" \
      "$(cmd "$t.checknull" "$(script "$c" "-d ${WALL}s --out json=/dev/null" rate-check.js)")" \
      "$(cmd "$t.k6json" "$K6" run -q -d "${WALL}s" --out json="$TMP/samples-k6-$t.json" -e URL="$URL" bench/scripts/rate-check.js)"
    for n in k6 declared rate check json checkjson checknull k6json; do record "$t.$n"; done
    record_server "$t.k6" "$t.declared" "$t.rate" "$t.check" "$t.json" "$t.checkjson" "$t.checknull" "$t.k6json"
    record_steady "$t.k6" "$t.declared" "$t.rate" "$t.check" "$t.json" "$t.checkjson" "$t.checknull" "$t.k6json"
    rm -f "$TMP/samples-$t.json" "$TMP/samples-check-$t.json" "$TMP/samples-k6-$t.json"
  done
done

us() { awk '{ print $2 * 1e6 / $1 }' "$TMP/$1" | median; }
# Less the median start of $2: "$TMP/$1"'s lines as µs a request.
less_start() { s=$(awk '{ print $2 }' "$TMP/$2" | median); awk -v s="$s" '{ print ($2 - s) * 1e6 / $1 }' "$TMP/$1"; }
# $1's µs a request over $2's, round by round (the two of the same rotation): "median (each)".
paired() {
  paste -d ' ' "$TMP/$1" "$TMP/$2" | awk '{ printf "%.2f\n", ($2 / $1) / ($5 / $4) }' > "$TMP/paired"
  echo "$(median < "$TMP/paired") ($(tr '\n' ' ' < "$TMP/paired" | sed 's/ $//'))"
}
# The same less each one's start ($3 and $4: the start runs of $1 and $2).
paired_less() {
  less_start "$1" "$3" > "$TMP/a"; less_start "$2" "$4" > "$TMP/b"
  paste -d ' ' "$TMP/a" "$TMP/b" | awk '{ printf "%.2f\n", $1 / $2 }' > "$TMP/paired"
  echo "$(median < "$TMP/paired") ($(tr '\n' ' ' < "$TMP/paired" | sed 's/ $//'))"
}

echo "CPU µs a request, medians of $ROUNDS rounds; each round's runs of a runtime rotated on core 1 ($SLICE ms turns, $WALL s), nginx on core 0"
printf '%-6s %9s %9s %9s %9s %11s %9s\n' tool declared rate check 'out json' 'check+json' 'k6 check'
for t in $RUNTIMES; do
  printf '%-6s %9.1f %9.1f %9.1f %9.1f %11.1f %9.1f\n' "$t" "$(us "$t.declared")" "$(us "$t.rate")" "$(us "$t.check")" "$(us "$t.json")" "$(us "$t.checkjson")" "$(us "$t.k6")"
done
echo
echo "ratios, each round's (of its own rotation), their median first"
for t in $RUNTIMES; do
  echo "$t  rate x decl $(paired "$t.rate" "$t.declared")"
  echo "$t  check x decl $(paired "$t.check" "$t.declared")"
  echo "$t  out json x rate $(paired "$t.json" "$t.rate")"
  echo "$t  out json x check $(paired "$t.checkjson" "$t.check")"
  echo "$t  out json=/dev/null x check $(paired "$t.checknull" "$t.check")"
  echo "$t  k6's out json x k6's check $(paired "$t.k6json" "$t.k6")"
  echo "$t  check's rate x k6's $(paired "$t.k6" "$t.check")"
done
echo
echo "steady state: CPU µs a request in each run's turns after its first $WARM s of CPU and before its last (medians)"
printf '%-6s %9s %9s %9s %9s %11s %9s\n' tool declared rate check 'out json' 'check+json' 'k6 check'
for t in $RUNTIMES; do
  printf '%-6s %9.1f %9.1f %9.1f %9.1f %11.1f %9.1f\n' "$t" "$(us "$t.declared.steady")" "$(us "$t.rate.steady")" "$(us "$t.check.steady")" "$(us "$t.json.steady")" "$(us "$t.checkjson.steady")" "$(us "$t.k6.steady")"
done
echo "ratios, steady state, each round's, their median first"
for t in $RUNTIMES; do
  echo "$t  rate x decl $(paired "$t.rate.steady" "$t.declared.steady")"
  echo "$t  check x decl $(paired "$t.check.steady" "$t.declared.steady")"
  echo "$t  out json x rate $(paired "$t.json.steady" "$t.rate.steady")"
  echo "$t  out json x check $(paired "$t.checkjson.steady" "$t.check.steady")"
  echo "$t  out json=/dev/null x check $(paired "$t.checknull.steady" "$t.check.steady")"
  echo "$t  k6's out json x k6's check $(paired "$t.k6json.steady" "$t.k6.steady")"
  echo "$t  check's rate x k6's $(paired "$t.k6.steady" "$t.check.steady")"
done
echo
echo "the same less each run's start (a run of 10 requests; the median over the rounds)"
for t in $RUNTIMES; do
  echo "$t  rate x decl $(paired_less "$t.rate" "$t.declared" "$t.rate_start" "$t.declared_start")"
  echo "$t  check x decl $(paired_less "$t.check" "$t.declared" "$t.check_start" "$t.declared_start")"
  echo "$t  out json x rate $(paired_less "$t.json" "$t.rate" "$t.json_start" "$t.rate_start")"
  echo "$t  out json x check $(paired_less "$t.checkjson" "$t.check" "$t.checkjson_start" "$t.check_start")"
  echo "$t  check's rate x k6's $(paired_less "$t.k6" "$t.check" k6.check_start "$t.check_start")"
done
echo
# nginx's CPU ticks are 1/100 s (CLK_TCK).
echo "nginx in each run's turns (medians): sleeps a request (each a wake-up the client's write pays for; near 0: the client outpaced it), CPU µs a request"
printf '%-6s %13s %13s %13s %13s %13s %13s\n' tool declared rate check 'out json' 'check+json' 'k6 check'
for t in $RUNTIMES; do
  printf '%-6s' "$t"
  for n in declared rate check json checkjson k6; do
    printf ' %6.3f %6.1f' "$(awk '{ print $2 / $1 }' "$TMP/$t.$n.server" | median)" "$(awk '{ print $3 * 1e4 / $1 }' "$TMP/$t.$n.server" | median)"
  done
  echo
done
echo
echo "peak RSS, MB (medians): k6 check loop $(awk '{ print $3 / 1024 }' "$TMP"/*.k6 | median)"
for t in $RUNTIMES; do
  echo "$t  declared $(awk '{ print $3 / 1024 }' "$TMP/$t.declared" | median), rate $(awk '{ print $3 / 1024 }' "$TMP/$t.rate" | median), check $(awk '{ print $3 / 1024 }' "$TMP/$t.check" | median), out json $(awk '{ print $3 / 1024 }' "$TMP/$t.json" | median), check with out json $(awk '{ print $3 / 1024 }' "$TMP/$t.checkjson" | median)"
done
