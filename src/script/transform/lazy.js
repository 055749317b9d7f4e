// The k6 modules a run loads only when a module of its script names them (their libraries are
// heavy, or they are many modules, and most scripts never import them): the transform notes each
// name it sees (src/script/transform/transform.js), and the run loads them before its VUs are made
// (src/script/vu/vu.js).

const LAZY = new Set(['k6/net/grpc', 'k6/browser', 'k6/html', 'k6/ws', 'k6/websockets', 'k6/experimental/websockets', 'k6/experimental/fs', 'k6/experimental/csv', 'k6/experimental/streams']);
const wanted = new Set();

/** A module of the script may import `name`. */
export function wantModule(name) {
  if (LAZY.has(name)) wanted.add(name);
}

/** The lazy modules noted so far. */
export function wantedModules() {
  return wanted;
}

/** Whether the text of a module names a lazy one (an import, a require, a re-export). */
export function noteModules(source) {
  for (const name of LAZY) if (source.includes(name)) wantModule(name);
}
