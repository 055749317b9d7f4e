// k6/experimental/streams: the engine's own Streams API (node, bun and deno have it), as k6 v2.2
// exports it (WritableStream and its writer since v2.2).

export function streamsModule() {
  const { ReadableStream, ReadableStreamDefaultReader, WritableStream, WritableStreamDefaultWriter, CountQueuingStrategy, ByteLengthQueuingStrategy } = globalThis;
  const api = { ReadableStream, ReadableStreamDefaultReader, WritableStream, WritableStreamDefaultWriter, CountQueuingStrategy, ByteLengthQueuingStrategy };
  return { default: api, ...api };
}
