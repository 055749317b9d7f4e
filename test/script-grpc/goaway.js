// Calls against a server that ends each connection with GOAWAY (test/grpc-server.js
// --max-age): the calls it did not take go again on the next connection, none fails.
import grpc from 'k6/net/grpc';
import { check } from 'k6';

const client = new grpc.Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export const options = { vus: 2, duration: '2s' };

export default () => {
  if (__ITER == 0) client.connect(__ENV.ADDR, { plaintext: true });
  const r = client.invoke('loadtest.test.Echo/Say', { name: 'aged', delayMs: 20 });
  check(r, { 'status is OK': (r) => r.status === grpc.StatusOK });
};
