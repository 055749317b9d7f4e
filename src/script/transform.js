// A k6 script made runnable here: its module body becomes a function that each VU calls (so
// that init code runs once per VU and module state belongs to its VU, as in k6), and its
// synchronous calls that may wait (http.get, sleep, a helper that calls them) are awaited, so
// that a call suspends only its own VU while the others go on in the same event loop.
//
// The source is parsed once (acorn) and edited in place: nothing is re-printed, so every line
// keeps its number and an error's line and column are the script's own.
//
// Which functions become async: a function whose own body holds a call that may wait. A call
// may wait unless its callee is known to return at once (Math.max, JSON.parse, s.trim(), ...:
// SYNC_METHODS and SYNC_GLOBALS below); a function without such a call stays as written, so a
// comparator or a replace() callback still returns its value. In an async-made function, each
// call that may wait is written `(t = call, t instanceof Promise ? await t : t)`: a call that
// returns at once costs a type check, not a turn of the event loop.
//
// What cannot work (doc/scripts.md): a request from a getter, a setter, a constructor, a
// generator or a parameter's default value (none of them can be async); a callback that a
// built-in calls synchronously (sort, replace, a JSON reviver) making a request. Array
// callbacks (forEach, map, filter, ...) that may wait are awaited in turn by
// src/script/loops.js; a loop given a function written in place that does not wait stays the
// built-in (asyncify below).

import { Parser } from 'acorn';
import { ancestor as walkAncestor, full as walkFull, base as walkBase } from 'acorn-walk';

// Methods that return at once whatever object they are called on (none of k6's that wait:
// those are http's get/post/..., request, batch, clickLink, submitForm, and sleep).
const SYNC_METHODS = new Set([
  'toUpperCase', 'toLowerCase', 'trim', 'trimStart', 'trimEnd', 'split', 'join', 'slice', 'substring', 'substr',
  'indexOf', 'lastIndexOf', 'includes', 'startsWith', 'endsWith', 'replace', 'replaceAll', 'match', 'matchAll',
  'test', 'exec', 'push', 'pop', 'shift', 'unshift', 'splice', 'concat', 'reverse', 'fill', 'at', 'charAt',
  'charCodeAt', 'codePointAt', 'padStart', 'padEnd', 'repeat', 'toString', 'toFixed', 'toPrecision',
  'toISOString', 'toJSON', 'valueOf', 'getTime', 'now', 'parse', 'stringify', 'keys', 'values', 'entries',
  'has', 'get', 'set', 'add', 'delete', 'clear', 'floor', 'ceil', 'round', 'random', 'max', 'min', 'abs',
  'pow', 'sqrt', 'trunc', 'sign', 'log', 'info', 'warn', 'error', 'debug', 'assign', 'freeze', 'isArray',
  'from', 'of', 'fromCharCode', 'hasOwnProperty', 'encode', 'decode', 'json', 'html', 'find', 'attr', 'text',
  'first', 'last', 'eq', 'children', 'parent', 'val', 'size', 'toArray', 'add', 'isInteger', 'isNaN',
  'isFinite', 'localeCompare', 'normalize', 'getRandomValues', 'randomUUID', 'cookiesForURL', 'sort', 'b64encode', 'b64decode',
]);
// Array.prototype.get and Map.get are sync; k6's http.get is not: a call on these objects is
// never taken as sync by its method's name.
const WAITING_OBJECTS = new Set(['http']);
const SYNC_GLOBALS = new Set([
  'parseInt', 'parseFloat', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'isNaN', 'isFinite',
  'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'escape', 'unescape', 'Array', 'Object',
  'Date', 'RegExp', 'Error', 'TypeError', 'RangeError', 'atob', 'btoa', 'fail', 'randomSeed', 'open', 'require',
]);
// Whole objects whose functions all return at once.
const SYNC_NAMESPACES = new Set(['Math', 'JSON', 'Object', 'Array', 'Number', 'String', 'Date', 'console', 'Reflect', 'Symbol', 'encoding', 'exec', 'execution']);
// Array methods whose callback may be made async: routed through the loop helpers.
const LOOPS = new Set(['forEach', 'map', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap', 'reduce']);

// The modules a script may import from k6 (src/script/modules.js implements them), and those
// refused before the run.
export const K6_MODULES = new Set(['k6', 'k6/http', 'k6/metrics', 'k6/data', 'k6/execution', 'k6/encoding', 'k6/crypto', 'k6/html']);

// The names this transform gives its own bindings; a script does not use them.
const VU = '__loadtest_vu';
const T = '__loadtest_t';

export class ScriptError extends Error {}

/**
 * Transforms one module's source. `name`: its file name for errors; `sibling(specifier)`: the
 * specifier a relative import of a user module becomes (its own transformed file).
 * Returns { code, imports, importedAt }: imports are the user modules it names (relative, or
 * https:// URLs), as written; importedAt the place of each one's import.
 */
export function transformModule(source, name, { sibling = (s) => s, stripTypes = null } = {}) {
  if (stripTypes !== null) {
    // TypeScript: its types removed first (runtimes/scripts/load.js), every place kept.
    try {
      source = stripTypes(source, name);
    } catch (err) {
      if (typeof err.line !== 'number') throw err;
      throw new ScriptError(`${name}:${err.line}:${err.column}: ${err.message}`);
    }
  }
  let ast;
  try {
    ast = Parser.parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true, allowHashBang: true });
  } catch (err) {
    const loc = err.loc ? `:${err.loc.line}:${err.loc.column + 1}` : '';
    throw new ScriptError(`${name}${loc}: ${String(err.message).replace(/ \(\d+:\d+\)$/, '')}`);
  }
  const edits = new Edits(source);
  const where = (node) => `${name}:${node.loc.start.line}:${node.loc.start.column + 1}`;
  // A `#!` line is allowed only at a file's very start, where the factory's head now goes.
  if (source.startsWith('#!')) edits.blank(0, source.indexOf('\n') < 0 ? source.length : source.indexOf('\n'));
  if (stripTypes !== null) elideTypeImports(ast);
  const head = []; // on line 1, before the factory: the imports a module keeps as they are
  const inside = []; // at the top of the factory: the imports bound per VU
  const exported = new Map(); // exported name -> local expression
  const imports = [];
  const importedAt = new Map(); // spec → 'file:line:column' of its import, for the loader's errors
  let moduleIndex = 0;

  for (const node of ast.body) {
    if (node.type === 'ImportDeclaration') {
      const spec = node.source.value;
      if (node.elided === 'all') {
        edits.blank(node.start, node.end);
      } else if (spec.startsWith('k6')) {
        if (!K6_MODULES.has(spec)) throw new ScriptError(`${where(node)}: module '${spec}' is not supported here (doc/scripts.md lists what is)`);
        inside.push(bindings(node, `${VU}.module(${JSON.stringify(spec)})`));
      } else if (/^http:\/\//.test(spec)) {
        throw new ScriptError(`${where(node)}: only supported schemes for imports are file and https, ${spec} has \`http\` (as in k6)`);
      } else if (spec.startsWith('https://') || ((spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/')) && /\.(m?js|cjs|m?ts)$/.test(spec) && !node.attributes?.length)) {
        // The script's own modules, and remote ones (runtimes/scripts/load.js fetches them).
        const local = `__loadtest_m${moduleIndex++}`;
        imports.push(spec);
        importedAt.set(spec, where(node.source));
        head.push(`import * as ${local} from ${JSON.stringify(sibling(spec))};`);
        inside.push(bindings(node, `(await ${VU}.load(${local}))`));
      } else {
        // Ended with a semicolon: the next import follows on the same line.
        head.push(importText(node, source).replace(/;?$/, ';'));
      }
      edits.blank(node.start, node.end);
    } else if (node.type === 'ExportNamedDeclaration') {
      if (node.source) throw new ScriptError(`${where(node)}: 'export ... from' is not supported in a script: import, then export`);
      if (node.declaration) {
        edits.replace(node.start, node.declaration.start, '');
        for (const n of declaredNames(node.declaration)) exported.set(n, n);
      } else {
        for (const s of node.specifiers) exported.set(s.exported.name ?? s.exported.value, s.local.name);
        edits.blank(node.start, node.end);
      }
    } else if (node.type === 'ExportDefaultDeclaration') {
      const d = node.declaration;
      if ((d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') && d.id) {
        edits.replace(node.start, d.start, '');
        exported.set('default', d.id.name);
      } else {
        edits.replace(node.start, d.start, `const __loadtest_default = `);
        exported.set('default', '__loadtest_default');
      }
    } else if (node.type === 'ExportAllDeclaration') {
      throw new ScriptError(`${where(node)}: 'export * from' is not supported in a script`);
    }
  }

  // CommonJS (`require`, `module.exports`, `exports`), as k6 loads it: a module with no import or
  // export of its own gets `module` and `exports`, and returns module.exports; a require of
  // 'k6/…' is the VU's k6 module, of './x.js' the VU's instance of that user module, given at
  // once (src/script/vu.js commonJS()).
  let requires = 0;
  const waitingObjects = new Set(WAITING_OBJECTS);
  for (const node of ast.body) {
    if (node.type !== 'ImportDeclaration' || node.source.value !== 'k6/http') continue;
    for (const sp of node.specifiers) if (sp.type !== 'ImportSpecifier') waitingObjects.add(sp.local.name);
  }
  walkAncestor(ast, {
    CallExpression(node, _state, ancestors) {
      const spec = requiredSpec(node);
      if (spec === null) return;
      requires++;
      const parent = ancestors[ancestors.length - 2];
      if (spec === 'k6/http' && parent.type === 'VariableDeclarator' && parent.id.type === 'Identifier') waitingObjects.add(parent.id.name);
      if (spec.startsWith('k6')) {
        if (!K6_MODULES.has(spec)) throw new ScriptError(`${where(node)}: module '${spec}' is not supported here (doc/scripts.md lists what is)`);
        edits.replace(node.start, node.end, `${VU}.module(${JSON.stringify(spec)})`);
      } else if (spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/')) {
        if (spec.endsWith('.json')) throw new ScriptError(`${where(node)}: '${spec}' cannot be required: read JSON with JSON.parse(open('${spec}'))`);
        // As k6: the path as written, no extension added (k6 v1.3 cannot open './util').
        const local = `__loadtest_m${moduleIndex++}`;
        imports.push(spec);
        importedAt.set(spec, where(node));
        head.push(`import * as ${local} from ${JSON.stringify(sibling(spec))};`);
        edits.replace(node.start, node.end, `${VU}.commonJS(${local})`);
      } else {
        throw new ScriptError(`${where(node)}: '${spec}' cannot be required: only k6's modules and the script's own files can be`);
      }
    },
  });

  // A module that imports or requires nothing (a library: papaparse, a webpack bundle) cannot
  // reach a call that waits (k6's are all in k6's modules): it runs exactly as written, its
  // functions returning their values, not promises. What it calls back (a function a script
  // gives it) is the script's own, transformed where it was written.
  if (imports.length > 0 || inside.length > 0 || requires > 0) asyncify(ast, edits, source, waitingObjects);
  const commonJS = !ast.body.some((n) => /^(Import|Export)/.test(n.type)) && (requires > 0 || namesExports(ast));

  // __VU and __ITER: the VU's own, read when used (__ITER changes each iteration).
  walkAncestor(ast, {
    Identifier(node, _state, ancestors) {
      if (node.name !== '__VU' && node.name !== '__ITER' && node.name !== '__ENV') return;
      const parent = ancestors[ancestors.length - 2];
      if (parent && parent.type === 'MemberExpression' && parent.property === node && !parent.computed) return;
      if (parent && parent.type === 'Property' && parent.key === node && !parent.computed && !parent.shorthand) return;
      const text = node.name === '__VU' ? `${VU}.id` : node.name === '__ITER' ? `${VU}.iteration` : `${VU}.env`;
      edits.replace(node.start, node.end, parent && parent.type === 'Property' && parent.shorthand ? `${node.name}: ${text}` : text);
    },
  });

  const returned = [...exported].map(([n, local]) => `${JSON.stringify(n)}: ${local}`).join(', ');
  if (commonJS) {
    // `module` comes from the VU (a require reads module.exports as soon as the body has run up
    // to its first wait); what an import of it sees: module.exports as the default, its
    // properties as names.
    const prefix = `${head.join('')}export const __loadtest_cjs = true; export default function (${VU}, module = { exports: {} }) { const open = ${VU}.open, console = ${VU}.console; let ${T}, exports = module.exports; return (async () => { `;
    const suffix = `\nreturn Object.assign({ default: module.exports }, module.exports);\n})(); }\n`;
    return { code: prefix + edits.apply() + suffix, imports, importedAt };
  }
  const prefix = `${head.join('')}export default function (${VU}) { const open = ${VU}.open, console = ${VU}.console; let ${T}; return (async () => { ${inside.join(' ')} `;
  const suffix = `\nreturn { ${returned} };\n})(); }\n`;
  return { code: prefix + edits.apply() + suffix, imports, importedAt };
}

// A require call with a string, `require 'x'`: 'x', else null.
function requiredSpec(node) {
  const a = node.arguments;
  return node.callee.type === 'Identifier' && node.callee.name === 'require' && a.length === 1 && a[0].type === 'Literal' && typeof a[0].value === 'string' ? a[0].value : null;
}

// Whether a module names module.exports or exports (webpack passes `exports` to its bundle's
// function): with a require, what makes it CommonJS.
function namesExports(ast) {
  let found = false;
  walkAncestor(ast, {
    Identifier(node, _state, ancestors) {
      if (found || (node.name !== 'exports' && node.name !== 'module')) return;
      const parent = ancestors[ancestors.length - 2];
      if (parent.type === 'MemberExpression' && parent.property === node && !parent.computed) return;
      if ((parent.type === 'Property' || parent.type === 'MethodDefinition') && parent.key === node && !parent.computed) return;
      if (node.name === 'exports' || (parent.type === 'MemberExpression' && parent.object === node && !parent.computed && parent.property.name === 'exports')) found = true;
    },
  });
  return found;
}

// TypeScript's imports of names used only as types (`import { Options } from 'k6/options'`):
// with the types gone nothing uses them, and they are left out, as TypeScript and esbuild
// (k6's) leave them out. An import left with no name is dropped; `import 'x'` stays.
function elideTypeImports(ast) {
  const used = new Set();
  for (const d of ast.body) {
    if (d.type === 'ImportDeclaration') continue;
    walkFull(d, (node) => {
      if (node.type === 'Identifier') used.add(node.name);
    });
  }
  for (const d of ast.body) {
    if (d.type !== 'ImportDeclaration' || d.specifiers.length === 0) continue;
    const kept = d.specifiers.filter((sp) => used.has(sp.local.name));
    if (kept.length === d.specifiers.length) continue;
    d.specifiers = kept;
    d.elided = kept.length === 0 ? 'all' : 'some';
  }
}

// An import as written, but for the names elideTypeImports left out.
function importText(node, source) {
  if (!node.elided) return source.slice(node.start, node.end).replace(/\s*\n\s*/g, ' ');
  const named = node.specifiers.filter((s) => s.type === 'ImportSpecifier').map((s) => `${source.slice(s.imported.start, s.imported.end)} as ${s.local.name}`);
  const first = node.specifiers.filter((s) => s.type !== 'ImportSpecifier').map((s) => (s.type === 'ImportDefaultSpecifier' ? s.local.name : `* as ${s.local.name}`));
  return `import ${[...first, ...(named.length ? [`{ ${named.join(', ')} }`] : [])].join(', ')} from ${JSON.stringify(node.source.value)};`;
}

// `import a, { b as c } from 'x'` as `const { default: a, b: c } = EXPR;`, `* as ns` as `const ns = EXPR;`.
function bindings(node, expr) {
  const parts = [];
  let namespace = null;
  for (const s of node.specifiers) {
    if (s.type === 'ImportNamespaceSpecifier') namespace = s.local.name;
    else if (s.type === 'ImportDefaultSpecifier') parts.push(`default: ${s.local.name}`);
    else parts.push(`${s.imported.name ?? JSON.stringify(s.imported.value)}: ${s.local.name}`);
  }
  if (namespace && parts.length) return `const ${namespace} = ${expr}; const { ${parts.join(', ')} } = ${namespace};`;
  if (namespace) return `const ${namespace} = ${expr};`;
  if (parts.length) return `const { ${parts.join(', ')} } = ${expr};`;
  return `${expr};`;
}

function declaredNames(d) {
  if (d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') return [d.id.name];
  const names = [];
  const collect = (p) => {
    if (!p) return;
    if (p.type === 'Identifier') names.push(p.name);
    else if (p.type === 'ObjectPattern') p.properties.forEach((q) => collect(q.type === 'RestElement' ? q.argument : q.value));
    else if (p.type === 'ArrayPattern') p.elements.forEach(collect);
    else if (p.type === 'RestElement') collect(p.argument);
    else if (p.type === 'AssignmentPattern') collect(p.left);
  };
  for (const v of d.declarations) collect(v.id);
  return names;
}

const FUNCTION = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

// The function written in place that a loop (forEach, map, ...) is given, or null.
function inlineCallback(call) {
  const c = call.callee;
  if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier' || !LOOPS.has(c.property.name)) return null;
  const fn = call.arguments[0];
  return fn && (fn.type === 'FunctionExpression' || fn.type === 'ArrowFunctionExpression') && !fn.generator ? fn : null;
}

// Whether a call may wait (see the top of the file). `waitingObjects`: the names k6/http is bound
// to in this module (`http`, or whatever the script imports or requires it as).
function mayWait(call, waitingObjects) {
  const c = call.callee;
  if (c.type === 'Identifier') return !SYNC_GLOBALS.has(c.name);
  if (c.type === 'MemberExpression' && !c.computed && c.property.type === 'Identifier') {
    const o = c.object;
    if (o.type === 'Identifier' && waitingObjects.has(o.name)) return true;
    if (o.type === 'Identifier' && SYNC_NAMESPACES.has(o.name)) return false;
    if (LOOPS.has(c.property.name)) return true;
    return !SYNC_METHODS.has(c.property.name);
  }
  return true;
}

/**
 * Marks every function whose own body has a call that may wait async, and wraps those calls
 * in it (and at the module's top level, which runs in an async function already) in an await.
 */
function asyncify(ast, edits, source, waitingObjects) {
  // A context: the module, or a function. `calls`: its own calls that may wait.
  const contexts = new Map();
  const contextOf = (ancestors) => {
    for (let i = ancestors.length - 2; i >= 0; i--) {
      const a = ancestors[i];
      if (FUNCTION.has(a.type)) {
        // A call in a parameter's default value belongs to no body that can await.
        if (a.params.some((p) => p.start <= ancestors[ancestors.length - 1].start && ancestors[ancestors.length - 1].end <= p.end)) return null;
        return a;
      }
      if (a.type === 'PropertyDefinition' || a.type === 'StaticBlock') return null;
    }
    return ast;
  };
  // every call that may wait: { node, parent, ctx, callback, named }. `named`: a method taken to
  // return at once by its name (get, find, ...), which waits after all if this module defines a
  // method of that name that waits (`Client.prototype.get = function () { return http.get(...) }`).
  const found = [];
  const visit = (node, ancestors) => {
    const wait = mayWait(node, waitingObjects);
    const named = wait ? null : methodName(node);
    if (!wait && named === null) return;
    const ctx = contextOf(ancestors);
    if (ctx === null) return;
    found.push({ node, parent: ancestors[ancestors.length - 2], ctx, callback: inlineCallback(node), named });
  };
  walkAncestor(ast, { CallExpression: visit }, { ...walkBase });
  const methodOf = methodNames(ast);
  const waitingMethods = new Set();
  // A loop given a function written in place waits only if that function does: `lines.map((l) =>
  // l.split(','))` stays the built-in, so that what calls it synchronously (SharedArray's
  // factory, a comparator) gets its value. Which functions wait depends on which loops do, and
  // back: the least set that holds, grown until nothing changes (each round adds a function).
  const waiting = new Set();
  const waits = (f) => (f.named !== null ? waitingMethods.has(f.named) : f.callback ? f.callback.async || waiting.has(f.callback) : true);
  const builders = constructorsOf(ast);
  for (let grown = true; grown; ) {
    grown = false;
    for (const f of found) {
      if (f.ctx !== ast && !waiting.has(f.ctx) && !builders.has(f.ctx) && waits(f)) {
        waiting.add(f.ctx);
        if (methodOf.has(f.ctx) && !f.ctx.async) waitingMethods.add(methodOf.get(f.ctx));
        grown = true;
      }
    }
  }
  for (const f of found) {
    if (!waits(f)) continue;
    if (!contexts.has(f.ctx)) contexts.set(f.ctx, []);
    contexts.get(f.ctx).push(f);
  }

  // The object property or class member each function is the value of, if any.
  const owners = new Map();
  walkAncestor(ast, {
    Property(node) {
      if (FUNCTION.has(node.value.type)) owners.set(node.value, node);
    },
    MethodDefinition(node) {
      owners.set(node.value, node);
    },
  });
  const starts = statementStarts(ast);
  const k6Sync = syncInK6(ast, waiting, owners, waitingObjects);
  for (const [ctx, calls] of contexts) {
    if (ctx !== ast && ctx.async) {
      // A user's own async function awaits what it means to; but what returns at once in k6
      // (http.get, sleep, a helper of the script that makes requests) must not be a promise
      // there either: such calls are awaited, unless the script awaits them itself.
      // A loop whose callback waits is one of them: k6 runs its callbacks one after the other.
      for (const { node, parent, callback } of calls) if ((k6Sync(node) || callback) && !(parent && parent.type === 'AwaitExpression')) wrapCall(node, parent, edits, starts);
      continue;
    }
    if (ctx !== ast) {
      // Getters, setters, constructors and generators cannot be async: left as written.
      const owner = owners.get(ctx);
      if (ctx.generator || builders.has(ctx) || (owner && (owner.kind === 'get' || owner.kind === 'set' || owner.kind === 'constructor'))) continue;
      makeAsync(ctx, owner, edits, source);
    }
    for (const { node, parent } of calls) wrapCall(node, parent, edits, starts);
  }
}

// The name a call of a method is by, when that name alone would take it to return at once.
function methodName(call) {
  const c = call.callee;
  if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier' || !SYNC_METHODS.has(c.property.name)) return null;
  if (c.object.type === 'Identifier' && SYNC_NAMESPACES.has(c.object.name)) return null;
  return c.property.name;
}

// Each function that is a method, with its name: an object's or a class's, or one assigned to a
// property (`C.prototype.get = function () {}`).
function methodNames(ast) {
  const names = new Map();
  walkFull(ast, (node) => {
    if ((node.type === 'Property' || node.type === 'MethodDefinition') && !node.computed && node.key.type === 'Identifier' && FUNCTION.has(node.value.type)) names.set(node.value, node.key.name);
    else if (node.type === 'AssignmentExpression' && node.left.type === 'MemberExpression' && !node.left.computed && node.left.property.type === 'Identifier' && FUNCTION.has(node.right.type)) names.set(node.right, node.left.property.name);
  });
  return names;
}

// Functions used as constructors (`new F()`, `F.prototype`, `F.call(this, ...)` in another's
// body): an async function has no prototype and cannot be called with new, so these stay as
// written (UMD bundles such as papaparse build their classes this way).
function constructorsOf(ast) {
  const names = new Set();
  walkFull(ast, (node) => {
    if (node.type === 'NewExpression' && node.callee.type === 'Identifier') names.add(node.callee.name);
    else if (node.type === 'MemberExpression' && !node.computed && node.object.type === 'Identifier' && node.property.type === 'Identifier') {
      if (node.property.name === 'prototype') names.add(node.object.name);
    }
  });
  const fns = new Set();
  walkFull(ast, (node) => {
    if (node.type === 'FunctionDeclaration' && node.id && names.has(node.id.name)) fns.add(node);
    else if (node.type === 'FunctionExpression' && node.id && names.has(node.id.name)) fns.add(node);
    else if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && names.has(node.id.name) && node.init && node.init.type === 'FunctionExpression') fns.add(node.init);
    else if (node.type === 'AssignmentExpression' && node.left.type === 'Identifier' && names.has(node.left.name) && node.right.type === 'FunctionExpression') fns.add(node.right);
  });
  return fns;
}

// Whether a call returns at once in k6 though it may return a promise here: a k6 function other
// than asyncRequest (`http.get`, `sleep`, `group`), a function of the script that the transform
// makes async (by its name: a declaration, a variable, a method), or one a user module exports
// (transformed the same way). A promise the script means to have (`http.asyncRequest`, its own
// async functions) is left to it.
function syncInK6(ast, waiting, owners, waitingObjects) {
  const k6Objects = new Set(waitingObjects);
  const k6Functions = new Set();
  const userImports = new Set();
  for (const d of ast.body) {
    if (d.type !== 'ImportDeclaration') continue;
    const from = d.source.value;
    for (const sp of d.specifiers) {
      if (K6_MODULES.has(from) && sp.type !== 'ImportSpecifier') k6Objects.add(sp.local.name);
      else if (K6_MODULES.has(from) && sp.imported.name !== 'asyncRequest') k6Functions.add(sp.local.name);
      else if (from.startsWith('.') || from.startsWith('/')) userImports.add(sp.local.name);
    }
  }
  const made = new Set(); // names of the functions made async
  walkFull(ast, (node) => {
    if (node.type === 'FunctionDeclaration' && node.id && waiting.has(node) && !node.async) made.add(node.id.name);
    else if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.init && waiting.has(node.init) && !node.init.async) made.add(node.id.name);
  });
  const methods = new Set();
  for (const [fn, owner] of owners) if (waiting.has(fn) && !fn.async && !owner.computed && owner.key.type === 'Identifier') methods.add(owner.key.name);
  return (call) => {
    const c = call.callee;
    if (c.type === 'Identifier') return k6Functions.has(c.name) || made.has(c.name) || userImports.has(c.name);
    if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier') return false;
    if (c.object.type === 'Identifier' && k6Objects.has(c.object.name)) return c.property.name !== 'asyncRequest';
    return methods.has(c.property.name) || (c.object.type === 'Identifier' && userImports.has(c.object.name));
  };
}

// Where the statements of a statement list begin that are expressions: a call rewritten there
// starts with `(`, which without a semicolon before it would continue the line above (`x = y`,
// then `http.get(u)` on the next line, is `x = y(...)`). A semicolon is written before it, where
// a statement may stand alone (not as the body of an if, a loop or a label, where none is needed).
function statementStarts(ast) {
  const starts = new Set();
  const add = (list) => {
    for (const s of list) if (s.type === 'ExpressionStatement') starts.add(s.start);
  };
  walkFull(ast, (node) => {
    if (node.type === 'Program' || node.type === 'BlockStatement' || node.type === 'StaticBlock') add(node.body);
    else if (node.type === 'SwitchCase') add(node.consequent);
  });
  return starts;
}

function makeAsync(fn, owner, edits, source) {
  if (owner && (owner.method || owner.type === 'MethodDefinition')) {
    // `name() {}` → `async name() {}`; `static name() {}` → `static async name() {}`.
    const key = owner.key;
    const at = owner.computed ? source.lastIndexOf('[', key.start) : key.start;
    // `static#m(){}` (minified): a space too, or it would read `staticasync`.
    edits.insert(at, /[\w$]/.test(source[at - 1] || '') ? ' async ' : 'async ', 0);
    return;
  }
  edits.insert(fn.start, /[\w$]/.test(source[fn.start - 1] || '') ? ' async ' : 'async ', 0);
}

function wrapCall(node, parent, edits, starts) {
  // `a().then(...)`: a promise the user goes on with, left as it is; so are Promise.all(...)
  // and the like.
  if (parent && parent.type === 'MemberExpression' && parent.object === node && !parent.computed && ['then', 'catch', 'finally'].includes(parent.property.name)) return;
  const c = node.callee;
  if (c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'Promise') return;
  let target = node;
  // `a?.b()`: the whole chain is the expression to wrap.
  if (parent && parent.type === 'ChainExpression') target = parent;
  const size = target.end - target.start;
  if (c.type === 'MemberExpression' && !c.computed && LOOPS.has(c.property.name) && !node.optional && !c.optional && target === node) {
    // `xs.forEach(fn, ...)` → `VU.loops.forEach(xs, fn, ...)`: an async callback is awaited in turn.
    // From the dot (after any parentheses around the object) to the first argument, its line
    // breaks kept so that the lines after keep their numbers.
    edits.insert(node.start, `${VU}.loops.${c.property.name}(`, size - 0.5);
    // To the call's own parenthesis, not the first argument's start: `.map((function () {}))`.
    const dot = edits.source.lastIndexOf('.', c.property.start);
    const to = edits.source.indexOf('(', c.property.end) + 1;
    edits.replace(dot, to, (node.arguments.length ? ', ' : '') + edits.source.slice(dot, to).replace(/[^\n]/g, ''));
  }
  if (starts.delete(target.start)) edits.insert(target.start, ';', Infinity); // once, before all
  edits.insert(target.start, `(${T} = `, size);
  edits.insert(target.end, `, ${T} instanceof Promise ? await ${T} : ${T})`, -size);
}

/** Insertions and replacements on a source, applied in one pass. */
class Edits {
  constructor(source) {
    this.source = source;
    this.inserts = []; // [pos, rank, text]: at one position, higher ranks go first
    this.replaces = []; // [start, end, text]
  }
  insert(pos, text, rank) {
    this.inserts.push([pos, rank, text]);
  }
  replace(start, end, text) {
    this.replaces.push([start, end, text]);
  }
  // Removed, its line breaks kept so that every line after it keeps its number.
  blank(start, end) {
    this.replace(start, end, this.source.slice(start, end).replace(/[^\n]/g, ''));
  }
  apply() {
    const src = this.source;
    this.inserts.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    this.replaces.sort((a, b) => a[0] - b[0]);
    let out = '';
    let pos = 0;
    let i = 0;
    let r = 0;
    while (pos <= src.length) {
      while (i < this.inserts.length && this.inserts[i][0] === pos) out += this.inserts[i++][2];
      if (r < this.replaces.length && this.replaces[r][0] === pos) {
        const [, end, text] = this.replaces[r++];
        out += text;
        // Insertions inside a replaced range (none are made) would be lost.
        while (i < this.inserts.length && this.inserts[i][0] < end) i++;
        if (end > pos) {
          pos = end;
          continue;
        }
      }
      const next = Math.min(i < this.inserts.length ? this.inserts[i][0] : Infinity, r < this.replaces.length ? this.replaces[r][0] : Infinity, src.length + 1);
      out += src.slice(pos, Math.min(next, src.length));
      if (next > src.length) break;
      pos = next;
    }
    return out;
  }
}
