// A webpack bundle built in development mode (devtool 'eval', whose modules are strings given to
// eval()) runs as k6 v2.2.0 runs it: src/script/transform/eval-bundle.js.
//
// test/webpack-eval/bundle.js is webpack 5.113.0's build of test/webpack-eval/src/ with
// test/webpack-eval/webpack.config.cjs (grafana/k6-template-typescript's first settings: mode
// 'development', output CommonJS, k6's modules external). What k6 v2.2.0 gave on it against
// test/httpbin.js is written below.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { spawnScript, scriptLogged } from './servers.js';
import { startHttpbin } from './httpbin.js';
import { transformModule, ScriptError } from '../src/script/transform/transform.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const BUNDLE = fileURLToPath(new URL('./webpack-eval/bundle.js', import.meta.url));

async function withHttpbin(fn) {
  const server = await startHttpbin(0);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

const consoleLines = (stderr) => [...stderr.matchAll(/msg="([^"]*)" source=console/g)].map((m) => m[1]).sort();

test("a webpack bundle of devtool 'eval' runs as k6 runs it: requests, checks, a group, the async function's and the CommonJS module's, __VU and __ITER in its modules", async () => {
  await withHttpbin(async (server) => {
    const r = await spawnScript(CLI, ['run', '-q', '--summary-mode', 'full', '-e', `BASE=${server.url}`, BUNDLE], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    // k6 v2.2.0: GET /get 4, GET /status/201 4, POST /post 4.
    assert.deepEqual(Object.fromEntries(server.counts), { 'GET /get': 4, 'GET /status/201': 4, 'POST /post': 4 });
    assert.deepEqual(consoleLines(r.stderr), [
      'vu=1 iter=0 visit=200 later=201 calls=1 tally=1',
      'vu=1 iter=1 visit=200 later=201 calls=1 tally=2',
      'vu=2 iter=0 visit=200 later=201 calls=1 tally=1',
      'vu=2 iter=1 visit=200 later=201 calls=1 tally=2',
    ]);
    assert.match(r.stdout, /checks_succeeded\.+: 100\.00% +8 out of 8\n/);
    assert.match(r.stdout, /█ GROUP: visit \/get/);
  });
});

test("an exception in a module of such a bundle is told at its line and column in the module's code, as k6's <eval>:29:23, named by the module's sourceURL", async () => {
  await withHttpbin(async (server) => {
    const r = await spawnScript(CLI, ['run', '-q', '-e', `BASE=${server.url}`, '-e', 'THROW=1', BUNDLE], { timeoutMs: 60000 });
    assert.equal(server.counts.get('GET /anything/boom'), 4);
    // JavaScriptCore (bun) counts columns from the property's dot, V8 from its name.
    assert.match(r.stderr, /^loadtest run: .*'?field'?.* at webpack:\/\/\/\.\/src\/flows\.js:29:2[23]$/m);
  });
});

test('the code of eval() of a string literal is the script\'s: a request there returns its response, eval() its value', async () => {
  await withHttpbin(async (server) => {
    const out = await scriptLogged(
      `import http from 'k6/http';
export const options = { iterations: 1 };
function viaEval(path) {
  return eval("const r = http.get(__ENV.BASE + path);\\nr.status");
}
export default function () {
  console.log(JSON.stringify([viaEval('/get'), eval("1 + 1"), eval("var x = 3; x * 2")]));
}
`,
      ['-e', `BASE=${server.url}`],
    );
    assert.deepEqual(out, [200, 2, 6]);
    assert.equal(server.counts.get('GET /get'), 1);
  });
});

test("a webpack bundle whose modules run from eval() strings has them transformed; an eval() of anything else in it is refused in one line", () => {
  const bundle = (body) => `var __webpack_modules__ = ({ "./src/test.js": ((module, exports, __webpack_require__) => {\n${body}\n}) });\nfunction __webpack_require__(id) { return __webpack_modules__[id]({}, {}, __webpack_require__) }\nmodule.exports = require('k6/http');\n`;
  const { code } = transformModule(bundle('eval("const http = __webpack_require__(\\"k6/http\\");\\nhttp.get(__ENV.BASE);\\n//# sourceURL=webpack://x/./src/test.js?");'), 'dist.js');
  const literal = /eval\(("(?:[^"\\]|\\.)*")\)/.exec(code);
  const inner = JSON.parse(literal[1]);
  // A generator of its own, driven; its request waited for; __ENV the VU's; named last.
  assert.match(inner, /^__loadtest_vu\.drive\(function\* \(\) \{const http = /);
  assert.match(inner, /\n;return \(__loadtest_t = http\.get\(__loadtest_vu\.env\.BASE\), __loadtest_w\(__loadtest_t\) \? yield __loadtest_t : __loadtest_t\);\n/);
  assert.match(inner, /\n\}\.call\(this\)\)\n\/\/# sourceURL=webpack:\/\/x\/\.\/src\/test\.js\?$/);
  // Its lines keep their numbers: its columns are registered under its name.
  assert.equal(inner.split('\n').length, 5);
  assert.match(code, /set\(n, m\)\);\n$/);
  assert.throws(
    () => transformModule(bundle('eval("1");\neval(code);'), 'dist.js'),
    (err) => err instanceof ScriptError && /^dist\.js:3:1: eval\(\) of code that is not a string literal, in a webpack bundle whose modules run from eval\(\) strings: that code cannot be transformed \(build the bundle with devtool: false\)$/.test(err.message),
  );
  assert.doesNotThrow(() => transformModule('export default function () { return eval("1 + 1") }', 'plain.js'));
  assert.doesNotThrow(() => transformModule('export default function (c) { return eval(c) }', 'plain.js'));
});
