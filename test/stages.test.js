// Stages: the open model's rate and the closed model's connections ramped over time; the
// schedule stays exact while the rate changes, on one core or several.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTest } from '../src/index.js';
import { parseStages, StageSchedule, connectionsAt, targetAt } from '../src/run/stages.js';
import { rawServer, ok, spawnScript } from './servers.js';

test('parseStages: text and objects, with units; clear errors', () => {
  assert.deepEqual(parseStages('10s:100, 30s:1000,500ms:0'), [{ duration: 10, target: 100 }, { duration: 30, target: 1000 }, { duration: 0.5, target: 0 }]);
  assert.deepEqual(parseStages('2m:5,1.5:7'), [{ duration: 120, target: 5 }, { duration: 1.5, target: 7 }]);
  assert.deepEqual(parseStages([{ duration: 2, target: 10 }, { duration: '1h', target: '3' }]), [{ duration: 2, target: 10 }, { duration: 3600, target: 3 }]);
  assert.equal(parseStages(undefined), null);
  assert.throws(() => parseStages('10s'), /stages: '10s' must be duration:target/);
  assert.throws(() => parseStages('0s:10'), /stage 1's duration must be a time above zero/);
  assert.throws(() => parseStages('1s:10,2x:5'), /stage 2's duration/);
  assert.throws(() => parseStages('1s:-1'), /stage 1's target must be a number, zero or more/);
  assert.throws(() => parseStages([]), /at least one stage/);
});

test('StageSchedule: the ramp asks for its integral, and times invert it', () => {
  const ramp = new StageSchedule(parseStages('2s:1000'));
  assert.equal(ramp.total, 1000);
  assert.equal(ramp.countBefore(2000), 1000);
  assert.equal(ramp.countBefore(1000), 250); // the first second of a ramp from 0 holds a quarter
  let last = -1;
  for (let n = 0; n < 1000; n++) {
    const t = ramp.timeOf(n);
    assert.ok(t > last || (n === 0 && t === 0), `request ${n} at ${t}`);
    assert.equal(ramp.countBy(t), n + 1, `countBy at request ${n}'s time`);
    last = t;
  }
  assert.equal(ramp.timeOf(1001), Infinity);
  // Up, flat, down: 0→100 over 1 s (50), 100 for 2 s (200), 100→0 over 1 s (50).
  const trip = new StageSchedule(parseStages('1s:100,2s:100,1s:0'));
  assert.equal(trip.total, 300);
  assert.ok(Math.abs(trip.timeOf(50) - 1000) < 1e-6);
  assert.ok(Math.abs(trip.timeOf(150) - 2000) < 1e-6);
  assert.ok(Math.abs(trip.timeOf(250) - 3000) < 1e-6);
  assert.equal(trip.countBefore(4000), 300);
});

test('StageSchedule: three processes together send exactly the one schedule', () => {
  const stages = parseStages('1s:300,1s:50,500ms:400');
  const one = new StageSchedule(stages);
  const times = [];
  for (let i = 0; i < 3; i++) {
    const part = new StageSchedule(stages, 3, i);
    for (let n = 0; part.timeOf(n) < Infinity; n++) times.push(part.timeOf(n));
  }
  // Each share's count before the end is the number of its requests in the schedule.
  const shares = [0, 1, 2].map((i) => new StageSchedule(stages, 3, i).countBefore(2500));
  assert.equal(shares[0] + shares[1] + shares[2], times.length);
  times.sort((a, b) => a - b);
  assert.equal(times.length, Math.ceil(one.total));
  for (let k = 0; k < times.length; k++) assert.ok(Math.abs(times[k] - one.timeOf(k)) < 1e-6, `request ${k}`);
});

test('connectionsAt: round(target) of the whole run, shared out by stride and offset', () => {
  const stages = parseStages('10s:10');
  assert.equal(targetAt(stages, 5), 5);
  assert.equal(connectionsAt(stages, 5), 5);
  assert.equal(connectionsAt(stages, 0), 0);
  assert.equal(connectionsAt(stages, 20), 10);
  for (const t of [0.4, 3, 5.5, 7, 10]) {
    const shares = [0, 1, 2].map((i) => connectionsAt(stages, t, 3, i));
    assert.equal(shares[0] + shares[1] + shares[2], connectionsAt(stages, t), `at ${t} s`);
  }
});

async function counting() {
  return rawServer(({ socket }) => socket.write(ok()));
}

test('--stages 2s:1000: about 1000 requests, exactly as scheduled, rising second by second', async () => {
  const server = await counting();
  try {
    const result = await loadTest({ url: server.url, stages: '2s:1000', concurrency: 20, agentKeepAlive: true, quiet: true });
    // Every request of the schedule was sent or counted as not sent.
    assert.equal(result.requestsSent + result.notSent, 1000);
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
    // The server has read every answered request, and perhaps some still in flight at the stop.
    assert.ok(server.requests >= result.totalRequests && server.requests <= result.totalRequests + result.inFlight);
    const [first, second] = result.series;
    assert.equal(first.targetRequests, 250);
    assert.equal(second.targetRequests, 750);
    assert.ok(second.sent > 2 * first.sent, `${first.sent} then ${second.sent}`);
    assert.equal(result.maxSeconds, 2);
    assert.deepEqual(result.stages, [{ duration: 2, target: 1000 }]);
  } finally {
    await server.close();
  }
});

test('--stages on two cores sends the same schedule as on one', async () => {
  const server = await counting();
  try {
    const result = await loadTest({ url: server.url, stages: [{ duration: 1, target: 400 }, { duration: 0.5, target: 400 }], cores: 2, concurrency: 10, agentKeepAlive: true, quiet: true });
    assert.equal(result.requestsSent + result.notSent, 400);
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
    // The server has read every answered request, and perhaps some still in flight at the stop.
    assert.ok(server.requests >= result.totalRequests && server.requests <= result.totalRequests + result.inFlight);
    assert.equal(result.series[0].targetRequests, 200);
  } finally {
    await server.close();
  }
});

// The children of --cores and the shards get their start and stop as wall-clock times. Each
// read of the wall clock here costs 40 ms, as if the process lost the CPU at that moment (a
// child on a loaded machine): the schedule's length must not depend on when the clock was read.
// It did: the schedule was cut by the time between two reads, and its last requests were
// neither sent nor counted as not sent (398 of 400 under deno at a load average of 10).
test('a schedule given a start and a stop is whole however late the clock is read', async () => {
  const server = await counting();
  const wallClock = Date.now;
  Date.now = () => {
    const until = performance.now() + 40;
    while (performance.now() < until);
    return wallClock.call(Date);
  };
  try {
    const startAt = wallClock.call(Date) + 100;
    const result = await loadTest({ url: server.url, stages: '250ms:400,250ms:400', startAt, concurrency: 10, agentKeepAlive: true, quiet: true });
    assert.equal(result.requestsSent + result.notSent, 150);
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
  } finally {
    Date.now = wallClock;
    await server.close();
  }
});

test('--connection-stages: connections follow the ramp up and back down, no request lost', async () => {
  const server = await rawServer(({ socket }) => setTimeout(() => socket.write(ok()), 2));
  try {
    const result = await loadTest({ url: server.url, connectionStages: '500ms:2,1s:8,500ms:0', agentKeepAlive: true, quiet: true });
    assert.equal(result.maxSeconds, 2);
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
    // The server has read every answered request, and perhaps some still in flight at the stop.
    assert.ok(server.requests >= result.totalRequests && server.requests <= result.totalRequests + result.inFlight);
    assert.equal(result.totalErrors, 0);
    // 0 → 2 → 8 → 0: 5 at 1 s, 8 at its top, 0 at the end (targets are at each second's end).
    // The connections open, not the requests they made: a loaded machine sent 660 in the first
    // second and 654 in the second with more connections.
    assert.equal(result.series[0].targetConnections, 5);
    assert.ok(result.series[0].connections <= 5, `${result.series[0].connections} connections in the first second`);
    assert.equal(result.series[1].connections, 8);
    assert.equal(result.series.at(-1).targetConnections, 0);
    assert.equal(result.clients, 8);
  } finally {
    await server.close();
  }
});

test('--connection-stages on two cores', async () => {
  const server = await rawServer(({ socket }) => setTimeout(() => socket.write(ok()), 2));
  try {
    const result = await loadTest({ url: server.url, connectionStages: '300ms:4,700ms:4', cores: 2, agentKeepAlive: true, quiet: true });
    assert.equal(result.totalRequests + result.inFlight, result.requestsSent);
    assert.equal(result.clients, 4);
    assert.equal(result.series[0].connections, 4);
  } finally {
    await server.close();
  }
});

test('CLI: stages in the report, and bad stages are one line', async () => {
  const server = await counting();
  try {
    const run = await spawnScript('src/cli.js', ['--stages', '500ms:200', '-k', '--quiet', server.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Stages \(rps\):\s+0\.5s:200 \(ramped from 0\)/);
    assert.match(run.stdout, /Achieved rps:/);
    for (const [args, message] of [
      [['--stages', '10s'], "loadtest: --stages: '10s' must be duration:target, e.g. 10s:100"],
      [['--stages', '1s:10', '--rps', '5'], 'loadtest: --stages set the rate: leave out --rps'],
      [['--stages', '1s:10', '-t', '5'], "loadtest: the stages set the run's length: leave out -t"],
      [['--connection-stages', '1s:10', '-c', '5'], 'loadtest: --connection-stages set the connections: leave out -c'],
      [['--stages', '1s:10', '--connection-stages', '1s:10'], 'loadtest: --stages (a rate) and --connection-stages (connections): give one'],
    ]) {
      const bad = await spawnScript('src/cli.js', [...args, server.url]);
      assert.equal(bad.code, 2, args.join(' '));
      assert.equal(bad.stderr.trim(), message);
    }
  } finally {
    await server.close();
  }
});
