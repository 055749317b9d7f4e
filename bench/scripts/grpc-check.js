// bench/grpc-script.sh: grpc.js with a check of each call's status, the shape of most real
// gRPC scripts (10 VUs for 5 s unless flags say otherwise).
import grpc from 'k6/net/grpc';
import { check } from 'k6';

export const options = { vus: 10, duration: '5s' };

const client = new grpc.Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export default function () {
  if (__ITER === 0) client.connect(__ENV.ADDR, { plaintext: true });
  const res = client.invoke('loadtest.test.Echo/Say', { name: 'joe' });
  check(res, { 'status is OK': (r) => r && r.status === grpc.StatusOK });
}
