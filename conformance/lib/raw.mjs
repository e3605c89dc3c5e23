// Raw REST requests signed with the master key, for what the SDK does not expose (read feed,
// malformed input, auth failures).
import crypto from "node:crypto";
import http from "node:http";
import https from "node:https";

export const API_VERSION = "2020-07-15";

const httpsAgent = new https.Agent({ rejectUnauthorized: false, keepAlive: true });
const httpAgent = new http.Agent({ keepAlive: true });

// The master-key signature of the REST API:
// base64(HMAC-SHA256(key, verb\nresourceType\nresourceLink\ndate\n\n)), URL-encoded in the header.
export function masterKeyAuthorization({ key, verb, resourceType, resourceLink, date }) {
  const payload = `${verb.toLowerCase()}\n${resourceType.toLowerCase()}\n${resourceLink}\n${date.toLowerCase()}\n\n`;
  const sig = crypto.createHmac("sha256", Buffer.from(key, "base64")).update(payload, "utf8").digest("base64");
  return encodeURIComponent(`type=master&ver=1.0&sig=${sig}`);
}

// Resource type and link to sign for a URL path: a feed (odd number of segments) is signed with
// its type and parent link, a resource with the type before its id and its own link.
export function signingTarget(urlPath) {
  const segments = urlPath
    .split("?")[0]
    .split("/")
    .filter((s) => s.length > 0)
    .map((s) => decodeURIComponent(s));
  if (segments.length === 0) return { resourceType: "", resourceLink: "" };
  if (segments.length % 2 === 1) {
    return { resourceType: segments[segments.length - 1], resourceLink: segments.slice(0, -1).join("/") };
  }
  return { resourceType: segments[segments.length - 2], resourceLink: segments.join("/") };
}

// Encode one id for a URL path segment.
export function seg(id) {
  return encodeURIComponent(id);
}

/**
 * Send one request. Options:
 *  method, path (URL path, already encoded), headers (extra), body (object → JSON, string/Buffer raw),
 *  auth: "sign" (default) | "none" | a literal authorization header value,
 *  key (override the signing key), date (override x-ms-date), resourceType/resourceLink (override),
 *  chunked (send the body with Transfer-Encoding: chunked).
 * Returns {status, headers, text, json} where json is the parsed body or undefined.
 */
export function rawRequest(target, options = {}) {
  const { method = "GET", path = "/", body, auth = "sign" } = options;
  const url = new URL(path, target.endpoint);
  const date = options.date ?? new Date().toUTCString();
  const headers = {
    "x-ms-date": date,
    "x-ms-version": API_VERSION,
    accept: "application/json",
  };
  let payload;
  if (body !== undefined) {
    if (Buffer.isBuffer(body) || typeof body === "string") payload = body;
    else payload = JSON.stringify(body);
    headers["content-type"] = "application/json";
  }
  if (auth === "sign") {
    const signed = signingTarget(url.pathname);
    headers.authorization = masterKeyAuthorization({
      key: options.key ?? target.key,
      verb: method,
      resourceType: options.resourceType ?? signed.resourceType,
      resourceLink: options.resourceLink ?? signed.resourceLink,
      date,
    });
  } else if (auth !== "none") {
    headers.authorization = auth;
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined || value === null) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = String(value);
  }
  // chunked: send the body with Transfer-Encoding: chunked, in several pieces.
  if (payload !== undefined && !options.chunked) headers["content-length"] = Buffer.byteLength(payload);

  const secure = url.protocol === "https:";
  const lib = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      { method, headers, agent: secure ? httpsAgent : httpAgent, timeout: 15_000 },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json;
          try {
            json = text.length ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, headers: res.headers, text, json });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on("error", reject);
    if (payload !== undefined && options.chunked) {
      const bytes = Buffer.from(payload);
      for (let i = 0; i < bytes.length; i += 16_384) req.write(bytes.subarray(i, i + 16_384));
    } else if (payload !== undefined) {
      req.write(payload);
    }
    req.end();
  });
}

export function closeAgents() {
  httpsAgent.destroy();
  httpAgent.destroy();
}
