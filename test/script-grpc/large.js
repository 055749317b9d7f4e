// Messages larger than HTTP/2's first windows: a 1.5 MB request and its reply, a reply over
// maxReceiveSize, 3 MB written on a client stream; they go as the server's windows open.
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

const sorted = (o) => o && Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

export default () => {
  client.connect(__ENV.ADDR, { plaintext: true, maxReceiveSize: 2000000 });
  const big = client.invoke('loadtest.test.Echo/Say', { name: 'x'.repeat(1500000) });
  console.log(big.status, big.message.message.length);
  const over = client.invoke('loadtest.test.Echo/Say', { name: 'x'.repeat(2500000) });
  console.log(over.status, JSON.stringify(sorted(over.error)));
  const stream = new grpc.Stream(client, 'loadtest.test.Echo/Collect');
  stream.on('data', (m) => console.log('collected', m.count));
  for (let i = 0; i < 30; i++) stream.write({ name: 'y'.repeat(100000) });
  stream.end();
};
