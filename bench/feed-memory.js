// The memory a --feed holds: a CSV of ROWS rows (4 columns, as a data-driven run's users file)
// parsed as a run parses it, and the heap it keeps, against the file's size. Run beside an older
// feed.js to compare (FEED=/path/to/src/requests/feed.js):
//   node --expose-gc bench/feed-memory.js [ROWS]
//   bun bench/feed-memory.js [ROWS]
//   deno run -A --v8-flags=--expose-gc bench/feed-memory.js [ROWS]
// SHARE=N: what each of N --cores children keeps.
const rows = Number((globalThis.Deno ? Deno.args : process.argv.slice(2))[0] || 1000000);
const env = (k) => (globalThis.Deno ? Deno.env.get(k) : process.env[k]);
const { parseFeed } = await import(env('FEED') || '../src/requests/feed.js');

const gc = () => {
  if (globalThis.Bun) globalThis.Bun.gc(true);
  else globalThis.gc();
};
const heap = () => {
  gc();
  gc();
  // Typed arrays' memory is outside V8's heap (external) on node and deno.
  const m = process.memoryUsage();
  return m.heapUsed + (globalThis.Bun ? 0 : m.external);
};

const before = heap();
let text = 'id,name,email,token\n';
const lines = [];
for (let i = 0; i < rows; i++) lines.push(`${i},user${i},user${i}@example.com,t${(i * 2654435761) % 4294967296}`);
text += lines.join('\n') + '\n';
lines.length = 0;
// The file's size: its UTF-8 bytes (ASCII here, so its length).
const size = text.length;
const start = performance.now();
let feed = parseFeed(text, 'users.csv');
// SHARE=2: what one of 2 --cores children keeps (src/run/options.js: its share of the rows).
const share = Number(env('SHARE') || 1);
if (share > 1) feed = feed.subset(share, 0);
const ms = performance.now() - start;
text = null;
const held = heap() - before;
const lastRow = Math.floor((rows - 1) / share) * share;
const check = feed.cell ? feed.cell((lastRow / share), 1) : feed.rows[rows - 1][1];
if (check !== `user${lastRow}`) throw new Error(`last row's name is ${check}`);
const runtime = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
console.log(`${runtime}${share > 1 ? ` (a child's share, 1/${share})` : ''}: ${rows} rows, file ${(size / 1e6).toFixed(1)} MB, parsed in ${Math.round(ms)} ms, held ${(held / 1e6).toFixed(1)} MB = ${(held / size).toFixed(2)}x the file`);
feed = null;
