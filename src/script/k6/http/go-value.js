// A script's value as k6 writes it into a form: k6 exports it to Go and prints it with fmt's %v
// (`fmt.Sprintf("%v", v)`), so a form field of `null` is `<nil>`, an object `map[a:1 b:x]`
// (its keys sorted, as fmt sorts a map's), a list `[1 2]`, and a fraction in Go's shortest %g.

// The largest integral value Go's int64 holds (2^63): k6's engine exports an integral number
// below it as an int64, printed whole; anything else is a float64.
const INT64 = 2 ** 63;

/** `v` as Go's fmt prints it with %v once k6 has exported it. */
export function goValue(v) {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  // An object k6 exports as a map of its own properties (a class's instance too).
  if (typeof v === 'object' && !(v instanceof Date) && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer)) {
    return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** The Go type of `v` once k6 has exported it, as fmt's %T names it (in k6's errors). */
export function goType(v) {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < INT64 && !Object.is(v, -0) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof Uint8Array) return '[]uint8';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'function') return 'func(sobek.FunctionCall) sobek.Value';
  return 'map[string]interface {}';
}

// An integer as an int64; a float64 as %g at its shortest, which Go writes with an exponent
// below 1e-4 and from 1e6 (the shortest precision decides as precision 6 would), of two digits
// at least: 1.2345675e+06, 1.234e-05, 1e+20 (beyond an int64).
function goNumber(n) {
  if (Number.isInteger(n) && Math.abs(n) < INT64 && !Object.is(n, -0)) return BigInt(n).toString();
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (n === 0) return '-0';
  const [mantissa, e] = n.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/**
 * A form's text as k6 sends it (Go's url.Values.Encode()): its keys sorted, each value of a
 * list under its key in turn, and Go's query escaping (space as '+', only letters, digits and
 * `-_.~` kept).
 */
export function goForm(fields) {
  const out = [];
  for (const k of Object.keys(fields).sort()) {
    const v = fields[k];
    for (const x of Array.isArray(v) ? v : [v]) out.push(`${queryEscape(k)}=${queryEscape(goValue(x))}`);
  }
  return out.join('&');
}

// encodeURIComponent keeps `!'()*` too, which Go escapes, and writes a space as %20; a lone
// surrogate, which it refuses, is U+FFFD in Go's string.
const queryEscape = (text) => encodeURIComponent(text.toWellFormed()).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
