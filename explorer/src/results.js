// Query results as tables: the rows of a query (columns = the union of top-level keys; scalars,
// as SELECT VALUE returns them, in one "value" column) and the per-range results of a fan-out.
import { h, jsonText } from './ui.js';

const cellText = (v) => (v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const isObject = (r) => r !== null && typeof r === 'object' && !Array.isArray(r);

export function resultsTable(rows) {
  const cols = [];
  const seen = new Set();
  let scalars = false;
  for (const r of rows) {
    if (!isObject(r)) scalars = true;
    else for (const k of Object.keys(r)) if (!seen.has(k)) (seen.add(k), cols.push(k));
  }
  return h(
    'table',
    { class: 'results-table', 'data-testid': 'results-table' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        scalars ? h('th', null, 'value') : null,
        cols.map((c) => h('th', null, c)),
      ),
    ),
    h(
      'tbody',
      null,
      rows.map((r) =>
        h(
          'tr',
          null,
          scalars ? h('td', null, isObject(r) ? '' : cellText(r)) : null,
          cols.map((c) => h('td', null, isObject(r) ? cellText(r[c]) : '')),
        ),
      ),
    ),
  );
}

// parts: [{id, charge, rows, error}] — one per physical partition the query was sent to.
export function perRangeTable(parts, totalRows) {
  const total = parts.reduce((s, p) => s + p.charge, 0);
  return h(
    'table',
    { class: 'per-range' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['range', 'RU', 'rows', 'results'].map((x) => h('th', null, x)),
      ),
    ),
    h(
      'tbody',
      null,
      parts.map((p) =>
        h(
          'tr',
          { 'data-testid': 'range-result', 'data-range-id': p.id, 'data-charge': p.charge },
          h('td', null, p.id),
          h('td', { class: 'num' }, p.charge.toFixed(2)),
          h('td', { class: 'num' }, p.rows.length),
          h(
            'td',
            null,
            p.error
              ? h('span', { class: 'bad' }, p.error.message)
              : h('details', null, h('summary', null, 'JSON'), h('pre', null, jsonText(p.rows))),
          ),
        ),
      ),
      h(
        'tr',
        { class: 'total' },
        h('td', null, 'total of the ranges'),
        h('td', { class: 'num', 'data-testid': 'per-range-total' }, total.toFixed(2)),
        h('td', { class: 'num' }, totalRows),
        h('td', null, ''),
      ),
    ),
  );
}
