// --on swarm|kubernetes --shards N: the coordinator's flags and what it hands each shard; a
// Kubernetes Job (printed, and run through a stand-in kubectl that runs its pods here); and a real
// Docker Swarm run of 3 shards where dockerd runs in a swarm. Every count is the server's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, existsSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rawServer, spawnScript, startScript, until, ok } from './servers.js';
import { distributeFlags, wantsDistribution } from '../src/distribute/flags.js';
import { jobManifest } from '../src/distribute/kubernetes.js';
import { serviceArgs, taskStates } from '../src/distribute/swarm.js';
import { resultIn, tailOf } from '../src/distribute/logs.js';
import { shardFromEnv } from '../src/run/options.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const FAKE_KUBECTL = fileURLToPath(new URL('./fake-kubectl.js', import.meta.url));

test('the coordinator takes its flags out and refuses what the shards cannot share, one line each', () => {
  const plan = distributeFlags(['--on', 'swarm', '--shards=3', '-n', '300', '--json-file', 'm.json', '--threshold', 'p99<50ms', '-k', 'http://127.0.0.1:1/']);
  assert.equal(plan.on, 'swarm');
  assert.equal(plan.shards, 3);
  assert.equal(plan.startInSeconds, 5);
  assert.deepEqual(plan.rest, ['-n', '300', '-k', 'http://127.0.0.1:1/']);
  assert.equal(plan.output.jsonFile, 'm.json');
  assert.deepEqual(plan.thresholds, ['p99<50ms']);
  assert.ok(wantsDistribution(['-n', '1', '--shards', '2']) && !wantsDistribution(['--shard', '1/2']));
  const said = (argv) => {
    try {
      distributeFlags(argv);
    } catch (err) {
      return err.message;
    }
    return null;
  };
  assert.throws(() => distributeFlags(['--shards', '3']));
  assert.equal(said(['--shards', '3', 'u']), '--shards needs --on swarm or --on kubernetes');
  assert.equal(said(['--on', 'swarm', 'u']), '--on swarm needs --shards N');
  assert.equal(said(['--on', 'nomad', '--shards', '2']), "--on 'nomad': swarm or kubernetes");
  assert.equal(said(['--on', 'swarm', '--shards', '0']), "--shards '0': a whole number from 1 to 1000");
  assert.equal(said(['--on', 'swarm', '--shards', '2', '--runtime', 'java']), "--runtime 'java': node, bun or deno");
  assert.match(said(['--on', 'swarm', '--shards', '2', '--shard', '1/2']), /^--shard is not for --on/);
  assert.match(said(['--on', 'swarm', '--shards', '2', '--dashboard', '8080']), /^--dashboard is not for --on: the shards would all serve it/);
  assert.match(said(['--on', 'swarm', '--shards', '2', '--dry-run']), /--dry-run prints a Kubernetes Job/);
});

test('a shard finds its share in the environment: a Swarm task slot, or a Kubernetes completion index', () => {
  const env = (vars) => (name) => vars[name];
  assert.equal(shardFromEnv(env({ LOADTEST_SHARD: '2/3' })), '2/3');
  assert.equal(shardFromEnv(env({ JOB_COMPLETION_INDEX: '0', LOADTEST_SHARDS: '3' })), '1/3');
  assert.throws(() => shardFromEnv(env({})), /no LOADTEST_SHARD/);
});

test('the Swarm service, the task list, and a result among the lines of a log', () => {
  const args = serviceArgs({ name: 'lt', shards: 3, image: 'img', command: ['/usr/bin/node', 'cli.js', '-n', '3'], workdir: '/w', env: { HOME: '/tmp' } });
  assert.deepEqual(args.slice(0, 10), ['service', 'create', '--name', 'lt', '--replicas', '3', '--restart-condition', 'none', '--network', 'host']);
  assert.ok(args.includes('LOADTEST_SHARD={{.Task.Slot}}/3'));
  assert.ok(args.includes('type=bind,source=/w,target=/w,readonly'));
  assert.deepEqual(args.slice(-5), ['img', '/usr/bin/node', 'cli.js', '-n', '3']);
  const tasks = taskStates('b\tlt.2\tRunning 2 seconds ago\t\na\tlt.1\tFailed 1 second ago\t"task: non-zero exit (2)"\n', 'lt');
  assert.deepEqual(tasks.map((t) => [t.slot, t.state, t.ended, t.error]), [
    [1, 'failed', true, 'task: non-zero exit (2)'],
    [2, 'running', false, ''],
  ]);
  const log = 'warning: something\n{"url":"http://x/","shard":"1/3","totalRequests":5}\nlast words\n';
  assert.deepEqual(resultIn(log, (d) => d.shard !== undefined), { url: 'http://x/', shard: '1/3', totalRequests: 5 });
  assert.equal(resultIn('{"not":"it"}\n', (d) => d.shard !== undefined), null);
  assert.equal(tailOf('a\nb\n{"x":1}\nc\nd\n'), 'b | c | d');
});

test('--on kubernetes --dry-run prints an Indexed Job of N completions, all at once, and nothing else', async () => {
  const r = await spawnScript(CLI, ['--on', 'kubernetes', '--shards', '3', '--dry-run', '--image', 'registry.example/loadtest:9', '-n', '3000', '-c', '6', '-k', 'http://127.0.0.1:7357/'], { timeoutMs: 30000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const yaml = r.stdout;
  assert.match(yaml, /^apiVersion: batch\/v1\nkind: Job\n/m);
  assert.match(yaml, /^ {2}completionMode: Indexed$/m);
  assert.match(yaml, /^ {2}completions: 3$/m);
  assert.match(yaml, /^ {2}parallelism: 3$/m);
  assert.match(yaml, /^ {2}backoffLimit: 0$/m);
  assert.match(yaml, /^ {6}restartPolicy: Never$/m);
  assert.match(yaml, /^ {10}image: "registry\.example\/loadtest:9"$/m);
  const args = JSON.parse(/^ {10}args: (.*)$/m.exec(yaml)[1]);
  assert.deepEqual(args.slice(0, 6), ['-n', '3000', '-c', '6', '-k', 'http://127.0.0.1:7357/']);
  assert.deepEqual(args.slice(6, 8), ['--shard', 'env']);
  assert.ok(Number(args[args.indexOf('--start-at') + 1]) > Date.now());
  assert.equal(args[args.length - 1], '--json');
  assert.match(yaml, /- name: LOADTEST_SHARDS\n {14}value: "3"/);
  // The manifest a scripted run's Job holds starts with the word run and ends with the script.
  assert.match(jobManifest({ name: 'x', shards: 2, image: 'i', args: ['run', 'a.js'] }), /args: \["run", "a\.js"\]/);
});

test('bad input before anything starts: --shards alone, a bad URL, docker missing or not in a swarm; one line, exit 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-distribute-'));
  try {
    const line = async (args, env = {}) => {
      const r = await spawnScript(CLI, args, { timeoutMs: 30000, env });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      return r.stderr.trim();
    };
    assert.equal(await line(['--shards', '3', '-n', '3', 'http://127.0.0.1:1/']), 'loadtest: --shards needs --on swarm or --on kubernetes');
    assert.equal(await line(['--on', 'swarm', '--shards', '2', '-n', '3', 'htp://x']), "loadtest: invalid URL 'htp://x': must start with http://, https://, ws://, wss://, grpc:// or grpcs://");
    assert.match(await line(['run', '--on', 'swarm', '--shards', '2', '--vus', 'x', 'a.js']), /^loadtest run: /);
    // No docker on PATH, then one that says its node is in no swarm.
    assert.match(await line(['--on', 'swarm', '--shards', '2', '-n', '3', 'http://127.0.0.1:1/'], { PATH: dir }), /^loadtest: --on swarm: docker not found/);
    writeFileSync(join(dir, 'docker'), '#!/bin/sh\necho inactive\n');
    chmodSync(join(dir, 'docker'), 0o755);
    assert.equal(
      await line(['--on', 'swarm', '--shards', '2', '-n', '3', 'http://127.0.0.1:1/'], { PATH: dir }),
      'loadtest: --on swarm: this Docker is not in a swarm (inactive): run docker swarm init (one machine: docker swarm init --advertise-addr 127.0.0.1)',
    );
    assert.match(await line(['--on', 'kubernetes', '--shards', '2', '--image', 'i', '-n', '3', 'http://127.0.0.1:1/'], { PATH: dir }), /^loadtest: --on kubernetes: kubectl not found/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--on kubernetes runs the Job (a stand-in kubectl runs its pods here), merges their logs exactly, deletes the Job', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-kube-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    writeFileSync(join(dir, 'kubectl'), `#!/bin/sh\nexec node "${FAKE_KUBECTL}" "$@"\n`);
    chmodSync(join(dir, 'kubectl'), 0o755);
    const env = { PATH: `${dir}:${globalThis.process.env.PATH}`, FAKE_KUBE_DIR: dir, FAKE_KUBE_CLI: CLI };
    const out = join(dir, 'm.json');
    const r = await spawnScript(CLI, ['--on', 'kubernetes', '--shards', '3', '--image', 'registry.example/loadtest:9', '--start-in', '1', '-n', '300', '-c', '6', '-k', '--json-file', out, server.url], { timeoutMs: 60000, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests, 300);
    const merged = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(merged.totalRequests, 300);
    assert.deepEqual(merged.shards, { on: 'kubernetes', count: 3, merged: [1, 2, 3], missing: [] });
    for (let i = 1; i <= 3; i++) assert.match(r.stderr, new RegExp(`shard ${i}/3: 100 requests, 0 errors`));
    assert.match(r.stdout, /Completed requests: +300/);
    assert.ok(existsSync(join(dir, 'deleted')), 'the Job is deleted');
    assert.match(readFileSync(join(dir, 'calls'), 'utf8'), /^delete job loadtest-\S+ --wait=false$/m);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// A real swarm: dockerd running and in a swarm (.ci/run sets one up: docker swarm init
// --advertise-addr 127.0.0.1); otherwise skipped, saying why.
function swarmState() {
  try {
    return execFileSync('docker', ['info', '--format', '{{.Swarm.LocalNodeState}}'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 20000 }).trim();
  } catch (err) {
    return err.code === 'ENOENT' ? 'no docker' : 'dockerd not answering';
  }
}
const swarm = swarmState();

test('--on swarm --shards 3: the server counts exactly the merged result\'s requests; the service is gone after', { skip: swarm !== 'active' && `docker swarm: ${swarm}`, timeout: 180000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-swarm-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const out = join(dir, 'm.json');
    const r = await spawnScript(CLI, ['--on', 'swarm', '--shards', '3', '--start-in', '3', '-n', '300', '-c', '6', '-k', '--json-file', out, server.url], { timeoutMs: 170000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests, 300);
    const merged = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(merged.totalRequests, 300);
    assert.deepEqual(merged.shards, { on: 'swarm', count: 3, merged: [1, 2, 3], missing: [] });
    const service = /as swarm service (\S+)/.exec(r.stderr)[1];
    assert.equal(execFileSync('docker', ['service', 'ls', '-q', '--filter', `name=${service}`], { encoding: 'utf8' }).trim(), '');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('loadtest run --on swarm --shards 3: a k6 script\'s shared iterations made exactly once in all, k6\'s summary of the whole', { skip: swarm !== 'active' && `docker swarm: ${swarm}`, timeout: 180000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadtest-swarm-script-'));
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    writeFileSync(
      join(dir, 'test.js'),
      `import http from 'k6/http';
import { check } from 'k6';
export const options = { scenarios: { s: { executor: 'shared-iterations', vus: 5, iterations: 61 } }, thresholds: { checks: ['rate==1'] } };
export default function () { check(http.get(__ENV.URL), { ok: (r) => r.status === 200 }); }
`,
    );
    // Run from the script's folder: the shards find it there (the folder is mounted as it is here).
    const r = await spawnScript(CLI, ['run', '--on', 'swarm', '--shards', '3', '--start-in', '3', '-e', `URL=${server.url}`, 'test.js'], { timeoutMs: 170000, cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests, 61);
    assert.match(r.stdout, /http_reqs\.+: 61 /);
    assert.match(r.stdout, /checks_succeeded\.+: 100\.00% +61 out of 61\n/);
    for (let i = 1; i <= 3; i++) assert.match(r.stderr, new RegExp(`shard ${i}/3: \\d+ requests, 0 errors`));
    assert.deepEqual(readdirSync(dir), ['test.js'], 'the shards\' transformed modules are gone');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--on swarm, Ctrl-C: the service is removed, exit 130', { skip: swarm !== 'active' && `docker swarm: ${swarm}`, timeout: 180000 }, async () => {
  const server = await rawServer(({ socket }) => socket.write(ok()));
  try {
    const { child, done } = startScript(CLI, ['--on', 'swarm', '--shards', '2', '--start-in', '1', '-t', '60', '-c', '2', '-k', server.url], { timeoutMs: 170000 });
    // Once the service is there and its shards are sending.
    let said = '';
    child.stderr.on('data', (text) => (said += text));
    assert.ok(await until(() => said.includes('as swarm service') && server.requests > 0, 120000), said);
    globalThis.process.kill(child.pid, 'SIGINT');
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    const service = /as swarm service (\S+)/.exec(r.stderr)[1];
    assert.equal(execFileSync('docker', ['service', 'ls', '-q', '--filter', `name=${service}`], { encoding: 'utf8' }).trim(), '');
  } finally {
    await server.close();
  }
});
