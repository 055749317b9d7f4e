// protobufjs and the extensions of it a gRPC run uses, as one set of bindings for the modules
// that need them (schema.js, json-out.js, k6/net/grpc's). The runtime loads them as the
// CommonJS they are (runtimes/index.js requireProtobuf): through the ESM loader each of
// protobufjs's files is translated and its exports parsed first, which cost node 160-180 ms at a
// run's start against 80, deno 120-145 against 66. A caller without the runtime's (a test)
// imports them instead (loadProtobuf()).

export let protobuf = null;
export let protojson = null;
export let descriptor = null;
export let textformat = null;

/** Takes `libs` ({ protobuf, protojson, descriptor, textformat }) as the set to use. */
export function useProtobuf(libs) {
  ({ protobuf, protojson, descriptor, textformat } = libs);
}

/** The set, loaded once: by `load` (the runtime's requireProtobuf, when given), else imported. */
export async function loadProtobuf(load = null) {
  if (protobuf !== null) return;
  if (load !== null) return useProtobuf(load());
  const [p, j, d, t] = await Promise.all([import('protobufjs'), import('protobufjs/ext/protojson.js'), import('protobufjs/ext/descriptor.js'), import('protobufjs/ext/textformat.js')]);
  useProtobuf({ protobuf: p.default, protojson: j.default, descriptor: d.default, textformat: t.default });
}
