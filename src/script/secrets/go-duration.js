// Durations as k6's url secret source reads them: Go's time.ParseDuration for the command line
// and K6_SECRET_SOURCE_URL_* (no bare number but 0, no days; its error texts), and k6's
// types.Duration for its JSON config file (a number or a numeric string is milliseconds, `d`
// days before the rest). src/script/scenarios/duration.js reads k6's options, which differ (a
// bare number is seconds there).

const UNITS = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
// time.Duration's int64 of nanoseconds: about 292 years.
const MAX_MS = 9223372036854.775;

// Go's time package quotes its input its own way: `"` and `\` escaped, a byte outside printable
// ASCII as \xNN (the bytes of its UTF-8).
function timeQuote(s) {
  let out = '"';
  for (const c of s) {
    if (c < ' ' || c > '~') for (const b of new TextEncoder().encode(c)) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += c === '"' || c === '\\' ? `\\${c}` : c;
  }
  return `${out}"`;
}

const invalid = (orig) => new Error(`time: invalid duration ${timeQuote(orig)}`);

/** Go's time.ParseDuration of `text`, in milliseconds (negative allowed); throws Go's error. */
export function parseGoDuration(text) {
  const orig = text;
  let s = text;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid(orig);
  let ms = 0;
  while (s !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(s);
    const [whole, int, frac] = number;
    if (int === '' && (frac === undefined || frac === '')) throw invalid(orig);
    s = s.slice(whole.length);
    const unit = /^[^0-9.]*/.exec(s)[0];
    if (unit === '') throw new Error(`time: missing unit in duration ${timeQuote(orig)}`);
    if (!Object.hasOwn(UNITS, unit)) throw new Error(`time: unknown unit ${timeQuote(unit)} in duration ${timeQuote(orig)}`);
    s = s.slice(unit.length);
    ms += Number(`${int || '0'}.${frac || '0'}`) * UNITS[unit];
    if (ms > MAX_MS) throw invalid(orig);
  }
  return sign * ms;
}

// strconv.ParseFloat's forms, as far as a duration is written with them.
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|infinity)$/i;

/** k6's types.Duration from JSON (`value`: JSON.parse's), in milliseconds; throws k6's error. */
export function jsonDuration(value) {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') throw new Error(`'${JSON.stringify(value)}' is not a valid duration value`);
  if (FLOAT.test(value)) return Number(value.replace(/infinity|inf/i, 'Infinity'));
  const d = value.indexOf('d');
  if (d < 0) return parseGoDuration(value);
  let rest = 0;
  if (d + 1 < value.length) {
    rest = parseGoDuration(value.slice(d + 1));
    if (rest < 0) throw new Error(`invalid time format '${value.slice(d + 1)}'`);
  }
  const days = value.slice(0, d);
  if (!/^[+-]?\d+$/.test(days)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(days)}: invalid syntax`);
  const n = Number(days);
  return n * 864e5 + (n < 0 ? -rest : rest);
}
