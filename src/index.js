// The API: loadTest() and startServer(), as in loadtest 8. This entry point joins the portable
// core to the runtime (socket adapter, name lookup); the core itself never asks which it is.

import { configure, parseUrl } from './options.js';
import { Run } from './client.js';
import { makeResult } from './result.js';
import { VERSION } from './version.js';
import { runtime, pickAdapter, resolveHost } from '../runtimes/index.js';
import { startServer as startTestServer } from '../runtimes/testserver.js';

/**
 * Runs a load test. Resolves to the result (it has show()); also calls callback(error, result)
 * when given. Bad options reject; network failures do not, they are counted in the result.
 */
export function loadTest(options, callback) {
  const promise = runLoadTest(options);
  if (typeof callback === 'function') {
    promise.then((result) => callback(null, result), (error) => callback(error));
  }
  return promise;
}

async function runLoadTest(options, hooks = {}) {
  const url = parseUrl(options && options.url);
  const resolvedHost = await resolveHost(url.hostname);
  const config = configure(options, { version: VERSION, resolvedHost });
  const adapter = pickAdapter(options.socket, config.tls);
  const run = new Run(config, adapter);
  if (hooks.onStart) hooks.onStart(run);
  const stats = await run.start();
  return makeResult(config, stats, { runtime: `${runtime.name} ${runtime.version}`, socket: adapter.name });
}

/** For the CLI: the same run, with a hook that receives the Run (progress, stop on Ctrl-C). */
export { runLoadTest };

/** Starts the test server; resolves to an object with port, requests and close(). */
export function startServer(options, callback) {
  return startTestServer(options, callback);
}

export { VERSION };
