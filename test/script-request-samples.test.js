// A scripted request's samples (src/script/metrics/run-state.js request()) and a full iteration's
// (iterationEnd()): where nothing reads their tags they go straight into the sinks; where
// something does (an output, the breakdown, a sub-metric), through the registry, each matched
// against the sub-metrics. Both ways must leave every metric and sub-metric as the other does,
// for any mix of answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunState } from '../src/script/metrics/run-state.js';
import { Registry } from '../src/script/metrics/metrics.js';
import { DEFAULT_NAMES, SystemTags } from '../src/script/scenarios/system-tags.js';
import { mulberry32 } from './random.js';

// The tags k6/http gives a request's samples when nothing reads more (request-tags.js).
const tagsOf = (expected) => (expected === true ? { expected_response: 'true' } : expected === false ? { expected_response: 'false' } : {});

function play(state, random, n) {
  for (let i = 0; i < n; i++) {
    const r = random();
    const expected = r < 0.6 ? true : r < 0.85 ? false : null;
    const ms = () => (random() < 0.2 ? 0 : random() * 10 ** (random() * 4 - 1));
    const t = { blocked: ms(), connecting: ms(), tls_handshaking: ms(), sending: ms(), waiting: ms(), receiving: ms() };
    t.duration = t.sending + t.waiting + t.receiving;
    const error = random() < 0.05 ? 'dial: i/o timeout' : '';
    state.request(t, error ? 0 : 200, expected, 100, tagsOf(expected), error);
  }
}

function pair(systemTags) {
  const straight = new RunState(new Registry());
  const matched = new RunState(new Registry());
  if (systemTags) {
    straight.useSystemTags(systemTags);
    matched.useSystemTags(systemTags);
  }
  matched.registry.out = () => {}; // an output reads the tags: every sample through the registry
  straight.warn = matched.warn = () => {};
  return { straight, matched };
}

test('request samples: straight into the sinks as through the registry, for 100 seeded random runs', () => {
  for (let seed = 1; seed <= 100; seed++) {
    const { straight, matched } = pair(null);
    assert.equal(straight.requestTagsRead(), false);
    assert.equal(matched.requestTagsRead(), true);
    const n = 1 + (seed % 60);
    play(straight, mulberry32(seed), n);
    play(matched, mulberry32(seed), n);
    assert.deepEqual(straight.registry.toJSON(), matched.registry.toJSON());
    const sub = straight.duration.subs[0].sink;
    assert.equal(sub.count, matched.duration.subs[0].sink.count);
    assert.ok(sub.count > 0 || n < 5, `seed ${seed}: expected responses counted apart`);
  }
});

test('request samples: without expected_response among the system tags, no sub-metric of k6\'s own either way', () => {
  const tags = new SystemTags(DEFAULT_NAMES.filter((x) => x !== 'expected_response'));
  for (let seed = 1; seed <= 20; seed++) {
    const { straight, matched } = pair(tags);
    assert.equal(straight.duration.subs.length, 0);
    assert.equal(straight.requestTagsRead(), false);
    play(straight, mulberry32(seed), 30);
    play(matched, mulberry32(seed), 30);
    assert.deepEqual(straight.registry.toJSON(), matched.registry.toJSON());
  }
});

test('request samples: a sub-metric made after the first requests sends the next through the registry', () => {
  const { straight } = pair(null);
  play(straight, mulberry32(7), 10);
  const sub = straight.registry.get('http_req_waiting', 'trend', true).sub('expected_response:true');
  assert.equal(straight.requestTagsRead(), true);
  play(straight, mulberry32(8), 10);
  assert.ok(sub.sink.count > 0 && sub.sink.count <= 10);
  assert.equal(straight.httpReqs.sink.count, 20);
});

// A full iteration's samples (RunState iterationEnd()): the same two ways, the VU's tags asked
// for only where something reads them.
function playIterations(state, random, n) {
  let asked = 0;
  const tags = { scenario: 'default' };
  const vu = { bytesSent: 0, bytesReceived: 0, currentTags: () => (asked++, tags) };
  for (let i = 0; i < n; i++) {
    vu.bytesSent = Math.floor(random() * 2000);
    vu.bytesReceived = random() < 0.1 ? 0 : Math.floor(random() * 1e6);
    state.iterationEnd(vu, random() * 10 ** (random() * 5 - 1), random() < 0.7 ? 'default' : 'other');
    assert.equal(vu.bytesSent + vu.bytesReceived, 0, 'the VU\'s bytes are counted once');
  }
  return asked;
}

test('iteration samples: straight into the sinks as through the registry, for 100 seeded random runs', () => {
  for (let seed = 1; seed <= 100; seed++) {
    const { straight, matched } = pair(null);
    const n = 1 + (seed % 40);
    assert.equal(playIterations(straight, mulberry32(seed), n), 0);
    assert.equal(playIterations(matched, mulberry32(seed), n), n);
    assert.deepEqual(straight.registry.toJSON(), matched.registry.toJSON());
    assert.deepEqual(straight.iterationsByScenario, matched.iterationsByScenario);
    assert.equal(straight.iterations.sink.count, n);
  }
});

test('iteration samples: a sub-metric of an iteration\'s metric made after the first iterations sends the next through the registry', () => {
  const { straight } = pair(null);
  playIterations(straight, mulberry32(3), 5);
  const sub = straight.registry.get('data_sent', 'counter').sub('scenario:default');
  assert.equal(playIterations(straight, mulberry32(4), 5), 5);
  assert.equal(sub.sink.count, 5);
  assert.equal(straight.iterations.sink.count, 10);
  assert.equal(straight.requestTagsRead(), false, 'a request\'s samples are not read for it');
});
