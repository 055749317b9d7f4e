// The blocks the --html pages are made of: a figure (a stat box, a plot with its caption, a
// note where a plot has nothing to draw) and a table. Every value goes in escaped.

import { escapeHtml } from './svg-chart.js';

/** A headline figure: its key and exact value as data attributes, shown as `shown`. */
export function stat(key, label, value, shown, bad = false) {
  return `<div class="stat${bad ? ' bad' : ''}" data-key="${key}" data-value="${escapeHtml(value)}"><span class="label">${escapeHtml(label)}</span><span class="value">${escapeHtml(shown)}</span></div>`;
}

export function figure(caption, note, svg, className = '') {
  return `<figure${className ? ` class="${className}"` : ''}><figcaption>${escapeHtml(caption)}${note ? ` <small>${escapeHtml(note)}</small>` : ''}</figcaption>${svg}</figure>`;
}

/** In place of a plot with nothing to draw: why, with the plot's id. */
export const empty = (id, caption, why) => `<figure><figcaption>${escapeHtml(caption)}</figcaption><p class="note" id="${escapeHtml(id)}" data-empty="1">${escapeHtml(why)}</p></figure>`;

/** A table of `rows` (arrays of cells): numbers right-aligned; a cell { value, className } is classed. */
export function table(columns, rows, id) {
  const cell = (v, tag) => {
    const { value, className } = v !== null && typeof v === 'object' ? v : { value: v, className: typeof v === 'number' ? 'num' : '' };
    return `<${tag}${className ? ` class="${className}"` : ''}>${escapeHtml(value)}</${tag}>`;
  };
  const head = `<tr>${columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr>`;
  const body = rows.map((row) => `<tr>${row.map((v) => cell(v, 'td')).join('')}</tr>`).join('');
  return `<table${id ? ` id="${escapeHtml(id)}"` : ''}>${head}${body}</table>`;
}

/** A table of settings: a row per [name, value], the value as code. */
export function settingsTable(rows) {
  const body = rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td><code>${escapeHtml(v ?? '')}</code></td></tr>`).join('');
  return `<table class="settings">${body}</table>`;
}
