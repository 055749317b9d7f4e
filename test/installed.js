// The first of `paths` that runs with `args` (a server the tests start: influxd, prometheus), or undefined.

import { execFileSync } from 'node:child_process';

export function installed(paths, args) {
  return paths.find((p) => {
    try {
      execFileSync(p, args, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
}
