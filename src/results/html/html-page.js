// The frame of a self-contained page (the --html pages of a load run and of a scripted run,
// compare's and the live dashboard's): its policy, head and look, and its end, which embeds the
// document it was made from as JSON, so that the page is also the data.

import { escapeHtml } from './svg-chart.js';
import { VERSION } from '../../version.js';

/** The policy of a page that runs no script and loads nothing (its images are data: URLs). */
export const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The page's look, which the live dashboard (dashboard-page.js) shares. */
export const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 24px auto; max-width: 1500px; padding: 0 16px; color: #1f2937; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 8px 0; }
.url { font-family: ui-monospace, monospace; word-break: break-all; color: #374151; }
.stats { display: flex; flex-wrap: wrap; gap: 8px; margin: 16px 0; }
.stat { border: 1px solid #e5e7eb; border-radius: 6px; padding: 6px 12px; min-width: 96px; }
.stat .label { display: block; font-size: 12px; color: #6b7280; } .stat .value { font-size: 18px; font-weight: 600; }
.stat.bad .value { color: #dc2626; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px; }
figcaption { font-weight: 600; margin-bottom: 4px; } figcaption small { font-weight: 400; color: #6b7280; }
svg.chart { display: block; max-width: 100%; height: auto; font-size: 11px; }
svg .grid { stroke: #eef0f3; } svg .frame { fill: none; stroke: #9ca3af; }
svg .tick, svg .legend { fill: #4b5563; } svg .axis { fill: #374151; font-size: 12px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { padding: 3px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; } td code { word-break: break-all; }
details { border: 1px solid #e5e7eb; border-radius: 6px; padding: 6px 12px; margin: 8px 0; } summary { cursor: pointer; font-weight: 600; }
.note { color: #6b7280; } figure.aside { align-self: flex-start; max-width: 520px; } figure.aside th { white-space: nowrap; } footer { margin-top: 32px; color: #6b7280; font-size: 12px; }
`;

/**
 * A page's head, up to and with <body>: its policy, the loadtest that wrote it (`generator`), its
 * title, `extra` tags and its style. The --html pages, compare's and the live dashboard's.
 */
export function pageHead({ csp = CSP, generator = VERSION, title, extra = '', style = STYLE }) {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="loadtest ${escapeHtml(generator)}">
<title>${escapeHtml(title)}</title>
${extra}<style>${style}</style>
</head>
<body>`;
}

/**
 * The page's end: who wrote it and when (meta.generatedAt, epoch ms), and `doc` embedded as the
 * script element #loadtest-result (`what`: what the document is, in the footer's words: ours, not escaped).
 */
export function pageEnd(doc, meta, what) {
  return `<footer>Written by loadtest ${escapeHtml(VERSION)}${meta.generatedAt ? ` on ${escapeHtml(new Date(meta.generatedAt).toISOString())}` : ''}. ${what} is in this page: the script element <code>#loadtest-result</code>.</footer>
<script type="application/json" id="loadtest-result">${embedJson(doc)}</script>
</body>
</html>
`;
}

// Inside <script>, only "</script" (or "<!--") ends the element early; with every "<" escaped
// neither can occur, and JSON.parse reads \u003c back as "<".
function embedJson(doc) {
  return JSON.stringify(doc).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

// Values that give access: kept out of a page that is made to be passed around.
const SECRET_HEADERS = /^\s*(authorization|proxy-authorization|cookie|x-api-key|api-key)\s*:/i;

/** The arguments as one shell line, quoted where needed, with credentials replaced by "…". */
export function commandLine(args) {
  const out = ['loadtest'];
  for (let i = 0; i < args.length; i++) {
    let word = String(args[i]);
    const prev = i > 0 ? String(args[i - 1]) : '';
    if ((prev === '-H' || prev === '--header') && SECRET_HEADERS.test(word)) word = `${word.slice(0, word.indexOf(':') + 1)}…`;
    else if (/^--header=/.test(word) && SECRET_HEADERS.test(word.slice(9))) word = `${word.slice(0, word.indexOf(':') + 1)}…`;
    else if (prev === '-C' || prev === '--cookie') word = `${word.split('=')[0]}=…`;
    else if (/^--cookie=/.test(word)) word = `${word.split('=').slice(0, 2).join('=')}=…`;
    else word = word.replace(/^([a-z]+:\/\/[^/:@\s]*:)[^/@\s]*@/i, '$1…@');
    out.push(/^[\w@%+=:,./…-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);
  }
  return out.join(' ');
}
