// The thread that writes --out's lines (started by runtimes/scripts/host.js's openOutputs): takes the
// run's batches of samples (src/outputs/sample-queue.js), formats them (sample-lines.js, and
// influxdb/lines.js) and appends them to each file, or hands them to InfluxDB's writer
// (influxdb/writer.js), or gathers them into Prometheus' series (prometheus/) and OTLP's metrics
// (opentelemetry/) for their pushes, then hands each batch back to be reused. Its file writes
// block: the thread does nothing else; its database writes go out while it takes the next batches.

import { SampleLines } from './sample-lines.js';
import { SampleStream } from './sample-queue.js';
import { InfluxLines } from './influxdb/lines.js';
import { influxWriter } from './influxdb/writer.js';
import { prometheusOutput } from './prometheus/writer.js';
import { otelOutput } from './opentelemetry/exporter.js';
import { openAppendSync, threadSide, socketAdapter } from '../../runtimes/scripts/out-side.js';

const side = threadSide();
const { outs, instance = 0, instances = 1 } = side.data;
const END_MS = 10000; // the last flush to a database, at the end of the run

let failed = null;
const files = [];
const lines = [];
const writers = [];
for (const o of outs) {
  if (o.kind === 'influxdb') {
    const writer = influxWriter(o.config);
    writers.push(writer);
    lines.push(new InfluxLines(o.config, (bytes, points) => writer.put(bytes, points), instance, instances, writer));
    continue;
  }
  if (o.kind === 'prometheus-rw' || o.kind === 'opentelemetry') {
    const { sink, writer } = o.kind === 'prometheus-rw' ? prometheusOutput(o.config, instance, instances) : otelOutput(o.config, instance, instances, socketAdapter);
    writers.push(writer);
    lines.push(sink);
    continue;
  }
  // The file's own error (openAppendSync's "path: code"), said as the flag was given.
  const said = (err) => new Error(`--out ${o.kind}=${err.message}`);
  let file;
  try {
    file = openAppendSync(o.file);
  } catch (err) {
    failed = failed || said(err);
    continue;
  }
  files.push(file);
  lines.push(
    new SampleLines(o.kind, (bytes) => {
      try {
        file.write(bytes);
      } catch (err) {
        throw said(err);
      }
    }),
  );
}

// Each output is told the same: one sink, or a sink that tells each in turn.
const stream = new SampleStream(
  lines.length === 1
    ? lines[0]
    : {
        metric: (id, def) => lines.forEach((l) => l.metric(id, def)),
        tags: (slot, def, metadata) => lines.forEach((l) => l.tags(slot, def, metadata)),
        sample: (id, value, slot, now) => {
          for (let i = 0; i < lines.length; i++) lines[i].sample(id, value, slot, now);
        },
      },
);

async function end() {
  for (const l of lines) {
    try {
      l.flush();
    } catch (err) {
      failed = failed || err;
    }
  }
  for (const f of files) f.close();
  const warnings = (await Promise.all(writers.map((w) => w.close(END_MS)))).filter((w) => w !== null);
  side.post({ done: true, error: failed && String(failed.message || failed), warnings });
}

side.onMessage((message) => {
  if (message.end) return end();
  // The run's system tags, before its first sample: --out csv's columns.
  if (message.systemTags) return lines.forEach((l) => l.systemTags && l.systemTags(message.systemTags));
  if (failed === null) {
    stream.take(message);
    // A batch sent before it was full is the run's each-second flush: the lines go out too.
    if (message.partial) for (const l of lines) l.handOff();
  }
  side.post({ reuse: message.samples }, [message.samples]);
});
