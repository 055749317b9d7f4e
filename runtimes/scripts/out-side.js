// What --out's thread (src/outputs/out-thread.js) asks of the runtime, and nothing more: a thread
// starts faster for not loading all of runtimes/index.js (sockets, processes, DNS), a tenth of a
// second of its start on node and Deno.

export { openAppendSync } from './out-file.js';
export { threadSide } from '../processes/threads.js';

/** A socket adapter for the thread's own connections (--out opentelemetry over gRPC), loaded when one is asked for. */
export async function socketAdapter(tls) {
  const { pickAdapter } = await import('../index.js');
  return pickAdapter(null, tls);
}
