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

test('results import nothing of the client loop, the protocols or the commands', () => {
  for (const file of files.filter((f) => f.startsWith('results/'))) {
    for (const target of importsOf(file)) {
      assert.ok(!['src/run/run.js', 'src/driver.js'].includes(target), `${file} imports ${target}`);
      assert.ok(![...PROTOCOLS, 'commands', 'compare', 'runtimes'].includes(folder(target)), `${file} imports ${target}`);
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
