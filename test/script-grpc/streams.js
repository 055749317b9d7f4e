// The three kinds of streams, as k6's examples/grpc_server_streaming.js and
// grpc_client_streaming.js open them, at once in each iteration; the iteration ends when the
// last stream has.
import { Client, Stream, StatusDeadlineExceeded } from 'k6/net/grpc';

// Go's map order aside (k6 gives a message as a map: its keys in any order).
const shown = (m) => JSON.stringify(Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1))));

const client = new Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export default () => {
  if (__ITER == 0) client.connect(__ENV.ADDR, { plaintext: true });
  const count = new Stream(client, 'loadtest.test.Echo/Count');
  count.on('data', (m, meta) => console.log('count data', shown(m), typeof meta.ts));
  count.on('end', () => console.log('count end'));
  count.write({ name: 'n', times: 3 });

  const collect = new Stream(client, 'loadtest.test.Echo/Collect', { tags: { kind: 'collect' } });
  collect.on('data', (m) => console.log('collect data', shown(m)));
  collect.on('end', () => console.log('collect end'));
  for (let i = 0; i < 4; i++) collect.write({ name: `x${i}` });
  collect.end();

  const chat = new Stream(client, '/loadtest.test.Echo/Chat', { metadata: { 'x-tag': 'chat' } });
  let n = 0;
  chat.on('data', (m) => {
    console.log('chat data', shown(m));
    if (++n < 3) chat.write({ name: `again${n}` });
    else chat.end();
  });
  chat.on('error', (e) => console.log('chat error', JSON.stringify(e)));
  chat.on('end', () => console.log('chat end'));
  chat.write({ name: 'first' });

  // A stream past its deadline (it sends nothing, so nothing races the deadline): 'error' with
  // k6's object, then 'end'.
  const late = new Stream(client, 'loadtest.test.Echo/Chat', { timeout: '200ms' });
  late.on('error', (e) => console.log('late error', shown(e), Object.keys(e).join(','), e.code === StatusDeadlineExceeded));
  late.on('end', () => console.log('late end'));
};
