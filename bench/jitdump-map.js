// Names for the JavaScript in a `perf record` of Bun: JavaScriptCore writes the code it compiles
// to a jitdump file when BUN_JSC_useJITDump=1, which this turns into the /tmp/perf-PID.map that
// `perf report` and `perf script` read (perf inject --jit does not take JSC's file name). JSC
// reuses the memory of code it has thrown away, so each address keeps the code loaded there last:
// an older function's name on a newer one's samples would make it look hot.
//   BUN_JSC_useJITDump=1 taskset -c 1 perf record -k 1 -g -o /tmp/perf.data bun src/cli.js run ...
//   node bench/jitdump-map.js /tmp/jit-*        (then perf report -i /tmp/perf.data --sort sym)
// The map is written under both numbers the dump's name holds: perf names samples by the
// process, and JSC's dump by the thread that made it.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import process from 'node:process';

const JIT_CODE_LOAD = 0;

function loads(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (view.getUint32(0, true) !== 0x4a695444) throw new Error('not a jitdump file');
  let at = view.getUint32(8, true); // the header's size
  let entries = [];
  while (at + 16 <= bytes.length) {
    const id = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    if (size === 0 || at + size > bytes.length) break;
    if (id === JIT_CODE_LOAD) {
      const start = Number(view.getBigUint64(at + 24, true));
      const length = Number(view.getBigUint64(at + 40, true));
      let end = at + 56;
      while (bytes[end] !== 0) end++;
      const name = new TextDecoder().decode(bytes.subarray(at + 56, end));
      entries = entries.filter((e) => e.start + e.length <= start || e.start >= start + length);
      entries.push({ start, length, name });
    }
    at += size;
  }
  return entries.sort((a, b) => a.start - b.start);
}

for (const file of process.argv.slice(2)) {
  const entries = loads(readFileSync(file));
  const text = entries.map((e) => `${e.start.toString(16)} ${e.length.toString(16)} ${e.name}`).join('\n') + '\n';
  const pids = (basename(file).match(/^jit-(\d+)(?:-(\d+))?/) || []).slice(1).filter(Boolean);
  for (const pid of pids) writeFileSync(`/tmp/perf-${pid}.map`, text);
  console.log(`${file}: ${entries.length} functions -> ${pids.map((p) => `/tmp/perf-${p}.map`).join(', ')}`);
}
