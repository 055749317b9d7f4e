// --http-debug for k6/net/grpc's calls and streams, as k6 logs them (its grpcext DebugStat, for
// every call, reflection's and healthCheck's too): "Out Header" (the method, the address, the
// metadata sent), "In Header" and "In Trailer" (the metadata received, with the header block's
// length), and with 'full' "Out Payload" and "In Payload" (each message's length framed, its
// time, and the message in protobuf's text format, as Go's prototext writes it).

import { textformat } from '../../../grpc/protobuf.js';
import { logEntry } from '../console.js';

/**
 * The debug hooks of one call, or null without --http-debug. `types`: { request, response }
 * (protobufjs Types) for the payloads.
 */
export function callDebug(vu, path, addr, headers, types) {
  const mode = vu.shared.httpDebug;
  if (!mode) return null;
  const line = (msg) => {
    const secrets = vu.shared.secrets;
    globalThis.console.error(logEntry('info', msg, [['source', 'http-debug']], secrets ? (text) => secrets.redact(text) : undefined));
  };
  const payload = (type, bytes) => {
    try {
      const text = textformat.toText(type, type.decode(bytes));
      // Go's prototext writes a message field as `name: {`.
      return text === '' ? '' : `${text.replace(/^(\s*[\w.[\]]+) \{$/gm, '$1: {')}\n`;
    } catch {
      return '';
    }
  };
  // What grpc-go shows of the metadata it sends: the user agent and the script's own.
  const sent = headers.filter(([k]) => k === 'user-agent' || !OWN.has(k));
  return {
    outHeader() {
      line(`Out Header:\nFull Method: ${path}\nRemote Address: ${addr}\n${metadata(sent.map(([k, v]) => [k, [v]]))}\n`);
    },
    outPayload(framed) {
      if (mode === 'full') line(`Out Payload:\nWire Length: ${framed.length}\nSent Time: ${goTime()}\n${payload(types.request, framed.subarray(5))}\n\n`);
    },
    inHeader(md, length) {
      if (Object.keys(md).length > 0) line(`In Header:\nWire Length: ${length}\n${metadata(Object.entries(md))}\n`);
    },
    inTrailer(md, length) {
      if (Object.keys(md).length > 0) line(`In Trailer:\nWire Length: ${length}\n${metadata(Object.entries(md))}\n`);
    },
    inPayload(bytes) {
      if (mode === 'full') line(`In Payload:\nWire Length: ${bytes.length + 5}\nReceived Time: ${goTime()}\n${payload(types.response, bytes)}\n\n`);
    },
  };
}

const OWN = new Set(['content-type', 'te', 'grpc-timeout']);

const metadata = (entries) => entries.map(([k, values]) => `${k}: ${values.join(', ')}\n`).join('');

// A time as Go's time.Time prints one: '2026-11-26 05:00:09.656677516 +0000 UTC m=+0.147208046'.
function goTime() {
  const now = new Date();
  const iso = now.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000000 +0000 UTC m=+${(performance.now() / 1000).toFixed(9)}`;
}
