// The command line's vocabulary: the tables mri parses with and the help that lists them, kept
// side by side so that a flag added to a table without a line of help fails a test.

/** Short flag -> long name, for flags that take a value. */
export const STRINGS = {
  n: 'maxRequests', c: 'concurrency', t: 'maxSeconds', m: 'method', d: 'timeout', T: 'contentType',
  H: 'header', C: 'cookie', P: 'postBody', p: 'postFile', u: 'putFile', A: 'patchBody', a: 'patchFile',
  R: 'requestGenerator', s: 'secureProtocol',
};
export const LONG_STRINGS = ['rps', 'requestsPerSecond', 'data', 'index', 'cert', 'key', 'ca', 'cores', 'socket', 'proxy', 'max-connections',
  'json-file', 'hdr-log', 'shard', 'start-at', 'threshold', 'unix-socket', 'stages', 'connection-stages', 'html', 'sweep', 'requests', 'har', 'pipeline', 'max-body', 'streams', 'log-file', 'out',
  'feed', 'feed-order', 'seed', 'urls', 'check', 'metrics', 'metrics-linger', 'run-name', 'dashboard',
  'call', 'proto', 'import-path', 'metadata', 'data-file'];
export const BOOLEANS = { k: 'keepalive', V: 'version', h: 'help', r: 'recover' };
export const LONG_BOOLEANS = ['insecure', 'quiet', 'tcp', 'agent', 'debug', 'json', 'http2', 'probe', 'grpc'];

// Within 100 columns. Every flag of the first five groups names its default.
export const HELP = `Usage: loadtest [options] URL
       loadtest merge a.json b.json ... [--json]   merge --json results into one report
       loadtest compare --builtin node,bun,deno     compare servers or clients (compare --help)
       loadtest --probe [options] URL              one request, shown as sent and as answered
URL: http://, https://, or ws://, wss:// (a request is a WebSocket message and its reply),
     or grpc://HOST:PORT, grpcs://HOST:PORT (a request is a gRPC call: see gRPC below)

Load:
  -n, --maxRequests N        requests to send (default: no limit; then -t 10)
  -c, --concurrency N        connections open at once, in total (default 10)
  -t, --maxSeconds S         stop after S seconds (default 10 without -n, else no limit)
  -k, --keepalive            reuse connections (default: a new connection per request)
      --rps N                open model: N requests per second in total, on a fixed schedule;
                             latency counts from each request's time in the schedule
                             (default: none; each connection sends again once answered)
      --max-connections N    with --rps: open more connections, up to N, when all are busy
                             (default: none; requests wait in the schedule for a free one)
      --stages D:R,...       open model with a ramp: the rate goes linearly from 0 to R over D
                             (10s, 500ms, 2m), then to each next stage's R; the run lasts the
                             stages' total (e.g. 10s:100,30s:1000,10s:0) (default: none)
      --connection-stages D:C,...  closed model with a ramp: connections go from 0 to C over D,
                             then to each next C (default: none; -c connections all along)
      --sweep 8,32,128       run the test once at each concurrency level (-n or -t per level)
                             and print one row per level (default: none; one run at -c)
      --pipeline N           up to N requests in flight per connection, answered in order; implies
                             -k; not for ws:// (default 1: send once the last one is answered)
      --http2                HTTP/2: prior knowledge (h2c) for http://, ALPN h2 for https://;
                             implies -k (default: HTTP/1.1)
      --streams N            with --http2: up to N streams in flight per connection, never more
                             than the server allows (default 1)
  -d, --timeout MS           fail a request after MS ms without a full response (default 0: none)
      --max-body BYTES       fail a longer body or WebSocket message (default 0: no limit)
      --socket NAME          socket adapter: node (node:net and node:tls, on every runtime), bun
                             or deno (on that runtime only; its own sockets), wrap (node only:
                             its TCP handle under node:net, for plain TCP; less memory and CPU
                             at thousands of connections)
                             (default: the runtime's own, wrap on node, or LOADTEST_SOCKET's)
      --unix-socket PATH     connect to the Unix domain socket PATH; the URL still gives the
                             Host header and the path (default: the URL's host and port)
      --proxy URL            through the http proxy URL (http://user:password@host:port):
                             absolute-form requests for http, a CONNECT tunnel for https and
                             wss (default: HTTP_PROXY / HTTPS_PROXY unless NO_PROXY or loopback)

Requests:
  -m, --method M             GET, POST, PUT, PATCH, DELETE, HEAD, ... (default GET)
  -H, --header h:v           add a header, repeatable (default: host, user-agent, accept)
  -C, --cookie n=v           add a cookie, repeatable (default: none)
  -T, --contentType T        content type of the body (default text/plain)
  -P, --postBody S           POST the string S (default: no body)
  -p, --postFile F           POST the file F (default: no body)
  -u, --putFile F            PUT the file F (default: no body)
  -A, --patchBody S          PATCH the string S (default: no body)
  -a, --patchFile F          PATCH the file F (default: no body)
                             (-p, -u, -a with a .js file: its default export (index) => body)
      --data S               send S as the body, with the method of -m (default: no body)
      --data-file F          send the file F as the body, as --data (default: no body)
  -R, --requestGenerator F   module whose default export (index, options) returns
                             { method, path, headers, body }, or is loadtest 8's
                             (params, options, client, callback) (default: none)
      --index S              replace S in the URL and body with the request index (default: none)
      --requests F           a sequence from the JSON file F: [{ method, path or url, headers,
                             body, weight }]; each connection walks it in order, or with weights
                             each request picks an entry (default: the URL's one request)
      --har F                the sequence recorded in the HAR file F (browsers' dev tools): its
                             entries on the URL's origin, or without a URL on the first entry's
                             (default: none)
      --feed F               rows (CSV with a header, JSON array, NDJSON) whose values fill
                             {{column}} in the path, headers and body; each request the next
                             row (default: none)
      --feed-order O         sequential or random (shuffled each pass, by --seed) (default:
                             sequential)
      --seed N               the shuffle's seed (default 0)
      --urls F               a URL or METHOD URL per line, each request the next line;
                             with no URL given, the first line's (a full URL) is the URL
                             (default: none)
      --check JSON           check every response: {"status":200,"header":{..},"body":"..",
                             "bodyRegex":"..","json":{"path":value}}; a failed check is an error
                             (default: none)

Output:
      --probe                send one request and print it as sent, the response's head, the
                             first 4 KiB of its body and its phase times (default: a load run)
      --quiet                no progress lines (default: one every 5 s)
      --json                 the whole result as one JSON document on stdout, nothing else
                             (default: the report as text)
      --json-file F          also write that JSON document to F (default: none)
      --hdr-log F            write an HdrHistogram interval log to F, one histogram per second
                             (default: none)
      --html F               write a self-contained HTML page with plots to F (default: none)
      --metrics HOST:PORT    serve the run's figures for Prometheus at http://HOST:PORT/metrics
                             while it goes (:PORT: every interface) (default: none)
      --dashboard [PORT]     a live page of the run at http://127.0.0.1:PORT/, updated each
                             second, then its report (default: none; without PORT a free one)
      --metrics-linger S     keep serving the metrics and the dashboard S seconds after the run
                             (default 0)
      --run-name NAME        the metrics' run label (default: loadtest-<start time>)
      --log-file F           write a line per request as it ends to F, tab-separated: start,
                             latency, wait, status or reason, bytes, connection, entry, core
                             (default: none)
      --out KIND             repeatable: each request as a k6 script's samples (http_reqs,
                             http_req_duration...) into influxdb[=URL],
                             experimental-prometheus-rw, opentelemetry, json=F or csv=F, as
                             loadtest run writes them (default: none)
      --threshold T          repeatable: p99<50ms, errors<1%, rps>=5000; when one fails, exit 3
                             (default: none)

gRPC (grpc:// and grpcs:// URLs; -m, -H, -C, -T do not apply):
      --grpc                 the run is gRPC calls (default: when the URL is grpc:// or grpcs://)
      --call pkg.Service.M   the unary method to call (default: none; a gRPC run needs one)
      --proto F              a .proto file that defines it, repeatable (default: the server's
                             reflection, grpc.reflection.v1 or v1alpha)
      --import-path DIR      where the .proto files' imports are, repeatable (default: beside
                             the importing file)
      --data JSON            the request message as JSON, with {{column}} places for --feed;
                             --data-file F reads it from F (default: {}, the empty message)
      --metadata K=V         send the metadata K: V with each call, repeatable (default: none)
      --streams N            calls in flight per connection, as for --http2 (default 1);
                             -d MS is each call's deadline, sent as grpc-timeout (default: none)

TLS (https, wss and grpcs URLs):
      --insecure             do not check the server's certificate (default: checked)
      --ca F                 trust the CA certificate(s) in F, PEM (default: the runtime's own list)
      --cert F, --key F      client certificate and its key, PEM (default: none)

Multi-core and many machines:
      --cores N              child processes (cores) to use, at most the machine's (default 1)
      --shard i/n            run share i of n of the load, as a child of --cores would
                             (default 1/1: all of it)
      --start-at MS          epoch milliseconds at which every shard starts (default: at once)
      --on swarm|kubernetes  run --shards N there, started together, merged into one report
                             (default: here, in this process or --cores)
      --shards N             with --on: how many; --image, --runtime, --start-in and
                             --dry-run are in doc/distributed.md (default: none)

Compatibility with loadtest 8:
      --agent                same as -k
      --requestsPerSecond N  same as --rps
      --tcp                  accepted: raw sockets are always used
  -s, --secureProtocol P     accepted, no effect: TLS 1.2 or 1.3 is negotiated
  -r, --recover, --debug     accepted, no effect

  -V, --version              print the version, the runtime and the socket adapter
  -h, --help                 this help

Options not given as flags come from .loadtestrc (JSON) or package.json's "loadtest" entry, in
this folder or the nearest parent (see doc/cli.md, "Configuration file").
Exit codes: 0 done, 1 no response at all or a --cores child failed, 2 bad usage,
3 a --threshold failed, 130 Ctrl-C, 143 SIGTERM (after the partial report).
`;
