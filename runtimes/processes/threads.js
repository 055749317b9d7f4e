// A thread of this process for work beside the run's (--out's lines): node:worker_threads, which
// node, Bun and Deno all have. Messages are structured clones; an ArrayBuffer in `transfer`
// moves without a copy.

import { Worker, parentPort, workerData } from 'node:worker_threads';

/**
 * Starts `path` (a module) in a thread with `data`. Returns { post(message, transfer), hold(), terminate() }
 * and calls onMessage(message) for each of its messages, onError(error) if it dies.
 */
export function startThread(path, data, onMessage, onError) {
  const worker = new Worker(path, { workerData: data });
  worker.on('message', onMessage);
  worker.on('error', onError);
  // The run's end, not this thread, decides when the process exits; hold() keeps the process
  // for the thread's last messages.
  worker.unref();
  return {
    post: (message, transfer = []) => worker.postMessage(message, transfer),
    hold: () => worker.ref(),
    terminate: () => worker.terminate(),
  };
}

/** In the thread: its `data`, post(message, transfer) to the starter, onMessage(fn). */
export const threadSide = () => ({
  data: workerData,
  post: (message, transfer = []) => parentPort.postMessage(message, transfer),
  onMessage: (fn) => parentPort.on('message', fn),
});
