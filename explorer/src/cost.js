// Cost: what this container's workload would cost per month as provisioned, autoscale and
// serverless throughput, from GET /_cosmolite/cost-report (the RU each physical partition consumed
// in each second, priced at the list prices the server states; docs/cost-report.md). Drawn as
// three bars; refreshed every 5 s while open.
import { request } from './api.js';
import { h, clear, fmtInt, fmtRU, showError, actionButton } from './ui.js';

const POLL_MS = 5000;
const HOURS = [
  ['3600', 'a real hour (3,600 s)'],
  ['60', 'a minute'],
  ['10', '10 seconds'],
  ['1', 'one second'],
];
const MODELS = [
  ['provisioned', 'provisioned (manual)', (e) => `${fmtInt(e.provisioned.ruPerSecond)} RU/s, every hour`],
  [
    'autoscale',
    'autoscale',
    (e) =>
      `max ${fmtInt(e.autoscale.maxRuPerSecond)} RU/s, billed ${fmtRU(e.autoscale.averageBilledRuPerSecond)} RU/s on average at 1.5× the rate`,
  ],
  ['serverless', 'serverless', (e) => `${fmtInt(e.serverless.monthlyRequestUnits)} RU a month`],
];

// Remembered across tab switches: the compression a trainer picked.
let hourSeconds = '3600';

export function mount(el, ctx) {
  const name = `dbs/${ctx.db}/colls/${ctx.coll}`;
  const select = h(
    'select',
    { 'data-testid': 'cost-hour' },
    HOURS.map(([v, label]) => h('option', { value: v, selected: v === hourSeconds }, label)),
  );
  const facts = h('div', { class: 'facts', 'data-testid': 'cost-facts' });
  const bars = h('div', { 'data-testid': 'cost-bars' });
  const prices = h('p', { class: 'small muted', 'data-testid': 'cost-prices' });
  const errSlot = h('div');
  let timer = null;
  let stopped = false;

  select.addEventListener('change', () => {
    hourSeconds = select.value;
    refresh();
  });
  const reset = actionButton(
    'start a new measurement',
    { 'data-testid': 'cost-reset', title: 'forget the RU every partition consumed so far (all containers)' },
    async () => {
      await request('DELETE', ['_cosmolite', 'cost-report'], { admin: true });
      await refresh();
    },
    (e) => showError(errSlot, e, 'cost-error'),
  );

  clear(
    el,
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'row between' },
        h('h3', null, 'Monthly cost of this workload'),
        h('div', { class: 'row' }, h('label', { class: 'inline' }, 'bill as one hour ', select), reset),
      ),
      h(
        'p',
        { class: 'small muted' },
        'From the RU each physical partition consumed in each second since the first request (or the last new measurement). ' +
          'Provisioned: the hottest partition’s busiest second × the partitions (the RU/s are split evenly), 400 RU/s at least. ' +
          'Autoscale: each hour at what each partition scaled to, never below a tenth of the maximum. Serverless: the RU consumed. ' +
          'A run shorter than a month repeats; billing every few seconds as an hour plays a day in a minute.',
      ),
      errSlot,
      facts,
      bars,
      prices,
    ),
  );

  async function refresh() {
    clearTimeout(timer);
    try {
      const r = await request('GET', ['_cosmolite', 'cost-report'], {
        admin: true,
        quiet: true,
        query: { hourSeconds },
      });
      if (stopped) return;
      clear(errSlot);
      const all = r.json.containers || [];
      const entry =
        all.find((e) => e.container === name) || all.find((e) => e.sharedThroughput && e.database === `dbs/${ctx.db}`);
      render(entry, r.json.listPrices);
    } catch (e) {
      if (!stopped) showError(errSlot, e, 'cost-error');
    } finally {
      if (!stopped) timer = setTimeout(refresh, POLL_MS);
    }
  }

  function render(entry, listPrices) {
    const p = listPrices;
    prices.textContent =
      `List prices (${p.currency}, as of ${p.asOf}): $${p.provisionedPer100RuPerSecondPerHour} (provisioned) and ` +
      `$${p.autoscalePer100RuPerSecondPerHour} (autoscale) per 100 RU/s per hour, $${p.serverlessPerMillionRu} per ` +
      `million RU (serverless), $${p.storagePerGbMonth} per GB-month; change them with --list-prices.`;
    if (!entry || !entry.observed || !entry.observed.requestUnits) {
      clear(facts);
      clear(bars, h('p', { class: 'muted', 'data-testid': 'cost-empty' }, 'No request units consumed yet.'));
      return;
    }
    const o = entry.observed;
    clear(
      facts,
      entry.sharedThroughput ? h('span', null, 'throughput shared by the database: the whole database') : '',
      h('span', null, h('b', null, fmtInt(o.seconds)), ' s observed, ', h('b', null, fmtInt(o.billingHours)), ' billing hours'),
      h('span', null, h('b', { 'data-testid': 'cost-ru' }, fmtRU(o.requestUnits)), ' RU'),
      h('span', null, 'average ', h('b', null, fmtRU(o.averageRuPerSecond)), ' RU/s'),
      h('span', null, 'peak ', h('b', null, fmtRU(o.peakRuPerSecond)), ' RU/s'),
      h(
        'span',
        null,
        'hottest partition ',
        h('b', null, fmtRU(o.hottestPartitionPeakRuPerSecond)),
        ` RU/s of ${o.physicalPartitions} physical partition${o.physicalPartitions === 1 ? '' : 's'}`,
      ),
    );
    const max = Math.max(...MODELS.map(([k]) => entry[k].monthlyUsd), 0.01);
    clear(
      bars,
      h(
        'table',
        { class: 'cost' },
        h(
          'tbody',
          null,
          MODELS.map(([k, label, detail]) => {
            const usd = entry[k].monthlyUsd;
            const cheapest = entry.cheapest === k;
            return h(
              'tr',
              { 'data-testid': 'cost-row', 'data-model': k, 'data-usd': usd, 'data-cheapest': String(cheapest) },
              h('th', null, label),
              h(
                'td',
                { class: 'cost-bar' },
                h(
                  'div',
                  { class: 'bar wide' },
                  h('div', { class: 'fill' + (cheapest ? ' best' : ''), style: { width: `${(100 * usd) / max}%` } }),
                ),
              ),
              h('td', { class: 'num' }, h('b', null, `$${usd.toFixed(2)}`), ' / month'),
              h('td', { class: 'small' }, detail(entry), cheapest ? h('b', { class: 'cheapest' }, ' cheapest') : ''),
            );
          }),
        ),
      ),
      h(
        'p',
        { class: 'small' },
        `Autoscale against provisioned: ${entry.autoscaleVersusProvisioned >= 0 ? '+' : '−'}` +
          `${Math.abs(Math.round(entry.autoscaleVersusProvisioned * 100))}%. Storage: ` +
          `${entry.storage.gb} GB (billed ${entry.storage.billedGb} GB), $${entry.storage.monthlyUsd.toFixed(2)} a month under all three.`,
      ),
    );
  }

  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
