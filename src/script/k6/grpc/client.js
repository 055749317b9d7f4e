// k6/net/grpc's Client for one VU: load() and loadProtoset() in the init context, connect() (with
// the server's reflection), invoke(), asyncInvoke(), healthCheck() and close(). A script's
// new Client() takes no arguments: clientClass(vu) gives the class that passes its VU in.

import { loadProtoFiles, rootFromDescriptorSet, parseProtoText } from '../../../grpc/schema.js';
import { reflectAll } from '../../../grpc/reflection.js';
import { frameMessage } from '../../../grpc/frame.js';
import { messageJSON } from '../../../grpc/json-out.js';
import { GrpcChannel } from '../../net/grpc-channel.js';
import { Call, MAX_RECEIVE } from '../../net/grpc-call.js';
import { waiting } from '../../eventloop/wait.js';
import { callDebug } from './grpc-debug.js';
import { callParams, callTags, withStatus, callHeaders, encodeRequest, countBytes, pastDeadline, CODE_WORDS, metadataOf, durationOf } from './call-parts.js';

const HEALTH_PROTO = `syntax = "proto3"; package grpc.health.v1;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse { enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; } ServingStatus status = 1; }`;
let health = null;
let clients = 0;
const loaded = new WeakMap(); // the run (vu.shared) → its parsed .proto files, by paths

const INVOKE_TIMEOUT = 120000; // k6's invoke: 2 minutes unless told
const CONNECT_TIMEOUT = 60000;

/** The Client class a script of `vu` constructs. */
export function clientClass(vu) {
  return class Client extends GrpcClient {
    constructor() {
      super(vu);
    }
  };
}

export class GrpcClient {
  #vu; // its VU: a private field, not among what the script sees of the client

  constructor(vu) {
    this.#vu = vu;
    this._methods = new Map(); // '/pkg.Service/Method' → its protobufjs Method, resolved
    this._lastName = null; // what _method() was last asked, and its Method
    this._lastMethod = null;
    this._lastPath = '';
    this._channel = null;
    this._addr = '';
    this._ip = ''; // the address connected to (the ip tag)
    this._key = `grpc ${++clients}`; // its connection's place in vu.clients (closed with the VU)
  }

  load(importPaths, ...files) {
    const vu = this.#vu;
    if (vu.initDone) throw new Error('load must be called in the init context');
    const dirs = (Array.isArray(importPaths) ? importPaths : []).map((p) => String(p).replace(/^file:\/\//, ''));
    const read = (path) => readText(vu, path);
    const paths = files.map((f) => findFile(vu, String(f), dirs));
    // Every VU loads the same files: parsed once for them all (a schema is only read).
    const roots = loaded.get(vu.shared) || loaded.set(vu.shared, new Map()).get(vu.shared);
    const key = JSON.stringify([paths, dirs]);
    if (!roots.has(key)) roots.set(key, loadProtoFiles(paths, dirs, read));
    return waiting(roots.get(key).then((root) => this._add(root)));
  }

  loadProtoset(path) {
    const vu = this.#vu;
    if (vu.initDone) throw new Error('load must be called in the init context');
    let bytes;
    try {
      bytes = new Uint8Array(vu.shared.open(String(path), 'b'));
    } catch {
      throw new Error(`couldn't open protoset: open ${path}: no such file or directory`);
    }
    let root;
    try {
      root = rootFromDescriptorSet(bytes);
    } catch (err) {
      throw new Error(`couldn't unmarshal protoset file ${path}: ${err.message}`);
    }
    return this._add(root);
  }

  _add(root) {
    this._lastName = null;
    const out = [];
    for (const service of services(root)) {
      const name = service.fullName.slice(1);
      for (const method of service.methodsArray) {
        method.resolve();
        const full = `/${name}/${method.name}`;
        this._methods.set(full, method);
        // k6's MethodInfo, grpc.MethodInfo's fields after its own (sobek shows the embedded struct's).
        out.push({ package: name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '', service: service.name, full_method: full, name: method.name, is_client_stream: Boolean(method.requestStream), is_server_stream: Boolean(method.responseStream) });
      }
    }
    return out;
  }

  connect(addr, params) {
    const vu = this.#vu;
    if (!vu.initDone) throw new Error('connecting to a gRPC server in the init context is not supported');
    vu.assertNotInterrupted();
    const p = connectParams(params);
    return waiting(this._connect(String(addr), p));
  }

  async _connect(addr, p) {
    const vu = this.#vu;
    const at = addr.lastIndexOf(':');
    const host = at > 0 ? addr.slice(0, at).replace(/^\[|\]$/g, '') : addr;
    const port = at > 0 ? Number(addr.slice(at + 1)) : 443;
    this.close();
    let to;
    try {
      to = await vu.dialTo(host, port);
    } catch (err) {
      // grpc-go's words, for a name that does not resolve and for a blocked hostname or IP.
      const why = err.code === 'ENOTFOUND' ? `lookup ${host}: no such host` : err.message;
      throw new Error(`connection error: desc = "transport: error while dialing: ${why}"`);
    }
    const tls = !p.plaintext;
    const adapter = vu.shared.network.adapterFor({ hostname: host, tls, alpn: tls ? ['h2'] : null, ...(tls ? tlsOf(p.tls) : {}) });
    this._addr = addr;
    this._ip = to.address;
    this._remote = to.address.includes(':') ? `[${to.address}]:${to.port}` : `${to.address}:${to.port}`;
    this._maxReceive = p.maxReceiveSize || MAX_RECEIVE;
    this._maxSend = p.maxSendSize || 2147483647;
    const channel = new GrpcChannel(vu.shared.network, { address: to.address, port: to.port, authority: p.authority || addr, tls }, adapter);
    vu.clients.set(this._key, channel);
    try {
      await channel.dial(p.timeout);
    } catch (err) {
      // As k6: a client whose connect failed has no connection.
      vu.clients.delete(this._key);
      throw err;
    }
    this._channel = channel;
    countBytes(vu, channel);
    if (p.reflect) {
      const invoke = (path, message) => this._raw(path, frameMessage(message), p.timeout, p.reflectMetadata);
      this._add(await reflectAll(invoke));
    }
    return true;
  }

  // One call of our own (reflection's, healthCheck's): { code, text, messages }, no metric.
  _raw(path, framed, timeoutMs, metadata = [], types = null) {
    const vu = this.#vu;
    return new Promise((resolve) => {
      const messages = [];
      const headers = callHeaders(vu, timeoutMs, metadata);
      const call = new Call({
        path,
        headers,
        debug: callDebug(vu, path, this._remote, headers, types),
        message: framed,
        onMessage: (m) => messages.push(m.slice()),
        onEnd: (code, text) => {
          countBytes(vu, call.channel);
          resolve({ code, text, messages });
        },
      });
      this._channel.start(call);
    });
  }

  invoke(method, request, params) {
    return waiting(this._invoke(this._request(method, request, params, 'invoke')));
  }

  asyncInvoke(method, request, params) {
    const vu = this.#vu;
    let req;
    try {
      req = this._request(method, request, params, 'invoke');
    } catch (err) {
      return vu.loop.track(Promise.reject(err));
    }
    return vu.loop.track(this._invoke(req));
  }

  _request(method, request, params, what) {
    const vu = this.#vu;
    if (!vu.initDone) throw new Error('invoking RPC methods in the init context is not supported');
    vu.assertNotInterrupted();
    if (this._channel === null) throw new Error('no gRPC connection, you must call connect first');
    const m = this._method(method);
    const p = callParams(params, `invalid GRPC's client.${what}() parameters`);
    if (request === undefined || request === null) throw new Error('request cannot be nil');
    const message = encodeRequest(m.resolvedRequestType, request, 'unable to serialise request object to protocol buffer');
    if (message.length - 5 > this._maxSend) throw new Error(`rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (${message.length - 5} vs. ${this._maxSend})`);
    return { method: m, path: this._lastPath, params: p, message, timeout: p.timeout || INVOKE_TIMEOUT };
  }

  _method(method) {
    // A script calls the same method again and again: its Method without the string work.
    if (method === this._lastName && typeof method === 'string') return this._lastMethod;
    const name = sanitized(method);
    if (name === '') throw new Error('method to invoke cannot be empty');
    const m = this._methods.get(name);
    if (m === undefined) throw new Error(`method "${name}" not found in file descriptors`);
    this._lastName = method;
    this._lastMethod = m;
    this._lastPath = name;
    return m;
  }

  _invoke(req) {
    const vu = this.#vu;
    const registry = vu.shared.registry;
    const metric = registry.get('grpc_req_duration', 'trend', true);
    // The sample's own tags only when something reads them (--out, the full summary, a
    // sub-metric), as for HTTP requests (src/script/vu/vu.js recordCheck).
    const tags = registry.readsTags(metric) ? callTags(vu, req.params.tags, this._addr, req.path, this._ip) : null;
    const type = req.method.resolvedResponseType;
    return new Promise((resolve) => {
      const start = performance.now();
      let replied = false;
      let reply = null; // the reply as the script gets it
      let replyError = null; // why the reply did not decode
      const headers = callHeaders(vu, req.timeout, req.params.metadata);
      const call = new Call({
        path: req.path,
        headers,
        debug: vu.shared.httpDebug ? callDebug(vu, req.path, this._remote, headers, { request: req.method.resolvedRequestType, response: type }) : null,
        message: req.message,
        maxReceive: this._maxReceive,
        onMessage: (bytes) => {
          // Decoded now: the bytes are a view of what the connection read, for this callback
          // only (grpc-call.js data()); nothing of them outlives it (bytes fields go out in
          // base64).
          if (replied) return;
          replied = true;
          if (req.params.discardResponseMessage) return;
          try {
            reply = messageJSON(type, type.decode(bytes));
          } catch (err) {
            replyError = err;
          }
        },
        onEnd: (code, text, headers, trailers) => {
          // k6 pushes the sample only if the call's context is not done: a call past its
          // deadline has none (whichever side said DEADLINE_EXCEEDED), nor one of an
          // iteration cut short.
          const took = performance.now() - start;
          if (!pastDeadline(took, req.timeout) && !vu.interrupted) {
            if (tags !== null) withStatus(vu, tags, code);
            registry.add(metric, took, tags === null ? vu.currentTags() : tags);
          }
          countBytes(vu, call.channel);
          let message = null;
          if (!req.params.discardResponseMessage) {
            // As grpc-go: the reply's fields (all at their defaults when none came).
            if (!replied) {
              try {
                reply = messageJSON(type, type.create());
              } catch (err) {
                replyError = err;
              }
            }
            if (replyError === null) message = reply;
            else if (code === 0) {
              code = 13;
              text = `grpc: failed to unmarshal the received message: ${replyError.message}`;
            }
          }
          const error = code === 0 ? null : { code, message: text, details: [] };
          resolve({ message, error, headers, trailers, status: code });
        },
      });
      this._channel.start(call);
      call.channel.expire(call, req.timeout, start);
    });
  }

  healthCheck(service) {
    const vu = this.#vu;
    if (this._channel === null) throw new Error('no gRPC connection, you must call connect first');
    if (health === null) health = parseProtoText(HEALTH_PROTO);
    const Req = health.lookupType('grpc.health.v1.HealthCheckRequest');
    const Res = health.lookupType('grpc.health.v1.HealthCheckResponse');
    const tags = vu.tags();
    const start = performance.now();
    const framed = frameMessage(Req.encode(Req.create({ service: service == null ? '' : String(service) })).finish());
    return waiting(
      this._raw('/grpc.health.v1.Health/Check', framed, 0, [], { request: Req, response: Res }).then(({ code, text, messages }) => {
        withStatus(vu, tags, code);
        if (!vu.interrupted) vu.shared.registry.add(vu.shared.registry.get('grpc_req_duration', 'trend', true), performance.now() - start, tags);
        if (code !== 0) throw new Error(`rpc error: code = ${CODE_WORDS[code] || code} desc = ${text}`);
        const m = messages.length ? Res.decode(messages[0]) : Res.create();
        return { status: m.status || 0 };
      }),
    );
  }

  close() {
    const vu = this.#vu;
    if (this._channel !== null) this._channel.close();
    this._channel = null;
    vu.clients.delete(this._key);
  }
}

const sanitized = (name) => {
  const s = name === undefined || name === null ? '' : String(name);
  return s === '' || s.startsWith('/') ? s : `/${s}`;
};

function services(ns, out = []) {
  for (const nested of ns.nestedArray) {
    if (nested.methodsArray !== undefined && nested.methods !== undefined) out.push(nested);
    else if (nested.nestedArray) services(nested, out);
  }
  return out;
}

function connectParams(input) {
  const what = 'invalid grpc.connect() parameters';
  const out = { plaintext: false, reflect: false, reflectMetadata: [], timeout: CONNECT_TIMEOUT, maxReceiveSize: 0, maxSendSize: 0, tls: null, authority: '' };
  if (input === undefined || input === null) return out;
  for (const k of Object.keys(input)) {
    const v = input[k];
    switch (k) {
      case 'plaintext':
      case 'reflect':
        if (typeof v !== 'boolean') throw new Error(`${what}: invalid ${k} value: '${JSON.stringify(v)}', it needs to be boolean`);
        out[k] = v;
        break;
      case 'timeout':
        out.timeout = durationOf(v, `${what}: invalid timeout value`);
        break;
      case 'reflectMetadata':
        out.reflectMetadata = metadataOf(v, `${what}: invalid reflectMetadata param`);
        break;
      case 'maxReceiveSize':
      case 'maxSendSize':
        if (!Number.isInteger(v)) throw new Error(`${what}: invalid ${k} value: '${JSON.stringify(v)}', it needs to be an integer`);
        if (v < 0) throw new Error(`${what}: invalid ${k} value: '${v}, it needs to be a positive integer`);
        out[k] = v;
        break;
      case 'tls':
        if (v === null || typeof v !== 'object') throw new Error(`${what}: invalid tls value: '${JSON.stringify(v)}', expected (optional) keys: cert, key, password, and cacerts`);
        out.tls = v;
        break;
      case 'authority':
        if (typeof v !== 'string') throw new Error(`${what}: invalid authority value: '${JSON.stringify(v)}', it needs to be a string`);
        out.authority = v;
        break;
      default:
        throw new Error(`${what}: unknown connect param: "${k}"`);
    }
  }
  return out;
}

// connect()'s tls: PEM text of a client certificate and key, and CAs to trust.
function tlsOf(tls) {
  if (tls === null) return {};
  if (tls.password) throw new Error('invalid grpc.connect() parameters: an encrypted tls key (password) is not supported here');
  // Several CAs as one PEM text: every runtime's adapter reads them so.
  const ca = tls.cacerts === undefined ? null : Array.isArray(tls.cacerts) ? tls.cacerts.map(String).join('\n') : String(tls.cacerts);
  return { ca, cert: tls.cert ? String(tls.cert) : null, key: tls.key ? String(tls.key) : null };
}

function findFile(vu, file, dirs) {
  if (dirs.length === 0 || file.startsWith('/')) return file;
  for (const dir of dirs) {
    const path = `${dir.replace(/\/+$/, '')}/${file}`;
    try {
      vu.shared.open(path, 't');
      return path;
    } catch {
      // the next import path
    }
  }
  return `${dirs[0].replace(/\/+$/, '')}/${file}`;
}

// The runtime's open(), relative to the script's folder, as a promise of the text (a missing
// file's error has its code, for the import search).
function readText(vu, path) {
  try {
    return Promise.resolve(vu.shared.open(path, 't'));
  } catch (err) {
    const e = new Error(err.message);
    e.code = (/\((E[A-Z]+)\)$/.exec(err.message) || [])[1] || 'EIO';
    return Promise.reject(e);
  }
}
