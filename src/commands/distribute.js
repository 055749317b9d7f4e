// `loadtest --on swarm|kubernetes --shards N ...` (and `loadtest run --on ... script.js`): the run
// handed to an orchestrator as N shards (src/distribute/), started together, their results read
// from their logs and merged exactly into one report; nothing is left running.

import { distributeFlags, DistributeError } from '../distribute/flags.js';
import { serviceArgs, psArgs, taskStates } from '../distribute/swarm.js';
import { jobManifest } from '../distribute/kubernetes.js';
import { resultIn, tailOf } from '../distribute/logs.js';
import { mergeResults } from '../results/merge.js';
import { parseThreshold, checkThresholds, failedThresholds } from '../results/thresholds.js';
import { isShardResult, mergeShards } from '../script/shards.js';
import { summaryText, summaryMode } from '../script/summary/summary.js';
import { legacyExport } from '../script/summary/legacy-export.js';
import { machineReadable } from '../script/summary/machine-readable.js';
import { crossedMetrics } from '../script/metrics/thresholds.js';
import { writeOutputs } from './output.js';
import { runCommand, imageContents, findRuntime, runtime, writeText, writeFile, readFile, exit, onInterrupt, wantsColor, cwdPath, tempPath, removeFile, md5Hex, pathOf } from '../../runtimes/index.js';
import { VERSION } from '../version.js';

const CLI = pathOf(new URL('../cli.js', import.meta.url));
const POLL_MS = 500;
const NEVER_STARTED_MS = 60000;

// A shard's result: a load run's (it names its shard) or a script shard's.
const isResult = (d) => d.shard !== undefined || isShardResult(d);
const say = (line) => writeText('stderr', `loadtest: ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `argv`: the command line after `loadtest` (kind 'load') or `loadtest run` (kind 'script');
 * `check(rest)`: throws the one-line error of a shard's command line that would not run.
 */
export async function distributeCommand(argv, { kind, check }) {
  const prefix = kind === 'script' ? 'loadtest run' : 'loadtest';
  const fail = (message, code) => {
    writeText('stderr', `${prefix}: ${message}\n`);
    return exit(code);
  };
  let plan;
  let thresholds;
  let given; // a script's flags, as its shards take them
  try {
    plan = distributeFlags(argv);
    if (kind === 'script' && (plan.output.json || plan.output.hdrLog || plan.thresholds.length)) throw new DistributeError('--json, --hdr-log and --threshold are for load runs: a script has its own thresholds');
    // A shard's result holds no seconds to plot.
    if (kind === 'script' && plan.output.html) throw new DistributeError('--html: not yet for a script run with --on (a scripted run\'s page is made by loadtest run itself)');
    if (kind === 'load' && plan.output.summaryExport) throw new DistributeError('--summary-export is for scripts');
    thresholds = plan.thresholds.map(parseThreshold);
    given = await check(plan.rest);
  } catch (err) {
    return fail(err.message, 2);
  }
  // Each shard's share, start and result (one line of JSON on its stdout).
  const shardArgs = (startAt) =>
    kind === 'script'
      ? ['run', ...plan.rest, '--shard', 'env', '--start-at', String(startAt), '--result', '/dev/stdout', '--summary-mode', 'disabled', '-q']
      : [...plan.rest, '--shard', 'env', '--start-at', String(startAt), '--json'];
  const runtimeName = plan.runtime || runtime.name;
  const name = `loadtest-${Date.now().toString(36)}`;

  if (plan.on === 'kubernetes') {
    const startAt = Date.now() + plan.startInSeconds * 1000;
    const manifest = jobManifest({ name, shards: plan.shards, image: plan.image || `loadtest:${VERSION}-${runtimeName}`, args: shardArgs(startAt) });
    if (plan.dryRun) {
      writeText('stdout', `# loadtest ${VERSION}: ${plan.shards} shards starting at ${new Date(startAt).toISOString()} (--start-at ${startAt}): apply it before then\n${manifest}`);
      return exit(0);
    }
    if (plan.image === null) return fail('--on kubernetes needs --image NAME: an image its nodes can pull (doc/distributed.md), or --dry-run to see the Job', 2);
    return collect(await onKubernetes(name, manifest, plan, fail, startAt), { kind, plan, thresholds, fail, given });
  }
  return collect(await onSwarm(name, shardArgs, runtimeName, plan, fail, kind), { kind, plan, thresholds, fail, given });
}

async function docker(args, input = null) {
  return runCommand('docker', args, { input });
}

const lastLineOf = (r) => (r.stderr || r.stdout).trim().split('\n').pop();

/** Runs the shards as a Swarm service; resolves to [{ slot, doc, failure }] or null after a failure said. */
async function onSwarm(name, shardArgs, runtimeName, plan, fail, kind) {
  const info = await docker(['info', '--format', '{{.Swarm.LocalNodeState}}']);
  if (info.missing) return fail('--on swarm: docker not found (install Docker: apt-get install docker.io)', 2);
  if (info.code !== 0) return fail(`--on swarm: docker does not answer: ${lastLineOf(info)}`, 2);
  const swarm = info.stdout.trim();
  if (swarm !== 'active') return fail(`--on swarm: this Docker is not in a swarm (${swarm}): run docker swarm init (one machine: docker swarm init --advertise-addr 127.0.0.1)`, 2);
  let image = plan.image;
  let runner = []; // the runtime and the CLI, for an image made here (the user's runs loadtest)
  if (image === null) {
    const binary = await findRuntime(runtimeName);
    if (binary === null) return fail(`--runtime ${runtimeName}: not found on PATH nor in node_modules/.bin`, 2);
    let made;
    try {
      made = await localImage(binary, runtimeName);
    } catch (err) {
      return fail(`--on swarm: the image: ${err.message}`, 1);
    }
    image = made.tag;
    runner = [made.binary, ...(runtimeName === 'deno' ? ['run', '-A'] : []), CLI];
  }
  // The start counts from now, the image ready: making it can take longer than the lead.
  const startAt = Date.now() + plan.startInSeconds * 1000;
  const command = [...runner, ...shardArgs(startAt)];
  let created = false;
  const remove = async () => {
    if (created) await docker(['service', 'rm', name]);
    created = false;
  };
  let interrupted = false;
  const removeInterrupt = onInterrupt(async () => {
    interrupted = true;
    await remove();
    exit(130);
  });
  try {
    // A script's shards write its transformed module beside it (runtimes/scripts/load.js).
    const made = await docker(serviceArgs({ name, shards: plan.shards, image, command, workdir: plan.image === null ? cwdPath() : null, writable: kind === 'script', env: { HOME: '/tmp', NO_COLOR: '1' } }));
    if (made.code !== 0) return fail(`--on swarm: docker service create: ${lastLineOf(made)}`, 1);
    created = true;
    say(`${plan.shards} shards as swarm service ${name} (${image}), starting at ${new Date(startAt).toISOString()}`);
    let tasks = [];
    for (;;) {
      const ps = await docker(psArgs(name));
      // Ctrl-C removes the service meanwhile: that is the interrupt's to end (exit 130), not a failure.
      if (ps.code !== 0) return interrupted ? untilExit() : fail(`--on swarm: docker service ps: ${lastLineOf(ps)}`, 1);
      tasks = taskStates(ps.stdout, name);
      if (tasks.length >= plan.shards && tasks.every((t) => t.ended)) break;
      // A task the swarm could not place or start (no node for it, an image it cannot get).
      if (Date.now() > startAt + NEVER_STARTED_MS) {
        const stuck = tasks.filter((t) => !t.ended && t.state !== 'running');
        if (stuck.length) return fail(`--on swarm: shards ${stuck.map((t) => `${t.slot} (${t.state}${t.error ? `: ${t.error}` : ''})`).join(', ')} not started ${NEVER_STARTED_MS / 1000} s after the start`, 1);
      }
      await sleep(POLL_MS);
    }
    const shards = [];
    for (const t of tasks) {
      const logs = await docker(['service', 'logs', '--raw', t.id]);
      const text = logs.stdout + '\n' + logs.stderr;
      const doc = resultIn(text, isResult);
      const failure = doc !== null ? null : `${t.state}${t.error ? ` (${t.error})` : ''}${tailOf(text) ? `: ${tailOf(text)}` : ''}`;
      shards.push({ slot: t.slot, doc, failure });
    }
    return shards;
  } finally {
    await remove();
    removeInterrupt();
  }
}

/** The image of this installation on `binary`, made once (docker import of its files, no base image). */
async function localImage(binary, runtimeName) {
  const contents = await imageContents(binary);
  const tag = `loadtest-local:${runtimeName}-${contents.key}`;
  if ((await docker(['image', 'inspect', '--format', '{{.Id}}', tag])).code === 0) return { tag, binary: contents.binary };
  const list = tempPath('image-list');
  const tar = tempPath('image-tar');
  try {
    await writeFile(list, contents.paths.map((p) => p.slice(1)).join('\n') + '\n');
    // -h: a library's symbolic link goes in as the file it names, at the link's path.
    const packed = await runCommand('tar', ['-C', '/', '-h', '-cf', tar, '-T', list]);
    if (packed.code !== 0) throw new Error(`tar: ${packed.missing ? 'not found' : lastLineOf(packed)}`);
    const imported = await docker(['import', '--change', 'ENV PATH=/usr/local/bin:/usr/bin:/bin', '--message', `loadtest ${VERSION} on ${runtimeName}`, tar, tag]);
    if (imported.code !== 0) throw new Error(`docker import: ${lastLineOf(imported)}`);
    say(`image ${tag} made from this installation`);
  } finally {
    await removeFile(list);
    await removeFile(tar);
  }
  return { tag, binary: contents.binary };
}

// What a poll does once Ctrl-C is removing what it polls: nothing, until the interrupt exits.
const untilExit = () => new Promise(() => {});

async function kubectl(args, input = null) {
  return runCommand('kubectl', args, { input });
}

/** Runs the shards as an Indexed Job; resolves to [{ slot, doc, failure }] or null after a failure said. */
async function onKubernetes(name, manifest, plan, fail, startAt) {
  const version = await kubectl(['version', '--request-timeout=10s', '-o', 'json']);
  if (version.missing) return fail('--on kubernetes: kubectl not found', 2);
  if (version.code !== 0) return fail(`--on kubernetes: kubectl does not answer: ${lastLineOf(version)}`, 2);
  let applied = false;
  const remove = async () => {
    if (applied) await kubectl(['delete', 'job', name, '--wait=false']);
    applied = false;
  };
  let interrupted = false;
  const removeInterrupt = onInterrupt(async () => {
    interrupted = true;
    await remove();
    exit(130);
  });
  try {
    const apply = await kubectl(['apply', '-f', '-'], manifest);
    if (apply.code !== 0) return fail(`--on kubernetes: kubectl apply: ${lastLineOf(apply)}`, 1);
    applied = true;
    say(`${plan.shards} shards as Job ${name} (${plan.image})`);
    let pods = [];
    for (;;) {
      const got = await kubectl(['get', 'pods', '-l', `job-name=${name}`, '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index}{"\\t"}{.status.phase}{"\\n"}{end}']);
      if (got.code !== 0) return interrupted ? untilExit() : fail(`--on kubernetes: kubectl get pods: ${lastLineOf(got)}`, 1);
      pods = got.stdout.split('\n').filter(Boolean).map((l) => {
        const [pod, index, phase] = l.split('\t');
        return { pod, slot: Number(index) + 1, phase, ended: phase === 'Succeeded' || phase === 'Failed' };
      });
      if (pods.length >= plan.shards && pods.every((p) => p.ended)) break;
      // Pods the cluster could not schedule or start (no room, an image it cannot pull).
      if (Date.now() > startAt + NEVER_STARTED_MS * 5) {
        const waiting = pods.filter((p) => p.phase === 'Pending').map((p) => p.slot);
        if (waiting.length || pods.length < plan.shards) return fail(`--on kubernetes: ${waiting.length ? `shards ${waiting.join(', ')} still Pending` : `${pods.length} of ${plan.shards} pods`} ${(NEVER_STARTED_MS * 5) / 1000} s after the start (kubectl describe job ${name})`, 1);
      }
      await sleep(POLL_MS * 2);
    }
    const shards = [];
    for (const p of pods.sort((a, b) => a.slot - b.slot)) {
      const logs = await kubectl(['logs', p.pod]);
      const doc = resultIn(logs.stdout, isResult);
      shards.push({ slot: p.slot, doc, failure: doc !== null ? null : `${p.phase}: ${tailOf(logs.stdout + '\n' + logs.stderr)}` });
    }
    return shards;
  } finally {
    await remove();
    removeInterrupt();
  }
}

/** One report of the shards' results; a line for each shard; the failed and missing named. */
async function collect(shards, { kind, plan, thresholds, fail, given }) {
  if (!Array.isArray(shards)) return undefined; // a failure already said
  const got = shards.filter((s) => s.doc !== null);
  for (const s of shards) if (s.failure !== null) say(`shard ${s.slot}/${plan.shards} failed: ${s.failure}`);
  const missing = [];
  for (let i = 1; i <= plan.shards; i++) if (!got.some((s) => s.slot === i)) missing.push(i);
  if (got.length === 0) return fail(`no shard gave a result (${plan.shards} started)`, 1);
  if (missing.length) say(`shards ${missing.join(', ')} of ${plan.shards} missing: the figures are those of ${got.length}`);
  const names = got.map((s) => `shard ${s.slot}/${plan.shards}`);
  if (kind === 'script') {
    for (const s of got) {
      const reqs = s.doc.metrics.find((m) => m.name === 'http_reqs');
      say(`shard ${s.slot}/${plan.shards}: ${reqs ? reqs.sink.sum : 0} requests, ${s.doc.state.errors} errors, in ${(s.doc.elapsedMs / 1000).toFixed(1)} s`);
    }
    const merged = mergeShards(got.map((s) => s.doc), names, md5Hex);
    const mode = summaryModeOf(plan.rest);
    if (mode !== 'disabled') writeText('stdout', summaryText(merged.data, { state: merged.state, mode, color: wantsColor() }));
    if (plan.output.summaryExport) {
      const exported = given.machineReadable ? machineReadable(merged.data, merged.state, { mode, script: await textOf(given.script) }) : legacyExport(merged.data);
      await writeFile(plan.output.summaryExport, JSON.stringify(exported, null, 2) + '\n');
    }
    const failed = merged.thresholds.filter((t) => !t.ok);
    if (failed.length) return fail(`thresholds on metrics '${crossedMetrics(failed)}' have been crossed`, 99);
    return exit(missing.length ? 1 : 0);
  }
  let result;
  try {
    result = mergeResults(got.map((s) => s.doc), names);
  } catch (err) {
    return fail(err.message, 1);
  }
  for (const s of got) {
    const d = s.doc;
    say(`shard ${s.slot}/${plan.shards}: ${d.totalRequests} requests, ${d.totalErrors} errors, started ${new Date(d.startTime).toISOString()}`);
  }
  // Which shards the figures are of, in the JSON beside the run's own fields.
  result.shards = { on: plan.on, count: plan.shards, merged: got.map((s) => s.slot), missing };
  if (thresholds.length > 0) result.thresholds = checkThresholds(thresholds, result);
  try {
    await writeOutputs(result, { json: plan.output.json, jsonFile: plan.output.jsonFile, hdrLog: plan.output.hdrLog, html: plan.output.html, command: plan.rest }, { color: wantsColor() });
  } catch (err) {
    return fail(err.message, 1);
  }
  const failed = failedThresholds(result.thresholds);
  if (failed) return fail(failed, 3);
  return exit(missing.length ? 1 : 0);
}

// The shards' --summary-mode is the whole run's (each shard itself prints none).
function summaryModeOf(args) {
  let value;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--summary-mode') value = args[++i];
    else if (args[i].startsWith('--summary-mode=')) value = args[i].slice('--summary-mode='.length);
  }
  return summaryMode(value);
}

// The script's text for the new machine-readable summary: the shards ran it from an image, which
// this machine may not have; then the summary has none (the format allows it).
async function textOf(script) {
  try {
    return await readFile(script, 'utf8');
  } catch {
    return undefined;
  }
}
