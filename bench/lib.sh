# Shared by the bench scripts (sourced): one nginx worker with bench/nginx.conf (or $NGINX_CONF),
# pinned to core 0, its files in $TMP; returns once `$1` answers, or exits with nginx's own words.
start_nginx() {
  cp "${NGINX_CONF:-bench/nginx.conf}" "$TMP/nginx.conf"
  taskset -c 0 nginx -c "$TMP/nginx.conf" -p "$TMP/" 2>"$TMP/nginx.err" &
  for _ in $(seq 50); do curl -fs "$1" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fs "$1" >/dev/null || { echo "nginx did not start:"; cat "$TMP/nginx.err"; exit 1; }
}

# The gRPC server of the gRPC benches on core 0 (SERVER=go: bench/grpc-go-server, built when
# missing or older than its source; SERVER=grpc-js: test/grpc-server.js; unset: go if it
# builds). Sets PORT, SERVER_PID and SERVER_NAME; fd 3 holds the server's stdin open (it exits
# when that closes).
start_grpc_server() {
  local go_dir=bench/grpc-go-server
  if [ "${SERVER:-go}" = go ] && { [ ! -x "$go_dir/grpc-go-server" ] || [ "$go_dir/main.go" -nt "$go_dir/grpc-go-server" ]; }; then
    bash "$go_dir/build.sh" >&2 || { [ -n "${SERVER:-}" ] && exit 1; echo "go server not built: grpc-js instead" >&2; SERVER=grpc-js; }
  fi
  mkfifo "$TMP/in"
  if [ "${SERVER:-go}" = go ]; then
    GOMAXPROCS=1 taskset -c 0 "$go_dir/grpc-go-server" -proto test/grpc <"$TMP/in" >"$TMP/server.out" &
    SERVER_NAME="Go server (bench/grpc-go-server, grpc-go v1.75.0)"
  else
    taskset -c 0 node test/grpc-server.js <"$TMP/in" >"$TMP/server.out" &
    SERVER_NAME="grpc-js server (node $(node -v))"
  fi
  SERVER_PID=$!
  exec 3>"$TMP/in"
  for _ in $(seq 100); do [ -s "$TMP/server.out" ] && break; sleep 0.05; done
  PORT=$(head -1 "$TMP/server.out" | tr -dc 0-9)
  [ -n "$PORT" ] || { echo "the $SERVER_NAME did not start"; exit 1; }
}

# The gRPC benches' start: a temporary folder ($TMP), the server started (start_grpc_server) and
# stopped at exit with the folder removed, and the framed Hello { name: "joe" } that h2load
# posts ($TMP/hello.bin: flag 0, length 5, field 1 (0x0a), length 3, "joe").
grpc_bench_setup() {
  TMP=$(mktemp -d)
  SERVER_PID=
  trap 'exec 3>&- 2>/dev/null || true; [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
  start_grpc_server
  printf '\x00\x00\x00\x00\x05\x0a\x03joe' >"$TMP/hello.bin"
}

# The median of the numbers on stdin, one a line.
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# The command line of loadtest on runtime $1 (node, bun or deno; bun and deno from node_modules).
cli_of() {
  case $1 in
    node) echo "node src/cli.js" ;;
    bun) echo "$PWD/node_modules/.bin/bun src/cli.js" ;;
    deno) echo "$PWD/node_modules/.bin/deno run -A src/cli.js" ;;
  esac
}
