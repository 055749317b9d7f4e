// The server's schema by gRPC server reflection (grpc/doc/server-reflection.md):
// ServerReflectionInfo of grpc.reflection.v1, or of v1alpha for servers that have only that,
// asked for the file that defines the service, then for any file it imports that did not come
// with it. `invoke(path, message)` makes one call (src/index.js: a one-call run on our HTTP/2
// driver) and resolves to { code, messages } (the response's messages, unframed).

import { parseProtoText, rootFromDescriptors, descriptorFile, isBundled } from './schema.js';
import { OK, UNIMPLEMENTED, codeName } from './status.js';

// The fields we use of reflection.proto (v1 and v1alpha have the same messages).
const REFLECTION_PROTO = `
syntax = "proto3";
package reflection;
message ServerReflectionRequest {
  string host = 1;
  oneof message_request {
    string file_by_filename = 3;
    string file_containing_symbol = 4;
    string list_services = 7;
  }
}
message ServerReflectionResponse {
  string valid_host = 1;
  oneof message_response {
    FileDescriptorResponse file_descriptor_response = 4;
    ListServiceResponse list_services_response = 6;
    ErrorResponse error_response = 7;
  }
}
message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
message ListServiceResponse { repeated ServiceResponse service = 1; }
message ServiceResponse { string name = 1; }
message ErrorResponse { int32 error_code = 1; string error_message = 2; }
`;

let types = null;
function reflectionTypes() {
  if (types === null) {
    const root = parseProtoText(REFLECTION_PROTO);
    types = { request: root.lookupType('reflection.ServerReflectionRequest'), response: root.lookupType('reflection.ServerReflectionResponse') };
  }
  return types;
}

const VERSIONS = ['v1', 'v1alpha'];
const NOT_FOUND = 5;

/** The Root with the service `serviceName` and every file it needs, from the server. */
export async function reflect(serviceName, invoke) {
  let version = null;
  let first = null;
  for (const v of VERSIONS) {
    first = await ask(invoke, v, { file_containing_symbol: serviceName });
    if (first !== null) {
      version = v;
      break;
    }
  }
  if (version === null) throw new Error('the server has no reflection (grpc.reflection.v1 nor v1alpha): give --proto');
  if (first.error_response) {
    if (first.error_response.error_code !== NOT_FOUND) throw new Error(`reflection: ${first.error_response.error_message || codeName(first.error_response.error_code)}`);
    const listed = await ask(invoke, version, { list_services: '' });
    const names = listed && listed.list_services_response ? listed.list_services_response.service.map((s) => s.name) : [];
    throw new Error(`unknown service '${serviceName}' (the server's reflection lists: ${names.join(', ') || 'none'})`);
  }
  const files = new Map();
  addFiles(files, first);
  await addImports(files, invoke, version);
  return rootFromDescriptors([...files.values()]);
}

/**
 * The Root of every service the server's reflection lists, with the files they need: what a
 * script's connect({ reflect: true }) loads, as k6's (its words in the errors).
 */
export async function reflectAll(invoke) {
  let version = null;
  let listed = null;
  let said = ''; // the server's grpc-message (`text`, when invoke gives one) of the last answer
  const asking = async (path, bytes) => {
    const r = await invoke(path, bytes);
    said = r.text || '';
    return r;
  };
  for (const v of VERSIONS) {
    listed = await ask(asking, v, { list_services: '' });
    if (listed !== null) {
      version = v;
      break;
    }
  }
  if (version === null) throw new Error(`can't list services: rpc error: code = Unimplemented desc = ${said || 'the server has no reflection (grpc.reflection.v1 nor v1alpha)'}`);
  const files = new Map();
  for (const { name } of listed.list_services_response ? listed.list_services_response.service : []) {
    const r = await ask(invoke, version, { file_containing_symbol: name });
    if (r.error_response || !r.file_descriptor_response) throw new Error(`can't get method on service "${name}": ${r.error_response ? r.error_response.error_message : 'no file descriptor'}`);
    addFiles(files, r);
  }
  await addImports(files, invoke, version);
  return rootFromDescriptors([...files.values()]);
}

function addFiles(files, response) {
  for (const bytes of response.file_descriptor_response.file_descriptor_proto) files.set(descriptorFile(bytes).name, bytes);
}

// Files imported but not sent along (a server may send the one file only).
async function addImports(files, invoke, version) {
  for (let missing = missingFiles(files); missing.length > 0; missing = missingFiles(files)) {
    for (const name of missing) {
      const r = await ask(invoke, version, { file_by_filename: name });
      if (r.error_response || !r.file_descriptor_response) throw new Error(`reflection: the server cannot send ${name}, which its schema imports`);
      addFiles(files, r);
    }
  }
}

function missingFiles(files) {
  const missing = new Set();
  for (const bytes of files.values()) {
    for (const dep of descriptorFile(bytes).dependencies) if (!files.has(dep) && !isBundled(dep)) missing.add(dep);
  }
  return [...missing];
}

// One request on the reflection stream: its one response, or null when the server has no such
// service (UNIMPLEMENTED).
async function ask(invoke, version, request) {
  const { request: Req, response: Res } = reflectionTypes();
  const path = `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`;
  const { code, messages } = await invoke(path, Req.encode(Req.fromObject(request)).finish());
  if (code === UNIMPLEMENTED) return null;
  if (code !== OK) throw new Error(`reflection: the server answered ${codeName(code)}`);
  if (messages.length === 0) throw new Error('reflection: the server answered with no message');
  return Res.toObject(Res.decode(messages[0]), { defaults: true, oneofs: true });
}
