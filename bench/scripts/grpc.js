// bench/grpc-script.sh: VUs looping a unary gRPC call (loadtest.test.Echo/Say of
// test/grpc/echo.proto), each VU connecting once, in its first iteration (10 VUs for 5 s unless
// flags say otherwise). ADDR: the server's host:port; PROTOS: test/grpc's absolute path.
import grpc from 'k6/net/grpc';

export const options = { vus: 10, duration: '5s' };

const client = new grpc.Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export default function () {
  if (__ITER === 0) client.connect(__ENV.ADDR, { plaintext: true });
  client.invoke('loadtest.test.Echo/Say', { name: 'joe' });
}
