// npm packages in a k6 script (beyond k6: grafana/k6#475, #1251), for runtimes/scripts/load.js:
// what each specifier that is neither k6's nor a script file's becomes. A package's file is
// found as the runtime finds it (runtimes/scripts/resolve-package.js) and loaded as the script's
// own modules are, transformed, a factory per VU; the runtime's own modules (`node:fs`, `events`)
// are imported as they are; `npm:` and `jsr:` are Deno's, which Deno resolves itself.

import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { resolvePackage, isBare, isBuiltin, NotFound } from './resolve-package.js';
import { runtime } from '../index.js';
import { ScriptError } from '../../src/script/transform/transform.js';

// A file the transform cannot take, loaded by the runtime's require() (src/script/transform/
// library.js gives a package's CommonJS module one): a native addon, a module only a sloppy-mode
// engine reads (`with`, octal literals).
const NATIVE = 'module.exports = require(__filename);\n';

const located = (message) => Object.assign(new Error(message), { located: true });

export function packageRouter() {
  const files = new Set(); // the packages' files among the modules
  const keys = new Map(); // importer \0 spec → the file it resolved to

  return {
    has: (key) => files.has(key),
    keyOf: (importer, spec) => keys.get(`${importer}\0${spec}`) ?? null,

    /** 'module', 'native' or 'missing' (a require that resolves nowhere); else throws, located. */
    route(importer, spec, kind, at) {
      if (isBuiltin(spec)) return 'native';
      if (/^(npm|jsr):/.test(spec)) {
        if (runtime.name === 'deno') return 'native';
        throw located(`${at}: '${spec}' is a Deno specifier: on ${runtime.name}, npm install the package and import it by its name`);
      }
      const inPackage = files.has(importer);
      if (!isBare(spec) && !spec.startsWith('#') && !(inPackage && /^\.{0,2}\//.test(spec))) return 'native';
      let file;
      try {
        file = resolvePackage(spec, importer, kind);
      } catch (err) {
        if (!(err instanceof NotFound)) throw err;
        // A require throws when it runs: node's error in a package, k6's in the script (k6
        // resolves a require when called: one in a branch never taken does not stop the script).
        if (kind === 'require') return 'missing';
        throw located(`${at}: cannot import '${spec}': ${err.message}`);
      }
      files.add(file);
      if (!keys.has(`${importer}\0${spec}`)) keys.set(`${importer}\0${spec}`, file);
      return 'module';
    },

    /** A package file's source as the transform takes it: JSON as a CommonJS module, an addon the runtime's. */
    source(file) {
      const ext = extname(file);
      if (ext === '.node') return NATIVE;
      const text = readFileSync(file, 'utf8');
      return ext === '.json' ? `module.exports = ${text.replace(/^\uFEFF/, '')};\n` : text;
    },

    /** `transform(source)`; a package's file it refuses is the runtime's to load, as the runtime would. */
    transformed(file, source, transform) {
      try {
        return transform(source);
      } catch (err) {
        if (!files.has(file) || !(err instanceof ScriptError)) throw err;
        return transform(NATIVE);
      }
    },
  };
}
