// Databases and containers: the navigation tree, the landing and database pages, and the
// container header (partition key, throughput, TTL, indexing policy) above the tabs.
import { request, listDatabases, listContainers, readContainer } from './api.js';
import { h, clear, showError, actionButton } from './ui.js';

let tree = null; // [{id, containers: [{id}]}], cached: navigation should not cost requests

export async function loadTree() {
  const dbs = await listDatabases();
  tree = await Promise.all(
    dbs.map(async (d) => ({ id: d.id, containers: (await listContainers(d.id)).map((c) => ({ id: c.id })) })),
  );
  return tree;
}

export async function renderNav(el, r, go, reload = false) {
  if (!tree || reload) {
    try {
      await loadTree();
    } catch (e) {
      showError(el, e, 'nav-error');
      return;
    }
  }
  clear(
    el,
    tree.length ? null : h('div', { class: 'muted small pad' }, 'No databases yet.'),
    h(
      'ul',
      { class: 'tree' },
      tree.map((d) =>
        h(
          'li',
          null,
          h(
            'a',
            {
              href: '#/db/' + encodeURIComponent(d.id),
              class: 'db' + (r.db === d.id && !r.coll ? ' active' : ''),
              'data-testid': 'nav-db',
              'data-db': d.id,
            },
            d.id,
          ),
          h(
            'ul',
            null,
            d.containers.map((c) =>
              h(
                'li',
                null,
                h(
                  'a',
                  {
                    href: `#/db/${encodeURIComponent(d.id)}/coll/${encodeURIComponent(c.id)}/${r.view || 'items'}`,
                    class: 'coll' + (r.db === d.id && r.coll === c.id ? ' active' : ''),
                    'data-testid': 'nav-coll',
                    'data-db': d.id,
                    'data-coll': c.id,
                  },
                  c.id,
                ),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

// A delete button that asks for a second click instead of a modal confirm().
function deleteButton(label, testid, fn, onError) {
  const b = actionButton(
    label,
    { class: 'danger', 'data-testid': testid },
    async () => {
      if (!b.dataset.armed) {
        b.dataset.armed = '1';
        b.textContent = 'click again to delete';
        setTimeout(() => {
          delete b.dataset.armed;
          b.textContent = label;
        }, 4000);
        return;
      }
      await fn();
    },
    onError,
  );
  return b;
}

function field(label, input) {
  return h('label', { class: 'field' }, h('span', null, label), input);
}

export function landingPage(main, ctx) {
  const slot = h('div');
  const id = h('input', { id: 'new-db-id', 'data-testid': 'new-db-id', placeholder: 'database id', required: true });
  const tp = h('input', {
    id: 'new-db-throughput',
    'data-testid': 'new-db-throughput',
    type: 'number',
    min: 400,
    step: 100,
    placeholder: 'none',
  });
  const form = h(
    'form',
    { class: 'card', 'data-testid': 'new-db-form' },
    h('h2', null, 'New database'),
    h(
      'div',
      { class: 'row end' },
      field('id', id),
      field('shared throughput (RU/s, optional)', tp),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'new-db-submit' }, 'Create database'),
    ),
    slot,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clear(slot);
    const headers = tp.value ? { 'x-ms-offer-throughput': String(tp.value) } : {};
    try {
      await request('POST', ['dbs'], { body: { id: id.value.trim() }, headers });
      await loadTree();
      ctx.go(id.value.trim());
    } catch (e) {
      showError(slot, e, 'new-db-error');
    }
  });
  clear(
    main,
    h(
      'div',
      { class: 'card intro' },
      h('h1', null, 'cosmolite'),
      h(
        'p',
        null,
        'A local emulator of Azure Cosmos DB (NoSQL API). Pick a container on the left: its items, queries (with their cost and fan-out), partitions, monthly cost and change feed.',
      ),
      h(
        'p',
        { class: 'small' },
        'Over HTTPS, SDKs must trust ',
        h('a', { href: 'emulator.pem' }, 'emulator.pem'),
        ' (the certificate authority of this server).',
      ),
    ),
    form,
  );
}

export async function databasePage(main, ctx) {
  const containers = await listContainers(ctx.db);
  if (!ctx.current()) return;
  const slot = h('div');
  const id = h('input', { 'data-testid': 'new-coll-id', placeholder: 'container id', required: true });
  const pk = h('input', {
    'data-testid': 'new-coll-pk',
    value: '/pk',
    placeholder: '/pk or /tenant,/user',
    required: true,
  });
  const tp = h('input', { 'data-testid': 'new-coll-throughput', type: 'number', min: 400, step: 100, value: 400 });
  const ttl = h('input', { 'data-testid': 'new-coll-ttl', type: 'number', min: -1, placeholder: 'off' });
  const form = h(
    'form',
    { class: 'card', 'data-testid': 'new-coll-form' },
    h('h2', null, 'New container'),
    h(
      'div',
      { class: 'row end' },
      field('id', id),
      field('partition key path(s)', pk),
      field('throughput (RU/s; empty: shared)', tp),
      field('default TTL (s; -1: on)', ttl),
    ),
    h('p', { class: 'small muted' }, 'Each 10,000 RU/s gives the container one more physical partition.'),
    h('button', { type: 'submit', class: 'primary', 'data-testid': 'new-coll-submit' }, 'Create container'),
    slot,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clear(slot);
    const paths = pk.value
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const body = {
      id: id.value.trim(),
      partitionKey: { paths, kind: paths.length > 1 ? 'MultiHash' : 'Hash', version: 2 },
    };
    if (ttl.value !== '') body.defaultTtl = Number(ttl.value);
    const headers = tp.value ? { 'x-ms-offer-throughput': String(tp.value) } : {};
    try {
      await request('POST', ['dbs', ctx.db, 'colls'], { body, headers });
      await loadTree();
      ctx.go(ctx.db, body.id, 'items');
    } catch (e) {
      showError(slot, e, 'new-coll-error');
    }
  });
  const errSlot = h('div');
  clear(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', null, h('span', { class: 'muted' }, 'database '), ctx.db),
      deleteButton(
        'Delete database',
        'delete-db',
        async () => {
          await request('DELETE', ['dbs', ctx.db]);
          await loadTree();
          ctx.go();
        },
        (e) => showError(errSlot, e),
      ),
    ),
    errSlot,
    h(
      'div',
      { class: 'card' },
      h('h2', null, 'Containers'),
      containers.length
        ? h(
            'ul',
            { class: 'plain' },
            containers.map((c) =>
              h(
                'li',
                null,
                h('a', { href: `#/db/${encodeURIComponent(ctx.db)}/coll/${encodeURIComponent(c.id)}/items` }, c.id),
                h('span', { class: 'muted small' }, '  partition key ' + (c.partitionKey?.paths || []).join(', ')),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'None yet.'),
    ),
    form,
  );
}

// The container's offer: its own, or (shared throughput) its database's.
async function readThroughput(def, dbRid) {
  const q = async (rid) =>
    (
      await request('POST', ['offers'], {
        quiet: true,
        headers: { 'x-ms-documentdb-isquery': 'True', 'content-type': 'application/query+json' },
        body: {
          query: 'SELECT * FROM root r WHERE r.offerResourceId = @rid',
          parameters: [{ name: '@rid', value: rid }],
        },
      })
    ).json.Offers || [];
  let offers = await q(def._rid);
  let shared = false;
  if (!offers.length && dbRid) {
    offers = await q(dbRid);
    shared = offers.length > 0;
  }
  if (!offers.length) return 'none (serverless?)';
  const c = offers[0].content || {};
  const auto = c.offerAutopilotSettings;
  const text = auto ? `autoscale, max ${auto.maxThroughput} RU/s` : `${c.offerThroughput} RU/s`;
  return shared ? `${text} (shared by the database)` : text;
}

function ttlText(def) {
  if (def.defaultTtl === undefined || def.defaultTtl === null) return 'off';
  if (def.defaultTtl === -1) return 'on (no default: items set ttl)';
  return `${def.defaultTtl} s`;
}

const TABS = [
  ['items', 'Items'],
  ['query', 'Query'],
  ['partitions', 'Partitions'],
  ['cost', 'Cost'],
  ['changefeed', 'Change feed'],
];

// Header and tabs of a container; returns the element the view renders into.
export async function containerPage(main, ctx) {
  let def;
  try {
    def = await readContainer(ctx.db, ctx.coll);
  } catch (e) {
    if (e.status === 404) {
      showError(main, e, 'page-error');
      return null;
    }
    throw e;
  }
  if (!ctx.current()) return null;
  ctx.def = def;
  const dbRid = (def._self || '').split('/')[1];
  const tpEl = h('span', { 'data-testid': 'coll-throughput' }, '…');
  readThroughput(def, dbRid).then(
    (t) => (tpEl.textContent = t),
    (e) => (tpEl.textContent = 'unknown: ' + e.message),
  );
  const pkd = def.partitionKey || {};
  const errSlot = h('div');
  const body = h('div', { id: 'view', 'data-testid': 'view-' + ctx.view });
  clear(
    main,
    h(
      'div',
      { class: 'page-head' },
      h(
        'h1',
        null,
        h('a', { href: '#/db/' + encodeURIComponent(ctx.db), class: 'muted' }, ctx.db),
        ' / ',
        h('span', { 'data-testid': 'coll-title' }, ctx.coll),
      ),
      deleteButton(
        'Delete container',
        'delete-coll',
        async () => {
          await request('DELETE', ['dbs', ctx.db, 'colls', ctx.coll]);
          await loadTree();
          ctx.go(ctx.db);
        },
        (e) => showError(errSlot, e),
      ),
    ),
    errSlot,
    h(
      'div',
      { class: 'facts', 'data-testid': 'coll-facts' },
      h(
        'span',
        null,
        'partition key ',
        h('code', { 'data-testid': 'coll-pk' }, (pkd.paths || []).join(', ')),
        h('span', { class: 'muted small' }, ` ${pkd.kind || ''} v${pkd.version || 1}`),
      ),
      h('span', null, 'throughput ', tpEl),
      h('span', null, 'default TTL ', h('span', { 'data-testid': 'coll-ttl' }, ttlText(def))),
      h(
        'details',
        { class: 'policy' },
        h('summary', null, 'indexing policy'),
        h('pre', { 'data-testid': 'coll-indexing' }, JSON.stringify(def.indexingPolicy, null, 2)),
      ),
    ),
    h(
      'div',
      { class: 'tabs', role: 'tablist' },
      TABS.map(([v, label]) =>
        h(
          'a',
          {
            href: `#/db/${encodeURIComponent(ctx.db)}/coll/${encodeURIComponent(ctx.coll)}/${v}`,
            class: 'tab' + (ctx.view === v ? ' active' : ''),
            role: 'tab',
            'data-testid': 'tab-' + v,
          },
          label,
        ),
      ),
    ),
    body,
  );
  return body;
}
