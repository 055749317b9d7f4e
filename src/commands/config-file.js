// The configuration file, found as loadtest 8 finds it (through confinode): a "loadtest" entry in
// package.json, else .loadtestrc, in the working directory, else in its parent, and so on up to
// the home folder. An entry that is a string names the real file, relative to where it was read.
// Values are checked here, so that a bad file is one line naming it; the CLI then takes them as
// the flags that were not given.

import { number } from '../run/options.js';

// Tried in each folder, in this order (confinode's order; JSON only, see doc/cli.md).
const NAMES = ['package.json', '.loadtestrc', '.loadtestrc.json', 'loadtest.config.json', '.loadtest/loadtest.config.json'];

// File key -> [kind, flag]. loadtest 8's keys (its lib/config.js; delay, error and percent are
// the test server's), then ours, named as the API names them.
const KEYS = {
  maxRequests: ['whole', 'maxRequests'],
  concurrency: ['positive', 'concurrency'],
  maxSeconds: ['number', 'maxSeconds'],
  timeout: ['number', 'timeout'],
  requestsPerSecond: ['number', 'requestsPerSecond'],
  method: ['string', 'method'],
  contentType: ['string', 'contentType'],
  body: ['body', 'configBody'],
  file: ['string', 'configBodyFile'],
  cookies: ['cookies', 'cookie'],
  headers: ['headers', 'header'],
  secureProtocol: ['string', 'secureProtocol'],
  insecure: ['boolean', 'insecure'],
  cert: ['string', 'cert'],
  key: ['string', 'key'],
  requestGenerator: ['string', 'requestGenerator'],
  recover: ['boolean', 'recover'],
  agentKeepAlive: ['boolean', 'keepalive'],
  proxy: ['string', 'proxy'],
  indexParam: ['string', 'index'],
  delay: ['number', null],
  error: ['number', null],
  percent: ['number', null],
  quiet: ['boolean', 'quiet'],
  tcp: ['boolean', 'tcp'],
  cores: ['positive', 'cores'],
  maxConnections: ['positive', 'max-connections'],
  pipelining: ['positive', 'pipeline'],
  http2: ['boolean', 'http2'],
  streams: ['positive', 'streams'],
  socket: ['string', 'socket'],
  ca: ['string', 'ca'],
  feed: ['string', 'feed'],
  feedOrder: ['string', 'feed-order'],
  seed: ['whole', 'seed'],
  urls: ['string', 'urls'],
  check: ['json', 'check'],
  entryOptions: ['object', 'entryOptions'],
};

// The flags that set a body: with any of them, the file's body and file are left out.
const BODY_FLAGS = ['data', 'postBody', 'postFile', 'putFile', 'patchBody', 'patchFile'];

/**
 * Looks for the configuration from the folder `cwd` (a file: URL ending in '/') up to `home`
 * (or the root when cwd is not under it). `read(url)` resolves to the file's text, or null when
 * there is no such file. Resolves to { name, url, flags } or null when there is no file; throws
 * an Error naming the file when it is bad. `name` is the path shown in messages.
 */
export async function findConfig(cwd, home, read) {
  const show = (url) => (url.href.startsWith(cwd) ? decodeURIComponent(url.href.slice(cwd.length)) : decodeURIComponent(url.pathname));
  for (let dir = new URL(cwd); ; ) {
    for (const name of NAMES) {
      const url = new URL(name, dir);
      const text = await read(url);
      if (text === null) continue;
      let value = parseJson(text, show(url));
      if (name === 'package.json') {
        if (value === null || typeof value !== 'object' || value.loadtest === undefined) continue;
        value = value.loadtest;
      }
      return follow(value, url, show, read);
    }
    const parent = new URL('../', dir);
    if (dir.href === home || parent.href === dir.href) return null;
    dir = parent;
  }
}

// A string in place of the configuration names the file that holds it (confinode's indirection).
async function follow(value, url, show, read, depth = 0) {
  if (typeof value !== 'string') return { name: show(url), url: url.href, flags: checkConfig(value, show(url)) };
  const target = new URL(value, url);
  if (depth >= 5) throw new Error(`${show(url)}: more than 5 files naming each other`);
  const text = await read(target);
  if (text === null) throw new Error(`${show(url)}: names '${value}', which does not exist`);
  return follow(parseJson(text, show(target)), target, show, read, depth + 1);
}

function parseJson(text, name) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${name}: invalid JSON (${String(err.message).replace(/\s+/g, ' ')})`);
  }
}

/** Checks a configuration object; returns its values as flags (long names). */
export function checkConfig(config, name) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new Error(`${name}: expected an object of options, like {"maxRequests": 1000}`);
  }
  const flags = {};
  for (const [key, value] of Object.entries(config)) {
    if (!Object.hasOwn(KEYS, key)) throw new Error(`${name}: unknown key '${key}' (see doc/cli.md, "Configuration file")`);
    const [kind, flag] = KEYS[key];
    // loadtest 8's defaults are empty strings: "not set".
    if (value === null || value === '') continue;
    const checked = check(kind, key, value, name);
    if (flag) flags[flag] = checked;
  }
  return flags;
}

function check(kind, key, value, name) {
  const bad = (what) => new Error(`${name}: "${key}" must be ${what}, got ${JSON.stringify(value)}`);
  switch (kind) {
    case 'number':
    case 'whole':
    case 'positive':
      // As confinode's numberItem: a number, or a string holding one.
      if (typeof value !== 'number' && typeof value !== 'string') throw bad('a number');
      try {
        return number(`"${key}"`, value, { integer: kind !== 'number', min: kind === 'positive' ? 1 : 0 });
      } catch (err) {
        throw new Error(`${name}: ${err.message}`);
      }
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('true or false');
      return value;
    case 'string':
      if (typeof value !== 'string') throw bad('a string');
      return value;
    case 'object':
      if (typeof value !== 'object' || Array.isArray(value)) throw bad('an object');
      return value;
    case 'json':
      // An object the flag takes as JSON text (--check).
      if (typeof value !== 'object' || Array.isArray(value)) throw bad('an object');
      return JSON.stringify(value);
    case 'body':
      // Anything JSON: a string is sent as is, anything else as JSON (or a form, by contentType).
      return value;
    case 'headers':
      return pairs(value, ':', bad('an object of "name": "value" or a list of "name:value"'));
    case 'cookies':
      return pairs(value, '=', bad('an object of "name": "value" or a list of "name=value"'));
  }
  throw new Error(`${name}: "${key}": no check for ${kind}`);
}

// loadtest 8 takes headers and cookies as an object; a list in the flags' form works too.
function pairs(value, separator, error) {
  const good = (v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string' && v.indexOf(separator) > 0)) throw error;
    return value;
  }
  if (typeof value !== 'object' || !Object.values(value).every(good)) throw error;
  return Object.entries(value).map(([k, v]) => `${k}${separator}${v}`);
}

/**
 * The flags `args` (as mri parsed them) with the file's `flags` added where no flag was given, as
 * loadtest 8 merges: headers add up (a flag's wins for the same name), anything else given as a
 * flag replaces the file's, and any body flag leaves out the file's body and file.
 */
export function withConfig(args, flags) {
  const out = { ...args };
  const hasBody = BODY_FLAGS.some((flag) => args[flag] !== undefined);
  for (const [flag, value] of Object.entries(flags)) {
    if (flag === 'header') out.header = [...value, ...(args.header === undefined ? [] : [args.header].flat())];
    else if (flag === 'configBody' || flag === 'configBodyFile') {
      if (!hasBody) out[flag] = value;
    } else if (args[flag] === undefined) out[flag] = value;
  }
  return out;
}
