// What an npm package's file sees, transformed as a script's module is (a factory per VU, so
// that its state belongs to its VU as in a k6 bundle): the runtime's timers, not the VU's event
// loop (a database client's idle timer must not hold the iteration open), `global`, and in
// CommonJS node's `__filename`, `__dirname` and a `require` for what the transform cannot see
// (a `require` of a name computed at run time, `require.resolve`): the runtime's own, which
// loads such a module as the runtime does, outside the transform. Its console is the VU's, as
// the script's: a package's lines are logged as k6 logs them.
//
// Whether its functions may suspend the VU (src/script/transform/suspend.js): only where the
// file names one of k6's modules. A package does not call k6's functions that wait unless it
// imports them; a function of the script that it calls back was transformed where the script
// wrote it, and returns a promise when it waits, which the package does not await (as a
// built-in's callback: doc/scripts-modules.md, npm packages).

import { VU } from './suspend.js';

export function libraryGlobals(file, commonJS) {
  const own = `const console = ${VU}.console, global = globalThis;`;
  if (!commonJS) return own;
  const path = JSON.stringify(file);
  const dir = JSON.stringify(file.slice(0, Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'))));
  return `${own} const __filename = ${path}, __dirname = ${dir}, require = ${VU}.shared.facilities.requireIn(${path});`;
}
