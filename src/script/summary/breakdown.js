// k6 v1's full summary shows each group and each scenario apart (--summary-mode full): every
// sample is also added to the sinks of its scenario (when not 'default') and of its group, within
// that scenario or at the top. A group's sinks hold only its own samples, not its sub-groups',
// as in k6; group and scenario keep the order their first sample came in. Setup and teardown's
// samples (group '::setup', '::teardown') count only in the totals.

import { Sink } from '../metrics/metrics.js';

class Part {
  constructor() {
    this.sinks = new Map(); // metric name → { type, isTime, sink }
    this.checks = new Map(); // check name → { name, passes, fails }, in the order they came
    this.groups = new Map(); // group name → Part
  }
  add(metric, value, tags) {
    let s = this.sinks.get(metric.name);
    if (s === undefined) {
      s = { type: metric.type, isTime: metric.isTime, sink: new Sink(metric.type) };
      this.sinks.set(metric.name, s);
    }
    s.sink.add(value);
    if (metric.name === 'checks' && tags.check !== undefined) this.check(tags.check, value !== 0 ? 1 : 0, value !== 0 ? 0 : 1);
  }
  check(name, passes, fails) {
    let c = this.checks.get(name);
    if (c === undefined) {
      c = { name, passes: 0, fails: 0 };
      this.checks.set(name, c);
    }
    c.passes += passes;
    c.fails += fails;
  }
  group(name) {
    let g = this.groups.get(name);
    if (g === undefined) {
      g = new Part();
      this.groups.set(name, g);
    }
    return g;
  }
  toJSON() {
    return {
      sinks: [...this.sinks].map(([name, s]) => [name, s.type, s.isTime, s.sink.toJSON()]),
      checks: [...this.checks.values()].map((c) => [c.name, c.passes, c.fails]),
      groups: [...this.groups].map(([name, g]) => [name, g.toJSON()]),
    };
  }
  merge(j) {
    for (const [name, type, isTime, sink] of j.sinks) {
      let s = this.sinks.get(name);
      if (s === undefined) {
        s = { type, isTime, sink: new Sink(type) };
        this.sinks.set(name, s);
      }
      s.sink.merge(sink);
    }
    // Checks counted in the sinks' merge above are not counted again: only their names and tallies.
    for (const [name, passes, fails] of j.checks) this.check(name, passes, fails);
    for (const [name, g] of j.groups) this.group(name).merge(g);
  }
}

export class Breakdown {
  constructor() {
    this.root = new Part(); // its groups only: the totals are the registry's
    this.scenarios = new Map(); // scenario name → Part
  }
  add(metric, value, tags) {
    let part = this.root;
    const scenario = tags.scenario;
    if (scenario !== undefined && scenario !== 'default') {
      part = this.scenarios.get(scenario);
      if (part === undefined) {
        part = new Part();
        this.scenarios.set(scenario, part);
      }
      part.add(metric, value, tags);
    }
    const group = tags.group;
    // k6 counts a VU's bytes once an iteration, outside its groups: a group has no network lines.
    if (!group || metric.name === 'data_sent' || metric.name === 'data_received') return;
    const path = group.startsWith('::') ? group.slice(2) : group;
    if (path === 'setup' || path === 'teardown') return;
    for (const name of path.split('::')) part = part.group(name);
    part.add(metric, value, tags);
  }
  toJSON() {
    return { root: this.root.toJSON(), scenarios: [...this.scenarios].map(([name, p]) => [name, p.toJSON()]) };
  }
  merge(j) {
    this.root.merge(j.root);
    for (const [name, p] of j.scenarios) {
      if (!this.scenarios.has(name)) this.scenarios.set(name, new Part());
      this.scenarios.get(name).merge(p);
    }
  }
}
