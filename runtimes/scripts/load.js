// Loading a k6 script on node, Bun and Deno alike: each of the script's own modules is
// transformed (src/script/transform.js) into a hidden file beside it, so that its relative
// imports and its npm packages resolve exactly as from the original, and the entry is imported
// from there. The files are removed when the run ends (and at exit, if it is cut short).
// node:fs, node:crypto and node:path are the same on all three runtimes.

import { readFileSync, writeFileSync, unlinkSync } from 'node:fs';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { dirname, basename, resolve as resolvePath, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import process from 'node:process';
import { Buffer } from 'node:buffer';

/**
 * Transforms `path` and the user modules it imports, writes them, and imports the entry.
 * Returns { factory, cleanup }. `transform(source, name, { sibling })` → { code, imports }.
 */
export async function loadScript(path, transform) {
  const written = [];
  const cleanup = () => {
    for (const f of written.splice(0)) {
      try {
        unlinkSync(f);
      } catch {
        // already gone
      }
    }
  };
  process.once('exit', cleanup);
  // The pid and a random number: the shards of `--on swarm` run in containers (often with the
  // same pid) beside one script folder.
  const tag = `${process.pid}-${Math.floor(Math.random() * 1e9)}`;
  const siblingName = (file) => `.${basename(file)}.loadtest-${tag}.mjs`;
  const seen = new Map();
  const visit = (file) => {
    if (seen.has(file)) return seen.get(file);
    const out = join(dirname(file), siblingName(file));
    seen.set(file, out);
    let source;
    try {
      source = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${file} (${err.code || err.message})`);
    }
    const { code, imports } = transform(source, file === entry ? path : file, {
      sibling: (spec) => {
        const dir = spec.slice(0, spec.lastIndexOf('/') + 1);
        return (dir.startsWith('.') || dir.startsWith('/') ? dir : './' + dir) + siblingName(spec);
      },
    });
    try {
      writeFileSync(out, code);
    } catch (err) {
      throw new Error(`cannot write the transformed script beside ${file} (${err.code || err.message}): the script's folder must be writable`);
    }
    written.push(out);
    for (const spec of imports) visit(resolvePath(dirname(file), spec));
    return out;
  };
  const entry = resolvePath(path);
  let factory;
  let file;
  try {
    file = visit(entry);
    factory = (await import(pathToFileURL(file).href)).default;
  } catch (err) {
    cleanup();
    throw err;
  }
  // file: the transformed entry, which the children of --cores import as it is.
  return { factory, cleanup, file };
}

/** What a script's k6 modules ask of the runtime: files for open(), hashes, random bytes. */
export function scriptFacilities(scriptPath) {
  const base = dirname(resolvePath(scriptPath));
  const files = new Map();
  const bytes = (v) => (typeof v === 'string' ? v : Buffer.from(v));
  return {
    open(path, mode) {
      const full = resolvePath(base, String(path));
      const key = `${full}\0${mode === 'b' ? 'b' : 't'}`;
      if (!files.has(key)) {
        let data;
        try {
          data = readFileSync(full);
        } catch (err) {
          throw new Error(`open('${path}'): cannot read ${full} (${err.code || err.message})`);
        }
        files.set(key, mode === 'b' ? data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) : data.toString('utf8'));
      }
      return files.get(key);
    },
    hash(algorithm, chunks) {
      const h = createHash(algorithm);
      for (const c of chunks) h.update(bytes(c));
      return new Uint8Array(h.digest());
    },
    hmac(algorithm, key, chunks) {
      const h = createHmac(algorithm, bytes(key));
      for (const c of chunks) h.update(bytes(c));
      return new Uint8Array(h.digest());
    },
    randomBytes: (n) => new Uint8Array(randomBytes(n)),
    env: { ...process.env },
  };
}
