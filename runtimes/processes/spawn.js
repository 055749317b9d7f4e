// Starting a child process of the same runtime, one way per runtime: node's child_process,
// Bun.spawn and Deno.Command. Each returns the same small handle:
//   send(line)        writes one line to the child's stdin
//   onLine(fn)        fn(line) for each line the child writes on stdout
//   exited            Promise of { code, signal } once the child is gone and its stdout read
//   stderrTail()      the last lines it wrote on stderr (for reporting why it died)
//   kill()
// Children talk to the parent in a few lines per run (ready, go, stop, result): nothing per
// request crosses the pipe, so the cost of the pipe itself does not matter.

const MAX_STDERR = 4096;

/** A text sink that calls fn(line) for every complete line. */
export function lineSplitter(fn) {
  // Pieces of an unfinished line wait in a list: a child's result line holds its series and can
  // be megabytes long, and searching the whole of it again for each piece would be quadratic.
  let pieces = [];
  return (text) => {
    let from = 0;
    let nl;
    while ((nl = text.indexOf('\n', from)) >= 0) {
      pieces.push(text.slice(from, nl));
      const line = pieces.join('');
      pieces = [];
      from = nl + 1;
      fn(line);
    }
    if (from < text.length) pieces.push(text.slice(from));
  };
}

function tail(text) {
  return text.length > MAX_STDERR ? text.slice(-MAX_STDERR) : text;
}

/**
 * node: child_process.spawn of process.execPath with the same node flags and `flags`. `share`, a file
 * descriptor of the parent, becomes the child's fd 3 (the test server's processes on node share
 * one listening socket).
 */
export async function spawnNode(script, env, share, flags = []) {
  const { spawn } = await import('node:child_process');
  const proc = globalThis.process;
  const stdio = share ? ['pipe', 'pipe', 'pipe', share] : ['pipe', 'pipe', 'pipe'];
  const child = spawn(proc.execPath, [...proc.execArgv, ...flags, script], { stdio, env: { ...proc.env, ...env } });
  let stderr = '';
  const listeners = [];
  const split = lineSplitter((line) => listeners.forEach((fn) => fn(line)));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', split);
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (t) => (stderr = tail(stderr + t)));
  child.stdin.on('error', () => {}); // a child that died cannot be written to; exited says why
  const exited = new Promise((resolve) => {
    child.on('error', (err) => resolve({ code: null, signal: null, error: err.message }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    pid: child.pid,
    send: (line) => child.stdin.writable && child.stdin.write(line + '\n'),
    onLine: (fn) => listeners.push(fn),
    exited,
    stderrTail: () => stderr,
    kill: () => child.kill('SIGKILL'),
  };
}

// Bun.spawn and Deno.Command both give web streams for stdout and stderr.
async function pump(stream, fn) {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    fn(decoder.decode(value, { stream: true }));
  }
}

function webHandle(pid, write, stdout, stderrStream, status, kill) {
  let stderr = '';
  const listeners = [];
  const split = lineSplitter((line) => listeners.forEach((fn) => fn(line)));
  const reading = Promise.all([pump(stdout, split), pump(stderrStream, (t) => (stderr = tail(stderr + t)))]).catch(() => {});
  return {
    pid,
    send: (line) => write(line + '\n'),
    onLine: (fn) => listeners.push(fn),
    exited: Promise.all([status, reading]).then(([s]) => s),
    stderrTail: () => stderr,
    kill,
  };
}

/** bun: Bun.spawn of the same bun executable. */
export async function spawnBun(script, env) {
  const Bun = globalThis.Bun;
  const proc = Bun.spawn([globalThis.process.execPath, script], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...globalThis.process.env, ...env },
  });
  const write = (text) => {
    try {
      proc.stdin.write(text);
      proc.stdin.flush();
    } catch {
      // the child is gone; exited says why
    }
  };
  const status = proc.exited.then(() => ({ code: proc.exitCode, signal: proc.signalCode || null }));
  return webHandle(proc.pid, write, proc.stdout, proc.stderr, status, () => proc.kill('SIGKILL'));
}

/**
 * deno: Deno.Command of the same deno executable with `run` and the permissions a child needs
 * (network, reading its modules and files, the environment) rather than all of them, and
 * `flags` (--unstable-net for Deno.serve's reusePort).
 */
export async function spawnDeno(script, env, { flags = [], unixSocket = null, writes = [] } = {}) {
  const Deno = globalThis.Deno;
  // Deno asks write permission of a connection to a Unix socket: for that file only; and of the
  // files a child writes (--log-file).
  const files = [unixSocket, ...writes].filter(Boolean);
  const write = files.length > 0 ? [`--allow-write=${files.join(',')}`] : [];
  const args = ['run', '--allow-net', '--allow-read', ...write, '--allow-env', '--allow-sys', ...(flags || []), script];
  const child = new Deno.Command(Deno.execPath(), { args, stdin: 'piped', stdout: 'piped', stderr: 'piped', env }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const writeLine = (text) => writer.write(encoder.encode(text)).catch(() => {});
  const status = child.status.then((s) => ({ code: s.code, signal: s.signal || null }));
  return webHandle(child.pid, writeLine, child.stdout, child.stderr, status, () => {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  });
}
