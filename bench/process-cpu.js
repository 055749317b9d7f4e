// What the benches read of a running tool and of its nginx: the CPU of a process and its
// descendants (bench/rotate.js, bench/regimes.js), and the requests nginx's stub_status counted.

import { readFileSync, readdirSync } from 'node:fs';

/**
 * The CPU of process `pid` and its descendants, in ns (every thread now alive: a runtime's
 * threads last as long as it; /proc's schedstat, where stat's times are 10 ms ticks). NaN once
 * it is gone.
 */
export function cpuOf(pid) {
  let ns = 0;
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return NaN; // gone
  }
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (child.trim()) ns += cpuOf(child.trim());
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns;
}

/** The requests in nginx's stub_status page ("Active connections: N \n server accepts handled requests\n A H R ..."). */
export const requestsIn = (page) => Number(page.split('\n')[2].trim().split(/\s+/)[2]);
