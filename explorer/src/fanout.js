// What a query page cost and how far it reached: the per-request metrics read from the
// response headers, the decoded index and query metrics, and the fan-out drawing (one box per
// physical partition, lit when a request reached it).
import { h, clear, fmtRU, kvTable, table } from './ui.js';

// The headers one request answered, kept verbatim so the page shows what the server said.
export function pageMetrics(headers, label) {
  const g = (n) => headers.get(n);
  return {
    label,
    charge: g('x-ms-request-charge') || '0',
    scanned: g('x-cosmolite-documents-scanned'),
    returned: g('x-cosmolite-documents-returned'),
    partitions: g('x-cosmolite-physical-partitions'),
    rangeIds: g('x-cosmolite-partition-key-range-ids') || '',
    narrowed: g('x-cosmolite-narrowed-by-partition-key'),
    itemCount: g('x-ms-item-count'),
    indexUtil: decodeIndexUtilization(g('x-ms-cosmos-index-utilization')),
    queryMetrics: parseQueryMetrics(g('x-ms-documentdb-query-metrics')),
  };
}

// x-ms-cosmos-index-utilization is base64 of UTF-8 JSON.
export function decodeIndexUtilization(b64) {
  if (!b64) return null;
  try {
    const bin = atob(b64);
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

// "a=1;b=2" → [["a","1"],["b","2"]]
export function parseQueryMetrics(s) {
  if (!s) return [];
  return s
    .split(';')
    .filter(Boolean)
    .map((kv) => {
      const i = kv.indexOf('=');
      return i < 0 ? [kv, ''] : [kv.slice(0, i), kv.slice(i + 1)];
    });
}

function indexList(util, kind) {
  if (!util) return [];
  const single = util[kind + 'SingleIndexes'] || [];
  const composite = util[kind + 'CompositeIndexes'] || [];
  return [
    ...single.map((x) => `${x.IndexSpec}${x.FilterExpression ? ' — ' + x.FilterExpression : ''}`),
    ...composite.map((x) => `(${(x.IndexSpecs || []).join(', ')})`),
  ];
}

export function utilizedIndexes(util) {
  return indexList(util, 'Utilized');
}

function indexCell(p) {
  if (!p.indexUtil) return h('span', { class: 'muted' }, '—');
  const used = indexList(p.indexUtil, 'Utilized');
  const potential = indexList(p.indexUtil, 'Potential');
  return h(
    'div',
    { class: 'small' },
    used.length
      ? used.map((u) => h('div', { 'data-testid': 'index-used' }, u))
      : h('span', { class: 'muted' }, 'no index used'),
    potential.length ? h('div', { class: 'muted' }, 'could use: ' + potential.join('; ')) : null,
  );
}

const num = (x) => Number(x || 0);

// The per-request table with a totals row; each row opens its query metrics.
export function pagesTable(pages) {
  const tot = {
    charge: pages.reduce((s, p) => s + num(p.charge), 0),
    scanned: pages.reduce((s, p) => s + num(p.scanned), 0),
    returned: pages.reduce((s, p) => s + num(p.returned), 0),
    ranges: [...new Set(pages.flatMap((p) => (p.rangeIds ? p.rangeIds.split(',') : [])))],
  };
  const cell = (testid, v) => h('span', { 'data-testid': testid }, v === null || v === undefined ? '—' : v);
  return h(
    'table',
    { class: 'pages', 'data-testid': 'pages-table' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        [
          'request',
          'RU',
          'scanned',
          'returned',
          'physical partitions',
          'range ids',
          'narrowed by PK',
          'indexes',
          'query metrics',
        ].map((c) => h('th', null, c)),
      ),
    ),
    h(
      'tbody',
      null,
      pages.map((p, i) =>
        h(
          'tr',
          { 'data-testid': 'page-row', 'data-index': i },
          h('td', null, p.label),
          h('td', { class: 'num' }, cell('page-charge', p.charge)),
          h('td', { class: 'num' }, cell('page-scanned', p.scanned)),
          h('td', { class: 'num' }, cell('page-returned', p.returned)),
          h('td', { class: 'num' }, cell('page-partitions', p.partitions)),
          h('td', null, cell('page-ranges', p.rangeIds)),
          h('td', null, cell('page-narrowed', p.narrowed)),
          h('td', null, indexCell(p)),
          h(
            'td',
            null,
            p.queryMetrics.length
              ? h(
                  'details',
                  null,
                  h('summary', null, `${p.queryMetrics.length} metrics`),
                  kvTable(p.queryMetrics, { 'data-testid': 'query-metrics' }),
                )
              : '—',
          ),
        ),
      ),
      h(
        'tr',
        { class: 'total', 'data-testid': 'pages-total' },
        h('td', null, `total (${pages.length})`),
        h('td', { class: 'num' }, cell('total-charge', fmtRU(tot.charge))),
        h('td', { class: 'num' }, cell('total-scanned', tot.scanned)),
        h('td', { class: 'num' }, cell('total-returned', tot.returned)),
        h('td', { class: 'num' }, cell('total-partitions', tot.ranges.length)),
        h('td', null, cell('total-ranges', tot.ranges.join(','))),
        h('td', null, ''),
        h('td', null, ''),
        h('td', null, ''),
      ),
    ),
  );
}

// One box per physical partition (in hash order), lit when a request reached it; the count
// says how many requests did.
export function drawFanout(el, ranges, pages) {
  const hits = new Map();
  for (const p of pages)
    for (const id of p.rangeIds ? p.rangeIds.split(',') : []) hits.set(id, (hits.get(id) || 0) + 1);
  const reached = ranges.filter((r) => hits.has(r.id)).length;
  clear(
    el,
    h(
      'div',
      { class: 'fanout-boxes', 'data-testid': 'fanout', 'data-ranges': ranges.length, 'data-reached': reached },
      ranges.map((r) =>
        h(
          'div',
          {
            class: 'range-box' + (hits.has(r.id) ? ' hit' : ''),
            'data-testid': 'range-box',
            'data-range-id': r.id,
            title: `range ${r.id}: [${r.minInclusive || '""'}, ${r.maxExclusive})`,
          },
          h('div', { class: 'range-id' }, 'range ' + r.id),
          h('div', { class: 'range-span small' }, `${r.minInclusive || '00'} – ${r.maxExclusive}`),
          h(
            'div',
            { class: 'small' },
            hits.has(r.id) ? `${hits.get(r.id)} request${hits.get(r.id) > 1 ? 's' : ''}` : 'not reached',
          ),
        ),
      ),
    ),
    h(
      'div',
      { class: 'small muted', 'data-testid': 'fanout-summary' },
      pages.length
        ? `reached ${reached} of ${ranges.length} physical partitions`
        : `${ranges.length} physical partition${ranges.length === 1 ? '' : 's'}`,
    ),
  );
}

// Recent queries from the server's log (/_cosmolite/queries), for one container.
export function recentTable(queries) {
  return table(
    [
      { label: 'when', get: (q) => new Date(q.lastSeenMs).toLocaleTimeString() },
      { label: 'query', get: (q) => h('code', { class: 'q' }, q.query) },
      { label: 'RU', class: 'num', get: (q) => fmtRU(q.requestCharge) },
      { label: 'requests', class: 'num', get: (q) => q.requests },
      { label: 'partitions', class: 'num', get: (q) => q.physicalPartitions },
      { label: 'range ids', get: (q) => (q.partitionKeyRangeIds || []).join(',') },
      { label: 'narrowed', get: (q) => String(q.narrowedByPartitionKey) },
      { label: 'query plan', get: (q) => (q.usedQueryPlan ? 'yes' : 'no') },
      { label: 'scanned / returned', class: 'num', get: (q) => `${q.documentsScanned} / ${q.documentsReturned}` },
    ],
    queries,
    { class: 'recent', 'data-testid': 'recent-queries' },
  );
}
