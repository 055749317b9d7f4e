// --secret-source TYPE=CONFIG (repeatable), as k6 v1.3 reads it: `mock=KEY=VALUE,...` (the
// secrets on the command line, for trying a script) or `file=PATH` (`filename=PATH` too; a file
// of KEY=VALUE lines). Either may add `name=NAME` (the source's name for
// secrets.source(NAME)) and `default` (the source secrets.get() reads); a lone source is the
// default whatever its name. The sources become a table that a --cores child is handed whole
// (src/script/secrets/secrets.js), so that every process reads the same values from one reading.
//
// Checked in two steps: the command line at once (so that `loadtest run --on ...` refuses a bad
// spec before any shard starts), the files when the run begins.

export class SecretSourceError extends Error {}

const fail = (message) => {
  throw new SecretSourceError(`--secret-source ${message}`);
};

// Go's strings.Cut: the text before and after the first `sep`, or null without one.
function cut(s, sep) {
  const at = s.indexOf(sep);
  return at < 0 ? null : [s.slice(0, at), s.slice(at + sep.length)];
}

// A mock source's pairs, in k6's words when one has no '='. A value holds no ',' (the separator).
function mockPairs(config) {
  const pairs = [];
  for (const kv of config.split(',')) {
    const pair = cut(kv, '=');
    if (pair === null) fail(`mock: parsing ${JSON.stringify(kv)}, needs =`);
    pairs.push(pair);
  }
  return pairs;
}

// A file source's path: a bare item, or filename=PATH (the last one given wins, as in k6).
function fileName(config) {
  let filename = '';
  for (const kv of config.split(',')) {
    const pair = cut(kv, '=');
    if (pair === null) filename = kv;
    else if (pair[0] === 'filename') filename = pair[1];
    else fail(`file: unknown configuration key for file secret source ${JSON.stringify(pair[0])}`);
  }
  return filename;
}

/**
 * The specs of the command line, checked: [{ type, name, isDefault, pairs | filename }] in their
 * order. Throws a SecretSourceError of one line (never echoing a mock's values).
 */
export function parseSecretSources(lines) {
  const specs = [];
  const registered = new Set();
  for (const line of lines) {
    const head = cut(line, '=');
    if (head === null) fail(`'${line}': couldn't parse secret source configuration (mock=KEY=VALUE,... or file=PATH)`);
    const [type, config] = head;
    if (type !== 'mock' && type !== 'file') fail(`${type}: no secret source for type ${JSON.stringify(type)} (mock or file)`);
    // name=NAME and default are the source's own; the rest is its type's config.
    let name = '';
    let isDefault = false;
    const rest = [];
    for (const kv of config.split(',')) {
      if (kv === 'default') isDefault = true;
      else if (kv === 'name' || kv.startsWith('name=')) name = kv.slice(5); // k6 cuts at '=': a bare `name` is the name ''
      else rest.push(kv);
    }
    const spec = { type, name, isDefault };
    if (type === 'mock') spec.pairs = mockPairs(rest.join(','));
    else spec.filename = fileName(rest.join(','));
    // k6's order: the name first (a default one registers "default" too, so a later source named
    // "default" is a second name as well as a second default).
    if (registered.has(name)) fail(`${type}: secret source for name ${JSON.stringify(name)} already registered${name === '' ? ' (give each source its name=NAME)' : ''}`);
    registered.add(name);
    if (isDefault) {
      if (registered.has('default')) fail(`${type}: can't have two secret sources that are default ones`);
      registered.add('default');
    }
    specs.push(spec);
  }
  return specs;
}

// A file's KEY=VALUE lines as Go's bufio.Scanner gives them: split at '\n', a '\r' before it
// dropped, no line after a last '\n'. An empty line is refused, as k6 refuses it.
function fileLines(text, path) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const pair = cut(line, '=');
    // The line itself is not shown: it may be a secret that lost its key.
    if (pair === null) fail(`file: ${path}, line ${i + 1}: no '=' (each line is KEY=VALUE)`);
    return pair;
  });
}

/**
 * The sources' table: { names: [[name, index]], values: [[[key, value], ...], ...] }, a source
 * named by its name, and by "default" when it is the default one. `readText(path)` reads a file
 * (the runtime's; relative paths from the working directory, as k6's).
 */
export async function loadSecretSources(specs, readText) {
  const names = [];
  const values = [];
  for (const spec of specs) {
    let pairs = spec.pairs;
    if (spec.type === 'file') {
      if (spec.filename === '') fail('file: no file given (file=PATH)');
      let text;
      try {
        text = await readText(spec.filename);
      } catch (err) {
        fail(`file: cannot read ${spec.filename} (${err.code || err.message})`);
      }
      pairs = fileLines(text, spec.filename);
    }
    const index = values.length;
    values.push(pairs);
    names.push([spec.name, index]);
    if (spec.isDefault) names.push(['default', index]);
  }
  // One source alone is the default, whatever its name.
  if (values.length === 1 && !names.some(([n]) => n === 'default')) names.push(['default', 0]);
  return { names, values };
}
