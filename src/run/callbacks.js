// The API's per-request callbacks (loadtest 8's statusCallback and contentInspector): the slow
// path of a run, taken only when a user asked for one. Each response becomes loadtest 8's result
// object, whose headers and body are decoded only when read.

import { decodeChunks, parseHeaders } from '../http1/captured.js';
import { codeName } from '../grpc/status.js';

/** A response, shown to the contentInspector and then the statusCallback, and counted as they leave it. */
export function reportResponse(run, conn, status, elapsedMs) {
  const stats = run.stats;
  const result = resultFor(run, conn, elapsedMs);
  result.statusCode = status;
  // Strings only when read: the chunks stay with this result (the parser takes new arrays).
  const headChunks = conn.headChunks;
  const bodyChunks = conn.bodyChunks;
  let body = null;
  let headers = null;
  Object.defineProperty(result, 'body', {
    get: () => (body === null ? (body = decodeChunks(bodyChunks)) : body),
    set: (v) => (body = v),
    enumerable: true,
  });
  Object.defineProperty(result, 'headers', {
    get: () => (headers === null ? (headers = parseHeaders(decodeChunks(headChunks))) : headers),
    set: (v) => (headers = v),
    enumerable: true,
  });
  if (run.contentInspector !== null) {
    try {
      run.contentInspector(result);
    } catch (e) {
      // As with statusCallback: a throw here would leave this response counted as completed
      // without a status and its connection stalled. Count it as the inspector left it.
      if (!run.inspectorFailed) {
        run.inspectorFailed = true;
        console.error(`loadtest: contentInspector threw: ${e && e.message}`);
      }
    }
  }
  let error = null;
  if (result.customError !== undefined && result.customError !== null && result.customError !== false) {
    const key = result.customErrorCode !== undefined ? `${status}:${result.customErrorCode}` : String(status);
    stats.customErrors[key] = (stats.customErrors[key] || 0) + 1;
    stats.httpErrors++;
    error = new Error(`Custom error: ${result.customError}`);
  } else {
    stats.statusCounts[status]++;
    if (status >= run.errorStatus) {
      stats.httpErrors++;
      error = new Error(run.config.grpc ? `gRPC status ${codeName(status)}` : `Status code ${status}`);
    }
  }
  if (run.statusCallback !== null) callUser(run, error, result);
}

/** A request that got no response, shown to the statusCallback. */
export function reportFailure(run, conn, reason) {
  const result = resultFor(run, conn, performance.now() - conn.startTime);
  result.statusCode = null;
  const error = new Error(`Request failed: ${reason}`);
  error.code = reason;
  callUser(run, error, result);
}

function resultFor(run, conn, elapsedMs) {
  const fixed = run.fixed !== null;
  return {
    host: run.config.hostHeader,
    path: fixed ? run.config.path : conn.path,
    method: fixed ? run.config.method : conn.method,
    statusCode: 0,
    requestElapsed: elapsedMs,
    requestIndex: conn.index,
    instanceIndex: run.config.instanceIndex,
  };
}

function callUser(run, error, result) {
  try {
    run.statusCallback(error, result);
  } catch (e) {
    // A throwing callback must not wreck the accounting of the run; report it once.
    if (!run.callbackFailed) {
      run.callbackFailed = true;
      console.error(`loadtest: statusCallback threw: ${e && e.message}`);
    }
  }
}
