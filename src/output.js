// Where a result goes at the end of a command: the text report or one JSON document on stdout
// (--json), and files beside it: the JSON (--json-file) and an HdrHistogram interval log with one
// histogram per second of the series (--hdr-log).

import { writeFile } from '../runtimes/index.js';
import { secondHistogram } from './series.js';
import { VERSION } from './version.js';

/** output: { json, jsonFile, hdrLog }; report: false leaves the text report out. */
export async function writeOutputs(result, output = {}, { color = false, report = true } = {}) {
  if (output.jsonFile) await save(output.jsonFile, JSON.stringify(result) + '\n', '--json-file');
  if (output.hdrLog) await save(output.hdrLog, await hdrLog(result), '--hdr-log');
  if (output.json) console.log(JSON.stringify(result));
  else if (report) result.show(color);
}

async function hdrLog(result) {
  // Loaded only when asked for: it brings the reference encoder (hdr-histogram-js).
  const { hdrLogText } = await import('./hdr-log.js');
  let at = 0;
  const intervals = result.series.map((entry) => {
    const interval = { startMs: at, endMs: at + entry.durationMs, histogram: secondHistogram(entry) };
    at = interval.endMs;
    return interval;
  });
  return hdrLogText({ startTimeMs: result.startTime, intervals, comment: `Logged with loadtest ${VERSION}: ${result.url}` });
}

async function save(path, text, flag) {
  try {
    await writeFile(path, text);
  } catch (err) {
    throw new Error(`${flag}: cannot write '${path}' (${err.code || err.message})`);
  }
}
