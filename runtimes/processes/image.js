// What a container needs to run this installation of loadtest on this runtime, for an image made
// without a registry or a base image (`docker import`, src/commands/distribute.js): the
// runtime's binary and the shared libraries it loads (as ldd lists them), the project's files
// (package.json, src/, runtimes/) and the packages it depends on, found as the runtime finds them
// (node_modules up from the project), each at the path it has here.

import { readFile, readdir, stat, realpath } from 'node:fs/promises';
import { dirname, join, delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { runCommand } from './command.js';

const PROJECT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function exists(path) {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The folder of package `name` as `from` would import it: node_modules here or in a parent. */
async function packageDir(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (await exists(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** The project's dependencies and theirs, each once. */
async function dependencyDirs() {
  const seen = new Set();
  const walk = async (dir) => {
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      const found = await packageDir(name, dir);
      if (found === null || seen.has(found)) continue;
      seen.add(found);
      await walk(found);
    }
  };
  await walk(PROJECT);
  return [...seen];
}

/** Every file under `dir` with its size and time, for the image's key. */
async function filesUnder(dir, out) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await filesUnder(path, out);
    else if (entry.isFile()) {
      const s = await stat(path);
      out.push(`${path} ${s.size} ${s.mtimeMs}`);
    }
  }
}

/**
 * { binary, paths, key } for `binary` (the runtime's executable): the absolute paths to put in
 * the image (folders whole), and a key that changes whenever any of them does.
 */
export async function imageContents(binary) {
  const real = await realpath(binary);
  const ldd = await runCommand('ldd', [real]);
  if (ldd.code !== 0) throw new Error(`ldd ${real}: ${ldd.missing ? 'not found' : ldd.stderr.trim() || `exit ${ldd.code}`}`);
  // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
  const libraries = [...ldd.stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]);
  const project = ['package.json', 'src', 'runtimes'].map((p) => join(PROJECT, p));
  const paths = [real, ...new Set(libraries), ...project, ...(await dependencyDirs())];
  const listed = [];
  for (const p of paths) {
    const s = await stat(p);
    if (s.isDirectory()) await filesUnder(p, listed);
    else listed.push(`${p} ${s.size} ${s.mtimeMs}`);
  }
  const key = createHash('sha256').update(listed.join('\n')).digest('hex').slice(0, 12);
  return { binary: real, project: PROJECT, paths, key };
}

/** The executable of runtime `name` ('node', 'bun', 'deno'): this one's, or on PATH, or in the project's node_modules/.bin. */
export async function findRuntime(name, current, execPath, pathVar = '') {
  if (name === current) return execPath;
  for (const dir of [...pathVar.split(delimiter).filter(Boolean), join(PROJECT, 'node_modules', '.bin')]) {
    const candidate = join(dir, name);
    if (await exists(candidate)) return candidate;
  }
  return null;
}
