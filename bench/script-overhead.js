// What a scripted request costs beyond the bytes on the wire: a k6 script run in this process
// against an in-memory server (each request answered on the next turn of the event loop, no
// syscall), beside the load run's own driver on the same in-memory server. CPU µs per request
// of each, and their ratio: the script's machinery alone (VU, iteration, http.get's params,
// Response, metric samples). Runs unchanged on node, bun and deno:
//   node bench/script-overhead.js [SCRIPT] [SECONDS]
//   (SCRIPT: bench/scripts/rate.js by default; __ENV.URL is the in-memory server)
//   OUT=FILE: the scripted run with --out json=FILE (its thread's CPU counts: the process's)
import process from 'node:process';
import { pickAdapter } from '../runtimes/index.js';
import { loadScript } from '../runtimes/scripts/load.js';
import { facilitiesOf, openOutputs } from '../runtimes/scripts/host.js';
import { transformModule } from '../src/script/transform/transform.js';
import { runScript } from '../src/script/runner.js';
import { prepare } from '../src/index.js';
import { Run } from '../src/run/run.js';

const script = process.argv[2] || 'bench/scripts/rate.js';
const seconds = Number(process.argv[3] || 3);
const RESPONSE = new TextEncoder().encode('HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nOK');

// A socket whose peer answers each request (a write) with RESPONSE on the next macrotask, as a
// real socket's data would come.
const memory = {
  name: 'memory',
  // RESPONSE is never written: it may be kept as the runtime's own adapter's reads may (Bun's).
  freshReads: pickAdapter().freshReads,
  connect(_host, _port, handlers) {
    let open = true;
    const socket = {
      write() {
        if (open) setImmediate(() => open && handlers.data(RESPONSE));
      },
      end() {
        open = false;
        setImmediate(() => handlers.close());
      },
      destroy() {
        open = false;
      },
    };
    setImmediate(() => {
      if (!open) return;
      if (handlers.connected) handlers.connected();
    });
    return socket;
  },
};

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000; // ms
};

async function scripted() {
  const loaded = await loadScript(script, transformModule);
  // afterReads: null, each request written as it is made (a write wakes no server here, which
  // is all that sending a turn's requests together saves).
  const facilities = { ...facilitiesOf(script), afterReads: null, adapterFor: () => memory, resolve: async () => '127.0.0.1' };
  const c0 = cpu();
  const t0 = performance.now();
  const out = process.env.OUT ? await openOutputs([{ kind: 'json', file: process.env.OUT }]) : null;
  const hooks = out ? { onSample: out.sample } : {};
  const result = await runScript(loaded.factory, { flags: { duration: `${seconds}s`, env: { URL: 'http://127.0.0.1:8089/', BASE: 'http://127.0.0.1:8089' } }, facilities, hooks });
  if (out) await out.close();
  const ms = cpu() - c0;
  loaded.cleanup();
  // A script that makes no request (the VU's iteration alone): per iteration.
  const m = result.data.metrics;
  const reqs = m.http_reqs ? m.http_reqs.values.count : m.iterations.values.count;
  return { reqs, cpuUsPerReq: (ms * 1000) / reqs, rate: reqs / ((performance.now() - t0) / 1000) };
}

async function declared() {
  const c0 = cpu();
  const t0 = performance.now();
  const { config } = await prepare({ url: 'http://127.0.0.1:8089/', maxSeconds: seconds, concurrency: 10, quiet: true });
  const stats = await new Run(config, memory).start();
  const ms = cpu() - c0;
  const reqs = stats.completed !== undefined ? stats.completed : stats.totalRequests;
  return { reqs, cpuUsPerReq: (ms * 1000) / reqs, rate: reqs / ((performance.now() - t0) / 1000) };
}

// ONLY=scripted or ONLY=declared: one of them alone (for a profiler).
const none = { reqs: 0, cpuUsPerReq: NaN, rate: 0 };
const d = process.env.ONLY === 'scripted' ? none : await declared();
const s = process.env.ONLY === 'declared' ? none : await scripted();
const f = (x) => x.toFixed(2);
console.log(`declared: ${d.reqs} requests, ${f(d.cpuUsPerReq)} µs CPU each, ${Math.round(d.rate)}/s`);
console.log(`scripted: ${s.reqs} requests, ${f(s.cpuUsPerReq)} µs CPU each, ${Math.round(s.rate)}/s (${script})`);
console.log(`ratio: ${f(s.cpuUsPerReq / d.cpuUsPerReq)}`);
process.exit(0);
