// What users get: the npm tarball and the JSR package hold the code, its types, README and
// LICENSE and nothing else, and the tarball, installed into a fresh project, runs under npx,
// bunx --bun and deno run.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { runCommand } from './servers.js';
import { ONE_RUNTIME } from './scope.js';
import { startServer, VERSION } from '../src/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const json = (path) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

// Every file the package should ship: the code, its types, README and LICENSE, and doc/ (the
// README links into it).
function shipped(manifest) {
  const files = [manifest, 'README.md', 'LICENSE'];
  for (const dir of ['src', 'runtimes', 'types', 'doc']) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(join(entry.parentPath ?? entry.path, entry.name).slice(ROOT.length).replaceAll('\\', '/'));
    }
  }
  return files.sort();
}

test('deno.json (JSR) has the version of package.json and of VERSION', () => {
  assert.equal(json('deno.json').version, json('package.json').version);
  assert.equal(json('deno.json').version, VERSION);
  assert.equal(json('deno.json').name, '@loadtest/loadtest');
});

// npm and deno do these two whichever runtime runs the test.
test('the npm tarball holds src, runtimes, types, doc, README.md, LICENSE and package.json only', { skip: ONE_RUNTIME }, async () => {
  const { code, stdout, stderr } = await runCommand('npm', ['pack', '--dry-run', '--json']);
  assert.equal(code, 0, stderr);
  const files = JSON.parse(stdout)[0].files.map((f) => f.path).sort();
  assert.deepEqual(files, shipped('package.json'));
  assert.ok(files.includes('types/index.d.ts') && files.includes('src/cli.js'));
});

// --no-check: deno's type check of the graph wants npm:@types/node inside node_modules (it is no
// dependency of ours); the declarations themselves are checked by tsc in types.test.js.
test('deno publish --dry-run passes and would publish the same files (deno.json for package.json)', { skip: ONE_RUNTIME }, async () => {
  const { code, stdout, stderr } = await runCommand(join(BIN, 'deno'), ['publish', '--dry-run', '--allow-dirty', '--no-check'], { timeoutMs: 60000 });
  const out = stdout + stderr;
  assert.equal(code, 0, out);
  assert.match(out, /Dry run complete/);
  // Every export has declarations (JSR's "slow types" would otherwise be inferred from JS).
  assert.doesNotMatch(out, /unsupported-javascript-entrypoint|\berror(\[|:)/);
  const prefix = new URL('..', import.meta.url).href;
  const files = [...out.matchAll(/(file:\/\/\S+) \(/g)].map((m) => m[1].slice(prefix.length)).sort();
  assert.deepEqual(files, shipped('deno.json'));
});

const NODE_ONLY = globalThis.Bun || globalThis.Deno ? 'spawns node, bun and deno itself: run it under node --test' : false;

test('the packed tarball, installed offline in a new project, runs under npx, bunx --bun and deno run', { skip: NODE_ONLY, timeout: 120000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-install-'));
  const server = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  try {
    const packed = await runCommand('npm', ['pack', '--pack-destination', dir, '--json']);
    assert.equal(packed.code, 0, packed.stderr);
    const tarballs = [JSON.parse(packed.stdout)[0].filename];
    // The dependencies (and theirs: the lock file's non-dev packages) come as tarballs of our own
    // installed copies, so that the install needs neither the network nor an npm cache that
    // happens to hold them (after npm ci, the cache here did not: ENOTCACHED for mri).
    const locked = Object.entries(json('package-lock.json').packages);
    const deps = locked.filter(([path, p]) => path && !p.dev && !p.devOptional).map(([path]) => path);
    assert.ok(deps.includes('node_modules/mri'), deps.join(' '));
    // One npm for all of them (one each took most of the test's time on a loaded machine).
    // --ignore-scripts: a package's own prepare script (acorn's builds it) is not ours to run.
    const r = await runCommand('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--json', ...deps.map((dep) => join(ROOT, dep))], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    tarballs.push(...JSON.parse(r.stdout).map((t) => t.filename));
    assert.equal(tarballs.length, deps.length + 1);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'loadtest-user', private: true }));
    const install = await runCommand('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs.map((t) => `./${t}`)], { cwd: dir, timeoutMs: 60000 });
    assert.equal(install.code, 0, install.stderr);

    const url = `http://127.0.0.1:${server.port}/`;
    const ways = [
      ['npx', ['loadtest', '-n', '20', url]],
      [join(BIN, 'bunx'), ['--bun', 'loadtest', '-n', '20', url]],
      [join(BIN, 'deno'), ['run', '-A', join(dir, 'node_modules', 'loadtest', 'src', 'cli.js'), '-n', '20', url]],
    ];
    const runtimes = ['node', 'bun', 'deno'];
    for (let i = 0; i < ways.length; i++) {
      const before = server.requests;
      const [command, args] = ways[i];
      const { code, stdout, stderr } = await runCommand(command, args, { cwd: dir, timeoutMs: 30000 });
      assert.equal(code, 0, `${command}: ${stderr}`);
      assert.match(stdout, /Completed requests:\s+20\n/);
      assert.match(stdout, new RegExp(`Runtime:\\s+${runtimes[i]} `));
      assert.equal(server.requests - before, 20, command);
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
