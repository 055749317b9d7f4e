// The layout of src/ (doc/design.md): folders by job, and imports that point downward only.
//   the doors (cli.js, index.js), commands/, compare/ → run/ → protocols (http1/, http2/,
//   websocket/, grpc/)
//   → socket.js and driver.js; results/ formats what a run produced.
// Only the doors, the commands and a --cores child (run/worker.js) take the runtime's
// facilities from runtimes/: the core is handed an adapter, and never asks which runtime it is.

// The imports are the same on every runtime: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname, relative, normalize } from 'node:path';
import { Parser } from 'acorn';
import { full as walkFull } from 'acorn-walk';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : name.endsWith('.js') ? [path] : [];
  });
}

const files = walk(SRC).map((path) => relative(SRC, path));
const text = (file) => readFileSync(join(SRC, file), 'utf8');

// Static and dynamic imports of relative modules, as paths from the root ('src/run/run.js',
// 'runtimes/index.js').
function importsOf(file) {
  const found = [];
  for (const m of text(file).matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.\.?\/[^'"]+)['"]/g)) {
    found.push(normalize(relative(ROOT, join(SRC, dirname(file), m[1]))));
  }
  return found;
}

const folder = (path) => (path.startsWith('src/') ? path.split('/').slice(1, -1).join('/') || '.' : path.split('/')[0]);
const PROTOCOLS = ['http1', 'http2', 'websocket', 'grpc'];
const DOORS = ['cli.js', 'index.js'];

test('src/ holds the two doors and the interfaces at its top, the rest in folders by job', () => {
  const top = files.filter((f) => !f.includes('/')).sort();
  assert.deepEqual(top, ['cli.js', 'driver.js', 'index.js', 'socket.js', 'version.js']);
  const folders = [...new Set(files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))].sort();
  assert.deepEqual(folders, ['commands', 'compare', 'distribute', 'grpc', 'http1', 'http2', 'outputs', 'requests', 'results', 'run', 'script', 'websocket']);
});

test('protocols import nothing from the run, results, commands or runtimes', () => {
  for (const file of files.filter((f) => PROTOCOLS.includes(folder('src/' + f)))) {
    for (const target of importsOf(file)) {
      const where = folder(target);
      assert.ok(where === folder('src/' + file) || where === '.', `${file} imports ${target}`);
      assert.ok(!DOORS.some((d) => target === `src/${d}`), `${file} imports ${target}`);
    }
  }
});

test('results import nothing of the client loop, the protocols, the scripts or the commands', () => {
  for (const file of files.filter((f) => f.startsWith('results/'))) {
    for (const target of importsOf(file)) {
      assert.ok(!['src/run/run.js', 'src/driver.js'].includes(target), `${file} imports ${target}`);
      assert.ok(![...PROTOCOLS, 'commands', 'compare', 'runtimes'].includes(folder(target)), `${file} imports ${target}`);
      assert.ok(!target.startsWith('src/script/'), `${file} imports ${target}`);
    }
  }
});

test('only the doors, the commands and the --cores children import runtimes/; the core names no runtime', () => {
  const allowed = (f) => DOORS.includes(f) || f.startsWith('commands/') || f === 'compare/command.js' || f === 'run/worker.js' || f === 'script/worker.js' || f === 'outputs/out-thread.js';
  for (const file of files) {
    const body = text(file);
    if (!allowed(file)) {
      assert.ok(!importsOf(file).some((t) => t.startsWith('runtimes/')), `${file} imports runtimes/`);
      assert.doesNotMatch(body, /from ['"]node:|\bBun\.|\bDeno\.|\bprocess\.|require\(/, file);
    } else {
      assert.doesNotMatch(body, /from ['"]node:|globalThis\.(Bun|Deno)/, `${file} gets runtime facilities from runtimes/`);
    }
  }
});

test('no file in src/ is over 600 lines but the HTTP/1.1 response parser (one state machine)', () => {
  for (const file of files) {
    const lines = text(file).split('\n').length;
    if (file === 'http1/parser.js') continue;
    assert.ok(lines <= 600, `${file}: ${lines} lines`);
  }
});

test('scripts import nothing from the commands, and no two commands import each other', () => {
  const isCommand = (path) => path.startsWith('src/commands/');
  const edges = new Map(files.map((f) => [`src/${f}`, importsOf(f)]));
  for (const [file, targets] of edges) {
    if (file.startsWith('src/script/')) assert.deepEqual(targets.filter(isCommand), [], `${file} imports a command`);
    if (!isCommand(file)) continue;
    for (const t of targets.filter(isCommand)) assert.ok(!(edges.get(t) || []).includes(file), `${file} and ${t} import each other`);
  }
});

test('no folder of src/ holds more than 15 files at its top: one that outgrows a screen is split by job', () => {
  const count = new Map();
  for (const f of files) count.set(dirname(f), (count.get(dirname(f)) || 0) + 1);
  for (const [dir, n] of count) assert.ok(n <= 15, `src/${dir} holds ${n} files at its top`);
});

test('no import circle in src/: what two modules both need lives below them', () => {
  const edges = new Map(files.map((f) => [`src/${f}`, importsOf(f).filter((t) => t.startsWith('src/'))]));
  const state = new Map(); // 1: on the path being walked, 2: done
  const path = [];
  const visit = (file) => {
    state.set(file, 1);
    path.push(file);
    for (const t of edges.get(file) || []) {
      if (state.get(t) === 1) assert.fail(`import circle: ${[...path.slice(path.indexOf(t)), t].join(' → ')}`);
      if (!state.has(t)) visit(t);
    }
    path.pop();
    state.set(file, 2);
  };
  for (const file of edges.keys()) if (!state.has(file)) visit(file);
});

// The scripts' folders from the top down (doc/design.md): a file imports from its own folder or
// from one below its own, never above. k6/ is one layer, its modules' folders (http/, grpc/, ...)
// with it.
const SCRIPT_LAYERS = ['script', 'secrets', 'vu', 'transform', 'summary', 'k6', 'net', 'metrics', 'scenarios', 'eventloop'];
const layerOf = (path) => {
  const parts = path.split('/');
  return parts.length === 3 ? 'script' : parts[2];
};

test("the scripts' folders import downward only: the run, a VU, the transform, the k6 modules, then what they use", () => {
  for (const file of files.filter((f) => f.startsWith('script/'))) {
    const from = SCRIPT_LAYERS.indexOf(layerOf(`src/${file}`));
    assert.ok(from >= 0, `src/${file}: a folder of src/script/ not in the layout test's list`);
    for (const target of importsOf(file).filter((t) => t.startsWith('src/script/'))) {
      const to = SCRIPT_LAYERS.indexOf(layerOf(target));
      assert.ok(to >= from, `src/${file} imports ${target}, a folder above its own`);
    }
  }
});

// A function reads at once: at most 80 lines. The exceptions are the hot paths' state machines,
// where one loop over the bytes with its state in locals is the point (each says so above it).
const LONG_FUNCTIONS = new Set(['http1/parser.js parseHead', 'http2/hpack.js decode', 'http2/connection.js next']);

test('no function in src/ or runtimes/ is over 80 lines but the three hot-path state machines', () => {
  const long = [];
  const runtimes = walk(join(ROOT, 'runtimes')).map((path) => relative(SRC, path));
  for (const file of [...files, ...runtimes]) {
    const ast = Parser.parse(text(file), { ecmaVersion: 'latest', sourceType: 'module', locations: true, allowHashBang: true });
    walkFull(ast, (node) => {
      if (!/Function/.test(node.type) || node.loc.end.line - node.loc.start.line + 1 <= 80) return;
      long.push(`${file}:${node.loc.start.line}`);
    });
  }
  const named = long.map((at) => at.split(':')[0]);
  assert.ok(long.length <= LONG_FUNCTIONS.size, `functions over 80 lines: ${long.join(', ')}`);
  for (const file of named) assert.ok([...LONG_FUNCTIONS].some((e) => e.startsWith(file + ' ')), `${file} has a function over 80 lines`);
});

// What a command loads as it starts: the files its static imports reach from these.
function staticallyReached(...from) {
  const staticImports = (path) => {
    const source = readFileSync(join(ROOT, path), 'utf8');
    return [...source.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm)].map((m) => m[1] || m[2]);
  };
  const seen = new Set(from);
  const queue = [...seen];
  while (queue.length > 0) {
    const path = queue.shift();
    for (const spec of staticImports(path)) {
      const target = spec.startsWith('.') ? normalize(join(dirname(path), spec)) : spec;
      if (seen.has(target)) continue;
      seen.add(target);
      if (spec.startsWith('.')) queue.push(target);
    }
  }
  return seen;
}

// A plain load run (`loadtest URL`) loads what it runs: a script's machinery (the transform and
// its parser, the k6 modules) and --out's are imported only when asked for, not at start-up
// (143 modules were 107, and node's start-up 0.58 s of CPU 0.51).
test("a plain load run's static imports reach no script machinery", () => {
  const seen = staticallyReached('src/cli.js', 'src/commands/load.js');
  const heavy = [...seen].filter((p) => /^(acorn|amaro)|^src\/script\/(transform|k6|vu)\/|^runtimes\/scripts\/(load|host|browser|package-modules)\.js$/.test(p));
  assert.deepEqual(heavy, []);
  assert.ok(seen.has('src/run/run.js') && seen.has('src/http1/parser.js'), 'the walk reached the run');
});

// A scripted run loads k6/html, k6/ws, k6/websockets and the experimental fs, csv and streams only
// when a module of its script names them (src/script/transform/lazy.js): a script of k6/http alone
// loaded 197 modules, now 178.
test("a scripted run's static imports reach none of the k6 modules a script names to have", () => {
  const seen = staticallyReached('src/cli.js', 'src/commands/run.js', 'runtimes/scripts/load.js', 'runtimes/scripts/host.js');
  const lazy = [...seen].filter((p) => /^src\/script\/k6\/(html\/html(-(?!lib|load)[a-z-]+)?\.js|ws\/|fs\.js|csv\.js|streams\.js|grpc\/|browser\/)/.test(p));
  assert.deepEqual(lazy, []);
  assert.ok(seen.has('src/script/k6/http/http.js') && seen.has('src/script/vu/vu.js'), 'the walk reached the VU');
});
