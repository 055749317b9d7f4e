// k6/execution: where the VU, its scenario and the test stand.

import { consolidatedOptions } from '../scenarios.js';

export function executionModule(vu) {
  const shared = vu.shared;
  // exec.vu.tags is the VU's own tags object; a change to it makes the VU's tags anew.
  const changed = (result) => (vu.userTagsVersion++, result);
  const tags = new Proxy(vu.userTags, {
    set: (target, key, value) => changed(Reflect.set(target, key, value)),
    deleteProperty: (target, key) => changed(Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, d) => changed(Reflect.defineProperty(target, key, d)),
  });
  let consolidated = null;
  let consolidatedFrom = null;
  const api = {
    vu: {
      get idInTest() {
        return vu.id;
      },
      get idInInstance() {
        return vu.id;
      },
      get iterationInInstance() {
        return vu.iterationInInstance;
      },
      get iterationInScenario() {
        return vu.iterationInScenario;
      },
      tags,
      metrics: { tags, metadata: {} },
    },
    scenario: {
      get name() {
        return vu.scenario ? vu.scenario.name : '';
      },
      get executor() {
        return vu.scenario ? vu.scenario.executor : '';
      },
      get startTime() {
        return vu.scenario ? vu.scenario.startedAt : 0;
      },
      get progress() {
        return vu.scenario ? vu.scenario.progress() : 0;
      },
      get iterationInInstance() {
        return vu.scenarioIteration;
      },
      // With --cores, unique across the children: theirs interleave.
      get iterationInTest() {
        const s = vu.scenario;
        const seg = shared.segment;
        if (!seg || !s) return vu.scenarioIteration;
        return s.iterationOffset !== undefined ? s.iterationOffset + vu.scenarioIteration : vu.scenarioIteration * seg.count + seg.index;
      },
    },
    instance: {
      get vusActive() {
        return shared.vusActive;
      },
      get vusInitialized() {
        return shared.vusInitialized;
      },
      get iterationsCompleted() {
        return shared.iterationsCompleted;
      },
      get iterationsInterrupted() {
        return shared.iterationsInterrupted;
      },
      get currentTestRunDuration() {
        return shared.testStartedAt ? performance.now() - shared.testStartedAt : 0;
      },
    },
    test: {
      // As k6 consolidated them (the shortcuts made a scenario), made once the options are known.
      get options() {
        if (consolidated === null || consolidatedFrom !== shared.options) {
          consolidatedFrom = shared.options;
          consolidated = consolidatedOptions(shared.options);
        }
        return consolidated;
      },
      abort(message) {
        shared.abort(message === undefined ? 'test aborted' : `test aborted: ${message}`);
        throw vu.interruption();
      },
      // As k6 v1: the test is failed, the run goes on, and ends with exit code 110.
      fail(message) {
        if (!vu.initDone) throw new Error('execution.test.fail() called outside of VU context');
        shared.state.warn(message === undefined || message === null ? 'test marked as failed' : `test marked as failed: ${message}`);
        shared.state.markedFailed = true;
      },
    },
  };
  return { default: api, ...api };
}
