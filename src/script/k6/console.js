// console in a script, as k6 gives it: each call one line of its log on stderr, in the logfmt k6
// (logrus) writes when stderr is not a terminal, so that stdout holds only the summary or what
// handleSummary() writes there. console.log and info are level info, warn warning, error
// error; console.debug is k6's -v only (here too). The arguments are joined with spaces, each
// written as k6 v2.2 writes it (console-format.js). A run's secrets are hidden in the message and
// the fields (src/script/secrets/secrets.js), before the line is quoted, as k6's log hook
// replaces them in the entry before logrus formats it.

import { shown } from './console-format.js';

const LEVELS = { log: 'info', info: 'info', warn: 'warning', error: 'error' };

// logrus quotes a value with any byte beyond these, as Go's %q (JSON's escapes are the same
// for what a message holds but control characters).
export const quoted = (s) => (/^[A-Za-z0-9\-._/@^+]*$/.test(s) ? s : JSON.stringify(s));

/** The time of a line of k6's log, to the second. */
export const logTime = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

const same = (s) => s;

/**
 * A line of k6's log: `time="..." level=L msg="..." k=v ...` (no msg when empty), its fields
 * ([[key, value]]) after the message by key, as logrus sorts them. `redact(text)` hides the
 * run's secrets in the message and in the fields' keys and text values (k6's log hook replaces
 * both, before logrus sorts and quotes: a secret `source` makes the key `***SECRET_REDACTED***`,
 * which sorts first); numbers are left as they are, as the hook leaves them.
 */
export function logEntry(level, msg, fields, redact = same) {
  const shown = new Map();
  for (const [k, v] of fields) shown.set(redact(k), typeof v === 'string' ? quoted(redact(v)) : String(v));
  const keys = [...shown.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const m = redact(msg);
  return `time="${logTime()}" level=${level}${m === '' ? '' : ` msg=${quoted(m)}`}${keys.map((k) => ` ${k}=${shown.get(k)}`).join('')}`;
}

/** A line of the script's console: `time="..." level=info msg="..." source=console`. */
export function logLine(level, args, redact = same) {
  return logEntry(level, args.map(shown).join(' '), [['source', 'console']], redact);
}

/**
 * The console a script sees (every VU the same one); `write(line)` puts a line on stderr,
 * `redact(text)` hides the run's secrets in it.
 */
export function scriptConsole(write = (line) => globalThis.console.error(line), redact = same, verbose = false) {
  const out = {};
  for (const [method, level] of Object.entries(LEVELS)) out[method] = (...args) => write(logLine(level, args, redact));
  // console.debug: k6's -v only.
  out.debug = verbose ? (...args) => write(logLine('debug', args, redact)) : () => {};
  out[GO_LOG] = (text) => write(logEntry('info', `${goLogTime()} ${text}`, [], redact));
  return out;
}

/**
 * The console's way to write what Go's own log says in k6 (net/http's warnings): k6 passes it
 * to its log at level info, after the date and time as Go's log writes them. Under a symbol: the
 * script's console has no such method.
 */
export const GO_LOG = Symbol('loadtest.goLog');

const two = (n) => String(n).padStart(2, '0');
function goLogTime(d = new Date()) {
  return `${d.getFullYear()}/${two(d.getMonth() + 1)}/${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
