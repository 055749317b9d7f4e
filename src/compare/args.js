// `loadtest compare`'s command line, turned into a plan: the candidates (server × client), the
// load flags handed to every client run, rounds, warm-up, cores and output files. Flags that are
// not compare's own are the client's load flags, passed through as they are.

import mri from 'mri';
import { number } from '../run/options.js';
import { STRINGS, LONG_STRINGS, BOOLEANS, LONG_BOOLEANS } from '../commands/flags.js';
import { parseLevels } from '../run/sweep.js';
import { parseThreshold } from '../results/thresholds.js';

export const COMPARE_HELP = `Usage: loadtest compare --server "CMD" --server "CMD" ... --url URL [load flags]
       loadtest compare --builtin node,bun,deno [load flags]
       loadtest compare --client node,bun,deno [--socket all] (URL | --builtin RUNTIME) [load flags]

Runs each candidate in turn, A B C A B C ..., for --rounds rounds, then prints per metric each
candidate's median, min-max, ratio to the baseline and Welch's t-test against it (stars as Node's
benchmark/compare.R: * p<0.05, ** p<0.01, *** p<0.001).

Candidates:
      --server CMD           a server command (run with sh -c, in its own process group),
                             repeatable; started and stopped for each of its rounds
      --name NAME            the name of the --server of the same rank (default: the command's
                             first word, e.g. "bun" for "bun app.js"; repeats get -2, -3)
      --url URL              the URL the servers answer on (the same for every server)
      --builtin LIST         the built-in test server on each runtime of LIST (node, bun, deno),
                             on a free port
      --client LIST          our client on each runtime of LIST (default: the one running compare);
                             with one server, that server is started once for the whole run
      --socket LIST|all      with --client: each socket adapter of LIST valid on each runtime
                             (node: node; bun: bun, node; deno: deno, node) (default: its own)
      --baseline NAME        the candidate the others are compared with (default: the first)

Run:
      --rounds R             rounds (default 5)
      --warmup S             seconds of load before each measured run, not counted (default 1)
      --server-cpus LIST     taskset's core list for the server (default: the last core); the
                             client runs on the others. Without taskset nothing is pinned.
      --no-keepalive         do not add -k to the load flags
  load flags                 any of loadtest's -c -k -t -n --rps -m -H --data ... for each
                             client run (default: -t 5 -c 10 -k)
      --script FILE          a k6 script is the workload instead (loadtest run FILE, the
                             candidate's URL in __ENV.URL; its options set the load)

Load levels (every candidate at every level, the rounds interleaved within a level):
      --rps LIST             open model at each rate of LIST, e.g. 1000,5000,20000 (one
                             number: a load flag as any other)
      --sweep LIST           the closed model at each concurrency of LIST, e.g. 8,64,512
      --slo T                a latency limit, p50, p99 or p99.9 (e.g. p99<10ms): each
                             candidate's knee is the highest level up to which it holds (and
                             with --rps the achieved rate is at least 95 % of the target)

Output:
      --json FILE            every round's figures and the summary, as JSON
      --csv FILE             Node's benchmark/compare.js CSV (rate: requests/s), for compare.R;
                             with levels, the level is in its configuration column
      --html FILE            a self-contained page: every round as a point, the medians,
                             ratios and stars; with levels, curves per candidate, knees marked
      --markdown             the tables as GitHub Markdown on stdout, after the text report
      --md FILE              the same Markdown written to FILE
  -h, --help                 this help
`;

// The adapters each runtime's client can use (runtimes/index.js pickAdapter).
export const SOCKETS = { node: ['node'], bun: ['bun', 'node'], deno: ['deno', 'node'] };
const RUNTIMES = Object.keys(SOCKETS);

export class UsageError extends Error {}

const OWN_VALUES = ['server', 'name', 'url', 'builtin', 'client', 'socket', 'baseline', 'rounds', 'warmup', 'server-cpus', 'json', 'csv', 'rps', 'sweep', 'slo', 'html', 'md', 'script'];
const OWN_BOOLEANS = ['help', 'no-keepalive', 'markdown'];
// The client's flags that take a value, short and long: their value is not the URL.
const VALUE_SHORT = new Set(Object.keys(STRINGS));
const VALUE_LONG = new Set([...Object.values(STRINGS), ...LONG_STRINGS]);
const NOT_PASSED = new Set(['json', 'json-file', 'hdr-log', 'help', 'version', 'h', 'V']);
const KNOWN_LONG = new Set([...VALUE_LONG, ...Object.values(BOOLEANS), ...LONG_BOOLEANS]);

// In "-kc10" the flags end at the first one that takes a value: the rest is that value.
function unknownShort(chars) {
  for (const c of chars) {
    if (c in STRINGS) return null;
    if (!(c in BOOLEANS)) return c;
  }
  return null;
}

/** Splits argv into compare's own flags, the client's load flags and the positional arguments. */
function split(argv) {
  const own = { server: [], name: [] };
  const load = [];
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = String(argv[i]);
    const eq = arg.indexOf('=');
    const long = arg.startsWith('--') ? arg.slice(2, eq > 0 ? eq : undefined) : null;
    // One rate is a load flag as before; a list of them is compare's levels.
    const oneRate = long === 'rps' && !String(eq > 0 ? arg.slice(eq + 1) : argv[i + 1] ?? '').includes(',');
    if (long !== null && OWN_VALUES.includes(long) && !oneRate) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`option --${long} needs a value`);
      if (long === 'server' || long === 'name') own[long].push(String(value));
      else own[long] = String(value);
    } else if ((long !== null && OWN_BOOLEANS.includes(long)) || arg === '-h') {
      own[long || 'help'] = true;
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-[0-9.]/.test(arg)) {
      const name = long !== null ? long : arg.slice(-1);
      if (NOT_PASSED.has(name) || (long === null && [...arg.slice(1)].some((c) => NOT_PASSED.has(c)))) {
        throw new UsageError(`${arg} is not a load flag for compare (its output flags are --json FILE and --csv FILE)`);
      }
      // Caught here rather than by the first client run, after servers have started.
      const unknown = long !== null ? !KNOWN_LONG.has(long) : unknownShort(arg.slice(1));
      if (unknown) throw new UsageError(`unknown option '${long !== null ? `--${long}` : `-${unknown}`}' (see loadtest compare --help)`);
      load.push(arg);
      // "-t 5", "-kc 10" (flags then one that takes a value); not "-t5" or "--rps=9".
      const chars = arg.slice(1);
      const takesValue = long !== null ? VALUE_LONG.has(long) && eq < 0 : VALUE_SHORT.has(name) && [...chars.slice(0, -1)].every((c) => c in BOOLEANS);
      if (takesValue && i + 1 < argv.length) load.push(String(argv[++i]));
    } else {
      positional.push(arg);
    }
  }
  return { own, load, positional };
}

const listOf = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);

function runtimesOf(flag, text) {
  const list = listOf(text);
  for (const name of list) if (!RUNTIMES.includes(name)) throw new UsageError(`--${flag}: unknown runtime '${name}' (node, bun or deno)`);
  if (new Set(list).size !== list.length) throw new UsageError(`--${flag}: '${text}' names a runtime twice`);
  return list;
}

/** A name for a server command: its first word without a path, e.g. "bun" for "./bin/bun app.js". */
export function commandName(command) {
  const first = command.trim().split(/\s+/)[0] || 'server';
  return first.split('/').pop() || 'server';
}

/** taskset's core list ("0,2-3") as the cores it names. */
export function parseCpuList(text) {
  const cores = new Set();
  for (const part of String(text).split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(part);
    if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) throw new UsageError(`--server-cpus '${text}' must be a core list like 3, 2-3 or 0,2`);
    for (let c = Number(m[1]); c <= Number(m[2] ?? m[1]); c++) cores.add(c);
  }
  return [...cores].sort((a, b) => a - b);
}

function unique(names) {
  const seen = new Map();
  return names.map((name) => {
    const n = (seen.get(name) || 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}-${n}`;
  });
}

/**
 * The plan for a run. `cores` is the machine's count (for the default pinning); `here` the runtime
 * running compare (the default client).
 */
export function parseCompareArgs(argv, { cores, here }) {
  const { own, load, positional } = split(argv);
  if (own.help) return { help: true };
  const num = (name, opts) => {
    try {
      return number(`--${name}`, own[name], opts);
    } catch (err) {
      throw new UsageError(err.message);
    }
  };
  const rounds = num('rounds', { integer: true, min: 2, fallback: 5 });
  const warmup = num('warmup', { fallback: 1 });
  const url = urlOf(own, positional);
  const servers = serversOf(own, url);
  const clients = clientsOf(own, here);
  const { candidates, shared } = candidatesOf(servers, clients);
  const baseline = baselineOf(own.baseline, candidates);
  const levels = levelsOf(own);
  const slo = sloOf(own.slo, levels);
  const script = scriptOf(own, levels, load);
  const { given, loadArgs, maxSeconds } = loadOf(load, own, script, levels);
  const { serverCpus, clientCpus } = cpusOf(own['server-cpus'], servers.length > 0, cores);
  return {
    url,
    candidates,
    baseline,
    sharedServer: shared ? servers[0] || null : null,
    rounds,
    warmup,
    loadArgs,
    maxSeconds,
    serverCpus,
    clientCpus,
    // The clients speak HTTP/2: --builtin servers serve it (node:http2) and are probed with it.
    // (gRPC is HTTP/2 too: its servers are probed so.)
    http2: Boolean(given.http2) || (url !== null && /^grpcs?:/.test(url)),
    jsonFile: own.json || null,
    csvFile: own.csv || null,
    htmlFile: own.html || null,
    mdFile: own.md || null,
    markdown: Boolean(own.markdown),
    levels,
    slo,
    script,
  };
}

/** The URL, as --url or as the one argument; null with neither. */
function urlOf(own, positional) {
  if (positional.length > 1) throw new UsageError(`too many arguments: ${positional.join(' ')}`);
  if (positional.length && own.url) throw new UsageError('give the URL once: as --url or as the argument');
  const url = own.url || positional[0] || null;
  if (url !== null && !/^(https?|grpcs?):\/\/[^/]/.test(url)) throw new UsageError(`invalid URL '${url}': must start with http://, https://, grpc:// or grpcs://`);
  return url;
}

/** The --server commands (named by --name) then the --builtin runtimes, each name once. */
function serversOf(own, url) {
  if (own.name.length > own.server.length) throw new UsageError('more --name than --server flags (one name per server, in order)');
  const servers = own.server.map((command, i) => ({ name: own.name[i] || commandName(command), command }));
  for (const runtime of own.builtin ? runtimesOf('builtin', own.builtin) : []) servers.push({ name: runtime, builtin: runtime });
  unique(servers.map((s) => s.name)).forEach((name, i) => (servers[i].name = name));
  if (servers.some((s) => s.command) && !url) throw new UsageError('--server needs --url URL: where the servers answer');
  if (url && servers.some((s) => s.builtin)) throw new UsageError('--builtin starts its own server on a free port: leave out the URL');
  if (servers.length === 0 && !url) throw new UsageError('nothing to compare (see loadtest compare --help)');
  return servers;
}

/** Each --client runtime, once per --socket adapter it can use. */
function clientsOf(own, here) {
  const clientRuntimes = own.client ? runtimesOf('client', own.client) : [here];
  const clients = [];
  for (const runtime of clientRuntimes) {
    if (!own.socket) {
      clients.push({ name: runtime, runtime, socket: null });
      continue;
    }
    const wanted = own.socket === 'all' ? SOCKETS[runtime] : listOf(own.socket);
    for (const s of wanted) if (!RUNTIMES.includes(s)) throw new UsageError(`--socket: unknown adapter '${s}' (node, bun, deno or all)`);
    const valid = wanted.filter((s) => SOCKETS[runtime].includes(s));
    if (valid.length === 0) throw new UsageError(`--socket ${own.socket}: none runs on ${runtime} (it has ${SOCKETS[runtime].join(', ')})`);
    for (const socket of valid) clients.push({ name: `${runtime}/${socket}`, runtime, socket });
  }
  return clients;
}

function candidatesOf(servers, clients) {
  // One server and several clients: the clients form, against that server started once.
  const shared = servers.length <= 1 && clients.length > 1;
  const candidates = [];
  for (const server of servers.length ? servers : [null]) {
    for (const client of clients) {
      let name = client.name;
      if (server && !shared) name = clients.length === 1 ? server.name : `${client.name}@${server.name}`;
      candidates.push({ name, server: shared ? null : server, client });
    }
  }
  if (candidates.length < 2) throw new UsageError('compare needs at least two candidates (two --server, --builtin a,b, or --client a,b)');
  return { candidates, shared };
}

function baselineOf(wanted, candidates) {
  if (wanted === undefined) return candidates[0].name;
  if (!candidates.some((c) => c.name === wanted)) throw new UsageError(`--baseline '${wanted}' is none of ${candidates.map((c) => c.name).join(', ')}`);
  return wanted;
}

// --script: a k6 script is the workload (loadtest run, the candidate's URL in __ENV.URL); its
// options set the load, so no load flags and no levels beside it.
function scriptOf(own, levels, load) {
  const script = own.script === undefined ? null : String(own.script);
  if (script !== null) {
    if (script === '') throw new UsageError('--script needs a k6 script');
    if (levels) throw new UsageError('--script: the script sets the load; --rps and --sweep levels are for a URL');
    if (load.length) throw new UsageError(`--script: the script sets the load; leave out ${load.join(' ')}`);
    if (own.socket) throw new UsageError('--script with --socket: not yet (loadtest run uses each runtime\'s own adapter)');
  }
  return script;
}

/** The load flags for every client run, defaults added; `given`: the flags as parsed. */
function loadOf(load, own, script, levels) {
  // Default load: what `loadtest` would do for 5 s over 10 kept-alive connections.
  const given = mri(load, { alias: { ...STRINGS, ...BOOLEANS }, string: Object.keys(STRINGS), boolean: [...Object.keys(BOOLEANS), 'http2'] });
  const loadArgs = [...load];
  if (script === null && given.maxSeconds === undefined && given.maxRequests === undefined) loadArgs.push('-t', '5');
  if (given.concurrency !== undefined && levels && levels.kind === 'concurrency') throw new UsageError('--sweep sets -c at each level: leave out -c');
  if ((given.rps !== undefined || given.requestsPerSecond !== undefined) && levels) throw new UsageError('the levels set the load: leave out --rps and --requestsPerSecond');
  if (script === null && given.concurrency === undefined && !(levels && levels.kind === 'concurrency')) loadArgs.push('-c', '10');
  if (script === null && !given.keepalive && !given.agent && !own['no-keepalive']) loadArgs.push('-k');
  const maxSeconds = script !== null ? null : given.maxSeconds === undefined ? (given.maxRequests === undefined ? 5 : null) : Number([].concat(given.maxSeconds).pop());
  return { given, loadArgs, maxSeconds };
}

// The server on --server-cpus (default the last core), the clients on the others; a server we do
// not start is not pinned, nor are its clients.
function cpusOf(serverCpusFlag, startsServer, cores) {
  if (!startsServer || !(serverCpusFlag || cores > 1)) return { serverCpus: null, clientCpus: null };
  const taken = serverCpusFlag ? parseCpuList(serverCpusFlag) : [cores - 1];
  if (taken.some((c) => c >= cores)) throw new UsageError(`--server-cpus '${serverCpusFlag}': this machine has cores 0-${cores - 1}`);
  const rest = Array.from({ length: cores }, (_, c) => c).filter((c) => !taken.includes(c));
  return { serverCpus: taken.join(','), clientCpus: rest.length ? rest.join(',') : null };
}

// --rps LIST (rates, open model) or --sweep LIST (concurrencies): the levels, ascending (one
// rate alone stayed a load flag: split()).
function levelsOf(own) {
  if (own.rps !== undefined && own.sweep !== undefined) throw new UsageError('--rps levels and --sweep levels: give one');
  if (own.rps !== undefined) {
    const words = listOf(own.rps);
    const values = words.map(Number);
    const bad = words.find((w, i) => !(values[i] > 0) || !/^\d+(\.\d+)?$/.test(w));
    if (bad !== undefined || words.length === 0) throw new UsageError(`--rps must be a rate or a list of rates above 0, e.g. 1000,5000,20000; got '${bad || own.rps}'`);
    return { kind: 'rps', values: ascending('--rps', values) };
  }
  if (own.sweep === undefined) return null;
  let values;
  try {
    values = parseLevels(own.sweep);
  } catch (err) {
    throw new UsageError(err.message);
  }
  return { kind: 'concurrency', values: ascending('--sweep', values) };
}

function ascending(flag, values) {
  for (let i = 1; i < values.length; i++) if (values[i] <= values[i - 1]) throw new UsageError(`${flag}: give the levels in ascending order, each once (${values.join(',')})`);
  return values;
}

// The record's key for each latency an SLO may name.
const SLO_KEYS = { p50: 'p50', p99: 'p99', 'p99.9': 'p999' };
const TO_MS = { us: 0.001, ms: 1, s: 1000 };

function sloOf(text, levels) {
  if (text === undefined) return null;
  if (levels === null) throw new UsageError('--slo marks the knee of load levels: give --rps LIST or --sweep LIST too');
  let t;
  try {
    t = parseThreshold(text);
  } catch (err) {
    throw new UsageError(`--slo ${err.message.replace(/^threshold /, '')}`);
  }
  if (!(t.metric in SLO_KEYS) || (t.op !== '<' && t.op !== '<=')) throw new UsageError(`--slo '${text}': give p50, p99 or p99.9 below a limit, e.g. p99<10ms`);
  return { text: t.threshold, metric: t.metric, key: SLO_KEYS[t.metric], op: t.op, limitMs: t.limit * TO_MS[t.unit] };
}
