// k6/metrics: Counter, Gauge, Rate and Trend, made in the init context and added to with tags.

import { COUNTER, GAUGE, RATE, TREND } from '../metrics/metrics.js';

export function metricsModule(vu) {
  const make = (type) =>
    class {
      constructor(name, isTime = false) {
        if (vu.initDone) throw new Error(`new ${type[0].toUpperCase()}${type.slice(1)}('${name}'): metrics are made in the init context (outside the default function)`);
        this.name = name;
        const registry = vu.shared.registry;
        // The script's own (not a built-in one of the same name): the --html page lists them apart.
        const made = !registry.metrics.has(String(name));
        this.metric = registry.get(String(name), type, Boolean(isTime)); // k6: any type, any truthy value
        if (made) this.metric.custom = true;
      }
      add(value, tags) {
        let v = typeof value === 'boolean' ? Number(value) : Number(value);
        if (Number.isNaN(v)) {
          vu.warnOnce(`${this.name}: a value that is not a number (${value}) was not added`);
          return false;
        }
        if (type === RATE) v = value ? 1 : 0;
        vu.emit(this.metric, v, tags);
        return true;
      }
    };
  const api = { Counter: make(COUNTER), Gauge: make(GAUGE), Rate: make(RATE), Trend: make(TREND) };
  return { default: api, ...api };
}
