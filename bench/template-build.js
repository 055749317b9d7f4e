// CPU ns per templated request built (build(r): the hot path of a --feed run), this checkout's
// beside another's in one process: blocks of 100 000 builds alternate between the two, 40 pairs,
// and the figure is the median of each pair's ratio (both sides see the same share of a busy
// machine), with each side's median and fastest block. A 1000-row feed, as CSV and as NDJSON, its
// id in the path and its user in a header. Runs on node, bun and deno:
//   BEFORE=path/to/other/checkout taskset -c 1 node bench/template-build.js
// (the other checkout's feed is given as a string where its parseFeed takes no bytes).
const here = new URL('..', import.meta.url).pathname;
const before = process.env.BEFORE;
if (!before) throw new Error('BEFORE=path/to/other/checkout');

async function load(root) {
  const { parseFeed, feedOrder } = await import(`${root}/src/requests/feed.js`);
  const { templateOf } = await import(`${root}/src/requests/templated.js`);
  // A checkout from before feeds were held as bytes takes only a string.
  const text = (source) => {
    try {
      parseFeed(new TextEncoder().encode('a\n1\n'), 'x.csv');
      return new TextEncoder().encode(source);
    } catch {
      return source;
    }
  };
  return { parseFeed, feedOrder, templateOf, text };
}

const sides = [await load(before), await load(here)];
const rows = 1000;
const csv = 'id,user\n' + Array.from({ length: rows }, (_, i) => `id${i},user${i}`).join('\n') + '\n';
const ndjson = Array.from({ length: rows }, (_, i) => JSON.stringify({ id: `id${i}`, user: `user${i}`, n: i })).join('\n') + '\n';
const shape = { method: 'GET', path: '/api/items?id={{id}}&view=full', headers: { host: 'x', 'x-user': '{{user}}' } };
const BLOCK = 100000;
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

function timer(side, name, source) {
  const feed = side.parseFeed(side.text(source), `ids.${name}`);
  feed.name = name;
  const rowOf = side.feedOrder(feed.count);
  const t = side.templateOf(shape, { feed, where: 'url' });
  return () => {
    let sum = 0;
    const c0 = process.cpuUsage();
    for (let i = 0; i < BLOCK; i++) sum += t.build(rowOf(i), {}).bytes.length;
    const c = process.cpuUsage(c0);
    if (sum === 0) throw new Error('no bytes');
    return ((c.user + c.system) * 1000) / BLOCK;
  };
}

for (const [name, source] of [['csv', csv], ['ndjson', ndjson]]) {
  const timers = sides.map((side) => timer(side, name, source));
  for (let w = 0; w < 5; w++) timers.forEach((t) => t());
  const times = [[], []];
  const ratios = [];
  for (let k = 0; k < 40; k++) {
    const t = [];
    for (const s of k % 2 ? [1, 0] : [0, 1]) t[s] = timers[s]();
    times[0].push(t[0]);
    times[1].push(t[1]);
    ratios.push(t[1] / t[0]);
  }
  const side = (k) => `${median(times[k]).toFixed(0)} ns (fastest ${Math.min(...times[k]).toFixed(0)})`;
  console.log(`${name.padEnd(6)} before ${side(0)}, after ${side(1)}: after/before ${median(ratios).toFixed(3)}`);
}
