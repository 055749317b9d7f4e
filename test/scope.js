// Which runtimes a test runs on. `npm test` runs every file under node, bun and deno. A test
// that checks nothing runtime-specific (the core's pure logic, or what is done the same way
// whatever the runtime, such as a plan's arithmetic or a page's layout, once the runtime's own
// parts are covered by another test on all three) is skipped on bun and deno there, and
// `npm run test:all` (CI) runs it on every runtime: LOADTEST_TESTS=all.

import { test } from 'node:test';
import { runtime } from '../runtimes/index.js';

const every = runtime.name === 'node' || globalThis.process.env.LOADTEST_TESTS === 'all';

/** `{ skip }` for such a test: false on node (and everywhere under test:all), else the reason. */
export const ONE_RUNTIME = every ? false : 'nothing runtime-specific: node runs it (npm run test:all runs it on every runtime)';

/** As ONE_RUNTIME when a test also needs `need` (false, or the reason it is missing). */
export const oneRuntimeAnd = (need) => need || ONE_RUNTIME;

/** node:test's test() for a file none of whose tests checks anything runtime-specific. */
export function oneRuntimeTest(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options];
  return test(name, { ...options, skip: options.skip || ONE_RUNTIME }, fn);
}
