// The code a module gives eval() as a string literal, transformed as the module's own: what
// makes a webpack bundle built with devtool 'eval' (webpack's development default; and
// eval-source-map, eval-cheap-source-map, eval-cheap-module-source-map) run as k6 runs it.
// Each module of such a bundle is
//
//   "./src/x.js": ((module, __webpack_exports__, __webpack_require__) => { eval("CODE\n//# sourceURL=webpack://...") })
//
// so its calls of k6 (http.get, sleep, group) are in that string, where the transform would
// never see them. src/script/transform/transform.js runs its steps on each literal's code beside
// the module's (requires, the calls that may wait, __VU and __ENV), and embedString() writes the
// result back as a literal.
//
// A direct eval's code is part of the function that calls it, but it is a script: it cannot
// `yield` nor `await` for that function. So the code, once made suspendable, runs in a generator
// of its own, driven as a function's (src/script/eventloop/wait.js), and eval() returns its
// value at once, or a marked promise on which the transform's code around the eval() call
// suspends the enclosing function (itself made suspendable, since eval() is a call that may wait):
//
//   eval("CODE")  →  eval("VU.drive(function* () {CODE'\n}.call(this))\n//# sourceURL=NAME")
//
// The generator's scope is the eval's own: a transformed module is an ES module, strict, where
// eval'd declarations never reach the caller's scope anyway. The code's last expression statement
// is returned, so eval() keeps its value. Lines keep their numbers; the columns the transform
// moved are registered under the code's sourceURL (src/script/transform/columns.js), which an
// exception's frame names in every runtime (one is added where the code has none: `<eval>`,
// k6's name for eval'd code).

import { Parser } from 'acorn';
import { full as walkFull } from 'acorn-walk';
import { Edits } from './edits.js';
import { columnMap, evalRegistration } from './columns.js';
import { VU } from './suspend.js';

const WEBPACK = /__webpack_require__/;
// The last sourceURL of the code (eval-source-map writes `[module]` in the map's comment first).
const SOURCE_URL = /\/\/[#@] sourceURL=(\S+)/g;

/**
 * Each direct eval() of a string literal in `ast`, its code parsed: { literal, source, ast,
 * edits, name, where }. A webpack bundle's eval() of anything else is refused through
 * `fail(node, message)`, as its code could not be transformed. Code that does not parse is left
 * as written (eval() throws its SyntaxError when it runs, as in k6).
 */
export function literalEvals(source, ast, fail) {
  if (!/\beval\s*\(/.test(source)) return [];
  const calls = [];
  walkFull(ast, (node) => {
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'eval' && !node.optional) calls.push(node);
  });
  const evals = [];
  for (const call of calls) {
    const literal = call.arguments[0];
    if (literal?.type !== 'Literal' || typeof literal.value !== 'string') {
      if (WEBPACK.test(source) && calls.some((c) => c.arguments[0]?.type === 'Literal')) fail(call, "eval() of code that is not a string literal, in a webpack bundle whose modules run from eval() strings: that code cannot be transformed (build the bundle with devtool: false)");
      continue;
    }
    const code = literal.value;
    let parsed;
    try {
      parsed = Parser.parse(code, { ecmaVersion: 'latest', sourceType: 'script', locations: true });
    } catch {
      continue;
    }
    const name = [...code.matchAll(SOURCE_URL)].pop()?.[1] ?? '<eval>';
    const label = name.replace(/\?$/, '');
    evals.push({ literal, source: code, ast: parsed, edits: new Edits(code), name, where: (node) => `${label}:${node.loc.start.line}:${node.loc.start.column + 1}` });
  }
  return evals;
}

/**
 * Writes each eval's transformed code back in place of its literal in `edits` (the module's);
 * `suspendable`: its code was made suspendable, and runs as a driven generator. Returns the
 * statement that registers their columns, for the end of the module.
 */
export function embedEvals(evals, edits, suspendable) {
  const maps = {};
  for (const e of evals) {
    const prefix = suspendable ? wrap(e) : '';
    const body = e.edits.apply();
    const map = columnMap(e.source, body, prefix, e.edits.spans);
    const code = suspendable ? `${prefix}${body}\n}${/\barguments\b/.test(e.source) ? '.apply(this, arguments)' : '.call(this)'})` : body;
    // A name of the code's own, last, as V8 and JavaScriptCore read the last sourceURL.
    const named = suspendable || e.name === '<eval>' ? `${code}\n//# sourceURL=${e.name}` : code;
    if (e.name !== '<eval>') maps[e.name] = map;
    // The literal's own line breaks (a `\` at a line's end) kept after it: the lines after keep their numbers.
    const raw = edits.source.slice(e.literal.start, e.literal.end);
    edits.replace(e.literal.start, e.literal.end, JSON.stringify(named) + raw.replace(/[^\n]/g, ''));
  }
  // `<eval>` is every unnamed code's name: registered with no map (columns as the runtime gives them).
  if (evals.some((e) => e.name === '<eval>')) maps['<eval>'] = {};
  return evalRegistration(maps);
}

// The generator's head (returned: it goes before the code's first line), and `return` before
// the code's last statement when that is an expression: eval()'s value. (Ranked after the `;`
// the transform may write before that statement, before the text it writes around a call.)
function wrap(e) {
  const last = e.ast.body[e.ast.body.length - 1];
  if (last?.type === 'ExpressionStatement') e.edits.insert(last.start, 'return ', 1e14);
  return `${VU}.drive(function* () {`;
}
