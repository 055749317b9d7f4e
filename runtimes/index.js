// The one place that asks which runtime this is. It picks the socket adapter and gathers the
// few runtime facilities the entry points need (name lookups, reading files).

import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import * as nodeNet from './node.js';

function detect() {
  if (typeof globalThis.Bun !== 'undefined') return { name: 'bun', version: globalThis.Bun.version };
  if (typeof globalThis.Deno !== 'undefined') return { name: 'deno', version: globalThis.Deno.version.deno };
  return { name: 'node', version: globalThis.process.versions.node };
}

export const runtime = detect();

const adapters = { node: nodeNet };

/** The socket adapter: the runtime's own by default; `forced` ('node') picks one by name. */
export function pickAdapter(forced) {
  const key = forced || 'node'; // node:net serves all three runtimes until the native adapters land
  const adapter = adapters[key];
  if (!adapter) throw new Error(`no socket adapter '${forced}' on ${runtime.name} (have: ${Object.keys(adapters).join(', ')})`);
  return { name: adapter.name, connect: adapter.connect };
}

/** Resolves a host name once, before the run, so connections do not each pay for a lookup. */
export async function resolveHost(host) {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (/^[0-9.]+$/.test(bare) || bare.includes(':')) return bare;
  try {
    const { address } = await lookup(bare);
    return address;
  } catch (err) {
    const e = new Error(`cannot resolve host '${bare}' (${err.code || err.message})`);
    e.code = 'ENOTFOUND';
    throw e;
  }
}

export { readFile };

const proc = globalThis.process;

/** Command-line arguments after the script (all three runtimes provide node's process). */
export const argv = () => proc.argv.slice(2);

export const exit = (code) => proc.exit(code);

export const stdoutIsTTY = () => Boolean(proc.stdout && proc.stdout.isTTY);

/** Calls fn on Ctrl-C (SIGINT) and SIGTERM; returns a function that removes the handlers. */
export function onInterrupt(fn) {
  proc.on('SIGINT', fn);
  proc.on('SIGTERM', fn);
  return () => {
    proc.off('SIGINT', fn);
    proc.off('SIGTERM', fn);
  };
}

/** Imports a user's module (a body or request generator) given as a path relative to the cwd. */
export function importUserModule(path) {
  const base = `file://${proc.cwd()}/`;
  return import(new URL(path, base).href);
}
