// Progress while a run goes: a live line on a terminal, loadtest 8's text line every 5 s when the
// output is a pipe or a file (scripts read those), nothing with --quiet. The line is built from
// snapshots alone, so that it is tested without a terminal.

import pc from 'picocolors';

const TICK_MS = 250;
// The rate is taken over about this long: long enough to be steady, short enough to show a stall.
const RATE_WINDOW_MS = 1000;
const LINES_MS = 5000;
const BAR_MAX = 30;
const BAR_MIN = 10;
const DEFAULT_WIDTH = 80;
// Columns left free at the end: on Ctrl-C the terminal echoes "^C" after the line, and had it
// wrapped, the erase before the report would clear only its last row.
const SPARE = 3;

/** Back to the start of the line and erase it: what comes next starts on a clean line. */
export const CLEAR = '\r\x1b[2K';

/**
 * 'live', 'lines' or 'none'. A live line needs a terminal: written to a pipe or a file, or in CI
 * (whose logs keep every \r), it would be garbage; there the periodic lines stay.
 */
export function progressMode({ quiet, isTTY, ci }) {
  if (quiet) return 'none';
  return isTTY && !ci ? 'live' : 'lines';
}

/** Share of the run done, 0 to 1, or null when its end is unknown; with -n and -t, the further along. */
export function fractionDone(s, { maxRequests, maxSeconds }) {
  let fraction = null;
  if (maxRequests) fraction = (s.completed + s.failed) / maxRequests;
  if (maxSeconds) fraction = Math.max(fraction ?? 0, s.elapsedMs / (maxSeconds * 1000));
  return fraction === null ? null : Math.min(1, Math.max(0, fraction));
}

/** Requests ended per second between two snapshots, or null when no time passed between them. */
export function currentRate(before, now) {
  const ms = now.elapsedMs - before.elapsedMs;
  if (!(ms > 0)) return null;
  return ((now.completed + now.failed - before.completed - before.failed) * 1000) / ms;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const millis = (ms) => `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms)} ms`;

/**
 * The live line: `now` and `before` are run snapshots ({ sent, completed, failed, elapsedMs,
 * p99Ms }), `before` about a second older (for the current rate); limits: { maxRequests,
 * maxSeconds }. It fits in `width - SPARE` columns: the bar goes first, then the less telling
 * counters.
 */
export function progressLine(now, before, limits, width = DEFAULT_WIDTH, color = false) {
  const c = pc.createColors(color);
  const fraction = fractionDone(now, limits);
  const byTime = limits.maxSeconds && fraction === Math.min(1, now.elapsedMs / (limits.maxSeconds * 1000));
  let total = '';
  if (byTime) total = ` / ${seconds(limits.maxSeconds * 1000)}`;
  // With -n alone the end is the rate's guess.
  else if (fraction > 0) total = ` / ~${seconds(now.elapsedMs / fraction)}`;
  const rate = currentRate(before, now);
  // [name, plain text, painter]; names in the order in which they go when space runs out.
  const parts = [
    ['time', seconds(now.elapsedMs) + total, c.dim],
    ['bar', null, c.cyan],
    ['sent', `sent ${now.sent}`, String],
    ['done', `done ${now.completed + now.failed}`, String],
    ['rate', `${rate === null ? '-' : Math.round(rate)} req/s`, c.bold],
    ['errors', `errors ${now.failed}`, now.failed ? c.red : String],
  ];
  if (now.p99Ms !== null && now.p99Ms !== undefined) parts.push(['p99', `p99 ${millis(now.p99Ms)}`, c.yellow]);
  if (fraction === null) parts.splice(1, 1);
  const room = Math.max(1, (width || DEFAULT_WIDTH) - SPARE);
  const SEP = '  ';
  const length = (list) => list.reduce((sum, [, text]) => sum + (text ? text.length : 0) + SEP.length, -SEP.length);
  const bar = parts.find(([name]) => name === 'bar');
  if (bar) {
    const percent = ` ${Math.floor(fraction * 100)}%`.padStart(5);
    const cells = Math.min(BAR_MAX, room - length(parts.filter((p) => p !== bar)) - SEP.length - 2 - percent.length);
    if (cells >= BAR_MIN) {
      const full = Math.round(fraction * cells);
      bar[1] = `[${'█'.repeat(full)}${'░'.repeat(cells - full)}]${percent}`;
    } else {
      parts.splice(parts.indexOf(bar), 1);
    }
  }
  for (const name of ['sent', 'p99', 'time', 'errors']) {
    if (length(parts) <= room) break;
    const at = parts.findIndex(([n]) => n === name);
    if (at >= 0 && parts.length > 1) parts.splice(at, 1);
  }
  const plain = parts.map(([, text]) => text).join(SEP);
  if (plain.length > room) return plain.slice(0, room);
  return parts.map(([, text, paint]) => paint(text)).join(SEP);
}

/** loadtest 8's periodic line (for pipes, files and CI logs). */
export function periodicLine(s, { maxRequests }) {
  const done = s.completed + s.failed;
  const share = maxRequests ? ` (${Math.floor((done / maxRequests) * 100)}%)` : '';
  const rate = s.elapsedMs > 0 ? Math.round((done * 1000) / s.elapsedMs) : 0;
  return `Requests: ${done}${share}, requests per second: ${rate}, errors: ${s.failed}, elapsed: ${seconds(s.elapsedMs)}`;
}

/**
 * Shows the progress of `run` (it has snapshot() and config { maxRequests, maxSeconds }) on
 * `stream` ('stdout' or 'stderr'). io: { terminal(stream) → { isTTY, columns }, write(stream,
 * text), ci, color }. Returns stop(), which erases the live line so the report starts clean.
 */
export function startProgress(run, { quiet, stream }, io) {
  const { isTTY, columns } = io.terminal(stream);
  const mode = progressMode({ quiet, isTTY, ci: io.ci });
  const limits = run.config;
  if (mode === 'none') return () => {};
  if (mode === 'lines') {
    const timer = setInterval(() => io.write(stream, periodicLine(run.snapshot(), limits) + '\n'), LINES_MS);
    return () => clearInterval(timer);
  }
  // A few snapshots back, to take the rate over the last second rather than since the start.
  const recent = [{ sent: 0, completed: 0, failed: 0, elapsedMs: 0 }];
  let width = columns;
  const timer = setInterval(() => {
    const now = run.snapshot();
    while (recent.length > 1 && now.elapsedMs - recent[1].elapsedMs >= RATE_WINDOW_MS) recent.shift();
    // The window may be resized while the run goes.
    width = io.terminal(stream).columns || width;
    io.write(stream, CLEAR + progressLine(now, recent[0], limits, width, io.color));
    recent.push(now);
  }, TICK_MS);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    io.write(stream, CLEAR);
  };
}
