// REST calls to the emulator: URL building, signing, JSON bodies and errors. Every answer
// (success or failure) is reported to the listeners, so the page can show the request charge
// of every operation in one place.
import { signHeaders } from './auth.js';

export class ApiError extends Error {
  constructor(status, code, message, headers, extra = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.substatus = headers ? Number(headers.get('x-ms-substatus') || 0) : 0;
    this.activityId = extra.activityId || '';
    this.body = extra.body;
  }
}

const listeners = [];
export function onResponse(fn) {
  listeners.push(fn);
}

// The signing rules: for a feed (odd number of segments: /dbs, /dbs/X/colls, …/docs) the
// resource type is the last segment and the link the path before it; for one resource (even
// number) the type is the second-to-last segment and the link the whole path. Ids go raw into
// the link but percent-encoded into the URL. The admin API (/_cosmolite/…) signs as the account.
function resourceOf(segments, admin) {
  if (admin) return { type: '', link: '' };
  const n = segments.length;
  if (n % 2 === 1) return { type: segments[n - 1], link: segments.slice(0, n - 1).join('/') };
  return { type: segments[n - 2], link: segments.join('/') };
}

// The server's message ends with "\r\nActivityId: …"; query syntax errors wrap a JSON list of
// errors in it. Turn both into readable text.
export function parseMessage(raw) {
  let text = String(raw || '');
  let activityId = '';
  const m = text.match(/\r?\nActivityId: *([^\r\n,]*)/);
  if (m) {
    activityId = m[1].trim();
    text = text.slice(0, m.index) + text.slice(m.index + m[0].length);
  }
  text = text.trim();
  if (text.startsWith('{')) {
    try {
      const j = JSON.parse(text);
      if (Array.isArray(j.errors)) {
        text = j.errors
          .map((e) => {
            const at = e.location ? ` (at ${e.location.start}–${e.location.end})` : '';
            return `${e.code ? e.code + ': ' : ''}${e.message}${at}`;
          })
          .join('\n');
      }
    } catch {
      /* not JSON after all: keep the text */
    }
  }
  return { text, activityId };
}

// request('GET', ['dbs', db, 'colls'], {headers, body, admin, signal, quiet, query})
// (query: URL parameters, e.g. {hourSeconds: 1}; not part of the signature)
// (quiet: a poll, not an operation the user asked for; the top bar ignores it)
// → {status, headers, json, charge}; throws ApiError for any status >= 400.
export async function request(method, segments, opts = {}) {
  const { type, link } = resourceOf(segments, opts.admin);
  const url =
    segments.map(encodeURIComponent).join('/') + (opts.query ? '?' + new URLSearchParams(opts.query).toString() : '');
  const headers = { ...(await signHeaders(method, type, link)), ...(opts.headers || {}) };
  let body;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  let resp;
  try {
    // Relative URL: the page lives at /_explorer/, the API at the root.
    resp = await fetch('../' + url, { method, headers, body, cache: 'no-store', signal: opts.signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    const err = new ApiError(0, 'NetworkError', `Could not reach the server: ${e.message}`, null);
    report(method, url, err.status, 0, err, opts.quiet);
    throw err;
  }
  const charge = Number(resp.headers.get('x-ms-request-charge') || 0);
  const text = resp.status === 304 ? '' : await resp.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (resp.status >= 400) {
    const raw = json && json.message !== undefined ? json.message : text || resp.statusText;
    const { text: message, activityId } = parseMessage(raw);
    const err = new ApiError(
      resp.status,
      (json && json.code) || String(resp.status),
      message || `HTTP ${resp.status}`,
      resp.headers,
      { activityId, body: json },
    );
    err.charge = charge;
    report(method, url, resp.status, charge, err, opts.quiet);
    throw err;
  }
  const out = { status: resp.status, headers: resp.headers, json, charge };
  report(method, url, resp.status, charge, null, opts.quiet);
  return out;
}

function report(method, url, status, charge, error, quiet) {
  for (const fn of listeners) fn({ method, url, status, charge, error, quiet: !!quiet });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Like request, but waits out 429s as an SDK would (x-ms-retry-after-ms), a few times.
export async function requestWithRetry(method, segments, opts = {}, tries = 9) {
  for (let i = 0; ; i++) {
    try {
      return await request(method, segments, opts);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 429 || i >= tries) throw e;
      await sleep(Number(e.headers.get('x-ms-retry-after-ms') || 100));
    }
  }
}

// ---- a few calls more than one view needs ----

export const listDatabases = async () => (await request('GET', ['dbs'])).json.Databases || [];
export const listContainers = async (db) => (await request('GET', ['dbs', db, 'colls'])).json.DocumentCollections || [];
export const readContainer = async (db, c) => (await request('GET', ['dbs', db, 'colls', c])).json;
export const listPkRanges = async (db, c) =>
  (await request('GET', ['dbs', db, 'colls', c, 'pkranges'])).json.PartitionKeyRanges || [];

// The partition key header value of an item: one value per path of the container's key;
// a missing value is {} (the SDKs' "undefined" partition key).
export function partitionKeyOf(item, pkDef) {
  const paths = (pkDef && pkDef.paths) || [];
  return paths.map((p) => {
    let v = item;
    for (const part of splitPath(p)) {
      if (v === null || typeof v !== 'object' || !(part in v)) return {};
      v = v[part];
    }
    return v === undefined ? {} : v;
  });
}

// "/a/b" → ["a","b"]; '/"odd name"/x' → ["odd name","x"].
function splitPath(path) {
  const out = [];
  const re = /\/(?:"((?:[^"\\]|\\.)*)"|([^/]*))/g;
  let m;
  while ((m = re.exec(path))) out.push(m[1] !== undefined ? m[1] : m[2]);
  return out;
}

// A new correlated activity id groups the pages and ranges of one query in the server's
// query log (/_cosmolite/queries), as the SDKs do.
export function newActivityId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return 'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => ((Math.random() * 16) | 0).toString(16));
}
