// The documentation: README.md and doc/*.md. Every relative link resolves (to a file, and to a
// heading when it names an anchor into a markdown file), and every flag that `loadtest --help` and
// `loadtest compare --help` list is documented somewhere.

// The documents are the same on every runtime: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = join(ROOT, 'doc');
const PAGES = [join(ROOT, 'README.md'), ...readdirSync(DOC).filter((f) => f.endsWith('.md')).sort().map((f) => join(DOC, f))];
const read = (file) => readFileSync(file, 'utf8');
const name = (file) => file.slice(ROOT.length);

/** The text outside fenced code blocks (``` or ~~~), where links and headings live. */
function prose(text) {
  const out = [];
  let fence = null;
  for (const line of text.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      out.push('');
    } else if (m) {
      fence = m[1];
      out.push('');
    } else out.push(line);
  }
  return out.join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation but hyphens and underscores dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .trim()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link: its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '') // backticks, colons, dots, slashes, parentheses, ...
    .replace(/ /g, '-');
}

/** Every anchor a markdown file offers: its headings' slugs, repeats numbered as GitHub does. */
function anchors(file) {
  const seen = new Map();
  const result = new Set();
  for (const line of prose(read(file)).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** The markdown links [text](target) of a page, outside code blocks and inline code. */
function links(text) {
  const found = [];
  const lines = prose(text).split('\n');
  lines.forEach((line, k) => {
    const bare = line.replace(/(`+)(?:(?!\1).)+?\1/g, (s) => ' '.repeat(s.length)); // inline code
    for (const m of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: m[1], line: k + 1 });
  });
  return found;
}

test('slug: GitHub-style anchors', () => {
  assert.equal(slug('The open model: `--rps`'), 'the-open-model---rps');
  assert.equal(slug("loadtest 8's own tests"), 'loadtest-8s-own-tests');
  assert.equal(slug('Many machines: `--shard`, `--start-at` and `loadtest merge`'), 'many-machines---shard---start-at-and-loadtest-merge');
  assert.equal(slug('The young generation (`runtimes/young-generation.js`)'), 'the-young-generation-runtimesyoung-generationjs');
});

test('the docs exist: README.md and the pages of doc/', () => {
  const names = PAGES.map(name).sort();
  for (const page of ['README.md', 'doc/api.md', 'doc/cli.md', 'doc/compare.md', 'doc/design.md', 'doc/loadtest8.md', 'doc/open-model.md',
    'doc/protocols.md', 'doc/results.md', 'doc/scenarios.md', 'doc/test-server.md']) {
    assert.ok(names.includes(page), `${page} in ${names.join(' ')}`);
  }
});

test('every relative link in README.md and doc/*.md resolves, anchors included', () => {
  const problems = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const { target, line } of links(read(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: ...
      checked++;
      const where = `${name(page)}:${line}: (${target})`;
      const hash = target.indexOf('#');
      const path = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
      if (!existsSync(file)) {
        problems.push(`${where} no such file`);
        continue;
      }
      if (anchor !== null && file.endsWith('.md') && !anchors(file).has(anchor)) {
        problems.push(`${where} no heading with anchor #${anchor} in ${name(file)}`);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} relative links found`);
  assert.deepEqual(problems, []);
});

/** Import the first module of the list that exists (the sources may move during a reorganisation). */
async function importFirst(paths) {
  const errors = [];
  for (const path of paths) {
    const url = new URL(path, import.meta.url);
    if (!existsSync(fileURLToPath(url))) continue;
    try {
      return await import(url.href);
    } catch (err) {
      errors.push(`${path}: ${err.message}`);
    }
  }
  throw new Error(`none of ${paths.join(', ')} could be imported${errors.length ? `: ${errors.join('; ')}` : ''}`);
}

/** The flags a help text lists, long (--name) and short (-c). */
function flagsOf(help) {
  const long = new Set(help.match(/--[a-z][a-zA-Z0-9-]*/g));
  const short = new Set([...help.matchAll(/(?<![\w-])-[a-zA-Z](?![\w-])/g)].map((m) => m[0]));
  return { long: [...long], short: [...short] };
}

test('every flag of --help and compare --help is in the docs', async () => {
  const { HELP } = await importFirst(['../src/commands/flags.js', '../src/flags.js']);
  const { COMPARE_HELP } = await importFirst(['../src/compare/args.js', '../src/compare-args.js']);
  assert.equal(typeof HELP, 'string');
  assert.equal(typeof COMPARE_HELP, 'string');
  const docs = PAGES.map(read).join('\n');
  const missing = [];
  for (const [which, help] of [['--help', HELP], ['compare --help', COMPARE_HELP]]) {
    const { long, short } = flagsOf(help);
    assert.ok(long.length >= (which === '--help' ? 40 : 15), `${which}: only ${long.join(' ')}`);
    for (const flag of long) {
      const escaped = flag.replace(/[-]/g, '\\-');
      if (!new RegExp(`${escaped}(?![a-zA-Z0-9-])`).test(docs)) missing.push(`${which}: ${flag}`);
    }
    for (const flag of short) {
      if (!new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(docs)) missing.push(`${which}: ${flag}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('README.md keeps the commands CI and newcomers rely on', () => {
  const readme = read(join(ROOT, 'README.md'));
  assert.match(readme, /^npm install && npm start\s/m);
  assert.match(readme, /^npm test\s/m);
  const lines = readme.split('\n').length;
  assert.ok(lines <= 260, `README.md is ${lines} lines: the reference belongs in doc/`);
});
