// `loadtest merge a.json b.json ... [--json] [--json-file F] [--hdr-log F] [--html F]`: one report from the
// results of several processes or machines (each written with --json or --json-file); or, from
// the shards of a scripted run (each written by loadtest run --shard I/N --result F), k6's
// summary of the whole run, its thresholds and exit code.

import mri from 'mri';
import { mergeResults } from '../results/merge.js';
import { writeOutputs } from './output.js';
import { parseThreshold, checkThresholds, failedThresholds } from '../results/thresholds.js';
import { readFile, writeFile, writeText, exit, wantsColor, md5Hex } from '../../runtimes/index.js';
import { isShardResult, mergeShards } from '../script/shards.js';
import { summaryText, summaryMode } from '../script/summary/summary.js';
import { legacyExport } from '../script/summary/legacy-export.js';
import { machineReadable } from '../script/summary/machine-readable.js';
import { crossedMetrics } from '../script/metrics/thresholds.js';
import { EXIT } from '../script/runner.js';

const USAGE = 'usage: loadtest merge RESULT.json ... [--json] [--json-file F] [--hdr-log F] [--html F] [--threshold T ...], or SHARD.json ... [--summary-export F [--new-machine-readable-summary]] [--summary-mode M] (loadtest run --shard --result)';

function fail(message, code) {
  console.error(`loadtest merge: ${message}`);
  exit(code);
}

export async function mergeCommand(argv) {
  let unknown = null;
  const args = mri(argv, {
    boolean: ['json', 'help', 'new-machine-readable-summary'],
    string: ['json-file', 'hdr-log', 'html', 'threshold', 'summary-export', 'summary-mode'],
    alias: { help: 'h', json: [], 'json-file': [], 'hdr-log': [], html: [], threshold: [], 'summary-export': [], 'summary-mode': [], 'new-machine-readable-summary': [] },
    unknown: (flag) => (unknown = unknown || flag),
  });
  if (args.help) {
    console.log(USAGE);
    return exit(0);
  }
  if (unknown) return fail(`unknown option '${unknown}' (${USAGE})`, 2);
  const files = args._.map(String);
  if (files.length === 0) return fail(`no result files (${USAGE})`, 2);
  for (const name of ['json-file', 'hdr-log', 'html']) if (args[name] === '') return fail(`option --${name} needs a file name`, 2);
  // Checked before any file is read: the thresholds of a multi-machine run, for its CI job.
  const thresholds = [];
  for (const text of args.threshold === undefined ? [] : [].concat(args.threshold)) {
    if (text === '') return fail('option --threshold needs a value, e.g. --threshold p99<50ms', 2);
    try {
      thresholds.push(parseThreshold(text));
    } catch (err) {
      return fail(err.message, 2);
    }
  }
  const docs = [];
  for (const file of files) {
    let text;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      return fail(`cannot read '${file}' (${err.code || err.message})`, 2);
    }
    try {
      docs.push(JSON.parse(text));
    } catch (err) {
      return fail(`'${file}' is not JSON (${err.message})`, 2);
    }
  }
  const shards = docs.filter(isShardResult).length;
  if (shards > 0) {
    if (shards < docs.length) return fail(`${files[docs.findIndex((d) => !isShardResult(d))]} is a load run's result, the others a script's shards: merge one kind at a time`, 2);
    return mergeScript(docs, files, args);
  }
  for (const flag of ['summary-export', 'summary-mode', 'new-machine-readable-summary']) if (args[flag] !== undefined) return fail(`--${flag} is for the shards of a scripted run (loadtest run --shard I/N --result F)`, 2);
  let result;
  try {
    result = mergeResults(docs, files);
  } catch (err) {
    return fail(err.message, 2);
  }
  if (thresholds.length > 0) result.thresholds = checkThresholds(thresholds, result);
  if (result.startSpreadMs > 1000) {
    console.error(`loadtest merge: warning: the results started ${(result.startSpreadMs / 1000).toFixed(1)} s apart; their per-second series are added by second from each one's start (use --start-at)`);
  }
  try {
    const output = { json: args.json, jsonFile: args['json-file'], hdrLog: args['hdr-log'], html: args.html, command: ['merge', ...argv] };
    await writeOutputs(result, output, { color: wantsColor() });
  } catch (err) {
    return fail(err.message, 1);
  }
  const failed = failedThresholds(result.thresholds);
  if (failed) return fail(failed, 3);
  exit(0);
}

// The shards of a scripted run: k6's summary of the whole, and k6's exit code for its thresholds.
async function mergeScript(docs, files, args) {
  for (const flag of ['json', 'json-file', 'hdr-log', 'html', 'threshold']) {
    if (args[flag] !== undefined && args[flag] !== false) return fail(`--${flag} is for load runs' results; a script's thresholds are its options'`, 2);
  }
  let merged;
  try {
    merged = mergeShards(docs, files, md5Hex);
  } catch (err) {
    return fail(err.message, 2);
  }
  if (merged.missing.length) console.error(`loadtest merge: warning: shards ${merged.missing.join(', ')} missing: the figures are those of ${docs.length} of ${docs.length + merged.missing.length}`);
  let mode;
  try {
    mode = summaryMode(args['summary-mode']);
  } catch (err) {
    return fail(err.message, 2);
  }
  const newShape = args['new-machine-readable-summary'] === true;
  if (newShape && !args['summary-export']) return fail('--new-machine-readable-summary is the shape of --summary-export: give that too', 2);
  if (newShape && mode === 'legacy') return fail('--new-machine-readable-summary is not for --summary-mode=legacy (k6 v2 has no legacy mode)', 2);
  if (mode !== 'disabled') writeText('stdout', summaryText(merged.data, { state: merged.state, mode, color: wantsColor() }));
  if (args['summary-export']) {
    // The shards' results hold no script: the new shape's config.script is left out (it may be).
    const exported = newShape ? machineReadable(merged.data, merged.state, { mode }) : legacyExport(merged.data);
    await writeFile(args['summary-export'], JSON.stringify(exported, null, 2) + '\n');
  }
  const failed = merged.thresholds.filter((t) => !t.ok);
  if (failed.length) {
    console.error(`loadtest merge: thresholds on metrics '${crossedMetrics(failed)}' have been crossed`);
    return exit(EXIT.thresholds);
  }
  exit(0);
}
