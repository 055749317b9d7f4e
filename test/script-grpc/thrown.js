// An iteration that throws with a stream open: k6 cancels the iteration's context, and the
// stream's 'error' and 'end' run in that iteration, before the exception is logged.
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export const options = { iterations: 2 };

export default () => {
  if (__ITER == 0) client.connect(__ENV.ADDR, { plaintext: true });
  const chat = new grpc.Stream(client, 'loadtest.test.Echo/Chat');
  chat.on('error', (e) => console.log('error', __ITER, e.code, e.message));
  chat.on('end', () => console.log('end', __ITER));
  chat.write({ name: 'x' });
  throw new Error(`boom ${__ITER}`);
};
