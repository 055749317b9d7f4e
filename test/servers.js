// Raw node:net servers for the end-to-end tests: each behaves like a kind of real server (and
// runs on node, bun and deno alike). They count the requests they read, so that a test can
// compare what the server received with what loadtest reports.

import net from 'node:net';
import tlsModule from 'node:tls';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync, readdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const HEAD_END = '\r\n\r\n';

/**
 * Starts a server on 127.0.0.1, port 0. `respond(ctx, request)` is called for each complete
 * request read from a connection; ctx = { socket, index (on this connection), server }.
 * request = { method, path, headers, body }. With `tls` ({ key, cert }, PEM) it is node:tls, and
 * its url is https://localhost (the name test/tls/server.pem is for).
 */
export function rawServer(respond, { pauseOnConnect = false, tls = null } = {}) {
  const state = { requests: 0, connections: 0, bodies: [], paths: [] };
  const sockets = new Set();
  const create = tls ? (handler) => tlsModule.createServer(tls, handler).on('tlsClientError', () => {}) : (handler) => net.createServer({ pauseOnConnect }, handler);
  const server = create((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    let index = 0;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf(HEAD_END);
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const lines = head.split('\r\n');
        const [method, path] = lines[0].split(' ');
        const headers = {};
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] || 0);
        if (buffered.length < end + 4 + length) return;
        const body = Buffer.from(buffered.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
        buffered = buffered.slice(end + 4 + length);
        state.requests++;
        state.paths.push(path);
        state.bodies.push(body);
        respond({ socket, index: index++, server: state }, { method, path, headers, body });
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      state.port = server.address().port;
      state.url = tls ? `https://localhost:${state.port}/` : `http://127.0.0.1:${state.port}/`;
      state.close = () =>
        new Promise((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        });
      resolve(state);
    });
  });
}

/**
 * A rawServer responder that answers each request `ms` later: for runs bounded by time whose
 * rate is not the point. At full speed a run and this server take a core each for as long as it
 * lasts, which the other test files running beside it pay for.
 */
export const paced = (ms = 1) => ({ socket }) => setTimeout(() => !socket.destroyed && socket.write(ok()), ms);

/** Writes `text` in pieces of `size` bytes, one per event-loop turn, so they arrive apart. */
export function writeInPieces(socket, text, size, then) {
  const bytes = Buffer.from(text);
  let at = 0;
  const step = () => {
    if (socket.destroyed) return;
    socket.write(bytes.subarray(at, at + size));
    at += size;
    if (at < bytes.length) setTimeout(step, 1);
    else if (then) then();
  };
  step();
}

export const ok = (body = 'OK', extra = '') =>
  `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** The command that runs a script on the current runtime (for CLI tests). */
export function runtimeCommand(script) {
  if (globalThis.Deno) return [globalThis.Deno.execPath(), ['run', '-A', script]];
  return [globalThis.process.execPath, [script]];
}

/** What result.show() prints, as one string. */
export function shownReport(result) {
  const lines = [];
  const log = console.log;
  console.log = (line) => lines.push(line);
  try {
    result.show();
  } finally {
    console.log = log;
  }
  return lines.join('\n');
}

/**
 * Starts `script` with `args` on this runtime and returns at once { child, done }: done resolves,
 * once the process has exited and its output is closed, to { code, signal, stdout, stderr }.
 * `onStdout(text, child)` sees the output so far as it arrives. A process still running after
 * `timeoutMs` is killed and done rejects; `interruptAfterMs` sends it SIGINT (Ctrl-C) after that
 * long. It runs in the repository's folder unless `cwd` names another; `env` adds to its
 * environment; `input`, a string, is written to its stdin (else it has none).
 */
export function startScript(script, args, { onStdout, interruptAfterMs, timeoutMs = 30000, cwd = ROOT, env = {}, input } = {}) {
  const [command, prefix] = runtimeCommand(script);
  const child = spawn(command, [...prefix, ...args], {
    cwd,
    env: { ...globalThis.process.env, NO_COLOR: '1', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin.end(input);
  const waiters = new Set();
  const done = new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let exited = false;
    const timer = setTimeout(() => {
      if (exited) return; // gone, its pipes still draining: the grace below ends the wait
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    // process.kill, not child.kill: deno's child_process misreports the exit code after the latter.
    const interrupt = interruptAfterMs ? setTimeout(() => globalThis.process.kill(child.pid, 'SIGINT'), interruptAfterMs) : null;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      stdout += text;
      if (onStdout) onStdout(stdout, child);
    });
    child.stderr.on('data', (text) => {
      stderr += text;
      for (const w of [...waiters]) {
        const m = w.pattern.exec(stderr);
        if (m) {
          waiters.delete(w);
          w.resolve(m[1]);
        }
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    let ended = false;
    let grace = null;
    const end = (code, signal) => {
      if (ended) return;
      ended = true;
      for (const w of waiters) w.reject(new Error(`${script} ${args.join(' ')}: exited ${code ?? signal} before its stderr said ${w.pattern}\nstderr: ${stderr}`));
      waiters.clear();
      clearTimeout(timer);
      clearTimeout(grace);
      clearTimeout(interrupt); // a process that ended first: no signal to a pid that may be another's
      if (timedOut) reject(new Error(`${script} ${args.join(' ')}: still running after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
      else resolve({ code, signal, stdout, stderr });
    };
    child.on('close', end);
    // 'close' waits for the pipes; should it never come once the process is gone (seen once
    // with deno's child_process on a loaded machine), the test must not wait forever. The wait
    // is long: on a loaded machine deno's pipes have delivered a child's stderr more than 5 s
    // after its exit, and a result without it fails the test that reads it.
    child.on('exit', (code, signal) => {
      exited = true;
      grace = setTimeout(() => end(code, signal), 30000);
    });
  });
  // said(/metrics at (\S+)/): the first group once stderr has it; rejected, with the stderr, should
  // the process end first, so a test fails with the reason rather than at its own timeout.
  const said = (pattern) => new Promise((resolve, reject) => waiters.add({ pattern, resolve, reject }));
  return { child, done, said };
}

/**
 * fn(item) for each item, `width` at a time, results in order: for tests that start a process
 * per case. Ten runtimes started at once on a loaded 2-core machine took deno past 30 s for one.
 */
export async function inTurn(items, fn, width = 2) {
  const out = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}

/** startScript's result once the process is done (see there). */
export const spawnScript = (script, args, options) => startScript(script, args, options).done;

/** The CLI on this runtime, started (see startScript); `env` adds to its environment. */
export const startCli = (args, env = {}) => startScript(CLI, args, { env });

/**
 * Runs a command (not a script of this runtime: tsc, npm, bun, deno) and resolves to
 * { code, stdout, stderr }; killed and rejected after `timeoutMs`.
 */
export function runCommand(command, args, { cwd = ROOT, env = {}, timeoutMs = 30000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...globalThis.process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')}: still running after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text) => (stdout += text));
    child.stderr.on('data', (text) => (stderr += text));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * A small forward proxy on 127.0.0.1, port 0, that logs what it was asked: CONNECT host:port
 * opens a tunnel (answered 200, then bytes are piped both ways); any other request, which must
 * be absolute-form, is piped with the rest of its connection to the host it names. `auth` (a
 * Proxy-Authorization value) is required when given (407 otherwise); `refuse` (a status) answers
 * every CONNECT with it.
 */
export function forwardProxy({ auth = null, refuse = 0 } = {}) {
  const state = { connects: [], requestLines: [], authorizations: [], upstreamErrors: [] };
  const sockets = new Set();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let buffered = Buffer.alloc(0);
    const onData = (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(HEAD_END);
      if (end < 0) return;
      client.off('data', onData);
      const lines = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const [method, target] = lines[0].split(' ');
      const header = (name) => {
        const line = lines.find((l) => l.toLowerCase().startsWith(`${name}:`));
        return line === undefined ? null : line.slice(name.length + 1).trim();
      };
      const given = header('proxy-authorization');
      state.authorizations.push(given);
      if (auth !== null && given !== auth) {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      let host;
      let port;
      let first = null;
      if (method === 'CONNECT') {
        state.connects.push(target);
        if (refuse) {
          client.end(`HTTP/1.1 ${refuse} Refused\r\nContent-Length: 0\r\n\r\n`);
          return;
        }
        const colon = target.lastIndexOf(':');
        host = target.slice(0, colon).replace(/^\[|\]$/g, '');
        port = Number(target.slice(colon + 1));
        first = buffered.subarray(end + 4);
      } else {
        state.requestLines.push(lines[0]);
        const u = new URL(target);
        host = u.hostname;
        port = Number(u.port || 80);
        first = buffered;
      }
      // Without it, a response's second piece waits for the ACK of the first (Nagle and
      // delayed ACK: up to 40 ms), a delay no real proxy adds.
      client.setNoDelay(true);
      // The test servers listen on 127.0.0.1: 'localhost' is taken to it, not tried as ::1 and
      // 127.0.0.1 by turns, where a loaded machine lets the first try time out after 250 ms
      // (autoSelectFamily) and the second be refused: a tunnel the proxy dropped unanswered.
      const upstream = net.connect({ host: host === 'localhost' ? '127.0.0.1' : host, port, noDelay: true }, () => {
        if (method === 'CONNECT') client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (first.length > 0) upstream.write(first);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', (err) => {
        state.upstreamErrors.push(`${target}: ${err.code || err.message}`);
        client.destroy();
      });
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      state.port = server.address().port;
      state.url = `http://127.0.0.1:${state.port}`;
      state.close = () =>
        new Promise((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        });
      resolve(state);
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * stderr without the line Deno prints at start in a process that skips certificate checks (the
 * deno CLI given --insecure restarts so: runtimes/processes/deno-restart.js); nothing else is removed.
 */
export const withoutDenoDanger = (stderr) => stderr.replace(/^DANGER: TLS certificate validation is disabled for all hostnames\n/m, '');

/** Waits until condition() holds or `ms` pass; resolves to condition(). */
export async function until(condition, ms = 15000) {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(20);
  return condition();
}

/** Process ids whose parent is `pid` (from /proc; the children of --cores). */
export function childrenOf(pid) {
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A process's command line as a list (from /proc), or null once it is gone. */
export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return null;
  }
}

/** Writes `piece` to `socket` again and again, as fast as it is read, until the socket is gone. */
export function writeForever(socket, piece) {
  const more = () => {
    while (!socket.destroyed && socket.write(piece));
    if (!socket.destroyed) socket.once('drain', more);
  };
  more();
}

/**
 * A dashboard's event stream (runtimes/run-servers/dashboard.js) read whole, until its done
 * event: the page is up before the run starts and the stream replays every second from the
 * first, so it is read again whenever it is opened. Resolves to { text, events }.
 */
export async function dashboardEvents(base) {
  let text = '';
  for (let i = 0; i < 600 && !text.includes('event: done'); i++) {
    const res = await fetch(new URL('/events', base), { signal: AbortSignal.timeout(60000) }).catch(() => null);
    if (res === null) {
      await sleep(50);
      continue;
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
      if (text.includes('event: done')) break;
    }
    await reader.cancel();
  }
  return { text, events: [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1])) };
}

/**
 * GET url until over(text), every 50 ms for at most `ms`, or until `done` (the serving process's)
 * settles; the last text. Each GET is bounded: one that hangs (a connection the server never
 * answers) is given up and tried again, not waited on until the run's process is killed. The
 * wait stays under a test runner's own timeout (bun's 60 s), so a run that never ends fails the
 * test with what it served, not by the runner's kill.
 */
export async function scrapeUntil(url, over, { ms = 40000, done = null } = {}) {
  let text = '';
  let exited = false;
  done?.then(() => (exited = true), () => (exited = true));
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !exited) {
    text = await boundedText(url, 3000);
    if (over(text)) break;
    await sleep(50);
  }
  return text;
}

// A GET's body, or '' if it fails or takes over `ms`: raced against a timer of its own, so that no
// fetch, its body's read included, can hold the loop (a scripted run's --metrics test once waited
// out its child's 120 s with AbortSignal.timeout's 3 s here).
function boundedText(url, ms) {
  const controller = new AbortController();
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(''), ms)));
  const text = fetch(url, { signal: controller.signal }).then((r) => r.text()).catch(() => '');
  return Promise.race([text, late]).finally(() => {
    clearTimeout(timer);
    controller.abort();
  });
}

/**
 * Runs `source` as a k6 script (`loadtest run -q ARGS script`, written to a folder of its own,
 * removed after) and gives back the value of its one console.log of JSON.stringify(value).
 */
export async function scriptLogged(source, args = []) {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-script-'));
  try {
    const path = join(dir, 'test.js');
    writeFileSync(path, source);
    const r = await spawnScript(CLI, ['run', '-q', ...args, path], { timeoutMs: 60000 });
    if (r.code !== 0) throw new Error(`the script exited ${r.code}: ${r.stderr}`);
    const m = r.stderr.match(/msg="(.*)" source=console/);
    if (!m) throw new Error(`the script logged nothing: ${r.stderr}`);
    return JSON.parse(JSON.parse(`"${m[1]}"`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
