// Live bindings for the imports that close a cycle of modules (a.js imports b.js, b.js imports
// a.js). A module's imports are bound once its imports' bodies have run (`const { a } = ...`),
// but in a cycle the module imported back has not run yet: its names are read where they are
// used instead, as ES modules bind them, so that b.js's functions see what a.js's body made once
// it has run (src/script/vu/vu.js load() hands b.js a.js's exports object before a.js's body).

import { ancestor as walkAncestor } from 'acorn-walk';

const FUNCTION = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Each reference to a name of `live` (local name → expression) is written as that expression. */
export function liveReferences(ast, live, edits) {
  if (live.size === 0) return;
  const scopes = new WeakMap();
  walkAncestor(ast, {
    Identifier(node, _state, ancestors) {
      const expr = live.get(node.name);
      if (expr === undefined) return;
      for (let i = ancestors.length - 2; i >= 0; i--) if (binds(ancestors[i], node.name, scopes)) return;
      const parent = ancestors[ancestors.length - 2];
      if (parent.type === 'Property' && parent.shorthand && parent.value === node) edits.replace(node.start, node.end, `${node.name}: ${expr}`);
      else if ((parent.type === 'CallExpression' && parent.callee === node) || (parent.type === 'TaggedTemplateExpression' && parent.tag === node)) edits.replace(node.start, node.end, `(0, ${expr})`);
      else edits.replace(node.start, node.end, expr);
    },
  });
}

// Whether `scope` (a function, block, loop, catch clause or class) declares `name` itself.
function binds(scope, name, cache) {
  if (scope.type === 'Program') return false;
  let names = cache.get(scope);
  if (names === undefined) {
    names = new Set();
    collect(scope, names);
    cache.set(scope, names);
  }
  return names.has(name);
}

function collect(scope, names) {
  const add = (pattern) => patternNames(pattern, names);
  if (FUNCTION.has(scope.type)) {
    scope.params.forEach(add);
    if (scope.type === 'FunctionExpression' && scope.id) names.add(scope.id.name);
    if (scope.body.type === 'BlockStatement') varNames(scope.body, names);
  } else if (scope.type === 'ClassExpression' || scope.type === 'ClassDeclaration') {
    if (scope.id) names.add(scope.id.name);
  } else if (scope.type === 'CatchClause') {
    add(scope.param);
  } else if (scope.type === 'ForStatement' || scope.type === 'ForInStatement' || scope.type === 'ForOfStatement') {
    const d = scope.type === 'ForStatement' ? scope.init : scope.left;
    if (d && d.type === 'VariableDeclaration') d.declarations.forEach((v) => add(v.id));
  } else if (scope.type === 'BlockStatement' || scope.type === 'StaticBlock' || scope.type === 'SwitchStatement') {
    const body = scope.type === 'SwitchStatement' ? scope.cases.flatMap((c) => c.consequent) : scope.body;
    for (const s of body) {
      if (s.type === 'VariableDeclaration' && s.kind !== 'var') s.declarations.forEach((v) => add(v.id));
      else if ((s.type === 'FunctionDeclaration' || s.type === 'ClassDeclaration') && s.id) names.add(s.id.name);
    }
  }
}

// The `var`s of a function's body, in its blocks too, not in the functions inside it.
function varNames(node, names) {
  if (!node || typeof node.type !== 'string' || FUNCTION.has(node.type)) return;
  if (node.type === 'VariableDeclaration' && node.kind === 'var') node.declarations.forEach((v) => patternNames(v.id, names));
  for (const key of Object.keys(node)) {
    const v = node[key];
    if (Array.isArray(v)) v.forEach((c) => c && typeof c.type === 'string' && varNames(c, names));
    else if (v && typeof v.type === 'string' && key !== 'loc') varNames(v, names);
  }
}

function patternNames(p, names) {
  if (!p) return;
  if (p.type === 'Identifier') names.add(p.name);
  else if (p.type === 'ObjectPattern') p.properties.forEach((q) => patternNames(q.type === 'RestElement' ? q.argument : q.value, names));
  else if (p.type === 'ArrayPattern') p.elements.forEach((e) => patternNames(e, names));
  else if (p.type === 'RestElement') patternNames(p.argument, names);
  else if (p.type === 'AssignmentPattern') patternNames(p.left, names);
}
