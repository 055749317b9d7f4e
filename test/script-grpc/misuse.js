// Streams used as scripts misuse them, as k6 v1.3 answers: a second message to a method that
// takes one (k6 reports its error twice), a non-OK status, client.close() under an open stream
// (its 'error', and no 'end').
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  const twice = new grpc.Stream(client, 'loadtest.test.Echo/Say');
  twice.on('data', (m) => console.log('twice data', m.message));
  twice.on('error', (e) => console.log('twice error', e.code, e.message));
  twice.on('end', () => console.log('twice end'));
  twice.write({ name: 'one' });
  twice.write({ name: 'two' });

  const denied = new grpc.Stream(client, 'loadtest.test.Echo/Say');
  denied.on('error', (e) => console.log('denied error', e.code, e.message, String(e.error())));
  denied.on('end', () => console.log('denied end'));
  denied.write({ name: 'denied', code: 7 });
  denied.end();

  const closed = new grpc.Stream(client, 'loadtest.test.Echo/Chat');
  closed.on('data', () => {
    console.log('closed data');
    client.close();
  });
  closed.on('error', (e) => console.log('closed error', e.code, e.message));
  closed.on('end', () => console.log('closed end'));
  closed.write({ name: 'x' });
};
