// What a response's parse costs when its parser is cold: nginx's keep-alive response parsed by
// N parsers (as N connections each have one) in a scattered order, CPU time a response (user +
// sys, so that a shared machine's waits do not count). At 10 parsers they stay in the cache; at
// 10 000 each parse starts with its parser's cache lines missing, as at 10 000 connections.
// Several checkouts' parsers take turns, round by round.
//
//   N=10000 taskset -c 1 node bench/parser-spread.js DIR [DIR ...]    (DIR: a checkout, e.g. .)

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dirs = process.argv.slice(2);
const N = Number(process.env.N || 10000);
const ROUNDS = 8;
const PER_ROUND = 400000; // responses a checkout parses in a round
const mods = await Promise.all(dirs.map((d) => import(pathToFileURL(resolve(d, 'src/http1/parser.js')).href)));
const response = new TextEncoder().encode(
  'HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sun, 29 Nov 2026 03:43:24 GMT\r\nContent-Type: text/plain\r\n' + 'Content-Length: 2\r\nConnection: keep-alive\r\n\r\nOK',
);
const buf = new Uint8Array(65536); // as the adapters' one read buffer
buf.set(response);
const owner = {
  onResponse() {},
  onParseError(reason) {
    throw new Error(reason);
  },
};
const sets = mods.map((m) => Array.from({ length: N }, () => m.ResponseParser.of(owner)));
const times = sets.map(() => []);
const passes = Math.max(1, Math.round(PER_ROUND / N));
for (let round = 0; round < ROUNDS; round++) {
  for (let v = 0; v < sets.length; v++) {
    const which = (v + round) % sets.length;
    const parsers = sets[which];
    const t0 = process.cpuUsage();
    for (let k = 0; k < passes; k++) {
      for (let j = 0; j < N; j++) {
        const p = parsers[(j * 7919) % N]; // a prime stride: neighbours in memory are not parsed in turn
        p.expect(false);
        p.execute(buf, 0, response.length);
      }
    }
    const used = process.cpuUsage(t0);
    times[which].push((used.user + used.system) / (passes * N));
  }
}
for (let v = 0; v < dirs.length; v++) {
  const sorted = [...times[v]].sort((a, b) => a - b);
  console.log(`${dirs[v]}: ${N} parsers, median ${sorted[sorted.length >> 1].toFixed(2)} µs of CPU a response (rounds ${times[v].map((x) => x.toFixed(2)).join(' ')})`);
}
