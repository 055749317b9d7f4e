// The thread that writes --out's lines (started by runtimes/scripts/host.js's openOutputs): takes the
// run's batches of samples (src/script/sample-queue.js), formats them (sample-lines.js) and
// appends them to each file, then hands each batch back to be reused.

import { SampleLines } from './sample-lines.js';
import { SampleStream } from './sample-queue.js';
import { openLogFile, threadSide } from '../../runtimes/index.js';

const side = threadSide();
const outs = side.data.outs;

let failed = null;
const files = [];
const lines = [];
const opening = (async () => {
  for (const o of outs) {
    const said = (err) => new Error(`--out ${o.kind}=${o.file}: ${String(err.message).replace(/^--log-file [^:]*: /, '')}`);
    const file = await openLogFile(o.file, { append: true }).catch((err) => {
      throw said(err);
    });
    files.push(file);
    lines.push(
      new SampleLines(o.kind, (bytes) =>
        file.write(bytes).catch((err) => {
          throw said(err);
        }),
      ),
    );
  }
})().catch((err) => (failed = err));

const stream = new SampleStream((metric, value, tags, now) => {
  for (let i = 0; i < lines.length; i++) lines[i].sample(metric, value, tags, now);
});

// Messages are taken one at a time, in order, after the files are open.
let queue = opening;
side.onMessage((message) => {
  queue = queue.then(async () => {
    if (message.end) {
      try {
        for (const l of lines) await l.flush();
      } catch (err) {
        failed = failed || err;
      }
      for (const f of files) await f.close().catch(() => {});
      side.post({ done: true, error: failed && String(failed.message || failed) });
      return;
    }
    if (failed === null) {
      stream.take(message);
      // A batch sent before it was full is the run's each-second flush: the lines go out too.
      if (message.partial) for (const l of lines) l.handOff();
    }
    side.post({ reuse: message.samples }, [message.samples]);
  });
});
