// Hand-written declarations for the API in src/index.js (the code stays plain JavaScript).
// Kept in step with README.md's "API" and "Results as data" sections; test/types.test.js
// compiles an example against them.

/** What statusCallback and contentInspector see for every request. */
/** A gRPC run's call (doc/grpc.md): options.grpc. */
export interface GrpcCall {
  /** The unary method: package.Service.Method. */
  call: string;
  /** The .proto files that define it (default: the server's reflection). */
  protos?: string[];
  /** Where their imports are (default: beside the importing file). */
  importPaths?: string[];
  /** Sent with each call: an object, or 'key=value' strings. */
  metadata?: Record<string, string> | string[];
}

export interface RequestResult {
  host: string;
  path: string;
  method: string;
  /** null when no response came (then there is no body or headers). */
  statusCode: number | null;
  /** Decoded only when read. */
  body?: string;
  /** Decoded only when read. */
  headers?: Record<string, string>;
  /** Milliseconds from sending to the end of the response. */
  requestElapsed: number;
  requestIndex: number;
  instanceIndex: number;
  /** Set by a contentInspector to count this response as an error. */
  customError?: string;
  /** With customError: counted under "status:code" in errorCodes. */
  customErrorCode?: string | number;
}

/** An error passed to statusCallback: statuses ≥ 400, custom errors and network failures. */
export interface RequestError extends Error {
  /** The reason a request got no response: 'ECONNREFUSED', 'timeout', … */
  code?: string;
}

/** What a requestGenerator returns for one request. */
export interface GeneratedRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** The request options loadtest 8's four-argument requestGenerator gets and hands to client(). */
export interface GeneratorRequestOptions {
  protocol: string;
  hostname: string;
  host: string;
  port: number;
  method: string;
  path: string;
  headers: Record<string, string | number>;
  /** This request's index. */
  requestIndex: number;
}

/** What client() returns: it records the request, which goes when the generator returns. */
export interface RecordedRequest {
  write(data: string | Uint8Array): boolean;
  end(data?: string | Uint8Array): RecordedRequest;
  setHeader(name: string, value: string | number | string[]): RecordedRequest;
  getHeader(name: string): unknown;
  removeHeader(name: string): RecordedRequest;
  setTimeout(ms: number, callback?: () => void): RecordedRequest;
  on(event: string, listener: (...args: unknown[]) => void): RecordedRequest;
  once(event: string, listener: (...args: unknown[]) => void): RecordedRequest;
}

/** loadtest 8's requestGenerator(params, options, client, callback); callback is never called. */
export type RecordingGenerator = (
  params: LoadTestOptions,
  options: GeneratorRequestOptions,
  client: (options: GeneratorRequestOptions | string | URL, callback?: unknown) => RecordedRequest,
  callback: (response: unknown) => void,
) => unknown;

export type Body = string | Uint8Array | Record<string, unknown> | unknown[];

/** One request of a sequence: path (or a full url on the run's origin) and what to send. */
export interface SequenceEntry {
  method?: string;
  path?: string;
  url?: string;
  headers?: Record<string, string | number>;
  body?: string | object | Uint8Array;
  weight?: number;
  name?: string;
  /** Values this entry's response gives the later entries of the walk, as {{name}}. */
  capture?: Record<string, { json: string } | { header: string } | { regex: string; flags?: string }>;
  check?: ResponseCheck;
}

/** What a response must be; a failed check is an error with its reason ('check status: 503, expected 200'). */
export interface ResponseCheck {
  /** A status, a class ('2xx'), or a list of them. */
  status?: number | string | Array<number | string>;
  /** A header's exact value, { regex }, or true (present). */
  header?: Record<string, string | number | true | { regex: string; flags?: string }>;
  /** A substring of the body. */
  body?: string;
  bodyRegex?: string | { regex: string; flags?: string };
  /** A JSON path's expected value. */
  json?: Record<string, unknown>;
}

/** Results of one entry of a sequence. */
export interface EntryResult {
  name: string;
  method: string;
  path: string;
  requests: number;
  errors: number;
  meanLatencyMs: number;
  percentiles: { 50: number; 90: number; 99: number };
  maxLatencyMs: number;
}

/** One stage of a ramp: its duration and the target reached at its end. */
export interface Stage {
  duration: number | string;
  target: number;
}

export interface LoadTestOptions {
  /** The URL to load: http://, https://, or ws://, wss:// (a request is a message sent and the message back). (Without it, `urls` alone: see loadTest.) */
  url: string;
  /** HTTP method (default GET). */
  method?: string;
  /** A string, an object (sent as JSON, or as a form with that contentType), or a function of the request index. */
  body?: Body | ((index: number) => Body);
  /** Content-Type of the body (default text/plain, for objects too). */
  contentType?: string;
  /** Request headers: an object, "name:value" or an array of them. */
  headers?: Record<string, string> | string | string[];
  /** Cookies sent with every request: a string or an array. */
  cookies?: string | string[];
  /** Open connections (default 10). */
  concurrency?: number;
  /** Stop after this many requests. */
  maxRequests?: number;
  /** Stop after this many seconds. */
  maxSeconds?: number;
  /** Per-request timeout in ms (0: none). */
  timeout?: number;
  /** Fail a response whose body is longer than this many bytes ('response body over N bytes'; 0: no limit). */
  maxBodySize?: number;
  /** Open model: send this many requests per second, whatever the latency. */
  requestsPerSecond?: number;
  /**
   * Open model with a ramp: the rate goes linearly from 0 to each stage's target (requests per
   * second) over its duration (seconds, or '500ms', '10s', '2m'); the run lasts their total.
   * Text as on the command line ('10s:100,30s:1000') or a list.
   */
  stages?: string | Stage[];
  /** Closed model with a ramp: the number of connections follows the stages' targets. */
  connectionStages?: string | Stage[];
  /**
   * A sequence of requests on the URL's origin instead of its one request: each connection walks
   * them in order, or with weights each request picks one. Results are kept per entry.
   */
  requests?: SequenceEntry[];
  /** Keep connections open between requests. */
  agentKeepAlive?: boolean;
  /** Alias of agentKeepAlive. */
  keepalive?: boolean;
  /** Replace this string in the URL and body with a unique index per request. */
  indexParam?: string;
  /** Builds the value that replaces indexParam. */
  indexParamCallback?: (index: number) => string | number;
  /** loadtest 8's name for indexParam (both are a literal string here). */
  indexParamLiteral?: string;
  /**
   * Builds each request; a module path instead of a function with cores above 1. Two forms, so an
   * inline (index: number) => … names its parameter's type under noImplicitAny.
   */
  requestGenerator?: ((index: number, options: LoadTestOptions) => GeneratedRequest) | RecordingGenerator | string;
  /** Called for every request that ended. */
  statusCallback?: (error: RequestError | null | undefined, result: RequestResult) => void;
  /** Sees every response before it is counted; may set customError. */
  contentInspector?: (result: RequestResult) => void;
  /** Do not check the server's certificate. */
  insecure?: boolean;
  /** Accepted for loadtest 8; the API prints nothing by itself. */
  quiet?: boolean;
  /** Accepted for loadtest 8; changes nothing. */
  tcp?: boolean;
  /** Accepted for loadtest 8; changes nothing. */
  secureProtocol?: string;
  /** CA certificate(s), PEM, to trust for https. */
  ca?: string | Uint8Array;
  /** Client certificate, PEM. */
  cert?: string | Uint8Array;
  /** Client key, PEM. */
  key?: string | Uint8Array;
  /** Socket adapter: 'node', 'bun' or 'deno' (default: the runtime's own). */
  socket?: 'node' | 'bun' | 'deno';
  /** A Unix domain socket to connect to; the URL still gives the Host header and the path. */
  socketPath?: string;
  /**
   * An http proxy ('http://user:password@host:port'): absolute-form requests for http, a CONNECT
   * tunnel for https, ws and wss. Default: HTTP_PROXY / HTTPS_PROXY unless NO_PROXY matches or the
   * target is loopback; false ignores the environment.
   */
  proxy?: string | false;
  /** Stops the run when aborted. */
  signal?: AbortSignal;
  /** Stop when the first connections all fail before any response (the CLI sets it). */
  failFast?: boolean;
  /** Split the run over this many processes (as --cores). */
  cores?: number;
  /** Cap on open connections in the open model (as --max-connections). */
  maxConnections?: number;
  /** Requests in flight per connection, at most (as --pipeline; default 1); above 1 implies keep-alive; not for ws:// URLs. */
  pipelining?: number;
  /** HTTP/2 (as --http2): prior knowledge (h2c) for http://, ALPN h2 for https://; implies keep-alive. Not with pipelining, ws:// or a proxy. */
  http2?: boolean;
  /** With http2: streams in flight per connection, at most (as --streams; default 1), never more than the server's SETTINGS_MAX_CONCURRENT_STREAMS. */
  streams?: number;
  /** A grpc:// or grpcs:// URL's call (doc/grpc.md): the unary method, its .proto files (else the server's reflection), their import paths and metadata; the message is `body` (JSON text or an object). */
  grpc?: GrpcCall;
  /** A module whose default export is (index) => body; for cores above 1. */
  bodyModule?: string;
  /** Run share i of n of this run, 'i/n' (as --shard). */
  shard?: string;
  /** Wall-clock epoch ms to start at (as --start-at). */
  startAt?: number;
  /** Pass/fail rules such as 'p99<200ms' (as --threshold). */
  thresholds?: string[] | string;
  /** As --log-file: a tab-separated line per request as it ends, to this path. */
  logFile?: string;
  /** As --metrics: serve the run's figures for Prometheus at http://HOST:PORT/metrics. */
  metrics?: string;
  /** As --dashboard: a live page of the run on 127.0.0.1 at this port (true: a free one). */
  dashboard?: number | true;
  /** Seconds to keep serving the metrics and the dashboard after the run. Default 0. */
  metricsLinger?: number;
  /** The metrics' run label. */
  runName?: string;
  /** Rows whose values fill {{column}} places: a CSV, JSON or NDJSON file's path, or the rows. */
  feed?: string | Array<Record<string, string | number | boolean | null>>;
  feedOrder?: 'sequential' | 'random';
  /** The random feed order's seed. Default 0. */
  seed?: number;
  /** A file of URLs (or METHOD URL), one a line: each request the next. Without `url`, the first line (a full URL) gives it. */
  urls?: string;
  /** Checks on every response; a failed one is an error with its reason. */
  check?: ResponseCheck;
  /** Captures, checks and headers for a sequence's entries, by index from 0 or by name ('POST /login'). */
  entryOptions?: Record<string, Pick<SequenceEntry, 'capture' | 'check' | 'headers'>>;
}

/** One second of the run. */
export interface SeriesEntry {
  /** 1, 2, … */
  second: number;
  durationMs: number;
  sent: number;
  /** Requests that ended in this second, errors included. */
  completed: number;
  errors: number;
  bytes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The most connections open at once in this second. */
  connections: number;
  /** That second's latency counts, [index, count, …] in HdrHistogram's layout. */
  buckets: number[];
  /** With stages: the requests the ramp asked for in this second. */
  targetRequests?: number;
  /** With connection stages: the target at this second's end. */
  targetConnections?: number;
}

/** The run's latencies in HdrHistogram's bucket layout, so that histograms add up exactly. */
export interface LatencyHistogram {
  unit: 'us';
  lowest: number;
  highest: number;
  significantDigits: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  /** [index, count, …] */
  buckets: number[];
}

/** One threshold checked against the result. */
export interface ThresholdResult {
  threshold: string;
  metric: string;
  op: '<' | '<=' | '>' | '>=';
  limit: number;
  unit: string;
  actual: number | null;
  passed: boolean;
  /** A phase's threshold (wait.p99<20ms): connect, tls, wait or receive. */
  phase?: PhaseName;
}

export type PhaseName = 'connect' | 'tls' | 'wait' | 'receive';

/** One request phase's figures, in ms (all 0 when it never happened: tls over http). */
export interface PhaseFigures {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Where the time of the requests went. connect (TCP, a proxy's CONNECT included) and tls (the
 * handshake) once per new connection; wait (written, or its connection ready if later, → first
 * byte) and receive (first byte → last) once per response.
 */
export type Phases = Record<PhaseName, PhaseFigures>;

/** Latency percentiles in ms. */
export interface Percentiles {
  '50': number;
  '75': number;
  '90': number;
  '95': number;
  '99': number;
  '99.9': number;
  '99.99': number;
}

/** The data of a result: what the JSON document holds, but for latencyHistogram. */
export interface ResultData {
  url: string;
  cores: number;
  shard?: string;
  maxRequests: number;
  maxSeconds: number;
  concurrency: number;
  agent: 'keepalive' | 'none' | 'websocket';
  /** Requests in flight per connection, at most (1: no pipelining). */
  pipelining: number;
  /** The protocol the run spoke: 'h2' is HTTP/2 over TLS, 'h2c' over plain TCP. */
  protocol: 'http/1.1' | 'h2' | 'h2c' | 'websocket' | 'grpc' | 'grpcs';
  /** With HTTP/2: streams in flight per connection, at most. */
  streams?: number;
  /** gRPC: the method called (package.Service.Method). */
  call?: string;
  /** gRPC: the calls by status name (OK: 9990, UNAVAILABLE: 10); statusCodes has them by number. */
  grpcStatuses?: Record<string, number>;
  requestsPerSecond?: number;
  /** The stages (durations in seconds), when the run had them. */
  stages?: Stage[];
  connectionStages?: Stage[];
  runtime: string;
  socket: string;
  /** The proxy the run went through, its password shown as ***; null without one. */
  proxy: string | null;
  /** With a request sequence: one result per entry. */
  entries?: EntryResult[];
  /** Requests that ended. */
  totalRequests: number;
  totalErrors: number;
  totalTimeSeconds: number;
  elapsedSeconds: number;
  accumulatedMs: number;
  meanLatencyMs: number;
  minLatencyMs: number;
  maxLatencyMs: number;
  percentiles: Percentiles;
  effectiveRps: number;
  /** The same as effectiveRps. */
  rps: number;
  /** Errors by status, "status:code" or network reason. */
  errorCodes: Record<string, number>;
  /** Responses by status. */
  statusCodes: Record<string, number>;
  /** Always totalRequests + inFlight. */
  requestsSent: number;
  /** Requests out when the run stopped. */
  inFlight: number;
  retries: number;
  connections: number;
  /** Connection loops started (loadtest 8's clients): the concurrency, or more with maxConnections. */
  clients: number;
  /** Times a server sent bytes after a response. */
  unexpectedData: number;
  /** Why failFast or a throwing request generator stopped the run. */
  abortReason: string | null;
  /** Stopped by Ctrl-C, SIGTERM or the signal option before its limits: the counts are partial. */
  interrupted: boolean;
  /** Failures with no response, by reason. */
  errorsByReason: Record<string, number>;
  /** Responses a contentInspector marked, by "status[:code]". */
  customErrors: Record<string, number>;
  bytesReceived: number;
  bytesPerSecond: number;
  /** Epoch ms. */
  startTime: number;
  series: SeriesEntry[];
  /** One line per cores child that failed. */
  childErrors: string[];
  /** Open model only. */
  achievedRps?: number;
  notSent: number;
  maxQueue: number;
  lateSends: number;
  maxLagMs: number;
  /** Until each of the first `concurrency` connections had its first response (they open at a bounded pace). */
  connectMs: number;
  phases: Phases;
  /** With thresholds. */
  thresholds?: ThresholdResult[];
  /** From mergeResults: how many documents were merged. */
  merged?: number;
  /** From mergeResults: how far apart the shards started, ms. */
  startSpreadMs?: number;
}

/** The JSON document of --json, --json-file and toJSON(); what mergeResults reads. */
export interface LoadTestJson extends ResultData {
  latencyHistogram: LatencyHistogram;
  /** Each phase's histogram, in the latency histogram's layout (they merge exactly). */
  phaseHistograms: Record<PhaseName, LatencyHistogram>;
}

export interface LoadTestResult extends ResultData {
  /** Prints the report; in colour with true. */
  show(color?: boolean): void;
  toJSON(): LoadTestJson;
}

/** Runs a load test. Bad options reject; network failures are counted in the result. */
export function loadTest(
  /** `urls` without `url`: the list's first line, a full URL, is the URL. */
  options: LoadTestOptions | (Omit<LoadTestOptions, 'url'> & { url?: undefined; urls: string }),
  callback?: (error: Error | null, result?: LoadTestResult) => void,
): Promise<LoadTestResult>;

export interface TestServerOptions {
  /** Default 7357; 0 for a free one. */
  port?: number;
  /** Default: every interface. */
  host?: string;
  /** Answer after this many ms. */
  delay?: number;
  /** Status to answer with for `percent` % of the requests (all without percent). */
  error?: number;
  percent?: number;
  /** Print nothing. */
  quiet?: boolean;
  /**
   * Called for each request: on node:http with its request (its body as a string in `body`) and
   * response; on Bun.serve and Deno.serve with `{ method, url, headers, body }` and
   * `{ statusCode, headers }`.
   */
  logger?: (req: unknown, res: unknown) => void;
  /** Sent instead of "OK"; an object is sent as JSON. */
  body?: string | Uint8Array | object;
  /** A file whose contents are sent instead of "OK" (wins over body). */
  file?: string;
  /** A body of this many bytes ('x' repeated) instead of "OK"; not with body or file. */
  size?: number;
  /** 'native' (default): node:http, Bun.serve or Deno.serve by runtime; 'node': node:http. */
  impl?: 'native' | 'node';
  /** Serve HTTP/2 on node:http2 (every runtime): h2c, or with cert and key h2 and http/1.1 by ALPN; one process. */
  http2?: boolean;
  /** Processes sharing the port (default 1); not with logger or shouldErrorCustom. */
  cores?: number;
  /** Answer `error` (default 500) when it returns true; the request has `body` and `headers`. */
  shouldErrorCustom?: (request: { body: string; headers: Record<string, string | string[] | undefined>; method?: string; url?: string }) => boolean;
  /** PEM: serve https. */
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
}

export interface TestServer {
  port: number;
  /** The server object (node:http's Server, Bun's Server, Deno's HttpServer); null on several cores. */
  server: unknown;
  /** Which server answers: 'node:http', 'Bun.serve' or 'Deno.serve'. */
  impl: 'node:http' | 'Bun.serve' | 'Deno.serve';
  /** With cores > 1: each process, its PID and what it served (updated 4 times a second). */
  processes?: { pid: number; requests: number; errors: number }[];
  /** Requests answered so far. */
  readonly requests: number;
  /** Requests answered with an error status so far. */
  readonly errors: number;
  /** WebSocket messages echoed so far. */
  readonly messages: number;
  /** Once closed; with a callback (loadtest 8's form) it returns nothing and calls back. */
  close(): Promise<void>;
  close(callback: (error: Error | null) => void): void;
}

/** Starts the test server: a Promise of it, listening. */
export function startServer(options?: TestServerOptions): Promise<TestServer>;
/** loadtest 8's callback form: the server at once (`port` set once listening), then the callback. */
export function startServer(
  options: TestServerOptions | undefined,
  callback: (error: Error | null, server?: TestServer) => void,
): TestServer;

/** One result from the JSON documents of several runs (the shards of one run). */
export function mergeResults(docs: LoadTestJson[], names?: string[]): LoadTestResult;

export const VERSION: string;
