// Where a result goes at the end of a command: the text report or one JSON document on stdout
// (--json), and files beside it: the JSON (--json-file), an HdrHistogram interval log with one
// histogram per second of the series (--hdr-log) and a self-contained HTML page (--html).

import { writeFile } from '../../runtimes/index.js';
import { secondHistogram } from '../run/series.js';
import { VERSION } from '../version.js';

/**
 * output: { json, jsonFile, hdrLog, html, command } (command: the arguments, shown on the HTML
 * page); report: false leaves the text report out.
 */
export async function writeOutputs(result, output = {}, { color = false, report = true } = {}) {
  if (output.jsonFile) await save(output.jsonFile, JSON.stringify(result) + '\n', '--json-file');
  if (output.hdrLog) await save(output.hdrLog, await hdrLog(result), '--hdr-log');
  if (output.html) await saveHtml(output.html, JSON.parse(JSON.stringify(result)), output.command);
  if (output.json) console.log(JSON.stringify(result));
  else if (report) result.show(color);
}

async function hdrLog(result) {
  // Loaded only when asked for: it brings the reference encoder (hdr-histogram-js).
  const { hdrLogText } = await import('../results/hdr-log.js');
  let at = 0;
  const intervals = result.series.map((entry) => {
    const interval = { startMs: at, endMs: at + entry.durationMs, histogram: secondHistogram(entry) };
    at = interval.endMs;
    return interval;
  });
  return hdrLogText({ startTimeMs: result.startTime, intervals, comment: `Logged with loadtest ${VERSION}: ${result.url}` });
}

/** Writes the HTML page of a result's (or a sweep's) JSON document to path. */
export async function saveHtml(path, doc, command) {
  // Loaded only when asked for, as the log's encoder.
  const { htmlReport } = await import('../results/html/html-report.js');
  await save(path, htmlReport(doc, { command, generatedAt: Date.now() }), '--html');
}

export async function save(path, text, flag) {
  try {
    await writeFile(path, text);
  } catch (err) {
    throw new Error(`${flag}: cannot write '${path}' (${err.code || err.message})`);
  }
}
