// The long fuzz run (`npm run fuzz`): the cases of test/parser-fuzz.test.js, seed after seed,
// for as long as asked. Prints cases per second of each kind and the seed of any failure, which
// replays it (--seed S --seconds 0 runs one batch from S). Runs on every runtime:
//   node test/fuzz.js [--seconds 60] [--seed 1] [--kind valid|mutated|random|frames|frames-mutated|
//     h2-frames|h2-mutated|hpack]
//   bun test/fuzz.js ...        deno run test/fuzz.js ...
// Exit code 1 when a case failed.

import { fuzzCase, KINDS } from './fuzz-cases.js';
import { mulberry32 } from './random.js';

const args = globalThis.process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
};
const seconds = Number(option('seconds', 60));
const firstSeed = Number(option('seed', 1));
const only = option('kind', null);
const kinds = only ? [only] : KINDS;
if (only && !KINDS.includes(only)) {
  console.error(`fuzz: unknown kind '${only}' (${KINDS.join(', ')})`);
  globalThis.process.exit(2);
}
const runtime = globalThis.Bun ? `bun ${globalThis.Bun.version}` : globalThis.Deno ? `deno ${globalThis.Deno.version.deno}` : `node ${globalThis.process.versions.node}`;
console.log(`fuzz on ${runtime}: ${seconds} s over ${kinds.join(', ')}, seeds from ${firstSeed}`);

let failures = 0;
let total = 0;
const share = (seconds * 1000) / kinds.length;
for (const kind of kinds) {
  const start = performance.now();
  let seed = firstSeed;
  let n = 0;
  // Checking the clock every 200 cases keeps it out of the measure.
  while (performance.now() - start < share) {
    for (let k = 0; k < 200; k++, seed++, n++) {
      try {
        fuzzCase(kind, mulberry32(seed));
      } catch (err) {
        // The first few are enough to act on; a broken property fails every case.
        if (++failures <= 20) console.log(`FAIL ${kind} seed ${seed}: ${err.message}`);
      }
    }
  }
  const ms = performance.now() - start;
  total += n;
  console.log(`${kind.padEnd(15)} ${String(n).padStart(9)} cases  ${String(Math.round((n * 1000) / ms)).padStart(7)} cases/s  seeds ${firstSeed}..${seed - 1}`);
}
console.log(`${total} cases, ${failures} failed`);
globalThis.process.exit(failures > 0 ? 1 : 0);
