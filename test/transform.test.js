// The script transform (src/script/transform/transform.js) on code written without semicolons: a call it
// rewrites at the start of a line must not continue the line above. Generated programs put each
// kind of call that is rewritten after each kind of statement that could be continued, in each
// place a statement may stand; the transformed module keeps the original's statements, one for
// one, and running it makes the calls the original makes.

// The transform is the core's pure logic: under node (scope.js).
import { oneRuntimeTest as test } from './scope.js';
import assert from 'node:assert/strict';
import { scriptLogged } from './servers.js';
import { Parser } from 'acorn';
import { full as walkFull } from 'acorn-walk';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformModule, ScriptError } from '../src/script/transform/transform.js';
import { loops } from '../src/script/eventloop/loops.js';
import { drive, made, waiting, isWait, waits } from '../src/script/eventloop/wait.js';

// What the transformed code asks of its VU besides the k6 modules (src/script/vu/vu.js).
const HELPERS = { loops, drive, made, isWait, waits, reexported: (x) => x, loop: new EventLoop(), math: Math };
import { mulberry32 } from './random.js';
import { EventLoop } from '../src/script/eventloop/event-loop.js';

// Statements whose last token an opening parenthesis would continue (a call of what came before).
const BEFORE = [
  'const a = f',
  'let b = f',
  'var c = f',
  'g = f',
  'n++',
  'n--',
  'g = obj.fn',
  'g = arr[0]',
  'g = `t${n}`',
  "g = 'text'",
  'g = 1',
  'g = f()',
  'g = function () { return 1 }',
  'g = () => 2',
  'g = { x: 1 }',
  'class K {}',
  'g = obj?.fn',
  'g = n > 1 ? f : obj.fn',
];
// Calls the transform rewrites, as a statement of their own.
const CALLS = [
  "http.get('/a')",
  'sleep(0)',
  "http.get('/b').json()",
  "http.get('/c').status",
  'helper()',
  "http.get('/d').foo().bar()",
  "obj.get('/e')",
];
// Where a statement stands: each wraps a list of lines.
const PLACES = [
  (lines) => lines,
  (lines) => ['export default function () {', ...lines, '}'],
  (lines) => ['if (n >= 0) {', ...lines, '}'],
  (lines) => ['switch (n) {', 'case 0:', ...lines, '}'],
  (lines) => ['for (let i = 0; i < 1; i++) {', ...lines, '}'],
  (lines) => ['const o = {', 'm() {', ...lines, '}', '}', 'o.m()'],
];
const HEAD = [
  "import http from 'k6/http'",
  "import { sleep } from 'k6'",
  'let n = 0',
  'let g = null',
  "const f = () => 'f'",
  'const arr = [f]',
  "const obj = { fn: f, get: (u) => u, foo() { return this }, bar() { return 1 } }",
  "function helper() { return http.get('/h') }",
];

const parse = (code) => Parser.parse(code, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });

// The number of statements in each block and each case below the top level, in source order
// (empty statements left out: the transform may write a semicolon of its own). A function the
// transform drives (src/script/transform/suspend.js) counts as written: the block that returns
// VU.drive(...) is its own, and the generator's body is the function's (or, for an arrow
// function whose body was an expression, none).
const isDrive = (n) => n && n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.callee.object.name === '__loadtest_vu' && n.callee.property.name === 'drive';
function blockShape(root) {
  const lists = [];
  const skip = new Set();
  walkFull(root, (node) => {
    if (node.type === 'BlockStatement' && node.body.length === 1 && node.body[0].type === 'ReturnStatement' && isDrive(node.body[0].argument)) skip.add(node);
    if (node.type === 'ArrowFunctionExpression' && isDrive(node.body)) skip.add(node.body.arguments[0].callee.object.body);
  });
  walkFull(root, (node) => {
    if (node === root || skip.has(node)) return;
    if (node.type === 'BlockStatement' || node.type === 'StaticBlock') lists.push([node.start, node.body]);
    else if (node.type === 'SwitchCase') lists.push([node.start, node.consequent]);
  });
  // A lone return (the generator's body made from an arrow function's expression) is no list
  // of statements that a line could continue.
  const lone = (list) => list.length === 1 && list[0].type === 'ReturnStatement';
  return lists.sort((a, b) => a[0] - b[0]).map(([, list]) => list.filter((s) => s.type !== 'EmptyStatement' && !besideFunction(s))).filter((list) => !lone(list)).map((list) => list.length);
}
// Statements at the top level, less imports and the generator each declared function has beside it.
const besideFunction = (s) =>
  (s.type === 'FunctionDeclaration' && s.generator && s.id.name.startsWith('__loadtest_g')) ||
  (s.type === 'ExpressionStatement' && s.expression.type === 'CallExpression' && s.expression.arguments[0]?.name === '__loadtest_default'); // its name
const topLevel = (list) => list.filter((s) => s.type !== 'EmptyStatement' && s.type !== 'ImportDeclaration' && !besideFunction(s)).length;

// The transformed module run with stand-ins for k6's modules: the calls it makes, in order.
// `later`: http's functions return promises, as ours do (k6's return at once).
async function callsOf(code, { later = false } = {}) {
  const calls = [];
  const response = { status: 200, json: () => ({}), foo() { return this; }, bar: () => 1 };
  const answer = (value) => (later ? waiting(Promise.resolve(value)) : value);
  const http = {
    get: (u) => (calls.push(`get ${u}`), answer(response)),
    batch: (list) => (calls.push(`batch ${list.length}`), answer(list.map(() => response))),
    asyncRequest: (method, u) => (calls.push(`asyncRequest ${u}`), Promise.resolve(response)),
  };
  const k6 = { sleep: (s) => void calls.push(`sleep ${s}`) };
  // As k6's: the factory is called at once and must give an array.
  class SharedArray {
    constructor(name, factory) {
      const rows = factory();
      if (!Array.isArray(rows)) throw new Error(`SharedArray '${name}': not an array: ${rows}`);
      calls.push(`shared ${JSON.stringify(rows)}`);
    }
  }
  const vu = {
    open: () => '',
    console,
    module: (name) => (name === 'k6/http' ? { default: http } : name === 'k6/data' ? { SharedArray } : k6),
    ...HELPERS,
  };
  const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
  const exports = await (await import(url)).default(vu);
  if (exports.default) await exports.default();
  return calls;
}

test('a rewritten call on a line of its own after a statement without a semicolon stays a statement of its own', async () => {
  let programs = 0;
  for (const place of PLACES) {
    for (const before of BEFORE) {
      for (const call of CALLS) {
        const source = [...HEAD, ...place([before, call])].join('\n') + '\n';
        const { code } = transformModule(source, 'gen.js');
        let transformed;
        try {
          transformed = parse(code);
        } catch (err) {
          assert.fail(`${err.message} in the transform of:\n${source}\n---\n${code}`);
        }
        // The module's body is the factory's async function: its statements are the original's,
        // after its exports object (two statements) and one per import (the VU's bindings), and
        // before the return of the exports.
        const original = parse(source);
        const inner = transformed.body.find((s) => s.type === 'ExportDefaultDeclaration').declaration.body.body.at(-1).argument.callee.body;
        const imports = original.body.filter((s) => s.type === 'ImportDeclaration').length;
        const why = `statements differ:\n${source}\n---\n${code}`;
        assert.equal(topLevel(inner.body) - imports - 3, topLevel(original.body), why);
        assert.deepEqual(blockShape(inner), blockShape(original), why);
        programs++;
      }
    }
  }
  assert.equal(programs, PLACES.length * BEFORE.length * CALLS.length);
});

test('the calls a program without semicolons makes are those written', async () => {
  const source = `import http from 'k6/http'
import { sleep } from 'k6'
const credentials = { user: 'u' }
http.get('/login')
let n = 1
n++
sleep(1)
const xs = [1, 2]
http.get('/after-array').json()
export default function () {
  const r = http.get('/first')
  http.get('/second')
  const t = \`\${r.status}\`
  sleep(0.5)
}
`;
  const { code } = transformModule(source, 'no-semicolons.js');
  assert.deepEqual(await callsOf(code), ['get /login', 'sleep 1', 'get /after-array', 'get /first', 'get /second', 'sleep 0.5']);
});

test('a loop whose callback makes no request stays the built-in: SharedArray\'s factory returns its array', async () => {
  const source = `import http from 'k6/http'
import { SharedArray } from 'k6/data'
const open = () => 'user,pass\\nalice,a1\\n\\nbob,b2'
const users = new SharedArray('users', function () {
  return open().split('\\n').slice(1).filter((l) => l).map((line) => {
    const [user, pass] = line.split(',')
    return { user, pass }
  })
})
const sorted = [3, 1, 2].sort((a, b) => a - b)
export default function () {
  // A callback that makes a request is awaited in turn, and so is one that calls such a callback.
  const pages = ['/a', '/b'].map((p) => http.get(p).status)
  ;[['/c'], ['/d']].forEach((group) => group.map((p) => http.get(p)))
  http.get('/' + pages.join(',') + '/' + sorted.join(''))
}
`;
  const { code } = transformModule(source, 'shared.js');
  assert.deepEqual(await callsOf(code), ['shared [{"user":"alice","pass":"a1"},{"user":"bob","pass":"b2"}]', 'get /a', 'get /b', 'get /c', 'get /d', 'get /200,200/123']);
});

test('in an async function of the script, what returns at once in k6 is not a promise; asyncRequest still is', async () => {
  const source = `import http from 'k6/http'
import { sleep } from 'k6'
function helper() { return http.get('/h') }
const api = { list() { return http.batch(['/l1', '/l2']) } }
export default async function () {
  await Promise.resolve()
  const r = http.get('/x')
  sleep(r.status)
  const b = http.batch(['/a'])
  sleep(b.length)
  const p = http.asyncRequest('GET', '/y')
  sleep(p instanceof Promise ? 1 : 0)
  sleep((await p).status)
  sleep(helper().status)
  sleep(api.list().length)
  const own = await http.get('/awaited')
  sleep(own.status)
}
`;
  const { code } = transformModule(source, 'async.js');
  assert.deepEqual(await callsOf(code, { later: true }), [
    'get /x', 'sleep 200', 'batch 1', 'sleep 1', 'asyncRequest /y', 'sleep 1', 'sleep 200',
    'get /h', 'sleep 200', 'batch 2', 'sleep 2', 'get /awaited', 'sleep 200',
  ]);
});

// Every JavaScript file of the packages npm installed for this repository (over a thousand: acorn,
// htmlparser2, mitata, loadtest 8 and their own dependencies), as a script's module: what the
// transform takes must come out as a module that parses. (A module it refuses, such as one that
// requires an npm package, is one line, not a broken file.)
// The files of node_modules whose names `pattern` matches, smaller than `most` bytes.
function moduleFiles(pattern, most) {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && pattern.test(e.name) && statSync(p).size < most) files.push(p);
    }
  };
  walk(fileURLToPath(new URL('../node_modules/', import.meta.url)));
  return files;
}

test('the transform of every module in node_modules parses', () => {
  const files = moduleFiles(/\.(m?js|cjs)$/, 1e6);
  let transformed = 0;
  const broken = [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    try {
      parse(source);
    } catch {
      continue; // not a module (a script that only a sloppy-mode engine reads)
    }
    let code;
    try {
      // With an import of k6/http, as a script's module: without one, a module is taken as a
      // library that cannot wait and is left as written (nothing of the transform to test).
      code = transformModule(`import http from 'k6/http';${source.replace(/^#!.*/, '')}`, file).code;
    } catch (err) {
      if (err instanceof ScriptError) continue;
      broken.push(`${file}: the transform threw ${err.message}`);
      continue;
    }
    try {
      parse(code);
      transformed++;
    } catch (err) {
      broken.push(`${file}: ${err.message}`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(transformed > 500, `${transformed} modules transformed of ${files.length} files`);
});

test('shapes the corpus of modules found: a loop given a parenthesized callback, a minified private method, a #! line, imports without semicolons', async () => {
  const sources = [
    "import http from 'k6/http'\nconst rows = Object.keys({ a: 1 }).map((function (k) { return http.get(k) })).sort()\nexport default function () {}\n",
    "import http from 'k6/http'\nclass C{static#m(u){return http.get(u)}static run(u){return C.#m(u)}}\nexport default function () { C.run('/x') }\n",
    "#!/usr/bin/env k6\nimport http from 'k6/http'\nexport default function () { http.get('/x') }\n",
    "import http from 'k6/http'\nimport * as a from 'node:path'\nimport * as b from 'node:url'\nexport default function () { http.get(a.sep + typeof b) }\n",
    "import http from 'k6/http'\nexport default function () {\n  ['/a', '/b']\n    .forEach(\n      (u) => http.get(u),\n    )\n  http.get('/line-6')\n}\n",
  ];
  for (const source of sources) {
    const { code } = transformModule(source, 'shape.js');
    assert.doesNotThrow(() => parse(code), code);
  }
  // The forEach's lines are kept: the call after it is still on line 7.
  const { code } = transformModule(sources[4], 'lines.js');
  assert.match(code.split('\n')[6], /http\.get\('\/line-6'\)/);
  assert.deepEqual(await callsOf(transformModule(sources[1], 'c.js').code), ['get /x']);
});

test('a module that imports nothing is a library left as written; a function used as a constructor stays one', async () => {
  // papaparse's shape: unknown calls everywhere, classes from functions and prototypes.
  const library = `function Base(x) { this.x = helper(x) }
function helper(x) { return x * 2 }
function Child(x) { Base.call(this, x) }
Child.prototype = Object.create(Base.prototype)
export function parse(text) { return { data: text.split(',').map((v) => new Child(Number(v)).x) } }
`;
  assert.doesNotMatch(transformModule(library, 'lib.js').code, /drive|\bawait\b/);
  // In a script (it imports k6/http), a function used with new or through its prototype that
  // may wait is driven, and still builds its object when it does not wait.
  const script = `import http from 'k6/http'
function Client(base) { this.base = normalize(base) }
function normalize(base) { return base.replace(/\\/$/, '') }
Client.prototype.get = function (path) { return http.get(this.base + path) }
const c = new Client('/api/')
export default function () { http.get('/status/' + c.get('/x').status) }
`;
  const { code } = transformModule(script, 'client.js');
  assert.match(code, /function Client\(/);
  assert.deepEqual(await callsOf(code), ['get /api/x', 'get /status/200']);
});

// What the transform guarantees (src/script/transform/suspend.js): code that does not wait at run time
// behaves exactly as written. Each program runs twice with the same stand-ins, once as written
// and once transformed, and must leave the same log: getters, setters, constructors, a sort
// comparator, a replacer, a Proxy's trap, `arguments`, a function expression that names itself,
// labels, finally, private methods, a generator, default values with side effects, each calling
// functions the transform cannot tell from ones that make requests.
const SAME = [
  `import http from 'k6/http'
const log = globalThis.__log
function helper(x) { return String(x) }
function label(x) { return helper(x) + '!' }
function cmp(a, b) { return Number(helper(a)) - Number(helper(b)) }
function throwing() { throw new Error(label('boom')) }
const o = { get name() { return label('g') }, set name(v) { log.push('set ' + label(v)) }, m(x) { return label(x) + this.k }, k: 'k' }
class C {
  constructor(a, b = log.push('default ' + a)) { this.a = label(a) }
  static make(...xs) { return new C(...xs) }
  get twice() { return label(this.a) + label(this.a) }
  set one(v) { this.a = label(v) }
  #p(x) { return label(x) }
  callP(x) { return this.#p(x) }
}
export default function () {
  log.push(o.name); o.name = 'v'; log.push(o.m('m'))
  log.push([3, 1, 2].sort((a, b) => cmp(a, b)).join())
  const c = C.make('x'); c.one = 'y'
  log.push(c.a, c.twice, c.callP('p'), c instanceof C, C.length, label.length, C.name, label.name, o.m.length)
  log.push(JSON.stringify({ a: 1, b: 2 }, (k, v) => (typeof v === 'number' ? label(v) : v)))
  log.push('abc'.replace(/b/, (m) => label(m.toUpperCase())))
  function args() { return [].slice.call(arguments).map((a) => label(a)).join() + arguments.length }
  log.push(args(1, 2, 3), args())
  const fact = function f(n) { return n <= 1 ? 1 : n * f(n - 1) + Number(helper(0)) }
  log.push(fact(5))
  let n = 0
  outer: for (const i of [1, 2, 3]) { for (const j of [1, 2]) { if (label(j) === '2!') continue outer; n += i } }
  log.push(n)
  try { throwing() } catch (e) { log.push('caught ' + e.message) } finally { log.push(label('finally')) }
  const trapped = new Proxy({}, { get: (t, k) => (log.push('trap ' + String(k)), label(String(k))) })
  const give = () => trapped
  log.push(give().x, typeof give())
  const gen = function* () { yield label(1); yield label(2) }
  log.push([...gen()].join())
  log.push(Object.entries({ a: 1 }).map(([k, v]) => label(k + v)).join())
  log.push([1, 2, 3].reduce((acc, x) => acc + Number(helper(x)), 0))
  log.push(new (function Old(x) { this.x = label(x) })('o').x)
  const count = { n: 0 }
  const withDefault = ({ a = count.n++ } = {}, b = label(count.n++)) => a + b
  log.push(withDefault(), count.n, withDefault({ a: 5 }, 'b'), count.n)
  log.push([[1, 2], [3]].flatMap((xs) => xs.map((x) => label(x))).join())
  http.get('/done')
}
`,
  // A data file read by a helper whose loop's callback calls another helper of the script.
  `import http from 'k6/http'
import { SharedArray } from 'k6/data'
const log = globalThis.__log
function parse(line) { const [user, pass] = line.split(','); return { user, pass } }
function load(text) { const out = []; text.split('\\n').forEach((l) => out.push(parse(l))); return out }
const users = new SharedArray('users', () => load('a,1\\nb,2'))
export default function () {
  log.push(JSON.stringify(users), users.length)
  http.get('/done')
}
`,
];

test('code that does not wait at run time behaves as written: the same effects in the same order', async () => {
  for (const source of SAME) {
    const run = async (code, vu) => {
      const log = [];
      globalThis.__log = log;
      globalThis.__http = { get: (u) => void log.push(`get ${u}`) };
      const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
      const ns = await import(url);
      const exports = vu ? await ns.default(vu) : ns;
      const r = exports.default();
      if (r instanceof Promise) await r;
      return log;
    };
    globalThis.__SharedArray = class {
      constructor(name, factory) {
        return factory();
      }
    };
    const written = await run(source.replace("import http from 'k6/http'", 'const http = globalThis.__http').replace("import { SharedArray } from 'k6/data'", 'const SharedArray = globalThis.__SharedArray'));
    class SharedArray {
      constructor(name, factory) {
        return factory();
      }
    }
    const vu = { open: () => '', console, module: (name) => (name === 'k6/data' ? { SharedArray } : { default: globalThis.__http }), ...HELPERS };
    const { code } = transformModule(source, 'same.js');
    assert.ok(code.includes('drive'), 'the program has functions the transform drives');
    assert.deepEqual(await run(code, vu), written);
    assert.equal(written.at(-1), 'get /done');
  }
  delete globalThis.__log;
  delete globalThis.__http;
});

// Programs made at random from the shapes above (functions declared, assigned, as arrows, as
// object and class methods and getters, calling each other from loops, comparators, replacers,
// reducers, try/finally, with `this` and `arguments`): as written and transformed, the same log.
function randomProgram(rand) {
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const n = 3 + Math.floor(rand() * 4);
  const lines = ["import http from 'k6/http'", "import { sleep } from 'k6'", "import { SharedArray } from 'k6/data'", 'const log = globalThis.__log', 'function helper(x) { return x % 11 }'];
  const call = (i, arg) => (i === 0 ? `helper(${arg})` : `f${Math.max(0, i - 1 - Math.floor(rand() * 2))}(${arg}, 2)`);
  for (let i = 0; i < n; i++) {
    const form = pick(['declaration', 'arrow', 'expression', 'method', 'class', 'getter', 'static']);
    const plain = form === 'declaration' || form === 'expression' || form === 'method' || form === 'class' || form === 'static';
    const statements = [];
    const count = 1 + Math.floor(rand() * 3);
    for (let k = 0; k < count; k++) {
      statements.push(
        pick([
          `r = r + ${call(i, 'r % 7')}`,
          `r = [r, 1].map((v) => v + ${call(i, 'v % 5')}).reduce((s, v) => s + v, 0)`,
          `r = [3, 1, 2].sort((x, y) => (${call(i, 'x')} - ${call(i, 'y')}) || x - y)[0] + r`,
          `for (const v of [1, 2]) { if (v === 2) continue; r += ${call(i, 'v')} }`,
          `try { if (r % 3 === 0) throw new Error('e' + r); r += 1 } catch (e) { log.push(e.message) } finally { log.push('fin ${i}') }`,
          `r = JSON.stringify({ r }, (k, v) => (typeof v === 'number' ? v + ${call(i, '1')} : v)).length + r`,
          `r = 'abc'.replace(/b/, () => String(${call(i, 'r % 3')})).length + r`,
          `log.push('f${i} ' + r)`,
          `sleep(0)`,
          `http.get('/f${i}/' + r)`,
          `[1, 2].forEach((v) => { log.push('each ' + v); r += ${call(i, 'v')} })`,
          plain ? 'r += arguments.length' : 'r += 1',
          form === 'method' || form === 'class' ? 'r += this.k' : 'r += 2',
        ]),
      );
    }
    const body = `{ let r = a + b; ${statements.join(';\n  ')};\n  return r % 1000 }`;
    if (form === 'declaration') lines.push(`function f${i}(a, b = 1) ${body}`);
    else if (form === 'arrow') lines.push(`const f${i} = (a, b = 1) => ${body}`);
    else if (form === 'expression') lines.push(`const f${i} = function (a, b = 1) ${body}`);
    else if (form === 'method') lines.push(`const o${i} = { k: ${i}, m(a, b = 1) ${body} }`, `const f${i} = (a, b) => o${i}.m(a, b)`);
    else if (form === 'class') lines.push(`class C${i} { constructor() { this.k = ${i} } m(a, b = 1) ${body} }`, `const c${i} = new C${i}()`, `const f${i} = (a, b) => c${i}.m(a, b)`);
    else if (form === 'static') lines.push(`class S${i} { static m(a, b = 1) ${body} }`, `const f${i} = (a, b) => S${i}.m(a, b)`);
    else lines.push(`const g${i} = { a: 0, get v() { const a = this.a, b = 1; return (() => ${body})() } }`, `const f${i} = (a) => (g${i}.a = a, g${i}.v)`);
  }
  lines.push(`const shared = new SharedArray('s', () => [f${n - 1}(1, 2)])`);
  lines.push(`export default function () {\n  log.push('start ' + shared[0])\n  log.push('top ' + f${n - 1}(3, 4))\n  log.push('next ' + f${Math.floor(rand() * n)}(5, 6))\n  http.get('/done')\n}`);
  return lines.join('\n') + '\n';
}

test('programs made at random behave the same as written and transformed, when nothing waits', async () => {
  const rand = mulberry32(41);
  const stubs = (log) => {
    globalThis.__log = log;
    const http = { get: (u) => void log.push(`get ${u}`) };
    const k6 = { sleep: (s) => void log.push(`sleep ${s}`) };
    class SharedArray {
      constructor(name, factory) {
        const rows = factory();
        log.push(`shared ${JSON.stringify(rows)}`);
        return rows;
      }
    }
    return { http, k6, SharedArray };
  };
  const run = async (code, transformed) => {
    const log = [];
    const { http, k6, SharedArray } = stubs(log);
    globalThis.__stubs = { http, k6, SharedArray };
    const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
    const ns = await import(url);
    const vu = { open: () => '', console, ...HELPERS, module: (name) => (name === 'k6/http' ? { default: http } : name === 'k6/data' ? { SharedArray } : k6) };
    const exports = transformed ? await ns.default(vu) : ns;
    const r = exports.default();
    if (r instanceof Promise) await r;
    return log;
  };
  let driven = 0;
  for (let p = 0; p < 150; p++) {
    const source = randomProgram(rand);
    const written = source
      .replace("import http from 'k6/http'", 'const { http } = globalThis.__stubs')
      .replace("import { sleep } from 'k6'", 'const sleep = globalThis.__stubs.k6.sleep')
      .replace("import { SharedArray } from 'k6/data'", 'const { SharedArray } = globalThis.__stubs');
    const { code } = transformModule(source, `random-${p}.js`);
    if (code.includes('drive(')) driven++;
    const expected = await run(written, false);
    assert.deepEqual(await run(code, true), expected, `program ${p}:\n${source}\n---\n${code}`);
    assert.equal(expected.at(-1), 'get /done');
  }
  assert.ok(driven > 100, `${driven} programs with driven functions`);
  delete globalThis.__log;
  delete globalThis.__stubs;
});

// The modules of node_modules that import, require and reach nothing (about a hundred: tables,
// parsers, helpers of acorn, htmlparser2's entities, mitata, ...), each evaluated as written and
// transformed (with an import of k6/http, so that the transform does its work): what each
// exports is the same, function names and lengths, and every value JSON can write.
test('modules of node_modules that import nothing export the same as written and transformed', async () => {
  const files = moduleFiles(/\.m?js$/, 3e5);
  // The host's own objects, which a module may export as they are (@opentelemetry/core's
  // performance): the same object both times, its figures moving meanwhile.
  const host = new Set([globalThis.performance, globalThis.crypto, globalThis.console].filter(Boolean));
  const shape = (exports) => {
    const out = {};
    for (const k of Object.keys(exports).sort()) {
      const v = exports[k];
      if (host.has(v)) {
        out[k] = 'the host object';
        continue;
      }
      let json;
      try {
        json = JSON.stringify(v);
      } catch {
        json = 'unwritable';
      }
      // (The name of an anonymous default export is 'default', but bun makes one of the URL.)
      out[k] = typeof v === 'function' ? `function ${k === 'default' ? '' : v.name}/${v.length}` : `${typeof v} ${json}`;
    }
    return out;
  };
  const vu = { open: () => '', console, ...HELPERS, module: () => ({ default: {} }) };
  let compared = 0;
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    let ast;
    try {
      ast = parse(source);
    } catch {
      continue;
    }
    const exports = ast.body.some((n) => /^Export/.test(n.type));
    const reaches = ast.body.some((n) => n.type === 'ImportDeclaration' || n.source) || /\brequire\s*\(|\bprocess\b|\bimport\s*\(|import\.meta/.test(source);
    if (!exports || reaches) continue;
    const url = (code) => `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
    let written;
    try {
      written = shape(await import(url(source.replace(/^#!.*/, ''))));
    } catch {
      continue; // needs what a data: URL cannot give it
    }
    const { code } = transformModule(`import http from 'k6/http';${source.replace(/^#!.*/, '')}`, file);
    const transformed = shape(await (await import(url(code))).default(vu));
    assert.deepEqual(transformed, written, file);
    compared++;
  }
  assert.ok(compared >= 50, `${compared} modules compared`);
});

test('a method that uses super and makes requests waits for them (its body an async arrow function, which sees super)', async () => {
  const source = `import http from 'k6/http'
import { sleep } from 'k6'
class Base { get(path) { return http.get(path) } }
class Users extends Base { list() { const r = super.get('/users'); sleep(r.status); return r.status + 1 } }
const o = { __proto__: { hi() { return 'hi' } }, hello(n) { http.get('/o/' + n + '/' + arguments.length); return super.hi() } }
export default function () {
  sleep(new Users().list())
  sleep(o.hello(7).length)
}
`;
  const { code } = transformModule(source, 'super.js');
  assert.deepEqual(await callsOf(code, { later: true }), ['get /users', 'sleep 200', 'sleep 201', 'get /o/7/1', 'sleep 2']);
});

test("in the entry module, a function only the run calls (exported, named nowhere else) is a plain async function; one the script calls too is driven", () => {
  const source = `import http from 'k6/http'
export function setup() { return http.get('/s').status }
export function login() { return http.get('/login') }
export function teardown() { login() }
export default function () { http.get('/x') }
`;
  const entry = transformModule(source, 'entry.js', { entry: true }).code;
  assert.match(entry, /async function setup\(\)/);
  assert.match(entry, /const __loadtest_default = async function \(\)/);
  assert.match(entry, /async function teardown\(\)/);
  assert.doesNotMatch(entry, /async function login/); // teardown calls it: it may be called as written
  const helper = transformModule(source, 'helper.js').code;
  assert.doesNotMatch(helper, /async function/);
});

test('a function called where it is written without parentheses around it (`function () {}()`, `.call`) waits inside its call', async () => {
  const source = `import http from 'k6/http'
import { sleep } from 'k6'
var api = function () { function status() { return http.get('/s').status } return { status: status } }()
export default function () {
  const a = function () { return http.get('/a').status }()
  const b = function (x) { return http.get('/b/' + x).status }.call(null, 1)
  const c = (() => http.get('/c').status)()
  sleep(a + b + c + api.status())
}
`;
  const { code } = transformModule(source, 'iife.js');
  assert.deepEqual(await callsOf(code, { later: true }), ['get /a', 'get /b/1', 'get /c', 'get /s', 'sleep 800']);
});

test("a function of the script named as a global taken to return at once (open, fail) is its own, and waits; so does a method named join (a Phoenix channel's), wherever it is defined", async () => {
  const source = `import http from 'k6/http'
import { sleep } from 'k6'
const open = (u) => http.get(u)
function fail(n) { return http.get('/fail/' + n) }
const channel = globalThis.channel
export default function () {
  sleep(open('/a').status)
  sleep(fail(2).status)
  sleep(channel.join('/room').status)
  sleep(['x', 'y'].join('-').length)
}
`;
  const { code } = transformModule(source, 'names.js');
  // A channel of another module, whose join() makes a request.
  globalThis.channel = { join: (u) => http_.get(u) };
  const http_ = { get: () => waiting(Promise.resolve({ status: 3 })) };
  try {
    assert.deepEqual(await callsOf(code, { later: true }), ['get /a', 'sleep 200', 'get /fail/2', 'sleep 200', 'sleep 3', 'sleep 3']);
  } finally {
    delete globalThis.channel;
  }
});

test("an arrow function whose body is on the line after its => and may wait returns its body's value (no semicolon inserted after the return the transform writes)", async () => {
  const out = await scriptLogged(`import http from 'k6/http';
export const options = { iterations: 1 };
const status = (url) =>
  http.get(url).status;
export default function () {
  const checks = { type: (m) =>
    m.kind() == 'log' };
  console.log(JSON.stringify([status('http://127.0.0.1:1/'), checks.type({ kind: () => 'log' })]));
}
`);
  assert.deepEqual(out, [0, true]);
});
