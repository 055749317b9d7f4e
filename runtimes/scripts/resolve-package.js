// An npm package's file, found as the runtime finds it (node's resolution algorithm): the
// nearest node_modules/NAME walking up from the importing file's folder, its package.json's
// `exports` (subpaths, `*` patterns, conditions, arrays, null) or else `main` and index.js, and a
// package's own `imports` (`#internal`). k6 cannot import npm packages (grafana/k6#475, #1251);
// here a script's bare specifier resolves from its own node_modules, and the file is then
// transformed as the script's own are (runtimes/scripts/load.js).
//
// Beyond node's ES module resolver, a path without its extension is completed as require()
// completes it (`lodash/chunk` → chunk.js, a folder → its index.js), in an import too: bun and
// the bundlers k6's users build with do so, node's import alone would refuse it.

import { readFileSync, statSync, realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve as resolvePath, sep } from 'node:path';
import { runtime } from '../index.js';

const BUILTINS = new Set(builtinModules);

/** A runtime's own module (`node:fs`, `fs`, `fs/promises`): imported as it is. */
export const isBuiltin = (spec) => spec.startsWith('node:') || BUILTINS.has(spec);

/** A package's name, not a path, a URL or one of k6's modules. */
export const isBare = (spec) => !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(spec) && spec !== 'k6' && !spec.startsWith('k6/');

/** The conditions of `exports` the runtime matches: an import's or a require's. */
function conditionsOf(kind) {
  return new Set(['default', 'node', runtime.name, kind === 'require' ? 'require' : 'import']);
}

export class NotFound extends Error {}

const isFile = (p) => statSync(p, { throwIfNoEntry: false })?.isFile() === true;
const isDir = (p) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new NotFound(`${file} cannot be read (${err.code || err.message})`);
  }
}

const EXTENSIONS = ['.js', '.json', '.mjs', '.cjs'];

// require()'s completion of a path: the file, with an extension, or a folder's main or index.
function completed(path) {
  if (isFile(path)) return path;
  for (const ext of EXTENSIONS) if (isFile(path + ext)) return path + ext;
  if (!isDir(path)) return null;
  const pkg = readJson(join(path, 'package.json'));
  if (pkg && typeof pkg.main === 'string') {
    const main = completed(resolvePath(path, pkg.main));
    if (main) return main;
  }
  for (const ext of EXTENSIONS) if (isFile(join(path, 'index' + ext))) return join(path, 'index' + ext);
  return null;
}

const real = (p) => realpathSync(p);

// A target of `exports` or `imports`: a string (with `*` replaced), a list (the first that
// resolves), an object of conditions (the first whose key matches), null (not exported).
function target(value, star, conditions) {
  if (typeof value === 'string') return star === null ? value : value.replaceAll('*', star);
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = target(v, star, conditions);
      if (t !== null) return t;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!conditions.has(k)) continue;
      const t = target(v, star, conditions);
      if (t !== null) return t;
    }
  }
  return null;
}

// `key` ('.', './sub', '#x') in an exports or imports map, with its `*` patterns (the longest
// prefix wins, as node's PATTERN_KEY_COMPARE).
function mapped(map, key, conditions) {
  if (Object.hasOwn(map, key) && !key.includes('*')) return target(map[key], null, conditions);
  let best = null;
  for (const k of Object.keys(map)) {
    const i = k.indexOf('*');
    if (i < 0 || !key.startsWith(k.slice(0, i)) || !key.endsWith(k.slice(i + 1)) || key.length < k.length) continue;
    if (best === null || k.length > best.length) best = k;
  }
  if (best === null) return undefined;
  const i = best.indexOf('*');
  return target(map[best], key.slice(i, key.length - (best.length - i - 1)), conditions);
}

// The exports map in its object form: a string, a list or conditions alone are the package's '.'.
function exportsMap(exp) {
  if (typeof exp === 'string' || Array.isArray(exp)) return { '.': exp };
  if (exp && typeof exp === 'object' && !Object.keys(exp).some((k) => k.startsWith('.'))) return { '.': exp };
  return exp;
}

function inPackage(dir, subpath, pkg, spec, conditions) {
  if (pkg && pkg.exports !== undefined && pkg.exports !== null) {
    const t = mapped(exportsMap(pkg.exports), subpath === '' ? '.' : `.${subpath}`, conditions);
    if (t === undefined || t === null) throw new NotFound(`'${spec}' is not exported by ${join(dir, 'package.json')} (its "exports")`);
    const file = resolvePath(dir, t);
    if (!isFile(file)) throw new NotFound(`'${spec}' resolves to ${file}, which is not there`);
    return real(file);
  }
  const file = completed(join(dir, subpath));
  if (file === null) throw new NotFound(`'${spec}' has no file ${join(dir, subpath || (pkg && pkg.main) || 'index.js')}`);
  return real(file);
}

// The nearest package.json above a file, and its folder.
function packageAbove(file) {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = readJson(join(dir, 'package.json'));
    if (pkg) return { dir, pkg };
    if (dirname(dir) === dir) return null;
  }
}

/**
 * The file `spec` names from the module `from` (a path): a bare specifier, a package's `#name`,
 * or (from a package's own file) a relative path completed as require() completes it. `kind`:
 * 'import' or 'require'. Throws NotFound with why.
 */
export function resolvePackage(spec, from, kind = 'import') {
  const conditions = conditionsOf(kind);
  if (spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/')) {
    const file = completed(resolvePath(dirname(from), spec));
    if (file === null) throw new NotFound(`cannot find module '${spec}'`);
    return real(file);
  }
  if (spec.startsWith('#')) {
    const owner = packageAbove(from);
    const t = owner && owner.pkg.imports ? mapped(owner.pkg.imports, spec, conditions) : undefined;
    if (t === undefined || t === null) throw new NotFound(`'${spec}' is not in the "imports" of the package of ${from}`);
    return isBare(t) ? resolvePackage(t, from, kind) : real(resolvePath(owner.dir, t));
  }
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const subpath = spec.slice(name.length);
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (!dir.endsWith(`${sep}node_modules`)) {
      const pkgDir = join(dir, 'node_modules', name);
      if (isDir(pkgDir)) return inPackage(pkgDir, subpath, readJson(join(pkgDir, 'package.json')), spec, conditions);
    }
    if (dirname(dir) === dir) break;
  }
  throw new NotFound(`cannot find package '${name}' in a node_modules folder above ${dirname(from)}`);
}
