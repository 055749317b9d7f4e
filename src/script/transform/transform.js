// src/script/transform/: the source transform, what makes a k6 script runnable here.
// A k6 script made runnable here: its module body becomes a function that each VU calls (so
// that init code runs once per VU and module state belongs to its VU, as in k6), and its
// synchronous calls that may wait (http.get, sleep, a helper that calls them) are awaited, so
// that a call suspends only its own VU while the others go on in the same event loop.
//
// The source is parsed once (acorn) and edited in place: nothing is re-printed, so every line
// keeps its number and an error's line and column are the script's own.
//
// Which calls suspend their VU, and how a function that makes a request still returns its value
// to whatever calls it synchronously: src/script/transform/suspend.js.

import { Parser } from 'acorn';
import { ancestor as walkAncestor, full as walkFull, recursive as walkRecursive } from 'acorn-walk';
import { Edits } from './edits.js';
import { makeSuspendable, VU, T, W } from './suspend.js';
import { columnMap, registration } from './columns.js';
import { wantHTML } from '../k6/html/html-lib.js';
import { noteModules } from './lazy.js';
import { literalEvals, embedEvals } from './eval-bundle.js';
import { libraryGlobals } from './library.js';
import { liveReferences } from './live-bindings.js';
import { throwsWhenCalled, notOnDisk, unrecognised, unknownModule } from './unresolved.js';

// The modules a script may import from k6 (src/script/vu/vu.js gives them, from
// src/script/k6/), and those refused before the run.
export const K6_MODULES = new Set(['k6', 'k6/http', 'k6/metrics', 'k6/data', 'k6/execution', 'k6/encoding', 'k6/crypto', 'k6/html', 'k6/timers', 'k6/ws', 'k6/websockets', 'k6/experimental/websockets', 'k6/experimental/fs', 'k6/experimental/csv', 'k6/experimental/streams', 'k6/secrets', 'k6/net/grpc', 'k6/browser']);

// Modules k6 v1.3 no longer has, refused with its words.
const GONE = {
  'k6/experimental/timers': "k6/experimental/timers has been graduated, and it's now globally available as defined by standard WebAPIs. You just need to remove the import.",
  'k6/experimental/browser': 'k6/experimental/browser has been graduated, please use k6/browser instead.',
  'k6/experimental/tracing': 'k6/experimental/tracing has been removed. All of it functionality is available as pure JavaScript module.',
};

// Modules of a later k6 than the one followed: refused with its words, and where this one has
// them. (None now: k6/websockets, k6 v1.6's name, is a module here.)
const LATER = {};

// One of k6's modules ('k6', 'k6/http'...), not a package whose name starts so (k6-utils).
const isK6 = (spec) => spec === 'k6' || spec.startsWith('k6/');

// Why a k6 module cannot be imported: gone from k6, not yet in it, or not here (yet).
const unsupported = (spec) => GONE[spec] ?? LATER[spec] ?? `module '${spec}' is not supported here (doc/scripts.md lists what is)`;

export class ScriptError extends Error {}

// What may reach k6/html: its import, or a Response's html(), clickLink() or submitForm().
const HTML_USE = /html|clickLink|submitForm/;

/**
 * Options beyond `sibling`: `packages(spec, kind, at)` says what becomes of a specifier that is
 * neither k6's nor a script file's (a bare name, `node:fs`, `npm:x`): 'module' (a module loaded
 * and transformed as the script's own, runtimes/scripts/load.js), 'native' (imported by the
 * runtime as written), 'missing' (a require that resolves nowhere: it throws when it runs,
 * node's error in a package, k6's in the script). `library`: the module is an npm package's
 * file (src/script/transform/library.js).
 * `live`: the specifiers of its imports that close a cycle (src/script/transform/live-bindings.js).
 * `missing(spec)`: whether a script's file it requires is not there (the require throws when called).
 */
export function transformModule(source, name, { sibling = (s) => s, stripTypes = null, entry = false, packages = null, library = false, live = new Set(), missing = () => false } = {}) {
  if (HTML_USE.test(source)) wantHTML();
  noteModules(source);
  // TypeScript: its types removed first (runtimes/scripts/load.js), every place kept.
  if (stripTypes !== null) source = withoutTypes(source, name, stripTypes);
  const ast = parseModule(source, name, stripTypes !== null);
  const edits = new Edits(source);
  const where = (node) => `${name}:${node.loc.start.line}:${node.loc.start.column + 1}`;
  // The code given to eval() as a literal (a webpack bundle's modules, devtool 'eval'): each
  // step below runs on it too, as on the module's own (src/script/transform/eval-bundle.js).
  const evals = literalEvals(source, ast, (node, message) => {
    throw new ScriptError(`${where(node)}: ${message}`);
  });
  // A `#!` line is allowed only at a file's very start, where the factory's head now goes.
  if (source.startsWith('#!')) edits.blank(0, source.indexOf('\n') < 0 ? source.length : source.indexOf('\n'));
  if (stripTypes !== null) {
    elideTypeImports(ast);
    elideTypeExports(ast);
  }
  const factory = new Factory(sibling, where, packages, library);
  factory.liveSpecs = live;
  factory.missing = missing;
  for (const node of ast.body) takeImportOrExport(node, source, edits, factory);
  liveReferences(ast, factory.live, edits);
  for (const [n, local] of factory.exported) if (factory.live.has(local)) factory.exported.set(n, factory.live.get(local));
  factory.hoisted = hoistedFunctions(ast);

  // CommonJS (`require`, `module.exports`, `exports`), as k6 loads it: a module with no import or
  // export of its own gets `module` and `exports`, and returns module.exports; a require of
  // 'k6/…' is the VU's k6 module, of './x.js' the VU's instance of that user module, given at
  // once (src/script/vu/vu.js commonJS()).
  const waitingObjects = waitingObjectsOf(ast);
  const requires = [{ ast, edits, where }, ...evals].reduce((n, e) => n + takeRequires(e.ast, e.edits, factory, waitingObjects, e.where), 0);

  // A module that imports or requires nothing (a library: papaparse, a webpack bundle) cannot
  // reach a call that waits (k6's are all in k6's modules): it runs exactly as written, its
  // functions returning their values, not promises. What it calls back (a function a script
  // gives it) is the script's own, transformed where it was written.
  const suspendable = library ? factory.k6 > 0 : factory.imports.length > 0 || factory.inside.length > 0 || requires > 0;
  if (suspendable) makeSuspendable(ast, edits, source, waitingObjects, entry ? runnerOnly(ast) : new Set());
  if (suspendable) for (const e of evals) makeSuspendable(e.ast, e.edits, e.source, waitingObjects, new Set(), 'yield');
  const topReturn = topLevelReturn(ast);
  const esm = ast.body.some((n) => /^(Import|Export)/.test(n.type));
  if (topReturn !== null && esm) throw new ScriptError(`${where(topReturn)}: Top-level return cannot be used inside an ECMAScript module`);
  const commonJS = !esm && (requires > 0 || topReturn !== null || namesExports(ast));
  for (const e of [{ ast, edits }, ...evals]) bindVuGlobals(e.ast, e.edits);
  const evalColumns = embedEvals(evals, edits, suspendable);
  const globals = (entry ? selfLoad(name, factory) : '') + (library ? libraryGlobals(name, commonJS) : SCRIPT_GLOBALS);
  const code = (commonJS ? commonJSModule(source, edits, factory, topReturn, globals) : esModule(source, edits, factory, globals)) + evalColumns;
  return { code, imports: factory.imports, importedAt: factory.importedAt };
}

function withoutTypes(source, name, stripTypes) {
  try {
    return stripTypes(source, name);
  } catch (err) {
    if (typeof err.line !== 'number') throw err;
    throw new ScriptError(`${name}:${err.line}:${err.column}: ${err.message}`);
  }
}

// TypeScript's modules may export a type by name, which is declared nowhere once the types are
// gone: such an export is not refused by the parser, but left out (elideTypeExports).
class TypeScriptParser extends Parser {
  checkLocalExport() {}
}

function parseModule(source, name, typescript = false) {
  try {
    // A `return` at the top is taken here and refused below unless the module is CommonJS, whose
    // body k6 runs in a function (jslib's formdata/0.0.2 starts `if (exports.FormData) return;`).
    return (typescript ? TypeScriptParser : Parser).parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true, allowHashBang: true, allowReturnOutsideFunction: true });
  } catch (err) {
    const loc = err.loc ? `:${err.loc.line}:${err.loc.column + 1}` : '';
    throw new ScriptError(`${name}${loc}: ${String(err.message).replace(/ \(\d+:\d+\)$/, '')}`);
  }
}

/** What the module's factory is made of, gathered from its imports, exports and requires. */
class Factory {
  constructor(sibling, where, packages, library) {
    this.sibling = sibling;
    this.where = where;
    this.packages = packages;
    this.library = library;
    this.k6 = 0; // how many of k6's modules it names
    this.liveSpecs = new Set();
    this.live = new Map(); // an import's local name → where it is read, in a cycle
    this.hoisted = new Set(); // the module's functions declared at its top
    this.head = []; // on line 1, before the factory: the imports a module keeps as they are
    this.inside = []; // at the top of the factory: the imports bound per VU
    this.exported = new Map(); // exported name -> local expression
    this.imports = [];
    this.importedAt = new Map(); // spec → 'file:line:column' of its import, for the loader's errors
    this.moduleIndex = 0;
    this.stars = []; // the instances `export * from` re-exports
  }

  nextLocal() {
    return `__loadtest_m${this.moduleIndex++}`;
  }

  /** A user module (relative, or https://) imported on line 1 as `local`, for the loader to fetch and transform. */
  importUser(spec, local, at) {
    this.imports.push(spec);
    this.importedAt.set(spec, at);
    this.head.push(`import * as ${local} from ${JSON.stringify(this.sibling(spec, at))};`);
  }

  /** What becomes of a specifier neither k6's nor a script file's: 'module', 'native' or 'missing'. */
  route(spec, kind, at) {
    if (this.packages === null) return 'native';
    return this.packages(spec, kind, at);
  }

  k6Module(spec, node) {
    if (!K6_MODULES.has(spec)) throw new ScriptError(`${this.where(node)}: ${unsupported(spec)}`);
    this.k6++;
    return `${VU}.module(${JSON.stringify(spec)})`;
  }

  // The expression of the module an `export ... from` names, bound once at the factory's top.
  namespaceOf(node) {
    const spec = node.source.value;
    const local = this.nextLocal();
    if (isK6(spec)) {
      this.inside.push(`const ${local} = ${this.k6Module(spec, node)};`);
      return local;
    }
    if (/^http:\/\//.test(spec)) throw new ScriptError(`${this.where(node)}: only supported schemes for imports are file and https, ${spec} has \`http\` (as in k6)`);
    if (spec.startsWith('https://') || (!this.library && (spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/'))) || this.route(spec, 'import', this.where(node.source)) === 'module') {
      this.importUser(spec, local, this.where(node.source));
      this.inside.push(`const ${local}i = (await ${VU}.load(${local}));`);
      return `${local}i`;
    }
    this.head.push(`import * as ${local} from ${JSON.stringify(spec)};`);
    return local;
  }
}

/** One statement of the module's top level: an import or export is taken out of the body, into `factory`. */
function takeImportOrExport(node, source, edits, factory) {
  const { exported, where } = factory;
  if (node.type === 'ImportDeclaration') {
    const spec = node.source.value;
    if (node.elided === 'all') {
      edits.blank(node.start, node.end);
    } else if (isK6(spec)) {
      factory.inside.push(bindings(node, factory.k6Module(spec, node)));
    } else if (/^http:\/\//.test(spec)) {
      throw new ScriptError(`${where(node)}: only supported schemes for imports are file and https, ${spec} has \`http\` (as in k6)`);
    } else if (spec.startsWith('https://') || (!factory.library && (spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/')) && /\.(m?js|cjs|m?ts)$/.test(spec) && !node.attributes?.length) || (!node.attributes?.length && factory.route(spec, 'import', where(node.source)) === 'module')) {
      // The script's own modules, and remote ones (runtimes/scripts/load.js fetches them).
      const local = factory.nextLocal();
      factory.importUser(spec, local, where(node.source));
      if (factory.liveSpecs.has(spec)) factory.inside.push(liveBindings(node, local, factory.live));
      else factory.inside.push(bindings(node, `(await ${VU}.load(${local}))`));
    } else {
      // Ended with a semicolon: the next import follows on the same line.
      factory.head.push(importText(node, source).replace(/;?$/, ';'));
    }
    edits.blank(node.start, node.end);
  } else if (node.type === 'ExportNamedDeclaration') {
    if (node.source) {
      // `export { a, b as c } from './x.js'`: the names of that module's instance.
      const ns = factory.namespaceOf(node);
      for (const sp of node.specifiers) exported.set(sp.exported.name ?? sp.exported.value, `${ns}[${JSON.stringify(sp.local.name ?? sp.local.value)}]`);
      edits.blank(node.start, node.end);
    } else if (node.declaration) {
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
      // An anonymous function or class exported as default is named 'default', as in ES modules.
      if (d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') {
        edits.insert(node.end, `; Object.defineProperty(__loadtest_default, 'name', { value: 'default', configurable: true });`, -Infinity);
      }
    }
  } else if (node.type === 'ExportAllDeclaration') {
    // `export * as ns from`: that instance; `export * from`: its names but default, under the
    // module's own (which win, as in ES modules).
    const ns = factory.namespaceOf(node);
    if (node.exported) exported.set(node.exported.name ?? node.exported.value, ns);
    else factory.stars.push(ns);
    edits.blank(node.start, node.end);
  }
}

// Array.prototype.get and Map.get are sync; k6's http.get is not: a call on these names is never
// taken to return at once by its method's name.
function waitingObjectsOf(ast) {
  const waitingObjects = new Set(['http']);
  for (const node of ast.body) {
    if (node.type !== 'ImportDeclaration' || node.source.value !== 'k6/http') continue;
    for (const sp of node.specifiers) if (sp.type !== 'ImportSpecifier') waitingObjects.add(sp.local.name);
  }
  return waitingObjects;
}

/** Each require of a string made the VU's module or instance (one of k6/http adds to `waitingObjects`). Returns how many. */
function takeRequires(ast, edits, factory, waitingObjects, where = factory.where) {
  let requires = 0;
  walkAncestor(ast, {
    CallExpression(node, _state, ancestors) {
      const spec = requiredSpec(node);
      if (spec === null) return;
      requires++;
      const parent = ancestors[ancestors.length - 2];
      if (spec === 'k6/http' && parent.type === 'VariableDeclarator' && parent.id.type === 'Identifier') waitingObjects.add(parent.id.name);
      // What does not resolve throws when called, as k6 resolves a require (./unresolved.js).
      const unresolved = unresolvedRequire(spec, factory);
      const relative = spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/') || spec.startsWith('https://');
      const route = unresolved !== null || isK6(spec) || (relative && !factory.library) ? null : factory.route(spec, 'require', where(node));
      if (unresolved !== null) {
        edits.replace(node.callee.start, node.callee.end, throwsWhenCalled(unresolved));
      } else if (isK6(spec)) {
        edits.replace(node.start, node.end, factory.k6Module(spec, node));
      } else if (route === 'native' && factory.packages !== null) {
        // The runtime's own (a `require` of `node:fs` or `events`): its CommonJS object.
        const local = factory.nextLocal();
        factory.head.push(`import * as ${local} from ${JSON.stringify(spec)};`);
        edits.replace(node.start, node.end, `(${local}.default ?? ${local})`);
      } else if (route === 'missing' && factory.library) {
        edits.replace(node.start, node.end, `(() => { throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${spec}'`)}), { code: 'MODULE_NOT_FOUND' }); })()`);
      } else if (relative || route === 'module') {
        // As k6: the path as written, no extension added (k6 v1.3 cannot open './util'); a
        // remote module too (a bundle that keeps jslib out requires https://jslib.k6.io/...).
        // A CommonJS module runs at its first require; an ES module's instance, which takes a
        // wait to make, is made before this module's body, as an import's.
        const local = factory.nextLocal();
        factory.importUser(spec, local, where(node));
        factory.inside.push(`const ${local}r = ${local}.__loadtest_cjs ? null : (await ${VU}.load(${local}));`);
        edits.replace(node.start, node.end, `(${local}r ?? ${VU}.commonJS(${local}))`);
      } else {
        // A name installed nowhere (route 'missing'), or any name without the packages' router.
        edits.replace(node.callee.start, node.callee.end, throwsWhenCalled(unrecognised(spec)));
      }
    },
  });
  return requires;
}

// Why a require of `spec` cannot be given, in k6's words where k6 has them; null when it can.
// A bare name is the packages' router's to resolve (takeRequires), a package's file's requires too.
function unresolvedRequire(spec, factory) {
  if (isK6(spec)) {
    if (K6_MODULES.has(spec)) return null;
    return spec.startsWith('k6/x/') ? unknownModule(spec) : unsupported(spec);
  }
  if (spec.startsWith('http://')) return `only supported schemes for imports are file and https, ${spec} has \`http\``;
  if (factory.library || !(spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/'))) return null;
  // k6 reads a required .json as JavaScript, and fails on its first colon.
  if (spec.endsWith('.json')) return `'${spec}' cannot be required: read JSON with JSON.parse(open('${spec}'))`;
  return factory.missing(spec) ? notOnDisk(spec) : null;
}

// __VU and __ITER: the VU's own, read when used (__ITER changes each iteration).
function bindVuGlobals(ast, edits) {
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
}

// What a module's factory binds of k6's: open() relative to the module, the VU's console and
// its event loop's timers (an npm package's are libraryGlobals()).
const SCRIPT_GLOBALS = `const open = (path, mode) => ${VU}.open(path, mode, import.meta.url), console = ${VU}.console, Math = ${VU}.math, { setTimeout, setInterval, clearTimeout, clearInterval } = ${VU}.loop;`;

// `module` comes from the VU (a require reads module.exports as soon as the body has run up
// to its first wait); what an import of it sees: module.exports as the default, its
// properties as names.
// A `return` at the top ends the body, not the factory: the body is then a function of its own.
// The ES modules it requires are made first (`inside`): a module that requires this one sees
// its exports once they are.
function commonJSModule(source, edits, { head, inside }, topReturn, globals) {
  const [bodyStart, bodyEnd] = topReturn === null ? ['', ''] : ['await (async () => { ', '\n})();'];
  const prefix = `${head.join('')}export const __loadtest_cjs = true; export default function (${VU}, module = { exports: {} }) { ${globals} let ${T}, ${W} = ${VU}.isWait, exports = module.exports; return (async () => { ${inside.join(' ')} ${bodyStart}`;
  const suffix = `${bodyEnd}\nreturn Object.assign({ default: module.exports }, module.exports);\n})(); }\n`;
  return assemble(source, prefix, edits, suffix);
}

// Its exports are one object, handed to `early` before the module's imports are made: a module
// that imports it back, in a cycle, has it while its body has yet to run (its functions, which
// are hoisted, are there already, as in ES modules), and reads its names once it has run.
function esModule(source, edits, { head, inside, exported, stars, hoisted }, globals) {
  const entries = (list) => `{ ${list.map(([n, local]) => `${JSON.stringify(n)}: ${local}`).join(', ')} }`;
  // The rest, until its body has set them, throw as a binding not yet made does.
  const unmade = [...exported].filter(([, local]) => !hoisted.has(local)).map(([n]) => JSON.stringify(n));
  const early = `const ${EXPORTS} = ${entries([...exported].filter(([, local]) => hoisted.has(local)))}; ${EARLY} && (${unmade.length ? `${VU}.unmade(${EXPORTS}, [${unmade.join(', ')}]), ` : ''}${EARLY}(${EXPORTS}));`;
  const prefix = `${head.join('')}export default function (${VU}, ${EARLY}) { ${globals} let ${T}, ${W} = ${VU}.isWait; return (async () => { ${early} ${inside.join(' ')} `;
  const own = entries([...exported]);
  const suffix = stars.length ? `\nreturn Object.assign(${EXPORTS}, ${stars.map((ns) => `${VU}.reexported(${ns})`).join(', ')}, ${own});\n})(); }\n` : `\nreturn Object.assign(${EXPORTS}, ${own});\n})(); }\n`;
  return assemble(source, prefix, edits, suffix);
}

// The module: the factory's head on line 1, the edited source, its end, and last the map of the
// columns the edits moved (src/script/transform/columns.js), registered when the module is evaluated.
function assemble(source, prefix, edits, suffix) {
  const body = edits.apply();
  return prefix + body + suffix + registration(columnMap(source, body, prefix, edits.spans)) + '\n';
}

// The functions of the script's entry module that only the run calls (the default function,
// setup, teardown, handleSummary, a scenario's exec): exported, and named nowhere else in it.
function runnerOnly(ast) {
  const candidates = new Map(); // name → function
  const fns = new Set();
  for (const node of ast.body) {
    if (node.type === 'ExportDefaultDeclaration' && (node.declaration.type === 'FunctionDeclaration' || node.declaration.type === 'FunctionExpression')) {
      if (node.declaration.id) candidates.set(node.declaration.id.name, node.declaration);
      else fns.add(node.declaration);
    } else if (node.type === 'ExportNamedDeclaration' && node.declaration && node.declaration.type === 'FunctionDeclaration') {
      candidates.set(node.declaration.id.name, node.declaration);
    }
  }
  if (candidates.size) {
    const named = new Map();
    walkFull(ast, (n) => {
      if (n.type === 'Identifier' && candidates.has(n.name)) named.set(n.name, (named.get(n.name) || 0) + 1);
    });
    for (const [name, fn] of candidates) if (named.get(name) === 1) fns.add(fn);
  }
  return fns;
}

// A require call with a string, `require 'x'`: 'x', else null.
function requiredSpec(node) {
  const a = node.arguments;
  return node.callee.type === 'Identifier' && node.callee.name === 'require' && a.length === 1 && a[0].type === 'Literal' && typeof a[0].value === 'string' ? a[0].value : null;
}

// The first `return` of the module's top level (outside every function), or null.
function topLevelReturn(ast) {
  let found = null;
  walkRecursive(ast, null, {
    Function() {},
    ReturnStatement(node) {
      if (found === null) found = node;
    },
  });
  return found;
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

// TypeScript's exports by name of a type (`interface User {}` then `export { User, newUser }`):
// with the types gone the name is declared nowhere, and it is left out, as esbuild (k6's) leaves
// it out. A module's names: its declarations and imports, top-level.
function elideTypeExports(ast) {
  const names = new Set();
  for (const d of ast.body) {
    if (d.type === 'ImportDeclaration') d.specifiers.forEach((s) => names.add(s.local.name));
    const decl = d.type === 'ExportNamedDeclaration' || d.type === 'ExportDefaultDeclaration' ? d.declaration : d;
    if (decl && /^(VariableDeclaration|FunctionDeclaration|ClassDeclaration)$/.test(decl.type) && (decl.id !== null || decl.type === 'VariableDeclaration')) declaredNames(decl).forEach((n) => names.add(n));
  }
  for (const d of ast.body) {
    if (d.type !== 'ExportNamedDeclaration' || d.source || d.declaration || d.specifiers.length === 0) continue;
    d.specifiers = d.specifiers.filter((s) => s.local.type !== 'Identifier' || names.has(s.local.name));
  }
}

// An import as written, but for the names elideTypeImports left out.
function importText(node, source) {
  if (!node.elided) return source.slice(node.start, node.end).replace(/\s*\n\s*/g, ' ');
  const named = node.specifiers.filter((s) => s.type === 'ImportSpecifier').map((s) => `${source.slice(s.imported.start, s.imported.end)} as ${s.local.name}`);
  const first = node.specifiers.filter((s) => s.type !== 'ImportSpecifier').map((s) => (s.type === 'ImportDefaultSpecifier' ? s.local.name : `* as ${s.local.name}`));
  return `import ${[...first, ...(named.length ? [`{ ${named.join(', ')} }`] : [])].join(', ')} from ${JSON.stringify(node.source.value)};`;
}

// The entry module's factory, called by the run with its VU alone, makes the VU's instance
// through VU.load() as every other module's is: a module that imports it back, in a cycle,
// then has that instance rather than one of its own.
function selfLoad(name, factory) {
  factory.head.push(`import * as __loadtest_self from ${JSON.stringify(factory.sibling(`./${name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1)}`))};`);
  return `if (arguments.length < 2) return ${VU}.load(__loadtest_self); `;
}

const EXPORTS = '__loadtest_exports';
const EARLY = '__loadtest_early';

// The names of the functions declared at the module's top, exported or not.
function hoistedFunctions(ast) {
  const names = new Set();
  for (const n of ast.body) {
    const d = n.type === 'ExportNamedDeclaration' || n.type === 'ExportDefaultDeclaration' ? n.declaration : n;
    if (d && d.type === 'FunctionDeclaration' && d.id) names.add(d.id.name);
  }
  return names;
}

// An import that closes a cycle: its module's exports object, whose names are read where used.
function liveBindings(node, local, live) {
  const ns = `${local}i`;
  for (const s of node.specifiers) {
    if (s.type === 'ImportNamespaceSpecifier') live.set(s.local.name, ns);
    else live.set(s.local.name, `${ns}[${JSON.stringify(s.type === 'ImportDefaultSpecifier' ? 'default' : (s.imported.name ?? s.imported.value))}]`);
  }
  return `const ${ns} = (await ${VU}.load(${local}));`;
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
