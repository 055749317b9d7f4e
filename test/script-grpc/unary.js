// Unary calls as k6's examples/grpc_invoke.js makes them, against test/grpc-server.js: an OK
// call with metadata and tags, a non-OK status, a deadline, asyncInvoke, healthCheck, a reply
// discarded.
import grpc from 'k6/net/grpc';
import { check } from 'k6';
import exec from 'k6/execution';

const client = new grpc.Client();
const methods = client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

// What varies from run to run (the server's count, the date header) and Go's map order aside.
const sorted = (o) => (o && typeof o === 'object' && !Array.isArray(o) ? Object.fromEntries(Object.keys(o).sort().map((k) => [k, sorted(o[k])])) : o);
const shown = (r) => JSON.stringify({ ...r, message: sorted(r.message && { ...r.message, count: typeof r.message.count }), error: sorted(r.error), headers: Object.keys(r.headers).sort(), trailers: Object.keys(r.trailers).sort() });

export default async () => {
  if (exec.vu.iterationInScenario == 0) {
    client.connect(__ENV.ADDR, { plaintext: true });
    console.log(JSON.stringify(methods.map((m) => `${m.package} ${m.service} ${m.full_method} ${m.name} ${m.is_client_stream} ${m.is_server_stream}`)));
  }
  const ok = client.invoke('loadtest.test.Echo/Say', { name: 'Joe', meta: { tag: 't', ids: [1, '9007199254740993'] } }, { metadata: { 'x-tag': 'a' }, tags: { k: 'v' } });
  check(ok, { 'status is OK': (r) => r && r.status === grpc.StatusOK });
  console.log(shown(ok));
  const notFound = client.invoke('/loadtest.test.Echo/Say', { name: 'Ann', code: 5 });
  check(notFound, { 'status is NotFound': (r) => r.status === grpc.StatusNotFound });
  console.log(shown(notFound));
  const late = client.invoke('loadtest.test.Echo/Say', { name: 'Late', delayMs: 3000 }, { timeout: '300ms' });
  console.log(late.status, late.error.code, late.message.message === '');
  const replies = await Promise.all([1, 2, 3].map((i) => client.asyncInvoke('loadtest.test.Echo/Say', { name: `async${i}` })));
  console.log(replies.map((r) => r.message.message).join(' '));
  console.log(JSON.stringify(client.healthCheck()), JSON.stringify(client.healthCheck('loadtest.test.Echo')), grpc.HealthCheckServing);
  const discarded = client.invoke('loadtest.test.Echo/Say', { name: 'Discarded' }, { discardResponseMessage: true });
  console.log(JSON.stringify(discarded.message), discarded.status);
};
