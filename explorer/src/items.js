// Items: the read feed in pages of 20, a JSON editor (open, edit, save, create, delete) and the
// upload of a JSON file holding an array of items. Every operation shows its request charge.
import { request, requestWithRetry, partitionKeyOf } from './api.js';
import { h, clear, fmtRU, showError, actionButton, jsonText } from './ui.js';

const PAGE = 20;

export function mount(el, ctx) {
  const itemPath = (id) => ['dbs', ctx.db, 'colls', ctx.coll, 'docs', id];
  const docsPath = ['dbs', ctx.db, 'colls', ctx.coll, 'docs'];
  const pkHeader = (v) => ({ 'x-ms-documentdb-partitionkey': JSON.stringify(v) });

  // ---- the list ----
  const tbody = h('tbody');
  const listInfo = h('span', { class: 'muted small', 'data-testid': 'items-info' });
  const listErr = h('div');
  let continuation = null;
  let listCharge = 0;
  let count = 0;
  const more = actionButton(
    'Load more',
    { 'data-testid': 'items-more', hidden: true },
    () => continuation && loadPage(),
    (e) => showError(listErr, e),
  );

  async function loadPage(reset) {
    if (reset) {
      continuation = null;
      listCharge = 0;
      count = 0;
      clear(tbody);
    }
    clear(listErr);
    const headers = { 'x-ms-max-item-count': String(PAGE) };
    if (continuation) headers['x-ms-continuation'] = continuation;
    const r = await request('GET', docsPath, { headers });
    continuation = r.headers.get('x-ms-continuation');
    listCharge += r.charge;
    for (const doc of r.json.Documents || []) {
      count++;
      tbody.append(
        h(
          'tr',
          { class: 'clickable', 'data-testid': 'item-row', 'data-id': doc.id, onclick: () => open(doc) },
          h('td', null, doc.id),
          h('td', { class: 'muted' }, JSON.stringify(partitionKeyOf(doc, ctx.def.partitionKey)).slice(1, -1)),
        ),
      );
    }
    more.hidden = !continuation;
    listInfo.textContent = `${count} item${count === 1 ? '' : 's'}${continuation ? ' (more)' : ''} · read feed ${fmtRU(listCharge)} RU (last page ${fmtRU(r.charge)} RU)`;
  }

  // ---- the editor ----
  let current = null; // {id, pk} of the item open, null for a new one
  const editor = h('textarea', { id: 'item-editor', 'data-testid': 'item-editor', spellcheck: 'false', rows: 22 });
  const status = h('div', { class: 'status', 'data-testid': 'item-status' });
  const title = h('h3', { 'data-testid': 'item-editor-title' }, 'New item');
  const delBtn = actionButton(
    'Delete',
    { class: 'danger', 'data-testid': 'item-delete', disabled: true },
    del,
    fail,
    () => !current,
  );

  function say(text, charge) {
    clear(
      status,
      h('span', { class: 'ok' }, text),
      charge !== undefined
        ? h('span', { class: 'charge', 'data-testid': 'item-charge' }, ` · ${fmtRU(charge)} RU`)
        : null,
    );
    status.dataset.charge = charge !== undefined ? String(charge) : '';
  }
  function fail(e) {
    showError(status, e, 'item-error');
    status.dataset.charge = e.charge !== undefined ? String(e.charge) : '';
  }

  function newItem() {
    current = null;
    title.textContent = 'New item';
    delBtn.disabled = true;
    const tmpl = { id: crypto.randomUUID ? crypto.randomUUID().slice(0, 8) : String(Date.now()) };
    for (const p of ctx.def.partitionKey?.paths || []) {
      const name = p.split('/').filter(Boolean)[0]?.replace(/"/g, '');
      if (name && name !== 'id') tmpl[name] = '';
    }
    editor.value = jsonText(tmpl);
    clear(status);
  }

  // A point read, so the editor shows the latest version and the read's charge.
  async function open(doc) {
    const pk = partitionKeyOf(doc, ctx.def.partitionKey);
    try {
      const r = await request('GET', itemPath(doc.id), { headers: pkHeader(pk) });
      current = { id: doc.id, pk };
      title.textContent = 'Item ' + doc.id;
      delBtn.disabled = false;
      editor.value = jsonText(r.json);
      say('read', r.charge);
    } catch (e) {
      fail(e);
    }
  }

  // The text goes to the server as typed: invalid JSON is for the server to refuse, so the
  // page shows its message. The partition key header comes from the text when it parses.
  function parsed() {
    try {
      return JSON.parse(editor.value);
    } catch {
      return undefined;
    }
  }

  async function save() {
    if (!current) return create();
    const r = await request('PUT', itemPath(current.id), {
      body: editor.value,
      headers: { ...pkHeader(current.pk), 'content-type': 'application/json' },
    });
    editor.value = jsonText(r.json);
    say('saved', r.charge);
  }

  async function create() {
    const doc = parsed();
    const pk = doc && typeof doc === 'object' ? partitionKeyOf(doc, ctx.def.partitionKey) : [{}];
    const r = await request('POST', docsPath, {
      body: editor.value,
      headers: { ...pkHeader(pk), 'content-type': 'application/json' },
    });
    current = { id: r.json.id, pk };
    title.textContent = 'Item ' + r.json.id;
    delBtn.disabled = false;
    editor.value = jsonText(r.json);
    say('created', r.charge);
    await loadPage(true);
  }

  async function del() {
    if (!current) return;
    const r = await request('DELETE', itemPath(current.id), { headers: pkHeader(current.pk) });
    const id = current.id;
    newItem();
    say(`deleted ${id}`, r.charge);
    await loadPage(true);
  }

  // ---- upload ----
  const file = h('input', { type: 'file', accept: '.json,application/json', 'data-testid': 'upload-file' });
  const report = h('div', { class: 'status', 'data-testid': 'upload-report' });
  file.addEventListener('change', async () => {
    const f = file.files[0];
    if (!f) return;
    clear(report, 'uploading…');
    try {
      await upload(JSON.parse(await f.text()));
    } catch (e) {
      showError(report, e, 'upload-error');
    }
    file.value = '';
  });

  async function upload(data) {
    const docs = Array.isArray(data) ? data : [data];
    let ok = 0;
    let charge = 0;
    const failures = [];
    let next = 0;
    // A few requests at a time; 429s are waited out as an SDK would.
    async function worker() {
      while (next < docs.length) {
        const i = next++;
        const doc = docs[i];
        try {
          const r = await requestWithRetry('POST', docsPath, {
            body: doc,
            headers: pkHeader(partitionKeyOf(doc, ctx.def.partitionKey)),
            quiet: true,
          });
          ok++;
          charge += r.charge;
        } catch (e) {
          charge += e.charge || 0;
          failures.push({ i, id: doc && doc.id, message: e.message });
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(8, docs.length) }, worker));
    report.dataset.ok = String(ok);
    report.dataset.failed = String(failures.length);
    report.dataset.charge = String(charge);
    clear(
      report,
      h(
        'span',
        { class: failures.length ? 'bad' : 'ok' },
        `${ok} created, ${failures.length} failed · ${fmtRU(charge)} RU`,
      ),
      failures.length
        ? h(
            'ul',
            { class: 'small' },
            failures
              .slice(0, 10)
              .map((f) => h('li', null, `#${f.i}${f.id !== undefined ? ' (' + f.id + ')' : ''}: ${f.message}`)),
          )
        : null,
    );
    await loadPage(true);
  }

  clear(
    el,
    h(
      'div',
      { class: 'split' },
      h(
        'section',
        { class: 'card list' },
        h(
          'div',
          { class: 'row between' },
          h('h3', null, 'Items'),
          actionButton(
            'Refresh',
            { 'data-testid': 'items-refresh' },
            () => loadPage(true),
            (e) => showError(listErr, e),
          ),
        ),
        listInfo,
        listErr,
        h(
          'table',
          { class: 'items', 'data-testid': 'items-table' },
          h('thead', null, h('tr', null, h('th', null, 'id'), h('th', null, 'partition key'))),
          tbody,
        ),
        more,
        h('div', { class: 'upload' }, h('label', null, 'Upload a JSON file (an array of items) ', file), report),
      ),
      h(
        'section',
        { class: 'card editor' },
        h(
          'div',
          { class: 'row between' },
          title,
          h(
            'div',
            { class: 'row' },
            h('button', { type: 'button', 'data-testid': 'item-new', onclick: newItem }, 'New'),
            actionButton('Save', { class: 'primary', 'data-testid': 'item-save' }, save, fail),
            actionButton('Save as new', { 'data-testid': 'item-create' }, create, fail),
            delBtn,
          ),
        ),
        editor,
        status,
      ),
    ),
  );
  newItem();
  loadPage(true).catch((e) => showError(listErr, e));
}
