// The push outputs' settings read as k6 reads them (Go's parsers): a duration where a bare number
// is milliseconds (k6's ParseExtendedDuration), a whole number, a bool (strconv.ParseBool).

import { parseDuration } from '../script/scenarios/duration.js';

/** k6's durations for an output's settings: a bare number is milliseconds. */
export function durationOf(text, what) {
  const t = String(text).trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return Number(t);
  return parseDuration(t, what);
}

export function wholeOf(text, what) {
  if (!/^[+-]?\d+$/.test(String(text).trim())) throw new Error(`${what}: '${text}' is not a whole number`);
  return Number(text);
}

/** Go's strconv.ParseBool: true, false, or undefined for a text it refuses. */
export function goBool(text) {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

export function boolOf(text, what) {
  const b = goBool(text);
  if (b === undefined) throw new Error(`${what}: '${text}' is not true or false`);
  return b;
}
