// The servers the tests start (influxd, prometheus): the first installed of their paths, and their start.

import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

export function installed(paths, args) {
  return paths.find((p) => {
    try {
      execFileSync(p, args, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Starts a server the tests use (`command`, `args`, its files in `dir`): resolves to { stop() } once
 * `ready()` (an HTTP probe) says so; throws with its stderr if it exits or is not ready in 30 s.
 */
export async function startServer(command, args, dir, ready, what) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Bounded: up in a second or two; 300 tries of 100 ms each at most.
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    try {
      if (await ready()) return { stop };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`${what} did not start: ${stderr}`);
}
