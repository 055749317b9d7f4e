// k6's web dashboard (--out web-dashboard[=QUERY], K6_WEB_DASHBOARD=true and its
// K6_WEB_DASHBOARD_* settings), taken as loadtest run's own: its page is --dashboard's (the run
// live, each second, then its report), its exported report --html's. What cannot be honored so is
// refused in one line.

import { parseDuration } from '../script/scenarios/duration.js';

const KEYS = new Set(['port', 'host', 'period', 'open', 'report', 'export', 'record', 'tag', 'tags']);

function portOf(text, what) {
  if (!/^[+-]?\d+$/.test(String(text).trim())) throw new Error(`${what}: '${text}' is not a whole number`);
  const port = Number(text);
  if (port > 65535) throw new Error(`${what}: '${text}' is not a port, 0 to 65535 (or -1: no page, the report only)`);
  return port;
}

/**
 * The settings, as k6's getopts makes them: its defaults, the variables (`env(name)`), then the
 * query after `web-dashboard=`. Returns { port (-1: no page), periodSeconds, export (a path or '') }.
 */
export function webDashboardConfig(query, env) {
  const c = { port: 5665, host: '', period: '10s', open: false, export: '', record: '', tags: ['group'] };
  const v = (name) => env(`K6_WEB_DASHBOARD_${name}`);
  if (v('PORT') !== undefined) c.port = portOf(v('PORT'), 'K6_WEB_DASHBOARD_PORT');
  if (v('HOST') !== undefined) c.host = v('HOST');
  if (v('EXPORT') !== undefined) c.export = v('EXPORT');
  else if (v('REPORT') !== undefined) c.export = v('REPORT');
  if (v('RECORD') !== undefined) c.record = v('RECORD');
  if (v('PERIOD') !== undefined) c.period = v('PERIOD');
  if (v('OPEN') === 'true') c.open = true;
  if (v('TAGS') !== undefined) c.tags = v('TAGS').split(',');
  const q = new URLSearchParams(query || '');
  for (const key of q.keys()) if (!KEYS.has(key)) throw new Error(`unknown query parameter: ${key}`);
  if (q.get('port')) c.port = portOf(q.get('port'), 'port');
  if (q.get('host')) c.host = q.get('host');
  if (q.get('export')) c.export = q.get('export');
  else if (q.get('report')) c.export = q.get('report');
  if (q.get('record')) c.record = q.get('record');
  if (q.get('period')) c.period = q.get('period');
  if (q.getAll('tag').length > 0) c.tags = q.getAll('tag');
  if (q.has('open') && (q.get('open') === '' || q.get('open') === 'true')) c.open = true;
  return checked(c);
}

function checked(c) {
  const ms = parseDuration(c.period, 'the period');
  // The page's figures are the run's seconds: a period is a whole number of them.
  if (!(ms >= 1000) || ms % 1000 !== 0) throw new Error(`period '${c.period}' is not supported here: a whole number of seconds, 1s or more`);
  if (!['', '127.0.0.1', 'localhost'].includes(c.host)) throw new Error(`host '${c.host}' is not supported here: the page is served on 127.0.0.1 only`);
  if (c.open) throw new Error('open is not supported here: no browser is started (the page\'s address is said on stderr)');
  if (c.record !== '') throw new Error('record is not supported here: --out json=FILE keeps every sample');
  if (c.tags.length !== 1 || c.tags[0] !== 'group') throw new Error(`tags '${c.tags.join(',')}' is not supported here: the page shows each group's figures (tags=group, the default)`);
  return { port: c.port, periodSeconds: ms / 1000, export: c.export };
}
