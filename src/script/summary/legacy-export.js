// --summary-export: k6's legacy shape, each metric's values flat, thresholds by source (written
// by loadtest run and by --on's merge of its shards).

export function legacyExport(data) {
  const metrics = {};
  for (const [name, m] of Object.entries(data.metrics)) {
    const v = { ...m.values };
    if (m.type === 'rate') {
      v.value = v.rate;
      delete v.rate;
    }
    if (m.thresholds) v.thresholds = Object.fromEntries(Object.entries(m.thresholds).map(([k, t]) => [k, !t.ok]));
    metrics[name] = v;
  }
  const out = { root_group: byName(data.root_group), metrics };
  // As k6: setup()'s data as the VUs got it (null too); none without setup() or a value.
  if (data.setup_data !== undefined) out.setup_data = data.setup_data;
  return out;
}

// The legacy export's groups and checks are objects keyed by name, not lists.
function byName(g) {
  return { ...g, groups: Object.fromEntries(g.groups.map((x) => [x.name, byName(x)])), checks: Object.fromEntries(g.checks.map((c) => [c.name, c])) };
}
