// The test server on several processes sharing one port (`cores`). The parent starts one child
// per core (runtimes/test-server/child.js, on this runtime), each running the server alone, and
// adds up what they served.
//
// The pipe protocol, one line each way per step (nothing per request):
//   parent → child   serve <options as JSON>     the child listens and answers
//   child → parent   listening <port>            (or: fail <code> <message>)
//   child → parent   count <served> <errors>     4 times a second while it changes
//   parent → child   stop                        it closes, sends its last count and exits
//
// How the port is shared depends on the server (see each module's `sharing`): with SO_REUSEPORT
// every child binds the port itself and the kernel spreads connections over them; with 'fd' the
// parent opens the socket, the children inherit it and accept from it in turn.

import { Buffer } from 'node:buffer';
import { runtime, spawnChild, pathOf } from '../index.js';
import { openShared } from './node.js';

const CHILD = pathOf(new URL('./child.js', import.meta.url));
const READY_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 5000;

// Functions cannot cross to another process; the rest of the options can, as JSON.
function childOptions(o, port, share) {
  const text = (x) => (x instanceof Uint8Array ? new TextDecoder().decode(x) : x);
  const body = o.body instanceof Uint8Array ? { base64: Buffer.from(o.body).toString('base64') } : o.body;
  return { ...o, port, quiet: true, cores: 1, share, body, cert: text(o.cert), key: text(o.key) };
}

/** A port free now on `host`, for children that must all bind the same one. */
async function freePort(host) {
  const shared = await openShared(0, host);
  await shared.close();
  return shared.port;
}

/** Resolves to { port, processes, counts(), close() } once every child listens. */
export async function serveOnCores(s) {
  const how = s.server.sharing(runtime.name);
  if (!how) throw new Error(`cores: ${s.server.name} on ${runtime.name} cannot share a port between processes (no SO_REUSEPORT outside node:cluster); use the native server or cores: 1`);
  if (s.options.logger || s.options.shouldErrorCustom) throw new Error('logger and shouldErrorCustom need cores: 1 (functions cannot cross to child processes)');
  const n = s.cores;
  let shared = null;
  let port = s.port;
  if (how === 'fd') {
    shared = await openShared(s.port, s.host);
    port = shared.port;
  } else if (port === 0) {
    port = await freePort(s.host);
  }
  const job = childOptions(s.options, port, how === 'fd' ? { fd: 3 } : { reusePort: true });
  const extra = how === 'fd' ? { share: shared.fd } : { denoFlags: ['--unstable-net'] };
  const children = await Promise.all(Array.from({ length: n }, () => spawnChild(CHILD, {}, extra)));
  // The children hold the socket now; the parent's copy goes before its loop could accept on it.
  if (shared) await shared.close();
  const processes = children.map((child) => ({ pid: child.pid, requests: 0, errors: 0 }));
  const failures = [];
  let listening = 0;
  let ready;
  const allListening = new Promise((resolve) => (ready = resolve));
  children.forEach((child, i) => {
    child.onLine((line) => {
      const [word, a, ...rest] = line.split(' ');
      if (word === 'listening') {
        if (++listening === n) ready();
      } else if (word === 'count') {
        processes[i].requests = Number(a);
        processes[i].errors = Number(rest[0]);
      } else if (word === 'fail') {
        failures.push({ code: a === '-' ? undefined : a, message: `child ${i + 1} of ${n}: ${rest.join(' ')}` });
        ready();
      }
    });
    child.send(`serve ${JSON.stringify(job)}`);
    child.exited.then((status) => {
      if (listening < n && !failures.length) {
        const why = child.stderrTail().trim().split('\n').pop() || `exited with code ${status.code}`;
        failures.push({ message: `child ${i + 1} of ${n} ${why}` });
        ready();
      }
    });
  });
  const timer = setTimeout(() => {
    failures.push({ message: `not every child listening after ${READY_TIMEOUT_MS / 1000} s` });
    ready();
  }, READY_TIMEOUT_MS);
  await allListening;
  clearTimeout(timer);

  const stopAll = async () => {
    children.forEach((child) => child.send('stop'));
    const killer = setTimeout(() => children.forEach((child) => child.kill()), STOP_TIMEOUT_MS);
    await Promise.all(children.map((child) => child.exited));
    clearTimeout(killer);
  };
  if (failures.length) {
    await stopAll();
    const error = new Error(failures[0].message);
    error.code = failures[0].code;
    throw error;
  }
  const sum = (key) => processes.reduce((total, p) => total + p[key], 0);
  return {
    port,
    server: null,
    processes,
    counts: () => ({ served: sum('requests'), errors: sum('errors') }),
    close: stopAll,
  };
}
