// k6/net/grpc's Stream for one VU: new Stream(client, method, params) opens the call at once;
// on('data' | 'error' | 'end'), write(message), end(). As k6's stream: its events run on the
// VU's event loop (the iteration ends after the stream has, as k6's taskqueue holds it), in the
// order they came; an error status fires 'error' ({ code, details, message }) and then 'end';
// a server-streaming method's one message ends the client's side. k6's metrics: grpc_streams at
// the start, grpc_streams_msgs_sent and _received for each message, grpc_req_duration at the end.

import { Call } from '../../net/grpc-call.js';
import { messageJSON } from '../../../grpc/json-out.js';
import { logEntry } from '../console.js';
import { callDebug } from './grpc-debug.js';
import { callParams, callTags, withStatus, callHeaders, encodeRequest, countBytes, pastDeadline, CODE_WORDS } from './call-parts.js';

const CLOSING = 'grpc: the client connection is closing';
const EVENTS = new Set(['data', 'error', 'end', 'status']);

export function streamClass(vu) {
  const counter = (name) => vu.shared.registry.get(name, 'counter');
  return class Stream {
    constructor(client, method, params) {
      if (client === undefined || client === null) throw new Error("invalid GRPC Stream's client: empty gRPC client");
      if (typeof client !== 'object' || !(client._methods instanceof Map)) throw new Error("invalid GRPC Stream's client: not a gRPC client");
      if (client._channel === null) throw new Error("invalid GRPC Stream's client: no gRPC connection, you must call connect first");
      let m;
      try {
        m = client._method(method);
      } catch (err) {
        throw new Error(`invalid GRPC Stream's method: ${err.message}`);
      }
      const p = callParams(params, "invalid GRPC Stream's parameters");
      const path = `/${String(method).replace(/^\//, '')}`;
      const s = {
        vu,
        path,
        type: m.resolvedResponseType,
        requestType: m.resolvedRequestType,
        clientStreams: Boolean(m.requestStream),
        discard: p.discardResponseMessage,
        tags: callTags(vu, p.tags, client._addr, path, client._ip),
        handlers: new Map(),
        writing: true,
        sentLast: false, // a method that takes one message has had it
        errors: 1, // how many times k6 reports the error that ends the stream
        done: false,
        start: performance.now(),
        channel: client._channel,
        maxSend: client._maxSend,
        call: null,
        timeout: p.timeout,
        release: null,
      };
      const ended = new Promise((resolve) => (s.release = resolve));
      const headers = callHeaders(vu, p.timeout, p.metadata);
      s.call = new Call({
        path,
        headers,
        debug: callDebug(vu, path, client._remote, headers, { request: m.resolvedRequestType, response: m.resolvedResponseType }),
        message: null,
        maxReceive: client._maxReceive,
        onMessage: (bytes) => received(s, bytes.slice()),
        onEnd: (code, text) => queueMicrotask(() => finished(s, code, text)),
      });
      s.drop = () => {
        // The iteration is cut (its scenario's end, gracefulStop): no more events; k6's stream
        // sees its VU's context end, and warns when it has no 'error' handler.
        if (!s.handlers.has('error')) warn(s, 'no handlers for error registered, but an error happened: rpc error: code = DeadlineExceeded desc = context deadline exceeded');
        s.done = true;
        s.channel.cancel(s.call, 1, 'context canceled');
        countBytes(vu, s.channel);
        s.release();
      };
      // The iteration ended with an exception: k6 cancels its context, and the stream ends with
      // its 'canceled by client (k6)' error and 'end', and no sample.
      s.abandon = () => {
        if (s.done) return;
        finished(s, 1, CLOSING, false);
        s.channel.cancel(s.call, 1, 'context canceled');
      };
      vu.sessions.add(s);
      vu.loop.track(ended);
      s.channel.start(s.call);
      if (p.timeout > 0) s.channel.expire(s.call, p.timeout);
      vu.shared.registry.add(counter('grpc_streams'), 1, { ...s.tags });
      // The script's object: on, write and end, as k6 defines them on it.
      Object.defineProperties(this, {
        on: { value: (event, fn) => on(s, event, fn), enumerable: false },
        write: { value: (message) => write(s, message, counter), enumerable: false },
        end: { value: () => endWriting(s), enumerable: false },
      });
    }
  };
}

function on(s, event, fn) {
  if (typeof fn !== 'function') throw new Error(`handler for "${event}" event isn't a callable function`);
  if (!EVENTS.has(event)) return globalThis.console.error(logEntry('warning', `can't register ${event} event handler: unknown GRPC stream's event type: ${event}`, []));
  if (!s.handlers.has(event)) s.handlers.set(event, []);
  s.handlers.get(event).push(fn);
}

function write(s, message, counter) {
  // A second message to a method that takes one: grpc-go's SendMsg refuses it and finishes the
  // call with that error, which k6's stream then reports from its send side and again from its
  // receive side: 'error' twice (after end(), a write is dropped).
  if (s.sentLast && !s.done) {
    s.errors = 2;
    return s.channel.cancel(s.call, 13, 'SendMsg called after CloseSend');
  }
  if (!s.writing || s.done) return;
  if (message === undefined || message === null) return warn(s, "can't send empty message");
  let framed;
  try {
    framed = encodeRequest(s.requestType, message, "can't serialise request object to protocol buffer");
  } catch (err) {
    s.writing = false;
    s.channel.cancel(s.call, 2, err.message);
    return;
  }
  if (framed.length - 5 > s.maxSend) {
    s.writing = false;
    s.channel.cancel(s.call, 8, `grpc: trying to send message larger than max (${framed.length - 5} vs. ${s.maxSend})`);
    return;
  }
  s.channel.write(s.call, framed);
  s.vu.shared.registry.add(counter('grpc_streams_msgs_sent'), 1, { ...s.tags });
  // A method that takes one message: grpc-go ends the client's side with it.
  if (!s.clientStreams) {
    endWriting(s);
    s.sentLast = true;
  }
}

function endWriting(s) {
  s.sentLast = false;
  if (!s.writing) return;
  s.writing = false;
  s.channel.write(s.call, null);
}

function received(s, bytes) {
  s.vu.shared.registry.add(s.vu.shared.registry.get('grpc_streams_msgs_received', 'counter'), 1, { ...s.tags });
  const at = { ts: Math.floor(Date.now() / 1000) };
  queueMicrotask(() => {
    if (s.done) return;
    let value = {};
    if (!s.discard) {
      try {
        value = messageJSON(s.type, s.type.decode(bytes));
      } catch (err) {
        return s.channel.cancel(s.call, 13, `grpc: failed to unmarshal the received message: ${err.message}`);
      }
    }
    fire(s, 'data', [value, at]);
  });
}

function finished(s, code, text, sample = true) {
  s.writing = false;
  s.vu.sessions.delete(s);
  if (s.done) return;
  s.done = true;
  // As for a call: none past the stream's deadline (k6 pushes it only if its context is not done).
  const took = performance.now() - s.start;
  if (sample && !pastDeadline(took, s.timeout)) s.vu.shared.registry.add(s.vu.shared.registry.get('grpc_req_duration', 'trend', true), took, withStatus(s.vu, { ...s.tags }, code));
  countBytes(s.vu, s.channel);
  const at = () => ({ ts: Math.floor(Date.now() / 1000) });
  // client.close() under an open stream: k6 v1.3 gives an 'error' (its own, not a gRPC status:
  // code 2), then 'end'.
  const byClient = code === 1 && text === CLOSING;
  if (byClient) [code, text] = [2, 'canceled by client (k6)'];
  // OK, and a cancel, are a stream's regular end (k6's isRegularClosing).
  if (code !== 0 && code !== 1) {
    for (let n = 0; n < s.errors; n++) {
      if (!s.handlers.has('error')) warn(s, `no handlers for error registered, but an error happened: ${byClient ? text : `rpc error: code = ${CODE_WORDS[code] || code} desc = ${text}`}`);
      // k6's grpcError: its fields, and its Error() method as sobek shows it.
      fire(s, 'error', [{ code, details: [], message: text, error: () => `code: ${code}, message: ${text}` }, at()]);
    }
  }
  fire(s, 'end', [{}, at()]);
  s.release();
}

function fire(s, event, args) {
  for (const fn of s.handlers.get(event) || []) s.vu.loop.call(fn, args);
}

// k6's stream logs with the method as a field.
function warn(s, message) {
  globalThis.console.error(logEntry('warning', message, [['streamMethod', s.path]]));
}
