// Partitions: polls /_cosmolite/partitions every 2 s while open. A heatmap of the container's
// physical partitions (storage, documents, RU/s now, 429s), its largest logical partitions
// against the logical-partition cap, and RU/s over time per physical partition (uPlot), where
// RU/s is computed here from the growth of the cumulative requestUnits between two polls.
import { request } from './api.js';
import { h, clear, fmtRU, fmtInt, fmtBytes, showError } from './ui.js';

const POLL_MS = 2000;
const KEEP = 150; // points on the chart: 5 minutes at one poll every 2 s
const COLORS = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#0891b2', '#dc2626', '#65a30d', '#db2777'];
const DEFAULT_CAP = 20 * 1024 * 1024 * 1024;

const METRICS = {
  bytes: { label: 'storage', hue: 210, get: (p) => p.bytes, fmt: fmtBytes },
  documents: { label: 'documents', hue: 150, get: (p) => p.documents, fmt: fmtInt },
  rups: { label: 'RU/s now', hue: 30, get: (p) => p.rups || 0, fmt: (v) => fmtRU(v) + ' RU/s' },
  throttled: { label: '429s', hue: 0, get: (p) => p.throttledRequests, fmt: fmtInt },
};

// History per container, kept across tab switches (the poll itself stops when the view closes).
const histories = new Map();

export function mount(el, ctx) {
  const name = `dbs/${ctx.db}/colls/${ctx.coll}`;
  let hist = histories.get(name);
  if (!hist) histories.set(name, (hist = { t: [], ids: [], series: new Map(), last: new Map(), metric: 'bytes' }));

  const summary = h('div', { class: 'facts', 'data-testid': 'part-summary' });
  const select = h(
    'select',
    { 'data-testid': 'heat-metric' },
    Object.entries(METRICS).map(([k, m]) => h('option', { value: k, selected: k === hist.metric }, m.label)),
  );
  const heat = h('div', { class: 'heatmap', 'data-testid': 'heatmap' });
  const detail = h('div', { class: 'scroll-x' });
  const logical = h('div', { 'data-testid': 'logical-partitions' });
  const chartEl = h('div', { class: 'chart', 'data-testid': 'ru-chart' });
  const errSlot = h('div');
  const polled = h('span', { class: 'muted small', 'data-testid': 'part-polled' });
  let latest = null;
  let chart = null;
  let chartIds = '';
  let timer = null;
  let stopped = false;

  select.addEventListener('change', () => {
    hist.metric = select.value;
    if (latest) renderHeat(latest);
  });

  clear(
    el,
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'row between' },
        h('h3', null, 'Physical partitions'),
        h('div', { class: 'row' }, h('label', { class: 'inline' }, 'colour by ', select), polled),
      ),
      summary,
      errSlot,
      heat,
      detail,
    ),
    h(
      'section',
      { class: 'card' },
      h('h3', null, 'RU/s per physical partition'),
      h(
        'p',
        { class: 'small muted' },
        'Computed from the request units each partition consumed between two polls (every 2 s). Red markers: requests throttled (429) in that interval.',
      ),
      chartEl,
    ),
    h('section', { class: 'card' }, h('h3', null, 'Largest logical partitions'), logical),
  );

  async function poll() {
    try {
      const r = await request('GET', ['_cosmolite', 'partitions'], { admin: true, quiet: true });
      if (stopped) return;
      clear(errSlot);
      const c = (r.json.containers || []).find((x) => x.container === name);
      if (!c) {
        clear(heat, h('p', { class: 'muted' }, 'The server reports nothing for this container yet.'));
        return;
      }
      record(c);
      latest = { ...c, rateLimiting: r.json.rateLimiting, cap: r.json.logicalPartitionCapBytes || DEFAULT_CAP };
      polled.textContent = 'updated ' + new Date().toLocaleTimeString();
      renderAll(latest);
    } catch (e) {
      if (!stopped) showError(errSlot, e, 'part-error');
    } finally {
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    }
  }

  // Append one point per partition: RU/s and 429s since the previous poll (none after a gap,
  // e.g. when the view was closed: an average over minutes would mislead).
  function record(c) {
    const now = Date.now() / 1000;
    hist.t.push(now);
    for (const p of c.physicalPartitions) {
      const prev = hist.last.get(p.id);
      p.rups = null;
      p.thrDelta = 0;
      if (prev && now - prev.t < 10) {
        p.rups = Math.max(0, p.requestUnits - prev.ru) / Math.max(0.001, now - prev.t);
        p.thrDelta = Math.max(0, p.throttledRequests - prev.thr);
      }
      hist.last.set(p.id, { t: now, ru: p.requestUnits, thr: p.throttledRequests });
      if (!hist.series.has(p.id)) {
        const n = hist.t.length - 1;
        hist.series.set(p.id, { ru: new Array(n).fill(null), thr: new Array(n).fill(null), cnt: new Array(n).fill(0) });
      }
    }
    const byId = new Map(c.physicalPartitions.map((p) => [p.id, p]));
    for (const [id, s] of hist.series) {
      const p = byId.get(id);
      s.ru.push(p ? p.rups : null);
      s.thr.push(p && p.thrDelta > 0 ? p.rups || 0 : null);
      s.cnt.push(p ? p.thrDelta : 0);
    }
    if (hist.t.length > KEEP) {
      hist.t.shift();
      for (const s of hist.series.values()) (s.ru.shift(), s.thr.shift(), s.cnt.shift());
    }
    hist.ids = [...hist.series.keys()];
  }

  function renderAll(c) {
    clear(
      summary,
      h(
        'span',
        null,
        'throughput ',
        h('b', null, `${fmtInt(c.throughput)} RU/s`),
        c.autoscale ? ' (autoscale max)' : '',
        c.sharedThroughput ? ' (shared by the database)' : '',
      ),
      h('span', null, 'per physical partition ', h('b', null, `${fmtInt(c.throughputPerPartition)} RU/s`)),
      h(
        'span',
        { 'data-testid': 'part-count' },
        h('b', null, c.physicalPartitions.length),
        c.physicalPartitions.length === 1 ? ' physical partition' : ' physical partitions',
      ),
      h(
        'span',
        { class: c.rateLimiting ? '' : 'muted' },
        c.rateLimiting
          ? 'rate limiting on: over its share a partition answers 429'
          : 'rate limiting off (start with --rate-limit to get 429s)',
      ),
    );
    renderHeat(c);
    renderDetail(c);
    renderLogical(c);
    renderChart();
  }

  function renderHeat(c) {
    const m = METRICS[hist.metric];
    const max = Math.max(0, ...c.physicalPartitions.map(m.get));
    clear(
      heat,
      c.physicalPartitions.map((p) => {
        const v = m.get(p);
        const f = max > 0 ? v / max : 0;
        // Intensity by value: pale for nothing, saturated and dark for the hottest partition.
        const bg = `hsl(${m.hue} ${25 + 60 * f}% ${96 - 50 * f}%)`;
        return h(
          'div',
          {
            class: 'heat-cell',
            style: { background: bg, color: f > 0.6 ? '#fff' : '#111' },
            'data-testid': 'heat-cell',
            'data-range-id': p.id,
            'data-value': v,
            'data-documents': p.documents,
            'data-bytes': p.bytes,
            'data-ru': p.requestUnits,
            'data-throttled': p.throttledRequests,
            title: `range ${p.id} [${p.minInclusive || '""'}, ${p.maxExclusive})`,
          },
          h('div', { class: 'range-id' }, 'range ' + p.id),
          h('div', { class: 'heat-value' }, m.fmt(v)),
          h('div', { class: 'small' }, `${p.minInclusive || '00'} – ${p.maxExclusive}`),
        );
      }),
    );
  }

  function renderDetail(c) {
    const rows = c.physicalPartitions;
    clear(
      detail,
      h(
        'table',
        { class: 'parts', 'data-testid': 'part-table' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['range', 'hash range', 'documents', 'storage', 'RU consumed', 'RU/s now', '429s'].map((x) =>
              h('th', null, x),
            ),
          ),
        ),
        h(
          'tbody',
          null,
          rows.map((p) =>
            h(
              'tr',
              { 'data-range-id': p.id },
              h('td', null, p.id),
              h('td', { class: 'small' }, `${p.minInclusive || '""'} – ${p.maxExclusive}`),
              h('td', { class: 'num', 'data-testid': 'part-documents' }, fmtInt(p.documents)),
              h('td', { class: 'num' }, fmtBytes(p.bytes)),
              h('td', { class: 'num', 'data-testid': 'part-ru' }, fmtRU(p.requestUnits)),
              h('td', { class: 'num' }, p.rups === null ? '…' : fmtRU(p.rups)),
              h('td', { class: 'num' + (p.throttledRequests ? ' bad' : '') }, fmtInt(p.throttledRequests)),
            ),
          ),
        ),
      ),
    );
  }

  function renderLogical(c) {
    const all = c.physicalPartitions.flatMap((p) =>
      (p.largestLogicalPartitions || []).map((l) => ({ ...l, range: p.id })),
    );
    all.sort((a, b) => b.bytes - a.bytes);
    const top = all.slice(0, 10);
    if (!top.length) return clear(logical, h('p', { class: 'muted' }, 'No items yet.'));
    clear(
      logical,
      h(
        'p',
        { class: 'small muted' },
        `Share of the ${fmtBytes(c.cap)} a logical partition may hold (a write past it gets 403/1014).`,
      ),
      h(
        'table',
        { class: 'logical' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['partition key', 'range', 'documents', 'size', 'share of cap'].map((x) => h('th', null, x)),
          ),
        ),
        h(
          'tbody',
          null,
          top.map((l) => {
            const share = l.bytes / c.cap;
            return h(
              'tr',
              { 'data-testid': 'logical-row' },
              h('td', null, h('code', null, JSON.stringify(l.partitionKey))),
              h('td', null, l.range),
              h('td', { class: 'num' }, fmtInt(l.documents)),
              h('td', { class: 'num' }, fmtBytes(l.bytes)),
              h(
                'td',
                { class: 'share' },
                h(
                  'div',
                  { class: 'bar' },
                  h('div', {
                    class: 'fill' + (share > 0.8 ? ' hot' : ''),
                    style: { width: `${Math.min(100, share * 100)}%` },
                  }),
                ),
                h(
                  'span',
                  { class: 'small' },
                  share >= 0.001 ? (share * 100).toFixed(1) + '%' : (share * 100).toPrecision(2) + '%',
                ),
              ),
            );
          }),
        ),
      ),
    );
  }

  // One line per physical partition and, on the same scale, red points where it was throttled.
  function renderChart() {
    if (!window.uPlot)
      return clear(chartEl, h('p', { class: 'bad' }, 'uPlot did not load (vendor/uPlot.iife.min.js).'));
    const ids = hist.ids;
    const data = [hist.t, ...ids.map((id) => hist.series.get(id).ru), ...ids.map((id) => hist.series.get(id).thr)];
    const width = Math.max(300, chartEl.clientWidth || 800);
    if (chart && chartIds === ids.join(',')) {
      chart.setData(data);
      return;
    }
    if (chart) chart.destroy();
    chartIds = ids.join(',');
    const series = [
      {},
      ...ids.map((id, i) => ({
        label: 'range ' + id,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        spanGaps: false,
        value: (u, v) => (v == null ? '—' : fmtRU(v)),
      })),
      ...ids.map((id) => ({
        label: '429s ' + id,
        stroke: '#dc2626',
        fill: '#dc2626',
        paths: () => null,
        points: { show: true, size: 10, space: 0, fill: '#dc2626' },
        value: (u, v, si, i) => (i == null ? '' : String(hist.series.get(id)?.cnt[i] || 0)),
      })),
    ];
    chart = new window.uPlot(
      {
        width,
        height: 260,
        series,
        scales: {
          x: { time: true, range: (u, min, max) => [Math.min(min, max - 60), max] },
          y: { range: (u, min, max) => [0, Math.max(10, max * 1.1)] },
        },
        axes: [{}, { label: 'RU/s', size: 60 }],
        legend: { live: true },
      },
      data,
      chartEl,
    );
  }

  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
    if (chart) chart.destroy();
  };
}
