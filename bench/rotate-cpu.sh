#!/bin/sh
# CPU µs a request of any commands run side by side, taking turns on core 1 (bench/rotate.js,
# 1 s turns) against one nginx worker on core 0: each run's total (user and system apart, from
# /usr/bin/time), its steady state (its turns after its first 2 s of CPU and before its last,
# requests counted by nginx) and each over the first command's. For a quick A/B on a shared
# machine, where runs one after the other meet different hosts. $URL in a command is nginx's.
#   sh bench/rotate-cpu.sh 'NAME=COMMAND' ...
#   sh bench/rotate-cpu.sh "decl=node src/cli.js -t 32 -c 10 -k \$URL" "run=node src/cli.js run -q -d 32s -e URL=\$URL bench/scripts/rate.js"
set -eu
cd "$(dirname "$0")/.."
TMP=$(mktemp -d /tmp/loadtest-rotate-cpu.XXXXXX)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
export URL=http://127.0.0.1:8089/
start_nginx "$URL"
names=""
for a in "$@"; do
  n=${a%%=*}
  names="$names $n"
  set -- "$@" "exec /usr/bin/time -f '%U %S %M' -o $TMP/$n.time taskset -c 1 ${a#*=} > $TMP/$n.out 2> $TMP/$n.err"
  shift
done
COUNT_URL=${URL}nginx_status TURNS_OUT=$TMP/turns taskset -c 0 node bench/rotate.js 1000 "$@" || { tail -n 3 "$TMP"/*.err; exit 1; }
for n in $names; do
  reqs=$(grep -o 'http_reqs\.*: [0-9]*' "$TMP/$n.out" | grep -o '[0-9]*$' || grep -o 'Completed requests: *[0-9]*' "$TMP/$n.out" | grep -o '[0-9]*$')
  read -r user sys rss < "$TMP/$n.time"
  echo "$n $reqs $user $sys $rss"
done > "$TMP/res"
awk '$2 >= 0 { n[$1]++; c[$1, n[$1]] = $2; r[$1, n[$1]] = $3 }
  END { for (i = 0; i in n; i++) { d = 0; cc = 0; rr = 0; for (t = 1; t < n[i]; t++) { if (d >= 2e9) { cc += c[i, t]; rr += r[i, t] } d += c[i, t] } print (rr > 0 ? cc / rr / 1e3 : 0) } }' "$TMP/turns" > "$TMP/steady"
paste -d ' ' "$TMP/res" "$TMP/steady" | awk '{ us = ($3 + $4) * 1e6 / $2; if (NR == 1) { b = us; bs = $6 }
  printf "%-10s %8d requests  %7.2f µs (user %6.2f, sys %6.2f)  RSS %4d MB  steady %7.2f  x first %.3f, steady %.3f\n", $1, $2, us, $3 * 1e6 / $2, $4 * 1e6 / $2, $5 / 1024, $6, us / b, ($6 > 0 ? $6 / bs : 0) }'
