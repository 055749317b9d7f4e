// A stand-in for kubectl, for test/distribute.test.js: `apply -f -` of loadtest's Indexed Job
// runs its pods as local processes (JOB_COMPLETION_INDEX 0 to n - 1, the Job's args given to
// FAKE_KUBE_CLI), `get pods` and `logs` report them, `delete job` stops them. State in FAKE_KUBE_DIR.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';

const proc = globalThis.process;
const dir = proc.env.FAKE_KUBE_DIR;
const args = proc.argv.slice(2);
appendFileSync(join(dir, 'calls'), args.join(' ') + '\n');
const pods = () => (existsSync(join(dir, 'pods.json')) ? JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8')) : []);

if (args[0] === 'version') {
  console.log('{}');
} else if (args[0] === 'apply') {
  const manifest = readFileSync(0, 'utf8');
  writeFileSync(join(dir, 'manifest.yaml'), manifest);
  const name = /metadata:\n  name: (\S+)/.exec(manifest)[1];
  const n = Number(/completions: (\d+)/.exec(manifest)[1]);
  const jobArgs = JSON.parse(/^ {10}args: (.*)$/m.exec(manifest)[1]);
  const list = [];
  for (let i = 0; i < n; i++) {
    const log = join(dir, `pod-${i}.log`);
    const exit = join(dir, `pod-${i}.exit`);
    // A pod's log holds both of its container's streams, as kubectl logs shows them.
    const child = spawn('sh', ['-c', `"$0" "$@" > "${log}" 2>&1; echo $? > "${exit}"`, proc.execPath, proc.env.FAKE_KUBE_CLI, ...jobArgs], {
      env: { ...proc.env, JOB_COMPLETION_INDEX: String(i), LOADTEST_SHARDS: String(n) },
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
    list.push({ pod: `${name}-${i}-abcde`, index: i, pid: child.pid, log, exit });
  }
  writeFileSync(join(dir, 'pods.json'), JSON.stringify(list));
  console.log(`job.batch/${name} created`);
} else if (args[0] === 'get' && args[1] === 'pods') {
  for (const p of pods()) {
    const code = existsSync(p.exit) ? readFileSync(p.exit, 'utf8').trim() : '';
    const phase = code === '' ? 'Running' : code === '0' ? 'Succeeded' : 'Failed';
    proc.stdout.write(`${p.pod}\t${p.index}\t${phase}\n`);
  }
} else if (args[0] === 'logs') {
  const p = pods().find((x) => x.pod === args[1]);
  proc.stdout.write(p && existsSync(p.log) ? readFileSync(p.log, 'utf8') : '');
} else if (args[0] === 'delete') {
  for (const p of pods()) {
    try {
      proc.kill(-p.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  writeFileSync(join(dir, 'deleted'), args.join(' '));
  console.log(`job.batch "${args[2]}" deleted`);
} else {
  console.error(`fake kubectl: ${args.join(' ')}?`);
  proc.exit(1);
}
