// `loadtest compare ...`: servers or clients (or both) side by side, in interleaved rounds, with
// Welch's t-test against a baseline. The plan comes from src/compare/args.js, the rounds run in
// src/compare/rounds.js, the tables from src/compare/report.js.

import { parseCompareArgs, COMPARE_HELP, UsageError } from './args.js';
import { createRounds, CompareError } from './rounds.js';
import { summarize, formatTables, formatLevels, kneesOf, compareCsv } from './report.js';
import { compareHtml } from './html.js';
import { compareMarkdown } from './markdown.js';
import { VERSION } from '../version.js';
import { exit, onInterrupt, availableCores, machine, runtime, terminal, writeText, writeFile, pathOf, readFile, tempPath, removeFile } from '../../runtimes/index.js';
import * as processes from '../../runtimes/processes/groups.js';

function fail(message, code) {
  if (terminal('stderr').isTTY) writeText('stderr', '\r\x1b[K');
  console.error(`loadtest compare: ${message}`);
  exit(code);
}

// One status line: redrawn in place on a terminal, one line each otherwise.
function statusLine(plan) {
  const tty = terminal('stderr').isTTY;
  const total = plan.candidates.length;
  const show = (round, index, name, what) => {
    const where = round === 0 ? `${name}:` : `round ${round}/${plan.rounds}, ${name} (${index + 1}/${total}):`;
    if (tty) writeText('stderr', `\r\x1b[K${where} ${what}`);
    else writeText('stderr', `${where} ${what}\n`);
  };
  show.clear = () => tty && writeText('stderr', '\r\x1b[K');
  return show;
}

async function save(path, text, flag) {
  try {
    await writeFile(path, text);
  } catch (err) {
    throw new Error(`${flag}: cannot write '${path}' (${err.code || err.message})`);
  }
}

export async function compareCommand(argv) {
  let plan;
  let runtimes;
  try {
    plan = parseCompareArgs(argv, { cores: availableCores(), here: runtime.name });
    if (plan.help) {
      console.log(COMPARE_HELP);
      return exit(0);
    }
    runtimes = findRuntimes(plan);
  } catch (err) {
    return fail(err.message, err instanceof UsageError ? 2 : 1);
  }
  const names = plan.candidates.map((c) => c.name);
  printHeading(plan, names, runtimes);
  const status = statusLine(plan);
  const outcome = await runRounds(plan, runtimes, status);
  if (outcome === null) return;
  status.clear();
  const report = printReport(plan, names, outcome);
  const doc = compareDoc(plan, runtimes, outcome, report);
  try {
    await writeOutputs(plan, names, doc);
  } catch (err) {
    return fail(err.message, 1);
  }
  exit(outcome.interrupted ? 130 : 0);
}

/** Every runtime the plan runs a client or a built-in server on: name -> its executable. */
function findRuntimes(plan) {
  const runtimes = {};
  const needed = new Set(plan.candidates.map((c) => c.client.runtime));
  for (const c of plan.candidates) if (c.server && c.server.builtin) needed.add(c.server.builtin);
  if (plan.sharedServer && plan.sharedServer.builtin) needed.add(plan.sharedServer.builtin);
  for (const name of needed) runtimes[name] = processes.findRuntime(name);
  return runtimes;
}

function printHeading(plan, names, runtimes) {
  const pinned = plan.serverCpus === null ? 'not pinned' : !processes.taskset() ? 'not pinned (no taskset)' : `server on core ${plan.serverCpus}, client on ${plan.clientCpus || 'the same'}`;
  const workload = plan.script !== null ? `the script ${plan.script}` : plan.loadArgs.join(' ');
  console.log(`loadtest ${VERSION} compare: ${names.join(', ')}; ${plan.rounds} rounds, ${workload}, warm-up ${plan.warmup} s; ${pinned}`);
  console.log(`runtimes: ${Object.values(runtimes).map((r) => `${r.name} ${r.version} (${r.path})`).join(', ')}`);
}

/** The rounds' { records, interrupted }, or null once a failure has been told and exit called. */
async function runRounds(plan, runtimes, status) {
  const deps = {
    ...processes,
    runtimes,
    cliPath: pathOf(new URL('../cli.js', import.meta.url)),
    // --script: where a run's summary export goes and is read back from.
    tempPath,
    readText: (path) => readFile(path, 'utf8'),
    removeFile,
    testserverPath: pathOf(new URL('../commands/testserver.js', import.meta.url)),
  };
  const rounds = createRounds(plan, deps, status);
  let interrupts = 0;
  const removeInterrupt = onInterrupt(() => {
    // Ctrl-C: stop every process and report the rounds done; a second one quits at once.
    if (interrupts++ > 0) return exit(130);
    rounds.interrupt();
  });
  let outcome;
  try {
    outcome = await rounds.run();
  } catch (err) {
    removeInterrupt();
    fail(err instanceof CompareError ? err.message : `${err.message}`, 1);
    return null;
  }
  removeInterrupt();
  return outcome;
}

/** Prints the tables of the rounds done; returns their { summary, byLevel, knees }. */
function printReport(plan, names, { records, interrupted }) {
  const roundsDone = Math.max(0, ...records.map((r) => r.round));
  if (interrupted) console.log(`interrupted: ${records.length} runs in ${roundsDone} rounds done`);
  const levels = plan.levels;
  // Without levels, one summary of every round; with them, one a level, and each candidate's knee.
  const summary = levels ? null : summarize(records, names, plan.baseline);
  const done = levels ? levels.values.filter((level) => records.some((r) => r.level === level)) : [];
  const byLevel = levels ? done.map((level) => ({ level, summary: summarize(records.filter((r) => r.level === level), names, plan.baseline) })) : null;
  const knees = kneesOf(records, names, levels, plan.slo);
  if (records.length > 0) {
    const how = { rounds: interrupted ? roundsDone : plan.rounds, label: interrupted ? ', the last one perhaps partial' : '' };
    console.log('');
    console.log(levels ? formatLevels(byLevel, levels, plan.baseline, { ...how, knees, slo: plan.slo }) : formatTables(summary, plan.baseline, how));
  }
  return { summary, byLevel, knees };
}

/** The --json document, which --html and the Markdown are drawn from. */
function compareDoc(plan, runtimes, { records, interrupted }, { summary, byLevel, knees }) {
  return {
    loadtest: VERSION,
    date: new Date().toISOString(),
    url: plan.url,
    loadArgs: plan.loadArgs,
    rounds: plan.rounds,
    warmup: plan.warmup,
    serverCpus: plan.serverCpus,
    clientCpus: plan.clientCpus,
    baseline: plan.baseline,
    interrupted,
    runtimes: Object.values(runtimes).map(({ name, version, path }) => ({ name, version, path })),
    candidates: plan.candidates.map((c) => ({
      name: c.name,
      server: c.server ? c.server.command || `builtin ${c.server.builtin}` : plan.sharedServer ? `shared: ${plan.sharedServer.command || `builtin ${plan.sharedServer.builtin}`}` : null,
      client: c.client.socket ? `${c.client.runtime}/${c.client.socket}` : c.client.runtime,
    })),
    machine: machine(),
    levels: plan.levels,
    slo: plan.slo,
    records,
    summary,
    byLevel,
    knees,
  };
}

/** --json, --csv, --html, --md and --markdown. */
async function writeOutputs(plan, names, doc) {
  const { levels, records } = doc;
  if (plan.jsonFile) await save(plan.jsonFile, JSON.stringify(doc, null, 2) + '\n', '--json');
  // compare.R compares rows of one configuration: a level is one (its flag after the load flags).
  const configuration = levels ? (r) => `${plan.loadArgs.join(' ')} ${levels.kind === 'rps' ? '--rps' : '-c'} ${r.level}` : plan.script !== null ? `--script ${plan.script}` : plan.loadArgs.join(' ');
  if (plan.csvFile) await save(plan.csvFile, compareCsv(records, names, plan.baseline, configuration), '--csv');
  if (plan.htmlFile) await save(plan.htmlFile, compareHtml(doc), '--html');
  const markdown = plan.markdown || plan.mdFile ? compareMarkdown(doc) : null;
  if (plan.mdFile) await save(plan.mdFile, markdown, '--md');
  if (plan.markdown && records.length > 0) console.log('\n' + markdown);
}
