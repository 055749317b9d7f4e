// --secret-source TYPE=CONFIG (repeatable), or K6_SECRET_SOURCE (one source, and none of it when
// the flag is given: k6 v1.7's precedence), as k6 v2.2 reads them: `mock=KEY=VALUE,...` (the
// secrets on the command line, for trying a script), `file=PATH` (`filename=PATH` too; a file
// of KEY=VALUE lines) or `url=KEY=VALUE,...` (each secret fetched over HTTP when the script asks
// for it: url-config.js, url-source.js; a bare `url` takes its settings from
// K6_SECRET_SOURCE_URL_*). Any may add `name=NAME` (the source's name for secrets.source(NAME);
// its type when not given) and `default` (the source secrets.get() reads); a lone source is the
// default whatever its name. The sources become a table that a --cores child is handed whole
// (src/script/secrets/secrets.js), so that every process reads the same values from one reading.
//
// Checked in two steps: the command line at once (so that `loadtest run --on ...` refuses a bad
// spec before any shard starts), the files when the run begins. A bad one is one line and k6's
// exit code, 255 (104 for `cloud`, which k6 keeps for `k6 cloud run`).

import { parseUrlSpec, urlConfig } from './url-config.js';

export class SecretSourceError extends Error {
  constructor(message, code = 255) {
    super(message);
    this.code = code;
  }
}

class Refusal extends Error {} // a source's own words, given its place by the caller

const fail = (message) => {
  throw new Refusal(message);
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
    if (pair === null) fail(`parsing ${JSON.stringify(kv)}, needs =`);
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
    else fail(`unknown configuration key for file secret source ${JSON.stringify(pair[0])}`);
  }
  return filename;
}

// The type's own part of a spec: its pairs, its file's name, or its url settings.
function typeConfig(spec, config, env) {
  if (spec.type === 'mock') spec.pairs = mockPairs(config);
  else if (spec.type === 'file') spec.filename = fileName(config);
  else {
    try {
      spec.url = parseUrlSpec(config, env.envVar, env.envNames);
    } catch (err) {
      fail(`missing or invalid config: ${err.message}`);
    }
  }
}

/**
 * The specs of the command line (`lines`: the flag's, or K6_SECRET_SOURCE's one; `from` says
 * which), checked: [{ type, name, isDefault, pairs | filename | url }] in their order. `env`:
 * { envVar, envNames }, the process's variables (a url source's K6_SECRET_SOURCE_URL_*). Throws
 * a SecretSourceError of one line (never echoing a mock's values).
 */
export function parseSecretSources(lines, env = { envVar: () => undefined, envNames: () => [] }, from = '--secret-source') {
  // As k6, before anything else: its cloud source is k6 cloud's alone.
  if (lines.some((line) => line.split('=')[0].trim() === 'cloud')) {
    throw new SecretSourceError("'cloud' is not a valid value for --secret-source; cloud secrets are automatically available for 'k6 cloud run --local-execution'", 104);
  }
  const specs = [];
  const registered = new Set();
  for (const line of lines) {
    const head = cut(line, '=');
    // A type alone has no config: a url source's comes from its variables.
    const [type, config] = head === null ? [line, ''] : head;
    if (head === null && line.trim() === '') throw new SecretSourceError(`${from} ${JSON.stringify(line)}: couldn't parse secret source configuration (mock=KEY=VALUE,..., file=PATH or url=urlTemplate=URL,...)`);
    if (type !== 'mock' && type !== 'file' && type !== 'url') throw new SecretSourceError(`${from} ${type}: no secret source for type ${JSON.stringify(type)} (mock, file or url)`);
    try {
      specs.push({ ...parseSpec(type, config, env, registered), from });
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      throw new SecretSourceError(`${from} ${type}: ${err.message}`);
    }
  }
  return specs;
}

function parseSpec(type, config, env, registered) {
  // name=NAME and default are the source's own; the rest is its type's config.
  let name = '';
  let isDefault = false;
  const rest = [];
  for (const kv of config.split(',')) {
    if (kv === 'default') isDefault = true;
    else if (kv === 'name' || kv.startsWith('name=')) name = kv.slice(5); // k6 cuts at '=': a bare `name` is the name ''
    else rest.push(kv);
  }
  const named = name !== '';
  if (!named) name = type; // k6 v2.2: a source without a name is named for its type
  const spec = { type, name, isDefault };
  typeConfig(spec, rest.join(','), env);
  // k6's order: the name first (a default one registers "default" too, so a later source named
  // "default" is a second name as well as a second default).
  if (registered.has(name)) fail(`secret source for name ${JSON.stringify(name)} already registered${named ? '' : ' (give each source its name=NAME)'}`);
  registered.add(name);
  if (isDefault) {
    if (registered.has('default')) fail("can't have two secret sources that are default ones");
    registered.add('default');
  }
  return spec;
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
    if (pair === null) fail(`${path}, line ${i + 1}: no '=' (each line is KEY=VALUE)`);
    return pair;
  });
}

// A source's entry in the table: a file's pairs read now, a url source's settings made whole.
async function sourceValues(spec, readText) {
  if (spec.type === 'mock') return spec.pairs;
  if (spec.type === 'url') {
    try {
      return { url: await urlConfig(spec.url, readText) };
    } catch (err) {
      fail(`missing or invalid config: ${err.message}`);
    }
  }
  if (spec.filename === '') fail('no file given (file=PATH)');
  let text;
  try {
    text = await readText(spec.filename);
  } catch (err) {
    fail(`cannot read ${spec.filename} (${err.code || err.message})`);
  }
  return fileLines(text, spec.filename);
}

/**
 * The sources' table: { names: [[name, index]], values: [pairs | { url: settings }] }, a source
 * named by its name, and by "default" when it is the default one. `readText(path)` reads a file
 * (the runtime's; relative paths from the working directory, as k6's).
 */
export async function loadSecretSources(specs, readText) {
  const names = [];
  const values = [];
  for (const spec of specs) {
    try {
      values.push(await sourceValues(spec, readText));
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      throw new SecretSourceError(`${spec.from || '--secret-source'} ${spec.type}: ${err.message}`);
    }
    const index = values.length - 1;
    names.push([spec.name, index]);
    if (spec.isDefault) names.push(['default', index]);
  }
  // One source alone is the default, whatever its name.
  if (values.length === 1 && !names.some(([n]) => n === 'default')) names.push(['default', 0]);
  return { names, values };
}
