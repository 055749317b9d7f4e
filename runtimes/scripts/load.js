// Loading a k6 script on node, Bun and Deno alike: each of the script's own modules is
// transformed (src/script/transform/transform.js) into a hidden file beside it, so that its relative
// imports and its npm packages resolve exactly as from the original, and the entry is imported
// from there. The files are removed when the run ends (and at exit, if it is cut short).
// node:fs, node:crypto and node:path are the same on all three runtimes.

import { readFileSync, writeFileSync, unlinkSync, mkdirSync, existsSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { dirname, basename, resolve as resolvePath, join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { packageRouter } from './package-modules.js';
import { readStdin, parsesAsJavaScript } from './stdin.js';

// TypeScript, as k6 v1 runs it: the types removed, nothing checked. amaro (Node.js's own type
// stripper, swc in WebAssembly) writes blanks where the types were, so that every line and
// column stays the .ts file's own; it is loaded only for a .ts script (7 MB of WebAssembly).
// What strip-only cannot do (an enum, a namespace, a parameter property) is one line naming
// the file, line and column, as a syntax error is.
const TYPESCRIPT = /\.(ts|mts|cts)$/;
let amaro = null;

async function typeStripper() {
  amaro = amaro || (await import('amaro')).default;
  // An error with the place it names (1-based line and column), for the transform to report.
  return (source, name) => {
    try {
      try {
        return amaro.transformSync(source, { mode: 'strip-only', filename: name }).code;
      } catch (err) {
        // enum, namespace, a parameter property: TypeScript that is code, not types alone. k6
        // (esbuild) compiles it; so does amaro's transform mode, which writes the module anew
        // (its lines are not the file's: an error's place in it is approximate).
        if (!/not supported in strip-only mode/.test(String(err.message))) throw err;
        return amaro.transformSync(source, { mode: 'transform', filename: name, sourceMap: false }).code;
      }
    } catch (err) {
      if (typeof err.startLine !== 'number') throw err;
      throw Object.assign(new Error(String(err.message).split('\n')[0].trim()), { line: err.startLine, column: err.startColumn + 1 });
    }
  };
}

// Remote modules (`import { randomIntBetween } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js'`)
// as k6 resolves them, fetched when the script loads and kept in a cache on disk, so that the
// next run needs no network: $LOADTEST_CACHE, else $XDG_CACHE_HOME/loadtest, else
// ~/.cache/loadtest; modules/ in it. The runtime's fetch() and its trust store (NODE_EXTRA_CA_CERTS
// on node and bun, DENO_CERT on deno).
const FETCH_TIMEOUT_MS = 30000;

function cacheDir() {
  const base = process.env.LOADTEST_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'loadtest');
  const dir = join(base, 'modules');
  mkdirSync(dir, { recursive: true });
  return dir;
}

const isFile = (path) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const hashOf = (url) => createHash('sha256').update(url).digest('hex').slice(0, 32);

async function fetchModule(url, importedAt) {
  const cached = join(cacheDir(), `${hashOf(url)}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  // `located`: the message names its place already (the import's file, line and column).
  const fail = (why) => Object.assign(new Error(`${importedAt ? `${importedAt}: ` : ''}cannot load ${url}: ${why}`), { located: Boolean(importedAt), failed: true });
  let text;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
    if (res.status !== 200) throw fail(`the server answered ${res.status}`);
    text = await res.text();
  } catch (err) {
    if (err.failed) throw err;
    const cause = err.cause ? err.cause.code || err.cause.message : null;
    throw fail(cause || err.message);
  }
  // Written whole, then renamed: two runs at once never read half a module.
  const part = `${cached}.${process.pid}.part`;
  writeFileSync(part, text);
  renameSync(part, cached);
  return text;
}

// The transformed modules written beside the script: removed at exit, or by cleanup().
function tempFiles() {
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
  return { written, cleanup };
}

// A module of the script's: an imported one that is not there is the script's error, at its
// import (k6: 107).
function readModule(file, importedAt) {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if (importedAt) throw Object.assign(new Error(`${importedAt}: cannot read ${file} (${err.code || err.message})`), { located: true });
    throw new Error(`cannot read ${file} (${err.code || err.message})`);
  }
}

function writeTransformed(out, file, text, fromStdin) {
  try {
    writeFileSync(out, text);
  } catch (err) {
    if (fromStdin) throw new Error(`cannot write the transformed script in the current folder (${err.code || err.message}): a script on stdin needs it writable`);
    throw new Error(`cannot write the transformed script beside ${file} (${err.code || err.message}): the script's folder must be writable`);
  }
}

// The entry imported, its transformed modules removed if it cannot be.
async function importEntry(visit, entry, cleanup) {
  try {
    const file = await visit(entry);
    return { file, factory: (await import(pathToFileURL(file).href)).default };
  } catch (err) {
    cleanup();
    throw err;
  }
}

// `-`: the script read from stdin, as `k6 run -` reads it. As in k6 it is the file /- to what
// it imports and requires (resolved from /: grafana/k6 2bd00d6, "Scripts from stdin resolve
// imports relative to /"), its open() reads from the current folder (scriptFacilities), and it
// is TypeScript when it does not parse as JavaScript (k6 v1.4, #5246). Its transformed module
// is written in the current folder, so that open() finds its files there.
export const STDIN = '-';
const STDIN_FILE = resolvePath('/-');

/**
 * Transforms `path` (a file, or STDIN) and the user modules it imports, writes them, and imports
 * the entry. Returns { factory, cleanup, file, stdinText } (stdinText: a script on stdin's text).
 * `transform(source, name, { sibling })` → { code, imports }.
 */
export async function loadScript(path, transform) {
  const entry = path === STDIN ? STDIN_FILE : resolvePath(path);
  const isStdin = (key) => path === STDIN && key === entry;
  let stdinText; // the script read from stdin, for what the run reports of its text
  const { written, cleanup } = tempFiles();
  // The pid and a random number: the shards of `--on swarm` run in containers (often with the
  // same pid) beside one script folder.
  const tag = `${process.pid}-${Math.floor(Math.random() * 1e9)}`;
  const siblingName = (file) => `.${basename(file)}.loadtest-${tag}.mjs`;
  // A module is a file, or an https:// URL (a remote module: fetched once into the cache, its
  // transformed form written there too, and its own relative imports URLs again).
  const remote = (key) => key.startsWith('https://');
  // npm packages' files (runtimes/scripts/package-modules.js): transformed into the cache, not
  // beside them in node_modules.
  const packages = packageRouter();
  const outOf = (key) => {
    if (isStdin(key)) return join(process.cwd(), siblingName(STDIN));
    return remote(key) || packages.has(key) ? join(cacheDir(), `.${hashOf(key)}.loadtest-${tag}.mjs`) : join(dirname(key), siblingName(key));
  };
  const keyOf = (importer, spec) => packages.keyOf(importer, spec) ?? (remote(spec) || remote(importer) ? new URL(spec, remote(importer) ? importer : pathToFileURL(importer)).href : resolvePath(dirname(importer), spec));
  const seen = new Map();
  const making = new Set(); // the modules whose imports are being visited: an import of one closes a cycle
  const visit = async (file, importedAt) => {
    if (seen.has(file)) return seen.get(file);
    const out = outOf(file);
    seen.set(file, out);
    if (isStdin(file)) stdinText = await readStdin();
    const source = isStdin(file) ? stdinText : remote(file) ? await fetchModule(file, importedAt) : packages.has(file) ? packages.source(file) : readModule(file, importedAt);
    const name = file === entry ? path : file;
    const typescript = TYPESCRIPT.test(file) || (isStdin(file) && !parsesAsJavaScript(source));
    const stripTypes = typescript ? await typeStripper() : null;
    const options = {
      stripTypes,
      entry: file === entry,
      library: packages.has(file),
      packages: (spec, kind, at) => packages.route(file, spec, kind, at),
      // A file it requires that is not there: the require throws when called, as in k6.
      missing: (spec) => !remote(spec) && !remote(file) && !isFile(keyOf(file, spec)),
      sibling: (spec) => {
        // The script on stdin is written elsewhere than /, from where its imports resolve.
        if (remote(spec) || remote(file) || isStdin(file) || packages.keyOf(file, spec) !== null) return pathToFileURL(outOf(keyOf(file, spec))).href;
        const dir = spec.slice(0, spec.lastIndexOf('/') + 1);
        return (dir.startsWith('.') || dir.startsWith('/') ? dir : './' + dir) + siblingName(spec);
      },
    };
    const { code, imports, importedAt: places } = packages.transformed(file, source, (text) => transform(text, name, options));
    const write = (text) => writeTransformed(out, file, text, isStdin(file));
    write(code);
    written.push(out);
    making.add(file);
    const live = new Set();
    for (const spec of imports) {
      const key = keyOf(file, spec);
      if (making.has(key)) live.add(spec);
      else await visit(key, places && places.get(spec));
    }
    making.delete(file);
    // An import of a module whose imports were being visited closes a cycle: this module runs
    // first, and reads that one's names where it uses them (src/script/transform/live-bindings.js).
    if (live.size > 0) write(packages.transformed(file, source, (text) => transform(text, name, { ...options, live })).code);
    return out;
  };
  // file: the transformed entry, which the children of --cores import as it is.
  const { file, factory } = await importEntry(visit, entry, cleanup);
  return { factory, cleanup, file, stdinText };
}

/** What a script's k6 modules ask of the runtime: files for open(), hashes, random bytes. */
const CODECS = {
  gzip: [zlib.gzipSync, zlib.gunzipSync],
  deflate: [zlib.deflateSync, zlib.inflateSync],
  br: [zlib.brotliCompressSync, zlib.brotliDecompressSync],
  zstd: [zlib.zstdCompressSync, zlib.zstdDecompressSync],
};

function codec(coding) {
  const pair = CODECS[coding];
  if (!pair || !pair[0]) throw new Error(`${coding} is not available on this runtime (node 22.15 or later, bun and deno have it)`);
  return pair;
}

export function scriptFacilities(scriptPath) {
  const base = dirname(resolvePath(scriptPath));
  const files = new Map();
  const bytes = (v) => (typeof v === 'string' ? v : Buffer.from(v));
  return {
    // `from`: the URL of the module that calls open(); its folder, as k6 reads a path (the
    // transformed module is written beside the original), or the script's.
    open(path, mode, from) {
      const dir = typeof from === 'string' && from.startsWith('file:') ? dirname(fileURLToPath(from)) : base;
      // A file: URL too (what import.meta.resolve() gives), as k6 takes it.
      const text = String(path);
      const full = text.startsWith('file://') ? fileURLToPath(text) : resolvePath(dir, text);
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
    // An npm package's require() of what the transform could not see: the runtime's own.
    requireIn: (file) => createRequire(file),
    // k6/http's Content-Encoding codings (src/script/net/content-encoding.js): deflate is zlib's
    // format, as Go's compress/zlib. zstd is node 22.15's, bun's and deno's, not node 20's.
    compress: (coding, bytes) => new Uint8Array(codec(coding)[0](bytes)),
    decompress: (coding, bytes) => new Uint8Array(codec(coding)[1](bytes)),
    env: { ...process.env },
  };
}
