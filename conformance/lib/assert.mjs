// Assertions with messages that say what was expected and what came back.
import util from "node:util";

export class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = "AssertionError";
  }
}

const show = (v) => util.inspect(v, { depth: 4, breakLength: Infinity, maxStringLength: 200 });

export function fail(message) {
  throw new AssertionError(message);
}

export function ok(condition, message) {
  if (!condition) fail(message);
}

export function eq(actual, expected, what) {
  if (actual !== expected) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function deepEq(actual, expected, what) {
  if (!util.isDeepStrictEqual(actual, expected)) {
    fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

export function notEq(actual, unexpected, what) {
  if (actual === unexpected) fail(`${what}: expected a value other than ${show(unexpected)}`);
}

export function match(actual, regex, what) {
  if (typeof actual !== "string" || !regex.test(actual)) fail(`${what}: expected to match ${regex}, got ${show(actual)}`);
}

export function includes(haystack, needle, what) {
  const found = typeof haystack === "string" ? haystack.includes(needle) : Array.isArray(haystack) && haystack.some((x) => util.isDeepStrictEqual(x, needle));
  if (!found) fail(`${what}: expected ${show(haystack)} to include ${show(needle)}`);
}

export function isType(value, type, what) {
  const actual = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  if (actual !== type) fail(`${what}: expected a ${type}, got ${actual} ${show(value)}`);
}

// Header lookup that works for Node's IncomingHttpHeaders and the SDK's header objects.
export function header(headers, name) {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

// x-ms-request-charge is present; positive unless allowZero.
export function charge(headers, what, { allowZero = false } = {}) {
  const value = header(headers, "x-ms-request-charge");
  ok(value !== undefined, `${what}: x-ms-request-charge header missing`);
  const n = Number(value);
  ok(Number.isFinite(n), `${what}: x-ms-request-charge is not a number: ${show(value)}`);
  if (!allowZero) ok(n > 0, `${what}: x-ms-request-charge should be positive, got ${value}`);
  return n;
}

// Status of an SDK response or a raw response.
export function status(response, expected, what) {
  const actual = response.statusCode ?? response.status;
  if (actual !== expected) {
    const body = response.text ?? response.resource;
    fail(`${what}: expected HTTP ${expected}, got ${actual}${body ? ` body ${show(body)}` : ""}`);
  }
}

// A raw error response: status, optional substatus, JSON body with code and message.
export function rawError(response, expectedStatus, what, { substatus } = {}) {
  status(response, expectedStatus, what);
  if (substatus !== undefined) {
    eq(Number(header(response.headers, "x-ms-substatus")), substatus, `${what}: x-ms-substatus`);
  }
  errorBody(response.json ?? response.text, what);
  return response;
}

export function errorBody(body, what) {
  ok(body && typeof body === "object", `${what}: error body should be a JSON object, got ${show(body)}`);
  isType(body.code, "string", `${what}: error body code`);
  isType(body.message, "string", `${what}: error body message`);
  ok(body.message.length > 0, `${what}: error body message is empty`);
}

/**
 * Await an SDK call that must fail with the given status (and substatus). Returns the error.
 * Checks the ErrorResponse carries a JSON body with code and message and a request charge header.
 */
export async function rejects(promiseOrFn, expectedStatus, what, { substatus, checkBody = true } = {}) {
  let result;
  try {
    result = await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
  } catch (error) {
    if (error instanceof AssertionError) throw error;
    if (error.code !== expectedStatus) {
      fail(`${what}: expected HTTP ${expectedStatus}, got ${show(error.code)} (${error.message?.slice(0, 300)})`);
    }
    if (substatus !== undefined) eq(Number(error.substatus), substatus, `${what}: substatus`);
    if (checkBody) errorBody(error.body, what);
    return error;
  }
  const got = result?.statusCode;
  if (got === expectedStatus) {
    // item.read() resolves with statusCode 404 instead of throwing.
    if (substatus !== undefined) eq(Number(result.substatus), substatus, `${what}: substatus`);
    return result;
  }
  fail(`${what}: expected HTTP ${expectedStatus}, but the call succeeded with ${show(got)}`);
}
