// src/script/k6/grpc/: k6/net/grpc, its Client and Stream.
// k6/net/grpc for one VU, as k6 v1.3 has it: new Client(), load() and loadProtoset() in the
// init context, connect() (with the server's reflection), invoke(), asyncInvoke(), healthCheck()
// and close(); Stream (k6/grpc/grpc-stream.js); the status constants. A call goes over our HTTP/2
// driver (src/script/net/grpc-channel.js); its messages are protobufjs's, made from the script's
// object by ProtoJSON and given back as k6's Go code gives them (src/grpc/json-out.js). A call
// suspends its VU as an HTTP request does (a marked promise: src/script/eventloop/wait.js); asyncInvoke's
// promise is the script's. k6's metric of a call: grpc_req_duration, tagged name, method,
// service, url and status (k6's grpcext statsHandler and callParams.SetSystemTags).

import { clientClass } from './client.js';
import { streamClass } from './grpc-stream.js';

const STATUS = {
  StatusOK: 0, StatusCanceled: 1, StatusUnknown: 2, StatusInvalidArgument: 3, StatusDeadlineExceeded: 4,
  StatusNotFound: 5, StatusAlreadyExists: 6, StatusPermissionDenied: 7, StatusResourceExhausted: 8,
  StatusFailedPrecondition: 9, StatusAborted: 10, StatusOutOfRange: 11, StatusUnimplemented: 12,
  StatusInternal: 13, StatusUnavailable: 14, StatusDataLoss: 15, StatusUnauthenticated: 16,
  HealthCheckUnknown: 0, HealthCheckServing: 1, HealthCheckNotServing: 2, HealthCheckServiceUnkown: 3,
};

export function grpcModule(vu) {
  // k6's metrics of the module, made when a script imports it: thresholds may name them.
  const registry = vu.shared.registry;
  registry.get('grpc_req_duration', 'trend', true);
  for (const name of ['grpc_streams', 'grpc_streams_msgs_sent', 'grpc_streams_msgs_received']) registry.get(name, 'counter');
  const Client = clientClass(vu);
  const Stream = streamClass(vu);
  const api = { Client, Stream, ...STATUS };
  return { default: api, ...api };
}
