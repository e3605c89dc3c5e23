// Wiring: the key form, the hash router (#/db/X/coll/Y/view) and the views. Each view exports
// mount(el, ctx) and may return a function that stops it (polling views must stop when left).
import { getKey, setKey, forgetKey, signingAvailable, WELL_KNOWN_KEY } from './auth.js';
import { onResponse, listDatabases, ApiError } from './api.js';
import { $, clear, fmtRU, showError } from './ui.js';
import { renderNav, databasePage, containerPage, landingPage } from './data.js';
import * as items from './items.js';
import * as query from './query.js';
import * as partitions from './partitions.js';
import * as changefeed from './changefeed.js';
import * as cost from './cost.js';

const VIEWS = { items, query, partitions, cost, changefeed };
let stopView = null;
let sessionCharge = 0;

// Every response's charge goes to the top bar: "every operation shows its RU".
onResponse(({ method, url, status, charge, error, quiet }) => {
  sessionCharge += charge;
  $('#session-charge').textContent = `session ${fmtRU(sessionCharge)} RU`;
  if (quiet) return; // polls (partitions, change feed) would drown the last operation
  const op = $('#last-op');
  op.textContent = `${method} /${decodeURIComponent(url)} → ${status} · ${fmtRU(charge)} RU`;
  op.dataset.charge = String(charge);
  op.classList.toggle('bad', !!error);
});

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const r = { db: null, coll: null, view: 'items' };
  if (parts[0] === 'db' && parts[1]) r.db = parts[1];
  if (parts[2] === 'coll' && parts[3]) r.coll = parts[3];
  if (parts[4] && VIEWS[parts[4]]) r.view = parts[4];
  return r;
}

export function go(db, coll, view) {
  let hash = '#/';
  if (db) hash += 'db/' + encodeURIComponent(db);
  if (db && coll) hash += '/coll/' + encodeURIComponent(coll) + '/' + (view || 'items');
  if (location.hash === hash) route();
  else location.hash = hash;
}

// Routes can overlap (a click while the previous view still loads): only the latest may draw
// or leave a view running.
let routeGen = 0;

async function route() {
  if (!getKey()) return showKeyScreen();
  if (stopView) {
    stopView();
    stopView = null;
  }
  const gen = ++routeGen;
  const r = parseHash();
  const main = $('#main');
  const ctx = { ...r, go, current: () => gen === routeGen, refreshNav: () => renderNav($('#nav-tree'), r, go) };
  ctx.refreshNav();
  try {
    if (!r.db) return landingPage(main, ctx);
    if (!r.coll) return await databasePage(main, ctx);
    const body = await containerPage(main, ctx);
    if (!body || !ctx.current()) return;
    const stop = (await VIEWS[r.view].mount(body, ctx)) || null;
    if (ctx.current()) stopView = stop;
    else if (stop) stop();
  } catch (e) {
    if (!ctx.current()) return;
    if (e instanceof ApiError && e.status === 401) return showKeyScreen(e);
    showError(main, e, 'page-error');
  }
}

function showKeyScreen(err) {
  if (stopView) {
    stopView();
    stopView = null;
  }
  $('#app').hidden = true;
  $('#key-screen').hidden = false;
  $('#forget-key').hidden = true;
  const slot = $('#key-error');
  if (err) showError(slot, err, 'key-error');
  else clear(slot);
  if (!signingAvailable()) {
    showError(
      slot,
      new Error(
        "This page signs requests with the browser's crypto.subtle, which exists only in secure contexts: open it over HTTPS or at http://localhost / http://127.0.0.1.",
      ),
      'key-error',
    );
    $('#key-submit').disabled = true;
  }
}

function showApp() {
  $('#key-screen').hidden = true;
  $('#app').hidden = false;
  $('#forget-key').hidden = false;
}

// Enter the key: try it with a real request (list databases) and keep it only if it works.
async function submitKey(ev) {
  ev.preventDefault();
  const input = $('#key-input');
  const key = input.value.trim();
  if (!key) return;
  setKey(key);
  clear($('#key-error'));
  try {
    await listDatabases();
    input.value = '';
    showApp();
    route();
  } catch (e) {
    forgetKey();
    showKeyScreen(e);
  }
}

function init() {
  $('#key-form').addEventListener('submit', submitKey);
  $('#use-emulator-key').addEventListener('click', () => {
    $('#key-input').value = WELL_KNOWN_KEY;
    $('#key-input').focus();
  });
  $('#forget-key').addEventListener('click', () => {
    forgetKey();
    showKeyScreen();
  });
  $('#nav-home').addEventListener('click', (e) => {
    e.preventDefault();
    go();
  });
  window.addEventListener('hashchange', route);
  if (getKey()) {
    showApp();
    route();
  } else {
    showKeyScreen();
  }
}

init();

// Exposed for the browser test and the console (nothing secret: the key stays in sessionStorage).
window.cosmoliteExplorer = { go };
