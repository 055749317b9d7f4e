// What a scripted run asks of this runtime, for the command (src/commands/run.js) and for each
// child of --cores (src/script/worker.js) alike: the k6 modules' facilities (sockets, DNS, files,
// hashes) and --out's writer, a thread of its own.

import { scriptFacilities } from './load.js';
import { pickAdapter, resolveHost, preferSmallHeap, md5Hex, openLogFile, startThread, pathOf, requireProtobuf, afterReads, onUnhandledRejection, tlsRefusal } from '../index.js';
import { clientKey } from './client-key.js';
import { types } from 'node:util';
import { CSV_HEADER, csvColumns, csvHeader } from '../../src/outputs/sample-lines.js';
import { SampleQueue } from '../../src/outputs/sample-queue.js';
import { VERSION } from '../../src/version.js';

import { findChromium, openChromium, chromiumDevices, webVitalsScript } from './browser.js';

const OUT_THREAD = pathOf(new URL('../../src/outputs/out-thread.js', import.meta.url));

/** What the k6 modules of a run ask of this runtime (its sockets, DNS, files, hashes). */
export function facilitiesOf(script) {
  return {
    ...scriptFacilities(script),
    preferSmallHeap,
    md5Hex,
    requireProtobuf,
    version: VERSION,
    resolve: resolveHost,
    afterReads,
    onUnhandledRejection,
    // k6/browser's Chromium (runtimes/scripts/browser.js).
    browser: { findChromium, openChromium, chromiumDevices, webVitalsScript },
    // ca, cert, key: PEM text (k6/net/grpc's connect() tls param, tlsAuth's certificate);
    // minVersion, maxVersion, ciphers: the script's tlsVersion and tlsCipherSuites.
    adapterFor: ({ hostname, tls, insecure, alpn = null, ca = null, cert = null, key = null, minVersion = null, maxVersion = null, ciphers = null, load = null }) => {
      if (!tls) return pickAdapter(null, null, null, null, load);
      const isIp = /^[0-9.]+$/.test(hostname) || hostname.includes(':');
      return pickAdapter(null, { servername: isIp ? null : hostname, rejectUnauthorized: !insecure, ca, cert, key, alpn, minVersion, maxVersion, ciphers });
    },
    clientKey,
    tlsRefusal,
    // console.log walks a Proxy of an array by its keys, as k6 (src/script/k6/console-format.js).
    isProxy: types.isProxy,
  };
}

/**
 * --out's files, made empty (with the CSV's header) here, so that a bad path is said before the
 * run; the thread appends. --cores: the parent makes them, each child (`append`) adds whole
 * lines at their end.
 */
export async function makeOutputFiles(outs, append = false) {
  for (const o of outs.filter((x) => x.file !== undefined)) {
    try {
      if (!append) await (await openLogFile(o.file, { append: false, header: o.kind === 'csv' ? CSV_HEADER : '' })).close();
      else await (await openLogFile(o.file, { append: true })).close();
    } catch (err) {
      throw new Error(`--out ${o.kind}=${o.file}: ${String(err.message).replace(/^--log-file [^:]*: /, '')}`);
    }
  }
}

// --out json=F and csv=F: every sample as k6 writes it, formatted and written by a thread of its
// own (src/outputs/out-thread.js) from the numbers the run queues (src/outputs/sample-queue.js).
// --out influxdb: the thread's points go to the database; `instance` of `instances` is this
// process among those of a --cores run. close() gives the lines to say (points not written).
export async function openOutputs(outs, { append = false, instance = 0, instances = 1 } = {}) {
  if (outs.length === 0) return null;
  await makeOutputFiles(outs, append);

  let failed = null;
  let warnings = [];
  let done = null;
  const finished = new Promise((resolve) => (done = resolve));
  const thread = startThread(
    OUT_THREAD,
    { outs, instance, instances },
    (message) => {
      if (message.reuse) queue.reuse(message.reuse);
      if (message.done) {
        failed = failed || message.error;
        warnings = message.warnings || [];
        done();
      }
    },
    (err) => {
      failed = failed || String(err.message || err);
      done();
    },
  );
  const queue = new SampleQueue((batch) => thread.post(batch, [batch.samples]));
  // Lines reach the file at least each second, whatever the rate.
  const timer = setInterval(() => queue.flush(true), 1000);
  if (timer.unref) timer.unref();
  return {
    sample: (metric, value, tags) => queue.sample(metric, value, tags),
    /**
     * A script's system tags (their names), known after its init code, before its first sample:
     * --out csv's columns, its header made again for them where they are not k6's default set
     * (nothing else is in the file yet; a --cores child's file is its parent's).
     */
    async systemTags(names) {
      const header = csvHeader(csvColumns(names));
      if (!append && header !== CSV_HEADER) for (const o of outs.filter((x) => x.kind === 'csv')) await (await openLogFile(o.file, { append: false, header })).close();
      queue.flush(true);
      thread.post({ systemTags: names });
    },
    async close() {
      clearInterval(timer);
      queue.flush(true);
      thread.hold();
      thread.post({ end: true });
      await finished;
      await thread.terminate();
      if (failed) throw new Error(failed);
      return warnings;
    },
  };
}
