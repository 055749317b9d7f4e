// The series of --out experimental-prometheus-rw on their way to the server: each push interval
// (k6's 5 s) the series seen since the last one, as one WriteRequest, snappy-compressed (the
// block format remote write takes), one request at a time and never sent again: a series' next
// push holds its value since the run began, and a sample older than the server has would be
// refused.

import snappy from 'snappyjs';
import { PushWriter, base64 } from '../push-writer.js';
import { PromSeries } from './series.js';
import { shownURL } from './config.js';

/** The output: `sink` for the thread's SampleStream, `writer` to close at the end. */
export function prometheusOutput(config, instance, instances) {
  const headers = {
    'User-Agent': 'loadtest-prometheus-rw-output',
    'Content-Encoding': 'snappy',
    'Content-Type': 'application/x-protobuf',
    'X-Prometheus-Remote-Write-Version': '0.1.0',
  };
  // k6's client: basic auth where a user is given, a bearer token over it, then the headers given.
  if (config.username !== undefined) headers.Authorization = `Basic ${base64(`${config.username}:${config.password}`)}`;
  if (config.bearerToken !== '') headers.Authorization = `Bearer ${config.bearerToken}`;
  Object.assign(headers, config.headers);
  const writer = new PushWriter({ name: 'experimental-prometheus-rw', shown: shownURL(config), url: config.url, headers, pushInterval: config.pushInterval, retry: false, unit: 'samples' });
  const sink = new PromSeries(config, (body, n) => {
    writer.put(snappy.compress(body), n, false);
    writer.push();
  }, instance, instances);
  const timer = setInterval(() => sink.push(), config.pushInterval);
  const close = writer.close.bind(writer);
  writer.close = (ms) => {
    clearInterval(timer);
    return close(ms);
  };
  return { sink, writer };
}
