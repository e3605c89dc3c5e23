// The query view: editor, parameters, optional partition key, paged results (JSON and table)
// with each request's cost and fan-out. A cross-partition query that needs the SDK's pipeline
// (400/1004) is run once per physical partition, so the fan-out an SDK would do is visible.
import { request, listPkRanges, newActivityId, ApiError } from './api.js';
import { h, clear, showError, actionButton, jsonText } from './ui.js';
import { pageMetrics, pagesTable, drawFanout, recentTable } from './fanout.js';
import { resultsTable, perRangeTable } from './results.js';

// Editor state survives switching tabs (not reloads).
const saved = new Map();

export async function mount(el, ctx) {
  const key = `${ctx.db}/${ctx.coll}`;
  const st = saved.get(key) || { text: 'SELECT * FROM c', params: [], pk: '', max: 100 };
  saved.set(key, st);
  const docsPath = ['dbs', ctx.db, 'colls', ctx.coll, 'docs'];

  const text = h('textarea', {
    id: 'query-text',
    'data-testid': 'query-text',
    rows: 5,
    spellcheck: 'false',
    value: st.text,
  });
  const paramRows = h('div', { class: 'params', 'data-testid': 'params' });
  const pkInput = h('input', {
    'data-testid': 'query-pk',
    placeholder: 'none: cross-partition',
    value: st.pk,
    title: 'JSON ("p1", 42, ["a","b"]) or plain text',
  });
  const maxInput = h('input', {
    'data-testid': 'query-max',
    type: 'number',
    min: 1,
    value: st.max,
    style: 'width:6em',
  });
  const errSlot = h('div', { 'data-testid': 'query-error-slot' });
  const note = h('div', { 'data-testid': 'query-note' });
  const fanoutEl = h('div', { class: 'fanout' });
  const pagesEl = h('div', { class: 'scroll-x' });
  const resultsEl = h('div', { class: 'results' });
  const perRangeEl = h('div', { 'data-testid': 'per-range' });
  const recentEl = h('div', { class: 'scroll-x' });
  let mode = 'table';

  function addParam(name = '@', value = '') {
    const n = h('input', { 'data-testid': 'param-name', value: name, style: 'width:9em' });
    const v = h('input', {
      'data-testid': 'param-value',
      value,
      placeholder: 'JSON value: 1, "x", [1,2]',
      class: 'grow',
    });
    const row = h(
      'div',
      { class: 'row param' },
      n,
      v,
      h('button', { type: 'button', title: 'remove', onclick: () => row.remove() }, '×'),
    );
    paramRows.append(row);
  }
  for (const p of st.params) addParam(p.name, p.value);

  // Parameter values are JSON; text that is not JSON is taken as a string (what one means by x).
  const asJson = (s) => {
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  };

  let ranges = [];
  let run = null; // {body, headers, pages[], rows[], continuation, perRange}

  function readForm() {
    st.text = text.value;
    st.params = [...paramRows.querySelectorAll('.param')].map((r) => ({
      name: r.children[0].value.trim(),
      value: r.children[1].value,
    }));
    st.pk = pkInput.value.trim();
    st.max = Number(maxInput.value) || 100;
    const headers = {
      'x-ms-documentdb-isquery': 'True',
      'content-type': 'application/query+json',
      'x-ms-documentdb-query-enablecrosspartition': 'True',
      'x-ms-documentdb-populatequerymetrics': 'True',
      'x-ms-cosmos-populateindexmetrics': 'True',
      'x-ms-max-item-count': String(st.max),
      'x-ms-cosmos-correlated-activityid': newActivityId(),
    };
    if (st.pk) {
      const v = asJson(st.pk);
      const multi = (ctx.def.partitionKey?.paths || []).length > 1;
      headers['x-ms-documentdb-partitionkey'] = JSON.stringify(multi && Array.isArray(v) ? v : [v]);
    }
    const body = {
      query: st.text,
      parameters: st.params.filter((p) => p.name).map((p) => ({ name: p.name, value: asJson(p.value) })),
    };
    return { body, headers };
  }

  async function runQuery() {
    clear(errSlot);
    clear(note);
    clear(perRangeEl);
    const { body, headers } = readForm();
    run = { body, headers, pages: [], rows: [], continuation: null, perRange: null };
    render();
    try {
      await nextPage();
    } catch (e) {
      if (e instanceof ApiError && e.status === 400 && e.substatus === 1004) await fanOut(e);
      else throw e;
    } finally {
      refreshRecent();
    }
  }

  async function nextPage() {
    const headers = { ...run.headers };
    if (run.continuation) headers['x-ms-continuation'] = run.continuation;
    const r = await request('POST', docsPath, { headers, body: run.body });
    run.continuation = r.headers.get('x-ms-continuation');
    run.pages.push(pageMetrics(r.headers, `page ${run.pages.length + 1}`));
    run.rows.push(...(r.json.Documents || []));
    render();
  }

  // 400/1004: the gateway will not merge ORDER BY / aggregates / DISTINCT / GROUP BY across
  // partitions. Ask each physical partition on its own (every page of it), as an SDK does.
  async function fanOut(planErr) {
    const rs = ranges.length ? ranges : (ranges = await listPkRanges(ctx.db, ctx.coll));
    clear(
      note,
      h(
        'p',
        { class: 'note', 'data-testid': 'fanout-note' },
        `The gateway answered 400/1004: this query needs the SDK's cross-partition pipeline (ORDER BY, aggregates, DISTINCT or GROUP BY). So it ran once per physical partition below (${rs.length} requests or more); an SDK merges these per-partition results into one answer.`,
      ),
    );
    run.pages.push({
      label: 'query plan (400/1004)',
      charge: planErr.headers.get('x-ms-request-charge') || '0',
      scanned: null,
      returned: null,
      partitions: planErr.headers.get('x-cosmolite-physical-partitions'),
      rangeIds: '',
      narrowed: null,
      indexUtil: null,
      queryMetrics: [],
    });
    run.perRange = [];
    for (const range of rs) {
      const part = { id: range.id, charge: 0, rows: [], error: null };
      run.perRange.push(part);
      let cont = null;
      for (let page = 1; page <= 50; page++) {
        const headers = { ...run.headers, 'x-ms-documentdb-partitionkeyrangeid': range.id };
        if (cont) headers['x-ms-continuation'] = cont;
        try {
          const r = await request('POST', docsPath, { headers, body: run.body });
          part.charge += r.charge;
          part.rows.push(...(r.json.Documents || []));
          run.pages.push(pageMetrics(r.headers, `range ${range.id} · page ${page}`));
          cont = r.headers.get('x-ms-continuation');
        } catch (e) {
          part.error = e;
          part.charge += e.charge || 0;
          break;
        }
        if (!cont) break;
      }
      run.rows.push(...part.rows);
      render();
    }
  }

  function renderPerRange() {
    if (!run || !run.perRange) return clear(perRangeEl);
    clear(perRangeEl, h('h3', null, 'Per physical partition'), perRangeTable(run.perRange, run.rows.length));
  }

  function renderResults() {
    if (!run) return clear(resultsEl, h('p', { class: 'muted' }, 'Run a query.'));
    const n = run.rows.length;
    const info = h(
      'span',
      { class: 'muted small', 'data-testid': 'result-count' },
      `${n} result${n === 1 ? '' : 's'}${run.continuation ? ' so far (more pages)' : ''}`,
    );
    const view =
      mode === 'json'
        ? h('pre', { class: 'json', 'data-testid': 'results-json' }, jsonText(run.rows))
        : resultsTable(run.rows);
    clear(resultsEl, info, h('div', { class: 'scroll-x results-body' }, view));
  }

  function render() {
    nextBtn.disabled = !(run && run.continuation);
    if (!run) return renderResults();
    clear(pagesEl, run.pages.length ? pagesTable(run.pages) : null);
    drawFanout(fanoutEl, ranges, run.pages);
    renderPerRange();
    renderResults();
  }

  async function refreshRecent() {
    try {
      const r = await request('GET', ['_cosmolite', 'queries'], { admin: true, quiet: true });
      const mine = (r.json.queries || []).filter((q) => q.container === `dbs/${ctx.db}/colls/${ctx.coll}`).slice(0, 15);
      clear(
        recentEl,
        mine.length ? recentTable(mine) : h('p', { class: 'muted' }, 'No queries on this container yet.'),
      );
    } catch (e) {
      showError(recentEl, e, 'recent-error');
    }
  }

  const onErr = (e) => showError(errSlot, e, 'query-error');
  const runBtn = actionButton('Run', { class: 'primary', 'data-testid': 'query-run' }, runQuery, onErr);
  const nextBtn = actionButton(
    'Next page',
    { 'data-testid': 'query-next', disabled: true },
    async () => {
      if (!run || !run.continuation) return;
      clear(errSlot);
      try {
        await nextPage();
      } finally {
        refreshRecent();
      }
    },
    onErr,
    () => !(run && run.continuation),
  );
  text.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') runBtn.click();
  });
  const tabBtn = (m, label) =>
    h(
      'button',
      {
        type: 'button',
        class: 'seg' + (mode === m ? ' active' : ''),
        'data-testid': 'results-' + m + '-tab',
        onclick: (e) => {
          mode = m;
          for (const b of e.target.parentNode.children) b.classList.toggle('active', b === e.target);
          renderResults();
        },
      },
      label,
    );

  clear(
    el,
    h(
      'section',
      { class: 'card' },
      text,
      h(
        'div',
        { class: 'row' },
        h('span', { class: 'small muted' }, 'parameters'),
        h('button', { type: 'button', 'data-testid': 'param-add', onclick: () => addParam() }, '+ parameter'),
      ),
      paramRows,
      h(
        'div',
        { class: 'row' },
        h('label', { class: 'inline' }, 'partition key ', pkInput),
        h('label', { class: 'inline' }, 'max items per page ', maxInput),
        runBtn,
        nextBtn,
        h('span', { class: 'small muted' }, 'Ctrl+Enter runs'),
      ),
      errSlot,
      note,
    ),
    h(
      'section',
      { class: 'card' },
      h('h3', null, 'Fan-out: physical partitions reached'),
      fanoutEl,
      pagesEl,
      perRangeEl,
    ),
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'row between' },
        h('h3', null, 'Results'),
        h('div', { class: 'segs' }, tabBtn('table', 'Table'), tabBtn('json', 'JSON')),
      ),
      resultsEl,
    ),
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'row between' },
        h('h3', null, 'Recent queries on this container (server log)'),
        h('button', { type: 'button', 'data-testid': 'recent-refresh', onclick: refreshRecent }, 'Refresh'),
      ),
      recentEl,
    ),
  );
  render();
  try {
    ranges = await listPkRanges(ctx.db, ctx.coll);
  } catch (e) {
    showError(fanoutEl, e);
  }
  drawFanout(fanoutEl, ranges, run ? run.pages : []);
  refreshRecent();
}
