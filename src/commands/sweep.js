// The command line's side of --sweep: a run per level with its progress, a table row printed as
// each level ends, Ctrl-C, and the outputs (--json, --json-file, --html) of the whole sweep.

import { runLoadTest } from '../index.js';
import { runSweep, sweepDocument, sweepHeader, sweepRow, firstFailing } from '../run/sweep.js';
import { save, saveHtml } from './output.js';
import { startProgress } from '../results/progress.js';
import { exit, onInterrupt, terminal, writeText, envVar, wantsColor } from '../../runtimes/index.js';

/**
 * options: the CLI's loadTest() options with `sweep` (the levels) and `output`. fail(message,
 * code) prints one line and exits; describeFailure(result) says why nothing answered; targetOf()
 * names the server.
 */
export async function sweepCommand(options, { fail, describeFailure, targetOf }) {
  const { output } = options;
  // With --json, stdout holds the document alone: the table goes to stderr, as progress does.
  const print = output.json ? (line) => !options.quiet && console.error(line) : (line) => console.log(line);
  let run = null;
  let interrupted = false;
  let stopProgress = () => {};
  const removeInterrupt = onInterrupt(() => {
    // Ctrl-C: stop this level and skip the rest, keeping what was done; a second one quits.
    if (run && !run.stopping && !interrupted) {
      interrupted = true;
      return run.stop();
    }
    stopProgress();
    exit(130);
  });
  let dead = null;
  let rows = 0;
  let results;
  try {
    results = await runSweep(options, options.sweep, (levelOptions) => runLoadTest(levelOptions, {
      onStart(r) {
        run = r;
        // Progress on stderr, so that stdout is the table alone.
        const io = { terminal, write: writeText, ci: envVar('CI'), color: wantsColor('stderr') };
        stopProgress = startProgress(r, { quiet: options.quiet, stream: 'stderr' }, io);
      },
    }).finally(() => stopProgress()), (result, level) => {
      // The header with the first row: a sweep that fails before it is the error line alone.
      if (rows++ === 0) print(sweepHeader());
      print(sweepRow(result));
      // Nothing answered: higher levels will do no better, and the error line says why.
      if (result.totalRequests > 0 && Object.keys(result.statusCodes).length === 0) dead = `at ${level} connections: ${describeFailure(result)}`;
      else if (result.totalRequests === 0 && result.inFlight > 0) dead = `at ${level} connections: no response from ${targetOf()} before the stop (${result.inFlight} requests in flight)`;
      return !dead && !interrupted;
    });
  } catch (err) {
    return fail(err.message, 2);
  } finally {
    removeInterrupt();
  }
  const failing = firstFailing(results);
  if (failing && !dead) print(failing);
  const doc = sweepDocument(options.sweep, results);
  try {
    if (output.jsonFile) await save(output.jsonFile, JSON.stringify(doc) + '\n', '--json-file');
    if (output.html) await saveHtml(output.html, doc, output.command);
  } catch (err) {
    return fail(err.message, 1);
  }
  if (output.json) console.log(JSON.stringify(doc));
  if (dead) return fail(dead, 1);
  const childErrors = results.flatMap((r) => r.childErrors.map((e) => `at ${r.concurrency} connections: ${e}`));
  if (childErrors.length > 0) return fail(childErrors[0] + (childErrors.length > 1 ? ` (and ${childErrors.length - 1} more)` : ''), 1);
  exit(0);
}
