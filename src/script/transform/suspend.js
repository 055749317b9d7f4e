// The part of the transform that lets a call suspend its VU (src/script/transform/transform.js does the
// module around it).
//
// In k6 a request blocks its VU; here it returns a promise, and the VUs share one event loop.
// What the script wrote must still run as k6 runs it: a function that makes no request returns
// its value, not a promise, whoever calls it (SharedArray's factory, sort's comparator, a getter,
// a library); one that does returns once its requests are done.
//
// So the decision is taken at run time (src/script/eventloop/wait.js): what waits returns a *marked*
// promise, and a function of the script that may wait is written as a generator that drive()
// runs at once, to its end as long as nothing it calls waits:
//
//   function login(u) { BODY }
//   → function login(u) { return VU.drive(function* () { BODY' }.call(this)); }
//
// and in BODY' each call that may wait is `(t = call(), W(t) ? yield t : t)`: a value is used
// at once, a marked promise suspends the generator until it settles (in the module's top level
// and in the script's own async functions, `await` in place of `yield`). The function keeps its
// name, parameters, `this`, `arguments`, prototype and place of declaration; it can be called
// with new, be a getter or a constructor. Which calls "may wait" is a guess from names (a call
// of Math.max, s.trim() cannot), but a wrong guess costs only speed: a function that does not
// wait at run time returns exactly what it returns as written.
//
// Limits (doc/scripts.md): a method that uses `super` runs its body in an async arrow function
// (it returns a marked promise, waiting or not); a function that uses `new.target`, a constructor
// that uses `super` and the script's own generators are left as written (a request there is not
// waited for); a wait in a parameter's
// default value or a class field is not waited for; a built-in or a library that calls a
// function of the script synchronously gets a promise from it only when it did make a request
// (Array's loops are the exception: src/script/eventloop/loops.js awaits them in turn).

import { ancestor as walkAncestor, full as walkFull, base as walkBase } from 'acorn-walk';

// Methods taken to return at once whatever object they are called on: names of String, Array,
// Number, RegExp and k6's Response and Selection methods that a helper of a script hardly
// defines to make requests (`get`, `set`, `add`, `send`, `log` are not among them: an API
// client has such methods; nor is `join`, a channel's in Phoenix and chat clients whose
// join() holds a WebSocket session: besughi/elixir-k6's Channel).
const SYNC_METHODS = new Set([
  'toUpperCase', 'toLowerCase', 'trim', 'trimStart', 'trimEnd', 'split', 'slice', 'substring', 'substr',
  'indexOf', 'lastIndexOf', 'includes', 'startsWith', 'endsWith', 'replace', 'replaceAll', 'match', 'matchAll',
  'test', 'exec', 'push', 'pop', 'shift', 'unshift', 'splice', 'concat', 'reverse', 'fill', 'at', 'charAt',
  'charCodeAt', 'codePointAt', 'padStart', 'padEnd', 'repeat', 'toString', 'toFixed', 'toPrecision',
  'toISOString', 'toJSON', 'valueOf', 'getTime', 'now', 'parse', 'stringify', 'keys', 'values', 'entries',
  'floor', 'ceil', 'round', 'random', 'max', 'min', 'abs', 'pow', 'sqrt', 'trunc', 'sign', 'assign', 'freeze',
  'isArray', 'from', 'of', 'fromCharCode', 'hasOwnProperty', 'encode', 'decode', 'json', 'html', 'attr', 'text',
  'first', 'last', 'eq', 'children', 'parent', 'val', 'size', 'toArray', 'isInteger', 'isNaN', 'isFinite',
  'localeCompare', 'normalize', 'getRandomValues', 'randomUUID', 'cookiesForURL', 'sort', 'b64encode', 'b64decode',
]);
const SYNC_GLOBALS = new Set([
  'parseInt', 'parseFloat', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'isNaN', 'isFinite',
  'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'escape', 'unescape', 'Array', 'Object',
  'Date', 'RegExp', 'Error', 'TypeError', 'RangeError', 'atob', 'btoa', 'fail', 'randomSeed', 'open', 'require',
]);
// Whole objects whose functions all return at once.
const SYNC_NAMESPACES = new Set(['Math', 'JSON', 'Object', 'Array', 'Number', 'String', 'Date', 'console', 'Reflect', 'Symbol', 'encoding', 'exec', 'execution']);
// Array methods whose callback may wait: routed through the loop helpers.
const LOOPS = new Set(['forEach', 'map', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap', 'reduce']);

// The names the transform gives its own bindings; a script does not use them.
export const VU = '__loadtest_vu';
export const T = '__loadtest_t';
export const W = '__loadtest_w';
const ARGS = '__loadtest_args';

const FUNCTION = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
// Ranks of insertions at one place (src/script/transform/edits.js): a statement's `;` before all.
const STATEMENT = 1e15;
// A function's wrapper text is ranked by the function's size, as a call's is by the call's: at
// one place, what encloses goes first (`function () {}()` is a call whose callee is the
// function, so its wrapper goes inside the call's).
const wrapperRank = (fn) => fn.end - fn.start + 0.5;

/**
 * Writes every function of the module that may wait as a generator run by VU.drive, and every
 * call that may wait so that a marked promise suspends it. `waitingObjects`: the names k6/http
 * is bound to in this module (`http`, or whatever the script imports or requires it as).
 * `top`: how the top level suspends, `yield` where it is the body of a generator
 * (src/script/transform/eval-bundle.js: code given to eval()).
 */
export function makeSuspendable(ast, edits, source, waitingObjects, runnerOnly = new Set(), top = 'await') {
  const pageFns = pageFunctions(ast);
  const found = callsThatMayWait(ast, waitingObjects).filter((f) => !pageFns.some((fn) => f.node.start >= fn.start && f.node.end <= fn.end));
  const { driven, waits, viaAsync } = drivenFunctions(ast, found);
  const starts = statementStarts(ast);
  // Functions written in place for a caller of ours that awaits whatever promise they return are
  // made async, which costs far less than a generator made anew each time the function is (in
  // V8 a fresh generator function's first call costs microseconds): k6's group's (a group runs
  // in a VU's iteration, whose callers all wait), and a loop's where the loop is awaited anyway
  // (the module's top level, an async function). A loop in a driven function keeps a driven
  // callback: called synchronously (SharedArray's factory), it must return at once.
  const made = new Set();
  for (const f of found) if (f.callback && driven.has(f.callback) && waits(f) && (f.ctx === ast || f.ctx.async)) made.add(f.callback);
  // So are the functions only the run calls (it awaits them): the default function, setup().
  const unmarked = new Set([...groupCallbacks(ast), ...runnerOnly].filter((fn) => driven.has(fn)));
  for (const fn of unmarked) made.add(fn);
  for (const f of found) {
    if (!waits(f)) continue;
    const { node, parent, ctx } = f;
    if (ctx === ast || ctx.async || made.has(ctx) || viaAsync.has(ctx)) {
      // The module's top level (an async function here) and the script's own async functions:
      // what waits in k6 is awaited, unless the script awaits it itself.
      if (!(parent && parent.type === 'AwaitExpression')) wrapCall(node, parent, edits, starts, ctx === ast ? top : 'await');
    } else if (driven.has(ctx)) {
      wrapCall(node, parent, edits, starts, 'yield');
    }
  }
  const inline = inlineForm(ast, driven, made);
  for (const fn of viaAsync) inline.delete(fn);
  const passArgs = renameArguments(ast, inline, edits);
  const owners = ownersOf(ast);
  let n = 0;
  for (const fn of driven) {
    if (made.has(fn)) makeAsync(fn, edits, !unmarked.has(fn));
    else if (viaAsync.has(fn)) wrapAsync(fn, edits);
    else if (inline.has(fn)) wrapInline(fn, edits, passArgs.get(fn));
    else wrapTwoForms(fn, owners.get(fn), edits, `__loadtest_g${n++}`);
  }
}

// What k6/browser sends to the page to run there (page.evaluate(fn), locator.evaluate(fn),
// page.waitForFunction(fn), page.$eval(selector, fn)...): its text, as written, is what runs in
// the browser, where nothing of the transform's is.
const PAGE_METHODS = new Set(['evaluate', 'evaluateHandle', 'evaluateAll', '$eval', '$$eval', 'waitForFunction', 'addInitScript']);

function pageFunctions(ast) {
  const fns = [];
  walkFull(ast, (node) => {
    if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression' || node.callee.computed) return;
    if (!PAGE_METHODS.has(node.callee.property.name)) return;
    for (const a of node.arguments) if (a.type === 'FunctionExpression' || a.type === 'ArrowFunctionExpression') fns.push(a);
  });
  return fns;
}

// The functions written in place as the second argument of k6's group (`group` as imported from
// 'k6', or `k6.group`).
function groupCallbacks(ast) {
  const names = new Set();
  const objects = new Set();
  for (const d of ast.body) {
    if (d.type !== 'ImportDeclaration' || d.source.value !== 'k6') continue;
    for (const sp of d.specifiers) {
      if (sp.type === 'ImportSpecifier' && (sp.imported.name ?? sp.imported.value) === 'group') names.add(sp.local.name);
      else if (sp.type !== 'ImportSpecifier') objects.add(sp.local.name);
    }
  }
  const fns = new Set();
  walkFull(ast, (node) => {
    if (node.type !== 'CallExpression' || node.arguments.length < 2) return;
    const c = node.callee;
    const isGroup = c.type === 'Identifier' ? names.has(c.name) : c.type === 'MemberExpression' && !c.computed && c.object.type === 'Identifier' && objects.has(c.object.name) && c.property.name === 'group';
    const fn = node.arguments[1];
    if (isGroup && (fn.type === 'FunctionExpression' || fn.type === 'ArrowFunctionExpression') && !fn.generator) fns.add(fn);
  });
  return fns;
}

// `function () {}` → `VU.made(async function () {})`: its promises are waits (src/script/eventloop/wait.js)
// to a loop; group and the run await any promise (`mark` false: `async function () {}`).
function makeAsync(fn, edits, mark) {
  const rank = wrapperRank(fn);
  const at = fn.type === 'FunctionExpression' || fn.type === 'FunctionDeclaration' ? edits.source.indexOf('function', fn.start) : fn.start;
  if (mark) edits.insert(fn.start, `${VU}.made(`, rank);
  edits.insert(at, 'async ', at === fn.start ? rank - 0.25 : 0);
  if (mark) edits.insert(fn.end, ')', -rank);
}

// Every call that may wait: { node, parent, ctx, callback, named }. `ctx`: the function whose
// body it is in (the module: ast), `callback`: the function written in place a loop is given,
// `named`: a method taken to return at once by its name (see drivenFunctions).
function callsThatMayWait(ast, waitingObjects) {
  const found = [];
  // A global's name the script gives a function of its own (`const open = (u) => ws.connect(u,
  // ...)`) is that function's, which may wait.
  const declared = declaredNames(ast);
  const contextOf = (ancestors) => {
    for (let i = ancestors.length - 2; i >= 0; i--) {
      const a = ancestors[i];
      if (FUNCTION.has(a.type)) {
        // A call in a parameter's default value belongs to no body that can wait.
        const self = ancestors[ancestors.length - 1];
        if (a.params.some((p) => p.start <= self.start && self.end <= p.end)) return null;
        return a;
      }
      if (a.type === 'PropertyDefinition' || a.type === 'StaticBlock') return null;
    }
    return ast;
  };
  walkAncestor(
    ast,
    {
      CallExpression(node, _state, ancestors) {
        const wait = mayWait(node, waitingObjects, declared);
        const named = wait ? null : methodName(node);
        if (!wait && named === null) return;
        const ctx = contextOf(ancestors);
        if (ctx !== null) found.push({ node, parent: ancestors[ancestors.length - 2], ctx, callback: inlineCallback(node), named });
      },
    },
    { ...walkBase },
  );
  return found;
}

// Whether a call may wait, from its callee's name alone (see the top of the file).
function mayWait(call, waitingObjects, declared) {
  const c = call.callee;
  if (c.type === 'Identifier') return !SYNC_GLOBALS.has(c.name) || declared.has(c.name);
  if (c.type === 'MemberExpression' && !c.computed && c.property.type === 'Identifier') {
    const o = c.object;
    if (o.type === 'Identifier' && waitingObjects.has(o.name)) return true;
    if (o.type === 'Identifier' && SYNC_NAMESPACES.has(o.name)) return false;
    if (LOOPS.has(c.property.name)) return true;
    return !SYNC_METHODS.has(c.property.name);
  }
  return true;
}

// Every name the module binds, in any scope: its declarations, imports, parameters and catch
// clauses.
function declaredNames(ast) {
  const names = new Set();
  const bind = (pattern) => {
    if (!pattern) return;
    if (pattern.type === 'Identifier') names.add(pattern.name);
    else if (pattern.type === 'ObjectPattern') for (const p of pattern.properties) bind(p.type === 'RestElement' ? p.argument : p.value);
    else if (pattern.type === 'ArrayPattern') for (const e of pattern.elements) bind(e);
    else if (pattern.type === 'RestElement') bind(pattern.argument);
    else if (pattern.type === 'AssignmentPattern') bind(pattern.left);
  };
  walkFull(ast, (node) => {
    if (node.type === 'VariableDeclarator') bind(node.id);
    else if (node.type === 'FunctionDeclaration' || node.type === 'ClassDeclaration') bind(node.id);
    else if (node.type === 'ImportSpecifier' || node.type === 'ImportDefaultSpecifier' || node.type === 'ImportNamespaceSpecifier') bind(node.local);
    else if (node.type === 'CatchClause') bind(node.param);
    if (FUNCTION.has(node.type)) for (const p of node.params) bind(p);
  });
  return names;
}

// The name a call of a method is by, when that name alone would take it to return at once.
function methodName(call) {
  const c = call.callee;
  if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier' || !SYNC_METHODS.has(c.property.name)) return null;
  if (c.object.type === 'Identifier' && SYNC_NAMESPACES.has(c.object.name)) return null;
  return c.property.name;
}

// The function written in place that a loop (forEach, map, ...) is given, or null.
function inlineCallback(call) {
  const c = call.callee;
  if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier' || !LOOPS.has(c.property.name)) return null;
  const fn = call.arguments[0];
  return fn && (fn.type === 'FunctionExpression' || fn.type === 'ArrowFunctionExpression') && !fn.generator ? fn : null;
}

/**
 * The functions to run as generators: those with a call in their own body that may wait, but for
 * async functions and generators (written as they are) and those using super or new.target (a
 * generator cannot). A loop given a function written in place waits only if that function is
 * driven (`lines.map((l) => l.split(','))` stays the built-in, for speed); a method named as one
 * that returns at once (`get`) waits if this module defines a method of that name that is
 * driven. Which functions are driven depends on which calls wait, and back: the least set that
 * holds, grown until nothing changes.
 */
function drivenFunctions(ast, found) {
  const { fixed, superMethods } = unliftable(ast);
  const methodOf = methodNames(ast);
  const driven = new Set();
  const waitingMethods = new Set();
  const waits = (f) => (f.named !== null ? waitingMethods.has(f.named) : f.callback ? driven.has(f.callback) : true);
  for (let grown = true; grown; ) {
    grown = false;
    for (const f of found) {
      const fn = f.ctx;
      if (fn === ast || fn.async || fn.generator || (fixed.has(fn) && !superMethods.has(fn)) || driven.has(fn) || !waits(f)) continue;
      driven.add(fn);
      if (methodOf.has(fn)) waitingMethods.add(methodOf.get(fn));
      grown = true;
    }
  }
  // A method using super runs its body in an async arrow function instead (which sees super).
  const viaAsync = new Set([...driven].filter((fn) => superMethods.has(fn)));
  return { driven, waits, viaAsync };
}

// Functions whose body uses super or new.target, which a generator written inside it would not
// see: left as written (and so is every arrow function between the use and its function), but
// for a method that uses super (not new.target, not a constructor): `superMethods`.
function unliftable(ast) {
  const fixed = new Set();
  const superMethods = new Set();
  const noSuper = new Set();
  const mark = (node, _state, ancestors) => {
    for (let i = ancestors.length - 2; i >= 0; i--) {
      const a = ancestors[i];
      if (!FUNCTION.has(a.type)) continue;
      fixed.add(a);
      if (a.type === 'ArrowFunctionExpression') continue;
      const owner = ancestors[i - 1];
      const method = owner && ((owner.type === 'MethodDefinition' && owner.kind === 'method') || (owner.type === 'Property' && owner.method)) && owner.value === a;
      if (node.type === 'Super' && method) superMethods.add(a);
      else noSuper.add(a);
      break;
    }
  };
  walkAncestor(ast, { Super: mark, MetaProperty: mark });
  for (const fn of noSuper) superMethods.delete(fn);
  return { fixed, superMethods };
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

/**
 * `arguments` in a driven function is the generator's own: each use of a function's arguments
 * inside a generator is renamed, and the outermost driven function between the use and its
 * function passes them in. Returns the functions that pass them.
 */
function renameArguments(ast, inline, edits) {
  const passArgs = new Map();
  walkAncestor(ast, {
    Identifier(node, _state, ancestors) {
      if (node.name !== 'arguments') return;
      const parent = ancestors[ancestors.length - 2];
      if (parent.type === 'MemberExpression' && parent.property === node && !parent.computed) return;
      if ((parent.type === 'Property' || parent.type === 'MethodDefinition' || parent.type === 'PropertyDefinition') && parent.key === node && !parent.computed && !parent.shorthand) return;
      let outermost = null;
      for (let i = ancestors.length - 2; i >= 0; i--) {
        const a = ancestors[i];
        if (!FUNCTION.has(a.type)) continue;
        // In a parameter's default value, a function's own arguments are outside its generator.
        const inParams = a.params.some((p) => p.start <= node.start && node.end <= p.end);
        if (inline.has(a) && !inParams) outermost = a;
        if (a.type !== 'ArrowFunctionExpression') break;
      }
      if (outermost === null) return;
      passArgs.set(outermost, true);
      edits.replace(node.start, node.end, parent.type === 'Property' && parent.shorthand ? `arguments: ${ARGS}` : ARGS);
    },
  });
  return passArgs;
}

// Where each function is the value of an object's property or a class's member: { owner, cls }.
function ownersOf(ast) {
  const owners = new Map();
  walkAncestor(ast, {
    Property(node) {
      if (FUNCTION.has(node.value.type)) owners.set(node.value, { owner: node, cls: null });
    },
    MethodDefinition(node, _state, ancestors) {
      owners.set(node.value, { owner: node, cls: ancestors[ancestors.length - 3] });
    },
    // Where an anonymous function takes its name from (`const f = function () {}`: f.name is 'f').
    VariableDeclarator(node) {
      if (node.init && FUNCTION.has(node.init.type) && node.id.type === 'Identifier') owners.set(node.init, { owner: node, cls: null });
    },
    AssignmentExpression(node) {
      if (FUNCTION.has(node.right.type) && node.left.type === 'Identifier' && node.operator === '=') owners.set(node.right, { owner: node, cls: null });
    },
  });
  return owners;
}

// The name an anonymous function gets where it is written (a variable's, an assignment's, a
// property's), which its wrapper must get too: in an IIFE's return it would have none.
function inferredName(fn, where) {
  if (fn.id || !where) return null;
  const o = where.owner;
  if (o.type === 'VariableDeclarator') return o.id.name;
  if (o.type === 'AssignmentExpression') return o.left.name;
  if (o.type === 'Property' && !o.computed && !o.method && o.kind === 'init') return o.key.type === 'Identifier' ? o.key.name : String(o.key.value);
  return null;
}

/**
 * The driven functions whose generator is written inside them, made anew at each call (slower:
 * making a generator function costs V8 about a microsecond): where no place in the same scope can
 * hold a generator made once (an object's getter or setter, a member of a class without a name),
 * where the generator would not see the same bindings (a function expression that names itself,
 * an arrow function that uses the arguments of the function around it).
 */
function inlineForm(ast, driven, made) {
  const inline = new Set();
  walkAncestor(ast, {
    Property(node) {
      if (node.kind !== 'init' && driven.has(node.value)) inline.add(node.value);
    },
    MethodDefinition(node, _state, ancestors) {
      if (driven.has(node.value) && !ancestors[ancestors.length - 3].id) inline.add(node.value);
    },
    FunctionExpression(node) {
      if (!node.id || !driven.has(node)) return;
      walkFull(node.body, (n) => {
        if (n.type === 'Identifier' && n.name === node.id.name) inline.add(node);
      });
    },
    Identifier(node, _state, ancestors) {
      if (node.name !== 'arguments') return;
      for (let i = ancestors.length - 2; i >= 0 && ancestors[i].type !== 'FunctionExpression' && ancestors[i].type !== 'FunctionDeclaration'; i--) {
        if (ancestors[i].type === 'ArrowFunctionExpression' && driven.has(ancestors[i]) && !made.has(ancestors[i])) inline.add(ancestors[i]);
      }
    },
  });
  return inline;
}

// Parameters that give a wrapper the length of the function it stands for: one for each before
// the first with a default value or a rest.
function lengthParams(fn) {
  const names = [];
  for (const p of fn.params) {
    if (p.type === 'AssignmentPattern' || p.type === 'RestElement') break;
    names.push(`__loadtest_p${names.length}`);
  }
  return names;
}

/**
 * The two forms of a function that may wait: the generator `G`, made where the function is made
 * (once, not at each call) from the function's own text, on its own lines; and in the function's
 * place a wrapper of the same name and length that runs it (src/script/eventloop/wait.js):
 *
 *   function f(PARAMS) { BODY }  →  function f(p0) { return VU.drive(G.apply(this, arguments)); } function* G(PARAMS) { BODY }
 *   function (PARAMS) { BODY }   →  ((G) => function (p0) { return VU.drive(G.apply(this, arguments)); })(function* (PARAMS) { BODY })
 *   (PARAMS) => EXPR             →  ((G) => (p0, ...r) => VU.drive(G.call(this, p0, ...r)))(function* (PARAMS) { return EXPR; })
 *   { m(PARAMS) { BODY } }       →  { m: ((G) => function (p0) { ... })(function* (PARAMS) { BODY }) }
 *   class C { m(PARAMS) { BODY } } → class C { m(p0) { return VU.drive(C.#G.apply(this, arguments)); } static *#G(PARAMS) { BODY } }
 */
function wrapTwoForms(fn, where, edits, G) {
  const source = edits.source;
  const rank = wrapperRank(fn);
  // A setter has one parameter, whatever it is.
  const p = where && where.owner.kind === 'set' ? ['__loadtest_p0'] : lengthParams(fn);
  const run = `{ return ${VU}.drive(${G}.apply(this, arguments)); }`;
  const name = inferredName(fn, where);
  // (JavaScriptCore names a function by the variable it is assigned to, not by an object
  // literal's key: the name is set as a property.)
  const named = (wrapper) => (name === null ? wrapper : `Object.defineProperty(${wrapper}, 'name', { value: ${JSON.stringify(name)} })`);
  const iife = (wrapper) => `((${G}) => ${named(wrapper)})(`;
  if (where && where.owner.type === 'MethodDefinition') {
    // The class's name is the class inside its body; a static private method exists before any
    // static field is initialized.
    edits.insert(fn.start, `(${p.join(', ')}) { return ${VU}.drive(${where.cls.id.name}.#${G}.apply(this, arguments)); } static *#${G}`, rank);
    return;
  }
  if (where && where.owner.type === 'Property' && where.owner.method) {
    edits.insert(fn.start, `: ${iife(`function (${p.join(', ')}) ${run}`)}function* `, rank);
    edits.insert(fn.end, ')', -rank);
    return;
  }
  if (fn.type === 'ArrowFunctionExpression') {
    const args = [...p, '...__loadtest_r'].join(', ');
    edits.insert(fn.start, `${iife(`(${args}) => ${VU}.drive(${G}.call(this, ${args}))`)}function* `, rank);
    const bare = source[fn.start] !== '(';
    if (bare) {
      edits.insert(fn.start, '(', rank - 0.25);
      edits.insert(fn.params[0].end, ')', -1);
    }
    // `=>` removed: after the parameters' closing parenthesis (comments aside).
    const after = bare ? fn.params[0].end : source.indexOf(')', fn.params.length ? fn.params[fn.params.length - 1].end : fn.start) + 1;
    const arrow = source.indexOf('=>', after);
    edits.replace(arrow, arrow + 2, '  ');
    if (fn.body.type !== 'BlockStatement') {
      // After the `=>`, before any parenthesis around the body: `() => ({ a: 1 })`.
      // In parentheses: a body on the line after the `=>` would otherwise be cut from the
      // `return` by a semicolon JavaScript inserts there.
      edits.insert(arrow + 2, '{ return (', rank - 0.75);
      edits.insert(fn.end, '); }', -(rank - 0.75));
    }
    edits.insert(fn.end, ')', -rank);
    return;
  }
  const head = fn.id ? fn.id.end : source.indexOf('function', fn.start) + 'function'.length;
  const keyword = source.indexOf('function', fn.start);
  if (fn.type === 'FunctionDeclaration' && fn.id) {
    edits.insert(fn.start, `function ${fn.id.name}(${p.join(', ')}) ${run} `, rank);
    edits.replace(keyword, head, `function* ${G}`);
    return;
  }
  edits.insert(fn.start, iife(`function ${fn.id ? fn.id.name : ''}(${p.join(', ')}) ${run}`), rank);
  edits.replace(keyword, head, 'function* ');
  edits.insert(fn.end, ')', -rank);
}

// A method that uses super: `m() { BODY }` → `m() { return VU.waits(async () => { BODY }); }`,
// a marked promise whether it waited or not (the limit: called synchronously, it gives a promise).
function wrapAsync(fn, edits) {
  const rank = wrapperRank(fn);
  edits.insert(fn.body.start + 1, ` return ${VU}.waits(async () => {`, rank);
  edits.insert(fn.body.end - 1, `}); `, -rank);
}

// The other form, where wrapTwoForms cannot be (inlineForm): the generator written inside the
// function, made at each call.
//   function f(a) { BODY } → function f(a) { return VU.drive(function* () { BODY }.call(this)); }
//   (a) => EXPR            → (a) => VU.drive(function* () { return EXPR; }.call(this))
function wrapInline(fn, edits, passArgs) {
  const rank = wrapperRank(fn);
  const param = passArgs ? ARGS : '';
  const call = passArgs ? `.call(this, arguments)` : '.call(this)';
  const body = fn.body;
  if (body.type === 'BlockStatement') {
    edits.insert(body.start + 1, ` return ${VU}.drive(function* (${param}) {`, rank);
    edits.insert(body.end - 1, `}${call}); `, -rank);
  } else {
    edits.insert(body.start, `${VU}.drive(function* (${param}) { return `, rank);
    edits.insert(body.end, `; }${call})`, -rank);
  }
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

// `call` → `(t = call, W(t) ? yield t : t)` (or await): a marked promise suspends, anything else
// is the call's value at once. (W is isWait: a property read on whatever a call returns would run
// a Proxy's get trap, and chai's records what it is asked.)
function wrapCall(node, parent, edits, starts, suspend) {
  // `a().then(...)`: a promise the script goes on with, left as it is; so are Promise.all(...)
  // and the like.
  if (parent && parent.type === 'MemberExpression' && parent.object === node && !parent.computed && ['then', 'catch', 'finally'].includes(parent.property.name)) return;
  const c = node.callee;
  if (c.type === 'MemberExpression' && c.object.type === 'Identifier' && c.object.name === 'Promise') return;
  let target = node;
  // `a?.b()`: the whole chain is the expression to wrap.
  if (parent && parent.type === 'ChainExpression') target = parent;
  const size = target.end - target.start;
  if (c.type === 'MemberExpression' && !c.computed && LOOPS.has(c.property.name) && !node.optional && !c.optional && target === node) {
    // `xs.forEach(fn, ...)` → `VU.loops.forEach(xs, fn, ...)`: a callback that waits is awaited in
    // turn. From the dot (after any parentheses around the object) to the first argument, its
    // line breaks kept so that the lines after keep their numbers.
    edits.insert(node.start, `${VU}.loops.${c.property.name}(`, size - 0.5);
    // To the call's own parenthesis, not the first argument's start: `.map((function () {}))`.
    const dot = edits.source.lastIndexOf('.', c.property.start);
    const to = edits.source.indexOf('(', c.property.end) + 1;
    edits.replace(dot, to, (node.arguments.length ? ', ' : '') + edits.source.slice(dot, to).replace(/[^\n]/g, ''));
  }
  if (starts.delete(target.start)) edits.insert(target.start, ';', STATEMENT); // once, before all
  edits.insert(target.start, `(${T} = `, size);
  edits.insert(target.end, `, ${W}(${T}) ? ${suspend} ${T} : ${T})`, -size);
}
