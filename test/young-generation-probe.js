// Loaded with `node --import` beside the CLI (test/young-generation.test.js): when the process
// exits, it makes garbage with many survivors, the load that grows V8's young generation, and
// prints the young generation's size (MB) on stderr as `new_space <MB>`.
import v8 from 'node:v8';

globalThis.process.on('exit', () => {
  const live = new Array(20000);
  let k = 0;
  for (let round = 0; round < 400; round++) {
    for (let i = 0; i < 1000; i++) live[k++ % live.length] = { a: k, b: [k, k] };
  }
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  globalThis.process.stderr.write(`new_space ${space.space_size / 1048576}\n`);
});
