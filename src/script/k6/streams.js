// k6/experimental/streams: the engine's own Streams API (node, bun and deno have it), as k6 v1.3
// exports it.

export function streamsModule() {
  const { ReadableStream, ReadableStreamDefaultReader, CountQueuingStrategy, ByteLengthQueuingStrategy } = globalThis;
  const api = { ReadableStream, ReadableStreamDefaultReader, CountQueuingStrategy, ByteLengthQueuingStrategy };
  return { default: api, ...api };
}
