// Change feed: a live tail of the container from "now". The first request says If-None-Match: *
// (start from now), each next one the ETag of the previous answer; 304 means nothing new.
// Polls every second while tailing; new and changed items are shown newest first with _lsn.
import { request } from './api.js';
import { h, clear, fmtRU, showError, jsonText } from './ui.js';

const POLL_MS = 1000;
const KEEP = 200;

export function mount(el, ctx) {
  const docsPath = ['dbs', ctx.db, 'colls', ctx.coll, 'docs'];
  const list = h('div', { class: 'feed', 'data-testid': 'cf-list' });
  const stat = h('span', { class: 'small muted', 'data-testid': 'cf-status' }, 'not tailing');
  const errSlot = h('div');
  let etag = null;
  let timer = null;
  let running = false;
  let polls = 0;
  let charge = 0;
  let seen = 0;

  const startBtn = h('button', { type: 'button', class: 'primary', 'data-testid': 'cf-start' }, 'Start tailing');
  const stopBtn = h('button', { type: 'button', 'data-testid': 'cf-stop', disabled: true }, 'Stop');
  startBtn.addEventListener('click', start);
  stopBtn.addEventListener('click', stop);

  function start() {
    etag = null;
    running = true;
    polls = charge = seen = 0;
    clear(errSlot);
    clear(
      list,
      h(
        'p',
        { class: 'muted', 'data-testid': 'cf-empty' },
        'Waiting for changes… create or edit items (in the Items tab or with an SDK).',
      ),
    );
    startBtn.disabled = true;
    stopBtn.disabled = false;
    tick();
  }

  function stop() {
    running = false;
    clearTimeout(timer);
    startBtn.disabled = false;
    stopBtn.disabled = true;
    stat.textContent = `stopped after ${polls} polls · ${fmtRU(charge)} RU · ${seen} changes`;
  }

  async function tick() {
    if (!running) return;
    try {
      // Drain: a 200 may be one page of several, so ask again at once until 304.
      for (let i = 0; i < 20 && running; i++) {
        const headers = { 'A-IM': 'Incremental feed', 'If-None-Match': etag || '*', 'x-ms-max-item-count': '100' };
        const r = await request('GET', docsPath, { headers, quiet: true });
        polls++;
        charge += r.charge;
        if (!running) return;
        etag = r.headers.get('etag') || etag;
        if (r.status === 304) break;
        const docs = r.json?.Documents || [];
        if (!docs.length) break;
        show(docs);
      }
      stat.textContent = `tailing since ${etag ? 'lsn ' + etag.replace(/"/g, '') : 'now'} · ${polls} polls · ${fmtRU(charge)} RU · ${seen} changes`;
    } catch (e) {
      showError(errSlot, e, 'cf-error');
    }
    if (running) timer = setTimeout(tick, POLL_MS);
  }

  function show(docs) {
    const empty = list.querySelector('[data-testid="cf-empty"]');
    if (empty) empty.remove();
    // Within a page the feed is in LSN order per range; newest first on screen.
    const sorted = [...docs].sort((a, b) => (b._lsn || 0) - (a._lsn || 0));
    const at = new Date().toLocaleTimeString();
    const frag = sorted.map((d) =>
      h(
        'details',
        { class: 'feed-item', 'data-testid': 'cf-item', 'data-id': d.id, 'data-lsn': d._lsn },
        h(
          'summary',
          null,
          h('b', null, d.id),
          h('span', { class: 'muted small' }, `  _lsn ${d._lsn} · _ts ${d._ts} · seen ${at}`),
        ),
        h('pre', null, jsonText(d)),
      ),
    );
    list.prepend(...frag);
    seen += docs.length;
    while (list.children.length > KEEP) list.lastChild.remove();
  }

  clear(
    el,
    h(
      'section',
      { class: 'card' },
      h('div', { class: 'row' }, startBtn, stopBtn, stat),
      h(
        'p',
        { class: 'small muted' },
        'Latest-version change feed (A-IM: Incremental feed) from now: each changed item once, in its latest version; deletes do not appear in this mode.',
      ),
      errSlot,
      list,
    ),
  );

  return () => {
    running = false;
    clearTimeout(timer);
  };
}
