// The account key and request signing. The key lives in sessionStorage only (gone when the
// tab closes) and never leaves the page: every request carries an HMAC signature made here,
// exactly as the SDKs sign with a master key, so the server needs no session of its own.

export const WELL_KNOWN_KEY =
  'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';

const STORAGE_KEY = 'cosmolite.key';
let cryptoKey = null; // the imported HMAC key, cached: importKey per request is wasteful
let cryptoKeyFor = null;

// crypto.subtle only exists in secure contexts (https, localhost, 127.0.0.1).
export function signingAvailable() {
  return !!(globalThis.crypto && globalThis.crypto.subtle);
}

export function getKey() {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function setKey(key) {
  sessionStorage.setItem(STORAGE_KEY, key.trim());
  cryptoKey = null;
}

export function forgetKey() {
  sessionStorage.removeItem(STORAGE_KEY);
  cryptoKey = null;
}

function base64ToBytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function bytesToBase64(buf) {
  const bytes = new Uint8Array(buf);
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin);
}

async function hmacKey() {
  const key = getKey();
  if (!key) throw new Error('No account key entered.');
  if (cryptoKey && cryptoKeyFor === key) return cryptoKey;
  let raw;
  try {
    raw = base64ToBytes(key);
  } catch {
    throw new Error('The key is not valid base64.');
  }
  cryptoKey = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  cryptoKeyFor = key;
  return cryptoKey;
}

// Headers for one request. resourceType/resourceLink follow the REST rules (see api.js);
// the admin API is signed with both empty, as the SDKs sign account-level requests.
export async function signHeaders(verb, resourceType, resourceLink) {
  if (!signingAvailable()) {
    throw new Error(
      'This browser gives no crypto.subtle here: open the explorer over HTTPS or on localhost / 127.0.0.1.',
    );
  }
  const date = new Date().toUTCString();
  const text = `${verb.toLowerCase()}\n${resourceType.toLowerCase()}\n${resourceLink}\n${date.toLowerCase()}\n\n`;
  const sig = await crypto.subtle.sign('HMAC', await hmacKey(), new TextEncoder().encode(text));
  return {
    'x-ms-date': date,
    'x-ms-version': '2020-07-15',
    authorization: encodeURIComponent('type=master&ver=1.0&sig=' + bytesToBase64(sig)),
  };
}
