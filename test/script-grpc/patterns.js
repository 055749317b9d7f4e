// How public scripts use the module: a client class of their own over grpc.Client (adding
// metadata to each call, through super), connect() on a VU's first iteration only, calls in a
// group, thresholds on grpc_req_duration and its method's sub-metric, several VUs.
import grpc from 'k6/net/grpc';
import { check, group } from 'k6';
import exec from 'k6/execution';

class Tagged extends grpc.Client {
  invoke(method, request, params = {}) {
    return super.invoke(method, request, { ...params, metadata: { ...(params.metadata || {}), 'x-tag': 'tagged' } });
  }
}

const client = new Tagged();
client.load([`${__ENV.PROTOS}/include`, __ENV.PROTOS], 'echo.proto');

export const options = {
  vus: 3,
  iterations: 30,
  thresholds: { grpc_req_duration: ['p(95)<5000'], 'grpc_req_duration{method:Say}': ['max<5000'] },
};

export default () => {
  if (exec.vu.iterationInScenario == 0) client.connect(__ENV.ADDR, { plaintext: true });
  group('calls', () => {
    const response = client.invoke('loadtest.test.Echo/Say', { name: `vu${__VU}` });
    check(response, { 'status is OK': (r) => r && r.status === grpc.StatusOK });
    if (__ITER == 0) console.log(JSON.stringify(response.message.kind));
  });
};
