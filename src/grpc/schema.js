// The protobuf side of a gRPC run, on protobufjs: .proto files parsed with their imports (or a
// server's FileDescriptorProtos, from reflection), the method a --call names, and its request
// message made from JSON by the ProtoJSON mapping, each field checked. The bytes on the wire
// are ours to frame (src/grpc/frame.js).
//
// protobufjs reads no file here: `read(path)` (the runtime's, from src/index.js) does, so the
// core stays free of node:fs and imports resolve by the import paths given, as protoc does.

import { protobuf, protojson, descriptor } from './protobuf.js';
import { frameMessage } from './frame.js';

const PARSE = { keepCase: true };
const decoder = new TextDecoder();

/**
 * The Root of `files` (paths as given) and everything they import, looked up in `importPaths`
 * in order, then beside the importing file; google/protobuf's well-known types are built in.
 * `read(path)` resolves to the text, or rejects with an error whose code is ENOENT.
 */
export async function loadProtoFiles(files, importPaths, read) {
  const root = new protobuf.Root();
  const seen = new Set();
  const load = async (path, source) => {
    if (seen.has(path)) return;
    seen.add(path);
    const parsed = parseFile(root, path, source);
    for (const name of [...(parsed.imports || []), ...(parsed.weakImports || [])]) {
      if (bundled(name)) addBundled(root, name, seen);
      else {
        const found = await findImport(name, path, importPaths, read);
        await load(found.path, found.source);
      }
    }
  };
  for (const file of files) await load(file, await readProto(file, read, null));
  try {
    root.resolveAll();
  } catch (err) {
    throw new Error(`${files.join(', ')}: ${err.message}`);
  }
  return root;
}

// protobufjs names the line of a syntax error, and the token; the column is where that token
// first stands on the line (from the tokenizer's line count: comments and strings included).
function parseFile(root, path, source) {
  protobuf.parse.filename = path;
  try {
    return protobuf.parse(source, root, PARSE);
  } catch (err) {
    const m = /^(.*?) \((?:.*?, )?line (\d+)\)$/.exec(err.message);
    if (!m) throw new Error(`${path}: ${err.message}`);
    const line = Number(m[2]);
    const token = /'(.*)'/.exec(m[1]);
    const text = source.split('\n')[line - 1] || '';
    const column = token && text.includes(token[1]) ? text.indexOf(token[1]) + 1 : text.search(/\S|$/) + 1;
    throw new Error(`${path}:${line}:${column}: ${m[1]}`);
  } finally {
    protobuf.parse.filename = null;
  }
}

const bundled = (name) => Object.prototype.hasOwnProperty.call(protobuf.common, name);

function addBundled(root, name, seen) {
  if (seen.has(name)) return;
  seen.add(name);
  root.addJSON(protobuf.common[name].nested);
}

async function readProto(path, read, importedBy) {
  try {
    return await read(path);
  } catch (err) {
    const by = importedBy ? ` (imported by ${importedBy})` : '';
    throw new Error(`cannot read ${path}${by} (${err.code || err.message})`);
  }
}

const join = (dir, name) => (dir === '' ? name : `${dir.replace(/\/+$/, '')}/${name}`);

async function findImport(name, importedBy, importPaths, read) {
  const dirs = [...importPaths, importedBy.slice(0, importedBy.lastIndexOf('/') + 1)];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      return { path, source: await read(path) };
    } catch (err) {
      if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') throw new Error(`cannot read ${path} (${err.code || err.message})`);
    }
  }
  const where = importPaths.length ? `in the import paths (${importPaths.join(', ')}) nor beside it` : 'beside it (give --import-path DIR)';
  throw new Error(`${importedBy}: import "${name}" not found ${where}`);
}

/** The Root of a server's FileDescriptorProtos (reflection), as bytes. */
export function rootFromDescriptors(files) {
  return protobuf.Root.fromDescriptor({ file: files.map((bytes) => descriptor.FileDescriptorProto.decode(bytes)) }, PARSE);
}

/** The Root of a protoset: a FileDescriptorSet's bytes (protoc --descriptor_set_out). */
export function rootFromDescriptorSet(bytes) {
  return protobuf.Root.fromDescriptor(descriptor.FileDescriptorSet.decode(bytes), PARSE);
}

/** A FileDescriptorProto's name and the names of the files it imports. */
export function descriptorFile(bytes) {
  const file = descriptor.FileDescriptorProto.decode(bytes);
  return { name: file.name, dependencies: file.dependency || [] };
}

export const isBundled = bundled;

/**
 * The unary method `call` names ('pkg.Service.Method' or 'pkg.Service/Method'):
 * { call, path ('/pkg.Service/Method'), requestType }. Throws a one-line reason otherwise.
 */
export function findMethod(root, call) {
  const cut = Math.max(call.lastIndexOf('/'), call.lastIndexOf('.'));
  if (cut <= 0 || cut === call.length - 1) throw new Error(`--call '${call}' must be package.Service.Method`);
  const serviceName = call.slice(0, cut);
  const name = call.slice(cut + 1);
  const service = root.lookup(serviceName);
  if (!(service instanceof protobuf.Service)) throw new Error(`unknown service '${serviceName}' (${listed('services', serviceNames(root))})`);
  const method = service.methods[name];
  if (!method) throw new Error(`service ${serviceName} has no method '${name}' (${listed('methods', Object.keys(service.methods))})`);
  if (method.requestStream || method.responseStream) {
    const kind = method.requestStream && method.responseStream ? 'bidirectional' : method.requestStream ? 'client' : 'server';
    throw new Error(`${serviceName}.${name} is a ${kind}-streaming method: --grpc calls unary methods`);
  }
  method.resolve();
  return { call: `${serviceName}.${name}`, path: `/${serviceName}/${name}`, requestType: method.resolvedRequestType };
}

const listed = (what, names) => (names.length ? `${what}: ${names.join(', ')}` : `no ${what} defined`);

/** Every service's full name under `ns`. */
export function serviceNames(ns) {
  const out = [];
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Service) out.push(nested.fullName.slice(1));
    else if (nested.nestedArray) out.push(...serviceNames(nested));
  }
  return out;
}

/**
 * (json bytes, where) → the framed request message. `where` names the body in errors ('--data',
 * 'feed f.csv row 3'): not JSON, or not the message (an unknown field, a wrong type).
 */
export function requestEncoder(type) {
  const name = type.fullName.slice(1);
  return (bytes, where) => {
    const text = typeof bytes === 'string' ? bytes : decoder.decode(bytes);
    let value;
    try {
      value = text.trim() === '' ? {} : JSON.parse(text);
    } catch (err) {
      throw new Error(`${where} is not JSON (${err.message.split('\n')[0]})`);
    }
    let message;
    try {
      message = protojson.fromJson(type, value);
    } catch (err) {
      // protojson names the field as .pkg.Type.field: the message's own type goes without saying.
      const own = `.${name}`;
      const what = err.message.startsWith(`${own}.`) ? err.message.slice(own.length + 1) : err.message.startsWith(`${own}:`) ? err.message.slice(own.length + 2) : err.message.replace(/^\./, '');
      throw new Error(`${where} does not fit ${name}: ${what}`);
    }
    return frameMessage(type.encode(message).finish());
  };
}

/** A message of `type` from its bytes (an unframed message), to a plain object. */
export function decodeMessage(type, bytes) {
  return type.toObject(type.decode(bytes), { defaults: false });
}

/** A Root from .proto text given in the code (the reflection service's own messages). */
export function parseProtoText(text) {
  return protobuf.parse(text, new protobuf.Root(), PARSE).root;
}
