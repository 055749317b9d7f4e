// Selection.data()'s names and values, as k6 gives them (jQuery's data(), through Go's snaker
// package): data-foo-bar is fooBar, and a word that is one of golint's initialisms is written in
// capitals (data-user-id is userID); a key asked for is turned back into its attribute the same
// way (data('userId') and data('userID') both read data-user-id). A value is a number only when
// Go writes that number back as it was ('1.50', '007' and '1e2' stay strings), JSON when it opens
// with { or [ and parses, and undefined for '', 'null' and 'undefined'.

const INITIALISMS = new Set(
  'ACL API ASCII CPU CSS DNS EOF ETA GPU GUID HTML HTTP HTTPS ID IP JSON LHS OS QPS RAM RHS RPC SLA SMTP SQL SSH TCP TLS TTL UDP UI UID UUID URI URL UTF8 VM XML XMPP XSRF XSS OAuth'.split(' '),
);

/** The property of attribute `data-<name>`: its first word, then each next one capitalised. */
export function dataProperty(name) {
  const dash = name.indexOf('-');
  if (dash < 0) return name;
  return name.slice(0, dash) + name.slice(dash + 1).split(/[-_]/).map(capitalised).join('');
}

function capitalised(word) {
  if (word === 'oauth') return 'OAuth';
  if (INITIALISMS.has(word.toUpperCase())) return word.toUpperCase();
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The attribute name (without data-) a property is read from: its words in lower case and dashes. */
export function dataAttribute(property) {
  const words = [];
  let from = 0;
  for (let i = 1; i < property.length; i++) {
    if (!isUpper(property[i])) continue;
    // snaker looks for an initialism at the start of the word being built, not at the capital.
    const initialism = initialismAt(property.slice(from));
    if (initialism) {
      words.push(initialism);
      i += initialism.length - 1;
      from = i;
      continue;
    }
    words.push(property.slice(from, i));
    from = i;
  }
  if (from < property.length) words.push(property.slice(from));
  return words.map((w) => w.toLowerCase()).join('_').replaceAll('_', '-');
}

const isUpper = (c) => c !== c.toLowerCase() && c === c.toUpperCase();

// The longest initialism (of up to five letters) that `s` opens with.
function initialismAt(s) {
  let found = '';
  for (let n = 1; n <= 5 && n <= s.length; n++) if (INITIALISMS.has(s.slice(0, n))) found = s.slice(0, n);
  return found;
}

/** An attribute's value as data() gives it. */
export function dataValue(v) {
  if (v === '' || v === 'null' || v === 'undefined') return undefined;
  if (v[0] === '{' || v[0] === '[') {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  if (v === 'true') return true;
  if (v === 'false') return false;
  const n = goNumber(v);
  return n === undefined ? v : n;
}

// The number `v` is when Go's ParseFloat reads it and FormatFloat(f, 'f', -1) writes it back
// unchanged: NaN, +Inf and -Inf are numbers, '+5', '1e-7' and '0.10' are not.
function goNumber(v) {
  const special = { NaN: NaN, '+Inf': Infinity, '-Inf': -Infinity };
  if (Object.hasOwn(special, v)) return special[v];
  if (!/^-?\d+(\.\d+)?$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && plainDecimal(n) === v ? n : undefined;
}

// A number as Go's 'f' format with the shortest precision writes it: no exponent, '-0' for -0.
function plainDecimal(n) {
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  const s = String(Math.abs(n));
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return sign + s;
  const digits = m[1] + (m[2] ?? '');
  const point = 1 + Number(m[3]); // where the decimal point falls in the digits
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  return sign + digits.padEnd(point, '0');
}
