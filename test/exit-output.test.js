// What a command writes to stdout just before it exits is all there on a pipe: node dropped what
// had not gone into the pipe yet (64 KiB at a time, as the reader took it) at process.exit(), and
// a --json document past that came out cut short (runtimes/index.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runtimeCommand } from './servers.js';

const PROBE = fileURLToPath(new URL('./exit-output-probe.js', import.meta.url));

test('a line of 1 MiB written just before exit() reaches the pipe whole', async () => {
  const [command, args] = runtimeCommand(PROBE);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
  try {
    let bytes = 0;
    child.stdout.on('data', (chunk) => (bytes += chunk.length));
    await new Promise((resolve) => child.stdout.on('end', resolve));
    assert.equal(await exited, 0);
    assert.equal(bytes, (1 << 20) + 1);
  } finally {
    clearTimeout(timer);
  }
});
