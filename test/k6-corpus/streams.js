// k6/experimental/streams: a ReadableStream read by its reader, and (k6 v2.2) a WritableStream
// written by its writer, with a queuing strategy; what each step gives, logged.
import { ReadableStream, WritableStream, WritableStreamDefaultWriter, CountQueuingStrategy } from 'k6/experimental/streams';

export const options = { iterations: 1 };

export default async function () {
  const rs = new ReadableStream({
    start(controller) {
      for (const x of ['a', 'b', 'c']) controller.enqueue(x);
      controller.close();
    },
  });
  const reader = rs.getReader();
  const read = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read.push(value);
  }
  console.log('read', read.join(','), rs.locked);
  const written = [];
  const ws = new WritableStream(
    {
      write(chunk) {
        written.push(chunk);
      },
      close() {
        console.log('closed after', written.length);
      },
    },
    new CountQueuingStrategy({ highWaterMark: 2 }),
  );
  const writer = ws.getWriter();
  console.log('writer', writer instanceof WritableStreamDefaultWriter, ws.locked, writer.desiredSize);
  await writer.write('hello');
  await writer.write('world');
  await writer.close();
  console.log('wrote', written.join(' '));
}
