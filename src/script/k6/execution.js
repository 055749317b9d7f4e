// k6/execution: where the VU, its scenario and the test stand.

import { consolidatedOptions } from '../scenarios/scenarios.js';
import { thrownGoError } from './host-error.js';
import { META } from '../scenarios/system-tags.js';

// As k6's: what each part says outside the iteration that has it (GoErrors). The scenario is an
// iteration's; the VU and the test's options are not there in the init code; the instance's
// figures are there in setup() and the iterations only.
const NO_SCENARIO = 'getting scenario information outside of the VU context is not supported';
const NO_VU = 'getting VU information in the init context is not supported';
const NO_OPTIONS = 'getting test options in the init context is not supported';
const NO_INSTANCE = 'getting instance information in the init context is not supported';

export function executionModule(vu) {
  const api = { vu: vuInfo(vu), scenario: scenarioInfo(vu), instance: instanceInfo(vu), test: testInfo(vu) };
  return { default: api, ...api };
}

const scenarioOf = (vu) => {
  if (vu.scenario === null) throw thrownGoError(NO_SCENARIO);
  return vu.scenario;
};
const inVU = (vu) => {
  if (!vu.initDone) throw thrownGoError(NO_VU);
};
const instanceFigures = (vu) => {
  if (!vu.initDone || vu.pastRun) throw thrownGoError(NO_INSTANCE);
  return vu.shared;
};

function vuInfo(vu) {
  const tags = tagsProxy(vu, vu.userTags, '', tagValue);
  const metrics = { tags, metadata: tagsProxy(vu, vu.userMeta, META, metadataValue) };
  return {
    get idInTest() {
      inVU(vu);
      return vu.id;
    },
    get idInInstance() {
      inVU(vu);
      return vu.id;
    },
    // 0 in setup() and teardown(), as k6's.
    get iterationInInstance() {
      inVU(vu);
      return Math.max(0, vu.iterationInInstance);
    },
    get iterationInScenario() {
      inVU(vu);
      return Math.max(0, vu.iterationInScenario);
    },
    get tags() {
      inVU(vu);
      return tags;
    },
    get metrics() {
      inVU(vu);
      return metrics;
    },
  };
}

// exec.vu.tags reads the VU's tags as its samples have them now (options.tags, the scenario's,
// the group), as k6's does, and writes the VU's own (vu.userTags): a change makes its tags anew.
// exec.vu.metrics.metadata is the same of its metadata (`prefix`: META, their keys' in a tags
// object): k6's vu and iter where the run keeps them, and the script's own (vu.userMeta).
function tagsProxy(vu, own, prefix, valueOf) {
  const changed = (result) => (vu.userTagsVersion++, result);
  const current = (key) => {
    if (typeof key !== 'string' || key[0] === META) return undefined;
    const now = vu.currentTags();
    return Object.hasOwn(now, prefix + key) ? now[prefix + key] : undefined;
  };
  const metadata = prefix === META;
  return new Proxy(own, {
    // What is not a tag is the object's own (its prototype's methods), as in k6.
    get: (target, key) => current(key) ?? Reflect.get(target, key),
    has: (_target, key) => current(key) !== undefined,
    ownKeys: () => Object.keys(vu.currentTags()).filter((k) => (k[0] === META) === metadata).map((k) => k.slice(prefix.length)),
    getOwnPropertyDescriptor: (_target, key) => {
      const value = current(key);
      return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
    },
    set: (target, key, value) => changed(Reflect.set(target, key, valueOf(key, value))),
    deleteProperty: (target, key) => changed(Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, d) => changed(Reflect.defineProperty(target, key, 'value' in d ? { ...d, value: valueOf(key, d.value) } : d)),
  });
}

function scenarioInfo(vu) {
  const shared = vu.shared;
  return {
    get name() {
      return scenarioOf(vu).name;
    },
    get executor() {
      return scenarioOf(vu).executor;
    },
    get startTime() {
      return scenarioOf(vu).startedAt;
    },
    get progress() {
      return scenarioOf(vu).progress();
    },
    get iterationInInstance() {
      scenarioOf(vu);
      return vu.scenarioIteration;
    },
    // With --cores, unique across the children: theirs interleave.
    get iterationInTest() {
      const s = scenarioOf(vu);
      const seg = shared.segment;
      if (!seg) return vu.scenarioIteration;
      return s.iterationOffset !== undefined ? s.iterationOffset + vu.scenarioIteration : vu.scenarioIteration * seg.count + seg.index;
    },
  };
}

function instanceInfo(vu) {
  const shared = vu.shared;
  return {
    get vusActive() {
      return instanceFigures(vu).vusActive;
    },
    get vusInitialized() {
      return instanceFigures(vu).vusInitialized;
    },
    get iterationsCompleted() {
      return instanceFigures(vu).iterationsCompleted;
    },
    get iterationsInterrupted() {
      return instanceFigures(vu).iterationsInterrupted;
    },
    get currentTestRunDuration() {
      return instanceFigures(vu).testStartedAt ? performance.now() - shared.testStartedAt : 0;
    },
  };
}

function testInfo(vu) {
  const shared = vu.shared;
  let consolidated = null;
  let consolidatedFrom = null;
  return {
    // As k6 consolidated them (the shortcuts made a scenario), made once the options are known.
    get options() {
      if (!vu.initDone) throw thrownGoError(NO_OPTIONS);
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
  };
}

// A tag's value as k6 takes it (common.ApplyCustomUserTag): a string, a number or a boolean, as
// its text; anything else is a TypeError.
function tagValue(key, value) {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`invalid value for metric tag '${String(key)}': only String, Boolean and Number types are accepted as a metric tag values`);
}

function metadataValue(key, value) {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`invalid value for metric metadata '${String(key)}': only String, Boolean and Number types are accepted as a metric metadata value`);
}
