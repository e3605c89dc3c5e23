// Small DOM helpers: element building without innerHTML (so no data is ever parsed as HTML),
// number formatting, and the one way errors are shown.
import { ApiError } from './api.js';

// h('div', {class: 'x', 'data-testid': 'y', onclick: fn}, child, 'text', [more])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'selected') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

export const $ = (sel, root = document) => root.querySelector(sel);

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function fmtRU(x) {
  return (Math.round(Number(x || 0) * 100) / 100).toFixed(2);
}

export function fmtInt(x) {
  return Number(x || 0).toLocaleString('en-US');
}

export function fmtBytes(n) {
  n = Number(n || 0);
  if (n < 1024) return `${n} B`;
  const u = ['KB', 'MB', 'GB', 'TB'];
  let i = -1;
  do {
    n /= 1024;
    i++;
  } while (n >= 1024 && i < u.length - 1);
  return `${n.toFixed(n < 10 ? 2 : 1)} ${u[i]}`;
}

// An error box with the server's message (and status/code, substatus, activity id).
export function errorBox(err, testid = 'error') {
  if (err instanceof ApiError) {
    const bits = [`${err.status || ''} ${err.code}`.trim()];
    if (err.substatus) bits.push(`substatus ${err.substatus}`);
    if (err.charge) bits.push(`${fmtRU(err.charge)} RU`);
    return h(
      'div',
      { class: 'error', role: 'alert', 'data-testid': testid },
      h('div', { class: 'error-head' }, bits.join(' · ')),
      h('pre', { class: 'error-msg', 'data-testid': testid + '-message' }, err.message),
      err.activityId ? h('div', { class: 'muted small' }, 'activity id ' + err.activityId) : null,
    );
  }
  return h(
    'div',
    { class: 'error', role: 'alert', 'data-testid': testid },
    h('pre', { class: 'error-msg', 'data-testid': testid + '-message' }, String((err && err.message) || err)),
  );
}

// Show an error in a slot element (replacing what it held).
export function showError(slot, err, testid) {
  clear(slot, errorBox(err, testid));
}

// A button that disables itself while its async handler runs and reports failures to onError.
// Afterwards it is enabled again unless stayDisabled() says otherwise (e.g. no next page).
export function actionButton(label, attrs, fn, onError, stayDisabled) {
  const b = h('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      await fn();
    } catch (e) {
      if (onError) onError(e);
      else console.error(e);
    } finally {
      b.disabled = stayDisabled ? !!stayDisabled() : false;
    }
  });
  return b;
}

// A simple table: columns are [{label, get(row) → text|Node, class}].
export function table(columns, rows, attrs = {}) {
  return h(
    'table',
    attrs,
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        columns.map((c) => h('th', { class: c.class }, c.label)),
      ),
    ),
    h(
      'tbody',
      null,
      rows.map((r, i) =>
        h(
          'tr',
          null,
          columns.map((c) => h('td', { class: c.class }, c.get(r, i))),
        ),
      ),
    ),
  );
}

// JSON text for display, compact for scalars.
export function jsonText(v, indent = 2) {
  return v === undefined ? 'undefined' : JSON.stringify(v, null, indent);
}

// Key/value rows for small metric tables.
export function kvTable(pairs, attrs = {}) {
  return h(
    'table',
    { class: 'kv', ...attrs },
    h(
      'tbody',
      null,
      pairs.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v))),
    ),
  );
}
