# Shared by the bench scripts (sourced): one nginx worker with bench/nginx.conf, pinned to core 0,
# its files in $TMP; returns once `$1` answers, or exits with nginx's own words.
start_nginx() {
  cp bench/nginx.conf "$TMP/nginx.conf"
  taskset -c 0 nginx -c "$TMP/nginx.conf" -p "$TMP/" 2>"$TMP/nginx.err" &
  for _ in $(seq 50); do curl -fs "$1" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fs "$1" >/dev/null || { echo "nginx did not start:"; cat "$TMP/nginx.err"; exit 1; }
}
