// Compiled (not run) by test/types.test.js against types/index.d.ts, through the package's own
// name so that package.json's "exports" types condition is what resolves it.
import { loadTest, startServer, mergeResults, VERSION } from 'loadtest';
import type { LoadTestJson, LoadTestOptions, LoadTestResult, SeriesEntry, TestServer } from 'loadtest';

async function main(): Promise<void> {
  const server: TestServer = await startServer({ port: 0, host: '127.0.0.1', quiet: true });
  const sized = await startServer({ port: 0, quiet: true, size: 1024, impl: 'node', cores: 2 });
  const shares: number[] = (sized.processes || []).map((p) => p.requests);
  console.log(sized.impl, shares);
  await sized.close();
  const options: LoadTestOptions = {
    url: `http://127.0.0.1:${server.port}/`,
    maxRequests: 100,
    concurrency: 10,
    agentKeepAlive: true,
    pipelining: 4,
    http2: false,
    headers: ['accept:text/plain'],
    body: (index) => ({ index }),
    thresholds: ['p99<200ms'],
    shard: '1/2',
    startAt: Date.now() + 1000,
    statusCallback(error, r) {
      if (error) console.error(r.requestIndex, r.statusCode, error.code);
    },
  };
  const result: LoadTestResult = await loadTest(options);
  result.show(true);
  const p99: number = result.percentiles['99.9'];
  const seconds: SeriesEntry[] = result.series;
  const counts: number[] = seconds.map((s) => s.buckets.length + s.p99Ms + s.connections);
  const doc: LoadTestJson = result.toJSON();
  const unit: 'us' = doc.latencyHistogram.unit;
  const merged = mergeResults([doc, JSON.parse(JSON.stringify(result)) as LoadTestJson]);
  const failed = (merged.thresholds ?? []).filter((t) => !t.passed).map((t) => `${t.metric} ${t.op} ${t.limit}${t.unit}`);
  const reason: string | null = merged.abortReason;
  loadTest({ url: 'http://127.0.0.1:1/' }, (error, r) => console.log(error?.message, r?.totalErrors));
  // Both requestGenerator forms; as a union of two signatures, an inline portable one types its index.
  await loadTest({ urls: 'pages.txt', maxRequests: 3, agentKeepAlive: true }); // the URL from its first line
  await loadTest({ url: 'http://127.0.0.1:1/', indexParamLiteral: 'ID', requestGenerator: (index: number) => ({ path: `/${index}` }) });
  const clients: number = (await loadTest({
    url: 'http://127.0.0.1:1/',
    requestGenerator(params, options, client, callback) {
      options.headers['content-type'] = 'application/json';
      const request = client(options, callback);
      request.setHeader('x-url', params.url);
      request.write(JSON.stringify({ id: options.requestIndex }));
      return request;
    },
  })).clients;
  console.log(VERSION, clients, p99, counts, unit, failed, reason, server.requests, result.errorCodes['500']);
  await server.close();
  const legacy: TestServer = startServer({ port: 0, body: { hi: 'there' }, shouldErrorCustom: (req) => req.body === 'x' }, (error) => {
    if (error) console.error(error.message);
    else legacy.close((closeError) => console.log(legacy.port, closeError));
  });
}

main();
