// The interleaved rounds of `loadtest compare`: for each round, each candidate in turn: start its
// server (unless one is shared by the whole run), wait until it answers, warm it up, load it with
// our client in a child process (its --json result), read the server's CPU time and peak memory,
// stop its process group. Process facilities come in `deps` (runtimes/processes/groups.js).

const READY_MS = 10000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failure that ends the comparison; its message names the candidate and what happened. */
export class CompareError extends Error {}

function lastLine(text) {
  const lines = String(text || '').trim().split('\n');
  return lines[lines.length - 1].trim();
}

// A candidate's server that died during its load ends the comparison, with its last words.
function serverAlive(server, who) {
  if (!server || !server.status) return;
  const why = lastLine(server.stderrTail());
  throw new CompareError(`${who}: the server ${exitWords(server.status)} during the load${why ? `: ${why}` : ''}`);
}

function exitWords(status) {
  if (status.error) return `could not start (${status.error})`;
  return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
}

async function answers(url, http2 = false) {
  // fetch() speaks HTTP/1.1 only: an h2c server is asked with one request of our own.
  if (http2) {
    const { loadTest } = await import('../index.js');
    // A gRPC server answers a GET / as it likes (404, 415, UNIMPLEMENTED): any answer will do.
    const grpc = /^grpcs?:/.test(url);
    try {
      const r = await loadTest({ url: url.replace(/^grpc/, 'http'), http2: true, maxRequests: 1, concurrency: 1, quiet: true, timeout: 1000, insecure: grpc });
      return r.totalRequests === 1 && (grpc ? Object.keys(r.statusCodes).length === 1 : r.totalErrors === 0);
    } catch {
      return false;
    }
  }
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/**
 * deps: { startGroup, stopGroup, groupCpuMicros, groupPeakRssKb, freePort, runtimes (name ->
 * { prefix }), cliPath, testserverPath }. onStatus(round, index, name, what) reports progress.
 * Returns { run(), interrupt() }: run() resolves to { records, interrupted } or throws a
 * CompareError after stopping every process it started.
 */
export function createRounds(plan, deps, onStatus = () => {}) {
  const rounds = new Rounds(plan, deps, onStatus);
  return { run: () => rounds.run(), interrupt: () => rounds.interrupt(), records: rounds.records };
}

class Rounds {
  constructor(plan, deps, onStatus) {
    this.plan = plan;
    this.deps = deps;
    this.onStatus = onStatus;
    this.live = new Set();
    this.records = [];
    this.interrupted = false;
  }

  start(argv, cpus, keepStdout = false) {
    const handle = this.deps.startGroup(argv, { cpus, keepStdout });
    // Set once the leader is gone and its last words are read (or a moment later, when a child
    // left in its group still holds the pipe).
    handle.exited.then(() => Promise.race([handle.closed, sleep(200)])).then(async () => (handle.status = await handle.exited));
    this.live.add(handle);
    return handle;
  }

  async stop(handle) {
    this.live.delete(handle);
    if (!(await this.deps.stopGroup(handle))) throw new CompareError(`process group ${handle.pid} still runs after SIGKILL`);
  }

  async startServer(server, who) {
    const { plan, deps } = this;
    const url = server.builtin ? `http://127.0.0.1:${await deps.freePort()}/` : plan.url;
    // A server left over from before would answer in the candidate's place.
    if (await answers(url, plan.http2)) throw new CompareError(`${who}: something already answers on ${url} before its server started (stop it, or use another port)`);
    const argv = server.builtin
      ? [...deps.runtimes[server.builtin].prefix, deps.testserverPath, '--quiet', ...(plan.http2 ? ['--http2'] : []), new URL(url).port]
      : ['sh', '-c', server.command];
    const handle = this.start(argv, plan.serverCpus);
    handle.url = url;
    const deadline = Date.now() + READY_MS;
    while (!(await answers(url, plan.http2))) {
      if (this.interrupted) return handle;
      if (handle.status) {
        const why = lastLine(handle.stderrTail());
        throw new CompareError(`${who}: the server ${exitWords(handle.status)} before answering on ${url}${why ? `: ${why}` : ''}`);
      }
      if (Date.now() > deadline) throw new CompareError(`${who}: the server did not answer on ${url} within ${READY_MS / 1000} s`);
      await sleep(50);
    }
    return handle;
  }

  // One run of our client at a level's flags (`levelArgs`); `warmup`: seconds of a run not
  // counted. Its --json result, or null when interrupted. Errors end the comparison, but at
  // load levels, where a server is expected to fail past some level: they are its figures.
  async load(candidate, server, url, levelArgs, warmup, who) {
    const { plan, deps } = this;
    const { client } = candidate;
    if (plan.script !== null) return this.loadScript(candidate, server, url, warmup, who);
    const extraArgs = warmup ? ['-t', String(warmup)] : [];
    const argv = [...deps.runtimes[client.runtime].prefix, deps.cliPath, url, '--json', '--quiet', ...plan.loadArgs, ...levelArgs, ...extraArgs];
    if (client.socket) argv.push('--socket', client.socket);
    const handle = this.start(argv, plan.clientCpus, true);
    const seconds = warmup || plan.maxSeconds;
    const limit = seconds === null ? null : sleep((seconds + 30) * 1000).then(() => 'late');
    const status = await Promise.race([handle.closed.then(() => handle.exited), ...(limit ? [limit] : [])]);
    if (this.interrupted) return null;
    await this.stop(handle);
    if (status === 'late') throw new CompareError(`${who}: the client still ran ${seconds + 30} s after it started`);
    serverAlive(server, who);
    let result = null;
    try {
      result = JSON.parse(handle.stdout());
    } catch {
      // said below
    }
    // At levels a run with no response at all (exit 1) still has its figures: every request failed.
    const failedAll = plan.levels && status.code === 1 && result && result.totalRequests > 0;
    if ((status.code !== 0 && !failedAll) || !result) {
      const why = lastLine(handle.stderrTail()) || 'no result on its output';
      throw new CompareError(`${who}: the client ${exitWords(status)}: ${why}`);
    }
    if (result.totalErrors > 0 && !plan.levels) {
      const codes = Object.entries(result.errorCodes).map(([code, n]) => `${code}: ${n}`).join(', ');
      throw new CompareError(`${who}: ${result.totalErrors} of ${result.totalRequests} requests failed (${codes})`);
    }
    return result;
  }

  // --script: one `loadtest run` of the script with the candidate's URL as __ENV.URL (a warm-up:
  // the script's VUs for `warmup` seconds, -d), its figures read from its summary export in the
  // shape of a load run's result (its summary on stdout kept, unread: with the summary
  // disabled, as in k6 v1, there is no export). A failed threshold (exit 99) is a figure.
  async loadScript(candidate, server, url, warmup, who) {
    const { plan, deps } = this;
    const exported = deps.tempPath('compare-script');
    const argv = [...deps.runtimes[candidate.client.runtime].prefix, deps.cliPath, 'run', '-q', '-e', `URL=${url}`, '--summary-export', exported, '--summary-trend-stats', 'avg,med,p(99),p(99.9),max', ...(warmup ? ['-d', `${warmup}s`] : []), plan.script];
    const handle = this.start(argv, plan.clientCpus, true);
    const status = await handle.closed.then(() => handle.exited);
    if (this.interrupted) return null;
    await this.stop(handle);
    serverAlive(server, who);
    let doc = null;
    try {
      doc = JSON.parse(await deps.readText(exported));
    } catch {
      // said below
    }
    await deps.removeFile(exported);
    if ((status.code !== 0 && status.code !== 99) || !doc) {
      const why = lastLine(handle.stderrTail()) || 'no summary export';
      throw new CompareError(`${who}: loadtest run ${exitWords(status)}: ${why}`);
    }
    return scriptResult(doc, candidate.client.runtime);
  }

  async measure(round, candidate, sharedHandle, index, level) {
    const { plan, deps } = this;
    const at = level === null ? '' : `${level} ${plan.levels.kind === 'rps' ? 'rps' : 'connections'}`;
    const who = `${candidate.name} (round ${round}${at ? `, ${at}` : ''})`;
    const status = (what) => this.onStatus(round, index, candidate.name, at ? `${at}: ${what}` : what);
    const levelArgs = level === null ? [] : plan.levels.kind === 'rps' ? ['--rps', String(level)] : ['-c', String(level)];
    let server = sharedHandle;
    if (candidate.server) {
      status('starting its server');
      server = await this.startServer(candidate.server, who);
    }
    try {
      if (this.interrupted) return;
      const url = server ? server.url : plan.url;
      if (plan.warmup > 0) {
        status(`warming up ${plan.warmup} s`);
        if (!(await this.load(candidate, server, url, levelArgs, plan.warmup, who))) return;
      }
      status(plan.maxSeconds === null ? 'loading' : `loading ${plan.maxSeconds} s`);
      const cpuBefore = server ? deps.groupCpuMicros(server.pid) : null;
      const result = await this.load(candidate, server, url, levelArgs, 0, who);
      if (!result) return;
      const cpu = server && cpuBefore !== null ? deps.groupCpuMicros(server.pid) - cpuBefore : null;
      // A shared server's peak memory belongs to the whole run, not to one candidate.
      const rssKb = candidate.server ? deps.groupPeakRssKb(server.pid) : null;
      this.records.push(roundRecord(round, candidate, level, result, cpu, rssKb));
    } finally {
      if (candidate.server && server && !this.interrupted) await this.stop(server);
    }
  }

  async run() {
    const { plan } = this;
    let shared = null;
    try {
      if (plan.sharedServer) {
        this.onStatus(0, -1, plan.sharedServer.name, 'starting the server');
        shared = await this.startServer(plan.sharedServer, `server ${plan.sharedServer.name}`);
      }
      // Level by level, and within a level the rounds interleaved: A B C A B C.
      for (const level of plan.levels ? plan.levels.values : [null]) {
        for (let round = 1; round <= plan.rounds && !this.interrupted; round++) {
          for (let i = 0; i < plan.candidates.length && !this.interrupted; i++) await this.measure(round, plan.candidates[i], shared, i, level);
        }
      }
      if (shared && !this.interrupted) await this.stop(shared);
    } catch (err) {
      await this.stopAll();
      throw err;
    }
    if (this.interrupted) await this.stopAll();
    return { records: this.records, interrupted: this.interrupted };
  }

  async stopAll() {
    const handles = [...this.live];
    this.live.clear();
    await Promise.all(handles.map((h) => this.deps.stopGroup(h)));
  }

  async interrupt() {
    this.interrupted = true;
    await this.stopAll();
  }
}

/** A --script run's summary export in the shape of a load run's --json result. */
function scriptResult(doc, runtime) {
  const m = doc.metrics;
  const reqs = m.http_reqs || { count: 0, rate: 0 };
  const d = m.http_req_duration || {};
  return {
    totalRequests: reqs.count,
    elapsedSeconds: reqs.rate > 0 ? reqs.count / reqs.rate : 0,
    percentiles: { 50: d.med ?? null, 99: d['p(99)'] ?? null, 99.9: d['p(99.9)'] ?? null },
    totalErrors: m.http_req_failed ? m.http_req_failed.passes : 0,
    runtime,
    socket: null,
  };
}

/** One candidate's figures in one round (and level): `cpu` µs and `rssKb` of its server, or null. */
function roundRecord(round, candidate, level, result, cpu, rssKb) {
  const seconds = result.elapsedSeconds;
  return {
    round,
    candidate: candidate.name,
    level,
    rps: seconds > 0 ? Math.round((result.totalRequests / seconds) * 10) / 10 : 0,
    p50: result.percentiles['50'],
    p99: result.percentiles['99'],
    p999: result.percentiles['99.9'],
    errors: result.totalErrors,
    requests: result.totalRequests,
    seconds: Math.round(seconds * 1e6) / 1e6,
    clientRuntime: result.runtime,
    clientSocket: result.socket,
    serverCpuUs: cpu === null ? undefined : Math.round(cpu),
    serverCpuPerRequest: cpu === null || !result.totalRequests ? undefined : Math.round((cpu / result.totalRequests) * 100) / 100,
    serverRssMb: rssKb === null ? undefined : Math.round(rssKb / 102.4) / 10,
  };
}
