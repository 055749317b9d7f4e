// GJSON paths (github.com/tidwall/gjson's syntax), as k6's res.json(selector) takes them, on the
// parsed body: keys joined by '.' (`\.` for a dot in a key, `*` and `?` wildcards), array
// indexes, `#` for an array's length, `#.rest` for `rest` of every element, queries
// `#(path op value)` for the first element that matches and `#(...)#` for all of them (ops
// == = != < <= > >= % !%, a value quoted, a number, true, false or ~true ~false ~null ~*; no op:
// the path exists), `|` to go on from what came before as a whole, and the modifiers @this
// @reverse @keys @values @flatten @join @tostr @fromstr @valid @ugly @pretty. Not here:
// multipaths ([a,b], {a,b}), literals (!true), @group and @dig. Undefined where nothing matches.

/** The value at `path` in `value` (JSON.parse's), or undefined. */
export function gjson(value, path) {
  for (const part of splitTop(path, '|')) {
    value = walk(value, part);
    if (value === undefined) return undefined;
  }
  return value;
}

// One part between pipes: components joined by '.', a `#` taking the rest for every element.
function walk(value, path) {
  let at = 0;
  while (at < path.length) {
    if (value === undefined) return undefined;
    const end = componentEnd(path, at);
    const comp = path.slice(at, end);
    const rest = end < path.length ? path.slice(end + 1) : null;
    const modifier = comp.startsWith('@') ? modifierOf(comp) : null;
    if (modifier !== null) {
      value = modifier(value, argOf(comp));
    } else if (Array.isArray(value)) {
      if (comp === '#') {
        if (rest === null) return value.length;
        return mapDefined(value, rest);
      }
      if (comp.startsWith('#(') || comp.startsWith('#[')) {
        const q = parseQuery(comp);
        if (q === null) return undefined;
        if (q.all) {
          const hits = value.filter((v) => matches(q, v));
          return rest === null ? hits : mapDefined(hits, rest);
        }
        value = value.find((v) => matches(q, v));
      } else if (/^\d+$/.test(comp)) value = value[Number(comp)];
      else return undefined;
    } else if (value !== null && typeof value === 'object') {
      value = keyed(value, unescape(comp), /[*?]/.test(comp.replace(/\\./g, '')));
    } else return undefined;
    if (rest === null) break;
    at = end + 1;
  }
  return value;
}

const mapDefined = (list, path) => list.map((v) => walk(v, path)).filter((v) => v !== undefined);

// An object's value at `key`; with wildcards, the first key in order that matches.
function keyed(object, key, wild) {
  if (!wild) return Object.hasOwn(object, key) ? object[key] : undefined;
  for (const k of Object.keys(object)) if (glob(k, key)) return object[k];
  return undefined;
}

// Where the component at `from` ends: at a '.' outside a query's brackets and quotes.
function componentEnd(path, from) {
  let depth = 0;
  for (let i = from; i < path.length; i++) {
    const c = path[i];
    if (c === '\\') i++;
    else if (c === '"' && depth > 0) i = quoteEnd(path, i);
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '.' && depth === 0) return i;
  }
  return path.length;
}

function quoteEnd(text, i) {
  for (i++; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return i;
}

// `path` split at `sep` outside brackets and quotes.
function splitTop(path, sep) {
  const parts = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '\\') i++;
    else if (c === '"' && depth > 0) i = quoteEnd(path, i);
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === sep && depth === 0) {
      parts.push(path.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(path.slice(from));
  return parts;
}

const unescape = (key) => key.replace(/\\(.)/g, '$1');

// `#(path op value)` or `#(...)#`: what gjson's parseQuery makes of it.
function parseQuery(comp) {
  let depth = 1;
  let opAt = -1;
  let i = 2;
  for (; i < comp.length; i++) {
    const c = comp[i];
    if (depth === 1 && opAt < 0 && '!=<>%'.includes(c)) {
      opAt = i;
      continue;
    }
    if (c === '\\') i++;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') {
      if (--depth === 0) break;
    } else if (c === '"') i = quoteEnd(comp, i);
  }
  if (depth > 0) return null;
  const all = comp.slice(i + 1) === '#';
  if (!all && i + 1 < comp.length) return null;
  if (opAt < 0) return { path: comp.slice(2, i).trim(), op: '', value: '', all };
  let rhs = comp.slice(opAt, i).trim();
  const op = /^(!=|!%|<=|>=|==|<|>|=|%)/.exec(rhs)[1];
  rhs = rhs.slice(op.length).trim();
  if (rhs.length >= 2 && rhs[0] === '"' && rhs.at(-1) === '"') {
    try {
      rhs = JSON.parse(rhs);
    } catch {
      rhs = rhs.slice(1, -1);
    }
  }
  return { path: comp.slice(2, opAt).trim(), op: op === '==' ? '=' : op, value: rhs, all };
}

function matches(q, element) {
  let v = q.path === '' ? element : gjson(element, q.path);
  let want = q.value;
  if (want.startsWith('~')) {
    const is = { '*': v !== undefined, null: v === undefined || v === null, true: truish(v), false: falsish(v) }[want.slice(1)];
    if (is === undefined) return false;
    v = is;
    want = 'true';
  }
  if (v === undefined) return false;
  if (q.op === '') return true;
  if (typeof v === 'string') return compare(q.op, v, want) ?? (q.op === '%' ? glob(v, want) : q.op === '!%' ? !glob(v, want) : false);
  if (typeof v === 'number') return compare(q.op, v, Number.parseFloat(want) || 0) ?? false;
  if (v === true) return { '=': want === 'true', '!=': want !== 'true', '>': want === 'false', '>=': true }[q.op] ?? false;
  if (v === false) return { '=': want === 'false', '!=': want !== 'false', '<': want === 'true', '<=': true }[q.op] ?? false;
  return false;
}

function compare(op, a, b) {
  switch (op) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
  return undefined;
}

const truish = (v) => v === true || (typeof v === 'number' && v !== 0) || (typeof v === 'string' && ['1', 't', 'true'].includes(v.toLowerCase()));
const falsish = (v) => v === null || v === false || (typeof v === 'number' && v === 0) || (typeof v === 'string' && ['0', 'f', 'false'].includes(v.toLowerCase()));

// gjson's match: '*' any run, '?' any one character, '\' the next one as it is.
function glob(text, pattern) {
  const re = pattern.replace(/\\(.)|([*?])|([^\\*?]+)/g, (_, esc, wild, lit) => (esc !== undefined ? escapeRe(esc) : wild === '*' ? '[\\s\\S]*' : wild === '?' ? '[\\s\\S]' : escapeRe(lit)));
  return new RegExp(`^${re}$`).test(text);
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const argOf = (comp) => {
  const colon = comp.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return JSON.parse(comp.slice(colon + 1));
  } catch {
    return undefined;
  }
};

function modifierOf(comp) {
  const name = comp.slice(1).split(':')[0];
  return Object.hasOwn(MODIFIERS, name) ? MODIFIERS[name] : null;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

const MODIFIERS = {
  this: (v) => v,
  valid: (v) => v,
  ugly: (v) => v,
  pretty: (v) => v,
  reverse: (v) => (Array.isArray(v) ? [...v].reverse() : isObject(v) ? Object.fromEntries(Object.entries(v).reverse()) : v),
  keys: (v) => (isObject(v) ? Object.keys(v) : Array.isArray(v) ? [] : undefined),
  values: (v) => (isObject(v) ? Object.values(v) : Array.isArray(v) ? v : undefined),
  flatten: (v, arg) => (Array.isArray(v) ? v.flat(arg && arg.deep ? Infinity : 1) : v),
  join: (v) => (Array.isArray(v) ? Object.assign({}, ...v.filter(isObject)) : v),
  tostr: (v) => JSON.stringify(v),
  fromstr: (v) => {
    if (typeof v !== 'string') return undefined;
    try {
      return JSON.parse(v);
    } catch {
      return undefined;
    }
  },
};
