#!/bin/sh
# CPU µs a request of any commands run side by side, taking turns on core 1 (bench/rotate.js,
# 1 s turns) against one nginx worker on core 0: each run's total (user and system apart, from
# /usr/bin/time), its steady state (its turns after its first 2 s of CPU and before its last,
# requests counted by nginx) and each over the first command's. For a quick A/B on a shared
# machine, where runs one after the other meet different hosts. $URL in a command is nginx's.
# Last column: nginx's sleeps a request in the command's turns (its voluntary context switches:
# it had answered everything, and the client's next write paid for waking it).
# TLS=1: nginx also serves https (TLS 1.3, ECDSA P-256) at $TLS_URL, trusting the CA in $CA,
# both made for the run with openssl, as bench/regimes.js makes them.
#   sh bench/rotate-cpu.sh 'NAME=COMMAND' ...
#   sh bench/rotate-cpu.sh "decl=node src/cli.js -t 32 -c 10 -k \$URL" "run=node src/cli.js run -q -d 32s -e URL=\$URL bench/scripts/rate.js"
#   TLS=1 sh bench/rotate-cpu.sh "wrk=wrk -t1 -c10 -d60s \$TLS_URL" "ours=node src/cli.js -t 60 -c 10 -k --ca \$CA \$TLS_URL"
set -eu
cd "$(dirname "$0")/.."
TMP=$(mktemp -d /tmp/loadtest-rotate-cpu.XXXXXX)
trap 'kill $(cat "$TMP/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
. bench/lib.sh
export URL=http://127.0.0.1:8089/
if [ -n "${TLS:-}" ]; then
  chmod 755 "$TMP" # nginx's worker runs as nobody when started as root
  ssl() { openssl "$@" >/dev/null 2>&1; }
  ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$TMP/ca-key.pem" -subj /CN=rotate-cpu -out "$TMP/ca.pem" -days 2
  ssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$TMP/server-key.pem" -subj /CN=127.0.0.1 -out "$TMP/server.csr"
  printf 'basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\n' > "$TMP/server.ext"
  ssl x509 -req -in "$TMP/server.csr" -CA "$TMP/ca.pem" -CAkey "$TMP/ca-key.pem" -CAcreateserial -days 2 -extfile "$TMP/server.ext" -out "$TMP/server.pem"
  chmod 644 "$TMP"/*.pem
  sed '$d' bench/nginx.conf > "$TMP/tls.conf" # all but the closing brace of http {}
  printf '  server {\n    listen 127.0.0.1:8090 ssl;\n    ssl_protocols TLSv1.3;\n    ssl_certificate %s/server.pem;\n    ssl_certificate_key %s/server-key.pem;\n    location / { return 200 "OK"; }\n  }\n}\n' "$TMP" "$TMP" >> "$TMP/tls.conf"
  export NGINX_CONF="$TMP/tls.conf" TLS_URL=https://127.0.0.1:8090/ CA="$TMP/ca.pem"
fi
start_nginx "$URL"
names=""
for a in "$@"; do
  n=${a%%=*}
  names="$names $n"
  set -- "$@" "exec /usr/bin/time -f '%U %S %M' -o $TMP/$n.time taskset -c 1 ${a#*=} > $TMP/$n.out 2> $TMP/$n.err"
  shift
done
WATCH=$(pgrep -P "$(cat "$TMP/nginx.pid")" | head -1)
COUNT_URL=${URL}nginx_status TURNS_OUT=$TMP/turns WATCH=$WATCH WATCH_OUT=$TMP/watch taskset -c 0 node bench/rotate.js 1000 "$@" || { tail -n 3 "$TMP"/*.err; exit 1; }
# Requests: the command's own count (k6's http_reqs, our report's), else nginx's in its turns.
i=0
for n in $names; do
  reqs=$(grep -o 'http_reqs\.*: [0-9]*' "$TMP/$n.out" | grep -o '[0-9]*$' || grep -o 'Completed requests: *[0-9]*' "$TMP/$n.out" | grep -o '[0-9]*$' || awk -v i=$i '$1 == i { r += $3 } END { print r }' "$TMP/turns")
  read -r user sys rss < "$TMP/$n.time"
  echo "$n $reqs $user $sys $rss"
  i=$((i + 1))
done > "$TMP/res"
awk '$2 >= 0 { n[$1]++; c[$1, n[$1]] = $2; r[$1, n[$1]] = $3 }
  END { for (i = 0; i in n; i++) { d = 0; cc = 0; rr = 0; all = 0; for (t = 1; t <= n[i]; t++) all += r[i, t]; for (t = 1; t < n[i]; t++) { if (d >= 2e9) { cc += c[i, t]; rr += r[i, t] } d += c[i, t] } print (rr > 0 ? cc / rr / 1e3 : 0), all } }' "$TMP/turns" > "$TMP/steady"
paste -d ' ' "$TMP/res" "$TMP/steady" "$TMP/watch" | awk '{ us = ($3 + $4) * 1e6 / $2; if (NR == 1) { b = us; bs = $6 }
  printf "%-10s %8d requests  %7.2f µs (user %6.2f, sys %6.2f)  RSS %4d MB  steady %7.2f  x first %.3f, steady %.3f  nginx sleeps a request %.3f\n", $1, $2, us, $3 * 1e6 / $2, $4 * 1e6 / $2, $5 / 1024, $6, us / b, ($6 > 0 ? $6 / bs : 0), ($7 > 0 ? $8 / $7 : 0) }'
