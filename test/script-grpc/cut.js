// Streams still open when the scenario ends (gracefulStop 0s): cut, as k6 cuts them.
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export const options = { scenarios: { a: { executor: 'constant-vus', vus: 2, duration: '1s', gracefulStop: '0s' } } };

export default () => {
  if (__ITER == 0) client.connect(__ENV.ADDR, { plaintext: true });
  const chat = new grpc.Stream(client, 'loadtest.test.Echo/Chat');
  chat.on('data', () => {});
  chat.on('end', () => console.log('end', __VU));
  chat.write({ name: 'open' });
};
